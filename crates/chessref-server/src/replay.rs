//! `POST /v1/replay`: every game of a PGN replayed move by move, reporting
//! the last position reached and the first refused move.

use chessref_core::{PgnError, PgnReader, SanError};

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

/// The section 6 code behind a refused move, when there is one.
fn rejection_code(err: &PgnError) -> Option<u8> {
    match err {
        PgnError::IllegalMove { reason: SanError::Rejected { rejection, .. }, .. } => Some(rejection.code()),
        _ => None,
    }
}

/// Replays every game of `pgn` with chessref-core.
pub fn replay_rust(pgn: &str) -> ReplayResponse {
    let mut games = Vec::new();
    // Each game takes at least one byte: a bound that holds whatever the reader does.
    for item in PgnReader::new(pgn.as_bytes()).take(pgn.len() + 1) {
        let entry = match item {
            Err(e) => ReplayGame {
                index: e.game().unwrap_or(games.len() + 1),
                plies: 0,
                fen: None,
                hex: None,
                status: None,
                result: None,
                outcome: None,
                code: rejection_code(&e),
                error: Some(e.to_string()),
                engine: "rust",
            },
            Ok(pgn_game) => {
                let result = pgn_game.result.clone().or_else(|| pgn_game.tag("Result").map(str::to_owned));
                match pgn_game.replay_prefix() {
                    Err(e) => ReplayGame {
                        index: pgn_game.index,
                        plies: 0,
                        fen: None,
                        hex: None,
                        status: None,
                        result,
                        outcome: None,
                        code: rejection_code(&e),
                        error: Some(e.to_string()),
                        engine: "rust",
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
                            error: replay.error.map(|e| e.to_string()),
                            engine: "rust",
                        }
                    }
                }
            }
        };
        games.push(entry);
    }
    let failed = games.iter().filter(|g| g.error.is_some()).count();
    ReplayResponse { count: games.len(), failed, games }
}

/// Replays every game of `pgn` through the compiled contract on revm.
#[cfg(not(feature = "evm"))]
pub fn replay_evm(_pgn: &str) -> Result<ReplayResponse, crate::ApiError> {
    Err(crate::ApiError::EngineUnavailable(
        "engine \"evm\" is not available: this server was built without the `evm` feature".into(),
    ))
}
