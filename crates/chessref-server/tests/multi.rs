//! Several servers on one Postgres index (issue 30): a throwaway Postgres started by the
//! test, anvil with the referee, the indexer writing the database, and two `chessref
//! serve` routers reading it, each relaying the same games. Players connected to
//! different servers see each other's messages; the servers forward what the others
//! stored (LISTEN/NOTIFY), and the store keeps one copy of every message.

#[path = "common/channel.rs"]
mod channel;
mod common;
#[path = "common/players.rs"]
mod players;

use std::time::{Duration, Instant};

use alloy_primitives::U256;
use channel::{Chain, Socket, connect, message_of, next, now, runtime, send};
use chessref_channel::book::frames_of;
use chessref_channel::client::OffChainGame;
use chessref_channel::{Frame, NoPins, RelayFrame, Transcript};
use chessref_core::Move;
use chessref_index::db::{DbTarget, Param, Sql};
use chessref_pgtest::TempPostgres;
use chessref_server::Config;
use common::{TestServer, subscribe};

/// A fresh Postgres and the index target of one database in it.
fn postgres() -> (TempPostgres, DbTarget) {
    let pg = TempPostgres::start().expect("a throwaway Postgres (Debian's postgresql)");
    let target = pg.url().parse().unwrap();
    (pg, target)
}

/// A fresh Postgres, anvil with one joined channel game indexed into it (`name`: its
/// scratch files), the game's id and both players' seats.
fn channel_game(name: &str) -> (TempPostgres, Chain, U256, OffChainGame) {
    let (pg, target) = postgres();
    let mut chain = Chain::start_on(name, 1, Duration::from_millis(20), Some(target));
    let id = chain.ids[0];
    let g = chain.off_chain(0);
    (pg, chain, id, g)
}

/// Black's delegation, message 1, sent on `black` and seen there and on every socket of
/// `others` (on either server).
async fn delegate(g: &OffChainGame, black: &mut Socket, others: &mut [&mut Socket]) {
    let delegation = frames_of(&g.transcript()).remove(0);
    send(black, &delegation).await;
    expect_message(black, 1, &delegation).await;
    for socket in others.iter_mut() {
        expect_message(socket, 1, &delegation).await;
    }
}

/// A server on `target` with the default limits.
async fn server_on(target: &DbTarget) -> TestServer {
    TestServer::start(Config {
        index: Some(target.clone()),
        ..Config::default()
    })
    .await
}

/// Reads `socket` until message `seq` comes; it must be `frame` and nothing but the
/// messages before it may come first (a duplicate or a gap fails).
async fn expect_message(socket: &mut Socket, seq: u64, frame: &Frame) {
    let got = next(socket).await;
    assert_eq!(message_of(&got), (seq, frame), "message {seq}");
}

/// The transcript server `server` serves of game `id`.
async fn transcript_of(server: &TestServer, id: U256) -> Transcript {
    let (status, _, body) = server
        .raw("GET", &format!("/v1/games/{id}/transcript"), None, vec![])
        .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    Transcript::from_json(std::str::from_utf8(&body).unwrap()).unwrap()
}

/// `g`'s latest frame, sent by `mover` and seen as message `seq` by every socket of
/// `all` (on either server).
async fn exchange(mover: &mut Socket, others: &mut [&mut Socket], g: &OffChainGame, seq: u64) {
    let frame = frames_of(&g.transcript()).pop().unwrap();
    send(mover, &frame).await;
    expect_message(mover, seq, &frame).await;
    for socket in others.iter_mut() {
        expect_message(socket, seq, &frame).await;
    }
}

#[test]
fn test_two_servers_one_player_on_each_play_to_mate_and_it_settles() {
    let (_pg, mut chain, id, mut g) = channel_game("multi-mate");
    let rt = runtime();
    rt.block_on(async {
        let a = server_on(&chain.target).await;
        let b = server_on(&chain.target).await;
        let (mut white, welcome) = connect(a.addr, id, "").await;
        assert!(matches!(welcome, RelayFrame::Welcome { latest: 0, .. }));
        let (mut black, _) = connect(b.addr, id, "").await;
        let (mut watching_a, _) = connect(a.addr, id, "").await;
        let (mut watching_b, _) = connect(b.addr, id, "").await;
        // The event stream of the game, from the server white is not on.
        let events = subscribe(b.addr, &format!("/v1/games/{id}/events"));

        // Black's delegation, sent at B, reaches white at A.
        delegate(
            &g,
            &mut black,
            &mut [&mut white, &mut watching_a, &mut watching_b],
        )
        .await;
        let mut seq = 1;
        let mut slowest = Duration::ZERO;
        for (i, uci) in ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]
            .iter()
            .enumerate()
        {
            let (mover, other) = if i % 2 == 0 {
                (&mut white, &mut black)
            } else {
                (&mut black, &mut white)
            };
            g.play(Move::from_uci(uci).unwrap(), now()).unwrap();
            seq += 1;
            let sent = Instant::now();
            exchange(
                mover,
                &mut [other, &mut watching_a, &mut watching_b],
                &g,
                seq,
            )
            .await;
            slowest = slowest.max(sent.elapsed());
            g.receipt(now()).unwrap();
            seq += 1;
            exchange(
                other,
                &mut [mover, &mut watching_a, &mut watching_b],
                &g,
                seq,
            )
            .await;
        }
        // Mate: each signs the result at its own server.
        let agreed = g.transcript_agreed(1).unwrap();
        let halves: Vec<Frame> = frames_of(&agreed).split_off(frames_of(&g.transcript()).len());
        send(&mut white, &halves[0]).await;
        for socket in [&mut white, &mut black, &mut watching_a, &mut watching_b] {
            expect_message(socket, seq + 1, &halves[0]).await;
        }
        send(&mut black, &halves[1]).await;
        for socket in [&mut white, &mut black, &mut watching_a, &mut watching_b] {
            expect_message(socket, seq + 2, &halves[1]).await;
        }
        // Both servers serve the one transcript both signed, each message once.
        assert_eq!(transcript_of(&a, id).await, agreed);
        assert_eq!(transcript_of(&b, id).await, agreed);
        eprintln!("slowest move, sent at one server to seen at both: {slowest:?}");

        // Settled on-chain (white's wallet), the end is seen through both servers, and
        // B's event stream, fed by the indexer's writes to the shared database, says so.
        let settlement = agreed.verify(&NoPins, now()).unwrap().settlement;
        let white_address = g.game.white;
        std::thread::scope(|s| {
            s.spawn(|| chain.referee.send_channel(white_address, &settlement))
                .join()
                .unwrap()
        })
        .expect("settle");
        for server in [&a, &b] {
            let started = Instant::now();
            loop {
                let (status, _, body) = server
                    .raw("GET", &format!("/v1/games/{id}"), None, vec![])
                    .await;
                assert_eq!(status, 200);
                let game: serde_json::Value = serde_json::from_slice(&body).unwrap();
                if game["phase"] == "ended" {
                    assert_eq!(game["pgnResult"], "1-0", "{game}");
                    break;
                }
                assert!(started.elapsed() < Duration::from_secs(30), "{game}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        let ended = tokio::task::spawn_blocking(move || {
            let started = Instant::now();
            loop {
                let (name, data) = events
                    .recv_timeout(Duration::from_secs(30))
                    .expect("events from the second server");
                if name == "ended" {
                    return data;
                }
                assert!(started.elapsed() < Duration::from_secs(30));
            }
        })
        .await
        .unwrap();
        assert_eq!(ended["game"]["id"], id.to_string(), "{ended}");
        // Settled: no server takes another message of the game.
        let again = frames_of(&agreed).pop().unwrap();
        send(&mut black, &again).await;
        let answer = next(&mut black).await;
        assert!(
            matches!(
                &answer,
                RelayFrame::Duplicate { .. } | RelayFrame::Refused { .. }
            ),
            "{answer:?}"
        );
        a.shutdown().await;
        b.shutdown().await;
    });
}

#[test]
fn test_one_frame_sent_to_both_servers_at_once_is_stored_and_forwarded_once() {
    let (_pg, chain, id, mut g) = channel_game("multi-race");
    let rt = runtime();
    rt.block_on(async {
        let a = server_on(&chain.target).await;
        let b = server_on(&chain.target).await;
        let (mut white_a, _) = connect(a.addr, id, "").await;
        let (mut white_b, _) = connect(b.addr, id, "").await;
        let (mut black, _) = connect(b.addr, id, "").await;
        let (mut watching, _) = connect(a.addr, id, "").await;
        delegate(
            &g,
            &mut black,
            &mut [&mut white_a, &mut white_b, &mut watching],
        )
        .await;
        let mut seq = 1;
        // Each of white's moves sent by its two connections at once, one at each server:
        // stored once, seen once by every socket as the same message; the second copy
        // is answered as a duplicate.
        for (i, uci) in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
            .iter()
            .enumerate()
        {
            g.play(Move::from_uci(uci).unwrap(), now()).unwrap();
            seq += 1;
            if i % 2 == 0 {
                let frame = frames_of(&g.transcript()).pop().unwrap();
                tokio::join!(send(&mut white_a, &frame), send(&mut white_b, &frame));
                let mut duplicates = 0;
                for socket in [&mut white_a, &mut white_b] {
                    let mut forwarded = 0;
                    // Whatever comes within a moment of the message: one copy of it, and
                    // the answer to this connection's copy if it was the second.
                    while let Ok(got) =
                        tokio::time::timeout(Duration::from_millis(400), next(socket)).await
                    {
                        match got {
                            RelayFrame::Message {
                                seq: s, message, ..
                            } => {
                                assert_eq!((s, &message), (seq, &frame));
                                forwarded += 1;
                            }
                            RelayFrame::Duplicate { seq: s } => {
                                assert_eq!(s, seq);
                                duplicates += 1;
                            }
                            other => panic!("{other:?}"),
                        }
                    }
                    assert_eq!(forwarded, 1, "message {seq} forwarded {forwarded} times");
                }
                assert_eq!(duplicates, 1, "the second copy of message {seq}");
                for socket in [&mut black, &mut watching] {
                    expect_message(socket, seq, &frame).await;
                }
                g.receipt(now()).unwrap();
                seq += 1;
                exchange(
                    &mut black,
                    &mut [&mut white_a, &mut white_b, &mut watching],
                    &g,
                    seq,
                )
                .await;
            } else {
                exchange(
                    &mut black,
                    &mut [&mut white_a, &mut white_b, &mut watching],
                    &g,
                    seq,
                )
                .await;
                g.receipt(now()).unwrap();
                seq += 1;
                exchange(
                    &mut white_a,
                    &mut [&mut white_b, &mut black, &mut watching],
                    &g,
                    seq,
                )
                .await;
            }
        }
        let stored = transcript_of(&a, id).await;
        assert_eq!(stored, g.transcript());
        assert_eq!(transcript_of(&b, id).await, stored);
        a.shutdown().await;
        b.shutdown().await;
    });
}

#[test]
fn test_a_postgres_restart_loses_nothing_and_both_servers_forward_again() {
    // Review of issue 30: every session of both servers ends at once (the listener's,
    // the group commit's and the relay's reads): each must open new ones, hear the other
    // again, and neither lose nor repeat a message; and shut down without a panic.
    let (pg, chain, id, mut g) = channel_game("multi-restart");
    let rt = runtime();
    rt.block_on(async {
        let a = server_on(&chain.target).await;
        let b = server_on(&chain.target).await;
        let (mut white, _) = connect(a.addr, id, "").await;
        let (mut black, _) = connect(b.addr, id, "").await;
        delegate(&g, &mut black, &mut [&mut white]).await;
        g.play(Move::from_uci("e2e4").unwrap(), now()).unwrap();
        exchange(&mut white, &mut [&mut black], &g, 2).await;

        tokio::task::block_in_place(|| pg.restart()).expect("pg_ctl restart");

        let mut seq = 2;
        for (i, uci) in ["e7e5", "g1f3"].iter().enumerate() {
            let (mover, other) = if i % 2 == 0 {
                (&mut black, &mut white)
            } else {
                (&mut white, &mut black)
            };
            // The receipt of the last move, then the next move, by the same player.
            g.receipt(now()).unwrap();
            seq += 1;
            // Stored at the first sending: an honest client sends again only when it
            // reconnects, not on a refusal.
            exchange(mover, &mut [other], &g, seq).await;
            g.play(Move::from_uci(uci).unwrap(), now()).unwrap();
            seq += 1;
            exchange(mover, &mut [other], &g, seq).await;
        }
        assert_eq!(transcript_of(&a, id).await, g.transcript());
        assert_eq!(transcript_of(&b, id).await, g.transcript());
        drop((white, black));
        a.shutdown().await;
        b.shutdown().await;
    });
}

#[test]
fn test_a_flood_of_notices_neither_stalls_a_game_nor_piles_up_tasks() {
    // Review of issue 30: anyone who may connect to the database may NOTIFY the relay's
    // channel. Notices naming a game a server holds, each with a number past its
    // latest, must not each cost a task and a store read queued on the game's book
    // ahead of its players' frames.
    const NOTICES: usize = 20_000;
    let (_pg, chain, id, mut g) = channel_game("multi-flood");
    let rt = runtime();
    rt.block_on(async {
        let a = server_on(&chain.target).await;
        let (mut white, _) = connect(a.addr, id, "").await;
        let (mut black, _) = connect(a.addr, id, "").await;
        delegate(&g, &mut black, &mut [&mut white]).await;
        // The listener is on (it heard the delegation's own notice by now); the flood.
        tokio::task::block_in_place(|| {
            let mut db = chessref_index::db::Database::open(&chain.target, 1)
                .unwrap()
                .connect()
                .unwrap();
            db.query(
                "SELECT pg_notify('chessref_relay', ?1::text || ':' || (1000 + i)::text)
                 FROM generate_series(1, ?2::bigint) AS i",
                &[&id.to_string() as &dyn Param, &(NOTICES as i64)],
                "flooding the relay's channel",
                |_| Ok(()),
            )
            .unwrap();
        });
        let metrics = tokio::runtime::Handle::current().metrics();
        let mut most = 0;
        let flooded = Instant::now();
        while flooded.elapsed() < Duration::from_secs(1) {
            most = most.max(metrics.num_alive_tasks());
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // A move is answered while the flood is being read, as before it.
        g.play(Move::from_uci("e2e4").unwrap(), now()).unwrap();
        let started = Instant::now();
        exchange(&mut white, &mut [&mut black], &g, 2).await;
        let answered = started.elapsed();
        eprintln!("{NOTICES} notices: at most {most} tasks alive; a move answered in {answered:?}");
        assert!(most < 100, "{most} tasks alive after {NOTICES} notices");
        assert!(
            answered < Duration::from_secs(2),
            "a move waited {answered:?} behind {NOTICES} notices"
        );
        assert_eq!(transcript_of(&a, id).await, g.transcript());
        drop((white, black));
        a.shutdown().await;
    });
}

/// Another server's relay storing game `id`'s messages at a chosen moment (a thread
/// of its own on a session of its own), as the notices and the table show them.
struct OtherServer {
    give: std::sync::mpsc::Sender<(Duration, u64, Frame)>,
    done: std::sync::mpsc::Receiver<()>,
}

impl OtherServer {
    fn start(target: &DbTarget, id: U256) -> OtherServer {
        let (give, take) = std::sync::mpsc::channel::<(Duration, u64, Frame)>();
        let (stored, done) = std::sync::mpsc::channel();
        let target = target.clone();
        std::thread::spawn(move || {
            let mut other = chessref_index::RelayStore::open_target(&target).unwrap();
            for (delay, seq, frame) in take {
                std::thread::sleep(delay);
                let body = serde_json::to_string(&frame).unwrap();
                other
                    .append(id, seq, frame.kind(), frame.ply(), now(), &body)
                    .unwrap();
                let _ = stored.send(());
            }
        });
        OtherServer { give, done }
    }

    /// Stores `frame` as message `seq` after `delay`, without waiting.
    fn send(&self, delay: Duration, seq: u64, frame: &Frame) {
        self.give.send((delay, seq, frame.clone())).unwrap();
    }

    /// Waits until the message sent last is stored.
    fn stored(&self) {
        self.done.recv().expect("stored by the other server");
    }

    /// Stores `frame` as message `seq` now.
    fn store(&self, delay: Duration, seq: u64, frame: &Frame) {
        self.send(delay, seq, frame);
        self.stored();
    }
}

/// A quiet opening, 40 plies: a game long enough that loading its room takes a while.
const LONG: [&str; 40] = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "c2c3", "g8f6", "d2d3", "d7d6", "e1g1", "e8g8",
    "h2h3", "h7h6", "a2a4", "a7a5", "f1e1", "f8e8", "b1d2", "c8e6", "c4b5", "e6d7", "d2f1", "c6e7",
    "f1g3", "e7g6", "d3d4", "c5b6", "c1e3", "c7c6", "b5d3", "d8c7", "d1c2", "a8d8", "a1d1", "g8h8",
    "g1h2", "h8g8", "h2g1", "g8h7",
];

#[test]
fn test_a_room_loaded_while_another_server_stores_misses_nothing() {
    // Review of issue 30: a server loads a game's room (reads its messages, checks them
    // into a book, then puts it in its map) while another server stores the game's next
    // message. Its notice, come before the room is in the map, names no room: the room
    // must still get that message, not wait for the game's next one.
    const PRELOADED: usize = 50;
    let (_pg, chain, id, mut g) = channel_game("multi-load");
    for uci in LONG {
        g.play(Move::from_uci(uci).unwrap(), now()).unwrap();
        g.receipt(now()).unwrap();
    }
    let frames = frames_of(&g.transcript());
    let other = OtherServer::start(&chain.target, id);
    for (i, frame) in frames.iter().take(PRELOADED).enumerate() {
        other.store(Duration::ZERO, i as u64 + 1, frame);
    }
    let rt = runtime();
    rt.block_on(async {
        let b = server_on(&chain.target).await;
        // B listens from its first connection on: one message stored and heard.
        let (mut first, _) = connect(b.addr, id, &format!("?after={PRELOADED}")).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut seq = PRELOADED as u64 + 1;
        tokio::task::block_in_place(|| other.store(Duration::ZERO, seq, &frames[seq as usize - 1]));
        expect_message(&mut first, seq, &frames[seq as usize - 1]).await;
        drop(first);
        let mut missed = Vec::new();
        // Each time a fresh room (the last connection gone, the room left memory) and
        // a message stored a little later, swept across the room's loading.
        for step in 0..(frames.len() - PRELOADED - 1) {
            tokio::time::sleep(Duration::from_millis(100)).await;
            seq += 1;
            let frame = frames[seq as usize - 1].clone();
            let delay = Duration::from_micros(500 * step as u64);
            other.send(delay, seq, &frame);
            let (mut spectator, _) = connect(b.addr, id, &format!("?after={}", seq - 1)).await;
            tokio::task::block_in_place(|| other.stored());
            match tokio::time::timeout(Duration::from_secs(3), next(&mut spectator)).await {
                Ok(got) => assert_eq!(message_of(&got), (seq, &frame), "message {seq}"),
                Err(_) => missed.push((seq, delay)),
            }
        }
        assert!(
            missed.is_empty(),
            "messages never forwarded (number, delay): {missed:?}"
        );
        assert_eq!(transcript_of(&b, id).await, g.transcript());
        b.shutdown().await;
    });
}

#[test]
fn test_a_server_whose_listener_is_cut_off_still_forwards_the_others_messages() {
    // Review of issue 30: a server's listening session ends (an administrator, a
    // network cut), or cannot be opened again (the database refuses new sessions, its
    // connection slots full) while the relay's own sessions go on: what another server
    // stores meanwhile must still reach this server's sockets, each message once.
    let (pg, chain, id, mut g) = channel_game("multi-listen");
    for uci in &LONG[..8] {
        g.play(Move::from_uci(uci).unwrap(), now()).unwrap();
        g.receipt(now()).unwrap();
    }
    let frames = frames_of(&g.transcript());
    let other = OtherServer::start(&chain.target, id);
    // From another database: the one the servers use cannot be closed from inside.
    let elsewhere: DbTarget = pg.url_of("postgres").parse().unwrap();
    let mut admin = chessref_index::db::Database::open(&elsewhere, 1)
        .unwrap()
        .connect()
        .unwrap();
    let mut admin = move |sql: &str| {
        admin
            .batch(sql, "administering the database")
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    };
    let cut = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE application_name LIKE 'chessref serve pid % relay'";
    let rt = runtime();
    rt.block_on(async {
        let b = server_on(&chain.target).await;
        let (mut spectator, _) = connect(b.addr, id, "").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut seq = 0;
        let mut store_and_see = async |spectator: &mut Socket| {
            seq += 1;
            let frame = &frames[seq as usize - 1];
            tokio::task::block_in_place(|| other.store(Duration::ZERO, seq, frame));
            let seen = tokio::time::timeout(Duration::from_secs(5), next(spectator)).await;
            let got = seen.unwrap_or_else(|_| panic!("message {seq} not forwarded in 5 s"));
            assert_eq!(message_of(&got), (seq, frame), "message {seq}");
        };
        store_and_see(&mut spectator).await;
        // The listening session ended, a message stored at once.
        for _ in 0..5 {
            tokio::task::block_in_place(|| admin(cut));
            store_and_see(&mut spectator).await;
        }
        // No new session for a while: the relay's own go on.
        tokio::task::block_in_place(|| {
            admin("ALTER DATABASE chessref ALLOW_CONNECTIONS false");
            admin(cut);
        });
        for _ in 0..3 {
            store_and_see(&mut spectator).await;
        }
        tokio::task::block_in_place(|| admin("ALTER DATABASE chessref ALLOW_CONNECTIONS true"));
        for _ in 0..3 {
            store_and_see(&mut spectator).await;
        }
        assert_eq!(transcript_of(&b, id).await.moves.len(), 6);
        b.shutdown().await;
    });
}

/// Every frame `socket` receives until none comes for `quiet`.
async fn drain(socket: &mut Socket, quiet: Duration) -> Vec<RelayFrame> {
    let mut got = Vec::new();
    while let Ok(frame) = tokio::time::timeout(quiet, next(socket)).await {
        got.push(frame);
    }
    got
}

#[test]
fn test_a_draw_offer_racing_a_move_at_the_other_server_is_judged_once_in_one_order() {
    // Review of issue 30: both players send at once, each to its own server: white a
    // move, black a draw offer in the position before it. Each server judges its frame
    // on its own book; the store numbers them. Whatever the order, every socket on
    // both servers sees the same messages, numbered without a gap or a repeat, white's
    // move among them once, and black's offer either among them or answered.
    let (_pg, chain, id, mut g) = channel_game("multi-draw");
    let rt = runtime();
    rt.block_on(async {
        let a = server_on(&chain.target).await;
        let b = server_on(&chain.target).await;
        let (mut white, _) = connect(a.addr, id, "").await;
        let (mut black, _) = connect(b.addr, id, "").await;
        let (mut watching_a, _) = connect(a.addr, id, "").await;
        let (mut watching_b, _) = connect(b.addr, id, "").await;
        delegate(
            &g,
            &mut black,
            &mut [&mut white, &mut watching_a, &mut watching_b],
        )
        .await;
        let mut seq = 1;
        let (mut offers_stored, mut offers_answered) = (0, 0);
        for pair in LONG[..12].chunks(2) {
            let (offer, auth) = g.offer_draw(chessref_core::Color::Black).unwrap();
            let offer = Frame::DrawOffer(chessref_channel::frame::SignedPosition {
                game_id: offer.gameId,
                ply: offer.ply,
                position: offer.position,
                by: chessref_channel::transcript::Side::Black,
                signature: auth.signature,
                delegation: if auth.delegation.is_some() { 0 } else { -1 },
            });
            g.play(Move::from_uci(pair[0]).unwrap(), now()).unwrap();
            let played = frames_of(&g.transcript()).pop().unwrap();
            tokio::join!(send(&mut white, &played), send(&mut black, &offer));
            let quiet = Duration::from_millis(600);
            let mut seen = Vec::new();
            let mut answers = Vec::new();
            for socket in [&mut white, &mut black, &mut watching_a, &mut watching_b] {
                let mut messages = Vec::new();
                for frame in drain(socket, quiet).await {
                    match frame {
                        RelayFrame::Message {
                            seq: s, message, ..
                        } => messages.push((s, message)),
                        other => answers.push(other),
                    }
                }
                seen.push(messages);
            }
            for messages in &seen[1..] {
                assert_eq!(messages, &seen[0], "the same messages on every socket");
            }
            let numbers: Vec<u64> = seen[0].iter().map(|(s, _)| *s).collect();
            let expected: Vec<u64> = (seq + 1..=seq + numbers.len() as u64).collect();
            assert_eq!(numbers, expected, "numbered on from {seq}, densely");
            let frames: Vec<&Frame> = seen[0].iter().map(|(_, f)| f).collect();
            assert_eq!(frames.iter().filter(|f| **f == &played).count(), 1);
            let stored = frames.iter().filter(|f| **f == &offer).count();
            assert_eq!(frames.len(), 1 + stored, "{frames:?}");
            if stored == 1 {
                offers_stored += 1;
                assert!(answers.is_empty(), "{answers:?}");
            } else {
                offers_answered += 1;
                assert!(
                    matches!(&answers[..], [RelayFrame::Refused { kind, .. }] if kind != "store"),
                    "black's offer neither stored nor refused for itself: {answers:?}"
                );
            }
            seq += frames.len() as u64;
            g.receipt(now()).unwrap();
            seq += 1;
            let others = &mut [&mut white, &mut watching_a, &mut watching_b];
            exchange(&mut black, others, &g, seq).await;
            g.play(Move::from_uci(pair[1]).unwrap(), now()).unwrap();
            seq += 1;
            exchange(&mut black, others, &g, seq).await;
            g.receipt(now()).unwrap();
            seq += 1;
            let others = &mut [&mut black, &mut watching_a, &mut watching_b];
            exchange(&mut white, others, &g, seq).await;
        }
        eprintln!("draw offers racing a move: {offers_stored} stored, {offers_answered} refused");
        let stored = transcript_of(&a, id).await;
        assert_eq!(transcript_of(&b, id).await, stored);
        assert_eq!(stored.moves, g.transcript().moves);
        a.shutdown().await;
        b.shutdown().await;
    });
}

#[test]
fn test_many_games_at_once_across_two_servers_lose_and_duplicate_nothing() {
    let (_pg, target) = postgres();
    let games = 16;
    let mut chain = Chain::start_on("multi-load", games, Duration::from_millis(20), Some(target));
    let mut seats: Vec<OffChainGame> = (0..games).map(|i| chain.off_chain(i)).collect();
    let rt = runtime();
    rt.block_on(async {
        // As fast as the servers answer: the per-connection rate limit is for people.
        let config = Config {
            index: Some(chain.target.clone()),
            relay: chessref_server::relay::RelayLimits {
                frames_per_second: 1_000_000,
                ..Default::default()
            },
            ..Config::default()
        };
        let a = TestServer::start(config.clone()).await;
        let b = TestServer::start(config).await;
        let at = now() + 20;
        let mut joins = Vec::new();
        let mut frames = Vec::new();
        for (i, g) in seats.iter_mut().enumerate() {
            let delegation = frames_of(&g.transcript()).remove(0);
            let mut seed = i as u64 + 1;
            frames.push(players::sign(g, 8, &mut seed, |_| at));
            // Every game's players on different servers: each message crosses.
            let (white, black) = if i % 2 == 0 {
                (a.addr, b.addr)
            } else {
                (b.addr, a.addr)
            };
            let id = g.game.game_id;
            joins.push(tokio::spawn(async move {
                players::Players::join(white, black, id, &delegation).await
            }));
        }
        let mut playing = Vec::new();
        for join in joins {
            playing.push(join.await.unwrap());
        }
        // Each socket checks every message comes once, in order.
        let (playing, sent, elapsed, _) = players::round(playing, frames, None).await;
        eprintln!(
            "{sent} messages of {games} games across two servers in {:.2} s",
            elapsed.as_secs_f64()
        );
        let expected: Vec<(U256, u64)> = seats
            .iter()
            .zip(&playing)
            .map(|(g, p)| (g.game.game_id, p.seq))
            .collect();
        assert!(expected.iter().all(|&(_, seq)| seq > 2), "{expected:?}");
        let target = chain.target.clone();
        tokio::task::spawn_blocking(move || players::stored_once(&target, &expected))
            .await
            .unwrap();
        // Both servers serve each game's transcript as its players signed it.
        for (g, server) in seats.iter().zip([&a, &b].into_iter().cycle()) {
            assert_eq!(transcript_of(server, g.game.game_id).await, g.transcript());
        }
        drop(playing);
        a.shutdown().await;
        b.shutdown().await;
    });
}
