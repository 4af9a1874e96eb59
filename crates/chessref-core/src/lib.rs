//! Chess rules over the chessref 128-byte 0x88 state (see `shared/ENCODING.md`).
//!
//! [`State`] is exactly the 128 bytes the Solidity referee stores; every
//! operation here (move checking, move application, status, repetition key)
//! reproduces the contract byte for byte, so this crate can predict what the
//! chain will do.
//!
//! ```
//! use chessref_core::{Move, Rejection, State, Status};
//!
//! let start = State::initial();
//! let e4 = start.play(Move::from_uci("e2e4").unwrap()).unwrap();
//! assert_eq!(e4.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
//! // The contract's rejection code for an illegal move, in the section 6 order.
//! assert_eq!(e4.check(Move::from_uci("e7e4").unwrap()), Err(Rejection::BadGeometry));
//! assert_eq!(e4.parse_san("Nf6").unwrap().to_uci(), "g8f6");
//! assert_eq!(e4.status(), Status::Ongoing);
//! assert_eq!(chessref_core::perft(&start, 3), 8_902);
//! ```

mod attacks;
mod destinations;
mod error;
mod fen;
mod fivefold;
mod game;
mod legal_move;
mod move_info;
mod move_text;
mod moves;
mod outcome;
mod perft;
mod pgn;
mod pgn_report;
mod piece_code;
mod position;
mod san;
mod square;
mod state;
pub mod tournament;
mod verdict;

pub use error::{FenError, InvalidState, Rejection, SanError, StateError, UciError};
pub use fivefold::Fivefold;
pub use game::*;
pub use legal_move::{LegalMove, Playable};
pub use move_info::{MoveFlags, MoveInfo};
pub use move_text::{MAX_PACKED, RawMoveError};
pub use moves::{Move, RawMove};
pub use perft::{perft, perft_divide};
pub use pgn::*;
pub use pgn_report::PgnReport;
pub use square::{Color, ParseSquareError, Piece, Role, Square};
pub use state::{State, Status, chain};
pub use verdict::Verdict;
