//! What a panel shows of a run: its turns and steps, the live text, the answer, usage, Inspect
//! and the calls waiting for consent. In a chunk of its own (`split_run_view`): the frame
//! (`panel.rs`) asks for it through `parts::show_run`, and only its split point draws it.

use leptos::prelude::*;

use crate::agent::metrics::format_ms;
use crate::agent::record::{McpSource, RunRecord, Status, Step as StepRecord, Turn};
use crate::live_lines::block_cuts;
use crate::panel_lines::{error_line, figures_line, shown_input, step_figures};
use crate::ui::copy_button::CopyButton;
use crate::ui::panel::consent_question::ConsentQuestions;
use crate::ui::panel::follow_scroll::FollowScroll;
use crate::ui::panel::inspect::Inspect;
use crate::ui::panel::markdown_view::Markdown;
use crate::ui::panel::panel_run::{PanelAction, RunBody};
use crate::ui::panel::progress_line::ProgressLine;

pub(crate) fn run_body(body: RunBody) -> AnyView {
    let RunBody {
        state,
        mode,
        run_id,
        recording,
        on_action,
        more_steps,
    } = body;
    let step_count = Memo::new(move |_| state.with(|s| s.steps().len()));
    // Earlier turns of the conversation, folded: (question, answer).
    let earlier = Memo::new(move |_| {
        state.with(|r| {
            let n = r.turns.len().saturating_sub(1);
            r.turns[..n]
                .iter()
                .map(|t| {
                    let answer = t.answer.as_ref().map_or_else(
                        || t.error.clone().unwrap_or_else(|| "(no answer)".into()),
                        |a| a.text.clone(),
                    );
                    (t.question.clone(), answer)
                })
                .collect::<Vec<_>>()
        })
    });
    // The question is shown once the conversation has more than one.
    let current_question = Memo::new(move |_| {
        state.with(|r| {
            (r.turns.len() > 1)
                .then(|| r.last_turn().map(|t| t.question.clone()))
                .flatten()
        })
    });
    let answer = Memo::new(move |_| state.with(|s| s.last_turn().and_then(|t| t.answer.clone())));
    let error = Memo::new(move |_| state.with(error_line));

    let act = move |action: PanelAction| move |_| on_action.run((run_id, mode, action));
    let active = Memo::new(move |_| state.with(|s| s.status.is_active()));
    // A blind run is one comparison: its answers are voted on as they came, not retried.
    let blind = state.with_untracked(|r| r.blind.is_some());
    let name = state.with_untracked(RunRecord::shown_name);
    let (stop_label, retry_label) = (format!("Stop {name}"), format!("Retry {name}"));
    let forced = Memo::new(move |_| {
        state.with(|s| s.status == Status::Done && s.last_turn().is_some_and(|t| t.forced()))
    });
    let attempts = Memo::new(move |_| {
        state.with(|r| r.last_turn().map(|t| t.earlier.clone()).unwrap_or_default())
    });

    view! {
            <ProgressLine state=state recording=recording />
            {(!recording).then(|| view! {
                <div class="panel-actions">
                    <Show when=move || active.get()>
                        <button class="panel-stop" on:click=act(PanelAction::Stop) aria-label=stop_label.clone() title="Stop this panel only; the others go on">
                            "Stop"
                        </button>
                    </Show>
                    <Show when=move || !active.get() && !blind>
                        <button class="panel-retry" on:click=act(PanelAction::Retry) aria-label=retry_label.clone() title="Ask this panel the same question again, with the same settings and prompt; this attempt is kept">
                            "Retry"
                        </button>
                    </Show>
                    <Show when=move || forced.get() && !blind>
                        <button class="panel-more" on:click=act(PanelAction::MoreSteps) title="The step limit cut this run short: let it go on">
                            {format!("Go on for {more_steps} more step{}", if more_steps == 1 { "" } else { "s" })}
                        </button>
                    </Show>
                </div>
            })}
            // Calls waiting for the user's consent, above the output so they are not scrolled away.
            <ConsentQuestions run=state.with_untracked(|r| r.id.clone()) />
            <FollowScroll state=state label=format!("{} output", state.with_untracked(RunRecord::shown_name))>
            {move || {
                earlier
                    .get()
                    .into_iter()
                    .map(|(question, answer)| {
                        view! {
                            <details class="earlier-turn">
                                <summary>{question}</summary>
                                <Markdown text=answer />
                            </details>
                        }
                    })
                    .collect_view()
            }}
            {move || current_question.get().map(|q| view! { <p class="turn-question">{q}</p> })}
            {move || {
                let earlier = attempts.get();
                let total = earlier.len() + 1;
                let shown = earlier
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| view! { <EarlierAttempt turn=t number=i + 1 total=total /> })
                    .collect_view();
                (total > 1)
                    .then(|| view! {
                        {shown}
                        <p class="attempt-now">{format!("Attempt {total} of {total}")}</p>
                    })
            }}
            <ol class="steps">
                <For each=move || 0..step_count.get() key=|i| *i let:i>
                    <Step state=state index=i />
                </For>
            </ol>
            {move || {
                answer
                    .get()
                    .map(|a| {
                        let label = if a.forced {
                            format!("Answer (forced after the step limit, step {})", a.step)
                        } else {
                            format!("Answer (step {})", a.step)
                        };
                        view! {
                            <div class="answer" class:forced=a.forced>
                                <div class="answer-head">
                                    <span class="answer-label">{label}</span>
                                    <CopyButton text=a.text.clone() label="Copy the answer" />
                                </div>
                                <Markdown text=a.text />
                            </div>
                        }
                    })
            }}
            {move || error.get().map(|e| view! { <div class="panel-error" role="alert">{e}</div> })}
            <Show when=move || !recording && state.with(|s| s.status == Status::Error && s.last_turn().is_some_and(|t| t.resumable.is_some()))>
                <button class="continue" on:click=act(PanelAction::Continue)>
                    "Continue from the cut"
                </button>
            </Show>
            </FollowScroll>
            <footer class="usage">{move || figures_line(&state.read())}</footer>
            // Inspect names the model: a blind run's waits for the vote.
            <Show when=move || !state.with(RunRecord::awaits_vote)>
                <Inspect state=state />
            </Show>
    }
    .into_any()
}

/// An earlier attempt at the panel's question (retried, or forced before going on), folded:
/// how it ended, and its steps as plain text.
#[component]
fn EarlierAttempt(turn: Turn, number: usize, total: usize) -> impl IntoView {
    let ended = match (&turn.answer, &turn.error) {
        (Some(a), _) if a.forced => format!("forced answer: {}", a.text),
        (Some(a), _) => format!("answer: {}", a.text),
        (None, Some(e)) => format!("error: {e}"),
        (None, None) if turn.stopped => "stopped".to_string(),
        (None, None) => "no answer".to_string(),
    };
    let steps = turn
        .steps
        .iter()
        .map(|step| {
            let mut lines = Vec::new();
            if let Some(t) = &step.thought {
                lines.push(format!("Thought: {t}"));
            }
            for (tool, input) in step.actions() {
                lines.push(format!("Action: {tool} ({input})"));
            }
            for (text, _) in step.observations() {
                lines.push(format!("Observation: {text}"));
            }
            if lines.is_empty() && !step.live.is_empty() {
                lines.push(step.live.clone());
            }
            let title = if step.forced {
                "Final answer (step limit reached)".to_string()
            } else {
                format!("Step {}", step.number)
            };
            view! {
                <li>
                    <span class="step-title">{title}</span>
                    <div class="attempt-text">{lines.join("\n")}</div>
                </li>
            }
        })
        .collect_view();
    view! {
        <details class="earlier-attempt">
            <summary>{format!("Attempt {number} of {total}: {ended}")}</summary>
            <ol class="attempt-steps">{steps}</ol>
        </details>
    }
}

/// A tool run as the step shows it: an action, a CodeAct program, or a call a program made.
#[derive(Clone, PartialEq)]
struct ShownCall {
    tool: String,
    input: String,
    server: Option<McpSource>,
    program: bool,
    from_program: Option<CallResult>,
}

/// What a program's call gave it, and how long it took.
#[derive(Clone, PartialEq)]
struct CallResult {
    output: Option<String>,
    is_error: bool,
    ms: Option<f64>,
}

#[component]
fn Step(state: RwSignal<RunRecord>, index: usize) -> impl IntoView {
    // Each part is its own memo: a token only touches the part it changes.
    let part = move |f: fn(&StepRecord) -> Option<String>| {
        Memo::new(move |_| state.with(|s| s.steps().get(index).and_then(f)))
    };
    let reasoning = part(|s| (!s.reasoning.is_empty()).then(|| s.reasoning.clone()));
    let live = part(|s| (!s.settled && !s.live.is_empty()).then(|| s.live.clone()));
    let thought = part(|s| s.thought.clone());
    // A call's input is cut here, where it is read: a megabyte input is neither copied into
    // the memo on every change of the record nor laid out whole.
    let actions = Memo::new(move |_| {
        state.with(|s| {
            s.steps()
                .get(index)
                .map(|step| {
                    step.tool_runs
                        .iter()
                        .filter(|r| !r.tool.is_empty())
                        .map(|r| ShownCall {
                            tool: r.tool.clone(),
                            input: shown_input(&r.input),
                            server: r.mcp.clone(),
                            program: r.program,
                            from_program: r.in_program.then(|| CallResult {
                                output: r.output.as_deref().map(shown_input),
                                is_error: r.is_error,
                                ms: r.t_start.zip(r.t_done).map(|(a, b)| (b - a).max(0.0)),
                            }),
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    let observations = Memo::new(move |_| {
        state.with(|s| {
            // A program's tool calls show their results beside them.
            s.steps()
                .get(index)
                .map(|step| {
                    step.tool_runs
                        .iter()
                        .filter(|r| !r.in_program)
                        .filter_map(|r| {
                            r.output.clone().map(|o| (o, r.is_error, r.failure.clone()))
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    // The streaming text only grows. Whole lines go into blocks of their own, laid out once;
    // only the lines since the last block are drawn again, so a long reply does not cost a
    // layout of all of it on every frame.
    let live_ref = NodeRef::<leptos::html::Div>::new();
    let epoch =
        Memo::new(move |_| state.with(|s| s.steps().get(index).map_or(0, |s| s.live_epoch)));
    let shown = StoredValue::new((0u32, 0usize)); // (epoch, bytes in blocks)
    Effect::new(move |_| {
        let (text, epoch) = (live.get(), epoch.get());
        if let Some(el) = live_ref.get() {
            let (shown_epoch, blocked) = shown.get_value();
            let blocked = show_live(&el, text.as_deref(), shown_epoch == epoch, blocked);
            shown.set_value((epoch, blocked));
        }
    });
    let notices = Memo::new(move |_| {
        state.with(|s| {
            s.steps()
                .get(index)
                .map(|s| s.notices.clone())
                .unwrap_or_default()
        })
    });
    let (number, forced) = state.with_untracked(|s| {
        s.steps()
            .get(index)
            .map_or((0, false), |s| (s.number, s.forced))
    });
    let figures = Memo::new(move |_| state.with(|r| step_figures(r, index)));
    let title = if forced {
        "Final answer (step limit reached)".to_string()
    } else {
        format!("Step {number}")
    };

    view! {
        <li class="step" class:forced=forced>
            <div class="step-title">{title}</div>
            {move || figures.get().map(|f| view! { <div class="step-metrics">{f}</div> })}
            // Shown once and then updated in place, so a collapsed block stays collapsed.
            <Show when=move || reasoning.with(Option::is_some)>
                <details class="reasoning" open>
                    <summary>"Reasoning"</summary>
                    <div class="reasoning-text">{move || reasoning.get().unwrap_or_default()}</div>
                </details>
            </Show>
            {move || {
                notices
                    .get()
                    .into_iter()
                    .map(|n| view! { <div class="notice" role="status">{n}</div> })
                    .collect_view()
            }}
            <div class="live" node_ref=live_ref hidden=move || live.with(Option::is_none)></div>
            {move || {
                thought
                    .get()
                    .map(|t| {
                        view! {
                            <div class="thought">
                                <span class="label">"Thought"</span>
                                <Markdown text=t />
                            </div>
                        }
                    })
            }}
            {move || {
                actions
                    .get()
                    .into_iter()
                    .map(|call| {
                        let ShownCall { tool, input, server, program, from_program } = call;
                        let server = server.map(|s| view! { <span class="tool-server" title=s.url.clone()>{format!("MCP: {}", s.server)}</span> });
                        if program {
                            return view! {
                                <div class="action program">
                                    <span class="label">"Program"</span>
                                    <pre class="program-code"><code>{input}</code></pre>
                                </div>
                            }
                            .into_any();
                        }
                        match from_program {
                            Some(result) => view! {
                                <div class="action program-call" class:error=result.is_error>
                                    <span class="label">"Tool call"</span>
                                    <span class="tool-name">{tool}</span>
                                    {server}
                                    <code class="tool-input">{input}</code>
                                    <span class="call-result">
                                        {match result.output {
                                            Some(out) => format!("→ {out}"),
                                            None => "running…".into(),
                                        }}
                                    </span>
                                    {result.ms.map(|ms| view! { <span class="call-time">{format_ms(ms)}</span> })}
                                </div>
                            }
                            .into_any(),
                            None => view! {
                                <div class="action">
                                    <span class="label">"Action"</span>
                                    <span class="tool-name">{tool}</span>
                                    {server}
                                    <code class="tool-input">{input}</code>
                                </div>
                            }
                            .into_any(),
                        }
                    })
                    .collect_view()
            }}
            {move || {
                observations
                    .get()
                    .into_iter()
                    .map(|(text, is_error, failure)| {
                        let kind = failure.as_ref().map(|f| f.kind.label());
                        let detail = failure.and_then(|f| f.detail);
                        view! {
                            <div class="observation" class:error=is_error data-failure=kind>
                                <span class="label">"Observation"</span>
                                {kind.map(|k| view! { <span class="failure-kind">{k}</span> })}
                                <div class="observation-text">{text}</div>
                                {detail.map(|d| view! {
                                    <details class="failure-detail">
                                        <summary>"Detail (the model did not read it)"</summary>
                                        <pre>{d}</pre>
                                    </details>
                                })}
                            </div>
                        }
                    })
                    .collect_view()
            }}
        </li>
    }
}

/// At most this much of the streamed text goes into one block (when its lines allow): the
/// browser skips laying out blocks out of view, so a long text arriving at once costs a
/// layout of what is in view, not of all of it.
const LIVE_BLOCK_BYTES: usize = 2048;

/// Shows `text` in the live element as blocks of whole lines and a last block for the rest;
/// `same_text`: `text` continues what the first `blocked` bytes came from. Returns the bytes
/// now in whole-line blocks.
fn show_live(
    el: &web_sys::HtmlDivElement,
    text: Option<&str>,
    same_text: bool,
    blocked: usize,
) -> usize {
    let Some(text) = text else {
        el.set_text_content(None);
        return 0;
    };
    let Some(document) = el.owner_document() else {
        return 0;
    };
    let mut blocked = blocked;
    if !same_text || blocked > text.len() || !text.is_char_boundary(blocked) {
        el.set_text_content(None);
        blocked = 0;
    }
    let rest = match el.last_element_child() {
        Some(rest) => rest,
        None => {
            let Ok(rest) = document.create_element("div") else {
                return 0;
            };
            let _ = el.append_child(&rest);
            rest
        }
    };
    for cut in block_cuts(text, blocked, LIVE_BLOCK_BYTES) {
        let Ok(block) = document.create_element("div") else {
            break;
        };
        block.set_text_content(Some(&text[blocked..cut - 1]));
        let _ = el.insert_before(&block, Some(&rest));
        blocked = cut;
    }
    rest.set_text_content(Some(&text[blocked..]));
    blocked
}
