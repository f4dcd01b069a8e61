//! Accessibility: axe-core (from node_modules, injected by the test, never shipped) checks the
//! page in headless Chromium when idle, after a finished All run, with the settings open, and
//! in the dark theme. No violation of impact "serious" or "critical" is allowed; every
//! violation found is printed with its nodes.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use support::axe::{assert_no_serious, axe};
use support::browser::{browser_test, Rig};
use support::cdp::emulate_color_scheme;

const SETTLE: Duration = Duration::from_secs(30);

#[test]
fn axe_finds_no_serious_violations_idle_after_a_run_and_in_settings() {
    browser_test(|rig: Rig| async move {
        rig.mock.script_six_times_seven(
            "Thought: Six groups of seven make forty-two.\nAnswer: It is **42**:\n\n```\n6 * 7\n```",
            0,
        );
        rig.open_app(3).await;
        emulate_color_scheme(&rig.client, "light").await;
        assert_no_serious("the idle page", &axe(&rig).await);

        rig.ask("What is 6 times 7?", "all").await;
        let panels = rig.wait_until_settled(SETTLE).await;
        assert!(panels.iter().all(|p| p.status == "done"), "{panels:#?}");
        assert_no_serious("after a finished All run", &axe(&rig).await);

        rig.open_settings().await;
        assert_no_serious("with the settings open", &axe(&rig).await);

        // The dark theme keeps the same contrast.
        emulate_color_scheme(&rig.client, "dark").await;
        assert_no_serious("dark theme, after a run, settings open", &axe(&rig).await);
    });
}

#[test]
fn axe_finds_no_serious_violations_on_a_first_visit() {
    browser_test(|rig: Rig| async move {
        rig.client.goto(&rig.app_url).await.unwrap();
        rig.js("localStorage.clear(); sessionStorage.clear();")
            .await;
        rig.client.goto(&rig.app_url).await.unwrap();
        rig.wait_for(
            "the app",
            SETTLE,
            "return !!document.querySelector('#run');",
        )
        .await;
        assert_no_serious("a first visit without a token", &axe(&rig).await);
    });
}
