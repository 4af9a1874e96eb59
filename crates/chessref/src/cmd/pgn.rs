//! `chessref pgn <file or -> [--json]`: validate every game of a PGN, streaming.

use std::io::{self, Write};
use std::process::ExitCode;

use chessref_core::{Game, PgnError, PgnGame, PgnReader, Replay};
use clap::Args as ClapArgs;
use serde_json::{Value, json};

use super::{CliError, EXIT_VERDICT, byte_progress, open_input};

/// Arguments of `chessref pgn`.
#[derive(ClapArgs)]
pub struct Args {
    /// The PGN file, or `-` for standard input.
    #[arg(value_name = "FILE")]
    path: String,
    /// One JSON object per game per line: `{"index", "plies", "fen", "hex", "status",
    /// "result", "outcome", "error"}` (final position reached; `error` null when every move was legal).
    #[arg(long)]
    json: bool,
}

/// Files smaller than this get no progress bar (they are read in well under a second).
const PROGRESS_MIN_BYTES: u64 = 4 << 20;

/// Validates every game; exit 1 if any game has an error.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let io_error = |source| CliError::Io {
        path: args.path.clone(),
        source,
    };
    let (input, size) = open_input(&args.path)?;
    let progress = byte_progress(size, "pgn", PROGRESS_MIN_BYTES);
    let mut reader = PgnReader::new(input);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let (mut games, mut plies, mut failed) = (0usize, 0usize, 0usize);
    while let Some(item) = reader.next() {
        let report = match item {
            Err(PgnError::Io(source)) => {
                progress.finish_and_clear();
                return Err(io_error(source));
            }
            Err(e) => GameReport {
                index: e.game().unwrap_or(games + 1),
                game: None,
                result: None,
                error: Some(e),
            },
            Ok(pgn) => GameReport::replay(&pgn),
        };
        games += 1;
        plies += report.game.as_ref().map_or(0, Game::plies);
        if report.error.is_some() {
            failed += 1;
        }
        if args.json {
            writeln!(out, "{}", report.json())?;
        } else if let Some(e) = &report.error {
            progress.suspend(|| -> io::Result<()> {
                writeln!(out, "{e}")?;
                out.flush()
            })?;
        }
        if games % 256 == 0 {
            progress.set_position(reader.bytes_read());
        }
    }
    progress.finish_and_clear();
    if !args.json {
        writeln!(out, "{games} games, {plies} plies, {failed} with errors")?;
    }
    out.flush()?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_VERDICT)
    })
}

/// What `pgn` reports for one game.
struct GameReport {
    index: usize,
    /// The game as far as it was legal (`None` when it could not be read or had no valid start).
    game: Option<Game>,
    /// The PGN result token.
    result: Option<String>,
    error: Option<PgnError>,
}

impl GameReport {
    fn replay(pgn: &PgnGame) -> GameReport {
        let result = pgn.result.clone();
        match pgn.replay_prefix() {
            Ok(Replay { game, error }) => GameReport {
                index: pgn.index,
                game: Some(game),
                result,
                error,
            },
            Err(e) => GameReport {
                index: pgn.index,
                game: None,
                result,
                error: Some(e),
            },
        }
    }

    fn json(&self) -> Value {
        let game = self.game.as_ref();
        let state = game.map(Game::state);
        json!({
            "index": self.index,
            "plies": game.map_or(0, Game::plies),
            "fen": state.map(|s| s.fen()),
            "hex": state.map(|s| s.to_hex()),
            "status": game.map(|g| g.status().name()),
            "result": self.result,
            "outcome": game.and_then(Game::outcome).map(|o| o.result.to_string()),
            "error": self.error.as_ref().map(ToString::to_string),
        })
    }
}
