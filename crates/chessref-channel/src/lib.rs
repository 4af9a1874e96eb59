//! Off-chain play with signed moves, the protocol of `docs/CHANNEL.md` (version 2).
//!
//! Two players of a `ChessReferee` channel game sign each move as an EIP-712
//! [`Move`] message (the game, the ply, the move, the resulting position, both
//! remaining times, the time its author signed it and the hash of the move before it),
//! acknowledge each other's moves with [`Receipt`]s, and end the game with a signed
//! [`Resignation`] or [`ResultMessage`] naming the position they end. This crate builds,
//! signs and verifies those messages ([`messages`], [`auth`]), judges one transition the
//! way the contract does ([`transition`]), walks a whole transcript ([`transcript`]) and
//! says which `ChessChannel` call settles or disputes it, with its calldata
//! ([`settlement`]). The rules themselves are `chessref-core`'s: nothing here knows chess.

pub mod auth;
pub mod book;
#[cfg(feature = "signer")]
pub mod client;
pub mod clock_word;
pub mod domain;
pub mod frame;
pub mod game;
pub mod messages;
pub mod registration;
pub mod seat;
pub mod settlement;
#[cfg(feature = "signer")]
pub mod signer;
pub mod transcript;
pub mod transition;

pub use auth::{
    Auth, AuthError, Authorised, KnownPins, LaterDelegation, NoPins, Pins, Retirement, Revocation,
    SignedDelegation,
};
pub use book::{Accepted, Book, Refusal};
pub use domain::ChannelDomain;
pub use frame::{Frame, RelayFrame};
pub use game::ChannelGame;
pub use messages::{
    Delegation, DrawOffer, Move, Receipt, Resignation, Result as ResultMessage, TimeBound,
    author_of,
};
pub use seat::{
    AUTO_REGISTER_AFTER, AUTO_REGISTER_BY, AUTO_REGISTER_TIP, ChannelSeat, ChannelSeatError,
    Received, SessionKey, auto_register_at, reply_stamp, shown_reply_stamp,
};
pub use transcript::{Transcript, TranscriptError, TranscriptReport};
pub use transition::{TransitionError, check_successor, successor};
