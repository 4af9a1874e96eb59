//! Channel games on a `ChessReferee` (docs/CHANNEL.md): created and joined with
//! stakes like any game, played off-chain with signed moves (`chessref-channel`), and
//! settled or disputed through the referee's `ChessChannel`.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolCall;
use chessref_channel::messages::Message;
use chessref_channel::settlement::Settlement;
use chessref_channel::{ChannelDomain, ChannelGame, Move};

use crate::bindings::ChessChannel as K;
use crate::bindings::ChessReferee::{self as R, ChessRefereeEvents as Event};
use crate::chain::{Chain, TxRequest};
use crate::error::EvmError;
use crate::referee::{Acted, Created, GameSetup, Position, Referee};
use crate::revert::ContractRevert;

/// The `ChessChannel` of the referee at `referee`: the contract its constructor creates,
/// its first `CREATE` (an account's nonce starts at 1, EIP-161), so the address follows
/// from the referee's alone (`ChessReferee.channel()`).
pub fn channel_address(referee: Address) -> Address {
    referee.create(1)
}

/// A position the channel registered for on-chain play (`PositionRegistered`).
#[derive(Clone, Debug)]
pub struct Registered {
    /// The registered ply.
    pub ply: u32,
    /// The position on-chain play continues from.
    pub position: Position,
}

impl Registered {
    /// The registration a `PositionRegistered` event reports (`None` if its state is not
    /// 128 bytes).
    fn of(e: &R::PositionRegistered) -> Option<Registered> {
        Some(Registered {
            ply: e.ply,
            position: Position {
                state: <[u8; 128]>::try_from(e.state.as_ref()).ok()?,
                history: e.history,
                clock: e.clock,
            },
        })
    }
}

impl<C: Chain> Referee<C> {
    /// The referee's `ChessChannel` (`channel()`).
    pub fn channel(&mut self) -> Result<Address, EvmError> {
        self.view("channel", R::channelCall {})
    }

    /// The EIP-712 domain of this referee's channel on this chain.
    pub fn channel_domain(&mut self) -> Result<ChannelDomain, EvmError> {
        let verifying_contract = self.channel()?;
        let chain_id = self.chain().chain_id()?;
        Ok(ChannelDomain {
            chain_id,
            verifying_contract,
        })
    }

    /// `createChannelGame`: `setup`'s terms plus the response window.
    pub fn create_channel_game(
        &mut self,
        creator: Address,
        setup: &GameSetup,
        response_window: u32,
    ) -> Result<Created, EvmError> {
        let value = setup.value();
        let call = create_channel_game_call(setup, response_window);
        let receipt = self.transact("createChannelGame", creator, value, call)?;
        self.created("createChannelGame", receipt)
    }

    /// `createChannelGame` sent by contract wallet `wallet` (`OwnerWallet.execute`, by its
    /// owner `owner`), the stake paid from the wallet.
    pub fn create_channel_game_through(
        &mut self,
        owner: Address,
        wallet: Address,
        setup: &GameSetup,
        response_window: u32,
    ) -> Result<Created, EvmError> {
        let data = create_channel_game_call(setup, response_window).abi_encode();
        let referee = self.address();
        let receipt = self.through_wallet(owner, wallet, referee, setup.value(), data.into())?;
        self.created("createChannelGame", receipt)
    }

    /// Calls `target` with `value` and `data` from contract wallet `wallet`
    /// (`OwnerWallet.execute`, sent by its owner `owner`); its revert decoded.
    pub fn through_wallet(
        &mut self,
        owner: Address,
        wallet: Address,
        target: Address,
        value: U256,
        data: Bytes,
    ) -> Result<crate::chain::TxReceipt, EvmError> {
        let call = crate::bindings::OwnerWallet::executeCall {
            target,
            value,
            data,
        };
        let receipt = self
            .chain()
            .send(TxRequest::call(owner, wallet, call.abi_encode()))?;
        if !receipt.success {
            return Err(EvmError::Reverted {
                operation: "OwnerWallet.execute",
                revert: ContractRevert::decode(&receipt.output),
                gas_used: receipt.gas_used,
            });
        }
        Ok(receipt)
    }

    /// The protocol's view of channel game `id` (players and terms), from `getGame`.
    pub fn channel_game(
        &mut self,
        id: U256,
        start: Option<[u8; 128]>,
    ) -> Result<ChannelGame, EvmError> {
        let info = self.game(id)?;
        Ok(ChannelGame {
            game_id: id,
            white: info.white,
            black: info.black,
            initial_time: info.initialTime,
            increment: info.increment,
            response_window: info.responseWindow,
            start_state: start.map(|s| Bytes::copy_from_slice(&s)),
        })
    }

    /// Sends a `ChessChannel` call (from `chessref_channel::settlement`) from `from`.
    pub fn send_channel(
        &mut self,
        from: Address,
        settlement: &Settlement,
    ) -> Result<Acted, EvmError> {
        self.send_channel_paying(from, settlement, None)
    }

    /// [`send_channel`](Referee::send_channel) paying a priority fee of at least `tip` wei
    /// per gas ([`TxRequest::with_priority_fee`]), when one is given: for a call that must
    /// be included soon (a registration or an announcement a clock depends on).
    pub fn send_channel_paying(
        &mut self,
        from: Address,
        settlement: &Settlement,
        tip: Option<u128>,
    ) -> Result<Acted, EvmError> {
        let channel = self.channel()?;
        let mut tx = TxRequest::call(from, channel, settlement.calldata.clone());
        if let Some(tip) = tip {
            tx = tx.with_priority_fee(tip);
        }
        let receipt = self.chain().send(tx)?;
        if !receipt.success {
            return Err(EvmError::Reverted {
                operation: settlement.call,
                revert: ContractRevert::decode(&receipt.output),
                gas_used: receipt.gas_used,
            });
        }
        self.acted(receipt)
    }

    /// The channel side of game `id` (`channelGame`): its players and terms, its phase, the
    /// latest registration's ply and the end of its response window (0 while off-chain).
    pub fn channel_status(&mut self, id: U256) -> Result<R::ChannelGame, EvmError> {
        self.view("channelGame", R::channelGameCall { gameId: id })
    }

    /// `ChessReferee.finishRegistered`: ends a game whose registered position is decided,
    /// once its response window is over (anyone may send it).
    pub fn finish_registered(
        &mut self,
        from: Address,
        id: U256,
        position: &Position,
    ) -> Result<Acted, EvmError> {
        let call = R::finishRegisteredCall {
            gameId: id,
            state: Bytes::copy_from_slice(&position.state),
            history: position.history,
            clock: position.clock,
        };
        let receipt = self.transact("finishRegistered", from, U256::ZERO, call)?;
        self.acted(receipt)
    }

    /// The `PositionRegistered` of a registration's receipt, if any.
    pub fn registered(&self, acted: &Acted) -> Option<Registered> {
        self.events(&acted.receipt.logs)
            .into_iter()
            .find_map(|e| match e {
                Event::PositionRegistered(e) => Registered::of(&e),
                _ => None,
            })
    }

    /// `hashMove`, `hashDelegation`, ... and `digestOf` as the contract computes them:
    /// `(hashStruct, digest)` of `message`.
    pub fn contract_hashes<M: Message + ContractHash>(
        &mut self,
        message: &M,
    ) -> Result<(B256, B256), EvmError> {
        let channel = self.channel()?;
        let from = self.chain().accounts()[0];
        let hash = match self.chain().call(from, channel, message.hash_call())? {
            crate::CallOutcome::Return(data) => {
                B256::from_slice(data.get(..32).ok_or(EvmError::Decode {
                    operation: "hash",
                    message: "short return".into(),
                })?)
            }
            crate::CallOutcome::Revert(data) => {
                return Err(EvmError::Reverted {
                    operation: "hash",
                    revert: ContractRevert::decode(&data),
                    gas_used: 0,
                });
            }
        };
        let digest = self
            .chain()
            .call(
                from,
                channel,
                K::digestOfCall { structHash: hash }.abi_encode().into(),
            )?
            .decode::<K::digestOfCall>("digestOf")?;
        Ok((hash, digest))
    }

    /// `transitionCode(gameId, increment, q, m)`: the contract's CHANNEL.md section 6
    /// verdict, `(code, ruleCode)`, `(0, 0)` for a valid successor.
    pub fn contract_transition(
        &mut self,
        game_id: U256,
        increment: u32,
        previous: &Move,
        next: &Move,
    ) -> Result<(u8, u8), EvmError> {
        let channel = self.channel()?;
        let from = self.chain().accounts()[0];
        let call = K::transitionCodeCall {
            gameId: game_id,
            increment: U256::from(increment),
            q: convert(previous),
            m: convert(next),
        };
        let r = self
            .chain()
            .call(from, channel, call.abi_encode().into())?
            .decode::<K::transitionCodeCall>("transitionCode")?;
        Ok((
            r.code.saturating_to::<u8>(),
            r.ruleCode.saturating_to::<u8>(),
        ))
    }
}

/// The `createChannelGame` call of `setup`'s terms and the response window.
/// The `createChannelGame` call of `setup` with `response_window`.
pub fn create_channel_game_call(
    setup: &GameSetup,
    response_window: u32,
) -> R::createChannelGameCall {
    R::createChannelGameCall {
        opponent: setup.opponent,
        creatorWhite: setup.creator_white,
        token: setup.token,
        stake: setup.stake,
        initialTime: setup.initial_time,
        increment: setup.increment,
        firstMoveWindow: setup.first_move_window,
        startState: setup.start_bytes(),
        responseWindow: response_window,
    }
}

/// A message the channel contract hashes with a view of its own.
pub trait ContractHash {
    /// The calldata of its hashing view.
    fn hash_call(&self) -> Bytes;
}

fn convert(m: &Move) -> K::Move {
    K::Move {
        gameId: m.gameId,
        ply: m.ply,
        mv: m.mv,
        state: m.state.clone(),
        history: m.history,
        whiteTime: m.whiteTime,
        blackTime: m.blackTime,
        timestamp: m.timestamp,
        previous: m.previous,
    }
}

impl ContractHash for Move {
    fn hash_call(&self) -> Bytes {
        K::hashMoveCall { m: convert(self) }.abi_encode().into()
    }
}

impl ContractHash for chessref_channel::Delegation {
    fn hash_call(&self) -> Bytes {
        K::hashDelegationCall {
            d: K::Delegation {
                gameId: self.gameId,
                sessionKey: self.sessionKey,
                firstPly: self.firstPly,
                lastPly: self.lastPly,
                expires: self.expires,
            },
        }
        .abi_encode()
        .into()
    }
}

impl ContractHash for chessref_channel::Resignation {
    fn hash_call(&self) -> Bytes {
        K::hashResignationCall {
            r: K::Resignation {
                gameId: self.gameId,
                ply: self.ply,
                position: self.position,
            },
        }
        .abi_encode()
        .into()
    }
}

impl ContractHash for chessref_channel::ResultMessage {
    fn hash_call(&self) -> Bytes {
        K::hashResultCall {
            r: K::Result {
                gameId: self.gameId,
                ply: self.ply,
                position: self.position,
                result: self.result,
            },
        }
        .abi_encode()
        .into()
    }
}

impl ContractHash for chessref_channel::Receipt {
    fn hash_call(&self) -> Bytes {
        K::hashReceiptCall {
            r: K::Receipt {
                gameId: self.gameId,
                ply: self.ply,
                position: self.position,
                seenAt: self.seenAt,
            },
        }
        .abi_encode()
        .into()
    }
}

impl ContractHash for chessref_channel::DrawOffer {
    fn hash_call(&self) -> Bytes {
        K::hashDrawOfferCall {
            o: K::DrawOffer {
                gameId: self.gameId,
                ply: self.ply,
                position: self.position,
            },
        }
        .abi_encode()
        .into()
    }
}

impl<C: Chain> Referee<C> {
    /// The referee a `ChessChannel` at `channel` belongs to (`referee()`), as a client on
    /// `chain`: what a transcript's domain leads to.
    pub fn of_channel(mut chain: C, channel: Address) -> Result<Referee<C>, EvmError> {
        let from = chain.accounts().first().copied().unwrap_or(Address::ZERO);
        let referee = chain
            .call(from, channel, K::refereeCall {}.abi_encode().into())?
            .decode::<K::refereeCall>("referee")?;
        Ok(Referee::at(chain, referee))
    }
}

impl Referee<crate::RpcChain> {
    /// The latest `PositionRegistered` of game `id`, looked up in the node's logs, newest
    /// blocks first, `span` blocks per request (providers bound a log query's range).
    pub fn latest_registration(
        &mut self,
        id: U256,
        span: u64,
    ) -> Result<Option<Registered>, EvmError> {
        Ok(self
            .latest_registration_at(id, span)?
            .map(|(_, registered)| registered))
    }

    /// [`latest_registration`](Referee::latest_registration) with the place of its event
    /// (its transaction carries the registered pair).
    pub fn latest_registration_at(
        &mut self,
        id: U256,
        span: u64,
    ) -> Result<Option<(crate::LogPlace, Registered)>, EvmError> {
        use alloy_sol_types::SolEvent;
        let address = self.address();
        let head = self.chain().head()?;
        let mut to = head;
        loop {
            let from = to.saturating_sub(span.max(1) - 1);
            let logs = self.chain().logs_matching(
                address,
                from,
                to,
                [
                    Some(R::PositionRegistered::SIGNATURE_HASH),
                    Some(B256::from(id)),
                    None,
                    None,
                ],
            )?;
            let found = logs.iter().rev().find_map(|(place, log)| {
                let registered =
                    Registered::of(&R::PositionRegistered::decode_log_data(&log.data).ok()?)?;
                Some((*place, registered))
            });
            if found.is_some() || from == 0 {
                return Ok(found);
            }
            to = from - 1;
        }
    }
}
