//! `chessref deploy` and `chessref game` against anvil nodes the tests start.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use chessref_evm::{RpcChain, Sender, anvil::Anvil, stalled_node::StalledNode};
use serde_json::Value;

/// anvil's default accounts 0 and 1 (the public test mnemonic).
const KEY_WHITE: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const KEY_BLACK: &str = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
/// Account 2's key, encrypted in tests/fixtures/keystore-anvil-2.json with this password.
const FIXTURE_PASSWORD: &str = "chessref fixture";
const ACCOUNT_2: &str = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scratch directory of one test, removed when the returned value is dropped.
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("chessref-chain-{name}-"))
        .tempdir()
        .unwrap()
}

/// Runs `chessref args` with `key` (if any) in CHESSREF_PRIVATE_KEY and nothing else of
/// the caller's chessref environment.
fn chessref(key: Option<&str>, args: &[&str]) -> Output {
    chessref_command(key, args).output().expect("run chessref")
}

/// The command [`chessref`] runs.
fn chessref_command(key: Option<&str>, args: &[&str]) -> Command {
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

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn succeeded(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn nonce(url: &str, account: &str) -> u64 {
    let chain = RpcChain::connect_as(url, &Sender::Unlocked(account.parse().unwrap())).unwrap();
    chain.nonce(account.parse().unwrap()).unwrap()
}

/// Deploys with `chessref deploy` from account 0 into `file`.
fn deploy(anvil: &Anvil, file: &Path) -> Value {
    succeeded(&chessref(
        Some(KEY_WHITE),
        &[
            "deploy",
            "--rpc",
            anvil.url(),
            "--deployments",
            file.to_str().unwrap(),
        ],
    ));
    read_json(file)["31337"].clone()
}

#[test]
fn deploy_writes_the_file_and_a_rerun_deploys_nothing() {
    let anvil = Anvil::spawn().expect("anvil");
    let scratch = scratch("deploy");
    let dir = scratch.path();
    let file = dir.join("deployments.json");
    std::fs::write(
        &file,
        r#"{"11155111": {"chainId": 11155111, "contracts": {}, "kept": true}}"#,
    )
    .unwrap();
    let out = chessref(
        Some(KEY_WHITE),
        &[
            "deploy",
            "--rpc",
            anvil.url(),
            "--deployments",
            file.to_str().unwrap(),
        ],
    );
    let text = succeeded(&out);
    let (rules, referee, channel) = chessref_evm::deploy::create2_addresses();
    for (name, address) in [
        ("ChessRulesView", rules),
        (
            "ChessRefereeAnnex",
            chessref_evm::deploy::create2_annex_address(),
        ),
        (
            "ChessChannelAnnex",
            chessref_evm::deploy::create2_channel_annex_address(),
        ),
        ("ChessReferee", referee),
        ("ChessChannel", channel),
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name} in {text}"));
        assert!(line.contains(&address.to_string()), "{line}");
        assert!(line.contains("tx 0x"), "{line}");
    }
    assert!(text.contains("deployed, "), "{text}");
    let written = read_json(&file);
    assert_eq!(written["11155111"]["kept"], true, "other chains are kept");
    let entry = &written["31337"];
    assert_eq!(entry["chainId"], 31337);
    assert_eq!(
        entry["salt"],
        "0x6368657373726566000000000000000000000000000000000000000000000000"
    );
    assert_eq!(
        entry["contracts"]["ChessReferee"]["address"]
            .as_str()
            .unwrap()
            .parse::<alloy_primitives::Address>()
            .unwrap(),
        referee
    );
    assert!(entry["contracts"]["ChessReferee"]["blockNumber"].is_u64());

    let before = nonce(anvil.url(), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    let again = succeeded(&chessref(
        Some(KEY_WHITE),
        &[
            "deploy",
            "--rpc",
            anvil.url(),
            "--deployments",
            file.to_str().unwrap(),
        ],
    ));
    // The rules view, the channel's and the tournament's blueprints, the referee's and the
    // channel's annexes, the referee and the channel and tournament it creates.
    assert_eq!(again.matches("already deployed").count(), 8, "{again}");
    assert_eq!(
        nonce(anvil.url(), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
        before
    );
    assert_eq!(
        read_json(&file)["31337"],
        *entry,
        "the first run's transactions kept"
    );
}

#[test]
fn the_forge_script_deploys_at_the_same_addresses_as_chessref_deploy() {
    let by_forge = Anvil::spawn().expect("anvil");
    let out = Command::new(root().join("scripts/foundry"))
        .current_dir(root())
        .args([
            "forge",
            "script",
            "contracts/script/Deploy.s.sol:Deploy",
            "--rpc-url",
            by_forge.url(),
            "--broadcast",
            "--skip",
            "test",
        ])
        .env("CHESSREF_PRIVATE_KEY", KEY_WHITE)
        .output()
        .expect("forge");
    let text = succeeded(&out);
    let by_rust = Anvil::spawn().expect("anvil");
    let scratch = scratch("forge");
    let dir = scratch.path();
    let entry = deploy(&by_rust, &dir.join("deployments.json"));
    let forge_chain = RpcChain::connect(by_forge.url()).unwrap();
    let rust_chain = RpcChain::connect(by_rust.url()).unwrap();
    for name in ["ChessRulesView", "ChessReferee", "ChessChannel"] {
        let address: alloy_primitives::Address = entry["contracts"][name]["address"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let forged = forge_chain.code(address).unwrap();
        assert!(!forged.is_empty(), "forge put no {name} at {address}");
        assert_eq!(forged, rust_chain.code(address).unwrap(), "{name}");
        let returned = match name {
            "ChessRulesView" => "rules: address ",
            "ChessReferee" => "referee: address ",
            _ => continue,
        };
        assert!(
            text.contains(&format!("{returned}{address}")),
            "forge reports {name} at {address}: {text}"
        );
    }
}

#[test]
fn deploy_without_a_factory_names_it_and_no_create2_deploys_anyway() {
    let anvil = Anvil::spawn_with_args(&["--disable-default-create2-deployer"]).expect("anvil");
    let scratch = scratch("nofactory");
    let dir = scratch.path();
    let file = dir.join("d.json");
    let args = [
        "deploy",
        "--rpc",
        anvil.url(),
        "--deployments",
        file.to_str().unwrap(),
    ];
    let out = chessref(Some(KEY_WHITE), &args);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "chain id 31337 has no CREATE2 factory at 0x4e59b44847b379578588920cA78FbF26c0B4956C"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!file.exists());
    let mut with_flag = args.to_vec();
    with_flag.push("--no-create2");
    let text = succeeded(&chessref(Some(KEY_WHITE), &with_flag));
    assert!(text.contains("not deterministic"), "{text}");
    assert_eq!(read_json(&file)["31337"]["factory"], Value::Null);
}

#[test]
fn senders_come_from_a_keystore_or_the_nodes_unlocked_account_never_the_command_line() {
    let anvil = Anvil::spawn().expect("anvil");
    let scratch = scratch("senders");
    let dir = scratch.path();
    let file = dir.join("d.json");
    let keystore = root().join("crates/chessref/tests/fixtures/keystore-anvil-2.json");
    let wrong = dir.join("wrong.txt");
    std::fs::write(&wrong, "not it\n").unwrap();
    let out = chessref(
        None,
        &[
            "deploy",
            "--rpc",
            anvil.url(),
            "--deployments",
            file.to_str().unwrap(),
            "--keystore",
            keystore.to_str().unwrap(),
            "--password-file",
            wrong.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out).trim(),
        format!(
            "chessref: error: wrong keystore password for {}",
            keystore.display()
        )
    );
    assert_eq!(nonce(anvil.url(), ACCOUNT_2), 0, "nothing sent");

    let right = dir.join("right.txt");
    std::fs::write(&right, format!("{FIXTURE_PASSWORD}\n")).unwrap();
    succeeded(&chessref(
        None,
        &[
            "deploy",
            "--rpc",
            anvil.url(),
            "--deployments",
            file.to_str().unwrap(),
            "--keystore",
            keystore.to_str().unwrap(),
            "--password-file",
            right.to_str().unwrap(),
        ],
    ));
    assert_eq!(
        nonce(anvil.url(), ACCOUNT_2),
        6,
        "six deployments from the keystore's account (rules view, the two blueprints, the two annexes, referee)"
    );

    // Without --password-file the password is prompted for on the terminal; with no
    // terminal at all (a new session, as a service has), that is named.
    let out = Command::new("setsid")
        .arg(env!("CARGO_BIN_EXE_chessref"))
        .args([
            "deploy",
            "--rpc",
            anvil.url(),
            "--keystore",
            keystore.to_str().unwrap(),
        ])
        .env_remove("CHESSREF_PRIVATE_KEY")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("setsid (util-linux)");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(&format!(
            "chessref: error: cannot read the password of keystore {} from the terminal: ",
            keystore.display()
        )),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).trim_end().ends_with("(use --password-file)"));

    // No source at all: named, exit 2.
    let out = chessref(None, &["deploy", "--rpc", anvil.url()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no sender: set CHESSREF_PRIVATE_KEY"),
        "{}",
        stderr(&out)
    );
    // The node's unlocked account (a re-run: nothing to send, but the sender is accepted).
    let unlocked = chessref(
        None,
        &[
            "deploy",
            "--rpc",
            anvil.url(),
            "--deployments",
            file.to_str().unwrap(),
            "--unlocked",
            "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        ],
    );
    assert_eq!(succeeded(&unlocked).matches("already deployed").count(), 8);
    // A key on the command line is not an option.
    let out = chessref(
        None,
        &["deploy", "--rpc", anvil.url(), "--private-key", KEY_BLACK],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_endpoint_that_is_down_is_named() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let out = chessref(Some(KEY_WHITE), &["deploy", "--rpc", &url]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(&format!("chessref: error: cannot reach RPC {url}: ")),
        "{}",
        stderr(&out)
    );
}

/// A node that accepts connections and never answers: `deploy` and `game show|move`
/// (over HTTP and WebSocket) name it and what it did not answer within `--rpc-timeout`
/// (before or after the subcommand), exit 2.
#[test]
fn a_hung_endpoint_is_named_within_the_timeout() {
    let node = StalledNode::silent().unwrap();
    let (http, ws) = (node.url(), node.ws_url());
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["deploy", "--rpc", &http, "--rpc-timeout", "2"],
            &http,
            "eth_chainId",
        ),
        (
            &["--rpc-timeout", "2", "deploy", "--rpc", &ws],
            &ws,
            "the WebSocket handshake",
        ),
        (
            &["game", "show", "1", "--rpc", &http, "--rpc-timeout", "2"],
            &http,
            "eth_chainId",
        ),
        (
            &["game", "show", "1", "--rpc", &ws, "--rpc-timeout", "2"],
            &ws,
            "the WebSocket handshake",
        ),
        (
            &[
                "game",
                "move",
                "1",
                "e2e4",
                "--rpc",
                &http,
                "--rpc-timeout",
                "2",
            ],
            &http,
            "eth_chainId",
        ),
    ];
    // All at once: each waits its own two seconds.
    let started = std::time::Instant::now();
    let mut children: Vec<_> = cases
        .iter()
        .map(|(args, _, _)| {
            chessref_command(Some(KEY_WHITE), args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("run chessref")
        })
        .collect();
    let limit = std::time::Duration::from_secs(30);
    for child in &mut children {
        while child.try_wait().unwrap().is_none() && started.elapsed() < limit {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = child.kill();
    }
    for (child, (args, url, what)) in children.into_iter().zip(cases) {
        let out = child.wait_with_output().unwrap();
        let waited = started.elapsed();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).trim(),
            format!("chessref: error: the node at {url} did not answer {what} within 2 s"),
            "{args:?}"
        );
        assert!(
            waited < std::time::Duration::from_secs(12),
            "{args:?}: {waited:?}"
        );
    }
    assert!(started.elapsed() >= std::time::Duration::from_secs(2));

    // The flag's value is checked.
    let out = chessref(None, &["deploy", "--rpc", &http, "--rpc-timeout", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("\"0\" is not a positive number of seconds"),
        "{}",
        stderr(&out)
    );
}

const WHITE: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const BLACK: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/// A deployed referee on its own anvil, and the deployments file naming it.
struct Table {
    anvil: Anvil,
    file: PathBuf,
    /// Holds `file`'s directory until the table is dropped.
    _scratch: tempfile::TempDir,
}

impl Table {
    fn new(name: &str) -> Table {
        let anvil = Anvil::spawn().expect("anvil");
        let scratch = scratch(name);
        let file = scratch.path().join("deployments.json");
        deploy(&anvil, &file);
        Table {
            anvil,
            file,
            _scratch: scratch,
        }
    }

    fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = vec!["game"];
        all.extend_from_slice(args);
        all.extend_from_slice(&[
            "--rpc",
            self.anvil.url(),
            "--deployments",
            self.file.to_str().unwrap(),
        ]);
        all
    }

    /// `chessref game ARGS` as the player of `key`.
    fn game(&self, key: &str, args: &[&str]) -> Output {
        chessref(Some(key), &self.args(args))
    }

    /// `game show ID --json` as the player of `key`.
    fn show(&self, key: &str, id: &str) -> Value {
        let out = succeeded(&self.game(key, &["show", id, "--json"]));
        serde_json::from_str(out.trim()).unwrap()
    }

    fn nonce(&self, account: &str) -> u64 {
        nonce(self.anvil.url(), account)
    }
}

fn sans(view: &Value) -> Vec<String> {
    view["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_string())
        .collect()
}

/// A view without the clocks run on to the wall clock (two reads a second apart differ
/// only there).
fn standing(mut view: Value) -> Value {
    if let Some(clocks) = view["clocks"].as_object_mut() {
        for field in ["now", "whiteNow", "blackNow"] {
            assert!(clocks.remove(field).is_some(), "clocks.{field}");
        }
    }
    view
}

/// Asserts `out` failed with `status` and exactly `message` on stderr.
fn refused(out: &Output, status: i32, message: &str) {
    assert_eq!(
        out.status.code(),
        Some(status),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    assert_eq!(stderr(out).trim(), format!("chessref: error: {message}"));
}

#[test]
fn two_processes_play_fools_mate_and_the_winner_withdraws() {
    let started = std::time::Instant::now();
    let table = Table::new("fools-mate");
    let stake = "1000000000000000";
    let created = succeeded(&table.game(KEY_WHITE, &["create", "--stake", "0.001eth"]));
    assert!(created.contains("stake 0.001 ETH, "), "{created}");
    assert!(created.contains("estimated gas "), "{created}");
    assert!(created.contains(" gwei per gas: fee "), "{created}");
    assert!(created.trim_end().ends_with("created game 1"), "{created}");
    let open = table.show(KEY_BLACK, "1");
    assert_eq!(open["phase"], "open");
    assert_eq!(open["stake"], stake);
    assert_eq!(open["stakeText"], "0.001 ETH");

    succeeded(&table.game(KEY_BLACK, &["join", "1"]));
    let joined = table.show(KEY_WHITE, "1");
    assert_eq!(joined["phase"], "running");
    assert_eq!(joined["yourColour"], "white");
    assert_eq!(joined["yourTurn"], true);
    assert_eq!(joined["clocks"]["white"], 86_400);
    assert_eq!(joined["clocks"]["running"], "white");
    // Issue 29, item 13: reading needs no key (a read-only connection; nobody is "you").
    let read = succeeded(&chessref(None, &table.args(&["show", "1", "--json"])));
    let read: Value = serde_json::from_str(read.trim()).unwrap();
    assert_eq!(read["phase"], "running");
    // The same clocks as of the same block (the running clock's "now" is the wall clock's,
    // which may tick between the two reads: it failed a loaded run).
    assert_eq!(
        standing(read.clone())["clocks"],
        standing(joined.clone())["clocks"]
    );
    assert_eq!(read["yourTurn"], false);
    assert!(read["yourColour"].is_null(), "{read}");

    // White moves and waits for the answer in one process; black answers from another.
    let waiting = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(table.args(&["move", "1", "f3", "--wait", "--poll-ms", "50", "--json"]))
        .env("CHESSREF_PRIVATE_KEY", KEY_WHITE)
        .env_remove("CHESSREF_DEPLOYMENTS")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let view = table.show(KEY_BLACK, "1");
        if view["yourTurn"] == true {
            assert_eq!(sans(&view), ["f3"]);
            assert_eq!(view["lastMove"]["uci"], "f2f3");
            assert_eq!(
                view["fen"],
                "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1"
            );
            break;
        }
        assert!(std::time::Instant::now() < deadline, "f3 never landed");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    succeeded(&table.game(KEY_BLACK, &["move", "1", "e7e5"]));
    let answered = waiting.wait_with_output().unwrap();
    let text = succeeded(&answered);
    let after_wait: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(
        sans(&after_wait),
        ["f3", "e5"],
        "--wait returns after the answer"
    );
    assert_eq!(after_wait["yourTurn"], true);
    assert_eq!(standing(table.show(KEY_WHITE, "1")), standing(after_wait));

    let g4 = succeeded(&table.game(KEY_WHITE, &["move", "1", "g4"]));
    assert!(g4.contains("move g2g4 (g4) in game 1"), "{g4}");
    let view = table.show(KEY_BLACK, "1");
    assert_eq!(sans(&view), ["f3", "e5", "g4"]);
    assert_eq!(view["turn"], "black");

    let mate = succeeded(&table.game(KEY_BLACK, &["move", "1", "Qh4#"]));
    assert!(
        mate.contains("the game ended: black_wins, checkmate"),
        "{mate}"
    );
    assert!(
        mate.contains("[♛]"),
        "the board marks the last move: {mate}"
    );
    for key in [KEY_WHITE, KEY_BLACK] {
        let ended = table.show(key, "1");
        assert_eq!(ended["phase"], "ended");
        assert_eq!(sans(&ended), ["f3", "e5", "g4", "Qh4#"]);
        assert_eq!(ended["status"], "CHECKMATE");
        assert_eq!(ended["ending"]["result"]["name"], "black_wins");
        assert_eq!(ended["ending"]["reason"]["name"], "checkmate");
        assert_eq!(ended["ending"]["reason"]["code"], 1);
        assert_eq!(ended["clocks"], Value::Null);
    }
    let listed = succeeded(&table.game(KEY_BLACK, &["list", "--json"]));
    let listed: Value = serde_json::from_str(listed.trim()).unwrap();
    assert_eq!(listed[0]["id"], "1");
    assert_eq!(listed[0]["yourColour"], "black");
    assert_eq!(listed[0]["ending"]["result"]["name"], "black_wins");

    let withdrawn = succeeded(&table.game(KEY_BLACK, &["withdraw"]));
    assert!(withdrawn.contains("withdraw 0.002 ETH"), "{withdrawn}");
    assert!(
        withdrawn.trim_end().ends_with("credit left: 0 ETH"),
        "{withdrawn}"
    );
    let nothing = table.game(KEY_WHITE, &["withdraw"]);
    refused(
        &nothing,
        1,
        &format!("{WHITE} has no ETH credit to withdraw"),
    );
    eprintln!(
        "a game to mate over anvil from two processes: {:?} (deploy included)",
        started.elapsed()
    );
}

#[test]
fn bad_input_is_named_and_sends_nothing() {
    let table = Table::new("bad-input");
    succeeded(&table.game(KEY_WHITE, &["create", "--opponent", BLACK]));
    let (white_nonce, black_nonce) = (table.nonce(WHITE), table.nonce(BLACK));
    let unchanged = |table: &Table| {
        assert_eq!(table.nonce(WHITE), white_nonce, "white sent nothing");
        assert_eq!(table.nonce(BLACK), black_nonce, "black sent nothing");
    };

    // The invited player finds the game by the creation event's indexed opponent.
    let invited = succeeded(&table.game(KEY_BLACK, &["list", "--json"]));
    let invited: Value = serde_json::from_str(invited.trim()).unwrap();
    assert_eq!(invited.as_array().unwrap().len(), 1);
    assert_eq!(invited[0]["phase"], "open");
    assert_eq!(invited[0]["yourColour"], "black");
    assert_eq!(
        invited[0]["opponent"]
            .as_str()
            .unwrap()
            .parse::<alloy_primitives::Address>()
            .unwrap(),
        WHITE.parse::<alloy_primitives::Address>().unwrap()
    );
    let nobody = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    let out = succeeded(&table.game(
        "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
        &["list"],
    ));
    assert_eq!(out.trim(), format!("no games of {nobody}"));

    refused(
        &table.game(KEY_WHITE, &["move", "99", "e4"]),
        1,
        "unknown game id 99",
    );
    refused(
        &table.game(KEY_WHITE, &["move", "1", "e4"]),
        1,
        "game 1 is not running (open: waiting for an opponent)",
    );
    refused(
        &table.game(KEY_WHITE, &["join", "1"]),
        1,
        "you created game 1: the opponent joins it",
    );
    let out = table.game(KEY_WHITE, &["create", "--time", "10"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        "chessref: error: the time control 10 s + 0 s a move is out of range: each clock is 1 min \
         to 90 d, the increment at most 1 d; nothing sent (createGame would revert with \
         BadTimeControl)",
    );
    unchanged(&table);

    succeeded(&table.game(KEY_BLACK, &["join", "1"]));
    let (white_nonce, black_nonce) = (table.nonce(WHITE), table.nonce(BLACK));
    let unchanged = |table: &Table| {
        assert_eq!(table.nonce(WHITE), white_nonce, "white sent nothing");
        assert_eq!(table.nonce(BLACK), black_nonce, "black sent nothing");
    };
    refused(
        &table.game(KEY_BLACK, &["move", "1", "e5"]),
        1,
        &format!("not your turn in game 1: white to move ({WHITE})"),
    );
    let geometry = chessref_core::Rejection::BadGeometry;
    refused(
        &table.game(KEY_WHITE, &["move", "1", "e2e5"]),
        1,
        &format!("illegal move \"e2e5\" in game 1: 6 BAD_GEOMETRY ({geometry})"),
    );
    refused(
        &table.game(KEY_WHITE, &["move", "1", "Ke2"]),
        1,
        "illegal move \"Ke2\" in game 1: no legal move matches",
    );
    let out = table.game(KEY_WHITE, &["move", "1", "e9"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "unreadable move text is bad input"
    );
    refused(
        &table.game(KEY_WHITE, &["accept-draw", "1"]),
        1,
        "no draw offer from your opponent in the current position of game 1",
    );
    refused(
        &table.game(KEY_WHITE, &["claim-draw", "1"]),
        1,
        "no draw to claim in game 1: the position occurred 1 time(s) and the halfmove clock is 0",
    );
    let out = table.game(KEY_BLACK, &["claim-timeout", "1"]);
    assert_eq!(out.status.code(), Some(1));
    // In words, with the time the flag falls and how far away it is (issue 29, item 8).
    let said = stderr(&out);
    assert!(
        said.starts_with("chessref: error: the side to move still has time: its flag falls at ")
            && said.contains(" UTC (in ")
            && said
                .trim_end()
                .ends_with("; nothing sent (claimTimeout would revert with TimeNotUp)"),
        "{said}"
    );
    unchanged(&table);

    succeeded(&table.game(KEY_WHITE, &["resign", "1"]));
    refused(
        &table.game(KEY_BLACK, &["move", "1", "e5"]),
        1,
        "game 1 is not running (ended: black_wins, resignation)",
    );

    // A keystore with the wrong password, an endpoint that is down, one that is not JSON-RPC.
    let scratch = scratch("bad-input-keys");
    let dir = scratch.path();
    let wrong = dir.join("wrong.txt");
    std::fs::write(&wrong, "nope\n").unwrap();
    let keystore = root().join("crates/chessref/tests/fixtures/keystore-anvil-2.json");
    let mut args = table.args(&["resign", "1"]);
    args.extend_from_slice(&[
        "--keystore",
        keystore.to_str().unwrap(),
        "--password-file",
        wrong.to_str().unwrap(),
    ]);
    refused(
        &chessref(None, &args),
        2,
        &format!("wrong keystore password for {}", keystore.display()),
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = format!("http://127.0.0.1:{port}");
    let out = chessref(Some(KEY_WHITE), &["game", "show", "1", "--rpc", &down]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(&format!("chessref: error: cannot reach RPC {down}: ")),
        "{}",
        stderr(&out)
    );
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let garbage = format!("http://{}", server.local_addr().unwrap());
    let serving = std::thread::spawn(move || {
        use std::io::{Read, Write};
        if let Ok((mut stream, _)) = server.accept() {
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let body = "{\"not\": \"json-rpc\"}";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let out = chessref(Some(KEY_WHITE), &["game", "show", "1", "--rpc", &garbage]);
    serving.join().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(&format!(
            "chessref: error: RPC {garbage} answered something that is not JSON-RPC: "
        )),
        "{}",
        stderr(&out)
    );
    // No deployment for the chain in the file: named with the chain id and the file.
    let empty = dir.join("empty.json");
    std::fs::write(&empty, "{}").unwrap();
    let out = chessref(
        Some(KEY_WHITE),
        &[
            "game",
            "show",
            "1",
            "--rpc",
            table.anvil.url(),
            "--deployments",
            empty.to_str().unwrap(),
        ],
    );
    refused(
        &out,
        2,
        &format!(
            "deployments file {} has no deployment for chain id 31337 (run `chessref deploy --rpc URL`, or pass --referee ADDRESS)",
            empty.display()
        ),
    );
}

#[test]
fn draws_claims_and_cancels_from_the_command_line() {
    let table = Table::new("draws");
    succeeded(&table.game(KEY_WHITE, &["create", "--opponent", BLACK]));
    succeeded(&table.game(KEY_BLACK, &["join", "1"]));
    // The start position a third time, white to move: a threefold claim with the witness.
    for (i, mv) in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]
        .iter()
        .enumerate()
    {
        let key = if i % 2 == 0 { KEY_WHITE } else { KEY_BLACK };
        succeeded(&table.game(key, &["move", "1", mv]));
    }
    refused(
        &table.game(KEY_BLACK, &["claim-draw", "1"]),
        1,
        &format!("not your turn in game 1: white to move ({WHITE})"),
    );
    let claimed = succeeded(&table.game(KEY_WHITE, &["claim-draw", "1"]));
    assert!(
        claimed.contains("claim a draw by threefold repetition in game 1"),
        "{claimed}"
    );
    assert!(
        claimed.contains("the game ended: draw, threefold"),
        "{claimed}"
    );

    // An offer and its acceptance; the same game read over WebSocket.
    succeeded(&table.game(KEY_WHITE, &["create", "--opponent", BLACK, "--black"]));
    succeeded(&table.game(KEY_BLACK, &["join", "2"]));
    succeeded(&table.game(KEY_BLACK, &["offer-draw", "2"]));
    let offered = table.show(KEY_WHITE, "2");
    assert_eq!(
        offered["drawOffer"]
            .as_str()
            .unwrap()
            .parse::<alloy_primitives::Address>()
            .unwrap(),
        BLACK.parse::<alloy_primitives::Address>().unwrap()
    );
    assert_eq!(offered["yourColour"], "black");
    let ws = table.anvil.ws_url();
    let over_ws = succeeded(&chessref(
        Some(KEY_WHITE),
        &[
            "game",
            "show",
            "2",
            "--json",
            "--rpc",
            &ws,
            "--deployments",
            table.file.to_str().unwrap(),
        ],
    ));
    assert_eq!(
        standing(serde_json::from_str::<Value>(over_ws.trim()).unwrap()),
        standing(offered)
    );
    let accepted = succeeded(&table.game(KEY_WHITE, &["accept-draw", "2"]));
    assert!(
        accepted.contains("the game ended: draw, agreement"),
        "{accepted}"
    );

    // An open game cancelled by its creator.
    succeeded(&table.game(KEY_WHITE, &["create"]));
    refused(
        &table.game(KEY_BLACK, &["cancel", "3"]),
        1,
        &format!("only game 3's creator {WHITE} can cancel it"),
    );
    succeeded(&table.game(KEY_WHITE, &["cancel", "3"]));
    assert_eq!(table.show(KEY_WHITE, "3")["phase"], "cancelled");
    let listed = succeeded(&table.game(KEY_WHITE, &["list"]));
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 3, "{listed}");
    assert!(
        lines[0].starts_with("game 1: ended as white against"),
        "{listed}"
    );
    assert!(lines[0].ends_with("8 plies, draw, threefold"), "{listed}");
    assert!(
        lines[2].starts_with("game 3: cancelled as white against anyone"),
        "{listed}"
    );
}

#[test]
fn clocks_run_down_and_the_flag_is_claimed() {
    use chessref_evm::Chain;
    let table = Table::new("clocks");
    succeeded(&table.game(KEY_WHITE, &["create", "--opponent", BLACK, "--time", "60"]));
    succeeded(&table.game(KEY_BLACK, &["join", "1"]));
    succeeded(&table.game(KEY_WHITE, &["move", "1", "e4"]));
    succeeded(&table.game(KEY_BLACK, &["move", "1", "e5"]));
    let mut clock = RpcChain::connect(table.anvil.url()).unwrap();
    clock.advance_time(20).unwrap();
    let view = table.show(KEY_BLACK, "1");
    let clocks = &view["clocks"];
    assert_eq!(clocks["running"], "white");
    let white = clocks["white"].as_u64().unwrap();
    let black = clocks["black"].as_u64().unwrap();
    assert!(
        (35..=40).contains(&white),
        "white's clock ran 20 s and more: {white}"
    );
    assert!((55..=60).contains(&black), "black's clock stopped: {black}");
    // The deadline adds the unused grace (REFEREE.md section 3: 15 s a game) to the clock.
    assert_eq!(
        clocks["deadline"].as_u64().unwrap(),
        clocks["blockTimestamp"].as_u64().unwrap() + white + 15
    );
    let text = succeeded(&table.game(KEY_BLACK, &["show", "1"]));
    assert!(
        text.contains(&format!("white 00:00:{white:02} (running)")),
        "{text}"
    );
    refused(
        &table.game(KEY_WHITE, &["claim-timeout", "1"]),
        1,
        "game 1: it is your move; only the player not to move claims a timeout",
    );
    clock.advance_time(60).unwrap();
    let claimed = succeeded(&table.game(KEY_BLACK, &["claim-timeout", "1"]));
    assert!(
        claimed.contains("the game ended: black_wins, timeout"),
        "{claimed}"
    );
}

/// Calldata of `signature` with address and integer words.
fn calldata(signature: &str, words: &[alloy_primitives::U256]) -> Vec<u8> {
    let mut data = alloy_primitives::keccak256(signature)[..4].to_vec();
    for word in words {
        data.extend_from_slice(&word.to_be_bytes::<32>());
    }
    data
}

fn word(address: &str) -> alloy_primitives::U256 {
    let address: alloy_primitives::Address = address.parse().unwrap();
    alloy_primitives::U256::from_be_slice(address.as_slice())
}

/// Sends `data` to `to` from the node's unlocked account `from`.
fn send_raw(url: &str, from: &str, to: alloy_primitives::Address, data: Vec<u8>) {
    use chessref_evm::{Chain, TxRequest};
    let mut chain = RpcChain::connect(url).unwrap();
    let receipt = chain
        .send(TxRequest::call(from.parse().unwrap(), to, data))
        .unwrap();
    assert!(receipt.success, "transaction to {to} reverted");
}

/// The tests' ERC-20 (tests/fixtures/TestToken.sol: symbol TST, 6 decimals) deployed
/// from account 0.
fn deploy_token(url: &str) -> alloy_primitives::Address {
    use chessref_evm::Chain;
    let artifact = read_json(&root().join("crates/chessref-evm/artifacts/TestToken.json"));
    let code =
        alloy_primitives::hex::decode(artifact["bytecode"]["object"].as_str().unwrap()).unwrap();
    let mut chain = RpcChain::connect(url).unwrap();
    chain.deploy(WHITE.parse().unwrap(), code.into()).unwrap().0
}

/// Mints `amount` base units of `token` to `to`.
fn mint(url: &str, token: alloy_primitives::Address, to: &str, amount: u64) {
    let data = calldata(
        "mint(address,uint256)",
        &[word(to), alloy_primitives::U256::from(amount)],
    );
    send_raw(url, WHITE, token, data);
}

/// `account`'s balance of `token`, in base units.
fn token_balance(url: &str, token: alloy_primitives::Address, account: &str) -> u64 {
    use chessref_evm::{CallOutcome, Chain};
    let mut chain = RpcChain::connect(url).unwrap();
    let data = calldata("balanceOf(address)", &[word(account)]);
    match chain
        .call(WHITE.parse().unwrap(), token, data.into())
        .unwrap()
    {
        CallOutcome::Return(out) => alloy_primitives::U256::from_be_slice(&out).saturating_to(),
        CallOutcome::Revert(out) => panic!("balanceOf reverted: {out}"),
    }
}

/// The gas a transaction's line `  sent OPERATION: ... N gas, ...` reports.
fn gas_of(text: &str, operation: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("sent {operation}:")))
        .unwrap_or_else(|| panic!("no {operation} in {text}"));
    let before = line.split(" gas,").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn a_token_game_approves_plays_to_mate_and_withdraws_exactly() {
    let table = Table::new("token");
    let url = table.anvil.url();
    // White holds 10 TST, black 1 TST (6 decimals: 1 TST = 1,000,000 base units).
    // White holds 10 TST, black 1 TST (6 decimals: 1 TST = 1,000,000 base units).
    let token = deploy_token(url);
    mint(url, token, WHITE, 10_000_000);
    mint(url, token, BLACK, 1_000_000);
    let token_arg = token.to_string();
    let referee = read_json(&table.file)["31337"]["contracts"]["ChessReferee"]["address"]
        .as_str()
        .unwrap()
        .parse::<alloy_primitives::Address>()
        .unwrap()
        .to_string();

    let out = table.game(
        KEY_WHITE,
        &["create", "--token", &token_arg, "--stake", "2.5"],
    );
    assert_eq!(out.status.code(), Some(2), "a decimal without its unit");
    assert!(
        stderr(&out).contains("amount \"2.5\": a decimal needs its unit"),
        "{}",
        stderr(&out)
    );
    let account_3 = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    refused(
        &table.game(KEY_WHITE, &["create", "--token", account_3, "--stake", "5"]),
        1,
        &format!("no contract at token {account_3} on {url} (nothing sent)"),
    );
    let created = succeeded(&table.game(
        KEY_WHITE,
        &["create", "--token", &token_arg, "--stake", "2.5tst"],
    ));
    let approve = created
        .find(&format!(
            "approve the referee {referee} to take the stake 2.5 TST (allowance 0 TST) from {WHITE}"
        ))
        .unwrap_or_else(|| panic!("{created}"));
    let create = created
        .find("create a game as white against anyone, stake 2.5 TST, ")
        .unwrap_or_else(|| panic!("{created}"));
    assert!(
        approve < create,
        "the approval is said and sent first: {created}"
    );
    assert_eq!(created.matches("estimated gas ").count(), 2, "{created}");
    assert!(created.trim_end().ends_with("created game 1"), "{created}");
    let (approve_gas, create_gas) = (gas_of(&created, "approve"), gas_of(&created, "createGame"));
    assert_eq!(token_balance(url, token, WHITE), 7_500_000);

    let open = table.show(KEY_BLACK, "1");
    assert_eq!(open["stake"], "2500000");
    assert_eq!(open["stakeText"], "2.5 TST");
    assert_eq!(
        open["token"]
            .as_str()
            .unwrap()
            .parse::<alloy_primitives::Address>()
            .unwrap(),
        token
    );
    let text = succeeded(&table.game(KEY_BLACK, &["show", "1"]));
    assert!(text.contains("stake 2.5 TST each"), "{text}");

    // Black holds 1 TST: refused before anything is sent.
    let black_nonce = table.nonce(BLACK);
    refused(
        &table.game(KEY_BLACK, &["join", "1"]),
        1,
        &format!("{BLACK} holds 1 TST of token {token}, the stake is 2.5 TST (nothing sent)"),
    );
    assert_eq!(table.nonce(BLACK), black_nonce);
    mint(url, token, BLACK, 2_000_000);
    let joined = succeeded(&table.game(KEY_BLACK, &["join", "1"]));
    assert!(
        joined.contains("to take the stake 2.5 TST (allowance 0 TST)"),
        "{joined}"
    );
    assert!(joined.contains("join game 1 (stake 2.5 TST)"), "{joined}");
    let join_gas = gas_of(&joined, "joinGame");
    assert_eq!(token_balance(url, token, BLACK), 500_000);

    // A stake in base units; then an allowance already in place: no approval.
    let second = succeeded(&table.game(
        KEY_WHITE,
        &[
            "create",
            "--token",
            &token_arg,
            "--stake",
            "1000000",
            "--opponent",
            BLACK,
        ],
    ));
    assert!(
        second.contains("to take the stake 1 TST (allowance 0 TST)"),
        "{second}"
    );
    let allowance = alloy_primitives::U256::from(500_000u64);
    let data = calldata("approve(address,uint256)", &[word(&referee), allowance]);
    send_raw(url, WHITE, token, data);
    let third = succeeded(&table.game(
        KEY_WHITE,
        &[
            "create",
            "--token",
            &token_arg,
            "--stake",
            "0.5TST",
            "--opponent",
            BLACK,
        ],
    ));
    assert!(!third.contains("approve"), "{third}");
    assert!(third.contains("stake 0.5 TST"), "{third}");
    assert_eq!(token_balance(url, token, WHITE), 6_000_000);
    succeeded(&table.game(KEY_WHITE, &["cancel", "2"]));
    succeeded(&table.game(KEY_WHITE, &["cancel", "3"]));

    for (key, mv) in [(KEY_WHITE, "f3"), (KEY_BLACK, "e5"), (KEY_WHITE, "g4")] {
        succeeded(&table.game(key, &["move", "1", mv]));
    }
    let mate = succeeded(&table.game(KEY_BLACK, &["move", "1", "Qh4#"]));
    assert!(
        mate.contains("the game ended: black_wins, checkmate"),
        "{mate}"
    );
    let listed = succeeded(&table.game(KEY_BLACK, &["list", "--json"]));
    let listed: Value = serde_json::from_str(listed.trim()).unwrap();
    assert_eq!(listed[0]["stake"], "2500000");
    assert_eq!(listed[0]["stakeText"], "2.5 TST");
    let listed = succeeded(&table.game(KEY_BLACK, &["list"]));
    assert!(listed.contains("stake 2.5 TST, 4 plies"), "{listed}");

    let withdrawn = succeeded(&table.game(KEY_BLACK, &["withdraw", "--token", &token_arg]));
    assert!(withdrawn.contains("withdraw 5 TST"), "{withdrawn}");
    assert!(
        withdrawn.trim_end().ends_with("credit left: 0 TST"),
        "{withdrawn}"
    );
    assert_eq!(token_balance(url, token, BLACK), 5_500_000);
    let refunded = succeeded(&table.game(KEY_WHITE, &["withdraw", "--token", &token_arg]));
    assert!(refunded.contains("withdraw 1.5 TST"), "{refunded}");
    assert_eq!(token_balance(url, token, WHITE), 7_500_000);
    refused(
        &table.game(KEY_WHITE, &["withdraw", "--token", &token_arg]),
        1,
        &format!("{WHITE} has no token {token} credit to withdraw"),
    );
    eprintln!(
        "token stakes: approve {approve_gas} gas, createGame {create_gas} gas, joinGame {join_gas} gas"
    );
}

#[test]
fn show_watch_follows_the_game_until_your_move_and_ctrl_c_exits_0() {
    use std::io::BufRead;
    let table = Table::new("watch");
    succeeded(&table.game(KEY_WHITE, &["create", "--opponent", BLACK]));
    succeeded(&table.game(KEY_BLACK, &["join", "1"]));
    succeeded(&table.game(KEY_WHITE, &["move", "1", "e4"]));
    let spawn = |key: &str, extra: &[&str]| {
        let mut args = vec!["show", "1", "--watch", "--poll-ms", "100"];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_chessref"))
            .args(table.args(&args))
            .env("CHESSREF_PRIVATE_KEY", key)
            .env_remove("CHESSREF_DEPLOYMENTS")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Black's move: the watch returns at once, having drawn the board once (no screen
    // clearing off a terminal), the clocks as of now and of the block.
    let at_once = spawn(KEY_BLACK, &[]).wait_with_output().unwrap();
    let text = succeeded(&at_once);
    assert!(
        !text.contains('\x1b'),
        "no escape codes off a terminal: {text:?}"
    );
    assert_eq!(text.matches("white ").count(), 2, "drawn once: {text}");
    assert!(text.contains("black to move (your move)"), "{text}");
    let clocks = text
        .lines()
        .find(|l| l.starts_with("clocks now: "))
        .unwrap();
    // White's clock was charged by block time from join to e4: anvil stamps blocks with
    // the wall clock, so under load a second may pass between them (never ten).
    let white = clocks
        .strip_prefix("clocks now: white ")
        .and_then(|rest| rest.split_once(", black "))
        .map(|(white, _)| white)
        .unwrap_or_else(|| panic!("{clocks}"));
    assert!(
        white == "1d 00:00:00" || white.starts_with("23:59:5"),
        "white charged by at most ten seconds: {clocks}"
    );
    assert!(clocks.contains(" (running) (as of block "), "{clocks}");

    // White waits for black's answer: one JSON line now, one when e5 lands, then exit 0.
    let mut watching = spawn(KEY_WHITE, &["--json"]);
    let mut lines = std::io::BufReader::new(watching.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["yourTurn"], false);
    assert_eq!(sans(&first), ["e4"]);
    let now = first["clocks"]["now"].as_u64().unwrap();
    let block = first["clocks"]["blockTimestamp"].as_u64().unwrap();
    let black = first["clocks"]["black"].as_u64().unwrap();
    assert_eq!(
        first["clocks"]["blackNow"].as_u64().unwrap(),
        black.saturating_sub(now.saturating_sub(block)),
        "black's clock runs on from the block to now"
    );
    assert_eq!(first["clocks"]["whiteNow"], first["clocks"]["white"]);
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    succeeded(&table.game(KEY_BLACK, &["move", "1", "e5"]));
    let second: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(second["yourTurn"], true);
    assert_eq!(sans(&second), ["e4", "e5"]);
    assert!(lines.next().is_none(), "one line per change, then the end");
    assert_eq!(watching.wait().unwrap().code(), Some(0));

    // Black waits for white; Ctrl-C ends the watch with exit 0.
    let mut watching = spawn(KEY_BLACK, &[]);
    let mut lines = std::io::BufReader::new(watching.stdout.take().unwrap()).lines();
    let drawn = lines
        .by_ref()
        .map(|l| l.unwrap())
        .find(|l| l.starts_with("clocks now: "));
    assert!(drawn.is_some(), "the board is drawn before the interrupt");
    let interrupted = Command::new("kill")
        .args(["-INT", &watching.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    assert_eq!(watching.wait().unwrap().code(), Some(0));
}

#[test]
fn a_channel_game_is_shown_as_played_off_chain_and_a_move_is_refused() {
    let table = Table::new("channel");
    let referee: alloy_primitives::Address =
        read_json(&table.file)["31337"]["contracts"]["ChessReferee"]["address"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
    let mut chain =
        chessref_evm::Referee::at(RpcChain::connect(table.anvil.url()).unwrap(), referee);
    let setup = chessref_evm::GameSetup {
        opponent: BLACK.parse().unwrap(),
        creator_white: true,
        token: alloy_primitives::Address::ZERO,
        stake: alloy_primitives::U256::ZERO,
        initial_time: 3_600,
        increment: 0,
        first_move_window: 0,
        start: None,
    };
    let created = chain
        .create_channel_game(WHITE.parse().unwrap(), &setup, 600)
        .unwrap();
    assert_eq!(created.id, alloy_primitives::U256::from(1));
    succeeded(&table.game(KEY_BLACK, &["join", "1"]));
    let how = "played off-chain with signed moves (docs/CHANNEL.md): `chessref channel verify|settle|dispute TRANSCRIPT`";

    let view = table.show(KEY_WHITE, "1");
    assert_eq!(view["channel"], true);
    assert_eq!(view["phase"], "running");
    assert_eq!(view["clocks"], Value::Null);
    let text = succeeded(&table.game(KEY_WHITE, &["show", "1"]));
    assert!(text.contains(&format!("a channel game: {how}")), "{text}");
    assert!(
        !text.contains("to move"),
        "the chain does not know whose move it is: {text}"
    );
    let listed = succeeded(&table.game(KEY_BLACK, &["list"]));
    assert!(
        listed.trim_end().ends_with(&format!("0 plies, {how}")),
        "{listed}"
    );
    let listed: Value =
        serde_json::from_str(succeeded(&table.game(KEY_BLACK, &["list", "--json"])).trim())
            .unwrap();
    assert_eq!(listed[0]["channel"], true);
    let watched = succeeded(&table.game(KEY_WHITE, &["show", "1", "--watch", "--json"]));
    assert_eq!(
        watched.lines().count(),
        1,
        "nothing to wait for on-chain: {watched}"
    );

    let before = table.nonce(WHITE);
    refused(
        &table.game(KEY_WHITE, &["move", "1", "e4"]),
        1,
        &format!("game 1 is a channel game, {how}"),
    );
    assert_eq!(table.nonce(WHITE), before, "nothing sent");

    // Issue 29, item 10: settled off-chain (two moves, a signed result), the game is not
    // shown as its start position with the channel commands to run.
    let domain = chain.channel_domain().unwrap();
    let terms = chain.channel_game(created.id, None).unwrap();
    let seat = |key: &str| {
        chessref_channel::client::Seat::wallet(
            key.parse::<alloy::signers::local::PrivateKeySigner>()
                .unwrap(),
        )
    };
    let mut game = chessref_channel::client::OffChainGame::new(
        domain,
        terms,
        seat(KEY_WHITE),
        seat(KEY_BLACK),
    )
    .unwrap();
    let mut now = chessref_evm::Chain::timestamp(chain.chain()).unwrap();
    for uci in ["e2e4", "e7e5"] {
        now += 2;
        game.play(chessref_core::Move::from_uci(uci).unwrap(), now)
            .unwrap();
        game.receipt(now + 1).unwrap();
    }
    let report = game
        .transcript_agreed(1)
        .unwrap()
        .verify(&chessref_channel::NoPins, now + 2)
        .unwrap();
    chain
        .send_channel(WHITE.parse().unwrap(), &report.settlement)
        .unwrap();
    let text = succeeded(&table.game(KEY_WHITE, &["show", "1"]));
    assert!(
        text.contains("settled off-chain: the chain holds its result, not its moves"),
        "{text}"
    );
    assert!(!text.contains("verify|settle|dispute"), "{text}");
    assert!(!text.contains(" a  b  c "), "no board: {text}");
    let listed = succeeded(&table.game(KEY_WHITE, &["list"]));
    assert!(!listed.contains("verify|settle|dispute"), "{listed}");
}

/// `chessref index` and `chessref serve --index` running beside the players, killed
/// when dropped.
struct Watchers {
    index: std::process::Child,
    serve: std::process::Child,
    url: String,
}

impl Watchers {
    fn start(table: &Table, db: &Path) -> Watchers {
        let referee = read_json(&table.file)["31337"]["contracts"]["ChessReferee"]["address"]
            .as_str()
            .unwrap()
            .to_string();
        let index = Command::new(env!("CARGO_BIN_EXE_chessref"))
            .args([
                "index",
                "--rpc",
                table.anvil.url(),
                "--referee",
                &referee,
                "--db",
                db.to_str().unwrap(),
                "--confirmations",
                "0",
                "--poll-ms",
                "50",
                "--fail-on-divergence",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // The server opens the file read-only: wait until the indexer made it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !db.exists() {
            assert!(std::time::Instant::now() < deadline, "no index file");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let mut serve = Command::new(env!("CARGO_BIN_EXE_chessref"))
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--index",
                db.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(serve.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let url = line
            .trim()
            .rsplit(' ')
            .next()
            .expect("chessref serve: listening on URL")
            .to_string();
        Watchers { index, serve, url }
    }

    /// `GET path`: the status and the body.
    fn get(&self, path: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let authority = self.url.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(authority).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            dechunk(body)
        } else {
            body.to_string()
        };
        (status, body)
    }

    /// `GET /v1/games/{id}` once `until` holds of it (the indexer follows within ms).
    fn game_when(&self, id: &str, until: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let (status, body) = self.get(&format!("/v1/games/{id}"));
            if status == 200 {
                let game: Value = serde_json::from_str(&body).unwrap();
                if until(&game) {
                    return game;
                }
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the server never showed the awaited state of game {id}: {status} {body}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Drop for Watchers {
    fn drop(&mut self) {
        let _ = self.index.kill();
        let _ = self.serve.kill();
        let _ = self.index.wait();
        let _ = self.serve.wait();
    }
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
    out
}

fn served_sans(game: &Value) -> Vec<String> {
    game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_indexer_beside_two_players_serves_the_game_while_it_is_played_and_after() {
    let table = Table::new("indexed");
    let db = table.file.with_file_name("index.sqlite");
    let watchers = Watchers::start(&table, &db);
    succeeded(&table.game(
        KEY_WHITE,
        &["create", "--stake", "0.001eth", "--opponent", BLACK],
    ));
    let open = watchers.game_when("1", |g| g["phase"] == "open");
    assert_eq!(
        open["creator"].as_str().unwrap().to_lowercase(),
        WHITE.to_lowercase()
    );
    let (_, lobby) = watchers.get("/v1/games?state=open");
    let lobby: Value = serde_json::from_str(&lobby).unwrap();
    assert_eq!(lobby["games"][0]["id"], "1", "{lobby}");

    succeeded(&table.game(KEY_BLACK, &["join", "1"]));
    watchers.game_when("1", |g| g["phase"] == "running");
    let mut played = Vec::new();
    for (key, san) in [
        (KEY_WHITE, "f3"),
        (KEY_BLACK, "e5"),
        (KEY_WHITE, "g4"),
        (KEY_BLACK, "Qh4#"),
    ] {
        succeeded(&table.game(key, &["move", "1", san]));
        played.push(san.to_string());
        let served = watchers.game_when("1", |g| {
            g["moves"].as_array().unwrap().len() == played.len()
        });
        assert_eq!(served_sans(&served), played, "served while played");
        // The player's own view (read from the chain) and the indexer's agree.
        let seen = table.show(key, "1");
        assert_eq!(seen["fen"], served["fen"]);
    }
    let ended = watchers.game_when("1", |g| g["phase"] == "ended");
    assert_eq!(ended["result"], "black_wins", "{ended}");
    assert_eq!(ended["reason"], "checkmate", "{ended}");
    assert_eq!(ended["divergences"], 0);
    let (status, pgn) = watchers.get("/v1/games/1.pgn");
    assert_eq!(status, 200, "{pgn}");
    assert!(
        pgn.contains(&format!("[White \"{}\"]", ended["white"].as_str().unwrap())),
        "{pgn}"
    );
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    assert!(pgn.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{pgn}");
    let (status, unknown) = watchers.get("/v1/games/99");
    assert_eq!(status, 404, "{unknown}");
}
