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
        if name != "ChessChannel" {
            assert!(
                text.contains(&format!("contract {name} {address}")),
                "forge reports {name} at {address}: {text}"
            );
        }
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
