//! One writer per role on a Postgres database: a session-level advisory lock
//! (`pg_try_advisory_lock(class, role)`) held on a connection of its own, outside any
//! pool (a pooled connection would go back to the pool still holding it). The server
//! releases it when that session ends, however it ends: the holder's process killed,
//! its connection cut, its backend terminated. A second writer polls until it is free,
//! so it takes over when the first one dies.
//!
//! The holder writes on that same session ([`PgWriterLock::conn`]): a holder whose
//! session ended cannot write another row, even between its last check and the next
//! write, while a successor already writes.
//!
//! The holder names itself in its connection's `application_name`; a refused writer
//! reads it back from `pg_stat_activity` to say who holds the lock.

use std::time::{Duration, Instant};

use chessref_evm::moment::rfc3339;
use postgres::NoTls;

use super::conn::{Conn, Sql};
use super::error::DbError;
use super::target::PgTarget;
use crate::error::{IndexError, Result};
use crate::store::unix_now;

/// The first key of every writer lock: "ches" in ASCII.
pub const LOCK_CLASS: i64 = 0x6368_6573;

/// Which writer a lock admits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `chessref index`: the index tables.
    Indexer,
    /// `chessref watch`: the watchtower's actions.
    Watchtower,
}

impl Role {
    /// The second key of the role's lock.
    pub fn key(self) -> i64 {
        match self {
            Role::Indexer => 1,
            Role::Watchtower => 2,
        }
    }

    /// The command that writes as this role.
    pub fn command(self) -> &'static str {
        match self {
            Role::Indexer => "chessref index",
            Role::Watchtower => "chessref watch",
        }
    }

    /// The name this process holds the role's lock as, what a refused writer is told:
    /// the command, its pid and when it asked.
    pub fn holder(self) -> String {
        format!(
            "{} pid {}, since {}",
            self.command(),
            std::process::id(),
            rfc3339(unix_now())
        )
    }
}

/// A held writer lock and the session holding it; released when dropped (the session
/// closes).
pub struct PgWriterLock {
    conn: Conn,
    role: Role,
}

impl std::fmt::Debug for PgWriterLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgWriterLock")
            .field("role", &self.role)
            .field("db", &self.conn.name())
            .finish()
    }
}

impl Drop for PgWriterLock {
    fn drop(&mut self) {
        // Released here, before the session closes: the server frees a closed session's
        // locks only once its backend has exited, a moment after the client is gone, and
        // a successor (the same process opening its store again) would be refused
        // meanwhile. A session already dead has nothing to release.
        let keys = [LOCK_CLASS, self.role.key()];
        let _ = self.conn.query_one(
            "SELECT pg_advisory_unlock(?1::int8::int4, ?2::int8::int4)",
            &[&keys[0], &keys[1]],
            "releasing the writer lock",
            |row| row.get::<bool>(0),
        );
    }
}

/// The lock's keys as `pg_locks` shows them (two int4 keys: `objsubid` 2).
const HELD_BY: &str = "l.locktype = 'advisory' AND l.classid::int8 = ?1 \
     AND l.objid::int8 = ?2 AND l.objsubid = 2 AND l.granted \
     AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())";

impl PgWriterLock {
    /// Takes `role`'s lock of `target` without waiting, as `holder` (the name others are
    /// told: say `chessref index pid N`): [`IndexError::HeldPg`] names the current
    /// holder when another session has it.
    pub fn try_acquire(target: &PgTarget, role: Role, holder: &str) -> Result<PgWriterLock> {
        let mut lock = PgWriterLock::connect(target, role, holder)?;
        if lock.try_lock()? {
            return Ok(lock);
        }
        Err(lock.held())
    }

    /// Takes `role`'s lock of `target`, polling every `poll` while another session holds
    /// it; after `give_up` (if any) without it, [`IndexError::HeldPg`].
    pub fn acquire_waiting(
        target: &PgTarget,
        role: Role,
        holder: &str,
        poll: Duration,
        give_up: Option<Duration>,
    ) -> Result<PgWriterLock> {
        PgWriterLock::connect(target, role, holder)?.wait(poll, give_up)
    }

    /// Takes `role`'s lock of `target` as this process ([`Role::holder`]), the way a
    /// writer starts: at once if it is free; held by another session, refused with
    /// [`IndexError::HeldPg`] naming the holder, unless `standby` gives a poll interval:
    /// then `on_wait` is told that refusal once and the lock polled for until the
    /// holder's session ends, so this writer takes over from one that died.
    pub fn take(
        target: &PgTarget,
        role: Role,
        standby: Option<Duration>,
        on_wait: impl FnOnce(&IndexError),
    ) -> Result<PgWriterLock> {
        let mut lock = PgWriterLock::connect(target, role, &role.holder())?;
        if lock.try_lock()? {
            return Ok(lock);
        }
        let held = lock.held();
        let Some(poll) = standby else {
            return Err(held);
        };
        on_wait(&held);
        lock.wait(poll, None)
    }

    /// Polls for the lock on this session every `poll`; after `give_up` (if any)
    /// without it, [`IndexError::HeldPg`].
    fn wait(mut self, poll: Duration, give_up: Option<Duration>) -> Result<PgWriterLock> {
        let start = Instant::now();
        loop {
            if self.try_lock()? {
                return Ok(self);
            }
            if give_up.is_some_and(|limit| start.elapsed() >= limit) {
                return Err(self.held());
            }
            std::thread::sleep(poll);
        }
    }

    /// Whether the lock is still held, on a live session: the holder asks before it
    /// writes, and stops with [`IndexError::LockLost`] if not.
    pub fn check(&mut self) -> Result<()> {
        let keys = [LOCK_CLASS, self.role.key()];
        let held = self.conn.query_one(
            &format!(
                "SELECT count(*) FROM pg_locks l WHERE l.pid = pg_backend_pid() AND {HELD_BY}"
            ),
            &[&keys[0], &keys[1]],
            "checking the writer lock",
            |row| row.get::<i64>(0),
        );
        match held {
            Ok(1) => Ok(()),
            Ok(_) => Err(self.lost("the session no longer holds it".to_owned())),
            Err(e) => Err(self.lost(e.detail)),
        }
    }

    /// The role this lock admits.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The session holding the lock: the holder's writes go through it, so they end
    /// with the lock.
    pub fn conn(&mut self) -> &mut Conn {
        &mut self.conn
    }

    fn connect(target: &PgTarget, role: Role, holder: &str) -> Result<PgWriterLock> {
        let mut config = target.config();
        config.application_name(holder);
        // A holder whose server vanished notices it (check() fails) within a minute.
        config.keepalives(true);
        config.keepalives_idle(Duration::from_secs(30));
        config.connect_timeout(Duration::from_secs(10));
        let client = config
            .connect(NoTls)
            .map_err(|e| DbError::new(target.shown(), "connecting for the writer lock", e))?;
        Ok(PgWriterLock {
            conn: Conn::postgres_session(target.shown(), client),
            role,
        })
    }

    fn try_lock(&mut self) -> Result<bool> {
        let keys = [LOCK_CLASS, self.role.key()];
        Ok(self.conn.query_one(
            // The keys are bound as BIGINT, the layer's one integer, and cast.
            "SELECT pg_try_advisory_lock(?1::int8::int4, ?2::int8::int4)",
            &[&keys[0], &keys[1]],
            "taking the writer lock",
            |row| row.get::<bool>(0),
        )?)
    }

    /// [`IndexError::HeldPg`] naming whoever holds the lock now.
    fn held(&mut self) -> IndexError {
        let keys = [LOCK_CLASS, self.role.key()];
        let holder = self
            .conn
            .query_opt(
                &format!(
                    "SELECT a.application_name, coalesce(host(a.client_addr), 'local socket'), \
                     a.pid::int8, to_char(a.backend_start AT TIME ZONE 'UTC', \
                     'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') \
                     FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE {HELD_BY}"
                ),
                &[&keys[0], &keys[1]],
                "naming the writer lock's holder",
                |row| {
                    let name = row.get::<Option<String>>(0)?;
                    let addr = row.get::<String>(1)?;
                    let pid = row.get::<i64>(2)?;
                    let since = row.get::<Option<String>>(3)?;
                    Ok(format!(
                        "{} from {addr}, server pid {pid}, connected since {}",
                        name.filter(|n| !n.is_empty())
                            .unwrap_or_else(|| "unnamed".into()),
                        since.unwrap_or_else(|| "unknown".into())
                    ))
                },
            )
            .ok()
            .flatten()
            // Released between the two queries, or not visible to this user.
            .unwrap_or_else(|| "holder unknown: it may have just released it".to_owned());
        IndexError::HeldPg {
            db: self.conn.name().to_owned(),
            role: self.role.command().to_owned(),
            holder,
        }
    }

    fn lost(&self, why: String) -> IndexError {
        IndexError::LockLost {
            db: self.conn.name().to_owned(),
            role: self.role.command().to_owned(),
            why,
        }
    }
}
