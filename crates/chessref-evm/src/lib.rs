//! The chessref contracts on an in-process revm chain or any JSON-RPC node.
//!
//! [`Chain`] is the one interface both backends implement: [`RevmChain`]
//! (revm, Prague, in memory: the default everywhere) and [`RpcChain`]
//! (alloy over HTTP, e.g. a local anvil started by [`anvil::Anvil`]).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod anvil;
mod chain;
mod error;
mod revm_chain;
mod rpc_chain;

pub use chain::{CallOutcome, Chain, DEFAULT_GAS_LIMIT, DEPLOY_GAS_LIMIT, TxReceipt, TxRequest};
pub use error::ChainError;
pub use revm_chain::{ACCOUNT_BALANCE, ACCOUNT_COUNT, CHAIN_ID, GENESIS_TIMESTAMP, RevmChain};
pub use rpc_chain::RpcChain;
