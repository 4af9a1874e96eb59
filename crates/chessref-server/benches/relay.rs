//! The relay of channel games, measured on loopback (README, "The relay and the
//! watchtower"): anvil with channel games joined, the indexer, the server in-process,
//! and two WebSocket clients per game signing as players do (black on a session key,
//! every move acknowledged).
//!
//! - latency: from a move sent by one player to its arrival at the other, over one game
//!   of `CHESSREF_RELAY_PLIES` plies (default 80), median and p99, and the median of its
//!   first 20 plies beside its last 20 (a relay whose cost grew with the game would show
//!   it there);
//! - throughput: `CHESSREF_RELAY_GAMES` games (default 16) played at once,
//!   `CHESSREF_RELAY_GAME_PLIES` plies each (default 40) with receipts: messages accepted
//!   (verified, stored, forwarded) per second, and the p99 of a move's latency (signed,
//!   sent, at the opponent's socket) across all of them. The clients sign in this process:
//!   they share the machine's cores with the relay.
//! - memory: the process's resident size before and after those games' rooms are
//!   loaded, per game (clients included: an upper bound).
//!
//! Run: `cargo bench -p chessref-server --features index --bench relay`.

#[path = "../tests/common/channel.rs"]
mod channel;
#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use channel::{Chain, Socket, connect, next, now, runtime, send};
use chessref_channel::book::frames_of;
use chessref_channel::client::OffChainGame;
use chessref_channel::{Frame, RelayFrame};
use chessref_core::{Move, State};
use chessref_server::Config;
use common::TestServer;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Resident memory of this process, KiB (Linux).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// A deterministic legal move of `state` (`None`: the game is over).
fn pick_in(state: &State, seed: &mut u64) -> Option<Move> {
    if state.status().code() != 0 {
        return None;
    }
    let mut moves = state.legal_moves();
    moves.sort_by_key(|m| m.to_uci());
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (!moves.is_empty()).then(|| moves[(*seed >> 33) as usize % moves.len()])
}

/// [`pick_in`] the position after `g`'s latest move.
fn pick(g: &OffChainGame, seed: &mut u64) -> Option<Move> {
    pick_in(&State::from_bytes(&g.last().state).ok()?, seed)
}

/// A seed from `from` on whose game (as [`pick`] plays it from the initial position)
/// lasts at least `plies` plies, or the longest of the first thousand.
fn long_seed(from: u64, plies: usize) -> u64 {
    let length = |seed: u64| {
        let (mut state, mut seed, mut n) = (State::initial(), seed, 0);
        while n < plies
            && let Some(mv) = pick_in(&state, &mut seed)
        {
            state = state.play(mv).expect("a legal move");
            n += 1;
        }
        n
    };
    (from..from + 1_000)
        .max_by_key(|&seed| (length(seed), std::cmp::Reverse(seed)))
        .expect("seeds")
}

/// Reads `socket` until the message numbered `seq` arrives.
async fn until(socket: &mut Socket, seq: u64) {
    loop {
        match next(socket).await {
            RelayFrame::Message { seq: got, .. } if got >= seq => return,
            RelayFrame::Refused { reason, .. } => panic!("refused: {reason}"),
            _ => {}
        }
    }
}

/// Plays up to `plies` plies of `g` between `white` and `black`, each move acknowledged;
/// the move latencies and the number of messages.
async fn play(
    g: &mut OffChainGame,
    white: &mut Socket,
    black: &mut Socket,
    plies: usize,
    seed: u64,
) -> (Vec<Duration>, u64) {
    let mut seed = seed;
    let mut latencies = Vec::new();
    let mut seq = 0;
    let delegation = frames_of(&g.transcript()).remove(0);
    send(black, &delegation).await;
    seq += 1;
    until(white, seq).await;
    until(black, seq).await;
    for ply in 0..plies {
        let Some(mv) = pick(g, &mut seed) else { break };
        // Sign-to-socket: from before the move is signed to its arrival, less the
        // bench's own making of the frame from the whole transcript.
        let signing = Instant::now();
        g.play(mv, now()).expect("a legal move");
        let signed = signing.elapsed();
        let frame: Frame = frames_of(&g.transcript()).pop().expect("the move");
        let sent = Instant::now();
        let (mover, other) = if ply % 2 == 0 {
            (&mut *white, &mut *black)
        } else {
            (&mut *black, &mut *white)
        };
        send(mover, &frame).await;
        seq += 1;
        until(other, seq).await;
        latencies.push(signed + sent.elapsed());
        until(mover, seq).await;
        g.receipt(now()).expect("signing");
        let receipt = frames_of(&g.transcript()).pop().expect("the receipt");
        send(other, &receipt).await;
        seq += 1;
        until(other, seq).await;
        until(mover, seq).await;
    }
    (latencies, seq)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let plies = env_usize("CHESSREF_RELAY_PLIES", 80);
    let games = env_usize("CHESSREF_RELAY_GAMES", 16).max(1);
    let game_plies = env_usize("CHESSREF_RELAY_GAME_PLIES", 40);
    let mut chain = Chain::start("bench", games + 1);
    // The seats read the chain through its own runtime: before entering the bench's.
    let mut seats: Vec<OffChainGame> = (0..=games).map(|i| chain.off_chain(i)).collect();
    let ids = chain.ids.clone();
    let rt = runtime();
    rt.block_on(async {
        // The per-connection rate limit (20 frames/s by default) is for people; the bench
        // plays as fast as the relay answers.
        let relay = chessref_server::relay::RelayLimits {
            frames_per_second: 1_000_000,
            ..Default::default()
        };
        let server = TestServer::start(Config {
            index: Some(chain.db.clone()),
            relay,
            ..Config::default()
        })
        .await;

        // Latency over one game.
        let id = ids[0];
        let mut g = seats.remove(0);
        let (mut white, _) = connect(server.addr, id, "").await;
        let (mut black, _) = connect(server.addr, id, "").await;
        let seed = long_seed(7, plies);
        let (mut latencies, _) = play(&mut g, &mut white, &mut black, plies, seed).await;
        let median = |d: &[Duration]| {
            let mut d = d.to_vec();
            d.sort();
            percentile(&d, 0.5).as_secs_f64() * 1e3
        };
        let bucket = 20.min(latencies.len());
        println!(
            "relay latency by ply: plies 1-{bucket} median {:.2} ms, plies {}-{} median {:.2} ms",
            median(&latencies[..bucket]),
            latencies.len() - bucket + 1,
            latencies.len(),
            median(&latencies[latencies.len() - bucket..]),
        );
        latencies.sort();
        println!(
            "relay latency, move signed to the opponent's socket, {} plies: median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            latencies.len(),
            percentile(&latencies, 0.5).as_secs_f64() * 1e3,
            percentile(&latencies, 0.99).as_secs_f64() * 1e3,
            latencies.last().expect("moves").as_secs_f64() * 1e3,
        );

        // Throughput and memory: `games` games at once.
        let before = rss_kib();
        let mut tasks = Vec::new();
        let started = Instant::now();
        for (i, mut g) in seats.into_iter().enumerate() {
            let id = ids[i + 1];
            let addr = server.addr;
            tasks.push(tokio::spawn(async move {
                let (mut white, _) = connect(addr, id, "").await;
                let (mut black, _) = connect(addr, id, "").await;
                play(&mut g, &mut white, &mut black, game_plies, i as u64 + 1).await
            }));
        }
        let mut messages = 0;
        let mut latencies = Vec::new();
        for task in tasks {
            let (moves, sent) = task.await.expect("a game task");
            messages += sent;
            latencies.extend(moves);
        }
        latencies.sort();
        let elapsed = started.elapsed();
        let after = rss_kib();
        println!(
            "relay throughput, {games} games at once: {messages} messages in {:.2} s = {:.0} messages/s (each verified, stored, forwarded to 2 sockets)",
            elapsed.as_secs_f64(),
            messages as f64 / elapsed.as_secs_f64()
        );
        println!(
            "relay latency with {games} games at once, sign to the opponent's socket: median {:.2} ms, p99 {:.2} ms ({} moves)",
            percentile(&latencies, 0.5).as_secs_f64() * 1e3,
            percentile(&latencies, 0.99).as_secs_f64() * 1e3,
            latencies.len()
        );
        println!(
            "memory: {} KiB before, {} KiB after: {:.0} KiB per open game of {} messages (clients included)",
            before,
            after,
            after.saturating_sub(before) as f64 / games as f64,
            messages / games as u64
        );
        server.shutdown().await;
    });
    chain.stop.store(true, std::sync::atomic::Ordering::Relaxed);
}
