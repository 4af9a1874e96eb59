//! `simulate --tournament`: seeded knockout events played out on the tournament of a
//! fresh referee in revm, every pairing, lot and prize checked against the Rust mirror
//! (`chessref_core::tournament`).
//!
//! Each event is 4 or 8 players with a random fee, organiser fee and split. One in eight
//! does not fill and is refunded. In the others every match's game is played by random
//! legal moves through the referee and ends by one of five paths: played out (mate,
//! a draw by the rules, or a resignation past the ply limit), agreed drawn (then decided
//! by its lot), a no-show (white never moves and loses on time), a player who stops
//! mid-game (its opponent claims on time), or abandoned by both (`reportAbandoned`: a
//! walkover or a void match above). The checks: the seed is the draw block's hash; every
//! `MatchStarted` names the mirror's white and black; every winner, lot and walkover is
//! the mirror's (the second event is abandoned by everyone: its final is void, and its
//! prizes are shared as the contract says); every claim equals the mirror's share, the fee its fee, and together they
//! make up the pool; every credit is withdrawn.

use std::collections::BTreeMap;
use std::time::Instant;

use alloy_primitives::{Address, U256};
use chessref_core::tournament::{
    Bracket, BracketSize, MatchIndex, Outcome, Players, Split, lot_white_wins,
};
use chessref_core::{Color, Status};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::bindings::ChessTournament::ChessTournamentEvents as Event;
use crate::bindings::IChessTournamentTypes::EventTerms;
use crate::chain::{Chain, TxReceipt};
use crate::clock_word::GRACE_PERIOD;
use crate::driver::GameDriver;
use crate::ending::EndResult;
use crate::error::EvmError;
use crate::referee::Referee;
use crate::revm_chain::RevmChain;
use crate::stats::GasStats;
use crate::tournament::Tournament;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct TournamentSimOptions {
    /// Events to play.
    pub events: usize,
    /// Seed of every random choice.
    pub seed: u64,
    /// A game still running after this many plies is resigned by the side to move.
    pub max_plies: usize,
}

/// What the simulation did and found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TournamentSimSummary {
    /// Events played to the end.
    pub events: usize,
    /// Events that did not fill and were refunded.
    pub refunded: usize,
    /// Matches decided (games, lots, walkovers, void matches, abandoned games).
    pub matches: usize,
    /// Games hosted.
    pub games: usize,
    /// Moves played in them.
    pub plies: usize,
    /// How matches ended: "board", "lot", "no_show", "stopped", "abandoned", "walkover", "void".
    pub paths: BTreeMap<&'static str, usize>,
    /// Claims checked against the mirror (prizes, refunds, organiser fees).
    pub claims: usize,
    /// Total credited by the claims, in wei.
    pub credited: u128,
    /// Gas per call, by function.
    pub gas: BTreeMap<&'static str, GasStats>,
    /// Every disagreement between the contract and the mirror.
    pub mismatches: usize,
    /// The first 50 of them, described.
    pub mismatch_details: Vec<String>,
    /// Wall time.
    pub seconds: f64,
}

/// The ways a simulated match's game ends (see the module doc).
const PATHS: [(&str, u32); 5] = [
    ("board", 55),
    ("lot", 20),
    ("no_show", 10),
    ("stopped", 10),
    ("abandoned", 5),
];

/// Splits valid for 4 and 8 players, per player of each place from the winner's.
const SPLITS: [&[u16]; 4] = [
    &[10_000],
    &[7_000, 3_000],
    &[6_000, 2_000, 1_000],
    &[5_000, 3_000, 1_000],
];
const SPLITS_8: [&[u16]; 4] = [
    &[6_000, 2_500, 750],
    &[5_001, 2_499, 1_250],
    &[4_000, 2_000, 1_000, 500],
    &[10_000],
];

/// One hour: the registration deadline and `abandonAfter` of every simulated event.
const HOUR: u32 = 3_600;
/// The games' time control: one minute, no increment, a one-minute first-move window.
const MINUTE: u32 = 60;

struct Sim {
    tournament: Tournament<RevmChain>,
    rng: ChaCha8Rng,
    summary: TournamentSimSummary,
    details: Vec<String>,
    gas: BTreeMap<&'static str, Vec<u64>>,
    max_plies: usize,
    /// Every game of the current event is abandoned by both players.
    all_abandoned: bool,
}

/// Plays `options.events` events on the tournament of a fresh referee on `chain`.
pub fn simulate_tournament(
    chain: RevmChain,
    options: &TournamentSimOptions,
) -> Result<TournamentSimSummary, EvmError> {
    let started = Instant::now();
    let referee = Referee::deploy(chain)?;
    let mut sim = Sim {
        tournament: Tournament::of(referee),
        rng: ChaCha8Rng::seed_from_u64(options.seed),
        summary: TournamentSimSummary::default(),
        details: Vec::new(),
        gas: BTreeMap::new(),
        max_plies: options.max_plies,
        all_abandoned: false,
    };
    for i in 0..options.events {
        // The second event is one nobody plays: every game abandoned, the final void.
        sim.all_abandoned = i == 1;
        sim.event()?;
    }
    sim.withdraw_all()?;
    let mut summary = sim.summary;
    summary.gas = sim
        .gas
        .iter()
        .map(|(op, sample)| (*op, GasStats::of(sample)))
        .collect();
    summary.mismatches = sim.details.len();
    summary.mismatch_details = sim.details.into_iter().take(50).collect();
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

impl Sim {
    fn chain(&mut self) -> &mut RevmChain {
        self.tournament.referee().chain()
    }

    fn gas(&mut self, op: &'static str, receipt: &TxReceipt) {
        self.gas.entry(op).or_default().push(receipt.gas_used);
    }

    fn check<T: PartialEq + std::fmt::Debug>(&mut self, what: String, contract: T, mirror: T) {
        if contract != mirror {
            self.details
                .push(format!("{what}: contract {contract:?}, mirror {mirror:?}"));
        }
    }

    fn event(&mut self) -> Result<(), EvmError> {
        let accounts = self.chain().accounts().to_vec();
        let organiser = accounts[accounts.len() - 1];
        let size = BracketSize::new(if self.rng.random_bool(0.5) { 4 } else { 8 })
            .expect("4 and 8 are sizes");
        let splits = if size.players() == 4 {
            SPLITS
        } else {
            SPLITS_8
        };
        let split_bps = splits[self.rng.random_range(0..splits.len())];
        let fee = self
            .rng
            .random_range(1_000_000_000u128..=100_000_000_000_000_000);
        let fee_bps = self.rng.random_range(0..=1_000u16);
        let now = self.chain().timestamp()?;
        let terms = EventTerms {
            token: Address::ZERO,
            fee: alloy_primitives::Uint::<96, 2>::from(fee),
            size: size.players(),
            initialTime: MINUTE,
            increment: 0,
            firstMoveWindow: MINUTE,
            responseWindow: 0,
            deadline: alloy_primitives::Uint::<40, 1>::from(now + u64::from(HOUR)),
            feeBps: fee_bps,
            split: split_bps.to_vec(),
            abandonAfter: HOUR,
        };
        let (id, receipt) = self.tournament.create_event(organiser, terms)?;
        self.gas("createEvent", &receipt);
        let prizes = Split::new(size, split_bps)
            .expect("a valid split")
            .prizes(fee, fee_bps)
            .expect("at most 10 %");

        // Entry order: a random choice of the players (every account but the organiser's).
        let mut players: Vec<Address> = accounts[..accounts.len() - 1].to_vec();
        for i in (1..players.len()).rev() {
            players.swap(i, self.rng.random_range(0..=i));
        }
        players.truncate(usize::from(size.players()));
        let refund = !self.all_abandoned && self.rng.random_range(0..8) == 0;
        let entering = if refund {
            players.len() - 1
        } else {
            players.len()
        };
        for &player in &players[..entering] {
            let receipt = self.tournament.enter(player, id, U256::from(fee))?;
            self.gas("enter", &receipt);
        }
        if refund {
            self.chain().advance_time(u64::from(HOUR) + 1)?;
            for &player in &players[..entering] {
                let (credited, receipt) = self.tournament.claim(player, id)?;
                self.gas("claim (refund)", &receipt);
                self.claimed(format!("event {id}: refund of {player}"), credited, fee);
            }
            self.summary.refunded += 1;
            return Ok(());
        }

        // The draw: the block after the filling entry's; its hash places the entrants.
        let mut drawn = None;
        for _ in 0..3 {
            match self.tournament.draw(organiser, id) {
                Ok(receipt) => {
                    drawn = Some(receipt);
                    break;
                }
                Err(e) if e.revert().is_some() => continue,
                Err(e) => return Err(e),
            }
        }
        let receipt = drawn.ok_or(EvmError::MissingEvent {
            operation: "draw",
            event: "Drawn",
        })?;
        self.gas("draw", &receipt);
        let info = self.tournament.event(id)?;
        let draw_hash = self.chain().block_hash(info.drawBlock.to::<u64>());
        let seed = u64::from_be_bytes(draw_hash.0[24..].try_into().expect("8 bytes"));
        self.check(format!("event {id}: seed"), info.seed, seed);
        let bracket = Bracket { size, seed };

        let mut outcomes: Vec<Option<Outcome>> = vec![None; usize::from(size.players() - 1)];
        for m in size.matches() {
            let outcome = self.play_match(id, bracket, m, &players, &outcomes, organiser)?;
            outcomes[usize::from(m.get())] = Some(outcome);
            self.summary.matches += 1;
        }

        let shares = bracket
            .shares(&prizes, &outcomes)
            .expect("every match decided");
        let mut total = U256::ZERO;
        for (index, &player) in players.iter().enumerate() {
            let (credited, receipt) = self.tournament.claim(player, id)?;
            self.gas("claim", &receipt);
            self.claimed(
                format!("event {id}: prize of entrant {index}"),
                credited,
                shares[index],
            );
            total += credited;
        }
        let (credited, receipt) = self.tournament.claim_fee(organiser, id)?;
        self.gas("claimFee", &receipt);
        self.claimed(
            format!("event {id}: organiser fee"),
            credited,
            prizes.organiser_fee,
        );
        total += credited;
        self.check(
            format!("event {id}: prizes and fee"),
            total,
            U256::from(fee) * U256::from(size.players()),
        );
        self.summary.events += 1;
        Ok(())
    }

    fn claimed(&mut self, what: String, credited: U256, mirror: u128) {
        self.check(what, credited, U256::from(mirror));
        self.summary.claims += 1;
        self.summary.credited += credited.saturating_to::<u128>();
    }

    /// Starts match `m`, plays its game by a random path and records its result; the
    /// mirror's outcome.
    fn play_match(
        &mut self,
        id: U256,
        bracket: Bracket,
        m: MatchIndex,
        players: &[Address],
        outcomes: &[Option<Outcome>],
        organiser: Address,
    ) -> Result<Outcome, EvmError> {
        let at = |i: u8| players[usize::from(i)];
        let (lo, hi) = match bracket.players(m, outcomes) {
            Players::Known { lo, hi } => (lo, hi),
            Players::Walkover(winner) => {
                let started = self.tournament.start(organiser, id, m.get())?;
                self.gas("start (walkover)", &started.receipt);
                let decided = self.decided(&started.receipt);
                self.check(
                    format!("event {id} match {}: walkover", m.get()),
                    (started.hosted.is_none(), decided),
                    (true, Some(at(winner))),
                );
                *self.summary.paths.entry("walkover").or_default() += 1;
                return Ok(Outcome::Walkover { winner });
            }
            Players::Void => {
                let started = self.tournament.start(organiser, id, m.get())?;
                self.gas("start (void)", &started.receipt);
                let status = self.tournament.match_info(id, m.get())?.status;
                self.check(
                    format!("event {id} match {}: void", m.get()),
                    (started.hosted.is_none(), status),
                    (true, 4),
                );
                *self.summary.paths.entry("void").or_default() += 1;
                return Ok(Outcome::Void);
            }
            Players::Unknown => unreachable!("matches are played in the contract's order"),
        };
        let (white, black) = bracket.colours(m, lo, hi);
        let started = self.tournament.start(at(white), id, m.get())?;
        self.gas("start", &started.receipt);
        let Some(hosted) = started.hosted else {
            self.details.push(format!(
                "event {id} match {}: no game hosted between {lo} and {hi}",
                m.get()
            ));
            return Ok(Outcome::Won {
                winner: lo,
                loser: hi,
            });
        };
        self.check(
            format!("event {id} match {}: white, black", m.get()),
            (hosted.white, hosted.black),
            (at(white), at(black)),
        );
        self.summary.games += 1;
        let mut game = GameDriver::hosted(
            self.tournament.referee(),
            hosted.game_id,
            hosted.white,
            hosted.black,
            hosted.clock,
        )?;

        let mut roll = self.rng.random_range(0..100);
        let path = PATHS.iter().find(|(_, weight)| {
            let hit = roll < *weight;
            roll = roll.saturating_sub(*weight);
            hit
        });
        let path = if self.all_abandoned {
            "abandoned"
        } else {
            path.map_or("board", |(name, _)| *name)
        };
        let (by, lo_wins) = match path {
            "abandoned" | "stopped" => {
                let plies = self.rng.random_range(0..12);
                self.random_moves(&mut game, plies)?;
                if game.ending.is_none() {
                    // Past any deadline of a one-minute game (window, time, grace), and for
                    // an abandoned game past the event's `abandonAfter` too.
                    let wait = u64::from(MINUTE * 3) + GRACE_PERIOD;
                    if path == "abandoned" {
                        self.chain().advance_time(wait + u64::from(HOUR) + 1)?;
                        let receipt = self.tournament.report_abandoned(
                            organiser,
                            id,
                            m.get(),
                            &game.position,
                        )?;
                        self.gas("reportAbandoned", &receipt);
                        *self.summary.paths.entry("abandoned").or_default() += 1;
                        self.summary.plies += game.plies;
                        self.take_mismatches(&mut game);
                        return Ok(Outcome::Abandoned { lo, hi });
                    }
                    self.chain().advance_time(wait)?;
                    let waiter = game.waiter();
                    let acted =
                        self.tournament
                            .referee()
                            .claim_timeout(waiter, game.id, &game.position)?;
                    game.ending = acted.ending;
                }
                self.result(&game, white, lo, path)
            }
            "no_show" => {
                self.chain()
                    .advance_time(u64::from(MINUTE * 2) + GRACE_PERIOD + 1)?;
                let acted =
                    self.tournament
                        .referee()
                        .claim_timeout(game.black, game.id, &game.position)?;
                game.ending = acted.ending;
                self.check(
                    format!("event {id} match {}: no-show", m.get()),
                    game.ending.map(|e| e.result),
                    Some(EndResult::BlackWins),
                );
                self.result(&game, white, lo, path)
            }
            "lot" => {
                let plies = self.rng.random_range(0..10);
                self.random_moves(&mut game, plies)?;
                if game.ending.is_none() {
                    game.finish(self.tournament.referee(), Some("1/2-1/2"))?;
                }
                self.result(&game, white, lo, path)
            }
            _ => {
                let max = self.max_plies;
                self.random_moves(&mut game, max)?;
                if game.ending.is_none() {
                    let result = if game.state.turn() == Color::White {
                        "0-1"
                    } else {
                        "1-0"
                    };
                    game.finish(self.tournament.referee(), Some(result))?;
                }
                self.result(&game, white, lo, path)
            }
        };
        self.summary.plies += game.plies;
        self.take_mismatches(&mut game);
        let winner = match lo_wins {
            Some(lo_wins) => {
                let receipt =
                    self.tournament
                        .report(at(if lo_wins { lo } else { hi }), id, m.get())?;
                self.gas("report", &receipt);
                let decided = self.decided(&receipt);
                let winner = if lo_wins { lo } else { hi };
                self.check(
                    format!("event {id} match {}: winner", m.get()),
                    decided,
                    Some(at(winner)),
                );
                winner
            }
            None => self.lot(id, m, white, lo, hi, at(black))?,
        };
        *self.summary.paths.entry(by).or_default() += 1;
        let loser = if winner == lo { hi } else { lo };
        Ok(Outcome::Won { winner, loser })
    }

    /// The path's name and whether lo won (`None`: a draw, decided by lot).
    fn result(
        &mut self,
        game: &GameDriver,
        white: u8,
        lo: u8,
        path: &'static str,
    ) -> (&'static str, Option<bool>) {
        let white_is_lo = white == lo;
        match game.ending.map(|e| e.result) {
            Some(EndResult::WhiteWins) => (path, Some(white_is_lo)),
            Some(EndResult::BlackWins) => (path, Some(!white_is_lo)),
            _ => ("lot", None),
        }
    }

    /// Arms and resolves the lot of drawn match `m`; the winner's index.
    fn lot(
        &mut self,
        id: U256,
        m: MatchIndex,
        white: u8,
        lo: u8,
        hi: u8,
        reporter: Address,
    ) -> Result<u8, EvmError> {
        let receipt = self.tournament.report(reporter, id, m.get())?;
        self.gas("report (draw)", &receipt);
        let lot_block = self
            .tournament
            .events(&receipt.logs)
            .into_iter()
            .find_map(|e| match e {
                Event::LotArmed(e) => Some(e.lotBlock),
                _ => None,
            })
            .ok_or(EvmError::MissingEvent {
                operation: "report",
                event: "LotArmed",
            })?;
        let mut resolved = None;
        for _ in 0..3 {
            match self.tournament.resolve_lot(reporter, id, m.get()) {
                Ok(receipt) => {
                    resolved = Some(receipt);
                    break;
                }
                Err(e) if e.revert().is_some() => continue,
                Err(e) => return Err(e),
            }
        }
        let receipt = resolved.ok_or(EvmError::MissingEvent {
            operation: "resolveLot",
            event: "MatchDecided",
        })?;
        self.gas("resolveLot", &receipt);
        let hash = self.chain().block_hash(lot_block.to::<u64>());
        let white_wins = lot_white_wins(hash, id, m);
        let black = if white == lo { hi } else { lo };
        let winner = if white_wins { white } else { black };
        let decided = self.decided(&receipt);
        let expected = self.tournament.entrant(id, winner)?;
        self.check(
            format!("event {id} match {}: lot", m.get()),
            decided,
            Some(expected),
        );
        Ok(winner)
    }

    /// The winner a receipt's `MatchDecided` names.
    fn decided(&self, receipt: &TxReceipt) -> Option<Address> {
        self.tournament
            .events(&receipt.logs)
            .into_iter()
            .find_map(|e| match e {
                Event::MatchDecided(e) => Some(e.winner),
                _ => None,
            })
    }

    /// Plays up to `plies` random legal moves (fewer if the game ends).
    fn random_moves(&mut self, game: &mut GameDriver, plies: usize) -> Result<(), EvmError> {
        for _ in 0..plies {
            if game.ending.is_some() || game.state.status() != Status::Ongoing {
                break;
            }
            let moves = game.state.legal_moves();
            let mv = moves[self.rng.random_range(0..moves.len())];
            if !game.play(self.tournament.referee(), mv)? {
                break;
            }
        }
        Ok(())
    }

    fn take_mismatches(&mut self, game: &mut GameDriver) {
        self.details
            .extend(game.mismatches.drain(..).map(|m| m.to_string()));
    }

    /// Withdraws every account's credit; each must then read 0.
    fn withdraw_all(&mut self) -> Result<(), EvmError> {
        let accounts = self.chain().accounts().to_vec();
        for account in accounts {
            if self.tournament.credits(account, Address::ZERO)? == U256::ZERO {
                continue;
            }
            let receipt = self.tournament.withdraw(account, Address::ZERO)?;
            self.gas("withdraw", &receipt);
            let left = self.tournament.credits(account, Address::ZERO)?;
            self.check(
                format!("credit of {account} after withdraw"),
                left,
                U256::ZERO,
            );
        }
        let address = self.tournament.address();
        let balance = self.chain().balance(address)?;
        self.check(
            "the tournament's balance once all is withdrawn".to_string(),
            balance,
            U256::ZERO,
        );
        Ok(())
    }
}
