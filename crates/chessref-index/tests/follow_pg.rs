//! The indexer on Postgres against the indexer on SQLite: the same games played for real
//! on anvil, indexed into a SQLite file (which tests/follow.rs checks against the chain)
//! and into a throwaway Postgres database, must give the same rows: games, moves, the
//! change feed, the cursor, the kept ratings, through live indexing and a reorg's
//! rollback; and the readers the server answers from (`chessref_index::read`) must
//! answer the same on both.

mod common;

use std::time::Duration;

use chessref_evm::{RpcChain, anvil::Anvil};
use chessref_index::db::{DbTarget, Sql};
use chessref_index::ratings;
use chessref_index::read::{self, Lobby, StateFilter};
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

/// Every reader answers the same on both indexes: the lobby under each filter and page,
/// every game in full, its feed and whether it is settled, every player and the
/// leaderboard, the health. Change numbers are compared as an order only (see TABLES).
fn assert_reads_same(lite: &DbTarget, pg: &DbTarget) {
    let mut a = read::open(lite).unwrap();
    let mut b = read::open(pg).unwrap();
    let all = Lobby {
        state: None,
        player: None,
        limit: 500,
        offset: 0,
    };
    let everything = a.lobby(&all).unwrap();
    assert!(!everything.games.is_empty(), "nothing to compare");
    let mut players: Vec<alloy_primitives::Address> = Vec::new();
    for game in &everything.games {
        for who in [&game.game.creator]
            .into_iter()
            .chain(game.game.white.as_ref())
            .chain(game.game.black.as_ref())
        {
            let who = who.parse().unwrap();
            if !players.contains(&who) {
                players.push(who);
            }
        }
    }
    let states = [
        None,
        Some(StateFilter::Open),
        Some(StateFilter::Running),
        Some(StateFilter::Ended),
    ];
    for state in states {
        for player in [None, players.first().copied()] {
            for (limit, offset) in [(500, 0), (1, 1)] {
                let query = Lobby {
                    state,
                    player,
                    limit,
                    offset,
                };
                let (mut x, mut y) = (a.lobby(&query).unwrap(), b.lobby(&query).unwrap());
                // Seconds since each indexer last polled: the two did not poll together.
                (x.head_age, y.head_age) = (None, None);
                assert_eq!(x, y, "lobby {query:?} (SQLite, then Postgres)");
            }
        }
    }
    let feed = |changes: Vec<read::Change>| -> Vec<(String, u32, u64)> {
        changes
            .into_iter()
            .map(|c| (c.kind, c.ply, c.block))
            .collect()
    };
    for game in &everything.games {
        let id = game.game.id.parse().unwrap();
        assert_eq!(a.game(id).unwrap(), b.game(id).unwrap(), "game {id}");
        assert!(a.game(id).unwrap().is_some());
        assert_eq!(a.settled(id).unwrap(), b.settled(id).unwrap(), "game {id}");
        let changes = b.changes(id, 0).unwrap();
        assert_eq!(feed(a.changes(id, 0).unwrap()), feed(changes.clone()));
        assert_eq!(
            b.last_change(id).unwrap(),
            changes.last().map_or(0, |c| c.seq),
            "game {id}'s last change on Postgres"
        );
        // Read on from the middle: what a stream resuming after an event gets.
        if let Some(middle) = changes.get(changes.len() / 2) {
            let rest = b.changes(id, middle.seq).unwrap();
            assert_eq!(rest, changes[changes.len() / 2 + 1..]);
        }
    }
    let every = |r: &mut read::Reader| -> Vec<(String, String, u32, u64)> {
        r.all_changes(0)
            .unwrap()
            .into_iter()
            .map(|(id, c)| (id.to_string(), c.kind, c.ply, c.block))
            .collect()
    };
    let changes = every(&mut b);
    assert_eq!(every(&mut a), changes);
    assert_eq!(
        b.latest_change().unwrap(),
        b.all_changes(0).unwrap().last().map_or(0, |(_, c)| c.seq)
    );
    assert!(!b.settled(alloy_primitives::U256::from(999_999u64)).unwrap());
    assert_eq!(
        b.game(alloy_primitives::U256::from(999_999u64)).unwrap(),
        None
    );
    for who in players {
        assert_eq!(a.player(who).unwrap(), b.player(who).unwrap(), "{who}");
    }
    for (limit, offset) in [(500, 0), (1, 1)] {
        assert_eq!(
            a.leaderboard(limit, offset).unwrap(),
            b.leaderboard(limit, offset).unwrap()
        );
    }
    assert_eq!(a.site().unwrap(), b.site().unwrap());
    let (mut x, mut y) = (a.health().unwrap(), b.health().unwrap());
    (x.updated_at, x.head_age, y.updated_at, y.head_age) = (None, None, None, None);
    assert_eq!(x, y, "health");
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
