//! CHANNEL.md section 6: when a move message is a valid successor of the one before.

use alloy_primitives::{B256, U256};
use chessref_core::{Color, Rejection, State, StateError, Status, chain};
use thiserror::Error;

use crate::messages::{Message, Move, author_of};

/// Why a move message is not a valid successor of its predecessor; [`code`] is the
/// transition code of CHANNEL.md section 6 (what `proveIllegalMove` proves).
///
/// [`code`]: TransitionError::code
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TransitionError {
    /// Code 1: the two messages name different games.
    #[error("the move is for game {got}, its predecessor for game {expected}")]
    WrongGame {
        /// The predecessor's game.
        expected: U256,
        /// The move's game.
        got: U256,
    },
    /// Code 2: the ply is not the predecessor's plus one.
    #[error("ply {got} does not follow ply {previous}")]
    WrongPly {
        /// The predecessor's ply.
        previous: u32,
        /// The move's ply.
        got: u32,
    },
    /// Code 3: `previous` is not the predecessor's `hashStruct`.
    #[error("the move names another predecessor than this one")]
    WrongPrevious,
    /// Code 4: the state is not 128 bytes, so the move has no author whose time to
    /// check (the contract reverts `BadStateLength`).
    #[error("the state is {0} bytes, not 128, so the move has no author")]
    BadStateLength(usize),
    /// Code 4: the move is stamped before its predecessor (signed time never runs
    /// backwards).
    #[error("the move is stamped at {got}, before its predecessor's stamp {previous}")]
    TimeBackwards {
        /// The predecessor's `timestamp`.
        previous: u64,
        /// The move's `timestamp`.
        got: u64,
    },
    /// Code 4: the move was signed after its author's flag fell: more time elapsed
    /// between the two stamps than the author had left.
    #[error(
        "the move was signed {elapsed} s after its predecessor, but its author had only {remaining} s left: its flag had fallen"
    )]
    FlagFell {
        /// Seconds between the predecessor's stamp and the move's.
        elapsed: u64,
        /// The author's time in the predecessor.
        remaining: u32,
    },
    /// Code 4: the author claims more time left than its time in the predecessor, less
    /// the elapsed time, plus the increment.
    #[error(
        "the mover claims {claimed} s left, at most {allowed} s are allowed ({remaining} s - {elapsed} s elapsed + the increment)"
    )]
    TooMuchTime {
        /// The author's time in the move.
        claimed: u32,
        /// The most it may be.
        allowed: u64,
        /// The author's time in the predecessor.
        remaining: u32,
        /// Seconds charged.
        elapsed: u64,
    },
    /// Code 4: the mover changed its opponent's time.
    #[error("the mover set the opponent's time to {got} s; it was {was} s")]
    OtherTimeChanged {
        /// The opponent's time in the predecessor.
        was: u32,
        /// The opponent's time in the move.
        got: u32,
    },
    /// Code 6 with rule code 0: the predecessor's state is not a valid state (not 128
    /// bytes, or a section 7 rule broken).
    #[error("the predecessor's state is invalid: {0}")]
    InvalidPosition(StateError),
    /// Code 5: the predecessor's position had already ended the game.
    #[error("the game had already ended ({}) before this move", .0.name())]
    GameOver(Status),
    /// Code 6: the move is illegal in the predecessor's position (section 6 code).
    #[error("illegal move: {} ({})", .0.name(), .0.code())]
    IllegalMove(Rejection),
    /// Code 7: the state is not the one the move produces.
    #[error("the signed state is not the position the move produces")]
    WrongState,
    /// Code 8: the history is not the chain head after the move.
    #[error("the signed history is not the repetition chain after the move")]
    WrongHistory,
}

impl TransitionError {
    /// The transition code (CHANNEL.md section 6).
    pub fn code(&self) -> u8 {
        match self {
            TransitionError::WrongGame { .. } => 1,
            TransitionError::WrongPly { .. } => 2,
            TransitionError::WrongPrevious => 3,
            TransitionError::BadStateLength(_)
            | TransitionError::TimeBackwards { .. }
            | TransitionError::FlagFell { .. }
            | TransitionError::TooMuchTime { .. }
            | TransitionError::OtherTimeChanged { .. } => 4,
            TransitionError::GameOver(_) => 5,
            TransitionError::InvalidPosition(_) | TransitionError::IllegalMove(_) => 6,
            TransitionError::WrongState => 7,
            TransitionError::WrongHistory => 8,
        }
    }

    /// The ENCODING.md section 6 code beside transition code 6 (0 for an invalid
    /// predecessor state and for every other transition code).
    pub fn rule_code(&self) -> u8 {
        match self {
            TransitionError::IllegalMove(r) => r.code(),
            _ => 0,
        }
    }

    /// The code's name, as CHANNEL.md section 6 writes it.
    pub fn name(&self) -> &'static str {
        match self.code() {
            1 => "WRONG_GAME",
            2 => "WRONG_PLY",
            3 => "WRONG_PREVIOUS",
            4 => "BAD_TIME",
            5 => "GAME_OVER",
            6 => "ILLEGAL_MOVE",
            7 => "WRONG_STATE",
            _ => "WRONG_HISTORY",
        }
    }
}

/// Checks that `next` is a valid successor of `previous` in a game with Fischer
/// increment `increment`, in the order of CHANNEL.md section 6; returns the state
/// after the move.
pub fn check_successor(
    previous: &Move,
    next: &Move,
    increment: u32,
) -> Result<State, TransitionError> {
    check_successor_hashed(previous, previous.hash(), next, increment)
}

/// [`check_successor`] of `previous` whose `hashStruct` is `previous_hash`.
pub(crate) fn check_successor_hashed(
    previous: &Move,
    previous_hash: B256,
    next: &Move,
    increment: u32,
) -> Result<State, TransitionError> {
    if next.game_id() != previous.game_id() {
        return Err(TransitionError::WrongGame {
            expected: previous.game_id(),
            got: next.game_id(),
        });
    }
    if u64::from(next.ply) != u64::from(previous.ply) + 1 {
        return Err(TransitionError::WrongPly {
            previous: previous.ply,
            got: next.ply,
        });
    }
    if next.previous != previous_hash {
        return Err(TransitionError::WrongPrevious);
    }
    check_times(previous, next, increment)?;
    let before = State::from_bytes(&previous.state).map_err(TransitionError::InvalidPosition)?;
    let status = before.status();
    if status != Status::Ongoing {
        return Err(TransitionError::GameOver(status));
    }
    let after = before
        .play(next.packed())
        .map_err(TransitionError::IllegalMove)?;
    if after.as_bytes().as_slice() != next.state.as_ref() {
        return Err(TransitionError::WrongState);
    }
    if chain::after(previous.history, &after) != next.history {
        return Err(TransitionError::WrongHistory);
    }
    Ok(after)
}

/// Code 4 (CHANNEL.md 6): stamps never run backwards; the author is charged the time
/// between its predecessor's stamp and its own (0 after the start move), may not have
/// run out of it, claims at most what is left plus the increment, and leaves the
/// other's time alone.
fn check_times(previous: &Move, next: &Move, increment: u32) -> Result<(), TransitionError> {
    let Some(author) = author_of(next) else {
        return Err(TransitionError::BadStateLength(next.state.len()));
    };
    if next.timestamp < previous.timestamp {
        return Err(TransitionError::TimeBackwards {
            previous: previous.timestamp,
            got: next.timestamp,
        });
    }
    let elapsed = if previous.ply == 0 {
        0
    } else {
        next.timestamp - previous.timestamp
    };
    let (qa, ma, qo, mo) = match author {
        Color::White => (
            previous.whiteTime,
            next.whiteTime,
            previous.blackTime,
            next.blackTime,
        ),
        Color::Black => (
            previous.blackTime,
            next.blackTime,
            previous.whiteTime,
            next.whiteTime,
        ),
    };
    if elapsed > u64::from(qa) {
        return Err(TransitionError::FlagFell {
            elapsed,
            remaining: qa,
        });
    }
    let allowed = u64::from(qa) - elapsed + u64::from(increment);
    if u64::from(ma) > allowed {
        return Err(TransitionError::TooMuchTime {
            claimed: ma,
            allowed,
            remaining: qa,
            elapsed,
        });
    }
    if mo != qo {
        return Err(TransitionError::OtherTimeChanged { was: qo, got: mo });
    }
    Ok(())
}

/// The move message that plays `mv` after `previous`, signed by its author at unix time
/// `timestamp`: what an honest client signs. The author is charged the time since
/// `previous`'s stamp (nothing after the start move) and gains `increment` (its time
/// is capped at 2^32-1). Errors if `previous` is not a live valid position, `mv` is
/// illegal, `timestamp` is before `previous`'s, or the author's flag has fallen.
pub fn successor(
    previous: &Move,
    mv: impl Into<chessref_core::RawMove>,
    timestamp: u64,
    increment: u32,
) -> Result<Move, TransitionError> {
    let before = State::from_bytes(&previous.state).map_err(TransitionError::InvalidPosition)?;
    let status = before.status();
    if status != Status::Ongoing {
        return Err(TransitionError::GameOver(status));
    }
    let raw = mv.into();
    let after = before.play(raw).map_err(TransitionError::IllegalMove)?;
    if timestamp < previous.timestamp {
        return Err(TransitionError::TimeBackwards {
            previous: previous.timestamp,
            got: timestamp,
        });
    }
    let elapsed = if previous.ply == 0 {
        0
    } else {
        timestamp - previous.timestamp
    };
    let tick = |time: u32| -> Result<u32, TransitionError> {
        if elapsed > u64::from(time) {
            return Err(TransitionError::FlagFell {
                elapsed,
                remaining: time,
            });
        }
        let left = u64::from(time) - elapsed + u64::from(increment);
        Ok(u32::try_from(left).unwrap_or(u32::MAX))
    };
    let (white, black) = match before.turn() {
        Color::White => (tick(previous.whiteTime)?, previous.blackTime),
        Color::Black => (previous.whiteTime, tick(previous.blackTime)?),
    };
    Ok(Move {
        gameId: previous.gameId,
        ply: previous.ply.saturating_add(1),
        mv: alloy_primitives::aliases::U24::from(raw.packed()),
        state: alloy_primitives::Bytes::copy_from_slice(after.as_bytes()),
        history: chain::after(previous.history, &after),
        whiteTime: white,
        blackTime: black,
        timestamp,
        previous: previous.hash(),
    })
}
