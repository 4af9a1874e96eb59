//! Two indexes of one chain compared, a SQLite one and a Postgres one: every derived
//! table row by row, and every reader's answer (what the server serves).
#![allow(dead_code)]

use chessref_index::Store;
use chessref_index::db::{DbTarget, Sql};
use chessref_index::ratings;
use chessref_index::read::{self, Lobby, StateFilter};

/// Every derived table with the columns compared (as text: the one kind both backends
/// cast every value to) and its order; timestamps of the indexing itself are left out.
pub const TABLES: &[(&str, &str, &str)] = &[
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

/// `table`'s `columns`, each as text, in `order`.
pub fn dump(
    store: &mut Store,
    table: &str,
    columns: &str,
    order: &str,
) -> Vec<Vec<Option<String>>> {
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

/// The kept ratings and every table of [`TABLES`] are the same in both stores.
pub fn assert_same(lite: &mut Store, pg: &mut Store) {
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
pub fn assert_reads_same(lite: &DbTarget, pg: &DbTarget) {
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
