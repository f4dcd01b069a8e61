//! Drives runs' turns in the engine and routes their events into the panels, once a frame.
//! Done in the engine's chunk (`parts::Turns`), so the first load need not carry this.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::AbortSignal;

use crate::agent::record::RunRecord;
use crate::agent::run::Next;
use crate::agent::Mode;
use crate::mcp::consent::{skipping, BLIND_SKIPS};
use crate::run_setup::set_up_turn;
use crate::settings::Settings;
use crate::turn_request::TurnRequest;
use crate::ui::panel::consent_question;
use crate::ui::panel::frame_batch::FrameBatch;
use crate::web::agent_engine::run_request;
use crate::web::mcp_chunk;
use crate::web::model_info::model_list;
use crate::web::timer::next_frame;

/// One turn of a panel's run.
pub struct Turn {
    pub request: TurnRequest,
    pub state: RwSignal<RunRecord>,
    pub signal: AbortSignal,
}

/// The first turn of each mode of a new run.
pub struct FirstTurns {
    /// Each mode's panel, and the signal of its own Stop.
    pub panels: Vec<(Mode, RwSignal<RunRecord>, AbortSignal)>,
    pub settings: Arc<Settings>,
    pub token: String,
    pub question: String,
}

/// Runs one turn in the engine, its events drawn into the panel once a frame. (An engine
/// that cannot be fetched never gets here: `parts::start_turns` says so in the panel.)
pub fn drive(turn: Turn) {
    let Turn {
        request,
        state,
        signal,
    } = turn;
    // A blind vote cannot stop to ask: a question in one panel would tell the modes apart.
    let asker = if request.record.blind.is_some() {
        skipping(BLIND_SKIPS)
    } else {
        consent_question::asker(request.record.id.clone())
    };
    spawn_local(async move {
        let batch = FrameBatch::new(state);
        let sink = batch.clone();
        run_request(request, signal, asker, &mut |event| sink.push(event)).await;
        // A turn that ended before it could ask the model holds back nothing.
        crate::web::engine::model_request_left();
        // The last events are drawn at the next frame like the others (or within 100 ms in a
        // hidden tab, which draws none): drawn in the task where the turn ended, they made it
        // a long one.
        next_frame(100).await;
        batch.flush();
    });
}

/// Starts each mode's first turn. They interleave on the page's event loop, so their requests
/// are in flight together: the modes run concurrently, not one after another. With the "auto"
/// protocol the endpoint's model list is read first (once per endpoint and page).
pub fn begin(first: FirstTurns) {
    let FirstTurns {
        panels,
        settings,
        token,
        question,
    } = first;
    spawn_local(async move {
        // Price, context window and tool support of each mode's model (read once per page).
        let list = model_list(settings.endpoint_url(), &token).await;
        // The MCP servers' tools, read in their own chunk when servers were added (a chunk
        // that cannot be fetched is said by each turn, which needs it too).
        let mcp = mcp_chunk::entries_for(&settings).await.ok().flatten();
        for (mode, state, signal) in panels {
            let model = settings.model_for(mode).trim().to_string();
            let facts = list
                .as_ref()
                .and_then(|l| l.facts(&model))
                .unwrap_or_default();
            // The run has not started: its configuration is completed with what the endpoint
            // says, before the engine takes its copy.
            let configured = state.try_update(|r| {
                let mcp_tools = mcp
                    .map(|m| (m.sources)(&settings, mode))
                    .unwrap_or_default();
                let options = set_up_turn(&mut r.config, mode, &settings, &facts, mcp_tools);
                (r.clone(), options)
            });
            let Some((record, options)) = configured else {
                // A newer run or a shown file replaced this panel meanwhile: it will send no
                // request, and what waits for one goes on.
                crate::web::engine::model_request_left();
                continue;
            };
            let request = TurnRequest {
                tools_key: record.id.clone(),
                record,
                next: Next::Question(question.clone()),
                settings: settings.as_ref().clone(),
                token: token.clone(),
                options,
            };
            drive(Turn {
                request,
                state,
                signal,
            });
        }
    });
}
