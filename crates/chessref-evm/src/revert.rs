//! Decoding what a contract reverted with.

use alloy_primitives::{Bytes, U256};
use alloy_sol_types::{Panic, Revert, SolError, SolInterface};

use crate::bindings::ChessChannel::ChessChannelErrors;
use crate::bindings::ChessReferee::ChessRefereeErrors;

/// Why a contract call or transaction reverted, decoded from its revert data.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContractRevert {
    /// `IllegalMove(code)`: a section 6 rejection code.
    #[error("IllegalMove({0})")]
    IllegalMove(u8),
    /// `InvalidState(code)`: a section 7 invalid-state code.
    #[error("InvalidState({0})")]
    InvalidState(u8),
    /// `BadStateLength(length)`.
    #[error("BadStateLength({0})")]
    BadStateLength(U256),
    /// Another custom error of the referee, by name with its decoded fields.
    #[error("{0}")]
    Referee(String),
    /// A custom error of the channel contract (docs/CHANNEL.md), by name with its fields.
    #[error("{0}")]
    Channel(String),
    /// A Solidity panic (`Panic(uint256)`), e.g. 0x11 for an overflow.
    #[error("Panic(0x{0:x})")]
    Panic(U256),
    /// `Error(string)` from a `require` with a message.
    #[error("Error({0:?})")]
    Message(String),
    /// Revert data that matches nothing known (empty for a bare `revert()`
    /// or an out-of-gas halt).
    #[error("unknown revert data 0x{0:x}")]
    Unknown(Bytes),
}

impl ContractRevert {
    /// Decodes revert data of ChessReferee, ChessChannel or ChessRulesView.
    pub fn decode(data: &[u8]) -> ContractRevert {
        if let Ok(error) = ChessRefereeErrors::abi_decode(data) {
            return match error {
                ChessRefereeErrors::IllegalMove(e) => ContractRevert::IllegalMove(e.code),
                ChessRefereeErrors::InvalidState(e) => ContractRevert::InvalidState(e.code),
                ChessRefereeErrors::BadStateLength(e) => ContractRevert::BadStateLength(e.length),
                other => ContractRevert::Referee(format!("{other:?}")),
            };
        }
        if let Ok(error) = ChessChannelErrors::abi_decode(data) {
            return ContractRevert::Channel(format!("{error:?}"));
        }
        if let Ok(panic) = Panic::abi_decode(data) {
            return ContractRevert::Panic(panic.code);
        }
        if let Ok(revert) = Revert::abi_decode(data) {
            return ContractRevert::Message(revert.reason);
        }
        ContractRevert::Unknown(Bytes::copy_from_slice(data))
    }

    /// The custom error's name ("IllegalMove", "NotYourTurn", ...).
    pub fn name(&self) -> String {
        match self {
            ContractRevert::IllegalMove(_) => "IllegalMove".into(),
            ContractRevert::InvalidState(_) => "InvalidState".into(),
            ContractRevert::BadStateLength(_) => "BadStateLength".into(),
            ContractRevert::Referee(s) | ContractRevert::Channel(s) => {
                s.split(['(', ' ', '{']).next().unwrap_or(s).to_string()
            }
            ContractRevert::Panic(_) => "Panic".into(),
            ContractRevert::Message(_) => "Error".into(),
            ContractRevert::Unknown(_) => "Unknown".into(),
        }
    }
}
