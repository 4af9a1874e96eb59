//! Random games through `ChessReferee`: random legal moves, and at a given
//! rate random illegal attempts that must revert with exactly the code the
//! Rust mirror predicts and change nothing.

use std::time::Instant;

use alloy_primitives::Address;
use chessref_core::{RawMove, State};
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::{
    chain::Chain,
    driver::{GameDriver, Mismatch},
    ending::EndingCounts,
    error::EvmError,
    referee::Referee,
    replay::REPLAY_STAKE,
    stats::GasStats,
};

/// Settings of a simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct SimulateOptions {
    /// Games to play.
    pub games: usize,
    /// Seed of the random choices (same seed, same games).
    pub seed: u64,
    /// Probability, before each legal move, of first sending an illegal one (0..=1).
    pub illegal_rate: f64,
    /// A game still running after this many plies is resigned by the side to move.
    pub max_plies: usize,
}

impl Default for SimulateOptions {
    fn default() -> Self {
        SimulateOptions {
            games: 10,
            seed: 1,
            illegal_rate: 0.0,
            max_plies: 300,
        }
    }
}

/// Totals of a simulation.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SimulateSummary {
    /// Games played.
    pub games: usize,
    /// Legal moves played on chain.
    pub plies: usize,
    /// Illegal attempts sent.
    pub illegal_attempts: usize,
    /// Illegal attempts per section 6 code (index = code).
    pub illegal_by_code: [usize; 15],
    /// Disagreements between contract and Rust.
    pub mismatches: usize,
    /// The first disagreements, in full.
    pub mismatch_details: Vec<String>,
    /// Gas per legal move transaction.
    pub gas: GasStats,
    /// Games per ending.
    pub endings: EndingCounts,
    /// Wall time, seconds.
    pub seconds: f64,
    /// The chain used.
    pub chain: String,
    /// Gas of every legal move (for the histogram).
    #[serde(skip)]
    pub move_gas: Vec<u64>,
}

/// A random illegal raw move in `state` (the Rust side decides legality):
/// off-board squares, wrong pieces, random targets and bad promotions mixed.
pub fn random_illegal(state: &State, rng: &mut impl Rng) -> RawMove {
    loop {
        let square = |rng: &mut dyn FnMut() -> u8| rng();
        let mut any_board = || {
            let i: u8 = rng.random_range(0..64);
            (i / 8) * 16 + i % 8
        };
        let from = square(&mut any_board);
        let to = square(&mut any_board);
        let raw = match rng.random_range(0..10) {
            0 => RawMove {
                from,
                to: rng.random(),
                promotion: 0,
            },
            1 => RawMove {
                from: rng.random(),
                to,
                promotion: rng.random_range(0..8),
            },
            2 => RawMove {
                from,
                to,
                promotion: rng.random(),
            },
            _ => {
                // Mostly the mover's own pieces: the interesting codes 6 to 14.
                let own: Vec<u8> = (0..128u8)
                    .filter(|i| i & 0x88 == 0)
                    .filter(|&i| {
                        chessref_core::Square::new(i)
                            .and_then(|sq| state.piece_at(sq))
                            .is_some_and(|p| p.color == state.turn())
                    })
                    .collect();
                let from = own[rng.random_range(0..own.len())];
                let promotion = if rng.random_bool(0.1) {
                    rng.random_range(0..7)
                } else {
                    0
                };
                RawMove {
                    from,
                    to,
                    promotion,
                }
            }
        };
        if state.check(raw).is_err() {
            return raw;
        }
    }
}

/// Plays `options.games` random games on a fresh referee on `chain`;
/// `on_game` sees each game's driver when it ends.
pub fn simulate<C: Chain>(
    chain: C,
    options: &SimulateOptions,
    mut on_game: impl FnMut(&GameDriver),
) -> Result<SimulateSummary, EvmError> {
    let describe = chain.describe();
    let mut referee = Referee::deploy(chain)?;
    let accounts = referee.chain().accounts().to_vec();
    let (white, black): (Address, Address) = (accounts[0], accounts[1]);
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut summary = SimulateSummary {
        chain: describe,
        ..Default::default()
    };
    let mut mismatches: Vec<Mismatch> = Vec::new();
    let started = Instant::now();
    for _ in 0..options.games {
        let mut driver =
            GameDriver::start(&mut referee, white, black, State::initial(), REPLAY_STAKE)?;
        while driver.ending.is_none() && driver.plies < options.max_plies {
            if options.illegal_rate > 0.0 && rng.random_bool(options.illegal_rate.clamp(0.0, 1.0)) {
                let raw = random_illegal(&driver.state, &mut rng);
                let code = driver.attempt_illegal(&mut referee, raw)?;
                summary.illegal_attempts += 1;
                summary.illegal_by_code[code as usize] += 1;
            }
            let moves = driver.state.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            if !driver.play(&mut referee, mv)? {
                break;
            }
        }
        if driver.ending.is_none() {
            let result = if driver.state.turn() == chessref_core::Color::White {
                "0-1"
            } else {
                "1-0"
            };
            driver.finish(&mut referee, Some(result))?;
        }
        summary.games += 1;
        summary.plies += driver.plies;
        if let Some(ending) = driver.ending {
            summary.endings.add(ending);
        }
        summary.move_gas.extend_from_slice(&driver.move_gas);
        on_game(&driver);
        mismatches.append(&mut driver.mismatches);
    }
    summary.seconds = started.elapsed().as_secs_f64();
    summary.mismatches = mismatches.len();
    summary.mismatch_details = mismatches
        .iter()
        .take(50)
        .map(ToString::to_string)
        .collect();
    summary.gas = GasStats::of(&summary.move_gas);
    Ok(summary)
}
