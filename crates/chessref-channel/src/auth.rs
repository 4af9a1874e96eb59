//! Who may sign for a player (CHANNEL.md section 5): the player's own address
//! (65-byte low-s ECDSA, whatever its code, or a digest it *pinned* on-chain) or a
//! session key it delegated over a ply range until an expiry.
//!
//! ERC-1271 is never asked here (nor by the contract when it judges a message): a
//! contract wallet's approval counts only once pinned (`ChessChannel.pin`). What the
//! verifier knows of the contract's records (pinned digests, revoked session keys) comes
//! from a [`Pins`]; offline, [`NoPins`] knows none, and a signature that could only be a
//! contract wallet's is reported [`Authorised::Unchecked`], never valid.

use std::collections::HashSet;

use alloy_primitives::{Address, B256, Bytes, Signature, U256};
use thiserror::Error;

use crate::domain::ChannelDomain;
use crate::messages::{Delegation, Message, TimeBound};

/// Half the secp256k1 group order: the largest `s` a signature may have.
const HALF_ORDER: U256 = U256::from_be_bytes([
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
]);

/// A delegation with its signature by the player's own address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedDelegation {
    /// The delegation.
    pub delegation: Delegation,
    /// The player's signature of its digest (or what its wallet pinned).
    pub signature: Bytes,
}

/// An authorisation: a signature of a message on behalf of a player, directly or by a
/// session key (the contract's `Auth { signature; delegation; delegationSignature }`
/// with `delegation.sessionKey == 0` for "directly").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Auth {
    /// The signature of the message digest (by the player, or by the session key).
    pub signature: Bytes,
    /// The delegation when a session key signed.
    pub delegation: Option<SignedDelegation>,
}

/// How an authorisation checked out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Authorised {
    /// Every signature verified.
    Valid,
    /// The signature is not this address's ECDSA and the address may be a contract
    /// wallet whose pins the verifier was not told: it counts only if the digest is
    /// pinned on-chain (`ChessChannel.pinned`); never to be taken as valid.
    Unchecked(Address),
}

/// Why a signature or authorisation is refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AuthError {
    /// Not 65 bytes.
    #[error("a signature is 65 bytes (r, s, v), this one has {0}")]
    BadLength(usize),
    /// `v` is not 27 or 28.
    #[error("signature v must be 27 or 28, not {0}")]
    BadV(u8),
    /// `s` above half the group order: the malleable twin of a valid signature.
    #[error(
        "signature s is in the upper half of the curve order (only low-s signatures are accepted)"
    )]
    HighS,
    /// `r` or `s` is zero, or recovery failed.
    #[error("the signature does not recover to any key")]
    Unrecoverable,
    /// Recovered to another address than required.
    #[error("signed by {signer}, not by {expected}")]
    WrongSigner {
        /// Who had to sign.
        expected: Address,
        /// Who did.
        signer: Address,
    },
    /// The delegation is for another game.
    #[error("the delegation is for game {delegated}, the message for game {game}")]
    DelegationGame {
        /// The delegation's game.
        delegated: U256,
        /// The message's game.
        game: U256,
    },
    /// The message's ply is outside the delegation's range.
    #[error("ply {ply} is outside the delegation's range {first}..={last}")]
    OutOfRange {
        /// The message's ply.
        ply: u32,
        /// The range's first ply.
        first: u32,
        /// The range's last ply.
        last: u32,
    },
    /// The session key's delegation had expired at the message's time bound (its signed
    /// time for a move or receipt, the verifier's clock for the other messages).
    #[error("the session key expired at {expires}, the message is bound to time {at}")]
    KeyExpired {
        /// The delegation's `expires`.
        expires: u64,
        /// The time the message is judged at.
        at: u64,
    },
    /// The session key was revoked on-chain (`revokeSessionKey`) at or before the
    /// verifier's clock: its resignations and results no longer count.
    #[error("session key {key} was revoked at {revoked_at} (the verifier's clock is {now})")]
    KeyRevoked {
        /// The revoked key.
        key: Address,
        /// `revokedAt(gameId, player, key)`.
        revoked_at: u64,
        /// The verifier's clock.
        now: u64,
    },
    /// A delegation naming the zero address as session key.
    #[error("a delegation must name a session key (not the zero address)")]
    ZeroSessionKey,
}

/// What a verifier knows of `ChessChannel`'s records: pinned digests
/// (`pinned(signer, digest)`) and revoked session keys (`revokedAt`), and which
/// addresses may be contract wallets.
pub trait Pins {
    /// Whether `signer` has `digest` pinned (`ChessChannel.pinned`).
    fn is_pinned(&self, signer: Address, digest: B256) -> bool;
    /// Whether `account` may be a contract wallet whose pins this verifier does not know
    /// all of: a signature that is neither its ECDSA nor known pinned is then reported
    /// [`Authorised::Unchecked`] instead of refused. By default nobody.
    fn may_be_contract(&self, _account: Address) -> bool {
        false
    }
    /// `revokedAt(gameId, player, sessionKey)`, if the key is known revoked.
    fn revoked_at(&self, _game_id: U256, _player: Address, _session_key: Address) -> Option<u64> {
        None
    }
}

/// Nothing pinned, nothing revoked, every player taken as an EOA: the offline default.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoPins;

impl Pins for NoPins {
    fn is_pinned(&self, _: Address, _: B256) -> bool {
        false
    }
}

/// A session key's on-chain revocation (`SessionKeyRevoked`, `revokedAt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Revocation {
    /// The game.
    pub game_id: U256,
    /// The player who revoked its key.
    pub player: Address,
    /// The revoked key.
    pub session_key: Address,
    /// `revokedAt`: the block time of the revocation.
    pub at: u64,
}

/// Pins and revocations a verifier was told of (read from the chain, or given).
#[derive(Clone, Debug, Default)]
pub struct KnownPins {
    /// `(signer, digest)` pairs pinned.
    pub pinned: HashSet<(Address, B256)>,
    /// Addresses that may be contract wallets with pins not listed here.
    pub contracts: HashSet<Address>,
    /// Revoked session keys.
    pub revocations: Vec<Revocation>,
}

impl Pins for KnownPins {
    fn is_pinned(&self, signer: Address, digest: B256) -> bool {
        self.pinned.contains(&(signer, digest))
    }
    fn may_be_contract(&self, account: Address) -> bool {
        self.contracts.contains(&account)
    }
    fn revoked_at(&self, game_id: U256, player: Address, session_key: Address) -> Option<u64> {
        self.revocations
            .iter()
            .filter(|r| r.game_id == game_id && r.player == player && r.session_key == session_key)
            .map(|r| r.at)
            .min()
    }
}

impl<P: Pins + ?Sized> Pins for &P {
    fn is_pinned(&self, signer: Address, digest: B256) -> bool {
        (**self).is_pinned(signer, digest)
    }
    fn may_be_contract(&self, account: Address) -> bool {
        (**self).may_be_contract(account)
    }
    fn revoked_at(&self, game_id: U256, player: Address, session_key: Address) -> Option<u64> {
        (**self).revoked_at(game_id, player, session_key)
    }
}

/// The address a 65-byte `r ‖ s ‖ v` signature of `digest` recovers to, with the
/// contract's rules: v 27 or 28, low s, non-zero r and s, never the zero address.
pub fn recover(digest: B256, signature: &[u8]) -> Result<Address, AuthError> {
    let bytes: &[u8; 65] = signature
        .try_into()
        .map_err(|_| AuthError::BadLength(signature.len()))?;
    let v = bytes[64];
    if v != 27 && v != 28 {
        return Err(AuthError::BadV(v));
    }
    let r = U256::from_be_slice(&bytes[..32]);
    let s = U256::from_be_slice(&bytes[32..64]);
    if s > HALF_ORDER {
        return Err(AuthError::HighS);
    }
    if r.is_zero() || s.is_zero() {
        return Err(AuthError::Unrecoverable);
    }
    let sig = Signature::new(r, s, v == 28);
    match sig.recover_address_from_prehash(&digest) {
        Ok(address) if address != Address::ZERO => Ok(address),
        _ => Err(AuthError::Unrecoverable),
    }
}

/// Checks "`player`'s signature of `digest`" (CHANNEL.md 5): strict ECDSA recovering to
/// `player` whatever its code, else a pinned digest; a signature that is neither, for
/// an address that may be a contract wallet, is [`Authorised::Unchecked`].
pub fn verify_player(
    player: Address,
    digest: B256,
    signature: &[u8],
    pins: &impl Pins,
) -> Result<Authorised, AuthError> {
    // ECDSA first, whatever the account's code (as the contract does): an EOA that later
    // gets code (EIP-7702) cannot disown what its key signed.
    let recovered = recover(digest, signature);
    if recovered.as_ref() == Ok(&player) || pins.is_pinned(player, digest) {
        return Ok(Authorised::Valid);
    }
    if pins.may_be_contract(player) {
        return Ok(Authorised::Unchecked(player));
    }
    match recovered {
        Ok(signer) => Err(AuthError::WrongSigner {
            expected: player,
            signer,
        }),
        Err(e) => Err(e),
    }
}

impl Auth {
    /// A signature by the player's own address.
    pub fn direct(signature: impl Into<Bytes>) -> Auth {
        Auth {
            signature: signature.into(),
            delegation: None,
        }
    }

    /// Checks that this authorises `message` on behalf of `player` under `domain`.
    /// `now` is the verifier's clock (unix seconds), used only for the messages bound to
    /// it (resignations, results, draw offers by a session key; moves and receipts are
    /// bound to their own signed times).
    pub fn verify<M: Message>(
        &self,
        domain: &ChannelDomain,
        message: &M,
        player: Address,
        pins: &impl Pins,
        now: u64,
    ) -> Result<Authorised, AuthError> {
        match &self.delegation {
            None => verify_player(player, message.digest(domain), &self.signature, pins),
            Some(signed) => {
                let outer = signed.verify(domain, player, pins)?;
                self.verify_by_session(domain, message, player, pins, now)?;
                Ok(outer)
            }
        }
    }

    /// The session-key half of [`verify`](Auth::verify): the delegation's game, ply
    /// range and time bound fit `message` (and, for an agreement, the key is not known
    /// revoked by `now`), and the session key signed it. The delegation's own signature
    /// is the caller's to check (once: [`SignedDelegation::verify`]).
    pub fn verify_by_session<M: Message>(
        &self,
        domain: &ChannelDomain,
        message: &M,
        player: Address,
        pins: &impl Pins,
        now: u64,
    ) -> Result<(), AuthError> {
        let Some(signed) = &self.delegation else {
            return Ok(());
        };
        let d = &signed.delegation;
        if d.sessionKey == Address::ZERO {
            return Err(AuthError::ZeroSessionKey);
        }
        if d.gameId != message.game_id() {
            return Err(AuthError::DelegationGame {
                delegated: d.gameId,
                game: message.game_id(),
            });
        }
        let ply = message.ply();
        if ply < d.firstPly || ply > d.lastPly {
            return Err(AuthError::OutOfRange {
                ply,
                first: d.firstPly,
                last: d.lastPly,
            });
        }
        let (at, revocable) = match message.time_bound() {
            TimeBound::Signed(t) => (t, false),
            TimeBound::Clock { revocable } => (now, revocable),
        };
        if at > d.expires {
            return Err(AuthError::KeyExpired {
                expires: d.expires,
                at,
            });
        }
        if revocable
            && let Some(revoked_at) = pins.revoked_at(d.gameId, player, d.sessionKey)
            && revoked_at <= now
        {
            return Err(AuthError::KeyRevoked {
                key: d.sessionKey,
                revoked_at,
                now,
            });
        }
        let signer = recover(message.digest(domain), &self.signature)?;
        if signer != d.sessionKey {
            return Err(AuthError::WrongSigner {
                expected: d.sessionKey,
                signer,
            });
        }
        Ok(())
    }
}

impl SignedDelegation {
    /// Checks that `player` signed (or pinned) this delegation under `domain`.
    pub fn verify(
        &self,
        domain: &ChannelDomain,
        player: Address,
        pins: &impl Pins,
    ) -> Result<Authorised, AuthError> {
        if self.delegation.sessionKey == Address::ZERO {
            return Err(AuthError::ZeroSessionKey);
        }
        verify_player(
            player,
            self.delegation.digest(domain),
            &self.signature,
            pins,
        )
    }
}
