//! A player's files of one channel game: the folder (named by chain, referee, game and
//! player, and claimed by the game's creation block), the session key with its delegation,
//! and the transcript, each written atomically and readable by its owner only.

use std::io::Write;
use std::path::{Path, PathBuf};

use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::{Address, B256, U256};
use chessref_channel::auth::SignedDelegation;
use chessref_channel::transcript::{DelegationEntry, Side};
use chessref_channel::{ChannelDomain, ChannelGame, Transcript};
use serde::{Deserialize, Serialize};

use super::SessionError;
use crate::seat::unix_now;

/// Plies a session key's delegation covers beyond the clocks:
/// [`ChannelGame::key_expiry`] for this many plies.
const KEY_PLIES: u32 = 400;

/// Where the games' folders are when none is named: `~/.chessref/channel`.
pub fn default_base() -> PathBuf {
    std::env::var_os("HOME")
        .map_or_else(|| PathBuf::from("."), PathBuf::from)
        .join(".chessref")
        .join("channel")
}

/// Whose files a game folder holds (`game.json`): a fresh chain (a new anvil) repeats the
/// CREATE2 addresses and the game ids, so the game is known by its creation's block hash.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderOwner {
    /// The chain id.
    pub chain_id: u64,
    /// The referee.
    pub referee: Address,
    /// The game id.
    pub game_id: U256,
    /// The player.
    pub player: Address,
    /// The hash of the block the game was created in.
    pub created_in_block: B256,
}

impl FolderOwner {
    /// The folder of `base` for this game and player: named by chain, referee, game and
    /// player, so that both players on one machine (one home, no folder named: the README's
    /// two terminals) never share a session key or a transcript.
    pub fn folder(&self, base: &Path) -> PathBuf {
        base.join(format!(
            "{}-{}-{}-{}",
            self.chain_id, self.referee, self.game_id, self.player
        ))
    }

    /// Claims `dir` (made if missing): writes its `game.json` the first time, and refuses a
    /// folder that holds another game's files (another chain, game or player).
    pub fn claim(&self, dir: &Path) -> Result<(), SessionError> {
        std::fs::create_dir_all(dir).map_err(|source| SessionError::io(dir, source))?;
        let file = dir.join("game.json");
        if !file.is_file() {
            let text = serde_json::to_string_pretty(self)
                .map_err(|e| SessionError::Invalid(e.to_string()))?;
            return write_private(&file, &text);
        }
        self.holds(dir)
    }

    /// Whether `dir` holds this game's files (its `game.json` says so), for a reader: a
    /// folder without one, or another game's, is refused.
    pub fn holds(&self, dir: &Path) -> Result<(), SessionError> {
        let file = dir.join("game.json");
        let found: FolderOwner = serde_json::from_str(&read(&file)?)
            .map_err(|e| SessionError::Invalid(format!("{}: {e}", file.display())))?;
        if found != *self {
            return Err(SessionError::Refused(format!(
                "{} holds the files of another game: game {} of chain {} created in block {} for {}, not game {} of chain {} created in block {} for {}; move the folder away or pass --dir",
                dir.display(),
                found.game_id,
                found.chain_id,
                found.created_in_block,
                found.player,
                self.game_id,
                self.chain_id,
                self.created_in_block,
                self.player
            )));
        }
        Ok(())
    }
}

fn read(path: &Path) -> Result<String, SessionError> {
    std::fs::read_to_string(path).map_err(|source| SessionError::io(path, source))
}

/// Writes `text` to `path` atomically, readable by its owner only.
pub fn write_private(path: &Path, text: &str) -> Result<(), SessionError> {
    let io = |source| SessionError::io(path, source);
    let tmp = path.with_extension("tmp");
    {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp).map_err(io)?;
        file.write_all(text.as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
    }
    std::fs::rename(&tmp, path).map_err(io)
}

/// The session key and its delegation, made (and the delegation signed by `wallet`) on
/// first use and kept in `dir`.
pub fn session_key(
    dir: &Path,
    wallet: &PrivateKeySigner,
    game: &ChannelGame,
    domain: &ChannelDomain,
) -> Result<(PrivateKeySigner, SignedDelegation), SessionError> {
    let key_file = dir.join("session.key");
    let delegation_file = dir.join("delegation.json");
    if key_file.is_file() && delegation_file.is_file() {
        let key: PrivateKeySigner = read(&key_file)?.trim().parse().map_err(|e| {
            SessionError::Invalid(format!("{}: not a private key: {e}", key_file.display()))
        })?;
        let entry: DelegationEntry = serde_json::from_str(&read(&delegation_file)?)
            .map_err(|e| SessionError::Invalid(format!("{}: {e}", delegation_file.display())))?;
        return Ok((
            key,
            SignedDelegation {
                delegation: entry.delegation(),
                signature: entry.signature,
            },
        ));
    }
    let key = PrivateKeySigner::random();
    let expires = game.key_expiry(unix_now(), KEY_PLIES);
    let signed = chessref_channel::signer::delegate(
        wallet,
        domain,
        game.game_id,
        key.address(),
        1,
        u32::MAX,
        expires,
    )
    .map_err(|e| SessionError::Invalid(e.to_string()))?;
    write_private(
        &key_file,
        &alloy_primitives::hex::encode_prefixed(key.to_bytes()),
    )?;
    let colour = game
        .colour_of(wallet.address())
        .ok_or_else(|| SessionError::Refused(format!("{} is not a player", wallet.address())))?;
    let entry = DelegationEntry::of(Side::of(colour), &signed);
    write_private(
        &delegation_file,
        &serde_json::to_string_pretty(&entry).expect("a delegation serialises"),
    )?;
    Ok((key, signed))
}

/// The transcript kept at `file`, if there is one.
pub fn stored_transcript(file: &Path) -> Result<Option<Transcript>, SessionError> {
    if !file.is_file() {
        return Ok(None);
    }
    Transcript::from_json(&read(file)?)
        .map(Some)
        .map_err(|e| SessionError::Invalid(format!("{}: {e}", file.display())))
}

/// Keeps `transcript` at `file`.
pub fn save_transcript(file: &Path, transcript: &Transcript) -> Result<(), SessionError> {
    let text = serde_json::to_string_pretty(transcript).expect("a transcript serialises");
    write_private(file, &text)
}
