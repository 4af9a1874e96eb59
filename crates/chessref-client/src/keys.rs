//! Where a player's key comes from: the one place every sending command gets its
//! account from.
//!
//! Keys never travel on the command line (where `ps` and shell history see them).
//! Three sources, by use:
//! - [`PRIVATE_KEY_ENV`], a hex private key in the environment: CI and scripts;
//! - an encrypted JSON keystore (Web3 Secret Storage, decrypted by alloy's
//!   `signer-keystore`), its password from a file or typed at a prompt: a real chain;
//! - an unlocked account of the node (`eth_sendTransaction`): anvil and dev nodes.
//!
//! Each gives a [`chessref_evm::Sender`], what the chain backend signs (or has the
//! node sign) with.

use std::path::{Path, PathBuf};

use alloy::signers::local::{LocalSignerError, PrivateKeySigner};
use alloy_primitives::Address;
use chessref_evm::Sender;

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
    /// (whether the node holds it is checked on connecting:
    /// [`chessref_evm::RpcChain::connect_as`]).
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
/// At most this much of a password file is read: a password is its first line, and a
/// device that never ends (`/dev/zero`) must not fill the memory.
const PASSWORD_FILE_LIMIT: u64 = 4096;

fn read_password_file(file: &Path) -> Result<String, WalletError> {
    use std::io::Read;
    let error = |source| WalletError::PasswordFile {
        path: file.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(PASSWORD_FILE_LIMIT).read_to_end(&mut bytes))
        .map_err(error)?;
    let first = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    if first.len() as u64 >= PASSWORD_FILE_LIMIT {
        return Err(error(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("no line end in its first {PASSWORD_FILE_LIMIT} bytes: not a password file"),
        )));
    }
    let line = String::from_utf8(first.to_vec()).map_err(|_| {
        error(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "its first line is not UTF-8",
        ))
    })?;
    Ok(line.trim_end_matches('\r').to_string())
}

/// Decrypts the keystore at `path` with `password`.
pub fn decrypt(path: &Path, password: &str) -> Result<PrivateKeySigner, WalletError> {
    if path.is_dir() {
        return Err(WalletError::Keystore {
            path: path.to_path_buf(),
            message: "a directory, not a keystore file (give the JSON file in it)".into(),
        });
    }
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

#[cfg(test)]
mod limits {
    use super::*;

    #[test]
    fn a_password_file_that_never_ends_is_refused_not_read_forever() {
        let error = read_password_file(Path::new("/dev/zero")).unwrap_err();
        assert!(error.to_string().contains("no line end"), "{error}");
    }

    #[test]
    fn a_keystore_directory_is_named_as_one() {
        let error = decrypt(&std::env::temp_dir(), "x").unwrap_err();
        assert!(error.to_string().contains("a directory"), "{error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Anvil's account 0.
    const KEY0: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const ADDRESS0: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

    #[test]
    fn an_unset_or_blank_environment_key_is_no_sender() {
        for value in [None, Some(""), Some("  \n")] {
            let error = env_key(value).unwrap_err();
            assert!(
                matches!(error, WalletError::NoSender),
                "{value:?}: {error:?}"
            );
            assert_eq!(
                error.to_string(),
                "no sender: set CHESSREF_PRIVATE_KEY to a hex private key, or pass --keystore PATH or --unlocked ADDRESS"
            );
        }
    }

    #[test]
    fn an_environment_key_with_or_without_0x_and_blanks_is_a_local_sender() {
        let address: Address = ADDRESS0.parse().unwrap();
        for value in [
            KEY0.to_string(),
            format!("0x{KEY0}"),
            format!("  0x{KEY0}\n"),
        ] {
            let sender = env_key(Some(&value)).expect("a key");
            assert!(matches!(sender, Sender::Local(_)));
            assert_eq!(sender.address(), address);
        }
    }

    #[test]
    fn a_junk_environment_key_is_named_without_its_value() {
        for junk in [
            "hunter2-not-a-key",
            // Hex, but too short.
            "0xdeadbeefcafe",
            // 32 bytes of hex, but zero is not a private key.
            "0000000000000000000000000000000000000000000000000000000000000000",
            // 32 bytes and one character too many.
            "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80f",
        ] {
            let error = env_key(Some(junk)).unwrap_err();
            assert!(
                matches!(error, WalletError::BadEnvKey(_)),
                "{junk}: {error:?}"
            );
            let text = error.to_string();
            assert!(
                text.starts_with("CHESSREF_PRIVATE_KEY is not a hex private key: "),
                "{text}"
            );
            let value = junk.trim_start_matches("0x");
            assert!(!text.contains(value), "the value leaked: {text}");
            assert!(
                !format!("{error:?}").contains(value),
                "the value leaked: {error:?}"
            );
        }
    }

    #[test]
    fn a_password_file_gives_its_first_line_and_a_missing_one_is_named() {
        let dir = std::env::temp_dir().join(format!("chessref-keys-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in [
            ("lf.txt", "correct horse\nsecond line\n"),
            ("crlf.txt", "correct horse\r\n"),
            ("bare.txt", "correct horse"),
        ] {
            let file = dir.join(name);
            std::fs::write(&file, text).unwrap();
            assert_eq!(
                read_password_file(&file).unwrap(),
                "correct horse",
                "{name}"
            );
        }
        let empty = dir.join("empty.txt");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(read_password_file(&empty).unwrap(), "");

        let missing = dir.join("missing.txt");
        let error = read_password_file(&missing).unwrap_err();
        assert!(
            matches!(error, WalletError::PasswordFile { .. }),
            "{error:?}"
        );
        assert!(
            error.to_string().starts_with(&format!(
                "cannot read password file {}: ",
                missing.display()
            )),
            "{error}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
