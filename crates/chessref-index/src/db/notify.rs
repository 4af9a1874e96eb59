//! Postgres's LISTEN/NOTIFY between the processes sharing one database: a writer's
//! transaction queues a notice (`pg_notify(channel, payload)`), which the server
//! delivers to every session listening on the channel when, and only if, that
//! transaction commits. A [`Listener`] is one such session, outside any pool (a pooled
//! connection would go back to the pool still listening, and its notices to whoever
//! takes it next).
//!
//! Notices are a wake-up, not a record: a listener whose session ended misses those sent
//! meanwhile, so whoever listens reads the tables again after every (re)connection.

use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls};

use super::error::{DbError, DbResult};
use super::target::PgTarget;

/// A session listening on one channel.
pub struct Listener {
    client: Client,
    db: String,
    channel: &'static str,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener")
            .field("db", &self.db)
            .field("channel", &self.channel)
            .finish()
    }
}

impl Listener {
    /// A new session of `target`, named `name` (its `application_name`), listening on
    /// `channel` (a plain identifier: it is written into the statement).
    pub fn connect(target: &PgTarget, channel: &'static str, name: &str) -> DbResult<Listener> {
        debug_assert!(channel.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        let db = target.shown().to_owned();
        let mut config = target.config();
        config.application_name(name);
        // A server gone silent is noticed by the keepalives, not only at the next write.
        config.keepalives(true);
        config.keepalives_idle(Duration::from_secs(10));
        config.connect_timeout(Duration::from_secs(10));
        let mut client = config
            .connect(NoTls)
            .map_err(|e| DbError::new(&db, "connecting to listen for notices", e))?;
        client
            .batch_execute(&format!("LISTEN {channel}"))
            .map_err(|e| DbError::new(&db, "listening for notices", e))?;
        Ok(Listener {
            client,
            db,
            channel,
        })
    }

    /// The payloads of the notices that came, waiting up to `timeout` for the first (an
    /// empty list: none came). `Err`: the session ended; connect again, and read again
    /// what the notices would have said.
    pub fn wait(&mut self, timeout: Duration) -> DbResult<Vec<String>> {
        let mut payloads = Vec::new();
        {
            let mut notifications = self.client.notifications();
            let first = notifications
                .timeout_iter(timeout)
                .next()
                .map_err(|e| DbError::new(&self.db, "waiting for notices", e))?;
            if let Some(notice) = first {
                payloads.push(notice.payload().to_owned());
            }
            // Whatever came with it, without waiting again.
            let mut rest = notifications.iter();
            while let Some(notice) = rest
                .next()
                .map_err(|e| DbError::new(&self.db, "reading notices", e))?
            {
                payloads.push(notice.payload().to_owned());
            }
        }
        if payloads.is_empty() {
            // A quiet channel says nothing of the session: ask the server, so that one
            // that died is reported within a wait, not at the next notice that never comes.
            self.client
                .is_valid(Duration::from_secs(10))
                .map_err(|e| DbError::new(&self.db, "checking the listening session", e))?;
        }
        Ok(payloads)
    }

    /// The channel listened on.
    pub fn channel(&self) -> &'static str {
        self.channel
    }
}
