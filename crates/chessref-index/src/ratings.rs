//! Glicko-2 ratings of players, derived from the games they finished (docs/INDEX.md,
//! "Ratings").
//!
//! The computation is the [skillratings] crate's Glicko-2 ([`glicko2`], default
//! configuration: tau 0.5, convergence tolerance 0.000001), never hand-rolled here. Every
//! player starts at rating 1500, deviation 350, volatility 0.06; each rated game is one
//! rating period of one game for both its players, applied in **chain order**: by the
//! block and log index of the game's `GameEnded` event (then the game id, which two
//! endings never need). So the ratings depend only on which games ended how and where
//! on the chain, never on the order in which an indexer met them.
//!
//! Which games count ([`Finished::rated`]): phase `ended` with a result of `white_wins`,
//! `black_wins` or `draw` (an **aborted** game, result and reason `aborted`, refunds
//! both and counts for nobody; a **cancelled** game was never played), both players
//! known and distinct, **no divergence** (every event agreed with the rules: on-chain
//! moves replayed one by one; a channel game's registered positions and ending checked
//! like any other), and **final** (`pending` games may still be rolled back, so they do
//! not count yet). A rollback therefore never changes a rating that was served from
//! final games only.
//!
//! The pure core, [`rate`], takes [`RatedGame`]s from either source: the index's `games`
//! rows ([`rated_games`], one SQL query) or the games a client folded itself from the
//! chain ([`RatedGame::of_log`], what `chessref game list` uses).
//!
//! The index **keeps** its ratings rather than recomputing them on each read: the
//! `ratings` table (migration 4) holds every rated player's rating and record, equal by
//! construction to [`rate`] over [`rated_games`] ([`from_index`]), and `rated_games` the
//! games it counts. The indexer's write transactions ([`keep`]) apply the games that start
//! counting after the last one counted, in chain order, through the same step as
//! [`rate`] (so the same bits); when a counted game changes or stops counting, or one
//! starts counting before the last one counted, both tables are rebuilt from every rated
//! game. Readers only read the table ([`kept_rating`], [`leaderboard`]).
//!
//! [skillratings]: https://docs.rs/skillratings

use std::collections::BTreeMap;

use alloy_primitives::{Address, U256};
use chessref_client::game_log::GameLog;
use serde::Serialize;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

use crate::db::{DbResult, Row, Sql};
use crate::error::{IndexError, Result};
use crate::store::sql_int;

/// How a rated game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
}

impl Outcome {
    /// The result's name: `white_wins`, `black_wins` or `draw`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "white_wins",
            Outcome::BlackWins => "black_wins",
            Outcome::Draw => "draw",
        }
    }

    /// The outcome of a result name (`white_wins`, `black_wins`, `draw`); `None` for
    /// `aborted` or anything else.
    pub fn from_result(name: &str) -> Option<Outcome> {
        match name {
            "white_wins" => Some(Outcome::WhiteWins),
            "black_wins" => Some(Outcome::BlackWins),
            "draw" => Some(Outcome::Draw),
            _ => None,
        }
    }
}

/// A game as the index or a client knows it, before deciding whether it is rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished<'a> {
    /// The game id.
    pub id: U256,
    /// `open`, `running`, `ended` or `cancelled`.
    pub phase: &'a str,
    /// The result's name, once ended.
    pub result: Option<&'a str>,
    /// The reason's name, once ended.
    pub reason: Option<&'a str>,
    /// White, once joined.
    pub white: Option<Address>,
    /// Black, once joined.
    pub black: Option<Address>,
    /// Divergences between its events and the rules.
    pub divergences: u64,
    /// Whether its latest event may still be rolled back.
    pub pending: bool,
    /// Block number and log index of its latest event (the `GameEnded` of an ended game).
    pub ended_at: (u64, u64),
}

impl Finished<'_> {
    /// The game as the ratings count it, if it counts (see the module doc): ended with a
    /// win or a draw (not aborted, not cancelled), two distinct players, no divergence,
    /// final.
    pub fn rated(&self) -> Option<RatedGame> {
        if self.phase != "ended"
            || self.divergences != 0
            || self.pending
            || self.reason == Some("aborted")
        {
            return None;
        }
        let outcome = Outcome::from_result(self.result?)?;
        let (white, black) = (self.white?, self.black?);
        (white != black).then_some(RatedGame {
            id: self.id,
            white,
            black,
            outcome,
            ended_at: self.ended_at,
        })
    }
}

/// A game that counts for the ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RatedGame {
    /// The game id (orders two games only if their endings had the same place).
    pub id: U256,
    /// White.
    pub white: Address,
    /// Black.
    pub black: Address,
    /// How it ended.
    pub outcome: Outcome,
    /// Block number and log index of its `GameEnded`: the order of the rating periods.
    pub ended_at: (u64, u64),
}

impl RatedGame {
    /// A game folded from its events, if it counts. A client reading the chain has no
    /// confirmation depth: every game ended up to the block it read counts.
    pub fn of_log(game: &GameLog) -> Option<RatedGame> {
        Finished {
            id: game.id,
            phase: game.phase.name(),
            result: game.ending.map(|e| e.result.name()),
            reason: game.ending.map(|e| e.reason.name()),
            white: game.white,
            black: game.black,
            divergences: game.divergences.len() as u64,
            pending: false,
            ended_at: (game.updated.block_number, game.updated.log_index),
        }
        .rated()
    }

    fn order(&self) -> (u64, u64, U256) {
        (self.ended_at.0, self.ended_at.1, self.id)
    }
}

/// One player's Glicko-2 rating and record, full precision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating (1500 to start).
    pub rating: f64,
    /// The rating deviation (350 to start).
    pub deviation: f64,
    /// The volatility (0.06 to start).
    pub volatility: f64,
    /// Rated games played.
    pub games: u32,
    /// Of which won.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost.
    pub losses: u32,
}

impl Rating {
    /// A player with no rated game.
    pub const INITIAL: Rating = Rating {
        rating: 1500.0,
        deviation: 350.0,
        volatility: 0.06,
        games: 0,
        wins: 0,
        draws: 0,
        losses: 0,
    };

    /// What the API shows of `player` with this rating.
    pub fn view(&self, player: Address) -> PlayerView {
        PlayerView {
            address: player.to_string(),
            rating: round(self.rating, 2),
            deviation: round(self.deviation, 2),
            volatility: round(self.volatility, 6),
            games: self.games,
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
        }
    }

    /// The short form shown beside a player: rating and deviation to 2 decimals, games.
    pub fn summary(&self) -> RatingSummary {
        RatingSummary {
            rating: round(self.rating, 2),
            deviation: round(self.deviation, 2),
            games: self.games,
        }
    }

    fn glicko2(&self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    /// After one game with `new` ratings and `points` (1, 0.5 or 0).
    fn after(&self, new: Glicko2Rating, points: Outcomes) -> Rating {
        let mut next = Rating {
            rating: new.rating,
            deviation: new.deviation,
            volatility: new.volatility,
            games: self.games + 1,
            ..*self
        };
        match points {
            Outcomes::WIN => next.wins += 1,
            Outcomes::DRAW => next.draws += 1,
            Outcomes::LOSS => next.losses += 1,
        }
        next
    }
}

/// Every rated player's rating.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ratings {
    players: BTreeMap<Address, Rating>,
}

/// The ratings after `games`, each one rating period for its two players, in chain order
/// (whatever order they come in).
pub fn rate(games: impl IntoIterator<Item = RatedGame>) -> Ratings {
    let mut games: Vec<RatedGame> = games.into_iter().collect();
    games.sort_by_key(RatedGame::order);
    games.dedup_by_key(|g| g.order());
    let mut players = BTreeMap::new();
    for game in &games {
        let white = *players.get(&game.white).unwrap_or(&Rating::INITIAL);
        let black = *players.get(&game.black).unwrap_or(&Rating::INITIAL);
        let (white, black) = play(white, black, game.outcome);
        players.insert(game.white, white);
        players.insert(game.black, black);
    }
    Ratings { players }
}

/// One rating period of one game: white's and black's ratings after it. [`rate`] and the
/// kept table ([`keep`]) both step through this, so they give the same bits.
fn play(white: Rating, black: Rating, outcome: Outcome) -> (Rating, Rating) {
    let (for_white, for_black) = match outcome {
        Outcome::WhiteWins => (Outcomes::WIN, Outcomes::LOSS),
        Outcome::BlackWins => (Outcomes::LOSS, Outcomes::WIN),
        Outcome::Draw => (Outcomes::DRAW, Outcomes::DRAW),
    };
    let (new_white, new_black) = glicko2(
        &white.glicko2(),
        &black.glicko2(),
        &for_white,
        &Glicko2Config::default(),
    );
    (
        white.after(new_white, for_white),
        black.after(new_black, for_black),
    )
}

impl Ratings {
    /// `player`'s rating ([`Rating::INITIAL`] without a rated game).
    pub fn of(&self, player: Address) -> Rating {
        self.players
            .get(&player)
            .copied()
            .unwrap_or(Rating::INITIAL)
    }

    /// `player`'s rating, if they played a rated game.
    pub fn get(&self, player: Address) -> Option<&Rating> {
        self.players.get(&player)
    }

    /// Every rated player, by address.
    pub fn iter(&self) -> impl Iterator<Item = (&Address, &Rating)> {
        self.players.iter()
    }

    /// How many players are rated.
    pub fn len(&self) -> usize {
        self.players.len()
    }

    /// Whether nobody is.
    pub fn is_empty(&self) -> bool {
        self.players.is_empty()
    }

    /// What `GET /v1/players/{address}` answers: the initial rating and zeros for a
    /// player without a rated game.
    pub fn player(&self, player: Address) -> PlayerView {
        self.of(player).view(player)
    }

    /// The short form shown beside a player (the lobby's creator, `chessref game list`'s
    /// opponent); `None` for a player without a rated game.
    pub fn summary(&self, player: Address) -> Option<RatingSummary> {
        self.get(player).map(Rating::summary)
    }
}

/// `x` to `places` decimals: the JSON views do not claim more precision than a rating
/// has (and do not show the last bits, which a platform's `exp` and `ln` may change).
fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

/// A player's rating as served (camelCase keys): rating and deviation to 2 decimals,
/// volatility to 6.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerView {
    /// The address, checksummed.
    pub address: String,
    /// Glicko-2 rating (1500 without a rated game).
    pub rating: f64,
    /// Rating deviation (350 without a rated game).
    pub deviation: f64,
    /// Volatility (0.06 without a rated game).
    pub volatility: f64,
    /// Rated games.
    pub games: u32,
    /// Won.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost.
    pub losses: u32,
}

/// One player of the leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RankedPlayer {
    /// The place, from 1 (by full-precision rating, then address).
    pub rank: u64,
    /// The player's rating and record.
    #[serde(flatten)]
    pub player: PlayerView,
}

/// A page of the leaderboard (`GET /v1/players?order=rating`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Leaderboard {
    /// Rated players, all pages.
    pub total: u64,
    /// This page, highest rating first.
    pub players: Vec<RankedPlayer>,
}

/// A rating beside a player's name: rating and deviation (2 decimals), rated games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RatingSummary {
    /// Glicko-2 rating.
    pub rating: f64,
    /// Rating deviation.
    pub deviation: f64,
    /// Rated games.
    pub games: u32,
}

impl std::fmt::Display for RatingSummary {
    /// `rating 1662 ± 290, 1 game`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "rating {:.0} ± {:.0}, {} game{}",
            self.rating,
            self.deviation,
            self.games,
            if self.games == 1 { "" } else { "s" }
        )
    }
}

// The queries below are written once for both backends ([`crate::db`]): they run on a
// [`Sql`] handle, the indexer's transaction ([`crate::db::Tx`]), a connection, or a
// borrowed SQLite connection ([`crate::db::SqliteRef`]: the read side and the SQLite migrations,
// still on rusqlite).

/// The columns [`Finished`] needs of an ended game: the place of its `GameEnded` is its
/// latest log, found by the `logs_by_game` index.
const FINISHED: &str = "SELECT g.id, g.phase, g.result, g.reason, g.white, g.black, g.divergent,
         g.pending, g.updated_block,
         coalesce((SELECT max(l.log_index) FROM logs l
                   WHERE l.game_id = g.id AND l.block_number = g.updated_block), 0)
     FROM games g WHERE g.phase = 'ended'";

/// A stored value the ratings cannot read: the index is damaged.
fn stored(what: &str, text: &str, e: impl std::fmt::Display) -> IndexError {
    IndexError::Invariant(format!("stored {what} {text:?}: {e}"))
}

fn address(text: &str) -> Result<Address> {
    text.parse::<Address>()
        .map_err(|e| stored("address", text, e))
}

fn game_id(text: &str) -> Result<U256> {
    U256::from_str_radix(text, 10).map_err(|e| stored("game id", text, e))
}

/// A block number or log index as read back (never negative unless the file was edited).
fn place(value: i64) -> u64 {
    value.max(0) as u64
}

/// A row of [`FINISHED`], as stored.
struct FinishedRow {
    id: String,
    phase: String,
    result: Option<String>,
    reason: Option<String>,
    white: Option<String>,
    black: Option<String>,
    divergent: i64,
    pending: i64,
    block: i64,
    log: i64,
}

fn finished_row(row: &Row<'_>) -> DbResult<FinishedRow> {
    Ok(FinishedRow {
        id: row.get(0)?,
        phase: row.get(1)?,
        result: row.get(2)?,
        reason: row.get(3)?,
        white: row.get(4)?,
        black: row.get(5)?,
        divergent: row.get(6)?,
        pending: row.get(7)?,
        block: row.get(8)?,
        log: row.get(9)?,
    })
}

impl FinishedRow {
    /// The game as the ratings count it, if it counts.
    fn rated(&self) -> Result<Option<RatedGame>> {
        let optional = |text: &Option<String>| text.as_deref().map(address).transpose();
        Ok(Finished {
            id: game_id(&self.id)?,
            phase: &self.phase,
            result: self.result.as_deref(),
            reason: self.reason.as_deref(),
            white: optional(&self.white)?,
            black: optional(&self.black)?,
            divergences: place(self.divergent),
            pending: self.pending != 0,
            ended_at: (place(self.block), place(self.log)),
        }
        .rated())
    }
}

/// The index's rated games: one query over the ended games, filtered by
/// [`Finished::rated`].
pub fn rated_games(db: &mut impl Sql) -> Result<Vec<RatedGame>> {
    let rows = db.query(FINISHED, &[], "reading the ended games", finished_row)?;
    let mut games = Vec::new();
    for row in &rows {
        games.extend(row.rated()?);
    }
    Ok(games)
}

/// Game `id` as the ratings count it now, if it counts.
fn rated_game(db: &mut impl Sql, id: U256) -> Result<Option<RatedGame>> {
    let row = db.query_opt(
        &format!("{FINISHED} AND g.id = ?1"),
        &[&id.to_string()],
        "reading an ended game",
        finished_row,
    )?;
    Ok(match row {
        Some(row) => row.rated()?,
        None => None,
    })
}

/// The ratings of the index's final games, recomputed from the `games` rows: what the
/// kept table must equal ([`kept`]); the tests' reference.
pub fn from_index(db: &mut impl Sql) -> Result<Ratings> {
    rated_games(db).map(rate)
}

// The kept ratings (docs/INDEX.md, "Ratings"): the `ratings` table holds every rated
// player's rating as `rate` over `rated_games` gives it, and `rated_games` (the table)
// the games it counts, with what it counted of them. The indexer's write transactions
// keep them so ([`keep`]); readers only read them.

/// How a player is keyed in the `ratings` table: lowercase hex, so that the leaderboard's
/// tie order (by this text) is the same under any collation.
fn player_key(player: Address) -> String {
    format!("{player:#x}")
}

/// What [`keep`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kept {
    /// No game started or stopped counting.
    #[default]
    Unchanged,
    /// This many games, all after the last one counted in chain order, were applied.
    Applied(usize),
    /// Game `.0`, counted, changed or stopped counting (a rollback or a lying event
    /// touched it): the tables were rebuilt from every rated game.
    RebuiltChanged(U256),
    /// Game `.0` starts counting before the last one counted: the tables were rebuilt
    /// from every rated game.
    RebuiltEarlier(U256),
}

/// Brings the kept tables up to date after a write that changed the `games` rows of
/// `changed` (refolded or made final), inside that write's transaction.
///
/// Games that start counting after the last one counted (in chain order) are applied one
/// by one, as [`rate`] would apply them next. Anything else, a counted game that changed
/// or stopped counting (a rollback or a lying event touched it) or one that starts
/// counting before the last one counted, rebuilds both tables from every rated game: a
/// rebuild from the change point would need every player's rating after every game kept
/// forever, for a case a chain that does not lie never reaches (final games are below
/// every block a rollback can forget, and games become final in chain order).
pub fn keep(db: &mut impl Sql, changed: impl IntoIterator<Item = U256>) -> Result<Kept> {
    let mut new = Vec::new();
    for id in changed {
        let now = rated_game(db, id)?;
        match (counted(db, id)?, now) {
            (Some(was), now) if Some(was) != now => {
                rebuild(db)?;
                return Ok(Kept::RebuiltChanged(id));
            }
            (None, Some(now)) => new.push(now),
            _ => {}
        }
    }
    if new.is_empty() {
        return Ok(Kept::Unchanged);
    }
    new.sort_by_key(RatedGame::order);
    if let Some(last) = last_counted(db)?
        && new[0].order() <= last.order()
    {
        rebuild(db)?;
        return Ok(Kept::RebuiltEarlier(new[0].id));
    }
    for game in &new {
        let white = kept_rating(db, game.white)?.unwrap_or(Rating::INITIAL);
        let black = kept_rating(db, game.black)?.unwrap_or(Rating::INITIAL);
        let (white, black) = play(white, black, game.outcome);
        put_rating(db, game.white, &white)?;
        put_rating(db, game.black, &black)?;
        count(db, game)?;
    }
    Ok(Kept::Applied(new.len()))
}

/// Rebuilds both kept tables from every rated game, in chain order ([`rate`]): the fill
/// of the migration that adds them, on either backend.
pub fn rebuild(db: &mut impl Sql) -> Result<()> {
    db.execute("DELETE FROM ratings", &[], "clearing the kept ratings")?;
    db.execute("DELETE FROM rated_games", &[], "clearing the rated games")?;
    let games = rated_games(db)?;
    for game in &games {
        count(db, game)?;
    }
    for (player, rating) in rate(games).iter() {
        put_rating(db, *player, rating)?;
    }
    Ok(())
}

/// Records that `game` is counted.
fn count(db: &mut impl Sql, game: &RatedGame) -> Result<()> {
    db.execute(
        "INSERT INTO rated_games (game_id, block_number, log_index, white, black, outcome)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        &[
            &game.id.to_string(),
            &sql_int(game.ended_at.0, "block number")?,
            &sql_int(game.ended_at.1, "log index")?,
            &game.white.to_string(),
            &game.black.to_string(),
            &game.outcome.name(),
        ],
        "counting a rated game",
    )?;
    Ok(())
}

const COUNTED: &str = "SELECT game_id, block_number, log_index, white, black, outcome
     FROM rated_games";

/// A row of [`COUNTED`], as stored.
type CountedRow = (String, i64, i64, String, String, String);

fn counted_row(row: &Row<'_>) -> DbResult<CountedRow> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
    ))
}

fn counted_game((id, block, log, white, black, outcome): CountedRow) -> Result<RatedGame> {
    Ok(RatedGame {
        id: game_id(&id)?,
        ended_at: (place(block), place(log)),
        white: address(&white)?,
        black: address(&black)?,
        outcome: Outcome::from_result(&outcome)
            .ok_or_else(|| stored("outcome", &outcome, "not a rated result"))?,
    })
}

/// Game `id` as the kept tables counted it, if they did.
fn counted(db: &mut impl Sql, id: U256) -> Result<Option<RatedGame>> {
    db.query_opt(
        &format!("{COUNTED} WHERE game_id = ?1"),
        &[&id.to_string()],
        "reading a counted game",
        counted_row,
    )?
    .map(counted_game)
    .transpose()
}

/// The last game counted, in chain order.
fn last_counted(db: &mut impl Sql) -> Result<Option<RatedGame>> {
    // Two counted games never share a place (each is its own `GameEnded` log): the game
    // id never decides.
    db.query_opt(
        &format!("{COUNTED} ORDER BY block_number DESC, log_index DESC LIMIT 1"),
        &[],
        "reading the last counted game",
        counted_row,
    )?
    .map(counted_game)
    .transpose()
}

/// Every game the kept tables count, in chain order (the tests compare it with
/// [`rated_games`]).
pub fn counted_games(db: &mut impl Sql) -> Result<Vec<RatedGame>> {
    db.query(
        &format!("{COUNTED} ORDER BY block_number, log_index"),
        &[],
        "reading the counted games",
        counted_row,
    )?
    .into_iter()
    .map(counted_game)
    .collect()
}

fn put_rating(db: &mut impl Sql, player: Address, r: &Rating) -> Result<()> {
    db.execute(
        "INSERT INTO ratings (player, rating, deviation, volatility, games, wins, draws, losses)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (player) DO UPDATE SET rating = excluded.rating,
             deviation = excluded.deviation, volatility = excluded.volatility,
             games = excluded.games, wins = excluded.wins, draws = excluded.draws,
             losses = excluded.losses",
        &[
            &player_key(player),
            &r.rating,
            &r.deviation,
            &r.volatility,
            &i64::from(r.games),
            &i64::from(r.wins),
            &i64::from(r.draws),
            &i64::from(r.losses),
        ],
        "keeping a rating",
    )?;
    Ok(())
}

const RATING_COLUMNS: &str = "player, rating, deviation, volatility, games, wins, draws, losses";

/// A row of [`RATING_COLUMNS`], as stored.
type RatingRow = (String, f64, f64, f64, [i64; 4]);

fn rating_row(row: &Row<'_>) -> DbResult<RatingRow> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        [row.get(4)?, row.get(5)?, row.get(6)?, row.get(7)?],
    ))
}

fn rating_of(
    (player, rating, deviation, volatility, record): RatingRow,
) -> Result<(Address, Rating)> {
    let tally = |i: usize| {
        u32::try_from(record[i]).map_err(|e| stored("game count", &record[i].to_string(), e))
    };
    Ok((
        address(&player)?,
        Rating {
            rating,
            deviation,
            volatility,
            games: tally(0)?,
            wins: tally(1)?,
            draws: tally(2)?,
            losses: tally(3)?,
        },
    ))
}

/// `player`'s kept rating, if they played a rated game.
pub fn kept_rating(db: &mut impl Sql, player: Address) -> Result<Option<Rating>> {
    let row = db.query_opt(
        &format!("SELECT {RATING_COLUMNS} FROM ratings WHERE player = ?1"),
        &[&player_key(player)],
        "reading a rating",
        rating_row,
    )?;
    Ok(row.map(rating_of).transpose()?.map(|(_, rating)| rating))
}

/// Every kept rating.
pub fn kept(db: &mut impl Sql) -> Result<Ratings> {
    let rows = db.query(
        &format!("SELECT {RATING_COLUMNS} FROM ratings"),
        &[],
        "reading the ratings",
        rating_row,
    )?;
    Ok(Ratings {
        players: rows.into_iter().map(rating_of).collect::<Result<_>>()?,
    })
}

/// A page of the leaderboard from the kept table: rated players by full-precision
/// rating, highest first, ties by address (lowercase hex); `limit` of them after
/// `offset`. The `ratings_by_rating` index walks the order.
pub fn leaderboard(db: &mut impl Sql, limit: u32, offset: u32) -> Result<Leaderboard> {
    let total = db.query_one(
        "SELECT count(*) FROM ratings",
        &[],
        "counting the rated players",
        |row| row.get::<i64>(0),
    )?;
    let rows = db.query(
        &format!(
            "SELECT {RATING_COLUMNS} FROM ratings ORDER BY rating DESC, player LIMIT ?1 OFFSET ?2"
        ),
        &[&i64::from(limit), &i64::from(offset)],
        "reading a page of the leaderboard",
        rating_row,
    )?;
    let mut players = Vec::new();
    for (rank, row) in (u64::from(offset) + 1..).zip(rows) {
        let (address, rating) = rating_of(row)?;
        players.push(RankedPlayer {
            rank,
            player: rating.view(address),
        });
    }
    Ok(Leaderboard {
        total: total.max(0) as u64,
        players,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(n: u8) -> Address {
        Address::with_last_byte(n)
    }

    fn game(id: u64, white: u8, black: u8, outcome: Outcome, at: (u64, u64)) -> RatedGame {
        RatedGame {
            id: U256::from(id),
            white: player(white),
            black: player(black),
            outcome,
            ended_at: at,
        }
    }

    const A: u8 = 0xa;
    const B: u8 = 0xb;
    const C: u8 = 0xc;

    /// Five games of three players, in chain order: A beats B, B draws C, A beats C
    /// (as black), B beats A, C draws B. Two end in block 12.
    fn five() -> Vec<RatedGame> {
        vec![
            game(1, A, B, Outcome::WhiteWins, (10, 2)),
            game(2, B, C, Outcome::Draw, (12, 0)),
            game(3, C, A, Outcome::BlackWins, (12, 4)),
            game(4, B, A, Outcome::WhiteWins, (15, 1)),
            game(5, C, B, Outcome::Draw, (20, 0)),
        ]
    }

    /// Within `tolerance` of a hand-computed value.
    fn near(found: f64, expected: f64, tolerance: f64, what: &str) {
        assert!(
            (found - expected).abs() <= tolerance,
            "{what}: {found} is not {expected} (± {tolerance})"
        );
    }

    fn check(r: &Rating, expected: (f64, f64, f64), record: (u32, u32, u32), who: &str) {
        near(r.rating, expected.0, 1e-6, &format!("{who}'s rating"));
        near(r.deviation, expected.1, 1e-6, &format!("{who}'s deviation"));
        near(
            r.volatility,
            expected.2,
            1e-9,
            &format!("{who}'s volatility"),
        );
        assert_eq!((r.wins, r.draws, r.losses), record, "{who}'s record");
        assert_eq!(r.games, record.0 + record.1 + record.2, "{who}'s games");
    }

    /// The expected values were computed by hand with
    /// `crates/chessref-index/tests/fixtures/glicko2.py`: an independent Python
    /// implementation of Glickman's "Example of the Glicko-2 system" (steps 1 to 8,
    /// tau 0.5, epsilon 0.000001; it reproduces the paper's own worked example), each
    /// game one rating period for both players, in chain order.
    #[test]
    fn test_ratings_match_the_hand_computation() {
        let ratings = rate(five());
        assert_eq!(ratings.len(), 3);
        check(
            &ratings.of(player(A)),
            (1535.012697, 234.198131, 0.0600020176),
            (2, 0, 1),
            "A",
        );
        check(
            &ratings.of(player(B)),
            (1538.183040, 213.595324, 0.0600007935),
            (1, 2, 1),
            "B",
        );
        check(
            &ratings.of(player(C)),
            (1420.234395, 224.173145, 0.0599971558),
            (0, 2, 1),
            "C",
        );
        // One game from the start: skillratings' own documented example, and the
        // script's (1662.31, 290.32 and 1337.69, 290.32).
        let one = rate([game(1, A, B, Outcome::WhiteWins, (1, 0))]);
        check(
            &one.of(player(A)),
            (1662.310894, 290.318964, 0.0599996754),
            (1, 0, 0),
            "A after one win",
        );
        check(
            &one.of(player(B)),
            (1337.689106, 290.318964, 0.0599996754),
            (0, 0, 1),
            "B after one loss",
        );
    }

    #[test]
    fn test_the_order_of_indexing_does_not_matter_the_chain_order_does() {
        let expected = rate(five());
        let mut games = five();
        games.reverse();
        assert_eq!(rate(games.clone()), expected);
        games.swap(0, 3);
        games.swap(1, 4);
        assert_eq!(rate(games.clone()), expected);
        // The same game twice (read twice) counts once.
        games.push(five()[2]);
        assert_eq!(rate(games), expected);
        // Another chain order is other ratings: Glicko-2 is not commutative.
        let mut moved = five();
        moved[0].ended_at = (30, 0);
        assert_ne!(rate(moved), expected);
    }

    #[test]
    fn test_unknown_players_have_the_initial_rating_and_no_summary() {
        let ratings = rate(five());
        let nobody = player(0xee);
        assert_eq!(ratings.of(nobody), Rating::INITIAL);
        assert_eq!(ratings.summary(nobody), None);
        let view = ratings.player(nobody);
        assert_eq!(
            (view.rating, view.deviation, view.volatility, view.games),
            (1500.0, 350.0, 0.06, 0)
        );
        let a = ratings.player(player(A));
        assert_eq!(
            (a.rating, a.deviation, a.volatility),
            (1535.01, 234.2, 0.060002)
        );
        assert_eq!(a.address, player(A).to_string());
        let summary = ratings.summary(player(B)).unwrap();
        assert_eq!(summary.to_string(), "rating 1538 ± 214, 4 games");
        assert_eq!(
            serde_json::to_value(summary).unwrap(),
            serde_json::json!({"rating": 1538.18, "deviation": 213.6, "games": 4})
        );
    }

    fn finished(phase: &'static str, result: Option<&'static str>) -> Finished<'static> {
        Finished {
            id: U256::from(9),
            phase,
            result,
            reason: Some("checkmate"),
            white: Some(player(A)),
            black: Some(player(B)),
            divergences: 0,
            pending: false,
            ended_at: (40, 0),
        }
    }

    #[test]
    fn test_aborted_cancelled_divergent_pending_and_unfinished_games_do_not_count() {
        let counted = finished("ended", Some("white_wins"));
        assert_eq!(
            counted.rated(),
            Some(game(9, A, B, Outcome::WhiteWins, (40, 0)))
        );
        let draw = finished("ended", Some("draw"));
        assert_eq!(draw.rated().map(|g| g.outcome), Some(Outcome::Draw));
        let aborted = Finished {
            reason: Some("aborted"),
            ..finished("ended", Some("aborted"))
        };
        let cancelled = Finished {
            reason: None,
            white: None,
            black: None,
            ..finished("cancelled", None)
        };
        let divergent = Finished {
            divergences: 1,
            ..counted
        };
        let pending = Finished {
            pending: true,
            ..counted
        };
        let running = Finished {
            reason: None,
            ..finished("running", None)
        };
        let unknown_ending = finished("ended", None);
        let against_oneself = Finished {
            black: Some(player(A)),
            ..counted
        };
        for (what, game) in [
            ("aborted", aborted),
            ("cancelled", cancelled),
            ("divergent", divergent),
            ("pending", pending),
            ("running", running),
            ("ended without a known result", unknown_ending),
            ("against oneself", against_oneself),
        ] {
            assert_eq!(game.rated(), None, "{what}");
        }
        // None of them moves a rating.
        let mut with_them = five();
        with_them.extend(
            [aborted, cancelled, divergent, pending, running]
                .iter()
                .filter_map(Finished::rated),
        );
        assert_eq!(rate(with_them), rate(five()));
    }

    /// The index side: rows of `games` (and their `GameEnded` logs) written in two
    /// different orders give the same ratings, those of the hand computation; aborted,
    /// cancelled, divergent and pending rows count for nothing.
    #[test]
    fn test_the_index_query_rates_the_final_ended_games_in_chain_order() {
        let rows = {
            let mut rows: Vec<(RatedGame, &str, &str, &str, i64, i64)> = five()
                .into_iter()
                .map(|g| {
                    let result = match g.outcome {
                        Outcome::WhiteWins => "white_wins",
                        Outcome::BlackWins => "black_wins",
                        Outcome::Draw => "draw",
                    };
                    (g, "ended", result, "checkmate", 0, 0)
                })
                .collect();
            let extra = |id: u64, at: (u64, u64)| game(id, A, B, Outcome::WhiteWins, at);
            rows.push((extra(6, (11, 0)), "ended", "aborted", "aborted", 0, 0));
            rows.push((extra(7, (11, 1)), "cancelled", "", "", 0, 0));
            rows.push((
                extra(8, (13, 0)),
                "ended",
                "white_wins",
                "resignation",
                1,
                0,
            ));
            rows.push((
                extra(9, (21, 0)),
                "ended",
                "white_wins",
                "resignation",
                0,
                1,
            ));
            rows.push((extra(10, (21, 1)), "running", "", "", 0, 0));
            rows
        };
        let db = |name: &str, order: &[usize]| {
            let dir = std::env::temp_dir().join(format!(
                "chessref-index-ratings-{}-{name}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let store = crate::Store::open(&dir.join("index.sqlite")).unwrap();
            let conn = store.connection();
            for &i in order {
                let (g, phase, result, reason, divergent, pending) = &rows[i];
                let text = |s: &str| (!s.is_empty()).then(|| s.to_owned());
                conn.execute(
                    "INSERT INTO games (id, created_block, created_log, creator, opponent,
                         creator_white, white, black, token, stake, initial_time, increment,
                         first_move_window, phase, result, reason, ply, status, start_state,
                         state, fen, history, divergent, updated_block, pending)
                     VALUES (?1, 1, 0, ?2, ?3, 1, ?2, ?3, ?4, '0', 60, 0, 0, ?5, ?6, ?7, 0,
                         'ONGOING', '', '', '', '', ?8, ?9, ?10)",
                    rusqlite::params![
                        g.id.to_string(),
                        g.white.to_string(),
                        g.black.to_string(),
                        Address::ZERO.to_string(),
                        phase,
                        text(result),
                        text(reason),
                        divergent,
                        g.ended_at.0 as i64,
                        pending,
                    ],
                )
                .unwrap();
                // The game's logs: one in an earlier block, and two in its last block,
                // the `GameEnded` last: at 10 * index + 1 and + 5 (the order of the
                // endings is kept, other games' logs may sit between them).
                for (block, log) in [
                    (g.ended_at.0 - 1, 500 + g.id.to::<u64>()),
                    (g.ended_at.0, 10 * g.ended_at.1 + 1),
                    (g.ended_at.0, 10 * g.ended_at.1 + 5),
                ] {
                    conn.execute(
                        "INSERT INTO logs (block_number, log_index, block_hash, tx_hash,
                             game_id, topics, data)
                         VALUES (?1, ?2, zeroblob(32), zeroblob(32), ?3, x'', x'')",
                        rusqlite::params![block as i64, log as i64, g.id.to_string()],
                    )
                    .unwrap();
                }
            }
            let ratings = from_index(&mut crate::db::SqliteRef::new("t", conn)).unwrap();
            drop(store);
            let _ = std::fs::remove_dir_all(&dir);
            ratings
        };
        let forward: Vec<usize> = (0..rows.len()).collect();
        let mut backward = forward.clone();
        backward.reverse();
        let shuffled = [3, 7, 0, 9, 5, 1, 8, 4, 2, 6];
        let expected = rate(five());
        for (name, order) in [
            ("forward", &forward[..]),
            ("backward", &backward[..]),
            ("shuffled", &shuffled[..]),
        ] {
            assert_eq!(db(name, order), expected, "{name}");
        }
    }
}
