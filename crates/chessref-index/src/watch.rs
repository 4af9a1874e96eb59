//! The watchtower (`chessref watch`, docs/CHANNEL.md section 13): for every channel game
//! the relay holds messages of, it reads the game's frozen registration from the chain
//! and sends what chessref-client's [`watchtower::answer`] says; while the game is
//! off-chain, it announces a move the opponent has not acknowledged
//! ([`watchtower::announcement`]). From its own account, with the clients' priority fee
//! ([`AUTO_REGISTER_TIP`]), recording every attempt in the index file (`watch_actions`).
//!
//! It keeps no state it could lose: each round starts again from the chain and the
//! relay's messages, so a restart, or a reorg that drops one of its transactions, is met
//! by the next round answering again (a move is announced until the chain shows it). Only
//! an attempt the chain refused is not repeated against the same registration, or for the
//! same move.

use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use chessref_channel::messages::Message;
use chessref_channel::{AUTO_REGISTER_TIP, Book, Frame};
use chessref_client::shown::{self, Frozen};
use chessref_client::watchtower::{self, Answer};
use chessref_evm::{Chain, EvmError, Referee, RpcChain};

use crate::db::{PgWriterLock, Role, Sql};
use crate::error::{IndexError, Result};
use crate::relay::{RelayStore, StoredMessage};
use crate::store::{sql_int, unix_now};

/// What the watchtower did about one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// The game.
    pub game: U256,
    /// The registered ply it answered (for an `announce`, the ply of the move announced).
    pub registered_ply: u32,
    /// That registration's window end (0 for an `announce`: the game was off-chain).
    pub window_end: u64,
    /// The function sent.
    pub call: &'static str,
    /// Why.
    pub why: String,
    /// The transaction and its block, or why the chain refused it.
    pub outcome: std::result::Result<(B256, u64), String>,
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.call == "announce" {
            "off-chain, ply"
        } else {
            "registered ply"
        };
        write!(
            f,
            "game {} {what} {}: {} ({})",
            self.game, self.registered_ply, self.call, self.why
        )?;
        match &self.outcome {
            Ok((tx, block)) => write!(f, ": tx {tx} in block {block}"),
            Err(e) => write!(f, ": refused: {e}"),
        }
    }
}

/// The watchtower of one referee, sending from `from`.
#[derive(Debug)]
pub struct Watchtower {
    referee: Referee<RpcChain>,
    store: RelayStore,
    from: Address,
    /// On Postgres, the one watchtower's lock of the database: checked before each round
    /// and each record, which is written on its session.
    lock: Option<PgWriterLock>,
}

fn chain_error(e: impl std::fmt::Display) -> IndexError {
    IndexError::Invariant(format!("chain: {e}"))
}

impl Watchtower {
    /// A watchtower over the relay's messages in `store`, on `chain` (which must be the
    /// index's: same chain id), sending from `from`.
    pub fn new(mut chain: RpcChain, mut store: RelayStore, from: Address) -> Result<Watchtower> {
        let source = store.source()?.ok_or_else(|| {
            IndexError::Invariant(format!(
                "{}: the index follows no referee yet (run chessref index first)",
                store.path()
            ))
        })?;
        let chain_id = chain.chain_id().map_err(chain_error)?;
        if chain_id != source.chain_id {
            return Err(IndexError::Invariant(format!(
                "the node is chain {chain_id}, the index {} follows {source}",
                store.path()
            )));
        }
        Ok(Watchtower {
            referee: Referee::at(chain, source.referee),
            store,
            from,
            lock: None,
        })
    }

    /// The watchtower holding `lock` (the database's [`Role::Watchtower`] lock, from
    /// [`PgWriterLock::take`]): one watchtower acts on a database at a time.
    /// It stops with [`IndexError::LockLost`] once the lock's session ends, before it
    /// sends or records anything more.
    pub fn holding(mut self, lock: PgWriterLock) -> Result<Watchtower> {
        if lock.role() != Role::Watchtower {
            return Err(IndexError::Invariant(format!(
                "the watchtower was handed the {} lock, not the chessref watch one",
                lock.role().command()
            )));
        }
        self.lock = Some(lock);
        Ok(self)
    }

    /// Whether this watchtower may act: without a lock (SQLite: one file, one host) it
    /// may; with one, while it holds it.
    fn check_lock(&mut self) -> Result<()> {
        match &mut self.lock {
            Some(lock) => lock.check(),
            None => Ok(()),
        }
    }

    /// One pass over every game the relay holds messages of: the actions taken.
    pub fn round(&mut self) -> Result<Vec<Action>> {
        // Here too, so that a watchtower that lost its lock stops with no game to act on.
        self.check_lock()?;
        let mut actions = Vec::new();
        for id in self.store.games()? {
            // Before each game: its answer may send a transaction.
            self.check_lock()?;
            if let Some(action) = self.answer(id)? {
                self.record(&action)?;
                actions.push(action);
            }
        }
        Ok(actions)
    }

    /// Rounds every `poll` until `stop` says so, each action passed to `on_action`; a
    /// failing node is retried (said on stderr) rather than fatal.
    pub fn run(
        &mut self,
        poll: Duration,
        stop: impl Fn() -> bool,
        mut on_action: impl FnMut(&Action),
    ) -> Result<()> {
        while !stop() {
            match self.round() {
                Ok(actions) => actions.iter().for_each(&mut on_action),
                Err(IndexError::Invariant(e)) if e.starts_with("chain: ") => {
                    eprintln!("chessref watch: {e}; retrying");
                }
                Err(e) => return Err(e),
            }
            std::thread::sleep(poll);
        }
        Ok(())
    }

    /// What to do about game `id` now, done.
    fn answer(&mut self, id: U256) -> Result<Option<Action>> {
        let Ok(game) = self.store.game(id)? else {
            return Ok(None);
        };
        let info = self.referee.game(id).map_err(chain_error)?;
        if info.phase != 2 {
            return Ok(None);
        }
        let frozen = Frozen::read(&mut self.referee, id).map_err(chain_error)?;
        let (book, held) = self.store.book(&game)?;
        let Some(frozen) = frozen else {
            return self.announce(id, &book, &held);
        };
        if self.refused_before(id, frozen.window_end, frozen.ply)? {
            return Ok(None);
        }
        let now = self.referee.chain().timestamp().map_err(chain_error)?;
        let Some(answer) = watchtower::answer(book.transcript(), &frozen, now) else {
            return Ok(None);
        };
        let sent = match &answer {
            Answer::Channel(settlement) => {
                self.referee
                    .send_channel_paying(self.from, settlement, Some(AUTO_REGISTER_TIP))
            }
            Answer::Finish => self
                .referee
                .finish_registered(self.from, id, &frozen.position),
        };
        Ok(Some(Action {
            game: id,
            registered_ply: frozen.ply,
            window_end: frozen.window_end,
            call: answer.call(),
            why: watchtower::describe(&answer),
            outcome: outcome(sent)?,
        }))
    }

    /// Off-chain: announces the latest move of game `id` (whose relayed messages are `held`,
    /// making `book`) if its opponent has not acknowledged it in time and the chain does not
    /// show it yet.
    fn announce(
        &mut self,
        id: U256,
        book: &Book,
        held: &[(StoredMessage, Frame)],
    ) -> Result<Option<Action>> {
        let t = book.transcript();
        let Some(last) = t.moves.last() else {
            return Ok(None);
        };
        let relayed_at = held.iter().rev().find_map(|(stored, frame)| match frame {
            Frame::Move(m) if m.ply == last.ply => Some(stored.received_at),
            _ => None,
        });
        let Some(relayed_at) = relayed_at else {
            return Ok(None);
        };
        let Some(settlement) =
            watchtower::announcement(t, relayed_at, chessref_client::seat::unix_now())
        else {
            return Ok(None);
        };
        let hash = last.message().hash();
        if shown::announced_at(&mut self.referee, hash).map_err(chain_error)? != 0
            || self.refused_before(id, 0, last.ply)?
        {
            return Ok(None);
        }
        let sent =
            self.referee
                .send_channel_paying(self.from, &settlement, Some(AUTO_REGISTER_TIP));
        Ok(Some(Action {
            game: id,
            registered_ply: last.ply,
            window_end: 0,
            call: settlement.call,
            why: format!("ChessChannel.announce: {}", settlement.why),
            outcome: outcome(sent)?,
        }))
    }

    /// Whether an answer to the registration of ply `ply` whose window ends at `window_end`
    /// (for an announcement: of the move of ply `ply`, `window_end` 0) was refused by the
    /// chain before.
    fn refused_before(&mut self, id: U256, window_end: u64, ply: u32) -> Result<bool> {
        let found = self.store.db().query_opt(
            "SELECT 1 FROM watch_actions WHERE game_id = ?1 AND window_end = ?2
             AND registered_ply = ?3 AND tx_hash IS NULL LIMIT 1",
            &[
                &id.to_string(),
                &sql_int(window_end, "window end")?,
                &i64::from(ply),
            ],
            "reading watch actions",
            |_| Ok(()),
        )?;
        Ok(found.is_some())
    }

    /// Records `action` (on Postgres, on the lock's session, once the lock is checked:
    /// a watchtower that lost it records nothing more).
    fn record(&mut self, action: &Action) -> Result<()> {
        let (tx, block, refused) = match &action.outcome {
            Ok((tx, block)) => (Some(tx.to_string()), Some(sql_int(*block, "block")?), None),
            Err(e) => (None, None, Some(e.clone())),
        };
        self.check_lock()?;
        let db = match &mut self.lock {
            Some(lock) => lock.conn(),
            None => self.store.db(),
        };
        db.execute(
            "INSERT INTO watch_actions (game_id, registered_ply, window_end, call, why,
             tx_hash, block_number, refused, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            &[
                &action.game.to_string(),
                &i64::from(action.registered_ply),
                &sql_int(action.window_end, "window end")?,
                &action.call,
                &action.why,
                &tx,
                &block,
                &refused,
                &unix_now(),
            ],
            "recording a watch action",
        )?;
        Ok(())
    }
}

/// What the chain made of a transaction: its hash and block, or why it refused it (an
/// error of the node is the round's).
fn outcome(
    sent: std::result::Result<chessref_evm::Acted, EvmError>,
) -> Result<std::result::Result<(B256, u64), String>> {
    match sent {
        Ok(acted) => Ok(Ok((
            acted.receipt.tx_hash.unwrap_or_default(),
            acted.receipt.block_number.unwrap_or_default(),
        ))),
        Err(e @ EvmError::Reverted { .. }) => Ok(Err(e.to_string())),
        Err(e) => Err(chain_error(e)),
    }
}
