//! The prize split and what it pays.
//!
//! A split gives each finishing place (tier 0 the winner, 1 the finalist, 2 each
//! semi-finalist, 3 each quarter-finalist…) a share of the pool, in basis points per
//! player. What the organiser's fee leaves is divided by it; rounding dust goes to the
//! winner, so the prizes and the fee always add up to the pool exactly.

use super::{BracketSize, TournamentError};

/// Basis points in a whole: a split sums to this.
pub const BPS: u16 = 10_000;

/// The highest organiser's fee: 10 %.
pub const MAX_FEE_BPS: u16 = 1_000;

/// A valid prize split for an event of some size.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Split {
    size: BracketSize,
    /// Basis points per player of each tier, from the winner's; tiers past the end get nothing.
    per_player: Vec<u16>,
}

/// What an event pays: the organiser's fee and each tier's prize per player.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prizes {
    /// The organiser's fee, paid at the end.
    pub organiser_fee: u128,
    /// The prize of one player of each tier, from the winner's; tiers past the end get nothing.
    pub per_player: Vec<u128>,
}

impl Split {
    /// The split `per_player` (basis points per player, from the winner's tier) for an
    /// event of `size`: `BadSplit` unless it has at most `rounds + 1` tiers, never pays
    /// a lower place more than a higher one, and pays out exactly 10,000 basis points
    /// over all players (1 winner, 1 finalist, 2 semi-finalists, 4…).
    pub fn new(size: BracketSize, per_player: &[u16]) -> Result<Self, TournamentError> {
        if per_player.is_empty() || per_player.len() > usize::from(size.rounds()) + 1 {
            return Err(TournamentError::BadSplit(
                "one share per finishing place, at most rounds + 1",
            ));
        }
        if per_player.windows(2).any(|w| w[1] > w[0]) {
            return Err(TournamentError::BadSplit(
                "a lower place is never paid more than a higher one",
            ));
        }
        let total: u64 = (0u8..)
            .zip(per_player)
            .map(|(tier, &bps)| u64::from(bps) * u64::from(size.tier_count(tier)))
            .sum();
        if total != u64::from(BPS) {
            return Err(TournamentError::BadSplit(
                "the shares of all players sum to 10000 basis points",
            ));
        }
        Ok(Self {
            size,
            per_player: per_player.to_vec(),
        })
    }

    /// The basis points per player of each tier, from the winner's.
    pub fn per_player(&self) -> &[u16] {
        &self.per_player
    }

    /// What an event of `fee` per entry pays with an organiser's fee of `fee_bps`
    /// (`FeeTooHigh` above 10 %), computed as the contract does.
    pub fn prizes(&self, fee: u128, fee_bps: u16) -> Result<Prizes, TournamentError> {
        if fee_bps > MAX_FEE_BPS {
            return Err(TournamentError::FeeTooHigh(fee_bps));
        }
        // fee is at most 2^96 and there are at most 64 entries: no product below overflows.
        let pool = fee * u128::from(self.size.players());
        let organiser_fee = pool * u128::from(fee_bps) / u128::from(BPS);
        let net = pool - organiser_fee;
        let mut per_player: Vec<u128> = self
            .per_player
            .iter()
            .map(|&bps| net * u128::from(bps) / u128::from(BPS))
            .collect();
        let others: u128 = (1u8..)
            .zip(&per_player[1..])
            .map(|(t, &p)| p * u128::from(self.size.tier_count(t)))
            .sum();
        per_player[0] = net - others;
        Ok(Prizes {
            organiser_fee,
            per_player,
        })
    }
}

impl Prizes {
    /// The prize of one player who finished in `tier` (0 past the paid places).
    pub fn of_tier(&self, tier: u8) -> u128 {
        self.per_player.get(usize::from(tier)).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn size(n: u32) -> BracketSize {
        BracketSize::new(n).unwrap()
    }

    #[test]
    fn the_issues_example_split_is_valid_for_eight() {
        // 60 / 25 / 7.5 / 7.5: winner, finalist, two semi-finalists.
        let split = Split::new(size(8), &[6_000, 2_500, 750]).unwrap();
        let prizes = split.prizes(1_000, 500).unwrap();
        assert_eq!(prizes.organiser_fee, 400);
        assert_eq!(prizes.per_player, [4_560, 1_900, 570]);
        assert_eq!(prizes.of_tier(3), 0);
    }

    /// The prizes `contracts/test/ChessTournamentVectors.t.sol` asserts of the contract.
    #[test]
    fn the_contracts_vectors() {
        let prizes = Split::new(size(8), &[6_000, 2_500, 750])
            .unwrap()
            .prizes(100_000_000_000_000_000, 500)
            .unwrap();
        assert_eq!(
            prizes.per_player,
            [
                456_000_000_000_000_000,
                190_000_000_000_000_000,
                57_000_000_000_000_000
            ]
        );
        let prizes = Split::new(size(8), &[5_001, 2_499, 1_250])
            .unwrap()
            .prizes(1_000_003, 333)
            .unwrap();
        assert_eq!(prizes.organiser_fee, 266_400);
        assert_eq!(prizes.per_player, [3_867_586, 1_932_632, 966_703]);
    }

    #[test]
    fn bad_splits_are_refused_with_their_reason() {
        let bad =
            |n, s: &[u16]| matches!(Split::new(size(n), s), Err(TournamentError::BadSplit(_)));
        assert!(bad(8, &[]));
        assert!(bad(8, &[6_000, 2_500, 700])); // sums to 9,900
        assert!(bad(8, &[5_000, 5_000, 0, 0, 0])); // five tiers for three rounds
        assert!(bad(4, &[3_000, 3_000, 2_001])); // 10,002 over the four players
        assert!(bad(4, &[2_000, 4_000, 2_000])); // the finalist above the winner
        assert!(Split::new(size(4), &[10_000]).is_ok());
        assert!(Split::new(size(4), &[5_000, 5_000]).is_ok());
        assert_eq!(
            Split::new(size(4), &[10_000]).unwrap().prizes(1, 1_001),
            Err(TournamentError::FeeTooHigh(1_001))
        );
    }

    #[test]
    fn rounding_dust_goes_to_the_winner() {
        let split = Split::new(size(4), &[4_000, 2_000, 2_000]).unwrap();
        // Pool 8: each 20 % share is 1.6, paid 1; the winner gets the 8 - 3 left, not 3.2.
        assert_eq!(split.prizes(2, 0).unwrap().per_player, [5, 1, 1]);
        // Pool 12: 2.4 paid 2 three times; the winner 6.
        assert_eq!(split.prizes(3, 0).unwrap().per_player, [6, 2, 2]);
    }

    fn a_split() -> impl Strategy<Value = (BracketSize, Vec<u16>)> {
        // A random non-increasing split that sums to 10,000 over the players: pick shares
        // for the lower tiers first, then give the winner what is left if it is enough.
        (2u8..=6, proptest::collection::vec(0u16..=3_000, 0..=6)).prop_filter_map(
            "valid",
            |(k, raw)| {
                let size = BracketSize::new(1 << k).ok()?;
                let mut tail: Vec<u16> = raw.into_iter().take(usize::from(k)).collect();
                tail.sort_unstable_by(|a, b| b.cmp(a));
                let used: u32 = (1u8..)
                    .zip(&tail)
                    .map(|(t, &b)| u32::from(b) * size.tier_count(t))
                    .sum();
                let winner = u16::try_from(u32::from(BPS).checked_sub(used)?).ok()?;
                if tail.first().is_some_and(|&f| f > winner) {
                    return None;
                }
                Some((size, std::iter::once(winner).chain(tail).collect()))
            },
        )
    }

    proptest! {
        #[test]
        fn prizes_and_fee_sum_to_the_pool((size, shares) in a_split(), fee in 0u128..(1 << 96), fee_bps in 0u16..=1_000) {
            let split = Split::new(size, &shares).unwrap();
            let prizes = split.prizes(fee, fee_bps).unwrap();
            let paid: u128 = (0u8..).zip(&prizes.per_player).map(|(t, &p)| p * u128::from(size.tier_count(t))).sum();
            prop_assert_eq!(paid + prizes.organiser_fee, fee * u128::from(size.players()));
            // Never more to a lower place: the winner's dust only adds.
            prop_assert!(prizes.per_player.windows(2).all(|w| w[0] >= w[1]));
        }
    }
}
