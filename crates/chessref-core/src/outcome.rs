//! The one mapping from an automatic end (section 8 status) to a PGN result.

use crate::game::{GameResult, Outcome};
use crate::square::Color;
use crate::state::Status;

impl Outcome {
    /// The automatic end of a position whose status is `status` with `turn` to
    /// move: checkmate is a win for the side that just moved, stalemate,
    /// insufficient material and the seventy-five-move rule are draws; `None`
    /// while the game goes on.
    pub const fn of(status: Status, turn: Color) -> Option<Outcome> {
        let result = match status {
            Status::Ongoing => return None,
            Status::Checkmate => match turn {
                Color::White => GameResult::BlackWins,
                Color::Black => GameResult::WhiteWins,
            },
            Status::Stalemate | Status::InsufficientMaterial | Status::SeventyFiveMoves => {
                GameResult::Draw
            }
        };
        Some(Outcome {
            result,
            termination: status,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_wins_for_the_side_that_moved_and_the_rest_draw() {
        let of = |status, turn| Outcome::of(status, turn).map(|o| o.result.as_str());
        assert_eq!(of(Status::Ongoing, Color::White), None);
        assert_eq!(of(Status::Checkmate, Color::White), Some("0-1"));
        assert_eq!(of(Status::Checkmate, Color::Black), Some("1-0"));
        for status in [
            Status::Stalemate,
            Status::InsufficientMaterial,
            Status::SeventyFiveMoves,
        ] {
            assert_eq!(of(status, Color::White), Some("1/2-1/2"));
            assert_eq!(
                Outcome::of(status, Color::Black).unwrap().termination,
                status
            );
        }
    }
}
