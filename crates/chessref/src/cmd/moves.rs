//! `chessref moves [--fen FEN] [--json]`.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use serde_json::json;

use super::{CliError, parse_position, print_json};

/// Arguments of `chessref moves`.
#[derive(ClapArgs)]
pub struct Args {
    /// Position as FEN or state hex (default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    /// Print `{"moves": [UCI...], "san": [SAN...]}` (same order) instead of one UCI move per line.
    #[arg(long)]
    json: bool,
}

/// Prints the legal moves, sorted by UCI.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let state = parse_position(args.fen.as_deref())?;
    let mut moves = state.legal_moves();
    moves.sort_by_key(|m| m.to_uci());
    if args.json {
        let uci: Vec<String> = moves.iter().map(|m| m.to_uci()).collect();
        let san: Vec<String> = moves
            .iter()
            .map(|m| state.san(*m).unwrap_or_else(|_| m.to_uci()))
            .collect();
        print_json(&json!({ "moves": uci, "san": san }));
    } else {
        for m in moves {
            println!("{m}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
