//! Error types of the harness.

use std::time::Duration;

use alloy_primitives::{Address, Bytes};

/// A failure of the chain itself (not a revert, which is a normal outcome).
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// The in-process EVM refused or failed to execute a transaction.
    #[error("revm: {0}")]
    Evm(String),
    /// The JSON-RPC node failed or could not be reached.
    #[error("JSON-RPC node {url}: {message}")]
    Rpc {
        /// Endpoint.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The endpoint cannot be reached: connection refused, unknown host, TLS failure,
    /// a closed WebSocket.
    #[error("cannot reach RPC {url}: {message}")]
    Unreachable {
        /// Endpoint.
        url: String,
        /// The transport's error and its causes.
        message: String,
    },
    /// The node did not answer within the timeout: it accepted the connection (or the
    /// request) and said nothing ([`crate::RpcChain::with_timeout`]).
    #[error("the node at {url} did not answer {what} within {}", seconds(.after))]
    Timeout {
        /// Endpoint.
        url: String,
        /// The request or step unanswered (`eth_blockNumber`, `the WebSocket handshake`).
        what: &'static str,
        /// How long it waited.
        after: Duration,
    },
    /// The node's answer to `what` was longer than the bound the caller set (an
    /// `eth_getLogs` answer, [`crate::RpcChain::logs_within`]): it is refused, read no
    /// further than the bound.
    #[error("the node at {url} answered {what} with more than {limit} bytes")]
    TooLarge {
        /// Endpoint.
        url: String,
        /// The request (`eth_getLogs`).
        what: &'static str,
        /// The bound, in bytes of the JSON-RPC answer.
        limit: usize,
    },
    /// The endpoint answered something that is not a JSON-RPC response.
    #[error("RPC {url} answered something that is not JSON-RPC: {message}")]
    BadAnswer {
        /// Endpoint.
        url: String,
        /// What it answered (an excerpt) and why it is refused.
        message: String,
    },
    /// An unlocked account was asked for that the node does not hold.
    #[error("{account} is not an unlocked account of {url} (eth_accounts does not list it)")]
    NotUnlocked {
        /// Endpoint.
        url: String,
        /// The account asked for.
        account: Address,
    },
    /// The RPC URL is not a valid URL.
    #[error("invalid RPC URL {url:?}: {message}")]
    BadUrl {
        /// The URL given.
        url: String,
        /// Why it is invalid.
        message: String,
    },
    /// A private key given for the RPC backend is malformed.
    #[error("invalid private key #{index}: {message}")]
    BadKey {
        /// 1-based position in the list.
        index: usize,
        /// Why it is invalid.
        message: String,
    },
    /// A sender is not one of the chain's accounts.
    #[error("{0} is not an account of this chain")]
    UnknownAccount(Address),
    /// The node has no accounts to send from.
    #[error("the node exposes no unlocked accounts (eth_accounts is empty); pass private keys")]
    NoAccounts,
    /// A contract creation reverted.
    #[error("contract deployment reverted (data 0x{revert:x})")]
    DeployFailed {
        /// Revert data.
        revert: Bytes,
    },
    /// The anvil binary could not be found or started.
    #[error("anvil: {0}")]
    Anvil(String),
}

impl ChainError {
    /// Whether the node did not answer in time ([`ChainError::Timeout`]): it may answer a
    /// retry, unlike a refusal or a wrong answer.
    pub fn is_timeout(&self) -> bool {
        matches!(self, ChainError::Timeout { .. })
    }

    /// Whether the answer was longer than the caller's bound ([`ChainError::TooLarge`]):
    /// a smaller request may fit.
    pub fn is_too_large(&self) -> bool {
        matches!(self, ChainError::TooLarge { .. })
    }
}

/// `after` in seconds as people write them: `10 s`, `2.5 s`, `0.25 s`.
fn seconds(after: &Duration) -> String {
    let text = format!("{:.3}", after.as_secs_f64());
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} s")
}

/// A failure of a contract operation: the chain failed, the contract
/// reverted, or its answer could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum EvmError {
    /// The chain itself failed.
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// The contract reverted.
    #[error("{operation} reverted: {revert}")]
    Reverted {
        /// What was called ("move", "check", ...).
        operation: &'static str,
        /// The decoded revert.
        revert: crate::revert::ContractRevert,
        /// Gas the reverted transaction used (0 for a call).
        gas_used: u64,
    },
    /// The contract answered with data that does not decode as expected.
    #[error("cannot decode the answer of {operation}: {message}")]
    Decode {
        /// What was called.
        operation: &'static str,
        /// Decoder message.
        message: String,
    },
    /// An event the operation must emit is missing.
    #[error("{operation}: expected a {event} event, found none")]
    MissingEvent {
        /// What was called.
        operation: &'static str,
        /// Event name.
        event: &'static str,
    },
}

impl EvmError {
    /// The contract's error, when the contract reverted.
    pub fn revert(&self) -> Option<&crate::revert::ContractRevert> {
        match self {
            EvmError::Reverted { revert, .. } => Some(revert),
            _ => None,
        }
    }
}
