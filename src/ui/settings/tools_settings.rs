//! The tool part of Settings: which tools the model is offered, where each tool's requests go,
//! and the Python time limit.

use leptos::prelude::*;

use crate::agent::protocols::action_protocol::ProtocolChoice;
use crate::agent::Mode;
use crate::settings::{Settings, MAX_PYTHON_TIMEOUT_SECS};
use crate::tools::endpoints::{is_http_url, ENDPOINT_FIELDS};
use crate::tools::registry::TOOL_NAMES;
use crate::ui::app_context::{AppContext, FieldError};

#[component]
pub fn ToolsSettings() -> impl IntoView {
    let settings = AppContext::get().settings;
    let field_error = FieldError::get();
    let rows = TOOL_NAMES
        .into_iter()
        .map(|name| {
            view! {
                <tr>
                    <th scope="row">{name}</th>
                    {TOOL_MODES.map(|mode| view! { <td>{tool_toggle(settings, mode, name.to_string())}</td> })}
                </tr>
            }
        })
        .collect_view();

    let endpoints = ENDPOINT_FIELDS
        .iter()
        .map(|field| {
            let id = format!("endpoint-{}", field.id);
            let (get, get_mut, label) = (field.get, field.get_mut, field.label);
            view! {
                <label for=id.clone()>{label}</label>
                <input
                    id=id
                    type="url"
                    spellcheck="false"
                    prop:value=move || settings.with(|s| get(&s.tool_endpoints).clone())
                    on:change=move |ev| {
                        let raw = event_target_value(&ev).trim().to_string();
                        if is_http_url(&raw) {
                            settings.update(|s| *get_mut(&mut s.tool_endpoints) = raw);
                            settings.update(|s| s.tool_endpoints = s.tool_endpoints.clone().repaired());
                            field_error.set(None);
                        } else {
                            field_error.set(Some(format!("{label}: \"{raw}\" is not an http(s) URL. Kept the previous value.")));
                            settings.update(|_| {});
                        }
                    }
                />
            }
        })
        .collect_view();

    view! {
        <label for="protocol">"Tool calls"</label>
        <select
            id="protocol"
            aria-describedby="protocol-hint"
            prop:value=move || settings.with(|s| s.protocol.id())
            on:change=move |ev| {
                if let Some(choice) = ProtocolChoice::from_id(&event_target_value(&ev)) {
                    settings.update(|s| s.protocol = choice);
                }
            }
        >
            {ProtocolChoice::ALL
                .into_iter()
                .map(|c| view! { <option value=c.id()>{c.label()}</option> })
                .collect_view()}
        </select>
        <p class="hint wide" id="protocol-hint">
            "How Act-only and ReAct call tools. Auto: the model's native tool calls (OpenAI tools) when it has them, else text lines (Thought / Action / Action Input). JSON actions may call several tools in one step. CodeAct needs none of these: its actions are Python programs that call the tools as functions, so any model that writes Python can run it."
        </p>
        <span class="settings-label" id="tools-label">"Tools"</span>
        <table class="tool-choice" aria-labelledby="tools-label">
            <thead>
                <tr>
                    <th scope="col">"Tool"</th>
                    {TOOL_MODES.map(|mode| view! { <th scope="col">{mode.label()}</th> })}
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <label for="python-timeout">"Python time limit (s)"</label>
        <input
            id="python-timeout"
            aria-describedby="python-timeout-hint"
            type="number"
            min="1"
            max=MAX_PYTHON_TIMEOUT_SECS
            prop:value=move || settings.with(|s| s.python_timeout_secs.to_string())
            on:change=move |ev| {
                let raw = event_target_value(&ev);
                match raw.trim().parse::<u32>() {
                    Ok(v) if (1..=MAX_PYTHON_TIMEOUT_SECS).contains(&v) => {
                        settings.update(|s| s.python_timeout_secs = v);
                        field_error.set(None);
                    }
                    _ => {
                        field_error.set(Some(format!("Python time limit: \"{raw}\" is not valid (a whole number from 1 to {MAX_PYTHON_TIMEOUT_SECS}). Kept the previous value.")));
                        settings.update(|_| {});
                    }
                }
            }
        />
        <p class="hint wide" id="python-timeout-hint">
            "For each python tool call and each CodeAct program."
        </p>
        <details class="endpoints wide">
            <summary>"Tool endpoints"</summary>
            <div class="settings-grid">{endpoints}</div>
        </details>
    }
}

/// The modes that call tools, in the order of the choice's columns.
pub const TOOL_MODES: [Mode; 3] = [Mode::Act, Mode::ReAct, Mode::CodeAct];

/// Whether `mode` may call the tool `name`: one cell of the tool choice.
pub fn tool_toggle(settings: RwSignal<Settings>, mode: Mode, name: String) -> impl IntoView {
    let id = format!("tool-{}-{name}", mode.id());
    let label = format!("{name} in {}", mode.label());
    // A CodeAct program is Python already: its python tool stays off (Settings::tool_enabled).
    let fixed = mode == Mode::CodeAct
        && name == <crate::tools::python::Python as crate::tools::TypedTool>::NAME;
    let (read, write) = (name.clone(), name);
    view! {
        <input
            id=id
            type="checkbox"
            aria-label=label
            disabled=fixed
            title=fixed.then_some("A CodeAct program is Python already: it has no Python tool.")
            prop:checked=move || settings.with(|s| s.tool_enabled(mode, &read))
            on:change=move |ev| {
                let on = event_target_checked(&ev);
                settings.update(|s| s.set_tool_enabled(mode, &write, on));
            }
        />
    }
}
