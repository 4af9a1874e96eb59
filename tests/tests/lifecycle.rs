//! Full ChessReferee lifecycles on the in-process chain, as real
//! transactions: stakes, moves, every way a game ends (mate, stalemate,
//! insufficient material, resignation, agreement, fifty-move and threefold
//! claims, timeouts with time advanced, abort, cancel), and the balances
//! after everyone withdrew. The gas price is zero on revm, so balances are
//! exact: only stakes move.

use alloy_primitives::{Address, B256, U256};
use chessref_core::{Move, RawMove, State, Status};
use chessref_evm::{
    Chain, ContractRevert, EndReason, EndResult, Ending, EvmError, GameSetup, Position, Referee,
    RevmChain, referee::history_after,
};

const ETH: U256 = U256::from_limbs([1_000_000_000_000_000_000, 0, 0, 0]);
const GRACE: u64 = 15;

struct Table {
    referee: Referee<RevmChain>,
    white: Address,
    black: Address,
    start_balances: (U256, U256),
}

/// A game being played, with the Rust mirror's state and witness chain.
struct Play {
    id: U256,
    state: State,
    position: Position,
    keys: Vec<B256>,
}

impl Table {
    fn new() -> Table {
        let mut referee = Referee::deploy(RevmChain::new()).expect("deploy");
        let accounts = referee.chain().accounts().to_vec();
        let (white, black) = (accounts[1], accounts[2]);
        let start_balances = (
            referee.chain().balance(white).unwrap(),
            referee.chain().balance(black).unwrap(),
        );
        Table {
            referee,
            white,
            black,
            start_balances,
        }
    }

    fn start(&mut self, fen: Option<&str>, stake: U256, initial_time: u32) -> Play {
        let state = fen.map_or_else(State::initial, |f| State::from_fen(f).unwrap());
        let mut setup = GameSetup::eth(self.black, stake);
        setup.initial_time = initial_time;
        setup.start = fen.map(|_| *state.as_bytes());
        let created = self
            .referee
            .create_game(self.white, &setup)
            .expect("create");
        let address = self.referee.address();
        assert!(self.referee.chain().balance(address).unwrap() >= stake);
        let joined = self
            .referee
            .join_game(self.black, created.id, stake)
            .expect("join");
        assert_eq!((joined.white, joined.black), (self.white, self.black));
        Play {
            id: created.id,
            state,
            position: Position {
                state: created.state,
                history: created.history,
                clock: joined.clock,
            },
            keys: vec![state.repetition_key()],
        }
    }

    fn mover(&self, play: &Play) -> Address {
        if play.state.turn() == chessref_core::Color::White {
            self.white
        } else {
            self.black
        }
    }

    fn waiter(&self, play: &Play) -> Address {
        if play.state.turn() == chessref_core::Color::White {
            self.black
        } else {
            self.white
        }
    }

    fn play(&mut self, play: &mut Play, uci: &str) -> Option<Ending> {
        let mv = Move::from_uci(uci).unwrap();
        let next = play.state.play(mv).unwrap_or_else(|e| panic!("{uci}: {e}"));
        let mover = self.mover(play);
        let moved = self
            .referee
            .play_move(mover, play.id, &play.position, RawMove::from(mv).packed())
            .expect(uci);
        assert_eq!(moved.position.state, *next.as_bytes(), "{uci}");
        assert_eq!(
            moved.position.history,
            history_after(play.position.history, &next)
        );
        if next.halfmove_clock() == 0 {
            play.keys.clear();
        }
        play.keys.push(next.repetition_key());
        play.state = next;
        play.position = moved.position;
        moved.ending
    }

    /// Withdraws every credit of both players.
    fn settle(&mut self) {
        for account in [self.white, self.black] {
            if self.referee.credits(account, Address::ZERO).unwrap() > U256::ZERO {
                self.referee
                    .withdraw(account, Address::ZERO)
                    .expect("withdraw");
            }
            assert_eq!(
                self.referee.credits(account, Address::ZERO).unwrap(),
                U256::ZERO
            );
        }
    }

    /// Balance changes of (white, black) since the table opened, after settling.
    fn net(&mut self) -> (i128, i128) {
        self.settle();
        let w = self.referee.chain().balance(self.white).unwrap();
        let b = self.referee.chain().balance(self.black).unwrap();
        let signed = |now: U256, then: U256| {
            if now >= then {
                (now - then).to::<i128>()
            } else {
                -((then - now).to::<i128>())
            }
        };
        let address = self.referee.address();
        assert_eq!(
            self.referee.chain().balance(address).unwrap(),
            U256::ZERO,
            "no wei stays in the referee"
        );
        (
            signed(w, self.start_balances.0),
            signed(b, self.start_balances.1),
        )
    }
}

fn revert_name(e: EvmError) -> String {
    match e {
        EvmError::Reverted { revert, .. } => revert.name(),
        other => panic!("expected a revert, got {other}"),
    }
}

const ONE: i128 = 1_000_000_000_000_000_000;
const DAY: u32 = 86_400;

#[test]
fn checkmate_pays_the_winner_both_stakes() {
    let mut t = Table::new();
    let mut p = t.start(None, ETH, DAY);
    for m in ["f2f3", "e7e5", "g2g4"] {
        assert_eq!(t.play(&mut p, m), None);
    }
    assert_eq!(
        t.play(&mut p, "d8h4"),
        Some(Ending {
            result: EndResult::BlackWins,
            reason: EndReason::Checkmate
        })
    );
    assert_eq!(p.state.status(), Status::Checkmate);
    assert_eq!(t.referee.commitment_of(p.id).unwrap(), B256::ZERO);
    let info = t.referee.game(p.id).unwrap();
    assert_eq!(
        (info.phase, info.result, info.reason),
        (3, EndResult::BlackWins.code(), EndReason::Checkmate.code())
    );
    // Nothing more can happen in an ended game.
    assert_eq!(
        revert_name(t.referee.resign(t.white, p.id).unwrap_err()),
        "GameNotRunning"
    );
    assert_eq!(t.net(), (-ONE, ONE));
}

#[test]
fn resignation_and_who_may_act() {
    let mut t = Table::new();
    let mut p = t.start(None, ETH, DAY);
    let stranger = t.referee.chain().accounts()[5];
    let e2e4 = RawMove::from(Move::from_uci("e2e4").unwrap()).packed();
    assert_eq!(
        revert_name(
            t.referee
                .play_move(t.black, p.id, &p.position, e2e4)
                .unwrap_err()
        ),
        "NotYourTurn"
    );
    assert_eq!(
        revert_name(
            t.referee
                .play_move(stranger, p.id, &p.position, e2e4)
                .unwrap_err()
        ),
        "NotAPlayer"
    );
    let e2e5 = RawMove::from(Move::from_uci("e2e5").unwrap()).packed();
    match t
        .referee
        .play_move(t.white, p.id, &p.position, e2e5)
        .unwrap_err()
    {
        EvmError::Reverted {
            revert, gas_used, ..
        } => {
            assert_eq!(revert, ContractRevert::IllegalMove(6));
            assert!(gas_used > 21_000);
        }
        e => panic!("{e}"),
    }
    let old = p.position;
    t.play(&mut p, "e2e4");
    // A position that is no longer current is refused.
    let e7e5 = RawMove::from(Move::from_uci("e7e5").unwrap()).packed();
    assert_eq!(
        revert_name(t.referee.play_move(t.black, p.id, &old, e7e5).unwrap_err()),
        "StalePosition"
    );
    assert_eq!(
        revert_name(t.referee.resign(stranger, p.id).unwrap_err()),
        "NotAPlayer"
    );
    let acted = t.referee.resign(t.white, p.id).unwrap();
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::BlackWins,
            reason: EndReason::Resignation
        })
    );
    assert_eq!(t.net(), (-ONE, ONE));
}

#[test]
fn draw_by_agreement_refunds_each_stake() {
    let mut t = Table::new();
    let mut p = t.start(None, ETH, DAY);
    t.play(&mut p, "d2d4");
    let (mover, waiter) = (t.mover(&p), t.waiter(&p));
    assert_eq!(
        revert_name(t.referee.accept_draw(mover, p.id, &p.position).unwrap_err()),
        "NoDrawOffer"
    );
    let offered = t.referee.offer_draw(waiter, p.id, &p.position).unwrap();
    p.position.clock = offered.clock.expect("DrawOffered carries the new clock");
    assert_eq!(
        revert_name(
            t.referee
                .accept_draw(waiter, p.id, &p.position)
                .unwrap_err()
        ),
        "CannotAcceptOwnOffer"
    );
    // A move makes the offer lapse.
    t.play(&mut p, "d7d5");
    assert_eq!(
        revert_name(
            t.referee
                .accept_draw(t.waiter(&p), p.id, &p.position)
                .unwrap_err()
        ),
        "NoDrawOffer"
    );
    let offered = t
        .referee
        .offer_draw(t.mover(&p), p.id, &p.position)
        .unwrap();
    p.position.clock = offered.clock.unwrap();
    let acted = t
        .referee
        .accept_draw(t.waiter(&p), p.id, &p.position)
        .unwrap();
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::Draw,
            reason: EndReason::Agreement
        })
    );
    assert_eq!(t.net(), (0, 0));
}

#[test]
fn threefold_claims_with_witness_and_with_the_move() {
    let mut t = Table::new();
    let mut p = t.start(None, ETH, DAY);
    for m in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"] {
        t.play(&mut p, m);
    }
    // The initial position occurred twice, with black to move: not yet.
    let mover = t.mover(&p);
    assert_eq!(
        revert_name(
            t.referee
                .claim_draw(mover, p.id, &p.position, p.keys.clone())
                .unwrap_err()
        ),
        "DrawNotClaimable"
    );
    // Claim together with the move that brings the third occurrence (FIDE 9.2).
    let next = p.state.play(Move::from_uci("f6g8").unwrap()).unwrap();
    let mut witness = p.keys.clone();
    witness.push(next.repetition_key());
    let mut bad = witness.clone();
    bad[1] = B256::repeat_byte(7);
    let packed = RawMove::from(Move::from_uci("f6g8").unwrap()).packed();
    assert_eq!(
        revert_name(
            t.referee
                .move_and_claim_draw(mover, p.id, &p.position, packed, bad)
                .unwrap_err()
        ),
        "BadWitness"
    );
    let moved = t
        .referee
        .move_and_claim_draw(mover, p.id, &p.position, packed, witness)
        .unwrap();
    assert_eq!(
        moved.ending,
        Some(Ending {
            result: EndResult::Draw,
            reason: EndReason::Threefold
        })
    );
    assert_eq!(moved.position.state, *next.as_bytes());
    assert_eq!(t.net(), (0, 0));

    // And a plain claim in the repeated position.
    let mut p = t.start(None, ETH, DAY);
    for m in [
        "b1c3", "b8c6", "c3b1", "c6b8", "b1c3", "b8c6", "c3b1", "c6b8",
    ] {
        t.play(&mut p, m);
    }
    let acted = t
        .referee
        .claim_draw(t.mover(&p), p.id, &p.position, p.keys.clone())
        .unwrap();
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::Draw,
            reason: EndReason::Threefold
        })
    );
    assert_eq!(t.net(), (0, 0));
}

#[test]
fn fifty_move_claim() {
    let mut t = Table::new();
    let mut p = t.start(Some("8/8/8/4k3/8/8/8/R3K3 w - - 98 80"), ETH, DAY);
    t.play(&mut p, "a1a2");
    let mover = t.mover(&p);
    assert_eq!(
        revert_name(
            t.referee
                .claim_draw(mover, p.id, &p.position, vec![])
                .unwrap_err()
        ),
        "DrawNotClaimable"
    );
    t.play(&mut p, "e5e6");
    assert_eq!(p.state.halfmove_clock(), 100);
    let acted = t
        .referee
        .claim_draw(t.mover(&p), p.id, &p.position, vec![])
        .unwrap();
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::Draw,
            reason: EndReason::FiftyMoves
        })
    );
    assert_eq!(t.net(), (0, 0));
}

#[test]
fn stalemate_and_insufficient_material_end_in_draws() {
    let mut t = Table::new();
    let mut p = t.start(Some("k7/8/1Q6/8/8/8/8/7K w - - 0 1"), ETH, DAY);
    assert_eq!(
        t.play(&mut p, "b6c7"),
        Some(Ending {
            result: EndResult::Draw,
            reason: EndReason::Stalemate
        })
    );
    assert_eq!(p.state.status(), Status::Stalemate);
    let mut p = t.start(Some("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1"), ETH, DAY);
    assert_eq!(
        t.play(&mut p, "e1d2"),
        Some(Ending {
            result: EndResult::Draw,
            reason: EndReason::InsufficientMaterial
        })
    );
    // A start that is already over is refused; so is an invalid one.
    let mut setup = GameSetup::eth(t.black, ETH);
    setup.start = Some(
        *State::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
            .unwrap()
            .as_bytes(),
    );
    assert_eq!(
        revert_name(t.referee.create_game(t.white, &setup).unwrap_err()),
        "StartPositionOver"
    );
    let mut bad = *State::initial().as_bytes();
    bad[12] = 1; // a stray shadow byte: BAD_FLAG
    setup.start = Some(bad);
    match t.referee.create_game(t.white, &setup).unwrap_err() {
        EvmError::Reverted { revert, .. } => assert_eq!(revert, ContractRevert::InvalidState(2)),
        e => panic!("{e}"),
    }
    assert_eq!(t.net(), (0, 0));
}

#[test]
fn timeouts_with_time_advanced() {
    let mut t = Table::new();
    // Win on time.
    let mut p = t.start(None, ETH, 60);
    t.play(&mut p, "e2e4");
    t.play(&mut p, "e7e5");
    let (flagged, claimant) = (t.mover(&p), t.waiter(&p));
    assert_eq!(
        revert_name(
            t.referee
                .claim_timeout(claimant, p.id, &p.position)
                .unwrap_err()
        ),
        "TimeNotUp"
    );
    t.referee.chain().advance_time(60 + GRACE).unwrap();
    // Exactly at the deadline the mover may still move (in a forked game we only probe).
    assert_eq!(
        revert_name(
            t.referee
                .claim_timeout(claimant, p.id, &p.position)
                .unwrap_err()
        ),
        "TimeNotUp"
    );
    t.referee.chain().advance_time(1).unwrap();
    let g1f3 = RawMove::from(Move::from_uci("g1f3").unwrap()).packed();
    assert_eq!(
        revert_name(
            t.referee
                .play_move(flagged, p.id, &p.position, g1f3)
                .unwrap_err()
        ),
        "TimeUp"
    );
    assert_eq!(
        revert_name(
            t.referee
                .claim_timeout(flagged, p.id, &p.position)
                .unwrap_err()
        ),
        "NotYourTurn"
    );
    let acted = t
        .referee
        .claim_timeout(claimant, p.id, &p.position)
        .unwrap();
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::BlackWins,
            reason: EndReason::Timeout
        })
    );
    assert_eq!(t.net(), (-ONE, ONE));

    // A claimant who cannot mate only draws (FIDE 6.9).
    let mut p = t.start(Some("4k3/8/8/8/8/8/4P3/4K2Q w - - 0 1"), ETH, 120);
    t.play(&mut p, "h1h2");
    t.play(&mut p, "e8d7");
    t.referee.chain().advance_time(120 + GRACE + 1).unwrap();
    let acted = t.referee.claim_timeout(t.black, p.id, &p.position).unwrap();
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::Draw,
            reason: EndReason::TimeoutDraw
        })
    );
    assert_eq!(t.net(), (-ONE, ONE));

    // A player who never moved: the game is aborted, both refunded.
    let p = t.start(None, ETH, 60);
    t.referee.chain().advance_time(60 + GRACE + 1).unwrap();
    let acted = t.referee.claim_timeout(t.black, p.id, &p.position).unwrap();
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::Aborted,
            reason: EndReason::Aborted
        })
    );
    assert_eq!(t.net(), (-ONE, ONE));
}

#[test]
fn increments_follow_the_fischer_clock() {
    let mut t = Table::new();
    let mut setup = GameSetup::eth(t.black, ETH);
    setup.initial_time = 300;
    setup.increment = 5;
    let created = t.referee.create_game(t.white, &setup).unwrap();
    let joined = t.referee.join_game(t.black, created.id, ETH).unwrap();
    let mut position = Position {
        state: created.state,
        history: created.history,
        clock: joined.clock,
    };
    t.referee.chain().advance_time(40).unwrap();
    let e2e4 = RawMove::from(Move::from_uci("e2e4").unwrap()).packed();
    let moved = t
        .referee
        .play_move(t.white, created.id, &position, e2e4)
        .unwrap();
    position = moved.position;
    let (white_left, black_left, white_to_move, _) =
        t.referee.clocks(created.id, &position).unwrap();
    assert_eq!(
        (white_left, black_left, white_to_move),
        (U256::from(300 - 40 + 5), U256::from(300), false)
    );
}

#[test]
fn cancel_open_games_and_withdraw_once() {
    let mut t = Table::new();
    let mut setup = GameSetup::eth(Address::ZERO, ETH);
    let created = t.referee.create_game(t.white, &setup).unwrap();
    assert_eq!(
        revert_name(t.referee.join_game(t.white, created.id, ETH).unwrap_err()),
        "CannotPlaySelf"
    );
    assert_eq!(
        revert_name(
            t.referee
                .join_game(t.black, created.id, ETH - U256::from(1))
                .unwrap_err()
        ),
        "WrongEthAmount"
    );
    assert_eq!(
        revert_name(t.referee.cancel_game(t.black, created.id).unwrap_err()),
        "NotCreator"
    );
    t.referee.cancel_game(t.white, created.id).unwrap();
    assert_eq!(t.referee.credits(t.white, Address::ZERO).unwrap(), ETH);
    assert_eq!(
        revert_name(t.referee.join_game(t.black, created.id, ETH).unwrap_err()),
        "GameNotOpen"
    );
    t.referee.withdraw(t.white, Address::ZERO).unwrap();
    assert_eq!(
        revert_name(t.referee.withdraw(t.white, Address::ZERO).unwrap_err()),
        "NothingToWithdraw"
    );
    // An open game anyone but the creator may join; a stranger here.
    setup.stake = U256::from(12345);
    let created = t.referee.create_game(t.white, &setup).unwrap();
    let stranger = t.referee.chain().accounts()[7];
    let joined = t
        .referee
        .join_game(stranger, created.id, U256::from(12345))
        .unwrap();
    assert_eq!((joined.white, joined.black), (t.white, stranger));
    t.referee.resign(stranger, created.id).unwrap();
    assert_eq!(
        t.referee.credits(t.white, Address::ZERO).unwrap(),
        U256::from(24690)
    );
    assert_eq!(t.net(), (12345, 0));
}

#[test]
fn join_binds_the_agreed_terms() {
    let mut t = Table::new();
    let setup = GameSetup::eth(t.black, ETH);
    let created = t.referee.create_game(t.white, &setup).unwrap();
    assert_eq!(t.referee.game(created.id).unwrap().terms, created.terms);
    // Terms the joiner agreed to for another stake: refused, the game stays open.
    let wrong = B256::repeat_byte(0x11);
    assert_eq!(
        revert_name(
            t.referee
                .join_game_with_terms(t.black, created.id, wrong, ETH)
                .unwrap_err()
        ),
        "WrongTerms"
    );
    let joined = t
        .referee
        .join_game_with_terms(t.black, created.id, created.terms, ETH)
        .unwrap();
    assert_eq!((joined.white, joined.black), (t.white, t.black));
    assert_eq!(t.referee.game(created.id).unwrap().terms, B256::ZERO);
}

#[test]
fn first_move_window_aborts_only_from_the_standard_start() {
    let mut t = Table::new();
    // Standard start, 1 day on the clock, a 60 s first-move window: aborted after 61 s.
    let mut setup = GameSetup::eth(t.black, ETH);
    setup.initial_time = DAY;
    setup.first_move_window = 60;
    let created = t.referee.create_game(t.white, &setup).unwrap();
    let joined = t.referee.join_game(t.black, created.id, ETH).unwrap();
    let position = Position {
        state: created.state,
        history: created.history,
        clock: joined.clock,
    };
    t.referee.chain().advance_time(61).unwrap();
    let acted = t
        .referee
        .claim_timeout(t.black, created.id, &position)
        .unwrap();
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::Aborted,
            reason: EndReason::Aborted
        })
    );
    assert_eq!(t.net(), (0, 0));

    // A lost custom start (black to move, never moves): a loss on time, never a refund.
    // Its clock starts only after the first-move window (300 s by default): a player away
    // when the game is joined is not flagged by its clock alone.
    let p = t.start(Some("7k/8/5K2/8/8/8/8/6Q1 b - - 0 1"), ETH, 60);
    t.referee.chain().advance_time(60 + GRACE + 1).unwrap();
    let early = t
        .referee
        .claim_timeout(t.white, p.id, &p.position)
        .unwrap_err();
    assert_eq!(
        early.revert().map(|r| r.name()).as_deref(),
        Some("TimeNotUp"),
        "{early}"
    );
    t.referee.chain().advance_time(300).unwrap();
    let acted = t.referee.claim_timeout(t.white, p.id, &p.position).unwrap();
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::WhiteWins,
            reason: EndReason::Timeout
        })
    );
    assert_eq!(t.net(), (ONE, -ONE));
}

#[test]
fn withdraw_to_sends_the_credit_elsewhere() {
    let mut t = Table::new();
    let p = t.start(None, ETH, 600);
    t.referee.resign(t.black, p.id).unwrap();
    let elsewhere = t.referee.chain().accounts()[7];
    let before = t.referee.chain().balance(elsewhere).unwrap();
    assert_eq!(
        revert_name(
            t.referee
                .withdraw_to(t.white, Address::ZERO, Address::ZERO)
                .unwrap_err()
        ),
        "ZeroRecipient"
    );
    t.referee
        .withdraw_to(t.white, Address::ZERO, elsewhere)
        .unwrap();
    assert_eq!(
        t.referee.chain().balance(elsewhere).unwrap() - before,
        ETH * U256::from(2)
    );
    assert_eq!(
        t.referee.credits(t.white, Address::ZERO).unwrap(),
        U256::ZERO
    );
}
