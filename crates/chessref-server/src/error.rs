//! The one error type every endpoint answers with: a 4xx status and a JSON
//! body naming what is wrong, with the ENCODING.md section 6 or 7 code when
//! one applies.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chessref_core::{FenError, GameError, InvalidState, Rejection, SanError, StateError, Status};
use serde::Serialize;

/// A request the server refuses. Every variant but [`ApiError::Internal`] and
/// [`ApiError::IndexUnavailable`] maps to a 4xx status; `IndexUnavailable` (503) is the
/// index file missing or locked, and `Internal` (500) exists only for a bug (a panicked
/// task), never for any input.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The body is not JSON of the expected shape (syntax, types, unknown or missing fields).
    #[error("invalid JSON body: {0}")]
    BadJson(String),
    /// The request has the wrong `Content-Type`.
    #[error("unsupported content type {found:?}: expected {expected}")]
    UnsupportedMediaType {
        /// The `Content-Type` sent (empty when absent).
        found: String,
        /// What the endpoint accepts.
        expected: &'static str,
    },
    /// The body is larger than the endpoint's limit.
    #[error("request body too large: the limit is {limit} bytes")]
    PayloadTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The body could not be read (connection error, bad encoding).
    #[error("cannot read the request body: {0}")]
    BadBody(String),
    /// A query string the endpoint does not accept.
    #[error("invalid query: {0}")]
    BadQuery(String),
    /// Neither or both of `fen` and `state` were given.
    #[error("give exactly one of \"fen\" and \"state\"")]
    PositionChoice,
    /// A FEN that does not parse, or parses into an invalid state (section 7).
    #[error("{0}")]
    BadFen(#[from] FenError),
    /// A state hex that does not decode, or decodes into an invalid state (section 7).
    #[error("{0}")]
    BadState(#[from] StateError),
    /// A move that is not UCI (or SAN where accepted), or a packed move out of the uint24 range.
    #[error("invalid move {input:?}: {reason}")]
    BadMove {
        /// The move as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A move the referee rejects (section 6), at 1-based position `index` of the request's moves.
    #[error("move {index} ({input:?}) is illegal: {rejection} (code {}, {})", .rejection.code(), .rejection.name())]
    IllegalMove {
        /// 1-based position of the move in the request.
        index: usize,
        /// The move as given.
        input: String,
        /// The section 6 rejection.
        rejection: Rejection,
    },
    /// SAN that matches no legal move (it has no single section 6 code).
    #[error("move {index} ({input:?}) is illegal: no legal move matches")]
    NoMatchingMove {
        /// 1-based position of the move in the request.
        index: usize,
        /// The move as given.
        input: String,
    },
    /// SAN that matches several legal moves.
    #[error("move {index} ({input:?}) is ambiguous: matches {candidates}")]
    AmbiguousMove {
        /// 1-based position of the move in the request.
        index: usize,
        /// The move as given.
        input: String,
        /// The matching moves in UCI, comma separated.
        candidates: String,
    },
    /// A move after the game ended automatically (status 1 to 4).
    #[error("move {index} ({input:?}) comes after the game ended ({})", .status.name())]
    GameOver {
        /// 1-based position of the move in the request.
        index: usize,
        /// The move as given.
        input: String,
        /// How the game ended.
        status: Status,
    },
    /// The replay engine asked for is not available in this build.
    #[error("{0}")]
    EngineUnavailable(String),
    /// A bug: a replay task panicked. Never caused by input alone.
    #[error("internal error: {0}")]
    Internal(String),
    /// No route for this path.
    #[error("no such endpoint: {0}")]
    NotFound(String),
    /// The path exists but not for this method.
    #[error("method {0} is not allowed here")]
    MethodNotAllowed(String),
    /// A game endpoint of a server started without an index.
    #[error("no index: start chessref serve with --index PATH")]
    NoIndex,
    /// A game id that is not a uint256 in decimal or `0x` hex.
    #[error("game id {0:?} is not a number below 2^256 (decimal, or 0x and hex digits)")]
    BadGameId(String),
    /// A player address that is not `0x` and 40 hex digits.
    #[error("address {0:?} is not 0x followed by 40 hex digits")]
    BadAddress(String),
    /// A game the index does not hold.
    #[error("unknown game {0}")]
    UnknownGame(String),
    /// A knockout event id that is not a uint256 in decimal.
    #[error("tournament id {0:?} is not a number below 2^256 (decimal digits)")]
    BadTournamentId(String),
    /// A knockout event the index does not hold.
    #[error("unknown tournament {0}")]
    UnknownTournament(String),
    /// The index file is missing, locked or unreadable (503: retry later).
    #[error("{0}")]
    IndexUnavailable(String),
    /// The relay's channel of a game that is not a joined channel game.
    #[error("{0}")]
    NotRelayed(String),
    /// A limit of the server is reached (503: retry later).
    #[error("{0}")]
    Busy(String),
    /// A WebSocket endpoint asked without a valid upgrade: a handshake header missing or
    /// wrong, a plain GET included (400, as RFC 6455 section 4.2.1 answers a bad handshake).
    #[error("this endpoint is a WebSocket: {0}")]
    UpgradeRequired(String),
}

/// The JSON body of every error response (camelCase keys, like every body).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// A stable machine-readable kind, e.g. `"illegal_move"`.
    pub error: &'static str,
    /// A sentence a person understands.
    pub message: String,
    /// The ENCODING.md section 6 (moves) or section 7 (states) code, when one applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<u8>,
    /// The name belonging to `code` (e.g. `"KING_LEFT_IN_CHECK"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// 1-based index of the offending move in the request, when a move is at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
}

impl ApiError {
    /// The HTTP status of this error (4xx; 503 for an unavailable index, 500 for a bug).
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadJson(_)
            | ApiError::BadBody(_)
            | ApiError::BadQuery(_)
            | ApiError::PositionChoice
            | ApiError::BadFen(_)
            | ApiError::BadState(_)
            | ApiError::BadMove { .. }
            | ApiError::BadGameId(_)
            | ApiError::BadTournamentId(_)
            | ApiError::UpgradeRequired(_)
            | ApiError::BadAddress(_)
            | ApiError::EngineUnavailable(_) => StatusCode::BAD_REQUEST,
            ApiError::UnsupportedMediaType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::IllegalMove { .. }
            | ApiError::NoMatchingMove { .. }
            | ApiError::AmbiguousMove { .. }
            | ApiError::GameOver { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::NotFound(_)
            | ApiError::NoIndex
            | ApiError::UnknownGame(_)
            | ApiError::UnknownTournament(_) => StatusCode::NOT_FOUND,
            ApiError::IndexUnavailable(_) | ApiError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::NotRelayed(_) => StatusCode::CONFLICT,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The stable kind string of the JSON body.
    pub fn kind(&self) -> &'static str {
        match self {
            ApiError::BadJson(_) => "bad_json",
            ApiError::UnsupportedMediaType { .. } => "unsupported_media_type",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::BadBody(_) => "bad_body",
            ApiError::BadQuery(_) => "bad_query",
            ApiError::PositionChoice => "bad_position_choice",
            ApiError::BadFen(_) => "bad_fen",
            ApiError::BadState(_) => "bad_state",
            ApiError::BadMove { .. } => "bad_move",
            ApiError::IllegalMove { .. } => "illegal_move",
            ApiError::NoMatchingMove { .. } => "illegal_move",
            ApiError::AmbiguousMove { .. } => "ambiguous_move",
            ApiError::GameOver { .. } => "game_over",
            ApiError::EngineUnavailable(_) => "engine_unavailable",
            ApiError::NotFound(_) => "not_found",
            ApiError::MethodNotAllowed(_) => "method_not_allowed",
            ApiError::Internal(_) => "internal",
            ApiError::NoIndex => "no_index",
            ApiError::BadGameId(_) => "bad_game_id",
            ApiError::BadAddress(_) => "bad_address",
            ApiError::UnknownGame(_) => "unknown_game",
            ApiError::BadTournamentId(_) => "bad_tournament_id",
            ApiError::UnknownTournament(_) => "unknown_tournament",
            ApiError::IndexUnavailable(_) => "index_unavailable",
            ApiError::NotRelayed(_) => "not_relayed",
            ApiError::Busy(_) => "busy",
            ApiError::UpgradeRequired(_) => "upgrade_required",
        }
    }

    /// The JSON body of this error.
    pub fn body(&self) -> ErrorBody {
        let invalid = |i: &InvalidState| (Some(i.code()), Some(i.name()));
        let (code, reason) = match self {
            ApiError::BadFen(FenError::Invalid(i)) | ApiError::BadState(StateError::Invalid(i)) => {
                invalid(i)
            }
            ApiError::IllegalMove { rejection, .. } => {
                (Some(rejection.code()), Some(rejection.name()))
            }
            _ => (None, None),
        };
        let index = match self {
            ApiError::IllegalMove { index, .. }
            | ApiError::NoMatchingMove { index, .. }
            | ApiError::AmbiguousMove { index, .. }
            | ApiError::GameOver { index, .. } => Some(*index),
            _ => None,
        };
        ErrorBody {
            error: self.kind(),
            message: self.to_string(),
            code,
            reason,
            index,
        }
    }

    /// The error for move text `input` at 1-based `index` that `State::parse_move` refused.
    pub fn from_san(index: usize, input: &str, err: SanError) -> ApiError {
        let input = input.to_owned();
        match err {
            SanError::Syntax { reason, .. } => ApiError::BadMove {
                input,
                reason: reason.to_owned(),
            },
            SanError::Illegal { .. } => ApiError::NoMatchingMove { index, input },
            SanError::Rejected { rejection, .. } => ApiError::IllegalMove {
                index,
                input,
                rejection,
            },
            SanError::Ambiguous { candidates, .. } => ApiError::AmbiguousMove {
                index,
                input,
                candidates: candidates
                    .iter()
                    .map(|m| m.to_uci())
                    .collect::<Vec<_>>()
                    .join(", "),
            },
        }
    }

    /// The error for move `input` at 1-based `index` that `Game::play` refused.
    pub fn from_game(index: usize, input: &str, err: GameError) -> ApiError {
        let input = input.to_owned();
        match err {
            GameError::Over { status, .. } => ApiError::GameOver {
                index,
                input,
                status,
            },
            GameError::Illegal(rejection) => ApiError::IllegalMove {
                index,
                input,
                rejection,
            },
            GameError::San(e) => ApiError::from_san(index, &input, e),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status(), axum::Json(self.body())).into_response()
    }
}
