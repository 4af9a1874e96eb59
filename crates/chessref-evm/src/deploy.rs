//! Putting the contracts on a chain: `ChessRulesView`, `ChessChannelBlueprint`,
//! `ChessRefereeAnnex`, `ChessChannelAnnex`, `ChessTournamentBlueprint` and `ChessReferee`
//! (whose constructor creates `ChessChannel` and then `ChessTournament` from the blueprints;
//! the referee's fallback runs the referee's annex, the channel's the channel's) from the
//! committed artifacts.
//!
//! Through the standard CREATE2 factory ([`CREATE2_FACTORY`], the "deterministic
//! deployment proxy" most chains and every anvil have at the same address) with one
//! fixed salt ([`DEPLOY_SALT`]), a contract's address depends only on its init code:
//! the same on every chain, and the same as `contracts/script/Deploy.s.sol` gives
//! (`new X{salt: SALT}()` in a forge script goes through that factory). The factory's
//! calldata is `salt ‖ initcode`. A contract whose code is already at its address is
//! not deployed again, so a re-run is harmless. Without the factory, plain CREATE
//! from the sender ([`Method::Create`]) works anywhere, at addresses that depend on
//! the sender's nonce.

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256, Bytes, address, keccak256};
use alloy_sol_types::SolCall;

use crate::{
    RpcChain,
    bindings::{
        ChessChannel, ChessChannelAnnex, ChessChannelBlueprint, ChessReferee, ChessRefereeAnnex,
        ChessRulesView, ChessTournament, ChessTournamentBlueprint,
    },
    chain::{Chain, DEPLOY_GAS_LIMIT, TxReceipt, TxRequest},
    deployments::{
        CHANNEL, CHANNEL_ANNEX, CHANNEL_BLUEPRINT, ChainDeployment, ContractRecord, REFEREE,
        REFEREE_ANNEX, RULES_VIEW, TOURNAMENT, TOURNAMENT_BLUEPRINT,
    },
    error::{ChainError, EvmError},
    revert::ContractRevert,
};

/// The deterministic deployment proxy (github.com/Arachnid/deterministic-deployment-proxy):
/// calldata `salt ‖ initcode` runs `CREATE2(salt, initcode)` and returns the address.
pub const CREATE2_FACTORY: Address = address!("4e59b44847b379578588920ca78fbf26c0b4956c");

/// The salt of every chessref deployment: `bytes32("chessref")` (the ASCII left-aligned,
/// zero-padded), as `contracts/script/Deploy.s.sol` declares it.
pub const DEPLOY_SALT: B256 =
    B256::new(*b"chessref\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");

/// How contracts are created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Through [`CREATE2_FACTORY`] with [`DEPLOY_SALT`]: the same address on every chain.
    Create2,
    /// Plain CREATE from the sender: works on any chain; the address depends on the
    /// sender and its nonce, so it differs from chain to chain.
    Create,
}

/// What the deployment did with one contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Created by this run.
    Deployed,
    /// Its code was already at the address: nothing sent.
    AlreadyDeployed,
    /// Created by its parent's constructor (`ChessChannel` and `ChessTournament` by
    /// `ChessReferee`).
    CreatedByParent,
}

/// One contract of a deployment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeployedContract {
    /// Its name (`ChessRulesView`, `ChessReferee`, `ChessChannel`).
    pub name: &'static str,
    /// Where it is and how it got there.
    pub record: ContractRecord,
    /// What this run did.
    pub action: Action,
    /// Gas of the creating transaction (the parent's for `CreatedByParent`), when sent now.
    pub gas_used: Option<u64>,
}

/// What [`deploy`] did, and the entry to write to the deployments file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeployReport {
    /// The chain's entry.
    pub entry: ChainDeployment,
    /// The contracts in deployment order.
    pub contracts: Vec<DeployedContract>,
}

/// A deployment that cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum DeployError {
    /// The chain failed.
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// The chain has no CREATE2 factory.
    #[error(
        "chain id {chain_id} has no CREATE2 factory at {factory} (no code there): deploy the deterministic deployment proxy first, or pass --no-create2 for plain CREATE (the addresses are then not deterministic)"
    )]
    NoFactory {
        /// The chain id.
        chain_id: u64,
        /// The factory's address.
        factory: Address,
    },
    /// The creating transaction reverted.
    #[error("deploying {name} reverted: {revert} (tx {tx_hash:?})")]
    Reverted {
        /// The contract.
        name: &'static str,
        /// Decoded revert data (a factory reverts with none).
        revert: ContractRevert,
        /// The transaction, if the chain names it.
        tx_hash: Option<B256>,
    },
    /// The code at the address is not the committed contract's.
    #[error("the code at {address} is not the committed {name} ({found} bytes of code there)")]
    WrongCode {
        /// The contract expected.
        name: &'static str,
        /// Where.
        address: Address,
        /// Length of the code found (0: none).
        found: usize,
    },
    /// The referee's channel is not where CREATE from the referee with nonce 1 puts it.
    #[error(
        "ChessReferee.channel() is {found}, expected {expected} (CREATE from the referee, nonce 1)"
    )]
    ChannelAddress {
        /// The address computed.
        expected: Address,
        /// The address the referee reports.
        found: Address,
    },
    /// The referee's tournament is not where CREATE from the referee with nonce 2 puts it.
    #[error(
        "ChessReferee.tournament() is {found}, expected {expected} (CREATE from the referee, nonce 2)"
    )]
    TournamentAddress {
        /// The address computed.
        expected: Address,
        /// The address the referee reports.
        found: Address,
    },
    /// Reading `channel()` or `tournament()` failed.
    #[error("ChessReferee: {0}")]
    Channel(#[from] EvmError),
}

/// One contract of the artifacts: its name, init code and runtime code (with zeros where
/// the constructor writes immutables).
struct Artifact {
    name: &'static str,
    init_code: &'static Bytes,
    runtime: &'static Bytes,
}

const RULES_VIEW_ARTIFACT: Artifact = Artifact {
    name: RULES_VIEW,
    init_code: &ChessRulesView::BYTECODE,
    runtime: &ChessRulesView::DEPLOYED_BYTECODE,
};

const REFEREE_ARTIFACT: Artifact = Artifact {
    name: REFEREE,
    init_code: &ChessReferee::BYTECODE,
    runtime: &ChessReferee::DEPLOYED_BYTECODE,
};

const ANNEX_ARTIFACT: Artifact = Artifact {
    name: REFEREE_ANNEX,
    init_code: &ChessRefereeAnnex::BYTECODE,
    runtime: &ChessRefereeAnnex::DEPLOYED_BYTECODE,
};

const CHANNEL_ANNEX_ARTIFACT: Artifact = Artifact {
    name: CHANNEL_ANNEX,
    init_code: &ChessChannelAnnex::BYTECODE,
    runtime: &ChessChannelAnnex::DEPLOYED_BYTECODE,
};

const CHANNEL_ARTIFACT: Artifact = Artifact {
    name: CHANNEL,
    init_code: &ChessChannel::BYTECODE,
    runtime: &ChessChannel::DEPLOYED_BYTECODE,
};

const TOURNAMENT_ARTIFACT: Artifact = Artifact {
    name: TOURNAMENT,
    init_code: &ChessTournament::BYTECODE,
    runtime: &ChessTournament::DEPLOYED_BYTECODE,
};

/// The blueprint's code is not its artifact's runtime (its constructor returns the
/// channel's creation code after one 0xFE byte): see [`channel_blueprint_code`].
static BLUEPRINT_RUNTIME: std::sync::LazyLock<Bytes> =
    std::sync::LazyLock::new(channel_blueprint_code);

fn blueprint_artifact() -> Artifact {
    Artifact {
        name: CHANNEL_BLUEPRINT,
        init_code: &ChessChannelBlueprint::BYTECODE,
        runtime: &BLUEPRINT_RUNTIME,
    }
}

/// As [`BLUEPRINT_RUNTIME`], for the tournament's: see [`tournament_blueprint_code`].
static TOURNAMENT_BLUEPRINT_RUNTIME: std::sync::LazyLock<Bytes> =
    std::sync::LazyLock::new(tournament_blueprint_code);

fn tournament_blueprint_artifact() -> Artifact {
    Artifact {
        name: TOURNAMENT_BLUEPRINT,
        init_code: &ChessTournamentBlueprint::BYTECODE,
        runtime: &TOURNAMENT_BLUEPRINT_RUNTIME,
    }
}

/// The code a `ChessChannelBlueprint` holds: 0xFE, then `ChessChannel`'s creation code.
pub fn channel_blueprint_code() -> Bytes {
    blueprint_code(&ChessChannel::BYTECODE)
}

/// The code a `ChessTournamentBlueprint` holds: 0xFE, then `ChessTournament`'s creation code.
pub fn tournament_blueprint_code() -> Bytes {
    blueprint_code(&ChessTournament::BYTECODE)
}

/// 0xFE, then `creation`: what a blueprint's constructor returns (ERC-5202's idea).
fn blueprint_code(creation: &[u8]) -> Bytes {
    let mut code = Vec::with_capacity(1 + creation.len());
    code.push(0xfe);
    code.extend_from_slice(creation);
    code.into()
}

/// `ChessReferee`'s init code with its constructor arguments: the channel's blueprint at
/// `blueprint`, the referee's annex at `annex`, the channel's at `channel_annex` and the
/// tournament's blueprint at `tournament_blueprint`.
pub fn referee_init_code(
    blueprint: Address,
    annex: Address,
    channel_annex: Address,
    tournament_blueprint: Address,
) -> Bytes {
    let mut code = ChessReferee::BYTECODE.to_vec();
    for argument in [blueprint, annex, channel_annex, tournament_blueprint] {
        code.extend_from_slice(B256::left_padding_from(argument.as_slice()).as_slice());
    }
    code.into()
}

/// Where a [`Method::Create2`] deployment puts the `ChessRefereeAnnex`, on any chain.
pub fn create2_annex_address() -> Address {
    CREATE2_FACTORY.create2_from_code(DEPLOY_SALT, ChessRefereeAnnex::BYTECODE.clone())
}

/// Where a [`Method::Create2`] deployment puts the `ChessChannelAnnex`, on any chain.
pub fn create2_channel_annex_address() -> Address {
    CREATE2_FACTORY.create2_from_code(DEPLOY_SALT, ChessChannelAnnex::BYTECODE.clone())
}

/// Where a [`Method::Create2`] deployment puts the `ChessChannelBlueprint`, on any chain.
pub fn create2_blueprint_address() -> Address {
    CREATE2_FACTORY.create2_from_code(DEPLOY_SALT, ChessChannelBlueprint::BYTECODE.clone())
}

/// Where a [`Method::Create2`] deployment puts the `ChessTournamentBlueprint`, on any chain.
pub fn create2_tournament_blueprint_address() -> Address {
    CREATE2_FACTORY.create2_from_code(DEPLOY_SALT, ChessTournamentBlueprint::BYTECODE.clone())
}

/// The addresses a [`Method::Create2`] deployment gives on any chain:
/// (`ChessRulesView`, `ChessReferee`, `ChessChannel`); the blueprint's is
/// [`create2_blueprint_address`], the annexes' [`create2_annex_address`] and
/// [`create2_channel_annex_address`], the tournament's blueprint's
/// [`create2_tournament_blueprint_address`] and the tournament
/// `tournament::tournament_address(referee)`.
pub fn create2_addresses() -> (Address, Address, Address) {
    let rules = CREATE2_FACTORY.create2_from_code(DEPLOY_SALT, RULES_VIEW_ARTIFACT.init_code);
    let referee = CREATE2_FACTORY.create2_from_code(
        DEPLOY_SALT,
        referee_init_code(
            create2_blueprint_address(),
            create2_annex_address(),
            create2_channel_annex_address(),
            create2_tournament_blueprint_address(),
        ),
    );
    (rules, referee, crate::channel::channel_address(referee))
}

/// Whether `code` is the artifact's runtime code: same length, and equal everywhere but
/// where the artifact holds the zeros of an immutable the constructor fills in.
fn is_artifact(code: &[u8], artifact: &Artifact) -> bool {
    code.len() == artifact.runtime.len()
        && code
            .iter()
            .zip(artifact.runtime.iter())
            .all(|(found, expected)| found == expected || *expected == 0)
}

/// The record of the code at `address`, which must be `artifact`'s.
fn verified(
    chain: &RpcChain,
    artifact: &Artifact,
    address: Address,
    receipt: Option<&TxReceipt>,
) -> Result<ContractRecord, DeployError> {
    let code = chain.code(address)?;
    if !is_artifact(&code, artifact) {
        return Err(DeployError::WrongCode {
            name: artifact.name,
            address,
            found: code.len(),
        });
    }
    Ok(ContractRecord {
        address,
        tx_hash: receipt.and_then(|r| r.tx_hash),
        block_number: receipt.and_then(|r| r.block_number),
        code_hash: keccak256(&code),
    })
}

/// Sends `tx` with the node's gas estimate (plus a fifth, as a margin) as its limit.
fn send(
    chain: &mut RpcChain,
    name: &'static str,
    mut tx: TxRequest,
) -> Result<TxReceipt, DeployError> {
    tx.gas_limit = match chain.estimate_gas(&tx)? {
        Ok(gas) => gas + gas / 5,
        Err(revert) => {
            return Err(DeployError::Reverted {
                name,
                revert: ContractRevert::decode(&revert),
                tx_hash: None,
            });
        }
    };
    let receipt = chain.send(tx)?;
    if !receipt.success {
        return Err(DeployError::Reverted {
            name,
            revert: ContractRevert::decode(&receipt.output),
            tx_hash: receipt.tx_hash,
        });
    }
    Ok(receipt)
}

/// Deploys (or finds) one contract from `init_code` (the artifact's, with any constructor
/// arguments).
fn place(
    chain: &mut RpcChain,
    from: Address,
    method: Method,
    artifact: &Artifact,
    init_code: &Bytes,
    previous: Option<&ContractRecord>,
) -> Result<DeployedContract, DeployError> {
    let known = match method {
        Method::Create2 => Some(CREATE2_FACTORY.create2_from_code(DEPLOY_SALT, init_code)),
        // A plain CREATE is found again only through the file's record of it.
        Method::Create => previous.map(|p| p.address),
    };
    if let Some(address) = known {
        let code = chain.code(address)?;
        if !code.is_empty() {
            let mut record = verified(chain, artifact, address, None)?;
            if let Some(p) = previous.filter(|p| p.address == address) {
                record.tx_hash = p.tx_hash;
                record.block_number = p.block_number;
            }
            return Ok(DeployedContract {
                name: artifact.name,
                record,
                action: Action::AlreadyDeployed,
                gas_used: None,
            });
        }
    }
    let (receipt, address) = match method {
        Method::Create2 => {
            let mut data = Vec::with_capacity(32 + init_code.len());
            data.extend_from_slice(DEPLOY_SALT.as_slice());
            data.extend_from_slice(init_code);
            let tx = TxRequest::call(from, CREATE2_FACTORY, data);
            let receipt = send(chain, artifact.name, tx)?;
            let address = known.expect("CREATE2 addresses are computed beforehand");
            (receipt, address)
        }
        Method::Create => {
            let mut tx = TxRequest::create(from, init_code.clone());
            tx.gas_limit = DEPLOY_GAS_LIMIT;
            let receipt = send(chain, artifact.name, tx)?;
            let address = receipt.created.ok_or(DeployError::WrongCode {
                name: artifact.name,
                address: Address::ZERO,
                found: 0,
            })?;
            (receipt, address)
        }
    };
    Ok(DeployedContract {
        name: artifact.name,
        record: verified(chain, artifact, address, Some(&receipt))?,
        action: Action::Deployed,
        gas_used: Some(receipt.gas_used),
    })
}

/// Deploys `ChessRulesView`, the channel's blueprint, `ChessRefereeAnnex`,
/// `ChessChannelAnnex`, the tournament's blueprint and `ChessReferee` from `from` by `method`
/// (skipping each already in place), checks the code at every address against the artifacts
/// and that the referee's `channel()` and `tournament()` are CREATE from the referee with
/// nonces 1 and 2. `previous` is the
/// chain's entry of the deployments file, if any (it finds plain-CREATE contracts again
/// and keeps the transaction of a contract already deployed).
pub fn deploy(
    chain: &mut RpcChain,
    from: Address,
    method: Method,
    previous: Option<&ChainDeployment>,
) -> Result<DeployReport, DeployError> {
    let chain_id = chain.chain_id()?;
    if method == Method::Create2 && chain.code(CREATE2_FACTORY)?.is_empty() {
        return Err(DeployError::NoFactory {
            chain_id,
            factory: CREATE2_FACTORY,
        });
    }
    let before = |name: &str| previous.and_then(|p| p.contracts.get(name));
    let rules = place(
        chain,
        from,
        method,
        &RULES_VIEW_ARTIFACT,
        RULES_VIEW_ARTIFACT.init_code,
        before(RULES_VIEW),
    )?;
    let blueprint_artifact = blueprint_artifact();
    let blueprint = place(
        chain,
        from,
        method,
        &blueprint_artifact,
        blueprint_artifact.init_code,
        before(CHANNEL_BLUEPRINT),
    )?;
    let annex = place(
        chain,
        from,
        method,
        &ANNEX_ARTIFACT,
        ANNEX_ARTIFACT.init_code,
        before(REFEREE_ANNEX),
    )?;
    let channel_annex = place(
        chain,
        from,
        method,
        &CHANNEL_ANNEX_ARTIFACT,
        CHANNEL_ANNEX_ARTIFACT.init_code,
        before(CHANNEL_ANNEX),
    )?;
    let tournament_blueprint_artifact = tournament_blueprint_artifact();
    let tournament_blueprint = place(
        chain,
        from,
        method,
        &tournament_blueprint_artifact,
        tournament_blueprint_artifact.init_code,
        before(TOURNAMENT_BLUEPRINT),
    )?;
    let referee = place(
        chain,
        from,
        method,
        &REFEREE_ARTIFACT,
        &referee_init_code(
            blueprint.record.address,
            annex.record.address,
            channel_annex.record.address,
            tournament_blueprint.record.address,
        ),
        before(REFEREE),
    )?;
    let expected = crate::channel::channel_address(referee.record.address);
    let found = chain
        .call(
            from,
            referee.record.address,
            ChessReferee::channelCall {}.abi_encode().into(),
        )?
        .decode::<ChessReferee::channelCall>("channel")?;
    if found != expected {
        return Err(DeployError::ChannelAddress { expected, found });
    }
    let mut channel_record = verified(chain, &CHANNEL_ARTIFACT, expected, None)?;
    channel_record.tx_hash = referee.record.tx_hash;
    channel_record.block_number = referee.record.block_number;
    let channel = DeployedContract {
        name: CHANNEL,
        record: channel_record,
        action: match referee.action {
            Action::Deployed => Action::CreatedByParent,
            other => other,
        },
        gas_used: None,
    };
    let expected = crate::tournament::tournament_address(referee.record.address);
    let found = chain
        .call(
            from,
            referee.record.address,
            ChessReferee::tournamentCall {}.abi_encode().into(),
        )?
        .decode::<ChessReferee::tournamentCall>("tournament")?;
    if found != expected {
        return Err(DeployError::TournamentAddress { expected, found });
    }
    let mut tournament_record = verified(chain, &TOURNAMENT_ARTIFACT, expected, None)?;
    tournament_record.tx_hash = referee.record.tx_hash;
    tournament_record.block_number = referee.record.block_number;
    let tournament = DeployedContract {
        name: TOURNAMENT,
        record: tournament_record,
        action: channel.action,
        gas_used: None,
    };
    let contracts = vec![
        rules,
        referee,
        channel,
        blueprint,
        annex,
        channel_annex,
        tournament,
        tournament_blueprint,
    ];
    let (factory, salt) = match method {
        Method::Create2 => (Some(CREATE2_FACTORY), Some(DEPLOY_SALT)),
        Method::Create => (None, None),
    };
    let entry = ChainDeployment {
        chain_id,
        factory,
        salt,
        contracts: contracts
            .iter()
            .map(|c| (c.name.to_string(), c.record.clone()))
            .collect::<BTreeMap<_, _>>(),
    };
    Ok(DeployReport { entry, contracts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_salt_is_bytes32_of_chessref() {
        assert_eq!(
            DEPLOY_SALT.to_string(),
            "0x6368657373726566000000000000000000000000000000000000000000000000"
        );
    }

    #[test]
    fn runtime_code_matches_its_artifact_up_to_immutables() {
        let runtime = ChessReferee::DEPLOYED_BYTECODE.to_vec();
        assert!(is_artifact(&runtime, &REFEREE_ARTIFACT));
        let zero_at = runtime.iter().position(|&b| b == 0).unwrap();
        let mut filled = runtime.clone();
        filled[zero_at] = 0x42;
        assert!(is_artifact(&filled, &REFEREE_ARTIFACT), "an immutable slot");
        let nonzero_at = runtime.iter().position(|&b| b != 0).unwrap();
        let mut changed = runtime.clone();
        changed[nonzero_at] ^= 1;
        assert!(!is_artifact(&changed, &REFEREE_ARTIFACT));
        assert!(!is_artifact(&runtime[1..], &REFEREE_ARTIFACT));
        assert!(!is_artifact(&runtime, &RULES_VIEW_ARTIFACT));
    }
}
