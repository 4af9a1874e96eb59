//! The indexer on Postgres against the indexer on SQLite: the same games played for real
//! on anvil, indexed into a SQLite file (which tests/follow.rs checks against the chain)
//! and into a throwaway Postgres database, must give the same rows: games, moves, the
//! change feed, the cursor, the kept ratings, through live indexing and a reorg's
//! rollback; and the readers the server answers from (`chessref_index::read`) must
//! answer the same on both.

mod common;
#[path = "common/compare.rs"]
mod compare;

use std::time::Duration;

use chessref_evm::{RpcChain, anvil::Anvil};
use chessref_index::db::DbTarget;
use chessref_index::read;
use chessref_index::{Indexer, Options, Store};
use chessref_pgtest::TempPostgres;
use common::{SHORT_GAMES, deploy, games, indexed, play, referee, temp_db};
use compare::{assert_reads_same, assert_same, dump};
use serde_json::json;

fn catch_up(indexer: &mut Indexer) {
    for _ in 0..10_000 {
        if indexer.step().expect("index step").caught_up {
            return;
        }
    }
    panic!("the indexer never caught up");
}

#[test]
fn test_postgres_index_equals_the_sqlite_index_through_live_play_and_a_reorg() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let all = games(SHORT_GAMES, 4);
    let first = play(&mut replayer, &all[..1]);
    let node = RpcChain::connect(anvil.url()).unwrap();
    let snapshot = node.raw_request("evm_snapshot", json!([])).unwrap();
    let orphaned = play(&mut replayer, &all[1..2]);
    let address = referee(&mut replayer);
    let pg = TempPostgres::start().unwrap();
    // Nothing final within 50 blocks: the revert below is a reorg both can roll back.
    let options = Options {
        confirmations: 50,
        batch_blocks: 5,
        poll: Duration::from_millis(5),
    };
    let open = |store: Store| {
        let chain = RpcChain::connect_read_only(anvil.url()).unwrap();
        Indexer::new(chain, store, address, 0, options).unwrap()
    };
    let lite_target = DbTarget::Sqlite(temp_db("follow-pg"));
    let mut lite = open(Store::open_target(&lite_target).unwrap());
    let target: DbTarget = pg.url().parse().unwrap();
    // Before the indexer made the schema, the readers say so (they never make it).
    let early = read::open(&target).unwrap_err();
    assert!(early.message.contains("no index yet"), "{early}");
    let mut post = open(Store::open_target(&target).unwrap());
    catch_up(&mut lite);
    catch_up(&mut post);
    assert_eq!(
        indexed(lite.store().connection()),
        [first.clone(), orphaned].concat()
    );
    assert_same(lite.store_mut(), post.store_mut());
    assert_reads_same(&lite_target, &target);
    assert_eq!(dump(post.store_mut(), "games", "id", "id").len(), 2);

    // The chain forgets the second game and plays another one in its place.
    assert_eq!(
        node.raw_request("evm_revert", json!([snapshot])).unwrap(),
        json!(true)
    );
    let mut replayer = common::replayer_at(&anvil, address);
    let canonical = [first, play(&mut replayer, &all[2..3])].concat();
    catch_up(&mut lite);
    catch_up(&mut post);
    assert_eq!(indexed(lite.store().connection()), canonical);
    assert_same(lite.store_mut(), post.store_mut());
    assert_reads_same(&lite_target, &target);
    let kinds = dump(post.store_mut(), "changes", "kind", "seq");
    assert!(
        kinds.iter().any(|k| k[0].as_deref() == Some("rollback")),
        "the reorg was rolled back on Postgres: {kinds:?}"
    );

    // Live: two more games, indexed as they come, then made final.
    play(&mut replayer, &all[3..4]);
    for _ in 0..60 {
        node.raw_request("evm_mine", json!([])).unwrap();
    }
    catch_up(&mut lite);
    catch_up(&mut post);
    assert_same(lite.store_mut(), post.store_mut());
    assert_reads_same(&lite_target, &target);
    let pending = dump(post.store_mut(), "games", "pending", "id");
    assert!(
        pending.iter().all(|p| p[0].as_deref() == Some("0")),
        "every game final on Postgres: {pending:?}"
    );
    let rated = dump(post.store_mut(), "rated_games", "game_id", "game_id");
    assert!(!rated.is_empty(), "the final games are rated on Postgres");
}
