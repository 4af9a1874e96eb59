//! Any JSON-RPC node (anvil, a testnet, ...) through an alloy provider.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use alloy::eips::BlockNumberOrTag;
use alloy::rpc::types::Filter;
use alloy::{
    network::EthereumWallet,
    primitives::TxKind,
    providers::{DynProvider, Provider, ProviderBuilder},
    rpc::types::{TransactionInput, TransactionRequest},
    signers::local::PrivateKeySigner,
    transports::{RpcError, TransportErrorKind, http::reqwest},
};
use alloy_primitives::{Address, B256, Bytes, Log, U256};
use serde::Serialize;

use crate::http::{Unread, causes, excerpt, read_bounded};
use crate::{
    chain::{CallOutcome, Chain, TxReceipt, TxRequest},
    error::ChainError,
    sender::Sender,
};

/// Where a log sits on the chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogPlace {
    /// Block number.
    pub block_number: u64,
    /// Log index within the block.
    pub log_index: u64,
    /// Block hash.
    pub block_hash: B256,
    /// Transaction hash.
    pub tx_hash: B256,
}

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

/// A block as [`RpcChain::block_with_transactions`] answers it: the block and its
/// transactions' hashes, in order.
pub type BlockAndTransactions = (BlockRef, Vec<B256>);

/// How long to wait for a receipt before giving up (a few minutes of blocks on a busy chain).
const RECEIPT_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest pause between two receipt polls.
const RECEIPT_POLL_MAX: Duration = Duration::from_secs(1);

/// How long connecting and each request wait for the node unless told otherwise
/// ([`RpcChain::set_default_timeout`], [`RpcChain::with_timeout`]).
pub const DEFAULT_RPC_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest `eth_getLogs` answer [`RpcChain::logs_matching`] reads, in bytes of the
/// JSON-RPC answer (32 MiB); [`RpcChain::logs_within`] takes any bound.
pub const DEFAULT_MAX_LOG_BYTES: usize = 32 << 20;

/// How many `eth_getBlockByNumber` requests [`RpcChain::blocks_with_transactions`] keeps
/// in flight at once.
const BLOCKS_IN_FLIGHT: usize = 16;

/// The process-wide timeout of new connections, in microseconds (see
/// [`RpcChain::set_default_timeout`]).
static DEFAULT_TIMEOUT_MICROS: AtomicU64 = AtomicU64::new(DEFAULT_RPC_TIMEOUT.as_micros() as u64);

/// A JSON-RPC node driven synchronously: each call blocks on a private
/// single-threaded tokio runtime (do not use it from inside an async task).
///
/// Senders are the node's unlocked accounts (`eth_accounts`, as on anvil)
/// or, with [`RpcChain::connect_with_keys`], local private keys that sign
/// every transaction.
///
/// Connecting and every request are bounded by a timeout ([`DEFAULT_RPC_TIMEOUT`], the
/// process's [`RpcChain::set_default_timeout`], or this chain's [`RpcChain::with_timeout`]):
/// a node that accepts and never answers is [`ChainError::Timeout`], naming the endpoint
/// and the request, never a silent hang. Waiting for a receipt is a series of polls: each
/// poll is bounded so, the whole wait by its own limit (five minutes).
pub struct RpcChain {
    url: String,
    timeout: Duration,
    runtime: tokio::runtime::Runtime,
    provider: DynProvider,
    /// The HTTP client of bounded answers ([`RpcChain::logs_within`]), for an http(s) URL.
    http: Option<(reqwest::Client, reqwest::Url)>,
    /// The id of the next request sent through `http`.
    next_id: AtomicU64,
    accounts: Vec<Address>,
    keys: Vec<PrivateKeySigner>,
}

impl std::fmt::Debug for RpcChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcChain")
            .field("url", &self.url)
            .field("timeout", &self.timeout)
            .field("accounts", &self.accounts)
            .finish_non_exhaustive()
    }
}

impl RpcChain {
    /// Sets the timeout of the connections made from now on in this process, connecting
    /// included (the command line's `--rpc-timeout`); at least a millisecond.
    pub fn set_default_timeout(timeout: Duration) {
        let micros = u64::try_from(timeout.as_micros()).unwrap_or(u64::MAX);
        DEFAULT_TIMEOUT_MICROS.store(micros.max(1_000), Ordering::Relaxed);
    }

    /// The timeout new connections get: [`DEFAULT_RPC_TIMEOUT`] unless
    /// [`RpcChain::set_default_timeout`] changed it.
    pub fn default_timeout() -> Duration {
        Duration::from_micros(DEFAULT_TIMEOUT_MICROS.load(Ordering::Relaxed))
    }

    /// This chain with every following request bounded by `timeout` (connecting used the
    /// [`RpcChain::default_timeout`]); at least a millisecond.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long each request waits for the node.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Connects to `url` and sends from the node's unlocked accounts.
    pub fn connect(url: &str) -> Result<Self, ChainError> {
        Self::connect_with_keys(url, &[])
    }

    /// Connects to `url` to read only (blocks, logs, calls): unlike [`RpcChain::connect`]
    /// it needs no unlocked account, as public endpoints have none; sending fails with
    /// [`ChainError::UnknownAccount`].
    pub fn connect_read_only(url: &str) -> Result<Self, ChainError> {
        Self::connect_node(url, Vec::new(), Self::default_timeout())
    }

    /// Connects to `url`; with non-empty `keys` (hex private keys), sends
    /// from those keys' addresses, signing locally.
    pub fn connect_with_keys(url: &str, keys: &[String]) -> Result<Self, ChainError> {
        let mut signers = Vec::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            let signer: PrivateKeySigner = key.trim().parse().map_err(|e| ChainError::BadKey {
                index: i + 1,
                message: format!("{e}"),
            })?;
            signers.push(signer);
        }
        Self::open(url, signers)
    }

    /// Connects to `url` sending as `sender` alone: its key signs locally, or the node
    /// must hold the unlocked account (else [`ChainError::NotUnlocked`]).
    pub fn connect_as(url: &str, sender: &Sender) -> Result<Self, ChainError> {
        match sender {
            Sender::Local(signer) => Self::open(url, vec![signer.clone()]),
            Sender::Unlocked(address) => {
                let mut chain = Self::open(url, Vec::new())?;
                if !chain.accounts.contains(address) {
                    return Err(ChainError::NotUnlocked {
                        url: url.to_string(),
                        account: *address,
                    });
                }
                chain.accounts = vec![*address];
                Ok(chain)
            }
        }
    }

    /// Connects over HTTP(S) or WebSocket (by the URL's scheme) and asks the chain id,
    /// so an endpoint that is down, silent or not a JSON-RPC node fails here, by name; the
    /// accounts are the signers'. Connecting and every request wait `timeout` at most.
    fn connect_node(
        url: &str,
        signers: Vec<PrivateKeySigner>,
        timeout: Duration,
    ) -> Result<Self, ChainError> {
        let parsed = url
            .parse::<alloy::transports::http::reqwest::Url>()
            .map_err(|e| ChainError::BadUrl {
                url: url.to_string(),
                message: e.to_string(),
            })?;
        if !matches!(parsed.scheme(), "http" | "https" | "ws" | "wss") {
            return Err(ChainError::BadUrl {
                url: url.to_string(),
                message: format!(
                    "unsupported scheme {:?}: use http://, https://, ws:// or wss://",
                    parsed.scheme()
                ),
            });
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ChainError::Rpc {
                url: url.to_string(),
                message: format!("cannot start the async runtime: {e}"),
            })?;
        let wallet = signers.split_first().map(|(first, rest)| {
            let mut wallet = EthereumWallet::new(first.clone());
            for signer in rest {
                wallet.register_signer(signer.clone());
            }
            wallet
        });
        // A WebSocket connection's task lives on this runtime: it must be made inside it.
        // HTTP connects within each request, which the request's timeout bounds; a
        // WebSocket connects here, bounded the same.
        let connected = runtime.block_on(async {
            tokio::time::timeout(timeout, async {
                Ok::<_, RpcError<TransportErrorKind>>(match wallet {
                    None => ProviderBuilder::new().connect(url).await?.erased(),
                    Some(wallet) => ProviderBuilder::new()
                        .wallet(wallet)
                        .connect(url)
                        .await?
                        .erased(),
                })
            })
            .await
        });
        let provider = connected
            .map_err(|_| ChainError::Timeout {
                url: url.to_string(),
                what: "the WebSocket handshake",
                after: timeout,
            })?
            .map_err(|e| classify(url, e))?;
        let http = match parsed.scheme() {
            "http" | "https" => {
                let client = reqwest::Client::builder()
                    .build()
                    .map_err(|e| ChainError::Rpc {
                        url: url.to_string(),
                        message: format!("cannot make an HTTP client: {}", causes(&e)),
                    })?;
                Some((client, parsed))
            }
            _ => None,
        };
        let mut chain = RpcChain {
            url: url.to_string(),
            timeout,
            runtime,
            provider,
            http,
            next_id: AtomicU64::new(1),
            accounts: signers.iter().map(|s| s.address()).collect(),
            keys: signers,
        };
        chain.chain_id()?;
        Ok(chain)
    }

    /// [`RpcChain::connect_node`], then the accounts: the signers' addresses, else the
    /// node's unlocked accounts (at least one).
    fn open(url: &str, signers: Vec<PrivateKeySigner>) -> Result<Self, ChainError> {
        let mut chain = Self::connect_node(url, signers, Self::default_timeout())?;
        if chain.keys.is_empty() {
            let provider = chain.provider.clone();
            let accounts =
                chain.block_on("eth_accounts", async move { provider.get_accounts().await })?;
            if accounts.is_empty() {
                return Err(ChainError::NoAccounts);
            }
            chain.accounts = accounts;
        }
        Ok(chain)
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
        self.block_on(method, async move {
            provider.raw_request(method.into(), params).await
        })
    }

    /// The input (calldata) of transaction `hash`, if the node knows it: what a log's
    /// transaction called with, e.g. the signed moves of a registration.
    pub fn transaction_input(&self, hash: B256) -> Result<Option<Bytes>, ChainError> {
        use alloy::consensus::Transaction as _;
        Ok(self.transaction(hash)?.map(|tx| tx.input().clone()))
    }

    /// The sender of transaction `hash`, if the node knows it: who sent a log's
    /// transaction, e.g. who registered a channel game's position.
    pub fn transaction_sender(&self, hash: B256) -> Result<Option<Address>, ChainError> {
        use alloy::network::TransactionResponse as _;
        Ok(self.transaction(hash)?.map(|tx| tx.from()))
    }

    /// Transaction `hash` as the node reports it (`eth_getTransactionByHash`).
    fn transaction(
        &self,
        hash: B256,
    ) -> Result<Option<alloy::rpc::types::Transaction>, ChainError> {
        let provider = self.provider.clone();
        self.block_on("eth_getTransactionByHash", async move {
            provider.get_transaction_by_hash(hash).await
        })
    }

    /// The runtime code at `address` in the latest block (empty: no contract there).
    pub fn code(&self, address: Address) -> Result<Bytes, ChainError> {
        let provider = self.provider.clone();
        self.block_on(
            "eth_getCode",
            async move { provider.get_code_at(address).await },
        )
    }

    /// `eth_estimateGas` of `tx` (its gas limit ignored) in the pending block, the one it
    /// would be mined in: `Ok(gas)`, or `Err(revert data)` when the node says the
    /// transaction would revert there.
    ///
    /// Named, not left to the node's default (anvil's is pending, geth's latest): a call
    /// that checks a signed time against `block.timestamp` (a channel receipt held a
    /// second ago) passes in the next block but reverts in the latest one, whose time is
    /// that of the last transaction.
    pub fn estimate_gas(&self, tx: &TxRequest) -> Result<Result<u64, Bytes>, ChainError> {
        let mut req = Self::request(tx);
        req.gas = None;
        let provider = self.provider.clone();
        match self.answer("eth_estimateGas", async move {
            provider
                .estimate_gas(req)
                .block(alloy::eips::BlockId::pending())
                .await
        })? {
            Ok(gas) => Ok(Ok(gas)),
            Err(error) => match error.as_error_resp().and_then(|resp| resp.as_revert_data()) {
                Some(data) => Ok(Err(data)),
                None => Err(classify(&self.url, error)),
            },
        }
    }

    /// A read-only call of `to` with `data` on the state after block `block` (a reader
    /// that folded events up to `block` compares them with the state of that block).
    pub fn call_at(
        &self,
        from: Address,
        to: Address,
        data: Bytes,
        block: u64,
    ) -> Result<CallOutcome, ChainError> {
        let req = TransactionRequest {
            from: Some(from),
            to: Some(TxKind::Call(to)),
            input: TransactionInput::both(data),
            ..Default::default()
        };
        self.eth_call(req, Some(block))
    }

    /// The number of transactions `account` has sent (`eth_getTransactionCount`, latest).
    pub fn nonce(&self, account: Address) -> Result<u64, ChainError> {
        let provider = self.provider.clone();
        self.block_on("eth_getTransactionCount", async move {
            provider.get_transaction_count(account).await
        })
    }

    /// The node's gas price (`eth_gasPrice`, wei per gas): what a transaction pays now.
    pub fn gas_price(&self) -> Result<u128, ChainError> {
        let provider = self.provider.clone();
        self.block_on(
            "eth_gasPrice",
            async move { provider.get_gas_price().await },
        )
    }

    /// The latest block number (`eth_blockNumber`).
    pub fn head(&self) -> Result<u64, ChainError> {
        let provider = self.provider.clone();
        self.block_on("eth_blockNumber", async move {
            provider.get_block_number().await
        })
    }

    /// Number, hash, parent hash and timestamp of block `number`; `None` if the
    /// chain has no such block (yet, or any more after a reorganisation).
    pub fn block_ref(&self, number: u64) -> Result<Option<BlockRef>, ChainError> {
        Ok(self
            .block_with_transactions(number)?
            .map(|(block, _)| block))
    }

    /// [`RpcChain::block_ref`] of block `number` and the hashes of its transactions, in
    /// order (the same one `eth_getBlockByNumber`), as the node answered them: the
    /// number is the one the node says, which a caller that trusts nothing compares with
    /// the one asked.
    pub fn block_with_transactions(
        &self,
        number: u64,
    ) -> Result<Option<BlockAndTransactions>, ChainError> {
        let provider = self.provider.clone();
        let block = self.block_on("eth_getBlockByNumber", async move {
            fetch_block(provider, number).await
        })?;
        Ok(block)
    }

    /// [`RpcChain::block_with_transactions`] of each of `numbers`, in their order, a few
    /// requests in flight at once; each group of them waits the chain's timeout at most.
    pub fn blocks_with_transactions(
        &self,
        numbers: &[u64],
    ) -> Result<Vec<Option<BlockAndTransactions>>, ChainError> {
        let mut blocks = Vec::with_capacity(numbers.len());
        for group in numbers.chunks(BLOCKS_IN_FLIGHT) {
            let provider = self.provider.clone();
            let group = group.to_vec();
            let answers = self.block_on("eth_getBlockByNumber", async move {
                let mut tasks = tokio::task::JoinSet::new();
                for (i, number) in group.into_iter().enumerate() {
                    let provider = provider.clone();
                    tasks.spawn(async move { (i, fetch_block(provider, number).await) });
                }
                let mut answers = Vec::new();
                while let Some(joined) = tasks.join_next().await {
                    let (i, answer) = joined.map_err(TransportErrorKind::custom)?;
                    answers.push((i, answer?));
                }
                answers.sort_by_key(|(i, _)| *i);
                Ok(answers)
            })?;
            blocks.extend(answers.into_iter().map(|(_, block)| block));
        }
        Ok(blocks)
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
        self.logs_matching(address, from, to, [None, topic1, None, None])
    }

    /// The logs of `address` in blocks `from..=to` whose topics match `topics` (index 0
    /// the event's signature, 1..3 its indexed fields; `None` matches any), in chain
    /// order with their places (one `eth_getLogs`; the caller bounds the range); an
    /// answer longer than [`DEFAULT_MAX_LOG_BYTES`] is refused ([`RpcChain::logs_within`]).
    pub fn logs_matching(
        &self,
        address: Address,
        from: u64,
        to: u64,
        topics: [Option<B256>; 4],
    ) -> Result<Vec<(LogPlace, Log)>, ChainError> {
        self.logs_within(address, from, to, topics, DEFAULT_MAX_LOG_BYTES)
    }

    /// [`RpcChain::logs_matching`] with the answer bounded to `max_bytes` bytes of
    /// JSON-RPC: a longer one is [`ChainError::TooLarge`] (ask a smaller range). Over
    /// HTTP(S) the answer is read no further than the bound (a declared longer one is not
    /// read at all), so a node cannot make the caller hold more; over WebSocket the
    /// transport reads each message whole (up to its own limit) and the bound applies to
    /// the answer's JSON once decoded.
    pub fn logs_within(
        &self,
        address: Address,
        from: u64,
        to: u64,
        topics: [Option<B256>; 4],
        max_bytes: usize,
    ) -> Result<Vec<(LogPlace, Log)>, ChainError> {
        self.logs_of_within(&[address], from, to, topics, max_bytes)
    }

    /// [`RpcChain::logs_within`] of several contracts in one `eth_getLogs` (its filter's
    /// address list): the logs of any of `addresses`, bounded to `max_bytes` together.
    pub fn logs_of_within(
        &self,
        addresses: &[Address],
        from: u64,
        to: u64,
        topics: [Option<B256>; 4],
        max_bytes: usize,
    ) -> Result<Vec<(LogPlace, Log)>, ChainError> {
        let mut filter = Filter::new()
            .address(addresses.to_vec())
            .from_block(from)
            .to_block(to);
        for (index, topic) in topics.into_iter().enumerate() {
            if let Some(topic) = topic {
                filter = match index {
                    0 => filter.event_signature(topic),
                    1 => filter.topic1(topic),
                    2 => filter.topic2(topic),
                    _ => filter.topic3(topic),
                };
            }
        }
        let logs: Vec<alloy::rpc::types::Log> = match &self.http {
            Some((client, url)) => self.bounded_request(
                client,
                url,
                "eth_getLogs",
                serde_json::json!([filter]),
                max_bytes,
            )?,
            None => {
                let provider = self.provider.clone();
                let logs =
                    self.block_on(
                        "eth_getLogs",
                        async move { provider.get_logs(&filter).await },
                    )?;
                let length = serde_json::to_vec(&logs).map_or(0, |json| json.len());
                if length > max_bytes {
                    return Err(ChainError::TooLarge {
                        url: self.url.clone(),
                        what: "eth_getLogs",
                        limit: max_bytes,
                    });
                }
                logs
            }
        };
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

    /// One JSON-RPC request `method` with `params` over HTTP(S), its answer read no
    /// further than `max_bytes` ([`ChainError::TooLarge`]), within the chain's timeout; the
    /// node's errors and answers that are not JSON-RPC are classified as the provider's.
    fn bounded_request<T: serde::de::DeserializeOwned>(
        &self,
        client: &reqwest::Client,
        url: &reqwest::Url,
        method: &'static str,
        params: serde_json::Value,
        max_bytes: usize,
    ) -> Result<T, ChainError> {
        use alloy::rpc::json_rpc::{Id, Request, Response, ResponsePayload};
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        // alloy's JSON-RPC envelope; only the transport is ours, for its bounded read.
        let body = serde_json::to_vec(&Request::new(method, Id::Number(id), params))
            .map_err(|e| self.rpc_error(format!("cannot encode {method}: {e}")))?;
        let request = client
            .post(url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        let timeout = self.timeout;
        let read = self
            .runtime
            .block_on(async move {
                tokio::time::timeout(timeout, read_bounded(request, max_bytes)).await
            })
            .map_err(|_| ChainError::Timeout {
                url: self.url.clone(),
                what: method,
                after: timeout,
            })?;
        let (status, body) = match read {
            Ok(read) => read,
            Err(Unread::TooLarge) => {
                return Err(ChainError::TooLarge {
                    url: self.url.clone(),
                    what: method,
                    limit: max_bytes,
                });
            }
            Err(Unread::Transport(error)) => {
                return Err(ChainError::Unreachable {
                    url: self.url.clone(),
                    message: causes(&error),
                });
            }
        };
        let answer = serde_json::from_slice::<Response<T>>(&body);
        match answer {
            Ok(Response {
                payload: ResponsePayload::Failure(error),
                ..
            }) => Err(self.rpc_error(format!("server returned an error response: {error}"))),
            _ if !status.is_success() => Err(ChainError::BadAnswer {
                url: self.url.clone(),
                message: format!(
                    "HTTP status {}: {}",
                    status.as_u16(),
                    excerpt(&String::from_utf8_lossy(&body))
                ),
            }),
            Ok(Response {
                id: answered,
                payload: ResponsePayload::Success(result),
            }) if answered == Id::Number(id) => Ok(result),
            Ok(Response { id: answered, .. }) => Err(ChainError::BadAnswer {
                url: self.url.clone(),
                message: format!(
                    "no result for request {id} in the answer to {method} (id {answered}): {:?}",
                    excerpt(&String::from_utf8_lossy(&body))
                ),
            }),
            Err(error) => Err(ChainError::BadAnswer {
                url: self.url.clone(),
                message: format!("{error} in {:?}", excerpt(&String::from_utf8_lossy(&body))),
            }),
        }
    }

    fn rpc_error(&self, message: impl std::fmt::Display) -> ChainError {
        ChainError::Rpc {
            url: self.url.clone(),
            message: message.to_string(),
        }
    }

    /// Runs `fut` (the request `what`) to its answer, or [`ChainError::Timeout`] after
    /// this chain's timeout; the answer may be the node's error, for the caller to read.
    fn answer<T>(
        &self,
        what: &'static str,
        fut: impl Future<Output = Result<T, RpcError<TransportErrorKind>>>,
    ) -> Result<Result<T, RpcError<TransportErrorKind>>, ChainError> {
        let timeout = self.timeout;
        // The timer must be made inside the runtime.
        self.runtime
            .block_on(async move { tokio::time::timeout(timeout, fut).await })
            .map_err(|_| ChainError::Timeout {
                url: self.url.clone(),
                what,
                after: timeout,
            })
    }

    /// Runs `fut` (the request `what`) to its answer, within this chain's timeout.
    fn block_on<T>(
        &self,
        what: &'static str,
        fut: impl Future<Output = Result<T, RpcError<TransportErrorKind>>>,
    ) -> Result<T, ChainError> {
        self.answer(what, fut)?.map_err(|e| classify(&self.url, e))
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
        let result = self.answer("eth_call", async move {
            let call = provider.call(req);
            match block {
                Some(number) => call.number(number).await,
                None => call.await,
            }
        })?;
        match result {
            Ok(data) => Ok(CallOutcome::Return(data)),
            Err(error) => match error.as_error_resp().and_then(|resp| resp.as_revert_data()) {
                Some(data) => Ok(CallOutcome::Revert(data)),
                None => Err(classify(&self.url, error)),
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
        let mut req = Self::request(&tx);
        if let Some(tip) = tx.priority_fee {
            // Both fees set, or the provider's filler replaces them with its estimate.
            let provider = self.provider.clone();
            let estimate = self.block_on("eth_feeHistory", async move {
                provider.estimate_eip1559_fees().await
            })?;
            let tip = tip.max(estimate.max_priority_fee_per_gas);
            let base = estimate
                .max_fee_per_gas
                .saturating_sub(estimate.max_priority_fee_per_gas);
            req.max_priority_fee_per_gas = Some(tip);
            req.max_fee_per_gas = Some(base.saturating_add(tip));
        }
        let provider = self.provider.clone();
        // The provider fills the nonce, gas and fees with requests of its own first.
        let what = if self.keys.is_empty() {
            "eth_sendTransaction (or a request filling it: nonce, gas, fees)"
        } else {
            "eth_sendRawTransaction (or a request filling it: nonce, gas, fees)"
        };
        let hash = self.block_on(what, async move {
            provider
                .send_transaction(req)
                .await
                .map(|pending| *pending.tx_hash())
        })?;
        // A dev node mines at once; poll briefly rather than alloy's block heartbeat, backing
        // off (2 ms doubling to 1 s) so a real chain's 12-second blocks cost few requests.
        let started = std::time::Instant::now();
        let mut pause = Duration::from_millis(2);
        let receipt = loop {
            let provider = self.provider.clone();
            if let Some(receipt) = self.block_on("eth_getTransactionReceipt", async move {
                provider.get_transaction_receipt(hash).await
            })? {
                break receipt;
            }
            if started.elapsed() > RECEIPT_TIMEOUT {
                return Err(
                    self.rpc_error(format!("no receipt for {hash} after {RECEIPT_TIMEOUT:?}"))
                );
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(RECEIPT_POLL_MAX);
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
            tx_hash: Some(hash),
            block_number: receipt.block_number,
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
        self.block_on("eth_getBalance", async move {
            provider.get_balance(address).await
        })
    }

    fn timestamp(&mut self) -> Result<u64, ChainError> {
        let provider = self.provider.clone();
        let block = self.block_on("eth_getBlockByNumber", async move {
            provider.get_block_by_number(Default::default()).await
        })?;
        block
            .map(|b| b.header.timestamp)
            .ok_or_else(|| self.rpc_error("the latest block is missing"))
    }

    fn chain_id(&mut self) -> Result<u64, ChainError> {
        let provider = self.provider.clone();
        self.block_on("eth_chainId", async move { provider.get_chain_id().await })
    }

    fn advance_time(&mut self, seconds: u64) -> Result<(), ChainError> {
        let provider = self.provider.clone();
        let _: serde_json::Value = self.block_on("evm_increaseTime", async move {
            provider
                .raw_request("evm_increaseTime".into(), (seconds,))
                .await
        })?;
        let provider = self.provider.clone();
        let _: serde_json::Value = self.block_on("evm_mine", async move {
            provider.raw_request("evm_mine".into(), ()).await
        })?;
        Ok(())
    }

    fn storage(&mut self, address: Address, slot: U256) -> Result<U256, ChainError> {
        let provider = self.provider.clone();
        self.block_on("eth_getStorageAt", async move {
            provider.get_storage_at(address, slot).await
        })
    }
}

/// Block `number` with its transactions' hashes, as the node answers it.
async fn fetch_block(
    provider: DynProvider,
    number: u64,
) -> Result<Option<BlockAndTransactions>, RpcError<TransportErrorKind>> {
    let block = provider
        .get_block_by_number(BlockNumberOrTag::Number(number))
        .await?;
    Ok(block.map(|b| {
        (
            BlockRef {
                number: b.header.number,
                hash: b.header.hash,
                parent_hash: b.header.parent_hash,
                timestamp: b.header.timestamp,
            },
            b.transactions.hashes().collect(),
        )
    }))
}

/// The [`ChainError`] of a failed request: the endpoint unreachable (refused, DNS, TLS,
/// a closed socket), an answer that is not JSON-RPC, or the node's own error.
fn classify(url: &str, error: RpcError<TransportErrorKind>) -> ChainError {
    let url = url.to_string();
    match error {
        RpcError::Transport(TransportErrorKind::HttpError(http)) => ChainError::BadAnswer {
            url,
            message: format!("HTTP status {}: {}", http.status, excerpt(&http.body)),
        },
        RpcError::Transport(kind) => ChainError::Unreachable {
            url,
            message: causes(&kind),
        },
        RpcError::DeserError { err, text } => ChainError::BadAnswer {
            url,
            message: format!("{err} in {:?}", excerpt(&text)),
        },
        other => ChainError::Rpc {
            url,
            message: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stalled_node::StalledNode;

    /// Connecting to a node that accepts and never answers (neither the WebSocket
    /// handshake nor HTTP's `eth_chainId`) fails after the timeout, naming both.
    #[test]
    fn connecting_to_a_silent_node_times_out_by_name() {
        let node = StalledNode::silent().unwrap();
        let timeout = Duration::from_millis(500);
        for (url, what) in [
            (node.url(), "eth_chainId"),
            (node.ws_url(), "the WebSocket handshake"),
        ] {
            let started = std::time::Instant::now();
            let error = RpcChain::connect_node(&url, Vec::new(), timeout).unwrap_err();
            let waited = started.elapsed();
            assert!(
                waited >= timeout && waited < timeout + Duration::from_secs(3),
                "{waited:?}"
            );
            assert!(
                matches!(&error, ChainError::Timeout { url: u, what: w, after }
                    if *u == url && *w == what && *after == timeout),
                "{error:?}"
            );
            assert_eq!(
                error.to_string(),
                format!("the node at {url} did not answer {what} within 0.5 s")
            );
        }
    }

    /// A node answering `eth_chainId` (0x7a69) and every `eth_getLogs` with `logs`:
    /// `(body, chunked)`; its URL.
    fn node_answering_logs(
        logs: impl Fn(&serde_json::Value) -> (String, bool) + Send + Sync + 'static,
    ) -> String {
        use std::io::{BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let logs = std::sync::Arc::new(logs);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let logs = std::sync::Arc::clone(&logs);
                std::thread::spawn(move || {
                    let stop = std::sync::atomic::AtomicBool::new(false);
                    stream
                        .set_read_timeout(Some(crate::stalled_node::TICK))
                        .unwrap();
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    while let Some(body) = crate::stalled_node::read_body(&mut reader, &stop) {
                        let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
                        let (answer, chunked) = if request["method"] == "eth_chainId" {
                            (
                            serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": "0x7a69"})
                                .to_string(),
                            false,
                        )
                        } else {
                            logs(&request)
                        };
                        let sent = if chunked {
                            let mut out = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n".to_vec();
                            for chunk in answer.as_bytes().chunks(16 << 10) {
                                out.extend(format!("{:x}\r\n", chunk.len()).as_bytes());
                                out.extend(chunk);
                                out.extend(b"\r\n");
                            }
                            out.extend(b"0\r\n\r\n");
                            stream.write_all(&out)
                        } else {
                            stream.write_all(
                            format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                                answer.len()
                            )
                            .as_bytes(),
                        )
                        };
                        if sent.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        url
    }

    /// `eth_getLogs` answers are read no further than the bound: one declared longer is
    /// refused unread, one sent in chunks without a length is refused once past it; one
    /// within it is read; the node's error is the node's error.
    #[test]
    fn log_answers_are_bounded_in_bytes() {
        let log = serde_json::json!({
            "address": Address::repeat_byte(7).to_string(),
            "topics": [B256::repeat_byte(1).to_string()],
            "data": format!("0x{}", "ab".repeat(1_000)),
            "blockNumber": "0x5",
            "blockHash": B256::repeat_byte(5).to_string(),
            "transactionHash": B256::repeat_byte(6).to_string(),
            "transactionIndex": "0x0",
            "logIndex": "0x0",
            "removed": false,
        });
        let answer = move |request: &serde_json::Value, n: usize| {
            serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": vec![log.clone(); n]})
                .to_string()
        };
        let bound = 64 << 10;
        for chunked in [false, true] {
            let answer = answer.clone();
            let url = node_answering_logs(move |request| {
                let n = if request["params"][0]["fromBlock"] == "0x0" {
                    200
                } else {
                    2
                };
                (answer(request, n), chunked)
            });
            let chain = RpcChain::connect_read_only(&url).unwrap();
            let error = chain
                .logs_within(Address::repeat_byte(7), 0, 9, [None; 4], bound)
                .unwrap_err();
            assert!(error.is_too_large(), "{error:?}");
            assert_eq!(
                error.to_string(),
                format!("the node at {url} answered eth_getLogs with more than {bound} bytes")
            );
            let logs = chain
                .logs_within(Address::repeat_byte(7), 5, 5, [None; 4], bound)
                .unwrap();
            assert_eq!(logs.len(), 2);
            assert_eq!(logs[0].0.block_number, 5);
            assert_eq!(logs[0].1.data.data.len(), 1_000);
            // The default bound (32 MiB) reads the long answer too.
            assert_eq!(
                chain
                    .logs(Address::repeat_byte(7), 0, 9, None)
                    .unwrap()
                    .len(),
                200
            );
        }
        let url = node_answering_logs(|request| {
            let error = serde_json::json!({"jsonrpc": "2.0", "id": request["id"],
                "error": {"code": -32005, "message": "query returned more than 10000 results"}});
            (error.to_string(), false)
        });
        let chain = RpcChain::connect_read_only(&url).unwrap();
        let error = chain.logs(Address::ZERO, 0, 9, None).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "JSON-RPC node {url}: server returned an error response: error code -32005: \
                 query returned more than 10000 results"
            )
        );
    }

    #[test]
    fn the_default_is_ten_seconds_and_timeouts_are_written_in_seconds() {
        assert_eq!(DEFAULT_RPC_TIMEOUT, Duration::from_secs(10));
        let timed_out = |after| ChainError::Timeout {
            url: "http://node".into(),
            what: "eth_blockNumber",
            after,
        };
        assert_eq!(
            timed_out(Duration::from_secs(10)).to_string(),
            "the node at http://node did not answer eth_blockNumber within 10 s"
        );
        assert_eq!(
            timed_out(Duration::from_millis(2250)).to_string(),
            "the node at http://node did not answer eth_blockNumber within 2.25 s"
        );
    }
}
