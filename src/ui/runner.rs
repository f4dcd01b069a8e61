//! Starts the selected modes at once and routes each run's events into its panel.

use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::AbortController;

use super::frame_batch::FrameBatch;
use super::stoppable_tools::StoppableTools;
use crate::agent::action_protocol::{ProtocolChoice, ProtocolPlan};
use crate::agent::record::{RunConfig, RunRecord, Status};
use crate::agent::run::{run_turn, Next, RunOptions};
use crate::agent::{AgentEvent, Mode, Toolbox};
use crate::llm::ChatParams;
use crate::settings::Settings;
use crate::tools::registry::ToolEnv;
use crate::tools::Registry;
use crate::web::fetch::BrowserChatModel;
use crate::web::jsonp::FrameJsonp;
use crate::web::model_info::model_list;
use crate::web::python_worker::WorkerPython;
use crate::web::tool_fetch::BrowserHttp;

/// Time limit of one web request of a tool, and of one JSONP search.
const TOOL_TIMEOUT_SECS: u32 = 15;

/// One panel of one run.
#[derive(Clone)]
pub struct PanelRun {
    pub run_id: u32,
    pub mode: Mode,
    pub max_steps: u32,
    /// The run's record, which the panel shows.
    pub state: RwSignal<RunRecord>,
    /// The tools of the run, kept for Continue: their cache and Python worker go on.
    pub tools: StoredValue<Option<Rc<Registry>>, LocalStorage>,
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
            state: RwSignal::new(RunRecord::default()),
            tools: StoredValue::new_local(None),
            settings: Arc::new(settings.clone()),
        }
    }
}

pub(crate) fn chat_model(
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
        max_stream_secs: settings.stream_max_secs,
    }
}

/// Each panel's run has its own tools: its own cache, Wikipedia page and Python worker.
/// None of them is given the token.
pub(crate) fn run_tools(settings: &Settings) -> Registry {
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

/// What a call of `model` sends besides the conversation.
pub(crate) fn chat_params(settings: &Settings, model: &str) -> ChatParams {
    ChatParams {
        model: model.trim().to_string(),
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
    }
}

/// Continues a panel's run that a broken stream cut, from the step it was in, with the run's
/// own settings, conversation and tools.
pub fn continue_run(token: &str, panel: &PanelRun, controller: &AbortController) {
    let resumable = panel
        .state
        .with_untracked(|r| r.last_turn().and_then(|t| t.resumable));
    let Some((step, protocol)) = resumable else {
        return;
    };
    // Said through the record, so a second press finds nothing to continue.
    FrameBatch::new(panel.state).apply_now(AgentEvent::GoingOn);
    go_on(token, panel, Next::Resume { step, protocol }, controller);
}

/// Asks a follow-up question in a panel's conversation: every earlier turn goes with it.
pub fn follow_up(token: &str, panel: &PanelRun, question: &str, controller: &AbortController) {
    go_on(
        token,
        panel,
        Next::Question(question.to_string()),
        controller,
    );
}

/// Runs `next` on the panel's record, with the run's own settings and tools (their cache and
/// Python worker go on).
fn go_on(token: &str, panel: &PanelRun, next: Next, controller: &AbortController) {
    let record = panel.state.get_untracked();
    let settings = &panel.settings;
    let params = chat_params(settings, &record.config.model);
    let model = chat_model(settings, token, &params, controller);
    let tools = panel
        .tools
        .get_value()
        .unwrap_or_else(|| Rc::new(run_tools(settings)));
    let protocol = match &next {
        Next::Resume { protocol, .. } => *protocol,
        Next::Question(_) => record.config.protocol,
    };
    let options = RunOptions {
        max_steps: record.config.max_steps,
        plan: ProtocolPlan {
            protocol,
            fall_back_to_text: false,
        },
    };
    let state = panel.state;
    spawn_local(async move {
        let batch = FrameBatch::new(state);
        let mut emit = |event| batch.push(event);
        let tools = StoppableTools {
            tools: tools.as_ref(),
            signal: model.signal.clone(),
        };
        run_turn(record, next, &model, &tools, &options, &mut emit).await;
        batch.flush();
    });
}

/// A record for a new run of `mode` with these settings.
pub(crate) fn new_record(
    run_id: u32,
    mode: Mode,
    settings: &Settings,
    tools: &Registry,
) -> RunRecord {
    let now = js_sys::Date::now();
    let config = RunConfig {
        mode,
        model: settings.model_for(mode).to_string(),
        base_url: settings.base_url.trim().to_string(),
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
        max_steps: if mode.uses_tools() {
            settings.max_steps
        } else {
            1
        },
        tools: if mode.uses_tools() {
            tools
                .specs()
                .into_iter()
                .map(|s| s.name.to_string())
                .collect()
        } else {
            Vec::new()
        },
        ..RunConfig::default()
    };
    RunRecord::new(format!("{now:.0}-{run_id}-{}", mode.id()), now, config)
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
    let snapshot = Arc::new(settings.clone());
    let mut jobs = Vec::new();
    let panels = modes
        .iter()
        .map(|&mode| {
            let tools = Rc::new(run_tools(settings));
            let record = RunRecord {
                // Waiting from the start: the model list may be read before the first event.
                status: Status::Waiting,
                ..new_record(run_id, mode, settings, &tools)
            };
            let panel = PanelRun {
                run_id,
                mode,
                max_steps: settings.max_steps,
                state: RwSignal::new(record),
                tools: StoredValue::new_local(Some(tools.clone())),
                settings: snapshot.clone(),
            };
            let params = chat_params(settings, settings.model_for(mode));
            let model = chat_model(settings, token, &params, controller);
            jobs.push((mode, model, tools, panel.state));
            panel
        })
        .collect();

    let (base_url, token) = (settings.base_url.clone(), token.to_string());
    let (question, max_steps) = (question.to_string(), settings.max_steps);
    let (choice, context_setting) = (settings.protocol, settings.context_length);
    spawn_local(async move {
        // Price, context window and tool support of each mode's model (read once per page).
        let list = model_list(&base_url, &token).await;
        for (mode, model, tools, state) in jobs {
            let facts = list
                .as_ref()
                .and_then(|l| l.facts(&model.params.model))
                .unwrap_or_default();
            let supports = if mode.uses_tools() && choice == ProtocolChoice::Auto {
                facts.supports_tools
            } else {
                None
            };
            let options = RunOptions {
                max_steps,
                plan: ProtocolPlan::resolve(choice, supports),
            };
            // The run has not started: its configuration is completed with what the endpoint
            // says, before the loop takes its copy.
            let configured = state.try_update(|r| {
                r.config.pricing = facts.pricing;
                r.config.context_length = (context_setting > 0)
                    .then_some(context_setting)
                    .or(facts.context_length);
                r.clone()
            });
            let Some(record) = configured else {
                continue; // a newer run replaced this panel meanwhile
            };
            let next = Next::Question(question.clone());
            spawn_local(async move {
                let batch = FrameBatch::new(state);
                let mut emit = |event| batch.push(event);
                let tools = StoppableTools {
                    tools: tools.as_ref(),
                    signal: model.signal.clone(),
                };
                run_turn(record, next, &model, &tools, &options, &mut emit).await;
                batch.flush();
            });
        }
    });
    panels
}
