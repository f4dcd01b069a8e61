//! The judge's call for one result: the judge model, at the arena's endpoint, grades the
//! answer against the gold answer (`evaluation::judge`). A run without an answer is not
//! attempted, and nothing is asked.

use web_sys::AbortController;

use crate::agent::ChatModel;
use crate::evaluation::context::EvalContext;
use crate::evaluation::judge::{judge_messages, Judgement};
use crate::evaluation::outcome::JobResult;
use crate::evaluation::plan::EvalSpec;
use crate::llm::{ChatCall, ChatDelta};
use crate::settings::{ModeModels, Settings};
use crate::web::agent_engine::{chat_model, chat_params};
use crate::web::model_info::model_list;

pub async fn judge(
    context: &EvalContext,
    spec: &EvalSpec,
    result: &JobResult,
    controller: &AbortController,
) -> Judgement {
    let Some(answer) = result.answer.as_deref() else {
        return Judgement::unanswered();
    };
    let question = &spec.questions[result.job.question];
    let settings = Settings {
        model: spec.judge_model.clone(),
        mode_models: ModeModels::default(),
        // A grade, not a story.
        temperature: 0.0,
        ..context.settings.clone()
    };
    let params = chat_params(&settings, &spec.judge_model);
    let id = format!("{}-{}-judge", spec.id, result.job.key());
    let model = chat_model(
        &settings,
        &context.token,
        &params,
        controller.signal(),
        (&id, "the judge"),
    );
    let messages = judge_messages(&question.question, &question.answer, answer);
    let call = ChatCall {
        messages: &messages,
        stop: &[],
        tools: None,
    };
    let mut reply = String::new();
    let mut usage = None;
    let outcome = model
        .stream_chat(&call, &mut |delta| match delta {
            ChatDelta::Content(text) => reply.push_str(&text),
            ChatDelta::Usage(u) => usage = Some(u),
            _ => {}
        })
        .await;
    if let Err(e) = outcome {
        return Judgement::failed(e.user_message());
    }
    let pricing = model_list(settings.endpoint_url(), &context.token)
        .await
        .as_ref()
        .and_then(|l| l.facts(&params.model))
        .and_then(|f| f.pricing);
    Judgement::from_reply(&reply).with_usage(usage, pricing)
}
