//! Runs an evaluation: starts runs as the scheduler allows, keeps each result as it arrives
//! (IndexedDB first, then the table), stops on request, and gives up when runs keep failing
//! the same way.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::AbortController;

use super::judge_call::judge;
use super::run_job::run_job;
use crate::evaluation::context::EvalContext;
use crate::evaluation::outcome::{job_result, JobResult};
use crate::evaluation::plan::{EvalSpec, FailureStreak, Job, Scheduler, GIVE_UP_AFTER};
use crate::web::clock::wall_ms;
use crate::web::eval_store;
use crate::web::timer::sleep;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Nothing runs; what is shown can be resumed if unfinished.
    Idle,
    Running,
    /// Stop was pressed; runs in flight are ending.
    Stopping,
    Done,
}

/// What the view shows of the evaluation it holds.
#[derive(Clone, Copy)]
pub struct EvalState {
    pub spec: RwSignal<Option<EvalSpec>>,
    pub results: RwSignal<Vec<JobResult>>,
    pub phase: RwSignal<Phase>,
    pub alert: RwSignal<Option<String>>,
    /// Runs not yet finished (queued or in flight).
    pub remaining: RwSignal<usize>,
    pub in_flight: RwSignal<usize>,
    /// New runs wait until this time (ms) for a rate limit.
    pub held_until: RwSignal<f64>,
    /// When this page started running the evaluation, and how many runs it finished since.
    pub session: RwSignal<(f64, usize)>,
    batch: StoredValue<Option<Rc<RefCell<Batch>>>, LocalStorage>,
}

impl EvalState {
    pub fn new() -> Self {
        Self {
            spec: RwSignal::new(None),
            results: RwSignal::new(Vec::new()),
            phase: RwSignal::new(Phase::Idle),
            alert: RwSignal::new(None),
            remaining: RwSignal::new(0),
            in_flight: RwSignal::new(0),
            held_until: RwSignal::new(0.0),
            session: RwSignal::new((0.0, 0)),
            batch: StoredValue::new_local(None),
        }
    }

    pub fn is_busy(&self) -> bool {
        matches!(self.phase.get_untracked(), Phase::Running | Phase::Stopping)
    }
}

struct Batch {
    spec: Rc<EvalSpec>,
    context: Rc<EvalContext>,
    scheduler: Scheduler,
    controller: AbortController,
    streak: FailureStreak,
    /// A wake-up for the end of a rate-limit hold is pending.
    timer_set: bool,
}

fn now() -> f64 {
    wall_ms()
}

/// The runs the results hold that need not run again: those that did not fail.
pub fn done_jobs(results: &[JobResult]) -> Vec<Job> {
    results
        .iter()
        .filter(|r| !r.failed())
        .map(|r| r.job)
        .collect()
}

/// Runs what `spec` still needs, given the results the view holds.
pub fn start(state: EvalState, spec: EvalSpec, context: EvalContext) {
    let Ok(controller) = AbortController::new() else {
        state
            .alert
            .set(Some("The browser could not start the runs.".into()));
        return;
    };
    // Failed runs are run again: their results go until the new ones come.
    state.results.update(|rs| rs.retain(|r| !r.failed()));
    let scheduler = state
        .results
        .with_untracked(|rs| Scheduler::new(&spec, done_jobs(rs)));
    let batch = Rc::new(RefCell::new(Batch {
        spec: Rc::new(spec),
        context: Rc::new(context),
        scheduler,
        controller,
        streak: FailureStreak::default(),
        timer_set: false,
    }));
    state.batch.set_value(Some(batch.clone()));
    state.session.set((now(), 0));
    state.phase.set(Phase::Running);
    pump(state, batch);
}

/// Stops the runs in flight; their questions stay to do.
pub fn stop(state: EvalState) {
    if let Some(batch) = state.batch.get_value() {
        state.phase.set(Phase::Stopping);
        batch.borrow().controller.abort();
        pump(state, batch);
    }
}

/// Starts what may start now and brings the view's figures up to date.
fn pump(state: EvalState, batch: Rc<RefCell<Batch>>) {
    let at = now();
    let stopped = batch.borrow().controller.signal().aborted();
    if !stopped {
        loop {
            let job = batch.borrow_mut().scheduler.next(at);
            let Some(job) = job else { break };
            spawn_local(run_one(state, batch.clone(), job));
        }
    }
    let (remaining, in_flight, held_until, finished) = {
        let b = batch.borrow();
        let s = &b.scheduler;
        (
            s.remaining(),
            s.in_flight(),
            s.hold_until(),
            s.is_finished(),
        )
    };
    state.remaining.set(remaining);
    state.in_flight.set(in_flight);
    state.held_until.set(held_until);
    if stopped {
        if in_flight == 0 {
            state.phase.set(Phase::Idle);
        }
        return;
    }
    if finished {
        state.phase.set(Phase::Done);
        return;
    }
    // Held by a rate limit: wake up when the wait is over.
    if held_until > at && !batch.borrow().timer_set {
        batch.borrow_mut().timer_set = true;
        let wait = (held_until - at).ceil() as u32;
        spawn_local(async move {
            sleep(wait).await;
            batch.borrow_mut().timer_set = false;
            pump(state, batch);
        });
    }
}

async fn run_one(state: EvalState, batch: Rc<RefCell<Batch>>, job: Job) {
    let (spec, context, controller) = {
        let b = batch.borrow();
        (b.spec.clone(), b.context.clone(), b.controller.clone())
    };
    let held = batch.clone();
    let on_rate_limit = move |secs: u32| {
        held.borrow_mut()
            .scheduler
            .hold(now() + f64::from(secs) * 1000.0);
    };
    match run_job(&context, &spec, job, &controller, &on_rate_limit).await {
        None => batch.borrow_mut().scheduler.abandoned(job),
        Some(record) => {
            let mut result = job_result(&spec, job, &record);
            if !spec.judge_model.is_empty() {
                let judgement = judge(&context, &spec, &result, &controller).await;
                if controller.signal().aborted() {
                    // Stopped while judged: the run goes again on Resume, judge and all.
                    batch.borrow_mut().scheduler.abandoned(job);
                    pump(state, batch);
                    return;
                }
                result = result.judged(judgement);
            }
            // Kept before it is counted: a reload right after still has it.
            let kept = eval_store::put_result(
                &spec.id,
                &job.key(),
                &serde_json::to_string(&result).unwrap_or_default(),
                &serde_json::to_string(&record).unwrap_or_default(),
            )
            .await;
            if let Err(refusal) = kept {
                state.alert.set(Some(format!(
                    "A result could not be kept: the browser refused to store it ({}: {}). It shows here, but a resume after a reload runs it again.",
                    refusal.name, refusal.message
                )));
            }
            let give_up = {
                let mut b = batch.borrow_mut();
                b.scheduler.finished(job, result.answered_in_steps());
                b.streak.note(result.error.as_deref())
            };
            if give_up {
                state.alert.set(Some(format!(
                    "Stopped: the last {GIVE_UP_AFTER} runs failed with “{}”. Fix the settings in the Arena, then Resume.",
                    result.error.clone().unwrap_or_default()
                )));
                batch.borrow().controller.abort();
                state.phase.set(Phase::Stopping);
            }
            state.results.update(|rs| {
                rs.retain(|r| r.job != job);
                rs.push(result);
            });
            state.session.update(|(_, n)| *n += 1);
        }
    }
    pump(state, batch);
}
