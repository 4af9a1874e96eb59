//! One game driven through `ChessReferee` with `chessref-core` predicting
//! every answer: after each ply the event's state, status, ply, move and
//! repetition history must equal the Rust mirror's, and the on-chain
//! commitment must equal the hash of that position. Used by replay,
//! simulate and the conformance suite.

use std::fmt;

use alloy_primitives::{Address, B256, U256};
use chessref_core::{Color, Move, RawMove, State, Status};

use crate::{
    chain::Chain,
    ending::{EndReason, EndResult, Ending},
    error::EvmError,
    referee::{GameSetup, Position, Referee, chain_start, history_after},
    revert::ContractRevert,
};

/// One disagreement between the contract and the Rust mirror.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Game id on chain.
    pub game: U256,
    /// Ply (1-based) of the move concerned, 0 before the first move.
    pub ply: usize,
    /// What was compared ("state", "status", "revert", ...).
    pub what: &'static str,
    /// The Rust mirror's answer.
    pub rust: String,
    /// The contract's answer.
    pub evm: String,
    /// State (hex) the move was played from.
    pub state_hex: String,
    /// The move, if any (UCI or raw).
    pub mv: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {} ply {} {}: rust={} evm={} (move {} from state {})",
            self.game, self.ply, self.what, self.rust, self.evm, self.mv, self.state_hex
        )
    }
}

/// A game in progress on the referee, mirrored move by move in Rust.
#[derive(Debug)]
pub struct GameDriver {
    /// Game id.
    pub id: U256,
    /// White's account.
    pub white: Address,
    /// Black's account.
    pub black: Address,
    /// Stake of each side (wei).
    pub stake: U256,
    /// The Rust mirror's current state.
    pub state: State,
    /// The contract's current position (from its events).
    pub position: Position,
    /// Repetition keys since the chain's last restart (the threefold witness).
    pub chain_keys: Vec<B256>,
    /// Moves played.
    pub plies: usize,
    /// Set once the game ended.
    pub ending: Option<Ending>,
    /// Every disagreement found.
    pub mismatches: Vec<Mismatch>,
    /// Gas of each move transaction.
    pub move_gas: Vec<u64>,
}

impl GameDriver {
    /// Creates (white creates, inviting black) and joins a game from `start`;
    /// the created state and history must match the Rust mirror's.
    pub fn start<C: Chain>(
        referee: &mut Referee<C>,
        white: Address,
        black: Address,
        start: State,
        stake: U256,
    ) -> Result<GameDriver, EvmError> {
        let mut setup = GameSetup::eth(black, stake);
        if start != State::initial() {
            setup.start = Some(*start.as_bytes());
        }
        let created = referee.create_game(white, &setup)?;
        let joined = referee.join_game(black, created.id, stake)?;
        let key = start.repetition_key();
        let position = Position {
            state: created.state,
            history: created.history,
            clock: joined.clock,
        };
        let mut driver = GameDriver::new(created.id, white, black, stake, start, position);
        driver.compare(
            "created state",
            "",
            start.to_hex(),
            alloy_primitives::hex::encode(created.state),
        );
        driver.compare("created history", "", chain_start(key), created.history);
        driver.compare("white", "", white, joined.white);
        driver.compare("black", "", black, joined.black);
        let on_chain = referee.stored_commitment(driver.id)?;
        driver.compare("commitment", "", driver.position.commitment(), on_chain);
        Ok(driver)
    }

    /// A game the tournament hosted (`start`): running from the standard start with
    /// `clock`, no stake; the stored commitment must be the mirror's.
    pub fn hosted<C: Chain>(
        referee: &mut Referee<C>,
        id: U256,
        white: Address,
        black: Address,
        clock: U256,
    ) -> Result<GameDriver, EvmError> {
        let start = State::initial();
        let position = Position {
            state: *start.as_bytes(),
            history: chain_start(start.repetition_key()),
            clock,
        };
        let mut driver = GameDriver::new(id, white, black, U256::ZERO, start, position);
        let on_chain = referee.stored_commitment(id)?;
        driver.compare("commitment", "", driver.position.commitment(), on_chain);
        Ok(driver)
    }

    /// A driver at the start of game `id`, nothing played yet.
    fn new(
        id: U256,
        white: Address,
        black: Address,
        stake: U256,
        start: State,
        position: Position,
    ) -> Self {
        GameDriver {
            id,
            white,
            black,
            stake,
            state: start,
            position,
            chain_keys: vec![start.repetition_key()],
            plies: 0,
            ending: None,
            mismatches: Vec::new(),
            move_gas: Vec::new(),
        }
    }

    fn compare<T: PartialEq + fmt::Debug>(
        &mut self,
        what: &'static str,
        mv: &str,
        rust: T,
        evm: T,
    ) -> bool {
        if rust == evm {
            return true;
        }
        self.mismatches.push(Mismatch {
            game: self.id,
            ply: self.plies,
            what,
            rust: format!("{rust:?}"),
            evm: format!("{evm:?}"),
            state_hex: self.state.to_hex(),
            mv: mv.to_string(),
        });
        false
    }

    /// The account of the side to move.
    pub fn mover(&self) -> Address {
        if self.state.turn() == Color::White {
            self.white
        } else {
            self.black
        }
    }

    /// The account of the side not to move.
    pub fn waiter(&self) -> Address {
        if self.state.turn() == Color::White {
            self.black
        } else {
            self.white
        }
    }

    /// Plays a legal move as the side to move and compares everything the
    /// contract reports with the Rust mirror. Returns `false` if the
    /// contract refused it (recorded as a mismatch).
    pub fn play<C: Chain>(&mut self, referee: &mut Referee<C>, mv: Move) -> Result<bool, EvmError> {
        let next = self
            .state
            .play(mv)
            .expect("GameDriver::play takes legal moves");
        let status = next.status();
        self.play_known(referee, mv, next, status)
    }

    /// [`GameDriver::play`] for a legal move whose next state and status the
    /// caller already has (a [`chessref_core::Game`] computed them while
    /// replaying): the Rust side computes nothing again.
    pub fn play_known<C: Chain>(
        &mut self,
        referee: &mut Referee<C>,
        mv: Move,
        next: State,
        status: Status,
    ) -> Result<bool, EvmError> {
        let packed = RawMove::from(mv).packed();
        let uci = mv.to_uci();
        let moved = match referee.play_move(self.mover(), self.id, &self.position, packed) {
            Ok(moved) => moved,
            Err(EvmError::Reverted { revert, .. }) => {
                self.plies += 1;
                self.compare(
                    "legal move accepted",
                    &uci,
                    "accepted".to_string(),
                    format!("reverted {revert}"),
                );
                self.plies -= 1;
                return Ok(false);
            }
            Err(e) => return Err(e),
        };
        self.plies += 1;
        self.move_gas.push(moved.receipt.gas_used);
        let history = history_after(self.position.history, &next);
        if moved.position.state != *next.as_bytes() {
            self.compare(
                "state",
                &uci,
                next.to_hex(),
                alloy_primitives::hex::encode(moved.position.state),
            );
        }
        self.compare("status", &uci, status.code(), moved.status);
        self.compare("ply", &uci, self.plies as u32, moved.ply);
        self.compare("event move", &uci, packed, moved.mv);
        self.compare("history", &uci, history, moved.position.history);
        self.compare("clock ply", &uci, self.plies as u32, moved.position.ply());
        let expected_ending = Ending::automatic(status, next.turn());
        self.compare("ending", &uci, expected_ending, moved.ending);
        let on_chain = referee.stored_commitment(self.id)?;
        let expected = if moved.ending.is_some() {
            B256::ZERO
        } else {
            moved.position.commitment()
        };
        self.compare("commitment", &uci, expected, on_chain);
        crate::referee::witness_after(&mut self.chain_keys, &next);
        self.state = next;
        self.position = moved.position;
        self.ending = moved.ending;
        Ok(true)
    }

    /// Sends an illegal raw move as the side to move: it must revert with
    /// exactly `IllegalMove(code)` of the Rust mirror and change nothing.
    /// Returns the Rust code.
    pub fn attempt_illegal<C: Chain>(
        &mut self,
        referee: &mut Referee<C>,
        raw: RawMove,
    ) -> Result<u8, EvmError> {
        let code = match self.state.check(raw) {
            Err(rejection) => rejection.code(),
            Ok(_) => panic!("attempt_illegal takes illegal moves"),
        };
        let label = format!("raw 0x{:06x}", raw.packed());
        let got = match referee.play_move(self.mover(), self.id, &self.position, raw.packed()) {
            Ok(moved) => format!(
                "accepted (new state {})",
                alloy_primitives::hex::encode(moved.position.state)
            ),
            Err(EvmError::Reverted { revert, .. }) => revert.raw(),
            Err(e) => return Err(e),
        };
        self.compare(
            "revert",
            &label,
            ContractRevert::IllegalMove(code).raw(),
            got,
        );
        let on_chain = referee.stored_commitment(self.id)?;
        self.compare(
            "commitment after revert",
            &label,
            self.position.commitment(),
            on_chain,
        );
        Ok(code)
    }

    /// Ends a game still running after its last move the way its PGN
    /// result says: `1-0`/`0-1` by resignation, `1/2-1/2` by a fifty-move or
    /// threefold claim when the Rust mirror says one is open (else by
    /// agreement), `*` or nothing: left running. The ending must be the
    /// predicted one.
    pub fn finish<C: Chain>(
        &mut self,
        referee: &mut Referee<C>,
        pgn_result: Option<&str>,
    ) -> Result<(), EvmError> {
        if self.ending.is_some() {
            return Ok(());
        }
        let (acted, expected) = match pgn_result {
            Some("1-0") => (
                referee.resign(self.black, self.id)?,
                Ending {
                    result: EndResult::WhiteWins,
                    reason: EndReason::Resignation,
                },
            ),
            Some("0-1") => (
                referee.resign(self.white, self.id)?,
                Ending {
                    result: EndResult::BlackWins,
                    reason: EndReason::Resignation,
                },
            ),
            Some("1/2-1/2") => {
                let current = *self
                    .chain_keys
                    .last()
                    .expect("the chain holds the current key");
                let occurrences = self.chain_keys.iter().filter(|&&k| k == current).count();
                if self.state.halfmove_clock() >= 100 {
                    let acted =
                        referee.claim_draw(self.mover(), self.id, &self.position, Vec::new())?;
                    (
                        acted,
                        Ending {
                            result: EndResult::Draw,
                            reason: EndReason::FiftyMoves,
                        },
                    )
                } else if occurrences >= 3 {
                    let acted = referee.claim_draw(
                        self.mover(),
                        self.id,
                        &self.position,
                        self.chain_keys.clone(),
                    )?;
                    (
                        acted,
                        Ending {
                            result: EndResult::Draw,
                            reason: EndReason::Threefold,
                        },
                    )
                } else {
                    let offered = referee.offer_draw(self.mover(), self.id, &self.position)?;
                    if let Some(clock) = offered.clock {
                        self.position.clock = clock;
                    }
                    let acted = referee.accept_draw(self.waiter(), self.id, &self.position)?;
                    (
                        acted,
                        Ending {
                            result: EndResult::Draw,
                            reason: EndReason::Agreement,
                        },
                    )
                }
            }
            _ => return Ok(()),
        };
        self.compare(
            "ending",
            &format!("result {}", pgn_result.unwrap_or("*")),
            Some(expected),
            acted.ending,
        );
        self.ending = acted.ending;
        Ok(())
    }

    /// What each player should have been credited for this game's ending: (white, black).
    pub fn expected_credits(&self) -> (U256, U256) {
        let both = self.stake + self.stake;
        match self.ending.map(|e| e.result) {
            Some(EndResult::WhiteWins) => (both, U256::ZERO),
            Some(EndResult::BlackWins) => (U256::ZERO, both),
            Some(_) => (self.stake, self.stake),
            None => (U256::ZERO, U256::ZERO),
        }
    }

    /// Records a mismatch found by the caller (e.g. credits).
    pub fn record<T: PartialEq + fmt::Debug>(
        &mut self,
        what: &'static str,
        rust: T,
        evm: T,
    ) -> bool {
        self.compare(what, "", rust, evm)
    }
}
