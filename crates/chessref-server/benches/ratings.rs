//! The ratings' endpoints on a big index (README, "Performance"; issue 30): an index of
//! `CHESSREF_RATINGS_GAMES` finished games (default 100,000) among
//! `CHESSREF_RATINGS_PLAYERS` players (default 5,000), written through the store's real
//! write path (`Store::commit`: each game's `GameCreated`, `GameJoined` and `GameEnded`
//! decoded, folded and checked, 2% of them aborted), then served by the server
//! in-process on 127.0.0.1: `GET /v1/players/{address}` of random players and
//! `GET /v1/players?order=rating&limit=50` at random pages, `CHESSREF_RATINGS_REQUESTS`
//! each (default 1,000) over `CHESSREF_RATINGS_CONNECTIONS` keep-alive connections
//! (default 4). Prints the indexing rate, what rebuilding the kept ratings from every
//! rated game costs, and each endpoint's p50, p99 and max.
//!
//! ```sh
//! cargo bench -p chessref-server --features index --bench ratings
//! ```

#[path = "common/latency.rs"]
mod latency;
#[path = "../../chessref-index/tests/common/synthetic.rs"]
mod synthetic;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use chessref_index::db::SqliteRef;
use chessref_index::{Source, Store};
use chessref_server::Config;
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One keep-alive connection sending a GET of each of `paths`; returns each latency.
async fn client(addr: SocketAddr, paths: Vec<String>) -> Vec<Duration> {
    let stream = TcpStream::connect(addr)
        .await
        .expect("connect to the bench server");
    stream.set_nodelay(true).expect("nodelay");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(conn);
    let mut latencies = Vec::with_capacity(paths.len());
    for path in paths {
        let req = Request::get(&path)
            .header("host", addr.to_string())
            .body(Empty::<Bytes>::new())
            .expect("request");
        let start = Instant::now();
        sender.ready().await.expect("connection ready");
        let resp = sender.send_request(req).await.expect("response");
        let status = resp.status();
        let body = resp.into_body().collect().await.expect("body").to_bytes();
        assert!(
            status.is_success(),
            "{path}: {status} {}",
            String::from_utf8_lossy(&body)
        );
        latencies.push(start.elapsed());
    }
    latencies
}

/// Sends `paths` over `connections` connections at once; prints the latencies.
async fn run(addr: SocketAddr, name: &str, paths: Vec<String>, connections: usize) {
    let mut shares: Vec<Vec<String>> = vec![Vec::new(); connections];
    for (i, path) in paths.into_iter().enumerate() {
        shares[i % connections].push(path);
    }
    let f = latency::measure(
        shares
            .into_iter()
            .map(|share| client(addr, share))
            .collect(),
    )
    .await;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "| {name} | {} requests, {connections} connections | {:.0} req/s | p50 {:.2} ms | p99 {:.2} ms | max {:.2} ms |",
        f.requests,
        f.rate,
        ms(f.p50),
        ms(f.p99),
        ms(f.max),
    );
}

fn main() {
    let games = env_u64("CHESSREF_RATINGS_GAMES", 100_000);
    let players = env_u64("CHESSREF_RATINGS_PLAYERS", 5_000).max(2);
    let requests = env_u64("CHESSREF_RATINGS_REQUESTS", 1_000);
    let connections = env_u64("CHESSREF_RATINGS_CONNECTIONS", 4).max(1) as usize;

    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("ratings.sqlite");
    let chain = synthetic::finished_games(games, players, 50, 30);
    let started = Instant::now();
    {
        let mut store = Store::open(&path).expect("open the index");
        store
            .bind(Source {
                chain_id: 31337,
                referee: Address::repeat_byte(0x30),
                from_block: chain.first,
            })
            .expect("bind");
        let last = chain.next_number() - 1;
        let mut from = chain.first;
        while from <= last {
            let to = (from + 199).min(last);
            store.commit(&chain.batch(from, to, to)).expect("commit");
            from = to + 1;
        }
    }
    let indexing = started.elapsed().as_secs_f64();
    let rated = {
        let conn = rusqlite::Connection::open(&path).expect("reopen the index");
        let divergences: i64 = conn
            .query_row("SELECT count(*) FROM divergences", [], |r| r.get(0))
            .expect("count divergences");
        assert_eq!(divergences, 0, "the synthetic games follow the rules");
        let rated = chessref_index::ratings::rated_games(&mut SqliteRef::new("bench", &conn))
            .expect("the rated games")
            .len();
        // What a rebuild of the kept tables costs (a lying chain's case), not kept.
        let tx = conn.unchecked_transaction().expect("a transaction");
        let rebuilding = Instant::now();
        chessref_index::ratings::rebuild(&mut SqliteRef::new("bench", &tx))
            .expect("rebuild the kept ratings");
        println!(
            "rebuilding the kept ratings from every rated game: {:.0} ms",
            rebuilding.elapsed().as_secs_f64() * 1e3
        );
        drop(tx);
        rated
    };
    println!(
        "{games} finished games ({rated} rated) among {players} players indexed through \
         Store::commit in {indexing:.1} s ({:.0} games/s)\n",
        games as f64 / indexing
    );

    let mut rng = synthetic::Rng(7);
    let player_paths: Vec<String> = (0..requests)
        .map(|_| format!("/v1/players/{}", synthetic::player(rng.below(players))))
        .collect();
    let pages = players.div_ceil(50);
    let board_paths: Vec<String> = (0..requests)
        .map(|_| {
            format!(
                "/v1/players?order=rating&limit=50&offset={}",
                rng.below(pages) * 50
            )
        })
        .collect();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let config = Config {
            index: Some(chessref_index::db::DbTarget::Sqlite(path.clone())),
            ..Config::default()
        };
        let server = tokio::spawn(chessref_server::serve(listener, config, async {
            let _ = stopped.await;
        }));
        // Warm-up: the file's pages in the OS cache, the server's paths taken once.
        client(addr, player_paths.iter().take(5).cloned().collect()).await;
        client(addr, board_paths.iter().take(5).cloned().collect()).await;
        println!("| endpoint | load | rate | p50 | p99 | max |");
        println!("|---|---|---:|---:|---:|---:|");
        run(addr, "`/v1/players/{address}`", player_paths, connections).await;
        run(
            addr,
            "`/v1/players?order=rating&limit=50`",
            board_paths,
            connections,
        )
        .await;
        let _ = stop.send(());
        server.await.expect("server task").expect("server");
    });
}
