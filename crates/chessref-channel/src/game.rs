//! What the protocol needs to know of a channel game (its terms on the referee).

use alloy_primitives::{Address, B256, Bytes, U256, aliases::U24};
use chessref_core::{Color, State, chain};
use serde::{Deserialize, Serialize};

use crate::messages::Move;

/// A channel game's players and terms, as `ChessReferee.getGame` reports them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelGame {
    /// The referee's game id.
    pub game_id: U256,
    /// White's address (a wallet: an EOA or a contract wallet).
    pub white: Address,
    /// Black's address.
    pub black: Address,
    /// Seconds on each clock at the start.
    pub initial_time: u32,
    /// Fischer increment in seconds.
    pub increment: u32,
    /// The response window in seconds: how long a registration stays frozen (CHANNEL.md
    /// 7.3); the side to move's clock runs through it.
    pub response_window: u32,
    /// The start state as 128 hex bytes; absent for the standard start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_state: Option<Bytes>,
}

impl ChannelGame {
    /// The start position (the standard one when `start_state` is absent); an error
    /// names what is wrong with a given start state.
    pub fn start(&self) -> Result<State, chessref_core::StateError> {
        match &self.start_state {
            None => Ok(State::initial()),
            Some(bytes) => State::from_bytes(bytes),
        }
    }

    /// The unsigned start move of ply 0 (CHANNEL.md 4.1): `Move(gameId, 0, 0, startState,
    /// startHistory, initialTime, initialTime, 0, 0x0)`.
    pub fn start_move(&self) -> Result<Move, chessref_core::StateError> {
        let start = self.start()?;
        Ok(Move {
            gameId: self.game_id,
            ply: 0,
            mv: U24::ZERO,
            state: Bytes::copy_from_slice(start.as_bytes()),
            history: chain::of_start(&start),
            whiteTime: self.initial_time,
            blackTime: self.initial_time,
            timestamp: 0,
            previous: B256::ZERO,
        })
    }

    /// The `expires` honest clients give a session key delegated at `joined_at` (unix
    /// seconds) for a game of at most `plies` plies (CHANNEL.md 9): the join time, twice
    /// the initial time, the increments of every move and two response windows.
    pub fn key_expiry(&self, joined_at: u64, plies: u32) -> u64 {
        joined_at
            + 2 * u64::from(self.initial_time)
            + u64::from(plies) * u64::from(self.increment)
            + 2 * u64::from(self.response_window)
    }

    /// The address playing `colour`.
    pub fn player(&self, colour: Color) -> Address {
        match colour {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The colour `address` plays, if it is a player.
    pub fn colour_of(&self, address: Address) -> Option<Color> {
        if address == self.white {
            Some(Color::White)
        } else if address == self.black {
            Some(Color::Black)
        } else {
            None
        }
    }
}
