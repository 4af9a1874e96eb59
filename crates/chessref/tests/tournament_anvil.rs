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
                let game = seat.game(info.gameId).unwrap();
                if game.is_channel() && game.registrations.is_empty() {
                    // Off-chain, a move is stamped by the wall clock and registering it must
                    // be near the chain's time: only a no-show white (no move) waits.
                    info.white == no_show
                } else {
                    let colour = if info.white == no_show {
                        "white"
                    } else {
                        "black"
                    };
                    seat.view(info.gameId).unwrap().turn == colour
                }
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

/// anvil (interval and instant mining) with the contracts, `chessref index` and the relay
/// of `chessref serve`, and a 4-player channel event (0.01 ETH, 5 % to the organiser,
/// 600 s games, a 60 s first-move window, a 600 s response window) entered by accounts 1-4.
struct ChannelEvent {
    anvil: Anvil,
    deployments: String,
    relay: String,
    _index: common::Process,
    _serve: common::Process,
    dir: tempfile::TempDir,
}

impl ChannelEvent {
    fn new(name: &str) -> ChannelEvent {
        let anvil =
            Anvil::spawn_with_args(&["--block-time", "1", "--mixed-mining"]).expect("anvil");
        let dir = common::scratch(name);
        let deployments = common::deploy(anvil.url(), dir.path());
        let db = dir.path().join("index.sqlite").to_str().unwrap().to_owned();
        let index = common::spawn_index(anvil.url(), &deployments, &db);
        while !std::path::Path::new(&db).is_file() {
            std::thread::sleep(Duration::from_millis(20));
        }
        let port = common::free_port();
        let serve = common::spawn_serve(&db, port);
        let event = ChannelEvent {
            anvil,
            deployments,
            relay: format!("http://127.0.0.1:{port}"),
            _index: index,
            _serve: serve,
            dir,
        };
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
            "60",
            "--deadline",
            "1h",
            "--split",
            "6000,2500,750",
            "--organiser-fee",
            "500",
            "--channel",
        ];
        create.extend(event.chain());
        let created = common::run(Some(common::KEY_WHITE), &create);
        assert!(created.contains("created event 1"), "{created}");
        for key in PLAYER_KEYS {
            let mut enter = vec!["tournament", "enter", "1"];
            enter.extend(event.chain());
            common::run(Some(key), &enter);
        }
        event
    }

    fn chain(&self) -> [&str; 4] {
        [
            "--rpc",
            self.anvil.url(),
            "--deployments",
            &self.deployments,
        ]
    }

    /// A script of moves, as a file.
    fn script(&self, name: &str, text: &str) -> std::path::PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `chessref tournament play 1` of player `i` (0-based) with `moves`, its output piped.
    fn play(&self, i: usize, moves: &std::path::Path) -> Child {
        let home = self.dir.path().join(format!("player-{}", i + 1));
        let mut args = vec![
            "tournament",
            "play",
            "1",
            "--moves",
            moves.to_str().unwrap(),
            "--poll-ms",
            "250",
            "--patience",
            "1",
            "--timeout",
            "150",
            "--relay",
            &self.relay,
            "--dir",
            home.to_str().unwrap(),
        ];
        args.extend(self.chain());
        common::command(Some(PLAYER_KEYS[i]), &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn tournament(&self) -> Tournament<RpcChain> {
        tournament(&self.anvil, self.dir.path()).unwrap()
    }
}

/// The output of a `play` process that must have succeeded.
fn finished(i: usize, child: Child) -> String {
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
}

#[test]
fn four_play_processes_run_a_channel_knockout_through_the_relay() {
    let event = ChannelEvent::new("tournament-channel");
    // Players 1 and 2 shuffle their knights and agree to a draw when they meet; 3 and 4
    // play fool's mate, and lose to them.
    let knights = event.script(
        "knights.txt",
        "white: Nf3 Ng1 Nf3 Ng1 draw\nblack: Nf6 Ng8 Nf6 Ng8 draw\n",
    );
    let fools_mate = event.script("fools-mate.txt", "white: f3 g4\nblack: e5 Qh4#\n");
    let started = Instant::now();
    let players: Vec<Child> = (0..4)
        .map(|i| event.play(i, if i < 2 { &knights } else { &fools_mate }))
        .collect();
    let outputs: Vec<String> = players
        .into_iter()
        .enumerate()
        .map(|(i, child)| finished(i, child))
        .collect();
    eprintln!(
        "the channel event ran in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let mut t = event.tournament();
    let id = U256::from(1);
    let info = t.event(id).unwrap();
    assert!(info.finished);
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
    assert_eq!(U256::from(info.paid), wei(380));
    for (i, out) in outputs.iter().enumerate() {
        assert!(out.contains("withdrew"), "player {}: {out}", i + 1);
        let player = address(PLAYERS[i]);
        assert!(t.credits(player, Address::ZERO).unwrap().is_zero());
    }
}

#[test]
fn a_channel_no_show_loses_on_time_once_its_opponent_registers_the_game() {
    let event = ChannelEvent::new("tournament-channel-no-show");
    let fools_mate = event.script("fools-mate.txt", "white: f3 g4\nblack: e5 Qh4#\n");
    let no_show = address(PLAYERS[3]);
    let started = Instant::now();
    let mut players: Vec<Child> = (0..3).map(|i| event.play(i, &fools_mate)).collect();
    let mut t = event.tournament();
    let mut seat = Seat::watching(
        RpcChain::connect(event.anvil.url()).unwrap(),
        t.referee().address(),
        0,
    )
    .unwrap();
    let id = U256::from(1);
    let mut steps = 0;
    // Anvil's clock moves on while the no-show's match is all that is left to wait for:
    // its opponent waits half the first-move window, registers the game, waits out the
    // response window and the no-show's clock. In steps of 150 s, so that the chain stays
    // well within the session keys' lifetime (2 x 600 s + 2 x 600 s from their making by
    // the wall clock) for the final, played after.
    while players.iter_mut().any(|p| p.try_wait().unwrap().is_none()) {
        if started.elapsed() > Duration::from_secs(150) {
            let outputs: Vec<String> = players
                .into_iter()
                .map(|mut p| {
                    let _ = p.kill();
                    let out = p.wait_with_output().unwrap();
                    String::from_utf8_lossy(&out.stdout).into_owned()
                })
                .collect();
            panic!(
                "the event did not end in 150 s ({steps} steps)\n{}",
                outputs.join("\n-----\n")
            );
        }
        if only_the_no_show_waits(&mut t, &mut seat, id, no_show) {
            common::advance(t.referee(), 150);
            steps += 1;
        }
        std::thread::sleep(Duration::from_millis(1_000));
    }
    let mut outputs: Vec<String> = players
        .into_iter()
        .enumerate()
        .map(|(i, child)| finished(i, child))
        .collect();
    outputs.push(finished(3, event.play(3, &fools_mate)));
    eprintln!(
        "the channel event with a no-show ran in {:.1} s, anvil's clock moved {steps} x 150 s",
        started.elapsed().as_secs_f64()
    );

    let info = t.event(id).unwrap();
    assert!(info.finished);
    let mut forfeits = 0;
    for m in BracketSize::new(4).unwrap().matches() {
        let info = t.match_info(id, m.get()).unwrap();
        assert_eq!(info.status, 2, "match {} decided", m.get());
        let game = t.referee().game(info.gameId).unwrap();
        if info.white == no_show || info.black == no_show {
            let expected = if info.white == no_show {
                BLACK_WINS
            } else {
                WHITE_WINS
            };
            assert_eq!((game.result, game.reason), (expected, TIMEOUT), "on time");
            assert_ne!(info.winner, no_show);
            forfeits += 1;
        } else {
            assert_eq!((info.winner, game.result), (info.black, BLACK_WINS));
        }
    }
    assert_eq!(forfeits, 1);
    assert_eq!(U256::from(info.paid), wei(380));
    for (i, out) in outputs.iter().enumerate() {
        assert!(out.contains("withdrew"), "player {}: {out}", i + 1);
        assert!(
            t.credits(address(PLAYERS[i]), Address::ZERO)
                .unwrap()
                .is_zero()
        );
    }
}
