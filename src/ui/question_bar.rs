use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::agent::mode::ModeChoice;

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
    mode_choice: RwSignal<ModeChoice>,
    missing: Memo<Option<String>>,
    running: Signal<bool>,
    /// Turns of the conversation a new question would follow up on (0: a new run).
    turns: Signal<usize>,
    on_run: Callback<()>,
    on_stop: Callback<()>,
    on_new_conversation: Callback<()>,
) -> impl IntoView {
    let on_keydown = move |ev: KeyboardEvent| {
        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            on_run.run(());
        }
    };
    view! {
        <section class="question-bar">
            <textarea
                id="question"
                rows="3"
                placeholder="Ask a question… (Ctrl/Cmd+Enter to run)"
                prop:value=move || question.get()
                on:input=move |ev| question.set(event_target_value(&ev))
                on:keydown=on_keydown
            ></textarea>
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
                    title=move || missing.get().unwrap_or_else(|| "Run (Ctrl/Cmd+Enter)".into())
                    on:click=move |_| on_run.run(())
                >
                    {move || missing.get().unwrap_or_else(|| "Run".into())}
                </button>
                <button id="stop" disabled=move || !running.get() on:click=move |_| on_stop.run(())>
                    "Stop"
                </button>
            </div>
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
            <div class="examples">
                <span class="examples-label">"Try: "</span>
                {EXAMPLES
                    .into_iter()
                    .map(|(label, text)| {
                        view! {
                            <button class="example" title=text on:click=move |_| question.set(text.to_string())>
                                {label}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
        </section>
    }
}
