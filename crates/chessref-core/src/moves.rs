//! Moves: the raw wire form the contract receives and the well-formed form.

use std::fmt;

use crate::error::UciError;
use crate::square::{Role, Square};

/// A move as the wire and the contract carry it: any three bytes, checked by
/// [`State::check`](crate::State::check).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct RawMove {
    /// 0x88 index of the origin (possibly off the board).
    pub from: u8,
    /// 0x88 index of the target (possibly off the board).
    pub to: u8,
    /// Promotion piece type: 0 none, 2 knight, 3 bishop, 4 rook, 5 queen (anything else is rejected).
    pub promotion: u8,
}

impl RawMove {
    /// The contract's `uint24`: `(from << 16) | (to << 8) | promotion`.
    pub const fn packed(self) -> u32 {
        (self.from as u32) << 16 | (self.to as u32) << 8 | self.promotion as u32
    }

    /// Unpacks the low 24 bits of `p` (higher bits are ignored).
    pub const fn from_packed(p: u32) -> RawMove {
        RawMove {
            from: (p >> 16) as u8,
            to: (p >> 8) as u8,
            promotion: p as u8,
        }
    }
}

/// A well-formed move: squares on the board and a promotion that is a valid
/// promotion role or none. Legality is a question for a [`State`](crate::State).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Move {
    /// Origin square.
    pub from: Square,
    /// Target square (for castling: the king's target, e.g. g1).
    pub to: Square,
    /// Promotion role, if the move promotes.
    pub promotion: Option<Role>,
}

impl Move {
    /// A move without promotion.
    pub const fn new(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            promotion: None,
        }
    }

    /// Parses UCI: `e2e4`, `e7e8q` (promotion letter `n b r q`, either case).
    pub fn from_uci(s: &str) -> Result<Move, UciError> {
        let b = s.as_bytes();
        if b.len() != 4 && b.len() != 5 {
            return Err(UciError::Length(s.to_owned()));
        }
        let square = |i: usize| -> Result<Square, UciError> {
            match (b[i], b[i + 1]) {
                (f @ b'a'..=b'h', r @ b'1'..=b'8') => {
                    Ok(Square::from_coords(f - b'a', r - b'1').expect("in range"))
                }
                _ => Err(UciError::Square(s.to_owned())),
            }
        };
        let from = square(0)?;
        let to = square(2)?;
        let promotion = match b.get(4) {
            None => None,
            Some(c) => match c.to_ascii_lowercase() {
                b'n' => Some(Role::Knight),
                b'b' => Some(Role::Bishop),
                b'r' => Some(Role::Rook),
                b'q' => Some(Role::Queen),
                _ => return Err(UciError::Promotion(s.to_owned())),
            },
        };
        Ok(Move {
            from,
            to,
            promotion,
        })
    }

    /// Formats as UCI (`e2e4`, `e7e8q`, castling as the king's move `e1g1`).
    pub fn to_uci(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(role) = self.promotion {
            write!(f, "{}", role.char())?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Move {
    type Err = UciError;

    fn from_str(s: &str) -> Result<Move, UciError> {
        Move::from_uci(s)
    }
}

impl From<Move> for RawMove {
    fn from(m: Move) -> RawMove {
        RawMove {
            from: m.from.index(),
            to: m.to.index(),
            promotion: m.promotion.map_or(0, Role::code),
        }
    }
}

impl From<&Move> for RawMove {
    fn from(m: &Move) -> RawMove {
        RawMove::from(*m)
    }
}

impl From<u32> for RawMove {
    fn from(p: u32) -> RawMove {
        RawMove::from_packed(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uci_round_trips_and_packs() {
        let m = Move::from_uci("e7e8q").unwrap();
        assert_eq!(m.to_uci(), "e7e8q");
        let raw = RawMove::from(m);
        assert_eq!(
            raw,
            RawMove {
                from: 20,
                to: 4,
                promotion: 5
            }
        );
        assert_eq!(raw.packed(), 20 << 16 | 4 << 8 | 5);
        assert_eq!(RawMove::from_packed(raw.packed() | 0xff00_0000), raw);
        assert_eq!(Move::from_uci("E2E4"), Err(UciError::Square("E2E4".into())));
        assert!(Move::from_uci("e2e4k").is_err());
        assert!(Move::from_uci("e2e").is_err());
        assert!(Move::from_uci("é2e4").is_err());
    }
}
