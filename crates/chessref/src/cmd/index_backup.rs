//! `chessref index backup --db PATH --to FILE`: an online copy of a SQLite index, taken
//! while `chessref index`, `serve` and `watch` go on writing it (SQLite's backup API, in
//! one snapshot: `chessref_index::backup`). Restoring is pointing `--db` at the copy;
//! an indexer started on it resumes at its cursor. Postgres is backed up with
//! `pg_dump -Fc` (docs/OPERATIONS.md).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use chessref_index::backup::backup_sqlite;
use chessref_index::db::DbTarget;
use clap::Args as ClapArgs;
use serde_json::json;

use super::CliError;

/// Arguments of `chessref index backup`.
#[derive(ClapArgs)]
pub struct Args {
    /// The SQLite index to back up (it may be in use).
    #[arg(long, value_name = "PATH", default_value = "chessref-index.sqlite")]
    db: DbTarget,
    /// The backup's file: created, never overwritten (an existing file is refused).
    #[arg(long, value_name = "FILE")]
    to: PathBuf,
}

/// Copies the index and prints a JSON summary: the file, its size, the block it holds
/// the chain up to, and the seconds taken.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let DbTarget::Sqlite(db) = &args.db else {
        return Err(CliError::Arg(format!(
            "--db {}: chessref index backup copies a SQLite file; back up Postgres with \
             pg_dump -Fc and restore it with pg_restore (docs/OPERATIONS.md)",
            args.db
        )));
    };
    let report = backup_sqlite(db, &args.to).map_err(|e| CliError::Arg(e.to_string()))?;
    eprintln!(
        "chessref index backup: {} copied to {} ({} bytes), indexed up to block {}",
        db.display(),
        report.to.display(),
        report.bytes,
        report.health.indexed_block
    );
    let summary = json!({
        "to": report.to.display().to_string(),
        "bytes": report.bytes,
        "chainId": report.health.chain_id,
        "referee": report.health.referee,
        "indexedBlock": report.health.indexed_block,
        "seconds": report.elapsed.as_secs_f64(),
    });
    println!("{summary}");
    std::io::stdout().flush()?;
    Ok(ExitCode::SUCCESS)
}
