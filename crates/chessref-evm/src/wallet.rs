//! Who sends: the one place every sending command gets its account from.
//!
//! Keys never travel on the command line (where `ps` and shell history see them).
//! Three sources, by use:
//! - [`PRIVATE_KEY_ENV`], a hex private key in the environment: CI and scripts;
//! - an encrypted JSON keystore (Web3 Secret Storage, decrypted by alloy's
//!   `signer-keystore`), its password from a file or typed at a prompt: a real chain;
//! - an unlocked account of the node (`eth_sendTransaction`): anvil and dev nodes.

use std::path::{Path, PathBuf};

use alloy::signers::local::{LocalSignerError, PrivateKeySigner};
use alloy_primitives::Address;

/// Environment variable holding the sender's hex private key (with or without `0x`).
pub const PRIVATE_KEY_ENV: &str = "CHESSREF_PRIVATE_KEY";

/// Where the sender's key comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeySource {
    /// The hex key in [`PRIVATE_KEY_ENV`].
    Env,
    /// An encrypted JSON keystore; its password from `password_file`, else a prompt.
    Keystore {
        /// The keystore file.
        path: PathBuf,
        /// A file whose first line is the password; `None` to prompt on the terminal.
        password_file: Option<PathBuf>,
    },
    /// An account the node holds unlocked (anvil's, a dev node's).
    Unlocked(Address),
}

/// The account transactions are sent from.
#[derive(Clone, Debug)]
pub enum Sender {
    /// A key held here, signing each transaction locally.
    Local(PrivateKeySigner),
    /// An account the node signs for.
    Unlocked(Address),
}

impl Sender {
    /// The sending address.
    pub fn address(&self) -> Address {
        match self {
            Sender::Local(signer) => signer.address(),
            Sender::Unlocked(address) => *address,
        }
    }
}

/// Why no sender could be had.
#[derive(Debug, thiserror::Error)]
pub enum WalletError {
    /// No source given and [`PRIVATE_KEY_ENV`] unset.
    #[error(
        "no sender: set {PRIVATE_KEY_ENV} to a hex private key, or pass --keystore PATH or --unlocked ADDRESS"
    )]
    NoSender,
    /// [`PRIVATE_KEY_ENV`] is set but is not a private key (the value is never printed).
    #[error("{PRIVATE_KEY_ENV} is not a hex private key: {0}")]
    BadEnvKey(String),
    /// The keystore decrypted with a MAC mismatch: the password is not its password.
    #[error("wrong keystore password for {}", path.display())]
    WrongPassword {
        /// The keystore file.
        path: PathBuf,
    },
    /// The keystore file is missing, unreadable or not a keystore.
    #[error("cannot read keystore {}: {message}", path.display())]
    Keystore {
        /// The keystore file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The password file cannot be read.
    #[error("cannot read password file {}: {source}", path.display())]
    PasswordFile {
        /// The password file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// No terminal to prompt on, or reading from it failed.
    #[error("cannot read the password of keystore {} from the terminal: {source} (use --password-file)", path.display())]
    Prompt {
        /// The keystore file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl KeySource {
    /// The source the options name: `--keystore` or `--unlocked` when given, else the
    /// environment variable.
    pub fn from_options(
        keystore: Option<PathBuf>,
        password_file: Option<PathBuf>,
        unlocked: Option<Address>,
    ) -> KeySource {
        match (keystore, unlocked) {
            (Some(path), _) => KeySource::Keystore {
                path,
                password_file,
            },
            (None, Some(address)) => KeySource::Unlocked(address),
            (None, None) => KeySource::Env,
        }
    }

    /// The sender: the key read (and decrypted) now, or the unlocked address as given
    /// (whether the node holds it is checked on connecting: [`crate::RpcChain::connect_as`]).
    pub fn sender(&self) -> Result<Sender, WalletError> {
        match self {
            KeySource::Env => env_key(std::env::var(PRIVATE_KEY_ENV).ok().as_deref()),
            KeySource::Keystore {
                path,
                password_file,
            } => {
                let password = match password_file {
                    Some(file) => read_password_file(file)?,
                    None => rpassword::prompt_password(format!(
                        "password of keystore {}: ",
                        path.display()
                    ))
                    .map_err(|source| WalletError::Prompt {
                        path: path.clone(),
                        source,
                    })?,
                };
                decrypt(path, &password).map(Sender::Local)
            }
            KeySource::Unlocked(address) => Ok(Sender::Unlocked(*address)),
        }
    }
}

/// The sender of the value of [`PRIVATE_KEY_ENV`] (`None`: unset).
fn env_key(value: Option<&str>) -> Result<Sender, WalletError> {
    let key = value.map(str::trim).unwrap_or_default();
    if key.is_empty() {
        return Err(WalletError::NoSender);
    }
    key.parse::<PrivateKeySigner>()
        .map(Sender::Local)
        .map_err(|e| WalletError::BadEnvKey(e.to_string()))
}

/// The password in `file`: its first line, without the line ending.
fn read_password_file(file: &Path) -> Result<String, WalletError> {
    let text = std::fs::read_to_string(file).map_err(|source| WalletError::PasswordFile {
        path: file.to_path_buf(),
        source,
    })?;
    Ok(text.lines().next().unwrap_or_default().to_string())
}

/// Decrypts the keystore at `path` with `password`.
pub fn decrypt(path: &Path, password: &str) -> Result<PrivateKeySigner, WalletError> {
    if !path.is_file() {
        return Err(WalletError::Keystore {
            path: path.to_path_buf(),
            message: "no such file".into(),
        });
    }
    PrivateKeySigner::decrypt_keystore(path, password).map_err(|e| match e {
        // eth-keystore reports a wrong password only as its MAC check failing.
        LocalSignerError::EthKeystoreError(inner) if inner.to_string() == "Mac Mismatch" => {
            WalletError::WrongPassword {
                path: path.to_path_buf(),
            }
        }
        other => WalletError::Keystore {
            path: path.to_path_buf(),
            message: other.to_string(),
        },
    })
}
