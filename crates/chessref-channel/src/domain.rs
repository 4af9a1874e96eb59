//! The EIP-712 domain of CHANNEL.md section 3.

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::Eip712Domain;
use serde::{Deserialize, Serialize};

/// The domain's `name`.
pub const NAME: &str = "chessref";
/// The domain's `version`.
pub const VERSION: &str = "2";

/// Where a signature is valid: one chain and one `ChessChannel` contract (hence one
/// referee). Every message also names its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelDomain {
    /// The chain id (`block.chainid`).
    pub chain_id: u64,
    /// The `ChessChannel` contract (`ChessReferee.channel()`).
    pub verifying_contract: Address,
}

impl ChannelDomain {
    /// The full EIP-712 domain (`name` "chessref", `version` "2").
    pub fn eip712(&self) -> Eip712Domain {
        Eip712Domain::new(
            Some(NAME.into()),
            Some(VERSION.into()),
            Some(U256::from(self.chain_id)),
            Some(self.verifying_contract),
            None,
        )
    }

    /// The domain separator (`ChessChannel.domainSeparator()`).
    pub fn separator(&self) -> B256 {
        self.eip712().separator()
    }
}
