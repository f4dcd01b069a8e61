//! A panel's Inspect view: every model call of the run, with the exact messages it sent and
//! what came back (reasoning, content, native tool calls, usage). Read off the record
//! (`agent::calls`), and built only while open, so it costs nothing while a run streams.
//!
//! The list is drawn with plain DOM calls rather than components: it is long, changes call
//! by call, and as components it weighed more in the app's download than the rest of the
//! feature. Every text goes in as text (`textContent`), never as markup. A call's entry is
//! redrawn only when the call changed, so an entry the user opened stays open.

use leptos::prelude::*;
use web_sys::{Document, Element};

use crate::agent::calls::{model_calls, ModelCall};
use crate::agent::record::RunRecord;
use crate::browser_model::{Backend, RUNTIME_VERSION};
use crate::llm::{ChatMessage, Role};

fn role_id(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// A new element with a class and, if given, its text.
fn element(doc: &Document, tag: &str, class: &str, text: Option<&str>) -> Option<Element> {
    let e = doc.create_element(tag).ok()?;
    if !class.is_empty() {
        e.set_class_name(class);
    }
    if let Some(t) = text {
        e.set_text_content(Some(t));
    }
    Some(e)
}

fn add(parent: &Element, tag: &str, class: &str, text: Option<&str>) -> Option<Element> {
    let doc = parent.owner_document()?;
    let child = element(&doc, tag, class, text)?;
    parent.append_child(&child).ok()?;
    Some(child)
}

fn add_message(parent: &Element, m: &ChatMessage) {
    let Some(div) = add(parent, "div", "message", None) else {
        return;
    };
    let _ = div.set_attribute("data-role", role_id(m.role));
    let role = match &m.tool_call_id {
        Some(id) => format!("{} (result of {id})", role_id(m.role)),
        None => role_id(m.role).to_string(),
    };
    add(&div, "div", "role", Some(&role));
    add(&div, "pre", "content", Some(&m.content));
    for c in &m.tool_calls {
        let call = format!("{} [{}] {}", c.name, c.id, c.arguments);
        add(&div, "pre", "tool-call", Some(&call));
    }
}

fn summary_text(call: &ModelCall) -> String {
    format!("{} — {} messages sent", call.label(), call.sent_count)
}

/// Fills `body` with what the call sent (read off `record`) and received.
fn fill_call(body: &Element, call: &ModelCall, record: &RunRecord) {
    body.set_text_content(None);
    if let Some(sent) = add(body, "div", "sent", None) {
        let messages = call.sent(record);
        add(
            &sent,
            "h4",
            "",
            Some(&format!("Sent ({} messages)", messages.len())),
        );
        messages.iter().for_each(|m| add_message(&sent, m));
    }
    let Some(received) = add(body, "div", "received", None) else {
        return;
    };
    add(&received, "h4", "", Some("Received"));
    if !call.reasoning.is_empty() {
        add(&received, "div", "role", Some("reasoning (the step's)"));
        add(&received, "pre", "reasoning-sent", Some(&call.reasoning));
    }
    match &call.reply {
        Some(m) => add_message(&received, m),
        None if call.partial.is_empty() => {
            add(
                &received,
                "p",
                "hint",
                Some("Nothing came back: the call failed or was stopped."),
            );
        }
        None => {
            add(
                &received,
                "p",
                "hint",
                Some("The reply was cut; what arrived:"),
            );
            add(&received, "pre", "content", Some(&call.partial));
        }
    }
    if let Some(u) = call.usage {
        let text = format!(
            "Usage (the step's): {} prompt + {} completion tokens",
            u.prompt_tokens, u.completion_tokens
        );
        add(&received, "p", "hint", Some(&text));
    }
    for (tool, failed) in call.failed_tools(record) {
        let mut text = format!("{tool} failed ({})", failed.kind.label());
        match &failed.detail {
            Some(detail) => text.push_str(&format!("; not sent to the model: {detail}")),
            None => text.push('.'),
        }
        add(&received, "p", "hint tool-failure", Some(&text));
    }
    if let Some(t) = &call.timings {
        let mut text = format!("llama.cpp's figures: {}", t.line());
        if let Some(place) = &t.runs_on {
            text.push_str(&format!(" · {}", place.describe()));
        }
        add(&received, "p", "hint timings", Some(&text));
    }
}

/// One call's entry: `<li><details><summary/><div class="call-body"/></details></li>`. Its
/// body is drawn when the entry is open: a long conversation has as many calls as steps,
/// each sending all before it.
struct Entry {
    item: Element,
    details: Element,
    summary: Element,
    body: Element,
    call: ModelCall,
    /// The body shows `call`.
    drawn: bool,
}

impl Entry {
    /// Draws the body if the entry is open and does not show its call yet.
    fn draw_if_open(&mut self, record: &RunRecord) {
        if !self.drawn && self.details.has_attribute("open") {
            fill_call(&self.body, &self.call, record);
            self.drawn = true;
        }
    }
}

fn new_entry(list: &Element, call: ModelCall) -> Option<Entry> {
    let item = add(list, "li", "model-call", None)?;
    let details = add(&item, "details", "", None)?;
    let summary = add(&details, "summary", "", Some(&summary_text(&call)))?;
    let body = add(&details, "div", "call-body", None)?;
    Some(Entry {
        item,
        details,
        summary,
        body,
        call,
        drawn: false,
    })
}

fn setup_line(r: &RunRecord) -> String {
    let c = &r.config;
    let mut parts = vec![
        format!("model {}", c.model),
        match c.backend {
            Backend::Endpoint => format!("at {}", c.base_url),
            Backend::Browser => format!(
                "in this browser (wllama {RUNTIME_VERSION}), from {}",
                c.base_url
            ),
        },
        format!("temperature {}", c.temperature),
        format!("max tokens {}", c.max_tokens),
    ];
    if c.mode.uses_tools() {
        parts.push(format!("protocol {:?}", c.protocol).to_lowercase());
        if !c.tools.is_empty() {
            parts.push(format!("tools offered: {}", c.tools.join(", ")));
        }
        for source in &c.mcp_tools {
            parts.push(format!("{}: {}", source.tool, source.describe()));
        }
    }
    if c.edited_prompt.is_some() {
        parts.push("system prompt edited in Settings (sent as written)".into());
    }
    parts.join(" · ")
}

/// Brings the list in `list` up to `calls`, redrawing only the entries that changed.
fn update(list: &Element, entries: &mut Vec<Entry>, calls: Vec<ModelCall>, record: &RunRecord) {
    if entries.len() > calls.len() {
        for entry in entries.drain(calls.len()..) {
            entry.item.remove();
        }
    }
    for (i, call) in calls.into_iter().enumerate() {
        match entries.get_mut(i) {
            Some(entry) if entry.call == call => {}
            Some(entry) => {
                entry.summary.set_text_content(Some(&summary_text(&call)));
                entry.call = call;
                entry.drawn = false;
                entry.body.set_text_content(None);
                entry.draw_if_open(record);
            }
            None => entries.extend(new_entry(list, call)),
        }
    }
}

#[component]
pub fn Inspect(state: RwSignal<RunRecord>) -> impl IntoView {
    let open = RwSignal::new(false);
    let setup = NodeRef::<leptos::html::P>::new();
    let list = NodeRef::<leptos::html::Ol>::new();
    let entries = StoredValue::new_local(Vec::<Entry>::new());
    Effect::new(move |_| {
        if !open.get() {
            return;
        }
        let (Some(setup), Some(list)) = (setup.get(), list.get()) else {
            return;
        };
        let (line, calls) = state.with(|r| (setup_line(r), model_calls(r)));
        let line = if calls.is_empty() {
            format!("{line} · no model call yet")
        } else {
            line
        };
        setup.set_text_content(Some(&line));
        state.with_untracked(|r| entries.update_value(|e| update(&list, e, calls, r)));
    });
    // An entry opened: draw its body (`toggle` does not bubble, so it is caught on the way
    // down to the entry).
    let on_toggle = move |_| {
        state.with_untracked(|r| {
            entries.update_value(|e| e.iter_mut().for_each(|entry| entry.draw_if_open(r)))
        })
    };
    view! {
        <details
            class="inspect"
            on:toggle=move |ev| {
                open.set(event_target::<Element>(&ev).has_attribute("open"))
            }
        >
            <summary>"Inspect: messages sent and received"</summary>
            <p class="hint inspect-setup" node_ref=setup></p>
            <ol class="model-calls" node_ref=list on:toggle:capture=on_toggle></ol>
        </details>
    }
}
