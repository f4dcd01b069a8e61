//! Starts the selected modes at once, follow-ups and continued runs: the panels are made
//! here, at once; their turns are driven by the page's parts chunk (src/ui/turn_driver.rs).

use std::sync::Arc;

use leptos::prelude::*;
use web_sys::AbortController;

use crate::agent::mode::blind_label;
use crate::agent::protocols::action_protocol::ProtocolPlan;
use crate::agent::record::{Blind, RunConfig, RunRecord, Status};
use crate::agent::run::{Next, RunOptions};
use crate::agent::{AgentEvent, Mode};
use crate::settings::Settings;
use crate::turn_request::TurnRequest;
use crate::ui::panel::frame_batch::FrameBatch;
use crate::ui::panel::panel_run::PanelRun;
use crate::ui::parts::{start_turns, Turns};
use crate::ui::turn_driver::{FirstTurns, Turn};
use crate::web::engine;

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

/// Asks the latest question of a panel's run again; the attempt it replaces stays in the
/// record.
pub fn retry(token: &str, panel: &PanelRun, controller: &AbortController) {
    go_on(token, panel, Next::Retry, controller);
}

/// Lets a panel's run that hit the step limit go on for as many steps again.
pub fn go_on_past_limit(token: &str, panel: &PanelRun, controller: &AbortController) {
    go_on(
        token,
        panel,
        Next::MoreSteps {
            steps: panel.more_steps(),
        },
        controller,
    );
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
        _ => record.config.protocol,
    };
    let options = RunOptions {
        // A retry goes by the run's own limit, not one raised by going on past it.
        max_steps: match &next {
            Next::Retry => panel.settings.max_steps,
            _ => record.config.max_steps,
        },
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
    // The panel says at once that it waits: the engine's first event is a chunk fetch or a
    // frame away, and until then the panel would still read as answered.
    panel.state.update(|r| r.status = Status::Waiting);
    start_turns(Turns::One(Box::new(Turn {
        request,
        state: panel.state,
        signal: controller.signal(),
    })));
}

/// A record for a new run of `mode` with these settings.
pub(crate) fn new_record(run_id: u32, mode: Mode, settings: &Settings) -> RunRecord {
    let now = crate::web::clock::wall_ms();
    let config = RunConfig {
        mode,
        model: settings.model_for(mode).to_string(),
        base_url: settings.model_address().to_string(),
        backend: settings.backend,
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
        max_steps: if mode.uses_tools() {
            settings.max_steps
        } else {
            1
        },
        // The MCP servers' tools join them as the turn is set up (`set_up_turn`).
        tools: settings.offered_built_in_tools(mode),
        ..RunConfig::default()
    };
    // The time as a whole number of ms: formatting an f64 would bring float formatting (some
    // 5 KB) into the first screen.
    let ms = now as u64;
    RunRecord::new(format!("{ms}-{run_id}-{}", mode.id()), now, config)
}

/// New panels for a run of `modes`, waiting; their first turns start once the parts chunk is
/// in (`turn_driver::begin`).
pub fn start_runs(
    run_id: u32,
    settings: &Settings,
    token: &str,
    question: &str,
    modes: &[Mode],
    controllers: &[AbortController],
    // The panels are shown under letters, their modes hidden until a vote.
    blind: bool,
) -> Vec<PanelRun> {
    // The engine loads while the chunk comes and the model list is read.
    engine::prefetch();
    let snapshot = Arc::new(settings.clone());
    let panels: Vec<PanelRun> = modes
        .iter()
        .enumerate()
        .map(|(index, &mode)| {
            let record = RunRecord {
                // Waiting from the start: the model list may be read before the first event.
                status: Status::Waiting,
                blind: blind.then(|| Blind {
                    label: blind_label(index),
                    vote: None,
                }),
                ..new_record(run_id, mode, settings)
            };
            PanelRun::of(run_id, record, snapshot.clone())
        })
        .collect();
    start_turns(Turns::First(FirstTurns {
        panels: panels
            .iter()
            .zip(controllers)
            .map(|(p, c)| (p.mode, p.state, c.signal()))
            .collect(),
        settings: snapshot,
        token: token.to_string(),
        question: question.to_string(),
    }));
    panels
}
