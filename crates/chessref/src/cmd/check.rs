//! `chessref check --fen FEN <uci> [--json]`: the contract's verdict on one move.

use std::process::ExitCode;

use chessref_core::{RawMove, Verdict};
use clap::Args as ClapArgs;

use super::{CliError, EXIT_VERDICT, parse_position};

/// Arguments of `chessref check`.
#[derive(ClapArgs)]
pub struct Args {
    /// Position as FEN or state hex (default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    /// The move: UCI (`e2e4`, `e7e8q`; promotion letters `p` and `k` are accepted and
    /// rejected by the rules with INVALID_PROMOTION), or the contract's packed uint24 as
    /// `0x` hex (`0x644400` = e2e4), which can also carry off-board squares.
    #[arg(value_name = "MOVE")]
    mv: String,
    /// Print `{"legal": bool, "code": int, "reason": "NAME"}`.
    #[arg(long)]
    json: bool,
    /// Answer with the compiled ChessRulesView contract on an in-process revm chain
    /// instead of the Rust rules (same output).
    #[arg(long)]
    evm: bool,
}

/// Checks the move; exit 0 when legal, 1 when illegal.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let state = parse_position(args.fen.as_deref())?;
    let raw = RawMove::parse(&args.mv).map_err(|e| CliError::Arg(e.to_string()))?;
    let verdict = if args.evm {
        let answer = chessref_evm::evm_check(&state, raw)
            .map_err(|e| CliError::Arg(format!("EVM check failed: {e}")))?;
        Verdict::from(answer)
    } else {
        Verdict::of(&state, raw)
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&verdict).expect("a verdict serializes")
        );
    } else if verdict.legal() {
        println!("legal");
    } else {
        println!(
            "illegal: {} {}: {}",
            verdict.code(),
            verdict.name(),
            verdict.message()
        );
    }
    Ok(if verdict.legal() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_VERDICT)
    })
}
