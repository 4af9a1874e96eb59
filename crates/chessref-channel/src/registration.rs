//! A channel game's registration while it is frozen (docs/CHANNEL.md 7.3), as every client
//! answers it: the terminal client and the watchtower (`chessref-client`, which read it from
//! a node) and the browser package (whose page reads it through the wallet's provider). What
//! the chain shows is the caller's to fetch: the `PositionRegistered` (the registered
//! position's `{inner, clock}`), the registration transaction's calldata (its signed pair,
//! [`pair_of`]) and when the chain first showed each move ([`first_shown`]). What to send
//! while it is frozen, and how it names the registered position, is decided here.

use alloy_primitives::B256;
use alloy_sol_types::SolCall;

use crate::auth::Auth;
use crate::clock_word::ClockWord;
use crate::messages::{FrozenPosition, IChessChannel, Move};
use crate::settlement::{STAMP_TOLERANCE, Settlement};
use crate::{NoPins, Transcript};

/// A registered position, named as its `PositionRegistered` names it: frozen until its
/// window end, then live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    /// `keccak256(state ‖ history)` and the clock word of the registered position.
    pub frozen: FrozenPosition,
}

impl Registration {
    /// The registration of the position `frozen` names.
    pub fn new(frozen: FrozenPosition) -> Registration {
        Registration { frozen }
    }

    fn clock(&self) -> ClockWord {
        ClockWord(self.frozen.clock)
    }

    /// The registered ply (the clock word's ply: every registration stores `last.ply`).
    pub fn ply(&self) -> u32 {
        self.clock().ply()
    }

    /// `windowEnd`: until then only a later pair, a proof or an agreement replaces it (the
    /// clock word's last timestamp, which a registration sets to the window's end).
    pub fn window_end(&self) -> u64 {
        self.clock().last_timestamp()
    }

    /// The side to move's deadline by the wall clock (`ClockWord.replyDeadline`): its direct
    /// reply must count by then (`FlagFell` after), and once the window is over its flag
    /// falls then. 0 for a position registered without one (`registerStart`).
    pub fn reply_deadline(&self) -> u64 {
        self.clock().reply_deadline()
    }

    /// Whether its response window still runs at `now` (chain time).
    pub fn is_open(&self, now: u64) -> bool {
        now < self.window_end()
    }

    /// `settlement` sent while this registration is frozen: a `register` names the
    /// registered position, which an overtake is charged by (CHANNEL.md 7.3); any other
    /// call is unchanged. Every overtake, the watchtower's and a player's, is made here.
    pub fn answering(&self, settlement: Settlement) -> Settlement {
        let ply = self.ply();
        let mut settlement = settlement.answering(self.frozen.clone());
        let direct = IChessChannel::registerCall::abi_decode(&settlement.calldata)
            .is_ok_and(|call| call.last.ply == ply + 1 && call.receipt.position == B256::ZERO);
        if direct {
            // Not the off-chain rule of 60 s after the stamp: charged by the wall clock.
            settlement.why = format!(
                "register ply {} as the direct reply to the registration of ply {ply}: charged by the wall clock from when the chain shows it, which must be by unix time {}",
                ply + 1,
                self.reply_deadline()
            );
        }
        settlement
    }

    /// The `register` that overtakes this registration from the verified messages of
    /// `transcript` at chain time `now`, answering it ([`answering`](Self::answering)): the
    /// latest pair above the registered ply that the contract takes (its last move
    /// acknowledged, fresh, or the direct reply to the registered move, which needs no
    /// freshness: CHANNEL.md 7.3 step 6). `None` when no later pair is held.
    pub fn overtake(&self, transcript: &Transcript, now: u64) -> Option<Settlement> {
        let held = transcript.moves.len() as u32;
        let registered = self.ply();
        for ply in (registered + 1..=held).rev() {
            let entry = &transcript.moves[ply as usize - 1];
            let fresh = now <= entry.timestamp.saturating_add(STAMP_TOLERANCE);
            if !(entry.receipt.is_some() || fresh || ply == registered + 1) {
                continue;
            }
            let mut pair = transcript.clone();
            pair.moves.truncate(ply as usize);
            pair.result = None;
            pair.resignation = None;
            let report = pair.verify(&NoPins, now).ok()?;
            if report.error.is_none() && report.settlement.call == "register" {
                return Some(self.answering(report.settlement));
            }
        }
        None
    }
}

/// The signed pair of a `register` call's calldata, `[(previous, its authorisation),
/// (last, its authorisation)]` (`None` for another call, such as `registerStart`, or a call
/// made through a contract wallet, whose transaction's calldata is the wallet's).
pub fn pair_of(calldata: &[u8]) -> Option<[(Move, Auth); 2]> {
    let call = IChessChannel::registerCall::abi_decode(calldata).ok()?;
    Some([
        (call.previous, Auth::from(&call.previousAuth)),
        (call.last, Auth::from(&call.lastAuth)),
    ])
}

/// When the chain first showed a signed move that the block at `at` (block time) shows
/// now: its announcement while the game was off-chain (`announcedAt`) or an overtake that
/// named another position than the registered one (`shownWhileFrozenAt`), if either was
/// earlier (0: never), else `at`. What the side to move holds the move from.
pub fn first_shown(at: u64, announced_at: u64, shown_while_frozen_at: u64) -> u64 {
    [announced_at, shown_while_frozen_at]
        .into_iter()
        .filter(|&t| t != 0)
        .fold(at, u64::min)
}

#[cfg(all(test, feature = "signer"))]
mod tests {
    use alloy_primitives::U256;

    use super::*;
    use crate::frame::Frame;
    use crate::seat::ChannelSeat;
    use crate::seat::tests::{T0, seats_with};
    use crate::settlement;

    /// White and black seats, e4 e5 Nf3 Nc6 played through each other at T0 + ply, every
    /// move acknowledged.
    fn four_plies() -> (ChannelSeat, ChannelSeat) {
        let (white, black) = seats_with(300);
        let mut seats = [white, black];
        for (i, san) in ["e4", "e5", "Nf3", "Nc6"].iter().enumerate() {
            let at = T0 + i as u64 + 1;
            let (mover, other) = (i % 2, 1 - i % 2);
            let mut pending: Vec<(usize, Vec<Frame>)> =
                vec![(other, seats[mover].play(san, at).expect("legal"))];
            while let Some((to, frames)) = pending.pop() {
                for frame in frames {
                    let received = seats[to].receive(frame, at).expect("valid");
                    let answer = seats[to].answer(&received, at).expect("signing");
                    if !answer.is_empty() {
                        pending.push((1 - to, answer));
                    }
                }
            }
        }
        let [white, black] = seats;
        (white, black)
    }

    /// A clock word registering ply `ply` until `window_end`, with reply deadline
    /// `deadline`.
    fn registered(ply: u32, window_end: u64, deadline: u64) -> Registration {
        let clock =
            U256::from(window_end) | U256::from(ply) << 136usize | U256::from(deadline) << 208usize;
        Registration::new(FrozenPosition {
            inner: B256::repeat_byte(0x11),
            clock,
        })
    }

    fn decoded(s: &Settlement) -> IChessChannel::registerCall {
        IChessChannel::registerCall::abi_decode(&s.calldata).expect("a register call")
    }

    #[test]
    fn test_a_later_pair_overtakes_naming_the_registered_position() {
        let (white, _) = four_plies();
        let t = white.transcript();
        let r = registered(2, T0 + 700, T0 + 400);
        assert_eq!(
            (r.ply(), r.window_end(), r.reply_deadline()),
            (2, T0 + 700, T0 + 400)
        );
        assert!(r.is_open(T0 + 699) && !r.is_open(T0 + 700));
        // Long after the stamps: the acknowledged pair of plies 3 and 4, with white's
        // receipt, naming the registered position.
        let s = r.overtake(t, T0 + 500).expect("a later pair");
        let call = decoded(&s);
        assert_eq!(
            (call.previous, call.last.clone()),
            (t.message(2), t.message(3))
        );
        let receipt = t.moves[3].receipt.as_ref().expect("acknowledged");
        assert_eq!(
            call.receipt,
            crate::transcript::receipt_of(&call.last, receipt.seen_at)
        );
        assert_eq!(call.receiptAuth.signature, receipt.signed.signature);
        assert_eq!(
            Auth::from(&call.lastAuth),
            t.move_auth(3).expect("an authorisation")
        );
        assert_eq!(call.frozen, r.frozen);
        assert_eq!(s.ends, None);
        // Nothing later than the registered ply: nothing to send.
        assert_eq!(registered(4, T0 + 700, T0 + 400).overtake(t, T0 + 5), None);
    }

    #[test]
    fn test_the_direct_reply_needs_no_freshness_and_says_its_deadline() {
        let (mut white, _) = four_plies();
        white.play("Bc4", T0 + 200).expect("legal");
        let t = white.transcript();
        let r = registered(4, T0 + 700, T0 + 320);
        // Ply 5 is stamped T0 + 200, long stale at T0 + 300 for a registration without a
        // receipt; as the direct reply it is taken.
        let s = r.overtake(t, T0 + 300).expect("the direct reply");
        let call = decoded(&s);
        assert_eq!((call.previous.ply, call.last.ply), (4, 5));
        assert_eq!(call.receipt.position, B256::ZERO, "no receipt");
        assert_eq!(call.frozen, r.frozen);
        assert!(
            s.why.contains("direct reply to the registration of ply 4")
                && s.why.contains(&format!("by unix time {}", T0 + 320)),
            "{}",
            s.why
        );
        // Registered at ply 3, the pair of plies 4 and 5 is not the direct reply and is not
        // fresh: the acknowledged pair of plies 3 and 4 is sent instead.
        let s = registered(3, T0 + 700, T0 + 320)
            .overtake(t, T0 + 300)
            .expect("an acknowledged pair");
        assert_eq!(decoded(&s).last.ply, 4);
    }

    #[test]
    fn test_a_registrations_pair_is_read_back_from_its_calldata() {
        let (white, _) = four_plies();
        let t = white.transcript();
        let s = registered(2, T0 + 700, T0 + 400)
            .overtake(t, T0 + 10)
            .expect("a later pair");
        let [(previous, previous_auth), (last, last_auth)] =
            pair_of(&s.calldata).expect("a register call");
        assert_eq!((previous, last), (t.message(2), t.message(3)));
        assert_eq!(previous_auth, t.move_auth(2).expect("auth"));
        assert_eq!(last_auth, t.move_auth(3).expect("auth"));
        assert!(last_auth.delegation.is_some(), "signed by a session key");
        let start = settlement::register_start(&t.game.start_move().expect("start"));
        assert_eq!(
            pair_of(&start.calldata),
            None,
            "registerStart carries no pair"
        );
        assert_eq!(pair_of(&[0u8; 3]), None);
    }

    #[test]
    fn test_a_move_is_held_from_its_first_showing() {
        assert_eq!(first_shown(T0, 0, 0), T0, "shown by this block");
        assert_eq!(first_shown(T0, T0 - 40, 0), T0 - 40, "announced before");
        assert_eq!(first_shown(T0, 0, T0 - 5), T0 - 5, "shown while frozen");
        assert_eq!(first_shown(T0, T0 - 40, T0 - 5), T0 - 40);
        assert_eq!(
            first_shown(T0, T0 + 9, 0),
            T0,
            "never later than this block"
        );
    }
}
