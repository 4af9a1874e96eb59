//! The terms hash a joiner agrees to (REFEREE.md `joinGame`, `termsHash`), computed
//! off-chain: a client shows the terms it read from `GameCreated` and joins with the
//! hash of exactly those, and an indexer checks the event's `terms` against its fields.

use alloy_primitives::{B256, U256, keccak256};
use alloy_sol_types::{SolValue, sol};

sol! {
    /// `ChessReferee.Terms`, field for field (the contract hashes `abi.encode(Terms)`).
    struct Terms {
        address creator;
        address opponent;
        bool creatorWhite;
        address token;
        uint256 stake;
        uint256 initialTime;
        uint256 increment;
        uint256 firstMoveWindow;
        bytes32 start;
    }
}

impl Terms {
    /// `termsHash`: keccak256 of the ABI-encoded terms; `start` is
    /// `keccak256(state ‖ history)` of the start position and `firstMoveWindow` has the
    /// default for 0 applied (as `GameCreated` reports it).
    pub fn hash(&self) -> B256 {
        keccak256(self.abi_encode())
    }

    /// The hash `joinGame` takes: [`Terms::hash`], wrapped with the response window for
    /// a channel game (`channelTermsHash`; a window of 0 leaves it unchanged).
    pub fn join_hash(&self, response_window: u32) -> B256 {
        let base = self.hash();
        if response_window == 0 {
            base
        } else {
            keccak256((base, U256::from(response_window)).abi_encode())
        }
    }
}

/// `keccak256(state ‖ history)`: the `start` of the terms.
pub fn start_inner(state: &[u8; 128], history: B256) -> B256 {
    chessref_evm::referee::Position {
        state: *state,
        history,
        clock: U256::ZERO,
    }
    .inner()
}
