//! What an evaluation's runs take from the arena: its settings and the token, read from
//! storage when the evaluation starts (the view is a separate wasm module from the arena's).

use crate::settings::Settings;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalContext {
    pub settings: Settings,
    pub token: String,
}
