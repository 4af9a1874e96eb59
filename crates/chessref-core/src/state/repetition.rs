//! ENCODING.md section 9: the repetition key.

use alloy_primitives::{B256, keccak256};

use crate::attacks::on_board;
use crate::moves::RawMove;
use crate::piece_code::PAWN;

use super::State;
use super::layout::idx;

impl State {
    /// The repetition key (section 9): keccak256 of the bytes with the move
    /// count and halfmove clock zeroed, and the en-passant byte zeroed unless
    /// the side to move has a legal en-passant capture.
    pub fn repetition_key(&self) -> B256 {
        let mut bytes = self.0;
        bytes[idx::MOVE_COUNT_HIGH] = 0;
        bytes[idx::MOVE_COUNT_LOW] = 0;
        bytes[idx::HALFMOVE_CLOCK] = 0;
        if !self.has_legal_en_passant() {
            bytes[idx::WHITE_EN_PASSANT] = 0;
            bytes[idx::BLACK_EN_PASSANT] = 0;
        }
        keccak256(bytes)
    }

    /// Whether the side to move can legally capture en passant.
    pub fn has_legal_en_passant(&self) -> bool {
        let us = self.0[idx::CURRENT_PLAYER] as i8;
        let ep = if us > 0 {
            self.0[idx::BLACK_EN_PASSANT]
        } else {
            self.0[idx::WHITE_EN_PASSANT]
        };
        if ep == 0 {
            return false;
        }
        // Our pawns that could capture onto ep stand one row behind it, one file aside.
        let row = ep.wrapping_add((16 * us) as u8);
        [row.wrapping_sub(1), row.wrapping_add(1)]
            .into_iter()
            .any(|from| {
                on_board(from)
                    && self.0[from as usize] as i8 == PAWN * us
                    && self
                        .check(RawMove {
                            from,
                            to: ep,
                            promotion: 0,
                        })
                        .is_ok()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A witness folds to the chain head of its last position, and starts again at an
    /// irreversible move; a custom start begins it whatever its halfmove clock.
    #[test]
    fn a_witness_folds_to_the_chain_head_and_restarts_at_an_irreversible_move() {
        for (start, ucis, expected_len) in [
            (State::initial(), &["g1f3", "g8f6", "f3g1", "f6g8"][..], 5),
            (
                State::initial(),
                &["g1f3", "g8f6", "e2e4", "f6g8", "f3g1"][..],
                3,
            ),
            (
                State::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 37 60").unwrap(),
                &["a1a2", "e8d8"][..],
                3,
            ),
        ] {
            let mut states = vec![start];
            for uci in ucis {
                let next = states
                    .last()
                    .unwrap()
                    .play(crate::Move::from_uci(uci).unwrap());
                states.push(next.unwrap());
            }
            let keys = chain::witness(&states);
            assert_eq!(keys.len(), expected_len, "{ucis:?}");
            assert_eq!(keys.last(), Some(&states.last().unwrap().repetition_key()));
            let head = states[1..]
                .iter()
                .fold(chain::of_start(&states[0]), chain::after);
            let folded = keys[1..]
                .iter()
                .fold(chain::start(keys[0]), |h, k| chain::next(h, *k));
            assert_eq!(folded, head, "{ucis:?}");
        }
    }

    #[test]
    fn repetition_key_ignores_clocks_and_unusable_en_passant() {
        let a = State::from_fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1").unwrap();
        let b = State::from_fen("4k3/8/8/8/4P3/8/8/4K3 b - - 7 30").unwrap();
        assert_eq!(a.repetition_key(), b.repetition_key());
        let c = State::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").unwrap();
        let d = State::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").unwrap();
        assert!(c.has_legal_en_passant());
        assert_ne!(c.repetition_key(), d.repetition_key());
        // The en-passant capture would expose the black king on the rank: not legal, key ignores it.
        let e = State::from_fen("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1").unwrap();
        let f = State::from_fen("8/8/8/8/k2pP2R/8/8/4K3 b - - 0 1").unwrap();
        assert!(!e.has_legal_en_passant());
        assert_eq!(e.repetition_key(), f.repetition_key());
        assert_eq!(
            a.repetition_key(),
            keccak256({
                let mut bytes = *b.as_bytes();
                bytes[8] = 0;
                bytes[9] = 0;
                bytes[10] = 0;
                bytes
            })
        );
    }
}

/// The repetition chain of docs/REFEREE.md section 4: a hash over the repetition keys
/// of every position since the last irreversible move, which the contract commits to
/// and a threefold witness must fold to.
pub mod chain {
    use alloy_primitives::{B256, keccak256};

    use crate::State;

    /// The chain's first link for a position with key `key`: `keccak256(0 ‖ key)`.
    pub fn start(key: B256) -> B256 {
        next(B256::ZERO, key)
    }

    /// The chain `history` extended by `key`: `keccak256(history ‖ key)`.
    pub fn next(history: B256, key: B256) -> B256 {
        let mut buf = [0u8; 64];
        buf[..32].copy_from_slice(history.as_slice());
        buf[32..].copy_from_slice(key.as_slice());
        keccak256(buf)
    }

    /// The chain head of a game's start position (also for a custom start, whatever
    /// its halfmove clock).
    pub fn of_start(start: &State) -> B256 {
        self::start(start.repetition_key())
    }

    /// The chain head after a move to `next` from a position whose head was
    /// `history`: restarted when the move was irreversible (halfmove clock 0).
    pub fn after(history: B256, next: &State) -> B256 {
        let key = next.repetition_key();
        if next.halfmove_clock() == 0 {
            start(key)
        } else {
            self::next(history, key)
        }
    }

    /// Extends a threefold witness (`keys`: the repetition keys of the positions
    /// since the last irreversible move, oldest first, the keys the chain folds)
    /// by the position `next`: restarted when the move to it was irreversible, as
    /// the chain is by [`after`]. From an empty witness it starts one at `next`.
    pub fn witness_after(keys: &mut Vec<B256>, next: &State) {
        if next.halfmove_clock() == 0 {
            keys.clear();
        }
        keys.push(next.repetition_key());
    }

    /// The threefold witness of the last of `positions` (a game's positions in
    /// order, its start first): the keys a `claimDraw` folds to the chain head of
    /// that position, oldest first.
    pub fn witness<'a>(positions: impl IntoIterator<Item = &'a State>) -> Vec<B256> {
        let mut keys = Vec::new();
        for position in positions {
            witness_after(&mut keys, position);
        }
        keys
    }
}
