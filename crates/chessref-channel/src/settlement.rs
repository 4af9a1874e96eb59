//! Which `ChessChannel` call (CHANNEL.md section 7) ends or continues a game, with
//! its calldata.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolCall;
use serde::Serialize;

use crate::auth::{Auth, SignedDelegation};
use crate::messages::{
    AuthAbi, Delegation, FrozenPosition, IChessChannel, Move, Receipt, Resignation,
    Result as ResultMessage,
};

/// A game result code as the referee reports it (`GameEnded.result`).
pub type ResultCode = u8;
/// A reason code as the referee reports it (`GameEnded.reason`, REFEREE.md and
/// CHANNEL.md 7.6).
pub type ReasonCode = u8;

/// `ChessChannel.STAMP_TOLERANCE()`: a registration without a receipt needs its move
/// stamped at most this many seconds before the block that shows it (CHANNEL.md 7.3, 8).
pub const STAMP_TOLERANCE: u64 = 60;
/// `ChessChannel.CLOCK_TOLERANCE()`: the most seconds a signed time moves onto the other
/// player's clock in a game. A receipt counts only within this of the move's stamp, and a
/// move nobody acknowledged starts its opponent's clock at most this long before the block
/// that shows it (CHANNEL.md 7.3, 8, 9).
pub const CLOCK_TOLERANCE: u64 = 30;
/// How far (seconds) an honest client lets an incoming move's stamp be behind its own
/// clock (CHANNEL.md 8): the contract's [`CLOCK_TOLERANCE`], so that its receipt counts.
pub const CLIENT_STAMP_TOLERANCE: u64 = CLOCK_TOLERANCE;

/// Reason 5: resignation.
pub const REASON_RESIGNATION: ReasonCode = 5;
/// Reason 8: agreement (a `Result` both signed).
pub const REASON_AGREEMENT: ReasonCode = 8;
/// Reason 12: the loser signed two different moves for one ply.
pub const REASON_EQUIVOCATION: ReasonCode = 12;
/// Reason 13: the loser signed a move that is not a valid successor.
pub const REASON_ILLEGAL_SIGNED_MOVE: ReasonCode = 13;

/// One `ChessChannel` call, ready to send.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settlement {
    /// The function's name (`settle`, `register`, ...).
    pub call: &'static str,
    /// Why this call.
    pub why: String,
    /// The game's end it brings, `(result, reason)`, or `None` when the game goes on
    /// on-chain (a registration of an undecided position). For a registration of a
    /// decided position it is the pending outcome: final once the response window is
    /// over (`ChessReferee.finishRegistered`, anyone), unless a later pair overtakes it
    /// or a proof ends the game first (CHANNEL.md 7.3).
    pub ends: Option<(ResultCode, ReasonCode)>,
    /// ABI-encoded calldata (selector included).
    pub calldata: Bytes,
}

impl From<&Auth> for AuthAbi {
    fn from(auth: &Auth) -> AuthAbi {
        match &auth.delegation {
            None => AuthAbi {
                signature: auth.signature.clone(),
                delegation: Delegation {
                    gameId: U256::ZERO,
                    sessionKey: Address::ZERO,
                    firstPly: 0,
                    lastPly: 0,
                    expires: 0,
                },
                delegationSignature: Bytes::new(),
            },
            Some(d) => AuthAbi {
                signature: auth.signature.clone(),
                delegation: d.delegation.clone(),
                delegationSignature: d.signature.clone(),
            },
        }
    }
}

impl From<&AuthAbi> for Auth {
    /// The authorisation an `Auth` argument of a `ChessChannel` call carries (a zero
    /// session key: signed directly), e.g. read back from a registration's calldata.
    fn from(abi: &AuthAbi) -> Auth {
        Auth {
            signature: abi.signature.clone(),
            delegation: (abi.delegation.sessionKey != Address::ZERO).then(|| SignedDelegation {
                delegation: abi.delegation.clone(),
                signature: abi.delegationSignature.clone(),
            }),
        }
    }
}

/// The authorisation of the unsigned start move (ignored by the contract).
pub fn no_auth() -> Auth {
    Auth::direct(Bytes::new())
}

/// The "no receipt" of `register` (`position == 0`).
pub fn no_receipt() -> Receipt {
    Receipt {
        gameId: U256::ZERO,
        ply: 0,
        position: B256::ZERO,
        seenAt: 0,
    }
}

/// `settle(result, white, black)`.
pub fn settle(result: &ResultMessage, white: &Auth, black: &Auth) -> Settlement {
    Settlement {
        call: "settle",
        why: format!("a result both players signed ({})", result.result),
        ends: Some((result.result, REASON_AGREEMENT)),
        calldata: IChessChannel::settleCall {
            result: result.clone(),
            white: white.into(),
            black: black.into(),
        }
        .abi_encode()
        .into(),
    }
}

/// `resignBySignature(resignation, auth, white)`.
pub fn resign(resignation: &Resignation, auth: &Auth, white: bool) -> Settlement {
    Settlement {
        call: "resignBySignature",
        why: format!(
            "{} signed a resignation",
            if white { "white" } else { "black" }
        ),
        ends: Some((if white { 2 } else { 1 }, REASON_RESIGNATION)),
        calldata: IChessChannel::resignBySignatureCall {
            resignation: resignation.clone(),
            auth: auth.into(),
            white,
        }
        .abi_encode()
        .into(),
    }
}

/// `register(previous, previousAuth, last, lastAuth, receipt, receiptAuth, frozen)`,
/// with the side to move's receipt of `last` if there is one (without, the contract
/// requires `last.timestamp` within `STAMP_TOLERANCE`, 60 s, of when the chain shows it,
/// but for the direct reply to a frozen registration); `ends` is the decided result of
/// `last`'s position, if any (pending: CHANNEL.md 7.3). `frozen` is empty: a caller that
/// sends it while a registration is frozen names that registration with
/// [`Settlement::answering`].
pub fn register(
    previous: (&Move, &Auth),
    last: (&Move, &Auth),
    receipt: Option<(&Receipt, &Auth)>,
    ends: Option<(ResultCode, ReasonCode)>,
    why: String,
) -> Settlement {
    let (receipt, receipt_auth) = match receipt {
        Some((r, a)) => (r.clone(), a.into()),
        None => (no_receipt(), (&no_auth()).into()),
    };
    Settlement {
        call: "register",
        why,
        ends,
        calldata: IChessChannel::registerCall {
            previous: previous.0.clone(),
            previousAuth: previous.1.into(),
            last: last.0.clone(),
            lastAuth: last.1.into(),
            receipt,
            receiptAuth: receipt_auth,
            frozen: FrozenPosition::default(),
        }
        .abi_encode()
        .into(),
    }
}

impl Settlement {
    /// This call sent while the registration `frozen` is frozen (from its
    /// `PositionRegistered`): a `register` names it, and is charged by the wall clock from
    /// it (CHANNEL.md 7.3; if it is not the registered position, the contract only records
    /// when it first showed `last`). Any other call is unchanged.
    pub fn answering(mut self, frozen: FrozenPosition) -> Settlement {
        if self.call == "register"
            && let Ok(mut call) = IChessChannel::registerCall::abi_decode(&self.calldata)
        {
            call.frozen = frozen;
            self.calldata = call.abi_encode().into();
        }
        self
    }
}

/// `announce(m, auth)`: shows the signed move `m` on-chain while the game is off-chain,
/// without freezing it; a later registration of it counts as made then (CHANNEL.md 7.3). What
/// a client or a watchtower sends for a move its opponent leaves unacknowledged.
pub fn announce(m: &Move, auth: &Auth) -> Settlement {
    Settlement {
        call: "announce",
        why: format!(
            "ply {}'s move is unacknowledged: show it on-chain so its opponent's clock runs from it",
            m.ply
        ),
        ends: None,
        calldata: IChessChannel::announceCall {
            m: m.clone(),
            auth: auth.into(),
        }
        .abi_encode()
        .into(),
    }
}

/// `registerStart(start)`: on-chain play from the game's start move.
pub fn register_start(start: &Move) -> Settlement {
    Settlement {
        call: "registerStart",
        why: "no move was signed: on-chain play starts from the start position".into(),
        ends: None,
        calldata: IChessChannel::registerStartCall {
            start: start.clone(),
        }
        .abi_encode()
        .into(),
    }
}

/// `proveIllegalMove(previous, bad, badAuth)`: `bad`'s author loses.
pub fn prove_illegal(
    previous: &Move,
    bad: (&Move, &Auth),
    author_white: bool,
    why: String,
) -> Settlement {
    Settlement {
        call: "proveIllegalMove",
        why,
        ends: Some((if author_white { 2 } else { 1 }, REASON_ILLEGAL_SIGNED_MOVE)),
        calldata: IChessChannel::proveIllegalMoveCall {
            previous: previous.clone(),
            bad: bad.0.clone(),
            badAuth: bad.1.into(),
        }
        .abi_encode()
        .into(),
    }
}

/// `proveEquivocation(a, aAuth, b, bAuth)`: the common author loses.
pub fn prove_equivocation(a: (&Move, &Auth), b: (&Move, &Auth), author_white: bool) -> Settlement {
    Settlement {
        call: "proveEquivocation",
        why: format!("two different moves signed for ply {}", a.0.ply),
        ends: Some((if author_white { 2 } else { 1 }, REASON_EQUIVOCATION)),
        calldata: IChessChannel::proveEquivocationCall {
            a: a.0.clone(),
            aAuth: a.1.into(),
            b: b.0.clone(),
            bAuth: b.1.into(),
        }
        .abi_encode()
        .into(),
    }
}

/// `pin(signer, digest, signature)`: records for good that contract wallet `signer`
/// approves `digest` (ERC-1271, asked once), typically a delegation's digest.
pub fn pin(signer: Address, digest: B256, signature: &Bytes) -> Settlement {
    Settlement {
        call: "pin",
        why: format!("pin {signer}'s approval of {digest}"),
        ends: None,
        calldata: IChessChannel::pinCall {
            signer,
            digest,
            signature: signature.clone(),
        }
        .abi_encode()
        .into(),
    }
}

/// `revokeSessionKey(gameId, sessionKey)` (sent by the player): the key's resignations
/// and results no longer count from that block on.
pub fn revoke_session_key(game_id: U256, session_key: Address) -> Settlement {
    Settlement {
        call: "revokeSessionKey",
        why: format!("revoke session key {session_key} in game {game_id}"),
        ends: None,
        calldata: IChessChannel::revokeSessionKeyCall {
            gameId: game_id,
            sessionKey: session_key,
        }
        .abi_encode()
        .into(),
    }
}

/// `retire(gameId, later, signature, white)` (anyone may send it; a rotating client sends
/// it with its new delegation): shows `white`'s or black's delegation `later`, so that its
/// session keys delegated from a ply below `later.firstPly` sign no more resignations or
/// results (`RetiredKey`); their moves and receipts still count.
pub fn retire(game_id: U256, later: &SignedDelegation, white: bool) -> Settlement {
    Settlement {
        call: "retire",
        why: format!(
            "retire {}'s session keys delegated before ply {} in game {game_id}",
            if white { "white" } else { "black" },
            later.delegation.firstPly
        ),
        ends: None,
        calldata: IChessChannel::retireCall {
            gameId: game_id,
            later: later.delegation.clone(),
            signature: later.signature.clone(),
            white,
        }
        .abi_encode()
        .into(),
    }
}
