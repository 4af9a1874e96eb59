//! `RpcChain::estimate_gas` asks about the block a transaction would be mined in: a call
//! that needs `block.timestamp` to have reached a time just past (as a channel receipt
//! held a second ago does) is estimated, not refused because the latest block is older.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use alloy_primitives::{Address, Bytes, U256};
use chessref_evm::{CallOutcome, Chain, RpcChain, Sender, TxRequest, anvil::Anvil};

const KEY0: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/// Runtime code that reverts unless `block.timestamp >= calldata word 0`:
/// `PUSH1 0 CALLDATALOAD TIMESTAMP LT PUSH1 9 JUMPI STOP JUMPDEST PUSH1 0 DUP1 REVERT`.
const NOT_BEFORE: &str = "6000354210600957005b600080fd";

fn deploy_not_before(chain: &mut RpcChain, from: Address) -> (Address, u64) {
    // Copies the 14-byte runtime from offset 12 and returns it.
    let init = format!("600e600c600039600e6000f3{NOT_BEFORE}");
    let init: Bytes = alloy_primitives::hex::decode(init).unwrap().into();
    let receipt = chain.send(TxRequest::create(from, init)).expect("deploy");
    assert!(receipt.success);
    let block = receipt.block_number.expect("mined");
    (receipt.created.expect("a created address"), block)
}

fn wall_clock() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[test]
fn a_time_past_the_latest_block_but_not_the_wall_clock_is_estimated() {
    let anvil = Anvil::spawn().expect("anvil");
    let mut chain =
        RpcChain::connect_as(anvil.url(), &Sender::Local(KEY0.parse().unwrap())).expect("connect");
    let from = chain.accounts()[0];
    let (gate, block) = deploy_not_before(&mut chain, from);
    let latest = chain.timestamp().expect("latest block");
    // No block is mined while we wait: the latest block falls behind the wall clock.
    std::thread::sleep(Duration::from_millis(2_100));
    let now = wall_clock();
    assert!(
        now >= latest + 2,
        "the wall clock moved past the latest block"
    );
    let at = |t: u64| TxRequest::call(from, gate, U256::from(t).to_be_bytes::<32>().to_vec());

    let estimate = chain.estimate_gas(&at(now)).expect("an answer");
    assert!(
        estimate.is_ok(),
        "a time the next block has reached: {estimate:?}"
    );
    // The gate is real: in the latest block, and an hour ahead, the same call reverts.
    let in_latest = chain
        .call_at(from, gate, at(now).data, block)
        .expect("an answer");
    assert!(
        matches!(in_latest, CallOutcome::Revert(_)),
        "the latest block is older than {now}: {in_latest:?}"
    );
    let estimate = chain.estimate_gas(&at(now + 3_600)).expect("an answer");
    assert!(estimate.is_err(), "an hour ahead: {estimate:?}");
}
