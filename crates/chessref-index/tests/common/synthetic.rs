//! A synthetic referee chain for the ratings' tests and benchmark: games created, joined
//! and ended without moves (a resignation, an agreed draw, an abort), as the referee's
//! events encode them, so they go through the store's real write path (`Store::commit`,
//! `Store::rollback`: decoded, folded, checked like any other) in a fraction of what
//! replaying games on anvil costs. A block's hash depends on its number and its fork, so
//! a rollback to a fork is told apart by the store like a real reorganisation.
#![allow(dead_code)]

use alloy_primitives::{Address, B256, U256, keccak256};
use alloy_sol_types::SolEvent;
use chessref_client::terms::{Terms, start_inner};
use chessref_core::{State, chain};
use chessref_evm::LogPlace;
use chessref_evm::bindings::ChessReferee as R;
use chessref_index::{Batch, BlockRef, RawLog};

/// A small deterministic generator (SplitMix64): seeded runs repeat exactly.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Player number `n`'s address.
pub fn player(n: u64) -> Address {
    Address::from_word(keccak256(n.to_be_bytes()))
}

/// The hash of block `number` on fork `fork`.
pub fn block_hash(number: u64, fork: u64) -> B256 {
    keccak256([number.to_be_bytes(), fork.to_be_bytes()].concat())
}

fn raw<E: SolEvent>(event: &E, place: LogPlace) -> RawLog {
    let log = event.encode_log_data();
    RawLog {
        place,
        topics: log.topics().to_vec(),
        data: log.data,
    }
}

/// `GameCreated` of game `id` by `creator` (white) against `opponent`, standard start,
/// ETH, no stake, its terms hash right.
pub fn created(id: u64, creator: Address, opponent: Address, place: LogPlace) -> RawLog {
    let start = State::initial();
    let history = chain::of_start(&start);
    let mut event = R::GameCreated {
        gameId: U256::from(id),
        creator,
        opponent,
        creatorWhite: true,
        token: Address::ZERO,
        stake: U256::ZERO,
        initialTime: 600,
        increment: 0,
        firstMoveWindow: 600,
        terms: B256::ZERO,
        state: start.as_bytes().to_vec().into(),
        history,
        responseWindow: 0,
    };
    event.terms = Terms {
        creator,
        opponent,
        creatorWhite: true,
        token: Address::ZERO,
        stake: U256::ZERO,
        initialTime: U256::from(600),
        increment: U256::ZERO,
        firstMoveWindow: U256::from(600),
        start: start_inner(start.as_bytes(), history),
    }
    .join_hash(0);
    raw(&event, place)
}

/// `GameJoined` of game `id`.
pub fn joined(id: u64, white: Address, black: Address, place: LogPlace) -> RawLog {
    raw(
        &R::GameJoined {
            gameId: U256::from(id),
            white,
            black,
            clock: U256::ZERO,
        },
        place,
    )
}

/// `GameEnded` of game `id` with REFEREE.md's result and reason codes.
pub fn ended(id: u64, result: u8, reason: u8, place: LogPlace) -> RawLog {
    raw(
        &R::GameEnded {
            gameId: U256::from(id),
            result,
            reason,
        },
        place,
    )
}

/// An ending drawn at random: white or black resigns (result 1 or 2, reason 5), an
/// agreed draw (3, 8), or, `abort_percent` of the time, an abort (4, 11) that counts for
/// nobody.
pub fn ending(rng: &mut Rng, abort_percent: u64) -> (u8, u8) {
    if rng.chance(abort_percent) {
        return (4, 11);
    }
    match rng.below(3) {
        0 => (1, 5),
        1 => (2, 5),
        _ => (3, 8),
    }
}

/// One block of the synthetic chain.
#[derive(Clone, Debug)]
pub struct Block {
    /// Its number, hash, parent.
    pub block: BlockRef,
    /// The referee's logs in it, in order.
    pub logs: Vec<RawLog>,
}

/// A chain being written: blocks from `first`, each on a fork number.
#[derive(Clone, Debug)]
pub struct Chain {
    /// The blocks, from the first indexed one.
    pub blocks: Vec<Block>,
    /// The number of `blocks[0]`.
    pub first: u64,
}

impl Chain {
    /// An empty chain whose first block will be `first`.
    pub fn new(first: u64) -> Chain {
        Chain {
            blocks: Vec::new(),
            first,
        }
    }

    /// The next block's number.
    pub fn next_number(&self) -> u64 {
        self.first + self.blocks.len() as u64
    }

    /// The place of log `index` in the next block on `fork`.
    pub fn place(&self, fork: u64, index: u64) -> LogPlace {
        let number = self.next_number();
        LogPlace {
            block_number: number,
            log_index: index,
            block_hash: block_hash(number, fork),
            tx_hash: keccak256(
                [
                    number.to_be_bytes(),
                    index.to_be_bytes(),
                    fork.to_be_bytes(),
                ]
                .concat(),
            ),
        }
    }

    /// Appends the next block on `fork` with `logs` (placed by [`Chain::place`]).
    pub fn push(&mut self, fork: u64, logs: Vec<RawLog>) {
        let number = self.next_number();
        let parent = self
            .blocks
            .last()
            .map_or(block_hash(number.wrapping_sub(1), 0), |b| b.block.hash);
        self.blocks.push(Block {
            block: BlockRef {
                number,
                hash: block_hash(number, fork),
                parent_hash: parent,
                timestamp: number,
            },
            logs,
        });
    }

    /// Drops every block above `number`.
    pub fn truncate_above(&mut self, number: u64) {
        self.blocks.truncate((number + 1 - self.first) as usize);
    }

    /// Block `number`.
    pub fn block(&self, number: u64) -> &Block {
        &self.blocks[(number - self.first) as usize]
    }

    /// Blocks `from..=to` as the indexer commits them, with `final_block` final (the
    /// blocks at or above it are kept for the reorg check, as the indexer sends them).
    pub fn batch(&self, from: u64, to: u64, final_block: u64) -> Batch {
        let range = (from - self.first) as usize..=(to - self.first) as usize;
        let blocks = &self.blocks[range];
        Batch {
            from,
            to,
            to_hash: blocks.last().expect("a non-empty range").block.hash,
            logs: blocks.iter().flat_map(|b| b.logs.iter().cloned()).collect(),
            tournament_logs: Vec::new(),
            blocks: blocks
                .iter()
                .filter(|b| b.block.number >= final_block)
                .map(|b| b.block)
                .collect(),
            head: to.max(final_block),
            final_block,
        }
    }
}

/// A chain of `games` finished games among `players` players, `per_block` games ending in
/// each block (each game created, joined and ended in one block, its three logs apart),
/// 2% of them aborted; from block 1.
pub fn finished_games(games: u64, players: u64, per_block: u64, seed: u64) -> Chain {
    let mut rng = Rng(seed);
    let mut chain = Chain::new(1);
    let mut id = 0;
    while id < games {
        let mut logs = Vec::new();
        for _ in 0..per_block.min(games - id) {
            id += 1;
            let white = player(rng.below(players));
            let black = loop {
                let black = player(rng.below(players));
                if black != white {
                    break black;
                }
            };
            let (result, reason) = ending(&mut rng, 2);
            let n = logs.len() as u64;
            logs.push(created(id, white, black, chain.place(0, n)));
            logs.push(joined(id, white, black, chain.place(0, n + 1)));
            logs.push(ended(id, result, reason, chain.place(0, n + 2)));
        }
        chain.push(0, logs);
    }
    chain
}
