//! One interface over every chain the harness drives: the in-process revm
//! chain and any JSON-RPC node.

use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::{Address, B256, Bytes, Log, U256};

use crate::error::ChainError;

/// A transaction the harness sends: a call (or a creation when `to` is
/// `None`) from one of the chain's funded accounts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxRequest {
    /// Sender; must be one of [`Chain::accounts`].
    pub from: Address,
    /// Callee; `None` deploys `data` as init code.
    pub to: Option<Address>,
    /// Wei sent along.
    pub value: U256,
    /// Calldata (or init code).
    pub data: Bytes,
    /// Gas limit of the transaction.
    pub gas_limit: u64,
    /// A priority fee (tip) of at least this many wei per gas, for a transaction that
    /// must be included promptly (an automatic channel registration); `None`: the
    /// node's fees as the provider fills them. Only a JSON-RPC chain uses it.
    pub priority_fee: Option<u128>,
}

impl TxRequest {
    /// A call of `to` with `data`, no value, and the default gas limit.
    pub fn call(from: Address, to: Address, data: impl Into<Bytes>) -> Self {
        TxRequest {
            from,
            to: Some(to),
            value: U256::ZERO,
            data: data.into(),
            gas_limit: DEFAULT_GAS_LIMIT,
            priority_fee: None,
        }
    }

    /// A contract creation with `init_code`.
    pub fn create(from: Address, init_code: impl Into<Bytes>) -> Self {
        TxRequest {
            from,
            to: None,
            value: U256::ZERO,
            data: init_code.into(),
            gas_limit: DEPLOY_GAS_LIMIT,
            priority_fee: None,
        }
    }

    /// The same request paying a priority fee of at least `tip` wei per gas (the node's
    /// suggested tip when it is higher), with a fee cap of twice the base fee plus the
    /// tip.
    pub fn with_priority_fee(mut self, tip: u128) -> Self {
        self.priority_fee = Some(tip);
        self
    }

    /// The same request sending `value` wei.
    pub fn with_value(mut self, value: U256) -> Self {
        self.value = value;
        self
    }
}

/// Gas limit of ordinary calls: far above any referee operation, far below a block.
pub const DEFAULT_GAS_LIMIT: u64 = 5_000_000;
/// Gas limit of deployments (a 24 KiB contract needs about 5.5 million).
pub const DEPLOY_GAS_LIMIT: u64 = 15_000_000;

/// What a mined transaction did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxReceipt {
    /// `true` if the transaction succeeded; `false` if it reverted.
    pub success: bool,
    /// Gas used as a receipt reports it: 21,000 base, calldata, execution, refunds.
    pub gas_used: u64,
    /// Wei the sender paid for gas (zero on the in-process chain, whose gas price is zero).
    pub fee: U256,
    /// Logs emitted (empty when reverted).
    pub logs: Vec<Log>,
    /// Return data on success, revert data on failure.
    pub output: Bytes,
    /// Address of the contract created, for a creation.
    pub created: Option<Address>,
    /// The transaction's hash (`None` on the in-process chain, which has no transactions
    /// to look up).
    pub tx_hash: Option<B256>,
    /// The block that included it (`None` on the in-process chain).
    pub block_number: Option<u64>,
}

/// Result of a read-only call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallOutcome {
    /// The call returned this data.
    Return(Bytes),
    /// The call reverted with this data.
    Revert(Bytes),
}

impl CallOutcome {
    /// The ABI-decoded return of `T`, or the decoded revert as an error
    /// naming `operation`.
    pub fn decode<T: alloy_sol_types::SolCall>(
        self,
        operation: &'static str,
    ) -> Result<T::Return, crate::EvmError> {
        match self {
            CallOutcome::Return(data) => {
                T::abi_decode_returns(&data).map_err(|e| crate::EvmError::Decode {
                    operation,
                    message: e.to_string(),
                })
            }
            CallOutcome::Revert(data) => Err(crate::EvmError::Reverted {
                operation,
                revert: crate::ContractRevert::decode(&data),
                gas_used: 0,
            }),
        }
    }
}

/// A chain the harness can deploy to, transact with and read from.
///
/// Implemented by [`crate::RevmChain`] (in process, the default) and
/// [`crate::RpcChain`] (any JSON-RPC node, e.g. anvil).
pub trait Chain {
    /// A short description ("revm (prague, in process)", "rpc http://...").
    fn describe(&self) -> String;
    /// Funded accounts the chain can send from.
    fn accounts(&self) -> &[Address];
    /// Sends a transaction and waits until it is mined.
    fn send(&mut self, tx: TxRequest) -> Result<TxReceipt, ChainError>;
    /// Executes a read-only call against the latest state, committing nothing.
    fn call(&mut self, from: Address, to: Address, data: Bytes) -> Result<CallOutcome, ChainError>;
    /// Balance of `address` in wei.
    fn balance(&mut self, address: Address) -> Result<U256, ChainError>;
    /// Timestamp the next transaction will see (the latest block's on a node).
    fn timestamp(&mut self) -> Result<u64, ChainError>;
    /// The chain id (`block.chainid`): part of every EIP-712 domain.
    fn chain_id(&mut self) -> Result<u64, ChainError>;
    /// Moves the clock `seconds` forward for the following transactions.
    fn advance_time(&mut self, seconds: u64) -> Result<(), ChainError>;
    /// Reads one storage slot of `address`.
    fn storage(&mut self, address: Address, slot: U256) -> Result<U256, ChainError>;
    /// The private key of `account`, when the harness holds it (to sign off-chain
    /// messages as that player: docs/CHANNEL.md); `None` for a node's unlocked account
    /// whose key it does not know.
    fn signer(&self, account: Address) -> Option<PrivateKeySigner> {
        let _ = account;
        None
    }

    /// Deploys `init_code` from `from`; fails if the creation reverts.
    fn deploy(
        &mut self,
        from: Address,
        init_code: Bytes,
    ) -> Result<(Address, TxReceipt), ChainError> {
        let receipt = self.send(TxRequest::create(from, init_code))?;
        match (receipt.success, receipt.created) {
            (true, Some(address)) => Ok((address, receipt)),
            _ => Err(ChainError::DeployFailed {
                revert: receipt.output,
            }),
        }
    }
}

impl<C: Chain + ?Sized> Chain for Box<C> {
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn accounts(&self) -> &[Address] {
        (**self).accounts()
    }
    fn send(&mut self, tx: TxRequest) -> Result<TxReceipt, ChainError> {
        (**self).send(tx)
    }
    fn call(&mut self, from: Address, to: Address, data: Bytes) -> Result<CallOutcome, ChainError> {
        (**self).call(from, to, data)
    }
    fn balance(&mut self, address: Address) -> Result<U256, ChainError> {
        (**self).balance(address)
    }
    fn timestamp(&mut self) -> Result<u64, ChainError> {
        (**self).timestamp()
    }
    fn chain_id(&mut self) -> Result<u64, ChainError> {
        (**self).chain_id()
    }
    fn advance_time(&mut self, seconds: u64) -> Result<(), ChainError> {
        (**self).advance_time(seconds)
    }
    fn storage(&mut self, address: Address, slot: U256) -> Result<U256, ChainError> {
        (**self).storage(address, slot)
    }
    fn signer(&self, account: Address) -> Option<PrivateKeySigner> {
        (**self).signer(account)
    }
}

/// A chain borrowed from its owner: a driver (`Tournament::of(Referee::at(Borrowed(..),
/// ..))`) can send over the connection a client holds, so a sender keeps one connection
/// and one nonce. (A newtype, not `impl Chain for &mut C`, under which `x.chain().accounts()`
/// would borrow a temporary.)
#[derive(Debug)]
pub struct Borrowed<'a, C: ?Sized>(pub &'a mut C);

impl<C: Chain + ?Sized> Chain for Borrowed<'_, C> {
    fn describe(&self) -> String {
        (*self.0).describe()
    }
    fn accounts(&self) -> &[Address] {
        (*self.0).accounts()
    }
    fn send(&mut self, tx: TxRequest) -> Result<TxReceipt, ChainError> {
        (*self.0).send(tx)
    }
    fn call(&mut self, from: Address, to: Address, data: Bytes) -> Result<CallOutcome, ChainError> {
        (*self.0).call(from, to, data)
    }
    fn balance(&mut self, address: Address) -> Result<U256, ChainError> {
        (*self.0).balance(address)
    }
    fn timestamp(&mut self) -> Result<u64, ChainError> {
        (*self.0).timestamp()
    }
    fn chain_id(&mut self) -> Result<u64, ChainError> {
        (*self.0).chain_id()
    }
    fn advance_time(&mut self, seconds: u64) -> Result<(), ChainError> {
        (*self.0).advance_time(seconds)
    }
    fn storage(&mut self, address: Address, slot: U256) -> Result<U256, ChainError> {
        (*self.0).storage(address, slot)
    }
    fn signer(&self, account: Address) -> Option<PrivateKeySigner> {
        (*self.0).signer(account)
    }
}

/// Environment variable with comma-separated hex private keys the RPC
/// backend signs with; unset: the node's unlocked accounts (anvil).
pub const PRIVATE_KEYS_ENV: &str = "CHESSREF_PRIVATE_KEYS";

/// The chain the CLI and tests use: the in-process revm chain by default,
/// or the JSON-RPC node at `rpc` (signing with [`PRIVATE_KEYS_ENV`] if set).
pub fn connect(rpc: Option<&str>) -> Result<Box<dyn Chain>, ChainError> {
    match rpc {
        None => Ok(Box::new(crate::RevmChain::new())),
        Some(url) => Ok(Box::new(connect_rpc(url)?)),
    }
}

/// The JSON-RPC node at `url`, signing with [`PRIVATE_KEYS_ENV`] if set (else the node's
/// unlocked accounts).
pub fn connect_rpc(url: &str) -> Result<crate::RpcChain, ChainError> {
    let keys: Vec<String> = std::env::var(PRIVATE_KEYS_ENV)
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|k| !k.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    crate::RpcChain::connect_with_keys(url, &keys)
}
