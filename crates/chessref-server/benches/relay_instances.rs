//! The relay on Postgres, one server against two (issue 30's load test; docs/OPERATIONS.md
//! "Several instances: the load test"): a throwaway Postgres, anvil with channel games
//! joined, the indexer writing the database, and in-process servers on it.
//! `CHESSREF_INSTANCES_GAMES` games (default 200) are played at once in each of three
//! layouts, fresh games each:
//!
//! - one server: both players of every game on it;
//! - two servers, games split: each game's players on one server, half the games on each
//!   (what a balancer that keeps a game's connections together gives);
//! - two servers, players split: every game's white on one, black on the other (what a
//!   round-robin balancer gives at worst: every message crosses to the other server
//!   through the database's NOTIFY).
//!
//! In each: throughput (each game sends its next message the moment the last arrived,
//! `CHESSREF_INSTANCES_PLIES` plies with receipts, default 20), then latency at one
//! offered rate for all three (`CHESSREF_INSTANCES_RATE` messages a second, default half
//! the one server's throughput): a move's time from its send to the opponent's socket.
//! Every socket checks it gets each message once and in order, and the database is read
//! at the end: every game's messages numbered 1..N once, N the messages sent.
//!
//! The clients, the servers, Postgres and anvil share this machine's cores.
//!
//! Run: `cargo bench -p chessref-server --features index --bench relay_instances`.

#[path = "../tests/common/channel.rs"]
mod channel;
#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/common/players.rs"]
mod players;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use channel::{Chain, now, runtime};
use chessref_channel::Frame;
use chessref_channel::book::frames_of;
use chessref_channel::client::OffChainGame;
use chessref_index::db::DbTarget;
use chessref_pgtest::TempPostgres;
use chessref_server::Config;
use common::TestServer;
use players::{Players, ms, percentile, round, sign};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Where each game's two players connect.
#[derive(Clone, Copy, Debug)]
enum Layout {
    OneServer,
    GamesSplit,
    PlayersSplit,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::OneServer => "one server",
            Layout::GamesSplit => "two servers, games split",
            Layout::PlayersSplit => "two servers, players split",
        }
    }

    /// White's and black's server for game `i`.
    fn seats(self, i: usize, servers: &[SocketAddr; 2]) -> (SocketAddr, SocketAddr) {
        match self {
            Layout::OneServer => (servers[0], servers[0]),
            Layout::GamesSplit => (servers[i % 2], servers[i % 2]),
            Layout::PlayersSplit => (servers[i % 2], servers[(i + 1) % 2]),
        }
    }
}

/// One layout's figures.
struct Figures {
    throughput: f64,
    saturated_p99: Duration,
    offered: f64,
    achieved: f64,
    p50: Duration,
    p99: Duration,
    max: Duration,
    moves: usize,
}

/// Plays `seats`' games in `layout` on `servers`: throughput, then latency at `rate`
/// (`None`: half the throughput just measured). Checks the database holds every
/// message once.
async fn run(
    layout: Layout,
    servers: &[SocketAddr; 2],
    mut seats: Vec<OffChainGame>,
    plies: usize,
    rate: Option<f64>,
    target: &DbTarget,
) -> Figures {
    let games = seats.len();
    let at = now() + 30;
    let mut seeds: Vec<u64> = (1..=games as u64).collect();
    let delegations: Vec<Frame> = seats
        .iter()
        .map(|g| frames_of(&g.transcript()).remove(0))
        .collect();
    let frames: Vec<Vec<Frame>> = seats
        .iter_mut()
        .zip(&mut seeds)
        .map(|(g, seed)| sign(g, plies, seed, |_| at))
        .collect();
    let mut joins = Vec::new();
    for (i, delegation) in delegations.into_iter().enumerate() {
        let (white, black) = layout.seats(i, servers);
        let id = seats[i].game.game_id;
        joins.push(tokio::spawn(async move {
            Players::join(white, black, id, &delegation).await
        }));
    }
    let mut players = Vec::new();
    for join in joins {
        players.push(join.await.expect("a join"));
    }
    let (players, sent, elapsed, saturated) = round(players, frames, None).await;
    let throughput = sent as f64 / elapsed.as_secs_f64();
    let rate = rate.unwrap_or(throughput / 2.0);
    // Two messages a ply: each game's moves `2 * games / rate` seconds apart.
    let every = Duration::from_secs_f64(2.0 * games as f64 / rate);
    let start = (now() + 15).max(at);
    let frames: Vec<Vec<Frame>> = seats
        .iter_mut()
        .zip(&mut seeds)
        .map(|(g, seed)| sign(g, plies, seed, |k| start + (every * k as u32).as_secs()))
        .collect();
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970");
    let first = Instant::now() + Duration::from_secs(start).saturating_sub(unix);
    let (players, paced, elapsed, latencies) = round(players, frames, Some((first, every))).await;
    let expected: Vec<(alloy_primitives::U256, u64)> = seats
        .iter()
        .zip(&players)
        .map(|(g, p)| (g.game.game_id, p.seq))
        .collect();
    drop(players);
    let target = target.clone();
    tokio::task::spawn_blocking(move || players::stored_once(&target, &expected))
        .await
        .expect("the store check");
    Figures {
        throughput,
        saturated_p99: percentile(&saturated, 0.99),
        offered: rate,
        achieved: paced as f64 / elapsed.as_secs_f64(),
        p50: percentile(&latencies, 0.5),
        p99: percentile(&latencies, 0.99),
        max: *latencies.last().expect("moves"),
        moves: latencies.len(),
    }
}

fn main() {
    let games = env_usize("CHESSREF_INSTANCES_GAMES", 200).max(2);
    let plies = env_usize("CHESSREF_INSTANCES_PLIES", 20).max(2);
    let rate: Option<f64> = std::env::var("CHESSREF_INSTANCES_RATE")
        .ok()
        .and_then(|v| v.parse().ok());
    let pg = TempPostgres::start().expect("a throwaway Postgres (Debian's postgresql)");
    let target: DbTarget = pg.url().parse().expect("its URL");
    let layouts = [Layout::OneServer, Layout::GamesSplit, Layout::PlayersSplit];
    let setting_up = Instant::now();
    let mut chain = Chain::start_on(
        "instances",
        games * layouts.len(),
        Duration::from_millis(250),
        Some(target.clone()),
    );
    let mut seats: Vec<OffChainGame> = (0..games * layouts.len())
        .map(|i| chain.off_chain(i))
        .collect();
    println!(
        "{} games opened and joined on anvil, indexed into Postgres, in {:.1} s",
        seats.len(),
        setting_up.elapsed().as_secs_f64()
    );
    let rt = runtime();
    rt.block_on(async {
        let relay = chessref_server::relay::RelayLimits {
            frames_per_second: 1_000_000,
            ..Default::default()
        };
        let config = Config {
            index: Some(target.clone()),
            relay,
            ..Config::default()
        };
        let a = TestServer::start(config.clone()).await;
        let b = TestServer::start(config).await;
        let servers = [a.addr, b.addr];
        let mut rate = rate;
        println!(
            "| {games} games, {plies} plies each with receipts | throughput (saturating) | p99 then | offered | achieved | median | p99 | max |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        for layout in layouts {
            let these: Vec<OffChainGame> = seats.drain(..games).collect();
            let f = run(layout, &servers, these, plies, rate, &target).await;
            // The one server's half throughput is every layout's offered rate.
            rate.get_or_insert(f.offered);
            println!(
                "| {} | {:.0} msg/s | {:.1} ms | {:.0} msg/s | {:.0} msg/s | {:.2} ms | {:.2} ms | {:.2} ms ({} moves) |",
                layout.name(),
                f.throughput,
                ms(f.saturated_p99),
                f.offered,
                f.achieved,
                ms(f.p50),
                ms(f.p99),
                ms(f.max),
                f.moves,
            );
        }
        println!("every socket got every message once, in order; the database holds each once");
        a.shutdown().await;
        b.shutdown().await;
    });
    chain.stop.store(true, std::sync::atomic::Ordering::Relaxed);
}
