//! Starts the selected modes at once and routes each run's events into its panel.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::AbortController;

use super::frame_batch::FrameBatch;
use crate::agent::action_protocol::{ProtocolChoice, ProtocolPlan};
use crate::agent::record::{RunConfig, RunRecord, Status};
use crate::agent::run::{Next, RunOptions};
use crate::agent::{AgentEvent, Mode};
use crate::settings::Settings;
use crate::tools::Registry;
use crate::turn_request::TurnRequest;
use crate::web::engine;
use crate::web::model_info::model_list;

/// One panel of one run.
#[derive(Clone)]
pub struct PanelRun {
    pub run_id: u32,
    pub mode: Mode,
    pub max_steps: u32,
    /// The run's record, which the panel shows.
    pub state: RwSignal<RunRecord>,
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
            settings: Arc::new(settings.clone()),
        }
    }
}

/// Runs one turn in the engine module, its events drawn into `state` once a frame. An engine
/// that cannot be loaded ends the turn with the reason, in the panel.
fn spawn_turn(request: TurnRequest, state: RwSignal<RunRecord>, controller: &AbortController) {
    let signal = controller.signal();
    spawn_local(async move {
        let batch = FrameBatch::new(state);
        let sink = batch.clone();
        if let Err(e) = engine::run_turn(&request, &signal, move |event| sink.push(event)).await {
            batch.push(AgentEvent::Error(e));
        }
        batch.flush();
    });
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
    let request = TurnRequest {
        // The engine keeps the run's tools under its id: their cache and Python worker go on.
        tools_key: record.id.clone(),
        record,
        next,
        settings: panel.settings.as_ref().clone(),
        token: token.to_string(),
        options,
    };
    spawn_turn(request, panel.state, controller);
}

/// A record for a new run of `mode` with these settings.
pub(crate) fn new_record(run_id: u32, mode: Mode, settings: &Settings) -> RunRecord {
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
            Registry::enabled_names(|name| settings.tool_enabled(name))
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
    // The engine loads while the model list is read.
    engine::prefetch();
    let snapshot = Arc::new(settings.clone());
    let panels: Vec<PanelRun> = modes
        .iter()
        .map(|&mode| {
            let record = RunRecord {
                // Waiting from the start: the model list may be read before the first event.
                status: Status::Waiting,
                ..new_record(run_id, mode, settings)
            };
            PanelRun {
                run_id,
                mode,
                max_steps: settings.max_steps,
                state: RwSignal::new(record),
                settings: snapshot.clone(),
            }
        })
        .collect();
    let jobs: Vec<_> = panels.iter().map(|p| (p.mode, p.state)).collect();

    let (base_url, token) = (settings.base_url.clone(), token.to_string());
    let (question, max_steps) = (question.to_string(), settings.max_steps);
    let (choice, context_setting) = (settings.protocol, settings.context_length);
    let controller = controller.clone();
    spawn_local(async move {
        // Price, context window and tool support of each mode's model (read once per page).
        let list = model_list(&base_url, &token).await;
        for (mode, state) in jobs {
            let model = snapshot.model_for(mode).trim().to_string();
            let facts = list
                .as_ref()
                .and_then(|l| l.facts(&model))
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
            // says, before the engine takes its copy.
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
            let request = TurnRequest {
                tools_key: record.id.clone(),
                record,
                next: Next::Question(question.clone()),
                settings: snapshot.as_ref().clone(),
                token: token.clone(),
                options,
            };
            spawn_turn(request, state, &controller);
        }
    });
    panels
}
