//! The store's database layer on both backends, each test run on a SQLite file and on a
//! throwaway Postgres server (chessref-pgtest): the same SQL, the same values back, the
//! same schema, one migration when several open a fresh database at once.

use std::collections::BTreeSet;

use chessref_index::IndexError;
use chessref_index::db::{Database, DbTarget, Sql, pg_schema};
use chessref_index::migrations;
use chessref_pgtest::TempPostgres;

/// A SQLite file in a fresh temporary directory (removed with it).
fn sqlite() -> (tempfile::TempDir, DbTarget) {
    let dir = tempfile::tempdir().unwrap();
    let target = DbTarget::Sqlite(dir.path().join("index.sqlite"));
    (dir, target)
}

fn postgres(pg: &TempPostgres) -> DbTarget {
    pg.url().parse().unwrap()
}

/// Runs `check` on a fresh SQLite database and on a fresh Postgres one.
fn on_both(check: impl Fn(&Database)) {
    let (_dir, target) = sqlite();
    check(&Database::open(&target, 2).unwrap());
    let pg = TempPostgres::start().unwrap();
    check(&Database::open(&postgres(&pg), 2).unwrap());
}

#[test]
fn test_values_round_trip_through_sql_written_once() {
    on_both(|db| {
        let mut conn = db.connect().unwrap();
        let hash = vec![7u8; 32];
        let n = conn
            .execute(
                "INSERT INTO blocks (number, hash, parent_hash, timestamp) VALUES (?1, ?2, ?3, ?4)",
                &[&41i64, &hash, &vec![0u8; 32], &1_700_000_000i64],
                "storing a block",
            )
            .unwrap();
        assert_eq!(n, 1, "{}", db.name());
        conn.execute(
            "INSERT INTO cursor (id, block_number, block_hash, final_block, head, updated_at) \
             VALUES (1, ?1, ?2, ?3, ?3, ?4)",
            &[&42i64, &None::<Vec<u8>>, &40i64, &i64::MAX],
            "storing the cursor",
        )
        .unwrap();
        let block = conn
            .query_one(
                "SELECT number, hash, timestamp FROM blocks WHERE hash = ?1",
                &[&hash.as_slice()],
                "reading a block",
                |row| {
                    Ok((
                        row.get::<i64>(0)?,
                        row.get::<Vec<u8>>(1)?,
                        row.get::<i64>(2)?,
                    ))
                },
            )
            .unwrap();
        assert_eq!(block, (41, hash.clone(), 1_700_000_000));
        let cursor = conn
            .query_one(
                "SELECT block_number, block_hash, updated_at FROM cursor",
                &[],
                "reading the cursor",
                |row| {
                    Ok((
                        row.get::<i64>(0)?,
                        row.get::<Option<Vec<u8>>>(1)?,
                        row.get::<i64>(2)?,
                    ))
                },
            )
            .unwrap();
        assert_eq!(cursor, (42, None, i64::MAX));
        // Text, with a '?1' inside a literal that must stay as it is.
        conn.execute(
            "INSERT INTO relay_messages (game_id, seq, kind, ply, received_at, body) \
             VALUES (?1, ?2, 'kind ?1', ?3, ?3, ?4)",
            &[&"0xabc", &1i64, &5i64, &String::from("{\"é\": \"?2\"}")],
            "storing a message",
        )
        .unwrap();
        let rows = conn
            .query(
                "SELECT kind, body, game_id FROM relay_messages WHERE game_id = ?1 AND ply >= ?2",
                &[&"0xabc", &0i64],
                "reading messages",
                |row| {
                    Ok((
                        row.get::<String>(0)?,
                        row.get::<String>(1)?,
                        row.get::<String>(2)?,
                    ))
                },
            )
            .unwrap();
        assert_eq!(
            rows,
            vec![("kind ?1".into(), "{\"é\": \"?2\"}".into(), "0xabc".into())]
        );
        let absent = conn
            .query_opt(
                "SELECT number FROM blocks WHERE number = ?1",
                &[&7i64],
                "looking for a block",
                |row| row.get::<i64>(0),
            )
            .unwrap();
        assert_eq!(absent, None);
        // A NULL read as a plain value is an error naming the operation.
        let err = conn
            .query_one(
                "SELECT block_hash FROM cursor",
                &[],
                "reading the hash",
                |row| row.get::<Vec<u8>>(0),
            )
            .unwrap_err();
        assert_eq!(err.doing, "reading the hash");
        assert_eq!(err.db, db.name());
    });
}

#[test]
fn test_transactions_commit_or_roll_back_on_drop() {
    on_both(|db| {
        let mut conn = db.connect().unwrap();
        let insert = "INSERT INTO changes (game_id, kind, ply, block_number) VALUES (?1, ?2, 0, 1)";
        {
            let mut tx = conn.transaction().unwrap();
            tx.execute(insert, &[&"g1", &"created"], "noting a change")
                .unwrap();
            // dropped without commit
        }
        let mut tx = conn.transaction().unwrap();
        tx.execute(insert, &[&"g2", &"created"], "noting a change")
            .unwrap();
        tx.commit().unwrap();
        let games = conn
            .query(
                "SELECT game_id, seq FROM changes",
                &[],
                "reading changes",
                |row| Ok((row.get::<String>(0)?, row.get::<i64>(1)?)),
            )
            .unwrap();
        assert_eq!(games.len(), 1, "{}: {games:?}", db.name());
        assert_eq!(games[0].0, "g2");
        assert!(
            games[0].1 >= 1,
            "an identity/rowid key is assigned: {games:?}"
        );
    });
}

#[test]
fn test_constraints_hold_and_errors_name_database_and_operation() {
    on_both(|db| {
        let mut conn = db.connect().unwrap();
        // CHECK (length(hash) = 32) on both backends.
        let err = conn
            .execute(
                "INSERT INTO blocks (number, hash, parent_hash, timestamp) VALUES (1, ?1, ?1, 0)",
                &[&vec![1u8; 31]],
                "storing a short hash",
            )
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("database {}: storing a short hash: ", db.name())),
            "{text}"
        );
        assert!(
            text.to_lowercase().contains("check constraint"),
            "the constraint is named: {text}"
        );
        // The phase CHECK, and a syntax error's message reaches the caller.
        let err = conn.batch("SELEC 1", "a typo").unwrap_err();
        assert!(err.to_string().contains("syntax error"), "{err}");
    });
}

#[test]
fn test_postgres_errors_never_show_the_password() {
    let pg = TempPostgres::start().unwrap();
    let url = format!(
        "postgres://{}:hunter2@127.0.0.1:{}/absent",
        chessref_pgtest::SUPERUSER,
        pg.port()
    );
    let target: DbTarget = url.parse().unwrap();
    let err = Database::open(&target, 1).unwrap_err();
    let text = err.to_string();
    assert!(!text.contains("hunter2"), "{text}");
    assert!(!format!("{err:?}").contains("hunter2"), "{err:?}");
    let shown = format!("postgres://chessref@127.0.0.1:{}/absent", pg.port());
    assert!(text.contains(&shown), "{text}");
    assert!(
        text.contains("database \"absent\" does not exist"),
        "{text}"
    );
}

/// Each table's columns as (name, kind, nullable), and the explicit index names.
type Shape = (BTreeSet<(String, String, String, bool)>, BTreeSet<String>);

fn sqlite_shape(db: &Database) -> Shape {
    let mut conn = db.connect().unwrap();
    let columns = conn
        .query(
            "SELECT m.name, p.name, p.type, p.\"notnull\", p.pk FROM sqlite_master m \
             JOIN pragma_table_info(m.name) p WHERE m.type = 'table' \
             AND m.name NOT LIKE 'sqlite_%'",
            &[],
            "reading the schema",
            |row| {
                let kind = match row.get::<String>(2)?.as_str() {
                    "INTEGER" | "BIGINT" => "integer",
                    "DOUBLE PRECISION" => "float",
                    "TEXT" => "text",
                    "BLOB" => "bytes",
                    other => panic!("unexpected SQLite type {other}"),
                };
                // A primary key column is never NULL (SQLite allows it only in rowid
                // tables' non-INTEGER keys, which this schema does not have).
                let nullable = row.get::<i64>(3)? == 0 && row.get::<i64>(4)? == 0;
                Ok((row.get(0)?, row.get(1)?, kind.to_owned(), nullable))
            },
        )
        .unwrap();
    let indexes = conn
        .query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL",
            &[],
            "reading the indexes",
            |row| row.get::<String>(0),
        )
        .unwrap();
    (columns.into_iter().collect(), indexes.into_iter().collect())
}

fn postgres_shape(db: &Database) -> Shape {
    let mut conn = db.connect().unwrap();
    let columns = conn
        .query(
            "SELECT table_name::text, column_name::text, data_type::text, is_nullable::text \
             FROM information_schema.columns WHERE table_schema = current_schema() \
             AND table_name <> 'chessref_schema'",
            &[],
            "reading the schema",
            |row| {
                let kind = match row.get::<String>(2)?.as_str() {
                    "bigint" => "integer",
                    "double precision" => "float",
                    "text" => "text",
                    "bytea" => "bytes",
                    other => panic!("unexpected Postgres type {other}"),
                };
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    kind.to_owned(),
                    row.get::<String>(3)? == "YES",
                ))
            },
        )
        .unwrap();
    // Postgres names the indexes behind PRIMARY KEY and UNIQUE itself; SQLite keeps
    // those without SQL text (left out above).
    let indexes = conn
        .query(
            "SELECT i.indexname::text FROM pg_indexes i WHERE i.schemaname = current_schema() \
             AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)",
            &[],
            "reading the indexes",
            |row| row.get::<String>(0),
        )
        .unwrap();
    (columns.into_iter().collect(), indexes.into_iter().collect())
}

#[test]
fn test_both_schemas_have_the_same_tables_columns_and_indexes() {
    assert_eq!(
        pg_schema::PG_MIGRATIONS.len(),
        migrations::MIGRATIONS.len(),
        "every SQLite migration needs its Postgres text in db/pg_schema.rs"
    );
    let (_dir, target) = sqlite();
    let lite = sqlite_shape(&Database::open(&target, 1).unwrap());
    let pg = TempPostgres::start().unwrap();
    let post = postgres_shape(&Database::open(&postgres(&pg), 1).unwrap());
    assert!(lite.0.len() > 50, "the SQLite schema was read: {lite:?}");
    let only_lite: Vec<_> = lite.0.difference(&post.0).collect();
    let only_pg: Vec<_> = post.0.difference(&lite.0).collect();
    assert!(
        only_lite.is_empty() && only_pg.is_empty(),
        "columns differ:\n only SQLite: {only_lite:?}\n only Postgres: {only_pg:?}"
    );
    assert!(lite.1.len() >= 9, "{:?}", lite.1);
    assert_eq!(lite.1, post.1, "explicit indexes differ");
}

#[test]
fn test_fresh_postgres_opened_by_many_at_once_is_migrated_once() {
    let pg = TempPostgres::start().unwrap();
    let target = postgres(&pg);
    let barrier = std::sync::Barrier::new(6);
    std::thread::scope(|s| {
        let openers: Vec<_> = (0..6)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    Database::open(&target, 1).map(|_| ())
                })
            })
            .collect();
        for opener in openers {
            opener.join().unwrap().unwrap();
        }
    });
    let db = Database::open(&target, 1).unwrap();
    let mut conn = db.connect().unwrap();
    assert_eq!(pg_schema::version(&mut conn).unwrap(), pg_schema::latest());
    let rows = conn
        .query_one(
            "SELECT count(*) FROM chessref_schema",
            &[],
            "counting",
            |row| row.get::<i64>(0),
        )
        .unwrap();
    assert_eq!(rows, 1);
}

#[test]
fn test_a_newer_postgres_schema_is_refused() {
    let pg = TempPostgres::start().unwrap();
    let target = postgres(&pg);
    let db = Database::open(&target, 1).unwrap();
    let newer = pg_schema::latest() + 1;
    db.connect()
        .unwrap()
        .execute(
            "UPDATE chessref_schema SET version = ?1",
            &[&newer],
            "pretending to be newer",
        )
        .unwrap();
    match Database::open(&target, 1) {
        Err(IndexError::NewerSchema { found, known, .. }) => {
            assert_eq!((found, known), (newer, pg_schema::latest()));
        }
        other => panic!("a newer schema was not refused: {other:?}"),
    }
}
