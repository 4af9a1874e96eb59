//! "Backdating adds up" (CHANNEL.md 8): a cheater who stamps every move as far in the
//! past as the honest client takes. Under the old honest rule (stamp a reply
//! `max(clock, predecessor's stamp)`) each backdated stamp moved its lag onto the honest
//! clock at every move; now the honest seat stamps its reply from its own receipt of the
//! move before and refuses a move stamped more than 30 s behind its clock, so over a
//! whole game the cheater hides at most 30 s and the honest clock is charged what the
//! honest player really thought.
//!
//! Time is simulated (no test waits): `clock` is the wall clock both players read.

use alloy_primitives::{Address, U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::book::Refusal;
use chessref_channel::frame::Frame;
use chessref_channel::seat::{ChannelSeat, Received};
use chessref_channel::transcript::MoveEntry;
use chessref_channel::{ChannelDomain, ChannelGame, Move, signer, successor};
use chessref_core::Color;

const T0: u64 = 1_800_000_000;
/// The most an honest client lets a stamp lag its clock.
const TOLERANCE: u64 = chessref_channel::settlement::CLIENT_STAMP_TOLERANCE;
/// A knight shuffle: every ply legal, no capture, no pawn move, and nothing ends a channel
/// game before 150 plies (a repetition is a draw only when claimed).
const SHUFFLE: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];
const PLIES: u32 = 120;

fn key(label: &str) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&keccak256(label)).expect("a key")
}

fn domain() -> ChannelDomain {
    ChannelDomain {
        chain_id: 5,
        verifying_contract: Address::repeat_byte(9),
    }
}

fn game(initial_time: u32, increment: u32) -> ChannelGame {
    ChannelGame {
        game_id: U256::from(7),
        white: key("white").address(),
        black: key("black").address(),
        initial_time,
        increment,
        response_window: 600,
        start_state: None,
    }
}

/// An honest seat of `colour`, its session key delegated by its wallet.
fn seat(game: &ChannelGame, colour: Color) -> ChannelSeat {
    let name = if colour == Color::White {
        "white"
    } else {
        "black"
    };
    let (wallet, session) = (key(name), key(&format!("{name} session")));
    let d = signer::delegate(
        &wallet,
        &domain(),
        game.game_id,
        session.address(),
        1,
        u32::MAX,
        T0 + 100_000,
    )
    .expect("signing");
    ChannelSeat::new(
        domain(),
        game.clone(),
        wallet.address(),
        Box::new(session),
        d,
    )
    .expect("a player")
}

/// Seconds each side thinks at ply `ply`: 0 to 6 for the honest side, 1 to 4 for the
/// cheater (on average 3 and 2.5 s: 60 moves each fit a 5-minute clock, with 2 s of
/// transit a move).
fn think(ply: u32, cheater: bool) -> u64 {
    if cheater {
        1 + u64::from(ply * 7 % 4)
    } else {
        u64::from(ply * 5 % 7)
    }
}

fn mv(ply: u32) -> chessref_core::Move {
    chessref_core::Move::from_uci(SHUFFLE[(ply as usize - 1) % 4]).expect("uci")
}

fn time_of(m: &Move, colour: Color) -> u64 {
    u64::from(if colour == Color::White {
        m.whiteTime
    } else {
        m.blackTime
    })
}

fn mover(ply: u32) -> Color {
    if ply % 2 == 1 {
        Color::White
    } else {
        Color::Black
    }
}

/// The cheater's move of `last`'s next ply stamped `stamp`, signed by its wallet (`None`:
/// its flag fell, it has no valid move left).
fn cheat_move(game: &ChannelGame, last: &Move, stamp: u64, cheater: Color) -> Option<Frame> {
    let next = successor(last, mv(last.ply + 1), stamp, game.increment).ok()?;
    let wallet = key(if cheater == Color::White {
        "white"
    } else {
        "black"
    });
    let signature = signer::sign(&wallet, &domain(), &next).expect("signing");
    Some(Frame::Move(MoveEntry::signed(&next, signature, -1)))
}

/// A player's clock as the signatures say against what it really used: `(signed
/// remaining, initial + increments - real thinking)`.
#[derive(Clone, Copy, Debug, Default)]
struct Account {
    thought: u64,
    moves: u64,
}

impl Account {
    fn truth(&self, game: &ChannelGame) -> i64 {
        i64::from(game.initial_time) + (self.moves * u64::from(game.increment)) as i64
            - self.thought as i64
    }
}

/// What a game came to.
#[derive(Debug)]
struct Played {
    /// Largest |honest signed remaining - its truth| over the game, after each move.
    honest_error: i64,
    /// The cheater's signed remaining minus its truth at the end: the thinking it hid.
    cheater_gain: i64,
    /// Largest lag of a stamp behind the clock when the honest seat took or signed it.
    max_lag: u64,
    /// Backdated moves the honest seat refused (each the accepted one, one second earlier).
    refused: usize,
    /// The ply at which the cheater had no valid move left (its flag fell), if it did.
    cheater_flag: Option<u32>,
}

/// `PLIES` plies between an honest seat and a cheater who stamps every move the most
/// the honest seat takes: 30 s behind its clock at delivery, never before the move it
/// answers. `transit`: seconds each message takes; `slow`: the cheater thinks 30 s a
/// move (else 1 to 4 s).
fn backdated_game(game: &ChannelGame, cheater: Color, transit: u64, slow: bool) -> Played {
    let honest_colour = !cheater;
    let mut honest = seat(game, honest_colour);
    let mut clock = T0;
    let (mut h, mut c) = (Account::default(), Account::default());
    let mut played = Played {
        honest_error: 0,
        cheater_gain: 0,
        max_lag: 0,
        refused: 0,
        cheater_flag: None,
    };
    for ply in 1..=PLIES {
        let last = honest.last();
        if mover(ply) == honest_colour {
            let y = think(ply, false);
            clock += y;
            honest
                .play(SHUFFLE[(ply as usize - 1) % 4], clock)
                .expect("legal");
            // White's first move is not charged (no signed time before it).
            if ply > 1 {
                h.thought += y;
            }
            h.moves += 1;
            let signed = honest.last();
            played.max_lag = played.max_lag.max(clock - signed.timestamp);
            let error = (time_of(&signed, honest_colour) as i64 - h.truth(game)).abs();
            played.honest_error = played.honest_error.max(error);
            clock += transit;
        } else {
            let x = if slow { 30 } else { think(ply, true) };
            clock += x + transit;
            let earliest = clock - TOLERANCE;
            let stamp = last.timestamp.max(earliest);
            let Some(frame) = cheat_move(game, &last, stamp, cheater) else {
                played.cheater_flag = Some(ply);
                break;
            };
            if stamp > last.timestamp {
                // One second further back is refused, and changes nothing.
                let refused = honest
                    .receive(
                        cheat_move(game, &last, stamp - 1, cheater).expect("valid"),
                        clock,
                    )
                    .expect_err("31 s behind");
                assert_eq!(
                    refused,
                    Refusal::Past {
                        stamp: stamp - 1,
                        behind: TOLERANCE + 1
                    }
                );
                assert!(
                    refused
                        .to_string()
                        .contains(&format!("stamped {}, 31 s behind", stamp - 1)),
                    "{refused}"
                );
                assert_eq!(honest.last(), last);
                played.refused += 1;
            }
            let received = honest
                .receive(frame, clock)
                .expect("the most backdated stamp taken");
            assert!(matches!(received, Received::Move { .. }));
            honest.answer(&received, clock).expect("a receipt");
            played.max_lag = played.max_lag.max(clock - stamp);
            if ply > 1 {
                c.thought += x;
            }
            c.moves += 1;
        }
        assert!(honest.ended().is_none() && honest.decided().is_none());
    }
    let last = honest.last();
    played.cheater_gain = time_of(&last, cheater) as i64 - c.truth(game);
    let error = (time_of(&last, honest_colour) as i64 - h.truth(game)).abs();
    played.honest_error = played.honest_error.max(error);
    played
}

/// The same cheater against the old honest rule (`max(clock, predecessor's stamp)`),
/// judged by code 4 alone (`successor`): the honest side's signed remaining minus its
/// truth after each of its moves, until its flag falls or the plies run out; and the
/// ply its flag fell at, if it did.
fn old_rule(game: &ChannelGame, cheater: Color, slow: bool) -> (Vec<i64>, Option<u32>) {
    let honest_colour = !cheater;
    let mut last = game.start_move().expect("a start");
    let mut clock = T0;
    let mut h = Account::default();
    let mut errors = Vec::new();
    for ply in 1..=PLIES {
        if mover(ply) == honest_colour {
            let y = think(ply, false);
            clock += y;
            let next = match successor(&last, mv(ply), clock.max(last.timestamp), game.increment) {
                Ok(next) => next,
                Err(_) => return (errors, Some(ply)),
            };
            if ply > 1 {
                h.thought += y;
            }
            h.moves += 1;
            errors.push(time_of(&next, honest_colour) as i64 - h.truth(game));
            last = next;
        } else {
            clock += if slow { 30 } else { think(ply, true) };
            let stamp = last.timestamp.max(clock - TOLERANCE);
            last = successor(&last, mv(ply), stamp, game.increment).expect("the cheater's move");
        }
    }
    (errors, None)
}

#[test]
fn test_backdating_every_move_gains_at_most_30_s_over_a_game() {
    for (initial, increment) in [(300, 0), (180, 2)] {
        let game = game(initial, increment);
        for cheater in [Color::White, Color::Black] {
            for transit in [0, 1] {
                let played = backdated_game(&game, cheater, transit, false);
                eprintln!(
                    "{}+{increment}, cheater {cheater}, transit {transit} s: {PLIES} plies, honest clock off by at most {} s, cheater hid {} s, largest lag {} s, {} stamps 31 s back refused",
                    initial / 60,
                    played.honest_error,
                    played.cheater_gain,
                    played.max_lag,
                    played.refused
                );
                assert!(played.honest_error <= TOLERANCE as i64, "{played:?}");
                assert!(played.cheater_gain <= TOLERANCE as i64, "{played:?}");
                assert!(played.max_lag <= TOLERANCE, "{played:?}");
                assert_eq!(played.cheater_flag, None, "{played:?}");
                // The cheater did backdate (the check was binding), most of the game.
                assert!(played.refused >= 40, "{played:?}");
                // With the rule the honest clock is exact: the lag is nobody's time.
                assert_eq!(played.honest_error, 0, "{played:?}");
            }
            let (errors, flag) = old_rule(&game, cheater, false);
            let over = errors.iter().position(|e| *e < -(TOLERANCE as i64));
            let worst = errors.iter().min().copied().unwrap_or(0);
            eprintln!(
                "  the old rule, same cheater: honest clock off by {:?} s after its first moves, by more than 30 s from its move {}, by {worst} s at most{}",
                &errors[..errors.len().min(6)],
                over.map_or(0, |i| i + 1),
                flag.map_or(String::new(), |ply| format!(", its flag fell at ply {ply}"))
            );
            // The attack was real: every backdated stamp moved the cheater's thinking
            // (up to 30 s a move) onto the honest clock, and it added up to several
            // times the bound, or to the honest side's flag.
            assert!(over.is_some(), "{errors:?}");
            assert!(
                flag.is_some() || worst < -3 * TOLERANCE as i64,
                "{errors:?}"
            );
        }
    }
}

#[test]
fn test_a_cheater_who_thinks_30_s_a_move_and_backdates_it_all_loses_its_own_time() {
    // At 5+0: under the old rule every move of his put 30 s on the honest clock, which
    // fell after about 18 plies; now he pays his own 30 s a move, less the 30 s he may
    // hide once, and runs out of moves himself.
    let game = game(300, 0);
    for cheater in [Color::White, Color::Black] {
        let (errors, flag) = old_rule(&game, cheater, true);
        let played = backdated_game(&game, cheater, 0, true);
        eprintln!(
            "5+0, a cheater ({cheater}) thinking 30 s a move: the old rule put {:?} s on the honest clock, whose flag fell at ply {flag:?}; now the honest clock is off by {} s and the cheater's flag falls at ply {:?}",
            &errors[..errors.len().min(4)],
            played.honest_error,
            played.cheater_flag
        );
        assert!(flag.is_some_and(|ply| ply <= 22), "{errors:?}");
        assert!(errors.iter().skip(1).all(|e| *e <= -30), "{errors:?}");
        assert_eq!(played.honest_error, 0, "{played:?}");
        assert!(played.cheater_gain <= TOLERANCE as i64, "{played:?}");
        assert!(
            played.cheater_flag.is_some_and(|ply| ply <= 26),
            "{played:?}"
        );
    }
}

#[test]
fn test_two_honest_seats_with_instant_delivery_keep_exact_clocks() {
    for (initial, increment) in [(300, 0), (180, 2)] {
        let game = game(initial, increment);
        let mut seats = [seat(&game, Color::White), seat(&game, Color::Black)];
        let mut accounts = [Account::default(); 2];
        let mut clock = T0;
        for ply in 1..=PLIES {
            let i = usize::from(mover(ply) == Color::Black);
            let think = think(ply, i == 1);
            clock += think;
            let frames = seats[i]
                .play(SHUFFLE[(ply as usize - 1) % 4], clock)
                .expect("legal");
            if ply > 1 {
                accounts[i].thought += think;
            }
            accounts[i].moves += 1;
            // Delivered at once, acknowledged at once.
            let mut pending = vec![(frames, 1 - i)];
            while let Some((frames, to)) = pending.pop() {
                let mut answers = Vec::new();
                for frame in frames {
                    let received = seats[to].receive(frame, clock).expect("valid");
                    answers.extend(seats[to].answer(&received, clock).expect("signing"));
                }
                if !answers.is_empty() {
                    pending.push((answers, 1 - to));
                }
            }
            let last = seats[0].last();
            assert_eq!(last, seats[1].last());
            assert_eq!(last.timestamp, clock, "no lag without transit");
            for (colour, account) in [Color::White, Color::Black].into_iter().zip(accounts) {
                assert_eq!(
                    time_of(&last, colour) as i64,
                    account.truth(&game),
                    "ply {ply}, {colour}"
                );
            }
        }
        assert_eq!(seats[0].transcript(), seats[1].transcript());
        assert!(
            seats[0]
                .transcript()
                .moves
                .iter()
                .all(|m| m.receipt.is_some())
        );
    }
}
