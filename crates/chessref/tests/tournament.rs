//! `chessref tournament` against an anvil node the test starts: four players create,
//! enter and read a knockout, the JSON checked against the contract's views.

use std::{
    path::Path,
    process::{Command, Output},
};

use alloy_primitives::{Address, U256};
use chessref_evm::{
    Referee, RpcChain, Sender, anvil::Anvil, bindings::IChessTournamentTypes::EventInfo,
    tournament::Tournament,
};
use serde_json::Value;

mod common;

/// anvil's default account 0 (the public test mnemonic): the organiser.
const KEY_ORGANISER: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
/// anvil's default accounts 1 to 4, unlocked on the node: the players.
const PLAYERS: [&str; 4] = [
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
    "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
];

fn chessref(key: Option<&str>, args: &[&str]) -> Output {
    common::command(key, args).output().expect("run chessref")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn succeeded(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

fn failed(o: &Output, code: i32) -> String {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stderr)
}

/// `chessref tournament args` as `player` (an unlocked account), against `deployments`.
fn as_player(anvil: &Anvil, deployments: &Path, player: &str, args: &[&str]) -> Output {
    let mut all = vec!["tournament"];
    all.extend_from_slice(args);
    all.extend_from_slice(&[
        "--rpc",
        anvil.url(),
        "--deployments",
        deployments.to_str().unwrap(),
        "--unlocked",
        player,
    ]);
    chessref(None, &all)
}

/// `chessref tournament create` by the organiser with `terms`.
fn create(anvil: &Anvil, deployments: &Path, terms: &[&str]) -> Output {
    let mut all = vec![
        "tournament",
        "create",
        "--rpc",
        anvil.url(),
        "--deployments",
        deployments.to_str().unwrap(),
    ];
    all.extend_from_slice(terms);
    chessref(Some(KEY_ORGANISER), &all)
}

fn tournament(anvil: &Anvil, deployments: &Path) -> Tournament<RpcChain> {
    let (referee, _) =
        chessref_evm::deployments::locate(31_337, None, Some(deployments), None).unwrap();
    let sender = Sender::Unlocked(PLAYERS[0].parse().unwrap());
    let chain = RpcChain::connect_as(anvil.url(), &sender).unwrap();
    Tournament::of(Referee::at(chain, referee))
}

fn show_json(anvil: &Anvil, deployments: &Path, player: &str) -> Value {
    let out = as_player(anvil, deployments, player, &["show", "1", "--json"]);
    serde_json::from_str(succeeded(&out).trim()).unwrap()
}

fn address(value: &Value) -> Address {
    value.as_str().unwrap().parse().unwrap()
}

fn checked_against_the_chain(shown: &Value, t: &mut Tournament<RpcChain>, you: Address) {
    let id = U256::from(1);
    let event: EventInfo = t.event(id).unwrap();
    assert_eq!(address(&shown["organiser"]), event.organiser);
    assert_eq!(shown["fee"], U256::from(event.fee).to_string());
    assert_eq!(shown["size"], event.size);
    assert_eq!(shown["deadline"], event.deadline.to::<u64>());
    assert_eq!(shown["organiserFeeBps"], event.feeBps);
    let split: Vec<u64> = event.split.iter().map(|s| u64::from(*s)).collect();
    assert_eq!(shown["split"], serde_json::json!(split));
    let entrants = shown["entrants"].as_array().unwrap();
    assert_eq!(entrants.len(), usize::from(event.entrants));
    for (i, e) in entrants.iter().enumerate() {
        assert_eq!(address(e), t.entrant(id, i as u8).unwrap(), "entrant {i}");
    }
    for prize in shown["prizes"].as_array().unwrap() {
        let tier = prize["tier"].as_u64().unwrap() as u8;
        assert_eq!(
            prize["prize"],
            t.prize_of(id, tier).unwrap().to_string(),
            "tier {tier}"
        );
    }
    assert_eq!(
        shown["you"]["credit"],
        t.credits(you, event.token).unwrap().to_string()
    );
    for round in shown["rounds"].as_array().unwrap() {
        for m in round.as_array().unwrap() {
            let index = m["match"].as_u64().unwrap() as u8;
            let info = t.match_info(id, index).unwrap();
            match t.pairing(id, index) {
                Ok((white, black)) => {
                    assert_eq!(address(&m["white"]), white, "match {index}");
                    assert_eq!(address(&m["black"]), black, "match {index}");
                }
                Err(_) => assert!(m["white"].is_null(), "match {index}: {m}"),
            }
            let status =
                ["waiting", "running", "decided", "lot", "abandoned"][info.status as usize];
            assert_eq!(m["status"], status, "match {index}");
        }
    }
}

#[test]
fn four_players_create_enter_and_read_a_knockout() {
    let anvil = Anvil::spawn().expect("anvil");
    let dir = common::scratch("tournament");
    let deployments = dir.path().join("deployments.json");
    succeeded(&chessref(
        Some(KEY_ORGANISER),
        &[
            "deploy",
            "--rpc",
            anvil.url(),
            "--deployments",
            deployments.to_str().unwrap(),
        ],
    ));
    let terms = |size: &'static str, split: &'static str, fee_bps: &'static str| {
        [
            "--size",
            size,
            "--fee",
            "0.01eth",
            "--time",
            "180",
            "--increment",
            "2",
            "--first-move-window",
            "600",
            "--deadline",
            "2h",
            "--split",
            split,
            "--organiser-fee",
            fee_bps,
        ]
    };

    // Refused locally, with what is wrong, before anything is sent.
    let bad = create(&anvil, &deployments, &terms("6", "6000,2500,750", "500"));
    assert!(failed(&bad, 2).contains("4, 8, 16, 32 or 64 players, not 6"));
    let bad = create(&anvil, &deployments, &terms("4", "6000,2500,1000", "500"));
    assert!(failed(&bad, 2).contains("split"));
    let bad = create(&anvil, &deployments, &terms("4", "6000,2500,750", "1500"));
    assert!(failed(&bad, 2).contains("1500"));

    let created = succeeded(&create(
        &anvil,
        &deployments,
        &terms("4", "6000,2500,750", "500"),
    ));
    assert!(created.contains("created event 1"), "{created}");

    for player in PLAYERS {
        let out = succeeded(&as_player(&anvil, &deployments, player, &["enter", "1"]));
        assert!(out.contains("paying 0.01 ETH"), "{out}");
    }
    // The contract's refusal, in words.
    let again = as_player(&anvil, &deployments, PLAYERS[0], &["enter", "1"]);
    assert!(
        failed(&again, 1).contains("registration is closed"),
        "{}",
        text(&again.stderr)
    );

    let mut t = tournament(&anvil, &deployments);
    let you: Address = PLAYERS[0].parse().unwrap();
    let shown = show_json(&anvil, &deployments, PLAYERS[0]);
    assert_eq!(shown["status"], "drawing");
    assert_eq!(shown["you"]["entered"], true);
    checked_against_the_chain(&shown, &mut t, you);
    // Pool 0.04 ETH less 5 %: 0.038 = 0.0228 + 0.0095 + 2 x 0.00285.
    let prizes: Vec<&str> = shown["prizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["prize"].as_str().unwrap())
        .collect();
    assert_eq!(
        prizes,
        ["22800000000000000", "9500000000000000", "2850000000000000"]
    );

    // The draw (its block hash must exist first), then the bracket.
    let id = U256::from(1);
    let mut drawn = false;
    for _ in 0..5 {
        if t.draw(you, id).is_ok() {
            drawn = true;
            break;
        }
        chessref_evm::Chain::advance_time(t.referee().chain(), 1).unwrap();
    }
    assert!(drawn, "the draw went through");
    let shown = show_json(&anvil, &deployments, PLAYERS[0]);
    assert_eq!(shown["status"], "running");
    checked_against_the_chain(&shown, &mut t, you);
    let rounds = shown["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[0].as_array().unwrap().len(), 2);
    assert!(rounds[1][0]["white"].is_null(), "the final waits");
    let next = &shown["you"]["next"];
    assert_eq!(next["round"], 0);
    assert!(
        address(&next["white"]) == you || address(&next["black"]) == you,
        "{next}"
    );
    let plain = succeeded(&as_player(&anvil, &deployments, PLAYERS[0], &["show", "1"]));
    assert!(plain.contains("your next match: match "), "{plain}");
    assert!(plain.contains("(you)"), "{plain}");

    // All four play it out at once, scripted: black mates in every game (fool's mate).
    let script = dir.path().join("moves.txt");
    std::fs::write(&script, "white: f3 g4\nblack: e5 Qh4#\n").unwrap();
    let players: Vec<_> = PLAYERS
        .iter()
        .map(|player| {
            let mut command = Command::new(env!("CARGO_BIN_EXE_chessref"));
            command
                .args([
                    "tournament",
                    "play",
                    "1",
                    "--moves",
                    script.to_str().unwrap(),
                    "--poll-ms",
                    "200",
                    "--timeout",
                    "180",
                    "--rpc",
                    anvil.url(),
                    "--deployments",
                    deployments.to_str().unwrap(),
                    "--unlocked",
                    player,
                ])
                .env_remove("CHESSREF_PRIVATE_KEY")
                .env_remove("CHESSREF_DEPLOYMENTS")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            command.spawn().expect("run chessref tournament play")
        })
        .collect();
    let outputs: Vec<String> = players
        .into_iter()
        .map(|child| succeeded(&child.wait_with_output().unwrap()))
        .collect();

    let event = t.event(id).unwrap();
    assert!(event.finished, "the final was decided");
    let final_match = t.match_info(id, 2).unwrap();
    assert_eq!(final_match.status, 2);
    assert_eq!(final_match.winner, final_match.black, "black mates");
    // Every player claimed and withdrew: the event paid out every prize (the organiser's
    // 5 % is left for claimFee), and nobody holds a credit.
    assert_eq!(event.paid, 38_000_000_000_000_000u128);
    for (player, out) in PLAYERS.iter().zip(&outputs) {
        let player: Address = player.parse().unwrap();
        assert!(t.credits(player, Address::ZERO).unwrap().is_zero());
        let expected = if player == final_match.winner {
            "credited 0.0228 ETH"
        } else if player == final_match.white {
            "credited 0.0095 ETH"
        } else {
            "credited 0.00285 ETH"
        };
        assert!(out.contains(expected), "{player}: {out}");
        assert!(out.contains("withdrew"), "{player}: {out}");
    }
    let shown = show_json(&anvil, &deployments, PLAYERS[0]);
    assert_eq!(shown["status"], "finished");
    checked_against_the_chain(&shown, &mut t, you);
}
