//! The form of a new evaluation: question set, sample size, modes, a model per mode, step
//! limit, concurrency and the ReAct → CoT fallback.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use crate::agent::Mode;
use crate::evaluation::plan::{
    sample, EvalSpec, SetKind, DEFAULT_CONCURRENCY, MAX_CONCURRENCY, PAPER_MAX_STEPS, SAMPLE_SIZES,
};
use crate::evaluation::questions::{
    builtin_tool_set, parse_hotpotqa, parse_user_file, Question, MAX_FILE_BYTES,
};
use crate::web::clock::wall_ms;
use crate::web::file_read::read_text;
use crate::web::page_file::fetch_page_file;

/// Where the HotpotQA subset ships, beside the page.
pub const HOTPOTQA_PATH: &str = "data/hotpotqa_dev_react500.json";
const HOTPOTQA_MAX_BYTES: usize = 1_000_000;

/// The HotpotQA attribution its licence asks for wherever the questions are shown.
#[component]
pub fn HotpotQaCredit() -> impl IntoView {
    view! {
        <p class="credit">
            "Questions and answers: "
            <a href="https://hotpotqa.github.io/" target="_blank" rel="noopener noreferrer">"HotpotQA"</a>
            " (Yang et al., EMNLP 2018), dev set, licensed "
            <a href="https://creativecommons.org/licenses/by-sa/4.0/" target="_blank" rel="noopener noreferrer">
                "CC BY-SA 4.0"
            </a>
            "; the 500 questions and their order are those of the ReAct paper (Yao et al., ICLR 2023)."
        </p>
    }
}

/// A question set as loaded.
#[derive(Clone, PartialEq)]
pub enum Loaded {
    Loading,
    Ready(Vec<Question>),
    Failed(String),
}

/// What the form holds.
#[derive(Clone, Copy)]
pub struct Form {
    pub set: RwSignal<SetKind>,
    pub hotpotqa: RwSignal<Loaded>,
    /// The user's own file: its name and questions.
    pub own: RwSignal<Option<(String, Vec<Question>)>>,
    pub own_error: RwSignal<Option<String>>,
    pub sample: RwSignal<Option<usize>>,
    pub modes: RwSignal<Vec<Mode>>,
    /// Empty: the model the arena's settings give the mode.
    pub models: RwSignal<[String; Mode::ALL.len()]>,
    pub max_steps: RwSignal<u32>,
    pub concurrency: RwSignal<u32>,
    pub fallback: RwSignal<bool>,
    /// Grade each answer with a judge model; its model (empty: the model in Settings).
    pub judge: RwSignal<bool>,
    pub judge_model: RwSignal<String>,
}

impl Form {
    pub fn new() -> Self {
        let form = Self {
            set: RwSignal::new(SetKind::HotpotQa),
            hotpotqa: RwSignal::new(Loaded::Loading),
            own: RwSignal::new(None),
            own_error: RwSignal::new(None),
            sample: RwSignal::new(Some(20)),
            modes: RwSignal::new(Mode::ALL.to_vec()),
            models: RwSignal::new(Default::default()),
            max_steps: RwSignal::new(PAPER_MAX_STEPS),
            concurrency: RwSignal::new(DEFAULT_CONCURRENCY),
            fallback: RwSignal::new(false),
            judge: RwSignal::new(false),
            judge_model: RwSignal::new(String::new()),
        };
        // Loaded now that the view is open, never with the page.
        spawn_local(async move {
            let loaded = match fetch_page_file(HOTPOTQA_PATH, HOTPOTQA_MAX_BYTES).await {
                Ok(text) => parse_hotpotqa(&text).map_or_else(Loaded::Failed, Loaded::Ready),
                Err(e) => {
                    Loaded::Failed(format!("The HotpotQA questions could not be loaded: {e}."))
                }
            };
            form.hotpotqa.set(loaded);
        });
        form
    }

    /// The chosen set's name and questions, or what is missing.
    fn questions(&self) -> Result<(String, Vec<Question>), String> {
        match self.set.get_untracked() {
            SetKind::HotpotQa => match self.hotpotqa.get_untracked() {
                Loaded::Ready(q) => Ok(("HotpotQA (ReAct paper's 500)".into(), q)),
                Loaded::Loading => Err("The HotpotQA questions are still loading.".into()),
                Loaded::Failed(e) => Err(e),
            },
            SetKind::Tools => Ok(("Built-in tool questions".into(), builtin_tool_set())),
            SetKind::Own => self
                .own
                .get_untracked()
                .ok_or_else(|| "Choose a JSON or CSV file of questions and answers.".into()),
        }
    }

    /// A new evaluation as the form says; `default_model` gives a mode's model when its box
    /// is empty.
    pub fn spec(&self, default_model: impl Fn(Mode) -> String) -> Result<EvalSpec, String> {
        let (set_name, all) = self.questions()?;
        let modes: Vec<Mode> = Mode::ALL
            .into_iter()
            .filter(|m| self.modes.with_untracked(|ms| ms.contains(m)))
            .collect();
        if modes.is_empty() {
            return Err("Choose at least one mode.".into());
        }
        let typed = self.models.get_untracked();
        let models = modes
            .iter()
            .map(|&m| {
                let own = typed[mode_index(m)].trim().to_string();
                if own.is_empty() {
                    default_model(m)
                } else {
                    own
                }
            })
            .collect();
        let created = wall_ms();
        Ok(EvalSpec {
            id: format!("eval-{created:.0}"),
            created,
            set: self.set.get_untracked(),
            set_name,
            questions: sample(&all, self.sample.get_untracked()),
            modes,
            models,
            max_steps: self.max_steps.get_untracked().clamp(1, 50),
            concurrency: self.concurrency.get_untracked().clamp(1, MAX_CONCURRENCY),
            fallback: self.fallback.get_untracked(),
            judge_model: if self.judge.get_untracked() {
                let typed = self.judge_model.get_untracked().trim().to_string();
                if typed.is_empty() {
                    default_model(Mode::Think)
                } else {
                    typed
                }
            } else {
                String::new()
            },
        })
    }
}

/// "1 question", "12 questions".
fn count(n: usize) -> String {
    format!("{n} question{}", if n == 1 { "" } else { "s" })
}

fn mode_index(mode: Mode) -> usize {
    Mode::ALL.iter().position(|&m| m == mode).unwrap_or(0)
}

fn number(ev: &leptos::ev::Event, fallback: u32) -> u32 {
    event_target_value(ev).trim().parse().unwrap_or(fallback)
}

/// Reads the chosen file into the form, or says why it cannot be used.
fn read_own_file(form: Form, ev: leptos::ev::Event) {
    let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
    else {
        return;
    };
    let Some(file) = input.files().and_then(|list| list.get(0)) else {
        return;
    };
    // The same file chosen again must fire `change` again.
    input.set_value("");
    let name = file.name();
    if file.size() > MAX_FILE_BYTES as f64 {
        form.own_error.set(Some(format!(
            "{name} is {:.1} MB; a question file may be at most {} MB.",
            file.size() / 1e6,
            MAX_FILE_BYTES / 1_000_000
        )));
        return;
    }
    spawn_local(async move {
        let text = read_text(&file).await;
        let parsed = match text {
            Some(text) => parse_user_file(&name, &text),
            None => Err("The file could not be read as text.".into()),
        };
        match parsed {
            Ok(questions) => {
                form.own.set(Some((name, questions)));
                form.own_error.set(None);
            }
            Err(e) => form.own_error.set(Some(format!("{name}: {e}"))),
        }
    });
}

#[component]
pub fn Setup(
    form: Form,
    busy: Signal<bool>,
    on_start: Callback<()>,
    /// What the runs will skip of the MCP servers' tools (they cannot stop to ask).
    skip_note: Option<String>,
) -> impl IntoView {
    let set_radio = move |kind: SetKind, id: &'static str, label: &'static str| {
        view! {
            <label>
                <input
                    type="radio"
                    name="eval-set"
                    id=id
                    prop:checked=move || form.set.get() == kind
                    on:change=move |_| form.set.set(kind)
                />
                {label}
            </label>
        }
    };
    let set_size = move || match form.set.get() {
        SetKind::HotpotQa => match form.hotpotqa.get() {
            Loaded::Ready(q) => count(q.len()),
            Loaded::Loading => "loading…".into(),
            Loaded::Failed(_) => "not available".into(),
        },
        SetKind::Tools => count(builtin_tool_set().len()),
        SetKind::Own => form
            .own
            .with(|o| o.as_ref().map(|(_, q)| count(q.len())))
            .unwrap_or_else(|| "no file yet".into()),
    };
    let mode_row = move |mode: Mode| {
        let i = mode_index(mode);
        view! {
            <div class="eval-mode">
                <label>
                    <input
                        type="checkbox"
                        id=format!("eval-mode-{}", mode.id())
                        prop:checked=move || form.modes.with(|ms| ms.contains(&mode))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            form.modes.update(|ms| {
                                ms.retain(|m| *m != mode);
                                if on {
                                    ms.push(mode);
                                }
                            });
                        }
                    />
                    {mode.label()}
                </label>
                <input
                    type="text"
                    class="eval-model"
                    id=format!("eval-model-{}", mode.id())
                    aria-label=format!("Model for {}", mode.label())
                    placeholder="the model in Settings"
                    prop:value=move || form.models.with(|m| m[i].clone())
                    on:input=move |ev| form.models.update(|m| m[i] = event_target_value(&ev))
                />
            </div>
        }
    };
    view! {
        <form class="eval-setup" on:submit=move |ev| {
            ev.prevent_default();
            on_start.run(());
        }>
            <fieldset>
                <legend>"Questions"</legend>
                {set_radio(SetKind::HotpotQa, "eval-set-hotpotqa", "HotpotQA, the ReAct paper's 500")}
                {set_radio(SetKind::Tools, "eval-set-tools", "Built-in: calculator, units, weather")}
                {set_radio(SetKind::Own, "eval-set-own", "Your own file (JSON or CSV: question, answer)")}
                <input
                    type="file"
                    id="eval-file"
                    accept=".json,.csv,application/json,text/csv"
                    aria-label="Question file"
                    hidden=move || form.set.get() != SetKind::Own
                    on:change=move |ev| read_own_file(form, ev)
                />
                <span class="eval-set-size" id="eval-set-size">{set_size}</span>
                {move || form.own_error.get().map(|e| view! { <p class="field-error" role="alert">{e}</p> })}
                {move || match (form.set.get(), form.hotpotqa.get()) {
                    (SetKind::HotpotQa, Loaded::Failed(e)) => {
                        Some(view! { <p class="field-error" role="alert">{e}</p> }.into_any())
                    }
                    (SetKind::HotpotQa, _) => Some(view! { <HotpotQaCredit /> }.into_any()),
                    _ => None,
                }}
                <label>
                    "Sample "
                    <select id="eval-sample" on:change=move |ev| {
                        form.sample.set(event_target_value(&ev).parse().ok());
                    }>
                        {SAMPLE_SIZES
                            .iter()
                            .map(|size| {
                                let value = size.map_or("all".to_string(), |n| n.to_string());
                                let label = size.map_or("all".to_string(), |n| format!("first {n}"));
                                let size = *size;
                                view! {
                                    <option value=value selected=move || form.sample.get() == size>
                                        {label}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
            </fieldset>
            <fieldset>
                <legend>"Modes and models"</legend>
                {Mode::ALL.into_iter().map(mode_row).collect_view()}
                <label>
                    <input
                        type="checkbox"
                        id="eval-fallback"
                        prop:checked=move || form.fallback.get()
                        on:change=move |ev| form.fallback.set(event_target_checked(&ev))
                    />
                    "ReAct → CoT: when ReAct gives no answer within its steps, take Think-only's"
                </label>
            </fieldset>
            <fieldset class="eval-limits">
                <legend>"Limits"</legend>
                <label>
                    "Max steps "
                    <input
                        type="number"
                        id="eval-max-steps"
                        min="1"
                        max="50"
                        prop:value=move || form.max_steps.get().to_string()
                        on:change=move |ev| form.max_steps.set(number(&ev, PAPER_MAX_STEPS))
                    />
                </label>
                <label>
                    "Runs at once "
                    <input
                        type="number"
                        id="eval-concurrency"
                        min="1"
                        max=MAX_CONCURRENCY.to_string()
                        prop:value=move || form.concurrency.get().to_string()
                        on:change=move |ev| form.concurrency.set(number(&ev, DEFAULT_CONCURRENCY))
                    />
                </label>
            </fieldset>
            <fieldset class="eval-judge">
                <legend>"Judge"</legend>
                <label>
                    <input
                        type="checkbox"
                        id="eval-judge"
                        prop:checked=move || form.judge.get()
                        on:change=move |ev| form.judge.set(event_target_checked(&ev))
                    />
                    "Grade each answer with a model: correct, incorrect or not attempted, beside EM and F1 (its calls count in the cost)"
                </label>
                <input
                    type="text"
                    id="eval-judge-model"
                    aria-label="Judge model"
                    placeholder="the model in Settings"
                    disabled=move || !form.judge.get()
                    prop:value=move || form.judge_model.get()
                    on:input=move |ev| form.judge_model.set(event_target_value(&ev))
                />
            </fieldset>
            {skip_note.map(|note| view! { <p id="eval-mcp-note" class="hint">{note}</p> })}
            <button type="submit" id="eval-start" class="primary" disabled=move || busy.get()>
                "Start evaluation"
            </button>
        </form>
    }
}
