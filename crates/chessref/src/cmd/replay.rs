//! `chessref replay <pgn or -> [--rpc URL] [--json]`: every game played as
//! transactions through ChessReferee, every ply compared byte for byte with
//! chessref-core. The logic lives in `chessref_evm::replay`.

use std::io::{self, Write};
use std::process::ExitCode;

use chessref_core::{PgnError, PgnReader};
use chessref_evm::{GasStats, Replayer};
use clap::Args as ClapArgs;
use serde_json::json;

use super::{CliError, EXIT_VERDICT, byte_progress, open_input};

/// Arguments of `chessref replay`.
#[derive(ClapArgs)]
pub struct Args {
    /// The PGN file, or `-` for standard input.
    #[arg(value_name = "FILE")]
    path: String,
    /// A JSON-RPC node to replay on (e.g. anvil's `http://127.0.0.1:8545`; senders are
    /// its unlocked accounts, or the keys in $CHESSREF_PRIVATE_KEYS). Default: an
    /// in-process revm chain.
    #[arg(long, value_name = "URL")]
    rpc: Option<String>,
    /// Print one summary object: `{"games", "plies", "mismatches", "gas": {"median",
    /// "p90", "max"}, "movesPerSec", ...}`.
    #[arg(long)]
    json: bool,
    /// Replay at most this many games.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

/// Replays every game; exit 1 if the contract and the Rust mirror disagree anywhere.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let io_error = |source| CliError::Io {
        path: args.path.clone(),
        source,
    };
    let (input, size) = open_input(&args.path)?;
    let evm_error = |e: chessref_evm::EvmError| CliError::Arg(format!("chain: {e}"));
    let chain =
        chessref_evm::connect(args.rpc.as_deref()).map_err(|e| CliError::Arg(e.to_string()))?;
    let mut replayer = Replayer::new(chain).map_err(evm_error)?;
    let progress = byte_progress(size, "replay", 0);
    let mut reader = PgnReader::new(input);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut details = Vec::new();
    let mut count = 0usize;
    while let Some(item) = reader.next() {
        if args.limit.is_some_and(|limit| count >= limit) {
            break;
        }
        count += 1;
        if let Err(PgnError::Io(source)) = item {
            progress.finish_and_clear();
            return Err(io_error(source));
        }
        let report = replayer.replay(item).map_err(evm_error)?;
        details.extend(report.mismatches.iter().take(20).map(ToString::to_string));
        if !args.json {
            let gas = GasStats::of(&report.move_gas);
            let ending = report
                .ending
                .map_or("running".to_string(), |ending| ending.to_string());
            progress.suspend(|| -> io::Result<()> {
                writeln!(
                    out,
                    "game {}: {} plies, {} mismatches, gas median {} p90 {} max {}, {ending}",
                    report.index,
                    report.plies,
                    report.mismatches.len(),
                    gas.median,
                    gas.p90,
                    gas.max
                )?;
                for m in &report.mismatches {
                    writeln!(out, "  MISMATCH {m}")?;
                }
                if let Some(note) = &report.note {
                    writeln!(out, "  note: {note}")?;
                }
                Ok(())
            })?;
        }
        if count.is_multiple_of(16) {
            progress.set_position(reader.bytes_read());
        }
    }
    progress.finish_and_clear();
    let summary = replayer.summary();
    if args.json {
        let value = json!({
            "games": summary.games,
            "plies": summary.plies,
            "mismatches": summary.mismatches,
            "pgnErrors": summary.pgn_errors,
            "endings": summary.endings,
            "gas": {"median": summary.gas.median, "p90": summary.gas.p90, "max": summary.gas.max},
            "movesPerSec": (summary.moves_per_sec * 10.0).round() / 10.0,
            "seconds": (summary.seconds * 1000.0).round() / 1000.0,
            "chain": summary.chain,
            "mismatchDetails": details.iter().take(50).collect::<Vec<_>>(),
        });
        writeln!(out, "{value}")?;
    } else {
        writeln!(
            out,
            "total: {} games, {} plies, {} mismatches, {} PGN notes; endings {}; gas per move median {} p90 {} max {}; {:.0} moves/s on {}",
            summary.games,
            summary.plies,
            summary.mismatches,
            summary.pgn_errors,
            summary.endings,
            summary.gas.median,
            summary.gas.p90,
            summary.gas.max,
            summary.moves_per_sec,
            summary.chain
        )?;
    }
    out.flush()?;
    Ok(if summary.mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_VERDICT)
    })
}
