//! Knockout events on a `ChessReferee` (`ChessTournament`): the contract its constructor
//! creates after the channel, the only account that may host a referee game.

use alloy_primitives::Address;

/// The `ChessTournament` of the referee at `referee`: its constructor's second `CREATE`
/// (nonce 2, after the channel at nonce 1), so the address follows from the referee's alone
/// (`ChessReferee.tournament()`).
pub fn tournament_address(referee: Address) -> Address {
    referee.create(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tournament_comes_after_the_channel() {
        let referee = Address::repeat_byte(0x42);
        assert_eq!(crate::channel::channel_address(referee), referee.create(1));
        assert_eq!(tournament_address(referee), referee.create(2));
        assert_ne!(
            tournament_address(referee),
            crate::channel::channel_address(referee)
        );
    }
}
