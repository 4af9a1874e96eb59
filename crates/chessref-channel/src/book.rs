//! A relay's record of one game (CHANNEL.md section 13): the signed messages it
//! accepted, in arrival order, each checked before it is kept by the same walk as
//! [`Transcript::verify`] that `chessref channel verify` runs, but from the latest
//! verified move: everything before it was checked when it came, each signature once,
//! so a message costs the same at ply 300 as at ply 10.
//! A relay holds no key: a message counts only by its signature, so a relay can refuse
//! or delay a message but never forge one.

use std::collections::HashMap;

use alloy_primitives::{Bytes, U256};
use thiserror::Error;

use crate::auth::{AuthError, NoPins};
use crate::domain::ChannelDomain;
use crate::frame::{Frame, ReceiptFrame, ResultHalf, SignedPosition};
use crate::game::ChannelGame;
use crate::messages::{DrawOffer, Message, Result as ResultMessage, author_of};
use crate::settlement::{CLIENT_STAMP_TOLERANCE, STAMP_TOLERANCE};
use crate::transcript::{
    DelegationCache, Fresh, ReceiptEntry, ResultEntry, Side, SignatureEntry, Transcript,
    TranscriptError,
};

/// Why a relay refuses a frame.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Refusal {
    /// The frame, added to the messages held, does not verify.
    #[error("{0}")]
    Transcript(TranscriptError),
    /// A signature of a frame that is not part of a transcript (a draw offer, one half
    /// of a result) does not verify.
    #[error("ply {ply}: {error}")]
    Signature {
        /// The frame's ply.
        ply: u32,
        /// Why.
        error: AuthError,
    },
    /// The frame is for another game.
    #[error("the frame is for game {got}, this is game {expected}")]
    WrongGame {
        /// This game.
        expected: U256,
        /// The frame's.
        got: U256,
    },
    /// The frame does not come where it is sent: a move that is not the next ply, a
    /// second move for a ply, a receipt of a move not held.
    #[error("{0}")]
    Order(String),
    /// The game already ended by a signed resignation or result.
    #[error("the game already ended by a signed {0}: nothing follows it")]
    Ended(&'static str),
    /// A move signed further in the future than the relay's clock allows.
    #[error(
        "the move is stamped {stamp}, {ahead} s ahead of the relay's clock (at most {STAMP_TOLERANCE} s)"
    )]
    Future {
        /// The move's `timestamp`.
        stamp: u64,
        /// How far ahead.
        ahead: u64,
    },
    /// A move signed further in the past than an honest client's clock allows
    /// (CHANNEL.md 8): its author would charge the time since to the side to move.
    #[error(
        "the move is stamped {stamp}, {behind} s behind this clock (at most {CLIENT_STAMP_TOLERANCE} s: a move stamped further back would charge its author's thinking to the side to move)"
    )]
    Past {
        /// The move's `timestamp`.
        stamp: u64,
        /// How far behind.
        behind: u64,
    },
}

impl Refusal {
    /// The `kind` of the relay's `refused` frame.
    pub fn kind(&self) -> &'static str {
        match self {
            Refusal::Transcript(TranscriptError::Transition { .. }) => "transition",
            Refusal::Transcript(TranscriptError::Signature { .. }) | Refusal::Signature { .. } => {
                "signature"
            }
            Refusal::Transcript(TranscriptError::Delegation { .. }) => "delegation",
            Refusal::Transcript(TranscriptError::Receipt { .. }) => "receipt",
            Refusal::Transcript(_) => "end",
            Refusal::WrongGame { .. } => "game",
            Refusal::Order(_) => "order",
            Refusal::Ended(_) => "ended",
            Refusal::Future { .. } | Refusal::Past { .. } => "time",
        }
    }

    /// The transition code (CHANNEL.md section 6) of a move that is not a valid
    /// successor.
    pub fn code(&self) -> Option<u8> {
        match self {
            Refusal::Transcript(TranscriptError::Transition { error, .. }) => Some(error.code()),
            _ => None,
        }
    }
}

/// What [`Book::accept`] did with a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    /// Kept as message number `seq` (from 1).
    New(u64),
    /// Already held as message number `seq`: nothing changed.
    Duplicate(u64),
}

/// One game's accepted messages and the transcript they make.
#[derive(Clone, Debug)]
pub struct Book {
    transcript: Transcript,
    frames: Vec<Frame>,
    /// The frames held by their signature (a duplicate is found without reading them all).
    signed: HashMap<Bytes, Vec<usize>>,
    /// Result signatures waiting for the other side's, at the latest ply.
    halves: Vec<ResultHalf>,
    /// Each delegation's wallet signature, checked once in the game.
    delegations: DelegationCache,
}

/// How to take back what [`Book::check_and_keep`] put in the transcript before checking
/// it, when the check refuses.
enum Undo {
    Nothing,
    Delegation,
    Move,
    Receipt(usize),
    Resignation,
    Result,
}

impl Book {
    /// An empty book for `game` under `domain`.
    pub fn new(domain: ChannelDomain, game: ChannelGame) -> Book {
        let transcript = Transcript {
            domain,
            game,
            delegations: Vec::new(),
            moves: Vec::new(),
            resignation: None,
            result: None,
        };
        Book {
            delegations: DelegationCache::new(&transcript),
            transcript,
            frames: Vec::new(),
            signed: HashMap::new(),
            halves: Vec::new(),
        }
    }

    /// The transcript the accepted messages make: what `chessref channel verify|settle|
    /// dispute` read.
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// The accepted frames, message 1 first.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The ply of the latest move held (0: none).
    pub fn ply(&self) -> u32 {
        self.transcript.moves.len() as u32
    }

    /// How the game ended off-chain, if it did: `resignation` or `result`.
    pub fn ended(&self) -> Option<&'static str> {
        if self.transcript.result.is_some() {
            Some("result")
        } else if self.transcript.resignation.is_some() {
            Some("resignation")
        } else {
            None
        }
    }

    /// Checks `frame` against the messages held, at the relay's or client's clock `now`
    /// (unix seconds, also the time a session key's draw offers, results and
    /// resignations are judged at), and keeps it if it verifies. A frame equal to one
    /// held is a duplicate; anything else that does not verify is refused and changes
    /// nothing. A new move must be stamped at most `STAMP_TOLERANCE` (60 s) ahead of
    /// `now` and at most `CLIENT_STAMP_TOLERANCE` (30 s) behind it (CHANNEL.md 8): an
    /// honest mover stamps its reply from its receipt of the move before
    /// ([`reply_stamp`](crate::seat::reply_stamp)), so a stamp's lag behind real time
    /// carries on from move to move, and this check bounds it over the whole game.
    /// Frames accepted earlier and checked again later are checked at the time they
    /// were accepted (the relay stores it), or by [`accept_stored`](Self::accept_stored).
    pub fn accept(&mut self, frame: Frame, now: u64) -> Result<Accepted, Refusal> {
        self.check_and_keep(frame, now, true)
    }

    /// [`accept`](Self::accept) for a frame its holder accepted when it came, read back
    /// where the time it came is not stored (a client's saved transcript): every check
    /// but the one of a stamp in the past, which only holds at the time it arrived.
    pub fn accept_stored(&mut self, frame: Frame, now: u64) -> Result<Accepted, Refusal> {
        self.check_and_keep(frame, now, false)
    }

    /// [`accept`](Self::accept) for a move the chain showed (the signed pair of a
    /// registration, a `MoveAnnounced`), and for a client's own reply to one: every check
    /// but the one of a stamp in the past. That refusal is for relayed moves: a move
    /// relayed far behind its stamp would charge its author's thinking to the side to move,
    /// who is charged from its receipt of it. The chain already took a move it showed,
    /// whatever its stamp, and its side to move is charged from when the chain showed it
    /// (CHANNEL.md 7.3), so its reply carries the move's lag on, however large
    /// ([`shown_reply_stamp`](crate::seat::shown_reply_stamp)).
    pub fn accept_shown(&mut self, frame: Frame, now: u64) -> Result<Accepted, Refusal> {
        self.check_and_keep(frame, now, false)
    }

    fn check_and_keep(&mut self, frame: Frame, now: u64, live: bool) -> Result<Accepted, Refusal> {
        // Only accepted frames' keys are kept: a refused frame's are forgotten with it.
        let mark = self.delegations.keys_mark();
        let outcome = self.check_and_keep_keys(frame, now, live);
        if outcome.is_err() {
            self.delegations.forget_keys_since(mark);
        }
        outcome
    }

    fn check_and_keep_keys(
        &mut self,
        frame: Frame,
        now: u64,
        live: bool,
    ) -> Result<Accepted, Refusal> {
        if let Some(i) = self
            .signed
            .get(frame.signature())
            .and_then(|held| held.iter().find(|&&i| self.frames[i] == frame))
        {
            return Ok(Accepted::Duplicate(*i as u64 + 1));
        }
        let game_id = self.transcript.game.game_id;
        let id = match &frame {
            Frame::Delegation(d) => Some(d.game_id),
            Frame::Move(m) => Some(m.game_id),
            Frame::Receipt(_) => None,
            Frame::DrawOffer(o) => Some(o.game_id),
            Frame::Resignation(r) => Some(r.game_id),
            Frame::Result(r) => Some(r.game_id),
        };
        if let Some(got) = id
            && got != game_id
        {
            return Err(Refusal::WrongGame {
                expected: game_id,
                got,
            });
        }
        if let Some(how) = self.ended() {
            return Err(Refusal::Ended(how));
        }
        // The frame goes into the transcript in place and is checked there, against the
        // latest verified move only (everything before was checked when it came); a
        // refusal takes it back out.
        let held = self.transcript.moves.len();
        let only = Fresh::Only {
            mv: None,
            receipt: None,
        };
        let (undo, from, fresh) = match &frame {
            Frame::Delegation(d) => {
                // A delegation is checked where a message first uses it; check it now.
                let next = &self.transcript;
                let checked = crate::auth::SignedDelegation {
                    delegation: d.delegation(),
                    signature: d.signature.clone(),
                }
                .verify(&next.domain, next.game.player(d.player.into()), &NoPins)
                .map_err(|error| Refusal::Signature {
                    ply: d.first_ply,
                    error,
                })?;
                self.transcript.delegations.push(d.clone());
                self.delegations.fit(&self.transcript);
                self.delegations
                    .seed(self.transcript.delegations.len() - 1, Ok(checked));
                (Undo::Delegation, held, only)
            }
            Frame::Move(m) => {
                if m.receipt.is_some() {
                    return Err(Refusal::Order(
                        "a move frame carries no receipt: the opponent sends its receipt as its own frame".into(),
                    ));
                }
                let expected = self.ply() + 1;
                if m.ply != expected {
                    return Err(Refusal::Order(if m.ply < expected {
                        format!(
                            "ply {} is already played: a second signed move for it is not relayed",
                            m.ply
                        )
                    } else {
                        format!("ply {} comes before ply {}", expected, m.ply)
                    }));
                }
                if m.timestamp > now.saturating_add(STAMP_TOLERANCE) {
                    return Err(Refusal::Future {
                        stamp: m.timestamp,
                        ahead: m.timestamp - now,
                    });
                }
                if live && m.timestamp.saturating_add(CLIENT_STAMP_TOLERANCE) < now {
                    return Err(Refusal::Past {
                        stamp: m.timestamp,
                        behind: now - m.timestamp,
                    });
                }
                let mut m = m.clone();
                if let Some(author) = author_of(&m.message()) {
                    m.delegation = global(&self.transcript, Side::of(author), m.delegation, m.ply)?;
                }
                self.transcript.moves.push(m);
                (Undo::Move, held, Fresh::From(held))
            }
            Frame::Receipt(r) => {
                let next = &mut self.transcript;
                let by = next
                    .moves
                    .get(r.ply.saturating_sub(1) as usize)
                    .and_then(|m| author_of(&m.message()))
                    .map(|author| Side::of(!author));
                let delegation = match by {
                    Some(by) => global(next, by, r.delegation, r.ply)?,
                    None => r.delegation,
                };
                let index = r.ply.checked_sub(1).map(|i| i as usize);
                let entry = index.and_then(|i| next.moves.get_mut(i)).ok_or_else(|| {
                    Refusal::Order(format!("a receipt of ply {}, a move not held", r.ply))
                })?;
                if entry.receipt.is_some() {
                    return Err(Refusal::Order(format!(
                        "the move of ply {} already has a receipt",
                        r.ply
                    )));
                }
                entry.receipt = Some(ReceiptEntry {
                    seen_at: r.seen_at,
                    signed: SignatureEntry {
                        signature: r.signature.clone(),
                        delegation,
                    },
                });
                let index = index.expect("a held move has an index");
                // Its move's signature was checked when it came; the receipt's is new.
                let fresh = Fresh::Only {
                    mv: None,
                    receipt: Some(index),
                };
                (Undo::Receipt(index), index, fresh)
            }
            Frame::DrawOffer(o) => {
                let offer = DrawOffer {
                    gameId: o.game_id,
                    ply: o.ply,
                    position: o.position,
                };
                self.check_one(offer, o, now)?;
                (Undo::Nothing, held, only)
            }
            Frame::Resignation(r) => {
                let mut r = r.clone();
                r.signed.delegation = global(&self.transcript, r.by, r.signed.delegation, r.ply)?;
                self.transcript.resignation = Some(r);
                (Undo::Resignation, held, only)
            }
            Frame::Result(half) => {
                let message = ResultMessage {
                    gameId: half.game_id,
                    ply: half.ply,
                    position: half.position,
                    result: half.result,
                };
                let other = self.halves.iter().find(|h| {
                    h.by != half.by
                        && (h.ply, h.position, h.result) == (half.ply, half.position, half.result)
                });
                match other {
                    None => {
                        if !(1..=3).contains(&half.result) {
                            return Err(Refusal::Transcript(TranscriptError::End(format!(
                                "result {} is not 1 (white wins), 2 (black wins) or 3 (draw)",
                                half.result
                            ))));
                        }
                        let named = SignedPosition {
                            game_id: half.game_id,
                            ply: half.ply,
                            position: half.position,
                            by: half.by,
                            signature: half.signature.clone(),
                            delegation: half.delegation,
                        };
                        self.check_one(message, &named, now)?;
                        (Undo::Nothing, held, only)
                    }
                    Some(other) => {
                        let next = &self.transcript;
                        let sig = |h: &ResultHalf| -> Result<SignatureEntry, Refusal> {
                            Ok(SignatureEntry {
                                signature: h.signature.clone(),
                                delegation: global(next, h.by, h.delegation, h.ply)?,
                            })
                        };
                        let (white, black) = match half.by {
                            Side::White => (sig(half)?, sig(other)?),
                            Side::Black => (sig(other)?, sig(half)?),
                        };
                        self.transcript.result = Some(ResultEntry {
                            game_id: half.game_id,
                            ply: half.ply,
                            position: half.position,
                            result: half.result,
                            white,
                            black,
                        });
                        (Undo::Result, held, only)
                    }
                }
            }
        };
        if let Some(error) = self
            .transcript
            .check_step(from, fresh, now, &mut self.delegations)
        {
            let t = &mut self.transcript;
            match undo {
                Undo::Nothing => {}
                Undo::Delegation => {
                    t.delegations.pop();
                }
                Undo::Move => {
                    t.moves.pop();
                }
                Undo::Receipt(i) => t.moves[i].receipt = None,
                Undo::Resignation => t.resignation = None,
                Undo::Result => t.result = None,
            }
            self.delegations.fit(t);
            return Err(Refusal::Transcript(error));
        }
        if let Frame::Result(half) = &frame
            && self.transcript.result.is_none()
        {
            self.halves.push(half.clone());
        }
        if let Frame::Move(_) = &frame {
            // An agreement at an earlier ply has lapsed.
            self.halves.clear();
        }
        self.signed
            .entry(frame.signature().clone())
            .or_default()
            .push(self.frames.len());
        self.frames.push(frame);
        Ok(Accepted::New(self.frames.len() as u64))
    }

    /// Checks a message one side signed that is not part of a transcript (a draw offer,
    /// one half of a result): it names the latest move and its author is a player.
    fn check_one<M: Message>(
        &self,
        message: M,
        named: &SignedPosition,
        now: u64,
    ) -> Result<(), Refusal> {
        let t = &self.transcript;
        let last = match t.moves.last() {
            Some(entry) => entry.message(),
            None => t
                .game
                .start_move()
                .map_err(|e| Refusal::Transcript(TranscriptError::Start(e)))?,
        };
        if named.ply != last.ply || named.position != last.position() {
            return Err(Refusal::Order(format!(
                "it names ply {}, but the latest move is ply {} (position {})",
                named.ply,
                last.ply,
                last.position()
            )));
        }
        debug_assert!(author_of(&last).is_some() || last.ply == 0);
        let delegation = global(t, named.by, named.delegation, named.ply)?;
        let auth = t
            .auth(&named.signature, delegation, named.by, named.ply)
            .map_err(Refusal::Transcript)?;
        // A result half by a key the signer's later delegation retired is refused here, as
        // the whole result would be by the transcript.
        auth.verify(
            &t.domain,
            &message,
            t.game.player(named.by.into()),
            &t.agreement_pins(&auth, named.by, &NoPins),
            now,
        )
        .map_err(|error| Refusal::Signature {
            ply: named.ply,
            error,
        })?;
        Ok(())
    }
}

/// In a frame, `delegation` numbers the signer's own delegations (0: its first, in the
/// order it sent them), so that it means the same in every book whatever order the two
/// players' delegations arrived in; -1 is a signature by the player's own address. The
/// transcript numbers them among all: this is the transcript's index of `side`'s
/// delegation number `own`.
fn global(transcript: &Transcript, side: Side, own: i64, ply: u32) -> Result<i64, Refusal> {
    let Ok(wanted) = usize::try_from(own) else {
        return Ok(-1);
    };
    transcript
        .delegations
        .iter()
        .enumerate()
        .filter(|(_, d)| d.player == side)
        .nth(wanted)
        .map(|(i, _)| i as i64)
        .ok_or_else(|| {
            Refusal::Transcript(TranscriptError::Delegation {
                ply,
                what: format!(
                    "{}'s delegation {own} is not held (send the delegation first)",
                    side.name()
                ),
            })
        })
}

/// The inverse of [`global`]: `side`'s own number of the delegation at transcript index
/// `index` (-1 stays -1).
pub fn own_index(transcript: &Transcript, side: Side, index: i64) -> i64 {
    let Ok(index) = usize::try_from(index) else {
        return -1;
    };
    transcript
        .delegations
        .iter()
        .take(index)
        .filter(|d| d.player == side)
        .count() as i64
}

/// The frames that carry `transcript` to a relay, in an order it accepts: the
/// delegations, each move followed by its receipt, then the signed end (a result as
/// white's half then black's).
pub fn frames_of(transcript: &Transcript) -> Vec<Frame> {
    let mut frames: Vec<Frame> = transcript
        .delegations
        .iter()
        .cloned()
        .map(Frame::Delegation)
        .collect();
    for entry in &transcript.moves {
        let mut mv = entry.clone();
        let receipt = mv.receipt.take();
        let author = author_of(&mv.message()).map(Side::of);
        if let Some(author) = author {
            mv.delegation = own_index(transcript, author, mv.delegation);
        }
        frames.push(Frame::Move(mv));
        if let Some(r) = receipt {
            frames.push(Frame::Receipt(ReceiptFrame {
                ply: entry.ply,
                seen_at: r.seen_at,
                signature: r.signed.signature,
                delegation: match author {
                    Some(author) => own_index(transcript, author.opponent(), r.signed.delegation),
                    None => r.signed.delegation,
                },
            }));
        }
    }
    if let Some(r) = &transcript.resignation {
        let mut r = r.clone();
        r.signed.delegation = own_index(transcript, r.by, r.signed.delegation);
        frames.push(Frame::Resignation(r));
    }
    if let Some(r) = &transcript.result {
        for (by, signed) in [(Side::White, &r.white), (Side::Black, &r.black)] {
            frames.push(Frame::Result(ResultHalf {
                game_id: r.game_id,
                ply: r.ply,
                position: r.position,
                result: r.result,
                by,
                signature: signed.signature.clone(),
                delegation: own_index(transcript, by, signed.delegation),
            }));
        }
    }
    frames
}

#[cfg(all(test, feature = "signer"))]
mod tests {
    use alloy_primitives::{Address, Bytes, keccak256};
    use alloy_signer_local::PrivateKeySigner;
    use chessref_core::{Color, Move as ChessMove};

    use super::*;
    use crate::client::{OffChainGame, Seat};
    use crate::transcript::MoveEntry;

    const T0: u64 = 1_800_000_000;
    /// When the frames of the games below reach the book: within 30 s of every stamp.
    const AT: u64 = T0 + 30;

    fn key(label: &str) -> PrivateKeySigner {
        PrivateKeySigner::from_bytes(&keccak256(label)).expect("a key")
    }

    /// White signs directly, black by a session key.
    fn game() -> OffChainGame {
        let domain = ChannelDomain {
            chain_id: 5,
            verifying_contract: Address::repeat_byte(9),
        };
        let (w, b) = (key("white"), key("black"));
        let terms = ChannelGame {
            game_id: U256::from(11),
            white: w.address(),
            black: b.address(),
            initial_time: 60,
            increment: 1,
            response_window: 600,
            start_state: None,
        };
        let expires = terms.key_expiry(T0, 100);
        let black =
            Seat::with_session(b, key("black session"), &domain, &terms, expires).expect("signing");
        OffChainGame::new(domain, terms, Seat::wallet(w), black).expect("start")
    }

    fn played(ucis: &[&str]) -> OffChainGame {
        let mut g = game();
        for (i, uci) in ucis.iter().enumerate() {
            let at = T0 + 5 * (i as u64 + 1);
            g.play(ChessMove::from_uci(uci).expect("uci"), at)
                .expect("legal");
            g.receipt(at + 1).expect("signing");
        }
        g
    }

    fn book_of(g: &OffChainGame) -> Book {
        Book::new(g.domain, g.game.clone())
    }

    fn accept_all(book: &mut Book, frames: Vec<Frame>) {
        for frame in frames {
            let kind = frame.kind();
            assert!(
                matches!(book.accept(frame, AT), Ok(Accepted::New(_))),
                "{kind} refused"
            );
        }
    }

    #[test]
    fn test_a_whole_game_frame_by_frame_makes_its_transcript() {
        let g = played(&["e2e4", "e7e5", "g1f3", "b8c6"]);
        let agreed = g.transcript_agreed(3).expect("signing");
        let mut book = book_of(&g);
        accept_all(&mut book, frames_of(&agreed));
        assert_eq!(*book.transcript(), agreed);
        assert_eq!(book.ended(), Some("result"));
        assert_eq!(book.frames().len(), 1 + 4 + 4 + 2);
    }

    #[test]
    fn test_a_frame_sent_twice_is_a_duplicate() {
        let g = played(&["e2e4"]);
        let mut book = book_of(&g);
        let frames = frames_of(&g.transcript());
        accept_all(&mut book, frames.clone());
        assert_eq!(
            book.accept(frames[1].clone(), AT),
            Ok(Accepted::Duplicate(2))
        );
        assert_eq!(book.frames().len(), frames.len());
    }

    /// `frame` with one byte of its signature changed.
    fn tampered(frame: &Frame) -> Frame {
        let mut frame = frame.clone();
        let signature = match &mut frame {
            Frame::Delegation(d) => &mut d.signature,
            Frame::Move(m) => &mut m.signature,
            Frame::Receipt(r) => &mut r.signature,
            Frame::DrawOffer(o) => &mut o.signature,
            Frame::Resignation(r) => &mut r.signed.signature,
            Frame::Result(r) => &mut r.signature,
        };
        let mut bytes = signature.to_vec();
        bytes[10] ^= 1;
        *signature = Bytes::from(bytes);
        frame
    }

    #[test]
    fn test_a_refused_frame_leaves_the_book_as_it_was() {
        // Each frame is checked against the latest move only, in place: a refusal must
        // take it back out, so the honest frame after it is judged as if it never came.
        let g = played(&["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]);
        let mut book = book_of(&g);
        for frame in frames_of(&g.transcript()) {
            let refused = book.accept(tampered(&frame), AT).expect_err("tampered");
            // A receipt's bad signature is the receipt's error, as in a transcript.
            let expected = match frame {
                Frame::Receipt(_) => "receipt",
                _ => "signature",
            };
            assert_eq!(refused.kind(), expected, "{} {refused}", frame.kind());
            if let Frame::Receipt(r) = &frame {
                // Same signature, other content: no duplicate of a held frame.
                let mut later = r.clone();
                later.seen_at += 1;
                let refused = book.accept(Frame::Receipt(later), AT).expect_err("changed");
                assert_ne!(refused.kind(), "duplicate", "{refused}");
            }
            assert!(
                matches!(book.accept(frame.clone(), AT), Ok(Accepted::New(_))),
                "{} refused after a tampered copy",
                frame.kind()
            );
        }
        assert_eq!(book.transcript(), &g.transcript());
        let report = book.transcript().verify(&NoPins, AT).expect("a start");
        assert_eq!(report.error, None);
        assert_eq!(report.valid_plies, 5);
    }

    #[test]
    fn test_a_move_signed_by_another_key_is_refused() {
        let g = played(&["e2e4"]);
        let mut book = book_of(&g);
        let mut forged = game();
        forged.seats[0] = Seat::wallet(key("mallory"));
        forged
            .play(ChessMove::from_uci("e2e4").expect("uci"), T0 + 5)
            .expect("legal");
        let mut frames = frames_of(&forged.transcript());
        let Some(Frame::Move(m)) = frames.pop() else {
            panic!("the last frame is the move")
        };
        let refused = book.accept(Frame::Move(m), AT).expect_err("forged");
        assert_eq!(refused.kind(), "signature");
        assert!(refused.to_string().contains("signed by"), "{refused}");
        assert!(book.frames().is_empty());
    }

    /// With k256 (WASM) the book keeps the public keys it recovered, to check their next
    /// signatures faster: a forger must not grow that list, only accepted frames' keys
    /// are kept.
    #[cfg(not(feature = "secp256k1"))]
    #[test]
    fn test_forged_frames_leave_the_known_keys_unchanged() {
        let g = played(&["e2e4", "e7e5", "g1f3"]);
        let mut book = book_of(&g);
        let frames = frames_of(&g.transcript());
        // The delegation, e4 and its receipt: the keys of black's wallet, of white and
        // of black's session.
        accept_all(&mut book, frames[..3].to_vec());
        let kept = book.delegations.keys_mark();
        assert!(kept >= 1, "the accepted frames' keys are kept");
        for i in 0..40 {
            // Black's reply e5, signed by a key of its own each time: refused.
            let mut forged = played(&["e2e4"]);
            forged.seats[1] = Seat::wallet(key(&format!("mallory {i}")));
            forged
                .play(ChessMove::from_uci("e7e5").expect("uci"), T0 + 10)
                .expect("legal");
            let Some(frame) = frames_of(&forged.transcript()).pop() else {
                panic!("the move")
            };
            let refused = book.accept(frame, AT).expect_err("forged");
            assert_eq!(refused.kind(), "signature", "{refused}");
            // Black's real e5 with one bit of its signature flipped: another signer.
            let refused = book.accept(tampered(&frames[3]), AT).expect_err("tampered");
            assert_eq!(refused.kind(), "signature", "{refused}");
            assert_eq!(book.delegations.keys_mark(), kept, "forgery {i} kept a key");
        }
        // The honest frames after them are accepted, and keep at most the game's keys.
        accept_all(&mut book, frames[3..].to_vec());
        assert_eq!(book.transcript(), &g.transcript());
        assert!(
            book.delegations.keys_mark() <= 3,
            "white, black, black's session"
        );
    }

    #[test]
    fn test_an_illegal_move_is_refused_with_its_transition_code() {
        let g = played(&["e2e4"]);
        let mut book = book_of(&g);
        let mut frames = frames_of(&g.transcript());
        let Some(Frame::Receipt(_)) = frames.pop() else {
            panic!("the last frame is the receipt")
        };
        let Some(Frame::Move(mut m)) = frames.pop() else {
            panic!("then the move")
        };
        accept_all(&mut book, frames);
        // Signed by white, but claiming more time than the clock gives: not the successor.
        m.white_time += 30;
        let auth = g
            .seat(Color::White)
            .authorise(&g.domain, &m.message())
            .expect("signing");
        m.signature = auth.signature;
        let refused = book.accept(Frame::Move(m), AT).expect_err("refused");
        assert_eq!(refused.kind(), "transition");
        assert!(refused.code().is_some());
        assert_eq!(book.ply(), 0);
    }

    #[test]
    fn test_a_second_move_for_a_ply_is_not_relayed() {
        let g = played(&["e2e4"]);
        let mut book = book_of(&g);
        accept_all(&mut book, frames_of(&g.transcript()));
        let mut other = game();
        other
            .play(ChessMove::from_uci("d2d4").expect("uci"), T0 + 5)
            .expect("legal");
        let m = MoveEntry::signed(other.last(), other.moves[1].1.signature.clone(), -1);
        let refused = book.accept(Frame::Move(m), AT).expect_err("a second ply 1");
        assert_eq!(refused.kind(), "order");
        assert_eq!(book.ply(), 1);
    }

    #[test]
    fn test_nothing_follows_a_resignation() {
        let g = played(&["e2e4", "e7e5"]);
        let resigned = g.transcript_resigned(Color::Black).expect("signing");
        let mut book = book_of(&g);
        accept_all(&mut book, frames_of(&resigned));
        let mut more = g.clone();
        more.play(ChessMove::from_uci("g1f3").expect("uci"), T0 + 15)
            .expect("legal");
        let next = frames_of(&more.transcript())
            .into_iter()
            .find(|f| f.ply() == 3)
            .expect("ply 3");
        assert_eq!(book.accept(next, AT), Err(Refusal::Ended("resignation")));
    }

    #[test]
    fn test_a_lone_result_half_waits_and_lapses_with_the_next_move() {
        let g = played(&["e2e4"]);
        let mut book = book_of(&g);
        accept_all(&mut book, frames_of(&g.transcript()));
        let halves = frames_of(&g.transcript_agreed(3).expect("signing"));
        let white_half = halves[halves.len() - 2].clone();
        assert!(matches!(book.accept(white_half, AT), Ok(Accepted::New(_))));
        assert_eq!(book.ended(), None);
        let mut more = g.clone();
        more.play(ChessMove::from_uci("e7e5").expect("uci"), T0 + 15)
            .expect("legal");
        let next = frames_of(&more.transcript())
            .into_iter()
            .find(|f| f.ply() == 2)
            .expect("ply 2");
        assert!(matches!(book.accept(next, AT), Ok(Accepted::New(_))));
        let black_half = halves[halves.len() - 1].clone();
        let refused = book.accept(black_half, AT).expect_err("lapsed");
        assert_eq!(refused.kind(), "order");
        assert_eq!(book.ended(), None);
    }

    #[test]
    fn test_a_draw_offer_must_be_signed_by_its_side() {
        let g = played(&["e2e4"]);
        let mut book = book_of(&g);
        accept_all(&mut book, frames_of(&g.transcript()));
        let (offer, auth) = g.offer_draw(Color::White).expect("signing");
        let mut frame = SignedPosition {
            game_id: offer.gameId,
            ply: offer.ply,
            position: offer.position,
            by: Side::Black,
            signature: auth.signature.clone(),
            delegation: -1,
        };
        let refused = book
            .accept(Frame::DrawOffer(frame.clone()), AT)
            .expect_err("white's signature said to be black's");
        assert_eq!(refused.kind(), "signature");
        frame.by = Side::White;
        assert!(matches!(
            book.accept(Frame::DrawOffer(frame), AT),
            Ok(Accepted::New(_))
        ));
    }

    #[test]
    fn test_frames_read_back_from_their_json() {
        let g = played(&["e2e4", "e7e5"]);
        for frame in frames_of(&g.transcript_agreed(3).expect("signing")) {
            let text = serde_json::to_string(&frame).expect("json");
            assert!(text.starts_with("{\"type\":"), "{text}");
            let back: Frame = serde_json::from_str(&text).expect("reads back");
            assert_eq!(back, frame);
        }
        let junk = serde_json::from_str::<Frame>(r#"{"type":"teleport","ply":1}"#);
        assert!(junk.is_err());
        let _ = Bytes::new();
    }

    #[test]
    fn test_frames_mean_the_same_whatever_order_the_delegations_came_in() {
        // Both players on session keys: one book gets white's delegation first, the other
        // black's; every later frame names "its signer's delegation 0" and verifies in both.
        let mut g = game();
        let expires = g.game.key_expiry(T0, 100);
        let white = Seat::with_session(
            key("white"),
            key("white session"),
            &g.domain,
            &g.game,
            expires,
        )
        .expect("signing");
        g.seats[0] = white;
        for (i, uci) in ["e2e4", "e7e5", "g1f3"].iter().enumerate() {
            let at = T0 + 5 * (i as u64 + 1);
            g.play(ChessMove::from_uci(uci).expect("uci"), at)
                .expect("legal");
            g.receipt(at + 1).expect("signing");
        }
        let frames = frames_of(&g.transcript_resigned(Color::Black).expect("signing"));
        assert!(
            matches!(frames[0], Frame::Delegation(_)) && matches!(frames[1], Frame::Delegation(_))
        );
        let mut swapped = frames.clone();
        swapped.swap(0, 1);
        for order in [frames, swapped] {
            let mut book = book_of(&g);
            accept_all(&mut book, order.clone());
            assert_eq!(book.ended(), Some("resignation"));
            // And the book gives back the frames it was given.
            assert_eq!(frames_of(book.transcript()), order);
        }
    }

    #[test]
    fn test_a_move_stamped_more_than_30_s_in_the_past_is_refused() {
        let g = played(&["e2e4"]);
        let frames = frames_of(&g.transcript());
        let stamp = T0 + 5;
        let mv = frames[1].clone();
        assert!(matches!(mv, Frame::Move(ref m) if m.timestamp == stamp));
        // 31 s behind: refused, naming the stamp and the lag; nothing kept.
        let mut book = book_of(&g);
        accept_all(&mut book, frames[..1].to_vec());
        let refused = book
            .accept(mv.clone(), stamp + 31)
            .expect_err("31 s behind");
        assert_eq!(refused, Refusal::Past { stamp, behind: 31 });
        assert_eq!(refused.kind(), "time");
        let text = refused.to_string();
        assert!(
            text.contains(&stamp.to_string()) && text.contains("31 s behind"),
            "{text}"
        );
        assert_eq!(book.ply(), 0);
        // Exactly 30 s behind: accepted.
        assert!(matches!(
            book.accept(mv.clone(), stamp + 30),
            Ok(Accepted::New(_))
        ));
        // A stored frame read back long after is checked, but not for its age.
        let mut restored = book_of(&g);
        accept_all(&mut restored, frames[..1].to_vec());
        assert!(matches!(
            restored.accept_stored(mv.clone(), stamp + 3_600),
            Ok(Accepted::New(_))
        ));
        // Nor is a duplicate: it changes nothing, whatever its age.
        assert_eq!(book.accept(mv, stamp + 3_600), Ok(Accepted::Duplicate(2)));
    }

    #[test]
    fn test_a_move_stamped_in_the_future_is_refused() {
        let mut g = game();
        g.play(ChessMove::from_uci("e2e4").expect("uci"), T0 + 500)
            .expect("legal");
        let mut book = book_of(&g);
        let frames = frames_of(&g.transcript());
        let refused = book.accept(frames[1].clone(), T0).expect_err("future");
        assert_eq!(refused.kind(), "time");
    }

    /// Issue 27, finding 3, at the relay and in every client's book: once black's later
    /// delegation is held, its rotated-out key's result half and resignation are refused,
    /// the current key's are not.
    #[test]
    fn test_an_agreement_by_a_rotated_out_key_is_refused() {
        use crate::auth::SignedDelegation;
        use crate::messages::Resignation;
        use crate::transcript::ResignationEntry;

        let mut g = played(&["e2e4", "e7e5", "g1f3", "b8c6"]);
        g.rotate(Color::Black, key("black session 2"), 5, T0 + 10_000)
            .expect("signing");
        for (i, uci) in ["f1c4", "g8f6"].iter().enumerate() {
            let at = T0 + 25 + 5 * i as u64;
            g.play(ChessMove::from_uci(uci).expect("uci"), at)
                .expect("legal");
            g.receipt(at + 1).expect("signing");
        }
        let now = T0 + 40;
        let mut book = book_of(&g);
        for frame in frames_of(&g.transcript()) {
            // Read back as stored: the first moves are older than a live frame may be.
            assert!(matches!(
                book.accept_stored(frame, now),
                Ok(Accepted::New(_))
            ));
        }
        let last = g.last().clone();
        let (old, new) = (key("black session"), key("black session 2"));
        let old_delegation = g.seat(Color::Black).retired[0].clone();
        let new_delegation = g.seat(Color::Black).session.clone().expect("a key").1;
        // Black's own delegation numbers (frames count a player's own): 0 old, 1 new.
        let half = |by: &PrivateKeySigner, d: &SignedDelegation, own: i64| {
            let message = ResultMessage {
                gameId: last.gameId,
                ply: last.ply,
                position: last.hash(),
                result: 1,
            };
            let auth = crate::signer::sign_delegated(by, d, &g.domain, &message).expect("signing");
            Frame::Result(ResultHalf {
                game_id: last.gameId,
                ply: last.ply,
                position: last.hash(),
                result: 1,
                by: Side::Black,
                signature: auth.signature,
                delegation: own,
            })
        };
        let resignation = |by: &PrivateKeySigner, d: &SignedDelegation, own: i64| {
            let message = Resignation {
                gameId: last.gameId,
                ply: last.ply,
                position: last.hash(),
            };
            let auth = crate::signer::sign_delegated(by, d, &g.domain, &message).expect("signing");
            Frame::Resignation(ResignationEntry {
                game_id: last.gameId,
                ply: last.ply,
                position: last.hash(),
                by: Side::Black,
                signed: SignatureEntry {
                    signature: auth.signature,
                    delegation: own,
                },
            })
        };
        for frame in [
            half(&old, &old_delegation, 0),
            resignation(&old, &old_delegation, 0),
        ] {
            let kind = frame.kind();
            let refused = book.accept(frame, now).expect_err("a retired key");
            assert_eq!(refused.kind(), "signature", "{kind}");
            assert!(refused.to_string().contains("retired"), "{kind}: {refused}");
        }
        assert_eq!(book.ended(), None);
        assert!(matches!(
            book.accept(half(&new, &new_delegation, 1), now),
            Ok(Accepted::New(_))
        ));
        assert!(matches!(
            book.accept(resignation(&new, &new_delegation, 1), now),
            Ok(Accepted::New(_))
        ));
        assert_eq!(book.ended(), Some("resignation"));
    }
}
