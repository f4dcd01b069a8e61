//! The model in this browser, as the page calls it: a thin layer over `public/browser-model.js`
//! (the runtime, wllama, and the GGUF file kept in Cache Storage). That script is added to the
//! page the first time this backend is used, so a visit that never uses it loads none of it.
//! What the failures mean and say is in `arena_core::browser_model`; the fair turns of the
//! panels that share the one model are `arena_core::turn_queue`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use crate::read_body::js_error_text;
use arena_core::browser_model::{
    check, has_simd_kernels, load_time_limit_secs, pin, size_mismatch, Failure, RUNTIME_DIR,
};
use arena_core::llm::RunsOn;
use arena_core::progress::ModelHolder;
use arena_core::turn_queue::{TakeTurn, TurnQueue};

/// Where the glue puts its functions.
const GLUE_GLOBAL: &str = "reactArenaBrowserModel";
/// The header of the glue's answer that says where the model ran (`RunsOn` as JSON).
pub const RUNS_ON_HEADER: &str = "x-react-arena-runs-on";
/// The glue, relative to the page (copied into `dist/` by Trunk).
const GLUE_FILE: &str = "browser-model.js";

/// A caller of the model: its run (record id) and mode.
#[derive(Clone)]
pub struct Caller {
    pub run_id: String,
    pub mode: String,
}

thread_local! {
    static TURNS: TurnQueue<Caller> = TurnQueue::default();
    /// The model is being loaded for the caller holding the turn.
    static LOADING: Cell<bool> = const { Cell::new(false) };
    /// How often the glue failed to load: a retry asks for it afresh.
    static GLUE_TRIES: Cell<u32> = const { Cell::new(0) };
    /// The glue being added to the page, shared by everyone who waits for it.
    static ADDING: RefCell<Option<Promise>> = const { RefCell::new(None) };
}

/// Waits for the model's turn: the panels of a run share one model, one call at a time, in
/// the order they asked. The caller is shown to the panels that wait.
pub fn take_turn(caller: Caller) -> TakeTurn<Caller> {
    TURNS.with(|t| t.take_turn(caller))
}

/// Whose call the model is answering now, and whether it is still loading for it.
pub fn holder() -> Option<ModelHolder> {
    TURNS.with(|t| t.holder()).map(|c| ModelHolder {
        run_id: c.run_id,
        mode: c.mode,
        loading: LOADING.get(),
    })
}

/// A failure of the glue, said for the user.
fn said(error: &JsValue) -> String {
    let field = |name: &str| Reflect::get(error, &JsValue::from_str(name)).ok();
    let number = |name: &str| field(name).and_then(|v| v.as_f64()).unwrap_or(0.0) as u64;
    let text = |name: &str| field(name).and_then(|v| v.as_string()).unwrap_or_default();
    let Some(kind) = field("kind").and_then(|k| k.as_string()) else {
        return Failure::Other.message(&js_error_text(error));
    };
    let detail = field("detail")
        .and_then(|d| d.as_string())
        .unwrap_or_default();
    let failure = match kind.as_str() {
        "truncated" => Failure::Truncated {
            got: number("got"),
            expected: number("expected"),
        },
        "http" => Failure::Http(number("status") as u16),
        "timeout" => Failure::LoadTimedOut {
            secs: number("seconds") as u32,
        },
        // The glue reports what it measured; the core says how that differs from the pin.
        "mismatch" => {
            let url = text("url");
            match check(&url, number("bytes"), &text("sha256")) {
                Err(mismatch) => Failure::NotPublished {
                    url,
                    mismatch,
                    downloaded: field("downloaded").and_then(|d| d.as_bool()) == Some(true),
                },
                Ok(()) => Failure::Other,
            }
        }
        other => Failure::of_kind(other),
    };
    failure.message(&detail)
}

/// The glue's functions, adding its script to the page the first time.
async fn glue() -> Result<JsValue, String> {
    let global = js_sys::global();
    let key = JsValue::from_str(GLUE_GLOBAL);
    if let Ok(api) = Reflect::get(&global, &key) {
        if api.is_object() {
            return Ok(api);
        }
    }
    let adding = ADDING.with(|a| a.borrow().clone()).unwrap_or_else(|| {
        let promise = add_script();
        ADDING.with(|a| *a.borrow_mut() = Some(promise.clone()));
        promise
    });
    let added = JsFuture::from(adding).await;
    let api = Reflect::get(&global, &key).ok().filter(JsValue::is_object);
    match (added, api) {
        (Ok(_), Some(api)) => Ok(api),
        _ => {
            // Another try adds it again (the connection may be back), by another address: the
            // browser keeps a failed module's address as failed.
            ADDING.with(|a| *a.borrow_mut() = None);
            GLUE_TRIES.set(GLUE_TRIES.get() + 1);
            Err(Failure::RuntimeMissing.message(&format!("{GLUE_FILE} could not be loaded")))
        }
    }
}

/// A module script for the glue, and a promise of its having run (or failed to load).
fn add_script() -> Promise {
    Promise::new(&mut |resolve, reject| {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            let _ = reject.call0(&JsValue::NULL);
            return;
        };
        let Ok(script) = document.create_element("script") else {
            let _ = reject.call0(&JsValue::NULL);
            return;
        };
        let _ = script.set_attribute("type", "module");
        let src = match GLUE_TRIES.get() {
            0 => GLUE_FILE.to_string(),
            n => format!("{GLUE_FILE}?try={n}"),
        };
        let _ = script.set_attribute("src", &src);
        let _ = script.add_event_listener_with_callback("load", &resolve);
        let _ = script.add_event_listener_with_callback("error", &reject);
        let parent = document
            .head()
            .map(web_sys::Node::from)
            .or_else(|| document.body().map(web_sys::Node::from));
        match parent {
            Some(parent) => {
                let _ = parent.append_child(&script);
            }
            None => {
                let _ = reject.call0(&JsValue::NULL);
            }
        }
    })
}

/// Calls the glue's function `name` with `args` and waits for its promise.
async fn call(name: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let api = glue().await?;
    let function: Function = Reflect::get(&api, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| Failure::RuntimeMissing.message(&format!("no {name} in {GLUE_FILE}")))?;
    let args: js_sys::Array = args.iter().collect();
    let result = function.apply(&api, &args).map_err(|e| said(&e))?;
    JsFuture::from(Promise::resolve(&result))
        .await
        .map_err(|e| said(&e))
}

/// The WebAssembly features the runtime needs that this browser lacks (empty: none).
pub async fn missing_features() -> Result<Vec<String>, String> {
    let missing = call("missingFeatures", &[]).await?;
    Ok(js_sys::Array::from(&missing)
        .iter()
        .filter_map(|f| f.as_string())
        .collect())
}

/// Where a model loaded now would run, after asking the browser to isolate the page where it
/// can (the isolation worker, which takes effect from the next load); and how many threads
/// the machine would give it once isolated.
pub async fn isolate() -> Result<(RunsOn, u32), String> {
    let place = call("isolate", &[]).await?;
    let json = js_sys::JSON::stringify(&place)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default();
    let mut runs_on: RunsOn = serde_json::from_str(&json).map_err(|e| e.to_string())?;
    // The page loads only its own runtime folder.
    runs_on.simd = has_simd_kernels(RUNTIME_DIR);
    let cores = Reflect::get(&place, &JsValue::from_str("cores"))
        .ok()
        .and_then(|c| c.as_f64())
        .unwrap_or(1.0) as u32;
    Ok((runs_on, cores))
}

/// The published file's size and SHA-256 for the glue to check a file against, when `url` is
/// an offered model's; `null` otherwise.
fn expected(url: &str) -> JsValue {
    let Some(pin) = pin(url) else {
        return JsValue::NULL;
    };
    let expect = js_sys::Object::new();
    let _ = Reflect::set(&expect, &"bytes".into(), &JsValue::from(pin.bytes as f64));
    let _ = Reflect::set(&expect, &"sha256".into(), &JsValue::from_str(pin.sha256));
    expect.into()
}

/// A finished download: its size and SHA-256 (lowercase hex).
pub struct Downloaded {
    pub bytes: u64,
    pub sha256: String,
}

/// Downloads the model at `url` into the browser's cache, whole or not at all, reporting
/// (bytes so far, bytes in all or 0). An offered model's file is kept only if it is the
/// published one. Stopped by `signal` (Cancel).
pub async fn download(
    url: &str,
    on_progress: Rc<dyn Fn(u64, u64)>,
    signal: &AbortSignal,
) -> Result<Downloaded, String> {
    let progress = Closure::<dyn Fn(f64, f64)>::new(move |loaded: f64, total: f64| {
        on_progress(loaded as u64, total as u64)
    });
    let result = call(
        "download",
        &[
            JsValue::from_str(url),
            progress.as_ref().clone(),
            signal.into(),
            expected(url),
        ],
    )
    .await;
    // The closure lives until the download has ended; the glue calls it no more after that.
    drop(progress);
    let done = result?;
    let field = |name: &str| Reflect::get(&done, &JsValue::from_str(name)).unwrap_or_default();
    Ok(Downloaded {
        bytes: field("bytes").as_f64().unwrap_or(0.0) as u64,
        sha256: field("sha256").as_string().unwrap_or_default(),
    })
}

/// The models kept (address, bytes), and the site's storage use and quota as the browser
/// estimates them; `removed` says why files found under offered models' addresses were not
/// theirs, and were deleted.
pub struct Kept {
    pub models: Vec<(String, u64)>,
    pub usage: u64,
    pub quota: u64,
    pub removed: Vec<String>,
}

pub async fn kept_models() -> Kept {
    let Ok(storage) = call("storage", &[]).await else {
        return Kept {
            models: Vec::new(),
            usage: 0,
            quota: 0,
            removed: Vec::new(),
        };
    };
    let number = |v: &JsValue, name: &str| {
        Reflect::get(v, &JsValue::from_str(name))
            .ok()
            .and_then(|n| n.as_f64())
            .unwrap_or(0.0) as u64
    };
    let list = Reflect::get(&storage, &JsValue::from_str("models")).unwrap_or_default();
    let models = js_sys::Array::from(&list)
        .iter()
        .filter_map(|m| {
            let url = Reflect::get(&m, &JsValue::from_str("url"))
                .ok()?
                .as_string()?;
            Some((url, number(&m, "bytes")))
        })
        .collect::<Vec<_>>();
    // A file of the wrong size under an offered model's address is not that model, whoever
    // put it there: it is named and deleted, never listed as the model.
    let mut removed = Vec::new();
    let mut listed = Vec::new();
    for (url, bytes) in models {
        match size_mismatch(&url, bytes) {
            Some(mismatch) if remove(&url).await.is_ok() => removed.push(
                Failure::NotPublished {
                    url,
                    mismatch,
                    downloaded: false,
                }
                .message(""),
            ),
            _ => listed.push((url, bytes)),
        }
    }
    Kept {
        models: listed,
        usage: number(&storage, "usage"),
        quota: number(&storage, "quota"),
        removed,
    }
}

/// Deletes the kept model at `url` (unloading it if it is loaded).
pub async fn remove(url: &str) -> Result<(), String> {
    call("remove", &[JsValue::from_str(url)]).await.map(|_| ())
}

/// Loads the model at `url` (kept in this browser) with a context of `context` tokens, unless
/// it is loaded already; an offered model's file is checked against its pin first. The load
/// ends, its runtime terminated, when `signal` aborts (Stop) or its time limit passes.
pub async fn load(url: &str, context: u32, signal: &AbortSignal) -> Result<(), String> {
    /// Clears the flag however the load ends, Stop (a dropped future) included.
    struct Loading;
    impl Drop for Loading {
        fn drop(&mut self) {
            LOADING.set(false);
        }
    }
    LOADING.set(true);
    let _loading = Loading;
    let bytes = call("keptBytes", &[JsValue::from_str(url)]).await?;
    let limit_ms = f64::from(load_time_limit_secs(bytes.as_f64().unwrap_or(0.0) as u64)) * 1000.0;
    call(
        "load",
        &[
            JsValue::from_str(RUNTIME_DIR),
            JsValue::from_str(url),
            JsValue::from(context),
            expected(url),
            JsValue::from(limit_ms),
            signal.into(),
        ],
    )
    .await
    .map(|_| ())
}

/// `url` as the browser writes it (and Cache Storage keys it): what a kept model is matched by.
pub fn normalised(url: &str) -> String {
    web_sys::Url::new(url.trim())
        .map(|u| u.href())
        .unwrap_or_else(|_| url.trim().to_string())
}

/// The model's answer to an OpenAI chat-completions `body`, as an endpoint's response: an
/// event stream. Stopped by `signal`.
pub async fn respond(body: &str, signal: &AbortSignal) -> Result<web_sys::Response, String> {
    let response = call("chat", &[JsValue::from_str(body), signal.into()]).await?;
    response
        .dyn_into::<web_sys::Response>()
        .map_err(|_| Failure::Other.message("the runtime gave no response"))
}

/// Resolves when `signal` aborts (at once if it has).
pub async fn aborted(signal: &AbortSignal) {
    let promise = Promise::new(&mut |resolve, _| {
        if signal.aborted() {
            let _ = resolve.call0(&JsValue::NULL);
        } else {
            // Once: the run's signal outlives many calls, which must not pile listeners on it.
            let once = web_sys::AddEventListenerOptions::new();
            once.set_once(true);
            let _ = signal.add_event_listener_with_callback_and_add_event_listener_options(
                "abort", &resolve, &once,
            );
        }
    });
    let _ = JsFuture::from(promise).await;
}
