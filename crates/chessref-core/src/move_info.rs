//! One legal move in every form a client needs: UCI, SAN, the contract's
//! packed `uint24`, and what kind of move it is.
//!
//! Its JSON form (feature `serde`) is `{"uci", "san", "packed"}` plus
//! `"flags"` (an array of names such as `["capture", "check"]`) when the move
//! is anything but a quiet move.

use std::fmt;

use crate::moves::{Move, RawMove};
use crate::square::Role;
use crate::state::State;

/// What kind of move a legal move is; several may hold at once.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct MoveFlags(u8);

impl MoveFlags {
    /// No flag: a quiet move.
    pub const NONE: MoveFlags = MoveFlags(0);
    /// Takes a piece (en passant included).
    pub const CAPTURE: MoveFlags = MoveFlags(1);
    /// Takes a pawn en passant.
    pub const EN_PASSANT: MoveFlags = MoveFlags(1 << 1);
    /// Castles (the king's two-square move).
    pub const CASTLING: MoveFlags = MoveFlags(1 << 2);
    /// Promotes a pawn.
    pub const PROMOTION: MoveFlags = MoveFlags(1 << 3);
    /// Gives check (mate included).
    pub const CHECK: MoveFlags = MoveFlags(1 << 4);
    /// Gives checkmate.
    pub const CHECKMATE: MoveFlags = MoveFlags(1 << 5);

    /// Every flag with its name, in the order they are listed.
    pub const NAMES: [(MoveFlags, &'static str); 6] = [
        (MoveFlags::CAPTURE, "capture"),
        (MoveFlags::EN_PASSANT, "en_passant"),
        (MoveFlags::CASTLING, "castling"),
        (MoveFlags::PROMOTION, "promotion"),
        (MoveFlags::CHECK, "check"),
        (MoveFlags::CHECKMATE, "checkmate"),
    ];

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: MoveFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no flag is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The names of the flags set, in [`MoveFlags::NAMES`] order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        MoveFlags::NAMES
            .into_iter()
            .filter(move |&(flag, _)| self.contains(flag))
            .map(|(_, name)| name)
    }
}

impl std::ops::BitOr for MoveFlags {
    type Output = MoveFlags;

    fn bitor(self, rhs: MoveFlags) -> MoveFlags {
        MoveFlags(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for MoveFlags {
    fn bitor_assign(&mut self, rhs: MoveFlags) {
        self.0 |= rhs.0;
    }
}

impl fmt::Display for MoveFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.names().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// A legal move in every form.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct MoveInfo {
    /// UCI (`e2e4`, `e7e8q`, castling as the king's move `e1g1`).
    pub uci: String,
    /// SAN with its check suffix (`Nf3`, `Qh4#`).
    pub san: String,
    /// The contract's `uint24`: `(from << 16) | (to << 8) | promotion`.
    pub packed: u32,
    /// What kind of move it is.
    pub flags: MoveFlags,
}

impl MoveInfo {
    /// Describes `mv`, a legal move in `state` (SAN and the flags need the
    /// position). For a move that is not legal there is no SAN: the UCI stands in.
    pub fn new(state: &State, mv: Move) -> MoveInfo {
        let san = state.san(mv).ok();
        let mut flags = MoveFlags::NONE;
        let mover = state.piece_at(mv.from).map(|p| p.role);
        let diagonal_pawn_step = mover == Some(Role::Pawn) && mv.from.file() != mv.to.file();
        if state.piece_at(mv.to).is_some() {
            flags |= MoveFlags::CAPTURE;
        } else if diagonal_pawn_step {
            flags |= MoveFlags::CAPTURE | MoveFlags::EN_PASSANT;
        }
        if mover == Some(Role::King) && mv.from.file().abs_diff(mv.to.file()) == 2 {
            flags |= MoveFlags::CASTLING;
        }
        if mv.promotion.is_some() {
            flags |= MoveFlags::PROMOTION;
        }
        match san.as_deref().and_then(|s| s.chars().last()) {
            Some('#') => flags |= MoveFlags::CHECK | MoveFlags::CHECKMATE,
            Some('+') => flags |= MoveFlags::CHECK,
            _ => {}
        }
        MoveInfo {
            uci: mv.to_uci(),
            san: san.unwrap_or_else(|| mv.to_uci()),
            packed: RawMove::from(mv).packed(),
            flags,
        }
    }

    /// Every legal move of `state`, in generation order.
    pub fn all(state: &State) -> Vec<MoveInfo> {
        state
            .legal_moves()
            .into_iter()
            .map(|mv| MoveInfo::new(state, mv))
            .collect()
    }
}

#[cfg(feature = "serde")]
mod wire {
    use serde::ser::{SerializeSeq, SerializeStruct};
    use serde::{Serialize, Serializer};

    use super::{MoveFlags, MoveInfo};

    impl Serialize for MoveFlags {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut seq = serializer.serialize_seq(None)?;
            for name in self.names() {
                seq.serialize_element(name)?;
            }
            seq.end()
        }
    }

    impl Serialize for MoveInfo {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let fields = if self.flags.is_empty() { 3 } else { 4 };
            let mut s = serializer.serialize_struct("MoveInfo", fields)?;
            s.serialize_field("uci", &self.uci)?;
            s.serialize_field("san", &self.san)?;
            s.serialize_field("packed", &self.packed)?;
            if self.flags.is_empty() {
                s.skip_field("flags")?;
            } else {
                s.serialize_field("flags", &self.flags)?;
            }
            s.end()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(fen: &str, uci: &str) -> MoveInfo {
        let state = State::from_fen(fen).unwrap();
        MoveInfo::new(&state, Move::from_uci(uci).unwrap())
    }

    #[test]
    fn a_quiet_move_has_no_flag() {
        let i = MoveInfo::new(&State::initial(), Move::from_uci("g1f3").unwrap());
        assert_eq!(
            i,
            MoveInfo {
                uci: "g1f3".into(),
                san: "Nf3".into(),
                packed: (118 << 16) | (85 << 8),
                flags: MoveFlags::NONE,
            }
        );
        assert_eq!(MoveInfo::all(&State::initial()).len(), 20);
    }

    #[test]
    fn flags_name_captures_castling_promotion_and_checks() {
        let ep = info("8/8/8/3pP3/8/8/8/K6k w - d6 0 2", "e5d6");
        assert_eq!(ep.flags, MoveFlags::CAPTURE | MoveFlags::EN_PASSANT);
        let castle = info("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1");
        assert_eq!(castle.flags, MoveFlags::CASTLING);
        assert_eq!(castle.san, "O-O");
        let promo = info("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q");
        assert_eq!(
            promo.flags,
            MoveFlags::CAPTURE | MoveFlags::PROMOTION | MoveFlags::CHECK
        );
        assert_eq!(promo.flags.to_string(), "capture,promotion,check");
        let mate = info(
            "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2",
            "d8h4",
        );
        assert_eq!(mate.flags, MoveFlags::CHECK | MoveFlags::CHECKMATE);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_lists_flags_only_when_there_are_some() {
        let quiet = MoveInfo::new(&State::initial(), Move::from_uci("e2e4").unwrap());
        assert_eq!(
            serde_json::to_string(&quiet).unwrap(),
            r#"{"uci":"e2e4","san":"e4","packed":6571008}"#
        );
        let ep = info("8/8/8/3pP3/8/8/8/K6k w - d6 0 2", "e5d6");
        assert_eq!(
            serde_json::to_value(&ep).unwrap()["flags"],
            serde_json::json!(["capture", "en_passant"])
        );
    }
}
