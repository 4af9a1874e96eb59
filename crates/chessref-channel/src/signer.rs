//! Signing channel messages with a local private key (a session key in a client, or a
//! test wallet); alloy's signer does the ECDSA (RFC 6979, low s).

use alloy_primitives::{Address, Bytes};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;

use crate::auth::{Auth, SignedDelegation};
use crate::domain::ChannelDomain;
use crate::messages::{Delegation, Message};

/// Why signing failed.
#[derive(Debug, thiserror::Error)]
#[error("signing failed: {0}")]
pub struct SignError(#[from] alloy_signer::Error);

/// Signs `message`'s digest under `domain`: 65 bytes `r ‖ s ‖ v`, v 27 or 28.
pub fn sign<M: Message>(
    key: &PrivateKeySigner,
    domain: &ChannelDomain,
    message: &M,
) -> Result<Bytes, SignError> {
    let signature = key.sign_hash_sync(&message.digest(domain))?;
    Ok(Bytes::copy_from_slice(&signature.as_bytes()))
}

/// A player's wallet `wallet` delegates `session` over `first_ply ..= last_ply` of
/// game `game_id`, until unix time `expires` (CHANNEL.md 4.2).
pub fn delegate(
    wallet: &PrivateKeySigner,
    domain: &ChannelDomain,
    game_id: alloy_primitives::U256,
    session: Address,
    first_ply: u32,
    last_ply: u32,
    expires: u64,
) -> Result<SignedDelegation, SignError> {
    let delegation = Delegation {
        gameId: game_id,
        sessionKey: session,
        firstPly: first_ply,
        lastPly: last_ply,
        expires,
    };
    let signature = sign(wallet, domain, &delegation)?;
    Ok(SignedDelegation {
        delegation,
        signature,
    })
}

/// Signs `message` with a session key under its delegation.
pub fn sign_delegated<M: Message>(
    session: &PrivateKeySigner,
    delegation: &SignedDelegation,
    domain: &ChannelDomain,
    message: &M,
) -> Result<Auth, SignError> {
    Ok(Auth {
        signature: sign(session, domain, message)?,
        delegation: Some(delegation.clone()),
    })
}
