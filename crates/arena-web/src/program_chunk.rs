//! CodeAct's interpreter, behind a split point of the page's module (`src/split_points.rs`): the
//! bridge to the Python sandbox (`python_worker`: its frame, its worker, the messages of a
//! program) is in the built-in tools' chunk, whose `python` tool uses it too. A CodeAct panel
//! lists its tools as Python functions from their specs and sends its first request without
//! it; the chunk comes once that request has left (`tool_chunk`), or when the panel's first
//! program is about to run, so a first run's first request never waits for it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use crate::engine::{ChunkMissing, Fetching};
use crate::python_worker::WorkerPython;
use arena_core::tools::program::{ProgramLimits, ProgramRun, PythonTool};
use arena_core::tools::{ProgramCallError, ProgramCalls};

/// A run's interpreter as the chunk makes it: programs run one after another in it.
pub trait ProgramRunner {
    /// Runs `code`, each tool call it makes answered by `calls` (the run's gate).
    fn run_program<'a>(
        &'a self,
        code: &'a str,
        tools: &'a [PythonTool],
        limits: ProgramLimits,
        calls: &'a dyn AnswerCalls,
    ) -> LocalBoxFuture<'a, ProgramRun>;

    /// Ends the sandbox now; the next program starts a fresh one.
    fn end(&self);
}

/// [`ProgramCalls`] as a chunk can be handed it: one type for every run's gate.
pub trait AnswerCalls {
    fn answer<'a>(
        &'a self,
        function: &'a str,
        kwargs: &'a Value,
    ) -> LocalBoxFuture<'a, Result<Value, ProgramCallError>>;
}

impl<C: ProgramCalls> AnswerCalls for C {
    fn answer<'a>(
        &'a self,
        function: &'a str,
        kwargs: &'a Value,
    ) -> LocalBoxFuture<'a, Result<Value, ProgramCallError>> {
        Box::pin(self.call(function, kwargs))
    }
}

/// The calls of a program, answered through [`AnswerCalls`].
struct Answered<'a>(&'a dyn AnswerCalls);

impl ProgramCalls for Answered<'_> {
    async fn call(&self, function: &str, kwargs: &Value) -> Result<Value, ProgramCallError> {
        self.0.answer(function, kwargs).await
    }
}

impl ProgramRunner for WorkerPython {
    fn run_program<'a>(
        &'a self,
        code: &'a str,
        tools: &'a [PythonTool],
        limits: ProgramLimits,
        calls: &'a dyn AnswerCalls,
    ) -> LocalBoxFuture<'a, ProgramRun> {
        Box::pin(async move {
            WorkerPython::run_program(self, code, tools, limits, &Answered(calls)).await
        })
    }

    fn end(&self) {
        WorkerPython::end(self);
    }
}

/// What fetches the chunk and makes an interpreter for the Pyodide base URL it is given: the
/// page's binary (the split point), or a module that links the sandbox directly
/// ([`made_here`]).
pub type FetchRunner = fn(String) -> Fetching<Box<dyn ProgramRunner>>;

thread_local! {
    static FETCH: Cell<Option<FetchRunner>> = const { Cell::new(None) };
}

pub fn install(fetch: FetchRunner) {
    FETCH.with(|f| f.set(Some(fetch)));
}

/// The interpreter made here, without a chunk: for a module that links it (Evaluate).
pub fn made_here(index_url: String) -> Fetching<Box<dyn ProgramRunner>> {
    Box::pin(async move { Ok(make(index_url)) })
}

/// A run's interpreter: what the chunk's split point calls.
pub fn make(index_url: String) -> Box<dyn ProgramRunner> {
    Box::new(WorkerPython::new(index_url))
}

/// A CodeAct run's interpreter before its chunk is here: made at the run's first program (one
/// per run, so a program's variables stay for the next).
pub struct Interpreter {
    index_url: String,
    made: RefCell<Option<Rc<dyn ProgramRunner>>>,
}

impl Interpreter {
    pub fn new(index_url: String) -> Self {
        Self {
            index_url,
            made: RefCell::new(None),
        }
    }

    async fn runner(&self) -> Result<Rc<dyn ProgramRunner>, String> {
        if let Some(made) = self.made.borrow().as_ref() {
            return Ok(made.clone());
        }
        let missing = || {
            "CodeAct's interpreter (its part of the page) could not be fetched; the program \
             did not run. Check the connection."
                .to_string()
        };
        let fetch = FETCH.with(Cell::get).ok_or_else(missing)?;
        let made: Rc<dyn ProgramRunner> = fetch(self.index_url.clone())
            .await
            .map_err(|ChunkMissing| missing())?
            .into();
        // Two programs of one run never wait for it together; if they did, the first made
        // stays (it may hold the run's variables by now).
        Ok(self.made.borrow_mut().get_or_insert(made).clone())
    }

    /// Runs `code` in this run's interpreter, fetching its chunk first if need be.
    pub async fn run_program<C: ProgramCalls>(
        &self,
        code: &str,
        tools: &[PythonTool],
        limits: ProgramLimits,
        calls: &C,
    ) -> ProgramRun {
        match self.runner().await {
            Ok(runner) => runner.run_program(code, tools, limits, calls).await,
            Err(why) => ProgramRun {
                error: Some(format!("RuntimeError: {why}")),
                ..ProgramRun::default()
            },
        }
    }

    /// Ends the sandbox, if a program has started one.
    pub fn end(&self) {
        if let Some(made) = self.made.borrow().as_ref() {
            made.end();
        }
    }
}
