//! The page's side of the agent engine. The engine (the loop, the model client, the tools,
//! with a panel's run and the driving of its turns) is a split point of the page's own module
//! (`src/split_points.rs`): a wasm chunk fetched the first time it is needed, sharing the
//! page's memory, standard library and serde, so a first run carries no second copy of them.
//! Runs reach it through `ui::parts::start_turns`; this only fetches it early.

use std::cell::{Cell, RefCell};
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Poll, Waker};
use wasm_bindgen_futures::spawn_local;

/// The engine's chunk, or the Markdown parser's, could not be fetched.
pub struct ChunkMissing;

/// Fetches a chunk (once; again after a failure).
pub type Fetching<T> = Pin<Box<dyn Future<Output = Result<T, ChunkMissing>>>>;

/// What fetches the engine's chunk: given by the page's binary, which holds the split point.
pub type FetchEngine = fn() -> Fetching<()>;

thread_local! {
    static FETCH_ENGINE: Cell<Option<FetchEngine>> = const { Cell::new(None) };
    /// An early fetch of the engine is under way.
    static FETCHING: Cell<bool> = const { Cell::new(false) };
    /// A run has started and has not yet sent its first model request (nor ended).
    static FIRST_REQUEST_DUE: Cell<bool> = const { Cell::new(false) };
    /// Who waits for both to end (`settled`).
    static WAITING: RefCell<Vec<Waker>> = const { RefCell::new(Vec::new()) };
}

/// Called once by the page's binary, which holds the split point.
pub fn install(fetch: FetchEngine) {
    FETCH_ENGINE.with(|f| f.set(Some(fetch)));
}

/// Starts fetching the engine, so a run started soon does not wait for it. Marks
/// `engine-ready` on the page's timeline when it has arrived (scripts/bench reads it).
pub fn prefetch() {
    let Some(fetch) = FETCH_ENGINE.with(Cell::get) else {
        return;
    };
    if FETCHING.with(|f| f.replace(true)) {
        return;
    }
    spawn_local(async move {
        let fetched = fetch().await;
        FETCHING.with(|f| f.set(false));
        wake_waiting();
        if fetched.is_ok() {
            if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
                if performance.get_entries_by_name("engine-ready").length() == 0 {
                    let _ = performance.mark("engine-ready");
                }
            }
        }
    });
}

fn wake_waiting() {
    for waiting in WAITING.with(|w| std::mem::take(&mut *w.borrow_mut())) {
        waiting.wake();
    }
}

/// A run is starting: what waits for `settled` waits for its first model request too.
pub fn run_starting() {
    FIRST_REQUEST_DUE.with(|d| d.set(true));
}

/// A model request has just been sent (or a starting run ended before it could send one):
/// what waited for a starting run's first request goes on.
pub fn model_request_left() {
    if FIRST_REQUEST_DUE.with(|d| d.replace(false)) {
        wake_waiting();
    }
}

/// Resolves when no early fetch of the engine is under way and no run is about to send its
/// first request (at once if neither): what is fetched after it does not share the
/// connection with them, so a run waits for nothing it does not need.
pub async fn settled() {
    poll_fn(|cx| {
        if FETCHING.with(Cell::get) || FIRST_REQUEST_DUE.with(Cell::get) {
            WAITING.with(|w| w.borrow_mut().push(cx.waker().clone()));
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await
}
