//! An honest client's side of an off-chain game: both seats' keys, the signed moves
//! so far, and the transcript they make. What `chessref simulate --channel`, the
//! benchmarks and the tests play with.

use alloy_primitives::Bytes;
use alloy_signer_local::PrivateKeySigner;
use chessref_core::{Color, RawMove};

use crate::auth::{Auth, SignedDelegation};
use crate::domain::ChannelDomain;
use crate::game::ChannelGame;
use crate::messages::{Move, Resignation, Result as ResultMessage, author_of};
use crate::signer::{SignError, delegate, sign, sign_delegated};
use crate::transcript::{
    DelegationEntry, MoveEntry, ResignationEntry, ResultEntry, Side, SignatureEntry, Transcript,
};
use crate::transition::{TransitionError, successor};

/// One player's keys: its wallet, and the session key that signs for it (if any).
#[derive(Clone, Debug)]
pub struct Seat {
    /// The player's own key (its address is the player).
    pub wallet: PrivateKeySigner,
    /// A session key with the wallet's delegation.
    pub session: Option<(PrivateKeySigner, SignedDelegation)>,
}

impl Seat {
    /// A seat that signs with its wallet.
    pub fn wallet(wallet: PrivateKeySigner) -> Seat {
        Seat {
            wallet,
            session: None,
        }
    }

    /// A seat whose wallet delegates `session` over the whole game.
    pub fn with_session(
        wallet: PrivateKeySigner,
        session: PrivateKeySigner,
        domain: &ChannelDomain,
        game: &ChannelGame,
    ) -> Result<Seat, SignError> {
        let d = delegate(
            &wallet,
            domain,
            game.game_id,
            session.address(),
            1,
            u32::MAX,
        )?;
        Ok(Seat {
            wallet,
            session: Some((session, d)),
        })
    }

    /// Signs `message` the way this seat signs (its session key if it has one).
    pub fn authorise<M: crate::messages::Message>(
        &self,
        domain: &ChannelDomain,
        message: &M,
    ) -> Result<Auth, SignError> {
        match &self.session {
            Some((key, d)) => sign_delegated(key, d, domain, message),
            None => Ok(Auth::direct(sign(&self.wallet, domain, message)?)),
        }
    }
}

/// Why the client cannot make a move.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The move is not a valid successor (illegal, or the game is over).
    #[error("{0}")]
    Transition(#[from] TransitionError),
    /// Signing failed.
    #[error("{0}")]
    Sign(#[from] SignError),
    /// The game's start state is invalid.
    #[error("{0}")]
    Start(#[from] chessref_core::StateError),
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

    /// The side to move signs `mv`, having spent `spent` seconds.
    pub fn play(&mut self, mv: impl Into<RawMove>, spent: u32) -> Result<&Move, ClientError> {
        let next = successor(self.last(), mv, spent, self.game.increment)?;
        let author = author_of(&next).expect("a successor has a 128-byte state");
        let auth = self.seat(author).authorise(&self.domain, &next)?;
        self.moves.push((next, auth));
        Ok(self.last())
    }

    /// `colour` signs a resignation at the current ply.
    pub fn resign(&self, colour: Color) -> Result<(Resignation, Auth), ClientError> {
        let r = Resignation {
            gameId: self.game.game_id,
            ply: self.last().ply,
        };
        Ok((r.clone(), self.seat(colour).authorise(&self.domain, &r)?))
    }

    /// Both sign `result` (1 white wins, 2 black wins, 3 draw) at the current ply.
    pub fn agree(&self, result: u8) -> Result<(ResultMessage, Auth, Auth), ClientError> {
        let r = ResultMessage {
            gameId: self.game.game_id,
            ply: self.last().ply,
            result,
        };
        let white = self.seat(Color::White).authorise(&self.domain, &r)?;
        let black = self.seat(Color::Black).authorise(&self.domain, &r)?;
        Ok((r, white, black))
    }

    /// The transcript file of the moves so far (delegations listed white's first).
    pub fn transcript(&self) -> Transcript {
        let mut delegations = Vec::new();
        let mut index = [-1i64; 2];
        for (i, seat) in self.seats.iter().enumerate() {
            if let Some((_, d)) = &seat.session {
                index[i] = delegations.len() as i64;
                delegations.push(DelegationEntry {
                    player: if i == 0 { Side::White } else { Side::Black },
                    game_id: d.delegation.gameId,
                    session_key: d.delegation.sessionKey,
                    first_ply: d.delegation.firstPly,
                    last_ply: d.delegation.lastPly,
                    signature: d.signature.clone(),
                });
            }
        }
        let moves = self.moves[1..]
            .iter()
            .map(|(m, auth)| {
                let delegation = match author_of(m) {
                    Some(Color::Black) if auth.delegation.is_some() => index[1],
                    Some(_) if auth.delegation.is_some() => index[0],
                    _ => -1,
                };
                MoveEntry::signed(m, auth.signature.clone(), delegation)
            })
            .collect();
        Transcript {
            domain: self.domain,
            game: self.game.clone(),
            delegations,
            moves,
            resignation: None,
            result: None,
        }
    }

    /// The transcript ending in `colour`'s signed resignation.
    pub fn transcript_resigned(&self, colour: Color) -> Result<Transcript, ClientError> {
        let mut t = self.transcript();
        let (r, auth) = self.resign(colour)?;
        t.resignation = Some(ResignationEntry {
            game_id: r.gameId,
            ply: r.ply,
            by: if colour == Color::White {
                Side::White
            } else {
                Side::Black
            },
            signed: signature_entry(&t, colour, &auth),
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
            result,
            white: signature_entry(&t, Color::White, &white),
            black: signature_entry(&t, Color::Black, &black),
        });
        Ok(t)
    }
}

fn signature_entry(t: &Transcript, colour: Color, auth: &Auth) -> SignatureEntry {
    let side = if colour == Color::White {
        Side::White
    } else {
        Side::Black
    };
    let delegation = match &auth.delegation {
        None => -1,
        Some(_) => t
            .delegations
            .iter()
            .position(|d| d.player == side)
            .map_or(-1, |i| i as i64),
    };
    SignatureEntry {
        signature: auth.signature.clone(),
        delegation,
    }
}
