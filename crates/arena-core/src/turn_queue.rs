//! Fair turns on one shared resource: the model running in the page, which the three panels of
//! an All run share. Callers are served in the order they asked, so each mode's next call
//! waits behind the calls the others made first (a mode that just finished a call asks again
//! behind them); a caller that gives up while waiting (Stop) leaves the line at once.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

struct Line<T> {
    next_ticket: u64,
    /// Who holds the turn: its ticket and who it is.
    holder: Option<(u64, T)>,
    /// Who waits, in order, with the waker to call when its turn comes.
    waiting: VecDeque<(u64, T, Option<Waker>)>,
}

impl<T> Default for Line<T> {
    fn default() -> Self {
        Line {
            next_ticket: 0,
            holder: None,
            waiting: VecDeque::new(),
        }
    }
}

impl<T> Line<T> {
    fn wake_first(&mut self) {
        if let Some((_, _, Some(waker))) = self.waiting.front_mut() {
            waker.wake_by_ref();
        }
    }
}

/// One line of callers, each known as a `T` (who holds the turn is shown to the others).
/// Clones share the line.
pub struct TurnQueue<T> {
    line: Rc<RefCell<Line<T>>>,
}

impl<T> Clone for TurnQueue<T> {
    fn clone(&self) -> Self {
        TurnQueue {
            line: self.line.clone(),
        }
    }
}

impl<T> Default for TurnQueue<T> {
    fn default() -> Self {
        TurnQueue {
            line: Rc::default(),
        }
    }
}

impl<T: Clone> TurnQueue<T> {
    /// Waits for the turn of `caller`.
    pub fn take_turn(&self, caller: T) -> TakeTurn<T> {
        let mut line = self.line.borrow_mut();
        let ticket = line.next_ticket;
        line.next_ticket += 1;
        line.waiting.push_back((ticket, caller, None));
        TakeTurn {
            line: self.line.clone(),
            ticket,
            done: false,
        }
    }

    /// Who holds the turn now.
    pub fn holder(&self) -> Option<T> {
        self.line.borrow().holder.as_ref().map(|(_, c)| c.clone())
    }

    /// How many wait for the turn.
    pub fn waiting(&self) -> usize {
        self.line.borrow().waiting.len()
    }
}

/// A turn being waited for; dropping it leaves the line.
pub struct TakeTurn<T> {
    line: Rc<RefCell<Line<T>>>,
    ticket: u64,
    done: bool,
}

impl<T> Future for TakeTurn<T> {
    type Output = Turn<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Turn<T>> {
        let ticket = self.ticket;
        let mut line = self.line.borrow_mut();
        let first = line.waiting.front().map(|w| w.0) == Some(ticket);
        if first && line.holder.is_none() {
            let (_, caller, _) = line.waiting.pop_front().expect("the first is there");
            line.holder = Some((ticket, caller));
            drop(line);
            self.done = true;
            return Poll::Ready(Turn {
                line: self.line.clone(),
                ticket,
            });
        }
        if let Some(entry) = line.waiting.iter_mut().find(|w| w.0 == ticket) {
            entry.2 = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl<T> Drop for TakeTurn<T> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut line = self.line.borrow_mut();
        line.waiting.retain(|w| w.0 != self.ticket);
        // The one behind may be first now.
        if line.holder.is_none() {
            line.wake_first();
        }
    }
}

/// The turn, held until dropped; then the next in line gets it.
pub struct Turn<T> {
    line: Rc<RefCell<Line<T>>>,
    ticket: u64,
}

impl<T> Drop for Turn<T> {
    fn drop(&mut self) {
        let mut line = self.line.borrow_mut();
        if line.holder.as_ref().map(|h| h.0) == Some(self.ticket) {
            line.holder = None;
        }
        line.wake_first();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use std::cell::RefCell;

    /// Lets the other tasks run once.
    async fn yield_now() {
        let mut yielded = false;
        futures::future::poll_fn(|cx| {
            if yielded {
                Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await
    }

    /// Three callers that each take the turn `calls` times, holding it across a yield,
    /// in the order they were served.
    fn served(calls: usize, names: &[&str]) -> Vec<String> {
        let queue = TurnQueue::<String>::default();
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut pool = LocalPool::new();
        for name in names {
            let (queue, log, name) = (queue.clone(), log.clone(), name.to_string());
            pool.spawner()
                .spawn_local(async move {
                    for _ in 0..calls {
                        let _turn = queue.take_turn(name.clone()).await;
                        log.borrow_mut().push(name.clone());
                        assert_eq!(queue.holder().as_deref(), Some(name.as_str()));
                        // Others run meanwhile: they must not get the turn.
                        yield_now().await;
                    }
                })
                .unwrap();
        }
        pool.run();
        let served = log.borrow().clone();
        served
    }

    #[test]
    fn calls_take_turns_in_the_order_they_asked() {
        let order = served(3, &["Think-only", "Act-only", "ReAct"]);
        assert_eq!(
            order,
            ["Think-only", "Act-only", "ReAct"].repeat(3),
            "each mode's next call waits behind the others' calls"
        );
    }

    #[test]
    fn a_caller_who_gives_up_waiting_leaves_the_line() {
        let queue = TurnQueue::<&str>::default();
        let mut pool = LocalPool::new();
        let first = pool.run_until(queue.take_turn("Think-only"));
        let mut second = Box::pin(queue.take_turn("Act-only"));
        let third = queue.take_turn("ReAct");
        // The second is polled once (it waits), then given up (Stop).
        let waker = futures::task::noop_waker();
        assert!(second
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        assert_eq!(queue.waiting(), 2);
        drop(second);
        assert_eq!(queue.waiting(), 1);
        drop(first);
        let turn = pool.run_until(third);
        assert_eq!(queue.holder(), Some("ReAct"));
        drop(turn);
        assert_eq!(queue.holder(), None);
        assert_eq!(queue.waiting(), 0);
    }
}
