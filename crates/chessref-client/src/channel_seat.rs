//! One player's side of a channel game played through a relay (docs/CHANNEL.md
//! section 13): the player's keys (the wallet, which signs only the session key's
//! delegation, and the session key, which signs every move, receipt and agreement), and
//! the [`Book`] of every message both sides exchanged, each checked by the mirror before
//! it counts, which is the player's own transcript. What `chessref channel play` drives.
//!
//! An honest client acknowledges every valid move of the opponent at once, signs only a
//! valid successor of the latest move it holds, stamped with its clock, and agrees to
//! the result a decided position gives.

use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::U256;
use chessref_channel::auth::SignedDelegation;
use chessref_channel::book::{Accepted, Book, Refusal};
use chessref_channel::client::Seat as Keys;
use chessref_channel::frame::{Frame, ReceiptFrame, ResultHalf, SignedPosition};
use chessref_channel::messages::{DrawOffer, Move, Resignation, Result as ResultMessage};
use chessref_channel::transcript::{
    DelegationEntry, MoveEntry, ResignationEntry, Side, SignatureEntry, Transcript, receipt_of,
};
use chessref_channel::{ChannelDomain, ChannelGame, successor};
use chessref_core::{Color, GameResult, Outcome, State};

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
    /// Signing failed.
    #[error("{0}")]
    Sign(#[from] chessref_channel::signer::SignError),
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
    keys: Keys,
    book: Book,
    /// A draw offer by the opponent at this ply, not yet answered.
    offered: Option<u32>,
}

impl ChannelSeat {
    /// The seat of `wallet`'s player in `game` under `domain`, signing with `session`
    /// under `delegation` (signed by the wallet once: [`ChannelSeat::delegate`]).
    pub fn new(
        domain: ChannelDomain,
        game: ChannelGame,
        wallet: PrivateKeySigner,
        session: PrivateKeySigner,
        delegation: SignedDelegation,
    ) -> Result<ChannelSeat, ChannelSeatError> {
        let colour = game
            .colour_of(wallet.address())
            .ok_or(ChannelSeatError::NotAPlayer(wallet.address()))?;
        let keys = Keys {
            wallet,
            session: Some((session, delegation)),
            retired: Vec::new(),
        };
        Ok(ChannelSeat {
            colour,
            keys,
            book: Book::new(domain, game),
            offered: None,
        })
    }

    /// The wallet's delegation of `session` for the whole of `game`, until `expires`.
    pub fn delegate(
        wallet: &PrivateKeySigner,
        session: &PrivateKeySigner,
        domain: &ChannelDomain,
        game_id: U256,
        expires: u64,
    ) -> Result<SignedDelegation, ChannelSeatError> {
        Ok(chessref_channel::signer::delegate(
            wallet,
            domain,
            game_id,
            session.address(),
            1,
            u32::MAX,
            expires,
        )?)
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
        Some(describe(&before, last.mv))
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

    /// Takes in `frame`, a message from the relay (or from the stored transcript), at
    /// `now`: checked by the mirror first; a refusal changes nothing.
    pub fn receive(&mut self, frame: Frame, now: u64) -> Result<Received, Refusal> {
        let before = self.position();
        match self.book.accept(frame.clone(), now)? {
            Accepted::Duplicate(_) => return Ok(Received::Known),
            Accepted::New(_) => {}
        }
        Ok(match frame {
            Frame::Delegation(d) => Received::Delegation(d.player),
            Frame::Move(m) => {
                let (san, uci) = describe(&before, m.mv);
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
                if self.book.ended().is_some() {
                    Received::Ended
                } else {
                    Received::ResultHalf(half.by, half.result)
                }
            }
        })
    }

    /// Keeps one of the player's own frames (it must verify) and gives it to send.
    fn own(&mut self, frame: Frame, now: u64) -> Result<Frame, ChannelSeatError> {
        self.book
            .accept(frame.clone(), now)
            .map_err(ChannelSeatError::Own)?;
        Ok(frame)
    }

    /// The player's delegation, if its session key signs `ply` and the delegation is not
    /// held yet: it must go first, or what the key signs does not verify.
    fn prelude(&mut self, ply: u32, now: u64) -> Result<Vec<Frame>, ChannelSeatError> {
        let covers =
            self.keys.session.as_ref().is_some_and(|(_, d)| {
                (d.delegation.firstPly..=d.delegation.lastPly).contains(&ply)
            });
        if covers && self.delegation_index() < 0 {
            return Ok(vec![self.delegation(now)?]);
        }
        Ok(Vec::new())
    }

    /// The player's delegation as a frame (kept if not held yet).
    pub fn delegation(&mut self, now: u64) -> Result<Frame, ChannelSeatError> {
        let (_, d) = self
            .keys
            .session
            .as_ref()
            .expect("a seat has a session key");
        let frame = Frame::Delegation(DelegationEntry {
            player: Side::of(self.colour),
            game_id: d.delegation.gameId,
            session_key: d.delegation.sessionKey,
            first_ply: d.delegation.firstPly,
            last_ply: d.delegation.lastPly,
            expires: d.delegation.expires,
            signature: d.signature.clone(),
        });
        self.own(frame, now)
    }

    /// The number of the player's delegation among its own held (what a frame names),
    /// or -1: not held.
    fn delegation_index(&self) -> i64 {
        let Some((_, d)) = &self.keys.session else {
            return -1;
        };
        let t = self.book.transcript();
        t.delegations
            .iter()
            .position(|e| e.delegation() == d.delegation && e.signature == d.signature)
            .map_or(-1, |i| {
                chessref_channel::book::own_index(t, Side::of(self.colour), i as i64)
            })
    }

    fn signature_entry(&self, auth: &chessref_channel::Auth) -> SignatureEntry {
        SignatureEntry {
            signature: auth.signature.clone(),
            delegation: if auth.delegation.is_some() {
                self.delegation_index()
            } else {
                -1
            },
        }
    }

    /// Plays `text` (SAN or UCI), stamped `now`: checked against the position first. The
    /// frames to send: the move, after the player's delegation if it is not held yet.
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
        let next = successor(&last, mv, now.max(last.timestamp), self.game().increment)
            .map_err(|e| ChannelSeatError::Move(format!("{}: {e}", text.trim())))?;
        let mut frames = self.prelude(next.ply, now)?;
        let auth = self.keys.authorise(&self.transcript().domain, &next)?;
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
        let mut frames = self.prelude(last.ply, now)?;
        let receipt = receipt_of(&last, now.max(last.timestamp));
        let auth = self.keys.authorise(&self.transcript().domain, &receipt)?;
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
        let mut frames = self.prelude(last.ply, now)?;
        let offer = DrawOffer {
            gameId: last.gameId,
            ply: last.ply,
            position: last.position(),
        };
        let auth = self.keys.authorise(&self.transcript().domain, &offer)?;
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
        let auth = self.keys.authorise(&self.transcript().domain, &message)?;
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
        let auth = self.keys.authorise(&self.transcript().domain, &message)?;
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

    /// Takes in every message of a stored transcript (a restart), at `now`.
    pub fn restore(&mut self, transcript: &Transcript, now: u64) -> Result<(), ChannelSeatError> {
        for frame in chessref_channel::book::frames_of(transcript) {
            self.receive(frame, now).map_err(ChannelSeatError::Stored)?;
        }
        Ok(())
    }
}

/// `(SAN, UCI)` of the legal move packed as `packed` in `before` (empty SAN if none is).
fn describe(before: &State, packed: u32) -> (String, String) {
    match before
        .legal_moves()
        .into_iter()
        .find(|mv| chessref_core::RawMove::from(*mv).packed() == packed)
    {
        Some(mv) => (before.san(mv).unwrap_or_default(), mv.to_uci()),
        None => (String::new(), format!("{packed:#08x}")),
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{Address, keccak256};

    use super::*;

    const T0: u64 = 1_800_000_000;

    fn key(label: &str) -> PrivateKeySigner {
        PrivateKeySigner::from_bytes(&keccak256(label)).expect("a key")
    }

    fn seats() -> (ChannelSeat, ChannelSeat) {
        let domain = ChannelDomain {
            chain_id: 5,
            verifying_contract: Address::repeat_byte(9),
        };
        let game = ChannelGame {
            game_id: U256::from(3),
            white: key("white").address(),
            black: key("black").address(),
            initial_time: 600,
            increment: 2,
            response_window: 600,
            start_state: None,
        };
        let seat = |wallet: &str, session: &str| {
            let (wallet, session) = (key(wallet), key(session));
            let d = ChannelSeat::delegate(&wallet, &session, &domain, game.game_id, T0 + 9_999)
                .expect("signing");
            ChannelSeat::new(domain, game.clone(), wallet, session, d).expect("a player")
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
            .verify(&chessref_channel::NoPins, now + 31)
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
}
