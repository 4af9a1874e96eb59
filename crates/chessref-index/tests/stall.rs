//! A node that stops answering: a step fails with the node's timeout, a retriable error,
//! and `Indexer::run` reports it and tries again, backing off, instead of stopping.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use chessref_evm::{RpcChain, stalled_node::StalledNode};
use chessref_index::indexer::{RETRY_FIRST, Stall, is_retriable};
use chessref_index::{IndexError, Indexer, Options, Store};

const TIMEOUT: Duration = Duration::from_millis(500);

/// An indexer on `node` (which answers the chain id only), its requests bounded by
/// [`TIMEOUT`], into a fresh database named `name`.
fn indexer(node: &StalledNode, name: &str) -> Indexer {
    let dir = std::env::temp_dir().join(format!("chessref-index-stall-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join(format!("{name}.sqlite"));
    let _ = std::fs::remove_file(&db);
    let chain = RpcChain::connect_read_only(&node.url())
        .unwrap()
        .with_timeout(TIMEOUT);
    Indexer::new(
        chain,
        Store::open(&db).unwrap(),
        Address::repeat_byte(7),
        0,
        Options::default(),
    )
    .unwrap()
}

#[test]
fn a_step_the_node_does_not_answer_is_a_retriable_timeout_naming_it() {
    let node = StalledNode::answering_chain_id(31337).unwrap();
    let mut indexer = indexer(&node, "step");
    let started = Instant::now();
    let error = indexer.step().unwrap_err();
    assert!(started.elapsed() < TIMEOUT + Duration::from_secs(3));
    assert!(is_retriable(&error), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "the node at {} did not answer eth_blockNumber within 0.5 s",
            node.url()
        )
    );
    assert!(!is_retriable(&IndexError::Invariant("a bug".into())));
    assert!(!is_retriable(&IndexError::BadAnswer("a lie".into())));
    // Nothing was stored: the next try starts where this one did.
    assert_eq!(indexer.store_mut().cursor().unwrap().next_block, 0);
}

#[test]
fn run_reports_a_silent_node_and_retries_backing_off() {
    let node = StalledNode::answering_chain_id(31337).unwrap();
    let mut indexer = indexer(&node, "run");
    let stalls: RefCell<Vec<(Stall, Instant)>> = RefCell::default();
    let started = Instant::now();
    let outcome = indexer.run(
        || stalls.borrow().len() >= 2 || started.elapsed() > Duration::from_secs(20),
        |step| {
            let stall = step.stalled.clone().expect("only stalled steps");
            assert!(step.indexed.is_none() && !step.caught_up);
            stalls.borrow_mut().push((stall, Instant::now()));
            Ok(())
        },
    );
    let stalls = stalls.into_inner();
    assert!(
        outcome.is_ok(),
        "a timeout alone never stops run: {outcome:?}"
    );
    assert_eq!(stalls.len(), 2, "{stalls:?}");
    let (first, at_first) = &stalls[0];
    let (second, at_second) = &stalls[1];
    let expected = format!(
        "the node at {} did not answer eth_blockNumber within 0.5 s",
        node.url()
    );
    assert_eq!(first.error, expected);
    assert_eq!(second.error, expected);
    assert_eq!(first.retry_in, RETRY_FIRST);
    assert_eq!(second.retry_in, RETRY_FIRST * 2, "the pause doubles");
    assert!(first.behind >= TIMEOUT, "{first:?}");
    // The second try came after the first pause and its own timeout.
    let gap = at_second.duration_since(*at_first);
    assert!(gap >= RETRY_FIRST + TIMEOUT, "{gap:?}");
    assert!(second.behind >= first.behind + RETRY_FIRST, "{second:?}");
    // `stop` is asked during the pause: run returned without waiting out the second.
    assert!(at_second.elapsed() < Duration::from_secs(1));
}
