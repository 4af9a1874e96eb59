//! The indexer on Postgres against the indexer on SQLite: the same games played for real
//! on anvil, indexed into a SQLite file (which tests/follow.rs checks against the chain)
//! and into a throwaway Postgres database, must give the same rows: games, moves, the
//! change feed, the cursor, the kept ratings, through live indexing and a reorg's
//! rollback.

mod common;

use std::time::Duration;

use chessref_evm::{RpcChain, anvil::Anvil};
use chessref_index::db::{DbTarget, Sql};
use chessref_index::ratings;
use chessref_index::{Indexer, Options, Store};
use chessref_pgtest::TempPostgres;
use common::{SHORT_GAMES, deploy, games, indexed, play, referee, temp_db};
use serde_json::json;

/// Every derived table with the columns compared (as text: the one kind both backends
/// cast every value to) and its order; timestamps of the indexing itself are left out.
const TABLES: &[(&str, &str, &str)] = &[
    (
        "games",
        "id, created_block, created_log, creator, opponent, creator_white, white, black, token, \
         stake, initial_time, increment, first_move_window, phase, result, reason, ply, status, \
         start_state, state, fen, history, clock, draw_offer, divergent, updated_block, pending",
        "id",
    ),
    (
        "moves",
        "game_id, seq, ply, packed, uci, san, status, state, clock, block_number, tx_hash, \
         log_index",
        "game_id, seq",
    ),
    // The feed's order, not its numbers: Postgres does not reuse the identity values of a
    // rolled-back transaction (the indexer discards a step the node contradicted), so
    // its seq is increasing but not dense, where SQLite's AUTOINCREMENT reuses them.
    ("changes", "game_id, kind, ply, block_number", "seq"),
    (
        "divergences",
        "game_id, event, block_number, tx_hash, log_index, what, expected, found, raw_topics, \
         raw_data",
        "game_id, block_number, log_index, what",
    ),
    (
        "logs",
        "block_number, log_index, game_id",
        "block_number, log_index",
    ),
    ("cursor", "block_number, final_block, head", "id"),
    // The kept ratings: the floats are compared in full by `assert_same` (SQLite prints a
    // REAL as text to 15 digits, Postgres to as many as it takes).
    ("ratings", "player, games, wins, draws, losses", "player"),
    (
        "rated_games",
        "game_id, block_number, log_index, white, black, outcome",
        "game_id",
    ),
];

fn dump(store: &mut Store, table: &str, columns: &str, order: &str) -> Vec<Vec<Option<String>>> {
    let n = columns.split(',').count();
    // Aliased: Postgres resolves ORDER BY names against the output columns first, and a
    // cast keeps its column's name, so `ORDER BY seq` would sort the text.
    let select: Vec<String> = columns
        .split(',')
        .enumerate()
        .map(|(i, c)| format!("CAST({} AS TEXT) AS c{i}", c.trim()))
        .collect();
    let sql = format!("SELECT {} FROM {table} ORDER BY {order}", select.join(", "));
    store
        .db()
        .query(&sql, &[], "dumping a table", |row| {
            (0..n).map(|i| row.get::<Option<String>>(i)).collect()
        })
        .unwrap()
}

fn assert_same(lite: &mut Store, pg: &mut Store) {
    assert_eq!(
        ratings::kept(lite.db()).unwrap(),
        ratings::kept(pg.db()).unwrap(),
        "kept ratings differ (SQLite, then Postgres)"
    );
    for (table, columns, order) in TABLES {
        let a = dump(lite, table, columns, order);
        let b = dump(pg, table, columns, order);
        assert_eq!(
            a.len(),
            b.len(),
            "{table}: row counts differ:\n{a:?}\n{b:?}"
        );
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(
                x, y,
                "{table}: a row differs (SQLite, then Postgres):\n{a:?}\n{b:?}"
            );
        }
    }
}

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
    let mut lite = open(Store::open(&temp_db("follow-pg")).unwrap());
    let target: DbTarget = pg.url().parse().unwrap();
    let mut post = open(Store::open_target(&target).unwrap());
    catch_up(&mut lite);
    catch_up(&mut post);
    assert_eq!(
        indexed(lite.store().connection()),
        [first.clone(), orphaned].concat()
    );
    assert_same(lite.store_mut(), post.store_mut());
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
    let pending = dump(post.store_mut(), "games", "pending", "id");
    assert!(
        pending.iter().all(|p| p[0].as_deref() == Some("0")),
        "every game final on Postgres: {pending:?}"
    );
    let rated = dump(post.store_mut(), "rated_games", "game_id", "game_id");
    assert!(!rated.is_empty(), "the final games are rated on Postgres");
}
