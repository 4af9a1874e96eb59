//! A local anvil node for tests: the npm-installed binary on 127.0.0.1 on a
//! free port, stopped when dropped.

use std::{
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::Mutex,
    time::{Duration, Instant},
};

use crate::error::ChainError;

/// How long anvil may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Fresh ports tried before giving up (see [`Anvil::spawn_with`]).
const START_ATTEMPTS: usize = 5;

/// A running anvil process (Prague hardfork, chain id 31337, ten funded
/// unlocked accounts). Dropping it stops the process.
#[derive(Debug)]
pub struct Anvil {
    child: Child,
    url: String,
}

impl Anvil {
    /// Finds the anvil binary: `$ANVIL` if set, else the native binary of
    /// this platform's `@foundry-rs/anvil-*` package in the nearest
    /// `node_modules` above the current directory or this crate (the path
    /// `scripts/foundry` resolves). Never `node_modules/.bin/anvil`: that is
    /// npm's JavaScript wrapper, which hides the exit status and leaves the
    /// real node running when it is killed.
    pub fn binary() -> Result<PathBuf, ChainError> {
        if let Some(path) = std::env::var_os("ANVIL") {
            let path = PathBuf::from(path);
            return if path.is_file() {
                Ok(path)
            } else {
                Err(ChainError::Anvil(format!(
                    "$ANVIL points at {} which is not a file",
                    path.display()
                )))
            };
        }
        let starts = [
            std::env::current_dir().ok(),
            Some(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
        ];
        let platform = match (std::env::consts::OS, std::env::consts::ARCH) {
            ("linux", "x86_64") => "linux-amd64",
            ("linux", "aarch64") => "linux-arm64",
            ("macos", "aarch64") => "darwin-arm64",
            ("macos", "x86_64") => "darwin-amd64",
            (os, arch) => {
                return Err(ChainError::Anvil(format!(
                    "no @foundry-rs/anvil npm package for {os} {arch}: set $ANVIL"
                )));
            }
        };
        let package = format!("@foundry-rs/anvil-{platform}/bin/anvil");
        for start in starts.iter().flatten() {
            for dir in start.ancestors() {
                let candidate = dir.join("node_modules").join(&package);
                if candidate.is_file() {
                    return Ok(candidate);
                }
            }
        }
        Err(ChainError::Anvil(format!(
            "anvil not found (node_modules/{package}): run scripts/bootstrap.sh or set $ANVIL"
        )))
    }

    /// Starts anvil on a free port of 127.0.0.1 and waits until it listens.
    pub fn spawn() -> Result<Anvil, ChainError> {
        Self::spawn_with(&Self::binary()?)
    }

    /// Starts the anvil at `binary` on a free port of 127.0.0.1.
    ///
    /// A free port is only free until someone binds it: tests that start
    /// nodes in parallel can pick the same one, and the loser's anvil exits
    /// while its port answers (the winner's node). So starts are serialised
    /// within the process, the child must still be running once its port
    /// answers, and a start that lost the port is retried on a new one.
    pub fn spawn_with(binary: &Path) -> Result<Anvil, ChainError> {
        Self::spawn_configured(binary, &[])
    }

    /// Starts anvil with `extra` arguments after the usual ones (e.g.
    /// `--disable-default-create2-deployer`).
    pub fn spawn_with_args(extra: &[&str]) -> Result<Anvil, ChainError> {
        Self::spawn_configured(&Self::binary()?, extra)
    }

    fn spawn_configured(binary: &Path, extra: &[&str]) -> Result<Anvil, ChainError> {
        static START: Mutex<()> = Mutex::new(());
        let _serialised = START
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut last_error = None;
        for _attempt in 0..START_ATTEMPTS {
            match Self::try_spawn(binary, extra) {
                Ok(anvil) => return Ok(anvil),
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.unwrap_or_else(|| ChainError::Anvil("anvil did not start".into())))
    }

    fn try_spawn(binary: &Path, extra: &[&str]) -> Result<Anvil, ChainError> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map_err(|e| ChainError::Anvil(format!("no free port on 127.0.0.1: {e}")))?
            .port();
        let child = Command::new(binary)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--hardfork",
                "prague",
                "--chain-id",
                "31337",
                "--accounts",
                "10",
                "--balance",
                "1000000",
            ])
            .args(["--silent"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ChainError::Anvil(format!("cannot start {}: {e}", binary.display())))?;
        // From here on, dropping `anvil` stops the child on every error path.
        let mut anvil = Anvil {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let exited = |anvil: &mut Anvil| -> Option<ChainError> {
            match anvil.child.try_wait() {
                Ok(Some(status)) => Some(ChainError::Anvil(format!(
                    "{} exited at start with {status} (port {port})",
                    binary.display()
                ))),
                _ => None,
            }
        };
        let started = Instant::now();
        loop {
            if let Some(e) = exited(&mut anvil) {
                return Err(e);
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                // The port answers: make sure it is our node that does.
                std::thread::sleep(Duration::from_millis(200));
                return match exited(&mut anvil) {
                    Some(e) => Err(e),
                    None => Ok(anvil),
                };
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(ChainError::Anvil(format!(
                    "not listening on port {port} after {START_TIMEOUT:?}"
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The HTTP endpoint, e.g. `http://127.0.0.1:45123`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The WebSocket endpoint on the same port, e.g. `ws://127.0.0.1:45123`.
    pub fn ws_url(&self) -> String {
        self.url.replacen("http://", "ws://", 1)
    }
}

impl Drop for Anvil {
    fn drop(&mut self) {
        // SIGTERM first: the npm wrapper forwards it to the native binary,
        // which a SIGKILL of the wrapper would leave running.
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Private keys of anvil's ten default accounts (the public "test test ... junk"
/// mnemonic): well known, for local test chains only.
const DEFAULT_KEYS: [&str; 10] = [
    "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
    "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
    "47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
    "8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
    "92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
    "4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
    "dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
    "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
];

/// The key of `account` if it is one of anvil's default accounts.
pub fn default_signer(
    account: alloy_primitives::Address,
) -> Option<alloy::signers::local::PrivateKeySigner> {
    DEFAULT_KEYS
        .iter()
        .filter_map(|k| k.parse::<alloy::signers::local::PrivateKeySigner>().ok())
        .find(|k| k.address() == account)
}
