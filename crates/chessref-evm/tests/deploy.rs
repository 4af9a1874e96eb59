//! Deploying the contracts on anvil (HTTP and WebSocket), the two kinds of
//! [`Sender`], and what an unreachable, silent or non-JSON-RPC endpoint gives.

use std::{
    io::{Read, Write},
    net::TcpListener,
    time::{Duration, Instant},
};

use alloy_primitives::{Address, U256, keccak256};
use chessref_evm::{
    Chain, ChainError, RpcChain, Sender, TxRequest,
    anvil::Anvil,
    deploy::{
        Action, CREATE2_FACTORY, DeployError, Method, create2_addresses, create2_annex_address,
        create2_blueprint_address, create2_channel_annex_address,
        create2_tournament_blueprint_address, deploy,
    },
    deployments::{
        CHANNEL, CHANNEL_ANNEX, CHANNEL_BLUEPRINT, REFEREE, REFEREE_ANNEX, RULES_VIEW, TOURNAMENT,
        TOURNAMENT_BLUEPRINT,
    },
    stalled_node::StalledNode,
    tournament::tournament_address,
};

const KEY0: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

fn signer0() -> Sender {
    Sender::Local(KEY0.parse().unwrap())
}

#[test]
fn create2_deploys_at_the_predicted_addresses_once_and_verifies_the_code() {
    let anvil = Anvil::spawn().expect("anvil");
    let mut chain = RpcChain::connect_as(anvil.url(), &signer0()).unwrap();
    let from = chain.accounts()[0];
    let started = std::time::Instant::now();
    let report = deploy(&mut chain, from, Method::Create2, None).expect("deploy");
    let elapsed = started.elapsed();
    let (rules, referee, channel) = create2_addresses();
    let names: Vec<_> = report.contracts.iter().map(|c| c.name).collect();
    assert_eq!(
        names,
        [
            RULES_VIEW,
            REFEREE,
            CHANNEL,
            CHANNEL_BLUEPRINT,
            REFEREE_ANNEX,
            CHANNEL_ANNEX,
            TOURNAMENT,
            TOURNAMENT_BLUEPRINT
        ]
    );
    let addresses: Vec<_> = report.contracts.iter().map(|c| c.record.address).collect();
    assert_eq!(
        addresses,
        [
            rules,
            referee,
            channel,
            create2_blueprint_address(),
            create2_annex_address(),
            create2_channel_annex_address(),
            tournament_address(referee),
            create2_tournament_blueprint_address()
        ]
    );
    let actions: Vec<_> = report.contracts.iter().map(|c| c.action).collect();
    assert_eq!(
        actions,
        [
            Action::Deployed,
            Action::Deployed,
            Action::CreatedByParent,
            Action::Deployed,
            Action::Deployed,
            Action::Deployed,
            Action::CreatedByParent,
            Action::Deployed
        ]
    );
    for contract in &report.contracts {
        let code = chain.code(contract.record.address).unwrap();
        assert_eq!(
            contract.record.code_hash,
            keccak256(&code),
            "{}",
            contract.name
        );
        assert!(contract.record.tx_hash.is_some() && contract.record.block_number.is_some());
    }
    assert_eq!(report.entry.chain_id, 31337);
    assert_eq!(report.entry.factory, Some(CREATE2_FACTORY));
    eprintln!(
        "deploy gas: ChessRulesView {}, ChessChannelBlueprint {}, ChessRefereeAnnex {}, ChessChannelAnnex {}, ChessTournamentBlueprint {}, ChessReferee (with ChessChannel and ChessTournament) {}; {elapsed:?}",
        report.contracts[0].gas_used.unwrap(),
        report.contracts[3].gas_used.unwrap(),
        report.contracts[4].gas_used.unwrap(),
        report.contracts[5].gas_used.unwrap(),
        report.contracts[7].gas_used.unwrap(),
        report.contracts[1].gas_used.unwrap()
    );

    // A re-run sends nothing, says so, and keeps the first run's transactions.
    let nonce = chain_nonce(&mut chain, from);
    let again = deploy(&mut chain, from, Method::Create2, Some(&report.entry)).unwrap();
    assert!(
        again
            .contracts
            .iter()
            .all(|c| c.action == Action::AlreadyDeployed)
    );
    assert_eq!(again.entry, report.entry);
    assert_eq!(chain_nonce(&mut chain, from), nonce, "no transaction sent");
}

fn chain_nonce(chain: &mut RpcChain, account: Address) -> u64 {
    chain.nonce(account).unwrap()
}

#[test]
fn without_the_factory_create2_is_refused_and_plain_create_works() {
    let anvil = Anvil::spawn_with_args(&["--disable-default-create2-deployer"]).expect("anvil");
    let mut chain = RpcChain::connect_as(anvil.url(), &signer0()).unwrap();
    let from = chain.accounts()[0];
    let error = deploy(&mut chain, from, Method::Create2, None).unwrap_err();
    assert!(matches!(
        error,
        DeployError::NoFactory {
            chain_id: 31337,
            ..
        }
    ));
    assert!(
        error.to_string().starts_with(
            "chain id 31337 has no CREATE2 factory at 0x4e59b44847b379578588920cA78FbF26c0B4956C"
        ),
        "{error}"
    );
    let report = deploy(&mut chain, from, Method::Create, None).expect("plain CREATE");
    assert_eq!(report.entry.factory, None);
    assert_eq!(report.contracts[0].record.address, from.create(0));
    assert_eq!(report.contracts[3].record.address, from.create(1));
    assert_eq!(report.contracts[4].record.address, from.create(2));
    assert_eq!(report.contracts[5].record.address, from.create(3));
    assert_eq!(report.contracts[7].record.address, from.create(4));
    assert_eq!(report.contracts[1].record.address, from.create(5));
    assert_eq!(report.contracts[2].record.address, from.create(5).create(1));
    assert_eq!(report.contracts[6].record.address, from.create(5).create(2));
    // Found again through the file's entry.
    let again = deploy(&mut chain, from, Method::Create, Some(&report.entry)).unwrap();
    assert!(
        again
            .contracts
            .iter()
            .all(|c| c.action == Action::AlreadyDeployed)
    );
}

#[test]
fn websocket_endpoints_deploy_and_read_like_http() {
    let anvil = Anvil::spawn().expect("anvil");
    let url = anvil.ws_url();
    assert!(url.starts_with("ws://"));
    let mut chain = RpcChain::connect_as(&url, &signer0()).expect("ws connect");
    assert_eq!(chain.chain_id().unwrap(), 31337);
    let from = chain.accounts()[0];
    let report = deploy(&mut chain, from, Method::Create2, None).expect("deploy over ws");
    assert_eq!(report.contracts[1].record.address, create2_addresses().1);
    let before = chain.balance(from).unwrap();
    assert!(before > U256::ZERO);
}

#[test]
fn an_unlocked_sender_must_be_one_of_the_nodes_accounts() {
    let anvil = Anvil::spawn().expect("anvil");
    let first = chessref_evm::anvil::default_signer(
        "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
            .parse()
            .unwrap(),
    )
    .unwrap()
    .address();
    let chain = RpcChain::connect_as(anvil.url(), &Sender::Unlocked(first)).unwrap();
    assert_eq!(chain.accounts(), [first]);
    let stranger = Address::repeat_byte(0x11);
    let error = RpcChain::connect_as(anvil.url(), &Sender::Unlocked(stranger)).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{stranger} is not an unlocked account of {} (eth_accounts does not list it)",
            anvil.url()
        )
    );
}

/// A node that answers `eth_chainId` (so connecting succeeds) and nothing after: every
/// request is `ChainError::Timeout` after the chain's timeout, naming the endpoint and the
/// request; sending a transaction too, however long a receipt may take.
#[test]
fn a_node_that_stops_answering_is_named_within_the_timeout() {
    let node = StalledNode::answering_chain_id(31337).unwrap();
    let url = node.url();
    let timeout = Duration::from_secs(1);
    let mut chain = RpcChain::connect_as(&url, &signer0())
        .unwrap()
        .with_timeout(timeout);
    assert_eq!(chain.timeout(), timeout);
    assert_eq!(chain.chain_id().unwrap(), 31337);
    let from = chain.accounts()[0];
    let timed = |what: &str, call: &mut dyn FnMut() -> Result<(), ChainError>| {
        let started = Instant::now();
        let error = call().unwrap_err();
        let waited = started.elapsed();
        assert!(
            waited >= timeout && waited < timeout + Duration::from_secs(3),
            "{what}: {waited:?}"
        );
        assert!(error.is_timeout(), "{error:?}");
        let text = error.to_string();
        assert!(
            text.starts_with(&format!("the node at {url} did not answer {what}")),
            "{text}"
        );
        assert!(text.ends_with(" within 1 s"), "{text}");
    };
    timed("eth_blockNumber", &mut || chain.head().map(drop));
    timed("eth_getLogs", &mut || {
        chain.logs(Address::ZERO, 0, 1, None).map(drop)
    });
    timed("eth_call", &mut || {
        Chain::call(&mut chain, from, Address::ZERO, Default::default()).map(drop)
    });
    timed("eth_sendRawTransaction", &mut || {
        chain
            .send(TxRequest::call(from, Address::ZERO, Vec::new()))
            .map(drop)
    });
}

#[test]
fn a_refused_connection_and_a_non_rpc_answer_are_named() {
    // A port nobody listens on: bind, note, release.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    for url in [
        format!("http://127.0.0.1:{port}"),
        format!("ws://127.0.0.1:{port}"),
    ] {
        let error = RpcChain::connect_as(&url, &signer0()).unwrap_err();
        assert!(matches!(error, ChainError::Unreachable { .. }), "{error:?}");
        let text = error.to_string();
        assert!(
            text.starts_with(&format!("cannot reach RPC {url}: ")),
            "{text}"
        );
        assert!(text.contains("refused"), "{text}");
    }

    // An HTTP server that answers 200 with a web page.
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", server.local_addr().unwrap());
    let serving = std::thread::spawn(move || {
        if let Ok((mut stream, _)) = server.accept() {
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let body = "<html>hello</html>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let error = RpcChain::connect_as(&url, &signer0()).unwrap_err();
    serving.join().unwrap();
    assert!(matches!(error, ChainError::BadAnswer { .. }), "{error:?}");
    let text = error.to_string();
    assert!(
        text.starts_with(&format!(
            "RPC {url} answered something that is not JSON-RPC: "
        )),
        "{text}"
    );
    assert!(text.contains("<html>hello</html>"), "{text}");

    // https:// and wss:// speak TLS (rustls): to a plain-HTTP server, the handshake fails.
    let plain = TcpListener::bind("127.0.0.1:0").unwrap();
    let at = plain.local_addr().unwrap();
    let serving = std::thread::spawn(move || {
        for _ in 0..2 {
            if let Ok((mut stream, _)) = plain.accept() {
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
            }
        }
    });
    for url in [format!("https://{at}"), format!("wss://{at}")] {
        let error = RpcChain::connect_as(&url, &signer0()).unwrap_err();
        assert!(matches!(error, ChainError::Unreachable { .. }), "{error:?}");
        assert!(
            error.to_string().contains("corrupt message"),
            "a TLS error: {error}"
        );
    }
    serving.join().unwrap();

    let error = RpcChain::connect_as("ftp://127.0.0.1:1", &signer0()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("use http://, https://, ws:// or wss://"),
        "{error}"
    );
}

#[test]
fn the_readme_names_the_addresses_the_committed_code_deploys_at() {
    // Any change to a contract's code moves its CREATE2 address: the README's must follow.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md");
    let (rules, referee, channel) = chessref_evm::deploy::create2_addresses();
    for (name, address) in [
        ("ChessRulesView", rules),
        (
            "ChessChannelBlueprint",
            chessref_evm::deploy::create2_blueprint_address(),
        ),
        (
            "ChessRefereeAnnex",
            chessref_evm::deploy::create2_annex_address(),
        ),
        (
            "ChessChannelAnnex",
            chessref_evm::deploy::create2_channel_annex_address(),
        ),
        (
            "ChessTournamentBlueprint",
            chessref_evm::deploy::create2_tournament_blueprint_address(),
        ),
        ("ChessReferee", referee),
        ("ChessChannel", channel),
        (
            "ChessTournament",
            chessref_evm::tournament::tournament_address(referee),
        ),
    ] {
        assert!(
            readme.contains(&format!("`{address}`")),
            "README.md must name {name} at {address} (its CREATE2 address for the committed code)"
        );
    }
}
