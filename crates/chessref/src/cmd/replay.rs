//! `chessref replay <pgn or -> [--rpc URL] [--json] [--jobs N]`: every game played as
//! transactions through ChessReferee, every ply compared byte for byte with
//! chessref-core. The logic lives in `chessref_evm::replay`.
//!
//! On the in-process chain the games are spread over `--jobs` workers, each with
//! its own chain: this thread reads the PGN and replays each game in Rust
//! ([`Prepared::of`]), numbering the games that go on chain as one chain would
//! (each worker's referee is told the id), and prints the reports strictly in
//! input order, at most a bounded window of games in flight.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::{Mutex, mpsc};
use std::time::Instant;

use alloy_primitives::U256;
use chessref_core::{PgnError, PgnReader};
use chessref_evm::{
    Chain, EvmError, GameReport, GasStats, Prepared, ReplaySummary, Replayer, RevmChain, Tally,
};
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
    /// Worker threads replaying games on the in-process chain (default: the
    /// available parallelism); the report is the same for any number. Ignored
    /// with --rpc (one chain, one game at a time).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
}

/// Games in flight per worker at most (read ahead, or done and waiting for an earlier one).
const WINDOW_PER_JOB: usize = 16;

/// Replays every game; exit 1 if the contract and the Rust mirror disagree anywhere.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    if args.rpc.is_none() && jobs > 1 {
        run_parallel(args, jobs)
    } else {
        run_sequential(args)
    }
}

/// One game's lines of the text report.
fn write_report(out: &mut impl Write, report: &GameReport) -> io::Result<()> {
    let gas = GasStats::of(&report.move_gas);
    let ending = report
        .ending
        .map_or("running".to_string(), |ending| ending.to_string());
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
}

/// The closing summary (`--json` object or `total:` line) and the exit status.
fn finish(
    out: &mut impl Write,
    json: bool,
    summary: &ReplaySummary,
    details: &[String],
) -> Result<ExitCode, CliError> {
    if json {
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

/// A game for a worker: its place in the input, the id it takes on chain (if it
/// goes on chain) and the game.
type Job = (usize, Option<U256>, Prepared);

/// `--jobs N` (N > 1) on the in-process chain: same report as [`run_sequential`].
fn run_parallel(args: Args, jobs: usize) -> Result<ExitCode, CliError> {
    let started = Instant::now();
    let io_error = |source| CliError::Io {
        path: args.path.clone(),
        source,
    };
    let (input, size) = open_input(&args.path)?;
    let evm_error = |e: EvmError| CliError::Arg(format!("chain: {e}"));
    let describe = RevmChain::new().describe();
    let progress = byte_progress(size, "replay", 0);
    let mut reader = PgnReader::new(input);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut details = Vec::new();
    let mut tally = Tally::new(describe);
    let window = jobs * WINDOW_PER_JOB;
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = mpsc::channel::<(usize, Result<GameReport, String>)>();
    std::thread::scope(|scope| -> Result<ExitCode, CliError> {
        for _ in 0..jobs {
            let (job_rx, done_tx) = (&job_rx, done_tx.clone());
            scope.spawn(move || {
                // Each worker its own chain (revm's context stays on its thread); a
                // chain that cannot deploy answers every game with the error.
                let mut replayer = Replayer::new(RevmChain::new()).map_err(evm_error);
                loop {
                    // A poisoned lock means another worker panicked: stop too.
                    let Ok(job) = job_rx.lock().map(|rx| rx.recv()) else {
                        break;
                    };
                    let Ok((seq, id, prepared)) = job else {
                        break;
                    };
                    let report = match &mut replayer {
                        Err(e) => Err(e.to_string()),
                        Ok(replayer) => match id {
                            Some(id) => replayer
                                .set_next_game_id(id)
                                .and_then(|()| replayer.replay_prepared(prepared)),
                            None => replayer.replay_prepared(prepared),
                        }
                        .map_err(|e| evm_error(e).to_string()),
                    };
                    if done_tx.send((seq, report)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let job_tx = job_tx;
        // Reports that came back before an earlier game's, by input place.
        let mut waiting: BTreeMap<usize, Result<GameReport, String>> = BTreeMap::new();
        let (mut sent, mut printed) = (0usize, 0usize);
        let mut next_id = U256::from(1);
        let mut read_error = None;
        // Waits for one report, then prints every report now in input order.
        let collect = |printed: &mut usize,
                       waiting: &mut BTreeMap<usize, Result<GameReport, String>>,
                       out: &mut io::BufWriter<io::StdoutLock<'_>>,
                       details: &mut Vec<String>,
                       tally: &mut Tally|
         -> Result<(), CliError> {
            let (seq, report) = done_rx
                .recv()
                .map_err(|_| CliError::Arg("chain: a replay worker stopped".to_string()))?;
            waiting.insert(seq, report);
            while let Some(report) = waiting.remove(printed) {
                let report: GameReport = report.map_err(CliError::Arg)?;
                *printed += 1;
                tally.add(&report);
                details.extend(report.mismatches.iter().take(20).map(ToString::to_string));
                if !args.json {
                    progress.suspend(|| write_report(out, &report))?;
                }
            }
            Ok(())
        };
        while let Some(item) = reader.next() {
            if args.limit.is_some_and(|limit| sent >= limit) {
                break;
            }
            if let Err(PgnError::Io(source)) = item {
                read_error = Some(source);
                break;
            }
            let prepared = Prepared::of(item);
            let id = prepared.creates_game().then(|| {
                let id = next_id;
                next_id += U256::from(1);
                id
            });
            while sent - printed >= window {
                collect(
                    &mut printed,
                    &mut waiting,
                    &mut out,
                    &mut details,
                    &mut tally,
                )?;
            }
            job_tx
                .send((sent, id, prepared))
                .map_err(|_| CliError::Arg("chain: a replay worker stopped".to_string()))?;
            sent += 1;
            if sent.is_multiple_of(16) {
                progress.set_position(reader.bytes_read());
            }
        }
        drop(job_tx);
        while printed < sent {
            collect(
                &mut printed,
                &mut waiting,
                &mut out,
                &mut details,
                &mut tally,
            )?;
        }
        progress.finish_and_clear();
        if let Some(source) = read_error {
            return Err(io_error(source));
        }
        let summary = tally.summary(started.elapsed().as_secs_f64());
        finish(&mut out, args.json, &summary, &details)
    })
}

/// One game at a time on one chain (any chain).
fn run_sequential(args: Args) -> Result<ExitCode, CliError> {
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
            progress.suspend(|| write_report(&mut out, &report))?;
        }
        if count.is_multiple_of(16) {
            progress.set_position(reader.bytes_read());
        }
    }
    progress.finish_and_clear();
    let summary = replayer.summary();
    finish(&mut out, args.json, &summary, &details)
}
