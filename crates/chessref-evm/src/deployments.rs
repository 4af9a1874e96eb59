//! The deployments file: where the contracts are on each chain, written by
//! `chessref deploy` and read by every command that talks to them.
//!
//! JSON keyed by chain id as a string, one entry per chain:
//!
//! ```json
//! {"31337": {"chainId": 31337,
//!            "factory": "0x4e59b44847b379578588920ca78fbf26c0b4956c",
//!            "salt": "0x6368657373726566000000000000000000000000000000000000000000000000",
//!            "contracts": {"ChessReferee": {"address": "0x…", "txHash": "0x…",
//!                                           "blockNumber": 3, "codeHash": "0x…"}, …}}}
//! ```
//!
//! `factory` and `salt` are `null` for a plain-CREATE deployment (`--no-create2`);
//! `txHash` and `blockNumber` are `null` for a contract found already deployed by
//! someone else. Writing merges one chain's entry into the file (other chains are kept,
//! untouched) and replaces the file atomically (a temporary file renamed over it).

use std::{
    collections::BTreeMap,
    io::Write,
    path::{Path, PathBuf},
};

use alloy_primitives::{Address, B256};
use serde::{Deserialize, Serialize};

/// Environment variable naming the deployments file (default [`DEFAULT_PATH`]).
pub const DEPLOYMENTS_ENV: &str = "CHESSREF_DEPLOYMENTS";
/// The deployments file when neither `--deployments` nor [`DEPLOYMENTS_ENV`] names one.
pub const DEFAULT_PATH: &str = "deployments.json";

/// Name of the referee in [`ChainDeployment::contracts`].
pub const REFEREE: &str = "ChessReferee";
/// Name of the rules view.
pub const RULES_VIEW: &str = "ChessRulesView";
/// Name of the referee's channel court (created by the referee's constructor).
pub const CHANNEL: &str = "ChessChannel";
/// Name of the holder of the channel's creation code, which the referee's constructor
/// creates the channel from.
pub const CHANNEL_BLUEPRINT: &str = "ChessChannelBlueprint";
/// `ChessRefereeAnnex`: the referee's rarely called functions, run by its fallback.
pub const REFEREE_ANNEX: &str = "ChessRefereeAnnex";
/// `ChessChannelAnnex`: the channel's rarely called functions, run by its fallback.
pub const CHANNEL_ANNEX: &str = "ChessChannelAnnex";
/// Name of the referee's knockout events (created by the referee's constructor, the only
/// account that may host a referee game).
pub const TOURNAMENT: &str = "ChessTournament";
/// Name of the holder of the tournament's creation code, which the referee's constructor
/// creates the tournament from.
pub const TOURNAMENT_BLUEPRINT: &str = "ChessTournamentBlueprint";

/// One deployed contract.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContractRecord {
    /// Where it is.
    pub address: Address,
    /// The transaction that created it; `None` if it was found already there.
    pub tx_hash: Option<B256>,
    /// The block of that transaction; `None` if unknown.
    pub block_number: Option<u64>,
    /// `keccak256` of its runtime code as read back after deploying.
    pub code_hash: B256,
}

/// The contracts on one chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainDeployment {
    /// The chain id.
    pub chain_id: u64,
    /// The CREATE2 factory used; `None` for plain CREATE.
    pub factory: Option<Address>,
    /// The CREATE2 salt used; `None` for plain CREATE.
    pub salt: Option<B256>,
    /// By contract name ([`REFEREE`], [`RULES_VIEW`], [`CHANNEL_BLUEPRINT`], [`REFEREE_ANNEX`],
    /// [`CHANNEL_ANNEX`], [`CHANNEL`]).
    pub contracts: BTreeMap<String, ContractRecord>,
}

impl ChainDeployment {
    /// The record of contract `name`.
    pub fn contract(&self, name: &str) -> Result<&ContractRecord, DeploymentsError> {
        self.contracts
            .get(name)
            .ok_or_else(|| DeploymentsError::MissingContract {
                chain_id: self.chain_id,
                name: name.to_string(),
            })
    }

    /// The referee's address.
    pub fn referee(&self) -> Result<Address, DeploymentsError> {
        Ok(self.contract(REFEREE)?.address)
    }

    /// The block the referee was deployed in (where an indexer starts), if known.
    pub fn referee_block(&self) -> Result<Option<u64>, DeploymentsError> {
        Ok(self.contract(REFEREE)?.block_number)
    }
}

/// A deployments file as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deployments {
    path: PathBuf,
    chains: BTreeMap<String, ChainDeployment>,
}

/// A deployments file that cannot be read, written or does not name what is asked.
#[derive(Debug, thiserror::Error)]
pub enum DeploymentsError {
    /// The file cannot be read or written.
    #[error("deployments file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a deployments file.
    #[error("deployments file {} is not valid: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The file has no entry for the chain.
    #[error("deployments file {} has no deployment for chain id {chain_id} (run `chessref deploy --rpc URL`, or pass --referee ADDRESS)", path.display())]
    UnknownChain {
        /// The file.
        path: PathBuf,
        /// The chain id asked for.
        chain_id: u64,
    },
    /// The chain's entry lacks a contract.
    #[error("the deployment of chain id {chain_id} has no {name}")]
    MissingContract {
        /// The chain id.
        chain_id: u64,
        /// The contract asked for.
        name: String,
    },
}

/// The referee of chain `chain_id` and the first block that can hold its logs, as every
/// command that reads the chain finds them: `referee` (`--referee`) if given, else the
/// entry of the deployments file at `file` ([`path`]); the first block is `from_block`
/// (`--from-block`) if given, else the referee's deployment block when the file records
/// that same referee, else 0. A file that cannot be read only matters when no `referee`
/// is given.
pub fn locate(
    chain_id: u64,
    referee: Option<Address>,
    file: Option<&Path>,
    from_block: Option<u64>,
) -> Result<(Address, u64), DeploymentsError> {
    let path = path(file);
    let (referee, deployed_at) = match referee {
        None => {
            let file = Deployments::load(&path)?;
            let entry = file.for_chain(chain_id)?;
            (entry.referee()?, entry.referee_block()?)
        }
        Some(given) => {
            let recorded = Deployments::previous(&path, chain_id).ok().flatten();
            let block = recorded
                .filter(|entry| entry.referee().ok() == Some(given))
                .and_then(|entry| entry.referee_block().ok().flatten());
            (given, block)
        }
    };
    Ok((referee, from_block.or(deployed_at).unwrap_or(0)))
}

/// The deployments file to use: `given` (`--deployments`), else [`DEPLOYMENTS_ENV`],
/// else [`DEFAULT_PATH`] in the current directory.
pub fn path(given: Option<&Path>) -> PathBuf {
    match given {
        Some(path) => path.to_path_buf(),
        None => std::env::var_os(DEPLOYMENTS_ENV)
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from(DEFAULT_PATH), PathBuf::from),
    }
}

impl Deployments {
    /// Reads the file at `path`.
    pub fn load(path: &Path) -> Result<Deployments, DeploymentsError> {
        let text = std::fs::read_to_string(path).map_err(|source| DeploymentsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let chains: BTreeMap<String, ChainDeployment> =
            serde_json::from_str(&text).map_err(|e| DeploymentsError::Invalid {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        for (key, chain) in &chains {
            if key != &chain.chain_id.to_string() {
                return Err(DeploymentsError::Invalid {
                    path: path.to_path_buf(),
                    message: format!("entry {key:?} holds chainId {}", chain.chain_id),
                });
            }
        }
        Ok(Deployments {
            path: path.to_path_buf(),
            chains,
        })
    }

    /// The entry of chain `chain_id`.
    pub fn for_chain(&self, chain_id: u64) -> Result<&ChainDeployment, DeploymentsError> {
        self.chains
            .get(&chain_id.to_string())
            .ok_or_else(|| DeploymentsError::UnknownChain {
                path: self.path.clone(),
                chain_id,
            })
    }

    /// The entry of chain `chain_id` in the file at `path`, if the file exists and has one
    /// (what a re-run of a deployment starts from).
    pub fn previous(
        path: &Path,
        chain_id: u64,
    ) -> Result<Option<ChainDeployment>, DeploymentsError> {
        if !path.exists() {
            return Ok(None);
        }
        Ok(Self::load(path)?.for_chain(chain_id).ok().cloned())
    }

    /// Writes `entry` into the file at `path` under its chain id: the file's other
    /// entries are kept as they are (even fields this version does not know), and the
    /// file is replaced atomically, so a crash leaves the old file or the new one.
    pub fn write(path: &Path, entry: &ChainDeployment) -> Result<(), DeploymentsError> {
        let io = |source| DeploymentsError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut document = if path.exists() {
            let text = std::fs::read_to_string(path).map_err(io)?;
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(serde_json::Value::Object(map)) => map,
                Ok(_) => {
                    return Err(DeploymentsError::Invalid {
                        path: path.to_path_buf(),
                        message: "not a JSON object keyed by chain id".into(),
                    });
                }
                Err(e) => {
                    return Err(DeploymentsError::Invalid {
                        path: path.to_path_buf(),
                        message: e.to_string(),
                    });
                }
            }
        } else {
            serde_json::Map::new()
        };
        let value = serde_json::to_value(entry).map_err(|e| DeploymentsError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        document.insert(entry.chain_id.to_string(), value);
        let mut text =
            serde_json::to_string_pretty(&serde_json::Value::Object(document)).map_err(|e| {
                DeploymentsError::Invalid {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                }
            })?;
        text.push('\n');
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| DEFAULT_PATH.to_string());
        let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let written = std::fs::File::create(&temporary).and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        });
        if let Err(source) = written.and_then(|()| std::fs::rename(&temporary, path)) {
            let _ = std::fs::remove_file(&temporary);
            return Err(io(source));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(chain_id: u64, referee: Address, block: Option<u64>) -> ChainDeployment {
        let record = ContractRecord {
            address: referee,
            tx_hash: block.map(|_| B256::repeat_byte(7)),
            block_number: block,
            code_hash: B256::repeat_byte(9),
        };
        ChainDeployment {
            chain_id,
            factory: None,
            salt: None,
            contracts: BTreeMap::from([(REFEREE.to_string(), record)]),
        }
    }

    /// A deployments file in a scratch directory removed when the directory
    /// (the first value) is dropped.
    fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix(&format!("chessref-deployments-{name}-"))
            .tempdir()
            .unwrap();
        let path = dir.path().join("deployments.json");
        (dir, path)
    }

    #[test]
    fn write_merges_by_chain_and_keeps_unknown_entries() {
        let (_dir, path) = scratch("merge");
        std::fs::write(
            &path,
            r#"{"5": {"chainId": 5, "note": "kept", "contracts": {}}}"#,
        )
        .unwrap();
        let a = Address::repeat_byte(0xaa);
        Deployments::write(&path, &entry(31337, a, Some(3))).unwrap();
        Deployments::write(&path, &entry(10, Address::repeat_byte(0xbb), None)).unwrap();
        let raw: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(raw["5"]["note"], "kept");
        assert_eq!(raw["31337"]["contracts"]["ChessReferee"]["blockNumber"], 3);
        assert_eq!(
            raw["10"]["contracts"]["ChessReferee"]["txHash"],
            serde_json::Value::Null
        );
        let loaded = Deployments::load(&path).unwrap();
        assert_eq!(loaded.for_chain(31337).unwrap().referee().unwrap(), a);
        assert_eq!(
            loaded.for_chain(31337).unwrap().referee_block().unwrap(),
            Some(3)
        );
        assert_eq!(loaded.for_chain(10).unwrap().referee_block().unwrap(), None);
        let dir = path.parent().unwrap();
        let leftovers: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn an_unknown_chain_names_the_chain_id_and_the_file() {
        let (_dir, path) = scratch("unknown");
        Deployments::write(&path, &entry(31337, Address::ZERO, None)).unwrap();
        let error = Deployments::load(&path).unwrap().for_chain(1).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "deployments file {} has no deployment for chain id 1 (run `chessref deploy --rpc URL`, or pass --referee ADDRESS)",
                path.display()
            )
        );
    }

    #[test]
    fn a_broken_file_is_refused_and_never_overwritten() {
        let (_dir, path) = scratch("broken");
        std::fs::write(&path, "[1, 2").unwrap();
        assert!(matches!(
            Deployments::load(&path),
            Err(DeploymentsError::Invalid { .. })
        ));
        assert!(matches!(
            Deployments::write(&path, &entry(1, Address::ZERO, None)),
            Err(DeploymentsError::Invalid { .. })
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[1, 2");
        std::fs::write(
            &path,
            r#"{"1": {"chainId": 2, "factory": null, "salt": null, "contracts": {}}}"#,
        )
        .unwrap();
        let error = Deployments::load(&path).unwrap_err().to_string();
        assert!(error.ends_with("entry \"1\" holds chainId 2"), "{error}");
    }

    #[test]
    fn the_path_given_wins_over_the_default() {
        assert_eq!(
            path(Some(Path::new("/x/d.json"))),
            PathBuf::from("/x/d.json")
        );
    }
}
