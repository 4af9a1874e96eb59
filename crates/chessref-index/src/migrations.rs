//! The schema, as numbered migrations: migration `n` (1-based) takes a database from
//! `PRAGMA user_version = n - 1` to `n`, in one `IMMEDIATE` transaction. Opening a
//! database applies the missing ones; a database already at the newest version is left
//! alone, so opening is idempotent, also when two processes open a fresh file at once.
//! docs/INDEX.md describes the tables.

use rusqlite::{Connection, TransactionBehavior};

use crate::db::{Sql, SqliteRef};
use crate::error::{DbContext, IndexError, Result};

/// Every migration, in order. Never edit a published one: append a new one.
pub const MIGRATIONS: &[&str] = &[
    // 1: raw logs, recent blocks, the cursor, derived games/moves/divergences, changes.
    r#"
    CREATE TABLE source (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        chain_id INTEGER NOT NULL,
        referee TEXT NOT NULL,
        from_block INTEGER NOT NULL
    );
    CREATE TABLE cursor (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        block_number INTEGER NOT NULL,
        block_hash BLOB,
        final_block INTEGER NOT NULL,
        head INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE blocks (
        number INTEGER PRIMARY KEY,
        hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
        parent_hash BLOB NOT NULL CHECK (length(parent_hash) = 32),
        timestamp INTEGER NOT NULL
    );
    CREATE TABLE logs (
        block_number INTEGER NOT NULL,
        log_index INTEGER NOT NULL,
        block_hash BLOB NOT NULL CHECK (length(block_hash) = 32),
        tx_hash BLOB NOT NULL CHECK (length(tx_hash) = 32),
        game_id TEXT,
        topics BLOB NOT NULL CHECK (length(topics) % 32 = 0),
        data BLOB NOT NULL,
        PRIMARY KEY (block_number, log_index)
    ) WITHOUT ROWID;
    CREATE INDEX logs_by_game ON logs (game_id, block_number, log_index);
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        created_block INTEGER NOT NULL,
        created_log INTEGER NOT NULL,
        creator TEXT NOT NULL,
        opponent TEXT NOT NULL,
        creator_white INTEGER NOT NULL,
        white TEXT,
        black TEXT,
        token TEXT NOT NULL,
        stake TEXT NOT NULL,
        initial_time INTEGER NOT NULL,
        increment INTEGER NOT NULL,
        first_move_window INTEGER NOT NULL,
        phase TEXT NOT NULL CHECK (phase IN ('open', 'running', 'ended', 'cancelled')),
        result TEXT,
        reason TEXT,
        ply INTEGER NOT NULL,
        status TEXT NOT NULL,
        start_state TEXT NOT NULL,
        state TEXT NOT NULL,
        fen TEXT NOT NULL,
        history TEXT NOT NULL,
        clock TEXT,
        draw_offer TEXT,
        divergent INTEGER NOT NULL,
        updated_block INTEGER NOT NULL,
        pending INTEGER NOT NULL
    );
    CREATE INDEX games_by_phase ON games (phase, created_block, created_log);
    CREATE INDEX games_by_creator ON games (creator);
    CREATE INDEX games_by_opponent ON games (opponent);
    CREATE INDEX games_by_white ON games (white);
    CREATE INDEX games_by_black ON games (black);
    CREATE INDEX games_pending ON games (updated_block) WHERE pending = 1;
    CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        ply INTEGER NOT NULL,
        packed INTEGER NOT NULL,
        uci TEXT NOT NULL,
        san TEXT,
        status INTEGER NOT NULL,
        state TEXT NOT NULL,
        clock TEXT NOT NULL,
        block_number INTEGER NOT NULL,
        tx_hash TEXT NOT NULL,
        log_index INTEGER NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE divergences (
        id INTEGER PRIMARY KEY,
        game_id TEXT NOT NULL,
        event TEXT NOT NULL,
        block_number INTEGER NOT NULL,
        tx_hash TEXT NOT NULL,
        log_index INTEGER NOT NULL,
        what TEXT NOT NULL,
        expected TEXT NOT NULL,
        found TEXT NOT NULL,
        raw_topics TEXT NOT NULL,
        raw_data TEXT NOT NULL,
        detected_at INTEGER NOT NULL,
        UNIQUE (game_id, block_number, log_index, what)
    );
    CREATE TABLE changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        ply INTEGER NOT NULL,
        block_number INTEGER NOT NULL
    );
    CREATE INDEX changes_by_game ON changes (game_id, seq);
    "#,
    // 2: the relay's record of channel games (written by `chessref serve`, never by the
    // indexer): every signed message it accepted, numbered per game in arrival order.
    r#"
    CREATE TABLE relay_messages (
        game_id TEXT NOT NULL,
        seq INTEGER NOT NULL CHECK (seq >= 1),
        kind TEXT NOT NULL,
        ply INTEGER NOT NULL,
        received_at INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    "#,
    // 3: what the watchtower (`chessref watch`) sent, or tried to: one row per attempt.
    r#"
    CREATE TABLE watch_actions (
        id INTEGER PRIMARY KEY,
        game_id TEXT NOT NULL,
        registered_ply INTEGER NOT NULL,
        window_end INTEGER NOT NULL,
        call TEXT NOT NULL,
        why TEXT NOT NULL,
        tx_hash TEXT,
        block_number INTEGER,
        refused TEXT,
        at INTEGER NOT NULL,
        CHECK ((tx_hash IS NULL) = (refused IS NOT NULL))
    );
    CREATE INDEX watch_actions_by_game ON watch_actions (game_id, window_end);
    "#,
    // 4: the kept ratings (crate::ratings): every rated player's Glicko-2 rating and
    // record, and the games they count. Filled from the games already indexed in the
    // migration's own transaction ([`fill`]); kept by the indexer's writes since.
    r#"
    CREATE TABLE ratings (
        player TEXT PRIMARY KEY,
        rating DOUBLE PRECISION NOT NULL,
        deviation DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        draws INTEGER NOT NULL,
        losses INTEGER NOT NULL
    );
    CREATE INDEX ratings_by_rating ON ratings (rating DESC, player);
    CREATE TABLE rated_games (
        game_id TEXT PRIMARY KEY,
        block_number BIGINT NOT NULL,
        log_index BIGINT NOT NULL,
        white TEXT NOT NULL,
        black TEXT NOT NULL,
        outcome TEXT NOT NULL
    );
    CREATE INDEX rated_games_by_place ON rated_games (block_number, log_index);
    "#,
    // 5: knockout events (crate::tournament): the tournament's logs are stored in `logs`
    // beside the referee's (`emitter`, and the event they are about), and derived into
    // its events, their entrants and their matches.
    r#"
    ALTER TABLE logs ADD COLUMN emitter TEXT NOT NULL DEFAULT 'referee'
        CHECK (emitter IN ('referee', 'tournament'));
    ALTER TABLE logs ADD COLUMN tournament_id TEXT;
    CREATE INDEX logs_by_tournament ON logs (tournament_id, block_number, log_index);
    CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        organiser TEXT NOT NULL,
        token TEXT NOT NULL,
        fee TEXT NOT NULL,
        size INTEGER NOT NULL,
        initial_time INTEGER NOT NULL,
        increment INTEGER NOT NULL,
        first_move_window INTEGER NOT NULL,
        response_window INTEGER NOT NULL,
        deadline INTEGER NOT NULL,
        fee_bps INTEGER NOT NULL,
        split TEXT NOT NULL,
        abandon_after INTEGER NOT NULL,
        entrants INTEGER NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('open', 'drawing', 'running', 'finished', 'cancelled')),
        seed TEXT,
        winner TEXT,
        paid TEXT NOT NULL,
        created_block INTEGER NOT NULL,
        created_log INTEGER NOT NULL,
        finished_block INTEGER,
        updated_block INTEGER NOT NULL
    );
    CREATE INDEX tournaments_by_place ON tournaments (created_block, created_log);
    CREATE INDEX tournaments_by_organiser ON tournaments (organiser);
    CREATE TABLE tournament_entries (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        player TEXT NOT NULL,
        block_number INTEGER NOT NULL,
        log_index INTEGER NOT NULL,
        tier INTEGER,
        prize TEXT,
        claimed INTEGER NOT NULL,
        PRIMARY KEY (tournament_id, idx)
    ) WITHOUT ROWID;
    CREATE INDEX tournament_entries_by_player ON tournament_entries (player, tournament_id);
    CREATE TABLE tournament_matches (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        match_idx INTEGER NOT NULL,
        round INTEGER NOT NULL,
        white TEXT,
        black TEXT,
        game_id TEXT,
        status TEXT NOT NULL
            CHECK (status IN ('waiting', 'running', 'decided', 'lot', 'abandoned')),
        winner TEXT,
        how TEXT CHECK (how IN ('game', 'lot', 'walkover')),
        lot_block INTEGER,
        started_block INTEGER,
        decided_block INTEGER,
        PRIMARY KEY (tournament_id, match_idx)
    ) WITHOUT ROWID;
    CREATE INDEX tournament_matches_by_game ON tournament_matches (game_id);
    "#,
];

/// What migration `n` (1-based) computes beyond its SQL, in the migration's transaction,
/// on either backend ([`crate::db::pg_schema`] calls it too): a database indexed before
/// the kept ratings gets them from its games when it gains their tables (4).
pub fn fill(n: i64, db: &mut impl Sql) -> Result<()> {
    match n {
        4 => crate::ratings::rebuild(db),
        _ => Ok(()),
    }
}

/// The schema version this build writes: the number of migrations.
pub fn latest() -> i64 {
    MIGRATIONS.len() as i64
}

/// The database's `PRAGMA user_version`.
pub fn version(conn: &Connection, path: &str) -> Result<i64> {
    conn.query_row("PRAGMA user_version", [], |row| row.get(0))
        .db(path, "reading the schema version")
}

/// Applies the migrations `conn` lacks, each in its own `BEGIN IMMEDIATE` transaction
/// with its `user_version` bump; refuses a database newer than this build.
///
/// Any opener may migrate (the indexer, the relay, the watchtower), and two may open a
/// fresh file at once: each migration takes the write lock first and re-reads
/// `user_version` inside it, so the second opener finds the first one's work done
/// instead of creating the same tables again.
pub fn migrate(conn: &mut Connection, path: &str) -> Result<()> {
    let newer = |found| IndexError::NewerSchema {
        path: path.to_owned(),
        found,
        known: latest(),
    };
    // Versions only grow: a file already at this build's version needs no write lock.
    match version(conn, path)? {
        found if found > latest() => return Err(newer(found)),
        found if found == latest() => return Ok(()),
        _ => {}
    }
    loop {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .db(path, "starting a migration")?;
        let found = version(&tx, path)?.max(0);
        if found > latest() {
            return Err(newer(found));
        }
        let Some(sql) = MIGRATIONS.get(found as usize) else {
            return Ok(()); // up to date (the transaction rolls back: nothing written)
        };
        tx.execute_batch(sql).db(path, "applying a migration")?;
        fill(found + 1, &mut SqliteRef::new(path, &tx))?;
        tx.pragma_update(None, "user_version", found + 1)
            .db(path, "recording the schema version")?;
        tx.commit().db(path, "committing a migration")?;
    }
}
