//! The game endpoints on games played for real: anvil, the referee, the indexer
//! stepping in a thread beside `chessref serve`'s router: the lobby, a game, its PGN and
//! its server-sent events while the game is played and after, the players' ratings;
//! every JSON answer valid against the OpenAPI document. With
//! `CHESSREF_WEB_TEST_INDEX=PATH` the index is left at PATH (scripts/web-test.sh serves
//! it to schemathesis).

#[path = "common/channel.rs"]
mod channel;
mod common;
#[path = "../../chessref-index/tests/common/mod.rs"]
mod played;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use alloy_primitives::U256;
use chessref_channel::book::frames_of;
use chessref_core::{Move, RawMove};
use chessref_evm::{Chain, GameSetup, Position, Referee, RpcChain, anvil::Anvil};
use chessref_server::Config;
use common::{TestServer, subscribe, validate};
use serde_json::Value;

fn packed(uci: &str) -> u32 {
    RawMove::from(Move::from_uci(uci).unwrap()).packed()
}

/// The documented schema of `path`'s GET answer with `status`.
fn schema<'a>(doc: &'a Value, path: &str, status: u16) -> &'a Value {
    let mut resp = &doc["paths"][path]["get"]["responses"][status.to_string()];
    assert!(!resp.is_null(), "{path}: status {status} is not documented");
    if let Some(r) = resp.get("$ref").and_then(Value::as_str) {
        resp = doc.pointer(&r[1..]).expect("response ref");
    }
    &resp["content"]["application/json"]["schema"]
}

struct Client {
    runtime: tokio::runtime::Runtime,
    server: Option<TestServer>,
    doc: Value,
}

impl Client {
    fn start(index: Option<PathBuf>) -> Client {
        Client::start_with(Config {
            index: index.map(chessref_index::db::DbTarget::Sqlite),
            ..Config::default()
        })
    }

    fn start_with(config: Config) -> Client {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let server = runtime.block_on(TestServer::start(config));
        Client {
            runtime,
            server: Some(server),
            doc: serde_json::from_str(chessref_server::OPENAPI_JSON).unwrap(),
        }
    }

    fn server(&self) -> &TestServer {
        self.server.as_ref().unwrap()
    }

    /// GET `uri`; the status, content type and body.
    fn get(&self, uri: &str) -> (u16, String, Vec<u8>) {
        let (status, ct, body) = self
            .runtime
            .block_on(self.server().raw("GET", uri, None, vec![]));
        (status.as_u16(), ct, body)
    }

    /// GET `uri` as JSON, checked against the documented schema of `documented`.
    fn json(&self, uri: &str, documented: &str) -> (u16, Value) {
        let (status, ct, body) = self.get(uri);
        assert!(ct.starts_with("application/json"), "{uri}: {ct}");
        let value: Value = serde_json::from_slice(&body).unwrap();
        validate(
            &self.doc,
            schema(&self.doc, documented, status),
            &value,
            uri,
        )
        .unwrap_or_else(|e| panic!("{uri} -> {status} {value}: {e}"));
        (status, value)
    }

    /// Polls `uri` until `done` holds of its JSON answer.
    fn wait_for(&self, uri: &str, documented: &str, done: impl Fn(&Value) -> bool) -> Value {
        let started = Instant::now();
        loop {
            let (status, value) = self.json(uri, documented);
            if status == 200 && done(&value) {
                return value;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{uri}: {value}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A failed test may leave an event stream open, which a graceful shutdown awaits.
        if let Some(server) = self.server.take()
            && !std::thread::panicking()
        {
            self.runtime.block_on(server.shutdown());
        }
    }
}

/// `value` (a player, or a lobby game's `creatorRating`) has this rating and deviation
/// (to the 2 decimals served) and this many rated games.
fn rating_is(value: &Value, (rating, deviation): (f64, f64), games: u32) {
    let number = |key: &str| {
        value[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} in {value}"))
    };
    assert!((number("rating") - rating).abs() <= 0.006, "{value}");
    assert!((number("deviation") - deviation).abs() <= 0.006, "{value}");
    assert_eq!(value["games"], games, "{value}");
}

fn next_event(events: &mpsc::Receiver<(String, Value)>) -> (String, Value) {
    events
        .recv_timeout(Duration::from_secs(30))
        .expect("an event within 30 s")
}

#[test]
fn test_lobby_game_pgn_and_events_while_played_and_after() {
    let anvil = Anvil::spawn().unwrap();
    let chain = RpcChain::connect(anvil.url()).unwrap();
    let mut referee = Referee::deploy(chain).unwrap();
    let address = referee.address();
    let (white, black, other) = {
        let accounts = referee.chain().accounts();
        (accounts[1], accounts[2], accounts[3])
    };
    // A finished game first (fool's mate, replayed), then one played move by move below.
    let mut replayer = played::replayer_at(&anvil, address);
    played::play(&mut replayer, &played::games(played::SHORT_GAMES, 1));

    let db = played::temp_db("serve");
    let stop = Arc::new(AtomicBool::new(false));
    let indexer = channel::index_in_thread(anvil.url(), &db, address, &stop);
    let client = Client::start(Some(db.clone()));
    let lobby = client.wait_for("/v1/games", "/v1/games", |v| v["total"] == 1);
    assert!(
        lobby["headAge"].as_u64().is_some_and(|age| age < 30),
        "{lobby}"
    );
    let (status, health) = client.json("/v1/health", "/v1/health");
    assert_eq!(status, 200);
    assert!(
        health["headAge"].as_u64().is_some_and(|age| age < 30),
        "{health}"
    );
    assert!(
        health["indexedBlock"].as_i64().is_some_and(|b| b > 0),
        "{health}"
    );
    assert_eq!(lobby["games"][0]["reason"], "checkmate");

    // The game in play.
    let stake = U256::from(10u64.pow(15));
    let created = referee
        .create_game(white, &GameSetup::eth(black, stake))
        .unwrap();
    let id = created.id.to_string();
    let open = client.wait_for(
        &format!("/v1/games?state=open&player={black}"),
        "/v1/games",
        |v| v["total"] == 1,
    );
    assert_eq!(open["games"][0]["id"], id.as_str());
    assert_eq!(open["games"][0]["stake"], stake.to_string().as_str());
    // Its creator won the fool's mate (as black, against the replayer's first account),
    // which is final by now: one rated game (tests/fixtures/glicko2.py of chessref-index).
    rating_is(
        &open["games"][0]["creatorRating"],
        (1662.310894, 290.318964),
        1,
    );
    let joined = referee.join_game(black, created.id, stake).unwrap();
    let mut position = Position {
        state: created.state,
        history: created.history,
        clock: joined.clock,
    };
    let scholar = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"];
    let play = |referee: &mut Referee<RpcChain>, ply: usize, position: &mut Position| {
        let mover = if ply.is_multiple_of(2) { white } else { black };
        *position = referee
            .play_move(mover, created.id, position, packed(scholar[ply]))
            .unwrap()
            .position;
    };
    for ply in 0..3 {
        play(&mut referee, ply, &mut position);
    }
    let game_uri = format!("/v1/games/{id}");
    let game = client.wait_for(&game_uri, "/v1/games/{id}", |v| v["ply"] == 3);
    assert_eq!(game["phase"], "running");
    assert_eq!(game["white"], white.to_string().as_str());
    let sans: Vec<&str> = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap())
        .collect();
    assert_eq!(sans, ["e4", "e5", "Bc4"]);
    assert_eq!(game["moves"][2]["uci"], "f1c4");
    assert_eq!(
        game["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2"
    );
    // White's clock is charged by block time: anvil stamps each block with the wall clock, so
    // white's second move may come a second or two after black's reply. A day a move is the
    // bound; the clock must have been charged, never credited, and only by those seconds.
    let white_seconds = game["clock"]["whiteSeconds"].as_u64().unwrap();
    assert!(
        (30 * 86_400 - 10..=30 * 86_400).contains(&white_seconds),
        "white's clock after two moves: {white_seconds}"
    );
    let (status, ct, pgn) = client.get(&format!("/v1/games/{id}.pgn"));
    assert_eq!((status, ct.as_str()), (200, "application/x-chess-pgn"));
    let pgn = String::from_utf8(pgn).unwrap();
    assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
    assert!(pgn.contains("1. e4 e5 2. Bc4 *"), "{pgn}");
    let running = client.json("/v1/games?state=running", "/v1/games").1;
    assert_eq!(running["total"], 1);

    // Live events: the next moves, the end, then finality; the stream then closes.
    let events = subscribe(client.server().addr, &format!("/v1/games/{id}/events"));
    std::thread::sleep(Duration::from_millis(300));
    play(&mut referee, 3, &mut position);
    let (name, data) = next_event(&events);
    assert_eq!(name, "move", "{data}");
    assert_eq!(data["move"]["san"], "Nc6");
    assert_eq!(data["game"]["ply"], 4);
    for ply in 4..7 {
        play(&mut referee, ply, &mut position);
    }
    let mut names = Vec::new();
    while names.last().map(String::as_str) != Some("ended") {
        let (name, data) = next_event(&events);
        if name == "move" {
            assert!(data["move"]["san"].is_string(), "{data}");
        }
        names.push(name);
    }
    assert_eq!(names, ["move", "move", "move", "ended"]);
    // One more block and the mate is final (one confirmation).
    referee.chain().advance_time(1).unwrap();
    let (name, data) = next_event(&events);
    assert_eq!(name, "final", "{data}");
    assert_eq!(data["game"]["pending"], false);
    assert!(
        events.recv_timeout(Duration::from_secs(5)).is_err(),
        "the stream of a settled game closes"
    );

    // After: the ended game, its PGN, the lobby's filters.
    let game = client.json(&game_uri, "/v1/games/{id}").1;
    assert_eq!(game["result"], "white_wins");
    assert_eq!(game["reason"], "checkmate");
    assert_eq!(game["pending"], false);
    assert_eq!(game["pgnResult"], "1-0");
    let (_, _, pgn) = client.get(&format!("/v1/games/{id}.pgn"));
    let pgn = String::from_utf8(pgn).unwrap();
    for tag in [
        format!("[Event \"chessref game {id}\"]"),
        format!("[White \"{white}\"]"),
        format!("[Black \"{black}\"]"),
        "[Result \"1-0\"]".to_owned(),
        "[Termination \"checkmate\"]".to_owned(),
        "[Site \"chain 31337 referee".to_owned(),
    ] {
        assert!(pgn.contains(&tag), "{tag} missing: {pgn}");
    }
    assert!(pgn.contains("4. Qxf7# 1-0"), "{pgn}");
    let read_back = chessref_core::PgnReader::new(pgn.as_bytes())
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(read_back.replay().unwrap().plies(), 7);
    let ended = client.json("/v1/games?state=ended&limit=1", "/v1/games").1;
    assert_eq!(
        (
            ended["total"].clone(),
            ended["games"].as_array().unwrap().len()
        ),
        (2.into(), 1)
    );
    assert_eq!(ended["games"][0]["id"], id.as_str(), "newest first");
    let none = client
        .json(&format!("/v1/games?player={other}"), "/v1/games")
        .1;
    assert_eq!(none["total"], 0);

    // Ratings (Glicko-2, final games in chain order): white won both games, black and
    // the replayer's first account lost one each. The expected numbers are the hand
    // computation of chessref-index's tests/fixtures/glicko2.py ("server test").
    rating_is(
        &ended["games"][0]["creatorRating"],
        (1750.542110, 256.345170),
        2,
    );
    let first = referee.chain().accounts()[0];
    for (who, expected, volatility, record) in [
        (white, (1750.542110, 256.345170), 0.0599990521, (2, 0, 0)),
        (black, (1383.358079, 286.927207), 0.0599992771, (0, 0, 1)),
        (first, (1337.689106, 290.318964), 0.0599996754, (0, 0, 1)),
        (other, (1500.0, 350.0), 0.06, (0, 0, 0)),
    ] {
        let uri = format!("/v1/players/{who}");
        let (status, player) = client.json(&uri, "/v1/players/{address}");
        assert_eq!(status, 200, "{uri}: {player}");
        assert_eq!(player["address"], who.to_string().as_str());
        rating_is(&player, expected, record.0 + record.1 + record.2);
        let found = player["volatility"].as_f64().unwrap();
        assert!((found - volatility).abs() <= 1e-6, "{uri}: {player}");
        assert_eq!(
            (&player["wins"], &player["draws"], &player["losses"]),
            (&record.0.into(), &record.1.into(), &record.2.into()),
            "{uri}: {player}"
        );
    }
    // Any case of the hex digits names the same player.
    let lower = format!("{white:#x}");
    let (_, player) = client.json(&format!("/v1/players/{lower}"), "/v1/players/{address}");
    assert_eq!(player["games"], 2);
    // The leaderboard: the three rated players, highest first, a page at a time.
    let (status, board) = client.json("/v1/players?order=rating", "/v1/players");
    assert_eq!(status, 200, "{board}");
    assert_eq!(board["total"], 3, "{board}");
    let ranked: Vec<(u64, String)> = board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["rank"].as_u64().unwrap(),
                p["address"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        ranked,
        [(1, white), (2, black), (3, first)]
            .map(|(rank, who)| (rank, who.to_string()))
            .to_vec()
    );
    let (_, page) = client.json("/v1/players?limit=1&offset=1", "/v1/players");
    assert_eq!(page["players"][0]["rank"], 2, "{page}");
    assert_eq!(page["players"][0]["address"], black.to_string().as_str());
    assert_eq!(page["players"][0]["rating"], 1383.36, "{page}");

    // Junk: 4xx naming what is wrong.
    for (uri, documented, status, kind, names) in [
        (
            "/v1/games/999",
            "/v1/games/{id}",
            404,
            "unknown_game",
            "999",
        ),
        ("/v1/games/abc", "/v1/games/{id}", 400, "bad_game_id", "abc"),
        (
            "/v1/games/1x.pgn",
            "/v1/games/{id}.pgn",
            400,
            "bad_game_id",
            "1x",
        ),
        (
            "/v1/games/999/events",
            "/v1/games/{id}/events",
            404,
            "unknown_game",
            "999",
        ),
        (
            "/v1/games?state=lost",
            "/v1/games",
            400,
            "bad_query",
            "lost",
        ),
        (
            "/v1/games?player=0x12",
            "/v1/games",
            400,
            "bad_query",
            "0x12",
        ),
        ("/v1/games?limit=501", "/v1/games", 400, "bad_query", "501"),
        (
            "/v1/games?color=white",
            "/v1/games",
            400,
            "bad_query",
            "color",
        ),
        (
            "/v1/games/1?x=1",
            "/v1/games/{id}",
            400,
            "bad_query",
            "no query",
        ),
        (
            "/v1/players?order=games",
            "/v1/players",
            400,
            "bad_query",
            "games",
        ),
        (
            "/v1/players?limit=501",
            "/v1/players",
            400,
            "bad_query",
            "501",
        ),
        (
            "/v1/players?player=0x12",
            "/v1/players",
            400,
            "bad_query",
            "player",
        ),
        (
            "/v1/players/0x12",
            "/v1/players/{address}",
            400,
            "bad_address",
            "0x12",
        ),
        (
            "/v1/players/70997970C51812dc3A010C7d01b50e0d17dc79C8",
            "/v1/players/{address}",
            400,
            "bad_address",
            "70997970C51812dc3A010C7d01b50e0d17dc79C8",
        ),
        (
            "/v1/players/0x70997970C51812dc3A010C7d01b50e0d17dc79C8?x=1",
            "/v1/players/{address}",
            400,
            "bad_query",
            "no query",
        ),
    ] {
        let (got, body) = client.json(uri, documented);
        assert_eq!(got, status, "{uri}: {body}");
        assert_eq!(body["error"], kind, "{uri}: {body}");
        assert!(
            body["message"].as_str().unwrap().contains(names),
            "{uri}: {body}"
        );
    }

    // A channel game with a transcript: joined on-chain; black's delegation, white's
    // first move and a draw both sign sent through the relay, which keeps them in the
    // index; then settled on-chain, so that its event stream ends like the others'
    // (scripts/web-test.sh's schemathesis reads this transcript and these streams).
    let created = referee
        .create_channel_game(white, &GameSetup::eth(black, stake), 600)
        .unwrap();
    referee.join_game(black, created.id, stake).unwrap();
    let channel_game = created.id;
    client.wait_for(
        &format!("/v1/games/{channel_game}"),
        "/v1/games/{id}",
        |v| v["phase"] == "running",
    );
    let mut off_chain = channel::off_chain(&mut referee, channel_game);
    off_chain
        .play(Move::from_uci("e2e4").unwrap(), channel::now())
        .unwrap();
    let drawn = off_chain.transcript_agreed(3).unwrap();
    let frames = frames_of(&drawn);
    let addr = client.server().addr;
    client.runtime.block_on(async {
        let (mut socket, _) = channel::connect(addr, channel_game, "").await;
        for (seq, frame) in (1..).zip(&frames) {
            channel::send(&mut socket, frame).await;
            let forwarded = channel::next(&mut socket).await;
            assert_eq!(channel::message_of(&forwarded), (seq, frame));
        }
    });
    let (status, transcript) = client.json(
        &format!("/v1/games/{channel_game}/transcript"),
        "/v1/games/{id}/transcript",
    );
    assert_eq!(status, 200, "{transcript}");
    assert_eq!(
        chessref_channel::Transcript::from_json(&transcript.to_string()).unwrap(),
        drawn
    );
    let settlement = drawn
        .verify(&chessref_channel::NoPins, channel::now())
        .unwrap()
        .settlement;
    referee.send_channel(white, &settlement).unwrap();
    referee.chain().advance_time(1).unwrap();
    let settled = client.wait_for(
        &format!("/v1/games/{channel_game}"),
        "/v1/games/{id}",
        |v| v["phase"] == "ended" && v["pending"] == false,
    );
    assert_eq!(settled["result"], "draw", "{settled}");
    // Its id as the transcript writes it (0x hex) names the same game.
    let hex = format!("{channel_game:#x}");
    assert_eq!(transcript["game"]["gameId"], hex.as_str(), "{transcript}");
    let (status, same) = client.json(&format!("/v1/games/{hex}"), "/v1/games/{id}");
    assert_eq!((status, &same["id"]), (200, &settled["id"]), "{same}");

    // A knockout event taking entries, one entered (scripts/web-test.sh's schemathesis
    // reads /v1/tournaments/1 in this index; tests/tournaments.rs plays events through).
    let mut tournament = chessref_evm::tournament::Tournament::of(referee);
    let now = tournament.referee().chain().timestamp().unwrap();
    let fee = U256::from(10_000_000_000_000_000u128);
    let terms = chessref_evm::bindings::IChessTournamentTypes::EventTerms {
        token: alloy_primitives::Address::ZERO,
        fee: alloy_primitives::aliases::U96::from(fee),
        size: 4,
        initialTime: 180,
        increment: 2,
        firstMoveWindow: 600,
        responseWindow: 0,
        deadline: alloy_primitives::aliases::U40::from(now + 3_600),
        feeBps: 500,
        split: vec![6_000, 2_500, 750],
        abandonAfter: 3_600,
    };
    let (event, _) = tournament.create_event(other, terms).unwrap();
    tournament.enter(white, event, fee).unwrap();
    let open = client.wait_for(
        &format!("/v1/tournaments/{event}"),
        "/v1/tournaments/{id}",
        |v| v["entrantCount"] == 1,
    );
    assert_eq!(open["status"], "open", "{open}");

    stop.store(true, Ordering::Relaxed);
    indexer.join().unwrap();
    drop(client);
    if let Some(out) = std::env::var_os("CHESSREF_WEB_TEST_INDEX") {
        let _ = std::fs::remove_file(&out);
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute("VACUUM INTO ?1", [out.to_str().unwrap()])
            .unwrap();
    }
}

#[test]
fn test_without_an_index_or_with_a_missing_one() {
    let client = Client::start(None);
    for uri in [
        "/v1/games",
        "/v1/games/1",
        "/v1/games/1.pgn",
        "/v1/games/1/events",
        "/v1/players/0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    ] {
        let documented = match uri {
            "/v1/games" => "/v1/games",
            "/v1/games/1" => "/v1/games/{id}",
            "/v1/games/1.pgn" => "/v1/games/{id}.pgn",
            "/v1/games/1/events" => "/v1/games/{id}/events",
            _ => "/v1/players/{address}",
        };
        let (status, body) = client.json(uri, documented);
        assert_eq!(status, 404, "{uri}");
        assert_eq!(body["error"], "no_index");
        assert_eq!(
            body["message"],
            "no index: start chessref serve with --index PATH"
        );
    }
    drop(client);
    let missing = played::temp_db("never-written");
    let client = Client::start(Some(missing.clone()));
    let (status, body) = client.json("/v1/games", "/v1/games");
    assert_eq!(status, 503);
    assert_eq!(body["error"], "index_unavailable");
    let message = body["message"].as_str().unwrap();
    let name = missing.file_name().unwrap().to_string_lossy().into_owned();
    assert!(message.contains(&name), "{message}");
    let dir = missing.parent().unwrap().display().to_string();
    assert!(
        !message.contains(&dir),
        "the server's directory is not shown: {message}"
    );
}

/// Opens an event stream from the local address `from`: the status line of the answer,
/// and the connection (kept open while held).
fn stream_from(addr: std::net::SocketAddr, from: &str, path: &str) -> (String, TcpStream) {
    let socket = socket2_connect(from, addr);
    let mut stream = socket;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    (status.trim().to_owned(), stream)
}

/// A TCP connection to `addr` from the loopback address `from` (127.0.0.x: another
/// client address on one machine).
fn socket2_connect(from: &str, addr: std::net::SocketAddr) -> TcpStream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stream = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
        socket.connect(addr).await.unwrap()
    });
    let stream = stream.into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream
}

#[test]
fn test_event_streams_share_one_poller_and_are_bounded() {
    let anvil = Anvil::spawn().unwrap();
    let mut referee = Referee::deploy(RpcChain::connect(anvil.url()).unwrap()).unwrap();
    let address = referee.address();
    let (white, black) = {
        let accounts = referee.chain().accounts();
        (accounts[1], accounts[2])
    };
    let db = played::temp_db("events");
    let stop = Arc::new(AtomicBool::new(false));
    channel::index_in_thread(anvil.url(), &db, address, &stop);
    let stake = U256::from(10u64.pow(15));
    let created = referee
        .create_game(white, &GameSetup::eth(black, stake))
        .unwrap();
    let joined = referee.join_game(black, created.id, stake).unwrap();
    let client = Client::start_with(Config {
        index: Some(chessref_index::db::DbTarget::Sqlite(db.clone())),
        events: chessref_server::feed::EventLimits {
            streams: 203,
            per_client: 200,
        },
        ..Config::default()
    });
    let id = created.id.to_string();
    client.wait_for(&format!("/v1/games/{id}"), "/v1/games/{id}", |v| {
        v["phase"] == "running"
    });
    let addr = client.server().addr;
    let path = format!("/v1/games/{id}/events");

    // 200 streams of one game from one address: the 201st from it is refused.
    let streams: Vec<_> = (0..200).map(|_| subscribe(addr, &path)).collect();
    std::thread::sleep(Duration::from_millis(500));
    let (status, _held) = stream_from(addr, "127.0.0.1", &path);
    assert!(status.contains("503"), "{status}");
    // Other addresses up to the total: 203 in all, the next refused.
    let (two, _a) = stream_from(addr, "127.0.0.2", &path);
    let (three, _b) = stream_from(addr, "127.0.0.3", &path);
    assert!(
        two.contains("200") && three.contains("200"),
        "{two} {three}"
    );
    let (four, _c) = stream_from(addr, "127.0.0.4", &path);
    let (five, _d) = stream_from(addr, "127.0.0.5", &path);
    assert!(four.contains("200"), "{four}");
    assert!(five.contains("503"), "{five}");

    // One move: every stream gets it, from the one poller.
    let position = Position {
        state: created.state,
        history: created.history,
        clock: joined.clock,
    };
    referee
        .play_move(white, created.id, &position, packed("e2e4"))
        .unwrap();
    for (i, events) in streams.iter().enumerate() {
        let (name, data) = next_event(events);
        assert_eq!(name, "move", "stream {i}: {data}");
        assert_eq!(data["move"]["san"], "e4", "stream {i}");
    }
    drop(streams);
    // Read back from the start (on a second server of the same index, this one being
    // full): each event carries the game as it stood just after it.
    let second = Client::start(Some(db.clone()));
    // A negative Last-Event-ID is refused like a negative ?after.
    let mut probe = TcpStream::connect(second.server().addr).unwrap();
    write!(
        probe,
        "GET {path} HTTP/1.1\r\nHost: x\r\nLast-Event-ID: -5\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut status = String::new();
    BufReader::new(probe).read_line(&mut status).unwrap();
    assert!(status.contains(" 400 "), "{status}");
    let history = subscribe(second.server().addr, &format!("{path}?after=0"));
    let (name, data) = next_event(&history);
    assert_eq!(name, "created", "{data}");
    assert_eq!(data["game"]["phase"], "open", "{data}");
    assert_eq!(
        data["game"]["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    let (name, data) = next_event(&history);
    assert_eq!(
        (name.as_str(), &data["game"]["phase"]),
        ("joined", &serde_json::json!("running"))
    );
    let (name, data) = next_event(&history);
    assert_eq!(name, "move", "{data}");
    assert_eq!(
        data["game"]["fen"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    // The indexer stops: the server says how long it has not heard the node.
    let (_, fresh) = second.json("/v1/health", "/v1/health");
    stop.store(true, Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(3_100));
    let (_, stale) = second.json("/v1/health", "/v1/health");
    let (fresh, stale) = (
        fresh["headAge"].as_u64().unwrap(),
        stale["headAge"].as_u64().unwrap(),
    );
    assert!(fresh <= 1 && stale >= 3, "{fresh} then {stale}");
}
