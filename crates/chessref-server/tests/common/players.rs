//! Players of many channel games at once through the relay, as the relay's benchmark
//! and the several-server load test drive it: every message signed beforehand (the
//! players' work), each game's two players on one server or on two, every socket
//! checked to receive each message once and in order (a gap or a second copy panics).
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use alloy_primitives::U256;
use chessref_channel::Frame;
use chessref_channel::book::frames_of;
use chessref_channel::client::OffChainGame;
use chessref_core::{Move, State};
use futures_util::StreamExt;
use serde::Deserialize;
use tokio_tungstenite::tungstenite::Message;

use crate::channel::{Socket, connect, send};

/// A deterministic legal move of `state` (`None`: the game is over).
pub fn pick_in(state: &State, seed: &mut u64) -> Option<Move> {
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
pub fn pick(g: &OffChainGame, seed: &mut u64) -> Option<Move> {
    pick_in(&State::from_bytes(&g.last().state).ok()?, seed)
}

/// What the bench reads of a relay frame: its type and number (a player's client
/// would read the whole message; the bench's clients read what they wait for).
#[derive(Deserialize)]
pub struct Peek {
    #[serde(rename = "type")]
    kind: String,
    seq: Option<u64>,
    reason: Option<String>,
}

/// Reads `socket` until the message numbered `seq` arrives; `seen`, the number of the
/// latest message it had received, must be followed by every number after it once, in
/// order (a message lost, forwarded twice or out of order panics).
pub async fn until(socket: &mut Socket, seen: &mut u64, seq: u64) {
    while *seen < seq {
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
            "message" => {
                let got = peek.seq.expect("a message's number");
                assert_eq!(got, *seen + 1, "message {got} after message {seen}");
                *seen = got;
            }
            "refused" => panic!("refused: {}", peek.reason.unwrap_or_default()),
            _ => {}
        }
    }
}

/// Game `g`'s frames for up to `plies` more plies (its moves and their receipts),
/// signed now, the `k`th move and its receipt stamped `at(k)`; the frames before
/// (`held` of them) stay out.
pub fn sign(
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

/// A frame as a player sends it: its ply and its text, serialised before the timed
/// part (the players' work, as signing is).
pub struct Outgoing {
    ply: u32,
    text: tokio_tungstenite::tungstenite::Utf8Bytes,
}

/// `frames` as sent.
pub fn outgoing(frames: &[Frame]) -> Vec<Outgoing> {
    frames
        .iter()
        .map(|frame| Outgoing {
            ply: frame.ply(),
            text: serde_json::to_string(frame)
                .expect("frames serialise")
                .into(),
        })
        .collect()
}

/// A game's two players, connected, the number of its latest message, and of the
/// latest each player's socket received.
pub struct Players {
    pub white: Socket,
    pub black: Socket,
    pub seq: u64,
    seen: [u64; 2],
}

impl Players {
    /// Game `id`'s white connected to the relay at `white_at`, black to the one at
    /// `black_at` (the same server or another on the same database), black's delegation
    /// sent and forwarded to both.
    pub async fn join(
        white_at: SocketAddr,
        black_at: SocketAddr,
        id: U256,
        delegation: &Frame,
    ) -> Players {
        let (white, _) = connect(white_at, id, "").await;
        let (mut black, _) = connect(black_at, id, "").await;
        send(&mut black, delegation).await;
        let mut players = Players {
            white,
            black,
            seq: 1,
            seen: [0; 2],
        };
        until(&mut players.white, &mut players.seen[0], 1).await;
        until(&mut players.black, &mut players.seen[1], 1).await;
        players
    }

    /// Plays `frames` (moves and their receipts, white's move first), each move sent
    /// at its time on `schedule` if any (else at once); each move's latency, from its
    /// send to its arrival at the opponent's socket.
    pub async fn play(
        &mut self,
        frames: &[Outgoing],
        schedule: Option<(Instant, Duration)>,
    ) -> Vec<Duration> {
        let mut latencies = Vec::new();
        for (ply, pair) in frames.chunks(2).enumerate() {
            if let Some((first, every)) = schedule {
                tokio::time::sleep_until((first + every * ply as u32).into()).await;
            }
            let [white_seen, black_seen] = &mut self.seen;
            // Each move from its own player's socket (ply 1 is white's).
            let (mover, mover_seen, other, other_seen) = if pair[0].ply % 2 == 1 {
                (&mut self.white, white_seen, &mut self.black, black_seen)
            } else {
                (&mut self.black, black_seen, &mut self.white, white_seen)
            };
            let sent = Instant::now();
            send_text(mover, &pair[0]).await;
            self.seq += 1;
            until(other, other_seen, self.seq).await;
            latencies.push(sent.elapsed());
            until(mover, mover_seen, self.seq).await;
            if let Some(receipt) = pair.get(1) {
                send_text(other, receipt).await;
                self.seq += 1;
                until(other, other_seen, self.seq).await;
                until(mover, mover_seen, self.seq).await;
            }
        }
        latencies
    }
}

/// Sends `frame`'s text on `socket`.
async fn send_text(socket: &mut Socket, frame: &Outgoing) {
    use futures_util::SinkExt;
    socket
        .send(Message::Text(frame.text.clone()))
        .await
        .expect("the relay takes a frame");
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Plays every game's `frames` on its players at once (paced, if `pace` says so: a
/// move every `every` from `first`, game `i` offset by `i / n` of it): the messages
/// sent, the time it took and the move latencies, sorted.
pub async fn round(
    players: Vec<Players>,
    frames: Vec<Vec<Frame>>,
    pace: Option<(Instant, Duration)>,
) -> (Vec<Players>, u64, Duration, Vec<Duration>) {
    let n = players.len() as u32;
    let frames: Vec<Vec<Outgoing>> = frames.iter().map(|f| outgoing(f)).collect();
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

/// Checks the relay's store at `target` holds each game of `games` (its id and the
/// number of its latest message) with messages numbered 1..N, each once.
pub fn stored_once(target: &chessref_index::db::DbTarget, games: &[(U256, u64)]) {
    let mut store = chessref_index::RelayStore::open_target(target).expect("the relay's store");
    for &(id, seq) in games {
        let held = store.messages(id, 0).expect("the game's messages");
        let numbers: Vec<u64> = held.iter().map(|m| m.seq).collect();
        assert_eq!(
            numbers,
            (1..=seq).collect::<Vec<u64>>(),
            "game {id}: every message once"
        );
    }
}
