//! The Hub: publishing to a dataset repository of the user's (`publish.rs`), the community
//! leaderboard read from every public one tagged `react-arena` (`community.rs`), and a
//! published run opened by its address (`open_run.rs`). All in the parts chunk.

pub mod community;
pub mod open_run;
pub mod publish;

use crate::hub::repo::hub_base;
use crate::web::storage;

/// The Hub's base URL: the one the user set in the publish dialog, or the Hub's own.
pub fn hub_url() -> String {
    hub_base(&storage::load_hub_url())
}

/// How long one request to the Hub may take.
pub const REQUEST_MS: u32 = 15_000;
