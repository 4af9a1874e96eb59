//! `chessref deploy --rpc URL`: puts ChessRulesView and ChessReferee (with its
//! ChessChannel) on a chain and records them in the deployments file.

use std::{path::PathBuf, process::ExitCode};

use chessref_evm::{
    deploy::{Action, Method, deploy},
    deployments::{self, Deployments},
};
use clap::Args as ClapArgs;

use super::{CliError, sender::SenderArgs};

/// Arguments of `chessref deploy`.
#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    sender: SenderArgs,
    /// The deployments file to update (default: $CHESSREF_DEPLOYMENTS, else ./deployments.json).
    #[arg(long, value_name = "PATH")]
    deployments: Option<PathBuf>,
    /// Plain CREATE from the sender instead of the CREATE2 factory (for a chain without
    /// it); the addresses then depend on the sender's nonce and differ between chains.
    #[arg(long)]
    no_create2: bool,
}

/// Deploys what is missing, prints every address and transaction, writes the file.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let path = deployments::path(args.deployments.as_deref());
    let (mut chain, from) = args.sender.connect()?;
    let chain_id =
        chessref_evm::Chain::chain_id(&mut chain).map_err(|e| CliError::Arg(e.to_string()))?;
    let previous =
        Deployments::previous(&path, chain_id).map_err(|e| CliError::Arg(e.to_string()))?;
    let method = if args.no_create2 {
        println!(
            "plain CREATE from {from}: the addresses depend on its nonce and are not deterministic"
        );
        Method::Create
    } else {
        println!(
            "CREATE2 through {} with salt {}",
            chessref_evm::deploy::CREATE2_FACTORY,
            chessref_evm::deploy::DEPLOY_SALT
        );
        Method::Create2
    };
    let report = deploy(&mut chain, from, method, previous.as_ref())
        .map_err(|e| CliError::Arg(e.to_string()))?;
    for contract in &report.contracts {
        let record = &contract.record;
        let how = match contract.action {
            Action::AlreadyDeployed => "already deployed".to_string(),
            Action::CreatedByParent => "created by ChessReferee's constructor".to_string(),
            Action::Deployed => format!(
                "deployed, {} gas",
                contract.gas_used.map_or("?".into(), |g| g.to_string())
            ),
        };
        let tx = match (record.tx_hash, record.block_number) {
            (Some(hash), Some(block)) => format!("tx {hash} (block {block})"),
            (Some(hash), None) => format!("tx {hash}"),
            _ => "tx unknown".to_string(),
        };
        println!("{:<15} {}  {how}; {tx}", contract.name, record.address);
    }
    Deployments::write(&path, &report.entry).map_err(|e| CliError::Arg(e.to_string()))?;
    println!("wrote {} (chain id {chain_id})", path.display());
    Ok(ExitCode::SUCCESS)
}
