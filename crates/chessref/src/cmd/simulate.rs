//! `chessref simulate --games N --seed S [--illegal-rate R] [--rpc URL]`:
//! random games through ChessReferee, with random illegal attempts that must
//! revert with exactly the code the Rust mirror predicts; a gas histogram at
//! the end. The logic lives in `chessref_evm::simulate`.

use std::io::{self, Write};
use std::process::ExitCode;

use chessref_evm::{SimulateOptions, simulate, stats::histogram};
use clap::Args as ClapArgs;

use super::{CliError, EXIT_VERDICT, count_progress};

/// Arguments of `chessref simulate`.
#[derive(ClapArgs)]
pub struct Args {
    /// Games to play.
    #[arg(long, default_value_t = 10)]
    games: usize,
    /// Seed of the random choices (same seed, same games).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Probability (0 to 1), before each legal move, of first sending a random illegal one.
    #[arg(long, default_value_t = 0.0, value_name = "R")]
    illegal_rate: f64,
    /// Resign a game still running after this many plies.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// A JSON-RPC node to play on (default: an in-process revm chain).
    #[arg(long, value_name = "URL")]
    rpc: Option<String>,
    /// Print one summary object instead of text.
    #[arg(long)]
    json: bool,
    /// Play the games off-chain with signed moves (docs/CHANNEL.md), each ending by one
    /// protocol path (agreed, resigned, decided, stalled, overtaken, equivocation,
    /// illegal), settled on the chain and checked against the mirror's prediction.
    #[arg(long)]
    channel: bool,
    /// Play knockout events on the referee's tournament instead (in process only): every
    /// pairing, lot and prize checked against the Rust mirror.
    #[arg(long, conflicts_with_all = ["channel", "rpc"])]
    tournament: bool,
    /// With --tournament: events to play (4 or 8 players each).
    #[arg(long, default_value_t = 4, requires = "tournament")]
    events: usize,
}

/// Runs the simulation; exit 1 on any disagreement.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if !(0.0..=1.0).contains(&args.illegal_rate) {
        return Err(CliError::Arg(format!(
            "--illegal-rate must be between 0 and 1, got {}",
            args.illegal_rate
        )));
    }
    if args.tournament {
        return tournament(&args);
    }
    let chain =
        chessref_evm::connect(args.rpc.as_deref()).map_err(|e| CliError::Arg(e.to_string()))?;
    if args.channel {
        return channel(chain, &args);
    }
    let options = SimulateOptions {
        games: args.games,
        seed: args.seed,
        illegal_rate: args.illegal_rate,
        max_plies: args.max_plies,
    };
    let progress = count_progress(args.games as u64, "simulate", "games");
    let summary = simulate(chain, &options, |_| progress.inc(1))
        .map_err(|e| CliError::Arg(format!("chain: {e}")))?;
    progress.finish_and_clear();
    report(
        args.json,
        &summary,
        summary.mismatches,
        &summary.mismatch_details,
        |out| {
            writeln!(
                out,
                "{} games, {} moves, {} illegal attempts, {} mismatches in {:.2} s on {}",
                summary.games,
                summary.plies,
                summary.illegal_attempts,
                summary.mismatches,
                summary.seconds,
                summary.chain
            )?;
            if summary.illegal_attempts > 0 {
                let codes: Vec<String> = summary
                    .illegal_by_code
                    .iter()
                    .enumerate()
                    .filter(|&(_, &n)| n > 0)
                    .map(|(code, n)| format!("{code}:{n}"))
                    .collect();
                writeln!(out, "illegal attempts by code: {}", codes.join(" "))?;
            }
            writeln!(out, "endings (result, reason: games): {}", summary.endings)?;
            writeln!(
                out,
                "gas per move: median {} p90 {} max {}",
                summary.gas.median, summary.gas.p90, summary.gas.max
            )?;
            write!(out, "{}", histogram(&summary.move_gas, 12))?;
            Ok(())
        },
    )
}

/// `simulate --channel`: exit 1 on any mismatch.
fn channel(chain: Box<dyn chessref_evm::Chain>, args: &Args) -> Result<ExitCode, CliError> {
    if args.illegal_rate != 0.0 {
        return Err(CliError::Arg(
            "--illegal-rate is for on-chain games; --channel seeds its own cheating".into(),
        ));
    }
    let options = chessref_evm::channel_sim::ChannelSimOptions {
        games: args.games,
        seed: args.seed,
        max_plies: args.max_plies.clamp(2, 300),
    };
    let summary = chessref_evm::channel_sim::simulate_channel(chain, &options)
        .map_err(|e| CliError::Arg(format!("chain: {e}")))?;
    report(
        args.json,
        &summary,
        summary.mismatches,
        &summary.mismatch_details,
        |out| {
            writeln!(
                out,
                "{} channel games, {} signed moves, {} mismatches in {:.2} s on {}",
                summary.games,
                summary.signed_moves,
                summary.mismatches,
                summary.seconds,
                summary.chain
            )?;
            let endings: Vec<String> = summary
                .endings
                .iter()
                .map(|(k, n)| format!("{k}: {n}"))
                .collect();
            writeln!(out, "endings: {}", endings.join(", "))?;
            let g = |s: &chessref_evm::GasStats| format!("median {}, max {}", s.median, s.max);
            writeln!(
                out,
                "gas per game settled without a dispute (create + join + settle): {}",
                g(&summary.game_gas)
            )?;
            writeln!(
                out,
                "gas per cooperative game (create + join + settle or resignBySignature): {}; with a player's first stake (its credit slot created, once per player and asset): {} games, {}",
                g(&summary.cooperative_gas),
                summary.cooperative_first_stake_games,
                g(&summary.cooperative_gas_first_stake)
            )?;
            writeln!(
                out,
                "gas per registration: {}; per proof of cheating: {}",
                g(&summary.register_gas),
                g(&summary.proof_gas)
            )?;
            for (kind, e) in &summary.gas_by_ending {
                let outcomes: Vec<String> = e
                    .outcomes
                    .iter()
                    .map(|(o, n)| format!("{n} × {o}"))
                    .collect();
                writeln!(
                    out,
                    "  {kind} ({} games), whole game gas: {}; {}",
                    e.games,
                    g(&e.gas),
                    outcomes.join(", ")
                )?;
            }
            Ok(())
        },
    )
}

/// `simulate --tournament`: exit 1 on any mismatch.
fn tournament(args: &Args) -> Result<ExitCode, CliError> {
    if args.illegal_rate != 0.0 {
        return Err(CliError::Arg(
            "--illegal-rate is for on-chain games, not --tournament".into(),
        ));
    }
    let options = chessref_evm::tournament_sim::TournamentSimOptions {
        events: args.events,
        seed: args.seed,
        max_plies: args.max_plies,
    };
    let summary =
        chessref_evm::tournament_sim::simulate_tournament(chessref_evm::RevmChain::new(), &options)
            .map_err(|e| CliError::Arg(format!("chain: {e}")))?;
    report(
        args.json,
        &summary,
        summary.mismatches,
        &summary.mismatch_details,
        |out| {
            writeln!(
                out,
                "{} events played, {} refunded; {} matches, {} games, {} moves; {} claims checked; {} mismatches in {:.2} s",
                summary.events,
                summary.refunded,
                summary.matches,
                summary.games,
                summary.plies,
                summary.claims,
                summary.mismatches,
                summary.seconds
            )?;
            let paths: Vec<String> = summary
                .paths
                .iter()
                .map(|(k, n)| format!("{k}: {n}"))
                .collect();
            writeln!(out, "matches decided by: {}", paths.join(", "))?;
            for (op, g) in &summary.gas {
                writeln!(out, "  gas of {op}: median {}, max {}", g.median, g.max)?;
            }
            Ok(())
        },
    )
}

/// Prints a simulation's `summary`: one JSON object with `json`, else every mismatch on a
/// `MISMATCH` line, then `text`'s lines; exit 1 on any mismatch.
fn report<S: serde::Serialize>(
    json: bool,
    summary: &S,
    mismatches: usize,
    details: &[String],
    text: impl FnOnce(&mut io::StdoutLock<'static>) -> io::Result<()>,
) -> Result<ExitCode, CliError> {
    let mut out = io::stdout().lock();
    if json {
        writeln!(
            out,
            "{}",
            serde_json::to_string(summary).expect("a summary serializes")
        )?;
    } else {
        for m in details {
            writeln!(out, "MISMATCH {m}")?;
        }
        text(&mut out)?;
    }
    Ok(if mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_VERDICT)
    })
}
