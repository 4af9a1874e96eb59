//! The follower: back-fills the referee's logs and its tournament's
//! ([`crate::tournament`]) in bounded `eth_getLogs` ranges, then polls the head; checks
//! the non-final tip's hashes on every step and rolls back to the common ancestor when
//! the chain reorganised. A node that does not answer in time is waited for, backing off
//! ([`Indexer::run`]), never a reason to stop.
//!
//! The node's answers are checked where they can be (docs/INDEX.md, "What the indexer
//! checks of its node"): every block is the one asked for, a range's blocks chain by
//! their parent hashes, every log is the referee's (or its tournament's), in the range
//! asked, once, in a block whose hash (asked of the node) is the log's and among whose
//! transactions is the log's; an `eth_getLogs` answer is bounded in bytes. A step where the node contradicts itself
//! stores nothing and is retried; [`CONTRADICTIONS_MAX`] of them in a row stop the
//! indexer, naming the node and the contradiction.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256};
use chessref_evm::tournament::tournament_address;
use chessref_evm::{BlockAndTransactions, ChainError, DEFAULT_MAX_LOG_BYTES, RpcChain};

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
    /// The `eth_getLogs` range was refused (the node's range limit, or an answer longer
    /// than [`Indexer::max_log_bytes`]) and halved to this many blocks ([`Step::why`]).
    pub range_halved: Option<u64>,
    /// The node contradicted itself (the chain moved under the step, or the node is not
    /// to be trusted: [`Step::why`] says what): nothing was stored, the next step retries.
    pub raced: bool,
    /// Why the step was retried ([`Step::raced`]: what the node contradicted, e.g. "the
    /// node answered block 12 with hash 0x.. then 0x..") or its range halved (the node's
    /// refusal).
    pub why: Option<String>,
    /// How many steps in a row the node contradicted itself, this one included (0 unless
    /// [`Step::raced`]); at [`CONTRADICTIONS_MAX`] the step is an error instead.
    pub contradictions: u32,
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

/// How many steps in a row the node may contradict itself ([`Step::raced`]) before
/// [`Indexer::step`] stops with [`IndexError::Contradicted`], naming it: a chain that
/// reorganised under a step answers consistently at the next one.
pub const CONTRADICTIONS_MAX: u32 = 5;

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
    /// The longest `eth_getLogs` answer read, in bytes.
    max_log_bytes: usize,
    /// Steps in a row where the node contradicted itself.
    contradictions: u32,
    /// When the node last answered a whole step (or [`Indexer::new`]'s chain id).
    answered: Instant,
}

/// Why a step was given up: an error, or the node contradicted itself (retried).
enum Fail {
    Index(IndexError),
    Contradiction(String),
}

impl From<IndexError> for Fail {
    fn from(error: IndexError) -> Fail {
        Fail::Index(error)
    }
}

impl From<ChainError> for Fail {
    fn from(error: ChainError) -> Fail {
        Fail::Index(error.into())
    }
}

/// The step given up because the node contradicted itself, as `what` says.
fn contradiction<T>(what: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::Contradiction(what.into()))
}

/// A block's hash as the node answered it, or that it had no such block.
fn hash_or_none(hash: Option<B256>) -> String {
    hash.map_or_else(|| "no block".to_string(), |hash| hash.to_string())
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
            max_log_bytes: DEFAULT_MAX_LOG_BYTES,
            contradictions: 0,
            answered: Instant::now(),
        })
    }

    /// This indexer reading `eth_getLogs` answers of at most `bytes` bytes (default
    /// [`DEFAULT_MAX_LOG_BYTES`], 32 MiB; at least 1): a longer one is refused unread and
    /// its range halved, and one block whose logs alone are longer stops the indexer
    /// ([`IndexError::LogsTooLarge`]).
    pub fn with_max_log_bytes(mut self, bytes: usize) -> Indexer {
        self.max_log_bytes = bytes.max(1);
        self
    }

    /// The longest `eth_getLogs` answer read, in bytes.
    pub fn max_log_bytes(&self) -> usize {
        self.max_log_bytes
    }

    /// What the database follows.
    pub fn source(&self) -> Source {
        self.source
    }

    /// The database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The database, to read through the store (its connection needs `&mut`).
    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
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

    /// Block `number` with its transactions' hashes, as the node answers it: it must be
    /// block `number` (a node answering another block contradicts itself).
    fn block_full(&self, number: u64) -> Result<Option<BlockAndTransactions>, Fail> {
        let block = self.chain.block_with_transactions(number)?;
        if let Some((block, _)) = &block {
            same_number(number, block)?;
        }
        Ok(block)
    }

    /// [`Indexer::block_full`] without the transactions.
    fn block(&self, number: u64) -> Result<Option<BlockRef>, Fail> {
        Ok(self.block_full(number)?.map(|(block, _)| block))
    }

    /// Asks block `number` again, the node having answered `seen` (a hash, or no block)
    /// a moment ago: a node whose answer changed between two calls is named so ("the node
    /// answered block N with hash X then Y"), a contradiction; else the answer stands.
    fn settled(&self, number: u64, seen: Option<B256>) -> Result<(), Fail> {
        let again = self.block(number)?.map(|block| block.hash);
        if again != seen {
            return contradiction(format!(
                "the node answered block {number} with hash {} then {}",
                hash_or_none(seen),
                hash_or_none(again)
            ));
        }
        Ok(())
    }

    /// Compares the stored non-final tip with the chain; after a reorg, rolls back to
    /// the highest block both agree on. Returns that ancestor's number. A changed block
    /// is evidence only once the node answers it the same twice: a node whose hashes
    /// never settle contradicts itself (retried, then named), it does not reorganise.
    fn check_tip(&mut self) -> Result<Option<(u64, Committed)>, Fail> {
        let stored = self.store.recent_blocks()?;
        let Some(tip) = stored.first() else {
            return Ok(None);
        };
        // One hash commits to all its ancestors: an unchanged tip means no reorg.
        let now = self.block(tip.number)?.map(|b| b.hash);
        if now == Some(tip.hash) {
            return Ok(None);
        }
        self.settled(tip.number, now)?;
        let mut deepest_now = now;
        for block in &stored[1..] {
            let hash = self.block(block.number)?.map(|b| b.hash);
            if hash == Some(block.hash) {
                let committed = self.store.rollback(*block)?;
                return Ok(Some((block.number, committed)));
            }
            deepest_now = hash;
        }
        // Every stored block changed, down to the final one: a deep reorg, if the node
        // stands by its answer and still has the block.
        let deepest = stored.last().map_or(tip.number, |b| b.number);
        self.settled(deepest, deepest_now)?;
        if deepest_now.is_none() {
            let head = self.chain.head()?;
            return contradiction(format!(
                "the node has no block {deepest} (its head is {head}), which the index holds \
                 as final"
            ));
        }
        Err(Fail::Index(IndexError::DeepReorg {
            block: deepest,
            final_block: self.store.cursor()?.final_block,
        }))
    }

    /// One step: the reorg check, then the next range of at most `batch_blocks` blocks
    /// up to the head, stored in one transaction with the cursor.
    ///
    /// A step where the node contradicts itself stores nothing and is [`Step::raced`]
    /// ([`Step::why`] says what); the [`CONTRADICTIONS_MAX`]-th in a row is
    /// [`IndexError::Contradicted`], naming the node. The database file deleted or
    /// replaced since it was opened is [`IndexError::FileGone`].
    pub fn step(&mut self) -> Result<Step> {
        self.store.check_file()?;
        match self.attempt() {
            Ok(step) => {
                self.contradictions = 0;
                Ok(step)
            }
            Err(Fail::Index(error)) => Err(error),
            Err(Fail::Contradiction(what)) => {
                self.contradictions += 1;
                if self.contradictions >= CONTRADICTIONS_MAX {
                    let steps = std::mem::take(&mut self.contradictions);
                    return Err(IndexError::Contradicted {
                        url: self.chain.url().to_string(),
                        steps,
                        what,
                    });
                }
                Ok(Step {
                    raced: true,
                    why: Some(what),
                    contradictions: self.contradictions,
                    ..Step::default()
                })
            }
        }
    }

    /// [`Indexer::step`] but for counting the contradictions.
    fn attempt(&mut self) -> Result<Step, Fail> {
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
        // The blocks the reorg check will need: the final one and everything above, each
        // the child of the one before (the first, of the cursor's block).
        let mut blocks = Vec::new();
        let mut transactions = HashMap::new();
        let mut parent = cursor.last_hash;
        let first_kept = from.max(final_block);
        for number in first_kept..=to {
            let Some((block, hashes)) = self.block_full(number)? else {
                return contradiction(format!(
                    "the node's head is block {head} but it has no block {number}"
                ));
            };
            if number == from
                && let Some(last) = parent
                && last != block.parent_hash
            {
                return contradiction(format!(
                    "block {number}'s parent is {}, not block {}'s hash {last} that the index \
                     holds (the chain reorganised since?)",
                    block.parent_hash,
                    number - 1
                ));
            }
            if number > first_kept && parent != Some(block.parent_hash) {
                self.settled(number - 1, parent)?;
                return contradiction(format!(
                    "block {number}'s parent is {}, but the node answered block {} with hash {}",
                    block.parent_hash,
                    number - 1,
                    hash_or_none(parent)
                ));
            }
            parent = Some(block.hash);
            transactions.insert(number, (block.hash, hashes));
            blocks.push(block);
        }
        let to_hash = match blocks.last() {
            Some(block) => block.hash,
            None => match self.block(to)? {
                Some(block) => block.hash,
                None => {
                    return contradiction(format!(
                        "the node's head is block {head} but it has no block {to}"
                    ));
                }
            },
        };
        let referee = self.source.referee;
        // The tournament's logs come in the same answer (an address list), so a range
        // holds both sources or neither.
        let tournament = tournament_address(referee);
        let logs = match self.chain.logs_of_within(
            &[referee, tournament],
            from,
            to,
            [None; 4],
            self.max_log_bytes,
        ) {
            Ok(logs) => logs,
            Err(error) if (is_range_limit(&error) || error.is_too_large()) && to > from => {
                // Half of the range's `to - from + 1` blocks (rounded down; at least 1).
                self.batch_blocks = (to - from).div_ceil(2);
                step.range_halved = Some(self.batch_blocks);
                step.why = Some(error.to_string());
                return Ok(step);
            }
            Err(error) if error.is_too_large() => {
                return Err(Fail::Index(IndexError::LogsTooLarge {
                    url: self.chain.url().to_string(),
                    block: from,
                    limit: self.max_log_bytes,
                }));
            }
            Err(error) => return Err(error.into()),
        };
        // Each log: the referee's or its tournament's, in the range asked, once.
        let mut raw = Vec::with_capacity(logs.len());
        let mut tournament_raw = Vec::new();
        for (place, log) in &logs {
            let name = format!("log {}:{}", place.block_number, place.log_index);
            let kept = if log.address == referee {
                &mut raw
            } else if log.address == tournament {
                &mut tournament_raw
            } else {
                return contradiction(format!(
                    "eth_getLogs of the referee {referee} and its tournament {tournament} \
                     answered {name} of {}",
                    log.address
                ));
            };
            if !(from..=to).contains(&place.block_number) {
                return contradiction(format!(
                    "eth_getLogs of blocks {from}..={to} answered {name}, outside them"
                ));
            }
            kept.push(RawLog::new(*place, log));
        }
        raw.sort_by_key(|log| (log.place.block_number, log.place.log_index));
        tournament_raw.sort_by_key(|log| (log.place.block_number, log.place.log_index));
        // A place is one log, whichever contract emitted it.
        let mut every: Vec<&RawLog> = raw.iter().chain(&tournament_raw).collect();
        every.sort_by_key(|log| (log.place.block_number, log.place.log_index));
        for pair in every.windows(2) {
            if (pair[0].place.block_number, pair[0].place.log_index)
                == (pair[1].place.block_number, pair[1].place.log_index)
            {
                return contradiction(format!(
                    "eth_getLogs answered log {}:{} twice",
                    pair[0].place.block_number, pair[0].place.log_index
                ));
            }
        }
        // Each log's block as the node answers it (final blocks too: one request per block
        // with logs): its hash is the log's, the log's transaction is among its own.
        let mut missing: Vec<u64> = every
            .iter()
            .map(|log| log.place.block_number)
            .filter(|number| !transactions.contains_key(number))
            .collect();
        missing.dedup();
        for (number, block) in missing
            .iter()
            .zip(self.chain.blocks_with_transactions(&missing)?)
        {
            let Some((block, hashes)) = block else {
                return contradiction(format!(
                    "eth_getLogs answered logs in block {number}, but the node has no block \
                     {number}"
                ));
            };
            same_number(*number, &block)?;
            transactions.insert(*number, (block.hash, hashes));
        }
        for log in &every {
            let place = &log.place;
            let (hash, hashes) = &transactions[&place.block_number];
            if place.block_hash != *hash {
                self.settled(place.block_number, Some(*hash))?;
                return contradiction(format!(
                    "log {}:{} names block {}'s hash {}, but the node answered block {} with \
                     hash {hash}",
                    place.block_number,
                    place.log_index,
                    place.block_number,
                    place.block_hash,
                    place.block_number
                ));
            }
            if !hashes.contains(&place.tx_hash) {
                return contradiction(format!(
                    "log {}:{}'s transaction {} is not one of block {}'s",
                    place.block_number, place.log_index, place.tx_hash, place.block_number
                ));
            }
        }
        step.logs = every.len();
        step.committed = self.store.commit(&Batch {
            from,
            to,
            to_hash,
            logs: raw,
            tournament_logs: tournament_raw,
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
    /// asked along the way). A step where the node contradicted itself ([`Step::raced`])
    /// is tried again after a pause doubling from `poll` (at most [`RETRY_MAX`]), until
    /// the [`CONTRADICTIONS_MAX`]-th in a row, an error.
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
                    pause(&mut stop, retry);
                    retry = (retry * 2).min(RETRY_MAX);
                    continue;
                }
                Err(error) => return Err(error),
            };
            on_step(&step)?;
            if step.raced {
                let doubled = 1u32 << step.contradictions.saturating_sub(1).min(16);
                pause(&mut stop, (self.options.poll * doubled).min(RETRY_MAX));
            } else if step.caught_up {
                std::thread::sleep(self.options.poll.saturating_sub(started.elapsed()));
            }
        }
        Ok(())
    }
}

/// Sleeps `length`, asking `stop` every 100 ms at most.
fn pause(stop: &mut impl FnMut() -> bool, length: Duration) {
    let until = Instant::now() + length;
    while !stop() && Instant::now() < until {
        std::thread::sleep(
            until
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(100)),
        );
    }
}

/// The node answered block `asked` with `block`: the same number, or a contradiction.
fn same_number(asked: u64, block: &BlockRef) -> Result<(), Fail> {
    if block.number != asked {
        return contradiction(format!(
            "asked for block {asked}, the node answered block {} ({})",
            block.number, block.hash
        ));
    }
    Ok(())
}
