//! Where the Evaluate view goes, and the bridge to it. The view is a second wasm module
//! (`src/bin/evaluate.rs`), loaded the first time it is opened; it asks this page for the
//! current settings and token when an evaluation starts, and hands back a run to show in the
//! panels when a result is opened.

use leptos::html::Div;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;

use crate::web::lazy_module;

#[derive(Clone, PartialEq)]
enum Loading {
    NotYet,
    Busy,
    Ready,
    Failed(String),
}

/// What the page does for the view.
#[derive(Clone, Copy)]
pub struct EvaluateBridge {
    /// The settings and token now, as `EvalContext` JSON.
    pub context: Callback<(), String>,
    /// The user confirmed sending the token to this origin.
    pub trust_host: Callback<String>,
    /// Show this run file (JSON) in the panels, under this title.
    pub open_run: Callback<(String, String)>,
}

/// The object the module is mounted with: `context()`, `trustHost(origin)` and
/// `openRun(title, json)`. Lives as long as the page.
fn bridge_object(bridge: EvaluateBridge) -> JsValue {
    let object = js_sys::Object::new();
    let context = Closure::<dyn Fn() -> String>::new(move || bridge.context.run(()));
    let trust = Closure::<dyn Fn(String)>::new(move |o: String| bridge.trust_host.run(o));
    let open_run = Closure::<dyn Fn(String, String)>::new(move |title: String, json: String| {
        bridge.open_run.run((title, json))
    });
    let _ = js_sys::Reflect::set(&object, &"context".into(), context.as_ref());
    let _ = js_sys::Reflect::set(&object, &"trustHost".into(), trust.as_ref());
    let _ = js_sys::Reflect::set(&object, &"openRun".into(), open_run.as_ref());
    context.forget();
    trust.forget();
    open_run.forget();
    object.into()
}

#[component]
pub fn EvaluateHost(open: RwSignal<bool>, bridge: EvaluateBridge) -> impl IntoView {
    let state = RwSignal::new(Loading::NotYet);
    let root = NodeRef::<Div>::new();
    let load = move || {
        state.set(Loading::Busy);
        spawn_local(async move {
            let mounted = async {
                let module = lazy_module::load("evaluate").await?;
                let element = root.get_untracked().ok_or("The view's place is gone.")?;
                let element: web_sys::HtmlElement = element.into();
                lazy_module::call(
                    &module,
                    "mount_evaluation",
                    &[element.into(), bridge_object(bridge)],
                )
                .map(|_| ())
            };
            state.set(match mounted.await {
                Ok(()) => Loading::Ready,
                Err(e) => Loading::Failed(e),
            });
        });
    };
    Effect::new(move |_| {
        if open.get() && state.get_untracked() == Loading::NotYet {
            load();
        }
    });
    view! {
        <section id="evaluate" class="evaluate" hidden=move || !open.get() aria-label="Evaluate">
            {move || match state.get() {
                Loading::Busy => {
                    view! { <p class="evaluate-loading" role="status">"Loading the Evaluate view…"</p> }
                        .into_any()
                }
                Loading::Failed(e) => {
                    view! {
                        <div class="app-alert" role="alert">
                            <span>{e}</span>
                            <button on:click=move |_| load()>"Try again"</button>
                        </div>
                    }
                        .into_any()
                }
                _ => ().into_any(),
            }}
            // The module renders into this element; this page never re-renders it.
            <div id="evaluate-root" node_ref=root></div>
        </section>
    }
}
