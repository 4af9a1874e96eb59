//! What a channel session tells its player ([`Event`]): typed, so that a bot reads fields
//! and a front end (the command line's text or `--json`) words them as it likes.

use alloy_primitives::{Address, B256, U256};
use chessref_channel::transcript::Side;
use chessref_core::Color;
use chessref_evm::ContractRevert;

use crate::seat::{GameView, Sent};

/// Something the session did or saw, in the order it happened.
#[derive(Clone, Debug)]
pub enum Event {
    /// The game is open: the session waits for an opponent to join.
    Waiting {
        /// The game id.
        game: U256,
    },
    /// The session runs.
    Started {
        /// The game id.
        game: U256,
        /// The player's colour.
        colour: Color,
        /// The latest ply the player holds.
        ply: u32,
        /// Whether the game has left the relay (a registration, frozen or live).
        on_chain: bool,
        /// The opponent's wallet.
        opponent: Address,
    },
    /// The position the player holds, to draw (asked for by `show`, or after a move).
    Board(Board),
    /// Both clocks now, once a second while the game is off-chain.
    Clocks {
        /// White's remaining seconds.
        white: u64,
        /// Black's remaining seconds.
        black: u64,
    },
    /// The relay could not be reached or was lost (the session retries by itself), or it
    /// sent something that is not a relay frame.
    Relay {
        /// What happened.
        trouble: RelayTrouble,
        /// Why, in words.
        error: String,
    },
    /// A message was refused: one of the player's by the relay, or one from the relay or
    /// the chain by this client's mirror.
    Refused {
        /// Who refused what.
        source: Refusal,
        /// The kind of problem (`transition`, `signature`, ...).
        kind: String,
        /// The transition code (CHANNEL.md section 6), when a move is not a valid successor.
        code: Option<u8>,
        /// What is wrong, for a person.
        reason: String,
    },
    /// A move, the player's own or the opponent's.
    Move(Moved),
    /// The opponent offers a draw (`draw` accepts it).
    DrawOffer {
        /// Who offers.
        by: Side,
    },
    /// The opponent signed a result.
    ResultSigned {
        /// Who signed.
        by: Side,
        /// The result code (1 white wins, 2 black wins, 3 draw).
        result: u8,
    },
    /// A position of the game was registered on-chain (by anyone: the opponent, the
    /// player from another process, a watchtower), as the chain shows it: said once per
    /// registration, also for those made while the session was not running.
    Registration(Registration),
    /// The latest registration is frozen: moves are registered, not relayed.
    Frozen {
        /// The registered ply.
        ply: u32,
        /// When the response window ends (unix time).
        window_end: u64,
        /// The side to move in the registered position.
        to_move: Option<Side>,
        /// Whether it is the player's move (typed, it is registered as the direct reply).
        your_move: bool,
        /// The side to move's deadline by the wall clock (unix time).
        deadline: u64,
        /// The wall clock when this was said.
        now: u64,
        /// The position the player holds.
        fen: String,
    },
    /// The response window is over: play goes on on-chain.
    Live {
        /// The registered ply play goes on from.
        ply: u32,
    },
    /// The player holds a later pair than the frozen registration and registrations are
    /// not sent by themselves: `register` overtakes it.
    LaterPairHeld {
        /// The registered ply.
        registered_ply: u32,
        /// The `ChessChannel` function it would send.
        call: &'static str,
        /// Why.
        why: String,
    },
    /// A draw claim off-chain registered the position first: `claim` again after the window.
    ClaimAfterWindow,
    /// The session overtakes the frozen registration with a later pair it holds.
    Overtake {
        /// The registered ply.
        registered_ply: u32,
        /// The ply the player holds.
        ply: u32,
        /// The `ChessChannel` function sent.
        call: &'static str,
        /// Why.
        why: String,
        /// Sent by itself (not asked by `register` or a move).
        automatic: bool,
        /// The priority fee paid, wei.
        tip_wei: u128,
    },
    /// The session registered a position.
    Registered {
        /// The registered ply.
        ply: u32,
        /// The transaction.
        tx: B256,
        /// Sent by itself (not asked by `register`).
        automatic: bool,
        /// The frozen registration it overtook, if any.
        overtook: Option<u32>,
        /// Whether the registered move had no receipt of the opponent's.
        unacknowledged: bool,
        /// Its block.
        block: Option<u64>,
    },
    /// Another registration landed before the session's own: the chain recorded when it
    /// showed the move instead, and it is registered again against the new one.
    Announced {
        /// The ply the player holds.
        ply: u32,
        /// The transaction.
        tx: B256,
        /// The frozen registration it was sent against, if any.
        registered_ply: Option<u32>,
    },
    /// A transaction is about to be sent (its estimate).
    Sending {
        /// The referee function.
        operation: &'static str,
        /// What it does, for a person.
        summary: String,
        /// The sender.
        from: Address,
        /// The node's gas estimate.
        gas: u64,
        /// The gas price, wei.
        gas_price: u128,
        /// The fee at the estimate, wei.
        fee: U256,
    },
    /// A transaction was mined.
    Sent(Box<Sent>),
    /// A command or a step failed; the session goes on.
    Error {
        /// What is wrong, in words.
        message: String,
        /// The contract's error, when the failure is that the referee or the channel
        /// would revert (the node's estimate) or reverted: its name and fields as raised.
        revert: Option<Box<ContractRevert>>,
    },
    /// On-chain play: the game as the chain shows it, when it changed.
    Position(Box<GameView>),
    /// The opponent has not answered for the patience given.
    Silent {
        /// Seconds since the opponent was last heard from.
        since: u64,
        /// The latest ply.
        ply: u32,
        /// The player's unacknowledged move must be registered before this (unix time).
        register_by: Option<u64>,
        /// When the session registers it by itself (unix time), if it does.
        auto_register_at: Option<u64>,
        /// Whether white's first move is awaited (no clock runs).
        first_move: bool,
    },
    /// The session registers the player's own unacknowledged move by itself now.
    AutoRegister {
        /// The move's ply.
        ply: u32,
        /// Its signed stamp.
        stamp: u64,
        /// When it was sent.
        sent_at: u64,
        /// The rule's time (`min(sent + 10 s, stamp + 30 s)`).
        at: Option<u64>,
        /// It must land before this (60 s after its stamp).
        register_by: u64,
        /// The priority fee paid, wei.
        tip_wei: u128,
    },
    /// The game ended off-chain.
    Ended {
        /// The result code.
        result: u8,
        /// The reason code.
        reason: u8,
        /// The `ChessChannel` function that settles it.
        call: &'static str,
        /// Why, in words.
        why: String,
        /// Whether this player settles it (the winner, white on a draw).
        you_settle: bool,
    },
    /// The session settled the game on-chain.
    Settled {
        /// The transaction.
        tx: B256,
        /// Its gas.
        gas_used: u64,
    },
}

/// What went wrong with the relay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayTrouble {
    /// It could not be reached (or has not seen the game's join yet); retried.
    Unreachable,
    /// The connection was lost; reconnecting.
    Lost,
    /// It sent something that is not a relay frame (ignored).
    NotAFrame,
}

/// Who refused which message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The relay refused one of the player's messages.
    ByRelay,
    /// A message from the relay does not verify here (ignored).
    FromRelay,
    /// The registered move of this ply, read from the chain, does not verify here.
    FromChain {
        /// Its ply.
        ply: u32,
    },
}

/// A move and the position after it.
#[derive(Clone, Debug)]
pub struct Moved {
    /// Its ply.
    pub ply: u32,
    /// Its mover.
    pub by: Side,
    /// Whether the mover is the player (its own move, signed here or shown by the chain).
    pub mine: bool,
    /// SAN.
    pub san: String,
    /// UCI.
    pub uci: String,
    /// The position the player holds after it.
    pub fen: String,
    /// White's signed time in the latest move.
    pub white_time: u32,
    /// Black's signed time in the latest move.
    pub black_time: u32,
    /// The latest move's signed stamp.
    pub timestamp: u64,
    /// Whether it is the player's move now.
    pub your_move: bool,
    /// Where it came from.
    pub via: Via,
}

/// Where a move came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// The player's own, signed and sent to the relay.
    Signed,
    /// The player's own, signed and registered as the direct reply to a registration.
    SignedToRegister,
    /// The opponent's (or an earlier one of the player's), through the relay.
    Relay,
    /// Read from a registration on-chain.
    Chain,
}

impl Via {
    /// Whether the player made it in this session.
    pub fn is_yours(self) -> bool {
        matches!(self, Via::Signed | Via::SignedToRegister)
    }
}

/// A registration the chain shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    /// The registered ply.
    pub ply: u32,
    /// Who sent it.
    pub by: Registrant,
    /// Its sender's account (`None`: the node does not know the transaction).
    pub sender: Option<Address>,
    /// When its response window ends (unix time).
    pub window_end: u64,
    /// The earlier registration it overtook, if any (its ply).
    pub overtook: Option<u32>,
    /// The transaction.
    pub tx: B256,
    /// Its block's time (0: unknown).
    pub at: u64,
    /// Whether its window still ran when it was read (by the chain's time).
    pub open: bool,
}

/// Who sent a registration, from the player's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registrant {
    /// The player's own wallet (another process of the player's, or `channel dispute`).
    You,
    /// The opponent.
    Opponent,
    /// Neither player: a watchtower.
    Other,
}

impl Registrant {
    /// The word used in events: `you`, `opponent`, `watchtower`.
    pub fn name(self) -> &'static str {
        match self {
            Registrant::You => "you",
            Registrant::Opponent => "opponent",
            Registrant::Other => "watchtower",
        }
    }
}

/// The position the player holds, as drawn.
#[derive(Clone, Debug)]
pub struct Board {
    /// Its FEN.
    pub fen: String,
    /// The latest move, UCI.
    pub last_uci: Option<String>,
    /// Drawn from black's side.
    pub flipped: bool,
    /// The latest ply.
    pub ply: u32,
    /// The side to move.
    pub turn: Color,
    /// Whether it is the player's move.
    pub your_move: bool,
    /// White's remaining seconds now.
    pub white: u64,
    /// Black's remaining seconds now.
    pub black: u64,
}
