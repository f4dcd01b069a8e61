//! A mode's panel. Its frame (`panel.rs`: the heading, the state, the buttons) is on the first
//! screen; what it shows of a run (`run_body.rs`, with Inspect, Markdown, the progress line,
//! the consent question and following the stream) is in a chunk of its own (`split_run_view`),
//! reached through `parts::show_run`; `panel_run.rs` is what a panel is drawn from, and `frame_batch.rs`
//! draws a run's events once a frame (engine's chunk).

pub(crate) mod consent_question;
pub(crate) mod follow_scroll;
pub(crate) mod frame_batch;
pub(crate) mod inspect;
pub(crate) mod markdown_view;
#[allow(clippy::module_inception)] // the panel itself, beside what it draws
pub(crate) mod panel;
pub(crate) mod panel_run;
pub(crate) mod progress_line;
pub(crate) mod run_body;
