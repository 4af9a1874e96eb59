//! The game endpoints, reading a `chessref index` database (docs/INDEX.md):
//! `GET /v1/games` (the lobby), `/v1/games/{id}`, `/v1/games/{id}.pgn` and
//! `/v1/games/{id}/events` (server-sent events), and `GET /v1/players/{address}` (a
//! player's Glicko-2 rating and record, chessref-index's `ratings`). Without an index (no
//! `Config::index`, or a build without the `index` feature) they answer 404 `no_index`.

#[cfg(feature = "index")]
pub(crate) use with_index::{
    READ_CONNECTIONS, game_id, index_of, page_number, player_address, query_pairs, with_reader,
};
#[cfg(feature = "index")]
pub use with_index::{events, game, health, leaderboard, lobby, player};

#[cfg(not(feature = "index"))]
pub use without_index::{events, game, health, leaderboard, lobby, player};

#[cfg(not(feature = "index"))]
mod without_index {
    use crate::error::ApiError;

    /// `GET /v1/games`: this build has no index support.
    pub async fn lobby() -> ApiError {
        ApiError::NoIndex
    }

    /// `GET /v1/games/{id}`: this build has no index support.
    pub async fn game() -> ApiError {
        ApiError::NoIndex
    }

    /// `GET /v1/games/{id}/events`: this build has no index support.
    pub async fn events() -> ApiError {
        ApiError::NoIndex
    }

    /// `GET /v1/players/{address}`: this build has no index support.
    pub async fn player() -> ApiError {
        ApiError::NoIndex
    }

    /// `GET /v1/players`: this build has no index support.
    pub async fn leaderboard() -> ApiError {
        ApiError::NoIndex
    }

    /// `GET /v1/health`: this build has no index support.
    pub async fn health() -> ApiError {
        ApiError::NoIndex
    }
}

#[cfg(feature = "index")]
mod with_index {
    use std::convert::Infallible;
    use std::time::Duration;

    use alloy_primitives::{Address, U256};
    use axum::Json;
    use axum::extract::{Path, RawQuery, State};
    use axum::http::header::CONTENT_TYPE;
    use axum::response::sse::{Event, KeepAlive, Sse};
    use axum::response::{IntoResponse, Response};
    use chessref_index::ratings::{Leaderboard, PlayerView};
    use chessref_index::read::{self, GameView, Lobby, LobbyPage, Reader, StateFilter};
    use std::sync::Arc;

    use crate::feed::Item;
    use futures_util::Stream;
    use serde_json::json;

    use crate::AppState;
    use crate::error::ApiError;

    /// Largest lobby page.
    const MAX_LIMIT: u32 = 500;
    /// Lobby page size when `limit` is not given.
    const DEFAULT_LIMIT: u32 = 50;
    /// A keep-alive comment this often on an idle event stream.
    const KEEP_ALIVE: Duration = Duration::from_secs(15);

    /// The server's index: [`ApiError::NoIndex`] without one.
    pub(crate) fn index_of(state: &AppState) -> Result<read::Index, ApiError> {
        state.index.clone().ok_or(ApiError::NoIndex)
    }

    /// Index reads running at once. Each holds a blocking thread and a connection (a
    /// SQLite file's, or one of the Postgres pool's: [`READ_CONNECTIONS`]): unbounded,
    /// 1,500 event streams opening together grew tokio's blocking pool to hundreds of
    /// threads, each leaving memory the allocator kept (README, the load test).
    static READS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(READS_AT_ONCE);
    const READS_AT_ONCE: usize = 16;

    /// Connections a Postgres index's pool keeps at most: one per read at once, and the
    /// event streams' poller ([`crate::feed`]).
    pub(crate) const READ_CONNECTIONS: u32 = READS_AT_ONCE as u32 + 1;

    /// Runs `f` on a reader of the index (a fresh read-only connection to a SQLite file,
    /// a pooled one to Postgres), off the async threads.
    pub(crate) async fn with_reader<T: Send + 'static>(
        db: read::Index,
        f: impl FnOnce(&mut Reader) -> read::ReadResult<T> + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = READS
            .acquire()
            .await
            .map_err(|e| ApiError::Internal(format!("index reads closed: {e}")))?;
        // The permit goes with the thread: a request given up on still holds it until
        // its read ends.
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            db.reader().and_then(|mut r| f(&mut r))
        })
        .await
        .map_err(|e| ApiError::Internal(format!("index task failed: {e}")))?
        .map_err(|e| ApiError::IndexUnavailable(unavailable(&e)))
    }

    /// What a client is told of an unreadable index: the file's name (or the Postgres
    /// database's), not where the server keeps it.
    fn unavailable(e: &read::Unavailable) -> String {
        let base = std::path::Path::new(&e.path)
            .file_name()
            .map_or_else(|| "the index".into(), |n| n.to_string_lossy().into_owned());
        let name = if e.path.starts_with("postgres://") {
            format!("(Postgres) {base}")
        } else {
            base
        };
        format!(
            "index database {name} is unavailable: {}",
            e.message.replace(&e.path, &name)
        )
    }

    /// A game id: a uint256 in decimal, or in `0x` hex as transcripts write it.
    pub(crate) fn game_id(text: &str) -> Result<U256, ApiError> {
        let bad = || ApiError::BadGameId(text.to_owned());
        let (digits, radix, most) =
            match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                Some(hex) => (hex, 16, 64),
                None => (text, 10, 78),
            };
        if digits.is_empty()
            || digits.len() > most
            || !digits.bytes().all(|b| char::from(b).is_digit(radix))
        {
            return Err(bad());
        }
        U256::from_str_radix(digits, u64::from(radix)).map_err(|_| bad())
    }

    /// Decodes `%XX` escapes and `+` of one query component.
    fn unescape(text: &str) -> Result<String, ApiError> {
        let bytes = text.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'%' => {
                    let hex = text
                        .get(i + 1..i + 3)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .ok_or_else(|| ApiError::BadQuery(format!("bad escape in {text:?}")))?;
                    out.push(hex);
                    i += 3;
                }
                b'+' => {
                    out.push(b' ');
                    i += 1;
                }
                b => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        String::from_utf8(out).map_err(|_| ApiError::BadQuery(format!("{text:?} is not UTF-8")))
    }

    /// The `key=value` pairs of a query, each unescaped.
    pub(crate) fn query_pairs(query: Option<&str>) -> Result<Vec<(String, String)>, ApiError> {
        query
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|pair| {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                Ok((unescape(key)?, unescape(value)?))
            })
            .collect()
    }

    /// A page bound: an integer `0..=max`.
    pub(crate) fn page_number(key: &str, value: &str, max: u32) -> Result<u32, ApiError> {
        value
            .parse::<u32>()
            .ok()
            .filter(|n| *n <= max)
            .ok_or_else(|| {
                ApiError::BadQuery(format!("{key} {value:?} is not an integer 0..={max}"))
            })
    }

    fn lobby_query(query: Option<&str>) -> Result<Lobby, ApiError> {
        let mut lobby = Lobby {
            state: None,
            player: None,
            limit: DEFAULT_LIMIT,
            offset: 0,
        };
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (key, value) = (unescape(key)?, unescape(value)?);
            match key.as_str() {
                "state" => {
                    lobby.state = Some(value.parse::<StateFilter>().map_err(ApiError::BadQuery)?)
                }
                "player" => {
                    lobby.player = Some(value.trim().parse::<Address>().map_err(|e| {
                        ApiError::BadQuery(format!("player {value:?} is not an address: {e}"))
                    })?)
                }
                "limit" => lobby.limit = page_number("limit", &value, MAX_LIMIT)?,
                "offset" => lobby.offset = page_number("offset", &value, u32::MAX)?,
                other => {
                    return Err(ApiError::BadQuery(format!(
                        "unknown query parameter {other:?} (accepted: state, player, limit, offset)"
                    )));
                }
            }
        }
        Ok(lobby)
    }

    /// `GET /v1/games?state=open|running|ended&player=ADDR&limit=&offset=`.
    pub async fn lobby(
        State(state): State<AppState>,
        RawQuery(query): RawQuery,
    ) -> Result<Json<LobbyPage>, ApiError> {
        let db = index_of(&state)?;
        let query = lobby_query(query.as_deref())?;
        Ok(Json(with_reader(db, move |r| r.lobby(&query)).await?))
    }

    /// `GET /v1/players?order=rating&limit=&offset=`: the rated players by rating,
    /// highest first, a page at a time (the lobby's page bounds).
    pub async fn leaderboard(
        State(state): State<AppState>,
        RawQuery(query): RawQuery,
    ) -> Result<Json<Leaderboard>, ApiError> {
        let db = index_of(&state)?;
        let (mut limit, mut offset) = (DEFAULT_LIMIT, 0);
        for pair in query
            .as_deref()
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (key, value) = (unescape(key)?, unescape(value)?);
            match key.as_str() {
                // The one order there is, named so that another can be added.
                "order" if value == "rating" => {}
                "order" => {
                    return Err(ApiError::BadQuery(format!(
                        "order {value:?} is not rating (the only order)"
                    )));
                }
                "limit" => limit = page_number("limit", &value, MAX_LIMIT)?,
                "offset" => offset = page_number("offset", &value, u32::MAX)?,
                other => {
                    return Err(ApiError::BadQuery(format!(
                        "unknown query parameter {other:?} (accepted: order, limit, offset)"
                    )));
                }
            }
        }
        Ok(Json(
            with_reader(db, move |r| r.leaderboard(limit, offset)).await?,
        ))
    }

    /// A player's address: exactly `0x` and 40 hex digits (any case; the checksum is
    /// not required).
    pub(crate) fn player_address(text: &str) -> Result<Address, ApiError> {
        let bad = || ApiError::BadAddress(text.to_owned());
        let digits = text.strip_prefix("0x").ok_or_else(bad)?;
        if digits.len() != 40 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        digits.parse::<Address>().map_err(|_| bad())
    }

    /// `GET /v1/players/{address}`: the player's Glicko-2 rating, deviation and
    /// volatility and their rated games, wins, draws and losses, from the index's final
    /// ended games; a player without a rated game has the initial rating (1500, 350,
    /// 0.06) and zeros.
    /// `GET /v1/health`: how fresh the index is (`headAge`: seconds since the indexer
    /// last heard its node), so a front end can tell a stalled index from a quiet chain.
    pub async fn health(
        State(state): State<AppState>,
        RawQuery(query): RawQuery,
    ) -> Result<Json<Health>, ApiError> {
        let db = index_of(&state)?;
        if query.is_some_and(|q| !q.is_empty()) {
            return Err(ApiError::BadQuery(
                "this endpoint takes no query parameters".into(),
            ));
        }
        let index = with_reader(db, |r| r.health()).await?;
        Ok(Json(Health {
            index,
            event_streams: state.feed.as_ref().map_or(0, |f| f.open_streams()),
            relayed_games: state.relay.as_ref().map_or(0, |r| r.open_rooms()),
        }))
    }

    /// `GET /v1/health`: the index's freshness and what the server holds.
    #[derive(Debug, serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Health {
        /// The index.
        #[serde(flatten)]
        index: read::Health,
        /// Event streams open now.
        event_streams: usize,
        /// Channel games with a relay connection now (their rooms in memory).
        relayed_games: usize,
    }

    pub async fn player(
        State(state): State<AppState>,
        Path(address): Path<String>,
        RawQuery(query): RawQuery,
    ) -> Result<Json<PlayerView>, ApiError> {
        let db = index_of(&state)?;
        if query.is_some_and(|q| !q.is_empty()) {
            return Err(ApiError::BadQuery(
                "this endpoint takes no query parameters".into(),
            ));
        }
        let address = player_address(&address)?;
        Ok(Json(with_reader(db, move |r| r.player(address)).await?))
    }

    async fn game_view(db: read::Index, id: U256) -> Result<(GameView, String), ApiError> {
        let (game, site) = with_reader(db, move |r| Ok((r.game(id)?, r.site()?))).await?;
        game.map(|g| (g, site))
            .ok_or_else(|| ApiError::UnknownGame(id.to_string()))
    }

    /// `GET /v1/games/{id}` (JSON) and `GET /v1/games/{id}.pgn` (PGN).
    pub async fn game(
        State(state): State<AppState>,
        Path(id): Path<String>,
        RawQuery(query): RawQuery,
    ) -> Result<Response, ApiError> {
        let db = index_of(&state)?;
        if query.is_some_and(|q| !q.is_empty()) {
            return Err(ApiError::BadQuery(
                "this endpoint takes no query parameters".into(),
            ));
        }
        match id.strip_suffix(".pgn") {
            Some(number) => {
                let id = game_id(number)?;
                let (game, site) = game_view(db, id).await?;
                // A channel game's signed moves are the relay's.
                let off_chain = match &state.relay {
                    Some(relay) => relay.off_chain_moves(id).await.unwrap_or_default(),
                    None => Vec::new(),
                };
                let pgn = game.pgn_after(&site, &off_chain);
                Ok(([(CONTENT_TYPE, "application/x-chess-pgn")], pgn).into_response())
            }
            None => Ok(Json(game_view(db, game_id(&id)?).await?.0).into_response()),
        }
    }

    /// `GET /v1/games/{id}/events`: one event per change of the game (move, join, end,
    /// draw offer, finality, rollback), from the changes after `Last-Event-ID` (or after
    /// `?after=SEQ`; by default only new ones): the backlog read once, then what the one
    /// poller of every stream broadcasts ([`crate::feed`]); a keep-alive comment every
    /// 15 s. Bounded in total and per client address (503 `busy` past them).
    pub async fn events(
        State(state): State<AppState>,
        Path(id): Path<String>,
        RawQuery(query): RawQuery,
        client: Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>,
        headers: axum::http::HeaderMap,
    ) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
        let db = index_of(&state)?;
        let id = game_id(&id)?;
        let mut after: Option<i64> = None;
        for pair in query
            .as_deref()
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
        {
            match pair.split_once('=') {
                Some(("after", value)) => {
                    after = Some(value.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(
                        || ApiError::BadQuery(format!("after {value:?} is not a sequence number")),
                    )?)
                }
                _ => {
                    return Err(ApiError::BadQuery(format!(
                        "unknown query parameter {pair:?} (accepted: after)"
                    )));
                }
            }
        }
        if let Some(last) = headers.get("last-event-id") {
            let last = last
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<i64>().ok())
                .filter(|n| *n >= 0);
            after = Some(last.ok_or_else(|| {
                ApiError::BadQuery("Last-Event-ID is not a sequence number".into())
            })?);
        }
        let feed = state.feed.clone().ok_or(ApiError::NoIndex)?;
        let ticket = feed
            .admit(client.map(|c| c.0.0.ip()))
            .map_err(ApiError::Busy)?;
        // Subscribed before the backlog is read: nothing falls between them.
        let rx = feed.subscribe();
        // The game must exist; the stream starts after its last change unless told otherwise.
        let start = with_reader(db.clone(), move |r| {
            Ok((r.game(id)?.is_some(), r.last_change(id)?))
        })
        .await?;
        if !start.0 {
            return Err(ApiError::UnknownGame(id.to_string()));
        }
        let cursor = after.unwrap_or(start.1);
        let (held, over) = backlog(db.clone(), id, cursor).await?;
        let queue: std::collections::VecDeque<Arc<Item>> = held.into_iter().map(Arc::new).collect();
        let ended = over && queue.is_empty();
        let stream = futures_util::stream::unfold(
            (ticket, rx, queue, cursor, ended, db),
            move |(ticket, mut rx, mut queue, mut cursor, mut ended, db)| async move {
                loop {
                    if let Some(item) = queue.pop_front() {
                        cursor = cursor.max(item.seq);
                        ended |= item.last;
                        let event = Event::default()
                            .event(item.kind.clone())
                            .id(item.seq.to_string())
                            .data(item.data.clone());
                        return Some((Ok(event), (ticket, rx, queue, cursor, ended, db)));
                    }
                    if ended {
                        return None;
                    }
                    match rx.recv().await {
                        Ok(item) if item.game == id && item.seq > cursor => queue.push_back(item),
                        Ok(_) => {}
                        // Fell behind the broadcast: what was missed, from the index.
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                            match backlog(db.clone(), id, cursor).await {
                                Ok((items, over)) => {
                                    ended = over && items.is_empty();
                                    queue.extend(items.into_iter().map(Arc::new));
                                }
                                Err(e) => {
                                    ended = true;
                                    let event = Event::default().event("error").data(
                                        json!({"error": e.kind(), "message": e.to_string()})
                                            .to_string(),
                                    );
                                    return Some((
                                        Ok(event),
                                        (ticket, rx, queue, cursor, ended, db),
                                    ));
                                }
                            }
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                    }
                }
            },
        );
        Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive")))
    }

    /// Game `id`'s changes after `cursor`, rendered (the game read once), and whether the
    /// game is over and final.
    async fn backlog(
        db: read::Index,
        id: U256,
        cursor: i64,
    ) -> Result<(Vec<Item>, bool), ApiError> {
        with_reader(db, move |r| {
            let mut changes = Vec::new();
            let mut after = cursor;
            loop {
                let batch = r.changes(id, after)?;
                let Some(last) = batch.last() else { break };
                after = last.seq;
                changes.extend(batch);
            }
            Ok((crate::feed::items(r, id, &changes)?, r.settled(id)?))
        })
        .await
    }
}
