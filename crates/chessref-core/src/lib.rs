//! Chess rules over the chessref 128-byte 0x88 state (see `shared/ENCODING.md`).
//!
//! [`State`] is exactly the 128 bytes the Solidity referee stores; every
//! operation here (move checking, move application, status, repetition key)
//! reproduces the contract byte for byte, so this crate can predict what the
//! chain will do.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod attacks;
mod error;
mod fen;
mod game;
mod moves;
mod perft;
mod pgn;
mod position;
mod san;
mod square;
mod state;

pub use error::{FenError, InvalidState, Rejection, SanError, StateError, UciError};
pub use game::*;
pub use moves::{Move, RawMove};
pub use perft::{perft, perft_divide};
pub use pgn::*;
pub use square::{Color, Piece, Role, Square};
pub use state::{State, Status};
