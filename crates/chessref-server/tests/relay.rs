//! The relay of channel games on games opened for real: anvil, the referee, the indexer
//! in a thread beside `chessref serve`'s router, and WebSocket clients as players and
//! spectators. Every frame goes through the relay as a player's client sends it.

#[path = "common/channel.rs"]
mod channel;
mod common;

use std::time::{Duration, Instant};

use alloy_primitives::{U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use channel::{
    Chain, Socket, closed, connect, index_in_thread, message_of, next, now, runtime, seated, send,
};
use chessref_channel::book::frames_of;
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::frame::ResultHalf;
use chessref_channel::transcript::Side;
use chessref_channel::{Frame, NoPins, RelayFrame, Transcript};
use chessref_core::{Color, Move};
use chessref_server::Config;
use chessref_server::relay::RelayLimits;
use common::TestServer;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;

#[test]
fn test_a_game_to_mate_through_the_relay() {
    let mut chain = Chain::start("mate", 1);
    let id = chain.ids[0];
    let mut g = chain.off_chain(0);
    let rt = runtime();
    rt.block_on(async {
        let config = Config {
            index: Some(chain.db.clone()),
            ..Config::default()
        };
        let server = TestServer::start(config.clone()).await;
        let (mut white, welcome) = connect(server.addr, id, "").await;
        let RelayFrame::Welcome {
            domain,
            game,
            latest,
        } = welcome
        else {
            panic!("welcome first, got {welcome:?}")
        };
        assert_eq!((domain, &game, latest), (g.domain, &g.game, 0));
        let (mut black, _) = connect(server.addr, id, "").await;
        let (mut spectator, _) = connect(server.addr, id, "").await;

        // Black's delegation, then the moves, each acknowledged by the other side.
        let delegation = frames_of(&g.transcript()).remove(0);
        send(&mut black, &delegation).await;
        for socket in [&mut white, &mut black, &mut spectator] {
            let forwarded = next(socket).await;
            assert_eq!(message_of(&forwarded), (1, &delegation));
        }
        let mut seq = 1;
        let scholar = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"];
        for (i, uci) in scholar.iter().enumerate() {
            let (mover, other) = if i % 2 == 0 {
                (&mut white, &mut black)
            } else {
                (&mut black, &mut white)
            };
            if i == 2 {
                // A move by a key that is not white's, injected by another connection:
                // refused, never forwarded, that connection closed.
                let mut forged = g.clone();
                forged.seats[0] =
                    Seat::wallet(PrivateKeySigner::from_bytes(&keccak256("mallory")).unwrap());
                forged.play(Move::from_uci(uci).unwrap(), now()).unwrap();
                let frame = frames_of(&forged.transcript()).pop().unwrap();
                let (mut intruder, _) = connect(server.addr, id, "?after=1000").await;
                send(&mut intruder, &frame).await;
                let answer = next(&mut intruder).await;
                let RelayFrame::Refused { kind, reason, .. } = &answer else {
                    panic!("refused, got {answer:?}")
                };
                assert_eq!(kind, "signature", "{reason}");
                let (code, reason) = closed(&mut intruder).await;
                assert_eq!(code, 1008, "{reason}");
                // A signed move the clock does not allow: refused with its transition code.
                let mut cheat = g.clone();
                cheat.play(Move::from_uci(uci).unwrap(), now()).unwrap();
                let Some(Frame::Move(mut m)) = frames_of(&cheat.transcript()).pop() else {
                    panic!("a move")
                };
                m.white_time += 1000;
                m.signature = cheat
                    .seat(Color::White)
                    .authorise(&cheat.domain, &m.message())
                    .unwrap()
                    .signature;
                let (mut intruder, _) = connect(server.addr, id, "?after=1000").await;
                send(&mut intruder, &Frame::Move(m)).await;
                let answer = next(&mut intruder).await;
                let RelayFrame::Refused { kind, code, .. } = &answer else {
                    panic!("refused, got {answer:?}")
                };
                assert_eq!(kind, "transition");
                assert!(code.is_some());
                assert_eq!(closed(&mut intruder).await.0, 1008);
            }
            g.play(Move::from_uci(uci).unwrap(), now()).unwrap();
            let frames = frames_of(&g.transcript());
            let mv = frames.last().unwrap().clone();
            send(mover, &mv).await;
            seq += 1;
            for socket in [&mut *mover, &mut *other, &mut spectator] {
                // The forged frames never reached anyone: the next message is this move.
                let forwarded = next(socket).await;
                assert_eq!(message_of(&forwarded), (seq, &mv));
            }
            g.receipt(now()).unwrap();
            let receipt = frames_of(&g.transcript()).pop().unwrap();
            send(other, &receipt).await;
            seq += 1;
            for socket in [&mut *mover, &mut *other, &mut spectator] {
                assert_eq!(message_of(&next(socket).await).0, seq);
            }
        }
        // Sent again: a duplicate, not a new message.
        let again = frames_of(&g.transcript()).pop().unwrap();
        send(&mut white, &again).await;
        assert_eq!(next(&mut white).await, RelayFrame::Duplicate { seq });

        // Mate: both sign the result.
        let agreed = g.transcript_agreed(1).unwrap();
        let halves: Vec<Frame> = frames_of(&agreed).split_off(frames_of(&g.transcript()).len());
        assert!(matches!(
            &halves[0],
            Frame::Result(ResultHalf {
                by: Side::White,
                ..
            })
        ));
        send(&mut white, &halves[0]).await;
        send(&mut black, &halves[1]).await;
        for _ in 0..2 {
            next(&mut spectator).await;
        }
        let (status, _, body) = server
            .raw("GET", &format!("/v1/games/{id}/transcript"), None, vec![])
            .await;
        assert_eq!(status, 200);
        let doc: serde_json::Value = serde_json::from_str(chessref_server::OPENAPI_JSON).unwrap();
        let documented = &doc["paths"]["/v1/games/{id}/transcript"]["get"]["responses"]["200"]
            ["content"]["application/json"]["schema"];
        let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
        common::validate(&doc, documented, &value, "transcript").unwrap();
        let transcript = Transcript::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
        assert_eq!(transcript, agreed);
        let report = transcript.verify(&NoPins, now()).unwrap();
        assert_eq!(report.error, None);
        assert_eq!(report.settlement.call, "settle");

        // The game's PGN has the moves played off-chain.
        let (status, _, body) = server
            .raw("GET", &format!("/v1/games/{id}.pgn"), None, vec![])
            .await;
        assert_eq!(status, 200);
        let pgn = String::from_utf8(body).unwrap();
        assert!(
            pgn.contains("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#"),
            "{pgn}"
        );

        // Asked without an upgrade: a JSON 400 (a bad WebSocket handshake).
        let (status, _, body) = server
            .raw("GET", &format!("/v1/games/{id}/channel"), None, vec![])
            .await;
        assert_eq!(status, 400);
        let error: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(error["error"], "upgrade_required");

        // A client back after message 3 gets everything since.
        let (mut late, welcome) = connect(server.addr, id, "?after=3").await;
        let RelayFrame::Welcome { latest, .. } = welcome else {
            panic!("welcome")
        };
        assert_eq!(latest, seq + 2);
        for expected in 4..=latest {
            assert_eq!(message_of(&next(&mut late).await).0, expected);
        }

        // Junk closes that connection with a reason; the relay serves everyone else.
        white.send(Message::text("hello")).await.unwrap();
        let (code, reason) = closed(&mut white).await;
        assert_eq!(code, 1008);
        assert!(reason.starts_with("not a frame"), "{reason}");
        connect(server.addr, id, "").await;

        // Restarted on the same index: the same messages, checked again.
        server.shutdown().await;
        let server = TestServer::start(config).await;
        let (_, body) = {
            let (status, _, body) = server
                .raw("GET", &format!("/v1/games/{id}/transcript"), None, vec![])
                .await;
            (status, body)
        };
        let again = Transcript::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
        assert_eq!(again, agreed);
        drop((black, spectator, late));
        server.shutdown().await;
    });

    // The transcript settles on-chain.
    let report = g
        .transcript_agreed(1)
        .unwrap()
        .verify(&NoPins, now())
        .unwrap();
    let white = g.game.white;
    chain
        .referee
        .send_channel(white, &report.settlement)
        .expect("settle");
}

#[test]
fn test_a_restarted_relay_judges_the_next_frames_as_before() {
    // The relay checks each frame against the game's latest state in memory; a restarted
    // one rebuilds it from the stored messages and must answer as the first would have.
    let mut chain = Chain::start("restart", 1);
    let id = chain.ids[0];
    let mut g = chain.off_chain(0);
    let rt = runtime();
    rt.block_on(async {
        let config = Config {
            index: Some(chain.db.clone()),
            ..Config::default()
        };
        let server = TestServer::start(config.clone()).await;
        let (mut white, _) = connect(server.addr, id, "").await;
        let (mut black, _) = connect(server.addr, id, "").await;
        let delegation = frames_of(&g.transcript()).remove(0);
        // Black's delegation, e4 and its receipt, then e5 without its receipt yet, each
        // forwarded before the next is sent: 4 messages.
        send(&mut black, &delegation).await;
        assert_eq!(message_of(&next(&mut white).await), (1, &delegation));
        g.play(Move::from_uci("e2e4").unwrap(), now()).unwrap();
        let e4 = frames_of(&g.transcript()).pop().unwrap();
        send(&mut white, &e4).await;
        assert_eq!(message_of(&next(&mut white).await), (2, &e4));
        g.receipt(now()).unwrap();
        let seen = frames_of(&g.transcript()).pop().unwrap();
        send(&mut black, &seen).await;
        assert_eq!(message_of(&next(&mut white).await), (3, &seen));
        g.play(Move::from_uci("e7e5").unwrap(), now()).unwrap();
        let e5 = frames_of(&g.transcript()).pop().unwrap();
        send(&mut black, &e5).await;
        assert_eq!(message_of(&next(&mut white).await), (4, &e5));
        drop((white, black));
        server.shutdown().await;

        let server = TestServer::start(config).await;
        let (mut white, welcome) = connect(server.addr, id, "?after=4").await;
        let RelayFrame::Welcome { latest, .. } = welcome else {
            panic!("welcome, got {welcome:?}")
        };
        assert_eq!(latest, 4);
        // Old frames are duplicates, with their numbers.
        send(&mut white, &delegation).await;
        assert_eq!(next(&mut white).await, RelayFrame::Duplicate { seq: 1 });
        send(&mut white, &e5).await;
        assert_eq!(next(&mut white).await, RelayFrame::Duplicate { seq: 4 });
        // A second signed move for ply 2: refused by its order, the connection kept.
        let mut other = g.clone();
        other.moves.pop();
        other.play(Move::from_uci("d7d5").unwrap(), now()).unwrap();
        send(&mut white, frames_of(&other.transcript()).last().unwrap()).await;
        let answer = next(&mut white).await;
        let RelayFrame::Refused { kind, .. } = &answer else {
            panic!("refused, got {answer:?}")
        };
        assert_eq!(kind, "order", "{answer:?}");
        // White's receipt of e5: the held move, checked after the restart.
        g.receipt(now()).unwrap();
        let receipt = frames_of(&g.transcript()).pop().unwrap();
        send(&mut white, &receipt).await;
        assert_eq!(message_of(&next(&mut white).await), (5, &receipt));
        // A move by a key that is not white's: refused, that connection closed.
        let mut forged = g.clone();
        forged.seats[0] =
            Seat::wallet(PrivateKeySigner::from_bytes(&keccak256("mallory")).unwrap());
        forged.play(Move::from_uci("g1f3").unwrap(), now()).unwrap();
        let (mut intruder, _) = connect(server.addr, id, "?after=1000").await;
        send(
            &mut intruder,
            frames_of(&forged.transcript()).last().unwrap(),
        )
        .await;
        let answer = next(&mut intruder).await;
        let RelayFrame::Refused { kind, .. } = &answer else {
            panic!("refused, got {answer:?}")
        };
        assert_eq!(kind, "signature", "{answer:?}");
        assert_eq!(closed(&mut intruder).await.0, 1008);
        // White's real next move: accepted as message 6.
        g.play(Move::from_uci("g1f3").unwrap(), now()).unwrap();
        let nf3 = frames_of(&g.transcript()).pop().unwrap();
        send(&mut white, &nf3).await;
        assert_eq!(message_of(&next(&mut white).await), (6, &nf3));
        let (status, _, body) = server
            .raw("GET", &format!("/v1/games/{id}/transcript"), None, vec![])
            .await;
        assert_eq!(status, 200);
        let held = Transcript::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
        assert_eq!(held, g.transcript());
        drop(white);
        server.shutdown().await;
    });
}

#[test]
fn test_a_frame_the_store_did_not_take_is_never_served() {
    // Review of issue 30: the relay's book takes a frame in place before the store write;
    // when the write fails the book is read back from the store, and when that fails
    // too the book stays ahead of the store until the next frame. What the relay
    // serves meanwhile (the transcript, the PGN) must not hold the frame it answered
    // "not stored, not forwarded" to.
    let mut chain = Chain::start("store-fails", 1);
    let id = chain.ids[0];
    let mut g = chain.off_chain(0);
    let rt = runtime();
    rt.block_on(async {
        let config = Config {
            index: Some(chain.db.clone()),
            ..Config::default()
        };
        let server = TestServer::start(config).await;
        let (mut white, _) = connect(server.addr, id, "").await;
        let (mut black, _) = connect(server.addr, id, "").await;
        let delegation = frames_of(&g.transcript()).remove(0);
        send(&mut black, &delegation).await;
        assert_eq!(message_of(&next(&mut white).await), (1, &delegation));
        assert_eq!(message_of(&next(&mut black).await), (1, &delegation));
        let pgn = format!("/v1/games/{id}.pgn");
        let (status, _, before) = server.raw("GET", &pgn, None, vec![]).await;
        assert_eq!(status, 200);
        // Another writer took message 2 of the game in the file, a row that does not
        // read: the relay's write of its message 2 fails, and so does its read-back.
        let db = rusqlite::Connection::open(&chain.db).unwrap();
        db.busy_timeout(Duration::from_secs(10)).unwrap();
        db.execute(
            "INSERT INTO relay_messages (game_id, seq, kind, ply, received_at, body)
             VALUES (?1, 2, 'move', 1, 0, 'not a frame')",
            [id.to_string()],
        )
        .unwrap();
        g.play(Move::from_uci("e2e4").unwrap(), now()).unwrap();
        let e4 = frames_of(&g.transcript()).pop().unwrap();
        send(&mut white, &e4).await;
        let answer = next(&mut white).await;
        let RelayFrame::Refused { kind, .. } = &answer else {
            panic!("refused, got {answer:?}")
        };
        assert_eq!(kind, "store", "{answer:?}");
        // Not served: the transcript and the PGN hold no move (or do not answer).
        let (status, _, body) = server
            .raw("GET", &format!("/v1/games/{id}/transcript"), None, vec![])
            .await;
        if status == 200 {
            let held = Transcript::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
            assert!(
                held.moves.is_empty(),
                "the transcript serves a move the relay refused to store: {:?}",
                held.moves
            );
        }
        let (status, _, body) = server.raw("GET", &pgn, None, vec![]).await;
        if status == 200 {
            assert_eq!(
                String::from_utf8(body).unwrap(),
                String::from_utf8(before.clone()).unwrap(),
                "the PGN serves a refused move"
            );
        }
        // The file healed: the same move is message 2, forwarded to both.
        db.execute(
            "DELETE FROM relay_messages WHERE game_id = ?1 AND seq = 2",
            [id.to_string()],
        )
        .unwrap();
        send(&mut white, &e4).await;
        assert_eq!(message_of(&next(&mut white).await), (2, &e4));
        assert_eq!(message_of(&next(&mut black).await), (2, &e4));
        let (status, _, body) = server
            .raw("GET", &format!("/v1/games/{id}/transcript"), None, vec![])
            .await;
        assert_eq!(status, 200);
        let held = Transcript::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
        assert_eq!(held, g.transcript());
        let (_, _, after) = server.raw("GET", &pgn, None, vec![]).await;
        assert_ne!(after, before, "the stored move is in the PGN");
        drop((white, black));
        server.shutdown().await;
    });
}

#[test]
fn test_the_relay_limits() {
    let chain = Chain::start("limits", 2);
    let rt = runtime();
    rt.block_on(async {
        let limits = RelayLimits {
            frame_bytes: 2048,
            frames_per_second: 5,
            connections_per_game: 2,
            connections: 3,
            idle: Duration::from_secs(1),
        };
        let server = TestServer::start(Config {
            index: Some(chain.db.clone()),
            relay: limits,
            ..Config::default()
        })
        .await;
        let (a, b) = (chain.ids[0], chain.ids[1]);
        let url = |id: U256| format!("ws://{}/v1/games/{id}/channel", server.addr);
        let (mut first, _) = connect(server.addr, a, "").await;
        let (second, _) = connect(server.addr, a, "").await;
        // Per game.
        let refused = connect_async(url(a)).await.expect_err("a third to game a");
        assert!(refused.to_string().contains("503"), "{refused}");
        let (third, _) = connect(server.addr, b, "").await;
        // In total.
        let refused = connect_async(url(b)).await.expect_err("a fourth in all");
        assert!(refused.to_string().contains("503"), "{refused}");
        drop((second, third));

        // A frame over the size limit.
        first
            .send(Message::text(format!(
                "{{\"type\":\"move\",\"pad\":\"{}\"}}",
                "x".repeat(4096)
            )))
            .await
            .unwrap();
        let (code, reason) = closed(&mut first).await;
        assert_eq!(code, 1009, "{reason}");

        // More frames a second than allowed (valid ones: a duplicate is cheap).
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (mut fast, _) = connect(server.addr, a, "").await;
        let frame = Frame::Receipt(chessref_channel::frame::ReceiptFrame {
            ply: 1,
            seen_at: 0,
            signature: Default::default(),
            delegation: -1,
        });
        for _ in 0..6 {
            send(&mut fast, &frame).await;
        }
        let mut refusals = 0;
        let (code, reason) = loop {
            match tokio::time::timeout(Duration::from_secs(10), fast.next())
                .await
                .unwrap()
            {
                Some(Ok(Message::Text(_))) => refusals += 1,
                Some(Ok(Message::Close(Some(frame)))) => {
                    break (u16::from(frame.code), frame.reason.to_string());
                }
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(refusals, 5, "five answered before the limit");
        assert_eq!(code, 1008);
        assert!(reason.contains("5 frames per second"), "{reason}");

        // Idle: a client that reads nothing answers no ping and is closed.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (mut idle, _) = connect(server.addr, a, "").await;
        let opened = Instant::now();
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let (code, reason) = closed(&mut idle).await;
        assert_eq!(code, 1001, "{reason}");
        assert!(opened.elapsed() < Duration::from_secs(5));

        // Still serving.
        let (status, _, _) = server
            .raw("GET", &format!("/v1/games/{a}/transcript"), None, vec![])
            .await;
        assert_eq!(status, 200);
        // Every connection gone: no game's room stays in memory.
        drop((first, fast, idle));
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (_, _, body) = server.raw("GET", "/v1/health", None, vec![]).await;
        let health: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(health["relayedGames"], 0, "{health}");
        server.shutdown().await;
    });
}

/// `chessref serve` on `chain`'s index, with the default limits.
async fn serving(chain: &Chain) -> TestServer {
    TestServer::start(Config {
        index: Some(chain.db.clone()),
        ..Config::default()
    })
    .await
}

/// Both players of game `g` seated at `server`'s relay and white's e4 forwarded to both
/// as message 2.
async fn seated_after_e4(server: &TestServer, g: &mut OffChainGame) -> (Socket, Socket) {
    let (mut white, mut black) = seated(server.addr, g).await;
    g.play(Move::from_uci("e2e4").unwrap(), now()).unwrap();
    let e4 = frames_of(&g.transcript()).pop().unwrap();
    send(&mut white, &e4).await;
    assert_eq!(message_of(&next(&mut white).await), (2, &e4));
    assert_eq!(message_of(&next(&mut black).await), (2, &e4));
    (white, black)
}

/// White settles game `g` on-chain with the result both sign after its moves so far,
/// then waits until the server's API (the index file its path names) shows it ended.
async fn settle_and_see_it_end(chain: &mut Chain, server: &TestServer, g: &OffChainGame) {
    let settlement = g
        .transcript_agreed(1)
        .unwrap()
        .verify(&NoPins, now())
        .unwrap()
        .settlement;
    let white = g.game.white;
    std::thread::scope(|s| {
        s.spawn(|| chain.referee.send_channel(white, &settlement))
            .join()
            .unwrap()
    })
    .expect("settle");
    let id = g.game.game_id;
    let started = Instant::now();
    loop {
        let (status, _, body) = server
            .raw("GET", &format!("/v1/games/{id}"), None, vec![])
            .await;
        // A rebuilt index may not hold the game yet.
        if status == 200 {
            let game: serde_json::Value = serde_json::from_slice(&body).unwrap();
            if game["phase"] == "ended" {
                return;
            }
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `frame` sent twice by `sender`: refused both times (`kind`, the reason holding
/// `why`), and never forwarded to `other`.
async fn refused_twice(
    sender: &mut Socket,
    other: &mut Socket,
    frame: &Frame,
    kind: &str,
    why: &str,
) {
    for _ in 0..2 {
        send(sender, frame).await;
        let answer = next(sender).await;
        let RelayFrame::Refused {
            kind: refused,
            reason,
            ..
        } = &answer
        else {
            panic!("refused, got {answer:?}")
        };
        assert_eq!(refused, kind, "{answer:?}");
        assert!(reason.contains(why), "{reason}");
    }
    let quiet = tokio::time::timeout(Duration::from_millis(300), other.next()).await;
    assert!(
        !matches!(quiet, Ok(Some(Ok(Message::Text(_))))),
        "forwarded: {quiet:?}"
    );
}

#[test]
fn test_a_game_ended_on_chain_under_an_open_room_takes_no_more_messages() {
    // Issue 30: the relay keeps each game's on-chain record in its room and reads it
    // again only when the index's logs of the game moved. A game settled on-chain while
    // its room is open (its record read before) must refuse the next message, never
    // store or forward it: the group commit sees the index moved, the message is
    // refused by the game, the book read back.
    let mut chain = Chain::start("ended-under-room", 1);
    let id = chain.ids[0];
    let mut g = chain.off_chain(0);
    let rt = runtime();
    rt.block_on(async {
        let server = serving(&chain).await;
        let (mut white, mut black) = seated_after_e4(&server, &mut g).await;

        // Both agree a result after e4 (signed between them, not relayed) and white
        // settles it on-chain; the indexer sees the game end.
        settle_and_see_it_end(&mut chain, &server, &g).await;

        // Black's receipt of e4, to the room whose record was read before the end:
        // refused by the game, twice (the second from the record read again), never
        // forwarded.
        g.receipt(now()).unwrap();
        let receipt = frames_of(&g.transcript()).pop().unwrap();
        refused_twice(&mut black, &mut white, &receipt, "game", "ended").await;
        // Never stored.
        let held = rusqlite::Connection::open(&chain.db)
            .unwrap()
            .query_row(
                "SELECT count(*) FROM relay_messages WHERE game_id = ?1",
                [id.to_string()],
                |row| row.get::<_, i64>(0),
            )
            .unwrap();
        assert_eq!(held, 2);
        let (status, _, body) = server
            .raw("GET", &format!("/v1/games/{id}/transcript"), None, vec![])
            .await;
        assert_eq!(status, 200);
        let transcript = Transcript::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
        assert_eq!(transcript.moves.len(), 1);
        assert!(transcript.moves[0].receipt.is_none());
        drop((white, black));
        server.shutdown().await;
    });
}

#[test]
fn test_a_failed_group_commit_tells_no_sender_stored_and_a_restart_resumes() {
    // Issue 30: messages that arrive together are stored in one transaction. When one
    // of them fails the transaction (a full disk rolls it all back), none of its
    // senders may be told "stored" or see it forwarded; sent again, each is stored
    // once; a restarted relay holds each once.
    let mut chain = Chain::start("group-commit", 4);
    let ids = chain.ids.clone();
    let mut games: Vec<_> = (0..4).map(|i| chain.off_chain(i)).collect();
    let rt = runtime();
    rt.block_on(async {
        let config = Config {
            index: Some(chain.db.clone()),
            ..Config::default()
        };
        let server = TestServer::start(config.clone()).await;
        let mut sockets = Vec::new();
        for g in &games {
            sockets.push(seated(server.addr, g).await);
        }
        let e4s: Vec<Frame> = games
            .iter_mut()
            .map(|g| {
                g.play(Move::from_uci("e2e4").unwrap(), now()).unwrap();
                frames_of(&g.transcript()).pop().unwrap()
            })
            .collect();
        // The file fails any write of game 1's messages the way a full disk does.
        let db = rusqlite::Connection::open(&chain.db).unwrap();
        db.busy_timeout(Duration::from_secs(10)).unwrap();
        db.execute_batch(&format!(
            "CREATE TRIGGER fail BEFORE INSERT ON relay_messages WHEN NEW.game_id = '{}'
             BEGIN SELECT RAISE(ROLLBACK, 'disk full'); END;",
            ids[1]
        ))
        .unwrap();
        // Another writer holds the file: game 0's e4 waits in the writer, and games 1
        // to 3's queue behind it, to be stored together in the next commit.
        db.execute_batch("BEGIN IMMEDIATE").unwrap();
        send(&mut sockets[0].0, &e4s[0]).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        for i in 1..4 {
            send(&mut sockets[i].0, &e4s[i]).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        db.execute_batch("COMMIT").unwrap();
        let stored = |game: U256| -> i64 {
            db.query_row(
                "SELECT count(*) FROM relay_messages WHERE game_id = ?1",
                [game.to_string()],
                |row| row.get(0),
            )
            .unwrap()
        };
        // Game 0's commit came first: stored and forwarded.
        assert_eq!(message_of(&next(&mut sockets[0].0).await), (2, &e4s[0]));
        assert_eq!(message_of(&next(&mut sockets[0].1).await), (2, &e4s[0]));
        assert_eq!(stored(ids[0]), 2);
        // Games 1 to 3 shared the commit game 1's write rolled back: each refused by the
        // store, not stored, not forwarded.
        for i in 1..4 {
            let answer = next(&mut sockets[i].0).await;
            let RelayFrame::Refused { kind, reason, .. } = &answer else {
                panic!("game {i}: refused, got {answer:?}")
            };
            assert_eq!(kind, "store", "{answer:?}");
            assert!(reason.contains("disk full"), "{reason}");
            assert_eq!(stored(ids[i]), 1, "game {i}");
            let quiet = tokio::time::timeout(Duration::from_millis(100), sockets[i].1.next()).await;
            assert!(
                !matches!(quiet, Ok(Some(Ok(Message::Text(_))))),
                "game {i} forwarded {quiet:?}"
            );
        }
        // The disk has room again: each sent again is stored once, game 0's a duplicate.
        db.execute_batch("DROP TRIGGER fail").unwrap();
        send(&mut sockets[0].0, &e4s[0]).await;
        assert_eq!(
            next(&mut sockets[0].0).await,
            RelayFrame::Duplicate { seq: 2 }
        );
        for i in 1..4 {
            send(&mut sockets[i].0, &e4s[i]).await;
            assert_eq!(message_of(&next(&mut sockets[i].0).await), (2, &e4s[i]));
            assert_eq!(message_of(&next(&mut sockets[i].1).await), (2, &e4s[i]));
        }
        drop(sockets);
        server.shutdown().await;

        // Restarted: every game holds its delegation and e4, once.
        let server = TestServer::start(config).await;
        for (g, &id) in games.iter().zip(&ids) {
            assert_eq!(stored(id), 2);
            let (status, _, body) = server
                .raw("GET", &format!("/v1/games/{id}/transcript"), None, vec![])
                .await;
            assert_eq!(status, 200);
            let held = Transcript::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
            assert_eq!(held, g.transcript());
        }
        server.shutdown().await;
    });
}

#[test]
fn test_an_index_rebuilt_under_the_relay_takes_no_message_it_would_lose() {
    // Review of issue 30: the operator deletes the index and starts chessref index again
    // (its own advice when its file goes) while chessref serve runs. The relay's
    // connections still have the deleted file: a message stored there is lost to every
    // reader and to a restarted relay, and its commit checks the game against logs the
    // indexer no longer writes, so a game settled on-chain since still takes messages.
    // The relay must refuse (not store, not forward) until restarted.
    let mut chain = Chain::start("rebuilt-under-relay", 1);
    let id = chain.ids[0];
    let mut g = chain.off_chain(0);
    let rt = runtime();
    rt.block_on(async {
        let server = serving(&chain).await;
        let (mut white, mut black) = seated_after_e4(&server, &mut g).await;

        // The index deleted (the running indexer stops at its next step) and built again
        // at the same path by a new indexer.
        for suffix in ["", "-wal", "-shm", ".lock"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", chain.db.display()));
        }
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let rebuilding =
            index_in_thread(chain.anvil.url(), &chain.db, chain.referee.address(), &stop);
        // The game settled on-chain (a result both signed after e4); the rebuilt index
        // sees it end (the API reads the file the path names).
        settle_and_see_it_end(&mut chain, &server, &g).await;

        // Black's receipt of e4: refused by the store, twice, never forwarded.
        g.receipt(now()).unwrap();
        let receipt = frames_of(&g.transcript()).pop().unwrap();
        let restart = "restart chessref serve";
        refused_twice(&mut black, &mut white, &receipt, "store", restart).await;
        // A room opened now is refused too, naming why.
        let (status, _, body) = server
            .raw("GET", &format!("/v1/games/{id}/transcript"), None, vec![])
            .await;
        assert_ne!(status, 200);
        let body = String::from_utf8(body).unwrap();
        assert!(body.contains("restart chessref serve"), "{body}");
        drop((white, black));
        server.shutdown().await;
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        rebuilding.join().unwrap();
    });
}
