//! HTTP JSON reference checker: the chessref rules (the same codes the
//! `ChessReferee` contract reverts with) behind a small axum service.
//!
//! Endpoints (documented in [`OPENAPI_JSON`], served at `GET /openapi.json`):
//! `POST /v1/check`, `POST /v1/play`, `POST /v1/moves`, `POST /v1/status`,
//! `POST /v1/replay`, and with an index (`Config::index`, the `index` feature)
//! `GET /v1/games`, `/v1/games/{id}`, `/v1/games/{id}.pgn`, `/v1/games/{id}/events`,
//! `/v1/players/{address}` (Glicko-2 ratings), `/v1/tournaments` and
//! `/v1/tournaments/{id}` (knockout events).
//! Every refusal is a 4xx JSON [`ErrorBody`] naming what
//! is wrong, with the ENCODING.md section 6 or 7 code when one applies.
//! Answers carry `Access-Control-Allow-Origin: *` so browser front ends can
//! call the service directly.

pub mod api;
mod cors;
pub mod error;
pub mod extract;
#[cfg(feature = "index")]
pub mod feed;
mod games;
mod handlers;
pub mod listen;
#[cfg(feature = "index")]
pub mod relay;
pub mod replay;
mod tournaments;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, Uri};
use axum::routing::{get, post};
use tokio::net::TcpListener;

pub use error::{ApiError, ErrorBody};

/// The OpenAPI 3 description of this service (hand-written; tested against the router).
/// A server serves [`openapi_document`]: this, narrowed to what its build answers.
pub const OPENAPI_JSON: &str = include_str!("openapi.json");

/// The OpenAPI document this server serves: [`OPENAPI_JSON`], with `/v1/replay`'s
/// `engine` values narrowed to `rust` in a build without the `evm` feature, so that every
/// request the document allows is one this server can answer.
pub fn openapi_document() -> &'static str {
    static DOCUMENT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let mut doc: serde_json::Value =
            serde_json::from_str(OPENAPI_JSON).expect("openapi.json is JSON (tested)");
        if !cfg!(feature = "evm")
            && let Some(parameters) = doc
                .pointer_mut("/paths/~1v1~1replay/post/parameters")
                .and_then(serde_json::Value::as_array_mut)
        {
            for parameter in parameters.iter_mut().filter(|p| p["name"] == "engine") {
                parameter["schema"]["enum"] = serde_json::json!(["rust"]);
            }
        }
        doc.to_string()
    });
    &DOCUMENT
}

/// Limits of one server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Largest JSON body accepted, in bytes.
    pub json_limit: usize,
    /// Largest PGN body accepted by `/v1/replay`, in bytes.
    pub pgn_limit: usize,
    /// The `chessref index` database the game endpoints read and the relay of channel
    /// games writes (a SQLite file, or a Postgres database several servers may share);
    /// `None`: they answer 404 `no_index`.
    #[cfg(feature = "index")]
    pub index: Option<chessref_index::db::DbTarget>,
    /// The relay's limits (with an index).
    #[cfg(feature = "index")]
    pub relay: relay::RelayLimits,
    /// Connections, header, idle and request time limits.
    pub connections: listen::ConnectionLimits,
    /// Event streams in total and per client address (with an index).
    #[cfg(feature = "index")]
    pub events: feed::EventLimits,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            json_limit: 64 * 1024,
            pgn_limit: 2 * 1024 * 1024,
            #[cfg(feature = "index")]
            index: None,
            #[cfg(feature = "index")]
            relay: relay::RelayLimits::default(),
            connections: listen::ConnectionLimits::default(),
            #[cfg(feature = "index")]
            events: feed::EventLimits::default(),
        }
    }
}

/// Shared state of the handlers.
#[derive(Clone, Debug)]
pub struct AppState {
    /// The limits in force.
    pub config: Arc<Config>,
    /// The index the game endpoints read, if any.
    #[cfg(feature = "index")]
    pub index: Option<chessref_index::read::Index>,
    /// The relay of channel games, with an index.
    #[cfg(feature = "index")]
    pub relay: Option<Arc<relay::Relay>>,
    /// The one poller of every event stream, with an index.
    #[cfg(feature = "index")]
    pub feed: Option<Arc<feed::Feed>>,
}

/// The service's router with `config`'s limits.
pub fn router(config: Config) -> Router {
    let request_limit = config.connections.request;
    let json = DefaultBodyLimit::max(config.json_limit);
    let pgn = DefaultBodyLimit::max(config.pgn_limit);
    #[cfg(feature = "index")]
    let index = config
        .index
        .as_ref()
        .map(|target| chessref_index::read::Index::open(target, games::READ_CONNECTIONS));
    let state = AppState {
        #[cfg(feature = "index")]
        relay: config
            .index
            .clone()
            .map(|target| Arc::new(relay::Relay::new(target, config.relay))),
        #[cfg(feature = "index")]
        feed: index
            .clone()
            .map(|index| Arc::new(feed::Feed::new(index, config.events))),
        #[cfg(feature = "index")]
        index,
        config: Arc::new(config),
    };
    let router = Router::new()
        .route("/v1/check", post(handlers::check).layer(json))
        .route("/v1/play", post(handlers::play).layer(json))
        .route("/v1/moves", post(handlers::moves).layer(json))
        .route("/v1/status", post(handlers::status).layer(json))
        .route("/v1/replay", post(handlers::replay).layer(pgn))
        .route("/v1/games", get(games::lobby))
        .route("/v1/games/{id}", get(games::game))
        .route("/v1/games/{id}/events", get(games::events))
        .route("/v1/players", get(games::leaderboard))
        .route("/v1/players/{address}", get(games::player))
        .route("/v1/health", get(games::health))
        .route("/v1/tournaments", get(tournaments::tournaments))
        .route("/v1/tournaments/{id}", get(tournaments::tournament));
    #[cfg(feature = "index")]
    let router = router
        .route("/v1/games/{id}/channel", get(relay::channel))
        .route("/v1/games/{id}/transcript", get(relay::transcript));
    #[cfg(not(feature = "index"))]
    let router = router
        .route(
            "/v1/games/{id}/channel",
            get(|| async { ApiError::NoIndex }),
        )
        .route(
            "/v1/games/{id}/transcript",
            get(|| async { ApiError::NoIndex }),
        );
    router
        .route("/openapi.json", get(handlers::openapi))
        .fallback(|uri: Uri| async move { ApiError::NotFound(uri.path().to_owned()) })
        .method_not_allowed_fallback(|method: Method| async move {
            ApiError::MethodNotAllowed(method.to_string())
        })
        .layer(axum::middleware::from_fn(cors::cors))
        .layer(axum::middleware::from_fn(move |request, next| {
            listen::request_timeout(request_limit, request, next)
        }))
        .with_state(state)
}

/// Serves `config`'s router on `listener` until `shutdown` completes, then
/// finishes the requests in flight and returns.
pub async fn serve<F>(listener: TcpListener, config: Config, shutdown: F) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let limits = config.connections;
    listen::serve(listener, router(config), limits, shutdown).await
}

/// Completes on Ctrl-C (SIGINT) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        // If the handler cannot be installed, never complete on this branch (SIGTERM still works).
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
