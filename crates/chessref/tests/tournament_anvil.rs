//! The README's 8-player knockout: `scripts/tournament-anvil.sh` run as it is against an
//! anvil the test starts (interval and instant mining, as the README starts it), then the
//! chain read back. One game is drawn and goes to the lot; one player never starts and its
//! opponent goes on by the first-move window. Anvil's clock is moved on only while that
//! no-show's match is the one thing left to wait for, so no other game's clock is touched.
//! And a 4-player channel event, its games played through a `chessref serve` relay.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};
use chessref_client::seat::Seat;
use chessref_core::tournament::BracketSize;
use chessref_evm::{Chain, Referee, RpcChain, anvil::Anvil, tournament::Tournament};

mod common;

/// anvil's accounts 1 to 8, in the script's order: 1 and 2 shuffle their knights (and
/// draw when they meet), 3 to 7 play fool's mate, 8 never starts.
const PLAYERS: [&str; 8] = [
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
    "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
    "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
    "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
    "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
    "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f",
];
/// anvil's account 0: the organiser.
const ORGANISER: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
/// What one step of the no-show's wait moves anvil's clock: less than any clock of the
/// event (60 s + 15 s grace), so even a game started in the same instant loses none of it.
const STEP: u64 = 40;
/// Referee results and reasons (ChessRefereeCore, Outcome).
const WHITE_WINS: u8 = 1;
const BLACK_WINS: u8 = 2;
const DRAW: u8 = 3;
const CHECKMATE: u8 = 1;
const RESIGNATION: u8 = 5;
const TIMEOUT: u8 = 6;
const THREEFOLD: u8 = 10;

fn address(text: &str) -> Address {
    text.parse().unwrap()
}

/// `units` of 0.0001 ETH, in wei.
fn wei(units: u64) -> U256 {
    U256::from(units) * U256::from(10u64.pow(14))
}

/// The script, with the test's binary, node and folder.
fn run_script(anvil: &Anvil, work: &std::path::Path) -> Child {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/tournament-anvil.sh"
    );
    Command::new("bash")
        .arg(script)
        .env("RPC", anvil.url())
        .env("CHESSREF", env!("CARGO_BIN_EXE_chessref"))
        .env("WORK", work)
        .env_remove("CHESSREF_PRIVATE_KEY")
        .env_remove("CHESSREF_PRIVATE_KEYS")
        .env_remove("CHESSREF_DEPLOYMENTS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run scripts/tournament-anvil.sh")
}

/// The event's tournament once the script deployed the referee (`None` before).
fn tournament(anvil: &Anvil, work: &std::path::Path) -> Option<Tournament<RpcChain>> {
    let deployments = work.join("deployments.json");
    if !deployments.is_file() {
        return None;
    }
    let (referee, _) =
        chessref_evm::deployments::locate(31_337, None, Some(&deployments), None).ok()?;
    let chain = RpcChain::connect(anvil.url()).unwrap();
    Some(Tournament::of(Referee::at(chain, referee)))
}

/// Whether the no-show's match is all that is left to wait for, and waits on the clock:
/// every other match decided, or waiting for that one below it; the no-show's match not
/// started, or its game on the no-show's move.
fn only_the_no_show_waits(
    t: &mut Tournament<RpcChain>,
    seat: &mut Seat,
    id: U256,
    no_show: Address,
) -> bool {
    let Ok(event) = t.event(id) else {
        return false;
    };
    if !event.drawn || event.finished {
        return false;
    }
    let size = BracketSize::new(u32::from(event.size)).unwrap();
    for m in size.matches() {
        let info = t.match_info(id, m.get()).unwrap();
        let players = t.pairing(id, m.get()).ok();
        let mine = players.is_some_and(|(w, b)| w == no_show || b == no_show);
        let waits = match info.status {
            2 => true,
            0 if players.is_none() => true,
            0 if mine => true,
            1 if mine => {
                let colour = if info.white == no_show {
                    "white"
                } else {
                    "black"
                };
                seat.view(info.gameId).unwrap().turn == colour
            }
            _ => false,
        };
        if !waits {
            return false;
        }
    }
    true
}

#[test]
fn eight_play_processes_run_a_knockout_with_a_draw_and_a_no_show() {
    let anvil = Anvil::spawn_with_args(&["--block-time", "1", "--mixed-mining"]).expect("anvil");
    let dir = common::scratch("tournament8");
    let work = dir.path().to_path_buf();
    let id = U256::from(1);
    let no_show = address(PLAYERS[7]);
    let started = Instant::now();
    let mut script = run_script(&anvil, &work);
    let mut keeper: Option<(Tournament<RpcChain>, Seat)> = None;
    let mut steps = 0;
    let status = loop {
        if let Some(status) = script.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(240) {
            let _ = script.kill();
            let out = script.wait_with_output().unwrap();
            panic!(
                "the script did not end in 240 s\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        if keeper.is_none()
            && let Some(mut t) = tournament(&anvil, &work)
        {
            let referee = t.referee().address();
            let chain = RpcChain::connect(anvil.url()).unwrap();
            let seat = Seat::watching(chain, referee, 0).unwrap();
            keeper = Some((t, seat));
        }
        if let Some((t, seat)) = keeper.as_mut()
            && only_the_no_show_waits(t, seat, id, no_show)
        {
            common::advance(t.referee(), STEP);
            steps += 1;
        }
        std::thread::sleep(Duration::from_millis(1_000));
    };
    let out = script.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        status.success(),
        "exit {status}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        (2..=8).contains(&steps),
        "the no-show's wait took {steps} steps of {STEP} s"
    );
    eprintln!(
        "the script ran in {:.1} s, anvil's clock moved {steps} x {STEP} s",
        started.elapsed().as_secs_f64()
    );

    // The bracket, from the chain: each game went as the two scripts make it go.
    let (mut t, _) = keeper.expect("the script deployed");
    let event = t.event(id).unwrap();
    assert!(event.finished, "the final was decided");
    let size = BracketSize::new(8).unwrap();
    let knights = [address(PLAYERS[0]), address(PLAYERS[1])];
    let mut draws = 0;
    let mut forfeits = 0;
    let mut tier_of = std::collections::HashMap::new();
    for m in size.matches() {
        let info = t.match_info(id, m.get()).unwrap();
        assert_eq!(info.status, 2, "match {} decided", m.get());
        let (white, black) = (info.white, info.black);
        assert_eq!(t.pairing(id, m.get()).unwrap(), (white, black));
        if let Some((lo, hi)) = size.children(m) {
            let below = [
                t.match_info(id, lo.get()).unwrap().winner,
                t.match_info(id, hi.get()).unwrap().winner,
            ];
            assert!(
                below.contains(&white) && below.contains(&black),
                "match {} is played by the winners below it",
                m.get()
            );
        }
        let game = t.referee().game(info.gameId).unwrap();
        let loser = if info.winner == white { black } else { white };
        assert!(info.winner == white || info.winner == black);
        tier_of.insert(loser, size.loser_tier(m));
        if size.parent(m).is_none() {
            tier_of.insert(info.winner, 0);
        }
        let what = (game.result, game.reason);
        if knights.contains(&white) && knights.contains(&black) {
            assert_eq!(what, (DRAW, THREEFOLD), "the knights' game is drawn");
            draws += 1;
        } else if white == no_show || black == no_show {
            assert_ne!(info.winner, no_show);
            let expected = if white == no_show {
                BLACK_WINS
            } else {
                WHITE_WINS
            };
            assert_eq!(what, (expected, TIMEOUT), "the no-show loses on time");
            forfeits += 1;
        } else if knights.contains(&white) || knights.contains(&black) {
            assert!(knights.contains(&info.winner), "match {}", m.get());
            let expected = if knights.contains(&white) {
                WHITE_WINS
            } else {
                BLACK_WINS
            };
            assert_eq!(
                what,
                (expected, RESIGNATION),
                "fool's mate runs out of moves"
            );
        } else {
            assert_eq!(info.winner, black, "match {}", m.get());
            assert_eq!(what, (BLACK_WINS, CHECKMATE), "fool's mate");
        }
    }
    assert_eq!((draws, forfeits), (1, 1));
    assert!(
        stdout.contains("match ") && stdout.contains("was drawn: its lot waits for block"),
        "{stdout}"
    );

    // Every prize credited and withdrawn; the prizes and the organiser's fee are the pool.
    // 8 x 0.01 ETH; 5 % to the organiser; 40 / 20 / 10 / 5 % of the rest to each winner,
    // finalist, semi-finalist and first-round loser.
    let pool = wei(800);
    let fee = wei(40);
    let prizes: Vec<U256> = (0..4).map(|tier| t.prize_of(id, tier).unwrap()).collect();
    assert_eq!(prizes, [wei(304), wei(152), wei(76), wei(38)]);
    let shown = ["0.0304 ETH", "0.0152 ETH", "0.0076 ETH", "0.0038 ETH"];
    let mut credited = U256::ZERO;
    for (i, player) in PLAYERS.iter().enumerate() {
        let player = address(player);
        let tier = tier_of[&player];
        let prize = prizes[usize::from(tier)];
        credited += prize;
        assert!(
            t.credits(player, Address::ZERO).unwrap().is_zero(),
            "player {}",
            i + 1
        );
        let log = if i == 7 {
            stdout.clone()
        } else {
            std::fs::read_to_string(work.join(format!("player-{}.log", i + 1))).unwrap()
        };
        let eth = shown[usize::from(tier)];
        assert!(
            log.contains(&format!("credited {eth}")),
            "player {}: {log}",
            i + 1
        );
        assert!(
            log.contains(&format!("withdrew {eth}")),
            "player {}: {log}",
            i + 1
        );
    }
    assert!(
        stdout.contains("credited the organiser's fee of event 1: 0.004 ETH"),
        "{stdout}"
    );
    assert_eq!(credited + fee, pool);
    assert_eq!(U256::from(event.paid), pool, "prizes and fee credited");
    let organiser = address(ORGANISER);
    assert!(t.credits(organiser, Address::ZERO).unwrap().is_zero());
    let at = t.address();
    let held = t.referee().chain().balance(at).unwrap();
    assert!(
        held.is_zero(),
        "the tournament holds {held} wei after every withdrawal"
    );

    // The fee once, by the organiser only: the refusals in words, nothing sent.
    let deployments = work.join("deployments.json");
    let claim_fee = |key: Option<&str>, unlocked: Option<&str>| {
        let mut args = vec![
            "tournament",
            "claim-fee",
            "1",
            "--rpc",
            anvil.url(),
            "--deployments",
            deployments.to_str().unwrap(),
        ];
        if let Some(who) = unlocked {
            args.extend(["--unlocked", who]);
        }
        common::command(key, &args).output().unwrap()
    };
    let stranger = claim_fee(None, Some(PLAYERS[1]));
    assert_eq!(stranger.status.code(), Some(1));
    let words = String::from_utf8_lossy(&stranger.stderr);
    assert!(words.contains("only the organiser"), "{words}");
    let again = claim_fee(Some(common::KEY_WHITE), None);
    assert_eq!(again.status.code(), Some(1));
    let words = String::from_utf8_lossy(&again.stderr);
    assert!(words.contains("already credited"), "{words}");
}

/// anvil's accounts 1 to 4, by key: a channel game's moves are signed by the player.
const PLAYER_KEYS: [&str; 4] = [
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
    "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
    "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
];

#[test]
fn four_play_processes_run_a_channel_knockout_through_the_relay() {
    let anvil = Anvil::spawn_with_args(&["--block-time", "1", "--mixed-mining"]).expect("anvil");
    let dir = common::scratch("tournament-channel");
    let work = dir.path();
    let deployments = common::deploy(anvil.url(), work);
    let db = work.join("index.sqlite").to_str().unwrap().to_owned();
    let _index = common::spawn_index(anvil.url(), &deployments, &db);
    while !std::path::Path::new(&db).is_file() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let port = common::free_port();
    let _serve = common::spawn_serve(&db, port);
    let relay = format!("http://127.0.0.1:{port}");
    let chain = ["--rpc", anvil.url(), "--deployments", &deployments];

    let mut create = vec![
        "tournament",
        "create",
        "--size",
        "4",
        "--fee",
        "0.01eth",
        "--time",
        "600",
        "--first-move-window",
        "600",
        "--deadline",
        "1h",
        "--split",
        "6000,2500,750",
        "--organiser-fee",
        "500",
        "--channel",
    ];
    create.extend(chain);
    let created = common::run(Some(common::KEY_WHITE), &create);
    assert!(created.contains("created event 1"), "{created}");
    for key in PLAYER_KEYS {
        let mut enter = vec!["tournament", "enter", "1"];
        enter.extend(chain);
        common::run(Some(key), &enter);
    }

    // Players 1 and 2 shuffle their knights and agree to a draw when they meet; 3 and 4
    // play fool's mate, and lose to them.
    let knights = work.join("knights.txt");
    std::fs::write(
        &knights,
        "white: Nf3 Ng1 Nf3 Ng1 draw\nblack: Nf6 Ng8 Nf6 Ng8 draw\n",
    )
    .unwrap();
    let fools_mate = work.join("fools-mate.txt");
    std::fs::write(&fools_mate, "white: f3 g4\nblack: e5 Qh4#\n").unwrap();
    let started = Instant::now();
    let players: Vec<Child> = PLAYER_KEYS
        .iter()
        .enumerate()
        .map(|(i, key)| {
            let moves = if i < 2 { &knights } else { &fools_mate };
            let home = work.join(format!("player-{}", i + 1));
            let mut args = vec![
                "tournament",
                "play",
                "1",
                "--moves",
                moves.to_str().unwrap(),
                "--poll-ms",
                "250",
                "--timeout",
                "150",
                "--relay",
                &relay,
                "--dir",
                home.to_str().unwrap(),
            ];
            args.extend(chain);
            common::command(Some(key), &args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<String> = players
        .into_iter()
        .enumerate()
        .map(|(i, child)| {
            let out = child.wait_with_output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                out.status.success(),
                "player {}: exit {:?}\n{stdout}\n{}",
                i + 1,
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
            stdout
        })
        .collect();
    eprintln!(
        "the channel event ran in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let mut t = tournament(&anvil, work).unwrap();
    let id = U256::from(1);
    let event = t.event(id).unwrap();
    assert!(event.finished);
    let size = BracketSize::new(4).unwrap();
    let knights = [address(PLAYERS[0]), address(PLAYERS[1])];
    let mut draws = 0;
    for m in size.matches() {
        let info = t.match_info(id, m.get()).unwrap();
        assert_eq!(info.status, 2, "match {} decided", m.get());
        let game = t.referee().game(info.gameId).unwrap();
        assert_eq!(game.responseWindow, 600, "a channel game");
        let (white, black) = (info.white, info.black);
        if knights.contains(&white) && knights.contains(&black) {
            assert_eq!(game.result, DRAW, "the knights agree to a draw");
            draws += 1;
        } else if knights.contains(&white) || knights.contains(&black) {
            assert!(knights.contains(&info.winner), "match {}", m.get());
        } else {
            assert_eq!(
                (info.winner, game.result),
                (black, BLACK_WINS),
                "fool's mate"
            );
        }
    }
    assert_eq!(draws, 1);
    // Pool 0.04 ETH less 5 %: 0.0228 + 0.0095 + 2 x 0.00285, each claimed and withdrawn.
    assert_eq!(U256::from(event.paid), wei(380));
    for (i, out) in outputs.iter().enumerate() {
        assert!(out.contains("withdrew"), "player {}: {out}", i + 1);
        let player = address(PLAYERS[i]);
        assert!(t.credits(player, Address::ZERO).unwrap().is_zero());
    }
}
