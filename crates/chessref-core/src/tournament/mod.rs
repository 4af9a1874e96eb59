//! The knockout maths of `ChessTournament`: who meets whom, with which colours, who wins
//! a drawn game's lot, and what each finishing place is paid.
//!
//! The contract computes all of it on-chain from the event's terms, its seed and the
//! referee's results; this module computes the same from the same inputs, so a client
//! can show the bracket and the prizes, and `chessref simulate --tournament` can check
//! the contract against it.

mod bracket;
mod error;
mod split;
mod standings;

pub use bracket::{Bracket, BracketSize, MatchIndex, lot_white_wins};
pub use error::TournamentError;
pub use split::{BPS, MAX_FEE_BPS, Prizes, Split};
pub use standings::{Outcome, Players};
