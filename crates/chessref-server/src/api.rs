//! Request and response bodies of the `/v1` endpoints. Field names are part
//! of the public contract (see `openapi.json`): other tools call them. Every key is
//! camelCase (`statusCode`, `inCheck`); enumerated values stay snake_case.

use chessref_core::{Color, GameResult, PgnReport, RawMove, RawMoveError, State, Status};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ApiError;

/// The answer of `/v1/check`: the same object `chessref check --json` prints.
pub use chessref_core::Verdict as CheckResponse;

/// One move as every representation names it (`/v1/play`, `/v1/moves`).
pub use chessref_core::MoveInfo;

/// Exactly one of a FEN or a 128-byte state hex, as every position-taking request carries it.
fn position(fen: &Option<String>, state: &Option<String>) -> Result<State, ApiError> {
    match (fen, state) {
        (Some(fen), None) => Ok(State::from_fen(fen.trim()).map_err(ApiError::from)?),
        (None, Some(hex)) => Ok(State::from_hex(hex.trim())?),
        _ => Err(ApiError::PositionChoice),
    }
}

/// An optional key that, when present, must hold a string: `null` is refused, as the
/// document (no `nullable`) says, rather than read as the key's absence.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// `POST /v1/check`: is one move legal in a position?
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckRequest {
    /// The position as FEN.
    #[serde(default, deserialize_with = "present")]
    pub fen: Option<String>,
    /// The position as 256 hex characters (optional `0x`).
    #[serde(default, deserialize_with = "present")]
    pub state: Option<String>,
    /// A UCI string, or the packed `uint24` the contract takes (any bytes, off-board included).
    #[serde(rename = "move")]
    pub mv: Value,
}

impl CheckRequest {
    /// The position to check in.
    pub fn position(&self) -> Result<State, ApiError> {
        position(&self.fen, &self.state)
    }

    /// The move as the contract would receive it: the wire text of
    /// [`RawMove::parse`], or the packed `uint24` as a JSON integer.
    pub fn raw_move(&self) -> Result<RawMove, ApiError> {
        let parsed = match &self.mv {
            Value::String(text) => RawMove::parse(text),
            Value::Number(n) => match n.as_u64() {
                Some(packed) => RawMove::from_uint24(packed),
                None => Err(RawMoveError::PackedRange(n.to_string())),
            },
            other => {
                return Err(ApiError::BadMove {
                    input: other.to_string(),
                    reason: "\"move\" is a UCI string, a packed uint24 integer or its 0x hex"
                        .into(),
                });
            }
        };
        parsed.map_err(|e| ApiError::BadMove {
            input: e.input().to_owned(),
            reason: e.reason().to_owned(),
        })
    }
}

/// `POST /v1/play`: apply a list of moves.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlayRequest {
    /// The start position as FEN.
    #[serde(default, deserialize_with = "present")]
    pub fen: Option<String>,
    /// The start position as state hex.
    #[serde(default, deserialize_with = "present")]
    pub state: Option<String>,
    /// Moves in UCI or SAN, applied in order.
    pub moves: Vec<String>,
}

impl PlayRequest {
    /// The start position.
    pub fn position(&self) -> Result<State, ApiError> {
        position(&self.fen, &self.state)
    }
}

/// Draws a player may claim (not automatic), ENCODING.md section 8.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Claimable {
    /// The position occurred three times, or a legal move makes it so (FIDE 9.2).
    pub threefold: bool,
    /// The fifty-move rule: clock at least 100, or 99 and a quiet move completes it (FIDE 9.3).
    pub fifty_moves: bool,
}

/// The answer of `/v1/play`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayResponse {
    /// The final position as FEN.
    pub fen: String,
    /// The final position as 256 lowercase hex characters (no `0x`).
    pub state: String,
    /// Section 8 status name (`"ONGOING"`, `"CHECKMATE"`, ...).
    pub status: String,
    /// Section 8 status code 0..=4.
    pub status_code: u8,
    /// Whether the side to move is in check.
    pub in_check: bool,
    /// The moves played.
    pub moves: Vec<MoveInfo>,
    /// Occurrences of the final position since the last irreversible move.
    pub repetitions: usize,
    /// Draws claimable in the final position.
    pub claimable: Claimable,
    /// `"1-0"`, `"0-1"` or `"1/2-1/2"` when the game ended automatically, else null.
    pub result: Option<String>,
}

/// `POST /v1/moves` and `POST /v1/status`: a position alone.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PositionRequest {
    /// The position as FEN.
    #[serde(default, deserialize_with = "present")]
    pub fen: Option<String>,
    /// The position as state hex.
    #[serde(default, deserialize_with = "present")]
    pub state: Option<String>,
}

impl PositionRequest {
    /// The position.
    pub fn position(&self) -> Result<State, ApiError> {
        position(&self.fen, &self.state)
    }
}

/// The answer of `/v1/moves`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MovesResponse {
    /// Number of legal moves.
    pub count: usize,
    /// Every legal move.
    pub moves: Vec<MoveInfo>,
    /// For board widgets: origin square -> destination squares (promotions listed once).
    pub dests: std::collections::BTreeMap<String, Vec<String>>,
}

/// Insufficient material per side (section 8).
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PerSide {
    /// White's value.
    pub white: bool,
    /// Black's value.
    pub black: bool,
}

/// The answer of `/v1/status`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusResponse {
    /// The position as FEN.
    pub fen: String,
    /// The position as state hex (no `0x`).
    pub state: String,
    /// Section 8 status name.
    pub status: String,
    /// Section 8 status code.
    pub status_code: u8,
    /// Whether the side to move is in check.
    pub in_check: bool,
    /// `"white"` or `"black"`.
    pub turn: String,
    /// Plies since the standard initial position (bytes 8, 9).
    pub ply: u16,
    /// Plies since the last capture or pawn move (byte 10).
    pub halfmove_clock: u8,
    /// Insufficient material per side.
    pub insufficient_material: PerSide,
    /// The side to move may claim the fifty-move draw, now or with its next move (FIDE 9.3);
    /// threefold needs a history: use `/v1/play`.
    pub fifty_moves_claimable: bool,
    /// Section 9 repetition key, `0x`-prefixed.
    pub repetition_key: String,
}

/// One game of `/v1/replay`: the object `chessref pgn --json` prints, plus the engine.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayGame {
    /// What reading and replaying the game found.
    #[serde(flatten)]
    pub report: PgnReport,
    /// Which engine replayed the game: `"rust"` or `"evm"`.
    pub engine: &'static str,
}

/// The answer of `/v1/replay`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayResponse {
    /// Games read.
    pub count: usize,
    /// Games with an error.
    pub failed: usize,
    /// One entry per game, in order.
    pub games: Vec<ReplayGame>,
}

impl ReplayResponse {
    /// The answer listing `games`, in order.
    pub fn of(games: Vec<ReplayGame>) -> ReplayResponse {
        ReplayResponse {
            count: games.len(),
            failed: games.iter().filter(|g| g.report.failed()).count(),
            games,
        }
    }
}

/// `"white"` or `"black"`.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// PGN result text.
pub fn result_text(r: GameResult) -> String {
    r.to_string()
}

/// Status name text.
pub fn status_text(s: Status) -> String {
    s.name().to_owned()
}
