//! The watchtower (`chessref watch`, docs/CHANNEL.md section 13): for every channel game
//! the relay holds messages of, it reads the game's frozen registration from the chain
//! and sends what chessref-client's [`watchtower::answer`] says, from its own account,
//! recording every attempt in the index file (`watch_actions`).
//!
//! It keeps no state it could lose: each round starts again from the chain and the
//! relay's messages, so a restart, or a reorg that drops one of its transactions, is met
//! by the next round answering again. Only an attempt the chain refused is not repeated
//! against the same registration.

use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use chessref_client::watchtower::{self, Answer, Frozen};
use chessref_evm::{Chain, EvmError, Referee, RpcChain};
use rusqlite::{OptionalExtension, params};

use crate::error::{DbContext, IndexError, Result};
use crate::relay::RelayStore;
use crate::store::{sql_int, unix_now};

/// Blocks per `eth_getLogs` when looking back for a registration.
const LOG_SPAN: u64 = 10_000;

/// What the watchtower did about one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// The game.
    pub game: U256,
    /// The registered ply it answered.
    pub registered_ply: u32,
    /// That registration's window end.
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
        write!(
            f,
            "game {} registered ply {}: {} ({})",
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
}

fn chain_error(e: impl std::fmt::Display) -> IndexError {
    IndexError::Invariant(format!("chain: {e}"))
}

impl Watchtower {
    /// A watchtower over the relay's messages in `store`, on `chain` (which must be the
    /// index's: same chain id), sending from `from`.
    pub fn new(mut chain: RpcChain, store: RelayStore, from: Address) -> Result<Watchtower> {
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
        })
    }

    /// One pass over every game the relay holds messages of: the actions taken.
    pub fn round(&mut self) -> Result<Vec<Action>> {
        let mut actions = Vec::new();
        for id in self.store.games()? {
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
        // Running (PHASE_RUNNING), with a registration (a window end).
        let status = self.referee.channel_status(id).map_err(chain_error)?;
        if info.phase != 2 || status.windowEnd == 0 {
            return Ok(None);
        }
        let Some((place, registered)) = self
            .referee
            .latest_registration_at(id, LOG_SPAN)
            .map_err(chain_error)?
        else {
            return Ok(None);
        };
        let input = self
            .referee
            .chain()
            .transaction_input(place.tx_hash)
            .map_err(chain_error)?;
        let frozen = Frozen {
            ply: status.registeredPly,
            window_end: status.windowEnd,
            position: registered.position,
            pair: input.and_then(|input| Frozen::pair_of(&input)),
        };
        if self.refused_before(id, &frozen)? {
            return Ok(None);
        }
        let now = self.referee.chain().timestamp().map_err(chain_error)?;
        let (book, _) = self.store.book(&game)?;
        let Some(answer) = watchtower::answer(book.transcript(), &frozen, now) else {
            return Ok(None);
        };
        let sent = match &answer {
            Answer::Channel(settlement) => self.referee.send_channel(self.from, settlement),
            Answer::Finish => self
                .referee
                .finish_registered(self.from, id, &frozen.position),
        };
        let outcome = match sent {
            Ok(acted) => Ok((
                acted.receipt.tx_hash.unwrap_or_default(),
                acted.receipt.block_number.unwrap_or_default(),
            )),
            Err(e @ EvmError::Reverted { .. }) => Err(e.to_string()),
            Err(e) => return Err(chain_error(e)),
        };
        Ok(Some(Action {
            game: id,
            registered_ply: frozen.ply,
            window_end: frozen.window_end,
            call: answer.call(),
            why: watchtower::describe(&answer),
            outcome,
        }))
    }

    /// Whether an answer to this very registration was refused by the chain before.
    fn refused_before(&self, id: U256, frozen: &Frozen) -> Result<bool> {
        let found: Option<i64> = self
            .store
            .connection()
            .query_row(
                "SELECT 1 FROM watch_actions WHERE game_id = ?1 AND window_end = ?2
                 AND registered_ply = ?3 AND tx_hash IS NULL LIMIT 1",
                params![
                    id.to_string(),
                    sql_int(frozen.window_end, "window end")?,
                    frozen.ply
                ],
                |row| row.get(0),
            )
            .optional()
            .db(self.store.path(), "reading watch actions")?;
        Ok(found.is_some())
    }

    fn record(&self, action: &Action) -> Result<()> {
        let (tx, block, refused) = match &action.outcome {
            Ok((tx, block)) => (Some(tx.to_string()), Some(*block as i64), None),
            Err(e) => (None, None, Some(e.clone())),
        };
        self.store
            .connection()
            .execute(
                "INSERT INTO watch_actions (game_id, registered_ply, window_end, call, why,
                 tx_hash, block_number, refused, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    action.game.to_string(),
                    action.registered_ply,
                    sql_int(action.window_end, "window end")?,
                    action.call,
                    action.why,
                    tx,
                    block,
                    refused,
                    unix_now()
                ],
            )
            .db(self.store.path(), "recording a watch action")?;
        Ok(())
    }
}
