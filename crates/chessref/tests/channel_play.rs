//! A channel game between two `chessref channel play` processes on anvil, through the
//! relay of a `chessref serve --index` process fed by a `chessref index` process: each a
//! real process, as a person starts them. Moves go in on standard input, events come out
//! as JSON lines.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};
use chessref_evm::{Referee, RpcChain, anvil::Anvil};
use serde_json::Value;

/// anvil's default accounts 0 and 1.
const KEY_WHITE: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const KEY_BLACK: &str = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const WHITE: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const BLACK: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chessref-play-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn command(key: Option<&str>, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessref"));
    command
        .args(args)
        .env_remove("CHESSREF_PRIVATE_KEY")
        .env_remove("CHESSREF_PRIVATE_KEYS")
        .env_remove("CHESSREF_DEPLOYMENTS");
    if let Some(key) = key {
        command.env("CHESSREF_PRIVATE_KEY", key);
    }
    command
}

fn run(key: Option<&str>, args: &[&str]) -> String {
    let out = command(key, args).output().expect("run chessref");
    assert!(
        out.status.success(),
        "chessref {args:?}: exit {:?}\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A child process killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `chessref channel play` process: its stdin and its JSON events.
struct Player {
    process: Process,
    stdin: ChildStdin,
    events: Receiver<Value>,
    name: &'static str,
}

impl Player {
    fn start(name: &'static str, key: &str, base: &[String], dir: &Path) -> Player {
        let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
        args.extend(["--dir", dir.to_str().unwrap(), "--json"]);
        let mut child = command(Some(key), &args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start chessref channel play");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, events) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                eprintln!("{name} > {line}");
                match serde_json::from_str::<Value>(&line) {
                    Ok(v) => {
                        if tx.send(v).is_err() {
                            break;
                        }
                    }
                    Err(_) => eprintln!("{name}: {line}"),
                }
            }
        });
        Player {
            process: Process(child),
            stdin,
            events,
            name,
        }
    }

    fn say(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Waits for the event `name` matching `pick`, skipping others (up to 60 s).
    fn expect(&self, name: &str, pick: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = self
                .events
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("{}: no {name} event within 60 s", self.name));
            assert_ne!(event["event"], "error", "{}: {event}", self.name);
            if event["event"] == name && pick(&event) {
                return event;
            }
        }
    }

    fn exit_status(mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.process.0.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "{} did not exit", self.name);
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn two_players_play_a_staked_channel_game_to_mate_through_the_relay() {
    let anvil = Anvil::spawn().expect("anvil");
    let dir = scratch("mate");
    let deployments = dir.join("deployments.json");
    let deployments = deployments.to_str().unwrap();
    run(
        Some(KEY_WHITE),
        &["deploy", "--rpc", anvil.url(), "--deployments", deployments],
    );
    let db = dir.join("index.sqlite");
    let db = db.to_str().unwrap();
    let _index = Process(
        command(
            None,
            &[
                "index",
                "--rpc",
                anvil.url(),
                "--deployments",
                deployments,
                "--db",
                db,
                "--confirmations",
                "0",
                "--poll-ms",
                "50",
            ],
        )
        .stderr(Stdio::null())
        .spawn()
        .unwrap(),
    );
    while !Path::new(db).is_file() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut serve = command(None, &["serve", "--index", db, "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _serve = Process(serve);
    let relay = line
        .trim()
        .rsplit(' ')
        .next()
        .expect("the listening address")
        .to_owned();

    let chain = ["--rpc", anvil.url(), "--deployments", deployments];
    let mut create = vec![
        "channel",
        "create",
        "--opponent",
        BLACK,
        "--stake",
        "0.01eth",
    ];
    create.extend(["--window", "600", "--relay", relay.as_str()]);
    create.extend(chain);
    let created = run(Some(KEY_WHITE), &create);
    let id = created
        .lines()
        .find_map(|l| l.strip_prefix("created game "))
        .expect("the game id")
        .trim()
        .to_owned();
    let mut join = vec!["channel", "join", id.as_str()];
    join.extend(chain);
    run(Some(KEY_BLACK), &join);

    let base: Vec<String> = ["channel", "play", id.as_str(), "--relay", relay.as_str()]
        .iter()
        .chain(chain.iter())
        .map(|s| s.to_string())
        .collect();
    let (white_dir, black_dir) = (dir.join("white"), dir.join("black"));
    let mut white = Player::start("white", KEY_WHITE, &base, &white_dir);
    let mut black = Player::start("black", KEY_BLACK, &base, &black_dir);
    white.expect("started", |e| e["colour"] == "white");
    black.expect("started", |e| e["colour"] == "black");

    let scholar = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];
    for (i, san) in scholar.iter().enumerate() {
        let ply = i as u64 + 1;
        if ply == 4 {
            // Black's process is killed and restarted: it resumes from its own
            // transcript and the relay.
            drop(black);
            black = Player::start("black", KEY_BLACK, &base, &black_dir);
            let started = black.expect("started", |_| true);
            assert_eq!(started["ply"], 3, "{started}");
        }
        let (mover, other) = if i % 2 == 0 {
            (&mut white, &mut black)
        } else {
            (&mut black, &mut white)
        };
        mover.say(san);
        let seen = other.expect("move", |e| e["ply"] == ply);
        assert_eq!(seen["san"], *san, "{seen}");
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
    let mut referee = Referee::at(
        RpcChain::connect(anvil.url()).unwrap(),
        chessref_evm::deploy::create2_addresses().1,
    );
    let game = referee
        .game(U256::from_str_radix(&id, 10).unwrap())
        .unwrap();
    assert_eq!((game.phase, game.result), (3, 1), "ended, white won");
    let stake = U256::from(10u64.pow(16));
    let white: Address = WHITE.parse().unwrap();
    let black: Address = BLACK.parse().unwrap();
    assert_eq!(
        referee.credits(white, Address::ZERO).unwrap(),
        stake * U256::from(2)
    );
    assert_eq!(referee.credits(black, Address::ZERO).unwrap(), U256::ZERO);
    // Each player's transcript verifies and is the relay's.
    let transcript = white_dir
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("transcript.json");
    let out = run(
        None,
        &["channel", "verify", transcript.to_str().unwrap(), "--json"],
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["validPlies"], 7, "{report}");
}
