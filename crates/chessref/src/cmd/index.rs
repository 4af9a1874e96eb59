//! `chessref index --rpc URL [--referee ADDR] [--from-block N] [--db PATH|postgres://...]
//! [--confirmations K] [--batch-blocks B] [--max-log-bytes N] [--fail-on-divergence]
//! [--once]`: follows a
//! ChessReferee's events into a SQLite file or a Postgres database, every move replayed
//! through chessref-core (docs/INDEX.md). The logic lives in `chessref_index`.
//!
//! On Postgres one indexer writes per database (its advisory lock): a second one
//! started beside it says who holds the lock and waits as a standby, taking over at the
//! stored cursor when the holder's session ends; with `--once` it is refused instead.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use chessref_evm::{Chain, RpcChain};
use chessref_index::db::{DbTarget, Sql};
use chessref_index::indexer::CONTRADICTIONS_MAX;
use chessref_index::{IndexError, Indexer, Options, Store};
use clap::Args as ClapArgs;
use serde_json::json;

use super::{CliError, EXIT_VERDICT, RefereeArgs, standby};

/// Arguments of `chessref index`.
#[derive(ClapArgs)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    /// What else to do with an index than follow the chain into it.
    #[command(subcommand)]
    action: Option<Action>,
    /// The JSON-RPC endpoint (HTTP) of the chain.
    #[arg(long, value_name = "URL", required = true)]
    rpc: Option<String>,
    /// The referee; `--from-block` applies to a fresh database only (a used one resumes
    /// at its cursor).
    #[command(flatten)]
    referee: RefereeArgs,
    /// The SQLite file (created if missing), or a Postgres database
    /// (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`; the schema is made if missing).
    #[arg(long, value_name = "PATH|URL", default_value = "chessref-index.sqlite")]
    db: DbTarget,
    /// Blocks at least this deep under the head are final; shallower ones are pending
    /// and rolled back if the chain reorganises.
    #[arg(long, value_name = "K", default_value_t = Options::default().confirmations)]
    confirmations: u64,
    /// Largest eth_getLogs range in blocks (halved while the node refuses it).
    #[arg(long, value_name = "B", default_value_t = Options::default().batch_blocks,
          value_parser = clap::value_parser!(u64).range(1..))]
    batch_blocks: u64,
    /// Longest eth_getLogs answer read, in bytes: a longer one is refused unread and its
    /// range halved; one block whose logs alone are longer stops the index.
    #[arg(long, value_name = "BYTES", default_value_t = chessref_evm::DEFAULT_MAX_LOG_BYTES,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_log_bytes: usize,
    /// Milliseconds between polls of the head once caught up (and, as a standby on
    /// Postgres, of the lock another indexer holds).
    #[arg(long, value_name = "MS", default_value_t = 250)]
    poll_ms: u64,
    /// Exit with status 1 at the first divergence between the chain and the rules.
    #[arg(long)]
    fail_on_divergence: bool,
    /// Stop once the head is reached and print a summary (back-fill only).
    #[arg(long)]
    once: bool,
}

/// `chessref index`'s subcommands.
#[derive(clap::Subcommand)]
enum Action {
    /// Copy a SQLite index while it is in use (restore: point --db at the copy; Postgres: pg_dump -Fc, docs/OPERATIONS.md).
    Backup(super::index_backup::Args),
}

/// A failure of the index as the CLI reports it.
fn index_error(e: IndexError) -> CliError {
    CliError::Arg(e.to_string())
}

/// Follows the referee until killed (or, with `--once`, until the head).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if let Some(Action::Backup(backup)) = args.action {
        return super::index_backup::run(backup);
    }
    let rpc = args
        .rpc
        .clone()
        .ok_or_else(|| CliError::Arg("--rpc URL is required".into()))?;
    let mut chain = RpcChain::connect_read_only(&rpc).map_err(|e| CliError::Arg(e.to_string()))?;
    let chain_id = chain.chain_id().map_err(|e| CliError::Arg(e.to_string()))?;
    let (referee, from_block) = args.referee.locate(chain_id)?;
    // The lock before the store: a standby holds no schema or half-open store.
    let store = Store::open_standby(&args.db, standby(args.once, args.poll_ms), |held| {
        eprintln!("chessref index: {held}; waiting to take over")
    })
    .map_err(index_error)?;
    let options = Options {
        confirmations: args.confirmations,
        batch_blocks: args.batch_blocks,
        poll: Duration::from_millis(args.poll_ms),
    };
    let mut indexer = Indexer::new(chain, store, referee, from_block, options)
        .map_err(index_error)?
        .with_max_log_bytes(args.max_log_bytes);
    let started = Instant::now();
    eprintln!(
        "chessref index: {} into {}, resuming at block {}",
        indexer.source(),
        args.db,
        indexer
            .store_mut()
            .cursor()
            .map_err(index_error)?
            .next_block
    );
    let (mut blocks, mut logs, mut divergences) = (0u64, 0usize, 0usize);
    let done = std::cell::Cell::new(false);
    let mut failed = false;
    let result = indexer.run(
        || done.get(),
        |step| {
            let stderr = std::io::stderr();
            let mut err = stderr.lock();
            if let Some(stall) = &step.stalled {
                let _ = writeln!(
                    err,
                    "chessref index: {}; retrying in {} s (index {} s behind)",
                    stall.error,
                    stall.retry_in.as_secs(),
                    stall.behind.as_secs()
                );
            }
            if let Some(ancestor) = step.rolled_back_to {
                let _ = writeln!(
                    err,
                    "chessref index: reorg: rolled back to block {ancestor}, refolded {} game(s)",
                    step.committed.touched.len()
                );
            }
            if let Some(blocks) = step.range_halved {
                let why = step.why.as_deref().unwrap_or("refused");
                let _ = writeln!(err, "chessref index: eth_getLogs range refused ({why}); now {blocks} blocks");
            }
            if step.raced {
                let _ = writeln!(
                    err,
                    "chessref index: the node at {} answered inconsistently ({} of {CONTRADICTIONS_MAX} \
                     in a row): {}; nothing stored, retrying",
                    rpc,
                    step.contradictions,
                    step.why.as_deref().unwrap_or("the chain moved under the step")
                );
            }
            if let Some((from, to)) = step.indexed {
                blocks += to - from + 1;
                logs += step.logs;
            }
            for id in &step.committed.refolded.orphans {
                let _ = writeln!(
                    err,
                    "chessref index: warning: game {id} has events but no GameCreated (created before --from-block?)"
                );
            }
            for log in &step.committed.undecodable {
                let _ = writeln!(err, "chessref index: warning: {log}");
            }
            for divergence in &step.committed.refolded.divergences {
                divergences += 1;
                let _ = writeln!(err, "{divergence}");
            }
            if args.fail_on_divergence && divergences > 0 {
                failed = true;
                done.set(true);
            }
            if args.once && step.caught_up {
                done.set(true);
            }
            Ok(())
        },
    );
    result.map_err(index_error)?;
    let seconds = started.elapsed().as_secs_f64();
    let head = indexer.store_mut().cursor().map_err(index_error)?.head;
    let db = indexer.store_mut().db();
    let mut count = |table: &str| -> i64 {
        db.query_one(
            &format!("SELECT count(*) FROM {table}"),
            &[],
            "counting for the summary",
            |row| row.get(0),
        )
        .unwrap_or(-1)
    };
    let (games, moves) = (count("games"), count("moves"));
    let summary = json!({
        "blocks": blocks,
        "logs": logs,
        "games": games,
        "moves": moves,
        "divergences": count("divergences"),
        "seconds": seconds,
        "logsPerSec": logs as f64 / seconds.max(1e-9),
        "head": head,
    });
    println!("{summary}");
    std::io::stdout().flush()?;
    Ok(if failed {
        ExitCode::from(EXIT_VERDICT)
    } else {
        ExitCode::SUCCESS
    })
}
