//! `chessref check --fen FEN <uci> [--json]`: the contract's verdict on one move.

use std::process::ExitCode;

use chessref_core::{RawMove, Rejection, Square, State};
use clap::Args as ClapArgs;
use serde::Serialize;

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

/// The verdict on one move, as `check --json` prints it (the contract's section 6 code).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckVerdict {
    /// Whether the move is legal.
    pub legal: bool,
    /// 0 when legal, else the ENCODING.md section 6 code.
    pub code: u8,
    /// `"OK"` when legal, else the section 6 name (`"KING_LEFT_IN_CHECK"`, ...).
    pub reason: &'static str,
}

impl CheckVerdict {
    /// The verdict of `state.check(raw)`.
    pub fn of(state: &State, raw: RawMove) -> CheckVerdict {
        CheckVerdict::from_result(state.check(raw).map(|_| ()))
    }

    /// The verdict for a check result.
    pub fn from_result(result: Result<(), Rejection>) -> CheckVerdict {
        match result {
            Ok(()) => CheckVerdict {
                legal: true,
                code: 0,
                reason: "OK",
            },
            Err(r) => CheckVerdict {
                legal: false,
                code: r.code(),
                reason: r.name(),
            },
        }
    }
}

/// Reads a move as the contract sees it: UCI squares as 0x88 indices, or a packed `0x` uint24.
pub fn parse_raw_move(text: &str) -> Result<RawMove, CliError> {
    let text = text.trim();
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return match u32::from_str_radix(hex, 16) {
            Ok(packed) if packed <= 0xff_ffff => Ok(RawMove::from_packed(packed)),
            _ => Err(CliError::Arg(format!(
                "invalid packed move {text:?}: expected 0x and at most 6 hex digits"
            ))),
        };
    }
    let bad = || {
        CliError::Arg(format!(
            "invalid move {text:?}: expected UCI like e2e4 or e7e8q, or a packed 0x uint24"
        ))
    };
    if !text.is_ascii() || !(4..=5).contains(&text.len()) {
        return Err(bad());
    }
    let from: Square = text[0..2].parse().map_err(|_| bad())?;
    let to: Square = text[2..4].parse().map_err(|_| bad())?;
    let promotion = match text.as_bytes().get(4).map(u8::to_ascii_lowercase) {
        None => 0,
        Some(b'p') => 1,
        Some(b'n') => 2,
        Some(b'b') => 3,
        Some(b'r') => 4,
        Some(b'q') => 5,
        Some(b'k') => 6,
        Some(_) => return Err(bad()),
    };
    Ok(RawMove {
        from: from.index(),
        to: to.index(),
        promotion,
    })
}

/// Checks the move; exit 0 when legal, 1 when illegal.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let state = parse_position(args.fen.as_deref())?;
    let raw = parse_raw_move(&args.mv)?;
    let verdict = if args.evm {
        let answer = chessref_evm::evm_check(&state, raw)
            .map_err(|e| CliError::Arg(format!("EVM check failed: {e}")))?;
        CheckVerdict::from_result(answer)
    } else {
        CheckVerdict::of(&state, raw)
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&verdict).expect("a verdict serializes")
        );
    } else if verdict.legal {
        println!("legal");
    } else {
        let rejection = Rejection::from_code(verdict.code).expect("a rejection code");
        println!("illegal: {} {}: {rejection}", verdict.code, verdict.reason);
    }
    Ok(if verdict.legal {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_VERDICT)
    })
}
