//! `chessref index --rpc URL [--referee ADDR] [--from-block N] [--db PATH]
//! [--confirmations K] [--batch-blocks B] [--fail-on-divergence] [--once]`: follows a
//! ChessReferee's events into a SQLite file, every move replayed through chessref-core
//! (docs/INDEX.md). The logic lives in `chessref_index`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use chessref_evm::deployments::{self, Deployments};
use chessref_evm::{Chain, RpcChain};
use chessref_index::{IndexError, Indexer, Options, Store};
use clap::Args as ClapArgs;
use serde_json::json;

use super::{CliError, EXIT_VERDICT};

/// Arguments of `chessref index`.
#[derive(ClapArgs)]
pub struct Args {
    /// The JSON-RPC endpoint (HTTP) of the chain.
    #[arg(long, value_name = "URL")]
    rpc: String,
    /// The ChessReferee (default: the deployments file's, by the node's chain id).
    #[arg(long, value_name = "ADDRESS")]
    referee: Option<Address>,
    /// The deployments file (default: $CHESSREF_DEPLOYMENTS, else ./deployments.json).
    #[arg(long, value_name = "PATH")]
    deployments: Option<PathBuf>,
    /// First block to read on a fresh database (default: the referee's deployment block
    /// from the deployments file, else 0). A used database resumes at its cursor.
    #[arg(long, value_name = "N")]
    from_block: Option<u64>,
    /// The SQLite file (created if missing).
    #[arg(long, value_name = "PATH", default_value = "chessref-index.sqlite")]
    db: PathBuf,
    /// Blocks at least this deep under the head are final; shallower ones are pending
    /// and rolled back if the chain reorganises.
    #[arg(long, value_name = "K", default_value_t = Options::default().confirmations)]
    confirmations: u64,
    /// Largest eth_getLogs range in blocks (halved while the node refuses it).
    #[arg(long, value_name = "B", default_value_t = Options::default().batch_blocks,
          value_parser = clap::value_parser!(u64).range(1..))]
    batch_blocks: u64,
    /// Milliseconds between polls of the head once caught up.
    #[arg(long, value_name = "MS", default_value_t = 250)]
    poll_ms: u64,
    /// Exit with status 1 at the first divergence between the chain and the rules.
    #[arg(long)]
    fail_on_divergence: bool,
    /// Stop once the head is reached and print a summary (back-fill only).
    #[arg(long)]
    once: bool,
}

/// A failure of the index as the CLI reports it.
fn index_error(e: IndexError) -> CliError {
    CliError::Arg(e.to_string())
}

/// The referee and the first block: `--referee` (its deployment block from the
/// deployments file if the file names the same referee for this chain, else
/// `--from-block` or 0), else the deployments file's referee and block.
fn locate(args: &Args, chain: &mut RpcChain) -> Result<(Address, u64), CliError> {
    let arg = |e: &dyn std::fmt::Display| CliError::Arg(e.to_string());
    let path = deployments::path(args.deployments.as_deref());
    let chain_id = chain.chain_id().map_err(|e| arg(&e))?;
    let entry = match (args.referee, Deployments::previous(&path, chain_id)) {
        (None, _) => Some(
            Deployments::load(&path)
                .and_then(|file| file.for_chain(chain_id).cloned())
                .map_err(|e| arg(&e))?,
        ),
        (Some(_), Ok(entry)) => entry,
        // An unreadable file does not matter when --referee says where to look.
        (Some(_), Err(_)) => None,
    };
    let recorded = match entry {
        Some(e) => Some((
            e.referee().map_err(|e| arg(&e))?,
            e.referee_block().map_err(|e| arg(&e))?,
        )),
        None => None,
    };
    let referee = match (args.referee, recorded) {
        (Some(address), _) | (None, Some((address, _))) => address,
        (None, None) => {
            return Err(CliError::Arg(format!(
                "no --referee and no deployments file entry for chain {chain_id} in {}",
                path.display()
            )));
        }
    };
    let deployed_at =
        recorded.and_then(|(address, block)| (address == referee).then_some(block).flatten());
    Ok((referee, args.from_block.or(deployed_at).unwrap_or(0)))
}

/// Follows the referee until killed (or, with `--once`, until the head).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let mut chain =
        RpcChain::connect_read_only(&args.rpc).map_err(|e| CliError::Arg(e.to_string()))?;
    let (referee, from_block) = locate(&args, &mut chain)?;
    let store = Store::open(&args.db).map_err(index_error)?;
    let options = Options {
        confirmations: args.confirmations,
        batch_blocks: args.batch_blocks,
        poll: Duration::from_millis(args.poll_ms),
    };
    let mut indexer =
        Indexer::new(chain, store, referee, from_block, options).map_err(index_error)?;
    let started = Instant::now();
    eprintln!(
        "chessref index: {} into {}, resuming at block {}",
        indexer.source(),
        args.db.display(),
        indexer.store().cursor().map_err(index_error)?.next_block
    );
    let (mut blocks, mut logs, mut divergences) = (0u64, 0usize, 0usize);
    let done = std::cell::Cell::new(false);
    let mut failed = false;
    let result = indexer.run(
        || done.get(),
        |step| {
            let stderr = std::io::stderr();
            let mut err = stderr.lock();
            if let Some(ancestor) = step.rolled_back_to {
                let _ = writeln!(
                    err,
                    "chessref index: reorg: rolled back to block {ancestor}, refolded {} game(s)",
                    step.committed.touched.len()
                );
            }
            if let Some(blocks) = step.range_halved {
                let _ = writeln!(err, "chessref index: eth_getLogs range refused; now {blocks} blocks");
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
    let store = indexer.store();
    let count = |table: &str| -> i64 {
        store
            .connection()
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
                row.get(0)
            })
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
        "logs_per_sec": logs as f64 / seconds.max(1e-9),
        "head": store.cursor().map_err(index_error)?.head,
    });
    println!("{summary}");
    std::io::stdout().flush()?;
    Ok(if failed {
        ExitCode::from(EXIT_VERDICT)
    } else {
        ExitCode::SUCCESS
    })
}
