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
        self.key_source()
            .sender()
            .map_err(|e| CliError::Arg(e.to_string()))
    }

    /// The sender these options name, or `None` when they name none (no keystore, no
    /// unlocked account, CHESSREF_PRIVATE_KEY unset): a reading command then reads as
    /// nobody.
    pub fn named_sender(&self) -> Result<Option<Sender>, CliError> {
        match self.key_source().sender() {
            Ok(sender) => Ok(Some(sender)),
            Err(chessref_client::WalletError::NoSender) => Ok(None),
            Err(e) => Err(CliError::Arg(e.to_string())),
        }
    }

    fn key_source(&self) -> KeySource {
        KeySource::from_options(
            self.keystore.clone(),
            self.password_file.clone(),
            self.unlocked,
        )
    }

    /// Connects to `--rpc` sending as the sender.
    pub fn connect(&self) -> Result<(RpcChain, Address), CliError> {
        let sender = self.sender()?;
        let chain =
            RpcChain::connect_as(&self.rpc, &sender).map_err(|e| CliError::Arg(e.to_string()))?;
        Ok((chain, sender.address()))
    }
}
