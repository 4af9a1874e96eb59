//! The signed board-byte piece codes of ENCODING.md section 2, by role: the
//! white piece's code (a black piece's is its negation). State, FEN, SAN and
//! the move generator all read the board through these.

/// A pawn.
pub(crate) const PAWN: i8 = 1;
/// A knight.
pub(crate) const KNIGHT: i8 = 2;
/// A bishop.
pub(crate) const BISHOP: i8 = 3;
/// A rook.
pub(crate) const ROOK: i8 = 4;
/// A queen.
pub(crate) const QUEEN: i8 = 5;
/// A king.
pub(crate) const KING: i8 = 6;
