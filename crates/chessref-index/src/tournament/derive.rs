//! The tournament's rows, rebuilt for an event by folding its stored raw logs: the
//! event's terms and status, its entrants with their places and prizes, and every match
//! of its bracket. Matches not started yet get their players and colours from the mirror
//! ([`Bracket::players`], [`Bracket::colours`]) once the draw's seed is known; the prizes
//! and shares from [`Split`] and [`Bracket::shares`].

use std::collections::{BTreeMap, BTreeSet};

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolEventInterface;
use chessref_core::tournament::{Bracket, BracketSize, Outcome, Players, Split};
use chessref_evm::bindings::ChessTournament::ChessTournamentEvents as Event;
use chessref_evm::bindings::IChessTournamentTypes::EventTerms;

use crate::db::{Sql, Tx};
use crate::error::{IndexError, Result};
use crate::raw::RawLog;
use crate::store::{logs_of, sql_int};

/// `MatchDecided.how`: the referee's result of the game.
const BY_BOARD: u8 = 1;
/// `MatchDecided.how`: a drawn game's lot.
const BY_LOT: u8 = 2;
/// `MatchDecided.how`: the other side below was abandoned.
const BY_WALKOVER: u8 = 3;

/// A tournament log decoded by the tournament's ABI.
pub fn decode(log: &RawLog) -> std::result::Result<Event, String> {
    Event::decode_raw_log(&log.topics, &log.data).map_err(|e| {
        format!(
            "tournament log {}:{} does not decode: {e}",
            log.place.block_number, log.place.log_index
        )
    })
}

/// The event a tournament log is about; `None` for `Withdrawn` (an account's, no
/// event's).
pub fn event_of(event: &Event) -> Option<U256> {
    Some(match event {
        Event::EventCreated(e) => e.eventId,
        Event::EventCancelled(e) => e.eventId,
        Event::Entered(e) => e.eventId,
        Event::DrawArmed(e) => e.eventId,
        Event::Drawn(e) => e.eventId,
        Event::MatchStarted(e) => e.eventId,
        Event::LotArmed(e) => e.eventId,
        Event::MatchDecided(e) => e.eventId,
        Event::EventFinished(e) => e.eventId,
        Event::MatchAbandoned(e) => e.eventId,
        Event::PrizeCredited(e) => e.eventId,
        Event::Withdrawn(_) => return None,
    })
}

/// A match as its logs left it.
#[derive(Clone, Debug, Default)]
struct MatchFold {
    white: Option<Address>,
    black: Option<Address>,
    game_id: Option<U256>,
    status: Option<&'static str>,
    winner: Option<Address>,
    loser: Option<Address>,
    how: Option<u8>,
    lot_block: Option<u64>,
    started_block: Option<i64>,
    decided_block: Option<i64>,
    /// `MatchAbandoned`'s white and black (both zero: nobody played it).
    abandoned: Option<(Address, Address)>,
}

/// An event as its logs left it.
#[derive(Clone, Debug)]
struct EventFold {
    organiser: Address,
    terms: EventTerms,
    created: (i64, i64),
    cancelled: bool,
    /// By entry index: the player and the place of its `Entered`.
    entrants: Vec<Option<(Address, i64, i64)>>,
    seed: Option<u64>,
    matches: BTreeMap<u8, MatchFold>,
    winner: Option<Address>,
    finished_block: Option<i64>,
    paid: U256,
    credited: BTreeSet<Address>,
    updated_block: i64,
}

/// Folds an event's logs (chain order); `None` without its `EventCreated` (rolled back,
/// or before the first indexed block).
fn fold(logs: &[RawLog]) -> Result<Option<EventFold>> {
    let mut folded: Option<EventFold> = None;
    for log in logs {
        let event = decode(log).map_err(IndexError::Invariant)?;
        let (block, index) = (
            sql_int(log.place.block_number, "block number")?,
            sql_int(log.place.log_index, "log index")?,
        );
        if let Event::EventCreated(e) = &event {
            folded = Some(EventFold {
                organiser: e.organiser,
                terms: e.terms.clone(),
                created: (block, index),
                cancelled: false,
                entrants: Vec::new(),
                seed: None,
                matches: BTreeMap::new(),
                winner: None,
                finished_block: None,
                paid: U256::ZERO,
                credited: BTreeSet::new(),
                updated_block: block,
            });
            continue;
        }
        let Some(ev) = folded.as_mut() else {
            continue;
        };
        ev.updated_block = block;
        match event {
            Event::EventCancelled(_) => ev.cancelled = true,
            Event::Entered(e) => {
                let i = usize::from(e.index);
                if ev.entrants.len() <= i {
                    ev.entrants.resize(i + 1, None);
                }
                ev.entrants[i] = Some((e.player, block, index));
            }
            Event::Drawn(e) => ev.seed = Some(e.seed),
            Event::MatchStarted(e) => {
                if let Some(m) = slot(ev, e.matchIndex) {
                    m.white = Some(e.white);
                    m.black = Some(e.black);
                    m.game_id = Some(e.gameId);
                    m.status = Some("running");
                    m.started_block = Some(block);
                }
            }
            Event::LotArmed(e) => {
                if let Some(m) = slot(ev, e.matchIndex) {
                    m.status = Some("lot");
                    m.lot_block = u64::try_from(e.lotBlock).ok();
                }
            }
            Event::MatchDecided(e) => {
                if let Some(m) = slot(ev, e.matchIndex) {
                    m.status = Some("decided");
                    m.winner = Some(e.winner);
                    m.loser = (e.loser != Address::ZERO).then_some(e.loser);
                    m.how = Some(e.how);
                    m.lot_block = None;
                    m.decided_block = Some(block);
                }
            }
            Event::MatchAbandoned(e) => {
                if let Some(m) = slot(ev, e.matchIndex) {
                    m.status = Some("abandoned");
                    m.abandoned = Some((e.white, e.black));
                    m.decided_block = Some(block);
                }
            }
            Event::EventFinished(e) => {
                ev.winner = (e.winner != Address::ZERO).then_some(e.winner);
                ev.finished_block = Some(block);
            }
            Event::PrizeCredited(e) => {
                ev.paid = ev.paid.saturating_add(e.amount);
                ev.credited.insert(e.account);
            }
            Event::EventCreated(_) | Event::DrawArmed(_) | Event::Withdrawn(_) => {}
        }
    }
    Ok(folded)
}

/// The record of match `m` of `ev`; `None` for a number no bracket has.
fn slot(ev: &mut EventFold, m: U256) -> Option<&mut MatchFold> {
    let m = u8::try_from(m).ok()?;
    Some(ev.matches.entry(m).or_default())
}

/// The name of `MatchDecided.how` (the contract's codes); `None` for a code it does not
/// have.
fn how_name(how: u8) -> Option<&'static str> {
    match how {
        BY_BOARD => Some("game"),
        BY_LOT => Some("lot"),
        BY_WALKOVER => Some("walkover"),
        _ => None,
    }
}

/// The event's stored status: what its logs say (the read side tells `refunding` from
/// `open` by the chain's time).
fn status(ev: &EventFold) -> &'static str {
    if ev.cancelled {
        "cancelled"
    } else if ev.finished_block.is_some() {
        "finished"
    } else if ev.seed.is_some() {
        "running"
    } else if ev.entrants.len() >= usize::from(ev.terms.size) {
        "drawing"
    } else {
        "open"
    }
}

/// What the derivation writes of one match.
struct MatchRow {
    white: Option<Address>,
    black: Option<Address>,
    status: &'static str,
}

/// A player's place and prize.
#[derive(Clone, Copy, Debug, Default)]
struct Place {
    tier: Option<u8>,
    prize: u128,
}

/// The outcomes the mirror reads, by match, from the logs; the entrant index of each
/// address.
fn outcomes(ev: &EventFold, bracket: Bracket) -> Vec<Option<Outcome>> {
    let index: BTreeMap<Address, u8> = ev
        .entrants
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((e.as_ref()?.0, u8::try_from(i).ok()?)))
        .collect();
    let of = |a: Address| index.get(&a).copied();
    bracket
        .size
        .matches()
        .map(|m| {
            let fold = ev.matches.get(&m.get())?;
            if let Some((white, black)) = fold.abandoned {
                if white == Address::ZERO && black == Address::ZERO {
                    return Some(Outcome::Void);
                }
                let (lo, hi) = bracket.colours(m, of(white)?, of(black)?);
                return Some(Outcome::Abandoned { lo, hi });
            }
            match fold.how? {
                BY_WALKOVER => Some(Outcome::Walkover {
                    winner: of(fold.winner?)?,
                }),
                _ => Some(Outcome::Won {
                    winner: of(fold.winner?)?,
                    loser: of(fold.loser?)?,
                }),
            }
        })
        .collect()
}

/// Every entrant's place so far and its prize: the share [`Bracket::shares`] gives once
/// every match is decided, the place's prize before (halved between two players who
/// both abandoned, the odd unit to lo, as the contract shares it).
fn places(
    bracket: Bracket,
    split: &Split,
    ev: &EventFold,
    outcomes: &[Option<Outcome>],
) -> Vec<Place> {
    let size = bracket.size;
    let mut places = vec![Place::default(); ev.entrants.len()];
    let Ok(prizes) = split.prizes(ev.terms.fee.to::<u128>(), ev.terms.feeBps) else {
        return places;
    };
    let mut set = |i: u8, tier: u8, prize: u128| {
        if let Some(p) = places.get_mut(usize::from(i)) {
            *p = Place {
                tier: Some(tier),
                prize,
            };
        }
    };
    for m in size.matches() {
        let tier = size.loser_tier(m);
        let place = prizes.of_tier(tier);
        match outcomes[usize::from(m.get())] {
            Some(Outcome::Won { winner, loser }) => {
                set(loser, tier, place);
                if m == size.final_match() {
                    set(winner, 0, prizes.of_tier(0));
                }
            }
            Some(Outcome::Walkover { winner }) if m == size.final_match() => {
                set(winner, 0, prizes.of_tier(0));
            }
            Some(Outcome::Abandoned { lo, hi }) => {
                set(lo, tier, place - place / 2);
                set(hi, tier, place / 2);
            }
            _ => {}
        }
    }
    if let Some(shares) = bracket.shares(&prizes, outcomes) {
        for (place, share) in places.iter_mut().zip(shares) {
            if place.tier.is_some() {
                place.prize = share;
            }
        }
    }
    places
}

/// Rebuilds the rows of each event of `ids` from its stored logs, inside `tx`: an event
/// whose `EventCreated` is gone (rolled back) loses its rows.
pub fn refold(tx: &mut Tx<'_>, ids: &BTreeSet<U256>) -> Result<()> {
    for &id in ids {
        let key = id.to_string();
        let logs = event_logs(tx, &key)?;
        for table in ["tournament_matches", "tournament_entries"] {
            tx.execute(
                &format!("DELETE FROM {table} WHERE tournament_id = ?1"),
                &[&key],
                "deleting an event's rows",
            )?;
        }
        tx.execute(
            "DELETE FROM tournaments WHERE id = ?1",
            &[&key],
            "deleting an event",
        )?;
        if let Some(ev) = fold(&logs)? {
            write(tx, &key, &ev)?;
        }
    }
    Ok(())
}

/// The stored logs of event `key`, in chain order.
fn event_logs(tx: &mut Tx<'_>, key: &str) -> Result<Vec<RawLog>> {
    logs_of(
        tx,
        "SELECT block_number, log_index, block_hash, tx_hash, topics, data FROM logs
         WHERE tournament_id = ?1 AND emitter = 'tournament' ORDER BY block_number, log_index",
        key,
        "reading an event's logs",
    )
}

fn opt_addr(a: Option<Address>) -> Option<String> {
    a.map(|a| a.to_string())
}

fn write(tx: &mut Tx<'_>, key: &str, ev: &EventFold) -> Result<()> {
    let t = &ev.terms;
    let split: Vec<String> = t.split.iter().map(u16::to_string).collect();
    tx.execute(
        "INSERT INTO tournaments (id, organiser, token, fee, size, initial_time, increment,
             first_move_window, response_window, deadline, fee_bps, split, abandon_after,
             entrants, status, seed, winner, paid, created_block, created_log,
             finished_block, updated_block)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
             ?18, ?19, ?20, ?21, ?22)",
        &[
            &key,
            &ev.organiser.to_string(),
            &t.token.to_string(),
            &t.fee.to_string(),
            &i64::from(t.size),
            &i64::from(t.initialTime),
            &i64::from(t.increment),
            &i64::from(t.firstMoveWindow),
            &i64::from(t.responseWindow),
            &sql_int(t.deadline.to::<u64>(), "deadline")?,
            &i64::from(t.feeBps),
            &split.join(","),
            &i64::from(t.abandonAfter),
            &(ev.entrants.iter().flatten().count() as i64),
            &status(ev),
            &ev.seed.map(|s| s.to_string()),
            &opt_addr(ev.winner),
            &ev.paid.to_string(),
            &ev.created.0,
            &ev.created.1,
            &ev.finished_block,
            &ev.updated_block,
        ],
        "writing an event",
    )?;
    // An event of a size the mirror refuses (the contract refuses it too) has entrants
    // but no bracket.
    let size = BracketSize::new(u32::from(t.size)).ok();
    let bracket = size.zip(ev.seed).map(|(size, seed)| Bracket { size, seed });
    let (outcomes, places) = match (bracket, size.and_then(|s| Split::new(s, &t.split).ok())) {
        (Some(bracket), Some(split)) => {
            let outcomes = outcomes(ev, bracket);
            let places = places(bracket, &split, ev, &outcomes);
            (outcomes, places)
        }
        _ => (Vec::new(), Vec::new()),
    };
    for (i, entrant) in ev.entrants.iter().enumerate() {
        let Some((player, block, index)) = entrant else {
            continue;
        };
        let place = places.get(i).copied().unwrap_or_default();
        tx.execute(
            "INSERT INTO tournament_entries (tournament_id, idx, player, block_number,
                 log_index, tier, prize, claimed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            &[
                &key,
                &(i as i64),
                &player.to_string(),
                block,
                index,
                &place.tier.map(i64::from),
                &place.tier.map(|_| place.prize.to_string()),
                &i64::from(ev.credited.contains(player)),
            ],
            "writing an entrant",
        )?;
    }
    let Some(size) = size else {
        return Ok(());
    };
    let entrant = |i: u8| {
        ev.entrants
            .get(usize::from(i))
            .copied()
            .flatten()
            .map(|e| e.0)
    };
    for m in size.matches() {
        let fold = ev.matches.get(&m.get()).cloned().unwrap_or_default();
        let row = match (fold.status, bracket) {
            (Some(status), _) => MatchRow {
                white: fold.white.or(fold.abandoned.map(|a| a.0)),
                black: fold.black.or(fold.abandoned.map(|a| a.1)),
                status,
            },
            (None, Some(bracket)) => {
                let (white, black) = match bracket.players(m, &outcomes) {
                    Players::Known { lo, hi } => {
                        let (white, black) = bracket.colours(m, lo, hi);
                        (entrant(white), entrant(black))
                    }
                    _ => (None, None),
                };
                MatchRow {
                    white,
                    black,
                    status: "waiting",
                }
            }
            (None, None) => MatchRow {
                white: None,
                black: None,
                status: "waiting",
            },
        };
        let nobody = |a: Option<Address>| a.filter(|a| *a != Address::ZERO);
        tx.execute(
            "INSERT INTO tournament_matches (tournament_id, match_idx, round, white, black,
                 game_id, status, winner, how, lot_block, started_block, decided_block)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            &[
                &key,
                &i64::from(m.get()),
                &i64::from(size.round(m)),
                &opt_addr(nobody(row.white)),
                &opt_addr(nobody(row.black)),
                &fold.game_id.map(|g| g.to_string()),
                &row.status,
                &opt_addr(fold.winner),
                &fold.how.and_then(how_name),
                &fold
                    .lot_block
                    .map(|b| sql_int(b, "lot block"))
                    .transpose()?,
                &fold.started_block,
                &fold.decided_block,
            ],
            "writing a match",
        )?;
    }
    Ok(())
}
