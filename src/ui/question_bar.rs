use leptos::prelude::*;

use crate::agent::mode::ModeChoice;
use crate::shortcuts::{FOCUS_KEYS, RUN_KEYS, STOP_KEYS};
use crate::ui::shortcut_keys::{listen_for_shortcuts, QUESTION_ID};
use crate::web::engine;

/// Questions of the kinds the arena is for: weather, arithmetic, a fact, a multi-hop question.
const EXAMPLES: [(&str, &str); 4] = [
    ("Weather", "What is the weather in Paris right now?"),
    (
        "Arithmetic",
        "What is 17% of 2,340, rounded to the nearest whole number?",
    ),
    (
        "Fact",
        "Who wrote the novel Things Fall Apart, and in which year was it published?",
    ),
    (
        "Multi-hop",
        "Which is older, the Eiffel Tower or the Statue of Liberty, and by how many years?",
    ),
];

#[component]
pub fn QuestionBar(
    question: RwSignal<String>,
    /// What was taken out of a question from the page's address (hidden characters).
    question_note: RwSignal<Option<String>>,
    mode_choice: RwSignal<ModeChoice>,
    missing: Memo<Option<String>>,
    running: Signal<bool>,
    /// Turns of the conversation a new question would follow up on (0: a new run).
    turns: Signal<usize>,
    on_run: Callback<()>,
    on_stop: Callback<()>,
    on_new_conversation: Callback<()>,
    /// A blind vote is chosen while MCP servers are added: say, before Run, that calls which
    /// would ask for consent are skipped.
    blind_skips_mcp: Signal<bool>,
) -> impl IntoView {
    // Ctrl/Cmd+Enter (from the question box too), Escape and "/", on the whole page.
    listen_for_shortcuts(on_run, on_stop, running);
    view! {
        <section class="question-bar" aria-label="Question">
            <textarea
                id=QUESTION_ID
                rows="3"
                aria-label="Question"
                aria-keyshortcuts=FOCUS_KEYS
                placeholder="Ask a question… (Ctrl/Cmd+Enter to run)"
                prop:value=move || question.get()
                aria-describedby=move || question_note.with(|n| n.as_ref().map(|_| "question-note"))
                on:input=move |ev| {
                    // A question is being written: the agent engine loads meanwhile.
                    engine::prefetch();
                    question_note.set(None);
                    question.set(event_target_value(&ev))
                }
            ></textarea>
            {move || {
                question_note
                    .get()
                    .map(|note| view! { <p id="question-note" class="question-note" role="status">{note}</p> })
            }}
            <Show when=move || blind_skips_mcp.get()>
                <p id="blind-mcp-note" class="question-note" role="status">
                    "In a blind vote, MCP tool calls that would ask for your consent are skipped: a question in one panel would tell the answers apart."
                </p>
            </Show>
            <div class="controls">
                <label class="mode-label">
                    "Mode "
                    <select
                        id="mode"
                        prop:value=move || mode_choice.get().id()
                        on:change=move |ev| {
                            if let Some(c) = ModeChoice::from_id(&event_target_value(&ev)) {
                                mode_choice.set(c);
                            }
                        }
                    >
                        {ModeChoice::OPTIONS
                            .into_iter()
                            .map(|c| view! { <option value=c.id()>{c.label()}</option> })
                            .collect_view()}
                    </select>
                </label>
                <button
                    id="run"
                    class="primary"
                    disabled=move || missing.get().is_some()
                    aria-keyshortcuts=RUN_KEYS
                    title=move || missing.get().unwrap_or_else(|| "Run (Ctrl/Cmd+Enter)".into())
                    on:click=move |_| on_run.run(())
                >
                    {move || missing.get().unwrap_or_else(|| "Run".into())}
                </button>
                <button id="stop" disabled=move || !running.get() on:click=move |_| on_stop.run(())
                    aria-keyshortcuts=STOP_KEYS title="Stop (Esc)">
                    "Stop"
                </button>
                <p class="shortcuts" id="shortcuts">
                    <kbd>"Ctrl"</kbd>"/"<kbd>"⌘"</kbd>"+"<kbd>"Enter"</kbd>" run · "
                    <kbd>"Esc"</kbd>" stop · "<kbd>"/"</kbd>" question"
                </p>
            </div>
            // The slot keeps its height, so the follow-up row appearing moves nothing below.
            <div class="conversation-slot">
            <Show when=move || { turns.get() > 0 }>
                <div class="conversation">
                    <span id="follow-up-hint">
                        {move || format!("Run asks a follow-up: each mode continues its own conversation ({} turn{} so far).", turns.get(), if turns.get() == 1 { "" } else { "s" })}
                    </span>
                    <button id="new-conversation" on:click=move |_| on_new_conversation.run(())>
                        "New conversation"
                    </button>
                </div>
            </Show>
            </div>
            <div class="examples">
                <span class="examples-label">"Try: "</span>
                {EXAMPLES
                    .into_iter()
                    .map(|(label, text)| {
                        view! {
                            <button class="example" title=text on:click=move |_| {
                                engine::prefetch();
                                question.set(text.to_string())
                            }>
                                {label}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
        </section>
    }
}
