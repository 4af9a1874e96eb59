//! How matches end, who meets whom next, and what each entrant is paid at the end.
//!
//! A match is won (on the board or by lot), won by walkover (the other side below was
//! abandoned), abandoned by both its players (both out; they share the match's place), or
//! void (both sides below abandoned: nobody plays it). A place nobody holds (the loser's of
//! a walkover or a void match) goes to the winner; if even the final is void, the winner's
//! place is shared by every entrant. So the shares and the fee always make up the pool.

use super::{Bracket, MatchIndex, Prizes};

/// How a match ended, by entrant index (registration order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Decided by its game or its lot.
    Won {
        /// The entrant who goes on.
        winner: u8,
        /// The entrant who is out.
        loser: u8,
    },
    /// The other side below was abandoned: `winner` goes on without a game.
    Walkover {
        /// The entrant who goes on.
        winner: u8,
    },
    /// Both players let the game lapse (`reportAbandoned`): both are out.
    Abandoned {
        /// The match's lo player (the lower child's winner, or bracket position 2m).
        lo: u8,
        /// Its hi player.
        hi: u8,
    },
    /// Both sides below were abandoned: nobody plays it.
    Void,
}

/// Who plays a match, as far as the results below it say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Players {
    /// A match below is not decided yet.
    Unknown,
    /// `lo` meets `hi`.
    Known {
        /// The lower child's winner (or bracket position 2m in round 0).
        lo: u8,
        /// The upper child's winner (or position 2m + 1).
        hi: u8,
    },
    /// Only one side has a player: it wins by walkover.
    Walkover(u8),
    /// Neither side has a player.
    Void,
}

impl Outcome {
    /// The entrant this match sends on, if any.
    pub fn winner(self) -> Option<u8> {
        match self {
            Outcome::Won { winner, .. } | Outcome::Walkover { winner } => Some(winner),
            Outcome::Abandoned { .. } | Outcome::Void => None,
        }
    }
}

impl Bracket {
    /// Who plays `m`, given the outcomes so far (`outcomes[i]` of match `i`, `None` while
    /// undecided).
    pub fn players(self, m: MatchIndex, outcomes: &[Option<Outcome>]) -> Players {
        let Some((lower, upper)) = self.size.children(m) else {
            let (lo, hi) = self
                .first_round(m)
                .expect("a match without children is in round 0");
            return Players::Known { lo, hi };
        };
        let side = |c: MatchIndex| outcomes.get(usize::from(c.get())).copied().flatten();
        match (side(lower), side(upper)) {
            (Some(a), Some(b)) => match (a.winner(), b.winner()) {
                (Some(lo), Some(hi)) => Players::Known { lo, hi },
                (Some(w), None) | (None, Some(w)) => Players::Walkover(w),
                (None, None) => Players::Void,
            },
            _ => Players::Unknown,
        }
    }

    /// What each entrant (by index) is credited once every match has its outcome, as
    /// `ChessTournament.claim` computes it; `None` while a match is undecided or if an
    /// outcome names an entrant the event does not have.
    pub fn shares(self, prizes: &Prizes, outcomes: &[Option<Outcome>]) -> Option<Vec<u128>> {
        let size = self.size;
        let decided: Vec<Outcome> = size
            .matches()
            .map(|m| outcomes.get(usize::from(m.get())).copied().flatten())
            .collect::<Option<_>>()?;
        let entrants = size.players();
        let known = |i: u8| i < entrants;
        if !decided.iter().all(|o| match *o {
            Outcome::Won { winner, loser } => known(winner) && known(loser),
            Outcome::Walkover { winner } => known(winner),
            Outcome::Abandoned { lo, hi } => known(lo) && known(hi),
            Outcome::Void => true,
        }) {
            return None;
        }
        let place = |m: MatchIndex| prizes.of_tier(size.loser_tier(m));
        let unassigned: u128 = size
            .matches()
            .filter(|m| {
                matches!(
                    decided[usize::from(m.get())],
                    Outcome::Walkover { .. } | Outcome::Void
                )
            })
            .map(place)
            .sum();
        let winner_place = prizes.of_tier(0) + unassigned;
        let mut shares = vec![0u128; usize::from(size.players())];
        for m in size.matches() {
            match decided[usize::from(m.get())] {
                Outcome::Won { loser, .. } => shares[usize::from(loser)] += place(m),
                Outcome::Abandoned { lo, hi } => {
                    halve(&mut shares, lo, hi, place(m));
                    if m == size.final_match() {
                        halve(&mut shares, lo, hi, winner_place);
                    }
                }
                Outcome::Walkover { .. } | Outcome::Void => {}
            }
        }
        match decided[usize::from(size.final_match().get())] {
            Outcome::Won { winner, .. } | Outcome::Walkover { winner } => {
                shares[usize::from(winner)] += winner_place
            }
            Outcome::Void => {
                let each = winner_place / u128::from(size.players());
                shares.iter_mut().for_each(|s| *s += each);
                shares[0] += winner_place % u128::from(size.players());
            }
            Outcome::Abandoned { .. } => {}
        }
        Some(shares)
    }
}

/// Shares `amount` between the two players of a match; the odd unit goes to its lo player.
fn halve(shares: &mut [u128], lo: u8, hi: u8, amount: u128) {
    shares[usize::from(lo)] += amount - amount / 2;
    shares[usize::from(hi)] += amount / 2;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{BracketSize, Split};
    use proptest::prelude::*;

    /// Plays every match of `bracket` by `pick` (0: lo wins, 1: hi wins, 2: both abandon).
    fn play(bracket: Bracket, mut pick: impl FnMut(MatchIndex) -> u8) -> Vec<Option<Outcome>> {
        let mut outcomes = vec![None; usize::from(bracket.size.players() - 1)];
        for m in bracket.size.matches() {
            let outcome = match bracket.players(m, &outcomes) {
                Players::Known { lo, hi } => match pick(m) {
                    0 => Outcome::Won {
                        winner: lo,
                        loser: hi,
                    },
                    1 => Outcome::Won {
                        winner: hi,
                        loser: lo,
                    },
                    _ => Outcome::Abandoned { lo, hi },
                },
                Players::Walkover(winner) => Outcome::Walkover { winner },
                Players::Void => Outcome::Void,
                Players::Unknown => unreachable!("matches are played in order"),
            };
            outcomes[usize::from(m.get())] = Some(outcome);
        }
        outcomes
    }

    #[test]
    fn an_event_played_out_pays_each_place_its_prize() {
        let size = BracketSize::new(8).unwrap();
        let bracket = Bracket { size, seed: 9 };
        let prizes = Split::new(size, &[6_000, 2_500, 750])
            .unwrap()
            .prizes(1_000, 500)
            .unwrap();
        let outcomes = play(bracket, |_| 0);
        let shares = bracket.shares(&prizes, &outcomes).unwrap();
        let Some(Outcome::Won { winner, loser }) = outcomes[6] else {
            panic!("the final is won")
        };
        assert_eq!(shares[usize::from(winner)], 4_560);
        assert_eq!(shares[usize::from(loser)], 1_900);
        assert_eq!(shares.iter().filter(|&&s| s == 570).count(), 2);
        assert_eq!(shares.iter().filter(|&&s| s == 0).count(), 4);
        assert_eq!(bracket.shares(&prizes, &outcomes[..5]), None);
        let mut stranger = outcomes.clone();
        stranger[0] = Some(Outcome::Won {
            winner: 8,
            loser: 0,
        });
        assert_eq!(bracket.shares(&prizes, &stranger), None);
    }

    #[test]
    fn a_walkover_gives_its_place_to_the_winner_and_a_void_final_to_everyone() {
        let size = BracketSize::new(4).unwrap();
        let bracket = Bracket { size, seed: 1 };
        let prizes = Split::new(size, &[5_000, 3_000, 1_000])
            .unwrap()
            .prizes(100, 0)
            .unwrap();
        // Match 0 abandoned, match 1 won: the final is a walkover for match 1's winner.
        let outcomes = play(bracket, |m| if m.get() == 0 { 2 } else { 0 });
        assert!(matches!(outcomes[2], Some(Outcome::Walkover { .. })));
        let shares = bracket.shares(&prizes, &outcomes).unwrap();
        let Some(Outcome::Abandoned { lo, hi }) = outcomes[0] else {
            panic!()
        };
        assert_eq!((shares[usize::from(lo)], shares[usize::from(hi)]), (20, 20)); // a semi-finalist's 40, shared
        let winner = outcomes[2].unwrap().winner().unwrap();
        assert_eq!(shares[usize::from(winner)], 200 + 120); // its place and the final's loser's
        // Both round-0 matches abandoned: a void final, its places shared by all four.
        let outcomes = play(bracket, |_| 2);
        assert_eq!(outcomes[2], Some(Outcome::Void));
        let shares = bracket.shares(&prizes, &outcomes).unwrap();
        // Each pair shares a semi-finalist's 40; the winner's 200 and the final's 120 go to all.
        assert_eq!(shares, [20 + 80, 20 + 80, 20 + 80, 20 + 80]);
    }

    proptest! {
        #[test]
        fn shares_and_fee_make_up_the_pool(k in 2u8..=6, seed: u64, picks in proptest::collection::vec(0u8..3, 63), fee in 0u128..(1 << 96), fee_bps in 0u16..=1_000) {
            let size = BracketSize::new(1 << k).unwrap();
            let bracket = Bracket { size, seed };
            let split: Vec<u16> = match k { 2 => vec![6_000, 4_000], 3 => vec![6_000, 2_500, 750], _ => vec![10_000] };
            let prizes = Split::new(size, &split).unwrap().prizes(fee, fee_bps).unwrap();
            let outcomes = play(bracket, |m| picks[usize::from(m.get())]);
            let shares = bracket.shares(&prizes, &outcomes).unwrap();
            prop_assert_eq!(shares.iter().sum::<u128>() + prizes.organiser_fee, fee * u128::from(size.players()));
        }
    }
}
