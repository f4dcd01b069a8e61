//! Starts the selected modes at once and routes each run's events into its panel.

use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::AbortController;

use super::frame_batch::FrameBatch;
use super::jsonp::FrameJsonp;
use super::model_info::model_supports_tools;
use super::python_worker::WorkerPython;
use super::tool_fetch::BrowserHttp;
use crate::agent::action_protocol::{ProtocolChoice, ProtocolPlan};
use crate::agent::panel::PanelState;
use crate::agent::run::{resume_agent, Resume, RunOptions};
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
    /// The settings the run started with: Continue uses these, not today's. (`Arc`: signals
    /// hold only `Send` values.)
    pub settings: Arc<Settings>,
}

impl PanelRun {
    pub fn idle(mode: Mode, settings: &Settings) -> Self {
        Self {
            run_id: 0,
            mode,
            max_steps: settings.max_steps,
            state: RwSignal::new(PanelState::default()),
            settings: Arc::new(settings.clone()),
        }
    }
}

fn chat_model(
    settings: &Settings,
    token: &str,
    params: &ChatParams,
    controller: &AbortController,
) -> BrowserChatModel {
    BrowserChatModel {
        base_url: settings.base_url.clone(),
        token: token.to_string(),
        params: params.clone(),
        signal: controller.signal(),
        idle_timeout_secs: settings.stream_idle_timeout_secs,
    }
}

/// Each panel's run has its own tools: its own cache, Wikipedia page and Python worker.
/// None of them is given the token.
fn run_tools(settings: &Settings) -> Registry {
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
    Registry::for_run(&env, |name| settings.tool_enabled(name))
}

fn chat_params(settings: &Settings) -> ChatParams {
    ChatParams {
        model: settings.model.trim().to_string(),
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
    }
}

/// Continues a panel's run that a broken stream cut, from the step it was in, with the run's
/// own settings.
pub fn continue_run(token: &str, panel: &PanelRun, from: Resume, controller: &AbortController) {
    let settings = &panel.settings;
    let params = chat_params(settings);
    let model = chat_model(settings, token, &params, controller);
    let tools = run_tools(settings);
    let options = RunOptions {
        max_steps: panel.max_steps,
        plan: ProtocolPlan {
            protocol: from.protocol,
            fall_back_to_text: false,
        },
    };
    let (mode, state) = (panel.mode, panel.state);
    spawn_local(async move {
        let batch = FrameBatch::new(state);
        let mut emit = |event| batch.push(event);
        resume_agent(mode, from, &model, &tools, &options, &mut emit).await;
        batch.flush();
    });
}

/// Spawns one task per mode. They interleave on the page's event loop, so their requests are
/// in flight together: the three modes run concurrently, not one after another. With the
/// "auto" protocol the endpoint's model list is read first (once per endpoint and page).
pub fn start_runs(
    run_id: u32,
    settings: &Settings,
    token: &str,
    question: &str,
    modes: &[Mode],
    controller: &AbortController,
) -> Vec<PanelRun> {
    let params = chat_params(settings);
    let snapshot = Arc::new(settings.clone());
    let mut jobs = Vec::new();
    let panels = modes
        .iter()
        .map(|&mode| {
            let panel = PanelRun {
                run_id,
                mode,
                max_steps: settings.max_steps,
                state: RwSignal::new(PanelState::starting()),
                settings: snapshot.clone(),
            };
            let model = chat_model(settings, token, &params, controller);
            jobs.push((mode, model, run_tools(settings), panel.state));
            panel
        })
        .collect();

    let needs_plan =
        settings.protocol == ProtocolChoice::Auto && modes.iter().any(|m| m.uses_tools());
    let (choice, base_url, token, model_id) = (
        settings.protocol,
        settings.base_url.clone(),
        token.to_string(),
        params.model.clone(),
    );
    let (question, max_steps) = (question.to_string(), settings.max_steps);
    spawn_local(async move {
        let supports = if needs_plan {
            model_supports_tools(&base_url, &token, &model_id).await
        } else {
            None
        };
        let options = RunOptions {
            max_steps,
            plan: ProtocolPlan::resolve(choice, supports),
        };
        for (mode, model, tools, state) in jobs {
            let question = question.clone();
            spawn_local(async move {
                let batch = FrameBatch::new(state);
                let mut emit = |event| batch.push(event);
                run_agent(mode, &question, &model, &tools, &options, &mut emit).await;
                batch.flush();
            });
        }
    });
    panels
}
