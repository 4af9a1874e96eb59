//! `chessref channel ...`: off-chain games with signed moves (docs/CHANNEL.md).
//!
//! `verify TRANSCRIPT.json`: every signature, the turn order, every move legal by
//! `chessref-core`, the clocks and stamps, the receipts; prints the first bad ply and why,
//! and the `ChessChannel` call (with calldata) that settles or disputes the game.
//! `settle` and `dispute` send that call; a decided position takes two runs of `settle`:
//! the registration, then, after its response window, `finishRegistered`.

use std::process::ExitCode;

use chessref_channel::{NoPins, Transcript, TranscriptReport};
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
    /// Create a channel game on-chain (the terms of chessref game create, plus --window).
    Create(super::channel_play::CreateArgs),
    /// Join a channel game on-chain, paying the stake.
    Join(super::channel_play::JoinArgs),
    /// Play a joined channel game through a relay: moves on standard input, checked and signed here.
    Play(super::channel_play::PlayArgs),
}

/// Arguments of `chessref channel settle|dispute`.
#[derive(ClapArgs)]
struct SendArgs {
    /// The transcript (as for `verify`), `-` for stdin.
    #[arg(value_name = "TRANSCRIPT")]
    path: String,
    /// The node of the transcript's chain and who sends, as for every command that sends:
    /// CHESSREF_PRIVATE_KEY, `--keystore` or `--unlocked` (a watchtower gives its own:
    /// overtaking, proofs and finishing are open to anyone; a first registration is a
    /// player's).
    #[command(flatten)]
    sender: super::sender::SenderArgs,
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
    /// Judge session keys' results and resignations, and a move's freshness, at this time (unix seconds; default: now).
    #[arg(long, value_name = "SECONDS")]
    now: Option<u64>,
}

/// Runs `chessref channel`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.command {
        ChannelCommand::Verify(a) => verify(a),
        ChannelCommand::Settle(a) => send(a, true),
        ChannelCommand::Dispute(a) => send(a, false),
        ChannelCommand::Create(a) => super::channel_play::create(a),
        ChannelCommand::Join(a) => super::channel_play::join(a),
        ChannelCommand::Play(a) => super::channel_play::play(a),
    }
}

/// The system clock, unix seconds.
pub(super) fn system_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Reads and checks the transcript at `path` (`-` for stdin) at time `now`.
fn read(path: &str, now: u64) -> Result<(Transcript, TranscriptReport), CliError> {
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
        .verify(&NoPins, now)
        .map_err(|e| CliError::Arg(format!("{path}: {e}")))?;
    Ok((transcript, report))
}

fn verify(args: VerifyArgs) -> Result<ExitCode, CliError> {
    let (_, report) = read(&args.path, args.now.unwrap_or_else(system_now))?;
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
                    "settle with ChessChannel.{}: {} -> result {result}, reason {reason}{}",
                    s.call,
                    s.why,
                    if s.call == "register" {
                        " (pending until the response window is over)"
                    } else {
                        ""
                    }
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

/// `settle` (`ending` true) or `dispute`: sends the call `verify` names (registrations
/// from a player's account unless `--from` says otherwise) and prints what the chain did.
/// A decided position registered before is finished instead, once its window is over.
fn send(args: SendArgs, ending: bool) -> Result<ExitCode, CliError> {
    let (transcript, report) = read(&args.path, system_now())?;
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
    let (chain, from) = args.sender.connect()?;
    let role = if from == transcript.game.white {
        "white"
    } else if from == transcript.game.black {
        "black"
    } else {
        "not a player of this game"
    };
    // Said before anything is sent: which account pays and speaks for whom.
    println!("sending from {from} ({role})");
    let chain_error = |e: chessref_evm::EvmError| CliError::Arg(format!("chain: {e}"));
    let mut referee =
        Referee::of_channel(chain, transcript.domain.verifying_contract).map_err(chain_error)?;
    let chain_id = referee
        .chain()
        .chain_id()
        .map_err(|e| chain_error(e.into()))?;
    if chain_id != transcript.domain.chain_id {
        return Err(CliError::Arg(format!(
            "the node is chain {chain_id}, the transcript's signatures are for chain {}",
            transcript.domain.chain_id
        )));
    }
    let id = transcript.game.game_id;
    if s.call == "register" && s.ends.is_some() && !transcript.moves.is_empty() {
        // A decided position: registered before (by anyone), it is finished once its window
        // is over instead of registered again.
        let last = transcript.message(transcript.moves.len() - 1).ply;
        let status = referee.channel_status(id).map_err(chain_error)?;
        if status.windowEnd != 0 && status.registeredPly == last {
            let now = referee
                .chain()
                .timestamp()
                .map_err(|e| chain_error(e.into()))?;
            if now < status.windowEnd {
                println!(
                    "game {id}: ply {last} is registered, its outcome pending until {} by the chain's clock; run `chessref channel settle` again then (anyone may)",
                    chessref_evm::moment::when(status.windowEnd, now)
                );
                return Ok(ExitCode::SUCCESS);
            }
            let registered = referee
                .latest_registration(id, 10_000)
                .map_err(chain_error)?
                .ok_or_else(|| {
                    CliError::Arg(format!(
                        "game {id}: no PositionRegistered in the node's logs"
                    ))
                })?;
            let acted = referee
                .finish_registered(from, id, &registered.position)
                .map_err(|e| CliError::Arg(format!("ChessReferee.finishRegistered: {e}")))?;
            println!(
                "sent ChessReferee.finishRegistered from {from} ({} gas)",
                acted.receipt.gas_used
            );
            if let Some(ending) = acted.ending {
                println!("game {id} ended: {ending}");
            }
            return Ok(ExitCode::SUCCESS);
        }
    }
    let acted = referee
        .send_channel(from, s)
        .map_err(|e| CliError::Arg(format!("ChessChannel.{}: {e}", s.call)))?;
    println!(
        "sent ChessChannel.{} from {from}: {} ({} gas)",
        s.call, s.why, acted.receipt.gas_used
    );
    match (acted.ending, referee.registered(&acted)) {
        (Some(ending), _) => println!("game {id} ended: {ending}"),
        (None, Some(r)) => match s.ends {
            Some((result, reason)) => println!(
                "game {id}: ply {} registered, a decided position (result {result}, reason {reason}): final once its response window is over; then run `chessref channel settle` again (anyone may)",
                r.ply
            ),
            None => println!(
                "game {id} continues on-chain from ply {} once its response window is over",
                r.ply
            ),
        },
        (None, None) => println!("game {id}: no ending and no registration reported"),
    }
    Ok(ExitCode::SUCCESS)
}
