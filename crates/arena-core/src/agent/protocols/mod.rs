//! The protocols a model's reply is read in, all in one place: which protocol a run speaks
//! (`action_protocol`), the text protocol (`text`: `Thought:` / `Action:` / `Action Input:`),
//! JSON action lists (`json_protocol`), native tool calls and calls written as JSON in the
//! content (`native`), the one layer over them (`decision`: every reply becomes a
//! `Decision`), the one reader of JSON in replies (`json_finder`) and the rules a call written
//! as JSON follows in every protocol (`tool_json`); and CodeAct's programs (`code_action`).

pub mod action_protocol;
pub mod code_action;
pub mod decision;
pub mod json_finder;
pub mod json_protocol;
pub mod native;
pub mod text;
pub mod tool_json;
