//! The knockout endpoints on an event played for real: anvil, the referee and its
//! tournament driven by chessref-evm's `Tournament`, the indexer following both in a
//! thread beside `chessref serve`'s router. A 4-player event is created, filled, drawn
//! and played (a win on the board, a drawn game decided by its lot, the final), its
//! prizes claimed; `/v1/tournaments/{id}` is checked against the contract's views at each
//! step (entrants, every match, prizes, the final's pairing before it starts, standings)
//! and every answer against the OpenAPI document.

#[path = "common/channel.rs"]
mod channel;
mod common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use alloy_primitives::aliases::{U40, U96};
use alloy_primitives::{Address, U256};
use chessref_core::Move;
use chessref_evm::bindings::IChessTournamentTypes::EventTerms;
use chessref_evm::tournament::Tournament;
use chessref_evm::{Chain, GameDriver, Referee, RpcChain, anvil::Anvil};
use chessref_server::Config;
use common::{TestServer, validate};
use serde_json::Value;

const FEE: u64 = 10_000_000_000_000_000;
const SPLIT: [u16; 3] = [6_000, 2_500, 750];
const FEE_BPS: u16 = 500;

struct Client {
    runtime: tokio::runtime::Runtime,
    server: Option<TestServer>,
    doc: Value,
}

impl Client {
    fn start(db: &std::path::Path) -> Client {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let server = runtime.block_on(TestServer::start(Config {
            index: Some(chessref_index::db::DbTarget::Sqlite(db.to_owned())),
            ..Config::default()
        }));
        Client {
            runtime,
            server: Some(server),
            doc: serde_json::from_str(chessref_server::OPENAPI_JSON).unwrap(),
        }
    }

    /// GET `uri` as JSON, checked against the documented schema of `documented`.
    fn json(&self, uri: &str, documented: &str) -> (u16, Value) {
        let (status, ct, body) =
            self.runtime
                .block_on(self.server.as_ref().unwrap().raw("GET", uri, None, vec![]));
        assert!(ct.starts_with("application/json"), "{uri}: {ct}");
        let value: Value = serde_json::from_slice(&body).unwrap();
        let status = status.as_u16();
        let mut response = &self.doc["paths"][documented]["get"]["responses"][status.to_string()];
        assert!(
            !response.is_null(),
            "{documented}: {status} is not documented"
        );
        if let Some(r) = response.get("$ref").and_then(Value::as_str) {
            response = self.doc.pointer(&r[1..]).unwrap();
        }
        let schema = &response["content"]["application/json"]["schema"];
        validate(&self.doc, schema, &value, uri)
            .unwrap_or_else(|e| panic!("{uri} -> {status} {value}: {e}"));
        (status, value)
    }

    /// Event `id` once the index holds block `block`.
    fn event_at(&self, id: U256, block: u64) -> Value {
        let started = Instant::now();
        loop {
            let (status, value) =
                self.json(&format!("/v1/tournaments/{id}"), "/v1/tournaments/{id}");
            if status == 200
                && value["indexedBlock"]
                    .as_i64()
                    .is_some_and(|b| b >= block as i64)
            {
                return value;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the index did not reach block {block}: {status} {value}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Some(server) = self.server.take()
            && !std::thread::panicking()
        {
            self.runtime.block_on(server.shutdown());
        }
    }
}

/// An address as served: checksummed, null for the zero address.
fn served(a: Address) -> Value {
    if a == Address::ZERO {
        Value::Null
    } else {
        Value::String(a.to_string())
    }
}

/// Every match the endpoint serves, in the contract's order.
fn matches(event: &Value) -> Vec<Value> {
    event["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|round| round.as_array().unwrap().clone())
        .collect()
}

/// The endpoint's bracket, entrants and prizes equal the contract's views.
fn same_as_contract(t: &mut Tournament<RpcChain>, id: U256, event: &Value) {
    let info = t.event(id).unwrap();
    assert_eq!(event["entrantCount"], info.entrants, "{event}");
    assert_eq!(event["paid"], info.paid.to_string());
    for i in 0..info.entrants {
        assert_eq!(
            event["entrants"][usize::from(i)],
            served(t.entrant(id, i).unwrap())
        );
    }
    for (tier, prize) in event["prizes"].as_array().unwrap().iter().enumerate() {
        assert_eq!(
            prize["prize"],
            t.prize_of(id, tier as u8).unwrap().to_string(),
            "tier {tier}"
        );
    }
    let status = ["waiting", "running", "decided", "lot", "abandoned"];
    for (m, served_match) in matches(event).iter().enumerate() {
        let on_chain = t.match_info(id, m as u8).unwrap();
        let what = format!("match {m}: {served_match}");
        assert_eq!(served_match["match"], m, "{what}");
        assert_eq!(
            served_match["status"],
            status[usize::from(on_chain.status)],
            "{what}"
        );
        if on_chain.status != 0 {
            assert_eq!(served_match["white"], served(on_chain.white), "{what}");
            assert_eq!(served_match["black"], served(on_chain.black), "{what}");
        }
        let game = (on_chain.gameId != U256::ZERO).then(|| on_chain.gameId.to_string());
        assert_eq!(served_match["gameId"].as_str(), game.as_deref(), "{what}");
        assert_eq!(served_match["winner"], served(on_chain.winner), "{what}");
        let lot = (on_chain.status == 3).then(|| on_chain.lotBlock.to::<u64>());
        assert_eq!(served_match["lotBlock"].as_u64(), lot, "{what}");
    }
}

/// Plays hosted game `started` to `result` (two moves, then a resignation or an agreed
/// draw).
fn play(referee: &mut Referee<RpcChain>, hosted: &chessref_evm::tournament::Hosted, result: &str) {
    let mut game = GameDriver::hosted(
        referee,
        hosted.game_id,
        hosted.white,
        hosted.black,
        hosted.clock,
    )
    .unwrap();
    for uci in ["e2e4", "e7e5"] {
        assert!(game.play(referee, Move::from_uci(uci).unwrap()).unwrap());
    }
    game.finish(referee, Some(result)).unwrap();
    assert!(game.ending.is_some(), "{result}");
}

/// Retries `call` once a block has passed while the contract refuses it (a draw or a lot
/// whose block is not past yet).
fn after_a_block<T>(
    t: &mut Tournament<RpcChain>,
    mut call: impl FnMut(&mut Tournament<RpcChain>) -> Result<T, chessref_evm::EvmError>,
) -> T {
    for _ in 0..3 {
        match call(t) {
            Ok(value) => return value,
            Err(e) if e.revert().is_some() => t.referee().chain().advance_time(1).unwrap(),
            Err(e) => panic!("{e}"),
        }
    }
    panic!("still refused after 3 blocks");
}

#[test]
fn test_a_four_player_event_served_as_the_contract_has_it() {
    let anvil = Anvil::spawn().expect("anvil (the npm-installed node) must be available");
    let chain = RpcChain::connect(anvil.url()).unwrap();
    let referee = Referee::deploy(chain).unwrap();
    let address = referee.address();
    let mut t = Tournament::of(referee);
    let accounts = t.referee().chain().accounts().to_vec();
    let organiser = accounts[0];
    let players = &accounts[1..5];

    let (_scratch, db) = channel::temp_db("tournament");
    let stop = Arc::new(AtomicBool::new(false));
    let indexer = channel::index_in_thread(anvil.url(), &db, address, &stop);
    let client = Client::start(&db);

    let now = t.referee().chain().timestamp().unwrap();
    let terms = EventTerms {
        token: Address::ZERO,
        fee: U96::from(FEE),
        size: 4,
        initialTime: 180,
        increment: 2,
        firstMoveWindow: 600,
        responseWindow: 0,
        deadline: U40::from(now + 3_600),
        feeBps: FEE_BPS,
        split: SPLIT.to_vec(),
        abandonAfter: 3_600,
    };
    let (id, _) = t.create_event(organiser, terms).unwrap();
    for &player in &players[..3] {
        t.enter(player, id, U256::from(FEE)).unwrap();
    }
    let head = t.referee().chain().head().unwrap();
    let open = client.event_at(id, head);
    assert_eq!(open["status"], "open");
    assert_eq!(open["tournament"], served(t.address()));
    assert_eq!(open["organiser"], served(organiser));
    assert_eq!(open["pool"], (3 * u128::from(FEE)).to_string());
    assert_eq!(open["split"], serde_json::json!(SPLIT));
    assert!(matches(&open).iter().all(|m| m["white"].is_null()));
    same_as_contract(&mut t, id, &open);
    let (_, list) = client.json("/v1/tournaments?status=open", "/v1/tournaments");
    assert_eq!(list["tournaments"][0]["id"], id.to_string());

    // The fourth entry fills it: drawing until the draw.
    t.enter(players[3], id, U256::from(FEE)).unwrap();
    let head = t.referee().chain().head().unwrap();
    assert_eq!(client.event_at(id, head)["status"], "drawing");
    after_a_block(&mut t, |t| t.draw(organiser, id));
    let head = t.referee().chain().head().unwrap();
    let drawn = client.event_at(id, head);
    assert_eq!(drawn["status"], "running");
    assert_eq!(drawn["seed"], t.event(id).unwrap().seed.to_string());
    // Round 0's pairings before any start: the mirror's, the contract's `pairing`.
    for m in 0..2u8 {
        let (white, black) = t.pairing(id, m).unwrap();
        let served_match = &matches(&drawn)[usize::from(m)];
        assert_eq!(
            (&served_match["white"], &served_match["black"]),
            (&served(white), &served(black))
        );
    }
    same_as_contract(&mut t, id, &drawn);

    // Match 0 won on the board, match 1 drawn and decided by its lot.
    let (white0, _) = t.pairing(id, 0).unwrap();
    let first = t.start(white0, id, 0).unwrap().hosted.unwrap();
    let (white1, _) = t.pairing(id, 1).unwrap();
    let second = t.start(white1, id, 1).unwrap().hosted.unwrap();
    play(t.referee(), &first, "1-0");
    play(t.referee(), &second, "1/2-1/2");
    t.report(first.white, id, 0).unwrap();
    t.report(second.white, id, 1).unwrap();
    let head = t.referee().chain().head().unwrap();
    let lot = client.event_at(id, head);
    assert_eq!(matches(&lot)[1]["status"], "lot");
    assert_eq!(matches(&lot)[0]["how"], "game");
    same_as_contract(&mut t, id, &lot);
    after_a_block(&mut t, |t| t.resolve_lot(organiser, id, 1));
    let head = t.referee().chain().head().unwrap();
    let semis = client.event_at(id, head);
    assert_eq!(matches(&semis)[1]["how"], "lot");
    // The final's players and colours before it starts: the mirror's, the contract's.
    let (white, black) = t.pairing(id, 2).unwrap();
    assert_eq!(matches(&semis)[2]["status"], "waiting");
    assert_eq!(
        (&matches(&semis)[2]["white"], &matches(&semis)[2]["black"]),
        (&served(white), &served(black))
    );
    same_as_contract(&mut t, id, &semis);
    // The two losers are placed (tier 2), not credited yet.
    let standings = semis["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 2, "{semis}");
    assert!(
        standings
            .iter()
            .all(|s| s["tier"] == 2 && s["credited"] == false)
    );

    let last = t.start(white, id, 2).unwrap().hosted.unwrap();
    play(t.referee(), &last, "0-1");
    t.report(black, id, 2).unwrap();
    let mut credited = std::collections::BTreeMap::new();
    for &player in players {
        let (amount, _) = t.claim(player, id).unwrap();
        credited.insert(player.to_string(), amount);
    }
    let (fee, _) = t.claim_fee(organiser, id).unwrap();
    let head = t.referee().chain().head().unwrap();
    let finished = client.event_at(id, head);
    assert_eq!(finished["status"], "finished");
    assert_eq!(finished["winner"], served(black));
    same_as_contract(&mut t, id, &finished);
    // Every player placed, best first, each credited what its standing says.
    let standings = finished["standings"].as_array().unwrap();
    let tiers: Vec<_> = standings
        .iter()
        .map(|s| s["tier"].as_u64().unwrap())
        .collect();
    assert_eq!(tiers, [0, 1, 2, 2]);
    assert_eq!(standings[0]["player"], served(black));
    let mut total = fee;
    for standing in standings {
        let player = standing["player"].as_str().unwrap();
        assert_eq!(
            standing["prize"],
            credited[player].to_string(),
            "{standing}"
        );
        assert_eq!(standing["credited"], true);
        total += credited[player];
    }
    assert_eq!(total, U256::from(4 * u128::from(FEE)));
    assert_eq!(finished["paid"], total.to_string());

    // The hosted games are ordinary games of the index, rated.
    let game = matches(&finished)[2]["gameId"].as_str().unwrap().to_owned();
    let (status, served_game) = client.json(&format!("/v1/games/{game}"), "/v1/games/{id}");
    assert_eq!(
        (status, &served_game["phase"]),
        (200, &Value::from("ended"))
    );
    t.referee().chain().advance_time(1).unwrap();
    let head = t.referee().chain().head().unwrap();
    client.event_at(id, head);
    let (_, rated) = client.json(&format!("/v1/players/{black}"), "/v1/players/{address}");
    assert!(rated["games"].as_u64().is_some_and(|g| g >= 2), "{rated}");

    // The lists, and the errors.
    let (_, mine) = client.json(
        &format!("/v1/tournaments?player={}&status=finished", players[2]),
        "/v1/tournaments",
    );
    assert_eq!(mine["tournaments"][0]["id"], id.to_string());
    assert_eq!(mine["next"], Value::Null);
    let (_, none) = client.json("/v1/tournaments?status=refunding", "/v1/tournaments");
    assert_eq!(none["tournaments"], serde_json::json!([]));
    let (status, unknown) = client.json("/v1/tournaments/99", "/v1/tournaments/{id}");
    assert_eq!(
        (status, &unknown["error"]),
        (404, &Value::from("unknown_tournament"))
    );
    let (status, bad) = client.json("/v1/tournaments/x1", "/v1/tournaments/{id}");
    assert_eq!(
        (status, &bad["error"]),
        (400, &Value::from("bad_tournament_id"))
    );
    for query in [
        "status=late",
        "limit=0",
        "limit=101",
        "before=-1",
        "player=0x12",
        "page=2",
    ] {
        let (status, bad) = client.json(&format!("/v1/tournaments?{query}"), "/v1/tournaments");
        assert_eq!(
            (status, &bad["error"]),
            (400, &Value::from("bad_query")),
            "{query}"
        );
    }

    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    indexer.join().unwrap();
}
