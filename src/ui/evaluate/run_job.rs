//! One run of an evaluation: the question in its mode, with the arena's settings but the
//! evaluation's model and step limit, and no panel: the record the run leaves is the result.

use web_sys::AbortController;

use crate::agent::record::RunRecord;
use crate::agent::run::{run_turn, Next};
use crate::agent::AgentEvent;
use crate::edited_prompts::EditedPrompts;
use crate::evaluation::context::EvalContext;
use crate::evaluation::plan::{EvalSpec, Job};
use crate::llm::retry::rate_limit_wait_secs;
use crate::mcp::consent::{skipping, EVALUATION_SKIPS};
use crate::run_setup::set_up_turn;
use crate::settings::{ModeModels, Settings};
use crate::ui::runner::new_record;
use crate::web::agent_engine::{chat_model, chat_params, run_tools};
use crate::web::clock::wall_ms;
use crate::web::mcp_chunk;
use crate::web::model_info::model_list;

/// The arena's settings with the evaluation's choices for this run.
fn job_settings(context: &EvalContext, spec: &EvalSpec, job: Job) -> Settings {
    Settings {
        model: spec.model_for(job.mode).to_string(),
        mode_models: ModeModels::default(),
        max_steps: spec.max_steps,
        // An evaluation compares the modes as they are: their own prompts.
        prompts: EditedPrompts::default(),
        ..context.settings.clone()
    }
}

/// Runs `job`; `None` when it was stopped before its end. `on_rate_limit` hears each wait a
/// rate limit imposes (seconds), so the batch can hold its other starts.
pub async fn run_job(
    context: &EvalContext,
    spec: &EvalSpec,
    job: Job,
    controller: &AbortController,
    on_rate_limit: &dyn Fn(u32),
) -> Option<RunRecord> {
    let settings = job_settings(context, spec, job);
    // This module links the MCP tools (`mcp_chunk::made_here`): no chunk to wait for.
    let mcp = mcp_chunk::entries_for(&settings).await.ok().flatten();
    let tools = run_tools(&settings, job.mode, mcp);
    let mut record = new_record(job.question as u32, job.mode, &settings);
    record.id = format!("{}-{}", spec.id, job.key());
    let params = chat_params(&settings, &settings.model);
    let model = chat_model(
        &settings,
        &context.token,
        &params,
        controller.signal(),
        (&record.id, job.mode.label()),
    );
    // Price, context window and tool support, read once per page and endpoint.
    let facts = model_list(settings.endpoint_url(), &context.token)
        .await
        .as_ref()
        .and_then(|l| l.facts(&params.model))
        .unwrap_or_default();
    let mcp_tools = mcp
        .map(|m| (m.sources)(&settings, job.mode))
        .unwrap_or_default();
    let options = set_up_turn(&mut record.config, job.mode, &settings, &facts, mcp_tools);
    let question = spec.questions[job.question].question.clone();
    // The loop's own copy of the record carries no times; this one is stamped as events
    // come, as a panel's is, so the result has the run's real durations.
    let mut timed = record.clone();
    let mut emit = |event: AgentEvent| {
        if let AgentEvent::Notice(text) = &event {
            if let Some(secs) = rate_limit_wait_secs(text) {
                on_rate_limit(secs);
            }
        }
        timed.apply(wall_ms(), &event);
    };
    // An evaluation runs unattended: a call that needs the user's consent is skipped (its
    // setup says so before it starts).
    let stoppable = tools.for_turn(skipping(EVALUATION_SKIPS), model.signal.clone());
    run_turn(
        record,
        Next::Question(question),
        &model,
        &stoppable,
        &options,
        &mut emit,
    )
    .await;
    (!controller.signal().aborted()).then_some(timed)
}
