//! The watchtower's rule (docs/CHANNEL.md sections 7.3, 7.6 and 13): what to send when
//! a channel game has a frozen registration on-chain, given the signed messages a relay
//! holds of it. Overtaking, the proofs and `finishRegistered` are open to anyone, so the
//! watchtower needs no player's key; it answers for a player who is away.
//!
//! In order: a registered move that contradicts a signed move held is an equivocation
//! (its author loses); a signed result or resignation at or above the registered ply
//! settles; a later pair held overtakes (the latest one the contract accepts: with its
//! receipt, fresh, or the direct reply to the registration); a decided registration
//! nobody answered is finished after its window. A registered illegal move cannot
//! happen (`register` checks the transition) and the relay holds none, so there is no
//! `proveIllegalMove` to send here.

use chessref_channel::messages::{IChessChannel, Message};
use chessref_channel::settlement::{self, STAMP_TOLERANCE, Settlement};
use chessref_channel::{Auth, Move, NoPins, Transcript, author_of};
use chessref_core::{Color, Outcome, State};
use chessref_evm::Position;

/// A channel game's frozen registration, as the chain shows it.
#[derive(Clone, Debug)]
pub struct Frozen {
    /// `registeredPly`.
    pub ply: u32,
    /// `windowEnd`: until then only a later pair, a proof or an agreement replaces it.
    pub window_end: u64,
    /// The registered position (`PositionRegistered`).
    pub position: Position,
    /// The signed pair the registration carried (`register`'s `previous` and `last`
    /// with their authorisations), when its transaction's calldata could be read.
    pub pair: Option<[(Move, Auth); 2]>,
}

impl Frozen {
    /// The signed pair of a `register` call's calldata (`None` for another call, such as
    /// `registerStart` or a call made through a contract wallet).
    pub fn pair_of(input: &[u8]) -> Option<[(Move, Auth); 2]> {
        use alloy_sol_types::SolCall;
        let call = IChessChannel::registerCall::abi_decode(input).ok()?;
        Some([
            (call.previous, Auth::from(&call.previousAuth)),
            (call.last, Auth::from(&call.lastAuth)),
        ])
    }
}

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
        // The latest pair the contract takes: the last move acknowledged, fresh, or the
        // direct reply to the registered move (a late reply, CHANNEL.md 7.3 step 5).
        for ply in (frozen.ply + 1..=held).rev() {
            let i = ply as usize - 1;
            let entry = &transcript.moves[i];
            let fresh = now <= entry.timestamp.saturating_add(STAMP_TOLERANCE);
            if !(entry.receipt.is_some() || fresh || ply == frozen.ply + 1) {
                continue;
            }
            let mut pair = transcript.clone();
            pair.moves.truncate(ply as usize);
            pair.result = None;
            pair.resignation = None;
            let report = pair.verify(&NoPins, now).ok()?;
            if report.error.is_none() && report.settlement.call == "register" {
                // An overtake names the frozen registration it is charged from.
                return Some(Answer::Channel(
                    report.settlement.answering(frozen.position.frozen()),
                ));
            }
        }
        return None;
    }
    let decided = State::from_bytes(&frozen.position.state)
        .is_ok_and(|state| Outcome::of(state.status(), state.turn()).is_some());
    decided.then_some(Answer::Finish)
}

/// The settlement's calldata, for a log line.
pub fn describe(answer: &Answer) -> String {
    match answer {
        Answer::Channel(s) => format!("ChessChannel.{}: {}", s.call, s.why),
        Answer::Finish => "ChessReferee.finishRegistered: the registered position is decided and its window is over".into(),
    }
}
