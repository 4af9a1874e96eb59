//! The watchtower's rule (docs/CHANNEL.md sections 7.3, 7.6 and 13): what to send for
//! a channel game, given the signed messages a relay holds of it. Announcing, overtaking,
//! the proofs and `finishRegistered` are open to anyone, so the watchtower needs no
//! player's key; it answers for a player who is away. A player's own client answers a
//! frozen registration by the same rule ([`answer`]).
//!
//! While the game is off-chain: a move the opponent has not acknowledged within
//! [`ANNOUNCE_AFTER`] of reaching the relay is announced ([`announcement`]), so that a
//! registration of it counts from then even if the position before it is registered first.
//! While a registration is frozen, in order: a registered move that contradicts a signed
//! move held is an equivocation (its author loses); a signed result or resignation at or
//! above the registered ply settles; a later pair held overtakes (the latest one the
//! contract accepts: with its receipt, fresh, or the direct reply to the registration);
//! a decided registration nobody answered is finished after its window. A registered
//! illegal move cannot happen (`register` checks the transition) and the relay holds
//! none, so there is no `proveIllegalMove` to send here.

use chessref_channel::messages::Message;
use chessref_channel::settlement::{self, Settlement};
use chessref_channel::{AUTO_REGISTER_AFTER, NoPins, Transcript, author_of};
use chessref_core::{Color, Outcome, State};

pub use crate::shown::Frozen;

/// Seconds a relayed move may go without its opponent's receipt before the watchtower
/// announces it: the mover's own client registers it after as long
/// ([`AUTO_REGISTER_AFTER`]), which a player gone offline cannot.
pub const ANNOUNCE_AFTER: u64 = AUTO_REGISTER_AFTER;

/// What the watchtower sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A `ChessChannel` call: a proof, an overtaking pair, a signed end.
    Channel(Settlement),
    /// `ChessReferee.finishRegistered` with the registered position: its window is over
    /// and it is decided.
    Finish,
}

impl Answer {
    /// The function sent.
    pub fn call(&self) -> &'static str {
        match self {
            Answer::Channel(s) => s.call,
            Answer::Finish => "finishRegistered",
        }
    }
}

/// The answer to `frozen` from the messages of `transcript` (verified: a relay's), at
/// chain time `now`; `None` when there is nothing to send.
pub fn answer(transcript: &Transcript, frozen: &Frozen, now: u64) -> Option<Answer> {
    let held = transcript.moves.len() as u32;
    // A registered move that is not the one held for its ply: the same author signed two.
    for (theirs, their_auth) in frozen.pair.iter().flatten() {
        if theirs.ply == 0 || theirs.ply > held {
            continue;
        }
        let i = theirs.ply as usize - 1;
        let ours = transcript.message(i);
        if ours.hash() == theirs.hash() {
            continue;
        }
        let (Some(author), Ok(our_auth)) = (author_of(&ours), transcript.move_auth(i)) else {
            continue;
        };
        if author_of(theirs) != Some(author) {
            continue;
        }
        return Some(Answer::Channel(settlement::prove_equivocation(
            (&ours, &our_auth),
            (theirs, their_auth),
            author == Color::White,
        )));
    }
    if now < frozen.window_end {
        // A signed end of the latest position settles (it is at or above the registration).
        if held >= frozen.ply
            && (transcript.result.is_some() || transcript.resignation.is_some())
            && let Ok(report) = transcript.verify(&NoPins, now)
            && report.error.is_none()
            && matches!(report.settlement.call, "settle" | "resignBySignature")
        {
            return Some(Answer::Channel(report.settlement));
        }
        // The latest pair the contract takes, naming the registered position.
        return frozen
            .registration()
            .overtake(transcript, now)
            .map(Answer::Channel);
    }
    let decided = State::from_bytes(&frozen.position.state)
        .is_ok_and(|state| Outcome::of(state.status(), state.turn()).is_some());
    decided.then_some(Answer::Finish)
}

/// The announcement of the latest move of `transcript` (a relay's, verified), which its
/// opponent has not acknowledged since the relay took it at `relayed_at`, once
/// [`ANNOUNCE_AFTER`] has passed at `now` (both by the relay's clock): `announce(move,
/// auth)`, which shows it on-chain without freezing it (CHANNEL.md 7.3). A registration of
/// it without a receipt then counts from the announcement, also as the direct reply to a
/// registration of the position before it. `None` for an acknowledged move, no move, or a
/// game ended off-chain. The caller sends it while the game is off-chain and the chain does
/// not show the move yet (`announcedAt` 0), so once per move.
pub fn announcement(transcript: &Transcript, relayed_at: u64, now: u64) -> Option<Settlement> {
    let entry = transcript.moves.last()?;
    if entry.receipt.is_some()
        || transcript.result.is_some()
        || transcript.resignation.is_some()
        || now < relayed_at.saturating_add(ANNOUNCE_AFTER)
    {
        return None;
    }
    let i = transcript.moves.len() - 1;
    let auth = transcript.move_auth(i).ok()?;
    Some(settlement::announce(&transcript.message(i), &auth))
}

/// The settlement's calldata, for a log line.
pub fn describe(answer: &Answer) -> String {
    match answer {
        Answer::Channel(s) => format!("ChessChannel.{}: {}", s.call, s.why),
        Answer::Finish => "ChessReferee.finishRegistered: the registered position is decided and its window is over".into(),
    }
}
