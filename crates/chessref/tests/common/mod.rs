//! What the tests of `chessref` processes share: the binary run with a clean
//! environment, anvil with the contracts, `chessref index` and `chessref serve` processes,
//! a channel game between two `chessref channel play` processes fed moves on standard
//! input and read as JSON events.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use alloy_primitives::U256;
use chessref_evm::{Referee, RpcChain, anvil::Anvil};
use serde_json::Value;

/// anvil's default accounts 0 and 1.
pub const KEY_WHITE: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
pub const KEY_BLACK: &str = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
pub const WHITE: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
pub const BLACK: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/// anvil's account 5: a watchtower that is neither player.
pub const KEY_TOWER: &str = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";

/// A scratch directory of one test, removed when the returned value is dropped.
pub fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("chessref-play-{name}-"))
        .tempdir()
        .unwrap()
}

pub fn command(key: Option<&str>, args: &[&str]) -> Command {
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

pub fn run(key: Option<&str>, args: &[&str]) -> String {
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

/// `chessref deploy` on the node at `rpc`, into `dir/deployments.json`: that file's path.
pub fn deploy(rpc: &str, dir: &Path) -> String {
    let deployments = dir.join("deployments.json").to_str().unwrap().to_owned();
    run(
        Some(KEY_WHITE),
        &["deploy", "--rpc", rpc, "--deployments", &deployments],
    );
    deployments
}

/// A `chessref index` process following the node at `rpc` into `db`, at once (no
/// confirmations, 50 ms polls).
pub fn spawn_index(rpc: &str, deployments: &str, db: &str) -> Process {
    Process(
        command(
            None,
            &[
                "index",
                "--rpc",
                rpc,
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
    )
}

/// A child process killed when dropped.
pub struct Process(pub Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `chessref channel play` process: its stdin and its JSON events.
pub struct Player {
    pub process: Process,
    pub stdin: ChildStdin,
    pub events: Receiver<Value>,
    pub name: &'static str,
}

impl Player {
    pub fn start(name: &'static str, key: &str, base: &[String], dir: &Path) -> Player {
        let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
        args.extend(["--dir", dir.to_str().unwrap()]);
        Player::spawn(name, key, &args, None)
    }

    /// `chessref channel play ARGS --json`, with `HOME` set to `home` if given.
    pub fn spawn(name: &'static str, key: &str, args: &[&str], home: Option<&Path>) -> Player {
        let mut args = args.to_vec();
        args.push("--json");
        let mut command = command(Some(key), &args);
        if let Some(home) = home {
            command.env("HOME", home);
        }
        let mut child = command
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

    pub fn say(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Waits for the event `name` matching `pick`, skipping others (up to 60 s).
    pub fn expect(&self, name: &str, pick: impl Fn(&Value) -> bool) -> Value {
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

    /// Says `line`, then waits for the error event that answers it (up to 60 s), with no
    /// event named in `never` before it.
    pub fn refused(&mut self, line: &str, never: &[&str]) -> Value {
        self.say(line);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let event = self
                .events
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("{}: no answer to {line} within 60 s", self.name));
            let name = event["event"].as_str().unwrap_or_default();
            assert!(!never.contains(&name), "{}: {event}", self.name);
            if name == "error" {
                return event;
            }
        }
    }

    pub fn exit_status(mut self) -> std::process::ExitStatus {
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

/// A free loopback port (free when asked: a server bound to it later may race another).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `chessref serve --index DB` process on `127.0.0.1:port`, listening once this returns.
pub fn spawn_serve(db: &str, port: u16) -> Process {
    let addr = format!("127.0.0.1:{port}");
    let mut serve = command(None, &["serve", "--index", db, "--addr", &addr])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains(&addr), "{line}");
    Process(serve)
}

/// anvil with the contracts, `chessref index` and `chessref serve` on it, and one
/// channel game created by white for black with 0.01 ETH each, joined.
pub struct Table {
    pub anvil: Anvil,
    pub dir: PathBuf,
    pub deployments: String,
    /// The index database: a SQLite file in `dir`, or a Postgres URL.
    pub db: String,
    /// The relay's base URL the players are given.
    pub relay: String,
    /// The port of the table's own `chessref serve` (`serve`).
    pub port: u16,
    /// The game's id, once [`Table::open_game`] made it.
    pub id: String,
    pub _index: Process,
    pub serve: Option<Process>,
    /// Holds `dir` until the processes above, dropped first, have stopped.
    pub _scratch: tempfile::TempDir,
}

impl Table {
    /// A table on a SQLite index with its relay, and the game made.
    pub fn new(name: &str) -> Table {
        let mut table = Table::on(name, None);
        table.start_relay();
        table.open_game();
        table
    }

    /// anvil with the contracts and `chessref index` into `db` (a SQLite file in the
    /// table's directory if `None`): no relay started yet, no game.
    pub fn on(name: &str, db: Option<String>) -> Table {
        let anvil = Anvil::spawn().expect("anvil");
        let scratch = scratch(name);
        let dir = scratch.path().to_owned();
        let deployments = deploy(anvil.url(), &dir);
        let sqlite = db.is_none();
        let db = db.unwrap_or_else(|| dir.join("index.sqlite").to_str().unwrap().to_owned());
        let index = spawn_index(anvil.url(), &deployments, &db);
        // A server creates a Postgres schema it finds missing, as the indexer does; a
        // SQLite file it must find made.
        while sqlite && !Path::new(&db).is_file() {
            std::thread::sleep(Duration::from_millis(20));
        }
        let port = free_port();
        Table {
            anvil,
            dir,
            deployments,
            db,
            relay: format!("http://127.0.0.1:{port}"),
            port,
            id: String::new(),
            _index: index,
            serve: None,
            _scratch: scratch,
        }
    }

    /// White creates the channel game for black, 0.01 ETH each, and black joins it.
    pub fn open_game(&mut self) {
        let chain = self.chain();
        let mut create = vec![
            "channel",
            "create",
            "--opponent",
            BLACK,
            "--stake",
            "0.01eth",
        ];
        create.extend(["--window", "600"]);
        create.extend(chain.iter().map(String::as_str));
        let created = run(Some(KEY_WHITE), &create);
        eprintln!("{created}");
        self.id = created
            .lines()
            .find_map(|l| l.strip_prefix("created game "))
            .expect("the game id")
            .trim()
            .to_owned();
        // Issue 29, item 4: without --relay, the next step names `chessref serve`'s
        // default address, not a placeholder.
        assert!(
            created.contains("--relay http://127.0.0.1:8080") && !created.contains("URL"),
            "{created}"
        );
        let mut join = vec!["channel", "join", self.id.as_str()];
        join.extend(chain.iter().map(String::as_str));
        let joined = run(Some(KEY_BLACK), &join);
        eprintln!("{joined}");
        assert!(
            joined.contains("--relay http://127.0.0.1:8080") && !joined.contains("URL"),
            "{joined}"
        );
    }

    pub fn chain(&self) -> Vec<String> {
        [
            "--rpc",
            self.anvil.url(),
            "--deployments",
            &self.deployments,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    /// `chessref serve` on the table's port (again, after a kill).
    pub fn start_relay(&mut self) {
        self.serve = Some(spawn_serve(&self.db, self.port));
    }

    /// `chessref channel play` of the table's game, its relay and chain.
    pub fn play_args(&self) -> Vec<String> {
        let mut args: Vec<String> = ["channel", "play", self.id.as_str(), "--relay", &self.relay]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(self.chain());
        args
    }

    pub fn player(&self, name: &'static str, key: &str) -> Player {
        let player = Player::start(name, key, &self.play_args(), &self.dir.join(name));
        player.expect("started", |_| true);
        player
    }

    pub fn referee(&self) -> Referee<RpcChain> {
        Referee::at(
            RpcChain::connect(self.anvil.url()).unwrap(),
            chessref_evm::deploy::create2_addresses().1,
        )
    }

    pub fn game_id(&self) -> U256 {
        U256::from_str_radix(&self.id, 10).unwrap()
    }

    /// The player's own transcript file.
    pub fn transcript(&self, name: &str) -> PathBuf {
        self.dir
            .join(name)
            .read_dir()
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
            .join("transcript.json")
    }
}

/// `mover` plays `san` as ply `ply`; `other` sees it.
pub fn exchange(mover: &mut Player, other: &Player, san: &str, ply: u64) {
    mover.say(san);
    // Issue 29, item 11: the mover's own move is an event too, with its signed stamp.
    let own = mover.expect("move", |e| e["ply"] == ply && e["from"] == "you");
    assert_eq!(own["san"], san, "{own}");
    assert_eq!(own["by"], "you", "{own}");
    assert!(own["timestamp"].as_u64().is_some_and(|t| t > 0), "{own}");
    let seen = other.expect("move", |e| e["ply"] == ply);
    assert_eq!(seen["san"], san, "{seen}");
    assert_eq!(seen["by"], "opponent", "{seen}");
    assert_eq!(seen["colour"], own["colour"], "{seen}");
    assert_eq!(seen["timestamp"], own["timestamp"], "{seen}");
}

/// [`exchange`] of ply `ply`, its mover white on odd plies.
pub fn exchange_ply(white: &mut Player, black: &mut Player, san: &str, ply: u64) {
    if ply % 2 == 1 {
        exchange(white, black, san, ply);
    } else {
        exchange(black, white, san, ply);
    }
}

/// Moves the node's clock `seconds` on and mines a block there.
pub fn advance(referee: &mut Referee<RpcChain>, seconds: u64) {
    let chain = referee.chain();
    chain
        .raw_request("evm_increaseTime", serde_json::json!([seconds]))
        .unwrap();
    chain
        .raw_request("evm_mine", serde_json::json!([]))
        .unwrap();
}

/// `sans` played from the start, each seen by the other side.
pub fn play(white: &mut Player, black: &mut Player, sans: &[&str]) {
    for (ply, san) in (1..).zip(sans) {
        exchange_ply(white, black, san, ply);
    }
}
