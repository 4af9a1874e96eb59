//! `chessref perft <depth> [--fen FEN] [--divide]`.

use std::process::ExitCode;

use clap::Args as ClapArgs;

use super::{CliError, parse_position};

/// Arguments of `chessref perft`.
#[derive(ClapArgs)]
pub struct Args {
    /// Depth in plies.
    depth: u32,
    /// Start position as FEN or state hex (default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    /// Print `uci: count` for every legal move before the total.
    #[arg(long)]
    divide: bool,
}

/// Prints the node count (the total alone on the last line).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let state = parse_position(args.fen.as_deref())?;
    if args.depth > 20 {
        return Err(CliError::Arg(format!(
            "perft depth {} is too deep (at most 20)",
            args.depth
        )));
    }
    // Depth 0 has no moves to divide by: its one node is the position itself.
    let total = if args.divide && args.depth > 0 {
        let mut rows = chessref_core::perft_divide(&state, args.depth);
        rows.sort_by_key(|(mv, _)| mv.to_uci());
        for (mv, count) in &rows {
            println!("{mv}: {count}");
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        chessref_core::perft(&state, args.depth)
    };
    println!("{total}");
    Ok(ExitCode::SUCCESS)
}
