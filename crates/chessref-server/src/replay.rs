//! `POST /v1/replay`: every game of a PGN replayed move by move, reporting
//! the last position reached and the first refused move.

use chessref_core::{PgnError, PgnGame, PgnReader, Replay, SanError};

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

/// The entry of a game the PGN reader could not read (`next_index` when the
/// error names no game). A reader error is never a rejected move, so `code`
/// stays empty for both engines.
fn unreadable_game(err: &PgnError, next_index: usize, engine: &'static str) -> ReplayGame {
    ReplayGame {
        index: err.game().unwrap_or(next_index),
        plies: 0,
        fen: None,
        hex: None,
        status: None,
        result: None,
        outcome: None,
        code: rejection_code(err),
        error: Some(err.to_string()),
        engine,
    }
}

/// The section 6 code behind a refused move, when there is one.
fn rejection_code(err: &PgnError) -> Option<u8> {
    match err {
        PgnError::IllegalMove {
            reason: SanError::Rejected { rejection, .. },
            ..
        } => Some(rejection.code()),
        _ => None,
    }
}

/// The entry of a game the reader could read, from chessref-core's replay of
/// its main line (`prefix`, [`PgnGame::replay_prefix`]'s answer).
fn game_entry(
    pgn_game: &PgnGame,
    prefix: Result<&Replay, &PgnError>,
    engine: &'static str,
) -> ReplayGame {
    let result = pgn_game
        .result
        .clone()
        .or_else(|| pgn_game.tag("Result").map(str::to_owned));
    match prefix {
        Err(e) => ReplayGame {
            index: pgn_game.index,
            plies: 0,
            fen: None,
            hex: None,
            status: None,
            result,
            outcome: None,
            code: rejection_code(e),
            error: Some(e.to_string()),
            engine,
        },
        Ok(replay) => {
            let state = replay.game.state();
            ReplayGame {
                index: pgn_game.index,
                plies: replay.game.plies(),
                fen: Some(state.fen()),
                hex: Some(state.to_hex()),
                status: Some(replay.game.status().name().to_owned()),
                result,
                outcome: replay.game.outcome().map(|o| o.result.to_string()),
                code: replay.error.as_ref().and_then(rejection_code),
                error: replay.error.as_ref().map(ToString::to_string),
                engine,
            }
        }
    }
}

/// The response listing `games`.
fn response(games: Vec<ReplayGame>) -> ReplayResponse {
    let failed = games.iter().filter(|g| g.error.is_some()).count();
    ReplayResponse {
        count: games.len(),
        failed,
        games,
    }
}

/// Replays every game of `pgn` with chessref-core.
pub fn replay_rust(pgn: &str) -> ReplayResponse {
    let mut games = Vec::new();
    // Each game takes at least one byte: a bound that holds whatever the reader does.
    for item in PgnReader::new(pgn.as_bytes()).take(pgn.len() + 1) {
        let entry = match item {
            Err(e) => unreadable_game(&e, games.len() + 1, "rust"),
            Ok(pgn_game) => game_entry(&pgn_game, pgn_game.replay_prefix().as_ref(), "rust"),
        };
        games.push(entry);
    }
    response(games)
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
                games.push(unreadable_game(&e, games.len() + 1, "evm"));
                continue;
            }
        };
        let prefix = pgn_game.replay_prefix();
        let mut entry = game_entry(&pgn_game, prefix.as_ref(), "evm");
        if let Ok(replay) = &prefix {
            budget = budget.checked_sub(replay.game.plies()).ok_or(
                crate::ApiError::PayloadTooLarge {
                    limit: EVM_MAX_PLIES,
                },
            )?;
            let report = replayer
                .replay_known(&pgn_game, replay)
                .map_err(unavailable)?;
            entry.plies = report.plies;
            if let Some(first) = report.mismatches.first() {
                entry.error = Some(format!(
                    "game {}: the contract disagrees with chessref-core ({} differences, first: {first}; a bug: please report)",
                    pgn_game.index,
                    report.mismatches.len()
                ));
            }
        }
        games.push(entry);
    }
    Ok(response(games))
}
