//! Knockout events on a `ChessReferee` (`ChessTournament`): the contract its constructor
//! creates after the channel, the only account that may host a referee game; and the
//! driver that sends its calls and reads its events.

use alloy_primitives::{Address, Bytes, Log, U256};
use alloy_sol_types::{SolCall, SolEventInterface};

use crate::bindings::ChessTournament::{self as T, ChessTournamentEvents as Event};
use crate::bindings::IChessTournamentTypes::{EventInfo, EventTerms, MatchInfo};
use crate::chain::{Chain, TxReceipt};
use crate::error::EvmError;
use crate::referee::{Position, Referee, transact_at, view_at};

/// The `ChessTournament` of the referee at `referee`: its constructor's second `CREATE`
/// (nonce 2, after the channel at nonce 1), so the address follows from the referee's alone
/// (`ChessReferee.tournament()`).
pub fn tournament_address(referee: Address) -> Address {
    referee.create(2)
}

/// A match's game as `start` hosted it (`MatchStarted` and the referee's `GameJoined`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hosted {
    /// The referee game.
    pub game_id: U256,
    /// White.
    pub white: Address,
    /// Black.
    pub black: Address,
    /// The game's start clock word (0 for a channel game).
    pub clock: U256,
}

/// What a `start` did: hosted a game, or decided the match without one (a walkover, or a
/// match without players).
#[derive(Clone, Debug)]
pub struct Started {
    /// The hosted game, if there is one.
    pub hosted: Option<Hosted>,
    /// The transaction.
    pub receipt: TxReceipt,
}

/// The driver of the tournament of a referee: its calls, views and events.
#[derive(Debug)]
pub struct Tournament<C: Chain> {
    referee: Referee<C>,
    address: Address,
}

impl<C: Chain> Tournament<C> {
    /// The tournament of `referee` (at [`tournament_address`]).
    pub fn of(referee: Referee<C>) -> Self {
        let address = tournament_address(referee.address());
        Tournament { referee, address }
    }

    /// The tournament's address.
    pub fn address(&self) -> Address {
        self.address
    }

    /// The referee that hosts its games.
    pub fn referee(&mut self) -> &mut Referee<C> {
        &mut self.referee
    }

    fn transact<T: SolCall>(
        &mut self,
        operation: &'static str,
        from: Address,
        value: U256,
        call: T,
    ) -> Result<TxReceipt, EvmError> {
        let to = self.address;
        transact_at(self.referee.chain(), to, operation, from, value, call)
    }

    fn view<T: SolCall>(
        &mut self,
        operation: &'static str,
        call: T,
    ) -> Result<T::Return, EvmError> {
        let to = self.address;
        view_at(self.referee.chain(), to, operation, call)
    }

    /// The tournament's events among a receipt's logs.
    pub fn events(&self, logs: &[Log]) -> Vec<Event> {
        logs.iter()
            .filter(|log| log.address == self.address)
            .filter_map(|log| Event::decode_log(log).ok().map(|l| l.data))
            .collect()
    }

    /// `createEvent`: the new event's id.
    pub fn create_event(
        &mut self,
        organiser: Address,
        terms: EventTerms,
    ) -> Result<(U256, TxReceipt), EvmError> {
        let receipt = self.transact(
            "createEvent",
            organiser,
            U256::ZERO,
            T::createEventCall { t: terms },
        )?;
        let id = self
            .events(&receipt.logs)
            .into_iter()
            .find_map(|e| match e {
                Event::EventCreated(e) => Some(e.eventId),
                _ => None,
            })
            .ok_or(EvmError::MissingEvent {
                operation: "createEvent",
                event: "EventCreated",
            })?;
        Ok((id, receipt))
    }

    /// `enter`, paying `value` wei (the fee of an ETH event, else 0).
    pub fn enter(
        &mut self,
        player: Address,
        event: U256,
        value: U256,
    ) -> Result<TxReceipt, EvmError> {
        self.transact("enter", player, value, T::enterCall { eventId: event })
    }

    /// `draw`.
    pub fn draw(&mut self, from: Address, event: U256) -> Result<TxReceipt, EvmError> {
        self.transact("draw", from, U256::ZERO, T::drawCall { eventId: event })
    }

    /// `start`: the hosted game, if the match has one.
    pub fn start(&mut self, from: Address, event: U256, m: u8) -> Result<Started, EvmError> {
        let call = T::startCall {
            eventId: event,
            matchIndex: U256::from(m),
        };
        let receipt = self.transact("start", from, U256::ZERO, call)?;
        let started = self
            .events(&receipt.logs)
            .into_iter()
            .find_map(|e| match e {
                Event::MatchStarted(e) => Some(e),
                _ => None,
            });
        let hosted = match started {
            None => None,
            Some(e) => {
                let joined = self
                    .referee
                    .joined(&receipt.logs)
                    .ok_or(EvmError::MissingEvent {
                        operation: "start",
                        event: "GameJoined",
                    })?;
                Some(Hosted {
                    game_id: e.gameId,
                    white: e.white,
                    black: e.black,
                    clock: joined.clock,
                })
            }
        };
        Ok(Started { hosted, receipt })
    }

    /// `report`.
    pub fn report(&mut self, from: Address, event: U256, m: u8) -> Result<TxReceipt, EvmError> {
        self.transact(
            "report",
            from,
            U256::ZERO,
            T::reportCall {
                eventId: event,
                matchIndex: U256::from(m),
            },
        )
    }

    /// `resolveLot`.
    pub fn resolve_lot(
        &mut self,
        from: Address,
        event: U256,
        m: u8,
    ) -> Result<TxReceipt, EvmError> {
        let call = T::resolveLotCall {
            eventId: event,
            matchIndex: U256::from(m),
        };
        self.transact("resolveLot", from, U256::ZERO, call)
    }

    /// `reportAbandoned` with the game's current `position`.
    pub fn report_abandoned(
        &mut self,
        from: Address,
        event: U256,
        m: u8,
        position: &Position,
    ) -> Result<TxReceipt, EvmError> {
        let call = T::reportAbandonedCall {
            eventId: event,
            matchIndex: U256::from(m),
            state: Bytes::copy_from_slice(&position.state),
            history: position.history,
            clock: position.clock,
        };
        self.transact("reportAbandoned", from, U256::ZERO, call)
    }

    /// `claim`: the amount credited (`PrizeCredited`).
    pub fn claim(&mut self, player: Address, event: U256) -> Result<(U256, TxReceipt), EvmError> {
        let receipt =
            self.transact("claim", player, U256::ZERO, T::claimCall { eventId: event })?;
        Ok((self.credited(&receipt, "claim")?, receipt))
    }

    /// `claimFee`: the amount credited.
    pub fn claim_fee(
        &mut self,
        organiser: Address,
        event: U256,
    ) -> Result<(U256, TxReceipt), EvmError> {
        let receipt = self.transact(
            "claimFee",
            organiser,
            U256::ZERO,
            T::claimFeeCall { eventId: event },
        )?;
        Ok((self.credited(&receipt, "claimFee")?, receipt))
    }

    fn credited(&self, receipt: &TxReceipt, operation: &'static str) -> Result<U256, EvmError> {
        self.events(&receipt.logs)
            .into_iter()
            .find_map(|e| match e {
                Event::PrizeCredited(e) => Some(e.amount),
                _ => None,
            })
            .ok_or(EvmError::MissingEvent {
                operation,
                event: "PrizeCredited",
            })
    }

    /// `withdraw(token)`.
    pub fn withdraw(&mut self, account: Address, token: Address) -> Result<TxReceipt, EvmError> {
        self.transact("withdraw", account, U256::ZERO, T::withdrawCall { token })
    }

    /// `credits(account, token)`.
    pub fn credits(&mut self, account: Address, token: Address) -> Result<U256, EvmError> {
        self.view("credits", T::creditsCall { account, token })
    }

    /// `getEvent`.
    pub fn event(&mut self, event: U256) -> Result<EventInfo, EvmError> {
        self.view("getEvent", T::getEventCall { eventId: event })
    }

    /// `entrantOf`: the player who entered `event` as entrant `index`.
    pub fn entrant(&mut self, event: U256, index: u8) -> Result<Address, EvmError> {
        self.view(
            "entrantOf",
            T::entrantOfCall {
                eventId: event,
                index: U256::from(index),
            },
        )
    }

    /// `pairing`: white and black of match `m` once its players are known (else the
    /// contract's `PlayersNotKnown`).
    pub fn pairing(&mut self, event: U256, m: u8) -> Result<(Address, Address), EvmError> {
        let call = T::pairingCall {
            eventId: event,
            matchIndex: U256::from(m),
        };
        self.view("pairing", call).map(|p| (p.white, p.black))
    }

    /// `prizeOf`: the prize of one player of `tier` (0 the winner, 1 the finalist, ...).
    pub fn prize_of(&mut self, event: U256, tier: u8) -> Result<U256, EvmError> {
        let call = T::prizeOfCall {
            eventId: event,
            tier: U256::from(tier),
        };
        self.view("prizeOf", call)
    }

    /// `getMatch`.
    pub fn match_info(&mut self, event: U256, m: u8) -> Result<MatchInfo, EvmError> {
        self.view(
            "getMatch",
            T::getMatchCall {
                eventId: event,
                matchIndex: U256::from(m),
            },
        )
    }
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
