//! A call that needs the user's consent, asked in its panel: the server, the tool, the exact
//! arguments and why it is asked, with Allow once / Allow for this run / Deny. The run waits
//! for the answer; Stop (or any end of the run) takes the question away. Drawn in the
//! run view's chunk, with the run's body.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::channel::oneshot;
use leptos::prelude::*;

use crate::mcp::consent::{Asker, ConsentAnswer, ConsentRequest};

/// One open question: the run (its record's id) that asks, and what it asks.
#[derive(Clone, PartialEq)]
struct Question {
    id: u64,
    run: String,
    request: ConsentRequest,
}

thread_local! {
    /// Every open question of the page; each panel draws its own. (Counted, not owned by
    /// the view that first reads it: a panel drawn again would take it with it.)
    static QUESTIONS: ArcRwSignal<Vec<Question>> = ArcRwSignal::new(Vec::new());
    /// Where each question's answer goes, by its id.
    static ANSWERS: RefCell<Vec<(u64, oneshot::Sender<ConsentAnswer>)>> = RefCell::default();
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

fn questions() -> ArcRwSignal<Vec<Question>> {
    QUESTIONS.with(ArcRwSignal::clone)
}

/// Takes question `id` away, giving `answer` to the run if it still waits.
fn close(id: u64, answer: Option<ConsentAnswer>) {
    let sender = ANSWERS.with(|a| {
        let mut a = a.borrow_mut();
        a.iter()
            .position(|(i, _)| *i == id)
            .map(|at| a.remove(at).1)
    });
    if let (Some(sender), Some(answer)) = (sender, answer) {
        let _ = sender.send(answer);
    }
    questions().update(|q| q.retain(|q| q.id != id));
}

/// Closes its question when the run stops waiting for it (answered, stopped, or dropped).
struct Asked(u64);

impl Drop for Asked {
    fn drop(&mut self) {
        close(self.0, None);
    }
}

/// The asker of the run whose record's id is `run`: its questions appear in its panel.
pub fn asker(run: String) -> Asker {
    Rc::new(move |request| {
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id + 1);
            id
        });
        let (tx, rx) = oneshot::channel();
        ANSWERS.with(|a| a.borrow_mut().push((id, tx)));
        questions().update(|q| {
            q.push(Question {
                id,
                run: run.clone(),
                request,
            })
        });
        let asked = Asked(id);
        Box::pin(async move {
            let answer = rx.await.unwrap_or(ConsentAnswer::Deny);
            drop(asked);
            answer
        })
    })
}

/// The open questions of the run whose record's id is `run`.
#[component]
pub fn ConsentQuestions(run: String) -> impl IntoView {
    let open = Memo::new(move |_| {
        questions().with(|q| {
            q.iter()
                .filter(|q| q.run == run)
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    view! {
        <For each=move || open.get() key=|q| q.id let:question>
            <ConsentCard question=question />
        </For>
    }
}

#[component]
fn ConsentCard(question: Question) -> impl IntoView {
    let Question { id, request, .. } = question;
    let heading = format!("consent-{id}");
    let labelled_by = heading.clone();
    let answer = move |a: ConsentAnswer| move |_| close(id, Some(a.clone()));
    view! {
        <div class="consent-question" role="alertdialog" aria-labelledby=labelled_by>
            <p id=heading class="consent-title">{request.title()}</p>
            <p class="consent-address">"Sent to "<code>{request.address.clone()}</code></p>
            <p class="consent-reason">{request.reason.explain()}</p>
            {consent_arguments(&request)}
            <div class="consent-actions">
                <button class="consent-allow-once" on:click=answer(ConsentAnswer::AllowOnce)>"Allow once"</button>
                <button class="consent-allow-run" on:click=answer(ConsentAnswer::AllowForRun)>"Allow for this run"</button>
                <button class="consent-deny warn" on:click=answer(ConsentAnswer::Deny)>"Deny"</button>
            </div>
        </div>
    }
}

/// The exact arguments; a long one first as a list of its fields (each with its length and
/// the head of its value), the whole text a click away: a later field of a 100 KB argument
/// would sit thousands of lines down.
fn consent_arguments(request: &ConsentRequest) -> AnyView {
    let exact = request.arguments.clone();
    if !request.is_long() {
        return view! {
            <pre class="consent-arguments" tabindex="0" aria-label="The exact arguments it would send">{exact}</pre>
        }
        .into_any();
    }
    let fields = request
        .fields
        .iter()
        .map(|f| {
            // The last line may only say how many more fields there are.
            if f.chars == 0 && f.head.is_empty() {
                return view! { <li class="consent-field">{f.name.clone()}</li> }.into_any();
            }
            let length = format!("{} characters", f.chars);
            view! {
                <li class="consent-field">
                    <code class="consent-field-name">{f.name.clone()}</code>" · "
                    <span class="consent-field-length">{length}</span>": "
                    <code class="consent-field-head">{f.head.clone()}</code>
                </li>
            }
            .into_any()
        })
        .collect_view();
    view! {
        <ul class="consent-fields" aria-label="The arguments' fields">{fields}</ul>
        <details class="consent-whole">
            <summary>"The exact arguments it would send"</summary>
            <pre class="consent-arguments" tabindex="0" aria-label="The exact arguments it would send">{exact}</pre>
        </details>
    }
    .into_any()
}
