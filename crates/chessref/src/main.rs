//! `chessref`: the command-line referee, a thin layer over `chessref-core`.
//!
//! Each subcommand lives in its own module under `cmd/` with an `Args` struct
//! (clap derive) and a `run(Args) -> Result<ExitCode, CliError>`. To add a
//! command: write `cmd/NAME.rs`, declare it in `cmd/mod.rs`, add one variant
//! to [`Command`] and one arm to the dispatch in `main`.
//!
//! Exit status: 0 success, 1 a negative verdict (illegal move, invalid state,
//! a PGN game with an error, a game action refused before sending), 2 bad input
//! (the message names what is wrong).

mod cmd;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

// jemalloc's background thread gives back pages left unused for 10 s, also in an idle
// server; glibc's malloc kept tens of MB after a load (README, the operator's load test).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Chess referee over the 128-byte state of the chessref Ethereum contract.
#[derive(Parser)]
#[command(name = "chessref", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Seconds a command that talks to a JSON-RPC node (game, deploy, index, channel,
    /// watch, replay/simulate --rpc) waits for it to connect and to answer each request
    /// before naming it and giving up (index retries, backing off) [default: 10].
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_seconds)]
    rpc_timeout: Option<Duration>,
}

/// A positive number of seconds (`10`, `2.5`).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{text:?} is not a positive number of seconds"))
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal-move tree (last line: the total).
    Perft(cmd::perft::Args),
    /// List the legal moves in UCI.
    Moves(cmd::moves::Args),
    /// Check one move: exit 0 if legal, 1 if illegal (with the ENCODING.md section 6 code), 2 on bad input.
    Check(cmd::check::Args),
    /// Play moves (UCI or SAN) and print the resulting FEN, state hex and status.
    Play(cmd::play::Args),
    /// Decode a state given as FEN or as 256 hex digits.
    State(cmd::state::Args),
    /// Validate every game of a PGN file (streaming; `-` reads stdin).
    Pgn(cmd::pgn::Args),
    /// Serve the HTTP JSON checker (POST /v1/check, /v1/play, /v1/moves, /v1/status, /v1/replay; GET /openapi.json; with --index, GET /v1/games... and the relay of channel games).
    Serve(cmd::serve::Args),
    /// Replay PGN games as transactions through ChessReferee (revm, or --rpc), comparing every ply with the Rust mirror.
    Replay(cmd::replay::Args),
    /// Play random games through ChessReferee, with random illegal attempts that must revert with the predicted code.
    Simulate(cmd::simulate::Args),
    /// Deploy ChessRulesView and ChessReferee (CREATE2: the same addresses on every chain) and record them in the deployments file.
    Deploy(cmd::deploy::Args),
    /// Play one side of games at a deployed referee: create, join, show, move, draws, claims, resign, cancel, withdraw, list.
    Game(cmd::game::Args),
    /// Knockout events at a deployed referee's tournament: create, enter, show, claim.
    Tournament(cmd::tournament::Args),
    /// Off-chain games with signed moves (docs/CHANNEL.md): verify a transcript and find the call that settles it.
    Channel(cmd::channel::Args),
    /// Follow a ChessReferee's events into a SQLite index, every move verified with chessref-core (docs/INDEX.md).
    Index(cmd::index::Args),
    /// The watchtower: answer stale or contradicting registrations of relayed channel games on-chain (docs/CHANNEL.md section 13).
    Watch(cmd::watch::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(timeout) = cli.rpc_timeout {
        chessref_evm::RpcChain::set_default_timeout(timeout);
    }
    let json = std::env::args_os().any(|arg| arg == "--json");
    let outcome = match cli.command {
        Command::Perft(args) => cmd::perft::run(args),
        Command::Moves(args) => cmd::moves::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Play(args) => cmd::play::run(args),
        Command::State(args) => cmd::state::run(args),
        Command::Pgn(args) => cmd::pgn::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Replay(args) => cmd::replay::run(args),
        Command::Simulate(args) => cmd::simulate::run(args),
        Command::Channel(args) => cmd::channel::run(args),
        Command::Deploy(args) => cmd::deploy::run(args),
        Command::Game(args) => cmd::game::run(args),
        Command::Tournament(args) => cmd::tournament::run(args),
        Command::Index(args) => cmd::index::run(args),
        Command::Watch(args) => cmd::watch::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(e @ cmd::CliError::Reverted { .. }) if json => {
            // A bot reading --json output keeps the contract's error as it was raised.
            eprintln!("{}", e.to_json());
            ExitCode::from(e.exit_code())
        }
        Err(e) => {
            eprintln!("chessref: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
