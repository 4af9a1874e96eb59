//! `chessref serve [--addr 127.0.0.1:8080] [--index PATH|postgres://...]`: the HTTP JSON
//! reference checker of `chessref-server`, with the game endpoints and the relay of
//! channel games over an index, until Ctrl-C or SIGTERM.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;

use chessref_index::db::DbTarget;
use chessref_server::feed::EventLimits;
use chessref_server::listen::ConnectionLimits;
use chessref_server::relay::RelayLimits;
use clap::Args as ClapArgs;

use super::CliError;

/// Arguments of `chessref serve`.
#[derive(ClapArgs)]
pub struct Args {
    /// Address to listen on (`127.0.0.1:0` picks a free port, printed on stdout).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Largest JSON request body, in bytes.
    #[arg(long, default_value_t = chessref_server::Config::default().json_limit)]
    json_limit: usize,
    /// Largest PGN body of `POST /v1/replay`, in bytes.
    #[arg(long, default_value_t = chessref_server::Config::default().pgn_limit)]
    pgn_limit: usize,
    /// A `chessref index` database to serve the games of (`GET /v1/games...`) and to keep
    /// the relay's messages in (the indexer's tables are only read):
    /// a SQLite file, or a Postgres database (`postgres://...`, which several servers may
    /// share: their relays forward each other's messages); without it the game endpoints
    /// answer 404.
    #[arg(long, value_name = "PATH|URL")]
    index: Option<DbTarget>,
    /// The relay (`/v1/games/{id}/channel`): largest frame a client may send, bytes.
    #[arg(long, default_value_t = RelayLimits::default().frame_bytes)]
    relay_frame_bytes: usize,
    /// The relay: frames one connection may send per second.
    #[arg(long, default_value_t = RelayLimits::default().frames_per_second)]
    relay_frames_per_second: u32,
    /// The relay: connections to one game at once.
    #[arg(long, default_value_t = RelayLimits::default().connections_per_game)]
    relay_connections_per_game: usize,
    /// The relay: connections at once, all games.
    #[arg(long, default_value_t = RelayLimits::default().connections)]
    relay_connections: usize,
    /// The relay: seconds a connection may stay silent (it answers pings) before it is
    /// closed.
    #[arg(long, default_value_t = RelayLimits::default().idle.as_secs())]
    relay_idle_secs: u64,
    /// Connections open at once; past it a connection gets a 503 and is closed.
    #[arg(long, default_value_t = ConnectionLimits::default().connections)]
    max_connections: usize,
    /// Seconds a client has to send a request's headers (slow clients are closed).
    #[arg(long, default_value_t = ConnectionLimits::default().header_read.as_secs())]
    header_timeout_secs: u64,
    /// Seconds a connection may be silent both ways (also between keep-alive requests).
    #[arg(long, default_value_t = ConnectionLimits::default().idle.as_secs())]
    idle_timeout_secs: u64,
    /// Seconds a request has to be answered (503 otherwise; a stream's headers count).
    #[arg(long, default_value_t = ConnectionLimits::default().request.as_secs())]
    request_timeout_secs: u64,
    /// Event streams (`/v1/games/{id}/events`) open at once.
    #[arg(long, default_value_t = EventLimits::default().streams)]
    max_event_streams: usize,
    /// Event streams open at once from one client address.
    #[arg(long, default_value_t = EventLimits::default().per_client)]
    max_event_streams_per_client: usize,
}

/// Serves until a shutdown signal, then finishes the requests in flight.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .map_err(|e| CliError::Arg(format!("cannot listen on {}: {e}", args.addr)))?;
        let addr = listener.local_addr()?;
        // One line on stdout so scripts using port 0 can read the address.
        let mut out = std::io::stdout();
        writeln!(out, "chessref serve: listening on http://{addr}")?;
        out.flush()?;
        let config = chessref_server::Config {
            json_limit: args.json_limit,
            pgn_limit: args.pgn_limit,
            index: args.index,
            relay: RelayLimits {
                frame_bytes: args.relay_frame_bytes,
                frames_per_second: args.relay_frames_per_second,
                connections_per_game: args.relay_connections_per_game,
                connections: args.relay_connections,
                idle: std::time::Duration::from_secs(args.relay_idle_secs.max(1)),
            },
            events: EventLimits {
                streams: args.max_event_streams,
                per_client: args.max_event_streams_per_client,
            },
            connections: ConnectionLimits {
                connections: args.max_connections.max(1),
                header_read: std::time::Duration::from_secs(args.header_timeout_secs.max(1)),
                idle: std::time::Duration::from_secs(args.idle_timeout_secs.max(1)),
                request: std::time::Duration::from_secs(args.request_timeout_secs.max(1)),
            },
        };
        chessref_server::serve(listener, config, chessref_server::shutdown_signal()).await?;
        eprintln!("chessref serve: stopped");
        Ok(ExitCode::SUCCESS)
    })
}
