//! `chessref watch --rpc URL --db PATH [--poll-ms MS] [--once]`: the watchtower of
//! docs/CHANNEL.md section 13. For every channel game the relay of `chessref serve`
//! holds messages of (in the same index file), it answers a stale or contradicting
//! registration on-chain, and finishes a decided one after its window, sending from its
//! own account (the key sources of `chessref game`). The logic lives in
//! `chessref_index::watch` and `chessref_client::watchtower`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use chessref_index::{RelayStore, Watchtower};
use clap::Args as ClapArgs;

use super::CliError;
use super::sender::SenderArgs;

/// Arguments of `chessref watch`.
#[derive(ClapArgs)]
pub struct Args {
    /// The node and the watchtower's own account.
    #[command(flatten)]
    sender: SenderArgs,
    /// The index file the relay writes (`chessref index --db`, `chessref serve --index`).
    #[arg(long, value_name = "PATH", default_value = "chessref-index.sqlite")]
    db: PathBuf,
    /// Milliseconds between rounds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    poll_ms: u64,
    /// One round, then exit.
    #[arg(long)]
    once: bool,
}

/// Watches until killed (or, with `--once`, for one round).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let (chain, from) = args.sender.connect()?;
    let store = open_store(&args)?;
    let mut tower =
        Watchtower::new(chain, store, from).map_err(|e| CliError::Arg(e.to_string()))?;
    eprintln!(
        "chessref watch: games relayed in {}, answering from {from}",
        args.db.display()
    );
    let print = |action: &chessref_index::Action| println!("{action}");
    if args.once {
        tower
            .round()
            .map_err(|e| CliError::Arg(e.to_string()))?
            .iter()
            .for_each(print);
        return Ok(ExitCode::SUCCESS);
    }
    tower
        .run(Duration::from_millis(args.poll_ms), || false, print)
        .map_err(|e| CliError::Arg(e.to_string()))?;
    Ok(ExitCode::SUCCESS)
}

/// The relay's index file, bound to its referee. Started beside `chessref index` (the
/// README's block typed at once), the file may not exist yet, or not yet say what it
/// follows: like `chessref serve`, the watchtower waits for both, saying so once, and
/// retries every `--poll-ms`; `--once` does not wait.
fn open_store(args: &Args) -> Result<RelayStore, CliError> {
    let failed = |e: chessref_index::IndexError| CliError::Arg(e.to_string());
    let mut said = false;
    loop {
        let waiting_for = match RelayStore::open(&args.db) {
            Ok(store) => {
                if args.once || store.source().map_err(failed)?.is_some() {
                    return Ok(store);
                }
                format!(
                    "the index {} to follow a referee (chessref index binds it)",
                    args.db.display()
                )
            }
            Err(chessref_index::IndexError::NoIndexFile { path }) if !args.once => {
                format!("the index file {path} (chessref index --db {path} creates it)")
            }
            Err(e) => return Err(failed(e)),
        };
        if !said {
            eprintln!("chessref watch: waiting for {waiting_for}; retrying");
            said = true;
        }
        std::thread::sleep(Duration::from_millis(args.poll_ms.max(100)));
    }
}
