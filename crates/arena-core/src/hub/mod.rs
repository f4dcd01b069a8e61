//! The Hugging Face Hub as the arena's shared memory: publishing votes, evaluations and runs
//! to a dataset repository of the user's, with their token and their confirmation; reading
//! every public repository tagged `react-arena` into a community leaderboard; and a published
//! run opened by its address. Pure: the requests are built and the answers read here, the
//! page sends them (`web::hub_fetch`).

pub mod community;
pub mod publish;
pub mod published_run;
pub mod ranking;
pub mod reply;
pub mod repo;
pub mod votes;

use sha2::{Digest, Sha256};

/// SHA-256 of `bytes`, in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests;
