//! One module per subcommand, plus what they share: the error type, exit codes
//! and position parsing.

pub mod channel;
pub mod channel_play;
pub mod check;
pub mod deploy;
pub mod game;
pub mod index;
pub mod index_backup;
pub mod moves;
pub mod perft;
pub mod pgn;
pub mod play;
pub mod replay;
pub mod sender;
pub mod serve;
pub mod simulate;
pub mod state;
pub mod tournament;
pub mod watch;

use std::path::PathBuf;

use alloy_primitives::Address;
use chessref_core::{FenError, State, StateError};

/// Exit status for a negative verdict (illegal move, invalid state, PGN errors).
pub const EXIT_VERDICT: u8 = 1;
/// Exit status for input that cannot be read at all.
pub const EXIT_BAD_INPUT: u8 = 2;

/// Input the CLI cannot work with; reported on stderr with exit status 2.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A `--fen` value that is not a valid position.
    #[error("invalid position {text:?}: {source}")]
    Fen {
        /// The text given.
        text: String,
        /// Why it is refused.
        source: FenError,
    },
    /// A position given as hex that is not a valid state.
    #[error("{0}")]
    Hex(#[from] StateError),
    /// An argument with a bad value.
    #[error("{0}")]
    Arg(String),
    /// A file that cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
    /// A request refused before anything was sent (an illegal move, not your turn, a
    /// game not running, a call the contract would revert): exit status 1.
    #[error("{0}")]
    Refused(String),
    /// A request the contract refuses (by the node's estimate: nothing sent) or reverted:
    /// exit status 1. `message` is in words; `revert` keeps the error's raw fields, which
    /// a command run with `--json` prints ([`CliError::to_json`]).
    #[error("{message}")]
    Reverted {
        /// The refusal in words.
        message: String,
        /// The contract's error as it raised it.
        revert: Box<chessref_evm::ContractRevert>,
    },
}

impl CliError {
    /// The exit status: [`EXIT_VERDICT`] for a refusal, else [`EXIT_BAD_INPUT`].
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Refused(_) | CliError::Reverted { .. } => EXIT_VERDICT,
            _ => EXIT_BAD_INPUT,
        }
    }

    /// The error as one JSON object, for a command run with `--json`: `{"error":
    /// "words"}`, with `"revert": {"name": …, fields…}` when the contract raised it.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            CliError::Reverted { message, revert } => {
                serde_json::json!({"error": message, "revert": revert.to_json()})
            }
            other => serde_json::json!({"error": other.to_string()}),
        }
    }
}

/// Where the referee is on the chain: the options every command reading it shares.
#[derive(clap::Args, Clone, Debug)]
pub struct RefereeArgs {
    /// The ChessReferee (default: the deployments file's, by the node's chain id).
    #[arg(long, value_name = "ADDRESS")]
    pub referee: Option<Address>,
    /// The deployments file (default: $CHESSREF_DEPLOYMENTS, else ./deployments.json).
    #[arg(long, value_name = "PATH")]
    pub deployments: Option<PathBuf>,
    /// First block to read events from (default: the referee's deployment block from the
    /// deployments file, else 0).
    #[arg(long, value_name = "N")]
    pub from_block: Option<u64>,
}

impl RefereeArgs {
    /// The referee and its first block on chain `chain_id`
    /// ([`chessref_evm::deployments::locate`]).
    pub fn locate(&self, chain_id: u64) -> Result<(Address, u64), CliError> {
        chessref_evm::deployments::locate(
            chain_id,
            self.referee,
            self.deployments.as_deref(),
            self.from_block,
        )
        .map_err(|e| CliError::Arg(e.to_string()))
    }
}

/// How a Postgres writer (`chessref index`, `chessref watch`) meets its lock held by
/// another: as a standby polling every `--poll-ms` (at least 100 ms, not to hammer the
/// server), or, with `--once`, not at all (refused, naming the holder).
pub fn standby(once: bool, poll_ms: u64) -> Option<std::time::Duration> {
    (!once).then(|| std::time::Duration::from_millis(poll_ms.max(100)))
}

/// Whether `text` is meant as a state in hex (256 hex digits, optional `0x`) rather than FEN.
pub fn looks_like_hex(text: &str) -> bool {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    !text.contains('/') && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Parses a position given as FEN or as a 256-hex-digit state; `None` is the initial position.
pub fn parse_position(text: Option<&str>) -> Result<State, CliError> {
    let Some(text) = text else {
        return Ok(State::initial());
    };
    let text = text.trim();
    if looks_like_hex(text) {
        Ok(State::from_hex(text)?)
    } else {
        State::from_fen(text).map_err(|source| CliError::Fen {
            text: text.to_owned(),
            source,
        })
    }
}

/// Opens a PGN input for streaming: a file (with its size, for a progress
/// bar) or standard input for `-`.
pub fn open_input(path: &str) -> Result<(Box<dyn std::io::BufRead>, Option<u64>), CliError> {
    use std::io::BufReader;
    const BUFFER: usize = 1 << 16;
    if path == "-" {
        return Ok((
            Box::new(BufReader::with_capacity(BUFFER, std::io::stdin().lock())),
            None,
        ));
    }
    let io_error = |source| CliError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    let size = file.metadata().map_err(io_error)?.len();
    Ok((Box::new(BufReader::with_capacity(BUFFER, file)), Some(size)))
}

/// A progress bar over the bytes read, on stderr when stderr is a terminal
/// and the input is not known to be smaller than `min_bytes`; hidden otherwise.
pub fn byte_progress(size: Option<u64>, label: &str, min_bytes: u64) -> indicatif::ProgressBar {
    if size.is_some_and(|s| s < min_bytes) {
        return indicatif::ProgressBar::hidden();
    }
    let template = match size {
        Some(_) => {
            format!("{label} {{bar:40}} {{bytes}}/{{total_bytes}} {{bytes_per_sec}} eta {{eta}}")
        }
        None => format!("{{spinner}} {label}: {{bytes}} read {{bytes_per_sec}}"),
    };
    terminal_progress(size, &template)
}

/// A progress bar over `total` items (`unit` names them), on stderr when
/// stderr is a terminal; hidden otherwise.
pub fn count_progress(total: u64, label: &str, unit: &str) -> indicatif::ProgressBar {
    terminal_progress(
        Some(total),
        &format!("{label} {{bar:40}} {{pos}}/{{len}} {unit} eta {{eta}}"),
    )
}

/// A bar drawn with `template` on stderr if it is a terminal: piped output
/// (a file, another program, a test) stays free of control characters.
fn terminal_progress(len: Option<u64>, template: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr())
        .with_style(ProgressStyle::with_template(template).expect("a valid template"))
}

/// Prints a JSON value as one line on stdout.
pub fn print_json(value: &serde_json::Value) {
    println!("{value}");
}
