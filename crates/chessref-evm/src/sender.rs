//! Who signs what [`crate::RpcChain::connect_as`] sends: a key held here or an account
//! the node holds unlocked. Where a player's key comes from (the environment, a
//! keystore, `--unlocked`) is the player's client's concern: `chessref_client::keys`.

use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::Address;

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
