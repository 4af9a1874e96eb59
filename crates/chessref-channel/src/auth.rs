//! Who may sign for a player (CHANNEL.md section 5): the player's own address
//! (65-byte low-s ECDSA, whatever its code, or a digest it *pinned* on-chain) or a
//! session key it delegated over a ply range until an expiry.
//!
//! ERC-1271 is never asked here (nor by the contract when it judges a message): a
//! contract wallet's approval counts only once pinned (`ChessChannel.pin`). What the
//! verifier knows of the contract's records (pinned digests, revoked and retired session
//! keys) comes from a [`Pins`]; offline, [`NoPins`] knows none, and a signature that could
//! only be a contract wallet's is reported [`Authorised::Unchecked`], never valid. A later
//! delegation the verifier holds itself retires a player's earlier keys as if shown
//! on-chain ([`LaterDelegation`]).

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
    /// The session key's delegation starts at a ply below the player's later delegation
    /// (`retire` on-chain, or one the verifier holds): its resignations and results no
    /// longer count (the contract's `RetiredKey`).
    #[error(
        "session key {key} is delegated from ply {first_ply}, but the player's later delegation from ply {agreements_from} retired it: it signs no more resignations or results"
    )]
    RetiredKey {
        /// The retired key.
        key: Address,
        /// Its delegation's `firstPly`.
        first_ply: u32,
        /// `agreementsFrom(gameId, player)`: the later delegation's `firstPly`.
        agreements_from: u32,
    },
    /// A delegation naming the zero address as session key.
    #[error("a delegation must name a session key (not the zero address)")]
    ZeroSessionKey,
}

/// What a verifier knows of `ChessChannel`'s records: pinned digests
/// (`pinned(signer, digest)`), revoked session keys (`revokedAt`) and retired ones
/// (`agreementsFrom`), and which addresses may be contract wallets.
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
    /// `agreementsFrom(gameId, player)`: the highest `firstPly` of the player's delegations
    /// known shown (0: none). A session key delegated from an earlier ply signs no more
    /// resignations or results.
    fn agreements_from(&self, _game_id: U256, _player: Address) -> u32 {
        0
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

/// A player's later delegation shown on-chain (`retire`, `SessionKeysRetired`): its keys
/// delegated from a ply below `first_ply` sign no more agreements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Retirement {
    /// The game.
    pub game_id: U256,
    /// The player.
    pub player: Address,
    /// The delegation's `firstPly` (`agreementsFrom` once it is the highest shown).
    pub first_ply: u32,
}

/// Pins, revocations and retirements a verifier was told of (read from the chain, or
/// given).
#[derive(Clone, Debug, Default)]
pub struct KnownPins {
    /// `(signer, digest)` pairs pinned.
    pub pinned: HashSet<(Address, B256)>,
    /// Addresses that may be contract wallets with pins not listed here.
    pub contracts: HashSet<Address>,
    /// Revoked session keys.
    pub revocations: Vec<Revocation>,
    /// Later delegations shown on-chain.
    pub retirements: Vec<Retirement>,
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
    fn agreements_from(&self, game_id: U256, player: Address) -> u32 {
        self.retirements
            .iter()
            .filter(|r| r.game_id == game_id && r.player == player)
            .map(|r| r.first_ply)
            .max()
            .unwrap_or(0)
    }
}

/// `pins` with a later delegation of `player` in game `game_id` the verifier holds (a
/// transcript's, a relay's): its keys delegated from a ply below `from` are retired for
/// agreements as if the delegation were shown on-chain (CHANNEL.md 5), which the player's
/// client does when it rotates, but a verifier need not wait for.
#[derive(Clone, Copy, Debug)]
pub struct LaterDelegation<P> {
    /// What the verifier knows of the chain.
    pub pins: P,
    /// The game.
    pub game_id: U256,
    /// The player.
    pub player: Address,
    /// The later delegation's `firstPly` (0: none held).
    pub from: u32,
}

impl<P: Pins> Pins for LaterDelegation<P> {
    fn is_pinned(&self, signer: Address, digest: B256) -> bool {
        self.pins.is_pinned(signer, digest)
    }
    fn may_be_contract(&self, account: Address) -> bool {
        self.pins.may_be_contract(account)
    }
    fn revoked_at(&self, game_id: U256, player: Address, session_key: Address) -> Option<u64> {
        self.pins.revoked_at(game_id, player, session_key)
    }
    fn agreements_from(&self, game_id: U256, player: Address) -> u32 {
        let shown = self.pins.agreements_from(game_id, player);
        if game_id == self.game_id && player == self.player {
            shown.max(self.from)
        } else {
            shown
        }
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
    fn agreements_from(&self, game_id: U256, player: Address) -> u32 {
        (**self).agreements_from(game_id, player)
    }
}

/// The address a 65-byte `r ‖ s ‖ v` signature of `digest` recovers to, with the
/// contract's rules: v 27 or 28, low s, non-zero r and s, never the zero address.
pub fn recover(digest: B256, signature: &[u8]) -> Result<Address, AuthError> {
    recover_with(digest, signature, &mut KnownKeys::default())
}

/// `r`, `s` and the y parity of a signature the contract's rules let through to
/// recovery (65 bytes, v 27 or 28, low s, non-zero r and s).
fn parts(signature: &[u8]) -> Result<Signature, AuthError> {
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
    Ok(Signature::new(r, s, v == 28))
}

/// [`recover`], remembering in `keys` the public key of the address recovered (so that
/// [`recovers_to`] can check the next signatures expected from it with one
/// multiplication instead of a recovery's two).
fn recover_with(
    digest: B256,
    signature: &[u8],
    keys: &mut KnownKeys,
) -> Result<Address, AuthError> {
    let sig = parts(signature)?;
    #[cfg(feature = "secp256k1")]
    let recovered = {
        // libsecp256k1 recovers faster than k256 checks against a known key: nothing
        // to remember.
        let _ = keys;
        sig.recover_address_from_prehash(&digest).ok()
    };
    #[cfg(not(feature = "secp256k1"))]
    let recovered = sig.recover_from_prehash(&digest).ok().map(|key| {
        let address = Address::from_public_key(&key);
        keys.learn(address, key);
        address
    });
    match recovered {
        Some(address) if address != Address::ZERO => Ok(address),
        _ => Err(AuthError::Unrecoverable),
    }
}

/// Public keys of addresses whose signatures were recovered, to check their next
/// signatures against (ECDSA verification with a known key: one double multiplication
/// where a recovery takes a square root and two, as k256's recovery verifies what it
/// recovers). Only kept with the pure-Rust k256 (WASM); with libsecp256k1 recovery is
/// faster and nothing is kept.
#[derive(Clone, Debug, Default)]
pub(crate) struct KnownKeys {
    #[cfg(not(feature = "secp256k1"))]
    keys: Vec<(Address, k256::ecdsa::VerifyingKey)>,
}

impl KnownKeys {
    #[cfg(not(feature = "secp256k1"))]
    fn learn(&mut self, address: Address, key: k256::ecdsa::VerifyingKey) {
        if !self.keys.iter().any(|(a, _)| *a == address) {
            self.keys.push((address, key));
        }
    }

    /// Whether `signature` of `digest` is known to recover to `expected`, without a
    /// recovery: `expected`'s key was recovered before and the signature verifies
    /// against it with the very point its `r` and `v` name. `false` says nothing (the
    /// caller recovers).
    ///
    /// Exactly [`recover`]'s answer: with r and s non-zero below the group order and s
    /// low, k256's recovery (`recover_from_prehash`) gives the key `Q` if and only if the
    /// point `R` with x-coordinate `r` and y parity `v` exists and `s·R = z·G + r·Q`,
    /// that is `P = (z/s)·G + (r/s)·Q` is `R`: its affine x is `r` and its y parity `v`.
    /// That is ECDSA verification against `Q` (k256's `verify_prehashed`: the same
    /// scalars; `z/s·G` from k256's precomputed tables of `G`, 4% faster in WASM than its
    /// joint `lincomb`) with the whole point compared, not only `x mod n`: verification
    /// alone would also accept the signature with `v` flipped, which recovers to another
    /// address. Tested against recovery on tampered signatures (below) and, in WASM, on
    /// tampered transcripts.
    #[cfg(not(feature = "secp256k1"))]
    fn recovers_to(&self, expected: Address, digest: &B256, signature: &[u8]) -> bool {
        use k256::elliptic_curve::ops::{Invert, MulByGenerator, Reduce};
        use k256::elliptic_curve::point::AffineCoordinates;
        use k256::{ProjectivePoint, Scalar};

        let Some((_, key)) = self.keys.iter().find(|(a, _)| *a == expected) else {
            return false;
        };
        let Ok(sig) = parts(signature) else {
            return false;
        };
        // r and s non-zero and below the order (what the recovery takes).
        let Ok(k) = sig.to_k256() else {
            return false;
        };
        let (r, s) = k.split_scalars();
        let z = <Scalar as Reduce<k256::U256>>::reduce_bytes(&digest.0.into());
        let s_inv = *s.invert_vartime();
        let u1 = z * s_inv;
        let u2 = *r * s_inv;
        let q = ProjectivePoint::from(*key.as_affine());
        let p = (ProjectivePoint::mul_by_generator(&u1) + q * u2).to_affine();
        p.x() == r.to_bytes() && bool::from(p.y_is_odd()) == sig.v()
    }

    /// How many keys are kept: a mark to [`forget_since`](Self::forget_since).
    pub(crate) fn len(&self) -> usize {
        #[cfg(not(feature = "secp256k1"))]
        return self.keys.len();
        #[cfg(feature = "secp256k1")]
        0
    }

    /// Forgets the keys learned after `mark` (a [`len`](Self::len)): those of a message
    /// that was refused. A forger's key recovered from a refused frame is not kept, so
    /// forged frames cannot grow the list (and each search through it) without bound.
    pub(crate) fn forget_since(&mut self, mark: usize) {
        #[cfg(not(feature = "secp256k1"))]
        self.keys.truncate(mark);
        #[cfg(feature = "secp256k1")]
        let _ = mark;
    }

    /// With libsecp256k1 nothing is kept: always recover.
    #[cfg(feature = "secp256k1")]
    fn recovers_to(&self, _expected: Address, _digest: &B256, _signature: &[u8]) -> bool {
        false
    }

    /// The address `signature` of `digest` recovers to, as [`recover`] says, checked
    /// against `expected`'s known key first (it is `expected` if that key verifies it).
    fn check(
        &mut self,
        expected: Address,
        digest: B256,
        signature: &[u8],
    ) -> Result<Address, AuthError> {
        if self.recovers_to(expected, &digest, signature) {
            return Ok(expected);
        }
        recover_with(digest, signature, self)
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
    verify_player_with(player, digest, signature, pins, &mut KnownKeys::default())
}

/// [`verify_player`] with the keys recovered so far.
pub(crate) fn verify_player_with(
    player: Address,
    digest: B256,
    signature: &[u8],
    pins: &impl Pins,
    keys: &mut KnownKeys,
) -> Result<Authorised, AuthError> {
    // ECDSA first, whatever the account's code (as the contract does): an EOA that later
    // gets code (EIP-7702) cannot disown what its key signed.
    let recovered = keys.check(player, digest, signature);
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
        let digest = message.digest(domain);
        let keys = &mut KnownKeys::default();
        self.verify_with(domain, message, digest, player, pins, now, keys)
    }

    /// [`verify`](Auth::verify) of `message` whose digest under `domain` is `digest`,
    /// with the keys recovered so far.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn verify_with<M: Message>(
        &self,
        domain: &ChannelDomain,
        message: &M,
        digest: B256,
        player: Address,
        pins: &impl Pins,
        now: u64,
        keys: &mut KnownKeys,
    ) -> Result<Authorised, AuthError> {
        match &self.delegation {
            None => verify_player_with(player, digest, &self.signature, pins, keys),
            Some(signed) => {
                let outer = signed.verify_with(domain, player, pins, keys)?;
                self.verify_by_session_with(message, digest, player, pins, now, keys)?;
                Ok(outer)
            }
        }
    }

    /// The session-key half of [`verify`](Auth::verify): the delegation's game, ply
    /// range and time bound fit `message` (and, for an agreement, the key is not known
    /// revoked by `now` nor retired by a later delegation), and the session key signed it. The delegation's own signature
    /// is the caller's to check (once: [`SignedDelegation::verify`]).
    pub fn verify_by_session<M: Message>(
        &self,
        domain: &ChannelDomain,
        message: &M,
        player: Address,
        pins: &impl Pins,
        now: u64,
    ) -> Result<(), AuthError> {
        let digest = message.digest(domain);
        let keys = &mut KnownKeys::default();
        self.verify_by_session_with(message, digest, player, pins, now, keys)
    }

    /// [`verify_by_session`](Auth::verify_by_session) of `message` whose digest is
    /// `digest`, with the keys recovered so far.
    pub(crate) fn verify_by_session_with<M: Message>(
        &self,
        message: &M,
        digest: B256,
        player: Address,
        pins: &impl Pins,
        now: u64,
        keys: &mut KnownKeys,
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
        let signer = keys.check(d.sessionKey, digest, &self.signature)?;
        if signer != d.sessionKey {
            return Err(AuthError::WrongSigner {
                expected: d.sessionKey,
                signer,
            });
        }
        // Revocation and retirement end only a key's agreements: its moves and receipts are
        // evidence, bounded by their signed plies and times. Judged, as the contract does,
        // once the key's signature verifies.
        if revocable {
            let agreements_from = pins.agreements_from(d.gameId, player);
            if d.firstPly < agreements_from {
                return Err(AuthError::RetiredKey {
                    key: d.sessionKey,
                    first_ply: d.firstPly,
                    agreements_from,
                });
            }
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
        self.verify_with(domain, player, pins, &mut KnownKeys::default())
    }

    /// [`verify`](SignedDelegation::verify) with the keys recovered so far.
    pub(crate) fn verify_with(
        &self,
        domain: &ChannelDomain,
        player: Address,
        pins: &impl Pins,
        keys: &mut KnownKeys,
    ) -> Result<Authorised, AuthError> {
        if self.delegation.sessionKey == Address::ZERO {
            return Err(AuthError::ZeroSessionKey);
        }
        verify_player_with(
            player,
            self.delegation.digest(domain),
            &self.signature,
            pins,
            keys,
        )
    }
}

#[cfg(all(test, feature = "signer"))]
mod tests {
    use alloy_primitives::keccak256;
    use alloy_signer::SignerSync;
    use alloy_signer_local::PrivateKeySigner;

    use super::*;

    /// The secp256k1 group order.
    const ORDER: U256 = U256::from_be_bytes([
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36,
        0x41, 0x41,
    ]);

    fn sign(key: &PrivateKeySigner, digest: B256) -> Vec<u8> {
        key.sign_hash_sync(&digest)
            .expect("signing")
            .as_bytes()
            .to_vec()
    }

    /// Signatures a key recovered before is checked against (KnownKeys) get exactly the
    /// answer of a recovery: the valid one, and every tampered one (v flipped: the same
    /// r and s verify against the key but recover to another address; s high; r or s
    /// zero or beyond the order; a bit flipped anywhere; another digest; another signer).
    #[test]
    fn test_known_keys_answer_as_recovery_does() {
        let key = PrivateKeySigner::from_bytes(&keccak256("known")).expect("a key");
        let other = PrivateKeySigner::from_bytes(&keccak256("other")).expect("a key");
        let mut keys = KnownKeys::default();
        let first = keccak256("first");
        assert_eq!(
            keys.check(key.address(), first, &sign(&key, first)),
            Ok(key.address())
        );
        let mut variants = Vec::new();
        for i in 0..8u8 {
            let digest = keccak256([i]);
            let good = sign(&key, digest);
            variants.push((digest, good.clone()));
            variants.push((keccak256([i, i]), good.clone()));
            variants.push((digest, sign(&other, digest)));
            let mut flipped = good.clone();
            flipped[64] ^= 27 ^ 28;
            variants.push((digest, flipped));
            let s = U256::from_be_slice(&good[32..64]);
            let mut high = good.clone();
            high[32..64].copy_from_slice(&(ORDER - s).to_be_bytes::<32>());
            high[64] ^= 27 ^ 28;
            variants.push((digest, high));
            for r in [U256::ZERO, ORDER, ORDER + U256::from(1), U256::from(1)] {
                let mut bad = good.clone();
                bad[..32].copy_from_slice(&r.to_be_bytes::<32>());
                variants.push((digest, bad));
            }
            let mut zero_s = good.clone();
            zero_s[32..64].fill(0);
            variants.push((digest, zero_s));
            for bit in [0usize, 77, 255, 256, 300, 511, 512] {
                let mut bad = good.clone();
                bad[bit / 8] ^= 1 << (bit % 8);
                variants.push((digest, bad));
            }
            variants.push((digest, good[..64].to_vec()));
        }
        let mut fast = 0;
        for (digest, signature) in &variants {
            if keys.recovers_to(key.address(), digest, signature) {
                fast += 1;
            }
            assert_eq!(
                keys.check(key.address(), *digest, signature),
                recover(*digest, signature),
                "{signature:?}"
            );
        }
        #[cfg(not(feature = "secp256k1"))]
        assert_eq!(
            fast, 8,
            "the untouched signatures, and only them, take the fast path"
        );
        #[cfg(feature = "secp256k1")]
        assert_eq!(fast, 0);
    }
}
