//! The bracket: its size, its matches, the draw of positions and colours, and the lot.
//!
//! Matches are numbered as the contract numbers them: round 0 is `0..n/2`, and the
//! winner of match `m` plays in match `n/2 + m/2`; the final is `n - 2`. Round 0 match
//! `m` plays bracket positions `2m` (its "lo" player) and `2m + 1` (its "hi" player);
//! in a later round, lo is the winner of the lower-numbered child.

use alloy_primitives::{B256, U256, keccak256};

use super::TournamentError;

/// The number of players of an event: 4, 8, 16, 32 or 64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BracketSize {
    /// log2 of the number of players: the number of rounds, 2..=6.
    rounds: u8,
}

/// A match of a bracket of some size: `0..size - 1`, as numbered by the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MatchIndex(u8);

impl MatchIndex {
    /// The contract's number for the match.
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl BracketSize {
    /// The smallest event: 4 players.
    pub const MIN_PLAYERS: u32 = 4;
    /// The largest event: 64 players.
    pub const MAX_PLAYERS: u32 = 64;

    /// The size for `players`; `BadSize` unless it is 4, 8, 16, 32 or 64.
    pub fn new(players: u32) -> Result<Self, TournamentError> {
        if !(Self::MIN_PLAYERS..=Self::MAX_PLAYERS).contains(&players) || !players.is_power_of_two()
        {
            return Err(TournamentError::BadSize(players));
        }
        // At most 64, so the log fits.
        Ok(Self {
            rounds: players.trailing_zeros() as u8,
        })
    }

    /// The number of players.
    pub const fn players(self) -> u8 {
        1 << self.rounds
    }

    /// The number of rounds; the final is round `rounds() - 1`.
    pub const fn rounds(self) -> u8 {
        self.rounds
    }

    /// The match numbered `m`, if the bracket has one.
    pub fn match_index(self, m: u8) -> Option<MatchIndex> {
        (m < self.players() - 1).then_some(MatchIndex(m))
    }

    /// Every match, in the contract's order (round by round).
    pub fn matches(self) -> impl Iterator<Item = MatchIndex> {
        (0..self.players() - 1).map(MatchIndex)
    }

    /// The final.
    pub const fn final_match(self) -> MatchIndex {
        MatchIndex(self.players() - 2)
    }

    /// The matches of round `round` (empty past the final).
    pub fn round_matches(self, round: u8) -> impl Iterator<Item = MatchIndex> {
        let n = u16::from(self.players());
        let (first, end) = if round < self.rounds {
            (n - (n >> round), n - (n >> (round + 1)))
        } else {
            (0, 0)
        };
        // Both below n - 1 < 64.
        (first as u8..end as u8).map(MatchIndex)
    }

    /// The round `m` is played in: 0 for the first.
    pub fn round(self, m: MatchIndex) -> u8 {
        let n = u16::from(self.players());
        // Round r starts at n - n / 2^r; the first r whose next round starts past m.
        (0..self.rounds)
            .find(|&r| u16::from(m.0) < n - (n >> (r + 1)))
            .unwrap_or(self.rounds - 1)
    }

    /// The match the winner of `m` plays next; `None` for the final.
    pub fn parent(self, m: MatchIndex) -> Option<MatchIndex> {
        (m != self.final_match()).then(|| MatchIndex(self.players() / 2 + m.0 / 2))
    }

    /// The two matches whose winners meet in `m` (lo's, then hi's); `None` in round 0.
    pub fn children(self, m: MatchIndex) -> Option<(MatchIndex, MatchIndex)> {
        let half = self.players() / 2;
        (m.0 >= half).then(|| {
            (
                MatchIndex(2 * (m.0 - half)),
                MatchIndex(2 * (m.0 - half) + 1),
            )
        })
    }

    /// The finishing place of the player who lost `m`, as a prize tier: 1 for the
    /// final's loser, 2 for a semi-final's, 3 for a quarter-final's… (the winner's is 0).
    pub fn loser_tier(self, m: MatchIndex) -> u8 {
        self.rounds - self.round(m)
    }

    /// How many players finish in `tier`: 1, 1, 2, 4, … (0 past the first round's losers).
    pub const fn tier_count(self, tier: u8) -> u32 {
        match tier {
            0 => 1,
            t if t <= self.rounds => 1 << (t - 1),
            _ => 0,
        }
    }
}

/// An event's bracket after the draw: its size and the seed the draw gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bracket {
    /// The number of players.
    pub size: BracketSize,
    /// The seed the contract stored at the draw (`Drawn`): the low 64 bits of the
    /// draw block's hash.
    pub seed: u64,
}

impl Bracket {
    /// The entrant (by entry index) at each bracket position: a Fisher-Yates shuffle of
    /// `0..n`, swapping position `j` (from `n - 1` down to 1) with position
    /// `keccak256(abi.encode(seed, j)) % (j + 1)`.
    pub fn positions(self) -> Vec<u8> {
        let mut positions: Vec<u8> = (0..self.size.players()).collect();
        for j in (1..self.size.players()).rev() {
            let draw = U256::from_be_bytes(hash_words(&[word(self.seed), word(j.into())]).0);
            // Below j + 1 <= 64, so the cast keeps it.
            let r = (draw % U256::from(u16::from(j) + 1)).to::<u64>() as usize;
            positions.swap(usize::from(j), r);
        }
        positions
    }

    /// The entrants (by entry index) of round 0 match `m`, lo then hi; `None` for a
    /// match of a later round.
    pub fn first_round(self, m: MatchIndex) -> Option<(u8, u8)> {
        if self.size.round(m) != 0 {
            return None;
        }
        let positions = self.positions();
        let lo = usize::from(m.get()) * 2;
        Some((positions[lo], positions[lo + 1]))
    }

    /// Whether the lo player of `m` has white: when `keccak256(abi.encode(seed, 64 + m))`
    /// is even (64 + m: no colour hashes the words of a shuffle step, whose index is below 64).
    pub fn lo_is_white(self, m: MatchIndex) -> bool {
        is_even(hash_words(&[
            word(self.seed),
            word(64 + u64::from(m.get())),
        ]))
    }

    /// `(white, black)` of match `m` between `lo` and `hi`.
    pub fn colours<T>(self, m: MatchIndex, lo: T, hi: T) -> (T, T) {
        if self.lo_is_white(m) {
            (lo, hi)
        } else {
            (hi, lo)
        }
    }
}

/// Whether white wins the lot of drawn match `m` of event `event`, drawn from the hash
/// of the lot's block: `keccak256(abi.encode(blockHash, event, m))` even.
pub fn lot_white_wins(block_hash: B256, event: U256, m: MatchIndex) -> bool {
    is_even(hash_words(&[
        block_hash.0,
        event.to_be_bytes(),
        word(m.get().into()),
    ]))
}

/// `x` as one ABI word.
fn word(x: u64) -> [u8; 32] {
    U256::from(x).to_be_bytes()
}

/// `keccak256(abi.encode(words…))` of static words.
fn hash_words(words: &[[u8; 32]]) -> B256 {
    keccak256(words.concat())
}

fn is_even(h: B256) -> bool {
    h.0[31] & 1 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_the_powers_of_two_from_4_to_64() {
        let ok: Vec<u32> = (0..=130).filter(|&n| BracketSize::new(n).is_ok()).collect();
        assert_eq!(ok, [4, 8, 16, 32, 64]);
        assert_eq!(BracketSize::new(12), Err(TournamentError::BadSize(12)));
        assert_eq!(BracketSize::new(128), Err(TournamentError::BadSize(128)));
    }

    #[test]
    fn the_winner_of_every_match_reaches_the_final_in_rounds_minus_one_steps() {
        for n in [4, 8, 16, 32, 64] {
            let size = BracketSize::new(n).unwrap();
            assert_eq!(size.matches().count(), n as usize - 1);
            for m in size.matches() {
                let mut at = m;
                let mut steps = 0;
                while let Some(p) = size.parent(at) {
                    assert_eq!(size.round(p), size.round(at) + 1);
                    let (lo, hi) = size.children(p).unwrap();
                    assert!(
                        lo == at || hi == at,
                        "{at:?} is a child of its parent {p:?}"
                    );
                    assert_eq!(lo.get() + 1, hi.get());
                    at = p;
                    steps += 1;
                }
                assert_eq!(at, size.final_match());
                assert_eq!(steps + size.round(m), size.rounds() - 1);
            }
        }
    }

    #[test]
    fn rounds_halve_and_cover_every_match_once() {
        for n in [4, 8, 16, 32, 64] {
            let size = BracketSize::new(n).unwrap();
            let mut all = Vec::new();
            for r in 0..size.rounds() {
                let round: Vec<_> = size.round_matches(r).collect();
                assert_eq!(round.len(), n as usize >> (r + 1));
                assert!(round.iter().all(|&m| size.round(m) == r));
                assert!(
                    round
                        .iter()
                        .all(|&m| (size.round(m) == 0) == size.children(m).is_none())
                );
                all.extend(round);
            }
            assert_eq!(all, size.matches().collect::<Vec<_>>());
            assert_eq!(size.round_matches(size.rounds()).count(), 0);
        }
    }

    #[test]
    fn tiers_count_every_player_once_and_the_loser_tier_follows_the_round() {
        for n in [4, 8, 16, 32, 64] {
            let size = BracketSize::new(n).unwrap();
            let total: u32 = (0..=size.rounds() + 1).map(|t| size.tier_count(t)).sum();
            assert_eq!(total, n);
            assert_eq!(size.loser_tier(size.final_match()), 1);
            for m in size.matches() {
                // Every loser of a round shares the tier: as many losers as the tier counts.
                let losers = size.round_matches(size.round(m)).count() as u32;
                assert_eq!(size.tier_count(size.loser_tier(m)), losers);
            }
        }
    }

    #[test]
    fn positions_are_a_permutation_that_depends_on_the_seed() {
        let size = BracketSize::new(64).unwrap();
        let a = Bracket { size, seed: 1 }.positions();
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..64).collect::<Vec<u8>>());
        assert_ne!(a, Bracket { size, seed: 2 }.positions());
        let first: Vec<(u8, u8)> = size
            .round_matches(0)
            .map(|m| Bracket { size, seed: 1 }.first_round(m).unwrap())
            .collect();
        assert_eq!(
            first
                .iter()
                .flat_map(|&(lo, hi)| [lo, hi])
                .collect::<Vec<_>>(),
            a
        );
        assert_eq!(
            Bracket { size, seed: 1 }.first_round(size.final_match()),
            None
        );
    }

    /// The values `contracts/test/ChessTournamentVectors.t.sol` asserts of the contract.
    #[test]
    fn the_contracts_vectors() {
        let seed = u64::from_be_bytes(keccak256(b"chessref").0[24..].try_into().unwrap());
        assert_eq!(seed, 3_550_424_555_435_445_564);
        let at = |n| Bracket {
            size: BracketSize::new(n).unwrap(),
            seed,
        };
        assert_eq!(at(8).positions(), hex("0501060007040203"));
        assert_eq!(
            at(64).positions(),
            hex(concat!(
                "05012c00072e0b0c13383b090f0632221f331731183d36210d1a1d292b2a16303912202f",
                "0435081e141110033a1c0a0e2815233c3e2d0226343f19242537271b"
            ))
        );
        // Bit m set: white is the hi player of match m.
        let colours = |n: u32| -> u64 {
            let b = at(n);
            b.size
                .matches()
                .filter(|&m| !b.lo_is_white(m))
                .map(|m| 1u64 << m.get())
                .sum()
        };
        assert_eq!(colours(8), 120);
        assert_eq!(colours(64), 1_776_209_101_880_317_176);
        // Bit m set: white wins the lot of match m of event 1 drawn by the hash keccak256("lot").
        let size = BracketSize::new(64).unwrap();
        let lots: u32 = (0..8)
            .filter(|&m| {
                lot_white_wins(
                    keccak256(b"lot"),
                    U256::from(1),
                    size.match_index(m).unwrap(),
                )
            })
            .map(|m| 1 << m)
            .sum();
        assert_eq!(lots, 60);
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn colours_follow_the_parity_and_the_lot_depends_on_event_and_match() {
        let size = BracketSize::new(64).unwrap();
        let bracket = Bracket { size, seed: 42 };
        let whites = size.matches().filter(|&m| bracket.lo_is_white(m)).count();
        assert!(
            (10..=53).contains(&whites),
            "{whites} of 63 lo players white"
        );
        for m in size.matches() {
            let (w, b) = bracket.colours(m, "lo", "hi");
            assert_eq!(w == "lo", bracket.lo_is_white(m));
            assert_ne!(w, b);
        }
        let hash = keccak256(b"block");
        let wins: Vec<bool> = size
            .matches()
            .map(|m| lot_white_wins(hash, U256::from(1), m))
            .collect();
        assert!(wins.iter().any(|&w| w) && wins.iter().any(|&w| !w));
        let other: Vec<bool> = size
            .matches()
            .map(|m| lot_white_wins(hash, U256::from(2), m))
            .collect();
        assert_ne!(wins, other);
    }
}
