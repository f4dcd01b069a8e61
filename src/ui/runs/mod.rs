//! Runs beyond the live one: keeping them as they stream and the history list (`keep.rs`,
//! `history.rs`; on the first screen, `kept_runs.rs` says when they are fetched and what stands
//! in for them), showing a run file in the panels and playing it back (`show_file.rs`,
//! `replay_player.rs`), export and import (`run_files.rs`: buttons on the first screen, the
//! work in the parts chunk), a run or recording the address names (`from_address.rs`) and
//! the shipped recordings' cards (`recording_cards.rs`, the first visit's chunk).

pub(crate) mod from_address;
pub(crate) mod history;
pub(crate) mod keep;
pub(crate) mod kept_runs;
pub(crate) mod recording_cards;
pub(crate) mod replay_player;
pub(crate) mod run_files;
pub(crate) mod show_file;
