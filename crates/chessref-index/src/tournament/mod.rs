//! Knockout events (`ChessTournament`, docs/TOURNAMENT.md): the referee's tournament is
//! the index's second log source. Its logs are stored raw in `logs` beside the referee's
//! (`emitter = 'tournament'`, `tournament_id` the event they are about) and derived into
//! `tournaments`, `tournament_entries` and `tournament_matches` ([`derive`]) in the same
//! transactions that refold games, so a rollback replays them as it replays games.
//! [`view`] reads them back as `/v1/tournaments` serves them.
//!
//! Everything the contract computes (pairings of matches not started yet, colours, the
//! prizes and each entrant's share) comes from the Rust mirror
//! (`chessref_core::tournament`), never from rules written again here.

pub mod derive;
pub mod view;

pub use derive::{decode, event_of, refold};
pub use view::{
    MatchView, PrizeView, Standing, TournamentFilter, TournamentList, TournamentStatus,
    TournamentSummary, TournamentView,
};

#[cfg(test)]
mod tests;
