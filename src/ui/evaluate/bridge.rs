//! The arena page's side of the bridge, as the Evaluate module sees it (see
//! `ui/evaluate_host.rs` for the other side).

use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::evaluation::context::EvalContext;

#[derive(Clone)]
pub struct Bridge(JsValue);

impl Bridge {
    pub fn new(object: JsValue) -> Self {
        Self(object)
    }

    fn function(&self, name: &str) -> Result<Function, String> {
        Reflect::get(&self.0, &name.into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| format!("The page does not offer {name}."))
    }

    /// The arena's settings and token as they are now.
    pub fn context(&self) -> Result<EvalContext, String> {
        let json = self
            .function("context")?
            .call0(&JsValue::NULL)
            .ok()
            .and_then(|v| v.as_string())
            .ok_or("The page's settings could not be read.")?;
        EvalContext::from_json(&json)
    }

    /// The user confirmed sending the token to `origin`.
    pub fn trust_host(&self, origin: &str) -> Result<(), String> {
        self.function("trustHost")?
            .call1(&JsValue::NULL, &origin.into())
            .map(|_| ())
            .map_err(|_| "The page could not keep the confirmed host.".into())
    }

    /// Shows a run file in the arena's panels.
    pub fn open_run(&self, title: &str, file_json: &str) -> Result<(), String> {
        self.function("openRun")?
            .call2(&JsValue::NULL, &title.into(), &file_json.into())
            .map(|_| ())
            .map_err(|_| "The page could not open the run.".into())
    }
}
