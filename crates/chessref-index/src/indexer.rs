//! The follower: back-fills the referee's logs in bounded `eth_getLogs` ranges, then
//! polls the head; checks the non-final tip's hashes on every step and rolls back to the
//! common ancestor when the chain reorganised. A node that does not answer in time is
//! waited for, backing off ([`Indexer::run`]), never a reason to stop.

use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256};
use chessref_evm::{ChainError, RpcChain};

use crate::error::{IndexError, Result};
use crate::raw::{BlockRef, RawLog};
use crate::store::{Batch, Committed, Source, Store};

/// How the indexer follows the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Blocks at least this deep under the head are final.
    pub confirmations: u64,
    /// Largest `eth_getLogs` range, in blocks (halved while the node refuses it).
    pub batch_blocks: u64,
    /// Pause between polls once caught up.
    pub poll: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            confirmations: 12,
            batch_blocks: 2_000,
            poll: Duration::from_millis(250),
        }
    }
}

/// What one [`Indexer::step`] did.
#[derive(Clone, Debug, Default)]
pub struct Step {
    /// The blocks indexed, if any.
    pub indexed: Option<(u64, u64)>,
    /// Logs stored.
    pub logs: usize,
    /// The common ancestor rolled back to, after a reorg.
    pub rolled_back_to: Option<u64>,
    /// The `eth_getLogs` range was refused and halved to this many blocks.
    pub range_halved: Option<u64>,
    /// The chain moved under the step (a block's parent or a log's block hash did not
    /// match); nothing was stored, the next step retries.
    pub raced: bool,
    /// Whether the index reached the head.
    pub caught_up: bool,
    /// The chain head seen.
    pub head: u64,
    /// What the commit or rollback changed.
    pub committed: Committed,
    /// The node did not answer in time: nothing was done, [`Indexer::run`] tries again.
    pub stalled: Option<Stall>,
}

/// A step the node did not answer in time ([`is_retriable`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    /// The error, naming the endpoint and the request ("the node at URL did not answer
    /// eth_blockNumber within 10 s").
    pub error: String,
    /// How long [`Indexer::run`] waits before the next try (doubling from
    /// [`RETRY_FIRST`] to [`RETRY_MAX`] while the node stays silent).
    pub retry_in: Duration,
    /// How long since the node last answered a whole step: how stale the index may be.
    pub behind: Duration,
}

/// The first pause after a step the node did not answer in time.
pub const RETRY_FIRST: Duration = Duration::from_secs(1);
/// The longest pause between tries while the node stays silent.
pub const RETRY_MAX: Duration = Duration::from_secs(30);

/// Whether [`Indexer::run`] retries after `error` rather than stopping: the node did not
/// answer in time ([`ChainError::Timeout`]); it may answer the next try.
pub fn is_retriable(error: &IndexError) -> bool {
    matches!(error, IndexError::Chain(error) if error.is_timeout())
}

/// Follows one referee into one [`Store`].
#[derive(Debug)]
pub struct Indexer {
    chain: RpcChain,
    store: Store,
    source: Source,
    options: Options,
    batch_blocks: u64,
    /// When the node last answered a whole step (or [`Indexer::new`]'s chain id).
    answered: Instant,
}

/// Whether a node's error says the `eth_getLogs` range or its result is too large
/// (providers word it differently: "query returned more than 10000 results", "block
/// range is too wide", "exceed maximum block range", "limit exceeded", code -32005).
pub fn is_range_limit(error: &ChainError) -> bool {
    let ChainError::Rpc { message, .. } = error else {
        return false;
    };
    let message = message.to_ascii_lowercase();
    [
        "range",
        "too many",
        "too large",
        "more than",
        "limit",
        "exceed",
        "-32005",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

impl Indexer {
    /// An indexer of `referee` on `chain` into `store`, from `from_block` on a fresh
    /// database (a used one resumes at its cursor and must follow the same referee).
    pub fn new(
        mut chain: RpcChain,
        mut store: Store,
        referee: Address,
        from_block: u64,
        options: Options,
    ) -> Result<Indexer> {
        use chessref_evm::Chain;
        let chain_id = chain.chain_id()?;
        let source = store.bind(Source {
            chain_id,
            referee,
            from_block,
        })?;
        Ok(Indexer {
            chain,
            store,
            source,
            options,
            batch_blocks: options.batch_blocks.max(1),
            answered: Instant::now(),
        })
    }

    /// What the database follows.
    pub fn source(&self) -> Source {
        self.source
    }

    /// The database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The current `eth_getLogs` range, in blocks.
    pub fn batch_blocks(&self) -> u64 {
        self.batch_blocks
    }

    /// How long since the node last answered a whole step of [`Indexer::run`] (or the
    /// chain id when this indexer was made): how stale the index may be.
    pub fn behind(&self) -> Duration {
        self.answered.elapsed()
    }

    fn block(&self, number: u64) -> Result<Option<BlockRef>> {
        Ok(self.chain.block_ref(number)?)
    }

    /// Compares the stored non-final tip with the chain; after a reorg, rolls back to
    /// the highest block both agree on. Returns that ancestor's number.
    fn check_tip(&mut self) -> Result<Option<(u64, Committed)>> {
        let stored = self.store.recent_blocks()?;
        let Some(tip) = stored.first() else {
            return Ok(None);
        };
        // One hash commits to all its ancestors: an unchanged tip means no reorg.
        if self.block(tip.number)?.map(|b| b.hash) == Some(tip.hash) {
            return Ok(None);
        }
        for block in &stored[1..] {
            if self.block(block.number)?.map(|b| b.hash) == Some(block.hash) {
                let committed = self.store.rollback(*block)?;
                return Ok(Some((block.number, committed)));
            }
        }
        let deepest = stored.last().map_or(tip.number, |b| b.number);
        Err(IndexError::DeepReorg {
            block: deepest,
            final_block: self.store.cursor()?.final_block,
        })
    }

    /// One step: the reorg check, then the next range of at most `batch_blocks` blocks
    /// up to the head, stored in one transaction with the cursor.
    pub fn step(&mut self) -> Result<Step> {
        let mut step = Step::default();
        if let Some((ancestor, committed)) = self.check_tip()? {
            step.rolled_back_to = Some(ancestor);
            step.committed = committed;
            return Ok(step);
        }
        let head = self.chain.head()?;
        step.head = head;
        let cursor = self.store.cursor()?;
        let from = cursor.next_block;
        if from > head {
            self.store.heartbeat(head)?;
            step.caught_up = true;
            return Ok(step);
        }
        let to = head.min(from.saturating_add(self.batch_blocks - 1));
        let final_block = head.saturating_sub(self.options.confirmations);
        // The blocks the reorg check will need: the final one and everything above.
        let mut blocks = Vec::new();
        let mut parent = cursor.last_hash;
        let first_kept = from.max(final_block);
        for number in first_kept..=to {
            let Some(block) = self.block(number)? else {
                step.raced = true;
                return Ok(step);
            };
            if number == from && parent.is_some_and(|p| p != block.parent_hash)
                || number > first_kept && parent != Some(block.parent_hash)
            {
                step.raced = true;
                return Ok(step);
            }
            parent = Some(block.hash);
            blocks.push(block);
        }
        let to_hash = match blocks.last() {
            Some(block) => block.hash,
            None => match self.block(to)? {
                Some(block) => block.hash,
                None => {
                    step.raced = true;
                    return Ok(step);
                }
            },
        };
        let logs = match self.chain.logs(self.source.referee, from, to, None) {
            Ok(logs) => logs,
            Err(error) if is_range_limit(&error) && self.batch_blocks > 1 => {
                self.batch_blocks = (self.batch_blocks / 2).max(1);
                step.range_halved = Some(self.batch_blocks);
                return Ok(step);
            }
            Err(error) => return Err(error.into()),
        };
        let mut raw: Vec<RawLog> = logs
            .iter()
            .map(|(place, log)| RawLog::new(*place, log))
            .collect();
        raw.sort_by_key(|log| (log.place.block_number, log.place.log_index));
        for pair in raw.windows(2) {
            if (pair[0].place.block_number, pair[0].place.log_index)
                == (pair[1].place.block_number, pair[1].place.log_index)
            {
                return Err(IndexError::BadAnswer(format!(
                    "eth_getLogs returned log {}:{} twice",
                    pair[0].place.block_number, pair[0].place.log_index
                )));
            }
        }
        // Logs from another fork than the blocks just read: the chain moved, retry.
        let fork = |log: &RawLog| -> Option<B256> {
            blocks
                .iter()
                .find(|b| b.number == log.place.block_number)
                .map(|b| b.hash)
        };
        if raw
            .iter()
            .any(|log| fork(log).is_some_and(|hash| hash != log.place.block_hash))
        {
            step.raced = true;
            return Ok(step);
        }
        step.logs = raw.len();
        step.committed = self.store.commit(&Batch {
            from,
            to,
            to_hash,
            logs: raw,
            blocks,
            head,
            final_block,
        })?;
        step.indexed = Some((from, to));
        step.caught_up = to == head;
        Ok(step)
    }

    /// Steps until `stop` says so or an error, pausing `poll` whenever caught up;
    /// `on_step` sees every step (to print it). A step the node did not answer in time
    /// ([`is_retriable`]) is no error: `on_step` sees it as [`Step::stalled`], and the next
    /// try follows after a pause doubling from [`RETRY_FIRST`] to [`RETRY_MAX`] (`stop`
    /// asked along the way).
    pub fn run(
        &mut self,
        mut stop: impl FnMut() -> bool,
        mut on_step: impl FnMut(&Step) -> Result<()>,
    ) -> Result<()> {
        let mut retry = RETRY_FIRST;
        while !stop() {
            let started = Instant::now();
            let step = match self.step() {
                Ok(step) => {
                    self.answered = Instant::now();
                    retry = RETRY_FIRST;
                    step
                }
                Err(error) if is_retriable(&error) => {
                    let stall = Stall {
                        error: error.to_string(),
                        retry_in: retry,
                        behind: self.behind(),
                    };
                    on_step(&Step {
                        stalled: Some(stall),
                        ..Step::default()
                    })?;
                    let until = Instant::now() + retry;
                    while !stop() && Instant::now() < until {
                        std::thread::sleep(
                            until
                                .saturating_duration_since(Instant::now())
                                .min(Duration::from_millis(100)),
                        );
                    }
                    retry = (retry * 2).min(RETRY_MAX);
                    continue;
                }
                Err(error) => return Err(error),
            };
            on_step(&step)?;
            if step.caught_up || step.raced {
                std::thread::sleep(self.options.poll.saturating_sub(started.elapsed()));
            }
        }
        Ok(())
    }
}
