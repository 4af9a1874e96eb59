//! The chain harness on both backends, exercised with a tiny fixture
//! contract (tests/fixtures/Probe.sol, built by scripts/build-contracts.sh).

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor, SolError, SolEvent, sol};
use chessref_evm::{CallOutcome, Chain, RevmChain, RpcChain, TxRequest, anvil::Anvil};

sol!(
    #[allow(missing_docs)]
    #[sol(all_derives)]
    Probe,
    "artifacts/Probe.json"
);

/// Figures a run reports, compared between backends.
#[derive(Debug, PartialEq, Eq)]
struct Figures {
    deploy_gas: u64,
    revert_gas: u64,
    deposit_gas: u64,
}

fn exercise(chain: &mut dyn Chain) -> Figures {
    let alice = chain.accounts()[0];
    let bob = chain.accounts()[1];
    let init: Bytes = [
        &Probe::BYTECODE[..],
        &Probe::constructorCall {
            minimum_: U256::from(1000),
        }
        .abi_encode(),
    ]
    .concat()
    .into();
    let (probe, deployed) = chain.deploy(alice, init).expect("deploy");
    assert!(
        deployed.gas_used > 53_000,
        "creation costs at least the 53,000 base: {}",
        deployed.gas_used
    );

    // A custom error comes back as revert data and decodes.
    let data = Probe::depositCall {
        data: Bytes::from_static(b"hi"),
    }
    .abi_encode();
    let too_small = chain
        .send(TxRequest::call(bob, probe, data.clone()).with_value(U256::from(999)))
        .expect("send");
    assert!(!too_small.success);
    assert!(too_small.logs.is_empty());
    assert_eq!(
        Probe::TooSmall::abi_decode(&too_small.output)
            .expect("TooSmall")
            .code,
        7
    );

    // A successful call: logs decode, value moves, storage changes.
    let before = chain.balance(bob).unwrap();
    let ok = chain
        .send(TxRequest::call(bob, probe, data).with_value(U256::from(5000)))
        .expect("send");
    assert!(ok.success, "deposit reverted: {:?}", ok.output);
    assert!(
        ok.gas_used > 21_000 + 22_100,
        "base, calldata and a fresh cold SSTORE: {}",
        ok.gas_used
    );
    assert_eq!(ok.logs.len(), 1);
    assert_eq!(ok.logs[0].address, probe);
    let event = Probe::Deposited::decode_log_data(&ok.logs[0].data).expect("Deposited");
    assert_eq!(
        (event.from, event.amount, event.data.as_ref()),
        (bob, U256::from(5000), &b"hi"[..])
    );
    assert_eq!(
        chain.balance(bob).unwrap(),
        before - U256::from(5000) - ok.fee
    );
    assert_eq!(chain.balance(probe).unwrap(), U256::from(5000));
    assert_eq!(
        chain.storage(probe, U256::ZERO).unwrap(),
        U256::from(5000),
        "slot 0 is `total`"
    );

    // Views commit nothing.
    let total = Probe::totalCall {}.abi_encode();
    for _ in 0..2 {
        match chain.call(alice, probe, total.clone().into()).unwrap() {
            CallOutcome::Return(out) => assert_eq!(
                Probe::totalCall::abi_decode_returns(&out).unwrap(),
                U256::from(5000)
            ),
            CallOutcome::Revert(data) => panic!("total() reverted: {data}"),
        }
    }

    // Time moves forward only when asked (on a node: at least as asked).
    let now = |chain: &mut dyn Chain| match chain
        .call(alice, probe, Probe::now_Call {}.abi_encode().into())
        .unwrap()
    {
        CallOutcome::Return(out) => Probe::now_Call::abi_decode_returns(&out)
            .unwrap()
            .to::<u64>(),
        CallOutcome::Revert(data) => panic!("now_() reverted: {data}"),
    };
    let t0 = now(chain);
    chain.advance_time(3600).unwrap();
    let t1 = now(chain);
    assert!((3600..3700).contains(&(t1 - t0)), "advanced {} s", t1 - t0);
    assert!(chain.timestamp().unwrap() >= t1 - 1);

    // Payouts to an EOA.
    let carol = Address::with_last_byte(0xca);
    let drain = chain
        .send(TxRequest::call(
            alice,
            probe,
            Probe::drainCall { to: carol }.abi_encode(),
        ))
        .unwrap();
    assert!(drain.success);
    assert_eq!(chain.balance(carol).unwrap(), U256::from(5000));
    assert_eq!(chain.balance(probe).unwrap(), U256::ZERO);

    // Unknown senders are refused before anything is sent (RPC) or fail (revm: no funds needed at price 0).
    Figures {
        deploy_gas: deployed.gas_used,
        revert_gas: too_small.gas_used,
        deposit_gas: ok.gas_used,
    }
}

#[test]
fn revm_chain_deploys_transacts_and_decodes() {
    let mut chain = RevmChain::new();
    assert_eq!(chain.accounts().len(), chessref_evm::ACCOUNT_COUNT);
    for &account in chain.accounts() {
        let key = chain
            .signer(account)
            .expect("the harness holds every revm account's key");
        assert_eq!(key.address(), account);
    }
    let figures = exercise(&mut chain);
    assert!(figures.revert_gas > 21_000);
}

#[test]
fn revm_and_anvil_agree_on_everything_including_gas() {
    let anvil =
        Anvil::spawn().expect("anvil (the npm-installed node) must be available for this test");
    let mut rpc = RpcChain::connect(anvil.url()).expect("connect to anvil");
    assert_eq!(rpc.accounts().len(), 10);
    for &account in rpc.accounts() {
        let key = rpc
            .signer(account)
            .expect("anvil's default accounts have well-known keys");
        assert_eq!(key.address(), account);
    }
    let on_anvil = exercise(&mut rpc);
    let on_revm = exercise(&mut RevmChain::new());
    assert_eq!(
        on_anvil, on_revm,
        "same Prague gas schedule on both backends"
    );
}

#[test]
fn rpc_chain_reports_a_dead_endpoint_clearly() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let error = RpcChain::connect(&format!("http://127.0.0.1:{port}"))
        .unwrap_err()
        .to_string();
    assert!(error.contains(&format!("127.0.0.1:{port}")), "{error}");
    let error = RpcChain::connect("not a url").unwrap_err().to_string();
    assert!(error.contains("invalid RPC URL"), "{error}");
}
