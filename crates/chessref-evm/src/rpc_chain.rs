//! Any JSON-RPC node (anvil, a testnet, ...) through an alloy provider.

use std::time::Duration;

use alloy::eips::BlockNumberOrTag;
use alloy::rpc::types::Filter;
use alloy::{
    network::EthereumWallet,
    primitives::TxKind,
    providers::{DynProvider, Provider, ProviderBuilder},
    rpc::types::{TransactionInput, TransactionRequest},
    signers::local::PrivateKeySigner,
    transports::{RpcError, TransportErrorKind},
};
use alloy_primitives::{Address, B256, Bytes, Log, U256};
use serde::Serialize;

use crate::{
    chain::{CallOutcome, Chain, TxReceipt, TxRequest},
    error::ChainError,
    game_log::LogPlace,
};

/// A block as a follower of the chain needs it: to notice a reorganisation, it
/// compares the hashes it stored with the chain's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockRef {
    /// Block number.
    pub number: u64,
    /// Block hash.
    pub hash: B256,
    /// Parent's hash.
    pub parent_hash: B256,
    /// Timestamp, seconds.
    pub timestamp: u64,
}

/// How long to wait for a receipt before giving up.
const RECEIPT_TIMEOUT: Duration = Duration::from_secs(60);

/// A JSON-RPC node driven synchronously: each call blocks on a private
/// single-threaded tokio runtime (do not use it from inside an async task).
///
/// Senders are the node's unlocked accounts (`eth_accounts`, as on anvil)
/// or, with [`RpcChain::connect_with_keys`], local private keys that sign
/// every transaction.
pub struct RpcChain {
    url: String,
    runtime: tokio::runtime::Runtime,
    provider: DynProvider,
    accounts: Vec<Address>,
    keys: Vec<PrivateKeySigner>,
}

impl std::fmt::Debug for RpcChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcChain")
            .field("url", &self.url)
            .field("accounts", &self.accounts)
            .finish_non_exhaustive()
    }
}

impl RpcChain {
    /// Connects to `url` and sends from the node's unlocked accounts.
    pub fn connect(url: &str) -> Result<Self, ChainError> {
        Self::connect_with_keys(url, &[])
    }

    /// Connects to `url` to read only (blocks, logs, calls): unlike [`RpcChain::connect`]
    /// it needs no unlocked account, as public endpoints have none; sending fails with
    /// [`ChainError::UnknownAccount`].
    pub fn connect_read_only(url: &str) -> Result<Self, ChainError> {
        Self::open(url, &[])
    }

    /// Connects to `url`; with non-empty `keys` (hex private keys), sends
    /// from those keys' addresses, signing locally.
    pub fn connect_with_keys(url: &str, keys: &[String]) -> Result<Self, ChainError> {
        let mut chain = Self::open(url, keys)?;
        if chain.keys.is_empty() {
            let provider = chain.provider.clone();
            let accounts = chain.block_on(async move { provider.get_accounts().await })?;
            if accounts.is_empty() {
                return Err(ChainError::NoAccounts);
            }
            chain.accounts = accounts;
        }
        Ok(chain)
    }

    /// The chain at `url` signing with `keys` (their addresses as accounts), no node
    /// accounts asked for.
    fn open(url: &str, keys: &[String]) -> Result<Self, ChainError> {
        let parsed = url
            .parse::<alloy::transports::http::reqwest::Url>()
            .map_err(|e| ChainError::BadUrl {
                url: url.to_string(),
                message: e.to_string(),
            })?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ChainError::Rpc {
                url: url.to_string(),
                message: format!("cannot start the async runtime: {e}"),
            })?;
        let mut signers = Vec::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            let signer: PrivateKeySigner = key.trim().parse().map_err(|e| ChainError::BadKey {
                index: i + 1,
                message: format!("{e}"),
            })?;
            signers.push(signer);
        }
        let provider = if signers.is_empty() {
            ProviderBuilder::new().connect_http(parsed).erased()
        } else {
            let mut wallet = EthereumWallet::new(signers[0].clone());
            for signer in &signers[1..] {
                wallet.register_signer(signer.clone());
            }
            ProviderBuilder::new()
                .wallet(wallet)
                .connect_http(parsed)
                .erased()
        };
        Ok(RpcChain {
            url: url.to_string(),
            runtime,
            provider,
            accounts: signers.iter().map(|s| s.address()).collect(),
            keys: signers,
        })
    }

    /// The endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Any JSON-RPC method with positional `params` (a JSON array), e.g. anvil's
    /// `evm_snapshot`, `evm_revert`, `evm_mine` or `anvil_reorg` in tests.
    pub fn raw_request(
        &self,
        method: &'static str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, ChainError> {
        let provider = self.provider.clone();
        self.block_on(async move { provider.raw_request(method.into(), params).await })
    }

    /// The latest block number (`eth_blockNumber`).
    pub fn head(&self) -> Result<u64, ChainError> {
        let provider = self.provider.clone();
        self.block_on(async move { provider.get_block_number().await })
    }

    /// Number, hash, parent hash and timestamp of block `number`; `None` if the
    /// chain has no such block (yet, or any more after a reorganisation).
    pub fn block_ref(&self, number: u64) -> Result<Option<BlockRef>, ChainError> {
        let provider = self.provider.clone();
        let block = self.block_on(async move {
            provider
                .get_block_by_number(BlockNumberOrTag::Number(number))
                .await
        })?;
        Ok(block.map(|b| BlockRef {
            number: b.header.number,
            hash: b.header.hash,
            parent_hash: b.header.parent_hash,
            timestamp: b.header.timestamp,
        }))
    }

    /// The logs of `address` in blocks `from..=to` (one `eth_getLogs`; the caller
    /// bounds the range, as providers limit it), optionally only those whose first
    /// indexed topic is `topic1` (a game id), in chain order with their places.
    pub fn logs(
        &self,
        address: Address,
        from: u64,
        to: u64,
        topic1: Option<B256>,
    ) -> Result<Vec<(LogPlace, Log)>, ChainError> {
        let mut filter = Filter::new().address(address).from_block(from).to_block(to);
        if let Some(topic) = topic1 {
            filter = filter.topic1(topic);
        }
        let provider = self.provider.clone();
        let logs = self.block_on(async move { provider.get_logs(&filter).await })?;
        logs.into_iter()
            .map(|log| {
                let place = match (
                    log.block_number,
                    log.log_index,
                    log.block_hash,
                    log.transaction_hash,
                ) {
                    (Some(block_number), Some(log_index), Some(block_hash), Some(tx_hash)) => {
                        LogPlace {
                            block_number,
                            log_index,
                            block_hash,
                            tx_hash,
                        }
                    }
                    _ => {
                        return Err(self.rpc_error("eth_getLogs returned a pending log (no block)"));
                    }
                };
                Ok((place, log.inner))
            })
            .collect()
    }

    fn rpc_error(&self, message: impl std::fmt::Display) -> ChainError {
        ChainError::Rpc {
            url: self.url.clone(),
            message: message.to_string(),
        }
    }

    fn block_on<T>(
        &self,
        fut: impl Future<Output = Result<T, RpcError<TransportErrorKind>>>,
    ) -> Result<T, ChainError> {
        self.runtime.block_on(fut).map_err(|e| self.rpc_error(e))
    }

    fn request(tx: &TxRequest) -> TransactionRequest {
        TransactionRequest {
            from: Some(tx.from),
            to: Some(match tx.to {
                Some(to) => TxKind::Call(to),
                None => TxKind::Create,
            }),
            value: Some(tx.value),
            gas: Some(tx.gas_limit),
            input: TransactionInput::both(tx.data.clone()),
            ..Default::default()
        }
    }

    /// eth_call of `req` at `block` (latest if `None`), with reverts as data.
    fn eth_call(
        &self,
        req: TransactionRequest,
        block: Option<u64>,
    ) -> Result<CallOutcome, ChainError> {
        let provider = self.provider.clone();
        let result = self.runtime.block_on(async move {
            let call = provider.call(req);
            match block {
                Some(number) => call.number(number).await,
                None => call.await,
            }
        });
        match result {
            Ok(data) => Ok(CallOutcome::Return(data)),
            Err(error) => match error.as_error_resp().and_then(|resp| resp.as_revert_data()) {
                Some(data) => Ok(CallOutcome::Revert(data)),
                None => Err(self.rpc_error(error)),
            },
        }
    }
}

impl Chain for RpcChain {
    fn describe(&self) -> String {
        format!("rpc {}", self.url)
    }

    fn accounts(&self) -> &[Address] {
        &self.accounts
    }
    fn signer(&self, account: Address) -> Option<PrivateKeySigner> {
        self.keys
            .iter()
            .find(|k| k.address() == account)
            .cloned()
            .or_else(|| crate::anvil::default_signer(account))
    }

    fn send(&mut self, tx: TxRequest) -> Result<TxReceipt, ChainError> {
        if !self.accounts.contains(&tx.from) {
            return Err(ChainError::UnknownAccount(tx.from));
        }
        let req = Self::request(&tx);
        let provider = self.provider.clone();
        let hash = self.block_on(async move {
            provider
                .send_transaction(req)
                .await
                .map(|pending| *pending.tx_hash())
        })?;
        // A dev node mines at once; poll briefly rather than alloy's block heartbeat.
        let started = std::time::Instant::now();
        let receipt = loop {
            let provider = self.provider.clone();
            if let Some(receipt) =
                self.block_on(async move { provider.get_transaction_receipt(hash).await })?
            {
                break receipt;
            }
            if started.elapsed() > RECEIPT_TIMEOUT {
                return Err(
                    self.rpc_error(format!("no receipt for {hash} after {RECEIPT_TIMEOUT:?}"))
                );
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let success = receipt.status();
        let fee = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
        let logs = receipt.logs().iter().map(|log| log.inner.clone()).collect();
        let output = if success {
            Bytes::new()
        } else {
            // Receipts carry no revert data: re-run the call on the state it saw.
            let before = receipt.block_number.map(|n| n.saturating_sub(1));
            match self.eth_call(Self::request(&tx), before)? {
                CallOutcome::Revert(data) => data,
                CallOutcome::Return(_) => Bytes::new(),
            }
        };
        Ok(TxReceipt {
            success,
            gas_used: receipt.gas_used,
            fee,
            logs,
            output,
            created: receipt.contract_address,
        })
    }

    fn call(&mut self, from: Address, to: Address, data: Bytes) -> Result<CallOutcome, ChainError> {
        let req = TransactionRequest {
            from: Some(from),
            to: Some(TxKind::Call(to)),
            input: TransactionInput::both(data),
            ..Default::default()
        };
        self.eth_call(req, None)
    }

    fn balance(&mut self, address: Address) -> Result<U256, ChainError> {
        let provider = self.provider.clone();
        self.block_on(async move { provider.get_balance(address).await })
    }

    fn timestamp(&mut self) -> Result<u64, ChainError> {
        let provider = self.provider.clone();
        let block =
            self.block_on(async move { provider.get_block_by_number(Default::default()).await })?;
        block
            .map(|b| b.header.timestamp)
            .ok_or_else(|| self.rpc_error("the latest block is missing"))
    }

    fn chain_id(&mut self) -> Result<u64, ChainError> {
        let provider = self.provider.clone();
        self.block_on(async move { provider.get_chain_id().await })
    }

    fn advance_time(&mut self, seconds: u64) -> Result<(), ChainError> {
        let provider = self.provider.clone();
        self.block_on(async move {
            let _: serde_json::Value = provider
                .raw_request("evm_increaseTime".into(), (seconds,))
                .await?;
            let _: serde_json::Value = provider.raw_request("evm_mine".into(), ()).await?;
            Ok(())
        })
    }

    fn storage(&mut self, address: Address, slot: U256) -> Result<U256, ChainError> {
        let provider = self.provider.clone();
        self.block_on(async move { provider.get_storage_at(address, slot).await })
    }
}
