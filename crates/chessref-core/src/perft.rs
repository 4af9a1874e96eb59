//! Perft: counting the leaves of the legal-move tree (move generator check).

use crate::moves::Move;
use crate::position::{Counter, MoveList, Position};
use crate::state::{State, to_move};

/// The number of leaf nodes of the legal-move tree of depth `depth` from `state`
/// (1 for depth 0). The last ply is counted without being played (bulk counting).
pub fn perft(state: &State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut lists = vec![MoveList::with_capacity(64); depth as usize];
    perft_position(&mut Position::from_state(state), depth, &mut lists)
}

/// Per legal move, the perft count of depth `depth - 1` after it (empty for depth 0).
pub fn perft_divide(state: &State, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut pos = Position::from_state(state);
    let mut list = MoveList::new();
    pos.generate(&mut list);
    let mut lists = vec![MoveList::with_capacity(64); depth as usize];
    list.iter()
        .map(|&m| {
            let undo = pos.make(m);
            let n = if depth == 1 {
                1
            } else {
                perft_position(&mut pos, depth - 1, &mut lists)
            };
            pos.unmake(m, undo);
            (to_move(m), n)
        })
        .collect()
}

/// `lists[d]` is the reused move buffer of the node `d + 1` plies above the leaves.
fn perft_position(pos: &mut Position, depth: u32, lists: &mut [MoveList]) -> u64 {
    if depth == 1 {
        let mut counter = Counter(0);
        pos.generate(&mut counter);
        return counter.0;
    }
    let (list, deeper) = lists.split_last_mut().expect("one buffer per ply");
    list.clear();
    pos.generate(list);
    let mut nodes = 0;
    for &m in list.iter() {
        let undo = pos.make(m);
        nodes += perft_position(pos, depth - 1, deeper);
        pos.unmake(m, undo);
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(fen: &str, depth: u32) -> u64 {
        perft(&State::from_fen(fen).unwrap(), depth)
    }

    #[test]
    fn standard_positions_at_small_depths() {
        assert_eq!(
            count(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                3
            ),
            8_902
        );
        assert_eq!(
            count(
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                3
            ),
            97_862
        );
        assert_eq!(
            count("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4),
            43_238
        );
        assert_eq!(
            count(
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                3
            ),
            9_467
        );
        assert_eq!(
            count(
                "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                3
            ),
            62_379
        );
        assert_eq!(
            count(
                "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
                3
            ),
            89_890
        );
    }

    #[test]
    fn divide_sums_to_perft() {
        let state = State::initial();
        let divide = perft_divide(&state, 3);
        assert_eq!(divide.len(), 20);
        assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), perft(&state, 3));
        assert!(perft_divide(&state, 0).is_empty());
        assert_eq!(perft(&state, 0), 1);
    }
}
