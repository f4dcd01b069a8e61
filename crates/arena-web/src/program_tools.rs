//! CodeAct's toolbox: a run's tools with the Python interpreter its programs run in (one per
//! run, so a program's variables stay for the next; its code is fetched at the run's first
//! program: `program_chunk`). A run of another mode has none.

use std::rc::Rc;

use serde_json::Value;

use crate::program_chunk::Interpreter;
use arena_core::tools::program::{ProgramLimits, ProgramRun, PythonTool};
use arena_core::tools::{ProgramCalls, ToolFailure, ToolSpec, Toolbox};

pub struct ProgramTools<T> {
    pub tools: T,
    pub python: Option<Rc<Interpreter>>,
}

impl<T: Toolbox> Toolbox for ProgramTools<T> {
    fn specs(&self) -> Vec<ToolSpec> {
        self.tools.specs()
    }

    fn begin_calls(&self) {
        self.tools.begin_calls();
    }

    async fn call(&self, name: &str, args: &Value) -> Result<String, ToolFailure> {
        self.tools.call(name, args).await
    }

    async fn call_value(&self, name: &str, args: &Value) -> Result<Value, ToolFailure> {
        self.tools.call_value(name, args).await
    }

    async fn run_program<C: ProgramCalls>(
        &self,
        code: &str,
        tools: &[PythonTool],
        limits: ProgramLimits,
        calls: &C,
    ) -> ProgramRun {
        match &self.python {
            Some(python) => python.run_program(code, tools, limits, calls).await,
            None => self.tools.run_program(code, tools, limits, calls).await,
        }
    }
}
