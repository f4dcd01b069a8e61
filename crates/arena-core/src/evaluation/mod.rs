//! Batch evaluation of the three modes on a question set, scored as the ReAct paper (Yao et
//! al., ICLR 2023) scored HotpotQA: normalised exact match and token F1. Pure, tested on the
//! host; the view that runs it is `ui/evaluate`.

pub mod bracket_lookalikes;
pub mod context;
pub mod csv;
pub mod judge;
pub mod kept;
pub mod outcome;
pub mod plan;
pub mod questions;
pub mod score;
pub mod summary;
