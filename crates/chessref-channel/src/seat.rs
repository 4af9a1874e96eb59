//! One player's side of a channel game played through a relay (docs/CHANNEL.md
//! section 13): its session key, which signs every move, receipt and agreement under
//! the delegation the player's wallet signed once, and the [`Book`] of every message
//! both sides exchanged, each checked by the mirror before it counts, which is the
//! player's own transcript. What `chessref channel play` and the browser package drive.
//!
//! An honest client acknowledges every valid move of the opponent at once, signs only a
//! valid successor of the latest move it holds, stamped from its own receipt of that
//! move ([`reply_stamp`]), refuses a relayed move stamped more than 30 s from its clock, and
//! agrees to the result a decided position gives ([`ChannelSeat::answer`]): written once
//! here, so that every client answers alike. A move it learns from the chain instead (a
//! registration, an announcement: [`ChannelSeat::receive_shown`]) it holds from when the
//! chain showed it, whatever its stamp, and stamps its reply from then
//! ([`shown_reply_stamp`]).

use alloy_primitives::{Address, B256, Bytes};
use chessref_core::{Color, GameResult, Outcome, State};

use crate::auth::{Auth, SignedDelegation};
use crate::book::{Accepted, Book, Refusal};
use crate::frame::{Frame, ReceiptFrame, ResultHalf, SignedPosition};
use crate::messages::{DrawOffer, Message, Move, Resignation, Result as ResultMessage, author_of};
use crate::settlement::{CLIENT_STAMP_TOLERANCE, CLOCK_TOLERANCE};
use crate::successor;
use crate::transcript::{
    DelegationEntry, MoveEntry, ResignationEntry, Side, SignatureEntry, Transcript, move_in_words,
    receipt_of,
};
use crate::{ChannelDomain, ChannelGame};

/// A session key: what signs a message digest for the player (65 bytes `r ‖ s ‖ v`, low
/// s, v 27 or 28). A local key in the CLI, a key kept in the page's storage in a browser.
pub trait SessionKey: std::fmt::Debug {
    /// The key's address (the delegation's `sessionKey`).
    fn address(&self) -> Address;
    /// The signature of `digest`, or why there is none.
    fn sign_digest(&self, digest: &B256) -> Result<Bytes, String>;
}

#[cfg(feature = "signer")]
impl SessionKey for alloy_signer_local::PrivateKeySigner {
    fn address(&self) -> Address {
        alloy_signer::Signer::address(self)
    }

    fn sign_digest(&self, digest: &B256) -> Result<Bytes, String> {
        use alloy_signer::SignerSync;
        self.sign_hash_sync(digest)
            .map(|s| Bytes::copy_from_slice(&s.as_bytes()))
            .map_err(|e| e.to_string())
    }
}

/// Why the player cannot do what it asked.
#[derive(Debug, thiserror::Error)]
pub enum ChannelSeatError {
    /// The wallet is not one of the game's players.
    #[error("{0} is not a player of this game")]
    NotAPlayer(alloy_primitives::Address),
    /// Not the player's move.
    #[error("it is not your move")]
    NotYourMove,
    /// The game already ended off-chain.
    #[error("the game already ended by a signed {0}")]
    Ended(&'static str),
    /// The move text does not name a legal move.
    #[error("{0}")]
    Move(String),
    /// The delegation is not of this game or not of the session key.
    #[error("the delegation {0}")]
    Delegation(String),
    /// The session key does not cover the ply (its delegation's range).
    #[error("the session key's delegation does not cover ply {0}")]
    NotCovered(u32),
    /// Signing failed.
    #[error("signing failed: {0}")]
    Sign(String),
    /// The player's own message does not verify (a bug, or a clock set wrong).
    #[error("your own message does not verify: {0}")]
    Own(Refusal),
    /// A stored transcript that does not verify.
    #[error("the stored transcript does not verify: {0}")]
    Stored(Refusal),
}

/// What a frame from the relay was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Received {
    /// A message already held (one's own, echoed).
    Known,
    /// A delegation.
    Delegation(Side),
    /// A move (by either side), with its SAN.
    Move {
        /// Its ply.
        ply: u32,
        /// Who played it.
        by: Side,
        /// SAN in the position before it.
        san: String,
        /// UCI.
        uci: String,
    },
    /// A receipt.
    Receipt(u32),
    /// A draw offer by `by`.
    DrawOffer(Side),
    /// One side signed a result.
    ResultHalf(Side, u8),
    /// The game ended off-chain: a resignation or a result both signed.
    Ended,
}

/// One player's seat in a relayed channel game.
#[derive(Debug)]
pub struct ChannelSeat {
    colour: Color,
    session: Box<dyn SessionKey>,
    delegation: SignedDelegation,
    book: Book,
    /// A draw offer by the opponent at this ply, not yet answered.
    offered: Option<u32>,
    /// The player's own draw offer at this ply: a draw the opponent signs there is
    /// agreed.
    own_offer: Option<u32>,
    /// The ply of the position whose result the player signed (once per position).
    result_signed: Option<u32>,
    /// The opponent's moves the seat took from the chain rather than from the relay
    /// ([`receive_shown`](Self::receive_shown)): their ply, `hashStruct` and when the chain
    /// first showed them (block time). Not part of the transcript: a restarted client
    /// learns them from the chain again.
    shown: Vec<(u32, B256, u64)>,
}

/// How an honest client's clock judges when the player came to hold the latest move, the
/// opponent's, which its reply is charged from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    /// Its own receipt of the move says so (`seenAt`).
    Receipt(u64),
    /// It learned the move from the chain, which showed it then (block time).
    Shown(u64),
    /// Neither (the start move, a move it could not acknowledge).
    Unknown,
}

impl ChannelSeat {
    /// The seat of `player` in `game` under `domain`, signing with `session` under
    /// `delegation`, which the player's wallet signed once (the CLI with
    /// [`signer::delegate`](crate::signer::delegate), a browser wallet with
    /// `eth_signTypedData_v4`). The delegation must be of this game and of `session`;
    /// its signature is checked with the first frame that carries it.
    pub fn new(
        domain: ChannelDomain,
        game: ChannelGame,
        player: Address,
        session: Box<dyn SessionKey>,
        delegation: SignedDelegation,
    ) -> Result<ChannelSeat, ChannelSeatError> {
        let colour = game
            .colour_of(player)
            .ok_or(ChannelSeatError::NotAPlayer(player))?;
        if delegation.delegation.gameId != game.game_id {
            return Err(ChannelSeatError::Delegation(format!(
                "is of game {}, not {}",
                delegation.delegation.gameId, game.game_id
            )));
        }
        if delegation.delegation.sessionKey != session.address() {
            return Err(ChannelSeatError::Delegation(format!(
                "names session key {}, not {}",
                delegation.delegation.sessionKey,
                session.address()
            )));
        }
        Ok(ChannelSeat {
            colour,
            session,
            delegation,
            book: Book::new(domain, game),
            offered: None,
            own_offer: None,
            result_signed: None,
            shown: Vec::new(),
        })
    }

    /// The player's colour.
    pub fn colour(&self) -> Color {
        self.colour
    }

    /// The messages held, as a transcript (what `chessref channel verify` reads).
    pub fn transcript(&self) -> &Transcript {
        self.book.transcript()
    }

    /// The game.
    pub fn game(&self) -> &ChannelGame {
        &self.book.transcript().game
    }

    /// The latest move held (the start move before the first).
    pub fn last(&self) -> Move {
        let t = self.book.transcript();
        match t.moves.last() {
            Some(entry) => entry.message(),
            None => t
                .game
                .start_move()
                .expect("a game the book was made for has a valid start"),
        }
    }

    /// The latest move as `(SAN, UCI)`, if one was played.
    pub fn last_move(&self) -> Option<(String, String)> {
        let t = self.book.transcript();
        let last = t.moves.last()?;
        let before = match t.moves.len() {
            1 => t.game.start().ok()?,
            n => State::from_bytes(&t.moves[n - 2].state).ok()?,
        };
        Some(move_in_words(&before, last.mv))
    }

    /// The position after the latest move.
    pub fn position(&self) -> State {
        State::from_bytes(&self.last().state).expect("a held move has a valid state")
    }

    /// Whether it is the player's move (and the game goes on off-chain).
    pub fn to_move(&self) -> bool {
        self.book.ended().is_none()
            && self.position().turn() == self.colour
            && self.position().status().code() == 0
    }

    /// The result the position gives (checkmate, stalemate, ...), if it is decided.
    pub fn decided(&self) -> Option<GameResult> {
        let position = self.position();
        Outcome::of(position.status(), position.turn()).map(|o| o.result)
    }

    /// How the game ended off-chain, if it did.
    pub fn ended(&self) -> Option<&'static str> {
        self.book.ended()
    }

    /// The opponent's unanswered draw offer, if any.
    pub fn draw_offered(&self) -> bool {
        self.offered == Some(self.last().ply)
    }

    /// Takes in `frame`, a message from the relay, at `now`: checked by the mirror
    /// first ([`Book::accept`], which refuses a move stamped more than 30 s behind
    /// `now`); a refusal changes nothing.
    pub fn receive(&mut self, frame: Frame, now: u64) -> Result<Received, Refusal> {
        self.take(frame, now, Arrival::Relayed)
    }

    /// Takes in the signed move `mv` (authorised by `auth`) that the chain showed at
    /// `shown` (the block time of its first showing: a `PositionRegistered` whose pair
    /// carries it, or a `MoveAnnounced`), at `now`. Checked by the mirror as a relayed move
    /// is, after its author's delegation if the book lacks it, but whatever its stamp's lag
    /// ([`Book::accept_shown`]): the chain already took it. A move already held is
    /// [`Received::Known`].
    ///
    /// The player holds the opponent's move from `max(shown, its stamp)`, not from any
    /// time of its own: its reply is stamped [`shown_reply_stamp`] (the move's stamp plus
    /// the time since), its clock shown from then ([`clock_from`](Self::clock_from)), and
    /// its receipt, if [`answer`](Self::answer) signs one, says then (none if that is more
    /// than `CLOCK_TOLERANCE` after the stamp: the contract would refuse it). So a move
    /// backdated on-chain moves none of its author's thinking onto the player's clock.
    /// An opponent's move held without the player's receipt (taken from the chain before a
    /// restart) counts from its first showing too.
    pub fn receive_shown(
        &mut self,
        mv: &Move,
        auth: &Auth,
        shown: u64,
        now: u64,
    ) -> Result<Received, Refusal> {
        let hash = mv.hash();
        let index = mv.ply.checked_sub(1).map(|i| i as usize);
        let held = index.and_then(|i| self.transcript().moves.get(i));
        if mv.ply == 0 || held.is_some_and(|m| m.message().hash() == hash) {
            let unacknowledged_theirs = held.is_some_and(|m| {
                m.receipt.is_none() && author_of(&m.message()) != Some(self.colour)
            });
            if unacknowledged_theirs {
                self.note_shown(mv.ply, hash, shown);
            }
            return Ok(Received::Known);
        }
        let side = author_of(mv).map(Side::of);
        let mut delegation = -1;
        if let (Some(side), Some(signed)) = (side, &auth.delegation) {
            let entry = DelegationEntry::of(side, signed);
            let t = self.transcript();
            let index = match t.delegations.iter().position(|d| *d == entry) {
                Some(i) => i,
                None => {
                    self.book.accept_shown(Frame::Delegation(entry), now)?;
                    self.transcript().delegations.len() - 1
                }
            };
            delegation = crate::book::own_index(self.transcript(), side, index as i64);
        }
        let entry = MoveEntry::signed(mv, auth.signature.clone(), delegation);
        let received = self.take(Frame::Move(entry), now, Arrival::Shown)?;
        if matches!(received, Received::Move { by, .. } if by != Side::of(self.colour)) {
            self.note_shown(mv.ply, hash, shown);
        }
        Ok(received)
    }

    /// Records that the chain showed the opponent's move `hash` of ply `ply` at `shown`
    /// (its first showing counts).
    fn note_shown(&mut self, ply: u32, hash: B256, shown: u64) {
        match self
            .shown
            .iter_mut()
            .find(|(p, h, _)| (*p, *h) == (ply, hash))
        {
            Some((_, _, at)) => *at = (*at).min(shown),
            None => self.shown.push((ply, hash, shown)),
        }
    }

    /// When the chain showed the latest move, if the seat took it from the chain.
    fn latest_shown(&self) -> Option<u64> {
        let last = self.transcript().moves.last()?;
        let hash = last.message().hash();
        self.shown
            .iter()
            .find(|(p, h, _)| (*p, *h) == (last.ply, hash))
            .map(|(_, _, at)| *at)
    }

    /// Takes in `frame` as [`receive`](Self::receive) does, as it arrived: from the relay,
    /// from the player's stored transcript ([`Book::accept_stored`]) or from the chain
    /// ([`Book::accept_shown`]).
    fn take(&mut self, frame: Frame, now: u64, arrival: Arrival) -> Result<Received, Refusal> {
        let before = self.position();
        let accepted = match arrival {
            Arrival::Relayed => self.book.accept(frame.clone(), now)?,
            Arrival::Stored => self.book.accept_stored(frame.clone(), now)?,
            Arrival::Shown => self.book.accept_shown(frame.clone(), now)?,
        };
        match accepted {
            Accepted::Duplicate(_) => return Ok(Received::Known),
            Accepted::New(_) => {}
        }
        Ok(match frame {
            Frame::Delegation(d) => Received::Delegation(d.player),
            Frame::Move(m) => {
                let (san, uci) = move_in_words(&before, m.mv);
                self.offered = None;
                Received::Move {
                    ply: m.ply,
                    by: Side::of(before.turn()),
                    san,
                    uci,
                }
            }
            Frame::Receipt(r) => Received::Receipt(r.ply),
            Frame::DrawOffer(o) => {
                if o.by != Side::of(self.colour) {
                    self.offered = Some(o.ply);
                }
                Received::DrawOffer(o.by)
            }
            Frame::Resignation(_) => Received::Ended,
            Frame::Result(half) => {
                if half.by == Side::of(self.colour) {
                    self.result_signed = Some(half.ply);
                }
                if self.book.ended().is_some() {
                    Received::Ended
                } else {
                    Received::ResultHalf(half.by, half.result)
                }
            }
        })
    }

    /// Keeps one of the player's own frames (it must verify) and gives it to send. A move
    /// answering one the chain showed carries that move's lag behind the clock on, however
    /// large ([`Book::accept_shown`]); any other is checked as the opponent will check it.
    fn own(&mut self, frame: Frame, now: u64) -> Result<Frame, ChannelSeatError> {
        let answers_the_chain = matches!(frame, Frame::Move(_)) && self.latest_shown().is_some();
        let kept = if answers_the_chain {
            self.book.accept_shown(frame.clone(), now)
        } else {
            self.book.accept(frame.clone(), now)
        };
        kept.map_err(ChannelSeatError::Own)?;
        Ok(frame)
    }

    /// The player's delegation, if its session key signs `ply` and the delegation is not
    /// held yet: it must go first, or what the key signs does not verify.
    fn prelude(&mut self, ply: u32, now: u64) -> Result<Vec<Frame>, ChannelSeatError> {
        if self.covers(ply) && self.delegation_index() < 0 {
            return Ok(vec![self.delegation(now)?]);
        }
        Ok(Vec::new())
    }

    /// The player's delegation as a frame (kept if not held yet).
    pub fn delegation(&mut self, now: u64) -> Result<Frame, ChannelSeatError> {
        let frame = Frame::Delegation(DelegationEntry::of(Side::of(self.colour), &self.delegation));
        self.own(frame, now)
    }

    /// The number of the player's delegation among its own held (what a frame names),
    /// or -1: not held.
    fn delegation_index(&self) -> i64 {
        let d = &self.delegation;
        let t = self.book.transcript();
        t.delegations
            .iter()
            .position(|e| e.delegation() == d.delegation && e.signature == d.signature)
            .map_or(-1, |i| {
                crate::book::own_index(t, Side::of(self.colour), i as i64)
            })
    }

    fn covers(&self, ply: u32) -> bool {
        let d = &self.delegation.delegation;
        (d.firstPly..=d.lastPly).contains(&ply)
    }

    /// `message` signed by the session key under its delegation.
    fn authorise<M: Message>(&self, message: &M) -> Result<Auth, ChannelSeatError> {
        if !self.covers(message.ply()) {
            return Err(ChannelSeatError::NotCovered(message.ply()));
        }
        let digest = message.digest(&self.transcript().domain);
        Ok(Auth {
            signature: self
                .session
                .sign_digest(&digest)
                .map_err(ChannelSeatError::Sign)?,
            delegation: Some(self.delegation.clone()),
        })
    }

    fn signature_entry(&self, auth: &Auth) -> SignatureEntry {
        SignatureEntry {
            signature: auth.signature.clone(),
            delegation: if auth.delegation.is_some() {
                self.delegation_index()
            } else {
                -1
            },
        }
    }

    /// When the player came to hold the latest move, when it is the player's move: its own
    /// receipt's `seenAt`, else when the chain showed the move, if the seat took it from
    /// the chain (at the earliest its stamp).
    fn held(&self) -> Held {
        let last = self.last();
        let Some(entry) = self
            .transcript()
            .moves
            .last()
            .filter(|_| self.position().turn() == self.colour)
        else {
            return Held::Unknown;
        };
        match (&entry.receipt, self.latest_shown()) {
            (Some(r), _) => Held::Receipt(r.seen_at),
            (None, Some(shown)) => Held::Shown(shown.max(last.timestamp)),
            (None, None) => Held::Unknown,
        }
    }

    /// The stamp the player's move signed at `now` carries: the latest move's stamp plus
    /// the time since the player held it, when the player is to move and holds its receipt
    /// ([`reply_stamp`]) or took the move from the chain ([`shown_reply_stamp`]: from when
    /// the chain showed it); else `max(now, its stamp)`. Its own clock runs from there:
    /// what a client shows as the player's time left is its signed time minus `stamp(now)`
    /// minus the latest stamp.
    pub fn stamp(&self, now: u64) -> u64 {
        let previous = self.last().timestamp;
        match self.held() {
            Held::Receipt(seen_at) => reply_stamp(previous, Some(seen_at), now),
            Held::Shown(shown) => shown_reply_stamp(previous, shown, now),
            Held::Unknown => reply_stamp(previous, None, now),
        }
    }

    /// The time from which the side to move's clock runs as this client charges it (what
    /// a clock counting down starts from): when the player is to move, its receipt of the
    /// latest move's `seenAt` (never more than 30 s after the move's stamp), or when the
    /// chain showed that move if the seat took it from the chain (at the earliest its
    /// stamp, however long after it); else the latest move's stamp. For the player's own
    /// move, `stamp(now) - last().timestamp == now - clock_from()` from then on.
    pub fn clock_from(&self) -> u64 {
        let last = self.last();
        match self.held() {
            Held::Receipt(seen_at) => {
                seen_at.min(last.timestamp.saturating_add(CLIENT_STAMP_TOLERANCE))
            }
            Held::Shown(shown) => shown,
            Held::Unknown => last.timestamp,
        }
    }

    /// When the client must register the player's own latest move itself, sent at
    /// `sent_at` (by this client; after a restart, when it sent it again):
    /// [`auto_register_at`]`(sent_at, its stamp)`, while that move is the player's own, has
    /// no receipt from the opponent and the game has not ended off-chain; `None`
    /// otherwise (the opponent's move, a move acknowledged, no move yet, a game ended).
    /// A decided position counts: the opponent who neither acknowledges a mate nor
    /// signs its result is answered by registering it, like any other silence.
    pub fn auto_register_at(&self, sent_at: u64) -> Option<u64> {
        let own = self.transcript().moves.last()?;
        if self.book.ended().is_some()
            || own.receipt.is_some()
            || self.position().turn() == self.colour
        {
            return None;
        }
        Some(auto_register_at(sent_at, own.timestamp))
    }

    /// Plays `text` (SAN or UCI) at `now`, stamped [`stamp(now)`](Self::stamp):
    /// checked against the position first. The frames to send: the move, after the
    /// player's delegation if it is not held yet.
    pub fn play(&mut self, text: &str, now: u64) -> Result<Vec<Frame>, ChannelSeatError> {
        if let Some(how) = self.book.ended() {
            return Err(ChannelSeatError::Ended(how));
        }
        if !self.to_move() {
            return Err(ChannelSeatError::NotYourMove);
        }
        let position = self.position();
        let mv = position
            .parse_move(text.trim())
            .map_err(|e| ChannelSeatError::Move(format!("{}: {e}", text.trim())))?;
        let last = self.last();
        let next = successor(&last, mv, self.stamp(now), self.game().increment)
            .map_err(|e| ChannelSeatError::Move(format!("{}: {e}", text.trim())))?;
        let mut frames = self.prelude(next.ply, now)?;
        let auth = self.authorise(&next)?;
        let entry = MoveEntry::signed(&next, auth.signature.clone(), -1);
        let entry = MoveEntry {
            delegation: self.signature_entry(&auth).delegation,
            ..entry
        };
        frames.push(self.own(Frame::Move(entry), now)?);
        Ok(frames)
    }

    /// The receipt of the opponent's latest move, if it has none yet, held at `now` (after
    /// the player's delegation if it is not held yet); nothing to send otherwise.
    pub fn receipt(&mut self, now: u64) -> Result<Vec<Frame>, ChannelSeatError> {
        let last = self.last();
        let held = self.transcript().moves.last();
        if last.ply == 0
            || self.position().turn() != self.colour
            || held.is_some_and(|m| m.receipt.is_some())
        {
            return Ok(Vec::new());
        }
        // Held when the chain showed it, for a move taken from the chain; a receipt the
        // contract would refuse (more than CLOCK_TOLERANCE after the stamp: a move shown long
        // after it, or one owed after a restart) counts nowhere, so none is signed.
        let seen_at = self.latest_shown().unwrap_or(now).max(last.timestamp);
        if seen_at > last.timestamp.saturating_add(CLOCK_TOLERANCE) {
            return Ok(Vec::new());
        }
        let mut frames = self.prelude(last.ply, now)?;
        let receipt = receipt_of(&last, seen_at);
        let auth = self.authorise(&receipt)?;
        let frame = Frame::Receipt(ReceiptFrame {
            ply: last.ply,
            seen_at: receipt.seenAt,
            signature: auth.signature.clone(),
            delegation: self.signature_entry(&auth).delegation,
        });
        frames.push(self.own(frame, now)?);
        Ok(frames)
    }

    /// A draw offer in the latest position (binds nobody).
    pub fn offer_draw(&mut self, now: u64) -> Result<Vec<Frame>, ChannelSeatError> {
        let last = self.last();
        self.own_offer = Some(last.ply);
        let mut frames = self.prelude(last.ply, now)?;
        let offer = DrawOffer {
            gameId: last.gameId,
            ply: last.ply,
            position: last.position(),
        };
        let auth = self.authorise(&offer)?;
        let frame = Frame::DrawOffer(SignedPosition {
            game_id: offer.gameId,
            ply: offer.ply,
            position: offer.position,
            by: Side::of(self.colour),
            signature: auth.signature.clone(),
            delegation: self.signature_entry(&auth).delegation,
        });
        frames.push(self.own(frame, now)?);
        Ok(frames)
    }

    /// The player's signature of `result` (1 white wins, 2 black wins, 3 draw) in the
    /// latest position: to accept a draw, or to agree to what the board decided.
    pub fn sign_result(&mut self, result: u8, now: u64) -> Result<Vec<Frame>, ChannelSeatError> {
        if let Some(how) = self.book.ended() {
            return Err(ChannelSeatError::Ended(how));
        }
        let last = self.last();
        let mut frames = self.prelude(last.ply, now)?;
        let message = ResultMessage {
            gameId: last.gameId,
            ply: last.ply,
            position: last.position(),
            result,
        };
        let auth = self.authorise(&message)?;
        let frame = Frame::Result(ResultHalf {
            game_id: message.gameId,
            ply: message.ply,
            position: message.position,
            result,
            by: Side::of(self.colour),
            signature: auth.signature.clone(),
            delegation: self.signature_entry(&auth).delegation,
        });
        frames.push(self.own(frame, now)?);
        self.result_signed = Some(last.ply);
        Ok(frames)
    }

    /// A resignation in the latest position.
    pub fn resign(&mut self, now: u64) -> Result<Vec<Frame>, ChannelSeatError> {
        if let Some(how) = self.book.ended() {
            return Err(ChannelSeatError::Ended(how));
        }
        let last = self.last();
        let mut frames = self.prelude(last.ply, now)?;
        let message = Resignation {
            gameId: last.gameId,
            ply: last.ply,
            position: last.position(),
        };
        let auth = self.authorise(&message)?;
        let frame = Frame::Resignation(ResignationEntry {
            game_id: message.gameId,
            ply: message.ply,
            position: message.position,
            by: Side::of(self.colour),
            signed: self.signature_entry(&auth),
        });
        frames.push(self.own(frame, now)?);
        Ok(frames)
    }

    /// The referee's result code of a decided position (1 white wins, 2 black wins, 3
    /// draw), if the position is decided.
    pub fn decided_code(&self) -> Option<u8> {
        self.decided().map(|r| match r {
            GameResult::WhiteWins => 1,
            GameResult::BlackWins => 2,
            GameResult::Draw => 3,
        })
    }

    /// What an honest client sends in answer to `received` at `now`: the receipt of the
    /// opponent's move, the result a decided position gives (signed once), and the
    /// opponent's half of a result the player agrees to (the board's, or a draw after
    /// the player's own offer in that position).
    pub fn answer(
        &mut self,
        received: &Received,
        now: u64,
    ) -> Result<Vec<Frame>, ChannelSeatError> {
        let me = Side::of(self.colour);
        let mut frames = Vec::new();
        match received {
            Received::Move { by, .. } => {
                if *by != me {
                    frames.extend(self.receipt(now)?);
                }
                frames.extend(self.agree_to_the_board(now)?);
            }
            Received::ResultHalf(by, result) if *by != me => {
                let ply = self.last().ply;
                let agreed = self.decided_code() == Some(*result)
                    || (*result == 3 && self.own_offer == Some(ply));
                if agreed && self.book.ended().is_none() && self.result_signed != Some(ply) {
                    frames.extend(self.sign_result(*result, now)?);
                }
            }
            _ => {}
        }
        Ok(frames)
    }

    /// In a decided position, the player's signature of the result the board gives
    /// (once per position; nothing once the game ended).
    pub fn agree_to_the_board(&mut self, now: u64) -> Result<Vec<Frame>, ChannelSeatError> {
        let Some(result) = self.decided_code() else {
            return Ok(Vec::new());
        };
        if self.book.ended().is_some() || self.result_signed == Some(self.last().ply) {
            return Ok(Vec::new());
        }
        self.sign_result(result, now)
    }

    /// The frames of the player's transcript that a relay holding `relayed` lacks, in
    /// order (none: the relay holds the whole game as the player does).
    pub fn unrelayed(&self, relayed: &[Frame]) -> Vec<Frame> {
        crate::book::frames_of(self.transcript())
            .into_iter()
            .filter(|f| !relayed.contains(f))
            .collect()
    }

    /// After (re)connecting to a relay that holds `relayed`: what it lacks of the
    /// player's transcript (the player's delegation first), the receipt the player
    /// owes, and its agreement to a decided board.
    pub fn resync(&mut self, relayed: &[Frame], now: u64) -> Result<Vec<Frame>, ChannelSeatError> {
        let mut missing = self.unrelayed(relayed);
        if let Ok(d) = self.delegation(now)
            && !relayed.contains(&d)
            && !missing.contains(&d)
        {
            missing.insert(0, d);
        }
        missing.extend(self.receipt(now)?);
        // The player's signatures of the latest position that no transcript holds yet (its
        // result half, its draw offer) are signed once: a relay that died before keeping
        // one would leave the opponent without it for good (issue 30: a mate the mover
        // settled that its opponent never saw end).
        if self.book.ended().is_none() {
            let (me, ply) = (Side::of(self.colour), self.last().ply);
            let pending: Vec<Frame> = self
                .book
                .frames()
                .iter()
                .filter(|f| match f {
                    Frame::Result(h) => (h.by, h.ply) == (me, ply),
                    Frame::DrawOffer(o) => (o.by, o.ply) == (me, ply),
                    _ => false,
                })
                .filter(|f| !relayed.contains(f))
                .cloned()
                .collect();
            missing.extend(pending);
        }
        missing.extend(self.agree_to_the_board(now)?);
        Ok(missing)
    }

    /// Takes in every message of a stored transcript (a restart), at `now`: each
    /// checked as when it came, except that a move stamped more than 30 s behind `now`
    /// is not refused for it ([`Book::accept_stored`]): the player's client took each
    /// one as it arrived, and the time it did is not stored (an opponent's move's is
    /// its receipt's `seenAt`, when it has one).
    pub fn restore(&mut self, transcript: &Transcript, now: u64) -> Result<(), ChannelSeatError> {
        for frame in crate::book::frames_of(transcript) {
            self.take(frame, now, Arrival::Stored)
                .map_err(ChannelSeatError::Stored)?;
        }
        Ok(())
    }
}

/// The stamp an honest client signs on its reply to move `previous_stamp` (the
/// predecessor's `timestamp`) at its clock `now`, given `seen_at`, the `seenAt` of its
/// own receipt of that move (CHANNEL.md 8):
/// `previous_stamp + max(0, now - seen_at)`. The mover charges itself from when it held
/// the move, never from the predecessor's stamp: a predecessor stamped in the past
/// moves no time onto its clock. The stamp is never before `previous_stamp` and, as
/// `seen_at` is never before `previous_stamp`, never after `now`; it lags `now` by as
/// much as the predecessor's stamp lagged the receipt.
///
/// `None` (no receipt: the start move, or a move the client did not acknowledge) gives
/// `max(now, previous_stamp)`. And the stamp is never more than
/// [`CLIENT_STAMP_TOLERANCE`] behind `now`, as no client (the mover's own included)
/// takes a move stamped further back: that bound is reached only by a receipt signed
/// more than 30 s after the move's stamp (one owed after a restart), never by one
/// signed when the move came, since a move that far behind is refused.
pub fn reply_stamp(previous_stamp: u64, seen_at: Option<u64>, now: u64) -> u64 {
    match seen_at {
        None => now.max(previous_stamp),
        Some(seen_at) => previous_stamp
            .saturating_add(now.saturating_sub(seen_at))
            .max(now.saturating_sub(CLIENT_STAMP_TOLERANCE)),
    }
}

/// The stamp an honest client signs on its reply, at its clock `now`, to the move stamped
/// `previous_stamp` that it learned from the chain, which showed it at `shown` (CHANNEL.md
/// 8): `previous_stamp + max(0, now - max(shown, previous_stamp))`. The mover charges itself
/// from when it held the move, as [`reply_stamp`] does from a receipt, but without that
/// function's floor of 30 s behind `now`: the chain took the move whatever its lag, and
/// the contract charges the reply by the wall clock from when it shows it (a direct reply
/// to a frozen registration, CHANNEL.md 7.3), so a floor would only charge the move's
/// author's thinking to the mover. A move registered stamped 406 s before its block,
/// answered 10 s after that block, is answered with 10 s of thinking signed, not 386 s
/// (issue 27 review finding A).
pub fn shown_reply_stamp(previous_stamp: u64, shown: u64, now: u64) -> u64 {
    previous_stamp.saturating_add(now.saturating_sub(shown.max(previous_stamp)))
}

/// Seconds after an honest client sent its own move, still without the opponent's
/// receipt, at which it registers the move itself (CHANNEL.md 8 and 9): long enough for
/// a receipt to come back over any relay, short enough to leave the chain time.
pub const AUTO_REGISTER_AFTER: u64 = 10;

/// Seconds after its own stamp by which an honest client registers its own move that
/// has no receipt, whenever it sent it: a registration without a receipt must land
/// within [`STAMP_TOLERANCE`](crate::settlement::STAMP_TOLERANCE) (60 s) of the move's
/// stamp (CHANNEL.md 7.3 step 5), so this leaves 30 s for L1 inclusion. It matters when
/// the stamp lags the clock (a reply is stamped from the mover's receipt of the move
/// before, up to 30 s behind: [`reply_stamp`]) or the move was sent again after a
/// restart.
pub const AUTO_REGISTER_BY: u64 = 30;

/// The priority fee (tip) of a registration an honest client sends without waiting for
/// its user, and of a watchtower's announcement or overtake, wei per gas (or the node's
/// suggested tip when higher): 2 gwei, so that it is included within the 30 s that
/// [`AUTO_REGISTER_BY`] leaves (CHANNEL.md 9). A direct reply is charged by the wall clock
/// until its block, so an overtake pays it too.
pub const AUTO_REGISTER_TIP: u128 = 2_000_000_000;

/// When an honest client registers its own move stamped `stamp` and sent at `sent_at`
/// if the opponent's receipt of it has not come by then:
/// `min(sent_at + AUTO_REGISTER_AFTER, stamp + AUTO_REGISTER_BY)`. A time already past
/// means at once. Otherwise a silent opponent who holds the move without acknowledging
/// it runs its own thinking on the mover's clock until the move is too stale to register
/// (60 s after its stamp), then can flag the mover (red-team finding 2).
pub fn auto_register_at(sent_at: u64, stamp: u64) -> u64 {
    sent_at
        .saturating_add(AUTO_REGISTER_AFTER)
        .min(stamp.saturating_add(AUTO_REGISTER_BY))
}

/// Where a frame the seat takes in comes from, which says how its stamp is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arrival {
    /// From the relay, as it arrives ([`Book::accept`]).
    Relayed,
    /// From the player's stored transcript ([`Book::accept_stored`]).
    Stored,
    /// From the chain ([`Book::accept_shown`]).
    Shown,
}

#[cfg(all(test, feature = "signer"))]
pub(crate) mod tests {
    use alloy_primitives::{U256, keccak256};
    use alloy_signer_local::PrivateKeySigner;

    use super::*;

    pub(crate) const T0: u64 = 1_800_000_000;

    fn key(label: &str) -> PrivateKeySigner {
        PrivateKeySigner::from_bytes(&keccak256(label)).expect("a key")
    }

    fn seats() -> (ChannelSeat, ChannelSeat) {
        seats_with(600)
    }

    /// White's and black's seats of a game of `initial_time` seconds plus 2, each signing by
    /// a session key delegated for the whole game.
    pub(crate) fn seats_with(initial_time: u32) -> (ChannelSeat, ChannelSeat) {
        let domain = ChannelDomain {
            chain_id: 5,
            verifying_contract: Address::repeat_byte(9),
        };
        let game = ChannelGame {
            game_id: U256::from(3),
            white: key("white").address(),
            black: key("black").address(),
            initial_time,
            increment: 2,
            response_window: 600,
            start_state: None,
        };
        let seat = |wallet: &str, session: &str| {
            let (wallet, session) = (key(wallet), key(session));
            let d = crate::signer::delegate(
                &wallet,
                &domain,
                game.game_id,
                session.address(),
                1,
                u32::MAX,
                T0 + 9_999,
            )
            .expect("signing");
            ChannelSeat::new(domain, game.clone(), wallet.address(), Box::new(session), d)
                .expect("a player")
        };
        (
            seat("white", "white session"),
            seat("black", "black session"),
        )
    }

    /// `frames` from one side reach the other: what the last one was.
    fn deliver(to: &mut ChannelSeat, frames: Vec<Frame>, now: u64) -> Received {
        let mut last = Received::Known;
        for frame in frames {
            last = to.receive(frame, now).expect("a valid frame");
        }
        last
    }

    #[test]
    fn test_two_seats_play_to_mate_and_agree() {
        let (mut white, mut black) = seats();
        let now = T0;
        let d = white.delegation(now).expect("signing");
        assert_eq!(
            deliver(&mut black, vec![d], now),
            Received::Delegation(Side::White)
        );
        let moves = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];
        for (i, san) in moves.iter().enumerate() {
            let at = now + 3 * i as u64 + 1;
            let (mover, other) = if i % 2 == 0 {
                (&mut white, &mut black)
            } else {
                (&mut black, &mut white)
            };
            assert!(mover.to_move() && !other.to_move());
            let frame = mover.play(san, at).expect("legal");
            let Received::Move { san: seen, .. } = deliver(other, frame, at) else {
                panic!("a move")
            };
            assert_eq!(seen, *san);
            let receipt = other.receipt(at).expect("signing");
            assert_eq!(deliver(mover, receipt, at), Received::Receipt(i as u32 + 1));
            assert_eq!(other.receipt(at).expect("signing"), [], "only one");
        }
        assert_eq!(white.decided_code(), Some(1));
        let half = black.sign_result(1, now + 30).expect("signing");
        assert_eq!(
            deliver(&mut white, half, now + 30),
            Received::ResultHalf(Side::Black, 1)
        );
        let half = white.sign_result(1, now + 30).expect("signing");
        assert_eq!(deliver(&mut black, half, now + 30), Received::Ended);
        assert_eq!(white.transcript(), black.transcript());
        let report = white
            .transcript()
            .verify(&crate::NoPins, now + 31)
            .expect("verifiable");
        assert_eq!(report.settlement.call, "settle");

        // A restarted client restores its transcript.
        let (mut again, _) = seats();
        again
            .restore(white.transcript(), now + 40)
            .expect("restores");
        assert_eq!(again.transcript(), white.transcript());
        assert_eq!(again.ended(), Some("result"));
    }

    #[test]
    fn test_a_reply_is_stamped_from_the_movers_own_receipt() {
        // Held at once: the time since the receipt, added to the predecessor's stamp.
        assert_eq!(reply_stamp(T0, Some(T0), T0 + 7), T0 + 7);
        // A predecessor stamped 30 s before it was held: the reply lags as much.
        assert_eq!(reply_stamp(T0 - 30, Some(T0), T0 + 7), T0 - 23);
        // A predecessor stamped in the future: the receipt is at its stamp, so is the clock.
        assert_eq!(reply_stamp(T0 + 20, Some(T0 + 20), T0 + 7), T0 + 20);
        assert_eq!(reply_stamp(T0 + 20, Some(T0 + 20), T0 + 27), T0 + 27);
        // Never before the predecessor, whatever the clock says.
        assert_eq!(reply_stamp(T0, Some(T0 + 5), T0 + 1), T0);
        // No receipt (the start move, ply 0): the clock, or the predecessor's stamp.
        assert_eq!(reply_stamp(0, None, T0), T0);
        assert_eq!(reply_stamp(T0 + 9, None, T0), T0 + 9);
        // A receipt signed late (owed after a restart, 45 s after the stamp): never more
        // than 30 s behind the clock, or nobody would take the move.
        assert_eq!(reply_stamp(T0, Some(T0 + 45), T0 + 50), T0 + 20);
        assert_eq!(reply_stamp(T0, Some(T0 + 30), T0 + 50), T0 + 20);
    }

    #[test]
    fn test_a_seat_charges_itself_from_its_receipt_not_from_a_backdated_stamp() {
        let (mut white, mut black) = seats();
        let frames = white.play("e4", T0).expect("legal");
        exchange(&mut white, &mut black, frames, T0);
        // Black signs its reply stamped T0 + 30 and sends it at T0 + 60.
        let mut cheat = black;
        let frames = cheat.play("e5", T0 + 30).expect("legal");
        let Some(Frame::Move(m)) = frames.last() else {
            panic!("a move")
        };
        assert_eq!(m.timestamp, T0 + 30);
        let received = white.receive(frames.last().cloned().unwrap(), T0 + 60);
        let received = received.expect("30 s behind is taken");
        for frame in white.answer(&received, T0 + 60).expect("signing") {
            cheat.receive(frame, T0 + 60).expect("valid");
        }
        let seen_at = white.transcript().moves[1]
            .receipt
            .as_ref()
            .map(|r| r.seen_at);
        assert_eq!(seen_at, Some(T0 + 60));
        // White thinks 10 s: charged 10 s, not the 40 s since the stamp; its clock runs
        // from its receipt.
        assert_eq!(white.stamp(T0 + 70), T0 + 40);
        assert_eq!(white.clock_from(), T0 + 60);
        assert_eq!(
            cheat.clock_from(),
            T0 + 30,
            "not black's move: from the stamp"
        );
        let before = white.last().whiteTime;
        let frames = white.play("Nf3", T0 + 70).expect("legal");
        exchange(&mut white, &mut cheat, frames, T0 + 70);
        let last = white.last();
        assert_eq!(last.timestamp, T0 + 40);
        assert_eq!(last.whiteTime, before - 10 + 2);
        // The old rule (the clock, at least the predecessor's stamp) charged 40 s.
        assert_eq!((T0 + 70).max(T0 + 30) - (T0 + 30), 40);
        // A move stamped 31 s behind is refused, and changes nothing.
        let frames = cheat.play("Nc6", T0 + 40).expect("legal");
        let refused = white
            .receive(frames.last().cloned().unwrap(), T0 + 71)
            .expect_err("31 s behind");
        assert_eq!(refused.kind(), "time");
        assert_eq!(white.last().ply, 3);
    }

    /// The signed move of ply `ply` that `seat` holds, with its authorisation: what a
    /// registration's calldata, or an announcement's, carries on-chain.
    fn signed(seat: &ChannelSeat, ply: u32) -> (Move, Auth) {
        let t = seat.transcript();
        let i = ply as usize - 1;
        (
            t.message(i),
            t.move_auth(i).expect("a held move's authorisation"),
        )
    }

    #[test]
    fn test_a_direct_reply_backdated_on_chain_is_answered_with_the_players_exact_thinking() {
        // Issue 27 review finding A (ChessChannelClockReview.t.sol): white's Nf3 (T0 + 4) is
        // registered; black thinks 400 s by the wall clock and registers Nc6 as the direct
        // reply stamped T0 + 4 (0 s signed); the chain shows it at T0 + 410; white thinks
        // 10 s.
        let (mut white, mut black) = seats();
        for (i, san) in ["e4", "e5", "Nf3"].iter().enumerate() {
            let at = T0 + 2 * i as u64;
            let (mover, other) = if i % 2 == 0 {
                (&mut white, &mut black)
            } else {
                (&mut black, &mut white)
            };
            let frames = mover.play(san, at).expect("legal");
            exchange(mover, other, frames, at);
        }
        let frames = black.play("Nc6", T0 + 4).expect("legal");
        let (nc6, auth) = signed(&black, 4);
        assert_eq!(nc6.timestamp, T0 + 4, "0 s signed for 406 s of thinking");
        // Relayed that late, white's client refuses it (and nothing changes) ...
        let relayed = white.receive(frames.last().cloned().expect("a move"), T0 + 410);
        assert_eq!(relayed.expect_err("406 s behind").kind(), "time");
        assert_eq!(white.last().ply, 3);
        // ... but the chain took it: white takes it from there, held from its showing.
        let received = white
            .receive_shown(&nc6, &auth, T0 + 410, T0 + 411)
            .expect("a valid successor");
        assert!(matches!(
            received,
            Received::Move {
                ply: 4,
                by: Side::Black,
                ..
            }
        ));
        assert_eq!(
            white.answer(&received, T0 + 411).expect("signing"),
            [],
            "no receipt: 406 s after the stamp, the contract would refuse it"
        );
        assert_eq!(
            white.clock_from(),
            T0 + 410,
            "its clock runs from the showing"
        );
        // White thinks 10 s: it signs 10 s, exactly.
        assert_eq!(white.stamp(T0 + 420), T0 + 14);
        let before = white.last().whiteTime;
        white.play("Bc4", T0 + 420).expect("taken whatever the lag");
        let bc4 = white.last();
        assert_eq!((bc4.ply, bc4.timestamp), (5, T0 + 14));
        assert_eq!(
            bc4.whiteTime,
            before - 10 + 2,
            "10 s thinking, 2 s increment"
        );
        // What the relayed rules would have signed: 386 s with the 30 s floor (376 s of
        // black's thinking on white's clock), 416 s without a receipt at all.
        assert_eq!(reply_stamp(T0 + 4, Some(T0 + 410), T0 + 420), T0 + 390);
        assert_eq!(reply_stamp(T0 + 4, None, T0 + 420), T0 + 420);
        assert_eq!(shown_reply_stamp(T0 + 4, T0 + 410, T0 + 420), T0 + 14);
        assert_eq!((T0 + 390) - (T0 + 14), 376);
        // The transcript with the chain's move verifies as the contract would judge it.
        let report = white
            .transcript()
            .verify(&crate::NoPins, T0 + 420)
            .expect("valid");
        assert_eq!((report.valid_plies, report.error), (5, None));
    }

    #[test]
    fn test_a_restarted_client_holds_a_move_from_the_chain_from_its_showing_again() {
        let (mut white, mut black) = seats();
        let frames = white.play("e4", T0).expect("legal");
        exchange(&mut white, &mut black, frames, T0);
        black.play("e5", T0).expect("legal");
        let (e5, auth) = signed(&black, 2);
        white
            .receive_shown(&e5, &auth, T0 + 100, T0 + 100)
            .expect("valid");
        // A restart: the transcript holds e5 without white's receipt, not when it showed.
        let (mut again, _) = seats();
        again
            .restore(white.transcript(), T0 + 105)
            .expect("restores");
        assert_eq!(again.stamp(T0 + 105), T0 + 105, "held since unknown");
        // The client reads the chain again: the move is known, held from its showing.
        let known = again
            .receive_shown(&e5, &auth, T0 + 100, T0 + 105)
            .expect("valid");
        assert_eq!(known, Received::Known);
        assert_eq!(again.stamp(T0 + 105), T0 + 5);
        assert_eq!(again.clock_from(), T0 + 100);
    }

    #[test]
    fn test_a_move_shown_on_chain_within_the_tolerance_is_acknowledged_from_its_showing() {
        let (mut white, mut black) = seats();
        white.play("e4", T0).expect("legal");
        // Black never got e4 (nor white's delegation) from the relay; the chain shows it at
        // T0 + 12 (announced), and black's client reads it at T0 + 15.
        let (e4, auth) = signed(&white, 1);
        assert!(auth.delegation.is_some(), "signed by white's session key");
        let received = black
            .receive_shown(&e4, &auth, T0 + 12, T0 + 15)
            .expect("valid, its delegation taken from its authorisation");
        assert!(matches!(
            received,
            Received::Move {
                ply: 1,
                by: Side::White,
                ..
            }
        ));
        assert_eq!(black.transcript().delegations.len(), 1);
        let answers = black.answer(&received, T0 + 15).expect("signing");
        let seen_at = answers.iter().find_map(|f| match f {
            Frame::Receipt(r) => Some(r.seen_at),
            _ => None,
        });
        assert_eq!(seen_at, Some(T0 + 12), "held when the chain showed it");
        assert_eq!(black.clock_from(), T0 + 12);
        assert_eq!(black.stamp(T0 + 20), T0 + 8);
        assert_eq!(
            black
                .receive_shown(&e4, &auth, T0 + 12, T0 + 20)
                .expect("valid"),
            Received::Known
        );
        // A stamp ahead of its showing: held from the stamp.
        assert_eq!(shown_reply_stamp(T0 + 20, T0 + 12, T0 + 25), T0 + 25);
        assert_eq!(shown_reply_stamp(T0 + 20, T0 + 12, T0 + 15), T0 + 20);
    }

    #[test]
    fn test_an_unacknowledged_move_is_registered_10_s_after_sending_or_30_s_after_its_stamp() {
        use crate::settlement::STAMP_TOLERANCE;
        assert_eq!((AUTO_REGISTER_AFTER, AUTO_REGISTER_BY), (10, 30));
        // Stamped as sent: 10 s after sending.
        assert_eq!(auto_register_at(T0, T0), T0 + 10);
        // A stamp lagging the clock by 25 s (a reply stamped from a late receipt): 30 s
        // after the stamp, 5 s after sending; by 30 s, at once.
        assert_eq!(auto_register_at(T0 + 25, T0), T0 + 30);
        assert_eq!(auto_register_at(T0 + 30, T0), T0 + 30);
        // Sent again after a restart, long after its stamp: already due.
        assert_eq!(auto_register_at(T0 + 3_600, T0), T0 + 30);
        // A stamp in the future (clock skew): 10 s after sending.
        assert_eq!(auto_register_at(T0, T0 + 20), T0 + 10);
        // Whenever it was sent, a registration sent by then and included within 30 s
        // lands within STAMP_TOLERANCE of the stamp, as one without a receipt must.
        for lag in 0..=40 {
            let at = auto_register_at(T0 + lag, T0);
            assert!(at + 30 <= T0 + STAMP_TOLERANCE, "lag {lag}: {at}");
            assert!(
                at <= T0 + lag + AUTO_REGISTER_AFTER,
                "never later than 10 s after"
            );
        }
    }

    #[test]
    fn test_a_seat_registers_only_its_own_move_without_a_receipt() {
        let (mut white, mut black) = seats();
        assert_eq!(white.auto_register_at(T0), None, "no move yet");
        let frames = white.play("e4", T0).expect("legal");
        assert_eq!(white.auto_register_at(T0), Some(T0 + 10));
        // Black holds it but sends no receipt: still due for white; not black's move to
        // register.
        for frame in frames.clone() {
            black.receive(frame, T0).expect("valid");
        }
        assert_eq!(white.auto_register_at(T0), Some(T0 + 10));
        assert_eq!(black.auto_register_at(T0), None, "the opponent's move");
        // The receipt comes: nothing to register.
        let receipt = black.receipt(T0 + 1).expect("signing");
        deliver(&mut white, receipt, T0 + 1);
        assert_eq!(white.auto_register_at(T0), None, "acknowledged");
        // Black's reply, signed 25 s after its receipt of e4 and stamped from it, lagging
        // black's clock: due 30 s after its stamp, before 10 s after sending.
        let (mut white, mut black) = seats();
        let frames = white.play("e4", T0 - 25).expect("legal");
        for frame in frames {
            black.receive(frame, T0).expect("25 s behind is taken");
        }
        let receipt = black.receipt(T0).expect("signing");
        deliver(&mut white, receipt, T0);
        let frames = black.play("e5", T0 + 20).expect("legal");
        assert_eq!(black.last().timestamp, T0 - 5);
        assert_eq!(black.auto_register_at(T0 + 20), Some(T0 + 25));
        // A game ended off-chain: nothing to register.
        deliver(&mut white, frames, T0 + 20);
        let resigned = white.resign(T0 + 21).expect("signing");
        deliver(&mut black, resigned, T0 + 21);
        assert_eq!(black.auto_register_at(T0 + 20), None, "ended");
    }

    #[test]
    fn test_a_restored_transcript_is_not_refused_for_its_age() {
        let (mut white, mut black) = seats();
        let frames = white.play("e4", T0).expect("legal");
        exchange(&mut white, &mut black, frames, T0);
        let frames = black.play("e5", T0 + 5).expect("legal");
        exchange(&mut black, &mut white, frames, T0 + 5);
        let (mut again, _) = seats();
        again
            .restore(white.transcript(), T0 + 3_600)
            .expect("restores an hour later");
        assert_eq!(again.transcript(), white.transcript());
        // Its receipt of e5 is held: the reply is charged from it.
        assert_eq!(again.stamp(T0 + 6), T0 + 6);
        assert_eq!(again.stamp(T0 + 3_600), T0 + 3_600);
        assert_eq!(again.clock_from(), T0 + 5);
    }

    #[test]
    fn test_a_seat_refuses_what_is_not_its_to_sign() {
        let (mut white, mut black) = seats();
        assert!(matches!(
            black.play("e5", T0),
            Err(ChannelSeatError::NotYourMove)
        ));
        assert!(matches!(
            white.play("e5", T0),
            Err(ChannelSeatError::Move(_))
        ));
        let frames = white.play("e4", T0).expect("legal");
        assert_eq!(frames.len(), 2, "the delegation goes first");
        // The same move delivered twice is known.
        deliver(&mut black, frames.clone(), T0);
        assert_eq!(deliver(&mut black, frames, T0), Received::Known);
        let resigned = black.resign(T0 + 5).expect("signing");
        assert_eq!(deliver(&mut white, resigned, T0 + 5), Received::Ended);
        assert!(matches!(
            white.offer_draw(T0 + 6),
            Err(ChannelSeatError::Own(Refusal::Ended(_)))
        ));
    }

    /// Every frame in `frames` reaches `to`; its answers go back until both are quiet.
    fn exchange(a: &mut ChannelSeat, b: &mut ChannelSeat, frames: Vec<Frame>, now: u64) {
        let mut pending = vec![(frames, true)];
        while let Some((frames, to_b)) = pending.pop() {
            let to = if to_b { &mut *b } else { &mut *a };
            let mut answers = Vec::new();
            for frame in frames {
                let received = to.receive(frame, now).expect("a valid frame");
                answers.extend(to.answer(&received, now).expect("signing"));
            }
            if !answers.is_empty() {
                pending.push((answers, !to_b));
            }
        }
    }

    #[test]
    fn test_answers_acknowledge_every_move_and_agree_to_mate() {
        let (mut white, mut black) = seats();
        for (i, san) in ["f3", "e5", "g4", "Qh4#"].iter().enumerate() {
            let at = T0 + i as u64;
            if i % 2 == 0 {
                let frames = white.play(san, at).expect("legal");
                exchange(&mut white, &mut black, frames, at);
            } else {
                let frames = black.play(san, at).expect("legal");
                exchange(&mut black, &mut white, frames, at);
            }
        }
        // Each move acknowledged by its receiver; mate agreed by both without a word.
        let moves = &white.transcript().moves;
        assert!(moves.iter().all(|m| m.receipt.is_some()), "{moves:?}");
        assert_eq!(white.ended(), Some("result"));
        assert_eq!(black.ended(), Some("result"));
        assert_eq!(white.transcript(), black.transcript());
    }

    #[test]
    fn test_a_draw_is_agreed_only_after_the_players_own_offer() {
        let (mut white, mut black) = seats();
        let frames = white.play("e4", T0).expect("legal");
        exchange(&mut white, &mut black, frames, T0);
        // Black signs a draw nobody offered: white does not agree.
        let half = black.sign_result(3, T0 + 1).expect("signing");
        let received = white.receive(half[0].clone(), T0 + 1).expect("valid");
        assert_eq!(received, Received::ResultHalf(Side::Black, 3));
        assert_eq!(white.answer(&received, T0 + 1).expect("signing"), []);
        // After white's own offer in this position, black's signature ends the game.
        let (mut white, mut black) = seats();
        let frames = white.play("e4", T0).expect("legal");
        exchange(&mut white, &mut black, frames, T0);
        let offer = black.offer_draw(T0 + 1).expect("signing");
        exchange(&mut black, &mut white, offer, T0 + 1);
        assert!(white.draw_offered());
        let accept = white.sign_result(3, T0 + 2).expect("signing");
        exchange(&mut white, &mut black, accept, T0 + 2);
        assert_eq!(black.ended(), Some("result"));
        assert_eq!(white.ended(), Some("result"));
    }

    #[test]
    fn test_resync_sends_what_the_relay_lacks_delegation_first_and_the_receipt_owed() {
        let (mut white, mut black) = seats();
        let frames = white.play("e4", T0).expect("legal");
        // Black holds white's move but the relay lost black's side: black resyncs.
        for frame in frames.clone() {
            black.receive(frame, T0).expect("valid");
        }
        let sent = black.resync(&frames, T0 + 1).expect("signing");
        assert!(matches!(sent[0], Frame::Delegation(_)), "{sent:?}");
        assert!(matches!(sent[1], Frame::Receipt(_)), "{sent:?}");
        assert_eq!(sent.len(), 2);
        // Nothing is owed twice.
        let mut relayed = frames;
        relayed.extend(sent);
        assert_eq!(black.resync(&relayed, T0 + 2).expect("signing"), []);
    }

    #[test]
    fn test_resync_sends_the_players_result_half_and_draw_offer_the_relay_lacks() {
        let (mut white, mut black) = seats();
        let mut relayed = Vec::new();
        for (i, san) in ["f3", "e5", "g4"].iter().enumerate() {
            let at = T0 + i as u64;
            let (mover, other) = if i % 2 == 0 {
                (&mut white, &mut black)
            } else {
                (&mut black, &mut white)
            };
            let frames = mover.play(san, at).expect("legal");
            relayed.extend(frames.clone());
            let mut answers = Vec::new();
            for frame in frames {
                let received = other.receive(frame, at).expect("valid");
                answers.extend(other.answer(&received, at).expect("signing"));
            }
            relayed.extend(answers.clone());
            deliver(mover, answers, at);
        }
        // White offers a draw; the relay dies before it keeps the offer.
        let offer = white.offer_draw(T0 + 3).expect("signing");
        let sent = white.resync(&relayed, T0 + 4).expect("signing");
        assert_eq!(sent, offer, "the offer again");
        // Black mates and signs the result; the relay keeps the move, not the half.
        let mate = black.play("Qh4#", T0 + 5).expect("legal");
        let half = black.agree_to_the_board(T0 + 5).expect("signing");
        assert!(matches!(half[..], [Frame::Result(_)]), "{half:?}");
        relayed.extend(mate);
        let sent = black.resync(&relayed, T0 + 6).expect("signing");
        assert_eq!(sent, half, "the half again");
        relayed.extend(sent);
        assert_eq!(black.resync(&relayed, T0 + 7).expect("signing"), []);
    }
}
