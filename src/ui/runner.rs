//! Starts the selected modes at once and routes each run's events into its panel.

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::AbortController;

use super::jsonp::FrameJsonp;
use super::python_worker::WorkerPython;
use super::tool_fetch::BrowserHttp;
use crate::agent::panel::PanelState;
use crate::agent::{run_agent, Mode};
use crate::llm::fetch::BrowserChatModel;
use crate::llm::ChatParams;
use crate::settings::Settings;
use crate::tools::registry::ToolEnv;
use crate::tools::Registry;

/// Time limit of one web request of a tool, and of one JSONP search.
const TOOL_TIMEOUT_SECS: u32 = 15;

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
            // Each panel's run has its own tools: its own cache, Wikipedia page and Python
            // worker. None of them is given the token.
            let env = ToolEnv {
                http: Rc::new(BrowserHttp {
                    timeout_secs: TOOL_TIMEOUT_SECS,
                }),
                jsonp: Rc::new(FrameJsonp {
                    timeout_secs: TOOL_TIMEOUT_SECS,
                }),
                python: Rc::new(WorkerPython::new(settings.tool_endpoints.pyodide.clone())),
                endpoints: settings.tool_endpoints.clone(),
                python_timeout_secs: settings.python_timeout_secs,
            };
            let tools = Registry::for_run(&env, |name| settings.tool_enabled(name));
            spawn_local(async move {
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
