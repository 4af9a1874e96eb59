//! A whole off-chain game as a JSON file: its domain and terms, the delegations,
//! every signed move (with the opponent's receipt of it, when there is one) and an
//! optional signed end; checked move by move (signatures, turn order, every move legal
//! by `chessref-core`, signed times and clocks) with the call that settles or disputes
//! it.
//!
//! The format (the CHANNEL.md section 12 fixture is one):
//!
//! ```text
//! { "domain": {chainId, verifyingContract},
//!   "game": {gameId, white, black, initialTime, increment, responseWindow, startState?},
//!   "delegations": [{player, gameId, sessionKey, firstPly, lastPly, expires, signature}],
//!   "moves": [{gameId, ply, mv, state, history, whiteTime, blackTime, timestamp,
//!              previous, signature, delegation, receipt?: {seenAt, signature, delegation}}],
//!   "resignation"?: {gameId, ply, position, by, signature, delegation},
//!   "result"?: {gameId, ply, position, result, white: {signature, delegation},
//!               black: {signature, delegation}} }
//! ```
//!
//! `delegation` is an index into `delegations` or -1 for a signature by the player's
//! own address. A move's `receipt` is the `Receipt(gameId, ply, position, seenAt)` of
//! that move (its game, ply and `hashStruct`) signed on behalf of the side to move after
//! it, the move's author's opponent; any move may carry one, and the latest move's is
//! the one a registration uses. A resignation or result must name this game, the latest
//! move's ply and that move's `hashStruct` as `position` (an earlier one has lapsed).
//! Other members are ignored.

use alloy_primitives::{Address, B256, Bytes, U256, aliases::U24};
use chessref_core::{Color, GameResult, Outcome, State, Status};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::auth::{
    Auth, AuthError, Authorised, KnownKeys, LaterDelegation, NoPins, Pins, SignedDelegation,
};
use crate::domain::ChannelDomain;
use crate::game::ChannelGame;
use crate::messages::{
    Delegation, Message, Move, Receipt, Resignation, Result as ResultMessage, author_of,
    signing_hash,
};
use crate::settlement::{self, CLOCK_TOLERANCE, STAMP_TOLERANCE, Settlement};
use crate::transition::{TransitionError, check_successor, check_successor_hashed};

/// A colour as the JSON writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl Side {
    /// The side playing `colour`.
    pub fn of(colour: Color) -> Side {
        match colour {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }

    /// The other side.
    pub fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// `white` or `black`.
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }
}

impl From<Side> for Color {
    fn from(side: Side) -> Color {
        match side {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// A delegation with its signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DelegationEntry {
    /// Whose wallet signed it.
    pub player: Side,
    /// The game.
    pub game_id: U256,
    /// The delegated key.
    pub session_key: Address,
    /// First ply it covers.
    pub first_ply: u32,
    /// Last ply it covers.
    pub last_ply: u32,
    /// Unix time after which the key no longer signs (CHANNEL.md 5).
    pub expires: u64,
    /// The wallet's signature.
    pub signature: Bytes,
}

/// A signed move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveEntry {
    /// The game.
    pub game_id: U256,
    /// Its ply.
    pub ply: u32,
    /// The packed move (24 bits: a larger number is refused when the transcript is read,
    /// as it could not be what was signed).
    #[serde(deserialize_with = "packed_move")]
    pub mv: u32,
    /// The state after it (128 bytes).
    pub state: Bytes,
    /// The chain head after it.
    pub history: B256,
    /// White's remaining seconds.
    pub white_time: u32,
    /// Black's remaining seconds.
    pub black_time: u32,
    /// Unix time its author signed it.
    pub timestamp: u64,
    /// `hashStruct` of the move before.
    pub previous: B256,
    /// The signature (empty for a move not signed yet).
    #[serde(default)]
    pub signature: Bytes,
    /// Index into `delegations`, or -1: signed by the author's own address.
    #[serde(default = "direct")]
    pub delegation: i64,
    /// The opponent's receipt of this move, if it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<ReceiptEntry>,
}

/// The side to move's receipt of a move: `Receipt(gameId, ply, position, seenAt)` with
/// the move's game, ply and `hashStruct`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptEntry {
    /// Unix time the signer held the move.
    pub seen_at: u64,
    /// Its signature.
    #[serde(flatten)]
    pub signed: SignatureEntry,
}

/// A signature with its delegation reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureEntry {
    /// The signature.
    pub signature: Bytes,
    /// Index into `delegations`, or -1.
    #[serde(default = "direct")]
    pub delegation: i64,
}

/// A signed resignation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResignationEntry {
    /// The game.
    pub game_id: U256,
    /// The ply of the latest move the signer held.
    pub ply: u32,
    /// That move's `hashStruct`.
    pub position: B256,
    /// Who resigns.
    pub by: Side,
    /// Its signature.
    #[serde(flatten)]
    pub signed: SignatureEntry,
}

/// A result both signed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultEntry {
    /// The game.
    pub game_id: U256,
    /// The ply of the latest move.
    pub ply: u32,
    /// That move's `hashStruct`.
    pub position: B256,
    /// 1 white wins, 2 black wins, 3 draw.
    pub result: u8,
    /// White's signature.
    pub white: SignatureEntry,
    /// Black's signature.
    pub black: SignatureEntry,
}

fn direct() -> i64 {
    -1
}

/// A transcript file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    /// Where the signatures are valid.
    pub domain: ChannelDomain,
    /// The game's terms.
    pub game: ChannelGame,
    /// Delegations the moves refer to.
    #[serde(default)]
    pub delegations: Vec<DelegationEntry>,
    /// The signed moves, ply 1 first.
    #[serde(default)]
    pub moves: Vec<MoveEntry>,
    /// A signed resignation that ends the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resignation: Option<ResignationEntry>,
    /// A result both signed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ResultEntry>,
}

/// What is wrong with a transcript; `ply` is the first bad one (0 for the game itself).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TranscriptError {
    /// The file is not a transcript.
    #[error("not a transcript: {0}")]
    Json(String),
    /// The game's start state is not a valid state.
    #[error("the game's start state: {0}")]
    Start(chessref_core::StateError),
    /// A delegation index that does not exist, or names another player.
    #[error("ply {ply}: {what}")]
    Delegation {
        /// The ply (for a resignation or result: its `ply` field).
        ply: u32,
        /// What is wrong.
        what: String,
    },
    /// A move is not a valid successor of the one before.
    #[error("ply {ply}: {error} (transition code {code} {name})", code = .error.code(), name = .error.name())]
    Transition {
        /// The ply.
        ply: u32,
        /// Why.
        error: TransitionError,
    },
    /// A signature does not authorise its message.
    #[error("ply {ply}: {error}")]
    Signature {
        /// The ply (for a resignation or result: its `ply` field).
        ply: u32,
        /// Why.
        error: AuthError,
    },
    /// The receipt of the move of ply `ply` is not a valid one (the move itself is).
    #[error("ply {ply}: the receipt of this move {what}")]
    Receipt {
        /// The move's ply.
        ply: u32,
        /// What is wrong.
        what: String,
    },
    /// A resignation or result names another game.
    #[error("the {what} is for game {got}, but this transcript is game {expected}")]
    WrongGame {
        /// "result" or "resignation".
        what: &'static str,
        /// This transcript's game.
        expected: U256,
        /// The message's game.
        got: U256,
    },
    /// A resignation or result signed at an earlier ply than the latest move: play went
    /// on after it, so it no longer counts (CHANNEL.md 4.3, 4.4, 9).
    #[error("the {what} was signed at ply {ply}, but play went on to ply {latest}: it has lapsed")]
    Lapsed {
        /// "result" or "resignation".
        what: &'static str,
        /// Its ply.
        ply: u32,
        /// The latest move's ply.
        latest: u32,
    },
    /// A resignation or result whose ply is beyond the latest move, or whose `position`
    /// is not the `hashStruct` of the move of its ply.
    #[error("the {what} names {}, not the position after the latest move (ply {latest})", describe(*.ply, *.latest))]
    WrongPosition {
        /// "result" or "resignation".
        what: &'static str,
        /// Its ply.
        ply: u32,
        /// The latest move's ply.
        latest: u32,
    },
    /// A resignation or result that is malformed.
    #[error("{0}")]
    End(String),
}

fn describe(ply: u32, latest: u32) -> String {
    if ply > latest {
        format!("ply {ply}, a move this transcript does not have")
    } else {
        format!("another position at ply {ply}")
    }
}

impl TranscriptError {
    /// The first bad ply (0 when the problem is not a move's).
    pub fn ply(&self) -> u32 {
        match self {
            TranscriptError::Delegation { ply, .. }
            | TranscriptError::Transition { ply, .. }
            | TranscriptError::Signature { ply, .. }
            | TranscriptError::Receipt { ply, .. } => *ply,
            _ => 0,
        }
    }
}

/// The outcome of checking a transcript.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptReport {
    /// Moves that are valid, from ply 1 on (all of them when `error` is `None`, and when
    /// the error is a receipt's or the signed end's).
    pub valid_plies: u32,
    /// The first problem, if any.
    #[serde(serialize_with = "display_opt")]
    pub error: Option<TranscriptError>,
    /// ENCODING.md section 8 status of the last valid position.
    pub status: u8,
    /// The FEN of the last valid position.
    pub fen: String,
    /// Addresses (possibly contract wallets) whose signatures count only if pinned
    /// on-chain, which this verifier was not told.
    pub unchecked: Vec<Address>,
    /// The call that ends or continues the game on-chain.
    pub settlement: Settlement,
}

/// A `uint24` move: larger numbers are refused rather than clamped to another move.
fn packed_move<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let mv = <u32 as Deserialize>::deserialize(d)?;
    if mv > 0xFF_FFFF {
        return Err(serde::de::Error::custom(format!(
            "mv {mv} does not fit the 24 bits of a packed move"
        )));
    }
    Ok(mv)
}

fn display_opt<S: serde::Serializer>(e: &Option<TranscriptError>, s: S) -> Result<S::Ok, S::Error> {
    match e {
        None => s.serialize_none(),
        Some(e) => s.serialize_str(&e.to_string()),
    }
}

impl Transcript {
    /// Parses a transcript from JSON text.
    pub fn from_json(text: &str) -> Result<Transcript, TranscriptError> {
        serde_json::from_str(text).map_err(|e| TranscriptError::Json(e.to_string()))
    }

    /// The move message of entry `i`.
    pub fn message(&self, i: usize) -> Move {
        self.moves[i].message()
    }

    /// The authorisation of move `i` (0-based) as its entry gives it (not checked: see
    /// [`verify`](Transcript::verify)).
    pub fn move_auth(&self, i: usize) -> Result<Auth, TranscriptError> {
        let entry = &self.moves[i];
        let mv = entry.message();
        let side = author_of(&mv)
            .map(Side::of)
            .ok_or_else(|| TranscriptError::Transition {
                ply: mv.ply,
                error: TransitionError::BadStateLength(mv.state.len()),
            })?;
        self.auth(&entry.signature, entry.delegation, side, mv.ply)
    }

    /// Every move as `(ply, SAN, UCI)`, each read in the position before it (the start's
    /// for ply 1), as far as those positions are valid states: what a reader of the game
    /// is shown (not checked: see [`verify`](Transcript::verify)).
    pub fn moves_in_words(&self) -> Vec<(u32, String, String)> {
        let Ok(mut before) = self.game.start() else {
            return Vec::new();
        };
        let mut words = Vec::with_capacity(self.moves.len());
        for entry in &self.moves {
            let (san, uci) = move_in_words(&before, entry.mv);
            words.push((entry.ply, san, uci));
            match State::from_bytes(&entry.state) {
                Ok(next) => before = next,
                Err(_) => break,
            }
        }
        words
    }
}

/// `(SAN, UCI)` of the legal move packed as `packed` in `before` (empty SAN if none is:
/// the UCI is then the packed move in hex).
pub(crate) fn move_in_words(before: &State, packed: u32) -> (String, String) {
    match before
        .legal_moves()
        .into_iter()
        .find(|mv| chessref_core::RawMove::from(*mv).packed() == packed)
    {
        Some(mv) => (before.san(mv).unwrap_or_default(), mv.to_uci()),
        None => (String::new(), format!("{packed:#08x}")),
    }
}

impl MoveEntry {
    /// The entry of `mv` with its `signature` and `delegation` index (-1: signed by the
    /// author's own address), without a receipt; [`message`](MoveEntry::message) is the
    /// way back.
    pub fn signed(mv: &Move, signature: Bytes, delegation: i64) -> MoveEntry {
        MoveEntry {
            game_id: mv.gameId,
            ply: mv.ply,
            mv: mv.packed(),
            state: mv.state.clone(),
            history: mv.history,
            white_time: mv.whiteTime,
            black_time: mv.blackTime,
            timestamp: mv.timestamp,
            previous: mv.previous,
            signature,
            delegation,
            receipt: None,
        }
    }

    /// The move message (the signature aside). `mv` is 24 bits when read from JSON; a
    /// larger one built in code is clamped.
    pub fn message(&self) -> Move {
        let e = self;
        Move {
            gameId: e.game_id,
            ply: e.ply,
            mv: U24::saturating_from(e.mv),
            state: e.state.clone(),
            history: e.history,
            whiteTime: e.white_time,
            blackTime: e.black_time,
            timestamp: e.timestamp,
            previous: e.previous,
        }
    }

    /// The receipt message of this move at `seen_at`.
    pub fn receipt_message(&self, seen_at: u64) -> Receipt {
        receipt_of(&self.message(), seen_at)
    }
}

/// The receipt of move `mv` held at `seen_at`: `Receipt(mv.gameId, mv.ply,
/// hashStruct(mv), seen_at)`.
pub fn receipt_of(mv: &Move, seen_at: u64) -> Receipt {
    Receipt {
        gameId: mv.gameId,
        ply: mv.ply,
        position: mv.hash(),
        seenAt: seen_at,
    }
}

/// One verified link: a move, its authorisation, and the opponent's receipt of it.
type Link = (Move, Auth, Option<(Receipt, Auth)>);

/// What [`Transcript::walk`] found: the links it checked (first the verified move it
/// starts after), the signers left unchecked, the first error and the proof it allows.
struct Walk {
    chain: Vec<Link>,
    unchecked: Vec<Address>,
    error: Option<TranscriptError>,
    bad_settlement: Option<Settlement>,
}

/// Which signatures a walk checks; the others were checked before.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fresh {
    /// Every move's and receipt's from index `n` on.
    From(usize),
    /// Only the move and the receipt at these indices.
    Only {
        mv: Option<usize>,
        receipt: Option<usize>,
    },
}

impl Fresh {
    fn move_trusted(self, i: usize) -> bool {
        match self {
            Fresh::From(n) => i < n,
            Fresh::Only { mv, .. } => mv != Some(i),
        }
    }

    fn receipt_trusted(self, i: usize) -> bool {
        match self {
            Fresh::From(n) => i < n,
            Fresh::Only { receipt, .. } => receipt != Some(i),
        }
    }
}

/// What a verification computes once: each delegation's wallet signature (checked when
/// first used), the public keys recovered so far and the domain separator.
#[derive(Clone, Debug)]
pub(crate) struct DelegationCache {
    delegations: Vec<Option<Result<Authorised, AuthError>>>,
    keys: KnownKeys,
    separator: B256,
}

impl DelegationCache {
    /// Follows `t`'s delegations after some were added or taken back: an entry kept
    /// stays (a delegation's index never changes while it is held).
    pub(crate) fn fit(&mut self, t: &Transcript) {
        self.delegations.resize(t.delegations.len(), None);
    }

    /// Records that delegation `index` was checked, as `outcome`.
    pub(crate) fn seed(&mut self, index: usize, outcome: Result<Authorised, AuthError>) {
        if let Some(slot) = self.delegations.get_mut(index) {
            *slot = Some(outcome);
        }
    }

    /// How many recovered keys are kept (see [`KnownKeys::forget_since`]).
    pub(crate) fn keys_mark(&self) -> usize {
        self.keys.len()
    }

    /// Forgets the keys recovered after `mark`: a refused message's.
    pub(crate) fn forget_keys_since(&mut self, mark: usize) {
        self.keys.forget_since(mark);
    }

    pub(crate) fn new(t: &Transcript) -> DelegationCache {
        DelegationCache {
            delegations: vec![None; t.delegations.len()],
            keys: KnownKeys::default(),
            separator: t.domain.separator(),
        }
    }
}

impl Transcript {
    /// The authorisation of a signature entry, for `player`'s message at `ply`.
    pub(crate) fn auth(
        &self,
        signature: &Bytes,
        delegation: i64,
        player: Side,
        ply: u32,
    ) -> Result<Auth, TranscriptError> {
        if delegation < 0 {
            return Ok(Auth::direct(signature.clone()));
        }
        let entry = usize::try_from(delegation)
            .ok()
            .and_then(|i| self.delegations.get(i))
            .ok_or_else(|| TranscriptError::Delegation {
                ply,
                what: format!(
                    "delegation {delegation} does not exist ({} given)",
                    self.delegations.len()
                ),
            })?;
        if entry.player != player {
            return Err(TranscriptError::Delegation {
                ply,
                what: format!(
                    "delegation {delegation} is {}'s, the message {}'s",
                    entry.player.name(),
                    player.name()
                ),
            });
        }
        Ok(Auth {
            signature: signature.clone(),
            delegation: Some(SignedDelegation {
                delegation: entry.delegation(),
                signature: entry.signature.clone(),
            }),
        })
    }

    /// Checks every move (transition, then signature, then its receipt if any) from the
    /// start, then the signed end, and says which call settles or disputes the game.
    /// `pins` is what the verifier knows of `ChessChannel`'s pins and revocations, `now`
    /// its clock (unix seconds), against which a session key's resignation or result is
    /// judged (moves and receipts are judged by their own signed times).
    ///
    /// Only a broken start state is an `Err`; every other problem is the report's
    /// `error`, with the call for the valid part.
    pub fn verify(&self, pins: &impl Pins, now: u64) -> Result<TranscriptReport, TranscriptError> {
        self.verify_from(pins, now, 0)
    }

    /// [`verify`](Transcript::verify) for a verifier that already checked the signatures
    /// of the first `checked` moves and their receipts (a relay adding one message to a
    /// transcript it verified before): their transitions and signed times are checked
    /// again, their signatures not. Everything after them, and the signed end, is
    /// checked in full.
    pub fn verify_from(
        &self,
        pins: &impl Pins,
        now: u64,
        checked: usize,
    ) -> Result<TranscriptReport, TranscriptError> {
        let mut delegations = DelegationCache::new(self);
        let Walk {
            chain,
            mut unchecked,
            mut error,
            bad_settlement,
        } = self.walk(0, Fresh::From(checked), pins, now, &mut delegations)?;
        let (last, _, _) = chain.last().expect("the start is always there");
        let position = State::from_bytes(&last.state).map_err(TranscriptError::Start)?;
        let status = position.status();
        let settlement = match bad_settlement {
            Some(s) => s,
            None if error.is_some() => self.dispute(&chain, status, &position, now),
            None => match self.signed_end(last, pins, now, &mut unchecked, &mut delegations) {
                Ok(Some(s)) => s,
                Ok(None) => self.dispute(&chain, status, &position, now),
                Err(e) => {
                    error = Some(e);
                    self.dispute(&chain, status, &position, now)
                }
            },
        };
        Ok(TranscriptReport {
            valid_plies: (chain.len() - 1) as u32,
            error,
            status: status.code(),
            fen: position.fen(),
            unchecked,
            settlement,
        })
    }

    /// Checks the moves from index `from` on (transition, then signature unless `fresh`
    /// says it was checked before, then its receipt likewise), the move before `from`
    /// (or the start) taken as verified: the chain of links from it, and the first error.
    fn walk(
        &self,
        from: usize,
        fresh: Fresh,
        pins: &impl Pins,
        now: u64,
        delegations: &mut DelegationCache,
    ) -> Result<Walk, TranscriptError> {
        let anchor = match from.checked_sub(1) {
            None => self.game.start_move().map_err(TranscriptError::Start)?,
            Some(i) => self.message(i),
        };
        // Each move is hashed once: its `hashStruct` is signed (with the domain
        // separator, also hashed once), is its receipt's `position` and the next move's
        // `previous`.
        let mut previous_hash = anchor.hash();
        let mut chain: Vec<Link> = vec![(anchor, settlement::no_auth(), None)];
        let mut unchecked = Vec::new();
        let mut error = None;
        let mut bad_settlement = None;
        for (i, entry) in self.moves.iter().enumerate().skip(from) {
            let mv = self.message(i);
            let (previous, _, _) = chain.last().expect("the start is always there");
            let side = match author_of(&mv) {
                Some(colour) => Side::of(colour),
                None => {
                    error = Some(TranscriptError::Transition {
                        ply: mv.ply,
                        error: check_successor(previous, &mv, self.game.increment)
                            .expect_err("a state that is not 128 bytes is never a valid successor"),
                    });
                    break;
                }
            };
            let position = mv.hash();
            let signed = self
                .auth(&entry.signature, entry.delegation, side, mv.ply)
                .and_then(|auth| {
                    if fresh.move_trusted(i) {
                        return Ok((auth, Authorised::Valid));
                    }
                    self.check(
                        &auth,
                        entry.delegation,
                        &mv,
                        position,
                        side,
                        pins,
                        now,
                        delegations,
                    )
                    .map(|a| (auth, a))
                    .map_err(|error| TranscriptError::Signature { ply: mv.ply, error })
                });
            let auth = match signed {
                Ok((auth, a)) => {
                    note(&mut unchecked, a);
                    auth
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            };
            if let Err(e) =
                check_successor_hashed(previous, previous_hash, &mv, self.game.increment)
            {
                // A signed invalid successor is provable (codes 1 and 3 are not: the
                // move does not commit to this predecessor or game).
                if e.code() != 1 && e.code() != 3 {
                    bad_settlement = Some(settlement::prove_illegal(
                        previous,
                        (&mv, &auth),
                        side == Side::White,
                        format!(
                            "{} ({}) signed an invalid move at ply {}: {e}",
                            self.game.player(side.into()),
                            side.name(),
                            mv.ply
                        ),
                    ));
                }
                error = Some(TranscriptError::Transition {
                    ply: mv.ply,
                    error: e,
                });
                break;
            }
            let receipt = match &entry.receipt {
                None => Ok(None),
                Some(r) => self
                    .check_receipt(
                        &mv,
                        position,
                        side.opponent(),
                        r,
                        pins,
                        now,
                        delegations,
                        fresh.receipt_trusted(i),
                    )
                    .map(|(receipt, auth, a)| {
                        note(&mut unchecked, a);
                        Some((receipt, auth))
                    }),
            };
            match receipt {
                Ok(receipt) => {
                    chain.push((mv, auth, receipt));
                    previous_hash = position;
                }
                Err(e) => {
                    chain.push((mv, auth, None));
                    error = Some(e);
                    break;
                }
            }
        }
        Ok(Walk {
            chain,
            unchecked,
            error,
            bad_settlement,
        })
    }

    /// What a book checks when it adds one message (it verified everything before): the
    /// moves from index `from` on, the signatures `fresh` names, and the signed end; the
    /// first error. `delegations` is the book's, kept from message to message, so that
    /// a delegation's wallet signature is checked once in the game.
    pub(crate) fn check_step(
        &self,
        from: usize,
        fresh: Fresh,
        now: u64,
        delegations: &mut DelegationCache,
    ) -> Option<TranscriptError> {
        delegations.fit(self);
        let walk = match self.walk(from, fresh, &NoPins, now, delegations) {
            Ok(walk) => walk,
            Err(e) => return Some(e),
        };
        if walk.error.is_some() {
            return walk.error;
        }
        let (last, _, _) = walk.chain.last().expect("the anchor is always there");
        let mut unchecked = walk.unchecked;
        self.signed_end(last, &NoPins, now, &mut unchecked, delegations)
            .err()
    }

    /// Checks `auth` for `message` (whose `hashStruct` is `hash`) on `side`'s behalf,
    /// the delegation's own signature from `cache` (checked there on first use).
    #[allow(clippy::too_many_arguments)]
    fn check<M: Message>(
        &self,
        auth: &Auth,
        delegation: i64,
        message: &M,
        hash: B256,
        side: Side,
        pins: &impl Pins,
        now: u64,
        cache: &mut DelegationCache,
    ) -> Result<Authorised, AuthError> {
        let player = self.game.player(side.into());
        let digest = signing_hash(cache.separator, hash);
        let keys = &mut cache.keys;
        let (Some(signed), Ok(index)) = (&auth.delegation, usize::try_from(delegation)) else {
            return auth.verify_with(&self.domain, message, digest, player, pins, now, keys);
        };
        let outer = cache.delegations[index]
            .get_or_insert_with(|| signed.verify_with(&self.domain, player, pins, keys))
            .clone()?;
        auth.verify_by_session_with(message, digest, player, pins, now, keys)?;
        Ok(outer)
    }

    /// The receipt `entry` of move `mv` (whose `hashStruct` is `position`), signed on
    /// behalf of `by` (the side to move after it): timed between the move's stamp and `CLOCK_TOLERANCE` after it, as the
    /// contract accepts it (CHANNEL.md 7.3), and signed (unless `trusted`: checked
    /// before).
    #[allow(clippy::too_many_arguments)]
    fn check_receipt(
        &self,
        mv: &Move,
        position: B256,
        by: Side,
        entry: &ReceiptEntry,
        pins: &impl Pins,
        now: u64,
        cache: &mut DelegationCache,
        trusted: bool,
    ) -> Result<(Receipt, Auth, Authorised), TranscriptError> {
        let bad = |what: String| TranscriptError::Receipt { ply: mv.ply, what };
        let receipt = Receipt {
            gameId: mv.gameId,
            ply: mv.ply,
            position,
            seenAt: entry.seen_at,
        };
        if entry.seen_at < mv.timestamp {
            return Err(bad(format!(
                "says {} held it at {}, before the move's stamp {}",
                by.name(),
                entry.seen_at,
                mv.timestamp
            )));
        }
        if entry.seen_at > mv.timestamp.saturating_add(CLOCK_TOLERANCE) {
            return Err(bad(format!(
                "is timed {} s after the move's stamp; the contract accepts at most {CLOCK_TOLERANCE} s",
                entry.seen_at - mv.timestamp
            )));
        }
        let auth = self
            .auth(&entry.signed.signature, entry.signed.delegation, by, mv.ply)
            .map_err(|e| bad(format!("has a bad delegation: {e}")))?;
        if trusted {
            return Ok((receipt, auth, Authorised::Valid));
        }
        let a = self
            .check(
                &auth,
                entry.signed.delegation,
                &receipt,
                receipt.hash(),
                by,
                pins,
                now,
                cache,
            )
            .map_err(|e| bad(format!("is not signed on behalf of {}: {e}", by.name())))?;
        Ok((receipt, auth, a))
    }

    /// The signed result or resignation, checked against the latest move `last`, as its
    /// settling call.
    fn signed_end(
        &self,
        last: &Move,
        pins: &impl Pins,
        now: u64,
        unchecked: &mut Vec<Address>,
        cache: &mut DelegationCache,
    ) -> Result<Option<Settlement>, TranscriptError> {
        if let Some(r) = &self.result {
            if !(1..=3).contains(&r.result) {
                return Err(TranscriptError::End(format!(
                    "result {} is not 1 (white wins), 2 (black wins) or 3 (draw)",
                    r.result
                )));
            }
            self.check_position("result", r.game_id, r.ply, r.position, last)?;
            let message = ResultMessage {
                gameId: r.game_id,
                ply: r.ply,
                position: r.position,
                result: r.result,
            };
            let hash = message.hash();
            let white = self.auth(&r.white.signature, r.white.delegation, Side::White, r.ply)?;
            let black = self.auth(&r.black.signature, r.black.delegation, Side::Black, r.ply)?;
            for (auth, delegation, side) in [
                (&white, r.white.delegation, Side::White),
                (&black, r.black.delegation, Side::Black),
            ] {
                let pins = &self.agreement_pins_with(auth, side, pins, cache);
                let a = self
                    .check(auth, delegation, &message, hash, side, pins, now, cache)
                    .map_err(|error| TranscriptError::Signature { ply: r.ply, error })?;
                note(unchecked, a);
            }
            return Ok(Some(settlement::settle(&message, &white, &black)));
        }
        if let Some(r) = &self.resignation {
            self.check_position("resignation", r.game_id, r.ply, r.position, last)?;
            let message = Resignation {
                gameId: r.game_id,
                ply: r.ply,
                position: r.position,
            };
            let auth = self.auth(&r.signed.signature, r.signed.delegation, r.by, r.ply)?;
            let pins = &self.agreement_pins_with(&auth, r.by, pins, cache);
            let a = self
                .check(
                    &auth,
                    r.signed.delegation,
                    &message,
                    message.hash(),
                    r.by,
                    pins,
                    now,
                    cache,
                )
                .map_err(|error| TranscriptError::Signature { ply: r.ply, error })?;
            note(unchecked, a);
            return Ok(Some(settlement::resign(
                &message,
                &auth,
                r.by == Side::White,
            )));
        }
        Ok(None)
    }

    /// `pins` as a resignation or result `auth` signs on `side`'s behalf is judged with
    /// (what [`verify`](Transcript::verify) uses for the signed end): a later delegation of
    /// `side` this transcript holds retires the signing key (CHANNEL.md 5) whether or not
    /// it was shown on-chain yet. Only delegations from a ply above the key's are checked,
    /// so a game without a rotation costs nothing more.
    pub fn agreement_pins<'p, P: Pins>(
        &self,
        auth: &Auth,
        side: Side,
        pins: &'p P,
    ) -> LaterDelegation<&'p P> {
        self.agreement_pins_with(auth, side, pins, &mut DelegationCache::new(self))
    }

    fn agreement_pins_with<'p, P: Pins>(
        &self,
        auth: &Auth,
        side: Side,
        pins: &'p P,
        cache: &mut DelegationCache,
    ) -> LaterDelegation<&'p P> {
        let from = auth.delegation.as_ref().map_or(0, |d| {
            self.later_delegation_with(side, d.delegation.firstPly, pins, cache)
                .unwrap_or(0)
        });
        LaterDelegation {
            pins,
            game_id: self.game.game_id,
            player: self.game.player(side.into()),
            from,
        }
    }

    /// The highest `firstPly` above `above` among `side`'s delegations of this game whose
    /// signature verifies, if any: a later delegation, which retires `side`'s session keys
    /// delegated from `above` or earlier for resignations and results (CHANNEL.md 5), as
    /// `ChessChannel.retire` does once it is shown. A delegation that only a pin could make
    /// count ([`Authorised::Unchecked`]) retires nothing here: it could be anyone's.
    pub fn later_delegation(&self, side: Side, above: u32, pins: &impl Pins) -> Option<u32> {
        self.later_delegation_with(side, above, pins, &mut DelegationCache::new(self))
    }

    fn later_delegation_with(
        &self,
        side: Side,
        above: u32,
        pins: &impl Pins,
        cache: &mut DelegationCache,
    ) -> Option<u32> {
        let player = self.game.player(side.into());
        let mut later: Vec<(usize, &DelegationEntry)> = self
            .delegations
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                d.player == side && d.game_id == self.game.game_id && d.first_ply > above
            })
            .collect();
        later.sort_by_key(|(_, d)| std::cmp::Reverse(d.first_ply));
        let DelegationCache {
            delegations, keys, ..
        } = cache;
        later
            .into_iter()
            .find(|(i, d)| {
                let signed = SignedDelegation {
                    delegation: d.delegation(),
                    signature: d.signature.clone(),
                };
                delegations[*i]
                    .get_or_insert_with(|| signed.verify_with(&self.domain, player, pins, keys))
                    == &Ok(Authorised::Valid)
            })
            .map(|(_, d)| d.first_ply)
    }

    /// A signed end must name this game, the latest move's ply and its `hashStruct`.
    fn check_position(
        &self,
        what: &'static str,
        game_id: U256,
        ply: u32,
        position: B256,
        last: &Move,
    ) -> Result<(), TranscriptError> {
        if game_id != self.game.game_id {
            return Err(TranscriptError::WrongGame {
                what,
                expected: self.game.game_id,
                got: game_id,
            });
        }
        if ply < last.ply {
            return Err(TranscriptError::Lapsed {
                what,
                ply,
                latest: last.ply,
            });
        }
        if ply > last.ply || position != last.hash() {
            return Err(TranscriptError::WrongPosition {
                what,
                ply,
                latest: last.ply,
            });
        }
        Ok(())
    }

    /// The call for the latest valid pair: it registers it for on-chain play (a decided
    /// position with its pending outcome), with a draw claim to make after the window
    /// when one applies.
    fn dispute(&self, chain: &[Link], status: Status, position: &State, now: u64) -> Settlement {
        if chain.len() == 1 {
            return settlement::register_start(&chain[0].0);
        }
        let (previous, previous_auth, _) = &chain[chain.len() - 2];
        let (last, last_auth, receipt) = &chain[chain.len() - 1];
        let pair = ((previous, previous_auth), (last, last_auth));
        let receipt = receipt.as_ref().map(|(r, a)| (r, a));
        let to_move = author_of(last).map_or("the side to move", |c| Side::of(!c).name());
        let timing = match receipt {
            Some((r, _)) => format!(
                " with {to_move}'s receipt (its clock runs from {})",
                r.seenAt
            ),
            None if now > last.timestamp.saturating_add(STAMP_TOLERANCE) => format!(
                " (without {to_move}'s receipt the move must reach the chain within {STAMP_TOLERANCE} s of its stamp {}; it is {} s old, so the contract refuses it as StaleMove)",
                last.timestamp,
                now - last.timestamp
            ),
            None => format!(
                " (without {to_move}'s receipt: send it within {STAMP_TOLERANCE} s of the move's stamp {})",
                last.timestamp
            ),
        };
        if let Some(ends) = decided(status, position) {
            return settlement::register(
                pair.0,
                pair.1,
                receipt,
                Some(ends),
                format!(
                    "the last signed move ends the game ({}): register ply {}{timing}; after the response window anyone finishes it with ChessReferee.finishRegistered",
                    status.name(),
                    last.ply
                ),
            );
        }
        // A draw claim is never made from signed positions directly (an old pair could be
        // cited long after play went on): register, and once the response window is over
        // (nobody overtook), claim on the referee (CHANNEL.md 7.5).
        let claim = if position.halfmove_clock() >= 100 {
            "; then, after the response window, claim the fifty-move draw with ChessReferee.claimDraw"
        } else {
            let keys = witness(chain);
            let now = *keys.last().expect("the witness holds the position itself");
            if keys.iter().filter(|k| **k == now).count() >= 3 {
                "; then, after the response window, claim the threefold draw with ChessReferee.claimDraw (witness: the repetition keys since the last capture or pawn move)"
            } else {
                ""
            }
        };
        settlement::register(
            pair.0,
            pair.1,
            receipt,
            None,
            format!(
                "register ply {}{timing}: on-chain play continues from there after the response window{claim}",
                last.ply
            ),
        )
    }
}

impl DelegationEntry {
    /// `player`'s signed delegation `d` as a transcript entry (and a relay frame).
    pub fn of(player: Side, d: &crate::auth::SignedDelegation) -> DelegationEntry {
        DelegationEntry {
            player,
            game_id: d.delegation.gameId,
            session_key: d.delegation.sessionKey,
            first_ply: d.delegation.firstPly,
            last_ply: d.delegation.lastPly,
            expires: d.delegation.expires,
            signature: d.signature.clone(),
        }
    }

    /// The delegation message.
    pub fn delegation(&self) -> Delegation {
        Delegation {
            gameId: self.game_id,
            sessionKey: self.session_key,
            firstPly: self.first_ply,
            lastPly: self.last_ply,
            expires: self.expires,
        }
    }
}

fn note(unchecked: &mut Vec<Address>, a: Authorised) {
    if let Authorised::Unchecked(w) = a
        && !unchecked.contains(&w)
    {
        unchecked.push(w);
    }
}

/// `(result, reason)` the referee reports for a decided position (ENCODING.md section 8
/// status 1 to 4): chessref-core's one status-to-result mapping, in the referee's codes
/// (reasons 1 to 4 are the status codes).
fn decided(status: Status, position: &State) -> Option<(u8, u8)> {
    let outcome = Outcome::of(status, position.turn())?;
    let result = match outcome.result {
        GameResult::WhiteWins => 1,
        GameResult::BlackWins => 2,
        GameResult::Draw => 3,
    };
    Some((result, status.code()))
}

/// The threefold witness of the chain's last position (REFEREE.md section 4): its
/// positions from the start move on, folded by `chessref_core::chain::witness`.
fn witness(chain: &[Link]) -> Vec<B256> {
    let positions: Vec<State> = chain
        .iter()
        .map_while(|(mv, _, _)| State::from_bytes(&mv.state).ok())
        .collect();
    chessref_core::chain::witness(&positions)
}

#[cfg(all(test, feature = "signer"))]
mod tests {
    use alloy_primitives::{Address, B256, U256, keccak256};
    use alloy_signer_local::PrivateKeySigner;
    use alloy_sol_types::SolCall;
    use chessref_core::{Color, Move as ChessMove};

    use super::*;
    use crate::auth::NoPins;
    use crate::client::{OffChainGame, Seat};
    use crate::messages::IChessChannel;
    use crate::settlement::Settlement;

    const T0: u64 = 1_800_000_000;

    fn key(label: &str) -> PrivateKeySigner {
        PrivateKeySigner::from_bytes(&keccak256(label)).expect("a key")
    }

    /// Four moves: white signs directly, black by a session key; every move
    /// acknowledged.
    fn game() -> OffChainGame {
        game_with(60)
    }

    fn game_with(initial_time: u32) -> OffChainGame {
        let domain = ChannelDomain {
            chain_id: 5,
            verifying_contract: Address::repeat_byte(9),
        };
        let (w, b) = (key("white"), key("black"));
        let terms = ChannelGame {
            game_id: U256::from(11),
            white: w.address(),
            black: b.address(),
            initial_time,
            increment: 1,
            response_window: 600,
            start_state: None,
        };
        let expires = terms.key_expiry(T0, 100);
        let black =
            Seat::with_session(b, key("black session"), &domain, &terms, expires).expect("signing");
        let mut g = OffChainGame::new(domain, terms, Seat::wallet(w), black).expect("start");
        for (i, uci) in ["e2e4", "e7e5", "g1f3", "b8c6"].iter().enumerate() {
            let at = T0 + 5 * (i as u64 + 1);
            g.play(ChessMove::from_uci(uci).expect("uci"), at)
                .expect("legal");
            g.receipt(at + 1).expect("signing");
        }
        g
    }

    #[test]
    fn test_signed_ends_of_the_latest_position_settle() {
        let g = game();
        let agreed = g.transcript_agreed(3).expect("signing");
        let report = agreed.verify(&NoPins, T0 + 60).expect("verifiable");
        assert_eq!(report.error, None);
        assert_eq!(report.valid_plies, 4);
        assert_eq!(report.settlement.call, "settle");
        let resigned = g.transcript_resigned(Color::Black).expect("signing");
        let report = resigned.verify(&NoPins, T0 + 60).expect("verifiable");
        assert_eq!(report.error, None);
        assert_eq!(report.settlement.call, "resignBySignature");
        assert_eq!(report.settlement.ends, Some((1, 5)));
    }

    #[test]
    fn test_a_result_or_resignation_of_another_game_is_refused() {
        let g = game();
        // Signed properly, but for game 12: v1 never compared the game id.
        let mut other = g.clone();
        other.game.game_id = U256::from(12);
        let mut t = g.transcript();
        let mut elsewhere = other.transcript_agreed(3).expect("signing");
        t.result = elsewhere.result.take();
        let report = t.verify(&NoPins, T0 + 60).expect("verifiable");
        assert_eq!(
            report.error,
            Some(TranscriptError::WrongGame {
                what: "result",
                expected: U256::from(11),
                got: U256::from(12),
            })
        );
        assert_eq!(report.settlement.call, "register", "not settled");
        assert!(
            report
                .error
                .expect("refused")
                .to_string()
                .contains("is for game 12, but this transcript is game 11")
        );

        let mut t = g.transcript();
        let mut elsewhere = other.transcript_resigned(Color::White).expect("signing");
        t.resignation = elsewhere.resignation.take();
        let report = t.verify(&NoPins, T0 + 60).expect("verifiable");
        assert!(
            matches!(
                report.error,
                Some(TranscriptError::WrongGame {
                    what: "resignation",
                    ..
                })
            ),
            "{:?}",
            report.error
        );
        assert_ne!(report.settlement.call, "resignBySignature");
    }

    #[test]
    fn test_a_result_naming_another_position_is_refused() {
        let g = game();
        let mut t = g.transcript_agreed(1).expect("signing");
        t.result.as_mut().expect("result").position = B256::repeat_byte(1);
        let report = t.verify(&NoPins, T0 + 60).expect("verifiable");
        assert!(
            matches!(
                report.error,
                Some(TranscriptError::WrongPosition {
                    ply: 4,
                    latest: 4,
                    ..
                })
            ),
            "{:?}",
            report.error
        );
        // A resignation at an earlier ply has lapsed.
        let mut early = g.clone();
        early.moves.truncate(3);
        let mut t = g.transcript();
        t.resignation = early
            .transcript_resigned(Color::White)
            .expect("signing")
            .resignation;
        let report = t.verify(&NoPins, T0 + 60).expect("verifiable");
        let error = report.error.expect("lapsed");
        assert_eq!(
            error.to_string(),
            "the resignation was signed at ply 2, but play went on to ply 4: it has lapsed"
        );
    }

    #[test]
    fn test_session_key_agreements_are_judged_at_the_verifiers_clock() {
        let g = game();
        let t = g.transcript_resigned(Color::Black).expect("signing");
        let expires = t.delegations[0].expires;
        let report = t.verify(&NoPins, expires).expect("verifiable");
        assert_eq!(report.error, None);
        let report = t.verify(&NoPins, expires + 1).expect("verifiable");
        assert!(
            matches!(
                report.error,
                Some(TranscriptError::Signature {
                    error: AuthError::KeyExpired { .. },
                    ..
                })
            ),
            "{:?}",
            report.error
        );
        // Moves and receipts are evidence: bound by their own stamps, whatever the clock.
        let report = g
            .transcript()
            .verify(&NoPins, u64::MAX)
            .expect("verifiable");
        assert_eq!(report.error, None);
    }

    #[test]
    fn test_a_key_rotated_mid_game_verifies() {
        let mut g = game();
        let (domain, id) = (g.domain, g.game.game_id);
        g.seat_mut(Color::Black)
            .rotate(key("black session 2"), &domain, id, 6, T0 + 10_000)
            .expect("signing");
        for (i, uci) in ["f1c4", "g8f6"].iter().enumerate() {
            let at = T0 + 25 + 5 * i as u64;
            g.play(ChessMove::from_uci(uci).expect("uci"), at)
                .expect("legal");
            g.receipt(at + 1).expect("signing");
        }
        let t = g.transcript_resigned(Color::Black).expect("signing");
        assert_eq!(t.delegations.len(), 2);
        assert_eq!(
            t.moves[4]
                .receipt
                .as_ref()
                .expect("receipt")
                .signed
                .delegation,
            -1,
            "ply 5's receipt by black's wallet: the new key starts at ply 6"
        );
        assert_eq!(t.moves[3].delegation, 0, "ply 4 by the first key");
        assert_eq!(t.moves[5].delegation, 1, "ply 6 by the rotated key");
        assert_eq!(t.resignation.as_ref().expect("signed").signed.delegation, 1);
        let report = t.verify(&NoPins, T0 + 60).expect("verifiable");
        assert_eq!(report.error, None);
        assert_eq!(report.valid_plies, 6);
        assert_eq!(report.settlement.call, "resignBySignature");
    }

    /// Issue 27, finding 3: black rotates to a second key from ply 5 and never revokes the
    /// first; play goes on to ply 10. Black's client shows the new delegation (`retire`),
    /// but a verifier holding the transcript need not wait for it.
    fn rotated() -> (OffChainGame, Settlement) {
        let mut g = game();
        let retire = g
            .rotate(Color::Black, key("black session 2"), 5, T0 + 10_000)
            .expect("signing");
        for (i, uci) in ["f1c4", "g8f6", "d2d3", "f8c5", "e1g1", "e8g8"]
            .iter()
            .enumerate()
        {
            let at = T0 + 25 + 5 * i as u64;
            g.play(ChessMove::from_uci(uci).expect("uci"), at)
                .expect("legal");
            g.receipt(at + 1).expect("signing");
        }
        (g, retire)
    }

    /// `mv`'s position resigned for black by `key` under `delegation` (its index in the
    /// transcript's delegations).
    fn resigned_by(
        g: &OffChainGame,
        mv: &Move,
        key: &PrivateKeySigner,
        delegation: usize,
    ) -> Transcript {
        let mut t = g.transcript();
        let r = Resignation {
            gameId: mv.gameId,
            ply: mv.ply,
            position: mv.hash(),
        };
        let signed = &t.delegations[delegation];
        let auth = crate::signer::sign_delegated(
            key,
            &SignedDelegation {
                delegation: signed.delegation(),
                signature: signed.signature.clone(),
            },
            &g.domain,
            &r,
        )
        .expect("signing");
        t.resignation = Some(ResignationEntry {
            game_id: r.gameId,
            ply: r.ply,
            position: r.position,
            by: Side::Black,
            signed: SignatureEntry {
                signature: auth.signature,
                delegation: delegation as i64,
            },
        });
        t
    }

    #[test]
    fn test_finding3_a_rotated_out_keys_resignation_is_refused() {
        let (g, retire) = rotated();
        let call = IChessChannel::retireCall::abi_decode(&retire.calldata).expect("retire");
        assert_eq!(
            (retire.call, call.later.firstPly, call.white),
            ("retire", 5, false)
        );
        let t = g.transcript();
        assert_eq!(t.delegations.len(), 2, "black's two keys, neither revoked");
        let report = t.verify(&NoPins, T0 + 90).expect("verifiable");
        assert_eq!(
            report.error, None,
            "the old key's moves and receipts still count"
        );
        assert_eq!(report.valid_plies, 10);

        // The stolen first key resigns for black in the latest position: refused, with or
        // without the chain having seen the new delegation.
        let old = key("black session");
        let last = g.last().clone();
        let stolen = resigned_by(&g, &last, &old, 0);
        let report = stolen.verify(&NoPins, T0 + 90).expect("verifiable");
        let error = report.error.expect("retired");
        assert_eq!(
            error,
            TranscriptError::Signature {
                ply: 10,
                error: AuthError::RetiredKey {
                    key: old.address(),
                    first_ply: 1,
                    agreements_from: 5,
                },
            }
        );
        assert!(
            error
                .to_string()
                .contains("retired it: it signs no more resignations or results"),
            "{error}"
        );
        assert_eq!(report.settlement.call, "register", "not resigned");
        // Naming ply 3, as on-chain: lapsed here before any signature is judged.
        let early = resigned_by(&g, &g.moves[3].0, &old, 0);
        let report = early.verify(&NoPins, T0 + 90).expect("verifiable");
        assert!(
            matches!(report.error, Some(TranscriptError::Lapsed { ply: 3, .. })),
            "{:?}",
            report.error
        );
        // The current key and the wallet still resign.
        let current = resigned_by(&g, &last, &key("black session 2"), 1);
        let report = current.verify(&NoPins, T0 + 90).expect("verifiable");
        assert_eq!(
            (report.error, report.settlement.call),
            (None, "resignBySignature")
        );
        let report = g
            .transcript_resigned(Color::Black)
            .expect("signing")
            .verify(&NoPins, T0 + 90)
            .expect("verifiable");
        assert_eq!(report.error, None);
    }

    #[test]
    fn test_a_result_with_one_retired_key_is_refused() {
        let (g, _) = rotated();
        let last = g.last().clone();
        let mut t = g.transcript_agreed(3).expect("signing");
        assert_eq!(t.result.as_ref().expect("agreed").black.delegation, 1);
        let report = t.verify(&NoPins, T0 + 90).expect("verifiable");
        assert_eq!((report.error, report.settlement.call), (None, "settle"));
        let message = ResultMessage {
            gameId: last.gameId,
            ply: last.ply,
            position: last.hash(),
            result: 3,
        };
        let black = t.result.as_mut().expect("agreed");
        black.black = SignatureEntry {
            signature: crate::signer::sign(&key("black session"), &g.domain, &message)
                .expect("signing"),
            delegation: 0,
        };
        let report = t.verify(&NoPins, T0 + 90).expect("verifiable");
        assert!(
            matches!(
                report.error,
                Some(TranscriptError::Signature {
                    ply: 10,
                    error: AuthError::RetiredKey { first_ply: 1, .. }
                })
            ),
            "{:?}",
            report.error
        );
        assert_eq!(report.settlement.call, "register");
    }

    /// Only a delegation the player signed, of this game, retires: a forged one and one of
    /// another game change nothing; a delegation shown on-chain (`Pins`) retires as one
    /// held.
    #[test]
    fn test_only_a_signed_later_delegation_of_this_game_retires() {
        let (g, _) = rotated();
        let current = resigned_by(&g, g.last(), &key("black session 2"), 1);
        let later = |wallet: &PrivateKeySigner, game: u64| {
            let d = crate::signer::delegate(
                wallet,
                &g.domain,
                U256::from(game),
                key("black session 3").address(),
                9,
                u32::MAX,
                T0 + 10_000,
            )
            .expect("signing");
            DelegationEntry::of(Side::Black, &d)
        };
        for (what, entry) in [
            ("signed by white", later(&key("white"), 11)),
            ("of game 12", later(&key("black"), 12)),
        ] {
            let mut t = current.clone();
            t.delegations.push(entry);
            let report = t.verify(&NoPins, T0 + 90).expect("verifiable");
            assert_eq!(report.error, None, "{what}");
            assert_eq!(t.later_delegation(Side::Black, 5, &NoPins), None, "{what}");
        }
        let mut t = current.clone();
        t.delegations.push(later(&key("black"), 11));
        assert_eq!(t.later_delegation(Side::Black, 5, &NoPins), Some(9));
        assert_eq!(t.later_delegation(Side::White, 0, &NoPins), None);
        let report = t.verify(&NoPins, T0 + 90).expect("verifiable");
        assert!(
            matches!(
                report.error,
                Some(TranscriptError::Signature {
                    error: AuthError::RetiredKey {
                        first_ply: 5,
                        agreements_from: 9,
                        ..
                    },
                    ..
                })
            ),
            "{:?}",
            report.error
        );
        // Shown on-chain only (the transcript without it): the verifier told of it refuses.
        let mut shown = crate::auth::KnownPins::default();
        shown.retirements.push(crate::auth::Retirement {
            game_id: g.game.game_id,
            player: g.game.black,
            first_ply: 9,
        });
        let report = current.verify(&shown, T0 + 90).expect("verifiable");
        assert!(
            matches!(
                report.error,
                Some(TranscriptError::Signature {
                    error: AuthError::RetiredKey { .. },
                    ..
                })
            ),
            "{:?}",
            report.error
        );
        // ... but a retirement of white, or of another game, does not touch black's key.
        let mut elsewhere = crate::auth::KnownPins::default();
        elsewhere.retirements.push(crate::auth::Retirement {
            game_id: U256::from(12),
            player: g.game.black,
            first_ply: 9,
        });
        elsewhere.retirements.push(crate::auth::Retirement {
            game_id: g.game.game_id,
            player: g.game.white,
            first_ply: 9,
        });
        let report = current.verify(&elsewhere, T0 + 90).expect("verifiable");
        assert_eq!(report.error, None);
    }

    #[test]
    fn test_a_move_stamped_after_its_keys_expiry_is_refused() {
        // Black rotates to a key that expires at T0 + 12, and signs ply 2 at T0 + 13
        // (well within its time: the key is the problem, not the flag).
        let mut g = game();
        g.moves.truncate(2);
        g.receipts.clear();
        let (domain, id) = (g.domain, g.game.game_id);
        let expires = T0 + 12;
        g.seat_mut(Color::Black)
            .rotate(key("short-lived"), &domain, id, 2, expires)
            .expect("signing");
        g.play(ChessMove::from_uci("e7e5").expect("uci"), expires + 1)
            .expect("legal");
        let t = g.transcript();
        let report = t.verify(&NoPins, T0).expect("verifiable");
        let error = report.error.expect("expired");
        assert_eq!(error.ply(), 2);
        assert!(
            matches!(
                error,
                TranscriptError::Signature {
                    error: AuthError::KeyExpired { at, .. },
                    ..
                } if at == expires + 1
            ),
            "{error}"
        );
    }

    #[test]
    fn test_registration_carries_the_latest_receipt() {
        let g = game();
        let t = g.transcript();
        let report = t.verify(&NoPins, T0 + 60).expect("verifiable");
        assert_eq!(report.settlement.call, "register");
        let call = IChessChannel::registerCall::abi_decode(&report.settlement.calldata)
            .expect("register calldata");
        assert_eq!(call.last.ply, 4);
        assert_eq!(call.previous.ply, 3);
        assert_eq!(call.receipt.position, call.last.hash());
        assert_eq!(call.receipt.seenAt, call.last.timestamp + 1);
        assert_eq!(call.receiptAuth.signature, g.receipts[&4].1.signature);
        // Without receipts: the zero receipt.
        let mut bare = t.clone();
        for m in &mut bare.moves {
            m.receipt = None;
        }
        let report = bare.verify(&NoPins, T0 + 100).expect("verifiable");
        let call = IChessChannel::registerCall::abi_decode(&report.settlement.calldata)
            .expect("register calldata");
        assert_eq!(call.receipt.position, B256::ZERO);
        assert!(
            report.settlement.why.contains("StaleMove"),
            "{}",
            report.settlement.why
        );
    }

    #[test]
    fn test_a_flagged_player_cannot_sign_an_honest_move() {
        let mut g = game();
        // White had 57 s at ply 4; 70 s later its flag has fallen.
        let last = g.last().timestamp;
        let error = g
            .play(ChessMove::from_uci("f1c4").expect("uci"), last + 70)
            .expect_err("flag fell");
        assert!(error.to_string().contains("flag had fallen"), "{error}");
        let error = g
            .play(ChessMove::from_uci("f1c4").expect("uci"), last - 1)
            .expect_err("backwards");
        assert!(
            error.to_string().contains("before its predecessor"),
            "{error}"
        );
        let m = g
            .play(ChessMove::from_uci("f1c4").expect("uci"), last + 7)
            .expect("in time");
        // 60 + 1 after ply 1 (not charged), 61 - 5 + 1 at ply 3, now 57 - 7 + 1.
        assert_eq!(m.whiteTime, 51);
    }
}
