//! One poller feeding every server-sent event stream (issue 20): a single task reads the
//! index's `changes` of all games every 200 ms, renders each change's event once (one
//! read of its game per batch) and broadcasts it; each `/v1/games/{id}/events` client
//! takes its game's from the broadcast. A thousand clients of one game cost one read
//! per change, not a thousand reads every 200 ms. The poller runs while someone listens
//! and stops when nobody does. Streams are bounded in total and per client address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alloy_primitives::U256;
use chessref_core::{RawMove, State};
use chessref_index::read::{self, Change, GameView};
use serde_json::json;
use tokio::sync::broadcast;

/// How often the poller looks for changes.
pub const POLL: Duration = Duration::from_millis(200);

/// Limits of the event streams (each a `chessref serve` flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLimits {
    /// Event streams open at once.
    pub streams: usize,
    /// Event streams open at once from one client address.
    pub per_client: usize,
}

impl Default for EventLimits {
    fn default() -> EventLimits {
        EventLimits {
            streams: 512,
            per_client: 16,
        }
    }
}

/// One change, rendered once for every stream of its game.
#[derive(Debug)]
pub struct Item {
    /// The game.
    pub game: U256,
    /// The change's sequence number.
    pub seq: i64,
    /// The event name (the change's kind).
    pub kind: String,
    /// The event's data (JSON).
    pub data: String,
    /// The game is over and final: the stream ends after this event.
    pub last: bool,
}

/// The position after the first `ply` moves of `game`, replayed from its start (`None`
/// when the index does not hold them from the start: a channel game continued from a
/// registered position).
fn position_at(game: &GameView, ply: u32) -> Option<State> {
    let mut state = State::from_fen(&game.start_fen).ok()?;
    let mut moves = game.moves.iter().take_while(|m| m.ply <= ply).peekable();
    if ply > 0 && moves.peek().is_none_or(|m| m.ply != 1) {
        return None;
    }
    for m in moves {
        state = state.play(RawMove::from_packed(m.packed)).ok()?;
    }
    Some(state)
}

/// The event data of `change`: the game as it stood just after the change (its
/// position after the change's ply; the phase the change's kind gives, the result only
/// once ended), not the game as it stands now (docs/INDEX.md, "The event feed").
pub fn render(change: &Change, game: Option<&GameView>) -> String {
    let played = game.and_then(|g| g.moves.iter().find(|m| m.ply == change.ply));
    let view = game.map(|g| {
        let at = position_at(g, change.ply);
        let phase = match change.kind.as_str() {
            "created" => "open",
            "joined" | "move" | "draw_offer" | "divergence" => "running",
            _ => g.summary.phase.as_str(),
        };
        let over = matches!(
            change.kind.as_str(),
            "ended" | "final" | "cancelled" | "rollback"
        );
        json!({
            "id": g.summary.id,
            "phase": phase,
            "pending": g.summary.pending,
            "ply": change.ply,
            "status": at.as_ref().map_or(g.summary.status.as_str(), |s| s.status().name()),
            "result": if over { g.summary.result.clone() } else { None },
            "reason": if over { g.summary.reason.clone() } else { None },
            "fen": at.map_or_else(|| g.fen.clone(), |s| s.fen()),
        })
    });
    json!({
        "seq": change.seq,
        "kind": change.kind,
        "ply": change.ply,
        "block": change.block,
        "move": if change.kind == "move" { played.map(|m| json!(m)) } else { None },
        "game": view,
    })
    .to_string()
}

/// Renders `changes` of game `id`, reading the game once: the items, the last one
/// flagged when the game is settled.
pub fn items(
    reader: &mut read::Reader,
    id: U256,
    changes: &[Change],
) -> read::ReadResult<Vec<Item>> {
    if changes.is_empty() {
        return Ok(Vec::new());
    }
    let game = reader.game(id)?;
    let settled = reader.settled(id)?;
    let count = changes.len();
    Ok(changes
        .iter()
        .enumerate()
        .map(|(i, change)| Item {
            game: id,
            seq: change.seq,
            kind: change.kind.clone(),
            data: render(change, game.as_ref()),
            last: settled && i + 1 == count,
        })
        .collect())
}

/// The feed of one server.
#[derive(Debug)]
pub struct Feed {
    index: read::Index,
    limits: EventLimits,
    tx: broadcast::Sender<Arc<Item>>,
    polling: AtomicBool,
    streams: AtomicUsize,
    per_client: Mutex<HashMap<IpAddr, usize>>,
}

/// A stream's place in the limits, given back on drop.
#[derive(Debug)]
pub struct Ticket {
    feed: Arc<Feed>,
    client: Option<IpAddr>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.feed.streams.fetch_sub(1, Ordering::SeqCst);
        if let Some(ip) = self.client {
            let mut map = self
                .feed
                .per_client
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(n) = map.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&ip);
                }
            }
        }
    }
}

impl Feed {
    /// The feed of `index`.
    pub fn new(index: read::Index, limits: EventLimits) -> Feed {
        Feed {
            index,
            limits,
            tx: broadcast::channel(4096).0,
            polling: AtomicBool::new(false),
            streams: AtomicUsize::new(0),
            per_client: Mutex::new(HashMap::new()),
        }
    }

    /// The event streams open now.
    pub fn open_streams(&self) -> usize {
        self.streams.load(Ordering::SeqCst)
    }

    /// A place for one more stream from `client`, or why not.
    pub fn admit(self: &Arc<Feed>, client: Option<IpAddr>) -> Result<Ticket, String> {
        let total = self
            .streams
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.limits.streams).then_some(n + 1)
            });
        if total.is_err() {
            return Err(format!(
                "the server holds its limit of {} event streams: retry later",
                self.limits.streams
            ));
        }
        if let Some(ip) = client {
            let mut map = self.per_client.lock().unwrap_or_else(|e| e.into_inner());
            let n = map.entry(ip).or_insert(0);
            if *n >= self.limits.per_client {
                drop(map);
                self.streams.fetch_sub(1, Ordering::SeqCst);
                return Err(format!(
                    "{ip} holds its limit of {} event streams: retry later",
                    self.limits.per_client
                ));
            }
            *n += 1;
        }
        Ok(Ticket {
            feed: self.clone(),
            client,
        })
    }

    /// The broadcast of every game's changes, the poller started if it was not running.
    pub fn subscribe(self: &Arc<Feed>) -> broadcast::Receiver<Arc<Item>> {
        let rx = self.tx.subscribe();
        if !self.polling.swap(true, Ordering::SeqCst) {
            tokio::spawn(self.clone().poll());
        }
        rx
    }

    /// The poller: every [`POLL`], the new changes of every game, rendered once each and
    /// broadcast; it stops when nobody listens.
    async fn poll(self: Arc<Feed>) {
        let index = self.index.clone();
        let start = tokio::task::spawn_blocking(move || index.reader()?.latest_change()).await;
        let mut cursor = match start {
            Ok(Ok(seq)) => seq,
            _ => 0,
        };
        loop {
            tokio::time::sleep(POLL).await;
            if self.tx.receiver_count() == 0 {
                self.polling.store(false, Ordering::SeqCst);
                // Someone may have subscribed between the check and the store.
                if self.tx.receiver_count() == 0 || self.polling.swap(true, Ordering::SeqCst) {
                    return;
                }
            }
            let index = self.index.clone();
            let after = cursor;
            let read = tokio::task::spawn_blocking(move || -> read::ReadResult<Vec<Item>> {
                let mut reader = index.reader()?;
                let changes = reader.all_changes(after)?;
                let mut by_game: Vec<(U256, Vec<Change>)> = Vec::new();
                for (id, change) in changes {
                    match by_game.iter_mut().find(|(g, _)| *g == id) {
                        Some((_, list)) => list.push(change),
                        None => by_game.push((id, vec![change])),
                    }
                }
                let mut out = Vec::new();
                for (id, list) in by_game {
                    out.extend(items(&mut reader, id, &list)?);
                }
                out.sort_by_key(|item| item.seq);
                Ok(out)
            })
            .await;
            // An unreadable index is retried at the next poll; streams keep waiting.
            let Ok(Ok(items)) = read else { continue };
            for item in items {
                cursor = cursor.max(item.seq);
                let _ = self.tx.send(Arc::new(item));
            }
        }
    }
}
