//! The endpoint handlers: thin glue from request bodies to chessref-core.

use axum::Json;
use axum::extract::RawQuery;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use chessref_core::{Color, Game, Verdict};

use crate::api::{
    CheckRequest, CheckResponse, Claimable, MoveInfo, MovesResponse, PerSide, PlayRequest,
    PlayResponse, PositionRequest, ReplayResponse, StatusResponse, color_name,
};
use crate::error::ApiError;
use crate::extract::{PgnBody, StrictJson};
use crate::replay::{Engine, replay_rust};

/// `POST /v1/check`.
pub async fn check(
    StrictJson(req): StrictJson<CheckRequest>,
) -> Result<Json<CheckResponse>, ApiError> {
    let state = req.position()?;
    Ok(Json(Verdict::of(&state, req.raw_move()?)))
}

/// `POST /v1/play`.
pub async fn play(
    StrictJson(req): StrictJson<PlayRequest>,
) -> Result<Json<PlayResponse>, ApiError> {
    let mut game = Game::new(req.position()?);
    let mut played = Vec::with_capacity(req.moves.len());
    for (i, text) in req.moves.iter().enumerate() {
        let index = i + 1;
        let before = *game.state();
        let status = game.status();
        if status.is_over() {
            return Err(ApiError::GameOver {
                index,
                input: text.clone(),
                status,
            });
        }
        let mv = before
            .parse_move(text.trim())
            .map_err(|e| ApiError::from_san(index, text, e))?;
        let info = MoveInfo::new(&before, mv);
        game.play(mv)
            .map_err(|e| ApiError::from_game(index, text, e))?;
        played.push(info);
    }
    let state = game.state();
    let status = game.status();
    Ok(Json(PlayResponse {
        fen: state.fen(),
        state: state.to_hex(),
        status: status.name().into(),
        status_code: status.code(),
        in_check: state.in_check(),
        moves: played,
        repetitions: game.repetitions(),
        claimable: Claimable {
            threefold: game.can_claim_threefold(),
            fifty_moves: game.can_claim_fifty_moves(),
        },
        result: game.outcome().map(|o| o.result.to_string()),
    }))
}

/// `POST /v1/moves`.
pub async fn moves(
    StrictJson(req): StrictJson<PositionRequest>,
) -> Result<Json<MovesResponse>, ApiError> {
    let state = req.position()?;
    let dests = state
        .destinations()
        .into_iter()
        .map(|(from, to)| {
            (
                from.to_string(),
                to.iter().map(ToString::to_string).collect(),
            )
        })
        .collect();
    let moves = MoveInfo::all(&state);
    Ok(Json(MovesResponse {
        count: moves.len(),
        moves,
        dests,
    }))
}

/// `POST /v1/status`.
pub async fn status(
    StrictJson(req): StrictJson<PositionRequest>,
) -> Result<Json<StatusResponse>, ApiError> {
    let state = req.position()?;
    let status = state.status();
    Ok(Json(StatusResponse {
        fen: state.fen(),
        state: state.to_hex(),
        status: status.name().into(),
        status_code: status.code(),
        in_check: state.in_check(),
        turn: color_name(state.turn()).into(),
        ply: state.ply(),
        halfmove_clock: state.halfmove_clock(),
        insufficient_material: PerSide {
            white: state.has_insufficient_material(Color::White),
            black: state.has_insufficient_material(Color::Black),
        },
        fifty_moves_claimable: Game::new(state).can_claim_fifty_moves(),
        repetition_key: state.repetition_key().to_string(),
    }))
}

/// The engine named by the query string (`?engine=rust|evm`), Rust by default.
fn engine_from_query(query: Option<&str>) -> Result<Engine, ApiError> {
    let mut engine = Engine::Rust;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if key != "engine" {
            return Err(ApiError::BadQuery(format!(
                "unknown query parameter {key:?} (only \"engine\" is accepted)"
            )));
        }
        engine = Engine::parse(value).ok_or_else(|| {
            ApiError::BadQuery(format!(
                "unknown engine {value:?}: expected \"rust\" or \"evm\""
            ))
        })?;
    }
    Ok(engine)
}

/// `POST /v1/replay`.
pub async fn replay(
    RawQuery(query): RawQuery,
    PgnBody(pgn): PgnBody,
) -> Result<Json<ReplayResponse>, ApiError> {
    let engine = engine_from_query(query.as_deref())?;
    // Replay is CPU work (an EVM per move for `evm`): keep it off the async workers.
    let answer = tokio::task::spawn_blocking(move || match engine {
        Engine::Rust => Ok(replay_rust(&pgn)),
        Engine::Evm => crate::replay::replay_evm(&pgn),
    })
    .await
    .map_err(|e| ApiError::Internal(format!("the replay task failed: {e}")))?;
    answer.map(Json)
}

/// `GET /openapi.json`.
pub async fn openapi() -> impl IntoResponse {
    (
        [(CONTENT_TYPE, "application/json")],
        crate::openapi_document(),
    )
}
