//! When a game first reached fivefold repetition (FIDE 9.6.1).
//!
//! FIDE draws such a game at once; the referee contract, which keeps only an
//! O(1) commitment to the positions, does not end it, but either player can
//! then claim the draw (a fivefold repetition is also a threefold one).

use std::collections::HashMap;
use std::fmt;

use crate::game::Game;

/// A fivefold repetition: the ply at which a position occurred a fifth time.
/// Displays as the sentence every surface prints about it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Fivefold {
    /// Plies played when the position occurred the fifth time.
    pub ply: usize,
}

impl fmt::Display for Fivefold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fivefold repetition at ply {}: drawn under FIDE 9.6.1, claimable on-chain",
            self.ply
        )
    }
}

/// The fewest plies in which a position can occur a fifth time: each return
/// takes at least two moves of each side.
const FIVEFOLD_MIN_PLIES: u8 = 16;

impl Game {
    /// The first time a position occurred for the fifth time since the last
    /// irreversible move, if one did.
    pub fn fivefold(&self) -> Option<Fivefold> {
        let states = self.states();
        // Keys cost a hash each: skip games that never had enough reversible plies.
        if states
            .iter()
            .all(|s| s.halfmove_clock() < FIVEFOLD_MIN_PLIES)
        {
            return None;
        }
        let mut seen = HashMap::new();
        for (ply, state) in states.iter().enumerate() {
            if state.halfmove_clock() == 0 {
                seen.clear();
            }
            let count = seen
                .entry((state.turn(), state.repetition_key()))
                .or_insert(0usize);
            *count += 1;
            if *count == 5 {
                return Some(Fivefold { ply });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::Fivefold;
    use crate::{Game, State};

    /// Knights out and back `cycles` times from the initial position.
    fn shuffle(cycles: usize) -> Game {
        let mut game = Game::new(State::initial());
        for _ in 0..cycles {
            for san in ["Nf3", "Nf6", "Ng1", "Ng8"] {
                game.play_san(san).unwrap();
            }
        }
        game
    }

    #[test]
    fn the_fifth_occurrence_is_found_at_its_ply() {
        assert_eq!(shuffle(3).fivefold(), None);
        let game = shuffle(4);
        let fivefold = game.fivefold().unwrap();
        assert_eq!(fivefold.ply, 16);
        assert_eq!(
            fivefold.to_string(),
            "fivefold repetition at ply 16: drawn under FIDE 9.6.1, claimable on-chain"
        );
        assert!(game.is_fivefold());
        let mut longer = shuffle(5);
        longer.play_san("e4").unwrap();
        assert_eq!(
            longer.fivefold(),
            Some(Fivefold { ply: 16 }),
            "the first time counts"
        );
        assert!(!longer.is_fivefold());
    }
}
