//! An honest client's side of an off-chain game: both seats' keys, the signed moves
//! and receipts so far, and the transcript they make. What `chessref simulate
//! --channel`, the benchmarks and the tests play with.

use std::collections::BTreeMap;

use alloy_primitives::{Address, Bytes, U256};
use alloy_signer_local::PrivateKeySigner;
use chessref_core::{Color, RawMove};

use crate::auth::{Auth, SignedDelegation};
use crate::domain::ChannelDomain;
use crate::game::ChannelGame;
use crate::messages::{
    DrawOffer, Message, Move, Receipt, Resignation, Result as ResultMessage, author_of,
};
use crate::settlement::{self, Settlement};
use crate::signer::{SignError, delegate, sign, sign_delegated};
use crate::transcript::{
    DelegationEntry, MoveEntry, ReceiptEntry, ResignationEntry, ResultEntry, Side, SignatureEntry,
    Transcript, receipt_of,
};
use crate::transition::{TransitionError, successor};

/// One player's keys: its wallet, the session key that signs for it now (if any), and
/// the delegations of the keys it rotated out (their earlier signatures still count).
#[derive(Clone, Debug)]
pub struct Seat {
    /// The player's own key (its address is the player).
    pub wallet: PrivateKeySigner,
    /// The current session key with the wallet's delegation.
    pub session: Option<(PrivateKeySigner, SignedDelegation)>,
    /// Delegations of session keys rotated out, oldest first.
    pub retired: Vec<SignedDelegation>,
}

impl Seat {
    /// A seat that signs with its wallet.
    pub fn wallet(wallet: PrivateKeySigner) -> Seat {
        Seat {
            wallet,
            session: None,
            retired: Vec::new(),
        }
    }

    /// A seat whose wallet delegates `session` over the whole game until `expires`
    /// (unix seconds; [`ChannelGame::key_expiry`] is what honest clients use).
    pub fn with_session(
        wallet: PrivateKeySigner,
        session: PrivateKeySigner,
        domain: &ChannelDomain,
        game: &ChannelGame,
        expires: u64,
    ) -> Result<Seat, SignError> {
        let mut seat = Seat::wallet(wallet);
        seat.rotate(session, domain, game.game_id, 1, expires)?;
        Ok(seat)
    }

    /// Rotates to a new session key from ply `first_ply` on (a new delegation with
    /// `firstPly = first_ply`, `lastPly` the end of the game, until `expires`); the old
    /// key's delegation is kept (its moves and receipts stay valid). The new delegation
    /// must then be shown on-chain ([`OffChainGame::rotate`] gives the `retire` call), so
    /// that the old key signs no more agreements; a lost device's key should also be
    /// revoked (`settlement::revoke_session_key`).
    pub fn rotate(
        &mut self,
        session: PrivateKeySigner,
        domain: &ChannelDomain,
        game_id: U256,
        first_ply: u32,
        expires: u64,
    ) -> Result<(), SignError> {
        let d = delegate(
            &self.wallet,
            domain,
            game_id,
            session.address(),
            first_ply,
            u32::MAX,
            expires,
        )?;
        if let Some((_, old)) = self.session.replace((session, d)) {
            self.retired.push(old);
        }
        Ok(())
    }

    /// The player's address.
    pub fn address(&self) -> Address {
        self.wallet.address()
    }

    /// Every delegation this seat signed, oldest first (the current one last).
    pub fn delegations(&self) -> impl Iterator<Item = &SignedDelegation> {
        self.retired
            .iter()
            .chain(self.session.as_ref().map(|(_, d)| d))
    }

    /// Signs `message` the way this seat signs: by its session key if it has one whose
    /// ply range covers the message (a key rotated in from ply N does not cover the
    /// receipt of ply N-1), else by its wallet.
    pub fn authorise<M: Message>(
        &self,
        domain: &ChannelDomain,
        message: &M,
    ) -> Result<Auth, SignError> {
        match &self.session {
            Some((key, d))
                if (d.delegation.firstPly..=d.delegation.lastPly).contains(&message.ply()) =>
            {
                sign_delegated(key, d, domain, message)
            }
            _ => Ok(Auth::direct(sign(&self.wallet, domain, message)?)),
        }
    }
}

/// Why the client cannot make a move.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The move is not a valid successor (illegal, the game is over, the stamp runs
    /// backwards or the mover's flag has fallen).
    #[error("{0}")]
    Transition(#[from] TransitionError),
    /// Signing failed.
    #[error("{0}")]
    Sign(#[from] SignError),
    /// The game's start state is invalid.
    #[error("{0}")]
    Start(#[from] chessref_core::StateError),
    /// A receipt asked for before the first move (the start move is never acknowledged).
    #[error("no move to acknowledge yet")]
    NothingToAcknowledge,
}

/// An off-chain game as both honest clients see it.
#[derive(Clone, Debug)]
pub struct OffChainGame {
    /// Where signatures are valid.
    pub domain: ChannelDomain,
    /// The game's terms.
    pub game: ChannelGame,
    /// White's and black's keys.
    pub seats: [Seat; 2],
    /// The start move, then every signed move with its authorisation.
    pub moves: Vec<(Move, Auth)>,
    /// The receipts signed so far, by the ply of the move they acknowledge.
    pub receipts: BTreeMap<u32, (Receipt, Auth)>,
}

impl OffChainGame {
    /// A game at its start.
    pub fn new(
        domain: ChannelDomain,
        game: ChannelGame,
        white: Seat,
        black: Seat,
    ) -> Result<OffChainGame, ClientError> {
        let start = game.start_move()?;
        Ok(OffChainGame {
            domain,
            game,
            seats: [white, black],
            moves: vec![(start, Auth::direct(Bytes::new()))],
            receipts: BTreeMap::new(),
        })
    }

    /// The latest move (the start move before the first).
    pub fn last(&self) -> &Move {
        &self.moves.last().expect("the start move is always there").0
    }

    /// The seat of `colour`.
    pub fn seat(&self, colour: Color) -> &Seat {
        &self.seats[usize::from(colour == Color::Black)]
    }

    /// The seat of `colour`, to rotate its key.
    pub fn seat_mut(&mut self, colour: Color) -> &mut Seat {
        &mut self.seats[usize::from(colour == Color::Black)]
    }

    /// `colour` rotates to session key `session` from ply `first_ply` on, until `expires`
    /// ([`Seat::rotate`]); returns the `retire` call that shows the new delegation, which the
    /// client sends at once (CHANNEL.md 5, 9): from then on the keys it replaced sign no
    /// resignation or result, even unrevoked.
    pub fn rotate(
        &mut self,
        colour: Color,
        session: PrivateKeySigner,
        first_ply: u32,
        expires: u64,
    ) -> Result<Settlement, ClientError> {
        let (domain, game_id) = (self.domain, self.game.game_id);
        let seat = self.seat_mut(colour);
        seat.rotate(session, &domain, game_id, first_ply, expires)?;
        let (_, later) = seat
            .session
            .as_ref()
            .expect("a seat that rotated has a session key");
        Ok(settlement::retire(game_id, later, colour == Color::White))
    }

    /// The side to move signs `mv`, stamped `timestamp` (unix seconds, its clock): it is
    /// charged the time since the latest move's stamp and gains the increment.
    pub fn play(&mut self, mv: impl Into<RawMove>, timestamp: u64) -> Result<&Move, ClientError> {
        let next = successor(self.last(), mv, timestamp, self.game.increment)?;
        let author = author_of(&next).expect("a successor has a 128-byte state");
        let auth = self.seat(author).authorise(&self.domain, &next)?;
        self.moves.push((next, auth));
        Ok(self.last())
    }

    /// The side to move signs a receipt of the latest move, held at `seen_at` (unix
    /// seconds): what an honest client sends at once for every valid move it receives.
    pub fn receipt(&mut self, seen_at: u64) -> Result<&(Receipt, Auth), ClientError> {
        let last = self.last();
        if last.ply == 0 {
            return Err(ClientError::NothingToAcknowledge);
        }
        let by = !author_of(last).expect("a signed move has a 128-byte state");
        let receipt = receipt_of(last, seen_at);
        let auth = self.seat(by).authorise(&self.domain, &receipt)?;
        let ply = receipt.ply;
        self.receipts.insert(ply, (receipt, auth));
        Ok(&self.receipts[&ply])
    }

    /// `colour` offers a draw in the latest position (binds nobody; lapses with the
    /// next move).
    pub fn offer_draw(&self, colour: Color) -> Result<(DrawOffer, Auth), ClientError> {
        let last = self.last();
        let offer = DrawOffer {
            gameId: self.game.game_id,
            ply: last.ply,
            position: last.hash(),
        };
        Ok((
            offer.clone(),
            self.seat(colour).authorise(&self.domain, &offer)?,
        ))
    }

    /// `colour` signs a resignation in the latest position.
    pub fn resign(&self, colour: Color) -> Result<(Resignation, Auth), ClientError> {
        let last = self.last();
        let r = Resignation {
            gameId: self.game.game_id,
            ply: last.ply,
            position: last.hash(),
        };
        Ok((r.clone(), self.seat(colour).authorise(&self.domain, &r)?))
    }

    /// Both sign `result` (1 white wins, 2 black wins, 3 draw) in the latest position.
    pub fn agree(&self, result: u8) -> Result<(ResultMessage, Auth, Auth), ClientError> {
        let last = self.last();
        let r = ResultMessage {
            gameId: self.game.game_id,
            ply: last.ply,
            position: last.hash(),
            result,
        };
        let white = self.seat(Color::White).authorise(&self.domain, &r)?;
        let black = self.seat(Color::Black).authorise(&self.domain, &r)?;
        Ok((r, white, black))
    }

    /// The transcript file of the moves and receipts so far (delegations listed white's
    /// first, each seat's oldest first).
    pub fn transcript(&self) -> Transcript {
        let mut delegations = Vec::new();
        for (i, seat) in self.seats.iter().enumerate() {
            for d in seat.delegations() {
                let side = if i == 0 { Side::White } else { Side::Black };
                delegations.push(DelegationEntry::of(side, d));
            }
        }
        let mut t = Transcript {
            domain: self.domain,
            game: self.game.clone(),
            delegations,
            moves: Vec::new(),
            resignation: None,
            result: None,
        };
        t.moves = self.moves[1..]
            .iter()
            .map(|(m, auth)| {
                let mut e =
                    MoveEntry::signed(m, auth.signature.clone(), delegation_index(&t, auth));
                e.receipt = self.receipts.get(&m.ply).map(|(r, a)| ReceiptEntry {
                    seen_at: r.seenAt,
                    signed: signature_entry(&t, a),
                });
                e
            })
            .collect();
        t
    }

    /// The transcript ending in `colour`'s signed resignation.
    pub fn transcript_resigned(&self, colour: Color) -> Result<Transcript, ClientError> {
        let mut t = self.transcript();
        let (r, auth) = self.resign(colour)?;
        t.resignation = Some(ResignationEntry {
            game_id: r.gameId,
            ply: r.ply,
            position: r.position,
            by: Side::of(colour),
            signed: signature_entry(&t, &auth),
        });
        Ok(t)
    }

    /// The transcript ending in a result both signed.
    pub fn transcript_agreed(&self, result: u8) -> Result<Transcript, ClientError> {
        let mut t = self.transcript();
        let (r, white, black) = self.agree(result)?;
        t.result = Some(ResultEntry {
            game_id: r.gameId,
            ply: r.ply,
            position: r.position,
            result,
            white: signature_entry(&t, &white),
            black: signature_entry(&t, &black),
        });
        Ok(t)
    }
}

/// The index of `auth`'s delegation in `t.delegations` (-1: signed directly).
fn delegation_index(t: &Transcript, auth: &Auth) -> i64 {
    match &auth.delegation {
        None => -1,
        Some(d) => t
            .delegations
            .iter()
            .position(|e| e.delegation() == d.delegation && e.signature == d.signature)
            .map_or(-1, |i| i as i64),
    }
}

fn signature_entry(t: &Transcript, auth: &Auth) -> SignatureEntry {
    SignatureEntry {
        signature: auth.signature.clone(),
        delegation: delegation_index(t, auth),
    }
}
