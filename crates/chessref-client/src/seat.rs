//! One player's seat at the referee of a real chain: what `chessref game` does,
//! with the command line kept to parsing and printing.
//!
//! The seat trusts the chain only through the referee's events: a game is read by
//! folding its logs ([`crate::game_log`]), every move replayed by `chessref-core`, and
//! the position the fold ends on must hash to the commitment the referee stores. Every
//! action is checked here first (the game exists and runs, it is the player's turn, the
//! move is legal), then estimated by the node (`eth_estimateGas`: a call the referee
//! would refuse is reported by its custom error and never sent), and only then sent.

use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolEvent};
use chessref_core::{Color, RawMove, SanError, State, Verdict};
use serde::Serialize;

use chessref_channel::settlement::Settlement;
use chessref_evm::{
    Chain, ChainError, ContractRevert, EvmError, RpcChain, TxReceipt, TxRequest,
    bindings::{ChessReferee as R, IERC20},
    ending::Ending,
    referee::{GameSetup, Position, Referee},
};

use crate::amount::Unit;
use crate::channel_moves::{MovesFrom, Refused};
use crate::game_log::{Divergence, GameLog, Phase, RefereeLog, UndecodableLog, fold_game};

/// How a channel game is played (docs/CHANNEL.md): what `chessref game` says of one
/// instead of acting on it.
pub const CHANNEL_PLAY: &str = "played off-chain with signed moves (docs/CHANNEL.md): \
     `chessref channel verify|settle|dispute TRANSCRIPT`";

/// Blocks per `eth_getLogs` request (public providers cap the range; 10,000 is within
/// the common limits).
pub const LOG_RANGE: u64 = 10_000;

/// Why the seat did not act (nothing was sent), or what went wrong sending.
#[derive(Debug, thiserror::Error)]
pub enum SeatError {
    /// The chain failed (unreachable, not JSON-RPC, ...).
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// A call or transaction failed: a revert decoded by name, or an undecodable answer.
    #[error(transparent)]
    Evm(#[from] EvmError),
    /// No `GameCreated` for this id.
    #[error("unknown game id {0}")]
    UnknownGame(U256),
    /// The game is not running (open, ended or cancelled).
    #[error("game {id} is not running ({state})")]
    NotRunning {
        /// The game.
        id: U256,
        /// Its phase and, once ended, how (`ended: black_wins, checkmate`).
        state: String,
    },
    /// The game does not accept this action in its phase (e.g. joining a running game).
    #[error("game {id} is {phase}: {why}")]
    WrongPhase {
        /// The game.
        id: U256,
        /// Its phase.
        phase: &'static str,
        /// What cannot be done.
        why: &'static str,
    },
    /// It is the opponent's move.
    #[error("not your turn in game {id}: {colour} to move ({mover})")]
    NotYourTurn {
        /// The game.
        id: U256,
        /// The side to move.
        colour: &'static str,
        /// The player to move.
        mover: Address,
    },
    /// The sender is not a player of the game.
    #[error("{account} does not play in game {id}")]
    NotAPlayer {
        /// The game.
        id: U256,
        /// The sender.
        account: Address,
    },
    /// A move the rules refuse: the ENCODING.md section 6 code and name.
    #[error("illegal move {text:?} in game {id}: {code} {name} ({message})")]
    IllegalMove {
        /// The game.
        id: U256,
        /// The move as given.
        text: String,
        /// Section 6 code (1..14).
        code: u8,
        /// Section 6 name.
        name: &'static str,
        /// A sentence.
        message: String,
    },
    /// SAN that names no legal move (SAN cannot name an illegal move's squares, so
    /// there is no section 6 code).
    #[error("illegal move {text:?} in game {id}: no legal move matches")]
    NoSuchMove {
        /// The game.
        id: U256,
        /// The move as given.
        text: String,
    },
    /// Text that is neither SAN nor UCI nor a packed move.
    #[error("{0}")]
    MoveSyntax(String),
    /// The fold's position is not what the referee stores.
    #[error("game {id}: the events give commitment {events}, the referee stores {stored}")]
    CommitmentMismatch {
        /// The game.
        id: U256,
        /// `commitment()` of the folded position.
        events: B256,
        /// `commitmentOf(id)`.
        stored: B256,
    },
    /// The events disagree with the rules (the referee at this address is not one to trust).
    #[error(
        "game {id}: the events disagree with the rules at {} (block {}): {} expected {}, found {}",
        .divergence.event, .divergence.place.block_number, .divergence.what,
        .divergence.expected, .divergence.found
    )]
    Divergent {
        /// The game.
        id: U256,
        /// The first divergence.
        divergence: Box<Divergence>,
    },
    /// A log of the referee's address that is not one of its events.
    #[error("{0} (is the address a ChessReferee?)")]
    BadLog(#[from] UndecodableLog),
    /// The node's estimate says the referee would revert: nothing sent. Reads as the
    /// revert's sentence first, what a person acts on.
    #[error("{revert}; nothing sent ({operation} would revert with {})", .revert.name())]
    WouldRevert {
        /// The referee function.
        operation: &'static str,
        /// The decoded revert.
        revert: ContractRevert,
    },
    /// Another reason the seat refuses before sending (named in the message).
    #[error("{0}")]
    Refused(String),
    /// `--wait` ran out of time.
    #[error("game {id}: no answer after {waited:?}")]
    Timeout {
        /// The game.
        id: U256,
        /// How long it waited.
        waited: Duration,
    },
}

impl SeatError {
    /// What the contract reverted with, when that is the reason: the node's estimate
    /// ([`SeatError::WouldRevert`]) or a mined transaction ([`EvmError::Reverted`]).
    pub fn revert(&self) -> Option<&ContractRevert> {
        match self {
            SeatError::WouldRevert { revert, .. } => Some(revert),
            SeatError::Evm(error) => error.revert(),
            _ => None,
        }
    }

    /// Whether the referee would refuse the action (the game, the turn, the move, the
    /// contract's own check): a verdict on the request rather than a failure to make it.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            SeatError::UnknownGame(_)
                | SeatError::NotRunning { .. }
                | SeatError::WrongPhase { .. }
                | SeatError::NotYourTurn { .. }
                | SeatError::NotAPlayer { .. }
                | SeatError::IllegalMove { .. }
                | SeatError::NoSuchMove { .. }
                | SeatError::WouldRevert { .. }
                | SeatError::Refused(_)
                | SeatError::Evm(EvmError::Reverted { .. })
        )
    }
}

/// How many times [`Seat::game_at`] reads a game again whose events and commitment
/// disagree (waits of 0.1, 0.2, 0.4 and 0.8 s) before it reports the mismatch.
const MISMATCH_REREADS: u32 = 4;

/// A transaction checked and estimated, ready to send.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The referee function (`move`, `joinGame`, ...).
    pub operation: &'static str,
    /// The transaction (its gas limit: the estimate plus a fifth).
    pub tx: TxRequest,
    /// The node's gas estimate.
    pub gas: u64,
    /// The node's gas price, wei.
    pub gas_price: u128,
    /// What it does, for a person ("move f2f3 (f3) in game 1").
    pub summary: String,
}

impl Prepared {
    /// The fee at the estimate and the current gas price, wei.
    pub fn fee(&self) -> U256 {
        U256::from(self.gas) * U256::from(self.gas_price)
    }
}

/// A mined transaction of the seat.
#[derive(Clone, Debug)]
pub struct Sent {
    /// The referee function.
    pub operation: &'static str,
    /// The receipt.
    pub receipt: TxReceipt,
    /// The game it created (`createGame`).
    pub created: Option<U256>,
    /// How the game ended, if this ended it.
    pub ending: Option<Ending>,
}

/// A move as shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveView {
    /// Ply count after it (1 = white's first move).
    pub ply: u32,
    /// UCI.
    pub uci: String,
    /// SAN.
    pub san: Option<String>,
}

/// Both clocks at the latest block, and run on to the wall clock's now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClocksView {
    /// White's seconds left at the block.
    pub white: u64,
    /// Black's seconds left at the block.
    pub black: u64,
    /// The wall clock (unix seconds) the `*Now` values are for.
    pub now: u64,
    /// White's seconds left now: the running clock less the seconds since the block.
    pub white_now: u64,
    /// Black's seconds left now.
    pub black_now: u64,
    /// The side whose clock runs (`white`, `black`).
    pub running: &'static str,
    /// When the running side may be flagged (unix seconds): its clock plus its unused
    /// grace (REFEREE.md section 3).
    pub deadline: u64,
    /// The block the clocks are read at.
    pub block_number: u64,
    /// Its timestamp (unix seconds).
    pub block_timestamp: u64,
}

impl ClocksView {
    /// Runs the clocks on to `now` (unix seconds): the running side loses the seconds
    /// since the block (none if the block is later, as on a chain whose time was moved
    /// ahead); the other side's clock stands.
    pub fn run_to(&mut self, now: u64) {
        let elapsed = now.saturating_sub(self.block_timestamp);
        self.now = now;
        (self.white_now, self.black_now) = match self.running {
            "white" => (self.white.saturating_sub(elapsed), self.black),
            _ => (self.white, self.black.saturating_sub(elapsed)),
        };
    }

    /// Seconds from the block to `now` (0 when the block is later).
    pub fn age(&self) -> u64 {
        self.now.saturating_sub(self.block_timestamp)
    }
}

/// The wall clock in unix seconds.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A game as a player sees it: what `chessref game show` draws and `--json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameView {
    /// Game id (decimal).
    pub id: String,
    /// The referee.
    pub referee: Address,
    /// The chain id.
    pub chain_id: u64,
    /// `open`, `running`, `ended`, `cancelled`.
    pub phase: &'static str,
    /// The creator.
    pub creator: Address,
    /// The invited opponent (`null`: open to anyone).
    pub opponent: Option<Address>,
    /// White, once joined.
    pub white: Option<Address>,
    /// Black, once joined.
    pub black: Option<Address>,
    /// Stake of each player in the smallest unit (wei, token base units), decimal.
    pub stake: String,
    /// The stake with its unit (`0.01 ETH`, `1.5 TST`).
    pub stake_text: String,
    /// Stake token (zero: ETH).
    pub token: Address,
    /// Whether the game is a channel game (played off-chain with signed moves).
    pub channel: bool,
    /// Initial time per side, seconds.
    pub initial_time: u32,
    /// Increment per move, seconds.
    pub increment: u32,
    /// The viewer.
    pub you: Address,
    /// The viewer's colour in this game, if a player.
    pub your_colour: Option<&'static str>,
    /// FEN of the current position (the start before the join).
    pub fen: String,
    /// Side to move.
    pub turn: &'static str,
    /// Whether it is the viewer's move in a running game.
    pub your_turn: bool,
    /// Section 8 status name of the position (`ONGOING`, `CHECKMATE`, ...).
    pub status: &'static str,
    /// Whether the side to move is in check.
    pub in_check: bool,
    /// Moves played, in order.
    pub moves: Vec<MoveView>,
    /// The last of them.
    pub last_move: Option<MoveView>,
    /// Who offered a draw in this position.
    pub draw_offer: Option<Address>,
    /// Both clocks, in a running game.
    pub clocks: Option<ClocksView>,
    /// How it ended.
    pub ending: Option<Ending>,
    /// The commitment the referee stores (running games).
    pub commitment: Option<B256>,
    /// A channel game's latest registered ply (`None`: never registered; an ended one was
    /// then settled off-chain, and the chain holds its result, not its moves).
    pub registered_ply: Option<u32>,
    /// Where `moves` come from: the chain, or for a channel game a transcript or the relay
    /// ([`crate::channel_moves`]); `None`: a channel game whose moves were not found.
    pub moves_from: Option<MovesFrom>,
    /// Transcripts of the game found but not shown, and why.
    pub moves_refused: Vec<Refused>,
}

/// A game of the player, as `chessref game list` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameSummary {
    /// Game id (decimal).
    pub id: String,
    /// `open`, `running`, `ended`, `cancelled`.
    pub phase: &'static str,
    /// The player's colour (`null` before the join when the creator's is not it).
    pub your_colour: Option<&'static str>,
    /// The other player (or the invited one, or `null` for an open game).
    pub opponent: Option<Address>,
    /// Moves played.
    pub ply: u32,
    /// Stake of each player in the smallest unit, decimal.
    pub stake: String,
    /// The stake with its unit.
    pub stake_text: String,
    /// Stake token (zero: ETH).
    pub token: Address,
    /// Whether the game is a channel game (played off-chain with signed moves).
    pub channel: bool,
    /// Whether it is the player's move.
    pub your_turn: bool,
    /// How it ended.
    pub ending: Option<Ending>,
}

pub(crate) fn colour_name(colour: Color) -> &'static str {
    match colour {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// One player at one referee.
#[derive(Debug)]
pub struct Seat {
    referee: Referee<RpcChain>,
    player: Address,
    from_block: u64,
    units: std::collections::HashMap<Address, Unit>,
}

impl Seat {
    /// The seat of `chain`'s (only) sender at the referee at `referee`, reading events
    /// from block `from_block` (the referee's deployment block, or 0).
    pub fn new(chain: RpcChain, referee: Address, from_block: u64) -> Result<Seat, SeatError> {
        let player = *chain
            .accounts()
            .first()
            .ok_or(SeatError::Chain(ChainError::NoAccounts))?;
        Seat::of(chain, player, referee, from_block)
    }

    /// A seat that only reads (`chain` may have no account, as a public endpoint has none):
    /// its player is nobody (the zero address), so a view never says "you" and sending
    /// fails.
    pub fn watching(chain: RpcChain, referee: Address, from_block: u64) -> Result<Seat, SeatError> {
        Seat::of(chain, Address::ZERO, referee, from_block)
    }

    fn of(
        chain: RpcChain,
        player: Address,
        referee: Address,
        from_block: u64,
    ) -> Result<Seat, SeatError> {
        if chain.code(referee)?.is_empty() {
            return Err(SeatError::Refused(format!(
                "no contract at {referee} on {}: wrong --referee or deployments file?",
                chain.url()
            )));
        }
        let referee = Referee::at(chain, referee);
        Ok(Seat {
            referee,
            player,
            from_block,
            units: Default::default(),
        })
    }

    /// The player.
    pub fn player(&self) -> Address {
        self.player
    }

    /// The referee client.
    pub fn referee(&mut self) -> &mut Referee<RpcChain> {
        &mut self.referee
    }

    /// The referee's logs from the first block to the latest one whose topics match
    /// `topics` ([`RpcChain::logs_matching`]), in chain order, in [`LOG_RANGE`]-block
    /// requests; and that block's number.
    fn logs(&mut self, topics: [Option<B256>; 4]) -> Result<(Vec<RefereeLog>, u64), SeatError> {
        let address = self.referee.address();
        let chain = self.referee.chain();
        let head = chain.head()?;
        let mut logs = Vec::new();
        let mut from = self.from_block;
        while from <= head {
            let to = head.min(from + LOG_RANGE - 1);
            for (place, log) in chain.logs_matching(address, from, to, topics)? {
                logs.push(RefereeLog::decode(place, &log)?);
            }
            from = to + 1;
        }
        Ok((logs, head))
    }

    /// A view of the referee on the state after block `block`.
    fn view_at<T: SolCall>(
        &mut self,
        operation: &'static str,
        call: T,
        block: u64,
    ) -> Result<T::Return, SeatError> {
        let (player, address) = (self.player, self.referee.address());
        let outcome =
            self.referee
                .chain()
                .call_at(player, address, call.abi_encode().into(), block)?;
        Ok(outcome.decode::<T>(operation)?)
    }

    /// Game `id` folded from its events, checked: no divergence from the rules, and
    /// (running) the position hashes to the referee's commitment.
    pub fn game(&mut self, id: U256) -> Result<GameLog, SeatError> {
        Ok(self.game_at(id)?.0)
    }

    /// [`Seat::game`] and the block it was read at (events up to it, the commitment of it).
    ///
    /// A node can name a block as its head before its logs answer `eth_getLogs` (geth,
    /// erigon and anvil have all shown it): the events then stop a move short of the
    /// state. A mismatch is therefore read again, a few times over about a second, and
    /// only one that persists is an error.
    fn game_at(&mut self, id: U256) -> Result<(GameLog, u64), SeatError> {
        let mut attempt = 0;
        loop {
            match self.game_once(id) {
                Err(SeatError::CommitmentMismatch { .. }) if attempt < MISMATCH_REREADS => {
                    attempt += 1;
                    std::thread::sleep(Duration::from_millis(50 << attempt));
                }
                other => return other,
            }
        }
    }

    /// One read of [`Seat::game_at`].
    fn game_once(&mut self, id: U256) -> Result<(GameLog, u64), SeatError> {
        let (logs, block) =
            self.logs([None, Some(B256::from(id.to_be_bytes::<32>())), None, None])?;
        let game = fold_game(&logs).ok_or(SeatError::UnknownGame(id))?;
        if let Some(divergence) = game.divergences.first() {
            return Err(SeatError::Divergent {
                id,
                divergence: Box::new(divergence.clone()),
            });
        }
        if game.phase == Phase::Running && !game.is_channel() {
            let events = game
                .position
                .as_ref()
                .map_or(B256::ZERO, Position::commitment);
            let stored = self.view_at("commitmentOf", R::commitmentOfCall { gameId: id }, block)?;
            if events != stored {
                return Err(SeatError::CommitmentMismatch { id, events, stored });
            }
        }
        Ok((game, block))
    }

    /// The games the player created, was invited to or plays, by id: found by the indexed
    /// fields of `GameCreated` (creator, opponent) and `GameJoined` (white, black), each
    /// then read and checked as [`Seat::game`] does.
    pub fn list(&mut self) -> Result<Vec<GameSummary>, SeatError> {
        let player = B256::left_padding_from(self.player.as_slice());
        let mut ids = std::collections::BTreeSet::new();
        for signature in [
            R::GameCreated::SIGNATURE_HASH,
            R::GameJoined::SIGNATURE_HASH,
        ] {
            for topics in [
                [Some(signature), None, Some(player), None],
                [Some(signature), None, None, Some(player)],
            ] {
                let (logs, _) = self.logs(topics)?;
                ids.extend(logs.iter().filter_map(RefereeLog::game_id));
            }
        }
        let mut games = Vec::with_capacity(ids.len());
        for id in ids {
            let game = self.game(id)?;
            let summary = self.summary(&game)?;
            games.push(summary);
        }
        Ok(games)
    }

    /// Every game of the referee, each folded from its events as [`Seat::game`] does but
    /// without refusing a divergent one (its divergences are in the log); logs of a game
    /// created before the first block read are skipped. One scan of the referee's logs:
    /// what `chessref game list` rates the players from.
    pub fn all_games(&mut self) -> Result<Vec<GameLog>, SeatError> {
        let (logs, _) = self.logs([None; 4])?;
        let mut by_game: std::collections::BTreeMap<U256, Vec<RefereeLog>> = Default::default();
        for log in logs {
            if let Some(id) = log.game_id() {
                by_game.entry(id).or_default().push(log);
            }
        }
        Ok(by_game.values().filter_map(fold_game).collect())
    }

    fn colour_of(&self, game: &GameLog) -> Option<Color> {
        if game.white == Some(self.player) {
            Some(Color::White)
        } else if game.black == Some(self.player) {
            Some(Color::Black)
        } else if game.white.is_some() {
            None
        } else {
            let creators = if game.creator_white {
                Color::White
            } else {
                Color::Black
            };
            if game.creator == self.player {
                Some(creators)
            } else if game.opponent == self.player {
                Some(!creators)
            } else {
                None
            }
        }
    }

    fn summary(&mut self, game: &GameLog) -> Result<GameSummary, SeatError> {
        let opponent = match (game.white, game.black) {
            (Some(w), Some(b)) => Some(if w == self.player { b } else { w }),
            _ if game.creator == self.player => Some(game.opponent).filter(|a| *a != Address::ZERO),
            _ => Some(game.creator),
        };
        Ok(GameSummary {
            id: game.id.to_string(),
            phase: game.phase.name(),
            your_colour: self.colour_of(game).map(colour_name),
            opponent,
            ply: game.ply(),
            stake: game.stake.to_string(),
            stake_text: self.unit(game.token)?.format(game.stake),
            token: game.token,
            channel: game.is_channel(),
            your_turn: game.mover() == Some(self.player),
            ending: game.ending,
        })
    }

    /// Game `id` as the player sees it, with both clocks at the latest block.
    pub fn view(&mut self, id: U256) -> Result<GameView, SeatError> {
        let (game, block) = self.game_at(id)?;
        self.view_of(&game, block)
    }

    /// The view of `game` as read at `block`.
    fn view_of(&mut self, game: &GameLog, block: u64) -> Result<GameView, SeatError> {
        let state = game
            .shown_state()
            .ok_or_else(|| SeatError::Refused(format!("game {}: no valid state", game.id)))?;
        let moves: Vec<MoveView> = game
            .moves
            .iter()
            .map(|m| MoveView {
                ply: m.ply,
                uci: m.uci.clone(),
                san: m.san.clone(),
            })
            .collect();
        let running = game.phase == Phase::Running && !game.is_channel();
        let (clocks, commitment) = match (&game.position, running) {
            (Some(position), true) => {
                let call = R::clocksCall {
                    gameId: game.id,
                    state: position.state.to_vec().into(),
                    history: position.history,
                    clock: position.clock,
                };
                let clocks = self.view_at("clocks", call, block)?;
                let (white, black, white_to_move, deadline) = (
                    clocks.whiteLeft,
                    clocks.blackLeft,
                    clocks.whiteToMove,
                    clocks.deadline,
                );
                let number = block;
                let block = self.referee.chain().block_ref(number)?.ok_or_else(|| {
                    SeatError::Refused(format!("block {number} is missing (a reorganisation?)"))
                })?;
                let mut clocks = ClocksView {
                    white: white.saturating_to(),
                    black: black.saturating_to(),
                    now: 0,
                    white_now: 0,
                    black_now: 0,
                    running: if white_to_move { "white" } else { "black" },
                    deadline: deadline.saturating_to(),
                    block_number: block.number,
                    block_timestamp: block.timestamp,
                };
                clocks.run_to(unix_now());
                (Some(clocks), Some(position.commitment()))
            }
            _ => (None, None),
        };
        Ok(GameView {
            id: game.id.to_string(),
            referee: self.referee.address(),
            chain_id: self.referee.chain().chain_id()?,
            phase: game.phase.name(),
            creator: game.creator,
            opponent: Some(game.opponent).filter(|a| *a != Address::ZERO),
            white: game.white,
            black: game.black,
            stake: game.stake.to_string(),
            stake_text: self.unit(game.token)?.format(game.stake),
            token: game.token,
            channel: game.is_channel(),
            initial_time: game.initial_time,
            increment: game.increment,
            you: self.player,
            your_colour: self.colour_of(game).map(colour_name),
            fen: state.fen(),
            turn: colour_name(state.turn()),
            your_turn: game.mover() == Some(self.player),
            status: state.status().name(),
            in_check: state.in_check(),
            last_move: moves.last().cloned(),
            moves,
            draw_offer: game.draw_offer,
            clocks,
            ending: game.ending,
            commitment,
            registered_ply: game.registrations.last().map(|r| r.ply),
            // A channel game's signed moves are not the chain's: found elsewhere
            // (`channel_moves`), they say where from.
            moves_from: (!game.is_channel()).then_some(MovesFrom::Chain),
            moves_refused: Vec::new(),
        })
    }

    /// A running game the player plays, its position and the player's colour.
    fn running(&mut self, id: U256) -> Result<(GameLog, Position, Color), SeatError> {
        let game = self.game(id)?;
        match game.phase {
            Phase::Running => {}
            Phase::Open => {
                return Err(SeatError::NotRunning {
                    id,
                    state: "open: waiting for an opponent".into(),
                });
            }
            Phase::Cancelled => {
                return Err(SeatError::NotRunning {
                    id,
                    state: "cancelled".into(),
                });
            }
            Phase::Ended => {
                let how = game.ending.map_or("?".into(), |e| e.to_string());
                return Err(SeatError::NotRunning {
                    id,
                    state: format!("ended: {how}"),
                });
            }
        }
        // A channel game is played off-chain until a position is registered; then on-chain.
        if game.is_channel() && game.registrations.is_empty() {
            return Err(SeatError::Refused(format!(
                "game {id} is a channel game, {CHANNEL_PLAY}"
            )));
        }
        let colour = match (game.white, game.black) {
            (Some(w), _) if w == self.player => Color::White,
            (_, Some(b)) if b == self.player => Color::Black,
            _ => {
                return Err(SeatError::NotAPlayer {
                    id,
                    account: self.player,
                });
            }
        };
        let position = game.position.expect("a running game has a position");
        Ok((game, position, colour))
    }

    /// [`Seat::running`], and it is the player's move.
    fn on_move(&mut self, id: U256) -> Result<(GameLog, Position, State), SeatError> {
        let (game, position, colour) = self.running(id)?;
        let state = game
            .state()
            .ok_or_else(|| SeatError::Refused(format!("game {id}: no valid state")))?;
        if state.turn() != colour {
            return Err(SeatError::NotYourTurn {
                id,
                colour: colour_name(state.turn()),
                mover: game.player(state.turn()).unwrap_or_default(),
            });
        }
        Ok((game, position, state))
    }

    /// Estimates `call` from the player; a revert the node predicts is the referee's
    /// custom error, and nothing is sent.
    fn prepare<T: SolCall>(
        &mut self,
        operation: &'static str,
        value: U256,
        call: T,
        summary: String,
    ) -> Result<Prepared, SeatError> {
        let referee = self.referee.address();
        self.prepare_to(referee, operation, value, call, summary)
    }

    /// [`Seat::prepare`] of a call to the contract at `to`.
    fn prepare_to<T: SolCall>(
        &mut self,
        to: Address,
        operation: &'static str,
        value: U256,
        call: T,
        summary: String,
    ) -> Result<Prepared, SeatError> {
        self.prepare_data(to, operation, value, call.abi_encode().into(), summary)
    }

    /// A `ChessChannel` call of the channel protocol (a registration, a settlement, a
    /// proof: `chessref_channel::settlement`), estimated like every other.
    pub fn prepare_channel(&mut self, settlement: &Settlement) -> Result<Prepared, SeatError> {
        let channel = self.referee.channel()?;
        self.prepare_data(
            channel,
            settlement.call,
            U256::ZERO,
            settlement.calldata.clone(),
            format!("ChessChannel.{}: {}", settlement.call, settlement.why),
        )
    }

    /// `createChannelGame` with `setup` and `response_window` seconds (docs/CHANNEL.md):
    /// a game played off-chain with signed moves.
    pub fn create_channel(
        &mut self,
        setup: &GameSetup,
        response_window: u32,
    ) -> Result<Prepared, SeatError> {
        let summary = format!(
            "{}, played off-chain (response window {response_window} s)",
            self.create_summary(setup)?
                .replacen("create a game", "create a channel game", 1)
        );
        let call = chessref_evm::channel::create_channel_game_call(setup, response_window);
        self.prepare("createChannelGame", setup.value(), call, summary)
    }

    fn prepare_data(
        &mut self,
        to: Address,
        operation: &'static str,
        value: U256,
        data: alloy_primitives::Bytes,
        summary: String,
    ) -> Result<Prepared, SeatError> {
        let mut tx = TxRequest::call(self.player, to, data).with_value(value);
        let chain = self.referee.chain();
        let gas = chain
            .estimate_gas(&tx)?
            .map_err(|revert| SeatError::WouldRevert {
                operation,
                revert: ContractRevert::decode(&revert),
            })?;
        tx.gas_limit = gas + gas / 5;
        Ok(Prepared {
            operation,
            tx,
            gas,
            gas_price: chain.gas_price()?,
            summary,
        })
    }

    /// Sends a prepared transaction and waits for its receipt; a revert is decoded by name.
    pub fn send(&mut self, prepared: Prepared) -> Result<Sent, SeatError> {
        let operation = prepared.operation;
        let receipt = self.referee.chain().send(prepared.tx)?;
        if !receipt.success {
            return Err(SeatError::Evm(EvmError::Reverted {
                operation,
                revert: ContractRevert::decode(&receipt.output),
                gas_used: receipt.gas_used,
            }));
        }
        let created = match operation {
            "createGame" | "createChannelGame" => {
                Some(self.referee.created(operation, receipt.clone())?.id)
            }
            _ => None,
        };
        let ending = self.referee.ending(&receipt.logs)?;
        Ok(Sent {
            operation,
            receipt,
            created,
            ending,
        })
    }

    /// What amounts of `token` are counted in (`Address::ZERO`: ETH): a token's
    /// `symbol()` and `decimals()` where it has them (read once per seat; an address
    /// without code has neither: its amounts are shown in base units).
    pub fn unit(&mut self, token: Address) -> Result<Unit, SeatError> {
        if token == Address::ZERO {
            return Ok(Unit::eth());
        }
        if let Some(unit) = self.units.get(&token) {
            return Ok(unit.clone());
        }
        let decimals = self
            .token_view(token, "decimals", IERC20::decimalsCall {})
            .ok();
        let symbol = self
            .token_view(token, "symbol", IERC20::symbolCall {})
            .ok()
            .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_graphic()));
        let unit = Unit {
            token,
            symbol,
            decimals,
        };
        self.units.insert(token, unit.clone());
        Ok(unit)
    }

    /// A view call of the token at `token` on the latest state.
    fn token_view<T: SolCall>(
        &mut self,
        token: Address,
        operation: &'static str,
        call: T,
    ) -> Result<T::Return, SeatError> {
        let player = self.player;
        let outcome = self
            .referee
            .chain()
            .call(player, token, call.abi_encode().into())?;
        Ok(outcome.decode::<T>(operation)?)
    }

    /// What a token stake of `stake` needs before `createGame` or `joinGame`: refused
    /// (nothing sent) if the player's balance is short; an `approve(referee, stake)` to
    /// send first if the referee's allowance is short; `None` if all is in place (and
    /// always for ETH, `Address::ZERO`).
    pub fn approval(&mut self, token: Address, stake: U256) -> Result<Option<Prepared>, SeatError> {
        let referee = self.referee.address();
        self.approval_to(token, stake, referee, "the referee", "the stake")
    }

    /// [`Seat::approval`] for another spender than the referee (the tournament, taking an
    /// entry fee): `spender_name` and `what` name them in the summary and refusals.
    pub fn approval_to(
        &mut self,
        token: Address,
        stake: U256,
        spender: Address,
        spender_name: &str,
        what: &str,
    ) -> Result<Option<Prepared>, SeatError> {
        if token == Address::ZERO || stake.is_zero() {
            return Ok(None);
        }
        let chain = self.referee.chain();
        if chain.code(token)?.is_empty() {
            return Err(SeatError::Refused(format!(
                "no contract at token {token} on {} (nothing sent)",
                chain.url()
            )));
        }
        let unit = self.unit(token)?;
        let (player, referee) = (self.player, spender);
        let balance = self.token_view(
            token,
            "balanceOf",
            IERC20::balanceOfCall { account: player },
        )?;
        if balance < stake {
            return Err(SeatError::Refused(format!(
                "{player} holds {} of token {token}, {what} is {} (nothing sent)",
                unit.format(balance),
                unit.format(stake)
            )));
        }
        let allowance = self.token_view(
            token,
            "allowance",
            IERC20::allowanceCall {
                owner: player,
                spender: referee,
            },
        )?;
        if allowance >= stake {
            return Ok(None);
        }
        let summary = format!(
            "approve {spender_name} {referee} to take {what} {} (allowance {})",
            unit.format(stake),
            unit.format(allowance)
        );
        self.prepare_to(
            token,
            "approve",
            U256::ZERO,
            IERC20::approveCall {
                spender: referee,
                amount: stake,
            },
            summary,
        )
        .map(Some)
    }

    /// `createGame` with `setup` (ETH stakes are sent along; a token stake needs
    /// [`Seat::approval`] first).
    pub fn create(&mut self, setup: &GameSetup) -> Result<Prepared, SeatError> {
        let summary = self.create_summary(setup)?;
        self.prepare("createGame", setup.value(), setup.call(), summary)
    }

    fn create_summary(&mut self, setup: &GameSetup) -> Result<String, SeatError> {
        let colour = if setup.creator_white {
            "white"
        } else {
            "black"
        };
        let against = if setup.opponent == Address::ZERO {
            "anyone".to_string()
        } else {
            setup.opponent.to_string()
        };
        let stake = self.unit(setup.token)?.format(setup.stake);
        Ok(format!(
            "create a game as {colour} against {against}, stake {stake}, {} s + {} s",
            setup.initial_time, setup.increment
        ))
    }

    /// Game `id` if the player may join it (open, not the player's own, invites the
    /// player or anyone).
    pub fn joinable(&mut self, id: U256) -> Result<GameLog, SeatError> {
        let game = self.game(id)?;
        if game.phase != Phase::Open {
            return Err(SeatError::WrongPhase {
                id,
                phase: game.phase.name(),
                why: "only an open game can be joined",
            });
        }
        if game.creator == self.player {
            return Err(SeatError::Refused(format!(
                "you created game {id}: the opponent joins it"
            )));
        }
        if game.opponent != Address::ZERO && game.opponent != self.player {
            return Err(SeatError::Refused(format!(
                "game {id} invites {}, not {}",
                game.opponent, self.player
            )));
        }
        Ok(game)
    }

    /// `joinGame` under the terms the game's `GameCreated` states (paying the ETH stake;
    /// a token stake needs [`Seat::approval`] first).
    pub fn join(&mut self, id: U256) -> Result<Prepared, SeatError> {
        let game = self.joinable(id)?;
        let value = if game.token == Address::ZERO {
            game.stake
        } else {
            U256::ZERO
        };
        let terms = game.terms().join_hash(game.response_window);
        let stake = self.unit(game.token)?.format(game.stake);
        let summary = format!("join game {id} (stake {stake})");
        self.prepare(
            "joinGame",
            value,
            R::joinGameCall { gameId: id, terms },
            summary,
        )
    }

    /// `cancelGame` of an open game the player created.
    pub fn cancel(&mut self, id: U256) -> Result<Prepared, SeatError> {
        let game = self.game(id)?;
        if game.phase != Phase::Open {
            return Err(SeatError::WrongPhase {
                id,
                phase: game.phase.name(),
                why: "only an open game can be cancelled",
            });
        }
        if game.creator != self.player {
            return Err(SeatError::Refused(format!(
                "only game {id}'s creator {} can cancel it",
                game.creator
            )));
        }
        self.prepare(
            "cancelGame",
            U256::ZERO,
            R::cancelGameCall { gameId: id },
            format!("cancel game {id}"),
        )
    }

    /// `move`: `text` in SAN (`Nf3`), UCI (`g1f3`, `e7e8q`) or a packed `0x` uint24,
    /// checked by the rules first.
    pub fn play(&mut self, id: U256, text: &str) -> Result<Prepared, SeatError> {
        let (_, position, state) = self.on_move(id)?;
        let raw = parse_move(id, &state, text)?;
        let verdict = Verdict::of(&state, raw);
        if let Some(rejection) = verdict.rejection() {
            return Err(SeatError::IllegalMove {
                id,
                text: text.trim().to_string(),
                code: rejection.code(),
                name: rejection.name(),
                message: rejection.to_string(),
            });
        }
        let mv = state.check(raw).expect("the verdict is legal");
        let san = state.san(mv).unwrap_or_else(|_| mv.to_uci());
        let call = R::moveCall {
            gameId: id,
            state: position.state.to_vec().into(),
            history: position.history,
            clock: position.clock,
            mv: alloy_primitives::aliases::U24::from(raw.packed()),
        };
        let summary = format!("move {} ({san}) in game {id}", mv.to_uci());
        self.prepare("move", U256::ZERO, call, summary)
    }

    /// `offerDraw` in the current position.
    pub fn offer_draw(&mut self, id: U256) -> Result<Prepared, SeatError> {
        let (game, position, _) = self.running(id)?;
        if game.draw_offer == Some(self.player) {
            return Err(SeatError::Refused(format!(
                "you already offered a draw in this position of game {id}"
            )));
        }
        let call = R::offerDrawCall {
            gameId: id,
            state: position.state.to_vec().into(),
            history: position.history,
            clock: position.clock,
        };
        self.prepare(
            "offerDraw",
            U256::ZERO,
            call,
            format!("offer a draw in game {id}"),
        )
    }

    /// `acceptDraw` of the opponent's offer.
    pub fn accept_draw(&mut self, id: U256) -> Result<Prepared, SeatError> {
        let (game, position, _) = self.running(id)?;
        match game.draw_offer {
            Some(by) if by != self.player => {}
            _ => {
                return Err(SeatError::Refused(format!(
                    "no draw offer from your opponent in the current position of game {id}"
                )));
            }
        }
        let call = R::acceptDrawCall {
            gameId: id,
            state: position.state.to_vec().into(),
            history: position.history,
            clock: position.clock,
        };
        self.prepare(
            "acceptDraw",
            U256::ZERO,
            call,
            format!("accept the draw in game {id}"),
        )
    }

    /// `claimDraw` on the player's move: the fifty-move rule, or threefold repetition with
    /// the witness built from the game's moves.
    pub fn claim_draw(&mut self, id: U256) -> Result<Prepared, SeatError> {
        self.claim_draw_after(id, &[])
    }

    /// [`Seat::claim_draw`] in a channel game continued on-chain from a registered
    /// position: `off_chain` are the states of the signed moves up to the registered ply
    /// (the player's transcript), whose repetition keys the witness needs before the
    /// on-chain moves'.
    pub fn claim_draw_after(
        &mut self,
        id: U256,
        off_chain: &[State],
    ) -> Result<Prepared, SeatError> {
        let (game, position, state) = self.on_move(id)?;
        let keys = witness(&game, off_chain);
        let current = state.repetition_key();
        let occurrences = keys.iter().filter(|k| **k == current).count();
        let (keys, why) = if state.halfmove_clock() >= 100 {
            (Vec::new(), "fifty moves")
        } else if occurrences >= 3 {
            (keys, "threefold repetition")
        } else {
            return Err(SeatError::Refused(format!(
                "no draw to claim in game {id}: the position occurred {occurrences} time(s) and the halfmove clock is {}",
                state.halfmove_clock()
            )));
        };
        let call = R::claimDrawCall {
            gameId: id,
            state: position.state.to_vec().into(),
            history: position.history,
            clock: position.clock,
            keys,
        };
        self.prepare(
            "claimDraw",
            U256::ZERO,
            call,
            format!("claim a draw by {why} in game {id}"),
        )
    }

    /// `claimTimeout`: the opponent's time (or first-move window) ran out.
    pub fn claim_timeout(&mut self, id: U256) -> Result<Prepared, SeatError> {
        let (game, position, colour) = self.running(id)?;
        if game.turn() == Some(colour) {
            return Err(SeatError::Refused(format!(
                "game {id}: it is your move; only the player not to move claims a timeout"
            )));
        }
        let call = R::claimTimeoutCall {
            gameId: id,
            state: position.state.to_vec().into(),
            history: position.history,
            clock: position.clock,
        };
        self.prepare(
            "claimTimeout",
            U256::ZERO,
            call,
            format!("claim the opponent's timeout in game {id}"),
        )
    }

    /// `resign`.
    pub fn resign(&mut self, id: U256) -> Result<Prepared, SeatError> {
        self.running(id)?;
        self.prepare(
            "resign",
            U256::ZERO,
            R::resignCall { gameId: id },
            format!("resign game {id}"),
        )
    }

    /// `withdraw(token)` of the player's whole credit (`Address::ZERO`: ETH).
    pub fn withdraw(&mut self, token: Address) -> Result<Prepared, SeatError> {
        let credit = self.referee.credits(self.player, token)?;
        let unit = self.unit(token)?;
        if credit.is_zero() {
            let what = if token == Address::ZERO {
                "ETH".to_string()
            } else {
                format!("token {token}")
            };
            return Err(SeatError::Refused(format!(
                "{} has no {what} credit to withdraw",
                self.player
            )));
        }
        self.prepare(
            "withdraw",
            U256::ZERO,
            R::withdrawCall { token },
            format!("withdraw {}", unit.format(credit)),
        )
    }

    /// The player's credit in `token` (`Address::ZERO`: ETH).
    pub fn credit(&mut self, token: Address) -> Result<U256, SeatError> {
        let player = self.player;
        Ok(self.referee.credits(player, token)?)
    }

    /// Polls game `id` every `poll` until it is the player's move or the game is no
    /// longer running, for at most `timeout`; returns the game as seen then.
    pub fn wait_for_turn(
        &mut self,
        id: U256,
        poll: Duration,
        timeout: Duration,
    ) -> Result<GameView, SeatError> {
        let started = Instant::now();
        loop {
            let (game, block) = self.game_at(id)?;
            if game.phase != Phase::Running || game.mover() == Some(self.player) {
                return self.view_of(&game, block);
            }
            if started.elapsed() >= timeout {
                return Err(SeatError::Timeout {
                    id,
                    waited: started.elapsed(),
                });
            }
            std::thread::sleep(poll);
        }
    }
}

/// The move `text` names in `state`: a packed `0x` uint24, else UCI or SAN. An illegal
/// UCI or packed move comes back as the raw move (the caller reports its section 6 code).
fn parse_move(id: U256, state: &State, text: &str) -> Result<RawMove, SeatError> {
    let text = text.trim();
    if text.starts_with("0x") || text.starts_with("0X") {
        return RawMove::parse(text).map_err(|e| SeatError::MoveSyntax(e.to_string()));
    }
    match state.parse_move(text) {
        Ok(mv) => Ok(mv.into()),
        Err(SanError::Rejected { .. }) => {
            RawMove::parse(text).map_err(|e| SeatError::MoveSyntax(e.to_string()))
        }
        Err(SanError::Illegal { .. }) => Err(SeatError::NoSuchMove {
            id,
            text: text.to_string(),
        }),
        Err(other) => Err(SeatError::MoveSyntax(other.to_string())),
    }
}

/// The threefold witness of the game's current position: the repetition keys of every
/// position since the last irreversible move (or the start), oldest first.
fn witness(game: &GameLog, off_chain: &[State]) -> Vec<B256> {
    let start = State::from_bytes(&game.start_state).ok();
    let on_chain: Vec<State> = game
        .moves
        .iter()
        .filter_map(|played| State::from_bytes(&played.position.state).ok())
        .collect();
    chessref_core::chain::witness(start.iter().chain(off_chain).chain(&on_chain))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_read_as_san_uci_or_packed_and_illegal_uci_keeps_its_squares() {
        let state = State::initial();
        let id = U256::from(1);
        let e4 = RawMove::parse("e2e4").unwrap();
        for text in ["e4", "e2e4", " e2e4 ", "0x644400"] {
            assert_eq!(parse_move(id, &state, text).unwrap(), e4, "{text}");
        }
        // An illegal UCI move is returned as it is: its verdict carries the section 6 code.
        let e5 = parse_move(id, &state, "e2e5").unwrap();
        assert_eq!(Verdict::of(&state, e5).name(), "BAD_GEOMETRY");
        assert!(matches!(
            parse_move(id, &state, "Ke2"),
            Err(SeatError::NoSuchMove { .. })
        ));
        assert!(matches!(
            parse_move(id, &state, "e9"),
            Err(SeatError::MoveSyntax(_))
        ));
        assert!(matches!(
            parse_move(id, &state, "0x1000000"),
            Err(SeatError::MoveSyntax(_))
        ));
    }

    #[test]
    fn only_the_running_clock_runs_on_to_now_and_never_below_zero() {
        let mut clocks = ClocksView {
            white: 100,
            black: 50,
            now: 0,
            white_now: 0,
            black_now: 0,
            running: "black",
            deadline: 0,
            block_number: 7,
            block_timestamp: 1_000,
        };
        clocks.run_to(1_030);
        assert_eq!(
            (clocks.white_now, clocks.black_now, clocks.age()),
            (100, 20, 30)
        );
        clocks.run_to(1_080);
        assert_eq!((clocks.white_now, clocks.black_now), (100, 0));
        // A block later than the wall clock (chain time moved ahead): nothing elapsed.
        clocks.run_to(990);
        assert_eq!(
            (clocks.white_now, clocks.black_now, clocks.age()),
            (100, 50, 0)
        );
        clocks.running = "white";
        clocks.run_to(1_010);
        assert_eq!((clocks.white_now, clocks.black_now), (90, 50));
    }

    #[test]
    fn refusals_are_told_apart_from_failures() {
        assert!(SeatError::UnknownGame(U256::from(9)).is_refusal());
        assert!(
            SeatError::WouldRevert {
                operation: "move",
                revert: ContractRevert::IllegalMove(6),
            }
            .is_refusal()
        );
        assert!(!SeatError::MoveSyntax("x".into()).is_refusal());
        assert!(!SeatError::Chain(ChainError::NoAccounts).is_refusal());
    }
}
