//! `ChessReferee` driven as real transactions: create, join, cancel, move,
//! draws, claims, resign, withdraw, with events and custom errors decoded.
//! See `docs/REFEREE.md` for the contract's interface.

use alloy_primitives::{Address, B256, Bytes, Log, U256, keccak256};
use alloy_sol_types::{SolCall, SolEventInterface};

use crate::{
    bindings::ChessReferee::{self as R, ChessRefereeEvents as Event},
    chain::{Chain, TxReceipt, TxRequest},
    error::EvmError,
    revert::ContractRevert,
};

/// The triple every position-taking call carries (REFEREE.md section 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Position {
    /// The 128-byte state (`0x` and 256 hex digits in JSON).
    #[serde(serialize_with = "serialize_state")]
    pub state: [u8; 128],
    /// Head of the repetition chain (REFEREE.md section 4).
    pub history: B256,
    /// The packed clock word (REFEREE.md section 3).
    pub clock: U256,
}

/// Serializes a 128-byte state as `0x` and 256 hex digits.
pub fn serialize_state<S: serde::Serializer>(state: &[u8; 128], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&alloy_primitives::hex::encode_prefixed(state))
}

impl Position {
    /// `keccak256(state ‖ history)`: the position without its clock (what a channel
    /// registration names as `currentInner`).
    pub fn inner(&self) -> B256 {
        let mut inner = [0u8; 160];
        inner[..128].copy_from_slice(&self.state);
        inner[128..].copy_from_slice(self.history.as_slice());
        keccak256(inner)
    }

    /// This position as a registration that overtakes it names it (CHANNEL.md 7.3).
    pub fn frozen(&self) -> chessref_channel::messages::FrozenPosition {
        chessref_channel::messages::FrozenPosition {
            inner: self.inner(),
            clock: self.clock,
        }
    }

    /// `keccak256(keccak256(state ‖ history) ‖ clock)`: what the referee stores.
    pub fn commitment(&self) -> B256 {
        let mut outer = [0u8; 64];
        outer[..32].copy_from_slice(self.inner().as_slice());
        outer[32..].copy_from_slice(&self.clock.to_be_bytes::<32>());
        keccak256(outer)
    }

    /// The game's ply count from the clock word (bits 136..167).
    pub fn ply(&self) -> u32 {
        crate::clock_word::ClockWord(self.clock).ply()
    }
}

/// The repetition chain's first link for a position with key `key` (see
/// [`chessref_core::chain`], where the chain is defined once).
pub fn chain_start(key: B256) -> B256 {
    chessref_core::chain::start(key)
}

/// The repetition chain extended by `key`.
pub fn chain_next(history: B256, key: B256) -> B256 {
    chessref_core::chain::next(history, key)
}

/// The history after a move to `next` (restarted after an irreversible move).
pub fn history_after(history: B256, next: &chessref_core::State) -> B256 {
    chessref_core::chain::after(history, next)
}

/// Extends a threefold witness by a move to `next` (REFEREE.md section 4; written once,
/// in chessref-core).
pub use chessref_core::chain::witness_after;

/// Parameters of `createGame`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSetup {
    /// Invited opponent; `Address::ZERO` for an open game.
    pub opponent: Address,
    /// Whether the creator plays white.
    pub creator_white: bool,
    /// Stake token; `Address::ZERO` for ETH.
    pub token: Address,
    /// Stake of each side.
    pub stake: U256,
    /// Initial time of each clock, seconds.
    pub initial_time: u32,
    /// Fischer increment, seconds.
    pub increment: u32,
    /// Seconds each player has for its first move before a game from the standard start
    /// may be aborted; 0 for the contract's default (`DEFAULT_FIRST_MOVE_WINDOW`).
    pub first_move_window: u32,
    /// Custom start state; `None` for the standard initial position.
    pub start: Option<[u8; 128]>,
}

impl GameSetup {
    /// Wei the creator sends: the stake for an ETH game, else nothing.
    pub fn value(&self) -> U256 {
        if self.token == Address::ZERO {
            self.stake
        } else {
            U256::ZERO
        }
    }

    /// The `startState` argument: empty for the standard start.
    pub fn start_bytes(&self) -> Bytes {
        self.start
            .map(|s| Bytes::copy_from_slice(&s))
            .unwrap_or_default()
    }

    /// The `createGame` call of these parameters.
    pub fn call(&self) -> R::createGameCall {
        R::createGameCall {
            opponent: self.opponent,
            creatorWhite: self.creator_white,
            token: self.token,
            stake: self.stake,
            initialTime: self.initial_time,
            increment: self.increment,
            firstMoveWindow: self.first_move_window,
            startState: self.start_bytes(),
        }
    }

    /// An ETH game against `opponent`, the creator white, 30 days each, no increment.
    pub fn eth(opponent: Address, stake: U256) -> Self {
        GameSetup {
            opponent,
            creator_white: true,
            token: Address::ZERO,
            stake,
            initial_time: 30 * 86_400,
            increment: 0,
            first_move_window: 0,
            start: None,
        }
    }
}

pub use crate::ending::Ending;

/// A created game (`GameCreated`).
#[derive(Clone, Debug)]
pub struct Created {
    /// The new game's id.
    pub id: U256,
    /// Its start state.
    pub state: [u8; 128],
    /// Its start history.
    pub history: B256,
    /// Its terms hash, what `joinGame` must be given (`GameCreated.terms`).
    pub terms: B256,
    /// The creation transaction.
    pub receipt: TxReceipt,
}

/// A joined game (`GameJoined`).
#[derive(Clone, Debug)]
pub struct Joined {
    /// White player.
    pub white: Address,
    /// Black player.
    pub black: Address,
    /// The start clock word.
    pub clock: U256,
    /// The join transaction.
    pub receipt: TxReceipt,
}

/// A played move (`MovePlayed`, and `GameEnded` if it ended the game).
#[derive(Clone, Debug)]
pub struct Moved {
    /// The packed move the event reports.
    pub mv: u32,
    /// This game's ply count after the move.
    pub ply: u32,
    /// Section 8 status of the new position.
    pub status: u8,
    /// The new position.
    pub position: Position,
    /// Set if the move ended the game.
    pub ending: Option<Ending>,
    /// The move transaction.
    pub receipt: TxReceipt,
}

/// Result of a transaction that may end the game or change the clock.
#[derive(Clone, Debug)]
pub struct Acted {
    /// Set if the game ended.
    pub ending: Option<Ending>,
    /// New clock word (`DrawOffered`), if any.
    pub clock: Option<U256>,
    /// The transaction.
    pub receipt: TxReceipt,
}

/// A deployed `ChessReferee` on some chain.
#[derive(Debug)]
pub struct Referee<C: Chain> {
    chain: C,
    address: Address,
    /// Storage slot of the `games` mapping, once located (see [`Referee::stored_commitment`]).
    games_slot: Option<U256>,
    /// The last game's commitment slot: (game id, slot), saving a hash per read.
    last_slot: Option<(U256, U256)>,
    /// Storage slot of `nextGameId`, once located (see `Referee::set_next_game_id`).
    next_id_slot: Option<U256>,
}

impl Referee<crate::RevmChain> {
    /// Makes the next `createGame` return `id`, writing the `nextGameId` slot (located
    /// once: the low slot holding `nextGameId()` that, once changed, changes it).
    pub fn set_next_game_id(&mut self, id: U256) -> Result<(), EvmError> {
        let slot = match self.next_id_slot {
            Some(slot) => slot,
            None => {
                let current = self.view("nextGameId", R::nextGameIdCall {})?;
                let address = self.address;
                let mut found = None;
                for i in 0..64u64 {
                    let slot = U256::from(i);
                    if self.chain.storage(address, slot)? != current {
                        continue;
                    }
                    let probe = current + U256::from(0x5eed_u64);
                    self.chain.set_storage(address, slot, probe);
                    let seen = self.view("nextGameId", R::nextGameIdCall {})?;
                    self.chain.set_storage(address, slot, current);
                    if seen == probe {
                        found = Some(slot);
                        break;
                    }
                }
                let slot = found.ok_or_else(|| {
                    EvmError::Chain(crate::ChainError::Evm(
                        "the nextGameId slot of ChessReferee was not found".to_string(),
                    ))
                })?;
                self.next_id_slot = Some(slot);
                slot
            }
        };
        self.chain.set_storage(self.address, slot, id);
        Ok(())
    }
}

impl<C: Chain> Referee<C> {
    /// Deploys a fresh `ChessReferee` from the chain's first account (at its nonce 0, where
    /// the worked examples of docs/CHANNEL.md put it), with the channel's and the tournament's
    /// blueprints and the referee's and the channel's annexes deployed first from the chain's
    /// last account.
    pub fn deploy(mut chain: C) -> Result<Self, EvmError> {
        let deployer = chain.accounts()[0];
        let blueprint_from = *chain.accounts().last().unwrap_or(&deployer);
        let (blueprint, _) = chain.deploy(
            blueprint_from,
            crate::bindings::ChessChannelBlueprint::BYTECODE.clone(),
        )?;
        let (annex, _) = chain.deploy(
            blueprint_from,
            crate::bindings::ChessRefereeAnnex::BYTECODE.clone(),
        )?;
        let (channel_annex, _) = chain.deploy(
            blueprint_from,
            crate::bindings::ChessChannelAnnex::BYTECODE.clone(),
        )?;
        let (tournament_blueprint, _) = chain.deploy(
            blueprint_from,
            crate::bindings::ChessTournamentBlueprint::BYTECODE.clone(),
        )?;
        let (address, _) = chain.deploy(
            deployer,
            crate::deploy::referee_init_code(blueprint, annex, channel_annex, tournament_blueprint),
        )?;
        Ok(Referee {
            chain,
            address,
            games_slot: None,
            last_slot: None,
            next_id_slot: None,
        })
    }

    /// A `ChessReferee` already deployed at `address`.
    pub fn at(chain: C, address: Address) -> Self {
        Referee {
            chain,
            address,
            games_slot: None,
            last_slot: None,
            next_id_slot: None,
        }
    }

    /// The contract's address.
    pub fn address(&self) -> Address {
        self.address
    }

    /// The chain it lives on.
    pub fn chain(&mut self) -> &mut C {
        &mut self.chain
    }

    pub(crate) fn transact<T: SolCall>(
        &mut self,
        operation: &'static str,
        from: Address,
        value: U256,
        call: T,
    ) -> Result<TxReceipt, EvmError> {
        transact_at(&mut self.chain, self.address, operation, from, value, call)
    }

    pub(crate) fn view<T: SolCall>(
        &mut self,
        operation: &'static str,
        call: T,
    ) -> Result<T::Return, EvmError> {
        view_at(&mut self.chain, self.address, operation, call)
    }

    pub(crate) fn events(&self, logs: &[Log]) -> Vec<Event> {
        logs.iter()
            .filter(|log| log.address == self.address)
            .filter_map(|log| Event::decode_log(log).ok().map(|l| l.data))
            .collect()
    }

    /// The ending (`GameEnded`) among a receipt's logs, if any.
    pub fn ending(&self, logs: &[Log]) -> Result<Option<Ending>, EvmError> {
        let ended = self.events(logs).into_iter().find_map(|e| match e {
            Event::GameEnded(e) => Some((e.result, e.reason)),
            _ => None,
        });
        ended
            .map(|(result, reason)| Ending::from_codes(result, reason))
            .transpose()
            .map_err(|e| EvmError::Decode {
                operation: "GameEnded",
                message: e.to_string(),
            })
    }

    /// `createGame`, paying `setup.stake` in ETH when the token is ETH.
    pub fn create_game(
        &mut self,
        creator: Address,
        setup: &GameSetup,
    ) -> Result<Created, EvmError> {
        let receipt = self.transact("createGame", creator, setup.value(), setup.call())?;
        self.created("createGame", receipt)
    }

    /// The `GameCreated` of a creation receipt.
    pub fn created(
        &self,
        operation: &'static str,
        receipt: TxReceipt,
    ) -> Result<Created, EvmError> {
        let created = self
            .events(&receipt.logs)
            .into_iter()
            .find_map(|e| match e {
                Event::GameCreated(e) => Some(e),
                _ => None,
            });
        let e = created.ok_or(EvmError::MissingEvent {
            operation,
            event: "GameCreated",
        })?;
        let state = <[u8; 128]>::try_from(e.state.as_ref()).map_err(|_| EvmError::Decode {
            operation,
            message: format!("state of {} bytes", e.state.len()),
        })?;
        Ok(Created {
            id: e.gameId,
            state,
            history: e.history,
            terms: e.terms,
            receipt,
        })
    }

    /// The `GameJoined` among a receipt's logs: a join's, or a game the tournament hosted.
    pub fn joined(&self, logs: &[Log]) -> Option<crate::bindings::ChessReferee::GameJoined> {
        self.events(logs).into_iter().find_map(|e| match e {
            Event::GameJoined(e) => Some(e),
            _ => None,
        })
    }

    /// `joinGame` under the terms the game has now (read with `getGame`), paying `value`
    /// wei. A joiner that agreed to terms beforehand uses [`Referee::join_game_with_terms`].
    pub fn join_game(
        &mut self,
        joiner: Address,
        id: U256,
        value: U256,
    ) -> Result<Joined, EvmError> {
        let terms = self.game(id)?.terms;
        self.join_game_with_terms(joiner, id, terms, value)
    }

    /// `joinGame(id, terms)`, paying `value` wei: reverts `WrongTerms` unless `terms` is
    /// the game's terms hash (`Created::terms`, `termsHash`).
    pub fn join_game_with_terms(
        &mut self,
        joiner: Address,
        id: U256,
        terms: B256,
        value: U256,
    ) -> Result<Joined, EvmError> {
        let call = R::joinGameCall { gameId: id, terms };
        let receipt = self.transact("joinGame", joiner, value, call)?;
        let e = self.joined(&receipt.logs).ok_or(EvmError::MissingEvent {
            operation: "joinGame",
            event: "GameJoined",
        })?;
        Ok(Joined {
            white: e.white,
            black: e.black,
            clock: e.clock,
            receipt,
        })
    }

    /// `cancelGame`.
    pub fn cancel_game(&mut self, creator: Address, id: U256) -> Result<TxReceipt, EvmError> {
        self.transact(
            "cancelGame",
            creator,
            U256::ZERO,
            R::cancelGameCall { gameId: id },
        )
    }

    fn moved(&self, operation: &'static str, receipt: TxReceipt) -> Result<Moved, EvmError> {
        let events = self.events(&receipt.logs);
        let played = events.iter().find_map(|e| match e {
            Event::MovePlayed(e) => Some(e.clone()),
            _ => None,
        });
        let e = played.ok_or(EvmError::MissingEvent {
            operation,
            event: "MovePlayed",
        })?;
        let state = <[u8; 128]>::try_from(e.state.as_ref()).map_err(|_| EvmError::Decode {
            operation,
            message: format!("state of {} bytes", e.state.len()),
        })?;
        Ok(Moved {
            mv: e.r#move.to::<u32>(),
            ply: e.ply,
            status: e.status,
            position: Position {
                state,
                history: e.history,
                clock: e.clock,
            },
            ending: self.ending(&receipt.logs)?,
            receipt,
        })
    }

    /// `move`: plays `packed_move` from `position` as `player`.
    pub fn play_move(
        &mut self,
        player: Address,
        id: U256,
        position: &Position,
        packed_move: u32,
    ) -> Result<Moved, EvmError> {
        let call = R::moveCall {
            gameId: id,
            state: Bytes::copy_from_slice(&position.state),
            history: position.history,
            clock: position.clock,
            mv: alloy_primitives::aliases::U24::from(packed_move & 0xff_ffff),
        };
        let receipt = self.transact("move", player, U256::ZERO, call)?;
        self.moved("move", receipt)
    }

    /// `moveAndClaimDraw` with the witness `keys` of the position after the move.
    pub fn move_and_claim_draw(
        &mut self,
        player: Address,
        id: U256,
        position: &Position,
        packed_move: u32,
        keys: Vec<B256>,
    ) -> Result<Moved, EvmError> {
        let call = R::moveAndClaimDrawCall {
            gameId: id,
            state: Bytes::copy_from_slice(&position.state),
            history: position.history,
            clock: position.clock,
            mv: alloy_primitives::aliases::U24::from(packed_move & 0xff_ffff),
            keys,
        };
        let receipt = self.transact("moveAndClaimDraw", player, U256::ZERO, call)?;
        self.moved("moveAndClaimDraw", receipt)
    }

    pub(crate) fn acted(&self, receipt: TxReceipt) -> Result<Acted, EvmError> {
        let clock = self
            .events(&receipt.logs)
            .into_iter()
            .find_map(|e| match e {
                Event::DrawOffered(e) => Some(e.clock),
                _ => None,
            });
        Ok(Acted {
            ending: self.ending(&receipt.logs)?,
            clock,
            receipt,
        })
    }

    /// `claimDraw` (fifty moves, or threefold with the witness `keys`).
    pub fn claim_draw(
        &mut self,
        player: Address,
        id: U256,
        position: &Position,
        keys: Vec<B256>,
    ) -> Result<Acted, EvmError> {
        let call = R::claimDrawCall {
            gameId: id,
            state: Bytes::copy_from_slice(&position.state),
            history: position.history,
            clock: position.clock,
            keys,
        };
        let receipt = self.transact("claimDraw", player, U256::ZERO, call)?;
        self.acted(receipt)
    }

    /// `offerDraw`; the returned `clock` is the position's new clock word.
    pub fn offer_draw(
        &mut self,
        player: Address,
        id: U256,
        position: &Position,
    ) -> Result<Acted, EvmError> {
        let call = R::offerDrawCall {
            gameId: id,
            state: Bytes::copy_from_slice(&position.state),
            history: position.history,
            clock: position.clock,
        };
        let receipt = self.transact("offerDraw", player, U256::ZERO, call)?;
        self.acted(receipt)
    }

    /// `acceptDraw`.
    pub fn accept_draw(
        &mut self,
        player: Address,
        id: U256,
        position: &Position,
    ) -> Result<Acted, EvmError> {
        let call = R::acceptDrawCall {
            gameId: id,
            state: Bytes::copy_from_slice(&position.state),
            history: position.history,
            clock: position.clock,
        };
        let receipt = self.transact("acceptDraw", player, U256::ZERO, call)?;
        self.acted(receipt)
    }

    /// `claimTimeout`.
    pub fn claim_timeout(
        &mut self,
        player: Address,
        id: U256,
        position: &Position,
    ) -> Result<Acted, EvmError> {
        let call = R::claimTimeoutCall {
            gameId: id,
            state: Bytes::copy_from_slice(&position.state),
            history: position.history,
            clock: position.clock,
        };
        let receipt = self.transact("claimTimeout", player, U256::ZERO, call)?;
        self.acted(receipt)
    }

    /// `resign`.
    pub fn resign(&mut self, player: Address, id: U256) -> Result<Acted, EvmError> {
        let receipt = self.transact("resign", player, U256::ZERO, R::resignCall { gameId: id })?;
        self.acted(receipt)
    }

    /// `withdraw(token)`; `Address::ZERO` for ETH.
    pub fn withdraw(&mut self, account: Address, token: Address) -> Result<TxReceipt, EvmError> {
        self.transact("withdraw", account, U256::ZERO, R::withdrawCall { token })
    }

    /// `credits(account, token)`.
    pub fn credits(&mut self, account: Address, token: Address) -> Result<U256, EvmError> {
        self.view("credits", R::creditsCall { account, token })
    }

    /// `withdrawTo(token, to)`: the account's whole credit in `token` sent to `to`.
    pub fn withdraw_to(
        &mut self,
        account: Address,
        token: Address,
        to: Address,
    ) -> Result<TxReceipt, EvmError> {
        self.transact(
            "withdrawTo",
            account,
            U256::ZERO,
            R::withdrawToCall { token, to },
        )
    }

    /// `getGame(id)`.
    pub fn game(
        &mut self,
        id: U256,
    ) -> Result<crate::bindings::IChessRefereeTypes::GameInfo, EvmError> {
        self.view("getGame", R::getGameCall { gameId: id })
    }

    /// `commitmentOf(id)`.
    pub fn commitment_of(&mut self, id: U256) -> Result<B256, EvmError> {
        self.view("commitmentOf", R::commitmentOfCall { gameId: id })
    }

    /// The commitment stored for game `id`, read straight from storage (one
    /// slot read instead of a call); falls back to `commitmentOf` until the
    /// `games` mapping's slot has been located from a running game.
    pub fn stored_commitment(&mut self, id: U256) -> Result<B256, EvmError> {
        if let Some(base) = self.games_slot {
            let slot = match self.last_slot {
                Some((last, slot)) if last == id => slot,
                _ => {
                    let slot = Self::game_slot(id, base);
                    self.last_slot = Some((id, slot));
                    slot
                }
            };
            let word = self.chain.storage(self.address, slot)?;
            return Ok(B256::from(word.to_be_bytes::<32>()));
        }
        let commitment = self.commitment_of(id)?;
        if commitment != B256::ZERO {
            // REFEREE.md section 6: slot 0 of a game's struct is its commitment.
            for base in 0..16u64 {
                let word = self
                    .chain
                    .storage(self.address, Self::game_slot(id, U256::from(base)))?;
                if B256::from(word.to_be_bytes::<32>()) == commitment {
                    self.games_slot = Some(U256::from(base));
                    break;
                }
            }
        }
        Ok(commitment)
    }

    fn game_slot(id: U256, base: U256) -> U256 {
        let mut buf = [0u8; 64];
        buf[..32].copy_from_slice(&id.to_be_bytes::<32>());
        buf[32..].copy_from_slice(&base.to_be_bytes::<32>());
        U256::from_be_bytes(keccak256(buf).0)
    }

    /// `clocks(id, position)`: (white left, black left, white to move, deadline).
    pub fn clocks(
        &mut self,
        id: U256,
        position: &Position,
    ) -> Result<(U256, U256, bool, U256), EvmError> {
        let r = self.view(
            "clocks",
            R::clocksCall {
                gameId: id,
                state: Bytes::copy_from_slice(&position.state),
                history: position.history,
                clock: position.clock,
            },
        )?;
        Ok((r.whiteLeft, r.blackLeft, r.whiteToMove, r.deadline))
    }
}

/// Sends `call` from `from` to the contract at `to` with `value` wei; a revert is
/// `EvmError::Reverted` with the contract's error decoded.
pub(crate) fn transact_at<C: Chain, T: SolCall>(
    chain: &mut C,
    to: Address,
    operation: &'static str,
    from: Address,
    value: U256,
    call: T,
) -> Result<TxReceipt, EvmError> {
    let tx = TxRequest::call(from, to, call.abi_encode()).with_value(value);
    let receipt = chain.send(tx)?;
    if receipt.success {
        Ok(receipt)
    } else {
        Err(EvmError::Reverted {
            operation,
            revert: ContractRevert::decode(&receipt.output),
            gas_used: receipt.gas_used,
        })
    }
}

/// Calls view `call` of the contract at `to`.
pub(crate) fn view_at<C: Chain, T: SolCall>(
    chain: &mut C,
    to: Address,
    operation: &'static str,
    call: T,
) -> Result<T::Return, EvmError> {
    // A read-only connection (a reader with no key) has no account: a view needs none.
    let from = chain.accounts().first().copied().unwrap_or(Address::ZERO);
    chain
        .call(from, to, Bytes::from(call.abi_encode()))?
        .decode::<T>(operation)
}
