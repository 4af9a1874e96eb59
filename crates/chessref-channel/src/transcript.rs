//! A whole off-chain game as a JSON file: its domain and terms, the delegations,
//! every signed move and an optional signed end; checked move by move (signatures,
//! turn order, every move legal by `chessref-core`, clocks) with the call that
//! settles or disputes it.
//!
//! The format (CHANNEL.md section 10 fixture is one): `{ "domain": {chainId,
//! verifyingContract}, "game": {gameId, white, black, initialTime, increment,
//! responseWindow, startState?}, "delegations": [{player, gameId, sessionKey,
//! firstPly, lastPly, signature}], "moves": [{gameId, ply, move, state, history,
//! whiteTime, blackTime, previous, signature, delegation}], "resignation"?: {gameId,
//! ply, by, signature, delegation}, "result"?: {gameId, ply, result, white: {signature,
//! delegation}, black: {...}} }`; `delegation` is an index into `delegations` or -1
//! for a signature by the player's own address. Other members are ignored.

use alloy_primitives::{Address, B256, Bytes, U256, aliases::U24};
use chessref_core::{Color, GameResult, Outcome, State, Status};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::auth::{Auth, AuthError, Authorised, ContractWallets, SignedDelegation};
use crate::domain::ChannelDomain;
use crate::game::ChannelGame;
use crate::messages::{Delegation, Move, Resignation, Result as ResultMessage, author_of};
use crate::settlement::{self, Settlement};
use crate::transition::{TransitionError, check_successor};

/// A colour as the JSON writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
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
    /// The packed move.
    pub mv: u32,
    /// The state after it (128 bytes).
    pub state: Bytes,
    /// The chain head after it.
    pub history: B256,
    /// White's remaining seconds.
    pub white_time: u32,
    /// Black's remaining seconds.
    pub black_time: u32,
    /// `hashStruct` of the move before.
    pub previous: B256,
    /// The signature (empty for a move not signed yet).
    #[serde(default)]
    pub signature: Bytes,
    /// Index into `delegations`, or -1: signed by the author's own address.
    #[serde(default = "direct")]
    pub delegation: i64,
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
    /// Plies the signer had seen.
    pub ply: u32,
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
    /// Plies seen.
    pub ply: u32,
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
        /// The ply (0 for a resignation or result).
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
    /// A resignation or result that does not belong to this game or is malformed.
    #[error("{0}")]
    End(String),
}

impl TranscriptError {
    /// The first bad ply (0 when the problem is not a move's).
    pub fn ply(&self) -> u32 {
        match self {
            TranscriptError::Delegation { ply, .. }
            | TranscriptError::Transition { ply, .. }
            | TranscriptError::Signature { ply, .. } => *ply,
            _ => 0,
        }
    }
}

/// The outcome of checking a transcript.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptReport {
    /// Moves that are valid, from ply 1 on (all of them when `error` is `None`).
    pub valid_plies: u32,
    /// The first problem, if any.
    #[serde(serialize_with = "display_opt")]
    pub error: Option<TranscriptError>,
    /// ENCODING.md section 8 status of the last valid position.
    pub status: u8,
    /// The FEN of the last valid position.
    pub fen: String,
    /// Contract wallets whose signatures could not be checked here.
    pub unchecked: Vec<Address>,
    /// The call that ends or continues the game on-chain.
    pub settlement: Settlement,
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
}

impl MoveEntry {
    /// The entry of `mv` with its `signature` and `delegation` index (-1: signed by the
    /// author's own address); [`message`](MoveEntry::message) is the way back.
    pub fn signed(mv: &Move, signature: Bytes, delegation: i64) -> MoveEntry {
        MoveEntry {
            game_id: mv.gameId,
            ply: mv.ply,
            mv: mv.packed(),
            state: mv.state.clone(),
            history: mv.history,
            white_time: mv.whiteTime,
            black_time: mv.blackTime,
            previous: mv.previous,
            signature,
            delegation,
        }
    }

    /// The move message (the signature aside).
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
            previous: e.previous,
        }
    }
}

impl Transcript {
    /// The authorisation of a signature entry, for `player`'s message at `ply`.
    fn auth(
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
                    "delegation {delegation} is {:?}'s, the message {:?}'s",
                    entry.player, player
                ),
            });
        }
        Ok(Auth {
            signature: signature.clone(),
            delegation: Some(SignedDelegation {
                delegation: Delegation {
                    gameId: entry.game_id,
                    sessionKey: entry.session_key,
                    firstPly: entry.first_ply,
                    lastPly: entry.last_ply,
                },
                signature: entry.signature.clone(),
            }),
        })
    }

    /// Checks every move (transition, then signature) from the start, then the signed
    /// end, and says which call settles or disputes the game.
    pub fn verify(
        &self,
        wallets: &impl ContractWallets,
    ) -> Result<TranscriptReport, TranscriptError> {
        let start = self.game.start_move().map_err(TranscriptError::Start)?;
        let mut chain: Vec<(Move, Auth)> = vec![(start, settlement::no_auth())];
        let mut unchecked = Vec::new();
        let mut error = None;
        let mut bad_settlement = None;
        // Each delegation's wallet signature is checked once, when first used.
        let mut delegations: Vec<Option<Result<Authorised, AuthError>>> =
            vec![None; self.delegations.len()];
        for i in 0..self.moves.len() {
            let mv = self.message(i);
            let entry = &self.moves[i];
            let (previous, _) = chain.last().expect("the start is always there");
            let side = match author_of(&mv) {
                Some(Color::White) => Side::White,
                Some(Color::Black) => Side::Black,
                None => {
                    error = Some(TranscriptError::Transition {
                        ply: mv.ply,
                        error: check_successor(previous, &mv, self.game.increment)
                            .expect_err("a state that is not 128 bytes is never a valid successor"),
                    });
                    break;
                }
            };
            let auth = match self.auth(&entry.signature, entry.delegation, side, mv.ply) {
                Ok(a) => a,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            };
            let signed = self.check(
                &auth,
                entry.delegation,
                &mv,
                side,
                wallets,
                &mut delegations,
            );
            match signed {
                Ok(Authorised::Valid) => {}
                Ok(Authorised::Unchecked(a)) => unchecked.push(a),
                Err(e) => {
                    error = Some(TranscriptError::Signature {
                        ply: mv.ply,
                        error: e,
                    });
                    break;
                }
            }
            if let Err(e) = check_successor(previous, &mv, self.game.increment) {
                // A signed invalid successor is provable (codes 1 and 3 are not: the
                // move does not commit to this predecessor or game).
                if e.code() != 1 && e.code() != 3 {
                    bad_settlement = Some(settlement::prove_illegal(
                        previous,
                        (&mv, &auth),
                        side == Side::White,
                        format!(
                            "{} signed an invalid move at ply {}: {e}",
                            self.game.player(side.into()),
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
            chain.push((mv, auth));
        }
        let (last, _) = chain.last().expect("the start is always there");
        let position = State::from_bytes(&last.state).map_err(TranscriptError::Start)?;
        let status = position.status();
        let settlement = match bad_settlement {
            Some(s) => s,
            None if error.is_some() => self.dispute(&chain, status, &position),
            None => match self.signed_end(wallets, &mut unchecked)? {
                Some(s) => s,
                None => self.dispute(&chain, status, &position),
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

    /// Checks `auth` for `message` on `side`'s behalf, the delegation's own signature
    /// from `cache` (checked there on first use).
    fn check<M: crate::messages::Message>(
        &self,
        auth: &Auth,
        delegation: i64,
        message: &M,
        side: Side,
        wallets: &impl ContractWallets,
        cache: &mut [Option<Result<Authorised, AuthError>>],
    ) -> Result<Authorised, AuthError> {
        let player = self.game.player(side.into());
        let (Some(signed), Ok(index)) = (&auth.delegation, usize::try_from(delegation)) else {
            return auth.verify(&self.domain, message, player, wallets);
        };
        let outer = cache[index]
            .get_or_insert_with(|| signed.verify(&self.domain, player, wallets))
            .clone()?;
        auth.verify_by_session(&self.domain, message)?;
        Ok(outer)
    }

    /// The signed result or resignation, checked, as its settling call.
    fn signed_end(
        &self,
        wallets: &impl ContractWallets,
        unchecked: &mut Vec<Address>,
    ) -> Result<Option<Settlement>, TranscriptError> {
        let mut note = |a: Authorised| {
            if let Authorised::Unchecked(w) = a {
                unchecked.push(w);
            }
        };
        if let Some(r) = &self.result {
            if !(1..=3).contains(&r.result) {
                return Err(TranscriptError::End(format!(
                    "result {} is not 1, 2 or 3",
                    r.result
                )));
            }
            let message = ResultMessage {
                gameId: r.game_id,
                ply: r.ply,
                result: r.result,
            };
            let white = self.auth(&r.white.signature, r.white.delegation, Side::White, r.ply)?;
            let black = self.auth(&r.black.signature, r.black.delegation, Side::Black, r.ply)?;
            for (auth, side) in [(&white, Color::White), (&black, Color::Black)] {
                let a = auth
                    .verify(&self.domain, &message, self.game.player(side), wallets)
                    .map_err(|error| TranscriptError::Signature { ply: r.ply, error })?;
                note(a);
            }
            return Ok(Some(settlement::settle(&message, &white, &black)));
        }
        if let Some(r) = &self.resignation {
            let message = Resignation {
                gameId: r.game_id,
                ply: r.ply,
            };
            let auth = self.auth(&r.signed.signature, r.signed.delegation, r.by, r.ply)?;
            let a = auth
                .verify(
                    &self.domain,
                    &message,
                    self.game.player(r.by.into()),
                    wallets,
                )
                .map_err(|error| TranscriptError::Signature { ply: r.ply, error })?;
            note(a);
            return Ok(Some(settlement::resign(
                &message,
                &auth,
                r.by == Side::White,
            )));
        }
        Ok(None)
    }

    /// The call for the latest valid pair: it ends a decided position, claims a draw
    /// that applies, or registers it for on-chain play.
    fn dispute(&self, chain: &[(Move, Auth)], status: Status, position: &State) -> Settlement {
        if chain.len() == 1 {
            return settlement::register_start(&chain[0].0);
        }
        let (previous, previous_auth) = &chain[chain.len() - 2];
        let (last, last_auth) = &chain[chain.len() - 1];
        let pair = ((previous, previous_auth), (last, last_auth));
        let current = (B256::ZERO, U256::ZERO);
        if let Some(ends) = decided(status, position) {
            return settlement::register(
                pair.0,
                pair.1,
                current,
                Some(ends),
                format!("the last signed move ends the game ({})", status.name()),
            );
        }
        // A draw claim is never made from signed positions directly (an old pair could be
        // cited long after play went on): register, and once the response window is over
        // (nobody overtook), claim on the referee (CHANNEL.md 7.4).
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
            current,
            None,
            format!(
                "register ply {}: on-chain play continues from there{claim}",
                last.ply
            ),
        )
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

/// The threefold witness of the chain's last position: the repetition keys since the
/// last irreversible move (REFEREE.md section 4), oldest first.
fn witness(chain: &[(Move, Auth)]) -> Vec<B256> {
    let mut keys = Vec::new();
    for (mv, _) in chain.iter().rev() {
        let Ok(state) = State::from_bytes(&mv.state) else {
            break;
        };
        keys.push(state.repetition_key());
        if state.halfmove_clock() == 0 || mv.ply == 0 {
            break;
        }
    }
    keys.reverse();
    keys
}
