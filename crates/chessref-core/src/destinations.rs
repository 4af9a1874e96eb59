//! The legal moves grouped by origin square, as board widgets take them.

use std::collections::BTreeMap;

use crate::square::Square;
use crate::state::State;

impl State {
    /// Origin square -> destination squares of the legal moves. Each
    /// destination is listed once (the four promotions share one), in the
    /// order the moves are generated; origins with no legal move are absent.
    pub fn destinations(&self) -> BTreeMap<Square, Vec<Square>> {
        let mut map: BTreeMap<Square, Vec<Square>> = BTreeMap::new();
        for mv in self.legal_moves() {
            let targets = map.entry(mv.from).or_default();
            if !targets.contains(&mv.to) {
                targets.push(mv.to);
            }
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn initial_position_has_ten_origins_and_twenty_destinations() {
        let d = State::initial().destinations();
        assert_eq!(d.len(), 10);
        assert_eq!(d.values().map(Vec::len).sum::<usize>(), 20);
        let mut e2 = d[&sq("e2")].clone();
        e2.sort();
        assert_eq!(e2, [sq("e4"), sq("e3")]);
    }

    #[test]
    fn promotions_share_one_destination() {
        let s = State::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(s.destinations()[&sq("b7")], [sq("b8")]);
    }
}
