//! A channel game between two `chessref channel play` processes on anvil, through the
//! relay of a `chessref serve --index` process fed by a `chessref index` process: each a
//! real process, as a person starts them. Moves go in on standard input, events come out
//! as JSON lines.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};
use chessref_evm::{Referee, RpcChain, anvil::Anvil};
use serde_json::Value;

mod common;

use common::*;

#[test]
fn two_players_play_a_staked_channel_game_to_mate_through_the_relay() {
    let table = Table::new("mate");
    let mut white = table.player("white", KEY_WHITE);
    let mut black = table.player("black", KEY_BLACK);
    let scholar = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];
    for (ply, san) in (1..).zip(scholar) {
        if ply == 4 {
            // Black's process is killed and restarted: it resumes from its own
            // transcript and the relay.
            drop(black);
            black = Player::start(
                "black",
                KEY_BLACK,
                &table.play_args(),
                &table.dir.join("black"),
            );
            let started = black.expect("started", |_| true);
            assert_eq!(started["ply"], 3, "{started}");
        }
        exchange_ply(&mut white, &mut black, san, ply);
    }
    let ended = white.expect("ended", |_| true);
    assert_eq!(
        (ended["result"].as_u64(), ended["youSettle"].as_bool()),
        (Some(1), Some(true))
    );
    let settled = white.expect("settled", |_| true);
    assert!(settled["gasUsed"].as_u64().unwrap() > 21_000);
    black.expect("ended", |e| e["youSettle"] == false);
    assert!(white.exit_status().success());
    assert!(black.exit_status().success());

    // On-chain: white won by agreement to the mate, and holds both stakes.
    let mut referee = table.referee();
    let game = referee.game(table.game_id()).unwrap();
    assert_eq!((game.phase, game.result), (3, 1), "ended, white won");
    let stake = U256::from(10u64.pow(16));
    let white: Address = WHITE.parse().unwrap();
    let black: Address = BLACK.parse().unwrap();
    assert_eq!(
        referee.credits(white, Address::ZERO).unwrap(),
        stake * U256::from(2)
    );
    assert_eq!(referee.credits(black, Address::ZERO).unwrap(), U256::ZERO);
    // White's own transcript verifies.
    let out = run(
        None,
        &[
            "channel",
            "verify",
            table.transcript("white").to_str().unwrap(),
            "--json",
        ],
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["validPlies"], 7, "{report}");
}

#[test]
fn a_draw_is_agreed_across_a_relay_restart() {
    let mut table = Table::new("draw");
    let mut white = table.player("white", KEY_WHITE);
    let mut black = table.player("black", KEY_BLACK);
    exchange(&mut white, &black, "e4", 1);
    exchange(&mut black, &white, "e5", 2);
    // A forged third move, injected into the relay process by a stranger: refused,
    // never forwarded (white's real move below is the next thing black sees), and the
    // stranger's connection closed.
    let forged = forged_move(&table, "white", "Qh5");
    let url = format!(
        "ws://127.0.0.1:{}/v1/games/{}/channel",
        table.port, table.id
    );
    let (mut intruder, _) = tungstenite::connect(&url).expect("a WebSocket");
    intruder.send(tungstenite::Message::text(forged)).unwrap();
    let mut refused = None;
    loop {
        match intruder.read() {
            Ok(tungstenite::Message::Text(text)) => {
                let frame: Value = serde_json::from_str(text.as_str()).unwrap();
                if frame["type"] == "refused" {
                    refused = Some(frame);
                }
            }
            Ok(tungstenite::Message::Close(frame)) => {
                assert_eq!(u16::from(frame.expect("a reason").code), 1008);
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    assert_eq!(refused.expect("refused")["kind"], "signature");
    // The relay dies; white moves meanwhile (kept in its transcript); the relay comes
    // back on the same file and port, and nothing is lost.
    table.serve = None;
    white.say("Nf3");
    std::thread::sleep(Duration::from_millis(300));
    table.start_relay();
    let seen = black.expect("move", |e| e["ply"] == 3);
    assert_eq!(seen["san"], "Nf3");
    black.say("draw");
    white.expect("drawOffer", |e| e["by"] == "black");
    white.say("draw");
    let ended = white.expect("ended", |_| true);
    assert_eq!(
        (ended["result"].as_u64(), ended["youSettle"].as_bool()),
        (Some(3), Some(true)),
        "{ended}"
    );
    white.expect("settled", |_| true);
    black.expect("ended", |e| e["result"] == 3);
    assert!(white.exit_status().success());
    assert!(black.exit_status().success());
    let mut referee = table.referee();
    let game = referee.game(table.game_id()).unwrap();
    assert_eq!((game.phase, game.result), (3, 3), "a draw");
    let stake = U256::from(10u64.pow(16));
    for player in [WHITE, BLACK] {
        let credit = referee
            .credits(player.parse().unwrap(), Address::ZERO)
            .unwrap();
        assert_eq!(credit, stake, "{player} gets its stake back");
    }
}

/// `name`'s latest transcript, cut to `plies` moves.
fn cut(table: &Table, name: &str, plies: usize) -> chessref_channel::Transcript {
    let text = std::fs::read_to_string(table.transcript(name)).unwrap();
    let mut t = chessref_channel::Transcript::from_json(&text).unwrap();
    t.moves.truncate(plies);
    t.result = None;
    t.resignation = None;
    t
}

/// The next move `san`, signed by a key that is not `name`'s (a forgery): its frame.
fn forged_move(table: &Table, name: &str, san: &str) -> String {
    use chessref_channel::client::{OffChainGame, Seat};
    let t = cut(table, name, usize::MAX);
    let stranger: alloy::signers::local::PrivateKeySigner =
        "0x1111111111111111111111111111111111111111111111111111111111111111"
            .parse()
            .unwrap();
    let mut g = OffChainGame::new(
        t.domain,
        t.game.clone(),
        Seat::wallet(stranger.clone()),
        Seat::wallet(stranger),
    )
    .unwrap();
    g.moves = (0..t.moves.len())
        .map(|i| (t.message(i), t.move_auth(i).unwrap()))
        .collect::<Vec<_>>();
    g.moves.insert(
        0,
        (
            t.game.start_move().unwrap(),
            chessref_channel::Auth::direct(alloy_primitives::Bytes::new()),
        ),
    );
    let state = chessref_core::State::from_bytes(&g.last().state).unwrap();
    let mv = state.parse_move(san).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    g.play(mv, now).unwrap();
    let (last, auth) = g.moves.last().unwrap().clone();
    let entry = chessref_channel::transcript::MoveEntry::signed(&last, auth.signature, -1);
    serde_json::to_string(&chessref_channel::Frame::Move(entry)).unwrap()
}

#[test]
fn a_contradicting_registration_is_proven_by_the_watchtower_process() {
    let table = Table::new("equivocation");
    let mut white = table.player("white", KEY_WHITE);
    let mut black = table.player("black", KEY_BLACK);
    play(&mut white, &mut black, &["e4", "e5", "Nf3", "Nc6"]);
    drop(white);
    drop(black);
    // White, cheating, signs another third move with its own session key (read from its
    // client's files) and registers it: a second signed move for ply 3.
    let dir = table.transcript("white").parent().unwrap().to_path_buf();
    let key: alloy::signers::local::PrivateKeySigner =
        std::fs::read_to_string(dir.join("session.key"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
    let mut cheat = cut(&table, "white", 2);
    let previous = cheat.message(1);
    let state = chessref_core::State::from_bytes(&previous.state).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let other = chessref_channel::successor(
        &previous,
        state.parse_move("Bc4").unwrap(),
        now,
        cheat.game.increment,
    )
    .unwrap();
    let white_delegation = cheat
        .delegations
        .iter()
        .position(|d| d.player == chessref_channel::transcript::Side::White)
        .unwrap();
    let signature = chessref_channel::signer::sign(&key, &cheat.domain, &other).unwrap();
    cheat
        .moves
        .push(chessref_channel::transcript::MoveEntry::signed(
            &other,
            signature,
            white_delegation as i64,
        ));
    let cheat_file = table.dir.join("cheat.json");
    std::fs::write(&cheat_file, serde_json::to_string(&cheat).unwrap()).unwrap();
    let out = run(
        Some(KEY_WHITE),
        &[
            "channel",
            "dispute",
            cheat_file.to_str().unwrap(),
            "--rpc",
            table.anvil.url(),
        ],
    );
    assert!(out.contains("sent ChessChannel.register"), "{out}");

    // The watchtower holds black's receipt of the real third move: it proves the
    // equivocation, and black wins.
    let watch = run(
        Some(KEY_TOWER),
        &[
            "watch",
            "--rpc",
            table.anvil.url(),
            "--db",
            &table.db,
            "--once",
        ],
    );
    assert!(watch.contains("proveEquivocation"), "{watch}");
    let game = table.referee().game(table.game_id()).unwrap();
    assert_eq!(
        (game.phase, game.result, game.reason),
        (3, 2, 12),
        "black wins"
    );
}

#[test]
fn a_silent_opponent_is_registered_and_the_game_goes_on_on_chain_in_the_same_session() {
    let table = Table::new("silent");
    let mut args = table.play_args();
    args.extend(["--patience".to_string(), "1".to_string()]);
    let mut white = Player::start("white", KEY_WHITE, &args, &table.dir.join("white"));
    white.expect("started", |_| true);
    let mut black = table.player("black", KEY_BLACK);
    exchange(&mut white, &black, "e4", 1);
    exchange(&mut black, &white, "e5", 2);
    // Black goes silent; white's move is never acknowledged.
    drop(black);
    white.say("Nf3");
    let silent = white.expect("silent", |_| true);
    assert!(silent["registerBy"].as_u64().is_some(), "{silent}");
    white.say("register");
    let registered = white.expect("registered", |_| true);
    assert_eq!(registered["ply"], 3, "{registered}");
    let mut referee = table.referee();
    assert_eq!(
        referee
            .channel_status(table.game_id())
            .unwrap()
            .registeredPly,
        3
    );
    // The window passes; black comes back, on-chain now, and answers with a transaction;
    // white's session shows it.
    advance(&mut referee, 601);
    let mut black = Player::start("black", KEY_BLACK, &args, &table.dir.join("black"));
    let started = black.expect("started", |_| true);
    assert_eq!(started["onChain"], true, "{started}");
    black.say("Nc6");
    black.expect("sent", |e| e["operation"] == "move");
    let seen = white.expect("position", |e| e["lastMove"]["ply"] == 4);
    assert_eq!(seen["lastMove"]["san"], "Nc6", "{seen}");
    white.say("Bc4");
    black.expect("position", |e| e["lastMove"]["ply"] == 5);
    // Issue 29: a command the contract refuses (white claims black's timeout, black has
    // hours): the error event says it in words, with the contract's error by name and
    // fields, and nothing is sent.
    white.expect("sent", |e| e["operation"] == "move");
    let error = white.refused("claim", &["sending", "sent"]);
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the side to move still has time: its flag falls at ")
            && message.contains(" UTC (in "),
        "{error}"
    );
    assert_eq!(error["revert"]["name"], "TimeNotUp", "{error}");
    let deadline = error["revert"]["deadline"].as_u64().unwrap_or_default();
    assert!(deadline > unix_now() + 3_600, "{error}");
    // Issue 29, item 7: on-chain, `draw` offers (and the other's `draw` accepts) and
    // `resign` resigns, as the referee's calls, not as moves.
    black.say("draw");
    black.expect("sent", |e| e["operation"] == "offerDraw");
    black.say("resign");
    black.expect("sent", |e| e["operation"] == "resign");
    let game = referee.game(table.game_id()).unwrap();
    assert_eq!(
        (game.phase, game.result, game.reason),
        (3, 1, 5),
        "white wins by resignation"
    );
}

#[test]
fn a_threefold_repetition_is_claimed_from_a_registered_position() {
    let table = Table::new("threefold");
    let mut white = table.player("white", KEY_WHITE);
    let mut black = table.player("black", KEY_BLACK);
    // The start position a third time after ply 8.
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
    play(&mut white, &mut black, &shuffle);
    white.say("claim");
    let registered = white.expect("registered", |_| true);
    assert_eq!(registered["ply"], 8, "{registered}");
    let mut referee = table.referee();
    advance(&mut referee, 601);
    white.say("claim");
    let sent = white.expect("sent", |_| true);
    assert_eq!(sent["operation"], "claimDraw", "{sent}");
    let game = referee.game(table.game_id()).unwrap();
    assert_eq!((game.phase, game.result), (3, 3), "a draw");
    drop(black);
}

/// White and black play 1. e4 e5 2. Nf3 Nc6; both go away, white registers the pair of
/// ply 2 (hiding its loss of tempo), and a watchtower (`chessref watch --once`, from its own
/// account) overtakes it with the latest pair it holds, of ply 4. Black's transcript file.
fn registered_then_overtaken(table: &Table) -> PathBuf {
    let mut white = table.player("white", KEY_WHITE);
    let mut black = table.player("black", KEY_BLACK);
    play(&mut white, &mut black, &["e4", "e5", "Nf3", "Nc6"]);
    let black_transcript = table.transcript("black");
    drop(black);
    drop(white);
    let mut stale: Value =
        serde_json::from_str(&std::fs::read_to_string(table.transcript("white")).unwrap()).unwrap();
    stale["moves"].as_array_mut().unwrap().truncate(2);
    let stale_file = table.dir.join("stale.json");
    std::fs::write(&stale_file, stale.to_string()).unwrap();
    let mut dispute = vec!["channel", "dispute", stale_file.to_str().unwrap()];
    dispute.extend(["--rpc", table.anvil.url()]);
    let out = run(Some(KEY_WHITE), &dispute);
    assert!(out.contains("sent ChessChannel.register"), "{out}");
    let mut referee = table.referee();
    assert_eq!(
        referee
            .channel_status(table.game_id())
            .unwrap()
            .registeredPly,
        2
    );
    let watch = run(
        Some(KEY_TOWER),
        &[
            "watch",
            "--rpc",
            table.anvil.url(),
            "--db",
            &table.db,
            "--once",
        ],
    );
    assert!(watch.contains("ChessChannel.register"), "{watch}");
    assert!(watch.contains(": tx 0x"), "{watch}");
    assert_eq!(
        referee
            .channel_status(table.game_id())
            .unwrap()
            .registeredPly,
        4
    );
    black_transcript
}

#[test]
fn the_watchtower_overtakes_a_stale_registration_while_a_player_is_away() {
    let table = Table::new("watch");
    let black_transcript = registered_then_overtaken(&table);
    let mut referee = table.referee();
    // Black's own transcript, kept while it was away, agrees with what was registered.
    let out = run(
        None,
        &["channel", "verify", black_transcript.to_str().unwrap()],
    );
    assert!(out.contains("valid: 4 signed plies"), "{out}");

    // After the window, play goes on on-chain from ply 4.
    advance(&mut referee, 601);
    let mut play = vec!["game", "move", table.id.as_str(), "Bc4"];
    let on_chain = table.chain();
    play.extend(on_chain.iter().map(String::as_str));
    let out = run(Some(KEY_WHITE), &play);
    assert!(out.contains("sent move"), "{out}");
}

/// Issue 29, item 6: a `channel play` session killed, then restarted after the opponent
/// registered and a watchtower overtook, says who registered which ply and when each
/// window ends, as text and as `--json` events; `register` then sends nothing stale, while
/// frozen nor once play goes on on-chain (which it says too).
#[test]
fn a_resumed_session_tells_the_registration_and_the_overtake_it_missed() {
    let table = Table::new("resumed");
    registered_then_overtaken(&table);
    let mut referee = table.referee();
    let status = referee.channel_status(table.game_id()).unwrap();
    let window_end = status.windowEnd;
    let tower = alloy::signers::local::PrivateKeySigner::from_bytes(&KEY_TOWER.parse().unwrap())
        .unwrap()
        .address();
    let mut args = table.play_args();
    let black_dir = table.dir.join("black");
    args.extend(["--dir".to_string(), black_dir.to_str().unwrap().to_string()]);

    // As text: both registrations, their senders and the window's end.
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = command(Some(KEY_BLACK), &args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let _stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let text = Process(child);
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            eprintln!("black (text) > {line}");
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let clock = &chessref_evm::moment::rfc3339(window_end as i64)[11..19];
    let wanted = [
        format!("your opponent ({WHITE}) registered ply 2 on-chain"),
        format!("a watchtower ({tower}) overtook ply 2 with ply 4 on-chain (tx 0x"),
        // Issue 29: the window's end as a clock time and a distance, not a unix time.
        "its response window ends at ".to_owned(),
        format!("{clock} UTC (in "),
        "ply 4 is registered on-chain and frozen until ".to_owned(),
    ];
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !wanted.iter().all(|w| seen.contains(w.as_str())) {
        let line = lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("no {wanted:?} within 60 s in:\n{seen}"));
        seen.push_str(&line);
        seen.push('\n');
    }
    assert!(!seen.contains("unix time"), "{seen}");
    drop(text);

    // As JSON events.
    let mut black = Player::start("black", KEY_BLACK, &table.play_args(), &black_dir);
    let first = black.expect("registration", |e| e["ply"] == 2);
    assert_eq!(
        (
            first["by"].as_str(),
            first["sender"].as_str(),
            first["overtook"].as_u64()
        ),
        (Some("opponent"), Some(WHITE), None),
        "{first}"
    );
    assert!(
        first["windowEnd"]
            .as_u64()
            .is_some_and(|end| end > 0 && end <= window_end),
        "{first}"
    );
    let overtake = black.expect("registration", |e| e["ply"] == 4);
    let tower_text = tower.to_string();
    assert_eq!(
        (
            overtake["by"].as_str(),
            overtake["sender"].as_str(),
            overtake["overtook"].as_u64(),
            overtake["windowEnd"].as_u64(),
            overtake["open"].as_bool()
        ),
        (
            Some("watchtower"),
            Some(tower_text.as_str()),
            Some(2),
            Some(window_end),
            Some(true)
        ),
        "{overtake}"
    );
    let frozen = black.expect("frozen", |e| e["ply"] == 4);
    assert_eq!(frozen["toMove"], "white", "{frozen}");

    // `register` sends nothing: black holds no later pair than the registered one.
    let refusal = |black: &mut Player, says: &str| {
        let event = black.refused("register", &["sent", "registered", "overtake"]);
        let message = event["message"].as_str().unwrap();
        assert!(
            message.contains(says) && !message.contains("StaleRegistration"),
            "{event}"
        );
    };
    refusal(&mut black, "ply 4 is registered on-chain and frozen");
    // After the window, play goes on on-chain, which the session says; a registration
    // would be stale.
    advance(&mut referee, 601);
    let live = black.expect("live", |_| true);
    assert_eq!(live["ply"], 4, "{live}");
    refusal(
        &mut black,
        "the game is played on-chain from the registered ply 4",
    );
}

/// An opponent that takes every frame from the relay and never answers: a raw
/// WebSocket of game `table`'s channel, read on a thread. The plies of the moves it
/// was sent come out of the returned receiver.
fn silent_opponent(table: &Table) -> Receiver<u64> {
    let url = format!(
        "ws://127.0.0.1:{}/v1/games/{}/channel",
        table.port, table.id
    );
    let (mut socket, _) = tungstenite::connect(&url).expect("a WebSocket");
    let (tx, plies) = channel();
    std::thread::spawn(move || {
        while let Ok(message) = socket.read() {
            let tungstenite::Message::Text(text) = message else {
                continue;
            };
            let frame: Value = serde_json::from_str(text.as_str()).unwrap();
            if frame["type"] == "message" && frame["message"]["type"] == "move" {
                let _ = tx.send(frame["message"]["ply"].as_u64().unwrap());
            }
        }
    });
    plies
}

/// White and black play 1. e4 e5 (each acknowledged); black's process goes, and an
/// opponent that reads everything and never answers takes its place; white plays Nf3.
/// White's process, and the silent opponent's view of the relay.
fn unacknowledged_third_move(table: &Table, extra: &[&str]) -> (Player, Receiver<u64>) {
    let mut args = table.play_args();
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut white = Player::start("white", KEY_WHITE, &args, &table.dir.join("white"));
    white.expect("started", |_| true);
    let mut black = table.player("black", KEY_BLACK);
    exchange(&mut white, &black, "e4", 1);
    exchange(&mut black, &white, "e5", 2);
    drop(black);
    let silent = silent_opponent(table);
    white.say("Nf3");
    // The opponent holds the move (the relay's backlog first, then ply 3).
    let deadline = Instant::now() + Duration::from_secs(60);
    while silent
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .expect("the silent opponent got white's move")
        != 3
    {}
    (white, silent)
}

/// White's signed move of ply `ply`, from its transcript file.
fn signed_move(table: &Table, ply: usize) -> chessref_channel::Move {
    cut(table, "white", usize::MAX).message(ply - 1)
}

#[test]
fn a_move_the_opponent_holds_without_a_receipt_is_registered_by_the_client_itself() {
    let table = Table::new("autoregister");
    let (white, _silent) = unacknowledged_third_move(&table, &[]);
    // Nobody types anything: the client registers by itself, and says so.
    let auto = white.expect("autoRegister", |_| true);
    let registered = white.expect("registered", |_| true);
    assert_eq!(
        (
            registered["ply"].as_u64(),
            registered["automatic"].as_bool()
        ),
        (Some(3), Some(true)),
        "{registered}"
    );
    let nf3 = signed_move(&table, 3);
    assert!(
        cut(&table, "white", usize::MAX).moves[2].receipt.is_none(),
        "white never got a receipt"
    );
    // At the rule's time: min(sent + 10 s, stamp + 30 s).
    let sent_at = auto["sentAt"].as_u64().unwrap();
    assert_eq!(auto["stamp"].as_u64(), Some(nf3.timestamp), "{auto}");
    assert_eq!(
        auto["at"].as_u64(),
        Some(chessref_channel::auto_register_at(sent_at, nf3.timestamp)),
        "{auto}"
    );
    // On-chain: the pair of plies 2 and 3 is registered, in a block within 60 s of the
    // stamp and not before the rule's time, paying at least the 2 gwei tip.
    let mut referee = table.referee();
    let id = table.game_id();
    assert_eq!(referee.channel_status(id).unwrap().registeredPly, 3);
    let (place, registration) = referee
        .latest_registration_at(id, 1_000)
        .unwrap()
        .expect("a PositionRegistered");
    assert_eq!(registration.ply, 3);
    let block = referee
        .chain()
        .block_ref(place.block_number)
        .unwrap()
        .unwrap();
    assert!(
        block.timestamp >= auto["at"].as_u64().unwrap()
            && block.timestamp <= nf3.timestamp + chessref_channel::settlement::STAMP_TOLERANCE,
        "registered at {}, stamp {}, due {auto}",
        block.timestamp,
        nf3.timestamp
    );
    let tx = referee
        .chain()
        .raw_request(
            "eth_getTransactionByHash",
            serde_json::json!([place.tx_hash]),
        )
        .unwrap();
    let tip = u128::from_str_radix(
        tx["maxPriorityFeePerGas"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
        16,
    )
    .unwrap();
    assert!(tip >= 2_000_000_000, "{tx}");
    // White kept its time: its budget is its signed time in Nf3 plus the 15 s grace,
    // charged nothing for the opponent's silence.
    let clock = chessref_evm::clock_word::ClockWord(registration.position.clock);
    assert_eq!(
        clock.budget(chessref_core::Color::White),
        u64::from(nf3.whiteTime) + chessref_evm::clock_word::GRACE_PERIOD
    );
}

#[test]
fn without_automatic_registration_the_unacknowledged_move_goes_stale() {
    let table = Table::new("noautoregister");
    let (mut white, _silent) = unacknowledged_third_move(&table, &["--no-auto-register"]);
    let nf3 = signed_move(&table, 3);
    // Past the rule's time (at most 10 s after sending) and more: nothing registered.
    let due = chessref_channel::auto_register_at(nf3.timestamp, nf3.timestamp);
    let quiet_until = due + 5;
    while std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        < quiet_until
    {
        if let Ok(event) = white.events.recv_timeout(Duration::from_millis(200)) {
            assert!(
                !matches!(event["event"].as_str(), Some("registered" | "autoRegister")),
                "{event}"
            );
        }
    }
    let mut referee = table.referee();
    assert_eq!(
        referee
            .channel_status(table.game_id())
            .unwrap()
            .registeredPly,
        0
    );
    // Once the chain is 60 s past the stamp, the move can no longer be registered: the
    // silent opponent's thinking ran on white's clock (the finding this rule answers).
    advance(&mut referee, 61);
    let error = white.refused("register", &["registered"]);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("too long ago to register without the opponent's receipt"),
        "{error}"
    );
}

/// The unix time now.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The latest registration of the table's game: its block's timestamp, the transaction
/// (as the node reports it) and the registration.
fn latest_registration(
    table: &Table,
    referee: &mut Referee<RpcChain>,
) -> (u64, Value, chessref_evm::channel::Registered) {
    let (place, registered) = referee
        .latest_registration_at(table.game_id(), 1_000)
        .unwrap()
        .expect("a PositionRegistered");
    let block = referee
        .chain()
        .block_ref(place.block_number)
        .unwrap()
        .unwrap();
    let tx = referee
        .chain()
        .raw_request(
            "eth_getTransactionByHash",
            serde_json::json!([place.tx_hash]),
        )
        .unwrap();
    (block.timestamp, tx, registered)
}

/// A transaction's sender and priority fee, as the node reports it.
fn sender_and_tip(tx: &Value) -> (Address, u128) {
    let from: Address = tx["from"].as_str().unwrap().parse().unwrap();
    let tip = u128::from_str_radix(
        tx["maxPriorityFeePerGas"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
        16,
    )
    .unwrap();
    (from, tip)
}

/// `name`'s session key and delegation, from its client's files.
fn session_of(
    table: &Table,
    name: &str,
) -> (
    alloy::signers::local::PrivateKeySigner,
    chessref_channel::auth::SignedDelegation,
) {
    let dir = table.transcript(name).parent().unwrap().to_path_buf();
    let key = std::fs::read_to_string(dir.join("session.key"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let entry: chessref_channel::transcript::DelegationEntry =
        serde_json::from_str(&std::fs::read_to_string(dir.join("delegation.json")).unwrap())
            .unwrap();
    let delegation = chessref_channel::auth::SignedDelegation {
        delegation: entry.delegation(),
        signature: entry.signature,
    };
    (key, delegation)
}

#[test]
fn a_registration_of_the_position_before_is_overtaken_by_the_clients_direct_reply_and_a_typed_reply_is_registered()
 {
    use chessref_channel::{NoPins, settlement};
    use chessref_core::Color;
    use chessref_evm::Chain;
    use chessref_evm::clock_word::{ClockWord, GRACE_PERIOD};

    let table = Table::new("directreply");
    let (mut white, _silent) = unacknowledged_third_move(&table, &[]);
    let mut referee = table.referee();
    let id = table.game_id();
    let increment = u64::from(referee.game(id).unwrap().increment);
    let held = cut(&table, "white", 3);
    let (nf3, nf3_auth) = (held.message(2), held.move_auth(2).unwrap());
    // A watchtower shows Nf3 on-chain at once (`chessref watch` does 10 s after the relay
    // took it) ...
    let tower = referee.chain().accounts()[5];
    referee
        .send_channel(tower, &settlement::announce(&nf3, &nf3_auth))
        .unwrap();
    // ... and black, holding Nf3 without acknowledging it, registers the position before it
    // with white's own receipt of e5: white's clock runs from that receipt.
    let before = cut(&table, "white", 2);
    let report = before.verify(&NoPins, unix_now()).unwrap();
    assert_eq!(
        report.settlement.call, "register",
        "{}",
        report.settlement.why
    );
    let black: Address = BLACK.parse().unwrap();
    // White's receipt of e5 was held a moment ago: the chain's clock may not have reached
    // it yet (it failed a run with BadReceipt), so the registration waits for it as the
    // client does.
    chessref_client::session::chain::until_the_chain_reaches_the_receipt(
        || referee.send_channel(black, &report.settlement),
        chessref_evm::EvmError::revert,
    )
    .unwrap();
    assert_eq!(referee.channel_status(id).unwrap().registeredPly, 2);

    // White's client sees it, says so, and registers Nf3 as the direct reply by itself.
    let frozen = white.expect("frozen", |e| e["ply"] == 2);
    assert_eq!(
        (frozen["toMove"].as_str(), frozen["yourMove"].as_bool()),
        (Some("white"), Some(false)),
        "white holds a later move: {frozen}"
    );
    let overtake = white.expect("overtake", |_| true);
    assert_eq!(
        (overtake["ply"].as_u64(), overtake["automatic"].as_bool()),
        (Some(3), Some(true)),
        "{overtake}"
    );
    let registered = white.expect("registered", |e| e["ply"] == 3);
    assert_eq!(registered["overtake"], true, "{registered}");
    let (_, tx, reply) = latest_registration(&table, &mut referee);
    assert_eq!(reply.ply, 3);
    let (from, tip) = sender_and_tip(&tx);
    assert_eq!(
        from,
        WHITE.parse::<Address>().unwrap(),
        "white's own client sent it"
    );
    assert!(tip >= chessref_channel::AUTO_REGISTER_TIP, "{tx}");
    // White keeps its signed time: its budget is Nf3's signed time plus the grace.
    let clock3 = ClockWord(reply.position.clock);
    assert_eq!(
        clock3.budget(Color::White),
        u64::from(nf3.whiteTime) + GRACE_PERIOD
    );

    // Black answers with a direct reply of its own, Nc6, backdated: thought 8 s, signed 0 s
    // (stamped as Nf3), registered by the wall clock.
    std::thread::sleep(Duration::from_secs(8));
    let (key, delegation) = session_of(&table, "black");
    let state = chessref_core::State::from_bytes(&nf3.state).unwrap();
    let nc6 = chessref_channel::successor(
        &nf3,
        state.parse_move("Nc6").unwrap(),
        nf3.timestamp,
        increment as u32,
    )
    .unwrap();
    let nc6_auth = chessref_channel::Auth {
        signature: chessref_channel::signer::sign(&key, &held.domain, &nc6).unwrap(),
        delegation: Some(delegation),
    };
    let frozen3 = chessref_client::shown::Frozen::read(&mut referee, id)
        .unwrap()
        .expect("frozen at ply 3");
    let direct = frozen3.answering(settlement::register(
        (&nf3, &nf3_auth),
        (&nc6, &nc6_auth),
        None,
        None,
        "black's direct reply".into(),
    ));
    referee.send_channel(black, &direct).unwrap();
    let (b4, _, registered4) = latest_registration(&table, &mut referee);
    assert_eq!(registered4.ply, 4);
    let clock4 = ClockWord(registered4.position.clock);

    // White's client takes Nc6 from the chain and says it is white's move, by when.
    let seen = white.expect("move", |e| e["ply"] == 4);
    assert_eq!(
        (seen["san"].as_str(), seen["from"].as_str()),
        (Some("Nc6"), Some("chain"))
    );
    let frozen = white.expect("frozen", |e| e["ply"] == 4);
    assert_eq!(
        (frozen["toMove"].as_str(), frozen["yourMove"].as_bool()),
        (Some("white"), Some(true)),
        "{frozen}"
    );
    assert_eq!(frozen["deadline"].as_u64(), Some(clock4.reply_deadline()));
    assert_eq!(frozen["windowEnd"].as_u64(), Some(clock4.last_timestamp()));
    // A move typed now is signed and registered as the direct reply.
    white.say("Bc4");
    let registered = white.expect("registered", |e| e["ply"] == 5);
    assert_eq!(
        (
            registered["overtake"].as_bool(),
            registered["automatic"].as_bool()
        ),
        (Some(true), Some(false)),
        "{registered}"
    );
    let (b5, tx, registered5) = latest_registration(&table, &mut referee);
    assert_eq!(registered5.ply, 5);
    assert_eq!(sender_and_tip(&tx).0, WHITE.parse::<Address>().unwrap());
    let bc4 = signed_move(&table, 5);
    assert_eq!(
        bc4.previous,
        chessref_channel::messages::Message::hash(&nc6)
    );
    // White signed the seconds it held Nc6 since the chain showed it, none of the 8 s that
    // Nc6's stamp hid (the old stamp, its clock or 30 s behind it, signed them all) ...
    let elapsed = u64::from(nc6.whiteTime) + increment - u64::from(bc4.whiteTime);
    assert_eq!(bc4.timestamp - nc6.timestamp, elapsed);
    assert!(
        elapsed <= b5 - b4 && elapsed < 8,
        "signed {elapsed} s for Nc6 held from block time {b4} to {b5}"
    );
    // ... and the chain charged it by the wall clock, Nc6's block to its own.
    assert_eq!(
        ClockWord(registered5.position.clock).budget(Color::White),
        (u64::from(bc4.whiteTime) + GRACE_PERIOD).min(clock4.reply_deadline() - b5 + increment)
    );
}

#[test]
fn a_registration_sent_before_another_landed_is_resent_against_it_counted_from_its_showing() {
    use chessref_channel::NoPins;
    use chessref_channel::messages::{IChessChannel, Message};
    use chessref_core::Color;
    use chessref_evm::Chain;
    use chessref_evm::clock_word::{ClockWord, GRACE_PERIOD};

    let table = Table::new("race");
    let (white, _silent) = unacknowledged_third_move(&table, &[]);
    let mut referee = table.referee();
    let id = table.game_id();
    let increment = u64::from(referee.game(id).unwrap().increment);
    let nf3 = signed_move(&table, 3);
    let chain = referee.chain();
    // Blocks are mined by hand from before white's client registers Nf3 by itself.
    while unix_now() + 3 < chessref_channel::auto_register_at(nf3.timestamp, nf3.timestamp) {
        std::thread::sleep(Duration::from_millis(100));
    }
    chain
        .raw_request("evm_setAutomine", serde_json::json!([false]))
        .unwrap();
    white.expect("autoRegister", |e| e["ply"] == 3);
    std::thread::sleep(Duration::from_millis(800));
    // Black's registration of the position before, with white's receipt of e5 and a higher
    // tip, lands first in the same block: white's registration, which names no frozen
    // position, registers nothing; the chain records when it showed Nf3.
    let before = cut(&table, "white", 2);
    let report = before.verify(&NoPins, unix_now()).unwrap();
    let channel = referee.channel().unwrap();
    let chain = referee.chain();
    chain
        .raw_request(
            "eth_sendTransaction",
            serde_json::json!([{
                "from": BLACK, "to": channel.to_string(),
                "data": report.settlement.calldata.to_string(), "gas": "0x1e8480",
                "maxPriorityFeePerGas": "0x12a05f200", "maxFeePerGas": "0x174876e800",
            }]),
        )
        .unwrap();
    chain
        .raw_request("evm_mine", serde_json::json!([]))
        .unwrap();
    chain
        .raw_request("evm_setAutomine", serde_json::json!([true]))
        .unwrap();
    let (shown_at, _, registered2) = latest_registration(&table, &mut referee);
    assert_eq!(registered2.ply, 2, "black's registration came first");
    // White's client sees that its transaction registered nothing, and registers Nf3 again
    // as the direct reply to black's registration, by itself.
    let announced = white.expect("announced", |e| e["ply"] == 3);
    assert!(announced["tx"].as_str().is_some(), "{announced}");
    white.expect("frozen", |e| e["ply"] == 2);
    let registered = white.expect("registered", |e| e["ply"] == 3);
    assert_eq!(registered["overtake"], true, "{registered}");
    let (_, tx, registered3) = latest_registration(&table, &mut referee);
    assert_eq!(registered3.ply, 3);
    assert_eq!(sender_and_tip(&tx).0, WHITE.parse::<Address>().unwrap());
    // Counted from the block that first showed Nf3 (white's own first transaction), not
    // from its second one: the wall clock charged white from its receipt of e5 to then.
    let from = referee.channel().unwrap();
    let call = IChessChannel::shownWhileFrozenAtCall {
        moveHash: nf3.hash(),
    };
    let first_shown = referee
        .chain()
        .call(
            WHITE.parse().unwrap(),
            from,
            alloy_sol_types::SolCall::abi_encode(&call).into(),
        )
        .unwrap()
        .decode::<IChessChannel::shownWhileFrozenAtCall>("shownWhileFrozenAt")
        .unwrap();
    assert_eq!(first_shown.to::<u64>(), shown_at);
    let deadline = ClockWord(registered2.position.clock).reply_deadline();
    assert_eq!(
        ClockWord(registered3.position.clock).budget(Color::White),
        (u64::from(nf3.whiteTime) + GRACE_PERIOD).min(deadline - shown_at + increment)
    );
}

/// Issue 29, item 1: the README's block typed at once starts `watch` before `index` has
/// created its file. The watchtower says it waits, stays up, and starts watching once the
/// indexer has created the file and bound it to the referee.
#[test]
fn a_watchtower_started_before_the_indexer_waits_for_its_file() {
    let anvil = Anvil::spawn().expect("anvil");
    let scratch = scratch("watch-first");
    let dir = scratch.path();
    let deployments = deploy(anvil.url(), dir);
    let db = dir.join("index.sqlite").to_str().unwrap().to_owned();
    let mut watch = Process(
        command(
            Some(KEY_TOWER),
            &[
                "watch",
                "--rpc",
                anvil.url(),
                "--db",
                &db,
                "--poll-ms",
                "50",
            ],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap(),
    );
    let (lines, said) = channel();
    let stderr = watch.0.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let first = said
        .recv_timeout(Duration::from_secs(20))
        .expect("watch says something");
    assert!(
        first.contains("waiting for the index file") && first.contains(&db),
        "{first}"
    );
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        watch.0.try_wait().unwrap().is_none(),
        "the watchtower waits instead of exiting"
    );
    let _index = spawn_index(anvil.url(), &deployments, &db);
    let started = loop {
        let line = said
            .recv_timeout(Duration::from_secs(30))
            .expect("watch starts once the index exists");
        if line.starts_with("chessref watch: games relayed in") {
            break line;
        }
    };
    assert!(started.contains(&db), "{started}");
    assert!(watch.0.try_wait().unwrap().is_none(), "and keeps watching");
}

/// CPU seconds (user + system) `pid` has used, from /proc (Linux).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    // The fields after the command name (which may hold spaces) from ")": utime and stime
    // are the 14th and 15th of the whole line.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // USER_HZ, 100 on Linux for every architecture this runs on.
    ticks / 100.0
}

/// Issue 29, item 9: a bot that closes standard input and has no relay connection leaves
/// an idle session, which must not spin (it burnt 81 % of a core).
#[test]
fn an_idle_session_with_standard_input_closed_does_not_spin() {
    let table = Table::new("idle");
    // A relay address where nothing listens: the session retries every 2 s, idle between.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://{}", dead.local_addr().unwrap());
    drop(dead);
    let mut args = table.play_args();
    let at = args.iter().position(|a| a == "--relay").unwrap();
    args[at + 1] = dead_url;
    args.extend([
        "--dir".to_string(),
        table.dir.join("white").to_str().unwrap().to_owned(),
    ]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut session = Process(
        command(Some(KEY_WHITE), &refs)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let pid = session.0.id();
    // Past start-up (the chain read, the session key), then 3 s of idling measured.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        session.0.try_wait().unwrap().is_none(),
        "the session stays up"
    );
    let before = cpu_seconds(pid);
    std::thread::sleep(Duration::from_secs(3));
    let used = cpu_seconds(pid) - before;
    assert!(
        session.0.try_wait().unwrap().is_none(),
        "the session stays up"
    );
    assert!(
        used < 0.3,
        "an idle session used {used:.2} CPU seconds in 3 s (a spin uses about 3)"
    );
}

/// Issue 29, item 14: the creator starts its client before anyone joined: it says it waits
/// and starts the game once the opponent joins, instead of exiting.
#[test]
fn a_creator_who_starts_before_the_join_waits_for_it() {
    let table = Table::new("early");
    let mut create = vec![
        "channel",
        "create",
        "--opponent",
        BLACK,
        "--stake",
        "0.01eth",
        "--window",
        "600",
    ];
    let chain = table.chain();
    create.extend(chain.iter().map(String::as_str));
    let created = run(Some(KEY_WHITE), &create);
    let id = created
        .lines()
        .find_map(|l| l.strip_prefix("created game "))
        .expect("the game id")
        .trim()
        .to_owned();
    assert_ne!(id, table.id, "a second game");
    let mut args: Vec<String> = ["channel", "play", id.as_str(), "--relay", &table.relay]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(chain.iter().cloned());
    let white = Player::start("white", KEY_WHITE, &args, &table.dir.join("white-early"));
    let waiting = white.expect("waiting", |_| true);
    assert_eq!(waiting["game"], id.as_str(), "{waiting}");
    let mut join = vec!["channel", "join", id.as_str()];
    join.extend(chain.iter().map(String::as_str));
    run(Some(KEY_BLACK), &join);
    let started = white.expect("started", |_| true);
    assert_eq!(started["colour"], "white", "{started}");
    assert_eq!(started["game"], id.as_str(), "{started}");
}

/// Issue 29, item 12: black, waiting for white's first move, is told what it can do (wait;
/// else register the start and abort after the windows), and that advice works.
#[test]
fn a_first_move_never_made_is_explained_and_the_game_aborted() {
    let table = Table::new("first-move");
    let mut args = table.play_args();
    args.extend(["--patience".to_string(), "1".to_string()]);
    let white = Player::start("white", KEY_WHITE, &args, &table.dir.join("white"));
    white.expect("started", |_| true);
    drop(white);
    let mut black = Player::start("black", KEY_BLACK, &args, &table.dir.join("black"));
    black.expect("started", |_| true);
    let silent = black.expect("silent", |_| true);
    assert_eq!(silent["ply"], 0, "{silent}");
    assert_eq!(silent["firstMove"], true, "{silent}");
    black.say("register");
    let registered = black.expect("registered", |_| true);
    assert_eq!(registered["ply"], 0, "{registered}");
    let mut referee = table.referee();
    // The response window (600 s) and the first-move window (the referee's default, 300 s).
    advance(&mut referee, 601 + 301);
    black.say("claim");
    black.expect("sent", |e| e["operation"] == "claimTimeout");
    let game = referee.game(table.game_id()).unwrap();
    assert_eq!(
        (game.phase, game.result, game.reason),
        (3, 4, 11),
        "aborted: stakes back"
    );
}

/// Both players started in one home with no `--dir` (the README's two terminals): the
/// home and both players.
fn one_home(table: &Table) -> (PathBuf, Player, Player) {
    let home = table.dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let args = table.play_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let white = Player::spawn("white", KEY_WHITE, &args, Some(&home));
    let black = Player::spawn("black", KEY_BLACK, &args, Some(&home));
    white.expect("started", |_| true);
    black.expect("started", |_| true);
    (home, white, black)
}

/// Issue 29, item 2: the README's two terminals, verbatim: both players on one machine,
/// one home, no `--dir`. Each keeps its own folder (named by the player), and a folder that
/// holds another game's files (a fresh anvil repeats addresses and game ids) is refused.
#[test]
fn two_players_in_one_home_without_dir_keep_their_own_folders() {
    let table = Table::new("one-home");
    let (home, mut white, mut black) = one_home(&table);
    exchange(&mut white, &black, "e4", 1);
    exchange(&mut black, &white, "e5", 2);
    drop(white);
    drop(black);
    let channel = home.join(".chessref").join("channel");
    let mut folders: Vec<String> = std::fs::read_dir(&channel)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    assert_eq!(folders.len(), 2, "{folders:?}");
    for player in [WHITE, BLACK] {
        let folder = folders
            .iter()
            .find(|f| f.to_lowercase().ends_with(&player.to_lowercase()))
            .unwrap_or_else(|| panic!("no folder of {player}: {folders:?}"));
        let owner: Value = serde_json::from_str(
            &std::fs::read_to_string(channel.join(folder).join("game.json")).unwrap(),
        )
        .unwrap();
        let game: U256 = owner["gameId"].as_str().unwrap().parse().unwrap();
        assert_eq!(game, table.game_id(), "{owner}");
    }
    // The same folder found again for a game of another chain (its creation elsewhere).
    let white_folder = channel.join(
        folders
            .iter()
            .find(|f| f.to_lowercase().ends_with(&WHITE.to_lowercase()))
            .unwrap(),
    );
    let file = white_folder.join("game.json");
    let mut owner: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    owner["createdInBlock"] = Value::String(format!("0x{}", "ab".repeat(32)));
    std::fs::write(&file, owner.to_string()).unwrap();
    let args = table.play_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut refused = command(Some(KEY_WHITE), &args);
    let out = refused.env("HOME", &home).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "refused");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("holds the files of another game") && stderr.contains("--dir"),
        "{stderr}"
    );
}

/// Issue 29, item 6: a session stopped and continued (Ctrl-Z, `fg`) has its relay read cut
/// short by the signal (EINTR): that is not a lost relay, and play goes on.
#[test]
fn a_session_stopped_and_continued_keeps_its_relay() {
    let table = Table::new("sigcont");
    let mut white = table.player("white", KEY_WHITE);
    let mut black = table.player("black", KEY_BLACK);
    // Both connected to the relay first (before, a start-up "not seen the join yet" is no
    // lost relay either, and would be counted below).
    exchange(&mut white, &black, "e4", 1);
    let pid = white.process.0.id().to_string();
    for _ in 0..10 {
        for signal in ["-STOP", "-CONT"] {
            let status = Command::new("kill").args([signal, &pid]).status().unwrap();
            assert!(status.success(), "kill {signal} {pid}");
            std::thread::sleep(Duration::from_millis(120));
        }
    }
    // What the session said meanwhile (a lost relay would say so at once).
    std::thread::sleep(Duration::from_millis(500));
    let relay_events: Vec<Value> = white
        .events
        .try_iter()
        .filter(|e| e["event"] == "relay")
        .collect();
    assert!(relay_events.is_empty(), "{relay_events:?}");
    exchange(&mut black, &white, "e5", 2);
}

/// Issue 29, item 10: `chessref game show` of a channel game settled off-chain shows its
/// moves and final position, with no key: from the players' own folders (one home, no
/// `--dir`), from a transcript named, or from the relay, each said; a transcript that is
/// not the chain's game (a move changed, or another game's terms) is refused by name and
/// its moves never shown.
#[test]
fn game_show_tells_a_settled_channel_games_moves_and_where_they_came_from() {
    let table = Table::new("show-moves");
    let (home, mut white, mut black) = one_home(&table);
    play(&mut white, &mut black, &["f3", "e5", "g4", "Qh4#"]);
    black.expect("settled", |_| true);
    white.expect("ended", |_| true);
    assert!(white.exit_status().success());
    assert!(black.exit_status().success());

    let show = |home: &Path, extra: &[&str]| {
        let mut show = vec!["game", "show", table.id.as_str()];
        let chain = table.chain();
        show.extend(chain.iter().map(String::as_str));
        show.extend(extra);
        let out = command(None, &show).env("HOME", home).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let final_fen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let sans = ["f3", "e5", "g4", "Qh4#"];
    let ucis = ["f2f3", "e7e5", "g2g4", "d8h4"];
    let moves_of = |json: &Value| -> Vec<(String, String)> {
        json["moves"]
            .as_array()
            .unwrap_or_else(|| panic!("{json}"))
            .iter()
            .map(|m| {
                (
                    m["san"].as_str().unwrap_or_default().to_owned(),
                    m["uci"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    };
    let played: Vec<(String, String)> = sans
        .iter()
        .zip(ucis)
        .map(|(s, u)| (s.to_string(), u.to_string()))
        .collect();

    // The players' own folders: text and --json.
    let (code, text, stderr) = show(&home, &[]);
    assert_eq!(code, Some(0), "{text}{stderr}");
    assert!(text.contains("moves: 1. f3 e5 2. g4 Qh4#"), "{text}");
    assert!(text.contains("moves from your transcript at "), "{text}");
    assert!(text.contains("result: black_wins"), "{text}");
    assert!(
        !text.contains("the chain holds its result, not its moves"),
        "{text}"
    );
    // The final position is drawn: black's queen on h4 (the last move's square marked).
    assert!(text.contains("[♛]"), "{text}");
    let (code, out, stderr) = show(&home, &["--json"]);
    assert_eq!(code, Some(0), "{out}{stderr}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(moves_of(&json), played, "{json}");
    assert_eq!(json["fen"], final_fen, "{json}");
    assert_eq!(json["movesFrom"]["kind"], "transcript", "{json}");
    let path = PathBuf::from(json["movesFrom"]["path"].as_str().unwrap());
    assert!(path.starts_with(&home), "{json}");
    assert_eq!(json["movesRefused"], serde_json::json!([]), "{json}");

    // Elsewhere (another home), from the relay.
    let elsewhere = table.dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let (code, text, stderr) = show(&elsewhere, &[]);
    assert_eq!(code, Some(0), "{text}{stderr}");
    assert!(
        text.contains("the chain holds its result, not its moves") && !text.contains("moves:"),
        "{text}"
    );
    let (code, text, stderr) = show(&elsewhere, &["--relay", &table.relay]);
    assert_eq!(code, Some(0), "{text}{stderr}");
    assert!(text.contains("moves: 1. f3 e5 2. g4 Qh4#"), "{text}");
    assert!(
        text.contains(&format!("moves from the relay at {}", table.relay)),
        "{text}"
    );
    let (_, out, _) = show(&elsewhere, &["--relay", &table.relay, "--json"]);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(moves_of(&json), played, "{json}");
    assert_eq!(json["movesFrom"]["kind"], "relay", "{json}");

    // A transcript named: as it is, shown; a move changed (black's mate on h5 instead),
    // refused by name, nothing shown.
    let (code, out, stderr) = show(
        &elsewhere,
        &["--transcript", path.to_str().unwrap(), "--json"],
    );
    assert_eq!(code, Some(0), "{out}{stderr}");
    assert_eq!(moves_of(&serde_json::from_str(&out).unwrap()), played);
    let mut tampered: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    tampered["moves"][1]["mv"] = tampered["moves"][0]["mv"].clone();
    let tampered_file = table.dir.join("tampered.json");
    std::fs::write(&tampered_file, tampered.to_string()).unwrap();
    let (code, text, stderr) = show(
        &elsewhere,
        &["--transcript", tampered_file.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{text}{stderr}");
    assert!(!text.contains("moves:"), "{text}");
    assert!(
        stderr.contains(&format!(
            "not shown: the moves of your transcript at {} are not game {}'s: ply 2",
            tampered_file.display(),
            table.id
        )),
        "{stderr}"
    );
    // Another game's terms (a longer clock), every signature its own: refused by the term.
    let mut other: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    other["game"]["initialTime"] = Value::from(other["game"]["initialTime"].as_u64().unwrap() + 60);
    std::fs::write(&tampered_file, other.to_string()).unwrap();
    let (code, text, stderr) = show(
        &elsewhere,
        &["--transcript", tampered_file.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{text}{stderr}");
    assert!(
        stderr.contains("its initial time differ from the chain's"),
        "{stderr}"
    );
    // The same folder of another chain's game (its claim names another creation block):
    // refused by name in the show, which still shows the chain's game.
    for entry in std::fs::read_dir(home.join(".chessref").join("channel")).unwrap() {
        let file = entry.unwrap().path().join("game.json");
        let mut owner: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        owner["createdInBlock"] = Value::String(format!("0x{}", "ab".repeat(32)));
        std::fs::write(&file, owner.to_string()).unwrap();
    }
    let (code, text, stderr) = show(&home, &[]);
    assert_eq!(code, Some(0), "{text}{stderr}");
    assert!(!text.contains("moves:"), "{text}");
    assert!(
        text.contains("not shown: the moves of your transcript at ")
            && text.contains("holds the files of another game"),
        "{text}"
    );
}
