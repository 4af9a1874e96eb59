//! What every command that sends transactions shares: the endpoint and who sends
//! (`chessref_client::keys`: never a key on the command line).

use std::path::PathBuf;

use alloy_primitives::Address;
use chessref_client::KeySource;
use chessref_evm::{RpcChain, Sender};
use clap::Args as ClapArgs;

use super::CliError;

/// `--rpc` and the sender's key source.
#[derive(ClapArgs, Debug)]
pub struct SenderArgs {
    /// The JSON-RPC endpoint: http://, https://, ws:// or wss://.
    #[arg(long, value_name = "URL")]
    pub rpc: String,
    /// Sign with this encrypted JSON keystore (default: the hex key in CHESSREF_PRIVATE_KEY).
    #[arg(long, value_name = "PATH", conflicts_with = "unlocked")]
    pub keystore: Option<PathBuf>,
    /// The keystore's password is the first line of this file (default: a prompt, no echo).
    #[arg(long, value_name = "PATH", requires = "keystore")]
    pub password_file: Option<PathBuf>,
    /// Send from this account the node holds unlocked (anvil, a dev node).
    #[arg(long, value_name = "ADDRESS")]
    pub unlocked: Option<Address>,
}

impl SenderArgs {
    /// The sender these options name (a keystore is decrypted now).
    pub fn sender(&self) -> Result<Sender, CliError> {
        KeySource::from_options(
            self.keystore.clone(),
            self.password_file.clone(),
            self.unlocked,
        )
        .sender()
        .map_err(|e| CliError::Arg(e.to_string()))
    }

    /// Whether a sender is named at all (a keystore, an unlocked account, or the key in
    /// CHESSREF_PRIVATE_KEY): a reading command without one reads as nobody.
    pub fn names_a_sender(&self) -> bool {
        self.keystore.is_some()
            || self.unlocked.is_some()
            || std::env::var_os(chessref_client::PRIVATE_KEY_ENV).is_some()
    }

    /// Connects to `--rpc` sending as the sender.
    pub fn connect(&self) -> Result<(RpcChain, Address), CliError> {
        let sender = self.sender()?;
        let chain =
            RpcChain::connect_as(&self.rpc, &sender).map_err(|e| CliError::Arg(e.to_string()))?;
        Ok((chain, sender.address()))
    }
}
