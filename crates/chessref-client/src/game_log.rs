//! A game as the referee's events tell it, checked against the Rust mirror.
//!
//! The referee stores one commitment per game and puts everything else in its
//! events (REFEREE.md section 5), so a client, an indexer or a front end knows a
//! game only by folding its events in chain order. [`GameLog`] is that fold, written
//! once: `chessref game` reads the current position from it, the indexer rebuilds
//! every game with it.
//!
//! The fold trusts nothing: every `MovePlayed` is replayed through `chessref-core`
//! from the previous position, and any difference between what the event says and
//! what the rules give (a move the rules refuse, another state, history, status or
//! ply, an ending the position does not justify, an event the game's phase does
//! not allow) is recorded as a [`Divergence`] with the event that caused it. With
//! the real contract there must never be one; if there is, the evidence is kept.

use alloy_primitives::{Address, B256, Log, U256};
use alloy_sol_types::SolEventInterface;
use chessref_core::{Color, RawMove, State, Status, chain};
use serde::Serialize;

pub use chessref_evm::LogPlace;
use chessref_evm::bindings::ChessReferee::{self as R, ChessRefereeEvents as Event};
use chessref_evm::ending::{EndReason, Ending};
use chessref_evm::referee::Position;

use crate::terms::{Terms, start_inner};

/// One log of the referee, decoded, with its place on the chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefereeLog {
    /// Where it was emitted.
    pub place: LogPlace,
    /// What it says.
    pub event: Event,
}

/// A log of the referee's address that is not one of its events.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("log {log_index} of block {block_number} is not a ChessReferee event: {message}")]
pub struct UndecodableLog {
    /// Block number.
    pub block_number: u64,
    /// Log index.
    pub log_index: u64,
    /// The decoder's message.
    pub message: String,
}

impl RefereeLog {
    /// Decodes a raw log (its address is the caller's business).
    pub fn decode(place: LogPlace, log: &Log) -> Result<RefereeLog, UndecodableLog> {
        Event::decode_log(log)
            .map(|decoded| RefereeLog {
                place,
                event: decoded.data,
            })
            .map_err(|e| UndecodableLog {
                block_number: place.block_number,
                log_index: place.log_index,
                message: e.to_string(),
            })
    }

    /// The game the event is about; `None` for `Withdrawn`.
    pub fn game_id(&self) -> Option<U256> {
        game_id(&self.event)
    }

    /// The event's name (`MovePlayed`, ...).
    pub fn name(&self) -> &'static str {
        event_name(&self.event)
    }
}

/// The game a referee event is about; `None` for `Withdrawn`.
pub fn game_id(event: &Event) -> Option<U256> {
    Some(match event {
        Event::GameCreated(e) => e.gameId,
        Event::GameJoined(e) => e.gameId,
        Event::GameCancelled(e) => e.gameId,
        Event::MovePlayed(e) => e.gameId,
        Event::DrawOffered(e) => e.gameId,
        Event::GameEnded(e) => e.gameId,
        Event::PositionRegistered(e) => e.gameId,
        Event::Withdrawn(_) => return None,
    })
}

fn event_name(event: &Event) -> &'static str {
    match event {
        Event::GameCreated(_) => "GameCreated",
        Event::GameJoined(_) => "GameJoined",
        Event::GameCancelled(_) => "GameCancelled",
        Event::MovePlayed(_) => "MovePlayed",
        Event::DrawOffered(_) => "DrawOffered",
        Event::GameEnded(_) => "GameEnded",
        Event::PositionRegistered(_) => "PositionRegistered",
        Event::Withdrawn(_) => "Withdrawn",
    }
}

/// A game's phase (`GameInfo.phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Created, waiting for the opponent.
    Open,
    /// Joined and running (on-chain, or off-chain for a channel game).
    Running,
    /// Ended with a result.
    Ended,
    /// Cancelled by its creator before anyone joined.
    Cancelled,
}

impl Phase {
    /// The lower-case name (`open`, `running`, `ended`, `cancelled`).
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Open => "open",
            Phase::Running => "running",
            Phase::Ended => "ended",
            Phase::Cancelled => "cancelled",
        }
    }
}

/// A move the referee accepted (`MovePlayed`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayedMove {
    /// The game's ply count after the move (1 = first move).
    pub ply: u32,
    /// The packed move of the event.
    pub packed: u32,
    /// UCI (`e2e4`); the packed move in hex when the rules refuse it.
    pub uci: String,
    /// SAN in the position before the move; `None` when the rules refuse it.
    pub san: Option<String>,
    /// Section 8 status of the new position, as the event reports it.
    pub status: u8,
    /// The position after the move, as the event reports it.
    pub position: Position,
    /// Where the event is.
    pub place: LogPlace,
}

/// A signed position a channel game continued from (`PositionRegistered`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Registration {
    /// Moves played off-chain before it.
    pub ply: u32,
    /// The registered position.
    pub position: Position,
    /// Where the event is.
    pub place: LogPlace,
}

/// A difference between what an event says and what the rules give.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    /// The event.
    pub event: &'static str,
    /// Where it is.
    pub place: LogPlace,
    /// What differs (`state`, `history`, `status`, `ply`, `move`, `ending`, `phase`, ...).
    pub what: &'static str,
    /// What the rules (or the game so far) give.
    pub expected: String,
    /// What the event says.
    pub found: String,
}

/// One game folded from its events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameLog {
    /// The game id.
    pub id: U256,
    /// Who created it.
    pub creator: Address,
    /// The invited opponent; zero for an open game.
    pub opponent: Address,
    /// Whether the creator plays white.
    pub creator_white: bool,
    /// Stake token; zero for ETH.
    pub token: Address,
    /// Stake of each player.
    pub stake: U256,
    /// Initial time of each clock, seconds.
    pub initial_time: u32,
    /// Fischer increment, seconds.
    pub increment: u32,
    /// First-move window, seconds.
    pub first_move_window: u32,
    /// Terms hash `joinGame` takes.
    pub terms: B256,
    /// Response window of a channel game, seconds (docs/CHANNEL.md); 0 for a game
    /// played move by move on-chain.
    pub response_window: u32,
    /// White, once joined.
    pub white: Option<Address>,
    /// Black, once joined.
    pub black: Option<Address>,
    /// The phase.
    pub phase: Phase,
    /// The start state (hex of the 128 bytes in JSON).
    #[serde(serialize_with = "chessref_evm::referee::serialize_state")]
    pub start_state: [u8; 128],
    /// The start history.
    pub start_history: B256,
    /// The running position (state, history, clock word), once joined; the last
    /// position when ended.
    pub position: Option<Position>,
    /// Moves played on-chain, in order.
    pub moves: Vec<PlayedMove>,
    /// Signed positions registered (channel games), in order.
    pub registrations: Vec<Registration>,
    /// Who offered a draw in the current position, if anyone.
    pub draw_offer: Option<Address>,
    /// How it ended.
    pub ending: Option<Ending>,
    /// Differences between the events and the rules (must stay empty).
    pub divergences: Vec<Divergence>,
    /// The creation event.
    pub created: LogPlace,
    /// The latest event of the game.
    pub updated: LogPlace,
}

fn state_hex(bytes: &[u8]) -> String {
    alloy_primitives::hex::encode_prefixed(bytes)
}

impl GameLog {
    /// A game from its `GameCreated`.
    pub fn created(e: &R::GameCreated, place: LogPlace) -> GameLog {
        let mut start_state = [0u8; 128];
        let exact = e.state.len() == 128;
        if exact {
            start_state.copy_from_slice(&e.state);
        }
        let mut game = GameLog {
            id: e.gameId,
            creator: e.creator,
            opponent: e.opponent,
            creator_white: e.creatorWhite,
            token: e.token,
            stake: e.stake,
            initial_time: e.initialTime,
            increment: e.increment,
            first_move_window: e.firstMoveWindow,
            terms: e.terms,
            response_window: e.responseWindow,
            white: None,
            black: None,
            phase: Phase::Open,
            start_state,
            start_history: e.history,
            position: None,
            moves: Vec::new(),
            registrations: Vec::new(),
            draw_offer: None,
            ending: None,
            divergences: Vec::new(),
            created: place,
            updated: place,
        };
        if !exact {
            game.diverge("GameCreated", place, "state length", "128", e.state.len());
            return game;
        }
        match State::from_bytes(&start_state) {
            Err(error) => game.diverge("GameCreated", place, "start state", "a valid state", error),
            Ok(start) if e.history != chain::of_start(&start) => game.diverge(
                "GameCreated",
                place,
                "start history",
                chain::of_start(&start),
                e.history,
            ),
            Ok(_) => {}
        }
        let terms = game.terms().join_hash(e.responseWindow);
        if e.terms != terms && !game.hosted() {
            game.diverge("GameCreated", place, "terms", terms, e.terms);
        }
        game
    }

    /// Whether the tournament hosted this game (`hostGame`): its `GameCreated` states
    /// terms 0, as nobody joins it (its `GameJoined` follows in the same transaction),
    /// between its two named players, for no stake.
    pub fn hosted(&self) -> bool {
        self.terms == B256::ZERO
            && self.stake.is_zero()
            && self.token == Address::ZERO
            && self.opponent != Address::ZERO
    }

    /// The terms of this game as its `GameCreated` states them: what a joiner agrees to
    /// by passing their hash ([`Terms::join_hash`] with [`GameLog::response_window`]) to
    /// `joinGame`.
    pub fn terms(&self) -> Terms {
        Terms {
            creator: self.creator,
            opponent: self.opponent,
            creatorWhite: self.creator_white,
            token: self.token,
            stake: self.stake,
            initialTime: U256::from(self.initial_time),
            increment: U256::from(self.increment),
            firstMoveWindow: U256::from(self.first_move_window),
            start: start_inner(&self.start_state, self.start_history),
        }
    }

    /// Whether the game is played off-chain with signed moves (docs/CHANNEL.md).
    pub fn is_channel(&self) -> bool {
        self.response_window != 0
    }

    /// The current state, if the game runs or ran and its state is valid.
    pub fn state(&self) -> Option<State> {
        self.position
            .as_ref()
            .and_then(|p| State::from_bytes(&p.state).ok())
    }

    /// The state to show: the current one, else the start.
    pub fn shown_state(&self) -> Option<State> {
        self.state()
            .or_else(|| State::from_bytes(&self.start_state).ok())
    }

    /// The number of moves played so far (off-chain ones of a channel game included).
    pub fn ply(&self) -> u32 {
        self.position.as_ref().map_or(0, Position::ply)
    }

    /// The player of `colour`, once joined.
    pub fn player(&self, colour: Color) -> Option<Address> {
        match colour {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The players and terms the channel protocol signs under (docs/CHANNEL.md), once a
    /// channel game is joined.
    pub fn channel_game(&self) -> Option<chessref_channel::ChannelGame> {
        if !self.is_channel() {
            return None;
        }
        Some(chessref_channel::ChannelGame {
            game_id: self.id,
            white: self.white?,
            black: self.black?,
            initial_time: self.initial_time,
            increment: self.increment,
            response_window: self.response_window,
            start_state: (self.start_state != *State::initial().as_bytes())
                .then(|| alloy_primitives::Bytes::copy_from_slice(&self.start_state)),
        })
    }

    /// Whether `account` created, was invited to or plays this game.
    pub fn involves(&self, account: Address) -> bool {
        self.creator == account
            || self.opponent == account
            || self.white == Some(account)
            || self.black == Some(account)
    }

    fn diverge(
        &mut self,
        event: &'static str,
        place: LogPlace,
        what: &'static str,
        expected: impl std::fmt::Display,
        found: impl std::fmt::Display,
    ) {
        self.divergences.push(Divergence {
            event,
            place,
            what,
            expected: expected.to_string(),
            found: found.to_string(),
        });
    }

    /// Records a divergence unless the game is in `phase`.
    fn expect_phase(&mut self, event: &'static str, place: LogPlace, phase: Phase) -> bool {
        if self.phase == phase {
            return true;
        }
        self.diverge(event, place, "phase", phase.name(), self.phase.name());
        false
    }

    /// Folds the next event of this game in (events of other games are ignored).
    pub fn apply(&mut self, log: &RefereeLog) {
        if log.game_id() != Some(self.id) {
            return;
        }
        let place = log.place;
        let name = log.name();
        self.updated = place;
        match &log.event {
            Event::GameCreated(_) => self.diverge(name, place, "event", "one GameCreated", "two"),
            Event::GameJoined(e) => {
                self.expect_phase(name, place, Phase::Open);
                let (creator_colour, joiner) = if self.creator_white {
                    (e.white, e.black)
                } else {
                    (e.black, e.white)
                };
                if creator_colour != self.creator {
                    self.diverge(
                        name,
                        place,
                        "creator's colour",
                        self.creator,
                        creator_colour,
                    );
                }
                if self.opponent != Address::ZERO && joiner != self.opponent {
                    self.diverge(name, place, "joiner", self.opponent, joiner);
                }
                self.white = Some(e.white);
                self.black = Some(e.black);
                self.phase = Phase::Running;
                self.position = Some(Position {
                    state: self.start_state,
                    history: self.start_history,
                    clock: e.clock,
                });
            }
            Event::GameCancelled(_) => {
                self.expect_phase(name, place, Phase::Open);
                self.phase = Phase::Cancelled;
            }
            Event::MovePlayed(e) => self.moved(e, place),
            Event::DrawOffered(e) => {
                self.expect_phase(name, place, Phase::Running);
                if Some(e.by) != self.white && Some(e.by) != self.black {
                    self.diverge(name, place, "offerer", "a player", e.by);
                }
                self.draw_offer = Some(e.by);
                if let Some(position) = &mut self.position {
                    position.clock = e.clock;
                }
            }
            Event::GameEnded(e) => self.ended(e, place),
            Event::PositionRegistered(e) => self.registered(e, place),
            Event::Withdrawn(_) => {}
        }
    }

    fn moved(&mut self, e: &R::MovePlayed, place: LogPlace) {
        const NAME: &str = "MovePlayed";
        let packed = e.r#move.to::<u32>();
        let mut state = [0u8; 128];
        if e.state.len() == 128 {
            state.copy_from_slice(&e.state);
        } else {
            self.diverge(NAME, place, "state length", 128, e.state.len());
        }
        let reported = Position {
            state,
            history: e.history,
            clock: e.clock,
        };
        let mut uci = format!("0x{packed:06x}");
        let mut san = None;
        if self.expect_phase(NAME, place, Phase::Running) {
            let before = self.position.expect("a running game has a position");
            if e.ply != before.ply() + 1 {
                self.diverge(NAME, place, "ply", before.ply() + 1, e.ply);
            }
            match State::from_bytes(&before.state) {
                Err(error) => self.diverge(NAME, place, "previous state", "a valid state", error),
                Ok(previous) => match previous.check_and_play(RawMove::from_packed(packed)) {
                    Err(rejection) => self.diverge(
                        NAME,
                        place,
                        "move",
                        "a legal move",
                        format!("{uci}: {rejection}"),
                    ),
                    Ok((mv, next)) => {
                        uci = mv.to_uci();
                        san = previous.san(mv).ok();
                        if next.as_bytes() != &state {
                            self.diverge(NAME, place, "state", next.to_hex(), state_hex(&e.state));
                        }
                        let history = chain::after(before.history, &next);
                        if history != e.history {
                            self.diverge(NAME, place, "history", history, e.history);
                        }
                        let status = next.status();
                        if status.code() != e.status {
                            self.diverge(NAME, place, "status", status.code(), e.status);
                        }
                    }
                },
            }
            if reported.ply() != e.ply {
                self.diverge(NAME, place, "clock ply", e.ply, reported.ply());
            }
        }
        self.draw_offer = None;
        self.position = Some(reported);
        self.moves.push(PlayedMove {
            ply: e.ply,
            packed,
            uci,
            san,
            status: e.status,
            position: reported,
            place,
        });
    }

    fn registered(&mut self, e: &R::PositionRegistered, place: LogPlace) {
        const NAME: &str = "PositionRegistered";
        self.expect_phase(NAME, place, Phase::Running);
        let mut state = [0u8; 128];
        if e.state.len() == 128 {
            state.copy_from_slice(&e.state);
            if let Err(error) = State::from_bytes(&state) {
                self.diverge(NAME, place, "state", "a valid state", error);
            }
        } else {
            self.diverge(NAME, place, "state length", 128, e.state.len());
        }
        let position = Position {
            state,
            history: e.history,
            clock: e.clock,
        };
        if position.ply() != e.ply {
            self.diverge(NAME, place, "clock ply", e.ply, position.ply());
        }
        // The first registration may be of the start (`registerStart`, ply 0); each later one
        // overtakes the last, so its ply is above it.
        if !self.registrations.is_empty() && e.ply <= self.ply() {
            self.diverge(NAME, place, "ply", format!("above {}", self.ply()), e.ply);
        }
        self.draw_offer = None;
        self.position = Some(position);
        self.registrations.push(Registration {
            ply: e.ply,
            position,
            place,
        });
    }

    fn ended(&mut self, e: &R::GameEnded, place: LogPlace) {
        const NAME: &str = "GameEnded";
        self.expect_phase(NAME, place, Phase::Running);
        self.phase = Phase::Ended;
        self.draw_offer = None;
        let ending = match Ending::from_codes(e.result, e.reason) {
            Ok(ending) => ending,
            Err(error) => {
                self.diverge(
                    NAME,
                    place,
                    "ending",
                    "known result and reason codes",
                    error,
                );
                return;
            }
        };
        self.ending = Some(ending);
        // An ending the position decides by itself must be the position's; and a
        // decided position cannot end any other way.
        let automatic = self
            .state()
            .and_then(|s| Ending::automatic(s.status(), s.turn()));
        let by_status = matches!(
            ending.reason,
            EndReason::Checkmate
                | EndReason::Stalemate
                | EndReason::InsufficientMaterial
                | EndReason::SeventyFiveMoves
        );
        if (by_status || automatic.is_some()) && automatic != Some(ending) {
            let expected =
                automatic.map_or("no ending by the position".to_string(), |a| a.to_string());
            self.diverge(NAME, place, "ending", expected, ending);
        }
    }

    /// The section 8 status of the current position (as the rules give it).
    pub fn status(&self) -> Option<Status> {
        self.state().map(|s| s.status())
    }

    /// The side to move, when the game has a valid position.
    pub fn turn(&self) -> Option<Color> {
        self.state().map(|s| s.turn())
    }

    /// The account whose turn it is, in a running game.
    pub fn mover(&self) -> Option<Address> {
        if self.phase != Phase::Running {
            return None;
        }
        self.turn().and_then(|c| self.player(c))
    }
}

/// An event that cannot be folded into any game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameLogError {
    /// An event names a game whose `GameCreated` was not seen.
    #[error(
        "{event} at block {block} is about game {id}, whose GameCreated was not seen: start \
         reading at or before the block that created it (the referee's deployment block)"
    )]
    UnknownGame {
        /// The event.
        event: &'static str,
        /// The game.
        id: U256,
        /// Its block.
        block: u64,
    },
    /// A log is out of chain order.
    #[error(
        "log {} of block {} comes after log {} of block {}: logs must be folded in chain order",
        .at.1, .at.0, .previous.1, .previous.0
    )]
    OutOfOrder {
        /// The log: block number, log index.
        at: (u64, u64),
        /// The one before it.
        previous: (u64, u64),
    },
}

/// Every game of one referee, folded from its logs in chain order.
#[derive(Clone, Debug, Default)]
pub struct Games {
    games: std::collections::BTreeMap<U256, GameLog>,
    /// Block number and log index of the last log folded in.
    last: Option<(u64, u64)>,
}

impl Games {
    /// No games yet.
    pub fn new() -> Games {
        Games::default()
    }

    /// Folds the next log in; returns the game it changed (`None` for `Withdrawn`).
    pub fn apply(&mut self, log: &RefereeLog) -> Result<Option<U256>, GameLogError> {
        let at = (log.place.block_number, log.place.log_index);
        if let Some(previous) = self.last
            && at <= previous
        {
            return Err(GameLogError::OutOfOrder { at, previous });
        }
        self.last = Some(at);
        let Some(id) = log.game_id() else {
            return Ok(None);
        };
        match (&log.event, self.games.get_mut(&id)) {
            (Event::GameCreated(e), None) => {
                self.games.insert(id, GameLog::created(e, log.place));
            }
            (_, Some(game)) => game.apply(log),
            (_, None) => {
                return Err(GameLogError::UnknownGame {
                    event: log.name(),
                    id,
                    block: log.place.block_number,
                });
            }
        }
        Ok(Some(id))
    }

    /// One game.
    pub fn get(&self, id: U256) -> Option<&GameLog> {
        self.games.get(&id)
    }

    /// All games by id.
    pub fn iter(&self) -> impl Iterator<Item = &GameLog> {
        self.games.values()
    }

    /// How many games.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// Takes the games out.
    pub fn into_games(self) -> std::collections::BTreeMap<U256, GameLog> {
        self.games
    }
}

/// Folds the logs of one game (in chain order) into it; `None` without its
/// `GameCreated`.
pub fn fold_game<'a>(logs: impl IntoIterator<Item = &'a RefereeLog>) -> Option<GameLog> {
    let mut game: Option<GameLog> = None;
    for log in logs {
        match (&log.event, &mut game) {
            (Event::GameCreated(e), None) => game = Some(GameLog::created(e, log.place)),
            (_, Some(g)) => g.apply(log),
            (_, None) => {}
        }
    }
    game
}
