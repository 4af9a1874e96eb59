//! Perft: counting the leaves of the legal-move tree (move generator check).

use crate::moves::Move;
use crate::state::State;

/// The number of leaf nodes of the legal-move tree of depth `depth` from `state`.
pub fn perft(state: &State, depth: u32) -> u64 {
    let _ = (state, depth);
    todo!()
}

/// Per legal move, the perft count of depth `depth - 1` after it (empty for depth 0).
pub fn perft_divide(state: &State, depth: u32) -> Vec<(Move, u64)> {
    let _ = (state, depth);
    todo!()
}
