//! `simulate --channel`: seeded games played off-chain with signed moves and receipts
//! (docs/CHANNEL.md, version 2), each ending by one path of the protocol, settled on the
//! chain; every outcome and both players' credits are checked against what the Rust
//! mirror predicts.
//!
//! Seven paths are honest endings (a signed result, a signed resignation, a decided
//! position registered and finished after its window, a player who stops answering, a
//! stale registration overtaken, equivocation, an illegal signed move). Six are the
//! attacks of the v1 review (issue 16), and `retired_key` is issue 27's finding 3, each
//! tried by the cheating side: its call must
//! be refused (the revert is checked by name) or must not decide the game, and the
//! honest side (or a watchtower, for the calls anyone may send) must end it as the board
//! says. The last, `backdating`, is played off-chain against the honest client itself
//! ([`ChannelSeat`]): the cheater stamps every move as far in the past as the honest
//! seat takes, over a long game; what it gains must stay within the 30 s bound
//! (CHANNEL.md 8), and the game is then settled by a draw both sign.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use alloy_primitives::{Address, B256, U256, aliases::U24};
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::{SolCall, SolConstructor};
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::messages::{FrozenPosition, Message};
use chessref_channel::settlement::{self, Settlement};
use chessref_channel::transcript::MoveEntry;
use chessref_channel::{
    Auth, ChannelSeat, Frame, KnownPins, Move, NoPins, Resignation, TranscriptReport,
    check_successor,
};
use chessref_core::{Color, State, Status};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::{
    bindings::OwnerWallet,
    chain::{Chain, TxReceipt, TxRequest},
    channel::Registered,
    clock_word::{ClockWord, GRACE_PERIOD},
    ending::{EndReason, EndResult, Ending},
    error::EvmError,
    referee::{Acted, GameSetup, Referee},
    stats::GasStats,
};

/// The ways a simulated game ends: seven honest paths, then the reviews' attacks, then
/// issue 27's clock attacks (backdating every stamp, withholding a receipt).
pub const KINDS: [&str; 16] = [
    "agreed",
    "resigned",
    "decided",
    "stalled",
    "overtaken",
    "equivocation",
    "illegal",
    "retroactive_mate",
    "lapsed_result",
    "revoked_key",
    "retired_key",
    "uncharged_time",
    "front_run",
    "disowned_move",
    "backdating",
    "withheld_receipt",
];

/// The paths of [`KINDS`] that are attacks (v1 review findings 1, 3, 4, 5, 6 and 2;
/// issue 27 finding 3): the cheating side's call must fail.
pub const ATTACKS: [&str; 7] = [
    "retroactive_mate",
    "lapsed_result",
    "revoked_key",
    "retired_key",
    "uncharged_time",
    "front_run",
    "disowned_move",
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

/// What the games of one ending path came to.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndingStats {
    /// Games that took this path.
    pub games: usize,
    /// How they ended, counted: the ending on the chain and, on an attack path, how the
    /// cheating call was refused (`"refused StaleMove; black wins by equivocation"`).
    pub outcomes: BTreeMap<String, usize>,
    /// Gas of every transaction of one game, create and join included (a refused
    /// cheating call counts the gas it burnt).
    pub gas: GasStats,
}

/// Totals of a channel simulation.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelSimSummary {
    /// Games played.
    pub games: usize,
    /// Signed moves exchanged off-chain.
    pub signed_moves: usize,
    /// Games whose outcome or final credits differ from the mirror's prediction, whose
    /// honest call failed, or whose cheating call was accepted.
    pub mismatches: usize,
    /// The first mismatches, in full.
    pub mismatch_details: Vec<String>,
    /// Games per ending path.
    pub endings: BTreeMap<&'static str, usize>,
    /// Gas of every transaction of one game (create, join, settle) for the games
    /// settled without a dispute (agreed, resigned; decided: its registration and
    /// `finishRegistered`).
    pub game_gas: GasStats,
    /// Gas of every transaction of one cooperative game (create, join, then `settle` or
    /// `resignBySignature`: the agreed and resigned paths) whose players had staked before on
    /// this deployment, so their credit slots existed.
    pub cooperative_gas: GasStats,
    /// The same for the cooperative games in which a player staked for the first time: the
    /// referee creates its credit slot then (about 17,100 gas more, once per player and asset).
    pub cooperative_gas_first_stake: GasStats,
    /// How many cooperative games had a player's first stake.
    pub cooperative_first_stake_games: usize,
    /// Gas of each registration (`register`, the dispute path).
    pub register_gas: GasStats,
    /// Gas of each proof of cheating.
    pub proof_gas: GasStats,
    /// Per ending path: its games' outcomes and their gas.
    pub gas_by_ending: BTreeMap<&'static str, EndingStats>,
    /// Wall time, seconds.
    pub seconds: f64,
    /// The chain used.
    pub chain: String,
}

/// Stake of each player in a simulated game.
const STAKE: u64 = 1_000_000;
/// The response window clients propose by default (CHANNEL.md 10), also the minimum.
const RESPONSE_WINDOW: u32 = 600;
/// The window of the `uncharged_time` games: long enough that the late reply reaches the
/// chain while the registration it answers is still frozen.
const LONG_RESPONSE_WINDOW: u32 = 1800;
/// Plies of a `backdating` game (a knight shuffle: no capture, no pawn move, under the
/// 150 plies of the 75-move rule), played at 5+0.
const BACKDATING_PLIES: u32 = 120;
/// A knight shuffle from the start position, by ply.
const SHUFFLE: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];

#[derive(Default)]
struct Table {
    game_gas: Vec<u64>,
    cooperative_gas: Vec<u64>,
    cooperative_gas_first_stake: Vec<u64>,
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
    // A third party holding the latest signed pair: what a watchtower sends.
    let watchtower = accounts.get(3).copied().unwrap_or(accounts[0]);
    let domain = referee.channel_domain()?;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut summary = ChannelSimSummary {
        chain: describe,
        ..Default::default()
    };
    let mut table = Table::default();
    let mut by_ending: BTreeMap<&'static str, (Vec<u64>, BTreeMap<String, usize>)> =
        BTreeMap::new();
    let started = Instant::now();
    // The accounts that staked on this deployment before: their credit slots exist.
    let mut staked = BTreeSet::new();
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
        if kind == "backdating" {
            // Blitz, where the seconds count: 5+0.
            setup.initial_time = 300;
            setup.increment = 0;
        }
        let window = if kind == "uncharged_time" {
            LONG_RESPONSE_WINDOW
        } else {
            RESPONSE_WINDOW
        };
        // On the disowned-move path white is a contract wallet its key owns (and hands on).
        let wallet = if kind == "disowned_move" {
            let init = [
                &OwnerWallet::BYTECODE[..],
                &OwnerWallet::constructorCall {
                    walletOwner: white.0,
                }
                .abi_encode()[..],
            ]
            .concat();
            let tx = TxRequest::create(white.0, init).with_value(setup.value());
            let receipt = referee.chain().send(tx)?;
            Some(
                receipt
                    .created
                    .filter(|_| receipt.success)
                    .ok_or_else(|| sign_error("the contract wallet could not be deployed"))?,
            )
        } else {
            None
        };
        let created = match wallet {
            Some(w) => referee.create_channel_game_through(white.0, w, &setup, window)?,
            None => referee.create_channel_game(white.0, &setup, window)?,
        };
        let white_player = wallet.unwrap_or(white.0);
        // Both inserted, whichever is new.
        let new_white = staked.insert(white_player);
        let new_black = staked.insert(black.0);
        let first_stake = new_white || new_black;
        let joined = referee.join_game(black.0, created.id, U256::from(STAKE))?;
        let terms = referee.channel_game(created.id, None)?;
        let joined_at = referee.chain().timestamp()?;
        let expires = terms.key_expiry(joined_at, 400);
        // The revoked- and retired-key paths need a session key to rotate out.
        let victim = if rng.random_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        let mut seat = |k: &PrivateKeySigner, colour: Color| -> Result<Seat, EvmError> {
            let session = rng.random_bool(0.5)
                || (matches!(kind, "revoked_key" | "retired_key") && colour == victim)
                || (wallet.is_some() && colour == Color::White);
            if session {
                let key = random_key(&mut rng);
                Seat::with_session(k.clone(), key, &domain, &terms, expires).map_err(sign_error)
            } else {
                Ok(Seat::wallet(k.clone()))
            }
        };
        let (ws, bs) = (seat(&white.1, Color::White)?, seat(&black.1, Color::Black)?);
        let game = OffChainGame::new(domain, terms.clone(), ws, bs).map_err(sign_error)?;
        let credits_before = [
            referee.credits(white_player, Address::ZERO)?,
            referee.credits(black.0, Address::ZERO)?,
        ];
        let plies = rng.random_range(2..=options.max_plies.max(2));
        let mut run = Run {
            referee: &mut referee,
            game,
            players: [white_player, black.0],
            wallet: wallet.map(|w| (w, white.0)),
            watchtower,
            window: u64::from(window),
            now: joined_at,
            gas: created.receipt.gas_used + joined.receipt.gas_used,
            refused: None,
            frozen: FrozenPosition::default(),
            first_stake,
            table: &mut table,
        };
        let outcome = run.path(kind, plies, victim, &mut rng);
        let (gas, refused, signed) = (run.gas, run.refused.take(), run.game.moves.len() - 1);
        summary.games += 1;
        summary.signed_moves += signed;
        *summary.endings.entry(kind).or_default() += 1;
        let failure = match &outcome {
            Err(e) => Some(format!("game {} ({kind}): {e}", created.id)),
            Ok((predicted, actual)) if Some(*predicted) != *actual => Some(format!(
                "game {} ({kind}): predicted {predicted}, the chain says {}",
                created.id,
                actual.map_or("still running".to_owned(), |e| e.to_string())
            )),
            Ok((predicted, _)) => {
                let paid = [
                    referee.credits(white_player, Address::ZERO)? - credits_before[0],
                    referee.credits(black.0, Address::ZERO)? - credits_before[1],
                ];
                let expected = payout(*predicted);
                (paid != expected).then(|| {
                    format!(
                        "game {} ({kind}): credited {paid:?}, predicted {expected:?}",
                        created.id
                    )
                })
            }
        };
        let (gases, outcomes) = by_ending.entry(kind).or_default();
        gases.push(gas);
        let described = match (&failure, &outcome) {
            (Some(_), _) | (None, Err(_)) => "mismatch".to_owned(),
            (None, Ok((predicted, _))) => match refused {
                Some(r) => format!("{r}; {predicted}"),
                None => predicted.to_string(),
            },
        };
        *outcomes.entry(described).or_default() += 1;
        if let Some(f) = failure {
            summary.mismatches += 1;
            if summary.mismatch_details.len() < 10 {
                summary.mismatch_details.push(f);
            }
        }
    }
    summary.game_gas = GasStats::of(&table.game_gas);
    summary.cooperative_gas = GasStats::of(&table.cooperative_gas);
    summary.cooperative_gas_first_stake = GasStats::of(&table.cooperative_gas_first_stake);
    summary.cooperative_first_stake_games = table.cooperative_gas_first_stake.len();
    summary.register_gas = GasStats::of(&table.register_gas);
    summary.proof_gas = GasStats::of(&table.proof_gas);
    summary.gas_by_ending = by_ending
        .into_iter()
        .map(|(k, (gas, outcomes))| {
            (
                k,
                EndingStats {
                    games: gas.len(),
                    outcomes,
                    gas: GasStats::of(&gas),
                },
            )
        })
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

/// Brings `chain`'s block time up to `now` (the players' clock) if it is behind; the
/// time it is at then.
fn catch_up<C: Chain>(chain: &mut C, now: u64) -> Result<u64, EvmError> {
    let at = chain.timestamp()?;
    if now > at {
        chain.advance_time(now - at)?;
    }
    Ok(now.max(at))
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

fn author(m: &Move) -> Color {
    chessref_channel::author_of(m).expect("a signed move has a 128-byte state")
}

fn state(m: &Move) -> State {
    State::from_bytes(&m.state).expect("an honest state")
}

/// The opponent of `loser` wins with `reason`.
fn loses(loser: Color, reason: EndReason) -> Ending {
    Ending {
        result: if loser == Color::White {
            EndResult::BlackWins
        } else {
            EndResult::WhiteWins
        },
        reason,
    }
}

/// What `claimTimeout` gives when `staller`, to move after `last`, runs out of time.
fn timeout(last: &Move, staller: Color) -> Ending {
    if last.ply < 2 {
        ending(4, 11)
    } else if state(last).has_insufficient_material(!staller) {
        ending(3, 7)
    } else {
        loses(staller, EndReason::Timeout)
    }
}

/// One game on its way to an ending: the chain, both clients' moves and receipts, and
/// the players' wall clock.
struct Run<'a, C: Chain> {
    referee: &'a mut Referee<C>,
    game: OffChainGame,
    /// White's and black's addresses.
    players: [Address; 2],
    /// White's contract wallet and its first owner, on the disowned-move path.
    wallet: Option<(Address, Address)>,
    /// An account of neither player (sends what anyone may send).
    watchtower: Address,
    window: u64,
    /// The players' clock, unix seconds; the chain's block time is brought up to it before
    /// every transaction.
    now: u64,
    /// Gas of this game's transactions so far.
    gas: u64,
    /// How the cheating call was refused, on an attack path.
    refused: Option<String>,
    /// The game's latest registration (empty: none): every `register` names it, which an
    /// overtake is charged from (CHANNEL.md 7.3).
    frozen: FrozenPosition,
    /// Whether a player of this game staked for the first time on this deployment.
    first_stake: bool,
    table: &'a mut Table,
}

type Outcome = Result<(Ending, Option<Ending>), EvmError>;

impl<C: Chain> Run<'_, C> {
    fn player(&self, c: Color) -> Address {
        self.players[usize::from(c == Color::Black)]
    }

    fn id(&self) -> U256 {
        self.game.game.game_id
    }

    /// Brings the chain's block time up to the players' clock (or the clock up to it).
    fn sync(&mut self) -> Result<(), EvmError> {
        self.now = catch_up(self.referee.chain(), self.now)?;
        Ok(())
    }

    fn wait(&mut self, seconds: u64) -> Result<(), EvmError> {
        self.now += seconds;
        self.sync()
    }

    fn send(&mut self, from: Address, call: &Settlement) -> Result<Acted, EvmError> {
        self.sync()?;
        let acted = self
            .referee
            .send_channel(from, &call.clone().answering(self.frozen.clone()))?;
        if let Some(registered) = self.referee.registered(&acted) {
            self.frozen = registered.position.frozen();
        }
        self.gas += acted.receipt.gas_used;
        match call.call {
            "register" => self.table.register_gas.push(acted.receipt.gas_used),
            "proveEquivocation" | "proveIllegalMove" => {
                self.table.proof_gas.push(acted.receipt.gas_used)
            }
            _ => {}
        }
        Ok(acted)
    }

    /// Sends the cheating `call`: it must revert with one of `expected` (recorded as how
    /// it was refused); a success or another revert is a mismatch.
    fn cheat(
        &mut self,
        from: Address,
        call: &Settlement,
        expected: &[&str],
    ) -> Result<(), EvmError> {
        self.sync()?;
        match self
            .referee
            .send_channel(from, &call.clone().answering(self.frozen.clone()))
        {
            Ok(acted) => Err(sign_error(format!(
                "the cheating {} was accepted ({}) and ended the game as {:?}",
                call.call, call.why, acted.ending
            ))),
            Err(EvmError::Reverted {
                revert, gas_used, ..
            }) => {
                self.gas += gas_used;
                let name = revert.name();
                if !expected.contains(&name.as_str()) {
                    return Err(sign_error(format!(
                        "the cheating {} reverted {revert:?}, expected one of {expected:?}",
                        call.call
                    )));
                }
                self.refused = Some(format!("{} refused {name}", call.call));
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// The registration, sent by `send`, of a move taken back (another move signed for
    /// one of its author's old plies, stamped `stamp`): fresh (stamped at most
    /// `STAMP_TOLERANCE` before the block) it must be frozen, stale it must be refused
    /// `StaleMove`; either way the game must still run. The registration's gas if frozen.
    fn register_taken_back(
        &mut self,
        stamp: u64,
        send: impl FnOnce(&mut Referee<C>) -> Result<TxReceipt, EvmError>,
    ) -> Result<Option<u64>, EvmError> {
        self.sync()?;
        let fresh = stamp + settlement::STAMP_TOLERANCE >= self.now;
        let frozen = match (fresh, send(self.referee)) {
            (true, Ok(receipt)) => {
                self.gas += receipt.gas_used;
                Some(receipt.gas_used)
            }
            (
                false,
                Err(EvmError::Reverted {
                    revert, gas_used, ..
                }),
            ) if revert.name() == "StaleMove" => {
                self.gas += gas_used;
                None
            }
            (false, Ok(_)) => {
                return Err(sign_error(format!(
                    "a taken-back move stamped {stamp} was registered at {}",
                    self.now
                )));
            }
            (_, Err(e)) => return Err(e),
        };
        if self.referee.game(self.id())?.phase != 2 {
            return Err(sign_error("the taken-back move ended the game"));
        }
        Ok(frozen)
    }

    /// Plays up to `plies` random honest moves (fewer if the game is decided), each
    /// answered by its receipt: the mover thinks 0 to 7 s, the receipt arrives 0 to 2 s
    /// after the move's stamp.
    fn play_random(&mut self, plies: usize, rng: &mut ChaCha8Rng) -> Result<(), EvmError> {
        for _ in 0..plies {
            let position = state(self.game.last());
            if position.status() != Status::Ongoing {
                break;
            }
            let legal = position.legal_moves();
            self.now += rng.random_range(0..8);
            self.game
                .play(legal[rng.random_range(0..legal.len())], self.now)
                .map_err(sign_error)?;
            self.now += rng.random_range(0..3);
            self.game.receipt(self.now).map_err(sign_error)?;
        }
        Ok(())
    }

    fn report(&mut self) -> Result<TranscriptReport, EvmError> {
        self.sync()?;
        self.game
            .transcript()
            .verify(&NoPins, self.now)
            .map_err(sign_error)
    }

    /// Registers the latest pair from `from`; the registration must not end the game.
    fn register_latest(
        &mut self,
        from: Address,
    ) -> Result<(Registered, TranscriptReport), EvmError> {
        let report = self.report()?;
        if report.error.is_some() || report.settlement.call != "register" {
            return Err(sign_error(format!(
                "an honest transcript should register: {:?} {}",
                report.error.as_ref().map(|e| e.to_string()),
                report.settlement.why
            )));
        }
        let acted = self.send(from, &report.settlement)?;
        if let Some(e) = acted.ending {
            return Err(sign_error(format!(
                "a registration ended the game at once ({e})"
            )));
        }
        let registered = self
            .referee
            .registered(&acted)
            .ok_or_else(|| sign_error("no PositionRegistered"))?;
        if registered.ply != self.game.last().ply {
            return Err(sign_error(format!(
                "registered ply {}, the latest is {}",
                registered.ply,
                self.game.last().ply
            )));
        }
        Ok((registered, report))
    }

    /// After the latest pair is registered: a decided position is finished by anyone once
    /// the window is over; else both players agree on a result while it is frozen.
    fn conclude(
        &mut self,
        registered: &Registered,
        report: &TranscriptReport,
        rng: &mut ChaCha8Rng,
    ) -> Outcome {
        if let Some((r, why)) = report.settlement.ends {
            self.wait(self.window + 1)?;
            let acted =
                self.referee
                    .finish_registered(self.watchtower, self.id(), &registered.position)?;
            self.gas += acted.receipt.gas_used;
            return Ok((ending(r, why), acted.ending));
        }
        self.agree_and_settle(rng)
    }

    /// Both players sign a random result (white wins, black wins or a draw) and anyone
    /// settles it: how a game both still play ends after an attack was refused.
    fn agree_and_settle(&mut self, rng: &mut ChaCha8Rng) -> Outcome {
        let (result, wa, ba) = self
            .game
            .agree(rng.random_range(1..=3))
            .map_err(sign_error)?;
        let acted = self.send(self.players[0], &settlement::settle(&result, &wa, &ba))?;
        Ok((
            ending(result.result, settlement::REASON_AGREEMENT),
            acted.ending,
        ))
    }

    /// Registers the pair ending at `moves[i]` with the receipt of `moves[i]`.
    fn register_pair(&self, i: usize, why: &str) -> Settlement {
        let (p, pa) = &self.game.moves[i - 1];
        let (l, la) = &self.game.moves[i];
        let receipt = self.game.receipts.get(&l.ply).map(|(r, a)| (r, a));
        settlement::register((p, pa), (l, la), receipt, None, why.into())
    }

    /// A player runs out of time: registered, then claimed after its time and the window.
    fn claim_timeout(&mut self, registered: &Registered, staller: Color) -> Outcome {
        let last = self.game.last().clone();
        let left = if staller == Color::White {
            last.whiteTime
        } else {
            last.blackTime
        };
        self.wait(u64::from(left) + self.window + 16)?;
        let claimant = self.player(!staller);
        let acted = self
            .referee
            .claim_timeout(claimant, self.id(), &registered.position)?;
        self.gas += acted.receipt.gas_used;
        Ok((timeout(&last, staller), acted.ending))
    }

    /// Takes `kind`'s path; returns the mirror's prediction and what the chain reported.
    fn path(&mut self, kind: &str, plies: usize, victim: Color, rng: &mut ChaCha8Rng) -> Outcome {
        match kind {
            "agreed" | "resigned" => {
                self.play_random(plies, rng)?;
                let transcript = if kind == "resigned" {
                    let by = if rng.random_bool(0.5) {
                        Color::White
                    } else {
                        Color::Black
                    };
                    self.game.transcript_resigned(by).map_err(sign_error)?
                } else {
                    self.game
                        .transcript_agreed(rng.random_range(1..=3))
                        .map_err(sign_error)?
                };
                self.sync()?;
                let report = transcript.verify(&NoPins, self.now).map_err(sign_error)?;
                let (r, why) = report
                    .settlement
                    .ends
                    .ok_or_else(|| sign_error("an honest game has an ending call"))?;
                let acted = self.send(self.players[0], &report.settlement)?;
                self.table.game_gas.push(self.gas);
                if self.first_stake {
                    self.table.cooperative_gas_first_stake.push(self.gas);
                } else {
                    self.table.cooperative_gas.push(self.gas);
                }
                Ok((ending(r, why), acted.ending))
            }
            "decided" => {
                self.play_random(400, rng)?;
                let outcome = if state(self.game.last()).status() == Status::Ongoing {
                    self.path("agreed", 0, victim, rng)?
                } else {
                    let (registered, report) = self.register_latest(self.players[0])?;
                    self.conclude(&registered, &report, rng)?
                };
                if self.table.game_gas.last().is_none_or(|g| *g != self.gas) {
                    self.table.game_gas.push(self.gas);
                }
                Ok(outcome)
            }
            "stalled" => {
                // The side to move stops answering (no receipt of the last move): its
                // opponent registers the latest pair at once and, once the staller's time
                // and the response window are gone, claims on time.
                self.play_random(plies, rng)?;
                let last = self.game.last().ply;
                self.game.receipts.remove(&last);
                let staller = !author(self.game.last());
                let (registered, report) = self.register_latest(self.player(!staller))?;
                if report.settlement.ends.is_some() {
                    return self.conclude(&registered, &report, rng);
                }
                self.claim_timeout(&registered, staller)
            }
            "overtaken" | "front_run" => {
                // A stale registration (an older pair) is overtaken by the latest pair, sent
                // by a watchtower. On the attack path the cheat also "front-runs" the
                // overtake with a registration one ply higher: v2 takes no position
                // argument, so the overtake still goes through.
                let front_run = kind == "front_run";
                let need = if front_run { 5 } else { 4 };
                self.play_random(plies.max(need), rng)?;
                let n = self.game.moves.len();
                if n < need {
                    return Err(sign_error("too few plies to register a stale pair"));
                }
                let stale_at = rng.random_range(1..n - (need - 2));
                let cheat = self.player(author(&self.game.moves[stale_at].0));
                let stale = self.register_pair(stale_at, "stale");
                self.send(cheat, &stale)?;
                if front_run {
                    let higher = self.register_pair(stale_at + 1, "front-run");
                    self.send(cheat, &higher)?;
                    self.refused = Some("the front-run did not make the overtake stale".into());
                }
                let (registered, report) = self.register_latest(self.watchtower)?;
                self.conclude(&registered, &report, rng)
            }
            "equivocation" => {
                self.play_random(plies, rng)?;
                let (q, _) = self.game.moves[self.game.moves.len() - 2].clone();
                let (a, a_auth) = self.game.moves.last().expect("a move").clone();
                let b = self.other_move(&q, &a)?;
                let by = author(&a);
                let b_auth = self
                    .game
                    .seat(by)
                    .authorise(&self.game.domain, &b)
                    .map_err(sign_error)?;
                let call = settlement::prove_equivocation(
                    (&a, &a_auth),
                    (&b, &b_auth),
                    by == Color::White,
                );
                let acted = self.send(self.watchtower, &call)?;
                Ok((loses(by, EndReason::Equivocation), acted.ending))
            }
            "illegal" => self.illegal(plies, rng),
            "retroactive_mate" => self.retroactive(plies, rng),
            "lapsed_result" => self.lapsed_result(plies, rng),
            "revoked_key" => self.revoked_key(plies, victim, rng),
            "retired_key" => self.retired_key(plies, victim, rng),
            "disowned_move" => self.disowned_move(plies, rng),
            "backdating" => self.backdating(victim, rng),
            "withheld_receipt" => self.withheld_receipt(plies, victim, rng),
            _ => self.uncharged_time(plies, rng),
        }
    }

    /// Another valid successor of `q` for `a`'s ply, stamped as `a` (a mate or another
    /// decided position first); a clock change when `q` has one legal move.
    fn other_move(&self, q: &Move, a: &Move) -> Result<Move, EvmError> {
        let legal = state(q).legal_moves();
        let mut others: Vec<Move> = legal
            .into_iter()
            .map(chessref_core::RawMove::from)
            .filter(|m| m.packed() != a.packed())
            .map(|m| chessref_channel::successor(q, m, a.timestamp, self.game.game.increment))
            .collect::<Result<_, _>>()
            .map_err(sign_error)?;
        others.sort_by_key(|m| state(m).status() == Status::Ongoing);
        Ok(others.into_iter().next().unwrap_or_else(|| Move {
            whiteTime: a.whiteTime.saturating_sub(1),
            blackTime: a.blackTime.saturating_sub(1),
            ..a.clone()
        }))
    }

    /// The author signs an invalid successor of the last move; a watchtower proves it.
    fn illegal(&mut self, plies: usize, rng: &mut ChaCha8Rng) -> Outcome {
        self.play_random(plies, rng)?;
        let q = self.game.last().clone();
        self.now += 1;
        // After a decided position every move is invalid (code 5), also where moves are
        // still legal (insufficient material, the 75-move rule): the pseudo-move below keeps
        // the position and is refused like any other.
        let position = state(&q);
        let next = (position.status() == Status::Ongoing)
            .then(|| position.legal_moves().first().copied())
            .flatten();
        let honest = match next {
            Some(m) => chessref_channel::successor(&q, m, self.now, self.game.game.increment)
                .map_err(sign_error)?,
            None => Move {
                ply: q.ply + 1,
                previous: q.hash(),
                timestamp: self.now,
                ..q.clone()
            },
        };
        let bad = match rng.random_range(0..5) {
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
            3 => Move {
                timestamp: q.timestamp.saturating_sub(1),
                ..honest
            },
            _ => Move {
                whiteTime: honest.whiteTime.saturating_add(7),
                blackTime: honest.blackTime.saturating_add(7),
                ..honest
            },
        };
        let error = check_successor(&q, &bad, self.game.game.increment)
            .err()
            .ok_or_else(|| sign_error("the cheat is a valid successor"))?;
        let by = author(&bad);
        let auth: Auth = self
            .game
            .seat(by)
            .authorise(&self.game.domain, &bad)
            .map_err(sign_error)?;
        let call =
            settlement::prove_illegal(&q, (&bad, &auth), by == Color::White, error.to_string());
        let acted = self.send(self.watchtower, &call)?;
        Ok((loses(by, EndReason::IllegalSignedMove), acted.ending))
    }

    /// Review finding 1: a player signs, for one of its earlier plies, another move (a
    /// mate or other decided position when there is one) and registers it. v2: no
    /// registration ends a game at once, and a move stamped more than 60 s before the
    /// block needs its opponent's receipt, so the registration is refused (`StaleMove`) or
    /// stays frozen; either way the watchtower proves the equivocation and the cheat loses.
    fn retroactive(&mut self, plies: usize, rng: &mut ChaCha8Rng) -> Outcome {
        self.play_random(plies.max(4), rng)?;
        let n = self.game.moves.len();
        if n < 4 {
            return Err(sign_error("too few plies for a retroactive move"));
        }
        let k = rng.random_range(1..n - 1);
        let (q, q_auth) = self.game.moves[k - 1].clone();
        let (original, original_auth) = self.game.moves[k].clone();
        let by = author(&original);
        let alt = self.other_move(&q, &original)?;
        let alt_auth = self
            .game
            .seat(by)
            .authorise(&self.game.domain, &alt)
            .map_err(sign_error)?;
        let decided = state(&alt).status();
        let call = settlement::register(
            (&q, &q_auth),
            (&alt, &alt_auth),
            None,
            None,
            format!("retroactive {} at ply {}", decided.name(), alt.ply),
        );
        let from = self.player(by);
        let frozen = self.register_taken_back(alt.timestamp, |r| {
            r.send_channel(from, &call).map(|a| a.receipt)
        })?;
        self.refused = Some(match frozen {
            Some(gas) => {
                self.table.register_gas.push(gas);
                format!("register frozen, not final ({})", decided.name())
            }
            None => "register refused StaleMove".to_owned(),
        });
        let proof = settlement::prove_equivocation(
            (&original, &original_auth),
            (&alt, &alt_auth),
            by == Color::White,
        );
        let acted = self.send(self.watchtower, &proof)?;
        Ok((loses(by, EndReason::Equivocation), acted.ending))
    }

    /// Review finding 2: a contract wallet (white) takes back a move. Its opponent pinned
    /// the wallet's delegation before accepting moves under it. Later the wallet changes
    /// hands: it now refuses what its old owner approved (asking it again reverts
    /// `BadSignature`), its new owner delegates a new key, signs another move for one of
    /// the wallet's plies and registers it. v2: ERC-1271 is asked only when pinning, so
    /// the old moves still count and the watchtower proves the equivocation.
    fn disowned_move(&mut self, plies: usize, rng: &mut ChaCha8Rng) -> Outcome {
        let (wallet, _) = self
            .wallet
            .ok_or_else(|| sign_error("the disowned-move path needs a contract wallet"))?;
        let domain = self.game.domain;
        let id = self.id();
        let (_, first) = self
            .game
            .seat(Color::White)
            .session
            .clone()
            .ok_or_else(|| sign_error("the wallet plays by session key"))?;
        let first_digest = first.delegation.digest(&domain);
        let pin = settlement::pin(wallet, first_digest, &first.signature);
        self.send(self.player(Color::Black), &pin)?;
        self.play_random(plies.max(4), rng)?;
        let mut pins = KnownPins::default();
        pins.pinned.insert((wallet, first_digest));
        pins.contracts.insert(wallet);
        self.sync()?;
        let report = self
            .game
            .transcript()
            .verify(&pins, self.now)
            .map_err(sign_error)?;
        if report.error.is_some() || !report.unchecked.is_empty() {
            return Err(sign_error(format!(
                "the wallet's pinned moves do not verify: {:?}, unchecked {:?}",
                report.error.map(|e| e.to_string()),
                report.unchecked
            )));
        }
        // The wallet changes hands.
        let new_owner = self.referee.chain().accounts()[0];
        let new_key = self
            .referee
            .chain()
            .signer(new_owner)
            .ok_or_else(|| sign_error("no key for the chain's account 0"))?;
        let (_, old_owner) = self.wallet.expect("checked above");
        let handover = OwnerWallet::setOwnerCall { next: new_owner }.abi_encode();
        let receipt = self
            .referee
            .chain()
            .send(TxRequest::call(old_owner, wallet, handover))?;
        if !receipt.success {
            return Err(sign_error("the wallet could not change hands"));
        }
        self.cheat(self.watchtower, &pin, &["BadSignature"])?;
        let asked_again = self.refused.take().unwrap_or_default();
        // Its new owner delegates a new key and signs another move for one of its plies.
        let n = self.game.moves.len();
        let k = (1..n - 1)
            .filter(|i| author(&self.game.moves[*i].0) == Color::White)
            .nth(rng.random_range(0..(n - 1) / 2))
            .unwrap_or(1);
        let (q, q_auth) = self.game.moves[k - 1].clone();
        let (original, original_auth) = self.game.moves[k].clone();
        let key = random_key(rng);
        let second = chessref_channel::signer::delegate(
            &new_key,
            &domain,
            id,
            key.address(),
            1,
            u32::MAX,
            first.delegation.expires,
        )
        .map_err(sign_error)?;
        let pin = settlement::pin(wallet, second.delegation.digest(&domain), &second.signature);
        self.send(new_owner, &pin)?;
        let alt = self.other_move(&q, &original)?;
        let alt_auth = chessref_channel::signer::sign_delegated(&key, &second, &domain, &alt)
            .map_err(sign_error)?;
        let call = settlement::register(
            (&q, &q_auth),
            (&alt, &alt_auth),
            None,
            None,
            "a taken-back move".into(),
        );
        let channel = self.referee.channel()?;
        let data = call.calldata.clone();
        let frozen = self.register_taken_back(alt.timestamp, |r| {
            r.through_wallet(new_owner, wallet, channel, U256::ZERO, data)
        })?;
        let registered = if frozen.is_some() {
            "register frozen, not final"
        } else {
            "register refused StaleMove"
        };
        self.refused = Some(format!("{asked_again} (its pin stands); {registered}"));
        let proof =
            settlement::prove_equivocation((&original, &original_auth), (&alt, &alt_auth), true);
        let acted = self.send(self.watchtower, &proof)?;
        Ok((loses(Color::White, EndReason::Equivocation), acted.ending))
    }

    /// Review finding 3: a result signed early and settled after play went on. v2: a
    /// result names its position and lapses with a registration of a later ply.
    fn lapsed_result(&mut self, plies: usize, rng: &mut ChaCha8Rng) -> Outcome {
        self.play_random((plies / 2).max(1), rng)?;
        let (old, wa, ba) = self.game.agree(3).map_err(sign_error)?;
        let at = self.game.last().ply;
        self.play_random((plies / 2).max(2), rng)?;
        if self.game.last().ply == at {
            // Nothing was played after it: the result is current and settles the game.
            let acted = self.send(self.players[0], &settlement::settle(&old, &wa, &ba))?;
            return Ok((ending(3, settlement::REASON_AGREEMENT), acted.ending));
        }
        let cheat = if rng.random_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        let (registered, report) = self.register_latest(self.player(!cheat))?;
        self.cheat(
            self.player(cheat),
            &settlement::settle(&old, &wa, &ba),
            &["LapsedAgreement"],
        )?;
        self.conclude(&registered, &report, rng)
    }

    /// `victim` rotates to a new session key from ply `first_ply` and, as its client does,
    /// shows the new delegation on-chain (`retire`); returns the old key and delegation.
    fn rotate(
        &mut self,
        victim: Color,
        first_ply: u32,
        rng: &mut ChaCha8Rng,
    ) -> Result<(PrivateKeySigner, chessref_channel::SignedDelegation), EvmError> {
        let (old_key, old_delegation) = self
            .game
            .seat(victim)
            .session
            .clone()
            .ok_or_else(|| sign_error("the victim signs by session key"))?;
        let expires = old_delegation.delegation.expires;
        let retire = self
            .game
            .rotate(victim, random_key(rng), first_ply, expires)
            .map_err(sign_error)?;
        self.send(self.player(victim), &retire)?;
        Ok((old_key, old_delegation))
    }

    /// Review finding 4: a rotated-out session key signs a resignation for its player.
    /// v2: the player revokes the key on-chain when it rotates; a revoked key's
    /// resignations and results never count.
    fn revoked_key(&mut self, plies: usize, victim: Color, rng: &mut ChaCha8Rng) -> Outcome {
        self.play_random((plies / 2).max(1), rng)?;
        let rotated_at = self.game.last().clone();
        let domain = self.game.domain;
        let id = self.id();
        let (old_key, old_delegation) = self.rotate(victim, rotated_at.ply + 1, rng)?;
        let revoke = settlement::revoke_session_key(id, old_key.address());
        self.send(self.player(victim), &revoke)?;
        self.play_random((plies / 2).max(2), rng)?;
        // Whoever holds the old key resigns for the victim, naming the position the key
        // last saw.
        let resignation = Resignation {
            gameId: id,
            ply: rotated_at.ply,
            position: rotated_at.hash(),
        };
        let auth = chessref_channel::signer::sign_delegated(
            &old_key,
            &old_delegation,
            &domain,
            &resignation,
        )
        .map_err(sign_error)?;
        let call = settlement::resign(&resignation, &auth, victim == Color::White);
        self.cheat(self.watchtower, &call, &["BadSignature"])?;
        self.agree_and_settle(rng)
    }

    /// Issue 27, finding 3: `victim` rotates to a second key from ply 5 and does not revoke
    /// the first (its client shows the new delegation: `retire`); play goes on (to ply 10
    /// or more, unless decided), and the thief of the first key resigns for it naming ply 3
    /// (off-chain nothing lapses on-chain). Refused `RetiredKey`, by the mirror too.
    fn retired_key(&mut self, plies: usize, victim: Color, rng: &mut ChaCha8Rng) -> Outcome {
        self.play_random(4, rng)?;
        let named = self
            .game
            .moves
            .get(3)
            .map(|(m, _)| m.clone())
            .ok_or_else(|| sign_error("no game ends before ply 4"))?;
        let (old_key, old_delegation) = self.rotate(victim, 5, rng)?;
        self.play_random(plies.max(6), rng)?;
        let domain = self.game.domain;
        let stolen = |at: &Move| -> Result<(Resignation, Auth), EvmError> {
            let r = Resignation {
                gameId: at.gameId,
                ply: at.ply,
                position: at.hash(),
            };
            let auth =
                chessref_channel::signer::sign_delegated(&old_key, &old_delegation, &domain, &r)
                    .map_err(sign_error)?;
            Ok((r, auth))
        };
        // The mirror refuses it too, in the latest position (ply 3 has lapsed there).
        let (latest, auth) = stolen(&self.game.last().clone())?;
        let mut t = self.game.transcript();
        t.resignation = Some(chessref_channel::transcript::ResignationEntry {
            game_id: latest.gameId,
            ply: latest.ply,
            position: latest.position,
            by: chessref_channel::transcript::Side::of(victim),
            signed: chessref_channel::transcript::SignatureEntry {
                signature: auth.signature,
                delegation: t
                    .delegations
                    .iter()
                    .position(|d| d.session_key == old_key.address())
                    .map_or(-1, |i| i as i64),
            },
        });
        let verdict = t.verify(&NoPins, self.now).map_err(sign_error)?;
        if !matches!(
            verdict.error,
            Some(chessref_channel::TranscriptError::Signature {
                error: chessref_channel::AuthError::RetiredKey { .. },
                ..
            })
        ) {
            return Err(sign_error(format!(
                "the mirror took the retired key's resignation: {:?}",
                verdict.error
            )));
        }
        let (r, auth) = stolen(&named)?;
        let call = settlement::resign(&r, &auth, victim == Color::White);
        self.cheat(self.watchtower, &call, &["RetiredKey"])?;
        self.agree_and_settle(rng)
    }

    /// Review finding 5: the side to move thinks past its time, then signs a move stamped
    /// as if it had taken 2 s and overtakes its opponent's registration with it. The direct
    /// reply to a registration is charged by the wall clock (issue 27): its author's flag
    /// fell before the block that shows it (`FlagFell`), the registration stands and the
    /// opponent claims on time.
    fn uncharged_time(&mut self, plies: usize, rng: &mut ChaCha8Rng) -> Outcome {
        self.play_random(plies, rng)?;
        let last = self.game.last().clone();
        let cheat = !author(&last);
        let (registered, report) = self.register_latest(self.player(!cheat))?;
        if report.settlement.ends.is_some() {
            return self.conclude(&registered, &report, rng);
        }
        let had = u64::from(if cheat == Color::White {
            last.whiteTime
        } else {
            last.blackTime
        });
        self.now = self
            .now
            .max(last.timestamp + had + GRACE_PERIOD + settlement::STAMP_TOLERANCE + 30);
        let mv = *state(&last)
            .legal_moves()
            .first()
            .expect("an undecided position has a move");
        let late =
            chessref_channel::successor(&last, mv, last.timestamp + 2, self.game.game.increment)
                .map_err(sign_error)?;
        let late_auth = self
            .game
            .seat(cheat)
            .authorise(&self.game.domain, &late)
            .map_err(sign_error)?;
        let (_, last_auth) = self.game.moves.last().expect("a move").clone();
        let call = settlement::register(
            (&last, &last_auth),
            (&late, &late_auth),
            None,
            None,
            "a late move claiming 2 s".into(),
        );
        self.cheat(self.player(cheat), &call, &["FlagFell"])?;
        self.claim_timeout(&registered, cheat)
    }

    /// A withheld receipt (issue 27's finding 2): the cheater takes `victim`'s latest move
    /// and never acknowledges nor answers it. Either (by the rng) it stays silent, and the
    /// victim's client registers the move by itself at `auto_register_at(sent, stamp)`; or
    /// it registers the position before the move as soon as the move reaches it (with the
    /// victim's receipt of its own move, review finding B), the victim's automatic
    /// registration, sent before that landed, only records when the chain showed the move,
    /// and the client sends it again a slot later naming the registration. The victim's
    /// budget on-chain must be its signed time plus the grace less, in the second form, the
    /// seconds from its stamp to that first showing (a mismatch otherwise); the silent
    /// cheater then loses on time.
    fn withheld_receipt(&mut self, plies: usize, victim: Color, rng: &mut ChaCha8Rng) -> Outcome {
        self.play_random(plies.max(2), rng)?;
        if state(self.game.last()).status() == Status::Ongoing && author(self.game.last()) == victim
        {
            self.play_random(1, rng)?;
        }
        if state(self.game.last()).status() != Status::Ongoing || self.game.last().ply < 2 {
            let (registered, report) = self.register_latest(self.players[0])?;
            return self.conclude(&registered, &report, rng);
        }
        let cheater = !victim;
        let position = state(self.game.last());
        let legal = position.legal_moves();
        self.now += rng.random_range(0..8);
        let sent = self.now;
        self.game
            .play(legal[rng.random_range(0..legal.len())], sent)
            .map_err(sign_error)?;
        let mv = self.game.last().clone();
        let signed = u64::from(if victim == Color::White {
            mv.whiteTime
        } else {
            mv.blackTime
        }) + GRACE_PERIOD;
        let auto = chessref_channel::auto_register_at(sent, mv.timestamp);
        let own = self.report()?.settlement;
        let pre_registered = rng.random_bool(0.5);
        let mut cap = u64::MAX;
        let shown = if pre_registered {
            // The cheater registers the pair before the move, with the victim's receipt of
            // its own move, the moment the move reaches it.
            self.now = mv.timestamp.max(sent) + 1;
            let before = self.register_pair(
                self.game.moves.len() - 2,
                "the position before a withheld move",
            );
            self.send(self.player(cheater), &before)?;
            let deadline = ClockWord(self.frozen.clock).reply_deadline();
            // The victim's automatic registration, sent before that landed, names no frozen
            // position: it only records the showing.
            self.now = self.now.max(auto);
            self.sync()?;
            let acted = self.referee.send_channel(self.player(victim), &own)?;
            self.gas += acted.receipt.gas_used;
            if self.referee.registered(&acted).is_some() {
                return Err(sign_error(
                    "a registration naming no frozen position registered",
                ));
            }
            let shown = self.now;
            // what the wall clock leaves the direct reply shown then (CHANNEL.md 7.3)
            cap = deadline.saturating_sub(shown) + u64::from(self.game.game.increment);
            self.now += 12;
            shown
        } else {
            self.now = auto;
            mv.timestamp.max(self.now)
        };
        let acted = self.send(self.player(victim), &own)?;
        let registered = self
            .referee
            .registered(&acted)
            .ok_or_else(|| sign_error("the victim's move was not registered"))?;
        let budget = ClockWord(registered.position.clock).budget(victim);
        let delay = shown.saturating_sub(mv.timestamp);
        let expected = signed.min(cap);
        if budget != expected || signed - budget > delay {
            return Err(sign_error(format!(
                "withheld receipt: the victim's budget on-chain is {budget}, expected {expected} (signed {signed}, shown {delay} s after its stamp)"
            )));
        }
        self.refused = Some(format!(
            "{}: bounded: {} s lost",
            if pre_registered {
                "the position before registered first"
            } else {
                "registered by the mover's client"
            },
            signed - budget
        ));
        self.claim_timeout(&registered, cheater)
    }

    /// Backdating adds up (red-team finding): the cheater stamps every move as far in
    /// the past as the honest seat (`victim`, a [`ChannelSeat`] on a session key) takes,
    /// 30 s behind its clock when the move reaches it (never before the move it
    /// answers), over a 120-ply game at 5+0; each stamp a second further back must be
    /// refused. The honest seat stamps its replies from its own receipts, so over the
    /// game the cheater may hide at most `CLIENT_STAMP_TOLERANCE` (30 s) of thinking and
    /// the honest clock is charged what the honest side thought (both are checked: a
    /// mismatch if not). Both sides think 0 to 6 s a move; delivery is instant. The game
    /// is then drawn by agreement (the honest seat offers, the cheater signs, the seat
    /// countersigns) and settled.
    fn backdating(&mut self, victim: Color, rng: &mut ChaCha8Rng) -> Outcome {
        let cheater = !victim;
        let tolerance = settlement::CLIENT_STAMP_TOLERANCE;
        let domain = self.game.domain;
        let terms = self.game.game.clone();
        let expires = terms.key_expiry(self.now, BACKDATING_PLIES);
        let mut seat_of = |colour: Color| -> Result<ChannelSeat, EvmError> {
            let wallet = self.game.seat(colour).wallet.clone();
            let session = random_key(rng);
            let delegation = chessref_channel::signer::delegate(
                &wallet,
                &domain,
                terms.game_id,
                session.address(),
                1,
                u32::MAX,
                expires,
            )
            .map_err(sign_error)?;
            ChannelSeat::new(
                domain,
                terms.clone(),
                wallet.address(),
                Box::new(session),
                delegation,
            )
            .map_err(sign_error)
        };
        let (mut honest, mut cheat) = (seat_of(victim)?, seat_of(cheater)?);
        let wallet = self.game.seat(cheater).wallet.clone();
        // Frames from one seat reach the other at `clock`; the answers go back.
        let deliver = |from: &mut ChannelSeat,
                       to: &mut ChannelSeat,
                       frames: Vec<Frame>,
                       clock: u64|
         -> Result<(), EvmError> {
            let mut pending = vec![(frames, true)];
            while let Some((frames, forward)) = pending.pop() {
                let target = if forward { &mut *to } else { &mut *from };
                let mut answers = Vec::new();
                for frame in frames {
                    let received = target.receive(frame, clock).map_err(sign_error)?;
                    answers.extend(target.answer(&received, clock).map_err(sign_error)?);
                }
                if !answers.is_empty() {
                    pending.push((answers, !forward));
                }
            }
            Ok(())
        };
        let mut clock = self.now;
        // Seconds each side thought (white's first move is never charged) and moved.
        let (mut honest_thought, mut cheat_thought) = (0u64, 0u64);
        let (mut honest_moves, mut cheat_moves) = (0u64, 0u64);
        for ply in 1..=BACKDATING_PLIES {
            let text = SHUFFLE[(ply as usize - 1) % 4];
            let think = rng.random_range(0..7);
            clock += think;
            let charged = u64::from(ply > 1) * think;
            if (ply % 2 == 1) == (victim == Color::White) {
                let frames = honest.play(text, clock).map_err(sign_error)?;
                deliver(&mut honest, &mut cheat, frames, clock)?;
                honest_thought += charged;
                honest_moves += 1;
                continue;
            }
            let last = honest.last();
            let stamp = last.timestamp.max(clock - tolerance);
            let mv = chessref_core::Move::from_uci(text).map_err(sign_error)?;
            let signed = |stamp: u64| -> Result<Frame, EvmError> {
                let next = chessref_channel::successor(&last, mv, stamp, terms.increment)
                    .map_err(sign_error)?;
                let signature =
                    chessref_channel::signer::sign(&wallet, &domain, &next).map_err(sign_error)?;
                Ok(Frame::Move(MoveEntry::signed(&next, signature, -1)))
            };
            if stamp > last.timestamp {
                match honest.receive(signed(stamp - 1)?, clock) {
                    Err(refused) if refused.kind() == "time" => {}
                    other => {
                        return Err(sign_error(format!(
                            "ply {ply}: a move stamped {} s behind the honest clock was not refused: {other:?}",
                            clock - stamp + 1
                        )));
                    }
                }
            }
            // The cheater keeps its own move (it is a valid successor), then sends it.
            let frame = signed(stamp)?;
            cheat.receive(frame.clone(), clock).map_err(sign_error)?;
            deliver(&mut cheat, &mut honest, vec![frame], clock)?;
            cheat_thought += charged;
            cheat_moves += 1;
        }
        let last = honest.last();
        let left = |c: Color| {
            i64::from(if c == Color::White {
                last.whiteTime
            } else {
                last.blackTime
            })
        };
        let truth = |moves: u64, thought: u64| {
            i64::from(terms.initial_time) + (moves * u64::from(terms.increment)) as i64
                - thought as i64
        };
        let gained = left(cheater) - truth(cheat_moves, cheat_thought);
        let honest_off = left(victim) - truth(honest_moves, honest_thought);
        if gained > tolerance as i64 || honest_off.abs() > tolerance as i64 {
            return Err(sign_error(format!(
                "backdating broke the bound: the cheater gained {gained} s, the honest clock is off by {honest_off} s (at most {tolerance} s each) after {} plies",
                last.ply
            )));
        }
        self.refused = Some(format!("bounded: {} s gained", gained.max(0)));
        // A draw both sign: offered by the honest seat, signed by the cheater, then by it.
        let offer = honest.offer_draw(clock).map_err(sign_error)?;
        deliver(&mut honest, &mut cheat, offer, clock)?;
        let half = cheat.sign_result(3, clock).map_err(sign_error)?;
        deliver(&mut cheat, &mut honest, half, clock)?;
        if honest.ended() != Some("result") {
            return Err(sign_error(
                "the honest seat did not countersign the draw it offered",
            ));
        }
        self.now = clock;
        self.sync()?;
        let report = honest
            .transcript()
            .verify(&NoPins, self.now)
            .map_err(sign_error)?;
        let (r, why) = report
            .settlement
            .ends
            .ok_or_else(|| sign_error("an agreed draw has an ending call"))?;
        let acted = self.send(self.players[0], &report.settlement)?;
        Ok((ending(r, why), acted.ending))
    }
}

/// A known game (e.g. a real one from a PGN) played off-chain between `white` and
/// `black` (chain accounts whose keys the harness holds, signing directly) and settled
/// in one transaction: a result both sign (`result`: 1, 2 or 3), or, when the final
/// position is decided (checkmate, stalemate, ...), the last pair registered and
/// finished after the response window (`finishRegistered`, two transactions).
/// Returns the gas of create, join and the settling calls, and the ending.
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
    // Each move takes the increment (5 s): the clocks stay where they start.
    let mut now = referee.chain().timestamp()?;
    for mv in moves {
        now += 5;
        game.play(*mv, now).map_err(sign_error)?;
        game.receipt(now).map_err(sign_error)?;
    }
    catch_up(referee.chain(), now)?;
    let decided = State::from_bytes(&game.last().state)
        .expect("honest")
        .status()
        != Status::Ongoing;
    let transcript = if decided {
        game.transcript()
    } else {
        game.transcript_agreed(result).map_err(sign_error)?
    };
    let report = transcript.verify(&NoPins, now).map_err(sign_error)?;
    let acted = referee.send_channel(white, &report.settlement)?;
    let mut gas = created.receipt.gas_used + joined.receipt.gas_used + acted.receipt.gas_used;
    let ended = match (decided, acted.ending) {
        (false, ended) => ended,
        (true, Some(e)) => {
            return Err(sign_error(format!(
                "a registration ended the game at once ({e})"
            )));
        }
        (true, None) => {
            // A decided position waits out its window; then anyone finishes it.
            let registered = referee
                .registered(&acted)
                .ok_or_else(|| sign_error("no PositionRegistered"))?;
            referee
                .chain()
                .advance_time(u64::from(RESPONSE_WINDOW) + 1)?;
            let finished = referee.finish_registered(white, created.id, &registered.position)?;
            gas += finished.receipt.gas_used;
            finished.ending
        }
    }
    .ok_or_else(|| sign_error("the settling call did not end the game"))?;
    Ok((gas, ended))
}
