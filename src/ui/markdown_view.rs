use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::markdown_blocks::scan_window;
use crate::web::clipboard::copy_text;
use crate::web::engine;
use crate::web::timer::{next_frame, now_ms, sleep};

/// The app's own origin, which links in model and tool text may not point back into.
fn page_origin() -> String {
    web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default()
}

/// From how much source a text counts as long (see `.md.long` in the stylesheet).
const LONG_TEXT_BYTES: usize = 16 * 1024;

/// How long the Markdown views may draw in one frame before they let the page breathe (a
/// task over 50 ms is one the user can feel). Shared: three panels drawing in the same frame
/// split one slice, so the frame does not grow with the number of panels.
const SLICE_MS: f64 = 5.0;

/// How long a frame lasts, near enough: drawing this long after the first pass of a frame
/// belongs to the next one.
const FRAME_MS: f64 = 16.0;

/// What a pass may spend when the views have spent the frame's slice: one chunk, so every
/// view moves on.
const LEAST_MS: f64 = 1.0;

/// About how much source goes into one `insertAdjacentHTML` call, and at most into a pass:
/// what the browser then has to lay out in one frame.
const CHUNK_BYTES: usize = 4096;
const PASS_BYTES: usize = 8 * 1024;

/// How much of the text still to draw a pass reads for its blocks (`scan_window`).
const SCAN_BYTES: usize = 2 * PASS_BYTES;

thread_local! {
    /// When the current frame's drawing began, and how long the views have drawn in it.
    static FRAME_SPENT: std::cell::Cell<(f64, f64)> = const { std::cell::Cell::new((f64::MIN, 0.0)) };
    /// Whether the engine, which draws Markdown, is loaded. A view drawn before it (a kept or
    /// recorded run shown at once) shows its text plainly and is drawn again when it is.
    static ENGINE_READY: ArcRwSignal<bool> = ArcRwSignal::new(false);
}

/// What a Markdown view has on screen.
#[derive(Default)]
struct Drawn {
    /// The text is shown as it is, waiting for the engine.
    plain: bool,
    /// The source of the blocks drawn for good: the text only grows, so they never change.
    done: String,
    /// How many nodes at the end were drawn from the rest, which is drawn again each time.
    tail_nodes: u32,
    /// A pass is queued for the next task.
    queued: bool,
}

/// Model or tool text rendered as markdown; `markdown::render_markdown` (run by the engine's
/// module) guarantees no live HTML. Each code block gets a Copy button, added here (not in
/// the markdown) so the sanitised HTML stays free of controls.
///
/// A text that grows (a streamed reply) is drawn a block at a time: finished blocks once, the
/// last one again on each change. A long text arriving at once is drawn in passes of a few
/// milliseconds, so no single task blocks the page.
#[component]
pub fn Markdown(
    #[prop(into)] text: Signal<String>,
    #[prop(optional)] class: &'static str,
) -> impl IntoView {
    let origin = StoredValue::new(page_origin());
    let node = NodeRef::<leptos::html::Div>::new();
    let drawn = StoredValue::new_local(Drawn::default());
    let ready = ENGINE_READY.with(Clone::clone);
    Effect::new(move |_| {
        text.track();
        ready.track();
        draw_pass(node, text, drawn, origin);
    });
    // One listener for every code block's button.
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(button) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("button.copy-code").ok().flatten())
        else {
            return;
        };
        let code = button
            .parent_element()
            .and_then(|wrap| wrap.query_selector("pre").ok().flatten())
            .and_then(|pre| pre.text_content())
            .unwrap_or_default();
        spawn_local(async move {
            let said = if copy_text(&code).await.is_ok() {
                "Copied"
            } else {
                "Copy failed"
            };
            button.set_text_content(Some(said));
            sleep(1500).await;
            button.set_text_content(Some("Copy"));
        });
    };
    view! { <div class=format!("md {class}") node_ref=node on:click=on_click></div> }
}

/// Draws what the time allows of the current text, and queues another pass if some is left.
fn draw_pass(
    node: NodeRef<leptos::html::Div>,
    text: Signal<String>,
    drawn: StoredValue<Drawn, LocalStorage>,
    origin: StoredValue<String>,
) {
    // The view may be gone by the time a queued pass runs.
    let (Some(el), Some(page)) = (node.try_get_untracked().flatten(), origin.try_get_value())
    else {
        return;
    };
    if !engine::is_loaded() {
        text.try_with_untracked(|t| drawn.try_update_value(|d| draw_plain(&el, t, d)));
        spawn_local(async {
            if engine::load().await.is_ok() {
                ENGINE_READY.with(|ready| {
                    if !ready.get_untracked() {
                        ready.set(true);
                    }
                });
            }
        });
        return;
    }
    let more = text
        .try_with_untracked(|t| drawn.try_update_value(|d| draw(&el, t, d, &page)))
        .flatten()
        .unwrap_or(false);
    if !more || drawn.try_with_value(|d| d.queued).unwrap_or(true) {
        return;
    }
    drawn.update_value(|d| d.queued = true);
    spawn_local(async move {
        // One pass a frame: the browser lays out what a pass added before the next one adds
        // more (a hidden tab, which draws no frames, still goes on).
        next_frame(100).await;
        if drawn.try_update_value(|d| d.queued = false).is_some() {
            draw_pass(node, text, drawn, origin);
        }
    });
}

/// The text as it is, until the engine can draw it.
fn draw_plain(el: &web_sys::Element, text: &str, drawn: &mut Drawn) {
    let _ = el.class_list().add_1("plain");
    el.set_text_content(Some(text));
    *drawn = Drawn {
        plain: true,
        ..Drawn::default()
    };
}

/// Until when a pass that starts at `now` may draw: what is left of the frame's slice.
fn deadline(now: f64) -> f64 {
    let (frame_start, spent) = FRAME_SPENT.get();
    let left = if now - frame_start > FRAME_MS {
        FRAME_SPENT.set((now, 0.0));
        SLICE_MS
    } else {
        SLICE_MS - spent
    };
    now + left.max(LEAST_MS)
}

/// Counts a pass's drawing time against the frame's slice.
fn spent(started: f64) {
    let (frame_start, spent) = FRAME_SPENT.get();
    FRAME_SPENT.set((frame_start, spent + (now_ms() - started)));
}

/// One pass: returns whether finished blocks are left to draw.
fn draw(el: &web_sys::Element, text: &str, drawn: &mut Drawn, origin: &str) -> bool {
    let started = now_ms();
    let more = draw_until(el, text, drawn, origin, deadline(started));
    spent(started);
    more
}

fn draw_until(
    el: &web_sys::Element,
    text: &str,
    drawn: &mut Drawn,
    origin: &str,
    deadline: f64,
) -> bool {
    if drawn.plain {
        let _ = el.class_list().remove_1("plain");
        el.set_inner_html("");
        drawn.plain = false;
    }
    if !text.starts_with(drawn.done.as_str()) {
        // Not a continuation (a new text): start again.
        el.set_inner_html("");
        drawn.done.clear();
        drawn.tail_nodes = 0;
    }
    for _ in 0..drawn.tail_nodes {
        if let Some(last) = el.last_child() {
            let _ = el.remove_child(&last);
        }
    }
    drawn.tail_nodes = 0;
    if drawn.done.is_empty() {
        // Decided before anything is drawn: turning it on over thousands of drawn blocks
        // would itself cost the browser a second.
        let _ = el
            .class_list()
            .toggle_with_force("long", text.len() > LONG_TEXT_BYTES);
    }
    let first_new = el.child_nodes().length();
    let rest = &text[drawn.done.len()..];
    // A long rest is read a window at a time (the whole when the window holds no final block).
    let window = scan_window(rest, SCAN_BYTES);
    let mut windowed = window < rest.len();
    let mut starts = engine::markdown_block_starts(&rest[..window]).unwrap_or_default();
    if windowed && starts.len() < 2 {
        windowed = false;
        starts = engine::markdown_block_starts(rest).unwrap_or_default();
    }
    // Every block but the last is final.
    let finished = starts.last().copied().unwrap_or(0);
    let mut from = 0;
    for &end in starts.iter().skip(1) {
        if end - from < CHUNK_BYTES && end < finished {
            continue;
        }
        let html = engine::markdown_html(&rest[from..end], origin).unwrap_or_default();
        let _ = el.insert_adjacent_html("beforeend", &html);
        drawn.done.push_str(&rest[from..end]);
        from = end;
        if from < finished && (now_ms() > deadline || from >= PASS_BYTES) {
            add_copy_buttons(el, first_new);
            return true;
        }
    }
    if windowed {
        // The rest beyond the window: the next pass.
        add_copy_buttons(el, first_new);
        return true;
    }
    let before = el.child_nodes().length();
    let html = engine::markdown_html(&rest[from..], origin).unwrap_or_default();
    let _ = el.insert_adjacent_html("beforeend", &html);
    drawn.tail_nodes = el.child_nodes().length() - before;
    add_copy_buttons(el, first_new);
    false
}

/// Wraps each `<pre>` in the children of `root` from index `first` on with a Copy button
/// (only the new ones: a search of the whole view on every pass would grow with the text).
fn add_copy_buttons(root: &web_sys::Element, first: u32) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let children = root.child_nodes();
    let mut pres = Vec::new();
    for i in first..children.length() {
        let Some(element) = children
            .get(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        if element.tag_name() == "PRE" {
            pres.push(element);
        } else if let Ok(inner) = element.query_selector_all("pre") {
            pres.extend((0..inner.length()).filter_map(|j| inner.get(j)?.dyn_into().ok()));
        }
    }
    for pre in pres {
        let (Ok(wrap), Ok(button)) = (
            document.create_element("div"),
            document.create_element("button"),
        ) else {
            return;
        };
        wrap.set_class_name("code-block");
        button.set_class_name("copy copy-code");
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("aria-label", "Copy the code");
        let _ = button.set_attribute("title", "Copy the code");
        button.set_text_content(Some("Copy"));
        let _ = pre.replace_with_with_node_1(&wrap);
        let _ = wrap.append_child(&button);
        let _ = wrap.append_child(&pre);
    }
}
