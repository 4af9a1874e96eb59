//! `chessref deploy` and `chessref game` against anvil nodes the tests start.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use chessref_evm::{RpcChain, Sender, anvil::Anvil};
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

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chessref-chain-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `chessref args` with `key` (if any) in CHESSREF_PRIVATE_KEY and nothing else of
/// the caller's chessref environment.
fn chessref(key: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessref"));
    command
        .args(args)
        .env_remove("CHESSREF_PRIVATE_KEY")
        .env_remove("CHESSREF_PRIVATE_KEYS")
        .env_remove("CHESSREF_DEPLOYMENTS");
    if let Some(key) = key {
        command.env("CHESSREF_PRIVATE_KEY", key);
    }
    command.output().expect("run chessref")
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
    let dir = scratch("deploy");
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
    assert_eq!(again.matches("already deployed").count(), 3, "{again}");
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
    let dir = scratch("forge");
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
    let dir = scratch("nofactory");
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
    let dir = scratch("senders");
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
        2,
        "two deployments from the keystore's account"
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
    assert_eq!(succeeded(&unlocked).matches("already deployed").count(), 3);
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

const WHITE: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const BLACK: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/// A deployed referee on its own anvil, and the deployments file naming it.
struct Table {
    anvil: Anvil,
    file: PathBuf,
}

impl Table {
    fn new(name: &str) -> Table {
        let anvil = Anvil::spawn().expect("anvil");
        let file = scratch(name).join("deployments.json");
        deploy(&anvil, &file);
        Table { anvil, file }
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
    let created = succeeded(&table.game(KEY_WHITE, &["create", "--stake", stake]));
    assert!(created.contains("estimated gas "), "{created}");
    assert!(created.contains(" gwei per gas: fee "), "{created}");
    assert!(created.trim_end().ends_with("created game 1"), "{created}");
    let open = table.show(KEY_BLACK, "1");
    assert_eq!(open["phase"], "open");
    assert_eq!(open["stake"], stake);

    succeeded(&table.game(KEY_BLACK, &["join", "1"]));
    let joined = table.show(KEY_WHITE, "1");
    assert_eq!(joined["phase"], "running");
    assert_eq!(joined["yourColour"], "white");
    assert_eq!(joined["yourTurn"], true);
    assert_eq!(joined["clocks"]["white"], 86_400);
    assert_eq!(joined["clocks"]["running"], "white");

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
    assert_eq!(table.show(KEY_WHITE, "1"), after_wait);

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
    assert!(
        withdrawn.contains("withdraw 2000000000000000 wei of ETH"),
        "{withdrawn}"
    );
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
    assert!(
        stderr(&out).starts_with("chessref: error: createGame would revert with BadTimeControl"),
        "{}",
        stderr(&out)
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
    assert!(
        stderr(&out).starts_with("chessref: error: claimTimeout would revert with TimeNotUp"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("(nothing sent)"));
    unchanged(&table);

    succeeded(&table.game(KEY_WHITE, &["resign", "1"]));
    refused(
        &table.game(KEY_BLACK, &["move", "1", "e5"]),
        1,
        "game 1 is not running (ended: black_wins, resignation)",
    );

    // A keystore with the wrong password, an endpoint that is down, one that is not JSON-RPC.
    let dir = scratch("bad-input-keys");
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
        serde_json::from_str::<Value>(over_ws.trim()).unwrap(),
        offered
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
