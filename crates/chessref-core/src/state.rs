//! The 128-byte state of ENCODING.md and the rules over it.

use std::fmt;
use std::str::FromStr;

use alloy_primitives::B256;

use crate::error::{FenError, InvalidState, Rejection, SanError, StateError};
use crate::moves::{Move, RawMove};
use crate::square::{Color, Piece, Square};

/// Exactly the 128 bytes of ENCODING.md (0x88 board plus shadow flags).
///
/// Always valid (section 7) when constructed through this API.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct State(pub(crate) [u8; 128]);

/// The game status for the side to move (ENCODING.md section 8).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Status {
    /// The game goes on.
    Ongoing = 0,
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can ever mate.
    InsufficientMaterial,
    /// 75 moves (150 plies) without a capture or pawn move.
    SeventyFiveMoves,
}

impl Status {
    /// The code 0..=4 of section 8.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The upper-case name (`"ONGOING"`, `"CHECKMATE"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ongoing => "ONGOING",
            Status::Checkmate => "CHECKMATE",
            Status::Stalemate => "STALEMATE",
            Status::InsufficientMaterial => "INSUFFICIENT_MATERIAL",
            Status::SeventyFiveMoves => "SEVENTY_FIVE_MOVES",
        }
    }

    /// The status with code `code`.
    pub const fn from_code(code: u8) -> Option<Status> {
        match code {
            0 => Some(Status::Ongoing),
            1 => Some(Status::Checkmate),
            2 => Some(Status::Stalemate),
            3 => Some(Status::InsufficientMaterial),
            4 => Some(Status::SeventyFiveMoves),
            _ => None,
        }
    }

    /// Whether the game has ended automatically (codes 1 to 4).
    pub const fn is_over(self) -> bool {
        !matches!(self, Status::Ongoing)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl State {
    /// The standard initial position (section 4).
    pub fn initial() -> State {
        todo!()
    }

    /// Validates 128 bytes (length, then section 7 in code order).
    pub fn from_bytes(bytes: &[u8]) -> Result<State, StateError> {
        let _ = bytes;
        todo!()
    }

    /// The 128 bytes.
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.0
    }

    /// Parses 256 hex digits (either case, optional `0x`) and validates them.
    pub fn from_hex(s: &str) -> Result<State, StateError> {
        let _ = s;
        todo!()
    }

    /// 256 lower-case hex digits, no `0x`.
    pub fn to_hex(&self) -> String {
        todo!()
    }

    /// Parses a FEN (section 5) into a validated state.
    pub fn from_fen(fen: &str) -> Result<State, FenError> {
        let _ = fen;
        todo!()
    }

    /// The FEN of this state (section 5).
    pub fn fen(&self) -> String {
        todo!()
    }

    /// A board for terminals: ranks 8 to 1, files a to h, with the side to move.
    pub fn pretty(&self) -> String {
        todo!()
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        todo!()
    }

    /// Plies played since the standard initial position (bytes 8, 9).
    pub fn ply(&self) -> u16 {
        todo!()
    }

    /// Plies since the last capture or pawn move (byte 10).
    pub fn halfmove_clock(&self) -> u8 {
        todo!()
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let _ = sq;
        todo!()
    }

    /// The square of `c`'s king (from the shadow bytes).
    pub fn king(&self, c: Color) -> Square {
        let _ = c;
        todo!()
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        todo!()
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> Vec<Move> {
        todo!()
    }

    /// Checks a move: `Ok` with the well-formed move iff it is legal, else the
    /// first section 6 rejection in section 6 order.
    pub fn check(&self, mv: impl Into<RawMove>) -> Result<Move, Rejection> {
        let _ = mv.into();
        todo!()
    }

    /// Applies a move (section 5, byte for byte), or rejects it as [`State::check`] does.
    pub fn play(&self, mv: impl Into<RawMove>) -> Result<State, Rejection> {
        let _ = mv.into();
        todo!()
    }

    /// The status for the side to move (section 8).
    pub fn status(&self) -> Status {
        todo!()
    }

    /// Whether side `c` alone has insufficient material (section 8).
    pub fn has_insufficient_material(&self, c: Color) -> bool {
        let _ = c;
        todo!()
    }

    /// The repetition key (section 9).
    pub fn repetition_key(&self) -> B256 {
        todo!()
    }

    /// The SAN of a legal move (`Nf3`, `exd5`, `O-O`, `e8=Q+`, `Qh4#`).
    pub fn san(&self, mv: Move) -> Result<String, Rejection> {
        let _ = mv;
        todo!()
    }

    /// Parses SAN against the legal moves (accepts `0-0`, `e8Q`, `+ # ! ?` suffixes).
    pub fn parse_san(&self, san: &str) -> Result<Move, SanError> {
        let _ = san;
        todo!()
    }

    /// Parses a move in UCI or SAN and checks that it is legal.
    pub fn parse_move(&self, s: &str) -> Result<Move, SanError> {
        let _ = s;
        todo!()
    }
}

impl Default for State {
    fn default() -> State {
        State::initial()
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

impl FromStr for State {
    type Err = FenError;

    /// FEN, or 256 hex digits (hex errors are reported as FEN errors of the board field).
    fn from_str(s: &str) -> Result<State, FenError> {
        State::from_fen(s)
    }
}

impl TryFrom<&[u8]> for State {
    type Error = StateError;

    fn try_from(bytes: &[u8]) -> Result<State, StateError> {
        State::from_bytes(bytes)
    }
}

impl AsRef<[u8]> for State {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[allow(dead_code)]
fn _unused(_: InvalidState) {}
