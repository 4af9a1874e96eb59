//! The in-process chain: revm with an in-memory database, Prague rules.

use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use revm::{
    Context, DatabaseRef, ExecuteCommitEvm, ExecuteEvm, MainBuilder, MainContext, SystemCallEvm,
    context::{TxEnv, result::ExecutionResult},
    database::{CacheDB, EmptyDB},
    handler::{MainnetContext, MainnetEvm},
    primitives::{TxKind, hardfork::SpecId},
    state::AccountInfo,
};

use crate::{
    chain::{CallOutcome, Chain, TxReceipt, TxRequest},
    error::ChainError,
};

/// Chain id of the in-process chain (anvil's default, so signatures and
/// `block.chainid` look the same on both backends).
pub const CHAIN_ID: u64 = 31337;
/// Timestamp of the first block (2025-01-01T00:00:00Z).
pub const GENESIS_TIMESTAMP: u64 = 1_735_689_600;
/// Balance of each funded account: one million ether.
pub const ACCOUNT_BALANCE: U256 = U256::from_limbs([0x1bcecceda1000000, 0xd3c2, 0, 0]);
/// Number of funded accounts.
pub const ACCOUNT_COUNT: usize = 10;

type Db = CacheDB<EmptyDB>;
type Evm = MainnetEvm<MainnetContext<Db>>;

/// An in-process EVM chain (revm, Prague hardfork, gas price zero) with
/// [`ACCOUNT_COUNT`] funded accounts.
///
/// Every transaction is mined in its own block; the block timestamp only
/// moves through [`Chain::advance_time`], so clocks are deterministic.
pub struct RevmChain {
    evm: Evm,
    accounts: Vec<Address>,
    keys: Vec<PrivateKeySigner>,
}

impl Default for RevmChain {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for RevmChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RevmChain")
            .field("accounts", &self.accounts)
            .finish_non_exhaustive()
    }
}

impl RevmChain {
    /// A fresh chain at [`GENESIS_TIMESTAMP`] with the funded accounts.
    pub fn new() -> Self {
        let mut db = CacheDB::new(EmptyDB::default());
        // Each account's private key is keccak256("chessref account i"), so the harness
        // can sign off-chain messages as any of them (`Chain::signer`).
        let keys: Vec<PrivateKeySigner> = (0..ACCOUNT_COUNT)
            .map(|i| {
                PrivateKeySigner::from_bytes(&keccak256(format!("chessref account {i}")))
                    .expect("a keccak256 output below the curve order")
            })
            .collect();
        let accounts: Vec<Address> = keys.iter().map(|k| k.address()).collect();
        for &account in &accounts {
            db.insert_account_info(account, AccountInfo::from_balance(ACCOUNT_BALANCE));
        }
        let evm = Context::mainnet()
            .with_db(db)
            .modify_cfg_chained(|cfg| {
                cfg.set_spec_and_mainnet_gas_params(SpecId::PRAGUE);
                cfg.chain_id = CHAIN_ID;
            })
            .modify_block_chained(|block| {
                block.number = U256::from(1);
                block.timestamp = U256::from(GENESIS_TIMESTAMP);
                block.gas_limit = 36_000_000;
                block.basefee = 0;
            })
            .build_mainnet();
        RevmChain {
            evm,
            accounts,
            keys,
        }
    }

    fn db(&self) -> &Db {
        &self.evm.ctx.journaled_state.database
    }

    fn nonce(&self, address: Address) -> u64 {
        self.db()
            .basic_ref(address)
            .ok()
            .flatten()
            .map_or(0, |info| info.nonce)
    }

    /// The hash `BLOCKHASH` gives for block `number` on this chain (revm's in-memory
    /// database: keccak256 of the number's decimal digits).
    pub fn block_hash(&self, number: u64) -> B256 {
        self.db().block_hash_ref(number).unwrap_or_default()
    }

    /// Runs a read-only call and returns the raw EVM result, committing
    /// nothing: the fast path the conformance suite uses for view functions.
    pub fn call_raw(
        &mut self,
        from: Address,
        to: Address,
        data: Bytes,
    ) -> Result<ExecutionResult, ChainError> {
        let result = self.evm.system_call_one_with_caller(from, to, data);
        // Drop the journal: a view call must leave no trace.
        let _ = self.evm.finalize();
        result.map_err(|e| ChainError::Evm(e.to_string()))
    }

    /// Writes storage `slot` of `address` (committed state, as if a transaction had).
    pub fn set_storage(&mut self, address: Address, slot: U256, value: U256) {
        let db = &mut self.evm.ctx.journaled_state.database;
        // The account exists (a deployed contract): the in-memory database cannot fail.
        let _ = db.insert_account_storage(address, slot, value);
    }

    /// Sets the balance of `address` (a test faucet).
    pub fn set_balance(&mut self, address: Address, balance: U256) {
        let db = &mut self.evm.ctx.journaled_state.database;
        let mut info = db.basic_ref(address).ok().flatten().unwrap_or_default();
        info.balance = balance;
        db.insert_account_info(address, info);
    }
}

impl Chain for RevmChain {
    fn describe(&self) -> String {
        "revm (in process, Prague)".to_string()
    }

    fn accounts(&self) -> &[Address] {
        &self.accounts
    }
    fn signer(&self, account: Address) -> Option<PrivateKeySigner> {
        self.keys.iter().find(|k| k.address() == account).cloned()
    }

    fn send(&mut self, tx: TxRequest) -> Result<TxReceipt, ChainError> {
        let nonce = self.nonce(tx.from);
        let kind = match tx.to {
            Some(to) => TxKind::Call(to),
            None => TxKind::Create,
        };
        let env = TxEnv::builder()
            .caller(tx.from)
            .kind(kind)
            .value(tx.value)
            .data(tx.data)
            .gas_limit(tx.gas_limit)
            .gas_price(0)
            .nonce(nonce)
            .chain_id(Some(CHAIN_ID))
            .build()
            .map_err(|e| ChainError::Evm(format!("{e:?}")))?;
        let result = self
            .evm
            .transact_commit(env)
            .map_err(|e| ChainError::Evm(e.to_string()))?;
        self.evm
            .ctx
            .modify_block(|block| block.number += U256::from(1));
        let gas_used = result.tx_gas_used();
        let created = result.created_address();
        Ok(match result {
            ExecutionResult::Success { logs, output, .. } => TxReceipt {
                success: true,
                gas_used,
                fee: U256::ZERO,
                logs,
                output: output.into_data(),
                created,
                tx_hash: None,
                block_number: None,
            },
            ExecutionResult::Revert { output, .. } => TxReceipt {
                success: false,
                gas_used,
                fee: U256::ZERO,
                logs: Vec::new(),
                output,
                created: None,
                tx_hash: None,
                block_number: None,
            },
            ExecutionResult::Halt { .. } => TxReceipt {
                success: false,
                gas_used,
                fee: U256::ZERO,
                logs: Vec::new(),
                output: Bytes::new(),
                created: None,
                tx_hash: None,
                block_number: None,
            },
        })
    }

    fn call(&mut self, from: Address, to: Address, data: Bytes) -> Result<CallOutcome, ChainError> {
        Ok(match self.call_raw(from, to, data)? {
            ExecutionResult::Success { output, .. } => CallOutcome::Return(output.into_data()),
            ExecutionResult::Revert { output, .. } => CallOutcome::Revert(output),
            ExecutionResult::Halt { reason, .. } => {
                return Err(ChainError::Evm(format!("call halted: {reason:?}")));
            }
        })
    }

    fn balance(&mut self, address: Address) -> Result<U256, ChainError> {
        Ok(self
            .db()
            .basic_ref(address)
            .ok()
            .flatten()
            .map_or(U256::ZERO, |info| info.balance))
    }

    fn chain_id(&mut self) -> Result<u64, ChainError> {
        Ok(CHAIN_ID)
    }

    fn timestamp(&mut self) -> Result<u64, ChainError> {
        Ok(self.evm.ctx.block.timestamp.saturating_to())
    }

    fn advance_time(&mut self, seconds: u64) -> Result<(), ChainError> {
        self.evm
            .ctx
            .modify_block(|block| block.timestamp += U256::from(seconds));
        Ok(())
    }

    fn storage(&mut self, address: Address, slot: U256) -> Result<U256, ChainError> {
        self.db()
            .storage_ref(address, slot)
            .map_err(|e| ChainError::Evm(e.to_string()))
    }
}
