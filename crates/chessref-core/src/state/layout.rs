//! ENCODING.md sections 1 to 4: the 0x88 layout, the shadow-byte flags, the
//! initial position, and the byte and hex codec of [`State`].

use crate::error::StateError;
use crate::square::{Color, Piece, Square};

use super::State;
use super::validate::validate_bytes;

/// Indices of the shadow-board flags (ENCODING.md section 3).
pub(crate) mod idx {
    pub const MOVE_COUNT_HIGH: usize = 8;
    pub const MOVE_COUNT_LOW: usize = 9;
    pub const HALFMOVE_CLOCK: usize = 10;
    pub const BLACK_KING_POS: usize = 11;
    pub const WHITE_KING_POS: usize = 123;
    pub const CURRENT_PLAYER: usize = 56;
    pub const BLACK_LEFT_CASTLING: usize = 62;
    pub const BLACK_RIGHT_CASTLING: usize = 63;
    pub const WHITE_LEFT_CASTLING: usize = 78;
    pub const WHITE_RIGHT_CASTLING: usize = 79;
    pub const BLACK_EN_PASSANT: usize = 61;
    pub const WHITE_EN_PASSANT: usize = 77;
}

const INITIAL: [u8; 128] = {
    let mut b = [0u8; 128];
    let back = [4u8, 2, 3, 5, 6, 3, 2, 4];
    let mut f = 0;
    while f < 8 {
        b[f] = (back[f] as i8).wrapping_neg() as u8;
        b[16 + f] = 0xff;
        b[96 + f] = 1;
        b[112 + f] = back[f];
        f += 1;
    }
    b[idx::BLACK_KING_POS] = 4;
    b[idx::WHITE_KING_POS] = 116;
    b[idx::CURRENT_PLAYER] = 1;
    b
};

/// The largest move count the two count bytes hold.
pub(crate) const MAX_PLY: u16 = 16383;

/// The 64 on-board 0x88 indices, a8 first.
pub(crate) fn board_squares() -> impl Iterator<Item = u8> {
    (0..64u8).map(|i| (i >> 3) << 4 | (i & 7))
}

impl State {
    /// The standard initial position (section 4).
    pub fn initial() -> State {
        State(INITIAL)
    }

    /// Validates 128 bytes (length, then section 7 in code order).
    pub fn from_bytes(bytes: &[u8]) -> Result<State, StateError> {
        let array: [u8; 128] = bytes
            .try_into()
            .map_err(|_| StateError::BadLength(bytes.len()))?;
        validate_bytes(&array)?;
        Ok(State(array))
    }

    /// The 128 bytes.
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.0
    }

    /// Parses 256 hex digits (either case, optional `0x`) and validates them.
    pub fn from_hex(s: &str) -> Result<State, StateError> {
        let s = s.trim();
        let digits = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .unwrap_or(s);
        if !digits.is_ascii() {
            return Err(StateError::BadHex("not ASCII hex digits".into()));
        }
        if digits.len() != 256 {
            return Err(StateError::BadHex(format!(
                "expected 256 hex digits (128 bytes), got {} characters",
                digits.len()
            )));
        }
        let mut bytes = [0u8; 128];
        for (i, pair) in digits.as_bytes().chunks(2).enumerate() {
            let nibble = |c: u8| (c as char).to_digit(16);
            match (nibble(pair[0]), nibble(pair[1])) {
                (Some(h), Some(l)) => bytes[i] = (h * 16 + l) as u8,
                _ => {
                    return Err(StateError::BadHex(format!(
                        "invalid hex digit at position {}",
                        2 * i + if nibble(pair[0]).is_none() { 0 } else { 1 }
                    )));
                }
            }
        }
        State::from_bytes(&bytes)
    }

    /// 256 lower-case hex digits, no `0x`.
    pub fn to_hex(&self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut s = String::with_capacity(256);
        for &byte in &self.0 {
            s.push(DIGITS[(byte >> 4) as usize] as char);
            s.push(DIGITS[(byte & 15) as usize] as char);
        }
        s
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        if self.0[idx::CURRENT_PLAYER] == 1 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Plies played since the standard initial position (bytes 8, 9).
    pub fn ply(&self) -> u16 {
        self.0[idx::MOVE_COUNT_HIGH] as u16 * 128 + self.0[idx::MOVE_COUNT_LOW] as u16
    }

    /// Plies since the last capture or pawn move (byte 10).
    pub fn halfmove_clock(&self) -> u8 {
        self.0[idx::HALFMOVE_CLOCK]
    }

    /// The fullmove number of FEN (`ply / 2 + 1`).
    pub fn fullmove_number(&self) -> u16 {
        self.ply() / 2 + 1
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.0[sq.index() as usize] as i8)
    }

    /// The square of `c`'s king (from the shadow bytes).
    pub fn king(&self, c: Color) -> Square {
        Square::from_index_unchecked(self.king_index(c.sign()))
    }

    /// The 0x88 index of the king of side `side` (1 white, -1 black), from its shadow byte.
    #[inline(always)]
    pub(crate) fn king_index(&self, side: i8) -> u8 {
        self.0[if side > 0 {
            idx::WHITE_KING_POS
        } else {
            idx::BLACK_KING_POS
        }]
    }

    /// The en-passant square (the one the last double step passed over), if set.
    pub fn en_passant_square(&self) -> Option<Square> {
        Square::new(self.0[idx::WHITE_EN_PASSANT] | self.0[idx::BLACK_EN_PASSANT])
            .filter(|sq| sq.index() != 0)
    }

    /// Whether `c` keeps its king-side (`king_side`) or queen-side castling right.
    pub fn has_castling_right(&self, c: Color, king_side: bool) -> bool {
        let i = match (c, king_side) {
            (Color::White, true) => idx::WHITE_RIGHT_CASTLING,
            (Color::White, false) => idx::WHITE_LEFT_CASTLING,
            (Color::Black, true) => idx::BLACK_RIGHT_CASTLING,
            (Color::Black, false) => idx::BLACK_LEFT_CASTLING,
        };
        self.0[i] == 0
    }
}

impl Default for State {
    fn default() -> State {
        State::initial()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_state_matches_section_4() {
        let rows = [
            "fc fe fd fb fa fd fe fc  00 00 00 04 00 00 00 00",
            "ff ff ff ff ff ff ff ff  00 00 00 00 00 00 00 00",
            "00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
            "00 00 00 00 00 00 00 00  01 00 00 00 00 00 00 00",
            "00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
            "00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
            "01 01 01 01 01 01 01 01  00 00 00 00 00 00 00 00",
            "04 02 03 05 06 03 02 04  00 00 00 74 00 00 00 00",
        ];
        let hex: String = rows.concat().split_whitespace().collect();
        assert_eq!(State::initial().to_hex(), hex);
        assert_eq!(
            State::from_hex(&format!("0x{hex}")).unwrap(),
            State::initial()
        );
    }
}
