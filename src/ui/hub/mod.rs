//! The Hub: publishing to a dataset repository of the user's (`publish.rs`), the community
//! leaderboard read from every public one tagged `react-arena` (`community.rs`), and a
//! published run opened by its address (`open_run.rs`). All in the parts chunk.

pub mod community;
pub mod open_run;
pub mod publish;

use leptos::prelude::*;

use crate::history::RunSummary;
use crate::hub::repo::hub_base;
use crate::ui::parts::{show_hub, show_once, HubPart};
use crate::web::storage;

/// The two sections, closed: each draws its view (from the Hub's chunk) once first opened.
#[component]
pub fn HubSections(runs: RwSignal<Vec<RunSummary>>) -> impl IntoView {
    let publish_opened = RwSignal::new(false);
    let community_opened = RwSignal::new(false);
    let opened = |signal: RwSignal<bool>| {
        move |ev: leptos::ev::Event| {
            if event_target::<web_sys::HtmlDetailsElement>(&ev).open() {
                signal.set(true);
            }
        }
    };
    view! {
        <section aria-label="Publish to the Hub">
            <details id="hub-publish-section" class="leaderboard hub-publish" on:toggle=opened(publish_opened)>
                <summary>"Publish to the Hub…"</summary>
                {show_once(move || publish_opened.get(), move || show_hub(HubPart::Publish(runs)).into_any())}
            </details>
        </section>
        <section aria-label="Community leaderboard">
            <details id="community" class="leaderboard community" on:toggle=opened(community_opened)>
                <summary>"Community leaderboard"</summary>
                {show_once(move || community_opened.get(), || show_hub(HubPart::Community).into_any())}
            </details>
        </section>
    }
}

/// The Hub's base URL: the one the user set in the publish dialog, or the Hub's own.
pub fn hub_url() -> String {
    hub_base(&storage::load_hub_url())
}

/// How long one request to the Hub may take.
pub const REQUEST_MS: u32 = 15_000;
