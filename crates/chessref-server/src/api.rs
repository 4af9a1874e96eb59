//! Request and response bodies of the `/v1` endpoints. Field names are part
//! of the public contract (see `openapi.json`): other tools call them.

use chessref_core::{Color, GameResult, Move, RawMove, Role, Square, State, Status};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ApiError;

/// Largest packed move the contract's `uint24` can carry.
const MAX_PACKED: u64 = 0xFF_FFFF;

/// Exactly one of a FEN or a 128-byte state hex, as every position-taking request carries it.
fn position(fen: &Option<String>, state: &Option<String>) -> Result<State, ApiError> {
    match (fen, state) {
        (Some(fen), None) => Ok(State::from_fen(fen.trim()).map_err(ApiError::from)?),
        (None, Some(hex)) => Ok(State::from_hex(hex.trim())?),
        _ => Err(ApiError::PositionChoice),
    }
}

/// `POST /v1/check`: is one move legal in a position?
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// The position as FEN.
    pub fen: Option<String>,
    /// The position as 256 hex characters (optional `0x`).
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

    /// The move as the contract would receive it.
    pub fn raw_move(&self) -> Result<RawMove, ApiError> {
        match &self.mv {
            Value::String(text) => parse_raw_move(text),
            Value::Number(n) => match n.as_u64() {
                Some(p) if p <= MAX_PACKED => Ok(RawMove::from_packed(p as u32)),
                _ => Err(ApiError::BadMove {
                    input: n.to_string(),
                    reason: "a packed move is an integer in 0..=16777215 (uint24)".into(),
                }),
            },
            other => Err(ApiError::BadMove {
                input: other.to_string(),
                reason: "\"move\" is a UCI string, a packed uint24 integer or its 0x hex".into(),
            }),
        }
    }
}

/// Reads a move text the way `chessref check` does, so both give the same
/// verdict: UCI squares as 0x88 indices with any promotion letter of
/// `p n b r q k` (the rules, not the parser, reject `p` and `k` with
/// INVALID_PROMOTION), or the packed uint24 as `0x` hex.
pub fn parse_raw_move(text: &str) -> Result<RawMove, ApiError> {
    let text = text.trim();
    let bad = |reason: &str| ApiError::BadMove {
        input: text.to_owned(),
        reason: reason.to_owned(),
    };
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return match u32::from_str_radix(hex, 16) {
            Ok(packed) if packed <= MAX_PACKED as u32 && !hex.starts_with('+') => {
                Ok(RawMove::from_packed(packed))
            }
            _ => Err(bad("a packed move is 0x and at most 6 hex digits")),
        };
    }
    let uci = "expected UCI like e2e4 or e7e8q, or a packed 0x uint24";
    if !text.is_ascii() || !(4..=5).contains(&text.len()) {
        return Err(bad(uci));
    }
    let from: Square = text[0..2].parse().map_err(|_| bad(uci))?;
    let to: Square = text[2..4].parse().map_err(|_| bad(uci))?;
    let promotion = match text.as_bytes().get(4).map(u8::to_ascii_lowercase) {
        None => 0,
        Some(letter) => match Role::from_char(char::from(letter)) {
            Some(role) => role.code(),
            None => return Err(bad(uci)),
        },
    };
    Ok(RawMove {
        from: from.index(),
        to: to.index(),
        promotion,
    })
}

/// The answer of `/v1/check`: the same object `chessref check --json` prints.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct CheckResponse {
    /// Whether the contract accepts the move.
    pub legal: bool,
    /// 0 when legal, else the section 6 code.
    pub code: u8,
    /// `"OK"` when legal, else the section 6 name.
    pub reason: String,
}

/// `POST /v1/play`: apply a list of moves.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayRequest {
    /// The start position as FEN.
    pub fen: Option<String>,
    /// The start position as state hex.
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

/// One move as every representation names it.
#[derive(Debug, Serialize, PartialEq, Eq, Clone)]
pub struct MoveInfo {
    /// UCI text.
    pub uci: String,
    /// SAN text (with `+`/`#`).
    pub san: String,
    /// The contract's `uint24`: `(from << 16) | (to << 8) | promotion`.
    pub packed: u32,
}

impl MoveInfo {
    /// Describes legal move `mv` in `state` (SAN needs the position).
    pub fn new(state: &State, mv: Move) -> MoveInfo {
        MoveInfo {
            uci: mv.to_uci(),
            // `mv` is legal in `state`, so SAN always exists; UCI is a readable fallback.
            san: state.san(mv).unwrap_or_else(|_| mv.to_uci()),
            packed: RawMove::from(mv).packed(),
        }
    }
}

/// Draws a player may claim (not automatic), ENCODING.md section 8.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Claimable {
    /// The position occurred three times, or a legal move makes it so (FIDE 9.2).
    pub threefold: bool,
    /// The fifty-move rule: clock at least 100, or 99 and a quiet move completes it (FIDE 9.3).
    pub fifty_moves: bool,
}

/// The answer of `/v1/play`.
#[derive(Debug, Serialize)]
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
#[serde(deny_unknown_fields)]
pub struct PositionRequest {
    /// The position as FEN.
    pub fen: Option<String>,
    /// The position as state hex.
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
pub struct PerSide {
    /// White's value.
    pub white: bool,
    /// Black's value.
    pub black: bool,
}

/// The answer of `/v1/status`.
#[derive(Debug, Serialize)]
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

/// One game of `/v1/replay`, the fields of `chessref pgn --json` and a few more.
#[derive(Debug, Serialize)]
pub struct ReplayGame {
    /// 1-based index of the game in the PGN.
    pub index: usize,
    /// Plies accepted.
    pub plies: usize,
    /// FEN of the last position reached.
    pub fen: Option<String>,
    /// State hex of the last position reached.
    pub hex: Option<String>,
    /// Status name of the last position reached.
    pub status: Option<String>,
    /// The result given by the PGN (tag or movetext), if any.
    pub result: Option<String>,
    /// The result of an automatic end, if the game reached one.
    pub outcome: Option<String>,
    /// Null when every move was legal, else what went wrong (game, ply, SAN).
    pub error: Option<String>,
    /// Section 6 code of the first illegal move, when one applies.
    pub code: Option<u8>,
    /// Which engine replayed the game: `"rust"` or `"evm"`.
    pub engine: &'static str,
}

/// The answer of `/v1/replay`.
#[derive(Debug, Serialize)]
pub struct ReplayResponse {
    /// Games read.
    pub count: usize,
    /// Games with an error.
    pub failed: usize,
    /// One entry per game, in order.
    pub games: Vec<ReplayGame>,
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
