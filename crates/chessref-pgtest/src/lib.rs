//! A throwaway PostgreSQL server for tests, from Debian's `postgresql` package: `initdb`
//! in a temporary directory, `pg_ctl start` on a free loopback port with its Unix socket
//! in that directory, one database created, and everything stopped and removed when the
//! [`TempPostgres`] is dropped (also while a panicking test unwinds).
//!
//! `initdb` refuses to run as root, and tests here run as root: when the process is
//! root, the server's commands run as `nobody` through `runuser`, in a directory owned
//! by `nobody`. A machine without the server binaries is a loud failure
//! ([`PgTestError::NotInstalled`]) that names the package, never a skipped test.
//!
//! The server trusts every loopback connection: it is reachable only from this machine,
//! lives as long as one test, and holds nothing but test data.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where Debian installs the server binaries: one `bin` directory per major version.
const DEBIAN_PG_ROOT: &str = "/usr/lib/postgresql";

/// The superuser `initdb` creates, the user of every URL handed out.
pub const SUPERUSER: &str = "chessref";

/// The unprivileged user the server runs as when the tests run as root.
const UNPRIVILEGED: &str = "nobody";

/// How many ports are tried before giving up: another process may take the free port
/// found between the probe and the server's bind.
const PORT_TRIES: usize = 4;

/// Why a throwaway server could not be had.
#[derive(Debug, thiserror::Error)]
pub enum PgTestError {
    /// No `initdb` and `pg_ctl` under `/usr/lib/postgresql/*/bin`.
    #[error(
        "no PostgreSQL server binaries (initdb and pg_ctl) under {root}/*/bin: install \
         Debian's postgresql package (apt-get install postgresql; scripts/test.sh does it)"
    )]
    NotInstalled {
        /// The directory searched.
        root: String,
    },
    /// A file or directory operation failed.
    #[error("throwaway postgres: {doing}: {source}")]
    Io {
        /// What was being done.
        doing: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A server command exited unsuccessfully.
    #[error("throwaway postgres: {command} failed ({status}):\n{output}")]
    Command {
        /// The command line.
        command: String,
        /// Its exit status.
        status: String,
        /// Its standard error and output, and the server log where there is one.
        output: String,
    },
}

/// `Result` of the harness.
pub type Result<T, E = PgTestError> = std::result::Result<T, E>;

fn io(doing: impl Into<String>) -> impl FnOnce(std::io::Error) -> PgTestError {
    let doing = doing.into();
    move |source| PgTestError::Io { doing, source }
}

/// A running PostgreSQL server owned by one test; stopped and deleted when dropped.
#[derive(Debug)]
pub struct TempPostgres {
    /// `None` once dropped; removing it deletes the data directory and socket.
    dir: Option<tempfile::TempDir>,
    bin: PathBuf,
    port: u16,
    /// `Some("nobody")` when the server's commands run as another user.
    run_as: Option<&'static str>,
    database: String,
}

impl TempPostgres {
    /// Starts a fresh server with a database named `chessref`.
    pub fn start() -> Result<TempPostgres> {
        let bin = server_bin()?;
        let dir = tempfile::Builder::new()
            .prefix("chessref-pg-")
            .tempdir()
            .map_err(io("creating a temporary directory"))?;
        let run_as = if owner_is_root(dir.path())? {
            give_to(dir.path(), UNPRIVILEGED)?;
            Some(UNPRIVILEGED)
        } else {
            None
        };
        let mut pg = TempPostgres {
            dir: Some(dir),
            bin,
            port: 0,
            run_as,
            database: "chessref".to_owned(),
        };
        pg.initdb()?;
        let mut last = None;
        for _ in 0..PORT_TRIES {
            pg.port = free_port()?;
            match pg.pg_ctl_start() {
                Ok(()) => {
                    last = None;
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        if let Some(e) = last {
            return Err(e);
        }
        pg.create_database("chessref")?;
        Ok(pg)
    }

    /// `postgres://chessref@127.0.0.1:PORT/chessref`: the database made at start.
    pub fn url(&self) -> String {
        self.url_of(&self.database)
    }

    /// The URL of the database `name` on this server.
    pub fn url_of(&self, name: &str) -> String {
        format!("postgres://{SUPERUSER}@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates another, empty database `name` and returns its URL.
    pub fn create_database(&self, name: &str) -> Result<String> {
        let port = self.port.to_string();
        let createdb = self.bin.join("createdb");
        run(Command::new(&createdb)
            .args(["-h", "127.0.0.1", "-p", &port, "-U", SUPERUSER, name])
            .current_dir(self.dir()))?;
        Ok(self.url_of(name))
    }

    /// The path of this server's program `name`, of its version: a client such as
    /// `pg_dump`, `pg_restore` or `psql` (`pg_dump` refuses a server newer than itself).
    pub fn program(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }

    /// The loopback TCP port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The temporary directory holding the data directory, the socket and the log.
    pub fn dir(&self) -> &Path {
        self.dir
            .as_ref()
            .map(|d| d.path())
            .unwrap_or_else(|| Path::new("/nonexistent"))
    }

    /// The postmaster's process id (the first line of `postmaster.pid`).
    pub fn server_pid(&self) -> Result<u32> {
        let file = self.data().join("postmaster.pid");
        let text =
            std::fs::read_to_string(&file).map_err(io(format!("reading {}", file.display())))?;
        text.lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .ok_or_else(|| PgTestError::Io {
                doing: format!("reading {}", file.display()),
                source: std::io::Error::other("its first line is not a process id"),
            })
    }

    fn data(&self) -> PathBuf {
        self.dir().join("data")
    }

    fn log(&self) -> PathBuf {
        self.dir().join("server.log")
    }

    /// A command for the server binary `name`, run as the unprivileged user if needed,
    /// from the temporary directory (the caller's may be unreadable to that user).
    fn server_command(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        let mut cmd = match self.run_as {
            Some(user) => {
                let mut cmd = Command::new("runuser");
                cmd.args(["-u", user, "--"]).arg(program);
                cmd
            }
            None => Command::new(program),
        };
        cmd.current_dir(self.dir());
        // The server's own defaults, not the caller's (a PGDATA or PGPORT of the machine).
        for var in ["PGDATA", "PGPORT", "PGHOST", "PGUSER", "PGDATABASE"] {
            cmd.env_remove(var);
        }
        cmd
    }

    fn initdb(&self) -> Result<()> {
        run(self
            .server_command("initdb")
            .arg("-D")
            .arg(self.data())
            .args(["-U", SUPERUSER, "--auth=trust", "-E", "UTF8"])
            .args(["--locale=C.UTF-8", "--no-sync", "--no-instructions"]))?;
        // Test data only: durability off; the socket in our directory, never /var/run.
        let conf = format!(
            "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\n\
             fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n",
            self.dir().display()
        );
        let file = self.data().join("postgresql.conf");
        let mut text =
            std::fs::read_to_string(&file).map_err(io(format!("reading {}", file.display())))?;
        text.push_str(&conf);
        std::fs::write(&file, text).map_err(io(format!("writing {}", file.display())))
    }

    fn pg_ctl_start(&self) -> Result<()> {
        let result = run(self
            .server_command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.log())
            .args(["-w", "-t", "60", "-s", "-o"])
            .arg(format!("-p {}", self.port))
            .arg("start"));
        result.map_err(|e| match e {
            PgTestError::Command {
                command,
                status,
                mut output,
            } => {
                if let Ok(log) = std::fs::read_to_string(self.log()) {
                    output.push_str("\nserver log:\n");
                    output.push_str(&log);
                }
                PgTestError::Command {
                    command,
                    status,
                    output,
                }
            }
            other => other,
        })
    }

    /// Restarts the server on the same port and data (`pg_ctl restart`, fast mode):
    /// every session ends, as when a database server restarts under its clients.
    pub fn restart(&self) -> Result<()> {
        run(self
            .server_command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.log())
            .args(["-m", "fast", "-w", "-t", "60", "-s", "-o"])
            .arg(format!("-p {}", self.port))
            .arg("restart"))
    }

    /// Stops the server at once (no checkpoint: the data is thrown away), killing the
    /// postmaster if `pg_ctl` cannot.
    fn stop(&self) {
        let stopped = run(self
            .server_command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "-w", "-t", "20", "-s", "stop"]));
        if stopped.is_err()
            && let Ok(pid) = self.server_pid()
        {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .output();
        }
    }
}

impl Drop for TempPostgres {
    fn drop(&mut self) {
        if self.data().join("postmaster.pid").exists() {
            self.stop();
        }
        if let Some(dir) = self.dir.take() {
            let _ = dir.close();
        }
    }
}

/// The `bin` directory of the newest PostgreSQL server under `/usr/lib/postgresql`.
fn server_bin() -> Result<PathBuf> {
    server_bin_under(Path::new(DEBIAN_PG_ROOT))
}

/// The `bin` directory of the newest server under `root` (Debian's layout:
/// `root/MAJOR/bin/{initdb,pg_ctl}`).
fn server_bin_under(root: &Path) -> Result<PathBuf> {
    let missing = || PgTestError::NotInstalled {
        root: root.display().to_string(),
    };
    let entries = std::fs::read_dir(root).map_err(|_| missing())?;
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let major: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").is_file() && bin.join("pg_ctl").is_file()).then_some((major, bin))
        })
        .max_by_key(|(major, _)| *major)
        .map(|(_, bin)| bin)
        .ok_or_else(missing)
}

/// Whether `dir`, just created by this process, belongs to root: then so does the process.
fn owner_is_root(dir: &Path) -> Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(dir).map_err(io(format!("reading {}", dir.display())))?;
    Ok(meta.uid() == 0)
}

/// Hands `dir` to `user` (with `chown`, which knows the user's ids).
fn give_to(dir: &Path, user: &str) -> Result<()> {
    run(Command::new("chown").arg(user).arg(dir))
}

/// A loopback port nothing listens on at the moment.
fn free_port() -> Result<u16> {
    let probe = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(io("finding a free port"))?;
    let port = probe
        .local_addr()
        .map_err(io("finding a free port"))?
        .port();
    Ok(port)
}

/// Runs `cmd` to completion; an unsuccessful exit is an error with its output.
fn run(cmd: &mut Command) -> Result<()> {
    let line = format!("{cmd:?}");
    let out = cmd.output().map_err(io(format!("running {line}")))?;
    if out.status.success() {
        return Ok(());
    }
    Err(PgTestError::Command {
        command: line,
        status: out.status.to_string(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_missing_server_binaries_name_the_package() {
        let root = tempfile::tempdir().unwrap();
        // A version directory without the server binaries (a client-only install).
        std::fs::create_dir_all(root.path().join("15/bin")).unwrap();
        std::fs::write(root.path().join("15/bin/psql"), "").unwrap();
        let err = server_bin_under(root.path()).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, PgTestError::NotInstalled { .. }), "{text}");
        assert!(text.contains("apt-get install postgresql"), "{text}");
        assert!(text.contains(&root.path().display().to_string()), "{text}");
        let err = server_bin_under(&root.path().join("absent")).unwrap_err();
        assert!(matches!(err, PgTestError::NotInstalled { .. }), "{err}");
    }

    #[test]
    fn test_the_newest_major_version_is_chosen() {
        let root = tempfile::tempdir().unwrap();
        for major in ["9", "13", "15", "notaversion"] {
            let bin = root.path().join(major).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            std::fs::write(bin.join("initdb"), "").unwrap();
            std::fs::write(bin.join("pg_ctl"), "").unwrap();
        }
        assert_eq!(
            server_bin_under(root.path()).unwrap(),
            root.path().join("15/bin")
        );
    }
}
