//! `chessref pgn <file or -> [--json]`: validate every game of a PGN, streaming.

use std::io::{self, Write};
use std::process::ExitCode;

use chessref_core::{PgnError, PgnReader, PgnReport};
use clap::Args as ClapArgs;

use super::{CliError, EXIT_VERDICT, byte_progress, open_input};

/// Arguments of `chessref pgn`.
#[derive(ClapArgs)]
pub struct Args {
    /// The PGN file, or `-` for standard input.
    #[arg(value_name = "FILE")]
    path: String,
    /// One JSON object per game per line: `{"index", "plies", "fen", "hex", "status",
    /// "result", "outcome", "error", "code", "fivefoldPly", "movesAfterEnd"}` (final
    /// position reached; `error` null when the game was played to its end).
    #[arg(long)]
    json: bool,
}

/// Files smaller than this get no progress bar (they are read in well under a second).
const PROGRESS_MIN_BYTES: u64 = 4 << 20;

/// Validates every game; exit 1 if any game has an error.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let (input, size) = open_input(&args.path)?;
    let progress = byte_progress(size, "pgn", PROGRESS_MIN_BYTES);
    let mut reader = PgnReader::new(input);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let (mut games, mut plies, mut failed, mut ended) = (0usize, 0usize, 0usize, 0usize);
    while let Some(item) = reader.next() {
        if let Err(PgnError::Io(source)) = item {
            progress.finish_and_clear();
            return Err(CliError::Io {
                path: args.path.clone(),
                source,
            });
        }
        let report = PgnReport::read(&item, games + 1);
        games += 1;
        plies += report.plies;
        failed += usize::from(report.failed());
        ended += usize::from(report.moves_after_end > 0);
        if args.json {
            let line = serde_json::to_string(&report).expect("a report serializes");
            writeln!(out, "{line}")?;
        } else if let Some(remark) = report.remark() {
            progress.suspend(|| -> io::Result<()> {
                writeln!(out, "{remark}")?;
                out.flush()
            })?;
        }
        if games % 256 == 0 {
            progress.set_position(reader.bytes_read());
        }
    }
    progress.finish_and_clear();
    if !args.json {
        write!(out, "{games} games, {plies} plies, {failed} with errors")?;
        if ended > 0 {
            write!(out, ", {ended} with moves after an automatic draw")?;
        }
        writeln!(out)?;
    }
    out.flush()?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_VERDICT)
    })
}
