//! A node that lies (chessref-evm's `LyingNode`: a proxy in front of anvil that tampers
//! with chosen answers) is refused, each kind of lie in its own test: a fake block hash
//! on a log in a final block, block hashes that change on every call, a log's block
//! number shifted, blocks answered for another number, an `eth_getLogs` answer too long
//! (split, or refused when one block alone is too long). Nothing of a refused step is
//! stored, and a node that keeps contradicting itself is named after
//! `CONTRADICTIONS_MAX` steps in a row. And the database file deleted under the running
//! indexer stops it, naming the file.

mod common;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use chessref_evm::{RpcChain, anvil::Anvil, lying_node::LyingNode};
use chessref_index::indexer::CONTRADICTIONS_MAX;
use chessref_index::{IndexError, Indexer, Options, Step, Store};
use common::{SHORT_GAMES, count, deploy, games, indexed, play, referee, temp_db};
use serde_json::{Value, json};

fn options(confirmations: u64) -> Options {
    Options {
        confirmations,
        batch_blocks: 2_000,
        poll: Duration::from_millis(5),
    }
}

fn indexer(url: &str, db: &str, referee: Address, confirmations: u64) -> Indexer {
    let chain = RpcChain::connect_read_only(url).unwrap();
    Indexer::new(
        chain,
        Store::open(&temp_db(db)).unwrap(),
        referee,
        0,
        options(confirmations),
    )
    .unwrap()
}

/// Steps until the head is reached; returns every step.
fn catch_up(indexer: &mut Indexer) -> Vec<Step> {
    let mut steps = Vec::new();
    for _ in 0..10_000 {
        let step = indexer.step().expect("index step");
        let done = step.caught_up;
        steps.push(step);
        if done {
            return steps;
        }
    }
    panic!("the indexer never caught up");
}

/// Runs the indexer until it stops (it must, within 30 s); returns the steps it reported
/// and its error.
fn run_until_stopped(indexer: &mut Indexer) -> (Vec<Step>, IndexError) {
    let started = Instant::now();
    let mut steps = Vec::new();
    let outcome = indexer.run(
        || started.elapsed() > Duration::from_secs(30),
        |step| {
            steps.push(step.clone());
            Ok(())
        },
    );
    let error = outcome.expect_err("the indexer must stop");
    assert!(started.elapsed() < Duration::from_secs(30), "{error}");
    (steps, error)
}

/// The contradictions reported before the indexer stopped: `CONTRADICTIONS_MAX - 1`
/// retried steps, counted 1, 2, ..., each saying why; returns the reasons.
fn retried(steps: &[Step]) -> Vec<String> {
    let raced: Vec<&Step> = steps.iter().filter(|s| s.raced).collect();
    assert_eq!(
        raced.len() as u32,
        CONTRADICTIONS_MAX - 1,
        "{:?}",
        raced.iter().map(|s| &s.why).collect::<Vec<_>>()
    );
    for (i, step) in raced.iter().enumerate() {
        assert_eq!(step.contradictions, i as u32 + 1);
        assert!(step.indexed.is_none() && step.logs == 0, "{step:?}");
    }
    raced.iter().map(|s| s.why.clone().unwrap()).collect()
}

/// The error is the node named for contradicting itself `CONTRADICTIONS_MAX` times;
/// returns what it contradicted last.
fn contradicted(error: IndexError, url: &str) -> String {
    let text = error.to_string();
    let IndexError::Contradicted {
        url: named,
        steps,
        what,
    } = error
    else {
        panic!("not a contradiction: {text}");
    };
    assert_eq!(named, url);
    assert_eq!(steps, CONTRADICTIONS_MAX);
    assert!(
        text.starts_with(&format!(
            "the node at {url} answered inconsistently on {CONTRADICTIONS_MAX} steps in a row, \
             lastly: "
        )),
        "{text}"
    );
    assert!(
        text.ends_with("; stopped (nothing of those steps was stored)"),
        "{text}"
    );
    what
}

/// A hex quantity of a JSON-RPC answer.
fn quantity(value: &Value) -> u64 {
    u64::from_str_radix(value.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

/// Anvil with `n` short games played on a fresh referee, then `buried` empty blocks;
/// returns anvil, the referee and how many logs it emitted.
fn chain_with_games(n: usize, buried: u64) -> (Anvil, Address, usize) {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    play(&mut replayer, &games(SHORT_GAMES, n));
    let address = referee(&mut replayer);
    let node = RpcChain::connect(anvil.url()).unwrap();
    for _ in 0..buried {
        node.raw_request("evm_mine", json!([])).unwrap();
    }
    let head = node.head().unwrap();
    let logs = node.logs(address, 0, head, None).unwrap().len();
    assert!(logs > 4, "{logs} logs");
    (anvil, address, logs)
}

/// Through a proxy that changes nothing, the index is the chain's: the checks refuse no
/// honest answer (and the proxy itself is sound).
#[test]
fn test_an_honest_proxy_is_indexed_like_the_node() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let played = play(&mut replayer, &games(SHORT_GAMES, 2));
    let address = referee(&mut replayer);
    let node = LyingNode::start(anvil.url(), |_, _, answer| answer).unwrap();
    let mut indexer = indexer(&node.url(), "honest-proxy", address, 3);
    let steps = catch_up(&mut indexer);
    assert!(steps.iter().all(|s| !s.raced), "{steps:?}");
    assert_eq!(indexed(indexer.store().connection()), played);
    assert!(node.calls("eth_getLogs") >= 1 && node.calls("eth_getBlockByNumber") >= 1);
}

/// Finding 9: a log whose block hash is not its block's, in a block long final, was
/// stored as the node gave it. Now the log's block is asked for (final blocks too), the
/// step is refused and retried, and after the retries the node is named; nothing stored.
#[test]
fn test_a_fake_block_hash_on_a_log_in_a_final_block_is_refused() {
    let (anvil, address, _) = chain_with_games(1, 20);
    let fake = format!("0x{}", "ba".repeat(32));
    let lie = fake.clone();
    let node = LyingNode::start(anvil.url(), move |method, _, mut answer| {
        if method == "eth_getLogs"
            && let Some(first) = answer["result"].get_mut(0)
        {
            first["blockHash"] = json!(lie);
        }
        answer
    })
    .unwrap();
    let mut indexer = indexer(&node.url(), "fake-hash", address, 2);
    let (steps, error) = run_until_stopped(&mut indexer);
    let what = contradicted(error, &node.url());
    for why in retried(&steps).iter().chain([&what]) {
        assert!(
            why.contains(&format!("'s hash {fake}, but the node answered block ")),
            "{why}"
        );
    }
    let conn = indexer.store().connection();
    assert_eq!(count(conn, "logs"), 0);
    assert_eq!(count(conn, "games"), 0);
    assert_eq!(indexer.store_mut().cursor().unwrap().next_block, 0);
}

/// Finding 7: a node whose block hashes never settle (a new hash on every call) kept the
/// indexer retrying for ever, silently. Now each retry says why ("the node answered
/// block N with hash X then Y") and the node is named after the retries.
#[test]
fn test_block_hashes_that_never_settle_are_named_after_the_retries() {
    let (anvil, address, _) = chain_with_games(1, 0);
    let calls = AtomicU64::new(0);
    let node = LyingNode::start(anvil.url(), move |method, _, mut answer| {
        if method == "eth_getBlockByNumber" && answer["result"].is_object() {
            let n = calls.fetch_add(1, Ordering::Relaxed);
            answer["result"]["hash"] = json!(format!("0x{:064x}", 0xdead_0000 + n));
        }
        answer
    })
    .unwrap();
    let mut indexer = indexer(&node.url(), "unsettled", address, 4);
    let (steps, error) = run_until_stopped(&mut indexer);
    let what = contradicted(error, &node.url());
    for why in retried(&steps).iter().chain([&what]) {
        assert!(why.starts_with("the node answered block "), "{why}");
        let lied = format!(" with hash 0x{}dead", "0".repeat(56));
        assert!(why.contains(&lied), "{why}");
        assert!(why.contains(" then 0x"), "{why}");
    }
    assert_eq!(count(indexer.store().connection(), "logs"), 0);
}

/// The same node, lying only once the index holds non-final blocks: the changed tip is
/// asked twice, and a hash that changes between the two is no reorg (no rollback, no
/// "reorg deeper than the confirmation depth"), but the node named after the retries.
#[test]
fn test_a_tip_whose_hash_never_settles_is_no_reorg() {
    let (anvil, address, _) = chain_with_games(1, 0);
    let lying = Arc::new(AtomicBool::new(false));
    let calls = AtomicU64::new(0);
    let on = Arc::clone(&lying);
    let node = LyingNode::start(anvil.url(), move |method, _, mut answer| {
        if on.load(Ordering::Relaxed)
            && method == "eth_getBlockByNumber"
            && answer["result"].is_object()
        {
            let n = calls.fetch_add(1, Ordering::Relaxed);
            answer["result"]["hash"] = json!(format!("0x{:064x}", 0xdead_0000 + n));
        }
        answer
    })
    .unwrap();
    let mut indexer = indexer(&node.url(), "unsettled-tip", address, 4);
    catch_up(&mut indexer);
    let (logs, cursor) = (
        count(indexer.store().connection(), "logs"),
        indexer.store_mut().cursor().unwrap(),
    );
    lying.store(true, Ordering::Relaxed);
    let (steps, error) = run_until_stopped(&mut indexer);
    assert!(steps.iter().all(|s| s.rolled_back_to.is_none()));
    let what = contradicted(error, &node.url());
    let tip = cursor.next_block - 1;
    for why in retried(&steps).iter().chain([&what]) {
        assert!(
            why.starts_with(&format!("the node answered block {tip} with hash 0x")),
            "{why}"
        );
    }
    assert_eq!(count(indexer.store().connection(), "logs"), logs);
    assert_eq!(indexer.store_mut().cursor().unwrap(), cursor);
}

/// Finding 9: a log whose block number is shifted (its hash kept) is in a block whose
/// hash is not the log's: refused (here in a final block, stored before).
#[test]
fn test_a_log_with_a_shifted_block_number_is_refused() {
    let (anvil, address, _) = chain_with_games(1, 20);
    // The last log of the game, moved to the (empty) block after its own.
    let node = LyingNode::start(anvil.url(), |method, _, mut answer| {
        if method == "eth_getLogs"
            && let Some(last) = answer["result"].as_array_mut().and_then(|l| l.last_mut())
        {
            let number = quantity(&last["blockNumber"]);
            last["blockNumber"] = json!(format!("{:#x}", number + 1));
        }
        answer
    })
    .unwrap();
    let mut indexer = indexer(&node.url(), "shifted-log", address, 2);
    let (steps, error) = run_until_stopped(&mut indexer);
    let what = contradicted(error, &node.url());
    for why in retried(&steps).iter().chain([&what]) {
        assert!(
            why.contains("names block") && why.contains("but the node answered block"),
            "{why}"
        );
    }
    assert_eq!(count(indexer.store().connection(), "logs"), 0);
}

/// Finding 9: a node answering each `eth_getBlockByNumber(n)` with block n - 1 (its
/// number and hash) made the running indexer stop with a wrong "reorg deeper than the
/// confirmation depth". Now a block of another number than asked is a contradiction:
/// the node is named, the index untouched.
#[test]
fn test_blocks_answered_for_another_number_are_refused_not_a_deep_reorg() {
    let (anvil, address, _) = chain_with_games(1, 0);
    let lying = Arc::new(AtomicBool::new(false));
    let on = Arc::clone(&lying);
    let honest = Mutex::new(RpcChain::connect_read_only(anvil.url()).unwrap());
    let node = LyingNode::start(anvil.url(), move |method, params, mut answer| {
        if on.load(Ordering::Relaxed) && method == "eth_getBlockByNumber" {
            let asked = quantity(&params[0]);
            answer["result"] = honest
                .lock()
                .unwrap()
                .raw_request(
                    "eth_getBlockByNumber",
                    json!([format!("{:#x}", asked.saturating_sub(1)), false]),
                )
                .unwrap();
        }
        answer
    })
    .unwrap();
    let mut indexer = indexer(&node.url(), "shifted-block", address, 4);
    catch_up(&mut indexer);
    let (logs, cursor) = (
        count(indexer.store().connection(), "logs"),
        indexer.store_mut().cursor().unwrap(),
    );
    lying.store(true, Ordering::Relaxed);
    let (steps, error) = run_until_stopped(&mut indexer);
    let what = contradicted(error, &node.url());
    let tip = cursor.next_block - 1;
    for why in retried(&steps).iter().chain([&what]) {
        assert!(
            why.starts_with(&format!(
                "asked for block {tip}, the node answered block {} (0x",
                tip - 1
            )),
            "{why}"
        );
    }
    assert_eq!(count(indexer.store().connection(), "logs"), logs);
    assert_eq!(indexer.store_mut().cursor().unwrap(), cursor);
}

/// `n` junk logs of the referee, ~4 KB each, as a node could answer them in `block`.
fn junk(referee: Address, block: u64, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({
                "address": referee.to_string(),
                "topics": [format!("0x{:064x}", 0xbad0_0000u64 + i as u64)],
                "data": format!("0x{}", "ab".repeat(4_000)),
                "blockNumber": format!("{block:#x}"),
                "blockHash": format!("0x{}", "cd".repeat(32)),
                "transactionHash": format!("0x{:064x}", i + 1),
                "transactionIndex": "0x0",
                "logIndex": format!("{:#x}", 0x1000 + i),
                "removed": false,
            })
        })
        .collect()
}

/// The bound of the next two tests: 256 KiB (the default is 32 MiB).
const BOUND: usize = 256 << 10;

/// Finding 9: a huge `eth_getLogs` answer of junk was read whole and its logs stored.
/// Now an answer longer than the bound is refused (unread past it) and its range
/// halved: this node pads every answer of more than one block with ~2.4 MB of junk, and
/// the index ends exactly the chain's, one block at a time, without a junk log.
#[test]
fn test_an_oversized_log_answer_is_refused_and_its_range_split() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let played = play(&mut replayer, &games(SHORT_GAMES, 2));
    let address = referee(&mut replayer);
    let honest = RpcChain::connect_read_only(anvil.url()).unwrap();
    let logs = honest
        .logs(address, 0, honest.head().unwrap(), None)
        .unwrap()
        .len();
    let node = LyingNode::start(anvil.url(), move |method, params, mut answer| {
        if method == "eth_getLogs" {
            let (from, to) = (
                quantity(&params[0]["fromBlock"]),
                quantity(&params[0]["toBlock"]),
            );
            if to > from {
                let list = answer["result"].as_array_mut().unwrap();
                list.extend(junk(address, from, 600));
            }
        }
        answer
    })
    .unwrap();
    let mut indexer = indexer(&node.url(), "oversized-split", address, 3).with_max_log_bytes(BOUND);
    assert_eq!(indexer.max_log_bytes(), BOUND);
    let steps = catch_up(&mut indexer);
    let halved: Vec<&Step> = steps.iter().filter(|s| s.range_halved.is_some()).collect();
    assert!(!halved.is_empty(), "{steps:?}");
    for step in &halved {
        assert_eq!(
            step.why.as_deref(),
            Some(
                format!(
                    "the node at {} answered eth_getLogs with more than {BOUND} bytes",
                    node.url()
                )
                .as_str()
            )
        );
    }
    assert_eq!(indexer.batch_blocks(), 1);
    let conn = indexer.store().connection();
    assert_eq!(indexed(conn), played);
    assert_eq!(count(conn, "logs") as usize, logs, "no junk log stored");
}

/// A node whose answer for a single block is longer than the bound: that block cannot be
/// split, the indexer stops naming it and the bound; nothing stored.
#[test]
fn test_one_block_whose_logs_alone_pass_the_bound_stops_the_index_naming_it() {
    let (anvil, address, _) = chain_with_games(1, 0);
    let node = LyingNode::start(anvil.url(), move |method, params, mut answer| {
        if method == "eth_getLogs" {
            let from = quantity(&params[0]["fromBlock"]);
            let list = answer["result"].as_array_mut().unwrap();
            list.extend(junk(address, from, 100));
        }
        answer
    })
    .unwrap();
    let mut indexer = indexer(&node.url(), "oversized-block", address, 3).with_max_log_bytes(BOUND);
    let (steps, error) = run_until_stopped(&mut indexer);
    assert!(steps.iter().all(|s| s.range_halved.is_some()), "{steps:?}");
    assert!(matches!(
        error,
        IndexError::LogsTooLarge {
            block: 0,
            limit: BOUND,
            ..
        }
    ));
    assert_eq!(
        error.to_string(),
        format!(
            "the node at {} answers eth_getLogs of block 0 alone with more than {BOUND} bytes: \
             one block cannot be split; if the node is right, raise --max-log-bytes",
            node.url()
        )
    );
    assert_eq!(count(indexer.store().connection(), "logs"), 0);
}

/// Finding 10: the database deleted under a running indexer was written to in its
/// deleted file, without an error. Now the next step stops, naming the file.
#[test]
fn test_the_database_deleted_under_the_indexer_stops_it_naming_the_file() {
    let (anvil, address, _) = chain_with_games(1, 0);
    let db = temp_db("deleted");
    let chain = RpcChain::connect_read_only(anvil.url()).unwrap();
    let mut indexer =
        Indexer::new(chain, Store::open(&db).unwrap(), address, 0, options(2)).unwrap();
    catch_up(&mut indexer);
    std::fs::remove_file(&db).unwrap();
    let error = indexer.step().unwrap_err();
    assert!(matches!(error, IndexError::FileGone { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "index database {} was deleted while chessref index had it open (its writes would \
             go to a file nobody reads): stopped; start chessref index again to rebuild it",
            db.display()
        )
    );
    // `run` stops too (no retry).
    let outcome = indexer.run(|| false, |_| Ok(()));
    assert!(matches!(outcome, Err(IndexError::FileGone { .. })));
}
