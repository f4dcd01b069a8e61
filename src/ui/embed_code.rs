//! "Embed": a ready `<iframe>` for a docs page, with the current modes and question, or with
//! the run the panels show carried whole in the address (`#run=`, deflated), plus the few lines
//! the parent page needs to follow the frame's height. The button is drawn with the first
//! screen; the dialog is a part (`EmbedCode`), fetched when the button first opens it.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::agent::mode::ModeChoice;
use crate::page_params::{base64url_encode, form_encode, RUN_KEY};
use crate::run_file::RunFile;
use crate::ui::copy_button::CopyButton;
use crate::ui::panel::panel_run::PanelRun;
use crate::ui::parts::{self, Part};
use crate::ui::runs::run_files::{awaits_vote, current_file};
use crate::web::deflate::deflate;
use crate::web::parent_height::HEIGHT_MESSAGE;

/// The page's own address, without query or fragment.
pub fn page_base() -> String {
    web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        })
        .unwrap_or_default()
}

fn snippet(url: &str) -> String {
    let url = url.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        r#"<iframe src="{url}" title="ReAct Arena" style="width:100%;height:640px;border:0" loading="lazy"></iframe>
<script>
  // Sizes the frame to its content: the app posts its height when it changes.
  addEventListener("message", (e) => {{
    if (e.data && e.data.type === "{HEIGHT_MESSAGE}") {{
      for (const f of document.querySelectorAll("iframe")) {{
        if (f.contentWindow === e.source) f.style.height = e.data.height + "px";
      }}
    }}
  }});
</script>"#
    )
}

/// Opens the embed dialog; the dialog is fetched the first time.
#[component]
pub fn EmbedButton(
    panels: RwSignal<Vec<PanelRun>>,
    question: RwSignal<String>,
    mode_choice: RwSignal<ModeChoice>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <button id="embed-open" type="button" on:click=move |_| open.set(true)>
            "Embed…"
        </button>
        {parts::show_once(
            move || open.get(),
            move || parts::show(Part::EmbedCode { panels, question, mode_choice, open }).into_any(),
        )}
    }
}

/// The embed dialog, built again each time `open` turns true.
#[component]
pub fn EmbedCode(
    panels: RwSignal<Vec<PanelRun>>,
    question: RwSignal<String>,
    mode_choice: RwSignal<ModeChoice>,
    open: RwSignal<bool>,
) -> impl IntoView {
    let with_run = RwSignal::new(true);
    let url = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<String>);
    // A blind run goes into the address once voted: until then its records name the modes.
    let blind = Memo::new(move |_| panels.with(|ps| awaits_vote(ps)));
    let has_run = Memo::new(move |_| !blind.get() && panels.with(|ps| current_file(ps).is_some()));

    let build = move || {
        let mut address = format!(
            "{}?embed=1&mode={}",
            page_base(),
            mode_choice.get_untracked().id()
        );
        let q = question.get_untracked();
        if !q.trim().is_empty() {
            address.push_str(&format!("&q={}", form_encode(q.trim())));
        }
        let file = with_run
            .get_untracked()
            .then(|| panels.with_untracked(|ps| current_file(ps)))
            .flatten()
            .filter(RunFile::can_share);
        problem.set(None);
        match file {
            None => url.set(address),
            Some(file) => spawn_local(async move {
                match deflate(&file.to_json()).await {
                    Ok(bytes) => {
                        url.set(format!("{address}#{RUN_KEY}{}", base64url_encode(&bytes)))
                    }
                    Err(why) => {
                        problem.set(Some(format!("Cannot put the run in the address: {why}.")));
                        url.set(address);
                    }
                }
            }),
        }
    };

    Effect::new(move |_| {
        if open.get() {
            untrack(build);
        }
    });

    view! {
        <Show when=move || open.get()>
            <section id="embed-dialog" class="embed-dialog" aria-labelledby="embed-title">
                    <h2 id="embed-title">"Embed in a page"</h2>
                    <label class="inline">
                        <input id="embed-with-run" type="checkbox" prop:checked=move || with_run.get() disabled=move || !has_run.get()
                            on:change=move |ev| { with_run.set(event_target_checked(&ev)); build(); } />
                        "Carry the run the panels show, whole, in the address (it replays with no token and no network)"
                    </label>
                    <Show when=move || blind.get()>
                        <p id="embed-blind" class="embed-url">"A blind run goes into the address once you have voted."</p>
                    </Show>
                    <textarea id="embed-snippet" readonly rows="12" aria-label="Embed code"
                        prop:value=move || snippet(&url.get())></textarea>
                    <p id="embed-url" class="embed-url" data-url=move || url.get()>
                        {move || format!("The frame's address is {} characters long.", url.with(|u| u.chars().count()))}
                    </p>
                    {move || problem.get().map(|p| view! { <p class="welcome-error" role="alert">{p}</p> })}
                    <div class="dialog-actions">
                        <CopyButton text=Signal::derive(move || snippet(&url.get())) label="Copy the embed code" />
                        <button id="embed-close" type="button" on:click=move |_| open.set(false)>"Close"</button>
                    </div>
            </section>
        </Show>
    }
}
