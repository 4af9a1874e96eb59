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

/// Replays every game of `pgn` through `ChessRulesView` (the rules the
/// `ChessReferee` runs) on a fresh in-process revm chain: each SAN is
/// resolved to its packed move in Rust (the contract takes no SAN), then the
/// contract decides: `status` before the move (a finished game takes
/// nothing), `play` for the next state (or `IllegalMove(code)`). Every state
/// the contract returns is compared with chessref-core's; a difference is
/// reported as the game's error.
#[cfg(feature = "evm")]
pub fn replay_evm(pgn: &str) -> Result<ReplayResponse, crate::ApiError> {
    use chessref_core::{Outcome, State, Status};
    use chessref_evm::{ContractRevert, EvmError, RevmChain, RulesView};

    let unavailable =
        |e: EvmError| crate::ApiError::EngineUnavailable(format!("revm chain failed: {e}"));
    let mut rules = RulesView::deploy(RevmChain::new()).map_err(unavailable)?;
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
        let result = pgn_game
            .result
            .clone()
            .or_else(|| pgn_game.tag("Result").map(str::to_owned));
        let mut state = match pgn_game.start() {
            Ok(s) => s,
            Err(e) => {
                games.push(ReplayGame {
                    report: PgnReport {
                        result,
                        ..PgnReport::unreadable(&e, pgn_game.index)
                    },
                    engine: "evm",
                });
                continue;
            }
        };
        let mut plies = 0;
        let mut error: Option<String> = None;
        let mut code: Option<u8> = None;
        let game_no = pgn_game.index;
        for (i, san) in pgn_game.sans.iter().enumerate() {
            let ply = i + 1;
            if budget == 0 {
                return Err(crate::ApiError::PayloadTooLarge {
                    limit: EVM_MAX_PLIES,
                });
            }
            budget -= 1;
            let status = rules.status(state.as_bytes()).map_err(unavailable)?;
            if status != 0 {
                let name = Status::from_code(status).map_or("UNKNOWN", Status::name);
                error = Some(format!(
                    "game {game_no}, ply {ply}: move {san:?} after the game ended ({name}) at ply {plies}"
                ));
                break;
            }
            let mv = match state.parse_move(san) {
                Ok(mv) => mv,
                Err(e) => {
                    if let chessref_core::SanError::Rejected { rejection, .. } = &e {
                        code = Some(rejection.code());
                    }
                    error = Some(format!(
                        "game {game_no}, ply {ply}: {san:?} is no legal move to send: {e}"
                    ));
                    break;
                }
            };
            let packed = chessref_core::RawMove::from(mv).packed();
            match rules.play(state.as_bytes(), packed) {
                Ok(bytes) => {
                    let ours = state.play(mv).ok();
                    match State::from_bytes(&bytes) {
                        Ok(next) if Some(next) == ours => {
                            state = next;
                            plies += 1;
                        }
                        Ok(_) | Err(_) => {
                            error = Some(format!(
                                "game {game_no}, ply {ply}: {san:?}: the contract's state differs from chessref-core's (a bug: please report)"
                            ));
                            break;
                        }
                    }
                }
                Err(EvmError::Reverted {
                    revert: ContractRevert::IllegalMove(c),
                    ..
                }) => {
                    code = Some(c);
                    let name =
                        chessref_core::Rejection::from_code(c).map_or("UNKNOWN", |r| r.name());
                    error = Some(format!(
                        "game {game_no}, ply {ply}: {san:?} reverted IllegalMove({c}) {name}"
                    ));
                    break;
                }
                Err(e) => return Err(unavailable(e)),
            }
        }
        let status_code = rules.status(state.as_bytes()).map_err(unavailable)?;
        let status = Status::from_code(status_code);
        games.push(ReplayGame {
            report: PgnReport {
                index: game_no,
                plies,
                state: Some(state),
                status,
                outcome: status.and_then(|s| Outcome::of(s, state.turn())),
                result,
                fivefold: None,
                moves_after_end: 0,
                error,
                code,
            },
            engine: "evm",
        });
    }
    Ok(ReplayResponse::of(games))
}
