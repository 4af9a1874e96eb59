//! The packed clock word of a running game, read off-chain: `ClockWord.sol` field for
//! field (REFEREE.md section 3). Bit offsets from the least significant bit: 0..39 the
//! timestamp of the join or last move, 40..71 white's budget, 72..103 black's budget
//! (seconds left + unused grace), 104..135 increment, 136..167 ply, 168 white offers a
//! draw, 169 black offers a draw, 170 custom start, 171..173 the pending status of a
//! registered decided position (docs/CHANNEL.md 7.3), 176..207 first-move window,
//! 208..247 a registered position's reply deadline (docs/CHANNEL.md 7.3).
//!
//! Here rather than beside the referee's client (`chessref-evm`, which re-exports it): a
//! channel registration names its position by this word, and every client that answers one
//! (the browser package too, which has no RPC) reads its window end and deadline here.

use alloy_primitives::U256;
use chessref_core::Color;

/// Seconds of grace every budget includes (`ClockWord.GRACE_PERIOD`).
pub const GRACE_PERIOD: u64 = 15;

/// A clock word as the referee commits and emits it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClockWord(pub U256);

impl ClockWord {
    fn field(self, shift: usize, bits: u32) -> u64 {
        let mask = U256::from((1u64 << bits) - 1);
        ((self.0 >> shift) & mask).to::<u64>()
    }

    /// Timestamp of the join or the last move (after a channel registration: the end
    /// of the response window, docs/CHANNEL.md 7.3).
    pub fn last_timestamp(self) -> u64 {
        self.field(0, 40)
    }

    /// A registered channel position's side to move's deadline by the wall clock,
    /// unclamped: what the direct reply to it is charged against (docs/CHANNEL.md 7.3;
    /// `ClockWord.replyDeadline`). 0 for any other position.
    pub fn reply_deadline(self) -> u64 {
        self.field(208, 40)
    }

    /// `colour`'s budget: seconds left plus its unused grace.
    pub fn budget(self, colour: Color) -> u64 {
        match colour {
            Color::White => self.field(40, 32),
            Color::Black => self.field(72, 32),
        }
    }

    /// `colour`'s seconds left as of [`ClockWord::last_timestamp`], the grace excluded
    /// (what the referee's `clocks` view shows before any time runs).
    pub fn seconds_left(self, colour: Color) -> u64 {
        self.budget(colour).saturating_sub(GRACE_PERIOD)
    }

    /// The Fischer increment, seconds.
    pub fn increment(self) -> u64 {
        self.field(104, 32)
    }

    /// Moves played in the game.
    pub fn ply(self) -> u32 {
        self.field(136, 32) as u32
    }

    /// Whether `colour` offers a draw in the current position.
    pub fn offers_draw(self, colour: Color) -> bool {
        match colour {
            Color::White => self.field(168, 1) == 1,
            Color::Black => self.field(169, 1) == 1,
        }
    }

    /// The side offering a draw, if either.
    pub fn draw_offer(self) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&c| self.offers_draw(c))
    }

    /// Whether the game started from a custom position.
    pub fn custom_start(self) -> bool {
        self.field(170, 1) == 1
    }

    /// The first-move window, seconds.
    pub fn first_move_window(self) -> u64 {
        self.field(176, 32)
    }

    /// The section 8 status (1-4) of a channel game's registered decided position, which
    /// `finishRegistered` ends the game by; 0 for any other position.
    pub fn pending_status(self) -> u8 {
        self.field(171, 3) as u8
    }

    /// When the side to move's time starts being charged (`ClockWord.turnStart`): the last
    /// timestamp, plus the first-move window for a first move (ply < 2) from a custom start.
    pub fn turn_start(self) -> u64 {
        let from = self.last_timestamp();
        if self.custom_start() && self.ply() < 2 {
            from + self.first_move_window()
        } else {
            from
        }
    }

    /// The last second at which `colour`, to move, may still move (grace included).
    pub fn deadline(self, colour: Color) -> u64 {
        self.turn_start() + self.budget(colour)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_field_where_clockword_sol_puts_it() {
        let word = U256::from(1_700_000_000u64)
            | U256::from(615u64) << 40usize
            | U256::from(10u64) << 72usize
            | U256::from(2u64) << 104usize
            | U256::from(41u64) << 136usize
            | U256::from(1u64) << 169usize
            | U256::from(1u64) << 170usize
            | U256::from(300u64) << 176usize
            | U256::from(1_700_000_777u64) << 208usize;
        let c = ClockWord(word);
        assert_eq!(c.last_timestamp(), 1_700_000_000);
        assert_eq!((c.budget(Color::White), c.budget(Color::Black)), (615, 10));
        assert_eq!(
            (c.seconds_left(Color::White), c.seconds_left(Color::Black)),
            (600, 0)
        );
        assert_eq!(c.increment(), 2);
        assert_eq!(c.ply(), 41);
        assert_eq!(c.draw_offer(), Some(Color::Black));
        assert!(c.custom_start());
        assert_eq!(c.first_move_window(), 300);
        assert_eq!(c.pending_status(), 0);
        assert_eq!(c.reply_deadline(), 1_700_000_777);
        // ply 41: no first-move window in the turn start
        assert_eq!(c.deadline(Color::White), 1_700_000_615);
    }

    #[test]
    fn a_custom_starts_first_move_is_charged_after_the_window() {
        let word = U256::from(1_000u64)
            | U256::from(615u64) << 40usize
            | U256::from(1u64) << 136usize
            | U256::from(1u64) << 170usize
            | U256::from(300u64) << 176usize
            | U256::from(1u64) << 171usize;
        let c = ClockWord(word);
        assert_eq!(c.turn_start(), 1_300);
        assert_eq!(c.deadline(Color::White), 1_915);
        assert_eq!(c.pending_status(), 1);
    }
}
