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

/// The latest registration deadline an event may have, in seconds after its creation
/// (the contract's `MAX_REGISTRATION`, 90 days): entries are locked until the event fills
/// or its deadline passes, so an organiser cannot lock them for years.
pub const MAX_REGISTRATION: u64 = 90 * 86_400;
