//! Who may sign for a player (CHANNEL.md section 5): the player's own address
//! (65-byte low-s ECDSA, or ERC-1271 for a contract wallet) or a session key it
//! delegated over a ply range.

use alloy_primitives::{Address, B256, Bytes, Signature, U256};
use thiserror::Error;

use crate::domain::ChannelDomain;
use crate::messages::{Delegation, Message};

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
    /// The player's signature of its digest.
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
    /// A signature by this contract wallet could not be checked here (no chain to ask
    /// `isValidSignature`); never to be taken as valid.
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
    /// A contract wallet refused the signature.
    #[error("contract wallet {0} refused the signature (ERC-1271)")]
    WalletRefused(Address),
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
    /// A delegation naming the zero address as session key.
    #[error("a delegation must name a session key (not the zero address)")]
    ZeroSessionKey,
}

/// Contract wallets: which players have code, and what their `isValidSignature` says.
pub trait ContractWallets {
    /// Whether `account` has code (its signatures go through ERC-1271).
    fn is_contract(&self, account: Address) -> bool;
    /// `Some(true)` if `account.isValidSignature(digest, signature)` returned the magic
    /// value, `Some(false)` if it refused, `None` if it cannot be asked here.
    fn is_valid_signature(&self, account: Address, digest: B256, signature: &[u8]) -> Option<bool>;
}

/// Every player is an EOA (or nothing can be asked of contract wallets): the offline
/// default.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoContractWallets;

impl ContractWallets for NoContractWallets {
    fn is_contract(&self, _: Address) -> bool {
        false
    }
    fn is_valid_signature(&self, _: Address, _: B256, _: &[u8]) -> Option<bool> {
        None
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

/// Checks "`player`'s signature of `digest`" (CHANNEL.md 5): ECDSA recovering to
/// `player`, else, for a contract wallet, its ERC-1271 answer.
pub fn verify_player(
    player: Address,
    digest: B256,
    signature: &[u8],
    wallets: &impl ContractWallets,
) -> Result<Authorised, AuthError> {
    // ECDSA first, whatever the account's code (as the contract does): an EOA that later
    // gets code (EIP-7702) cannot disown what its key signed.
    let recovered = recover(digest, signature);
    if recovered.as_ref() == Ok(&player) {
        return Ok(Authorised::Valid);
    }
    if wallets.is_contract(player) {
        return match wallets.is_valid_signature(player, digest, signature) {
            Some(true) => Ok(Authorised::Valid),
            Some(false) => Err(AuthError::WalletRefused(player)),
            None => Ok(Authorised::Unchecked(player)),
        };
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
    pub fn verify<M: Message>(
        &self,
        domain: &ChannelDomain,
        message: &M,
        player: Address,
        wallets: &impl ContractWallets,
    ) -> Result<Authorised, AuthError> {
        match &self.delegation {
            None => verify_player(player, message.digest(domain), &self.signature, wallets),
            Some(signed) => {
                let outer = signed.verify(domain, player, wallets)?;
                self.verify_by_session(domain, message)?;
                Ok(outer)
            }
        }
    }

    /// The session-key half of [`verify`](Auth::verify): the delegation's game and ply
    /// range fit `message`, and the session key signed it. The delegation's own
    /// signature is the caller's to check (once: [`SignedDelegation::verify`]).
    pub fn verify_by_session<M: Message>(
        &self,
        domain: &ChannelDomain,
        message: &M,
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
    /// Checks that `player` signed this delegation under `domain`.
    pub fn verify(
        &self,
        domain: &ChannelDomain,
        player: Address,
        wallets: &impl ContractWallets,
    ) -> Result<Authorised, AuthError> {
        if self.delegation.sessionKey == Address::ZERO {
            return Err(AuthError::ZeroSessionKey);
        }
        verify_player(
            player,
            self.delegation.digest(domain),
            &self.signature,
            wallets,
        )
    }
}
