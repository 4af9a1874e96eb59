//! The relay of channel games, measured on loopback (README, "The relay and the
//! watchtower"): anvil with channel games joined, the indexer (polling the chain every
//! `CHESSREF_RELAY_INDEX_POLL_MS`, default 250 as `chessref index` does), the server
//! in-process, and two WebSocket clients per game playing as players do (black on a
//! session key, every move acknowledged). Every message is signed, and serialised to
//! the text its client sends, before the timed part: that is the players' work, not
//! the relay's (the time signing took is printed). Each timed round prints the CPU
//! time the process used per message, by thread (relay's writer, async threads with
//! the clients on them, checkpointer).
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
#[path = "../tests/common/players.rs"]
mod players;

use std::time::{Duration, Instant};

use channel::{Chain, now, runtime};
use chessref_channel::Frame;
use chessref_channel::book::frames_of;
use chessref_channel::client::OffChainGame;
use chessref_core::State;
use chessref_server::Config;
use common::TestServer;
use players::{Players, ms, outgoing, percentile, pick_in, round, sign};

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

/// CPU seconds this process's threads used so far, by thread name (Linux: utime and
/// stime of `/proc/self/task/*/stat`, in clock ticks of 10 ms).
fn cpu_by_thread() -> std::collections::BTreeMap<String, f64> {
    let mut by = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return by;
    };
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        // The name is in parentheses and may hold spaces: the fields after it.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_owned();
        let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
        let ticks = |i: usize| {
            fields
                .get(i)
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        // utime and stime: fields 14 and 15 of the line, 12 and 13 after the name.
        *by.entry(name).or_insert(0.0) += (ticks(11) + ticks(12)) / 100.0;
    }
    by
}

/// What `cpu_by_thread` says was used since `before`, per message: microseconds in all,
/// and each thread name's share.
fn cpu_since(before: &std::collections::BTreeMap<String, f64>, messages: u64) -> String {
    let now = cpu_by_thread();
    let used: Vec<(String, f64)> = now
        .iter()
        .map(|(name, s)| (name.clone(), s - before.get(name).copied().unwrap_or(0.0)))
        .filter(|(_, s)| *s > 0.0)
        .collect();
    let total: f64 = used.iter().map(|(_, s)| s).sum();
    let per = |s: f64| s * 1e6 / messages.max(1) as f64;
    let parts: Vec<String> = used
        .iter()
        .map(|(name, s)| format!("{name} {:.0}", per(*s)))
        .collect();
    format!(
        "CPU {total:.2} s, {:.0} µs a message ({})",
        per(total),
        parts.join(", ")
    )
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
        let mut players = Players::join(server.addr, server.addr, ids[0], &delegation).await;
        let latencies = players.play(&outgoing(&frames), None).await;
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
            joins.push(tokio::spawn(async move { Players::join(addr, addr, id, &delegation).await }));
        }
        let mut players = Vec::new();
        for join in joins {
            players.push(join.await.expect("a join"));
        }

        // Throughput: each game sends its next message the moment the last arrived.
        let cpu = cpu_by_thread();
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

        println!("saturated: {}", cpu_since(&cpu, messages));
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
        let cpu = cpu_by_thread();
        let (players, messages, elapsed, latencies) =
            round(players, frames, Some((first, every))).await;
        println!("offered: {}", cpu_since(&cpu, messages));
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
