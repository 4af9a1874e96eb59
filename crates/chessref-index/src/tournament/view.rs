//! The tournament's rows as `/v1/tournaments` serves them (docs/INDEX.md): a page of
//! events, or one event with its entrants, bracket, prizes and standings. The status of
//! an event still taking entries depends on the chain's time (the newest indexed
//! block's): past its deadline, not full, it is refunding.

use alloy_primitives::{Address, U256};
use chessref_core::tournament::{BracketSize, Split};
use serde::Serialize;

use crate::db::{Row, Sql};
use crate::error::{IndexError, Result};

/// An event's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TournamentStatus {
    /// Taking entries, before its deadline.
    Open,
    /// Full; its bracket not drawn yet.
    Drawing,
    /// Drawn, its final not decided.
    Running,
    /// Its final is decided.
    Finished,
    /// Its deadline passed before it filled: every entrant is refunded on `claim`.
    Refunding,
    /// Cancelled by its organiser before anyone entered.
    Cancelled,
}

impl TournamentStatus {
    /// The status's word, as served.
    pub fn name(self) -> &'static str {
        match self {
            TournamentStatus::Open => "open",
            TournamentStatus::Drawing => "drawing",
            TournamentStatus::Running => "running",
            TournamentStatus::Finished => "finished",
            TournamentStatus::Refunding => "refunding",
            TournamentStatus::Cancelled => "cancelled",
        }
    }
}

impl std::str::FromStr for TournamentStatus {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<TournamentStatus, String> {
        [
            TournamentStatus::Open,
            TournamentStatus::Drawing,
            TournamentStatus::Running,
            TournamentStatus::Finished,
            TournamentStatus::Refunding,
            TournamentStatus::Cancelled,
        ]
        .into_iter()
        .find(|status| status.name() == s)
        .ok_or_else(|| {
            format!(
                "status {s:?} is not one of open, drawing, running, finished, refunding, \
                 cancelled"
            )
        })
    }
}

/// Which events a list shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TournamentFilter {
    /// Only events in this status.
    pub status: Option<TournamentStatus>,
    /// Only events this account entered or organises.
    pub player: Option<Address>,
    /// At most this many.
    pub limit: u32,
    /// Only events created before this one (the last of the previous page).
    pub before: Option<U256>,
}

/// A page of events, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TournamentList {
    /// The events.
    pub tournaments: Vec<TournamentSummary>,
    /// The `before` of the next page; `None` on the last.
    pub next: Option<String>,
}

/// An event's terms and state, as a list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TournamentSummary {
    /// The event id, decimal.
    pub id: String,
    /// The tournament contract.
    pub tournament: String,
    /// Its status.
    pub status: TournamentStatus,
    /// Who created it.
    pub organiser: String,
    /// The fee's token (the zero address: ETH).
    pub token: String,
    /// The entry fee, in wei or token units.
    pub fee: String,
    /// Its number of players.
    pub size: u32,
    /// How many entered.
    pub entrant_count: u32,
    /// Registration closes after this time (unix seconds).
    pub deadline: u64,
    /// The games' time per side, seconds.
    pub initial_time: u32,
    /// The games' increment, seconds.
    pub increment: u32,
    /// 0 for on-chain games, else the channel games' response window.
    pub response_window: u32,
    /// The organiser's fee, basis points of the pool.
    pub organiser_fee_bps: u32,
    /// The entries' fees so far.
    pub pool: String,
    /// The final's winner, once decided.
    pub winner: Option<String>,
    /// The block of its creation.
    pub created_block: u64,
}

/// A match of the bracket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchView {
    /// Its number, as the contract numbers it.
    #[serde(rename = "match")]
    pub match_index: u32,
    /// Its round, 0 first.
    pub round: u32,
    /// White, once the players are known.
    pub white: Option<String>,
    /// Black, once the players are known.
    pub black: Option<String>,
    /// The referee game, once started.
    pub game_id: Option<String>,
    /// `waiting`, `running`, `decided`, `lot` or `abandoned`.
    pub status: String,
    /// Who went on, once decided.
    pub winner: Option<String>,
    /// How it was decided: `game`, `lot` or `walkover`.
    pub how: Option<String>,
    /// The block whose hash decides an armed lot.
    pub lot_block: Option<u64>,
}

/// What one player of a tier is paid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PrizeView {
    /// 0 the winner, 1 the finalist, 2 each semi-finalist, …
    pub tier: u8,
    /// How many players finish in it.
    pub players: u32,
    /// The prize of each.
    pub prize: String,
}

/// A player placed so far.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standing {
    /// The player.
    pub player: String,
    /// Its tier.
    pub tier: u8,
    /// What it is (or will be) credited.
    pub prize: String,
    /// Whether a credit of this event reached it (`PrizeCredited`).
    pub credited: bool,
}

/// An event in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TournamentView {
    /// What a list shows of it.
    #[serde(flatten)]
    pub summary: TournamentSummary,
    /// A player's time to make its first move, seconds.
    pub first_move_window: u32,
    /// How long past a deadline, nobody claiming, a game counts as abandoned by both.
    pub abandon_after: u32,
    /// Basis points per player of each tier.
    pub split: Vec<u16>,
    /// The entrants, in registration order.
    pub entrants: Vec<String>,
    /// The draw's seed, once drawn.
    pub seed: Option<String>,
    /// Every credit of the event so far.
    pub paid: String,
    /// The bracket, round 0 first.
    pub rounds: Vec<Vec<MatchView>>,
    /// Each tier's prize.
    pub prizes: Vec<PrizeView>,
    /// The players placed so far, best tier first.
    pub standings: Vec<Standing>,
    /// The index's last block.
    pub indexed_block: i64,
}

/// The summary's columns, in [`summary`]'s order.
const SUMMARY_COLUMNS: &str = "id, organiser, token, fee, size, entrants, deadline, \
    initial_time, increment, response_window, fee_bps, winner, created_block, status";

/// The status as served: `open` past its deadline is `refunding`, by the chain's `now`.
const SERVED_STATUS: &str =
    "CASE WHEN status = 'open' AND deadline < ?1 THEN 'refunding' ELSE status END";

fn bad(what: String) -> IndexError {
    IndexError::Invariant(what)
}

/// A row of [`SUMMARY_COLUMNS`], the served status last.
fn summary(tournament: &str) -> impl Fn(&Row<'_>) -> crate::db::DbResult<RawSummary> + '_ {
    move |r| {
        Ok(RawSummary {
            id: r.get(0)?,
            tournament: tournament.to_owned(),
            organiser: r.get(1)?,
            token: r.get(2)?,
            fee: r.get(3)?,
            size: r.int(4)?,
            entrants: r.int(5)?,
            deadline: r.int(6)?,
            initial_time: r.int(7)?,
            increment: r.int(8)?,
            response_window: r.int(9)?,
            fee_bps: r.int(10)?,
            winner: r.get(11)?,
            created_block: r.int(12)?,
            status: r.get(13)?,
        })
    }
}

/// A summary as stored, its numbers not combined yet.
struct RawSummary {
    id: String,
    tournament: String,
    organiser: String,
    token: String,
    fee: String,
    size: u32,
    entrants: u32,
    deadline: u64,
    initial_time: u32,
    increment: u32,
    response_window: u32,
    fee_bps: u32,
    winner: Option<String>,
    created_block: u64,
    status: String,
}

impl RawSummary {
    fn served(self) -> Result<TournamentSummary> {
        let fee: U256 = self
            .fee
            .parse()
            .map_err(|e| bad(format!("event {}: stored fee {:?}: {e}", self.id, self.fee)))?;
        let status = self
            .status
            .parse()
            .map_err(|e| bad(format!("event {}: {e}", self.id)))?;
        Ok(TournamentSummary {
            pool: (fee * U256::from(self.entrants)).to_string(),
            id: self.id,
            tournament: self.tournament,
            status,
            organiser: self.organiser,
            token: self.token,
            fee: self.fee,
            size: self.size,
            entrant_count: self.entrants,
            deadline: self.deadline,
            initial_time: self.initial_time,
            increment: self.increment,
            response_window: self.response_window,
            organiser_fee_bps: self.fee_bps,
            winner: self.winner,
            created_block: self.created_block,
        })
    }
}

/// The chain's time: the newest indexed block's timestamp (0 before any).
fn chain_now(db: &mut impl Sql) -> Result<i64> {
    Ok(db
        .query_opt(
            "SELECT timestamp FROM blocks ORDER BY number DESC LIMIT 1",
            &[],
            "reading the chain's time",
            |r| r.get::<i64>(0),
        )?
        .unwrap_or(0))
}

/// A page of events matching `filter`, newest first; `tournament` is the contract's
/// address as served.
pub fn list(
    db: &mut impl Sql,
    tournament: &str,
    filter: &TournamentFilter,
) -> Result<TournamentList> {
    let now = chain_now(db)?;
    let status = filter.status.map(TournamentStatus::name);
    let player = filter.player.map(|a| a.to_string());
    let before = filter.before.map(|id| id.to_string());
    let limit = i64::from(filter.limit.max(1));
    let rows = db.query(
        &format!(
            "SELECT {SUMMARY_COLUMNS_SERVED} FROM tournaments
             WHERE ({SERVED_STATUS} = ?2 OR ?2 IS NULL)
               AND (organiser = ?3 OR id IN (SELECT tournament_id FROM tournament_entries
                    WHERE player = ?3) OR ?3 IS NULL)
               AND ((created_block, created_log) < (SELECT created_block, created_log
                    FROM tournaments WHERE id = ?4) OR ?4 IS NULL)
             ORDER BY created_block DESC, created_log DESC LIMIT ?5",
            SUMMARY_COLUMNS_SERVED = served_columns()
        ),
        &[&now, &status, &player, &before, &(limit + 1)],
        "listing events",
        summary(tournament),
    )?;
    let more = rows.len() as i64 > limit;
    let tournaments = rows
        .into_iter()
        .take(limit as usize)
        .map(RawSummary::served)
        .collect::<Result<Vec<_>>>()?;
    Ok(TournamentList {
        next: more
            .then(|| tournaments.last().map(|t| t.id.clone()))
            .flatten(),
        tournaments,
    })
}

/// [`SUMMARY_COLUMNS`] with the stored status replaced by the served one (`?1`: now).
fn served_columns() -> String {
    SUMMARY_COLUMNS.replace(", status", &format!(", {SERVED_STATUS}"))
}

/// Event `id` in full, if indexed; `tournament` is the contract's address as served,
/// `indexed_block` the index's last block.
pub fn event(
    db: &mut impl Sql,
    tournament: &str,
    id: U256,
    indexed_block: i64,
) -> Result<Option<TournamentView>> {
    let key = id.to_string();
    let now = chain_now(db)?;
    let Some(raw) = db.query_opt(
        &format!(
            "SELECT {}, split, first_move_window, abandon_after, seed, paid, fee_bps
             FROM tournaments WHERE id = ?2",
            served_columns()
        ),
        &[&now, &key],
        "reading an event",
        |r| {
            Ok((
                summary(tournament)(r)?,
                r.get::<String>(14)?,
                r.int::<u32>(15)?,
                r.int::<u32>(16)?,
                r.get::<Option<String>>(17)?,
                r.get::<String>(18)?,
                r.int::<u16>(19)?,
            ))
        },
    )?
    else {
        return Ok(None);
    };
    let (raw, split, first_move_window, abandon_after, seed, paid, fee_bps) = raw;
    let summary = raw.served()?;
    let split: Vec<u16> = split
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|e| bad(format!("event {key}: stored split {split:?}: {e}")))
        })
        .collect::<Result<_>>()?;
    let entries = db.query(
        "SELECT player, tier, prize, claimed FROM tournament_entries
         WHERE tournament_id = ?1 ORDER BY idx",
        &[&key],
        "reading an event's entrants",
        |r| {
            Ok((
                r.get::<String>(0)?,
                r.get::<Option<i64>>(1)?,
                r.get::<Option<String>>(2)?,
                r.get::<i64>(3)? != 0,
            ))
        },
    )?;
    let mut standings: Vec<Standing> = entries
        .iter()
        .filter_map(|(player, tier, prize, credited)| {
            Some(Standing {
                player: player.clone(),
                tier: u8::try_from((*tier)?).ok()?,
                prize: prize.clone().unwrap_or_else(|| "0".into()),
                credited: *credited,
            })
        })
        .collect();
    // Best tier first; within a tier, registration order (the sort is stable).
    standings.sort_by_key(|s| s.tier);
    let matches = db.query(
        "SELECT match_idx, round, white, black, game_id, status, winner, how, lot_block
         FROM tournament_matches WHERE tournament_id = ?1 ORDER BY match_idx",
        &[&key],
        "reading an event's matches",
        |r| {
            Ok(MatchView {
                match_index: r.int(0)?,
                round: r.int(1)?,
                white: r.get(2)?,
                black: r.get(3)?,
                game_id: r.get(4)?,
                status: r.get(5)?,
                winner: r.get(6)?,
                how: r.get(7)?,
                lot_block: r.get::<Option<i64>>(8)?.map(|b| b.max(0) as u64),
            })
        },
    )?;
    let mut rounds: Vec<Vec<MatchView>> = Vec::new();
    for m in matches {
        let round = m.round as usize;
        if rounds.len() <= round {
            rounds.resize_with(round + 1, Vec::new);
        }
        rounds[round].push(m);
    }
    let prizes = prizes(&summary, &split, fee_bps);
    Ok(Some(TournamentView {
        first_move_window,
        abandon_after,
        split,
        entrants: entries.into_iter().map(|e| e.0).collect(),
        seed,
        paid,
        rounds,
        prizes,
        standings,
        indexed_block,
        summary,
    }))
}

/// Each tier's prize, as the mirror computes the contract's (none for terms it refuses).
fn prizes(summary: &TournamentSummary, split: &[u16], fee_bps: u16) -> Vec<PrizeView> {
    let Ok(size) = BracketSize::new(summary.size) else {
        return Vec::new();
    };
    let Ok(fee) = summary.fee.parse::<u128>() else {
        return Vec::new();
    };
    let Some(prizes) = Split::new(size, split)
        .ok()
        .and_then(|s| s.prizes(fee, fee_bps).ok())
    else {
        return Vec::new();
    };
    (0..=size.rounds())
        .map(|tier| PrizeView {
            tier,
            players: size.tier_count(tier),
            prize: prizes.of_tier(tier).to_string(),
        })
        .collect()
}
