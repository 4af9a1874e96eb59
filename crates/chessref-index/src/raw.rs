//! What the index stores of the chain: referee logs exactly as the node gave them, and
//! the blocks of the non-final tip.

use alloy_primitives::{Address, B256, Bytes, Log, LogData, U256};
use alloy_sol_types::SolEventInterface;
use chessref_evm::bindings::ChessReferee::ChessRefereeEvents;

/// One referee log as `eth_getLogs` returned it, keyed by its place in the chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawLog {
    /// The block holding it.
    pub block_number: u64,
    /// Its index in the block.
    pub log_index: u64,
    /// The hash of that block (which fork it comes from).
    pub block_hash: B256,
    /// The transaction that emitted it.
    pub tx_hash: B256,
    /// The topics, signature first.
    pub topics: Vec<B256>,
    /// The non-indexed data.
    pub data: Bytes,
}

impl RawLog {
    /// The log as alloy's primitive log of `address`.
    pub fn to_log(&self, address: Address) -> Log {
        Log {
            address,
            data: LogData::new_unchecked(self.topics.clone(), self.data.clone()),
        }
    }

    /// The decoded referee event, or `None` for a log the referee's ABI does not know.
    pub fn event(&self) -> Option<ChessRefereeEvents> {
        ChessRefereeEvents::decode_log(&self.to_log(Address::ZERO))
            .ok()
            .map(|log| log.data)
    }

    /// The game the log is about: the first indexed topic of every referee event but
    /// `Withdrawn`; `None` for `Withdrawn` and for logs that do not decode.
    pub fn game_id(&self) -> Option<U256> {
        match self.event()? {
            ChessRefereeEvents::Withdrawn(_) => None,
            _ => self.topics.get(1).map(|t| U256::from_be_bytes(t.0)),
        }
    }

    /// The topics as one byte string (32 bytes each), as the `logs` table keeps them.
    pub fn topics_blob(&self) -> Vec<u8> {
        self.topics.iter().flat_map(|t| t.0).collect()
    }

    /// Splits a `topics_blob` back into topics; `None` unless its length is a multiple of 32.
    pub fn topics_from_blob(blob: &[u8]) -> Option<Vec<B256>> {
        if !blob.len().is_multiple_of(32) {
            return None;
        }
        Some(blob.chunks_exact(32).map(B256::from_slice).collect())
    }
}

/// A block as the reorg check needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRef {
    /// Its number.
    pub number: u64,
    /// Its hash.
    pub hash: B256,
    /// Its parent's hash.
    pub parent_hash: B256,
    /// Its timestamp (seconds).
    pub timestamp: u64,
}
