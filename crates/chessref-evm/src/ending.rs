//! How a game ended: the `result` and `reason` codes of `GameEnded`
//! (REFEREE.md section 2), as enums read from the chain's `u8`s.

use std::collections::BTreeMap;
use std::fmt;

use chessref_core::{Color, Status};
use serde::Serialize;
use serde::ser::{SerializeSeq, SerializeStruct, Serializer};

/// A `result` or `reason` byte that names no result or reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} code {code}")]
pub struct UnknownCode {
    /// `"result"` or `"reason"`.
    pub what: &'static str,
    /// The byte read.
    pub code: u8,
}

/// Declares a `#[repr(u8)]` enum of REFEREE.md codes with its snake_case names,
/// `code()`, `name()`, `TryFrom<u8>`, `Display` (the name) and `Serialize` (`{"code", "name"}`).
macro_rules! referee_codes {
    ($(#[$meta:meta])* $ty:ident, $what:literal, { $($(#[$vmeta:meta])* $variant:ident = $code:literal, $name:literal;)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $ty {
            $($(#[$vmeta])* $variant = $code,)+
        }

        impl $ty {
            /// The code the contract uses.
            pub const fn code(self) -> u8 {
                self as u8
            }

            /// The snake_case name (`draw`, `agreement`, ...).
            pub const fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }

        impl TryFrom<u8> for $ty {
            type Error = UnknownCode;

            fn try_from(code: u8) -> Result<$ty, UnknownCode> {
                match code {
                    $($code => Ok($ty::$variant),)+
                    _ => Err(UnknownCode { what: $what, code }),
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut s = serializer.serialize_struct(stringify!($ty), 2)?;
                s.serialize_field("code", &self.code())?;
                s.serialize_field("name", self.name())?;
                s.end()
            }
        }
    };
}

referee_codes!(
    /// `GameEnded.result`: who won.
    EndResult, "result", {
        /// White wins.
        WhiteWins = 1, "white_wins";
        /// Black wins.
        BlackWins = 2, "black_wins";
        /// Draw.
        Draw = 3, "draw";
        /// Aborted, both stakes refunded.
        Aborted = 4, "aborted";
    }
);

referee_codes!(
    /// `GameEnded.reason`: why the game ended.
    EndReason, "reason", {
        /// Checkmate (status 1).
        Checkmate = 1, "checkmate";
        /// Stalemate (status 2).
        Stalemate = 2, "stalemate";
        /// Insufficient material on both sides (status 3).
        InsufficientMaterial = 3, "insufficient_material";
        /// Seventy-five-move rule (status 4).
        SeventyFiveMoves = 4, "seventy_five_moves";
        /// Resignation.
        Resignation = 5, "resignation";
        /// Timeout, the claimant wins.
        Timeout = 6, "timeout";
        /// Timeout, but the claimant cannot mate (FIDE 6.9): draw.
        TimeoutDraw = 7, "timeout_draw";
        /// Draw by agreement.
        Agreement = 8, "agreement";
        /// Fifty-move rule claimed.
        FiftyMoves = 9, "fifty_moves";
        /// Threefold repetition claimed.
        Threefold = 10, "threefold";
        /// The flagged player never moved.
        Aborted = 11, "aborted";
        /// The loser signed two different moves for one ply (docs/CHANNEL.md).
        Equivocation = 12, "equivocation";
        /// The loser signed a move that is not a valid successor (docs/CHANNEL.md).
        IllegalSignedMove = 13, "illegal_signed_move";
    }
);

/// How a game ended (`GameEnded`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ending {
    /// Who won.
    pub result: EndResult,
    /// Why.
    pub reason: EndReason,
}

impl Ending {
    /// Reads the two bytes of a `GameEnded` event.
    pub fn from_codes(result: u8, reason: u8) -> Result<Ending, UnknownCode> {
        Ok(Ending {
            result: EndResult::try_from(result)?,
            reason: EndReason::try_from(reason)?,
        })
    }

    /// The ending the referee reports when a move leaves `side_to_move` with
    /// the automatic end `status` (1 to 4); `None` while the game goes on.
    pub fn automatic(status: Status, side_to_move: Color) -> Option<Ending> {
        let draw = |reason| Ending {
            result: EndResult::Draw,
            reason,
        };
        match status {
            Status::Ongoing => None,
            Status::Checkmate => Some(Ending {
                // The side to move is mated: the other side won.
                result: match side_to_move {
                    Color::White => EndResult::BlackWins,
                    Color::Black => EndResult::WhiteWins,
                },
                reason: EndReason::Checkmate,
            }),
            Status::Stalemate => Some(draw(EndReason::Stalemate)),
            Status::InsufficientMaterial => Some(draw(EndReason::InsufficientMaterial)),
            Status::SeventyFiveMoves => Some(draw(EndReason::SeventyFiveMoves)),
        }
    }
}

impl fmt::Display for Ending {
    /// `draw, agreement`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {}", self.result, self.reason)
    }
}

/// Games per ending, in code order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndingCounts(BTreeMap<Ending, usize>);

impl EndingCounts {
    /// Counts one more game that ended with `ending`.
    pub fn add(&mut self, ending: Ending) {
        *self.0.entry(ending).or_default() += 1;
    }

    /// Each ending seen and its number of games.
    pub fn iter(&self) -> impl Iterator<Item = (Ending, usize)> + '_ {
        self.0.iter().map(|(&ending, &games)| (ending, games))
    }

    /// Whether no game ended.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for EndingCounts {
    /// `white_wins, checkmate: 3; draw, agreement: 1` (`none` when empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        for (i, (ending, games)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{ending}: {games}")?;
        }
        Ok(())
    }
}

impl Serialize for EndingCounts {
    /// `[{"result": {"code", "name"}, "reason": {"code", "name"}, "games"}, ...]`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Entry {
            #[serde(flatten)]
            ending: Ending,
            games: usize,
        }
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for (ending, games) in self.iter() {
            seq.serialize_element(&Entry { ending, games })?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_codes_are_errors() {
        for code in 1..=4 {
            assert_eq!(EndResult::try_from(code).unwrap().code(), code);
        }
        for code in 1..=13 {
            assert_eq!(EndReason::try_from(code).unwrap().code(), code);
        }
        assert_eq!(
            EndResult::try_from(0),
            Err(UnknownCode {
                what: "result",
                code: 0
            })
        );
        assert_eq!(
            EndReason::try_from(14).unwrap_err().to_string(),
            "unknown reason code 14"
        );
        assert!(Ending::from_codes(3, 99).is_err());
    }

    #[test]
    fn endings_print_names_in_text_and_both_in_json() {
        let ending = Ending::from_codes(3, 8).unwrap();
        assert_eq!(ending.to_string(), "draw, agreement");
        assert_eq!(
            serde_json::to_value(ending).unwrap(),
            serde_json::json!({
                "result": {"code": 3, "name": "draw"},
                "reason": {"code": 8, "name": "agreement"},
            })
        );
    }

    #[test]
    fn ending_counts_print_in_code_order() {
        let mut counts = EndingCounts::default();
        assert!(counts.is_empty());
        counts.add(Ending::from_codes(3, 8).unwrap());
        counts.add(Ending::from_codes(1, 1).unwrap());
        counts.add(Ending::from_codes(3, 8).unwrap());
        assert_eq!(EndingCounts::default().to_string(), "none");
        assert_eq!(
            counts.to_string(),
            "white_wins, checkmate: 1; draw, agreement: 2"
        );
        assert_eq!(
            serde_json::to_value(&counts).unwrap()[1],
            serde_json::json!({
                "result": {"code": 3, "name": "draw"},
                "reason": {"code": 8, "name": "agreement"},
                "games": 2,
            })
        );
    }

    #[test]
    fn automatic_endings_follow_the_status() {
        assert_eq!(Ending::automatic(Status::Ongoing, Color::White), None);
        assert_eq!(
            Ending::automatic(Status::Checkmate, Color::White),
            Some(Ending {
                result: EndResult::BlackWins,
                reason: EndReason::Checkmate
            })
        );
        assert_eq!(
            Ending::automatic(Status::SeventyFiveMoves, Color::Black),
            Some(Ending {
                result: EndResult::Draw,
                reason: EndReason::SeventyFiveMoves
            })
        );
    }
}
