//! A player's channel game session (docs/CHANNEL.md section 13), what `chessref channel
//! play` runs and a Rust bot can run without the command line: it takes [`Command`]s and
//! tells what happens as [`Event`]s.
//!
//! The session makes the player's session key on first use (a file only its user can
//! read, never sent; the wallet signs its delegation once), then plays through the relay
//! ([`relay`]): moves are checked and signed by the shared seat
//! ([`chessref_channel::seat`], which also says what an honest client answers), every
//! incoming message is checked by the mirror before it counts, each opponent move is
//! acknowledged at once, and the transcript is kept on disk as it grows
//! (`transcript.json`, what `chessref channel verify|settle|dispute` read; [`folder`]).
//! When the opponent has not acknowledged the player's move by `min(sent + 10 s, its
//! stamp + 30 s)` ([`chessref_channel::auto_register_at`]), the session registers that
//! move itself, with a 2 gwei tip (unless told not to); when the opponent goes silent it
//! says so with the deadline.
//!
//! Every second the session follows the chain ([`chain`]): every registration, its own,
//! the opponent's or a watchtower's, is told once with who sent it and when its window
//! ends; while one is frozen the session signs nothing for the relay, takes the registered
//! moves in, answers by the watchtower's rule, and registers a move typed on the player's
//! turn as the direct reply. Once the window is over the game goes on on-chain in the
//! same session, each move a transaction of the seat.
//!
//! A bot plays by answering the events it is sent with commands:
//!
//! ```no_run
//! use std::sync::mpsc;
//! use std::time::Duration;
//!
//! use alloy::signers::local::PrivateKeySigner;
//! use alloy_primitives::{Address, U256};
//! use chessref_client::seat::Seat;
//! use chessref_client::session::{Command, Event, Options, Session};
//! use chessref_evm::{RpcChain, Sender};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let wallet: PrivateKeySigner = std::env::var("CHESSREF_PRIVATE_KEY")?.parse()?;
//! let referee: Address = std::env::var("REFEREE")?.parse()?;
//! let chain = RpcChain::connect_as("http://127.0.0.1:8545", &Sender::Local(wallet.clone()))?;
//! let seat = Seat::new(chain, referee, 0)?;
//! let (commands, input) = mpsc::channel();
//! let sink = Box::new(move |event: Event| {
//!     if let Event::Move(moved) = &event
//!         && moved.your_move
//!     {
//!         // The bot's reply to the position `moved.fen`.
//!         let _ = commands.send(Command::Move("e5".into()));
//!     }
//! });
//! let options = Options {
//!     id: U256::from(1),
//!     relay: "http://127.0.0.1:8080".into(),
//!     dir: None,
//!     patience: Duration::from_secs(30),
//!     auto_register: true,
//! };
//! Session::open(seat, &wallet, options, sink)?.run(&input)?;
//! # Ok(())
//! # }
//! ```

pub mod chain;
pub mod command;
pub mod event;
pub mod folder;
pub mod relay;

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::{Address, B256, U256};
use chessref_channel::seat::{ChannelSeat, Received};
use chessref_channel::settlement::Settlement;
use chessref_channel::transcript::Side;
use chessref_channel::{Frame, NoPins, RelayFrame};
use chessref_core::Color;
use chessref_evm::Chain;

pub use command::Command;
pub use event::{Board, Event, Moved, Refusal, Registrant, Registration, RelayTrouble, Via};

use crate::game_log::Phase as GamePhase;
use crate::seat::{Prepared, Seat, SeatError, Sent, unix_now as now};
use crate::shown::Frozen;
use relay::{Connection, Read};

/// Why a session stopped (or could not start); a failed step while it runs is an
/// [`Event::Error`] instead.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The seat refused or failed (its own error).
    #[error("{0}")]
    Seat(#[from] SeatError),
    /// A file of the game's folder.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Refused before anything was sent (not a player, another game's folder, ...).
    #[error("{0}")]
    Refused(String),
    /// Something read does not make sense (a file, the relay's terms, a signature).
    #[error("{0}")]
    Invalid(String),
}

impl SessionError {
    fn io(path: &std::path::Path, source: std::io::Error) -> SessionError {
        SessionError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// How a session plays.
#[derive(Clone, Debug)]
pub struct Options {
    /// The game id.
    pub id: U256,
    /// The relay: the base URL of a `chessref serve --index` (http:// or ws://).
    pub relay: String,
    /// Where the games' folders are ([`folder::default_base`] when `None`).
    pub dir: Option<PathBuf>,
    /// The opponent's silence on its move before it is told ([`Event::Silent`]).
    pub patience: Duration,
    /// Whether the player's own unacknowledged move is registered by itself (CHANNEL.md 9).
    pub auto_register: bool,
}

/// Where the game is played.
enum Phase {
    /// Off-chain, through the relay.
    OffChain,
    /// A registration is frozen: moves are registered, not relayed.
    Frozen(Box<Frozen>),
    /// On-chain play is live: moves are the referee's `move`.
    Live,
}

/// How long a session whose game ended off-chain waits, at most, for the relay to hold
/// every message of its transcript before it ends.
const LAST_WORD: Duration = Duration::from_secs(10);

/// A running channel game session of one player.
pub struct Session {
    sink: Box<dyn FnMut(Event)>,
    id: U256,
    seat: Seat,
    channel: ChannelSeat,
    transcript_file: PathBuf,
    relay: String,
    socket: Option<Connection>,
    /// The frames the relay holds (seen from it), to send what it lacks after a reconnection.
    relayed: Vec<Frame>,
    /// The relay's latest message at connection, until the backlog is read.
    syncing: Option<u64>,
    /// When the opponent was last heard from, and whether its silence was reported.
    heard: Instant,
    warned: bool,
    /// Off-chain, frozen by a registration, or live on-chain.
    phase: Phase,
    /// `(registeredPly, windowEnd)` of the latest registration seen (to tell a new one).
    registration: Option<(u32, u64)>,
    /// How many of the game's registrations were told ([`Event::Registration`]).
    told_registrations: usize,
    /// The transactions of the registrations this session sent (told as
    /// [`Event::Registered`], not again as [`Event::Registration`]).
    own_registrations: Vec<B256>,
    /// Whether on-chain play was told to be live ([`Event::Live`], once).
    live_told: bool,
    /// The frozen registration answered (its ply and window end) and the ply the player
    /// held then: each is answered once (a failure is reported).
    answered: Option<(u32, u64, u32)>,
    shown_chain: Option<String>,
    patience: Duration,
    /// Whether the player's own unacknowledged move is registered by itself (CHANNEL.md 9).
    auto_register: bool,
    /// When the player's latest move was sent (the session's start for a move sent
    /// before a restart, which is sent again then).
    sent_at: u64,
    /// The ply whose automatic registration was tried (once: a failure is reported).
    auto_tried: Option<u32>,
    settled: bool,
    /// When the game ended off-chain ([`Session::owes_the_relay`]).
    ended_at: Option<Instant>,
    /// The opponent.
    opponent: Address,
}

impl Session {
    /// Opens the session of `wallet` (a player) in game `options.id` at `seat`'s referee:
    /// waits for the join when the game is still open (saying so once), claims the game's
    /// folder, makes or reads the session key and restores the transcript kept there.
    /// Events go to `sink`, from the wait on.
    pub fn open(
        mut seat: Seat,
        wallet: &PrivateKeySigner,
        options: Options,
        mut sink: Box<dyn FnMut(Event)>,
    ) -> Result<Session, SessionError> {
        let id = options.id;
        let mut log = seat.game(id)?;
        // Started before anyone joined (a creator starts the client and waits, as `game
        // show --watch` does): wait for the join, saying so once.
        if log.is_channel() && log.phase == GamePhase::Open {
            sink(Event::Waiting { game: id });
            while log.phase == GamePhase::Open {
                std::thread::sleep(Duration::from_secs(1));
                log = seat.game(id)?;
            }
        }
        let terms = log.channel_game().ok_or_else(|| {
            SessionError::Refused(format!(
                "game {id} is not a joined channel game ({})",
                log.phase.name()
            ))
        })?;
        let domain = seat
            .referee()
            .channel_domain()
            .map_err(|e| SessionError::Invalid(e.to_string()))?;
        let chain_id = seat
            .referee()
            .chain()
            .chain_id()
            .map_err(|e| SessionError::Invalid(e.to_string()))?;
        let owner = folder::FolderOwner {
            chain_id,
            referee: seat.referee().address(),
            game_id: id,
            player: wallet.address(),
            created_in_block: log.created.block_hash,
        };
        let dir = owner.folder(&options.dir.unwrap_or_else(folder::default_base));
        owner.claim(&dir)?;
        let (key, delegation) = folder::session_key(&dir, wallet, &terms, &domain)?;
        let mut channel =
            ChannelSeat::new(domain, terms, wallet.address(), Box::new(key), delegation)
                .map_err(|e| SessionError::Refused(e.to_string()))?;
        let transcript_file = dir.join("transcript.json");
        if let Some(stored) = folder::stored_transcript(&transcript_file)? {
            channel.restore(&stored, now()).map_err(|e| {
                SessionError::Invalid(format!("{}: {e}", transcript_file.display()))
            })?;
        }
        // Refined from the chain before the session starts (the window may still run).
        let phase = if log.registrations.is_empty() {
            Phase::OffChain
        } else {
            Phase::Live
        };
        let opponent = match channel.colour() {
            Color::White => channel.game().black,
            Color::Black => channel.game().white,
        };
        Ok(Session {
            sink,
            id,
            seat,
            channel,
            transcript_file,
            relay: options.relay,
            socket: None,
            relayed: Vec::new(),
            syncing: None,
            heard: Instant::now(),
            warned: false,
            phase,
            registration: None,
            told_registrations: 0,
            own_registrations: Vec::new(),
            live_told: false,
            answered: None,
            shown_chain: None,
            patience: options.patience,
            auto_register: options.auto_register,
            sent_at: now(),
            auto_tried: None,
            settled: false,
            ended_at: None,
            opponent,
        })
    }

    /// The seat the session plays from (to read the chain beside it).
    pub fn seat(&mut self) -> &mut Seat {
        &mut self.seat
    }

    /// The opponent's wallet.
    pub fn opponent(&self) -> Address {
        self.opponent
    }

    /// Whether the game left the relay (a registration, frozen or live).
    fn on_chain(&self) -> bool {
        !matches!(self.phase, Phase::OffChain)
    }

    fn emit(&mut self, event: Event) {
        (self.sink)(event);
    }

    fn error(&mut self, message: impl Into<String>) {
        self.emit(Event::Error {
            message: message.into(),
            revert: None,
        });
    }

    /// A command or step of the seat failed: said in words, with the contract's error
    /// when it is one (a bot reads its name and fields).
    fn failed(&mut self, error: &SeatError) {
        self.emit(Event::Error {
            message: error.to_string(),
            revert: error.revert().cloned().map(Box::new),
        });
    }

    /// Plays until the game is over and settled, or a [`Command::Quit`]: commands come
    /// from `commands` (its sender dropped: none any more, the session goes on).
    pub fn run(&mut self, commands: &Receiver<Command>) -> Result<(), SessionError> {
        let colour = self.channel.colour();
        self.emit(Event::Started {
            game: self.id,
            colour,
            ply: self.channel.last().ply,
            on_chain: self.on_chain(),
            opponent: self.opponent,
        });
        self.show();
        if self.on_chain() {
            self.follow_chain()?;
        }
        let mut retry = Instant::now();
        let mut tick = Instant::now();
        loop {
            if self.socket.is_none()
                && matches!(self.phase, Phase::OffChain)
                && Instant::now() >= retry
            {
                match Connection::open(&self.relay, self.id) {
                    Ok(socket) => {
                        self.socket = Some(socket);
                        self.relayed.clear();
                    }
                    Err(error) => {
                        self.emit(Event::Relay {
                            trouble: RelayTrouble::Unreachable,
                            error,
                        });
                        retry = Instant::now() + Duration::from_secs(2);
                    }
                }
            }
            self.read_relay()?;
            match commands.recv_timeout(Duration::from_millis(20)) {
                Ok(command) => {
                    if !self.command(command)? {
                        return Ok(());
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                // No more commands (a bot closed standard input): the channel answers at
                // once from now on, so wait here as the timeout would (issue 29: it spun a
                // core).
                Err(RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(Duration::from_millis(20))
                }
            }
            if tick.elapsed() >= Duration::from_secs(1) {
                tick = Instant::now();
                self.every_second()?;
            }
            if self.settled && !self.owes_the_relay() {
                return Ok(());
            }
        }
    }

    /// Whether the session, its game ended off-chain, still waits for the relay to hold
    /// every message of its transcript (up to [`LAST_WORD`] after the end): the player's
    /// last frames (its result half, its receipt) may be what the opponent needs to end
    /// the game, and a relay that died before storing them has them again only from a
    /// reconnection's resync (issue 30: the mated side left, its half lost with its relay,
    /// and the winner could not settle).
    fn owes_the_relay(&self) -> bool {
        self.ended_at.is_some_and(|at| at.elapsed() < LAST_WORD)
            && matches!(self.phase, Phase::OffChain)
            && !self.channel.unrelayed(&self.relayed).is_empty()
    }

    fn save(&self) -> Result<(), SessionError> {
        folder::save_transcript(&self.transcript_file, self.channel.transcript())
    }

    fn relay_lost(&mut self, error: String) {
        self.emit(Event::Relay {
            trouble: RelayTrouble::Lost,
            error,
        });
        self.socket = None;
    }

    fn send(&mut self, frames: Vec<Frame>) -> Result<(), SessionError> {
        self.save()?;
        let Some(socket) = self.socket.as_mut() else {
            return Ok(());
        };
        for frame in frames {
            if let Err(e) = socket.send(&frame) {
                self.relay_lost(e);
                return Ok(());
            }
        }
        Ok(())
    }

    /// Reads every frame the relay has for us now.
    fn read_relay(&mut self) -> Result<(), SessionError> {
        loop {
            let Some(socket) = self.socket.as_mut() else {
                return Ok(());
            };
            match socket.read() {
                Read::Nothing => return Ok(()),
                Read::Lost(error) => {
                    self.relay_lost(error);
                    return Ok(());
                }
                Read::NotAFrame(error) => self.emit(Event::Relay {
                    trouble: RelayTrouble::NotAFrame,
                    error,
                }),
                Read::Frame(frame) => self.relay_frame(*frame)?,
            }
        }
    }

    fn relay_frame(&mut self, frame: RelayFrame) -> Result<(), SessionError> {
        match frame {
            RelayFrame::Welcome { latest, game, .. } => {
                if game != *self.channel.game() {
                    return Err(SessionError::Invalid(format!(
                        "the relay names other terms for game {} than the chain",
                        self.id
                    )));
                }
                self.syncing = Some(latest);
                if latest == 0 {
                    self.synced()?;
                }
            }
            RelayFrame::Message { seq, message, .. } => {
                self.relayed.push(message.clone());
                self.incoming(message)?;
                if self.syncing == Some(seq) {
                    self.synced()?;
                }
            }
            RelayFrame::Duplicate { .. } => {}
            RelayFrame::Refused { kind, code, reason } => self.emit(Event::Refused {
                source: Refusal::ByRelay,
                kind,
                code,
                reason,
            }),
        }
        Ok(())
    }

    /// The backlog is read: send what the relay lacks (after a reconnection, or a
    /// restart), our delegation first, and what we owe.
    fn synced(&mut self) -> Result<(), SessionError> {
        self.syncing = None;
        let missing = self
            .channel
            .resync(&self.relayed, now())
            .map_err(|e| SessionError::Invalid(e.to_string()))?;
        self.send(missing)
    }

    /// What the seat answers to `received` (a receipt, an agreement), sent.
    fn answer(&mut self, received: &Received) -> Result<(), SessionError> {
        let frames = self
            .channel
            .answer(received, now())
            .map_err(|e| SessionError::Invalid(e.to_string()))?;
        self.send(frames)
    }

    /// A message from the relay: checked by the mirror, then answered.
    fn incoming(&mut self, frame: Frame) -> Result<(), SessionError> {
        let received = match self.channel.receive(frame, now()) {
            Ok(received) => received,
            Err(refusal) => {
                self.emit(Event::Refused {
                    source: Refusal::FromRelay,
                    kind: refusal.kind().to_owned(),
                    code: refusal.code(),
                    reason: refusal.to_string(),
                });
                return Ok(());
            }
        };
        self.save()?;
        let me = Side::of(self.channel.colour());
        match received {
            Received::Known | Received::Delegation(_) | Received::Receipt(_) => {}
            Received::Move { by, .. } => {
                if by != me {
                    self.heard = Instant::now();
                    self.warned = false;
                }
                self.moved(&received, Via::Relay);
                self.answer(&received)?;
                if by != me {
                    self.show();
                }
            }
            Received::DrawOffer(by) if by != me => {
                self.heard = Instant::now();
                self.emit(Event::DrawOffer { by });
            }
            Received::DrawOffer(_) => {}
            Received::ResultHalf(by, result) if by != me => {
                self.heard = Instant::now();
                self.emit(Event::ResultSigned { by, result });
                self.answer(&received)?;
                if self.channel.ended().is_some() {
                    self.ended()?;
                }
            }
            Received::ResultHalf(..) => {}
            Received::Ended => self.ended()?,
        }
        Ok(())
    }

    /// Says that the player's own move, the latest, is signed (`via` the relay or a
    /// registration), with its signed stamp and times, so a bot learns its move went
    /// through.
    fn own_move(&mut self, via: Via) {
        let last = self.channel.last();
        let (san, uci) = self.channel.last_move().unwrap_or_default();
        let moved = Moved {
            ply: last.ply,
            by: Side::of(self.channel.colour()),
            mine: true,
            san,
            uci,
            fen: self.channel.position().fen(),
            white_time: last.whiteTime,
            black_time: last.blackTime,
            timestamp: last.timestamp,
            your_move: false,
            via,
        };
        self.emit(Event::Move(moved));
    }

    /// Says that `received`, a move, came in `via` the relay or the chain (a registered or
    /// announced move, held from when the chain showed it).
    fn moved(&mut self, received: &Received, via: Via) {
        let Received::Move { ply, by, san, uci } = received else {
            return;
        };
        let last = self.channel.last();
        let moved = Moved {
            ply: *ply,
            by: *by,
            mine: *by == Side::of(self.channel.colour()),
            san: san.clone(),
            uci: uci.clone(),
            fen: self.channel.position().fen(),
            white_time: last.whiteTime,
            black_time: last.blackTime,
            timestamp: last.timestamp,
            your_move: self.channel.to_move(),
            via,
        };
        self.emit(Event::Move(moved));
    }

    /// What the transcript held settles or registers now (its verification's call).
    fn settlement(&self) -> Result<Settlement, SessionError> {
        let report = self
            .channel
            .transcript()
            .verify(&NoPins, now())
            .map_err(|e| SessionError::Invalid(e.to_string()))?;
        Ok(report.settlement)
    }

    /// In a decided position, sign the result the board gives (once).
    fn agree_to_the_board(&mut self) -> Result<(), SessionError> {
        let frames = self
            .channel
            .agree_to_the_board(now())
            .map_err(|e| SessionError::Invalid(e.to_string()))?;
        self.send(frames)
    }

    /// The game ended off-chain: the winner (white on a draw) settles it in one
    /// transaction.
    fn ended(&mut self) -> Result<(), SessionError> {
        self.ended_at.get_or_insert_with(Instant::now);
        let settlement = self.settlement()?;
        let (result, reason) = settlement.ends.unwrap_or((0, 0));
        let colour = self.channel.colour();
        let mine = match result {
            2 => colour == Color::Black,
            _ => colour == Color::White,
        };
        self.emit(Event::Ended {
            result,
            reason,
            call: settlement.call,
            why: settlement.why.clone(),
            you_settle: mine,
        });
        if !mine {
            self.settled = true;
            return Ok(());
        }
        let prepared = self.seat.prepare_channel(&settlement)?;
        let sent = self.seat.send(prepared)?;
        self.emit(Event::Settled {
            tx: sent.receipt.tx_hash.unwrap_or_default(),
            gas_used: sent.receipt.gas_used,
        });
        self.settled = true;
        Ok(())
    }

    /// One command; `false` to quit. The chain is looked at first: a registration that
    /// landed, or a window that ended, since the last second changes where it goes.
    fn command(&mut self, command: Command) -> Result<bool, SessionError> {
        if command.acts() && !matches!(self.phase, Phase::Live) {
            self.follow_chain()?;
        }
        let t = now();
        let outcome: Result<Vec<Frame>, String> = match command {
            Command::Quit => return Ok(false),
            Command::Show => {
                self.show();
                return Ok(true);
            }
            Command::Register if matches!(self.phase, Phase::Frozen(_)) => {
                if !self.answer_frozen(true)? {
                    self.nothing_to_register();
                }
                return Ok(true);
            }
            // Once on-chain play is live a registration is stale (`StaleRegistration`):
            // nothing is sent.
            Command::Register if matches!(self.phase, Phase::Live) => {
                self.nothing_to_register();
                return Ok(true);
            }
            Command::Register => {
                self.register_with(false)?;
                return Ok(true);
            }
            // Off-chain, a draw by the fifty-move rule or threefold repetition is claimed
            // from a registered position (CHANNEL.md 7.5): register first, claim after the
            // window. On-chain: the draw if one is claimable, else the opponent's timeout.
            Command::Claim if matches!(self.phase, Phase::OffChain) => {
                let position = self.channel.position();
                if position.halfmove_clock() >= 100 || self.threefold() {
                    self.register_with(false)?;
                    self.emit(Event::ClaimAfterWindow);
                } else {
                    self.error("no draw to claim here: off-chain, `register` puts the game on-chain, where a timeout is claimed");
                }
                return Ok(true);
            }
            // While a registration is frozen, moves are registered (CHANNEL.md 7.3).
            command if matches!(self.phase, Phase::Frozen(_)) => {
                self.frozen_command(command)?;
                return Ok(true);
            }
            Command::Claim => {
                let registered = self
                    .seat
                    .game(self.id)
                    .ok()
                    .and_then(|g| g.registrations.last().map(|r| r.ply))
                    .unwrap_or(0);
                let off_chain: Vec<chessref_core::State> = self
                    .channel
                    .transcript()
                    .moves
                    .iter()
                    .filter(|m| m.ply <= registered)
                    .filter_map(|m| chessref_core::State::from_bytes(&m.state).ok())
                    .collect();
                let prepared = self
                    .seat
                    .claim_draw_after(self.id, &off_chain)
                    .or_else(|_| self.seat.claim_timeout(self.id));
                match prepared.and_then(|p| self.transact(p)) {
                    Ok(_) => self.settled = true,
                    Err(e) => self.failed(&e),
                }
                return Ok(true);
            }
            // On-chain the session commands are the referee's calls, not moves (issue 29).
            Command::Resign if self.on_chain() => {
                let prepared = self.seat.resign(self.id);
                if let Err(e) = prepared.and_then(|p| self.transact(p)) {
                    self.failed(&e);
                }
                return Ok(true);
            }
            Command::Draw if self.on_chain() => {
                // Accepts the opponent's standing offer, else offers one.
                let prepared = self
                    .seat
                    .accept_draw(self.id)
                    .or_else(|_| self.seat.offer_draw(self.id));
                if let Err(e) = prepared.and_then(|p| self.transact(p)) {
                    self.failed(&e);
                }
                return Ok(true);
            }
            Command::Move(text) if self.on_chain() => {
                let prepared = self.seat.play(self.id, &text);
                if let Err(e) = prepared.and_then(|p| self.transact(p)) {
                    self.failed(&e);
                }
                return Ok(true);
            }
            Command::Draw if self.channel.draw_offered() => {
                self.channel.sign_result(3, t).map_err(|e| e.to_string())
            }
            Command::Draw => self.channel.offer_draw(t).map_err(|e| e.to_string()),
            Command::Resign => self.channel.resign(t).map_err(|e| e.to_string()),
            Command::Move(text) => self.channel.play(&text, t).map_err(|e| e.to_string()),
        };
        match outcome {
            Ok(frames) => {
                let moved = frames.iter().any(|f| matches!(f, Frame::Move(_)));
                self.send(frames)?;
                if moved {
                    self.heard = Instant::now();
                    self.sent_at = t;
                    self.own_move(Via::Signed);
                    self.show();
                    self.agree_to_the_board()?;
                }
                if self.channel.ended().is_some() {
                    self.ended()?;
                }
            }
            Err(e) => self.error(e),
        }
        Ok(true)
    }

    /// Sends a transaction, saying so before ([`Event::Sending`]) and after
    /// ([`Event::Sent`]).
    fn transact(&mut self, prepared: Prepared) -> Result<Sent, SeatError> {
        let event = Event::Sending {
            operation: prepared.operation,
            summary: prepared.summary.clone(),
            from: self.seat.player(),
            gas: prepared.gas,
            gas_price: prepared.gas_price,
            fee: prepared.fee(),
        };
        self.emit(event);
        let sent = self.seat.send(prepared)?;
        self.emit(Event::Sent(Box::new(sent.clone())));
        Ok(sent)
    }

    /// Every second: follow the chain's registrations; report an opponent's silence;
    /// on-chain, follow the game.
    fn every_second(&mut self) -> Result<(), SessionError> {
        if !matches!(self.phase, Phase::Live) {
            self.follow_chain()?;
        }
        match self.phase {
            Phase::Frozen(_) => return Ok(()),
            Phase::Live => {
                self.follow_live();
                return Ok(());
            }
            Phase::OffChain => {}
        }
        let (white, black) = self.clocks();
        self.emit(Event::Clocks { white, black });
        if self.auto_register_due() {
            self.auto_register()?;
            return Ok(());
        }
        let waiting = self.channel.ended().is_none()
            && !self.channel.to_move()
            && self.channel.decided_code().is_none();
        if waiting && !self.warned && self.heard.elapsed() >= self.patience {
            self.warned = true;
            let last = self.channel.last();
            let acknowledged = self
                .channel
                .transcript()
                .moves
                .last()
                .is_some_and(|m| m.receipt.is_some());
            let register_by = if acknowledged || last.ply == 0 {
                None
            } else {
                Some(last.timestamp + chessref_channel::settlement::STAMP_TOLERANCE)
            };
            let auto_register_at = self
                .channel
                .auto_register_at(self.sent_at)
                .filter(|_| self.auto_register);
            let event = Event::Silent {
                since: self.heard.elapsed().as_secs(),
                ply: last.ply,
                register_by,
                auto_register_at,
                first_move: last.ply == 0,
            };
            self.emit(event);
        }
        Ok(())
    }

    /// On-chain: the game as the chain shows it, told when it changed.
    fn follow_live(&mut self) {
        let view = match self.seat.view(self.id) {
            Ok(view) => view,
            Err(e) => {
                self.failed(&e);
                return;
            }
        };
        let key = format!("{}{:?}", view.fen, view.ending);
        if self.shown_chain.as_deref() != Some(key.as_str()) {
            self.shown_chain = Some(key);
            if view.ending.is_some() {
                self.settled = true;
            }
            self.emit(Event::Position(Box::new(view)));
        }
    }

    /// Whether the latest position occurred three times since the last irreversible move
    /// (the repetition keys of the moves held).
    fn threefold(&self) -> bool {
        let t = self.channel.transcript();
        let start = t.game.start().ok();
        let states = t
            .moves
            .iter()
            .filter_map(|m| chessref_core::State::from_bytes(&m.state).ok());
        let mut keys = Vec::new();
        // Newest first, back to the last irreversible move (or the start).
        for state in states.rev().chain(start) {
            keys.push(state.repetition_key());
            if state.halfmove_clock() == 0 {
                break;
            }
        }
        keys.first()
            .is_some_and(|now| keys.iter().filter(|k| *k == now).count() >= 3)
    }

    /// Both players' remaining seconds now: the side to move's clock runs from the latest
    /// move's stamp, or, on the player's own move, from its receipt of it (what its reply
    /// is charged from, CHANNEL.md 8).
    fn clocks(&self) -> (u64, u64) {
        let last = self.channel.last();
        let since = now().saturating_sub(self.channel.clock_from());
        let (mut white, mut black) = (u64::from(last.whiteTime), u64::from(last.blackTime));
        if last.ply > 0 && self.channel.ended().is_none() {
            match self.channel.position().turn() {
                Color::White => white = white.saturating_sub(since),
                Color::Black => black = black.saturating_sub(since),
            }
        }
        (white, black)
    }

    /// Tells the position held ([`Event::Board`]).
    fn show(&mut self) {
        let position = self.channel.position();
        let last = self.channel.last();
        let (white, black) = self.clocks();
        let board = Board {
            fen: position.fen(),
            last_uci: self.channel.last_move().map(|(_, uci)| uci),
            flipped: self.channel.colour() == Color::Black,
            ply: last.ply,
            turn: position.turn(),
            your_move: self.channel.to_move(),
            white,
            black,
        };
        self.emit(Event::Board(board));
    }

    /// The chain's time as a transaction sent now sees it: the latest block's, or the
    /// wall clock when that is later (a quiet chain mines no block until one is sent).
    fn chain_now(&mut self) -> u64 {
        let block = Chain::timestamp(self.seat.referee().chain()).unwrap_or(0);
        block.max(now())
    }
}
