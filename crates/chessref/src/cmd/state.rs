//! `chessref state <FEN or hex> [--json]`: decode and validate a state.

use std::process::ExitCode;

use chessref_core::{FenError, InvalidState, State, StateError};
use clap::Args as ClapArgs;
use serde_json::json;

use super::{CliError, EXIT_VERDICT, looks_like_hex, print_json};

/// Arguments of `chessref state`.
#[derive(ClapArgs)]
pub struct Args {
    /// A FEN or 256 hex digits (optional `0x`) of the 128-byte state.
    #[arg(value_name = "FEN_OR_HEX", allow_hyphen_values = true)]
    position: String,
    /// Print `{"valid", "fen", "hex", "status", "statusCode", "inCheck", ...}` (or, for an invalid
    /// state, `{"valid": false, "code", "reason", "error"}` with the section 7 code).
    #[arg(long)]
    json: bool,
}

/// Decodes the state. A well-formed but invalid state (section 7) exits 1 with its code;
/// text that is neither FEN nor hex exits 2.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let text = args.position.trim();
    let parsed = if looks_like_hex(text) {
        State::from_hex(text).map_err(|e| match e {
            StateError::Invalid(code) => Invalid {
                code,
                message: e.to_string(),
            },
            other => NotAState(CliError::Hex(other)),
        })
    } else {
        State::from_fen(text).map_err(|e| match e {
            FenError::Invalid(code) => Invalid {
                code,
                message: e.to_string(),
            },
            source => NotAState(CliError::Fen {
                text: text.to_owned(),
                source,
            }),
        })
    };
    let state = match parsed {
        Ok(state) => state,
        Err(NotAState(e)) => return Err(e),
        Err(Invalid { code, message }) => {
            if args.json {
                print_json(
                    &json!({ "valid": false, "code": code.code(), "reason": code.name(), "error": message }),
                );
            } else {
                println!(
                    "invalid state: code {} {}: {message}",
                    code.code(),
                    code.name()
                );
            }
            return Ok(ExitCode::from(EXIT_VERDICT));
        }
    };
    let status = state.status();
    if args.json {
        print_json(&json!({
            "valid": true,
            "fen": state.fen(),
            "hex": state.to_hex(),
            "status": status.name(),
            "statusCode": status.code(),
            "inCheck": state.in_check(),
            "turn": state.turn().to_string(),
            "ply": state.ply(),
            "halfmoveClock": state.halfmove_clock(),
            "repetitionKey": state.repetition_key().to_string(),
            "legalMoves": state.legal_moves().len(),
        }));
    } else {
        println!("{}", state.pretty());
        println!("fen: {}", state.fen());
        println!("hex: {}", state.to_hex());
        println!("status: {} ({})", status.name(), status.code());
        println!("in check: {}", state.in_check());
    }
    Ok(ExitCode::SUCCESS)
}

/// Why the text did not give a state.
enum Refusal {
    /// Well-formed, but a section 7 rule fails.
    Invalid { code: InvalidState, message: String },
    /// Not a FEN nor a state hex at all.
    NotAState(CliError),
}
use Refusal::{Invalid, NotAState};
