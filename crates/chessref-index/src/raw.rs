//! What the index stores of the chain: referee logs exactly as the node gave them, with
//! their places (`LogPlace`); blocks are chessref-evm's [`BlockRef`].

use alloy_primitives::{Address, B256, Bytes, Log, LogData, U256};
use chessref_client::{LogPlace, RefereeLog, game_log::UndecodableLog};

pub use chessref_evm::BlockRef;

/// One referee log as `eth_getLogs` returned it, with its place in the chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawLog {
    /// Where it is: block number and hash, log index, transaction.
    pub place: LogPlace,
    /// The topics, signature first.
    pub topics: Vec<B256>,
    /// The non-indexed data.
    pub data: Bytes,
}

impl RawLog {
    /// A log `eth_getLogs` returned at `place`.
    pub fn new(place: LogPlace, log: &Log) -> RawLog {
        RawLog {
            place,
            topics: log.topics().to_vec(),
            data: log.data.data.clone(),
        }
    }

    /// The log as alloy's primitive log of `address`.
    pub fn to_log(&self, address: Address) -> Log {
        Log {
            address,
            data: LogData::new_unchecked(self.topics.clone(), self.data.clone()),
        }
    }

    /// The decoded referee event.
    pub fn decode(&self) -> Result<RefereeLog, UndecodableLog> {
        RefereeLog::decode(self.place, &self.to_log(Address::ZERO))
    }

    /// The game the log is about; `None` for `Withdrawn` and for logs that do not decode.
    pub fn game_id(&self) -> Option<U256> {
        self.decode().ok().and_then(|log| log.game_id())
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
