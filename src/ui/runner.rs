//! Starts the selected modes at once and routes each run's events into its panel.

use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::AbortController;

use crate::agent::panel::PanelState;
use crate::agent::{run_agent, Mode};
use crate::llm::fetch::BrowserChatModel;
use crate::llm::ChatParams;
use crate::settings::Settings;
use crate::tools::Registry;

/// One panel of one run.
#[derive(Clone)]
pub struct PanelRun {
    pub run_id: u32,
    pub mode: Mode,
    pub max_steps: u32,
    pub state: RwSignal<PanelState>,
}

impl PanelRun {
    pub fn idle(mode: Mode, max_steps: u32) -> Self {
        Self {
            run_id: 0,
            mode,
            max_steps,
            state: RwSignal::new(PanelState::default()),
        }
    }
}

/// Spawns one task per mode. They interleave on the page's event loop, so their requests are
/// in flight together: the three modes run concurrently, not one after another.
pub fn start_runs(
    run_id: u32,
    settings: &Settings,
    token: &str,
    question: &str,
    modes: &[Mode],
    controller: &AbortController,
) -> Vec<PanelRun> {
    let params = ChatParams {
        model: settings.model.trim().to_string(),
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
    };
    modes
        .iter()
        .map(|&mode| {
            let panel = PanelRun {
                run_id,
                mode,
                max_steps: settings.max_steps,
                state: RwSignal::new(PanelState::starting()),
            };
            let model = BrowserChatModel {
                base_url: settings.base_url.clone(),
                token: token.to_string(),
                params: params.clone(),
                signal: controller.signal(),
            };
            let (state, question, max_steps) =
                (panel.state, question.to_string(), settings.max_steps);
            spawn_local(async move {
                let tools = Registry::standard();
                // `try_update`: the panel may have been replaced by a newer run meanwhile.
                let mut emit = |event| {
                    state.try_update(|s| s.apply(event));
                };
                run_agent(mode, &question, &model, &tools, max_steps, &mut emit).await;
            });
            panel
        })
        .collect()
}
