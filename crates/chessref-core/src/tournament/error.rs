//! Why an event's terms are refused: the same cases as the contract's `createEvent`.

/// Terms `ChessTournament.createEvent` would revert on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    /// The number of players is not 4, 8, 16, 32 or 64 (`BadSize`).
    #[error("an event has 4, 8, 16, 32 or 64 players, not {0}")]
    BadSize(u32),
    /// The prize split is not a valid one for the size (`BadSplit`).
    #[error("bad prize split: {0}")]
    BadSplit(&'static str),
    /// The organiser's fee is above 10 % (`FeeTooHigh`).
    #[error("the organiser's fee is at most 1000 basis points (10 %), not {0}")]
    FeeTooHigh(u16),
}
