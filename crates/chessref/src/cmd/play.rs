//! `chessref play [--fen FEN] <move>...`: play moves and show where they lead.

use std::process::ExitCode;

use chessref_core::{Game, GameError, SanError, State};
use clap::Args as ClapArgs;
use serde_json::json;

use super::{CliError, EXIT_VERDICT, parse_position, print_json};

/// Arguments of `chessref play`.
#[derive(ClapArgs)]
pub struct Args {
    /// Start position as FEN or state hex (default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    /// Print `{"fen", "hex", "status", "statusCode", "inCheck", "moves", "fivefoldPly"}` as JSON.
    #[arg(long)]
    json: bool,
    /// Moves in UCI (`e2e4`) or SAN (`Nf3`, `O-O`, `e8=Q+`); flags may follow them.
    #[arg(value_name = "MOVE")]
    moves: Vec<String>,
}

/// Plays the moves; an illegal move (or one after the game ended) stops with exit 1.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let start = parse_position(args.fen.as_deref())?;
    let mut game = Game::new(start);
    for (i, text) in args.moves.iter().enumerate() {
        match game.play_san(text) {
            Ok(_) => {}
            Err(GameError::San(e @ SanError::Syntax { .. })) => {
                return Err(CliError::Arg(format!("move {} {text:?}: {e}", i + 1)));
            }
            Err(e) => {
                eprintln!("chessref: move {} {text:?} refused: {e}", i + 1);
                print_state(&game, args.json);
                return Ok(ExitCode::from(EXIT_VERDICT));
            }
        }
    }
    print_state(&game, args.json);
    Ok(ExitCode::SUCCESS)
}

fn print_state(game: &Game, json: bool) {
    let state: &State = game.state();
    let status = game.status();
    if json {
        let moves: Vec<String> = game.moves().iter().map(|m| m.to_uci()).collect();
        print_json(&json!({
            "fen": state.fen(),
            "hex": state.to_hex(),
            "status": status.name(),
            "statusCode": status.code(),
            "inCheck": state.in_check(),
            "moves": moves,
            "fivefoldPly": game.fivefold().map(|f| f.ply),
        }));
    } else {
        println!("fen: {}", state.fen());
        println!("hex: {}", state.to_hex());
        println!("status: {} ({})", status.name(), status.code());
        if let Some(fivefold) = game.fivefold() {
            println!("{fivefold}");
        }
    }
}
