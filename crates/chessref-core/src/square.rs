//! Board squares (0x88 indices), colours, piece roles and pieces.

use std::fmt;
use std::ops::Not;
use std::str::FromStr;

/// A square of the playing board, stored as its 0x88 index
/// (`index = (8 - rank) * 16 + file`, so a8 = 0 and h1 = 119).
///
/// Always on the board: the constructors refuse shadow-board indices.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with 0x88 index `index`, or `None` if `index` is off the board
    /// (≥ 128 or `index & 0x88 != 0`).
    pub const fn new(index: u8) -> Option<Square> {
        if index & 0x88 == 0 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square on `file` (0..8, a = 0) and `rank` (0..8, rank 1 = 0).
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square((7 - rank) * 16 + file))
        } else {
            None
        }
    }

    /// The 0x88 index of this square.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// File 0..8 (a = 0).
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// Rank 0..8 (rank 1 = 0).
    pub const fn rank(self) -> u8 {
        7 - (self.0 >> 4)
    }

    /// Builds a square from an index the caller knows is on the board.
    pub(crate) const fn from_index_unchecked(index: u8) -> Square {
        debug_assert!(index & 0x88 == 0);
        Square(index)
    }
}

/// A square name that is not `a1`..`h8`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid square {0:?}: expected a file a-h followed by a rank 1-8")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        match s.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
                Ok(Square::from_coords(f - b'a', r - b'1').expect("in range"))
            }
            _ => Err(ParseSquareError(s.to_owned())),
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file()) as char,
            (b'1' + self.rank()) as char
        )
    }
}

/// A side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    /// White (colour byte 0x01).
    White,
    /// Black (colour byte 0xFF = -1).
    Black,
}

impl Color {
    /// The signed colour of ENCODING.md: 1 for white, -1 for black.
    pub const fn sign(self) -> i8 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    /// The colour whose sign is `sign` (1 or -1).
    pub const fn from_sign(sign: i8) -> Option<Color> {
        match sign {
            1 => Some(Color::White),
            -1 => Some(Color::Black),
            _ => None,
        }
    }

    /// `'w'` or `'b'`, as in FEN.
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl Not for Color {
    type Output = Color;

    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// A piece type; the discriminant is the white piece code of ENCODING.md.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum Role {
    /// Pawn (code 1).
    Pawn = 1,
    /// Knight (code 2).
    Knight,
    /// Bishop (code 3).
    Bishop,
    /// Rook (code 4).
    Rook,
    /// Queen (code 5).
    Queen,
    /// King (code 6).
    King,
}

impl Role {
    /// All roles, pawn first.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    /// The role with (absolute) piece code `code` 1..=6.
    pub const fn from_code(code: u8) -> Option<Role> {
        match code {
            1 => Some(Role::Pawn),
            2 => Some(Role::Knight),
            3 => Some(Role::Bishop),
            4 => Some(Role::Rook),
            5 => Some(Role::Queen),
            6 => Some(Role::King),
            _ => None,
        }
    }

    /// The piece code 1..=6.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// Lower-case letter (`p n b r q k`), as in UCI promotions and black FEN pieces.
    pub const fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Bishop => 'b',
            Role::Rook => 'r',
            Role::Queen => 'q',
            Role::King => 'k',
        }
    }

    /// Upper-case letter (`P N B R Q K`), as in SAN and white FEN pieces.
    pub const fn upper_char(self) -> char {
        self.char().to_ascii_uppercase()
    }

    /// The role for a letter in either case.
    pub const fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_lowercase() {
            'p' => Some(Role::Pawn),
            'n' => Some(Role::Knight),
            'b' => Some(Role::Bishop),
            'r' => Some(Role::Rook),
            'q' => Some(Role::Queen),
            'k' => Some(Role::King),
            _ => None,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        })
    }
}

/// A coloured piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Its side.
    pub color: Color,
    /// Its type.
    pub role: Role,
}

impl Piece {
    /// The signed board byte of ENCODING.md section 2 (white positive, black negative).
    pub const fn code(self) -> i8 {
        self.role as i8 * self.color.sign()
    }

    /// The piece for a board byte, `None` for 0 and for codes outside -6..=6.
    pub const fn from_code(code: i8) -> Option<Piece> {
        let color = if code > 0 { Color::White } else { Color::Black };
        match Role::from_code(code.unsigned_abs()) {
            Some(role) if code != 0 => Some(Piece { color, role }),
            _ => None,
        }
    }

    /// The FEN letter: upper case for white, lower case for black.
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.char(),
        }
    }

    /// The piece for a FEN letter.
    pub const fn from_char(c: char) -> Option<Piece> {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        match Role::from_char(c) {
            Some(role) => Some(Piece { color, role }),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_coordinates_follow_the_0x88_layout() {
        assert_eq!("a8".parse::<Square>().unwrap().index(), 0);
        assert_eq!("h1".parse::<Square>().unwrap().index(), 119);
        assert_eq!("e1".parse::<Square>().unwrap().index(), 116);
        let e4: Square = "e4".parse().unwrap();
        assert_eq!((e4.file(), e4.rank(), e4.index()), (4, 3, 68));
        assert_eq!(e4.to_string(), "e4");
        assert_eq!(Square::new(8), None);
        assert_eq!(Square::new(128), None);
        assert!("i1".parse::<Square>().is_err());
        assert!("e9".parse::<Square>().is_err());
        assert!("e".parse::<Square>().is_err());
    }

    #[test]
    fn piece_codes_round_trip() {
        for code in -6i8..=6 {
            match Piece::from_code(code) {
                Some(p) => assert_eq!(p.code(), code),
                None => assert_eq!(code, 0),
            }
        }
        assert_eq!(Piece::from_code(7), None);
        assert_eq!(Piece::from_code(-7), None);
        assert_eq!(Piece::from_char('q').unwrap().code(), -5);
    }
}
