//! `chessref channel ...`: off-chain games with signed moves (docs/CHANNEL.md).
//!
//! `verify TRANSCRIPT.json`: every signature, the turn order, every move legal by
//! `chessref-core`, the clocks; prints the first bad ply and why, and the
//! `ChessChannel` call (with calldata) that settles or disputes the game.

use std::process::ExitCode;

use chessref_channel::{NoContractWallets, Transcript, TranscriptReport};
use chessref_evm::{Chain, Referee};
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
    /// Send the call that ends the game (a signed result or resignation, a decided position); refuses a dispute.
    Settle(SendArgs),
    /// Send the dispute call (register the latest pair, or prove cheating); refuses a game that can be settled.
    Dispute(SendArgs),
}

/// Arguments of `chessref channel settle|dispute`.
#[derive(ClapArgs)]
struct SendArgs {
    /// The transcript (as for `verify`), `-` for stdin.
    #[arg(value_name = "TRANSCRIPT")]
    path: String,
    /// The JSON-RPC node of the transcript's chain (keys: CHESSREF_PRIVATE_KEYS, else the node's accounts).
    #[arg(long, value_name = "URL")]
    rpc: String,
    /// The account to send from (default: the first of a player's accounts the chain can send from).
    #[arg(long, value_name = "ADDRESS")]
    from: Option<String>,
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
        ChannelCommand::Settle(a) => send(a, true),
        ChannelCommand::Dispute(a) => send(a, false),
    }
}

/// Reads and checks the transcript at `path` (`-` for stdin).
fn read(path: &str) -> Result<(Transcript, TranscriptReport), CliError> {
    let text = if path == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|source| CliError::Io {
            path: "-".into(),
            source,
        })?
    } else {
        std::fs::read_to_string(path).map_err(|source| CliError::Io {
            path: path.to_owned(),
            source,
        })?
    };
    let transcript =
        Transcript::from_json(&text).map_err(|e| CliError::Arg(format!("{path}: {e}")))?;
    let report = transcript
        .verify(&NoContractWallets)
        .map_err(|e| CliError::Arg(format!("{path}: {e}")))?;
    Ok((transcript, report))
}

fn verify(args: VerifyArgs) -> Result<ExitCode, CliError> {
    let (_, report) = read(&args.path)?;
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

/// `settle` (`ending` true) or `dispute`: sends the call `verify` names from a player's
/// account (registrations must come from a player) and prints what the chain did.
fn send(args: SendArgs, ending: bool) -> Result<ExitCode, CliError> {
    let (transcript, report) = read(&args.path)?;
    let s = &report.settlement;
    let settles = s.ends.is_some() && matches!(s.call, "settle" | "resignBySignature" | "register");
    if ending && !settles {
        return Err(CliError::Arg(format!(
            "{}: the transcript does not end the game ({}: {}); use `chessref channel dispute`",
            args.path, s.call, s.why
        )));
    }
    if !ending && settles && report.error.is_none() {
        return Err(CliError::Arg(format!(
            "{}: the game can be settled ({}: {}); use `chessref channel settle`",
            args.path, s.call, s.why
        )));
    }
    let chain = chessref_evm::connect(Some(&args.rpc)).map_err(|e| CliError::Arg(e.to_string()))?;
    let players = [transcript.game.white, transcript.game.black];
    let from = match &args.from {
        Some(text) => text
            .parse()
            .map_err(|e| CliError::Arg(format!("--from {text:?} is not an address: {e}")))?,
        None => *chain.accounts().iter().find(|a| players.contains(a)).ok_or_else(|| {
            CliError::Arg(format!(
                "none of the chain's accounts is a player ({} or {}): set CHESSREF_PRIVATE_KEYS to a player's key or give --from",
                players[0], players[1]
            ))
        })?,
    };
    let mut referee = Referee::of_channel(chain, transcript.domain.verifying_contract)
        .map_err(|e| CliError::Arg(format!("chain: {e}")))?;
    let chain_id = referee
        .chain()
        .chain_id()
        .map_err(|e| CliError::Arg(format!("chain: {e}")))?;
    if chain_id != transcript.domain.chain_id {
        return Err(CliError::Arg(format!(
            "the node is chain {chain_id}, the transcript's signatures are for chain {}",
            transcript.domain.chain_id
        )));
    }
    let acted = referee
        .send_channel(from, s)
        .map_err(|e| CliError::Arg(format!("ChessChannel.{}: {e}", s.call)))?;
    println!(
        "sent ChessChannel.{} from {from}: {} ({} gas)",
        s.call, s.why, acted.receipt.gas_used
    );
    match (acted.ending, referee.registered(&acted)) {
        (Some(ending), _) => println!("game {} ended: {ending}", transcript.game.game_id),
        (None, Some(r)) => println!(
            "game {} continues on-chain from ply {} once its response window is over",
            transcript.game.game_id, r.ply
        ),
        (None, None) => println!(
            "game {}: no ending and no registration reported",
            transcript.game.game_id
        ),
    }
    Ok(ExitCode::SUCCESS)
}
