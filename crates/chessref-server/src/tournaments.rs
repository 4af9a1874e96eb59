//! The knockout endpoints, reading a `chessref index` database (docs/INDEX.md):
//! `GET /v1/tournaments` (a page of events, newest first) and `GET /v1/tournaments/{id}`
//! (one event: its entrants, bracket, prizes and standings). Without an index they answer
//! 404 `no_index`, as the game endpoints do.

#[cfg(feature = "index")]
pub use with_index::{tournament, tournaments};

#[cfg(not(feature = "index"))]
pub use without_index::{tournament, tournaments};

#[cfg(not(feature = "index"))]
mod without_index {
    use crate::error::ApiError;

    /// `GET /v1/tournaments`: this build has no index support.
    pub async fn tournaments() -> ApiError {
        ApiError::NoIndex
    }

    /// `GET /v1/tournaments/{id}`: this build has no index support.
    pub async fn tournament() -> ApiError {
        ApiError::NoIndex
    }
}

#[cfg(feature = "index")]
mod with_index {
    use alloy_primitives::U256;
    use axum::Json;
    use axum::extract::{Path, RawQuery, State};
    use chessref_index::tournament::{TournamentFilter, TournamentList, TournamentView};

    use crate::AppState;
    use crate::error::ApiError;
    use crate::games::{index_of, page_number, player_address, query_pairs, with_reader};

    /// Largest page.
    const MAX_LIMIT: u32 = 100;
    /// Page size when `limit` is not given.
    const DEFAULT_LIMIT: u32 = 50;

    /// An event id: a uint256 in decimal.
    fn event_id(text: &str) -> Result<U256, ApiError> {
        if text.is_empty() || text.len() > 78 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ApiError::BadTournamentId(text.to_owned()));
        }
        U256::from_str_radix(text, 10).map_err(|_| ApiError::BadTournamentId(text.to_owned()))
    }

    fn list_query(query: Option<&str>) -> Result<TournamentFilter, ApiError> {
        let mut filter = TournamentFilter {
            status: None,
            player: None,
            limit: DEFAULT_LIMIT,
            before: None,
        };
        for (key, value) in query_pairs(query)? {
            match key.as_str() {
                "status" => filter.status = Some(value.parse().map_err(ApiError::BadQuery)?),
                "player" => {
                    filter.player = Some(player_address(&value).map_err(|_| {
                        ApiError::BadQuery(format!(
                            "player {value:?} is not 0x followed by 40 hex digits"
                        ))
                    })?)
                }
                "limit" => {
                    filter.limit = page_number("limit", &value, MAX_LIMIT)
                        .ok()
                        .filter(|n| *n >= 1)
                        .ok_or_else(|| {
                            ApiError::BadQuery(format!(
                                "limit {value:?} is not an integer 1..={MAX_LIMIT}"
                            ))
                        })?
                }
                "before" => {
                    filter.before = Some(event_id(&value).map_err(|_| {
                        ApiError::BadQuery(format!("before {value:?} is not an event id"))
                    })?)
                }
                other => {
                    return Err(ApiError::BadQuery(format!(
                        "unknown query parameter {other:?} (accepted: status, player, limit, \
                         before)"
                    )));
                }
            }
        }
        Ok(filter)
    }

    /// `GET /v1/tournaments?status=&player=&limit=&before=`: events newest first, a page
    /// at a time (`next` is the `before` of the next page).
    pub async fn tournaments(
        State(state): State<AppState>,
        RawQuery(query): RawQuery,
    ) -> Result<Json<TournamentList>, ApiError> {
        let db = index_of(&state)?;
        let filter = list_query(query.as_deref())?;
        Ok(Json(
            with_reader(db, move |r| r.tournaments(&filter)).await?,
        ))
    }

    /// `GET /v1/tournaments/{id}`: the event in full; 404 `unknown_tournament` when the
    /// index holds no such event.
    pub async fn tournament(
        State(state): State<AppState>,
        Path(id): Path<String>,
        RawQuery(query): RawQuery,
    ) -> Result<Json<TournamentView>, ApiError> {
        let db = index_of(&state)?;
        if query.is_some_and(|q| !q.is_empty()) {
            return Err(ApiError::BadQuery(
                "this endpoint takes no query parameters".into(),
            ));
        }
        let id = event_id(&id)?;
        with_reader(db, move |r| r.tournament(id))
            .await?
            .map(Json)
            .ok_or_else(|| ApiError::UnknownTournament(id.to_string()))
    }
}
