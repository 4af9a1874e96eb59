//! What the chain shows of a channel game's signed moves (docs/CHANNEL.md 7.3): its frozen
//! registration, with the signed pair its transaction carried and when the chain first
//! showed each of the pair's moves, read once here for the watchtower and a player's
//! client alike. A player's seat takes those moves in, held from their showing
//! ([`ChannelSeat::receive_shown`]), and every overtake of the registration is charged by
//! its registered position ([`Frozen::answering`]); every registration is read with its
//! sender ([`registrations`]). What is read here is the chain's; what
//! it means and what to send is `chessref_channel::registration`'s, which the browser
//! package shares.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolCall;
use chessref_channel::messages::{IChessChannel, Message};
use chessref_channel::registration::{self, Registration};
use chessref_channel::seat::{ChannelSeat, Received};
use chessref_channel::settlement::Settlement;
use chessref_channel::{Auth, Move, Refusal};
use chessref_core::{Color, State};
use chessref_evm::{Chain, EvmError, Position, Referee, RpcChain};

use crate::game_log::GameLog;

/// Blocks per `eth_getLogs` request when looking back for a registration.
pub const LOG_SPAN: u64 = 10_000;

/// A channel game's latest registration, as the chain shows it (frozen until
/// `window_end`, then live).
#[derive(Clone, Debug)]
pub struct Frozen {
    /// The registered ply.
    pub ply: u32,
    /// `windowEnd`: until then only a later pair, a proof or an agreement replaces it.
    pub window_end: u64,
    /// The registered position (`PositionRegistered`).
    pub position: Position,
    /// The signed pair the registration carried (`register`'s `previous` and `last`
    /// with their authorisations), when its transaction's calldata could be read.
    pub pair: Option<[(Move, Auth); 2]>,
    /// When the chain first showed each move of `pair` (block time): the registration's
    /// block, or an earlier showing of the move (`announcedAt`, `shownWhileFrozenAt`). What
    /// the side to move holds the move from.
    pub shown: [u64; 2],
}

impl Frozen {
    /// The registered position as every client answers it
    /// ([`chessref_channel::registration`]).
    pub fn registration(&self) -> Registration {
        Registration::new(self.position.frozen())
    }

    /// `settlement` sent while this registration is frozen ([`Registration::answering`]):
    /// a `register` names the registered position, which an overtake is charged by.
    pub fn answering(&self, settlement: Settlement) -> Settlement {
        self.registration().answering(settlement)
    }

    /// Whether its response window still runs at `now` (chain time): only a later pair, a
    /// proof or an agreement replaces it, and the side to move answers by registering.
    pub fn is_open(&self, now: u64) -> bool {
        now < self.window_end
    }

    /// The side to move in the registered position (`None` for a state that does not read).
    pub fn to_move(&self) -> Option<Color> {
        State::from_bytes(&self.position.state)
            .ok()
            .map(|state| state.turn())
    }

    /// The side to move's deadline by the wall clock (`ClockWord.replyDeadline`): its direct
    /// reply must count by then (`FlagFell` after), and once the window is over its flag
    /// falls then. 0 for a position registered without one.
    pub fn reply_deadline(&self) -> u64 {
        self.registration().reply_deadline()
    }

    /// The latest registration of channel game `id` on `referee`'s chain, while the game
    /// runs with one (`None` off-chain, or once it ended), read from its
    /// `PositionRegistered`, the transaction that emitted it and the channel's
    /// announcements.
    pub fn read(referee: &mut Referee<RpcChain>, id: U256) -> Result<Option<Frozen>, EvmError> {
        if registration(referee, id)?.is_none() {
            return Ok(None);
        }
        let Some((place, registered)) = referee.latest_registration_at(id, LOG_SPAN)? else {
            return Ok(None);
        };
        let input = referee.chain().transaction_input(place.tx_hash)?;
        let pair = input.and_then(|input| registration::pair_of(&input));
        let at = referee
            .chain()
            .block_ref(place.block_number)?
            .map_or(0, |block| block.timestamp);
        let shown = match &pair {
            Some([(previous, _), (last, _)]) => [
                first_shown(referee, previous.hash(), at)?,
                first_shown(referee, last.hash(), at)?,
            ],
            None => [at; 2],
        };
        Ok(Some(Frozen {
            ply: registered.ply,
            window_end: Registration::new(registered.position.frozen()).window_end(),
            position: registered.position,
            pair,
            shown,
        }))
    }

    /// Takes the moves of the registered pair that `seat` does not hold into it, each held
    /// from when the chain first showed it ([`ChannelSeat::receive_shown`]), at `now`: what
    /// came in, and the moves refused (a pair that contradicts the seat's transcript).
    pub fn take_into(
        &self,
        seat: &mut ChannelSeat,
        now: u64,
    ) -> (Vec<Received>, Vec<(u32, Refusal)>) {
        let (mut taken, mut refused) = (Vec::new(), Vec::new());
        for ((mv, auth), shown) in self.pair.iter().flatten().zip(self.shown) {
            match seat.receive_shown(mv, auth, shown, now) {
                Ok(Received::Known) => {}
                Ok(received) => taken.push(received),
                Err(refusal) => refused.push((mv.ply, refusal)),
            }
        }
        (taken, refused)
    }
}

/// A registration of a channel game as the chain shows it: who sent it, when, and until
/// when its response window runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registered {
    /// The registered ply.
    pub ply: u32,
    /// The transaction's sender (`None`: the node does not know the transaction).
    pub sender: Option<Address>,
    /// `windowEnd` of the registered position (unix time).
    pub window_end: u64,
    /// The ply of the registration it replaced (an overtake), if any.
    pub overtook: Option<u32>,
    /// The transaction.
    pub tx: B256,
    /// Its block's time (0: the node does not know the block).
    pub at: u64,
}

/// Every registration of `log` (the game's `PositionRegistered` events, in order) with its
/// sender, read from `chain`.
pub fn registrations(chain: &RpcChain, log: &GameLog) -> Result<Vec<Registered>, EvmError> {
    let mut registered: Vec<Registered> = Vec::with_capacity(log.registrations.len());
    for r in &log.registrations {
        let at = chain
            .block_ref(r.place.block_number)?
            .map_or(0, |block| block.timestamp);
        registered.push(Registered {
            ply: r.ply,
            sender: chain.transaction_sender(r.place.tx_hash)?,
            window_end: Registration::new(r.position.frozen()).window_end(),
            overtook: registered.last().map(|previous| previous.ply),
            tx: r.place.tx_hash,
            at,
        });
    }
    Ok(registered)
}

/// `(registeredPly, windowEnd)` of channel game `id` while it runs with a registration
/// (`None` off-chain or once ended): one view call, what tells a new registration apart.
pub fn registration(
    referee: &mut Referee<RpcChain>,
    id: U256,
) -> Result<Option<(u32, u64)>, EvmError> {
    let status = referee.channel_status(id)?;
    // PHASE_RUNNING, with a registration (a window end).
    Ok((status.phase == 2 && status.windowEnd != 0)
        .then_some((status.registeredPly, status.windowEnd)))
}

/// When the chain first showed the signed move `hash`, which the block at `at` shows now
/// ([`registration::first_shown`]), from the channel's records of its announcement and of
/// its showing while frozen.
fn first_shown(referee: &mut Referee<RpcChain>, hash: B256, at: u64) -> Result<u64, EvmError> {
    let announced = announced_at(referee, hash)?;
    let while_frozen = channel_view(
        referee,
        IChessChannel::shownWhileFrozenAtCall { moveHash: hash },
        "shownWhileFrozenAt",
    )?;
    Ok(registration::first_shown(
        at,
        announced,
        while_frozen.saturating_to::<u64>(),
    ))
}

/// A view of the referee's `ChessChannel`.
fn channel_view<T: SolCall>(
    referee: &mut Referee<RpcChain>,
    call: T,
    name: &'static str,
) -> Result<T::Return, EvmError> {
    let channel = referee.channel()?;
    let from = referee
        .chain()
        .accounts()
        .first()
        .copied()
        .unwrap_or(Address::ZERO);
    referee
        .chain()
        .call(from, channel, Bytes::from(call.abi_encode()))?
        .decode::<T>(name)
}

/// `ChessChannel.announcedAt(hash)`: when the signed move `hash` was first announced while
/// its game was off-chain (block time; 0: never).
pub fn announced_at(referee: &mut Referee<RpcChain>, hash: B256) -> Result<u64, EvmError> {
    let call = IChessChannel::announcedAtCall { moveHash: hash };
    Ok(channel_view(referee, call, "announcedAt")?.saturating_to::<u64>())
}

/// The ply that a transaction's `logs` registered at the referee at `referee` (its
/// `PositionRegistered`), if any. A `register` that names another position than the frozen
/// one (sent before another registration landed) registers nothing once the contract
/// records when it showed its move instead (CHANNEL.md 7.3): its sender must look.
pub fn registered_in(referee: Address, logs: &[alloy_primitives::Log]) -> Option<u32> {
    use alloy_sol_types::SolEvent;
    use chessref_evm::bindings::ChessReferee::PositionRegistered;
    logs.iter()
        .filter(|log| log.address == referee)
        .find_map(|log| PositionRegistered::decode_log(log).ok())
        .map(|event| event.ply)
}
