//! A move already found legal in one state, carrying the state it leads to, so
//! that playing it after [`State::parse_san`] does not check it a second time.

use std::fmt;

use crate::error::Rejection;
use crate::moves::{Move, RawMove};
use crate::state::{Played, State};

/// A move found legal in one state ([`LegalMove::before`]), together with the
/// state it leads to ([`LegalMove::after`]), as [`State::parse_san`] returns it.
///
/// It can only be made by this crate's legality check, so `after` is always
/// exactly what [`State::play`] of [`LegalMove::mv`] on `before` gives.
/// [`State::play`] of a `LegalMove` on `before` returns `after` without
/// checking the move again; on any other state it checks and plays the move
/// like any [`Move`] (the state is part of what makes a move legal).
///
/// ```
/// use chessref_core::{Move, State};
///
/// let start = State::initial();
/// let e4 = start.parse_san("e4").unwrap();
/// assert_eq!(e4, Move::from_uci("e2e4").unwrap());
/// assert_eq!(start.play(e4), start.play(e4.mv()));
/// // On another state it is checked again: here it is illegal.
/// assert!(start.play(e4).unwrap().play(e4).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct LegalMove {
    /// The move as the legality check reported it (one word, written whole).
    played: Played,
    before: State,
    after: State,
}

impl LegalMove {
    /// Made only where `played` was just found legal in `before`, `after` the
    /// state it played to.
    pub(crate) fn new(played: Played, before: State, after: State) -> LegalMove {
        LegalMove {
            played,
            before,
            after,
        }
    }

    /// The state after the move, for the legality check that finds it to
    /// write in place (see `Played`), then [`LegalMove::set_move`].
    pub(crate) fn after_mut(&mut self) -> &mut State {
        &mut self.after
    }

    /// Sets the move, once the check that wrote [`LegalMove::after_mut`] found it.
    pub(crate) fn set_move(&mut self, played: Played) {
        self.played = played;
    }

    /// The move (castling as the king's two-square move).
    pub fn mv(&self) -> Move {
        self.played.mv()
    }

    /// The move as UCI (see [`Move::to_uci`]).
    pub fn to_uci(&self) -> String {
        self.mv().to_uci()
    }

    /// The state the move was found legal in.
    pub fn before(&self) -> &State {
        &self.before
    }

    /// The state after the move.
    pub fn after(&self) -> &State {
        &self.after
    }
}

impl From<LegalMove> for Move {
    fn from(legal: LegalMove) -> Move {
        legal.mv()
    }
}

impl PartialEq<Move> for LegalMove {
    fn eq(&self, other: &Move) -> bool {
        self.mv() == *other
    }
}

impl fmt::Display for LegalMove {
    /// UCI, as for [`Move`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.mv().fmt(f)
    }
}

/// What [`State::play`] accepts: anything that converts into a [`RawMove`]
/// (checked, then played), or a [`LegalMove`] (played without a second check
/// on the state it was found legal in). Sealed: implemented only here.
pub trait Playable: sealed::Sealed {
    /// The state after playing `self` on `state`, or the section 6 rejection.
    fn play_on(self, state: &State) -> Result<State, Rejection>;
}

mod sealed {
    /// Keeps [`super::Playable`] closed to other crates.
    pub trait Sealed {}
    impl<T: Into<super::RawMove>> Sealed for T {}
    impl Sealed for super::LegalMove {}
    impl Sealed for &super::LegalMove {}
}

impl<T: Into<RawMove>> Playable for T {
    #[inline]
    fn play_on(self, state: &State) -> Result<State, Rejection> {
        state
            .check_and_play_known(self.into(), false)
            .map(|(_, next)| next)
    }
}

impl Playable for LegalMove {
    #[inline]
    fn play_on(self, state: &State) -> Result<State, Rejection> {
        (&self).play_on(state)
    }
}

impl Playable for &LegalMove {
    #[inline]
    fn play_on(self, state: &State) -> Result<State, Rejection> {
        // The 128 bytes decide legality and the result: equal bytes, same answer.
        if same_bytes(state.as_bytes(), self.before.as_bytes()) {
            Ok(self.after)
        } else {
            self.mv().play_on(state)
        }
    }
}

/// `a == b`, without a branch per chunk: equal states are the expected case,
/// and this compiles to a few vector compares instead of a `memcmp` call.
#[inline(always)]
fn same_bytes(a: &[u8; 128], b: &[u8; 128]) -> bool {
    let mut diff = 0u128;
    for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        let x = u128::from_le_bytes(x.try_into().expect("16 bytes"));
        let y = u128::from_le_bytes(y.try_into().expect("16 bytes"));
        diff |= x ^ y;
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn played_on_its_state_or_another() {
        let start = State::initial();
        let e4 = start.parse_san("e4").unwrap();
        assert_eq!(e4.mv(), Move::from_uci("e2e4").unwrap());
        assert_eq!(e4.before(), &start);
        assert_eq!(start.play(e4), Ok(*e4.after()));
        let by_ref: &LegalMove = &e4;
        assert_eq!(by_ref.play_on(&start), start.play(e4.mv()));
        // Another state: checked like any move (a different byte anywhere counts).
        let mut bytes = *start.as_bytes();
        bytes[crate::state::idx::MOVE_COUNT_LOW] = 7;
        let other = State::from_bytes(&bytes).unwrap();
        assert_eq!(other.play(e4), other.play(e4.mv()));
        assert_ne!(other.play(e4), Ok(*e4.after()));
        let after = start.play(e4).unwrap();
        assert_eq!(after.play(e4), Err(Rejection::EmptyFrom));
        assert_eq!(e4.to_string(), "e2e4");
        assert_eq!(e4.to_uci(), "e2e4");
        assert!(same_bytes(start.as_bytes(), start.as_bytes()));
        assert!(!same_bytes(start.as_bytes(), after.as_bytes()));
    }
}
