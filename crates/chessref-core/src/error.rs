//! Error types: move rejections (ENCODING.md section 6), invalid states
//! (section 7) and parse errors.

use crate::moves::Move;

macro_rules! coded_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $(#[doc = $doc:literal])* $variant:ident = $code:literal, $label:literal, $msg:literal; )* }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, thiserror::Error)]
        #[repr(u8)]
        pub enum $name {
            $( $(#[doc = $doc])* #[error($msg)] $variant = $code, )*
        }

        impl $name {
            /// Every variant, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The numeric code of ENCODING.md.
            pub const fn code(self) -> u8 {
                self as u8
            }

            /// The upper-case name of ENCODING.md (e.g. `"OFF_BOARD"`).
            pub const fn name(self) -> &'static str {
                match self { $($name::$variant => $label,)* }
            }

            /// The variant with numeric code `code`.
            pub const fn from_code(code: u8) -> Option<Self> {
                match code { $($code => Some($name::$variant),)* _ => None }
            }
        }
    };
}

coded_enum! {
    /// Why a move is illegal: the code the contract reverts with (ENCODING.md
    /// section 6). When several apply, the first in the section 6 order is reported.
    pub enum Rejection {
        /// `from` or `to` is not a square of the playing board.
        OffBoard = 1, "OFF_BOARD", "a square is off the board";
        /// `from == to`.
        SameSquare = 2, "SAME_SQUARE", "the move does not leave its square";
        /// No piece stands on `from`.
        EmptyFrom = 3, "EMPTY_FROM", "there is no piece on the origin square";
        /// The piece on `from` belongs to the side not to move.
        NotYourPiece = 4, "NOT_YOUR_PIECE", "the piece on the origin square is not the side to move's";
        /// `to` holds a piece of the mover's colour.
        OwnPieceOnTarget = 5, "OWN_PIECE_ON_TARGET", "the target square holds a piece of the mover's colour";
        /// This piece type can never go from `from` to `to` in one move.
        BadGeometry = 6, "BAD_GEOMETRY", "this piece cannot move that way";
        /// A square on the way is occupied (or a pawn steps forward onto a piece).
        PathBlocked = 7, "PATH_BLOCKED", "the path is blocked";
        /// A pawn's diagonal step to an empty square that is not the en-passant square.
        NoCaptureTarget = 8, "NO_CAPTURE_TARGET", "a pawn moves diagonally without capturing";
        /// Castling without the right or without the rook in its corner.
        CastlingNotAllowed = 9, "CASTLING_NOT_ALLOWED", "castling is not allowed (right lost or rook missing)";
        /// Castling while in check.
        CastlingInCheck = 10, "CASTLING_IN_CHECK", "cannot castle out of check";
        /// Castling over an attacked square.
        CastlingThroughCheck = 11, "CASTLING_THROUGH_CHECK", "cannot castle through an attacked square";
        /// A pawn reaches the last rank without a promotion piece.
        PromotionRequired = 12, "PROMOTION_REQUIRED", "a pawn reaching the last rank must promote";
        /// Promotion byte outside {0,2,3,4,5}, or set on a move that does not promote.
        InvalidPromotion = 13, "INVALID_PROMOTION", "invalid promotion piece for this move";
        /// The mover's king is attacked after the move.
        KingLeftInCheck = 14, "KING_LEFT_IN_CHECK", "the move leaves the mover's king in check";
    }
}

coded_enum! {
    /// Why 128 bytes are not a valid state (ENCODING.md section 7; the first failing code).
    pub enum InvalidState {
        /// A board byte outside -6..=6.
        BadPieceCode = 1, "BAD_PIECE_CODE", "a board square holds a byte that is not a piece code";
        /// A shadow byte outside its domain, or a non-zero unused shadow byte.
        BadFlag = 2, "BAD_FLAG", "a flag byte is out of its domain";
        /// Not exactly one king of each colour.
        KingCount = 3, "KING_COUNT", "each side must have exactly one king";
        /// A king position byte does not point at its king.
        KingPosMismatch = 4, "KING_POS_MISMATCH", "a king position byte does not point at its king";
        /// A pawn on rank 1 or rank 8.
        PawnOnBackRank = 5, "PAWN_ON_BACK_RANK", "a pawn stands on the first or last rank";
        /// The side not to move is in check.
        OpponentInCheck = 6, "OPPONENT_IN_CHECK", "the side not to move is in check";
        /// A kept castling right without its king and rook in place.
        BadCastling = 7, "BAD_CASTLING", "a castling right is kept but its king or rook is not in place";
        /// An en-passant byte that the last move cannot have produced.
        BadEnPassant = 8, "BAD_EN_PASSANT", "the en-passant square is inconsistent with the position";
    }
}

/// A UCI move string that cannot be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UciError {
    /// Not 4 or 5 characters.
    #[error("invalid UCI move {0:?}: expected 4 or 5 characters like e2e4 or e7e8q")]
    Length(String),
    /// A square is not `a1`..`h8`.
    #[error("invalid UCI move {0:?}: squares must be a1..h8")]
    Square(String),
    /// The promotion letter is not one of `n b r q`.
    #[error("invalid UCI move {0:?}: promotion must be one of n, b, r, q")]
    Promotion(String),
}

/// Bytes (or hex) that are not a valid state.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Not exactly 128 bytes.
    #[error("a state is exactly 128 bytes, got {0}")]
    BadLength(usize),
    /// Hex text that is not 256 hex digits (an optional `0x` prefix aside).
    #[error("invalid state hex: {0}")]
    BadHex(String),
    /// 128 bytes that break a section 7 rule.
    #[error("invalid state (code {code}, {name}): {0}", code = .0.code(), name = .0.name())]
    Invalid(#[from] InvalidState),
}

/// A FEN that cannot be turned into a valid state; each variant names the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Not 4 or 6 space-separated fields.
    #[error("invalid FEN: expected 6 fields (or 4 without the clocks), got {0}")]
    FieldCount(usize),
    /// The piece-placement field is malformed.
    #[error("invalid FEN board field {field:?}: {reason}")]
    Board {
        /// The field as given.
        field: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The side-to-move field is not `w` or `b`.
    #[error("invalid FEN side to move {0:?}: expected w or b")]
    Turn(String),
    /// The castling field is malformed (not `-` or a subset of `KQkq`, in that order).
    #[error("invalid FEN castling field {0:?}: expected - or letters from KQkq, in that order")]
    Castling(String),
    /// The en-passant field is malformed (not `-` or a square on rank 3 or 6).
    #[error("invalid FEN en-passant field {0:?}: expected - or a square on rank 3 or 6")]
    EnPassant(String),
    /// The halfmove clock is not a non-negative integer.
    #[error("invalid FEN halfmove clock {0:?}: expected a non-negative integer")]
    HalfmoveClock(String),
    /// The fullmove number is not a non-negative integer.
    #[error("invalid FEN fullmove number {0:?}: expected a positive integer")]
    FullmoveNumber(String),
    /// The fullmove number gives more than 16383 plies.
    #[error("invalid FEN fullmove number {0}: the move count would exceed 16383 plies")]
    MoveCountTooLarge(u64),
    /// Well-formed fields describing an invalid state (section 7).
    #[error("invalid position (code {code}, {name}): {0}", code = .0.code(), name = .0.name())]
    Invalid(#[from] InvalidState),
}

/// A move text (SAN or UCI) that does not name exactly one legal move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    /// The text is not SAN (nor UCI) syntax.
    #[error("cannot read {san:?} as a move: {reason}")]
    Syntax {
        /// The text as given.
        san: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Well-formed, but no legal move matches.
    #[error("illegal move {san:?}: no legal move matches")]
    Illegal {
        /// The text as given.
        san: String,
    },
    /// A UCI move that `State::check` rejects.
    #[error("illegal move {uci:?}: {rejection} (code {}, {})", .rejection.code(), .rejection.name())]
    Rejected {
        /// The move as given.
        uci: String,
        /// The section 6 rejection.
        rejection: Rejection,
    },
    /// Several legal moves match.
    #[error("ambiguous move {san:?}: matches {}", candidates.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(", "))]
    Ambiguous {
        /// The text as given.
        san: String,
        /// The matching legal moves (UCI order of generation).
        candidates: Vec<Move>,
    },
}
