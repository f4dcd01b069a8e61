//! Settings' model in this browser: which GGUF file,
//! its size before anything downloads, the download (progress, Cancel), what is kept and how
//! much room it takes (Delete). Drawn from the parts chunk: none of it is first-screen work.

use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;
use web_sys::AbortController;

use crate::browser_model::{
    downloaded_text, format_bytes, offered, progress_text, url_problem, OFFERED,
};
use crate::llm::ThreadLimit;
use crate::ui::app_context::{AppContext, SettingsOpen};
use crate::web::browser_model;

/// Where a download is.
#[derive(Clone, PartialEq)]
enum Download {
    Idle,
    Going { loaded: u64, total: u64 },
}

#[component]
pub fn BrowserModel() -> impl IntoView {
    let settings = AppContext::get().settings;
    let url = Memo::new(move |_| settings.with(|s| s.browser_model_url.trim().to_string()));
    let download = RwSignal::new(Download::Idle);
    let error = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<String>);
    let controller = StoredValue::new_local(None::<AbortController>);
    // What this browser keeps: read again after every download and delete. (Resources: a
    // read that ends after the section is gone, or after a later read, changes nothing.)
    let kept_changed = RwSignal::new(0u32);
    let kept = LocalResource::new(move || {
        kept_changed.track();
        browser_model::kept_models()
    });
    let refresh = move || kept_changed.update(|n| *n += 1);
    Effect::new(move |_| {
        kept.with(|k| {
            if let Some(removed) = k.as_ref().map(|k| &k.removed).filter(|r| !r.is_empty()) {
                error.set(Some(removed.join(" ")));
            }
        })
    });
    // The glue (not the runtime) is loaded to look at the browser's features and its cache;
    // where a model runs is read again when Settings open (a model loaded since says where
    // its runtime put it).
    let settings_open = SettingsOpen::get();
    let support = LocalResource::new(move || {
        settings_open.track();
        async {
            match browser_model::missing_features().await {
                Ok(missing) if !missing.is_empty() => {
                    Err(crate::browser_model::Failure::Unsupported
                        .message(&format!("missing: {}", missing.join(", "))))
                }
                // Where a model would run here, and the threads a reload would give it.
                Ok(_) => Ok(browser_model::isolate().await.ok()),
                Err(message) => Err(message),
            }
        }
    });
    let unsupported = move || support.with(|s| s.clone().and_then(Result::err));
    let place = move || support.with(|s| s.clone().and_then(Result::ok).flatten());

    let kept_bytes = move || {
        let url = browser_model::normalised(&url.get());
        kept.with(|k| {
            k.as_ref()
                .and_then(|k| k.models.iter().find(|(u, _)| *u == url).map(|m| m.1))
        })
    };
    let start = move |_| {
        let url = url.get_untracked();
        if let Some(problem) = url_problem(&url) {
            error.set(Some(problem));
            return;
        }
        let Ok(abort) = AbortController::new() else {
            return;
        };
        let signal = abort.signal();
        controller.set_value(Some(abort));
        error.set(None);
        status.set(None);
        download.set(Download::Going {
            loaded: 0,
            total: 0,
        });
        let on_progress: Rc<dyn Fn(u64, u64)> = Rc::new(move |loaded, total| {
            download.set(Download::Going { loaded, total });
        });
        spawn_local(async move {
            let result = browser_model::download(&url, on_progress, &signal).await;
            controller.set_value(None);
            download.set(Download::Idle);
            match result {
                Ok(done) => status.set(Some(downloaded_text(&url, done.bytes, &done.sha256))),
                Err(message) => error.set(Some(message)),
            }
            refresh();
        });
    };
    let cancel = move |_| {
        if let Some(abort) = controller.get_value() {
            abort.abort();
        }
    };
    let delete = move |target: String| {
        spawn_local(async move {
            match browser_model::remove(&target).await {
                Ok(()) => status.set(Some(format!(
                    "Deleted {} from this browser.",
                    crate::browser_model::model_name(&target)
                ))),
                Err(message) => error.set(Some(message)),
            }
            refresh();
        });
    };

    let options = OFFERED
        .iter()
        .map(|o| {
            view! {
                <option value=o.url>{o.label()}</option>
            }
        })
        .collect_view();
    let size_line = move || {
        let url = url.get();
        match (kept_bytes(), offered(&url)) {
            (Some(bytes), _) => format!("Kept in this browser: {}.", format_bytes(bytes)),
            (None, Some(o)) => format!(
                "Download size: {}. Nothing downloads until you press Download. {}",
                format_bytes(o.pin.bytes),
                o.speed_line()
            ),
            (None, None) => {
                "Its size shows when the download starts. Nothing downloads until you press Download."
                    .into()
            }
        }
    };
    let storage_line = move || {
        kept.with(|k| {
            k.as_ref().map(|k| {
                let models: u64 = k.models.iter().map(|m| m.1).sum();
                let mut line = format!(
                    "Models kept in this browser: {} ({}).",
                    k.models.len(),
                    format_bytes(models)
                );
                if k.quota > 0 {
                    line.push_str(&format!(
                        " This site uses {} of the {} the browser allows it.",
                        format_bytes(k.usage),
                        format_bytes(k.quota)
                    ));
                }
                line
            })
        })
    };
    let kept_rows = move || {
        kept.with(|k| {
            k.as_ref()
                .map(|k| k.models.clone())
                .unwrap_or_default()
                .into_iter()
                .map(|(model_url, bytes)| {
                    let name = crate::browser_model::model_name(&model_url).to_string();
                    let label = format!("Delete {name} from this browser");
                    let target = model_url.clone();
                    view! {
                        <li class="kept-model">
                            <span title=model_url>{format!("{name}: {}", format_bytes(bytes))}</span>
                            " "
                            <button class="kept-delete" aria-label=label on:click=move |_| delete(target.clone())>
                                "Delete"
                            </button>
                        </li>
                    }
                })
                .collect_view()
        })
    };

    view! {
        <label for="browser-model">"Model in this browser"</label>
        <select
            id="browser-model"
            prop:value=move || {
                let url = url.get();
                if offered(&url).is_some() { url } else { String::new() }
            }
            on:change=move |ev| {
                let chosen = event_target_value(&ev);
                if !chosen.is_empty() {
                    settings.update(|s| s.browser_model_url = chosen);
                }
            }
        >
            {options}
            <option value="">"Another GGUF file (its URL below)"</option>
        </select>
        <label for="browser-model-url">"Model file URL"</label>
        <input
            id="browser-model-url"
            type="url"
            spellcheck="false"
            prop:value=move || url.get()
            on:change=move |ev| {
                let raw = event_target_value(&ev).trim().to_string();
                match url_problem(&raw) {
                    None => {
                        settings.update(|s| s.browser_model_url = raw);
                        error.set(None);
                    }
                    Some(problem) => {
                        error.set(Some(format!("Model file URL: {problem} Kept the previous value.")));
                        settings.update(|_| {});
                    }
                }
            }
        />
        <div class="browser-model wide">
            <p id="browser-model-size">{size_line}</p>
            {move || match download.get() {
                Download::Going { loaded, total } => view! {
                    <div class="download-row">
                        <progress
                            id="browser-model-progress"
                            aria-label="Model download"
                            max=total.max(1) as f64
                            value=loaded.min(total) as f64
                        ></progress>
                        <span id="browser-model-progress-text">{progress_text(loaded, (total > 0).then_some(total))}</span>
                        <button id="browser-model-cancel" on:click=cancel>"Cancel"</button>
                    </div>
                }.into_any(),
                Download::Idle => view! {
                    <div class="download-row">
                        <button
                            id="browser-model-download"
                            prop:disabled=move || unsupported().is_some() || kept_bytes().is_some()
                            on:click=start
                        >
                            "Download"
                        </button>
                    </div>
                }.into_any(),
            }}
            <Show when=move || unsupported().is_some()>
                <p id="browser-model-unsupported" class="field-error" role="alert">
                    {move || unsupported().unwrap_or_default()}
                </p>
            </Show>
            <Show when=move || error.with(Option::is_some)>
                <p id="browser-model-error" class="field-error" role="alert">
                    {move || error.get().unwrap_or_default()}
                </p>
            </Show>
            {move || place().map(|(runs_on, cores)| {
                let reload = runs_on.limit == Some(ThreadLimit::Reload) && cores > 1;
                view! {
                    <p id="browser-model-place">"Runs on: " {runs_on.describe()}</p>
                    <Show when=move || reload>
                        <div class="download-row">
                            <button
                                id="browser-model-reload"
                                on:click=|_| { let _ = window().location().reload(); }
                            >
                                {format!("Reload to use {cores} threads")}
                            </button>
                            <span class="hint">"Settings and kept runs stay; a run going now stops."</span>
                        </div>
                    </Show>
                }
            })}
            <p id="browser-model-status" role="status">{move || status.get().unwrap_or_default()}</p>
            <p id="browser-model-storage">{storage_line}</p>
            <ul class="kept-models">{kept_rows}</ul>
            <p class="hint">
                "The file is kept in this browser's Cache Storage for this site, so later visits start without downloading. Delete removes it. A listed model's file is checked against the published file's size and SHA-256 when it downloads and before it loads. The runtime (llama.cpp in WebAssembly, about 10 MB) loads only when a run uses this backend; it uses as many threads as this device has cores when the page can share memory between threads (after one reload, not inside another site's frame), and a WebGPU adapter with 16-bit floats where there is one."
            </p>
        </div>
    }
}
