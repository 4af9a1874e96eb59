//! Replaying PGN games as transactions through `ChessReferee`, every ply
//! compared with the Rust mirror (see [`GameDriver`]).

use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};
use chessref_core::{Move, PgnError, PgnGame, RawMove, Replay, SanError, Status};
use serde::Serialize;

use crate::{
    chain::Chain,
    driver::{GameDriver, Mismatch},
    ending::{Ending, EndingCounts},
    error::EvmError,
    referee::Referee,
    stats::GasStats,
};

/// Stake each side puts up in replayed games (wei): small, but non-zero so
/// the payout paths run.
pub const REPLAY_STAKE: U256 = U256::from_limbs([1_000_000_000_000_000, 0, 0, 0]);

/// What replaying one game found.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// 1-based index of the game in the PGN.
    pub index: usize,
    /// Plies played on chain.
    pub plies: usize,
    /// Gas of each move transaction.
    pub move_gas: Vec<u64>,
    /// Disagreements between contract and Rust.
    pub mismatches: Vec<Mismatch>,
    /// Why the PGN's main line stopped before its end (an illegal move, a
    /// move after an automatic end), if it did: not a contract mismatch.
    pub note: Option<String>,
    /// The game's ending on chain, if it ended.
    pub ending: Option<Ending>,
    /// The section 6 code of the move given as squares that chessref-core
    /// refused, when it was sent to the contract too (which must revert with
    /// the same code; another answer is a mismatch).
    pub refused_code: Option<u8>,
}

impl GameReport {
    /// The report of game `index`, not played on chain because of `note`.
    fn unplayed(index: usize, note: String) -> GameReport {
        GameReport {
            index,
            plies: 0,
            move_gas: Vec::new(),
            mismatches: Vec::new(),
            note: Some(note),
            ending: None,
            refused_code: None,
        }
    }
}

/// Totals over a replay.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplaySummary {
    /// Games replayed.
    pub games: usize,
    /// Plies played on chain.
    pub plies: usize,
    /// Disagreements between contract and Rust.
    pub mismatches: usize,
    /// Games whose PGN stopped early (illegal move, play after the end) or could not be read.
    pub pgn_errors: usize,
    /// Games per ending on chain.
    pub endings: EndingCounts,
    /// Gas per move transaction.
    pub gas: GasStats,
    /// Plies per second of wall time, comparisons included.
    pub moves_per_sec: f64,
    /// Wall time, seconds.
    pub seconds: f64,
    /// The chain used.
    pub chain: String,
}

/// A game read from the PGN and replayed by chessref-core, ready for the chain
/// ([`Prepared::of`]); lets a reader thread do the Rust side and hand the chain
/// side to workers, each game's on-chain id known in advance.
#[derive(Debug)]
pub enum Prepared {
    /// Not played on chain (unreadable PGN, illegal start, start already over).
    Unplayed(GameReport),
    /// To be played on chain.
    Play {
        /// The game as read.
        game: Box<PgnGame>,
        /// chessref-core's replay of its main line.
        prefix: Box<Replay>,
    },
}

impl Prepared {
    /// Reads and replays `game` in Rust, exactly as [`Replayer::replay`] does.
    pub fn of(game: Result<PgnGame, PgnError>) -> Prepared {
        match game {
            Err(e) => {
                Prepared::Unplayed(GameReport::unplayed(e.game().unwrap_or(0), e.to_string()))
            }
            Ok(game) => match game.replay_prefix() {
                Err(e) => Prepared::Unplayed(GameReport::unplayed(game.index, e.to_string())),
                Ok(prefix) => match start_over(&game, &prefix) {
                    Some(report) => Prepared::Unplayed(report),
                    None => Prepared::Play {
                        game: Box::new(game),
                        prefix: Box::new(prefix),
                    },
                },
            },
        }
    }

    /// Whether playing it creates a game on chain (takes the next game id).
    pub fn creates_game(&self) -> bool {
        matches!(self, Prepared::Play { .. })
    }
}

/// The report of a game whose start position is already over (never created on chain).
fn start_over(game: &PgnGame, prefix: &Replay) -> Option<GameReport> {
    let replayed = &prefix.game;
    // The game's status is its last state's: the start's when no move was played.
    (replayed.plies() == 0 && replayed.status().is_over()).then(|| {
        GameReport::unplayed(
            game.index,
            format!("game {}: the start position is already over", game.index),
        )
    })
}

/// Running totals over game reports (what [`Replayer::summary`] reports).
#[derive(Clone, Debug, Default)]
pub struct Tally {
    summary: ReplaySummary,
    gas: Vec<u64>,
}

impl Tally {
    /// Empty totals on the chain described by `chain`.
    pub fn new(chain: String) -> Tally {
        Tally {
            summary: ReplaySummary {
                chain,
                ..Default::default()
            },
            gas: Vec::new(),
        }
    }

    /// Adds one game's report.
    pub fn add(&mut self, report: &GameReport) {
        self.summary.games += 1;
        self.summary.plies += report.plies;
        self.summary.mismatches += report.mismatches.len();
        if report.note.is_some() {
            self.summary.pgn_errors += 1;
        }
        if let Some(ending) = report.ending {
            self.summary.endings.add(ending);
        }
        self.gas.extend_from_slice(&report.move_gas);
    }

    /// The totals, `seconds` being the time they took.
    pub fn summary(&self, seconds: f64) -> ReplaySummary {
        let mut summary = self.summary.clone();
        summary.gas = GasStats::of(&self.gas);
        summary.seconds = seconds;
        summary.moves_per_sec = if seconds > 0.0 {
            summary.plies as f64 / seconds
        } else {
            0.0
        };
        summary
    }
}

/// Replays games on one `ChessReferee`, white and black being the chain's
/// first two accounts.
#[derive(Debug)]
pub struct Replayer<C: Chain> {
    referee: Referee<C>,
    white: Address,
    black: Address,
    tally: Tally,
    busy: Duration,
}

impl<C: Chain> Replayer<C> {
    /// Deploys a fresh referee on `chain`.
    pub fn new(chain: C) -> Result<Self, EvmError> {
        let describe = chain.describe();
        let referee = Referee::deploy(chain)?;
        Self::with_referee(referee, describe)
    }

    /// Uses an already deployed referee.
    pub fn with_referee(mut referee: Referee<C>, describe: String) -> Result<Self, EvmError> {
        let accounts = referee.chain().accounts().to_vec();
        if accounts.len() < 2 {
            return Err(EvmError::Chain(crate::ChainError::NoAccounts));
        }
        Ok(Replayer {
            referee,
            white: accounts[0],
            black: accounts[1],
            tally: Tally::new(describe),
            busy: Duration::ZERO,
        })
    }

    /// The referee driven.
    pub fn referee(&mut self) -> &mut Referee<C> {
        &mut self.referee
    }

    /// Replays one game (or records why its PGN is unreadable).
    pub fn replay(&mut self, game: Result<PgnGame, PgnError>) -> Result<GameReport, EvmError> {
        let started = Instant::now();
        let report = match Prepared::of(game) {
            Prepared::Unplayed(report) => Ok(report),
            Prepared::Play { game, prefix } => self.play_prefix(&game, &prefix),
        };
        self.account(started, report)
    }

    /// Plays a game [`Prepared::of`] read (and counts it in the totals).
    pub fn replay_prepared(&mut self, prepared: Prepared) -> Result<GameReport, EvmError> {
        let started = Instant::now();
        let report = match prepared {
            Prepared::Unplayed(report) => Ok(report),
            Prepared::Play { game, prefix } => self.play_prefix(&game, &prefix),
        };
        self.account(started, report)
    }

    /// Replays on chain a game chessref-core has already replayed (`prefix`,
    /// from [`PgnGame::replay_prefix`]): each ply's state and status come
    /// from that replay and are compared with the contract's, not computed again.
    pub fn replay_known(
        &mut self,
        game: &PgnGame,
        prefix: &Replay,
    ) -> Result<GameReport, EvmError> {
        let started = Instant::now();
        let report = self.play_prefix(game, prefix);
        self.account(started, report)
    }

    /// Adds a game's report to the totals.
    fn account(
        &mut self,
        started: Instant,
        report: Result<GameReport, EvmError>,
    ) -> Result<GameReport, EvmError> {
        self.busy += started.elapsed();
        let report = report?;
        self.tally.add(&report);
        Ok(report)
    }

    fn play_prefix(&mut self, game: &PgnGame, prefix: &Replay) -> Result<GameReport, EvmError> {
        let replayed = &prefix.game;
        let start = *replayed.start();
        if let Some(report) = start_over(game, prefix) {
            return Ok(report);
        }
        let (white, black) = (self.white, self.black);
        let credits_before = (
            self.referee.credits(white, Address::ZERO)?,
            self.referee.credits(black, Address::ZERO)?,
        );
        let mut driver = GameDriver::start(&mut self.referee, white, black, start, REPLAY_STAKE)?;
        let last = replayed.plies();
        let mut all_played = true;
        for (ply, (&mv, &next)) in (1..).zip(replayed.moves().iter().zip(&replayed.states()[1..])) {
            // A game takes moves only while it goes on: every state but the last is ongoing.
            let status = if ply == last {
                replayed.status()
            } else {
                Status::Ongoing
            };
            if !driver.play_known(&mut self.referee, mv, next, status)? {
                all_played = false;
                break;
            }
        }
        let mut refused_code = None;
        match &prefix.error {
            None => driver.finish(&mut self.referee, game.result.as_deref())?,
            // A move given as squares that chessref-core refused: the contract must
            // refuse it with the same code.
            Some(PgnError::IllegalMove {
                reason: SanError::Rejected { uci, .. },
                ..
            }) if all_played => {
                let raw = Move::from_uci(uci).map(RawMove::from);
                if let Ok(raw) = raw
                    && driver.state.check(raw).is_err()
                {
                    refused_code = Some(driver.attempt_illegal(&mut self.referee, raw)?);
                }
            }
            Some(_) => {}
        }
        let (dw, db) = driver.expected_credits();
        let credits_after = (
            self.referee.credits(white, Address::ZERO)?,
            self.referee.credits(black, Address::ZERO)?,
        );
        driver.record(
            "credits",
            (credits_before.0 + dw, credits_before.1 + db),
            credits_after,
        );
        Ok(GameReport {
            index: game.index,
            plies: driver.plies,
            move_gas: std::mem::take(&mut driver.move_gas),
            mismatches: std::mem::take(&mut driver.mismatches),
            note: prefix.error.as_ref().map(ToString::to_string),
            ending: driver.ending,
            refused_code,
        })
    }

    /// Totals so far.
    pub fn summary(&self) -> ReplaySummary {
        self.tally.summary(self.busy.as_secs_f64())
    }

    /// Gas of every move transaction so far.
    pub fn move_gas(&self) -> &[u64] {
        &self.tally.gas
    }
}

impl Replayer<crate::RevmChain> {
    /// Makes the next `createGame` return `id` (on the in-process chain, by writing
    /// the contract's `nextGameId` slot): a worker replaying part of a PGN gives each
    /// game the id, hence the calldata and the gas, it has in a replay of the whole.
    pub fn set_next_game_id(&mut self, id: U256) -> Result<(), EvmError> {
        self.referee.set_next_game_id(id)
    }
}
