//! `chessref watch --rpc URL --db PATH|URL [--poll-ms MS] [--once]`: the watchtower of
//! docs/CHANNEL.md section 13. For every channel game the relay of `chessref serve`
//! holds messages of (in the same index database), it answers a stale or contradicting
//! registration on-chain, and finishes a decided one after its window, sending from its
//! own account (the key sources of `chessref game`). The logic lives in
//! `chessref_index::watch` and `chessref_client::watchtower`.
//!
//! On Postgres (`--db postgres://...`) one watchtower acts per database: it takes the
//! database's watchtower lock first, and a second one waits, saying who holds it, and
//! takes over when the first one's session ends.

use std::process::ExitCode;
use std::time::Duration;

use chessref_index::db::{DbTarget, PgTarget, PgWriterLock, Role};
use chessref_index::{IndexError, RelayStore, Watchtower};
use clap::Args as ClapArgs;

use super::sender::SenderArgs;
use super::{CliError, standby};

/// Arguments of `chessref watch`.
#[derive(ClapArgs)]
pub struct Args {
    /// The node and the watchtower's own account.
    #[command(flatten)]
    sender: SenderArgs,
    /// The index the relay writes (`chessref index --db`, `chessref serve --index`): a
    /// SQLite file's path, or a `postgres://USER@HOST:PORT/DATABASE` URL.
    #[arg(long, value_name = "PATH|URL", default_value = "chessref-index.sqlite")]
    db: DbTarget,
    /// Milliseconds between rounds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    poll_ms: u64,
    /// One round, then exit.
    #[arg(long)]
    once: bool,
}

/// Watches until killed (or, with `--once`, for one round).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    // The lock before anything else: a standby watchtower waits here.
    let lock = match &args.db {
        DbTarget::Postgres(pg) => Some(take_lock(pg, &args)?),
        DbTarget::Sqlite(_) => None,
    };
    let (chain, from) = args.sender.connect()?;
    let store = open_store(&args)?;
    let mut tower =
        Watchtower::new(chain, store, from).map_err(|e| CliError::Arg(e.to_string()))?;
    if let Some(lock) = lock {
        tower = tower
            .holding(lock)
            .map_err(|e| CliError::Arg(e.to_string()))?;
    }
    eprintln!(
        "chessref watch: games relayed in {}, answering from {from}",
        args.db
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

/// The database's watchtower lock: at once if free; else, said once with its holder,
/// waited for (polling every `--poll-ms`), unless `--once`, which does not wait.
fn take_lock(pg: &PgTarget, args: &Args) -> Result<PgWriterLock, CliError> {
    PgWriterLock::take(
        pg,
        Role::Watchtower,
        standby(args.once, args.poll_ms),
        |held| eprintln!("chessref watch: {held}; waiting to take over"),
    )
    .map_err(|e| CliError::Arg(e.to_string()))
}

/// The relay's index, bound to its referee. Started beside `chessref index` (the
/// README's block typed at once), the file may not exist yet, or not yet say what it
/// follows: like `chessref serve`, the watchtower waits for both, saying so once, and
/// retries every `--poll-ms`; `--once` does not wait.
fn open_store(args: &Args) -> Result<RelayStore, CliError> {
    let failed = |e: IndexError| CliError::Arg(e.to_string());
    let mut said = false;
    loop {
        let waiting_for = match RelayStore::open_target(&args.db) {
            Ok(mut store) => {
                if args.once || store.source().map_err(failed)?.is_some() {
                    return Ok(store);
                }
                format!(
                    "the index {} to follow a referee (chessref index binds it)",
                    args.db
                )
            }
            Err(IndexError::NoIndexFile { path }) if !args.once => {
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
