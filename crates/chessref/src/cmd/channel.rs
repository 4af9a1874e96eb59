//! `chessref channel ...`: off-chain games with signed moves (docs/CHANNEL.md).
//!
//! `verify TRANSCRIPT.json`: every signature, the turn order, every move legal by
//! `chessref-core`, the clocks; prints the first bad ply and why, and the
//! `ChessChannel` call (with calldata) that settles or disputes the game.

use std::process::ExitCode;

use chessref_channel::{NoContractWallets, Transcript};
use clap::{Args as ClapArgs, Subcommand};

use super::{CliError, EXIT_VERDICT, print_json};

/// Arguments of `chessref channel`.
#[derive(ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    command: ChannelCommand,
}

#[derive(Subcommand)]
enum ChannelCommand {
    /// Check a transcript of signed moves: exit 0 if valid, 1 with the first bad ply and why, 2 if unreadable.
    Verify(VerifyArgs),
}

/// Arguments of `chessref channel verify`.
#[derive(ClapArgs)]
struct VerifyArgs {
    /// The transcript (JSON, docs/CHANNEL.md; the fixture tests/fixtures/channel-examples.json is one), `-` for stdin.
    #[arg(value_name = "TRANSCRIPT")]
    path: String,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `chessref channel`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.command {
        ChannelCommand::Verify(a) => verify(a),
    }
}

fn verify(args: VerifyArgs) -> Result<ExitCode, CliError> {
    let text = if args.path == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|source| CliError::Io {
            path: "-".into(),
            source,
        })?
    } else {
        std::fs::read_to_string(&args.path).map_err(|source| CliError::Io {
            path: args.path.clone(),
            source,
        })?
    };
    let transcript =
        Transcript::from_json(&text).map_err(|e| CliError::Arg(format!("{}: {e}", args.path)))?;
    let report = transcript
        .verify(&NoContractWallets)
        .map_err(|e| CliError::Arg(format!("{}: {e}", args.path)))?;
    if args.json {
        print_json(
            &serde_json::to_value(&report).map_err(|e| CliError::Arg(format!("report: {e}")))?,
        );
    } else {
        match &report.error {
            None => println!("valid: {} signed plies", report.valid_plies),
            Some(e) => println!(
                "invalid: {e} (the {} plies before it are valid)",
                report.valid_plies
            ),
        }
        for wallet in &report.unchecked {
            println!(
                "unchecked: {wallet} is a contract wallet; its signatures need the chain (ERC-1271)"
            );
        }
        println!("position: {} (status {})", report.fen, report.status);
        let s = &report.settlement;
        match s.ends {
            Some((result, reason)) => {
                println!(
                    "settle with ChessChannel.{}: {} -> result {result}, reason {reason}",
                    s.call, s.why
                )
            }
            None => println!("dispute with ChessChannel.{}: {}", s.call, s.why),
        }
        println!("calldata: {}", s.calldata);
    }
    Ok(if report.error.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_VERDICT)
    })
}
