//! `simulate --channel`: seeded games played off-chain with signed moves
//! (docs/CHANNEL.md), each ending by one path of the protocol (a signed result, a
//! signed resignation, a decided position registered, a player who stops answering,
//! a stale registration overtaken, equivocation, an illegal signed move), settled on
//! the chain; every outcome and both players' credits are checked against what the
//! Rust mirror predicts.

use std::collections::BTreeMap;
use std::time::Instant;

use alloy_primitives::{Address, B256, U256, aliases::U24};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::messages::Message;
use chessref_channel::{Auth, Move, NoContractWallets, check_successor, settlement};
use chessref_core::{Color, State, Status};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::{
    chain::Chain,
    ending::{EndReason, EndResult, Ending},
    error::EvmError,
    referee::{GameSetup, Referee},
    stats::GasStats,
};

/// The ways a simulated game ends.
pub const KINDS: [&str; 7] = [
    "agreed",
    "resigned",
    "decided",
    "stalled",
    "overtaken",
    "equivocation",
    "illegal",
];

/// Settings of a channel simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelSimOptions {
    /// Games to play.
    pub games: usize,
    /// Seed of every random choice.
    pub seed: u64,
    /// Most plies played off-chain before the game's ending path is taken.
    pub max_plies: usize,
}

/// Totals of a channel simulation.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ChannelSimSummary {
    /// Games played.
    pub games: usize,
    /// Signed moves exchanged off-chain.
    pub signed_moves: usize,
    /// Games whose outcome or final credits differ from the mirror's prediction, or
    /// whose protocol call failed.
    pub mismatches: usize,
    /// The first mismatches, in full.
    pub mismatch_details: Vec<String>,
    /// Games per ending path.
    pub endings: BTreeMap<&'static str, usize>,
    /// Gas of every transaction of one game (create, join, settle) for the games
    /// settled without a dispute (agreed, resigned, decided).
    pub game_gas: GasStats,
    /// Gas of each registration (`register`, the dispute path).
    pub register_gas: GasStats,
    /// Gas of each proof of cheating.
    pub proof_gas: GasStats,
    /// Gas of every transaction of one game, create and join included, per ending path.
    pub gas_by_ending: BTreeMap<&'static str, GasStats>,
    /// Wall time, seconds.
    pub seconds: f64,
    /// The chain used.
    pub chain: String,
}

/// Stake of each player in a simulated game.
const STAKE: u64 = 1_000_000;
const RESPONSE_WINDOW: u32 = 600;

struct Table {
    /// Gas of the current game's transactions so far.
    current: u64,
    game_gas: Vec<u64>,
    register_gas: Vec<u64>,
    proof_gas: Vec<u64>,
}

/// Plays `options.games` channel games on a fresh referee on `chain`.
pub fn simulate_channel<C: Chain>(
    chain: C,
    options: &ChannelSimOptions,
) -> Result<ChannelSimSummary, EvmError> {
    let describe = chain.describe();
    let mut referee = Referee::deploy(chain)?;
    let accounts = referee.chain().accounts().to_vec();
    let players: Vec<(Address, PrivateKeySigner)> = accounts
        .iter()
        .skip(1)
        .take(2)
        .map(|a| referee.chain().signer(*a).map(|k| (*a, k)))
        .collect::<Option<_>>()
        .ok_or_else(|| EvmError::Decode {
            operation: "simulate --channel",
            message: "the chain's accounts 1 and 2 must have keys the harness holds (revm, or anvil's defaults)".into(),
        })?;
    let domain = referee.channel_domain()?;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut summary = ChannelSimSummary {
        chain: describe,
        ..Default::default()
    };
    let mut table = Table {
        current: 0,
        game_gas: Vec::new(),
        register_gas: Vec::new(),
        proof_gas: Vec::new(),
    };
    let mut by_ending: BTreeMap<&'static str, Vec<u64>> = BTreeMap::new();
    let started = Instant::now();
    for n in 0..options.games {
        let kind = KINDS[n % KINDS.len()];
        let swap = rng.random_bool(0.5);
        let (white, black) = if swap {
            (&players[1], &players[0])
        } else {
            (&players[0], &players[1])
        };
        let mut setup = GameSetup::eth(black.0, U256::from(STAKE));
        setup.initial_time = 600;
        setup.increment = 5;
        let created = referee.create_channel_game(white.0, &setup, RESPONSE_WINDOW)?;
        let joined = referee.join_game(black.0, created.id, U256::from(STAKE))?;
        let terms = referee.channel_game(created.id, None)?;
        let seat = |k: &PrivateKeySigner, rng: &mut ChaCha8Rng| -> Result<Seat, EvmError> {
            if rng.random_bool(0.5) {
                Ok(Seat::wallet(k.clone()))
            } else {
                Seat::with_session(k.clone(), random_key(rng), &domain, &terms).map_err(sign_error)
            }
        };
        let (ws, bs) = (seat(&white.1, &mut rng)?, seat(&black.1, &mut rng)?);
        let mut game = OffChainGame::new(domain, terms.clone(), ws, bs).map_err(sign_error)?;
        let credits_before = [
            referee.credits(white.0, Address::ZERO)?,
            referee.credits(black.0, Address::ZERO)?,
        ];
        let setup_gas = created.receipt.gas_used + joined.receipt.gas_used;

        let plies = rng.random_range(2..=options.max_plies.max(2));
        table.current = setup_gas;
        let outcome = run_game(
            &mut referee,
            &mut game,
            kind,
            plies,
            [white.0, black.0],
            &mut rng,
            &mut table,
        );
        by_ending.entry(kind).or_default().push(table.current);
        summary.games += 1;
        summary.signed_moves += game.moves.len() - 1;
        *summary.endings.entry(kind).or_default() += 1;
        let failure = match outcome {
            Err(e) => Some(format!("game {} ({kind}): {e}", created.id)),
            Ok((predicted, actual)) if Some(predicted) != actual => Some(format!(
                "game {} ({kind}): predicted {predicted}, the chain says {}",
                created.id,
                actual.map_or("still running".to_owned(), |e| e.to_string())
            )),
            Ok((predicted, _)) => {
                let paid = [
                    referee.credits(white.0, Address::ZERO)? - credits_before[0],
                    referee.credits(black.0, Address::ZERO)? - credits_before[1],
                ];
                let expected = payout(predicted);
                (paid != expected).then(|| {
                    format!(
                        "game {} ({kind}): credited {paid:?}, predicted {expected:?}",
                        created.id
                    )
                })
            }
        };
        if let Some(f) = failure {
            summary.mismatches += 1;
            if summary.mismatch_details.len() < 10 {
                summary.mismatch_details.push(f);
            }
        }
    }
    summary.game_gas = GasStats::of(&table.game_gas);
    summary.register_gas = GasStats::of(&table.register_gas);
    summary.proof_gas = GasStats::of(&table.proof_gas);
    summary.gas_by_ending = by_ending
        .iter()
        .map(|(k, v)| (*k, GasStats::of(v)))
        .collect();
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

fn sign_error(e: impl std::fmt::Display) -> EvmError {
    EvmError::Decode {
        operation: "sign",
        message: e.to_string(),
    }
}

fn random_key(rng: &mut ChaCha8Rng) -> PrivateKeySigner {
    loop {
        if let Ok(k) = PrivateKeySigner::from_bytes(&B256::from(rng.random::<[u8; 32]>())) {
            return k;
        }
    }
}

/// `[white, black]` credits an ending pays.
fn payout(e: Ending) -> [U256; 2] {
    let (stake, none) = (U256::from(STAKE), U256::ZERO);
    match e.result {
        EndResult::WhiteWins => [stake * U256::from(2), none],
        EndResult::BlackWins => [none, stake * U256::from(2)],
        EndResult::Draw | EndResult::Aborted => [stake, stake],
    }
}

fn ending(result: u8, reason: u8) -> Ending {
    Ending::from_codes(result, reason).expect("codes of the protocol")
}

/// The opponent of the author of `m` wins with `reason`.
fn loses(m: &Move, reason: EndReason) -> Ending {
    let author = chessref_channel::author_of(m).expect("128 bytes");
    Ending {
        result: if author == Color::White {
            EndResult::BlackWins
        } else {
            EndResult::WhiteWins
        },
        reason,
    }
}

/// Plays up to `plies` random honest moves, fewer if the game ends automatically.
fn play_random(
    game: &mut OffChainGame,
    plies: usize,
    rng: &mut ChaCha8Rng,
) -> Result<(), EvmError> {
    for _ in 0..plies {
        let state = State::from_bytes(&game.last().state).expect("an honest state");
        if state.status() != Status::Ongoing {
            break;
        }
        let legal = state.legal_moves();
        game.play(
            legal[rng.random_range(0..legal.len())],
            rng.random_range(0..30),
        )
        .map_err(sign_error)?;
    }
    Ok(())
}

/// Takes `kind`'s path; returns the mirror's prediction and what the chain reported.
#[allow(clippy::too_many_arguments)]
fn run_game<C: Chain>(
    referee: &mut Referee<C>,
    game: &mut OffChainGame,
    kind: &str,
    plies: usize,
    [white, black]: [Address; 2],
    rng: &mut ChaCha8Rng,
    table: &mut Table,
) -> Result<(Ending, Option<Ending>), EvmError> {
    let id = game.game.game_id;
    let player = |c: Color| if c == Color::White { white } else { black };
    match kind {
        "agreed" | "resigned" | "decided" => {
            play_random(game, if kind == "decided" { 400 } else { plies }, rng)?;
            let decided = State::from_bytes(&game.last().state)
                .expect("honest")
                .status()
                != Status::Ongoing;
            let transcript = if kind == "resigned" {
                let by = if rng.random_bool(0.5) {
                    Color::White
                } else {
                    Color::Black
                };
                game.transcript_resigned(by).map_err(sign_error)?
            } else if kind == "agreed" || !decided {
                game.transcript_agreed(rng.random_range(1..=3))
                    .map_err(sign_error)?
            } else {
                game.transcript()
            };
            let report = transcript.verify(&NoContractWallets).map_err(sign_error)?;
            let (r, why) = report
                .settlement
                .ends
                .ok_or_else(|| sign_error("an honest game has an ending call"))?;
            let acted = referee.send_channel(white, &report.settlement)?;
            table.current += acted.receipt.gas_used;
            table.game_gas.push(table.current);
            Ok((ending(r, why), acted.ending))
        }
        "stalled" => {
            // The side to move stops answering: its opponent registers the latest pair
            // and, once the time plus the response window is gone, claims on time.
            play_random(game, plies, rng)?;
            let report = game
                .transcript()
                .verify(&NoContractWallets)
                .map_err(sign_error)?;
            let staller = State::from_bytes(&game.last().state)
                .expect("honest")
                .turn();
            let claimant = player(!staller);
            let acted = referee.send_channel(claimant, &report.settlement)?;
            table.register_gas.push(acted.receipt.gas_used);
            table.current += acted.receipt.gas_used;
            if let Some(ended) = acted.ending {
                // The last move decided the game: the registration settled it.
                let (r, why) = report
                    .settlement
                    .ends
                    .ok_or_else(|| sign_error("a decided registration predicts its end"))?;
                return Ok((ending(r, why), Some(ended)));
            }
            let registered = referee
                .registered(&acted)
                .ok_or_else(|| sign_error("no PositionRegistered"))?;
            let last = game.last();
            let left = if staller == Color::White {
                last.whiteTime
            } else {
                last.blackTime
            };
            referee
                .chain()
                .advance_time(u64::from(left) + u64::from(RESPONSE_WINDOW) + 16)?;
            let acted = referee.claim_timeout(claimant, id, &registered.position)?;
            table.current += acted.receipt.gas_used;
            let state = State::from_bytes(&last.state).expect("honest");
            let predicted = if last.ply < 2 {
                ending(4, 11)
            } else if state.has_insufficient_material(!staller) {
                ending(3, 7)
            } else {
                Ending {
                    result: if staller == Color::White {
                        EndResult::BlackWins
                    } else {
                        EndResult::WhiteWins
                    },
                    reason: EndReason::Timeout,
                }
            };
            Ok((predicted, acted.ending))
        }
        "overtaken" => {
            // A stale registration (an older pair) is overtaken by the latest pair,
            // then the two agree on a result.
            play_random(game, plies.max(3), rng)?;
            let n = game.moves.len();
            if n < 4 {
                return Err(sign_error("too few plies to register a stale pair"));
            }
            let stale_at = rng.random_range(1..n - 2);
            let (p, pa) = &game.moves[stale_at - 1];
            let (l, la) = &game.moves[stale_at];
            let stale = settlement::register(
                (p, pa),
                (l, la),
                (B256::ZERO, U256::ZERO),
                None,
                "stale".into(),
            );
            let cheat = player(chessref_channel::author_of(l).expect("128 bytes"));
            let first = referee.send_channel(cheat, &stale)?;
            table.register_gas.push(first.receipt.gas_used);
            table.current += first.receipt.gas_used;
            let current = referee
                .registered(&first)
                .ok_or_else(|| sign_error("no PositionRegistered"))?;
            let report = game
                .transcript()
                .verify(&NoContractWallets)
                .map_err(sign_error)?;
            let (p, pa) = &game.moves[n - 2];
            let (l, la) = &game.moves[n - 1];
            let latest = settlement::register(
                (p, pa),
                (l, la),
                (current.position.inner(), current.position.clock),
                report.settlement.ends,
                "overtake".into(),
            );
            let honest =
                player(!chessref_channel::author_of(&game.moves[stale_at].0).expect("128 bytes"));
            let second = referee.send_channel(honest, &latest)?;
            table.register_gas.push(second.receipt.gas_used);
            table.current += second.receipt.gas_used;
            if let Some(ended) = second.ending {
                let (r, why) = report
                    .settlement
                    .ends
                    .ok_or_else(|| sign_error("a decided registration predicts its end"))?;
                return Ok((ending(r, why), Some(ended)));
            }
            if referee.registered(&second).map(|r| r.ply) != Some(l.ply) {
                return Err(sign_error("the latest pair did not overtake the stale one"));
            }
            let (result, wa, ba) = game.agree(rng.random_range(1..=3)).map_err(sign_error)?;
            let acted = referee.send_channel(white, &settlement::settle(&result, &wa, &ba))?;
            table.current += acted.receipt.gas_used;
            Ok((
                ending(result.result, settlement::REASON_AGREEMENT),
                acted.ending,
            ))
        }
        "equivocation" => {
            play_random(game, plies, rng)?;
            let (q, _) = game.moves[game.moves.len() - 2].clone();
            let (a, a_auth) = game.moves.last().expect("a move").clone();
            if a.ply == 0 {
                return Err(sign_error("no move to equivocate"));
            }
            // The author signs another legal move for the same ply.
            let state = State::from_bytes(&q.state).expect("honest");
            let other = state
                .legal_moves()
                .into_iter()
                .map(chessref_core::RawMove::from)
                .find(|m| m.packed() != a.packed());
            let b = match other {
                Some(m) => chessref_channel::successor(&q, m, 1, game.game.increment)
                    .map_err(sign_error)?,
                None => Move {
                    whiteTime: a.whiteTime.saturating_sub(1),
                    blackTime: a.blackTime.saturating_sub(1),
                    ..a.clone()
                },
            };
            let author = chessref_channel::author_of(&a).expect("128 bytes");
            let b_auth = game
                .seat(author)
                .authorise(&game.domain, &b)
                .map_err(sign_error)?;
            let call = settlement::prove_equivocation(
                (&a, &a_auth),
                (&b, &b_auth),
                author == Color::White,
            );
            let acted = referee.send_channel(player(!author), &call)?;
            table.proof_gas.push(acted.receipt.gas_used);
            table.current += acted.receipt.gas_used;
            Ok((loses(&a, EndReason::Equivocation), acted.ending))
        }
        _ => {
            // "illegal": the author signs an invalid successor of the last move.
            play_random(game, plies, rng)?;
            let q = game.last().clone();
            let state = State::from_bytes(&q.state).expect("honest");
            // After a decided position every move is invalid (code 5): the pseudo-move
            // below keeps the position and is refused like any other.
            let honest = match state.legal_moves().first() {
                Some(m) => chessref_channel::successor(&q, *m, 1, game.game.increment)
                    .map_err(sign_error)?,
                None => Move {
                    ply: q.ply + 1,
                    previous: q.hash(),
                    ..q.clone()
                },
            };
            let bad = match rng.random_range(0..4) {
                0 => Move {
                    mv: U24::from(0x00_08_00u32),
                    ..honest
                },
                1 => Move {
                    history: B256::repeat_byte(9),
                    ..honest
                },
                2 => {
                    let mut s = honest.state.to_vec();
                    s[10] = s[10].wrapping_add(1);
                    Move {
                        state: s.into(),
                        ..honest
                    }
                }
                _ => Move {
                    whiteTime: honest.whiteTime.saturating_sub(7),
                    blackTime: honest.blackTime.saturating_sub(7),
                    ..honest
                },
            };
            let error = check_successor(&q, &bad, game.game.increment)
                .err()
                .ok_or_else(|| sign_error("the cheat is a valid successor"))?;
            let author = chessref_channel::author_of(&bad).expect("128 bytes");
            let auth: Auth = game
                .seat(author)
                .authorise(&game.domain, &bad)
                .map_err(sign_error)?;
            let call = settlement::prove_illegal(
                &q,
                (&bad, &auth),
                author == Color::White,
                error.to_string(),
            );
            let acted = referee.send_channel(player(!author), &call)?;
            table.proof_gas.push(acted.receipt.gas_used);
            table.current += acted.receipt.gas_used;
            Ok((loses(&bad, EndReason::IllegalSignedMove), acted.ending))
        }
    }
}

/// A known game (e.g. a real one from a PGN) played off-chain between `white` and
/// `black` (chain accounts whose keys the harness holds, signing directly) and settled
/// in one transaction: the last pair registered when the final position is decided
/// (checkmate, stalemate, ...), else a result both sign (`result`: 1, 2 or 3).
/// Returns the gas of create, join and the settling call, and the ending.
pub fn settle_known_game<C: Chain>(
    referee: &mut Referee<C>,
    [white, black]: [Address; 2],
    moves: &[chessref_core::Move],
    result: u8,
) -> Result<(u64, Ending), EvmError> {
    let keys = [white, black].map(|a| {
        referee
            .chain()
            .signer(a)
            .ok_or_else(|| sign_error(format!("no key for {a}")))
    });
    let [wk, bk] = keys;
    let (wk, bk) = (wk?, bk?);
    let mut setup = GameSetup::eth(black, U256::from(STAKE));
    setup.initial_time = 600;
    setup.increment = 5;
    let created = referee.create_channel_game(white, &setup, RESPONSE_WINDOW)?;
    let joined = referee.join_game(black, created.id, U256::from(STAKE))?;
    let domain = referee.channel_domain()?;
    let terms = referee.channel_game(created.id, None)?;
    let mut game =
        OffChainGame::new(domain, terms, Seat::wallet(wk), Seat::wallet(bk)).map_err(sign_error)?;
    for mv in moves {
        game.play(*mv, 5).map_err(sign_error)?;
    }
    let decided = State::from_bytes(&game.last().state)
        .expect("honest")
        .status()
        != Status::Ongoing;
    let transcript = if decided {
        game.transcript()
    } else {
        game.transcript_agreed(result).map_err(sign_error)?
    };
    let report = transcript.verify(&NoContractWallets).map_err(sign_error)?;
    let acted = referee.send_channel(white, &report.settlement)?;
    let ended = acted
        .ending
        .ok_or_else(|| sign_error("the settling call did not end the game"))?;
    Ok((
        created.receipt.gas_used + joined.receipt.gas_used + acted.receipt.gas_used,
        ended,
    ))
}
