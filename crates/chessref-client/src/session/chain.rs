//! The session's side of the chain: registering (by the player's command, by itself for
//! an unacknowledged move), following the game's registrations (its own, the opponent's,
//! a watchtower's), answering a frozen one by the watchtower's rule
//! ([`watchtower::answer`]), and moving on to on-chain play once its window is over.

use std::time::Duration;

use chessref_channel::AUTO_REGISTER_TIP;
use chessref_channel::settlement::{STAMP_TOLERANCE, Settlement};
use chessref_channel::transcript::Side;
use chessref_evm::ContractRevert;
use chessref_evm::moment::when;

use super::{
    Command, Event, Phase, Refusal, Registrant, Registration, Session, SessionError, Via, now,
};
use crate::seat::{Prepared, SeatError};
use crate::shown::{self, Frozen};
use crate::watchtower::{self, Answer};

/// How many seconds a registration whose receipt the chain's time has not reached yet is
/// retried before it is reported.
pub const RECEIPT_RETRIES: u32 = 5;

/// Tries `attempt` (a registration that carries a receipt) again, a second apart, while
/// it fails with the contract's `BadReceipt` (`revert_of` reads the contract's error of a
/// failure), at most [`RECEIPT_RETRIES`] times: a receipt passes only in a block timed at
/// or after its `seenAt` (CHANNEL.md 7.3), and one held a moment ago can be ahead of the
/// chain's clock (a node that estimates in its latest block, a clock a second behind).
/// The last result, whatever it is.
pub fn until_the_chain_reaches_the_receipt<T, E>(
    mut attempt: impl FnMut() -> Result<T, E>,
    revert_of: impl Fn(&E) -> Option<&ContractRevert>,
) -> Result<T, E> {
    let mut tries = 0;
    loop {
        match attempt() {
            Err(e)
                if tries < RECEIPT_RETRIES
                    && revert_of(&e).is_some_and(|r| r.name() == "BadReceipt") =>
            {
                tries += 1;
                std::thread::sleep(Duration::from_secs(1));
            }
            other => return other,
        }
    }
}

impl Session {
    /// Whether the player's own latest move, still without the opponent's receipt, is due
    /// to be registered by the session itself now (CHANNEL.md 9): the game is still
    /// off-chain, no later move came, and it was not tried for this ply yet.
    pub(super) fn auto_register_due(&self) -> bool {
        if !self.auto_register || self.on_chain() || self.settled {
            return false;
        }
        let ply = self.channel.last().ply;
        self.auto_tried != Some(ply)
            && self
                .channel
                .auto_register_at(self.sent_at)
                .is_some_and(|at| now() >= at)
    }

    /// Registers the player's own latest move, which the opponent has not acknowledged,
    /// without waiting for a command, and says so.
    pub(super) fn auto_register(&mut self) -> Result<(), SessionError> {
        let last = self.channel.last();
        self.auto_tried = Some(last.ply);
        let at = self.channel.auto_register_at(self.sent_at);
        self.emit(Event::AutoRegister {
            ply: last.ply,
            stamp: last.timestamp,
            sent_at: self.sent_at,
            at,
            register_by: last.timestamp + STAMP_TOLERANCE,
            tip_wei: AUTO_REGISTER_TIP,
        });
        self.register_with(true)
    }

    /// Registers the latest pair held, by the player's command or, `automatic`, by the
    /// session itself; either pays a priority fee of at least [`AUTO_REGISTER_TIP`], as a
    /// move without a receipt must land within 60 s of its stamp. The game goes on
    /// on-chain after the window.
    pub(super) fn register_with(&mut self, automatic: bool) -> Result<(), SessionError> {
        let settlement = self.settlement()?;
        if !matches!(settlement.call, "register" | "registerStart") {
            self.error(format!(
                "the game ends by {}, not a registration: {}",
                settlement.call, settlement.why
            ));
            return Ok(());
        }
        let sent = self
            .prepare_registration(&settlement)
            .and_then(|p| self.transact(p));
        let sent = match sent {
            Ok(sent) => sent,
            Err(e) => {
                self.failed(&e);
                return Ok(());
            }
        };
        self.socket = None;
        let tx = sent.receipt.tx_hash.unwrap_or_default();
        let ply = self.channel.last().ply;
        let referee = self.seat.referee().address();
        if shown::registered_in(referee, &sent.receipt.logs).is_none() {
            // A registration landed first: the chain showed the move instead, and the one
            // seen next is answered against it.
            self.emit(Event::Announced {
                ply,
                tx,
                registered_ply: None,
            });
            return self.follow_chain();
        }
        self.own_registrations.push(tx);
        let unacknowledged = self
            .channel
            .transcript()
            .moves
            .last()
            .is_some_and(|m| m.receipt.is_none());
        self.emit(Event::Registered {
            ply,
            tx,
            automatic,
            overtook: None,
            unacknowledged,
            block: sent.receipt.block_number,
        });
        self.follow_chain()
    }

    /// The registration `settlement`, estimated, with the automatic registration's tip; a
    /// receipt ahead of the chain's clock is waited for
    /// ([`until_the_chain_reaches_the_receipt`]), then reported with both times.
    fn prepare_registration(&mut self, settlement: &Settlement) -> Result<Prepared, SeatError> {
        let seen_at = self
            .channel
            .transcript()
            .moves
            .last()
            .and_then(|m| m.receipt.as_ref())
            .map(|r| r.seen_at);
        let prepared = match seen_at {
            // Only a receipt can be ahead of the chain's clock.
            Some(_) => until_the_chain_reaches_the_receipt(
                || self.seat.prepare_channel(settlement),
                SeatError::revert,
            ),
            None => self.seat.prepare_channel(settlement),
        };
        match prepared {
            Err(SeatError::WouldRevert { revert, .. })
                if revert.name() == "BadReceipt"
                    && let Some(seen_at) = seen_at =>
            {
                let t = now();
                let chain_time = chessref_evm::Chain::timestamp(self.seat.referee().chain()).ok();
                Err(SeatError::Refused(format!(
                    "register would revert with BadReceipt (nothing sent): the receipt was held at {}, the chain's latest block is timed {}",
                    when(seen_at, t),
                    chain_time.map_or_else(|| "unknown".to_owned(), |c| when(c, t))
                )))
            }
            other => other.map(|mut p| {
                p.tx = p.tx.with_priority_fee(AUTO_REGISTER_TIP);
                p
            }),
        }
    }

    /// Looks for the game's latest registration (its own, the opponent's, a watchtower's):
    /// a new one is taken in while frozen ([`Session::on_frozen`]); once its window is over
    /// the game goes on on-chain. A failing node is reported and tried again next second.
    pub(super) fn follow_chain(&mut self) -> Result<(), SessionError> {
        if self.settled {
            return Ok(());
        }
        let key = match shown::registration(self.seat.referee(), self.id) {
            Ok(Some(key)) => key,
            Ok(None) => return Ok(()),
            Err(e) => {
                self.error(format!("reading the game's registration: {e}"));
                return Ok(());
            }
        };
        if self.registration != Some(key) {
            if let Err(e) = self.tell_registrations() {
                self.error(format!("reading the game's registrations: {e}"));
                return Ok(());
            }
            let frozen = match Frozen::read(self.seat.referee(), self.id) {
                Ok(Some(frozen)) => frozen,
                Ok(None) => return Ok(()),
                Err(e) => {
                    self.error(format!("reading the game's registration: {e}"));
                    return Ok(());
                }
            };
            self.registration = Some(key);
            if frozen.is_open(self.chain_now()) {
                return self.on_frozen(frozen);
            }
        }
        let chain_now = self.chain_now();
        let over = match &self.phase {
            Phase::Frozen(frozen) => !frozen.is_open(chain_now),
            Phase::OffChain => true,
            // A session started after the window: said once.
            Phase::Live => !self.live_told,
        };
        if over {
            self.live();
        }
        Ok(())
    }

    /// A new frozen registration: relaying stops; its moves are taken in, held from when
    /// the chain showed them; the player is told whose move it is and by when; a later pair
    /// the player holds overtakes it.
    fn on_frozen(&mut self, frozen: Frozen) -> Result<(), SessionError> {
        self.socket = None;
        let t = now();
        let (taken, refused) = frozen.take_into(&mut self.channel, t);
        self.save()?;
        for received in &taken {
            self.moved(received, Via::Chain);
        }
        for (ply, refusal) in refused {
            self.emit(Event::Refused {
                source: Refusal::FromChain { ply },
                kind: refusal.kind().to_owned(),
                code: refusal.code(),
                reason: refusal.to_string(),
            });
        }
        let to_move = frozen.to_move();
        let your_move = to_move == Some(self.channel.colour())
            && self.channel.last().ply == frozen.ply
            && self.channel.ended().is_none();
        self.emit(Event::Frozen {
            ply: frozen.ply,
            window_end: frozen.window_end,
            to_move: to_move.map(Side::of),
            your_move,
            deadline: frozen.reply_deadline(),
            now: t,
            fen: self.channel.position().fen(),
        });
        self.phase = Phase::Frozen(Box::new(frozen));
        if !taken.is_empty() {
            self.show();
        }
        self.answer_frozen(false)?;
        Ok(())
    }

    /// The window is over: on-chain play is live (said once, also to a session started
    /// after the window or that did not see the registration frozen).
    fn live(&mut self) {
        self.phase = Phase::Live;
        self.socket = None;
        if !self.live_told {
            self.live_told = true;
            let ply = self.registration.map_or(0, |(ply, _)| ply);
            self.emit(Event::Live { ply });
        }
    }

    /// Tells the game's registrations not told yet (every one, at the session's start):
    /// who sent it, which ply, the one it overtook and when its window ends. The session's
    /// own were told as [`Event::Registered`] when sent.
    fn tell_registrations(&mut self) -> Result<(), SeatError> {
        let log = self.seat.game(self.id)?;
        if log.registrations.len() <= self.told_registrations {
            return Ok(());
        }
        let registered = shown::registrations(self.seat.referee().chain(), &log)?;
        let chain_now = self.chain_now();
        let (me, opponent) = (self.seat.player(), self.opponent);
        for r in registered.into_iter().skip(self.told_registrations) {
            self.told_registrations += 1;
            if self.own_registrations.contains(&r.tx) {
                continue;
            }
            let by = match r.sender {
                Some(sender) if sender == me => Registrant::You,
                Some(sender) if sender == opponent => Registrant::Opponent,
                _ => Registrant::Other,
            };
            self.emit(Event::Registration(Registration {
                ply: r.ply,
                by,
                sender: r.sender,
                window_end: r.window_end,
                overtook: r.overtook,
                tx: r.tx,
                at: r.at,
                open: chain_now < r.window_end,
            }));
        }
        Ok(())
    }

    /// Says why `register` sends nothing: the registration on-chain is the latest pair
    /// held (frozen: the side to move answers by registering its reply), or play is live
    /// on-chain (a registration would be stale).
    pub(super) fn nothing_to_register(&mut self) {
        let message = match &self.phase {
            Phase::Frozen(frozen) => format!(
                "nothing to register: ply {} is registered on-chain and frozen until {}, and you hold no later pair; {} to move answers by registering its reply",
                frozen.ply,
                when(frozen.window_end, now()),
                frozen.to_move().map_or("nobody", |c| Side::of(c).name())
            ),
            _ => format!(
                "nothing to register: the game is played on-chain from the registered ply {}; type a move, draw, resign or claim",
                self.registration.map_or(0, |(ply, _)| ply)
            ),
        };
        self.error(message);
    }

    /// What the watchtower's rule sends for the frozen registration from the player's
    /// transcript ([`watchtower::answer`]): a later pair it holds overtakes (the direct reply
    /// among them), a contradicting registration is proven, a signed end settles. Sent
    /// once per registration and ply held, with the automatic registration's tip; by itself
    /// unless automatic registration is off (then on `register`, or `asked`: the player's
    /// own move). Whether something was due.
    pub(super) fn answer_frozen(&mut self, asked: bool) -> Result<bool, SessionError> {
        let Phase::Frozen(frozen) = &self.phase else {
            return Ok(false);
        };
        let attempt = (frozen.ply, frozen.window_end, self.channel.last().ply);
        let frozen = frozen.clone();
        let chain_now = self.chain_now();
        let Some(Answer::Channel(settlement)) =
            watchtower::answer(self.channel.transcript(), &frozen, chain_now)
        else {
            return Ok(false);
        };
        if !asked && !self.auto_register {
            self.emit(Event::LaterPairHeld {
                registered_ply: frozen.ply,
                call: settlement.call,
                why: settlement.why.clone(),
            });
            return Ok(true);
        }
        if self.answered == Some(attempt) && !asked {
            return Ok(true);
        }
        self.answered = Some(attempt);
        let held = self.channel.last().ply;
        self.emit(Event::Overtake {
            registered_ply: frozen.ply,
            ply: held,
            call: settlement.call,
            why: settlement.why.clone(),
            automatic: !asked,
            tip_wei: AUTO_REGISTER_TIP,
        });
        let sent = match self
            .prepare_registration(&settlement)
            .and_then(|p| self.transact(p))
        {
            Ok(sent) => sent,
            Err(e) => {
                self.failed(&e);
                return Ok(true);
            }
        };
        if settlement.call != "register" {
            return Ok(true);
        }
        let tx = sent.receipt.tx_hash.unwrap_or_default();
        let referee = self.seat.referee().address();
        let event = match shown::registered_in(referee, &sent.receipt.logs) {
            Some(ply) => {
                self.own_registrations.push(tx);
                Event::Registered {
                    ply,
                    tx,
                    automatic: !asked,
                    overtook: Some(frozen.ply),
                    unacknowledged: false,
                    block: sent.receipt.block_number,
                }
            }
            // Another registration landed first: the chain showed the move, counted from
            // then; the next one seen is answered again.
            None => Event::Announced {
                ply: held,
                tx,
                registered_ply: Some(frozen.ply),
            },
        };
        self.emit(event);
        self.follow_chain()?;
        Ok(true)
    }

    /// A command while a registration is frozen: the player's move, signed here and
    /// registered as the direct reply (not relayed); a resignation, sent as one; `claim` and
    /// `draw` wait for the relay or for on-chain play.
    pub(super) fn frozen_command(&mut self, command: Command) -> Result<(), SessionError> {
        let Phase::Frozen(frozen) = &self.phase else {
            return Ok(());
        };
        let (ply, window_end) = (frozen.ply, frozen.window_end);
        let frozen_to_move = frozen.to_move();
        let t = now();
        match command {
            Command::Claim => {
                self.error(format!("ply {ply} is registered and frozen until {}: a draw or a timeout is claimed once on-chain play is live", when(window_end, t)));
            }
            Command::Draw => {
                self.error("a draw needs both signatures, which go through the relay: while a registration is frozen, play goes on by registrations (resign, or move)");
            }
            Command::Resign => match self.channel.resign(t) {
                Ok(_) => {
                    self.save()?;
                    self.answer_frozen(true)?;
                }
                Err(e) => self.error(e.to_string()),
            },
            Command::Move(text) => {
                let held = self.channel.last().ply;
                if held != ply {
                    self.error(format!(
                        "ply {ply} is registered on-chain, but you hold ply {held}: {}",
                        if held > ply {
                            "your later pair overtakes it (type `register` if it was not sent)"
                        } else {
                            "its signed move could not be taken from the chain"
                        }
                    ));
                    return Ok(());
                }
                if !self.channel.to_move() {
                    let side = frozen_to_move.map_or("nobody", |c| Side::of(c).name());
                    self.error(format!(
                        "not your move: ply {ply} is registered on-chain with {side} to move, who answers by registering its reply"
                    ));
                    return Ok(());
                }
                match self.channel.play(&text, t) {
                    Ok(_) => {
                        self.save()?;
                        self.sent_at = t;
                        self.own_move(Via::SignedToRegister);
                        self.show();
                        self.answer_frozen(true)?;
                    }
                    Err(e) => self.error(e.to_string()),
                }
            }
            // Handled before a frozen registration is looked at.
            Command::Register | Command::Show | Command::Quit => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use chessref_evm::bindings::ChessChannel::{BadReceipt, ChessChannelErrors};

    use super::*;

    fn bad_receipt() -> ContractRevert {
        ContractRevert::Channel(ChessChannelErrors::BadReceipt(BadReceipt {}))
    }

    /// A registration with a receipt the chain's clock has not reached is tried again, a
    /// second apart, until it passes; for good at most [`RECEIPT_RETRIES`] times; any other
    /// failure at once (the flake of issue 29's last item: one try, then `BadReceipt`).
    #[test]
    fn a_receipt_ahead_of_the_chain_is_waited_for_and_nothing_else() {
        let tries = Cell::new(0);
        let passed = until_the_chain_reaches_the_receipt(
            || {
                tries.set(tries.get() + 1);
                if tries.get() < 3 {
                    Err(bad_receipt())
                } else {
                    Ok(tries.get())
                }
            },
            |e| Some(e),
        );
        assert_eq!(passed, Ok(3));

        tries.set(0);
        let never = until_the_chain_reaches_the_receipt(
            || {
                tries.set(tries.get() + 1);
                Err::<(), _>(bad_receipt())
            },
            |e| Some(e),
        );
        assert_eq!(never, Err(bad_receipt()));
        assert_eq!(tries.get(), RECEIPT_RETRIES + 1);

        tries.set(0);
        let other = ContractRevert::Message("another refusal".into());
        let refused = until_the_chain_reaches_the_receipt(
            || {
                tries.set(tries.get() + 1);
                Err::<(), _>(other.clone())
            },
            |e| Some(e),
        );
        assert_eq!((refused, tries.get()), (Err(other), 1));
    }
}
