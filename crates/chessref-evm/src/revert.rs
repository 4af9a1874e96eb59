//! Decoding what a contract reverted with. What it means to a person is
//! [`revert_words`](crate::revert_words)'s.

use alloy_primitives::{Bytes, U256};
use alloy_sol_types::{Panic, Revert, SolError, SolInterface};

use crate::bindings::ChessChannel::ChessChannelErrors;
use crate::bindings::ChessReferee::ChessRefereeErrors;
use crate::bindings::ChessTournament::ChessTournamentErrors;

/// Why a contract call or transaction reverted, decoded from its revert data.
///
/// It displays as a sentence ([`ContractRevert::words`] at the system clock's time);
/// [`ContractRevert::raw`] and [`ContractRevert::fields`] keep the error as the contract
/// raised it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContractRevert {
    /// `IllegalMove(code)`: a section 6 rejection code.
    IllegalMove(u8),
    /// `InvalidState(code)`: a section 7 invalid-state code.
    InvalidState(u8),
    /// `BadStateLength(length)`.
    BadStateLength(U256),
    /// Another custom error of the referee (or its annex), with its decoded fields.
    Referee(ChessRefereeErrors),
    /// A custom error of the channel contract (or its annex; docs/CHANNEL.md), with its
    /// decoded fields.
    Channel(ChessChannelErrors),
    /// A custom error of the tournament contract (`IChessTournament.sol`) that the referee
    /// does not declare too (those decode as [`ContractRevert::Referee`]: they mean the same).
    Tournament(Box<ChessTournamentErrors>),
    /// A Solidity panic (`Panic(uint256)`), e.g. 0x11 for an overflow.
    Panic(U256),
    /// `Error(string)` from a `require` with a message.
    Message(String),
    /// Revert data that matches nothing known (empty for a bare `revert()`
    /// or an out-of-gas halt).
    Unknown(Bytes),
}

impl std::error::Error for ContractRevert {}

impl std::fmt::Display for ContractRevert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        f.write_str(&self.words(now))
    }
}

impl ContractRevert {
    /// Decodes revert data of ChessReferee, ChessChannel, ChessTournament or ChessRulesView.
    pub fn decode(data: &[u8]) -> ContractRevert {
        if let Ok(error) = ChessRefereeErrors::abi_decode(data) {
            return match error {
                ChessRefereeErrors::IllegalMove(e) => ContractRevert::IllegalMove(e.code),
                ChessRefereeErrors::InvalidState(e) => ContractRevert::InvalidState(e.code),
                ChessRefereeErrors::BadStateLength(e) => ContractRevert::BadStateLength(e.length),
                other => ContractRevert::Referee(other),
            };
        }
        if let Ok(error) = ChessChannelErrors::abi_decode(data) {
            return match error {
                ChessChannelErrors::BadStateLength(e) => ContractRevert::BadStateLength(e.length),
                other => ContractRevert::Channel(other),
            };
        }
        if let Ok(error) = ChessTournamentErrors::abi_decode(data) {
            return ContractRevert::Tournament(Box::new(error));
        }
        if let Ok(panic) = Panic::abi_decode(data) {
            return ContractRevert::Panic(panic.code);
        }
        if let Ok(revert) = Revert::abi_decode(data) {
            return ContractRevert::Message(revert.reason);
        }
        ContractRevert::Unknown(Bytes::copy_from_slice(data))
    }

    /// The custom error's name ("IllegalMove", "NotYourTurn", ...; "Panic", "Error" and
    /// "Unknown" for the rest).
    pub fn name(&self) -> String {
        match self {
            ContractRevert::IllegalMove(_) => "IllegalMove".into(),
            ContractRevert::InvalidState(_) => "InvalidState".into(),
            ContractRevert::BadStateLength(_) => "BadStateLength".into(),
            ContractRevert::Referee(error) => variant_name(error),
            ContractRevert::Channel(error) => variant_name(error),
            ContractRevert::Tournament(error) => variant_name(error),
            ContractRevert::Panic(_) => "Panic".into(),
            ContractRevert::Message(_) => "Error".into(),
            ContractRevert::Unknown(_) => "Unknown".into(),
        }
    }

    /// The error as the contract raised it, for a detail or a log:
    /// `NotYetPlayable(playableFrom: 1795768139)`, `IllegalMove(code: 7)`.
    pub fn raw(&self) -> String {
        let fields = self.fields();
        let args: Vec<String> = fields
            .iter()
            .map(|(name, value)| match value {
                serde_json::Value::String(text) => format!("{name}: {text}"),
                other => format!("{name}: {other}"),
            })
            .collect();
        format!("{}({})", self.name(), args.join(", "))
    }
}

/// The variant's name of a `sol!` errors enum, from its derived `Debug` (`Name(Name {
/// ... })`): the generated enums name their variants after the Solidity errors.
fn variant_name(error: &impl std::fmt::Debug) -> String {
    let debug = format!("{error:?}");
    debug
        .split(['(', ' ', '{'])
        .next()
        .unwrap_or(&debug)
        .to_string()
}
