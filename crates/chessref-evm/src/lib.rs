//! The chessref contracts on an in-process revm chain or any JSON-RPC node.
//!
//! [`Chain`] is the one interface both backends implement: [`RevmChain`]
//! (revm, Prague, in memory: the default everywhere) and [`RpcChain`]
//! (alloy over HTTP(S) or WebSocket, e.g. a local anvil started by [`anvil::Anvil`]; a
//! node that never answers, for tests of the timeout, is [`stalled_node::StalledNode`],
//! and one that lies, for tests of what a follower checks, [`lying_node::LyingNode`]).
//! On top of it: [`RulesView`] (the deployed rules) and the referee client.

pub mod amount;
pub mod anvil;
pub mod bindings;
mod chain;
pub mod channel;
pub mod channel_sim;
pub mod deploy;
pub mod deployments;
pub mod driver;
pub mod ending;
mod error;
pub mod http;
pub mod lying_node;
pub mod moment;
pub mod referee;
pub mod replay;
mod revert;
mod revert_words;
mod revm_chain;
mod rpc_chain;
mod rules;
mod sender;
pub mod simulate;
pub mod stalled_node;
pub mod stats;
pub mod tournament;
pub mod tournament_sim;

/// The clock word, read off-chain: `chessref-channel`'s, where every client (the browser
/// package too) reads a registered position's window end and reply deadline.
pub use chessref_channel::clock_word;

pub use chain::{
    Borrowed, CallOutcome, Chain, DEFAULT_GAS_LIMIT, DEPLOY_GAS_LIMIT, PRIVATE_KEYS_ENV, TxReceipt,
    TxRequest, connect, connect_rpc,
};
pub use driver::{GameDriver, Mismatch};
pub use ending::{EndReason, EndResult, EndingCounts, UnknownCode};
pub use error::{ChainError, EvmError};
pub use referee::{Acted, Created, Ending, GameSetup, Joined, Moved, Position, Referee};
pub use replay::{GameReport, Prepared, ReplaySummary, Replayer, Tally};
pub use revert::ContractRevert;
pub use revm_chain::{ACCOUNT_BALANCE, ACCOUNT_COUNT, CHAIN_ID, GENESIS_TIMESTAMP, RevmChain};
pub use rpc_chain::{
    BlockAndTransactions, BlockRef, DEFAULT_MAX_LOG_BYTES, DEFAULT_RPC_TIMEOUT, LogPlace, RpcChain,
};
pub use rules::{RulesView, evm_check};
pub use sender::Sender;
pub use simulate::{SimulateOptions, SimulateSummary, simulate};
pub use stats::GasStats;
