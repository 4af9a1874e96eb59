//! `POST /v1/replay`: every game of a PGN replayed move by move, reporting
//! the last position reached and the first refused move.

use chessref_core::{PgnReader, PgnReport};

use crate::api::{ReplayGame, ReplayResponse};

/// Which implementation replays the games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// chessref-core (the Rust twin of the contract).
    Rust,
    /// The compiled `ChessReferee` on an in-process revm chain (feature `evm`).
    Evm,
}

impl Engine {
    /// Parses the `engine` query value.
    pub fn parse(s: &str) -> Option<Engine> {
        match s {
            "rust" => Some(Engine::Rust),
            "evm" => Some(Engine::Evm),
            _ => None,
        }
    }
}

/// Replays every game of `pgn` with chessref-core.
pub fn replay_rust(pgn: &str) -> ReplayResponse {
    // Each game takes at least one byte: a bound that holds whatever the reader does.
    let games: Vec<ReplayGame> = PgnReader::new(pgn.as_bytes())
        .take(pgn.len() + 1)
        .enumerate()
        .map(|(i, item)| ReplayGame {
            report: PgnReport::read(&item, i + 1),
            engine: "rust",
        })
        .collect();
    ReplayResponse::of(games)
}

/// Most plies one `engine=evm` request may replay: each costs a few EVM calls.
pub const EVM_MAX_PLIES: usize = 20_000;

/// Replays every game of `pgn` through the compiled contract on revm.
#[cfg(not(feature = "evm"))]
pub fn replay_evm(_pgn: &str) -> Result<ReplayResponse, crate::ApiError> {
    Err(crate::ApiError::EngineUnavailable(
        "engine \"evm\" is not available: this server was built without the `evm` feature".into(),
    ))
}

/// Replays every game of `pgn` with chessref-core, then plays each replayed
/// main line as transactions through the compiled `ChessReferee` on a fresh
/// in-process revm chain (`chessref_evm::Replayer`, the engine of `chessref
/// replay`): every state, status, event and ending the contract reports is
/// compared with chessref-core's, and a difference is reported as the game's
/// error. A refused move given as squares is sent too and must revert with
/// the same section 6 code.
#[cfg(feature = "evm")]
pub fn replay_evm(pgn: &str) -> Result<ReplayResponse, crate::ApiError> {
    use chessref_evm::{EvmError, Replayer, RevmChain};

    let unavailable =
        |e: EvmError| crate::ApiError::EngineUnavailable(format!("revm chain failed: {e}"));
    let mut replayer = Replayer::new(RevmChain::new()).map_err(unavailable)?;
    let mut games = Vec::new();
    let mut budget = EVM_MAX_PLIES;
    for item in PgnReader::new(pgn.as_bytes()).take(pgn.len() + 1) {
        let pgn_game = match item {
            Ok(g) => g,
            Err(e) => {
                games.push(ReplayGame {
                    report: PgnReport::unreadable(&e, games.len() + 1),
                    engine: "evm",
                });
                continue;
            }
        };
        let prefix = pgn_game.replay_prefix();
        let mut report = PgnReport::of_prefix(&pgn_game, prefix.as_ref());
        if let Ok(replay) = &prefix {
            budget = budget.checked_sub(replay.game.plies()).ok_or(
                crate::ApiError::PayloadTooLarge {
                    limit: EVM_MAX_PLIES,
                },
            )?;
            let chain = replayer
                .replay_known(&pgn_game, replay)
                .map_err(unavailable)?;
            if let Some(first) = chain.mismatches.first() {
                report.error = Some(format!(
                    "game {}: the contract disagrees with chessref-core ({} differences, first: {first}; a bug: please report)",
                    pgn_game.index,
                    chain.mismatches.len()
                ));
            }
        }
        games.push(ReplayGame {
            report,
            engine: "evm",
        });
    }
    Ok(ReplayResponse::of(games))
}
