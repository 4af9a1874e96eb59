//! Where a player's key comes from (`chessref_client::keys`): an encrypted keystore
//! with its password file, the environment, an account the node holds unlocked.

use std::process::Command;

use alloy::signers::k256::elliptic_curve::rand_core::{CryptoRng, Error, RngCore};
use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::Address;
use chessref_client::{KeySource, PRIVATE_KEY_ENV, WalletError};
use chessref_evm::Sender;

/// Anvil's account 0.
const KEY0: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const ADDRESS0: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

/// A deterministic generator for the keystore's salt and IV (test only: the
/// keystore's secrecy is not what is tested).
struct CountingRng(u64);

impl RngCore for CountingRng {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1);
        self.0
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for byte in dest {
            *byte = self.next_u64() as u8;
        }
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl CryptoRng for CountingRng {}

#[test]
fn a_keystore_decrypts_with_its_password_and_names_a_wrong_one() {
    let dir = std::env::temp_dir().join(format!("chessref-keystore-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let key = hex_key(KEY0);
    let (signer, _) = PrivateKeySigner::encrypt_keystore(
        &dir,
        &mut CountingRng(7),
        key,
        "correct horse",
        Some("key.json"),
    )
    .unwrap();
    let keystore = dir.join("key.json");
    let good = dir.join("good.txt");
    std::fs::write(&good, "correct horse\n").unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "battery staple\n").unwrap();

    let source = KeySource::from_options(Some(keystore.clone()), Some(good), None);
    let sender = source.sender().unwrap();
    assert_eq!(sender.address(), signer.address());

    let source = KeySource::from_options(Some(keystore.clone()), Some(bad), None);
    let error = source.sender().unwrap_err();
    assert!(matches!(error, WalletError::WrongPassword { .. }));
    assert_eq!(
        error.to_string(),
        format!("wrong keystore password for {}", keystore.display())
    );

    let missing = dir.join("missing.json");
    let source = KeySource::from_options(Some(missing.clone()), Some(dir.join("good.txt")), None);
    assert_eq!(
        source.sender().unwrap_err().to_string(),
        format!("cannot read keystore {}: no such file", missing.display())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn hex_key(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn the_options_name_the_source_keystore_first_then_unlocked_then_the_environment() {
    let keystore = std::path::PathBuf::from("key.json");
    let password = std::path::PathBuf::from("password.txt");
    let account = Address::repeat_byte(0x22);
    assert_eq!(
        KeySource::from_options(
            Some(keystore.clone()),
            Some(password.clone()),
            Some(account)
        ),
        KeySource::Keystore {
            path: keystore.clone(),
            password_file: Some(password),
        }
    );
    assert_eq!(
        KeySource::from_options(Some(keystore.clone()), None, None),
        KeySource::Keystore {
            path: keystore,
            password_file: None,
        }
    );
    assert_eq!(
        KeySource::from_options(None, None, Some(account)),
        KeySource::Unlocked(account)
    );
    assert_eq!(KeySource::from_options(None, None, None), KeySource::Env);

    // An unlocked account is taken as given: the node is asked on connecting.
    let sender = KeySource::Unlocked(account).sender().unwrap();
    assert!(matches!(sender, Sender::Unlocked(a) if a == account));
}

/// Set in the child process [`the_environment_source_reads_the_variable`] starts.
const CHILD: &str = "CHESSREF_KEYS_TEST_CHILD";

/// What precedes the child's answer on its output (the harness writes on the line too).
const ANSWER: &str = "env source answers: ";

/// In the child only: prints what [`KeySource::Env`] gives for the environment the
/// parent set (the variable cannot be set here: that is `unsafe`).
#[test]
fn env_source_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    match KeySource::Env.sender() {
        Ok(sender) => println!("{ANSWER}SENDER {}", sender.address()),
        Err(error) => println!("{ANSWER}ERROR {error:?} / {error}"),
    }
}

#[test]
fn the_environment_source_reads_the_variable() {
    let run = |value: Option<&str>| {
        let mut child = Command::new(std::env::current_exe().unwrap());
        child
            .args([
                "env_source_child",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1");
        match value {
            Some(value) => child.env(PRIVATE_KEY_ENV, value),
            None => child.env_remove(PRIVATE_KEY_ENV),
        };
        let output = child.output().expect("the test binary runs");
        assert!(output.status.success(), "{output:?}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        stdout
            .lines()
            .find_map(|line| line.split_once(ANSWER).map(|(_, answer)| answer))
            .unwrap_or_else(|| panic!("no answer from the child: {stdout}"))
            .to_owned()
    };
    let address: Address = ADDRESS0.parse().unwrap();
    assert_eq!(run(Some(&format!("0x{KEY0}"))), format!("SENDER {address}"));
    assert_eq!(
        run(None),
        format!("ERROR NoSender / {}", WalletError::NoSender)
    );
    let junk = "hunter2-not-a-key";
    let answer = run(Some(junk));
    assert!(answer.starts_with("ERROR BadEnvKey("), "{answer}");
    assert!(
        answer.contains(" / CHESSREF_PRIVATE_KEY is not a hex private key: "),
        "{answer}"
    );
    assert!(!answer.contains(junk), "the value leaked: {answer}");
}
