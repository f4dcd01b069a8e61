use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::draw_budget::{DrawBudget, STEP_BYTES};
use crate::markdown_blocks::scan_window;
use crate::web::clipboard::copy_text;
use crate::web::markdown_chunk;
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

/// About how much source goes into one `insertAdjacentHTML` call (blocks are gathered up to
/// it), and a step of a frame's budget (`DrawBudget`).
const CHUNK_BYTES: usize = STEP_BYTES;

/// How much of the text still to draw a pass reads for its blocks (`scan_window`).
const SCAN_BYTES: usize = 4 * CHUNK_BYTES;

thread_local! {
    /// The views with blocks left to draw, in the order they draw in the next frame: a view
    /// that drew goes to the back, so each gets its turn however many there are.
    static WAITING: std::cell::RefCell<std::collections::VecDeque<View>> = Default::default();
    /// A frame's drawing is asked for.
    static FRAME_ASKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How much source all views together may draw in a frame.
    static BUDGET: std::cell::Cell<DrawBudget> = const { std::cell::Cell::new(DrawBudget::new()) };
    /// Whether the Markdown parser's chunk has arrived. A view drawn before it shows its text
    /// plainly and is drawn again when it has.
    static PARSER_READY: ArcRwSignal<bool> = ArcRwSignal::new(false);
}

/// A Markdown view, as the frame's drawing sees it.
#[derive(Clone, Copy)]
struct View {
    node: NodeRef<leptos::html::Div>,
    text: Signal<String>,
    drawn: StoredValue<Drawn, LocalStorage>,
    origin: StoredValue<String>,
}

/// What a Markdown view has on screen.
#[derive(Default)]
struct Drawn {
    /// The text is shown as it is, waiting for the parser.
    plain: bool,
    /// The source of the blocks drawn for good: the text only grows, so they never change.
    done: String,
    /// The text is long: each chunk is drawn in a part of its own (see `append_html`).
    long: bool,
    /// How many nodes at the end were drawn from the rest, which is drawn again each time.
    tail_nodes: u32,
    /// The view waits for a frame to draw in.
    waiting: bool,
}

/// Model or tool text rendered as markdown; `markdown::render_markdown` (in a chunk of its
/// own, `web::markdown_chunk`) guarantees no live HTML. Each code block gets a Copy button, added here (not in
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
    let ready = PARSER_READY.with(Clone::clone);
    Effect::new(move |_| {
        text.track();
        ready.track();
        draw_or_wait(View {
            node,
            text,
            drawn,
            origin,
        });
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
    // No trailing space: a text first drawn plainly loses its `plain` class later, and the
    // browser writes the class list back without one; the same text drawn at once must read
    // the same (a blind vote's panels are compared attribute by attribute).
    let class = if class.is_empty() {
        "md".to_string()
    } else {
        format!("md {class}")
    };
    view! { <div class=class node_ref=node on:click=on_click></div> }
}

/// Draws a change at once when it is small (a short text, a few tokens more of a streamed
/// one) or the text is shown as it is, so it appears with the panel's update that brought
/// it; queues a larger one for the frames to come.
fn draw_or_wait(view: View) {
    let small = view
        .text
        .try_with_untracked(|t| {
            view.drawn.try_with_value(|d| {
                t.len() <= CHUNK_BYTES
                    || (t.starts_with(d.done.as_str()) && t.len() - d.done.len() <= CHUNK_BYTES)
            })
        })
        .flatten()
        .unwrap_or(false);
    let waiting = view.drawn.try_with_value(|d| d.waiting).unwrap_or(true);
    if !waiting && (small || !markdown_chunk::is_loaded()) {
        let (more, _) = draw_view(view, now_ms() + SLICE_MS, CHUNK_BYTES);
        if !more {
            return;
        }
    }
    wait_for_frame(view);
}

/// Queues `view` to be drawn at the next frame (once, however often its text changes
/// before then).
fn wait_for_frame(view: View) {
    let already = view
        .drawn
        .try_update_value(|d| std::mem::replace(&mut d.waiting, true))
        .unwrap_or(true);
    if already {
        return;
    }
    WAITING.with_borrow_mut(|w| w.push_back(view));
    ask_for_frame();
}

fn ask_for_frame() {
    if FRAME_ASKED.replace(true) {
        return;
    }
    spawn_local(async {
        // One drawing a frame: the browser lays out what it added before more is added (a
        // hidden tab, which draws no frames, still goes on). Drawn in a task after the
        // frame's, not in it: the frame already has the panels' updates and their layout.
        next_frame(100).await;
        sleep(0).await;
        FRAME_ASKED.set(false);
        draw_frame();
    });
}

/// Draws the waiting views in turn until the frame's slice or bytes (`DrawBudget`) are
/// spent; those with blocks left wait for the next frame. The first view always draws a
/// chunk, so each frame moves on.
fn draw_frame() {
    let started = now_ms();
    let deadline = started + SLICE_MS;
    let mut budget = BUDGET.get();
    let mut bytes_left = budget.for_frame_at(started);
    let mut turns = WAITING.with_borrow(|w| w.len());
    while turns > 0 && bytes_left > 0 && now_ms() < deadline {
        turns -= 1;
        let Some(view) = WAITING.with_borrow_mut(|w| w.pop_front()) else {
            break;
        };
        if view.drawn.try_update_value(|d| d.waiting = false).is_none() {
            continue; // the view is gone
        }
        let (more, bytes) = draw_view(view, deadline, bytes_left);
        bytes_left = bytes_left.saturating_sub(bytes);
        if more {
            wait_for_frame(view);
        }
    }
    // Views the frame had no room for keep their place at the front.
    let more = WAITING.with_borrow(|w| !w.is_empty());
    budget.drew(started, more);
    BUDGET.set(budget);
    if more {
        ask_for_frame();
    }
}

/// Draws what the deadline and `max_bytes` allow of a view's text: whether blocks are left,
/// and how much source was drawn.
fn draw_view(view: View, deadline: f64, max_bytes: usize) -> (bool, usize) {
    let View {
        node,
        text,
        drawn,
        origin,
    } = view;
    // The view may be gone.
    let (Some(el), Some(page)) = (node.try_get_untracked().flatten(), origin.try_get_value())
    else {
        return (false, 0);
    };
    if !markdown_chunk::is_loaded() {
        text.try_with_untracked(|t| drawn.try_update_value(|d| draw_plain(&el, t, d)));
        spawn_local(async {
            if markdown_chunk::load().await.is_ok() {
                PARSER_READY.with(|ready| {
                    if !ready.get_untracked() {
                        ready.set(true);
                    }
                });
            }
        });
        return (false, 0);
    }
    text.try_with_untracked(|t| {
        drawn.try_update_value(|d| {
            let before = d.done.len();
            let more = draw_until(&el, t, d, &page, deadline, max_bytes);
            (more, d.done.len().saturating_sub(before))
        })
    })
    .flatten()
    .unwrap_or((false, 0))
}

/// The text as it is, until the parser has arrived.
fn draw_plain(el: &web_sys::Element, text: &str, drawn: &mut Drawn) {
    let _ = el.class_list().add_1("plain");
    el.set_text_content(Some(text));
    *drawn = Drawn {
        plain: true,
        ..Drawn::default()
    };
}

/// Draws finished blocks until `deadline` or `max_bytes` of source (at least one chunk), or
/// all of them and the unfinished rest: returns whether finished blocks are left to draw.
fn draw_until(
    el: &web_sys::Element,
    text: &str,
    drawn: &mut Drawn,
    origin: &str,
    deadline: f64,
    max_bytes: usize,
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
        drawn.long = text.len() > LONG_TEXT_BYTES;
        let _ = el.class_list().toggle_with_force("long", drawn.long);
    }
    let first_new = el.child_nodes().length();
    let rest = &text[drawn.done.len()..];
    // A long rest is read a window at a time (the whole when the window holds no final block).
    let window = scan_window(rest, SCAN_BYTES);
    let mut windowed = window < rest.len();
    let mut starts = markdown_chunk::markdown_block_starts(&rest[..window]).unwrap_or_default();
    if windowed && starts.len() < 2 {
        windowed = false;
        starts = markdown_chunk::markdown_block_starts(rest).unwrap_or_default();
    }
    // Every block but the last is final.
    let finished = starts.last().copied().unwrap_or(0);
    let mut from = 0;
    for &end in starts.iter().skip(1) {
        if end - from < CHUNK_BYTES && end < finished {
            continue;
        }
        let html = markdown_chunk::markdown_html(&rest[from..end], origin).unwrap_or_default();
        append_html(el, &html, drawn.long);
        drawn.done.push_str(&rest[from..end]);
        from = end;
        if from < finished && (now_ms() > deadline || from >= max_bytes) {
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
    let html = markdown_chunk::markdown_html(&rest[from..], origin).unwrap_or_default();
    append_html(el, &html, drawn.long);
    drawn.tail_nodes = el.child_nodes().length() - before;
    add_copy_buttons(el, first_new);
    false
}

/// Adds `html` at the end of the view; in a long text, in a part of its own. The browser
/// skips laying out parts out of view (`.md-part` in the stylesheet), but checks each
/// skipped element's place on every frame: a part per chunk, not per block, keeps those
/// checks to tens instead of thousands.
fn append_html(el: &web_sys::Element, html: &str, long: bool) {
    if !long {
        let _ = el.insert_adjacent_html("beforeend", html);
        return;
    }
    let Some(part) = el
        .owner_document()
        .and_then(|d| d.create_element("div").ok())
    else {
        return;
    };
    part.set_class_name("md-part");
    part.set_inner_html(html);
    let _ = el.append_child(&part);
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
