//! The relay of channel games, measured on loopback (README, "The relay and the
//! watchtower"): anvil with channel games joined, the indexer (polling the chain every
//! `CHESSREF_RELAY_INDEX_POLL_MS`, default 250 as `chessref index` does), the server
//! in-process, and two WebSocket clients per game playing as players do (black on a
//! session key, every move acknowledged). Every message is signed before the timed
//! part: signing is the players' work, not the relay's (the time it took is printed).
//!
//! - latency by ply: from a move sent by one player to its arrival at the other, over
//!   one game of `CHESSREF_RELAY_PLIES` plies (default 80), median and p99, and the
//!   median of its first 20 plies beside its last 20 (a relay whose cost grew with the
//!   game would show it there);
//! - throughput: `CHESSREF_RELAY_GAMES` games (default 16) at once, each sending its
//!   next message the moment the last arrived (a saturating load),
//!   `CHESSREF_RELAY_GAME_PLIES` plies each (default 40) with receipts: messages
//!   accepted (verified, stored, forwarded) per second;
//! - latency under load: the same games, `CHESSREF_RELAY_GAME_PLIES` plies more each,
//!   at an offered rate of `CHESSREF_RELAY_LOAD` (default 0.5) times the throughput
//!   measured (or `CHESSREF_RELAY_RATE` messages a second): each game's moves paced on
//!   a schedule, a move's latency from its send to the opponent's socket (a p99 under
//!   saturation would be queueing, not a message's cost);
//! - memory: the process's resident size before and after those games' rooms are
//!   loaded, per game (clients included: an upper bound).
//!
//! The clients share this process and the machine's cores with the relay.
//!
//! Run: `cargo bench -p chessref-server --features index --bench relay`.

#[path = "../tests/common/channel.rs"]
mod channel;
#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use channel::{Chain, Socket, connect, now, runtime, send};
use chessref_channel::Frame;
use chessref_channel::book::frames_of;
use chessref_channel::client::OffChainGame;
use chessref_core::{Move, State};
use chessref_server::Config;
use common::TestServer;
use futures_util::StreamExt;
use serde::Deserialize;
use tokio_tungstenite::tungstenite::Message;

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

/// What the bench reads of a relay frame: its type and number (a player's client
/// would read the whole message; the bench's clients read what they wait for).
#[derive(Deserialize)]
struct Peek {
    #[serde(rename = "type")]
    kind: String,
    seq: Option<u64>,
    reason: Option<String>,
}

/// Reads `socket` until the message numbered `seq` arrives.
async fn until(socket: &mut Socket, seq: u64) {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(60), socket.next())
            .await
            .expect("a frame within 60 s")
            .expect("the connection is open")
            .expect("a frame");
        let Message::Text(text) = message else {
            continue;
        };
        let peek: Peek = serde_json::from_str(text.as_str()).expect("a relay frame");
        match peek.kind.as_str() {
            "message" if peek.seq.unwrap_or(0) >= seq => return,
            "refused" => panic!("refused: {}", peek.reason.unwrap_or_default()),
            _ => {}
        }
    }
}

/// Game `g`'s frames for up to `plies` more plies (its moves and their receipts),
/// signed now, the `k`th move and its receipt stamped `at(k)`; the frames before
/// (`held` of them) stay out.
fn sign(
    g: &mut OffChainGame,
    plies: usize,
    seed: &mut u64,
    at: impl Fn(usize) -> u64,
) -> Vec<Frame> {
    let held = frames_of(&g.transcript()).len();
    for k in 0..plies {
        let Some(mv) = pick(g, seed) else { break };
        g.play(mv, at(k)).expect("a legal move");
        g.receipt(at(k)).expect("signing");
    }
    frames_of(&g.transcript()).split_off(held)
}

/// A game's two players, connected, and the number of its latest message.
struct Players {
    white: Socket,
    black: Socket,
    seq: u64,
}

impl Players {
    /// Both players connected to game `id`, black's delegation sent and forwarded.
    async fn join(
        addr: std::net::SocketAddr,
        id: alloy_primitives::U256,
        delegation: &Frame,
    ) -> Players {
        let (white, _) = connect(addr, id, "").await;
        let (mut black, _) = connect(addr, id, "").await;
        send(&mut black, delegation).await;
        let mut players = Players {
            white,
            black,
            seq: 1,
        };
        until(&mut players.white, 1).await;
        until(&mut players.black, 1).await;
        players
    }

    /// Plays `frames` (moves and their receipts, white's move first), each move sent
    /// at its time on `schedule` if any (else at once); each move's latency, from its
    /// send to its arrival at the opponent's socket.
    async fn play(
        &mut self,
        frames: &[Frame],
        schedule: Option<(Instant, Duration)>,
    ) -> Vec<Duration> {
        let mut latencies = Vec::new();
        for (ply, pair) in frames.chunks(2).enumerate() {
            if let Some((first, every)) = schedule {
                tokio::time::sleep_until((first + every * ply as u32).into()).await;
            }
            let (mover, other) = if self.seq % 2 == 1 {
                (&mut self.white, &mut self.black)
            } else {
                (&mut self.black, &mut self.white)
            };
            let sent = Instant::now();
            send(mover, &pair[0]).await;
            self.seq += 1;
            until(other, self.seq).await;
            latencies.push(sent.elapsed());
            until(mover, self.seq).await;
            if let Some(receipt) = pair.get(1) {
                send(other, receipt).await;
                self.seq += 1;
                until(other, self.seq).await;
                until(mover, self.seq).await;
            }
        }
        latencies
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Plays every game's `frames` on its players at once (paced, if `pace` says so: a
/// move every `every` from `first`, game `i` offset by `i / n` of it): the messages
/// sent, the time it took and the move latencies, sorted.
async fn round(
    players: Vec<Players>,
    frames: Vec<Vec<Frame>>,
    pace: Option<(Instant, Duration)>,
) -> (Vec<Players>, u64, Duration, Vec<Duration>) {
    let n = players.len() as u32;
    let (first, every) = match pace {
        Some((first, every)) => (first, Some(every)),
        None => (Instant::now(), None),
    };
    // Timed from the schedule's start, not from the wait for it.
    let started = first;
    let mut tasks = Vec::new();
    for (i, (mut p, frames)) in players.into_iter().zip(frames).enumerate() {
        let schedule = every.map(|every| (first + every * i as u32 / n, every));
        tasks.push(tokio::spawn(async move {
            let latencies = p.play(&frames, schedule).await;
            (p, frames.len() as u64, latencies)
        }));
    }
    let (mut back, mut messages, mut latencies) = (Vec::new(), 0, Vec::new());
    for task in tasks {
        let (p, sent, moves) = task.await.expect("a game task");
        back.push(p);
        messages += sent;
        latencies.extend(moves);
    }
    latencies.sort();
    (back, messages, started.elapsed(), latencies)
}

fn main() {
    let plies = env_usize("CHESSREF_RELAY_PLIES", 80);
    let games = env_usize("CHESSREF_RELAY_GAMES", 16).max(1);
    let game_plies = env_usize("CHESSREF_RELAY_GAME_PLIES", 40);
    let load: f64 = std::env::var("CHESSREF_RELAY_LOAD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.5);
    let poll = Duration::from_millis(env_usize("CHESSREF_RELAY_INDEX_POLL_MS", 250) as u64);
    let mut chain = Chain::start_polling("bench", games + 1, poll);
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
            index: Some(chessref_index::db::DbTarget::Sqlite(chain.db.clone())),
            relay,
            ..Config::default()
        })
        .await;

        // Latency over one game.
        let mut g = seats.remove(0);
        let delegation = frames_of(&g.transcript()).remove(0);
        let mut seed = long_seed(7, plies);
        let at = now() + 20;
        let frames = sign(&mut g, plies, &mut seed, |_| at);
        let mut players = Players::join(server.addr, ids[0], &delegation).await;
        let latencies = players.play(&frames, None).await;
        drop(players);
        let median = |d: &[Duration]| {
            let mut d = d.to_vec();
            d.sort();
            ms(percentile(&d, 0.5))
        };
        let bucket = 20.min(latencies.len());
        println!(
            "relay latency by ply: plies 1-{bucket} median {:.2} ms, plies {}-{} median {:.2} ms",
            median(&latencies[..bucket]),
            latencies.len() - bucket + 1,
            latencies.len(),
            median(&latencies[latencies.len() - bucket..]),
        );
        let mut sorted = latencies.clone();
        sorted.sort();
        println!(
            "relay latency, move sent to the opponent's socket, {} plies: median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            sorted.len(),
            ms(percentile(&sorted, 0.5)),
            ms(percentile(&sorted, 0.99)),
            ms(*sorted.last().expect("moves")),
        );

        // `games` games at once: signed first (stamped ahead, within the relay's
        // tolerance of the time they arrive), then connected (their rooms loaded).
        let signing = Instant::now();
        let mut seeds: Vec<u64> = (1..=games as u64).collect();
        let at = now() + 30;
        let delegations: Vec<Frame> = seats
            .iter()
            .map(|g| frames_of(&g.transcript()).remove(0))
            .collect();
        let frames: Vec<Vec<Frame>> = seats
            .iter_mut()
            .zip(&mut seeds)
            .map(|(g, seed)| sign(g, game_plies, seed, |_| at))
            .collect();
        let signed: usize = frames.iter().map(Vec::len).sum();
        println!(
            "signed {signed} messages of {games} games in {:.2} s before the timed part (the players' work)",
            signing.elapsed().as_secs_f64()
        );
        let before = rss_kib();
        let mut joins = Vec::new();
        for (i, delegation) in delegations.into_iter().enumerate() {
            let (addr, id) = (server.addr, ids[i + 1]);
            joins.push(tokio::spawn(async move { Players::join(addr, id, &delegation).await }));
        }
        let mut players = Vec::new();
        for join in joins {
            players.push(join.await.expect("a join"));
        }

        // Throughput: each game sends its next message the moment the last arrived.
        let (players, messages, elapsed, latencies) = round(players, frames, None).await;
        let throughput = messages as f64 / elapsed.as_secs_f64();
        let after = rss_kib();
        let held = messages / games as u64 + 1;
        println!(
            "relay throughput, {games} games at once, saturating: {messages} messages in {:.2} s = {throughput:.0} messages/s (each verified, stored, forwarded to 2 sockets); latency then (queueing): median {:.2} ms, p99 {:.2} ms",
            elapsed.as_secs_f64(),
            ms(percentile(&latencies, 0.5)),
            ms(percentile(&latencies, 0.99)),
        );

        // Latency under an offered load below the throughput: the next plies, paced.
        let rate = std::env::var("CHESSREF_RELAY_RATE")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(throughput * load);
        // Two messages a ply: each game's moves `2 * games / rate` seconds apart, each
        // stamped with the second it is due to be sent (signing takes a few seconds;
        // the schedule starts at `start`).
        let every = Duration::from_secs_f64(2.0 * games as f64 / rate);
        // (Not before the stamps of the moves before.)
        let start = (now() + 15).max(at);
        let frames: Vec<Vec<Frame>> = seats
            .iter_mut()
            .zip(&mut seeds)
            .map(|(g, seed)| sign(g, game_plies, seed, |k| start + (every * k as u32).as_secs()))
            .collect();
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970");
        let first = Instant::now() + Duration::from_secs(start).saturating_sub(unix);
        let (players, messages, elapsed, latencies) =
            round(players, frames, Some((first, every))).await;
        println!(
            "relay latency, {games} games at once, offered {rate:.0} messages/s (a move every {:.0} ms per game): {messages} messages in {:.2} s = {:.0} messages/s; move sent to the opponent's socket: median {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} moves)",
            ms(every),
            elapsed.as_secs_f64(),
            messages as f64 / elapsed.as_secs_f64(),
            ms(percentile(&latencies, 0.5)),
            ms(percentile(&latencies, 0.99)),
            ms(*latencies.last().expect("moves")),
            latencies.len()
        );
        println!(
            "memory: {} KiB before, {} KiB after: {:.0} KiB per open game of {held} messages (clients included)",
            before,
            after,
            after.saturating_sub(before) as f64 / games as f64,
        );
        drop(players);
        server.shutdown().await;
    });
    chain.stop.store(true, std::sync::atomic::Ordering::Relaxed);
}
