//! The index database, read side: what `chessref serve --index` answers. The indexer is
//! another process writing the same database: a SQLite file is opened read-only, a
//! Postgres database is read through a pool ([`Index`]). The queries are written once for
//! both ([`crate::db`]).
//! The views serialize with camelCase keys (`updatedBlock`, `startFen`), as every JSON
//! chessref writes; their values (phases, results, reasons) stay snake_case. Players'
//! ratings ([`Reader::player`], [`Reader::leaderboard`], the lobby's `creatorRating`) are
//! read from the table the indexer keeps ([`crate::ratings`]).

use alloy_primitives::{Address, U256};
use chessref_core::{Color, Game, RawMove, State};
use chessref_evm::clock_word::ClockWord;
use serde::Serialize;

use crate::db::{Conn, Database, DbResult, DbTarget, Row, Sql};
use crate::ratings::{self, PlayerView, RatingSummary};
use crate::tournament::{self, TournamentFilter, TournamentList, TournamentView};

/// The database cannot be read: missing, locked, unreachable, not an index, or a newer
/// schema.
#[derive(Debug, thiserror::Error)]
#[error("index database {path} is unavailable: {message}")]
pub struct Unavailable {
    /// The SQLite file, or the Postgres URL without its password.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// `Result` of the read side.
pub type ReadResult<T> = Result<T, Unavailable>;

/// The index as its readers share it: a SQLite file, which each [`Reader`] opens anew and
/// read-only, or a pool of Postgres connections. Opening it touches nothing (a missing
/// file or a server down is the first reader's [`Unavailable`]); cloning it shares the
/// pool.
#[derive(Clone, Debug)]
pub struct Index {
    db: Database,
    /// A SQLite file, checked for before each reader: a read-only open of a missing file
    /// fails with a message that does not say so.
    file: Option<std::path::PathBuf>,
}

impl Index {
    /// The index at `target`, Postgres readers sharing at most `pool_size` connections.
    pub fn open(target: &DbTarget, pool_size: u32) -> Index {
        Index {
            db: Database::open_read_only(target, pool_size),
            file: match target {
                DbTarget::Sqlite(path) => Some(path.clone()),
                DbTarget::Postgres(_) => None,
            },
        }
    }

    /// The database in messages: a path, or a URL without its password.
    pub fn name(&self) -> &str {
        self.db.name()
    }

    /// A reader: a read-only connection to the file, or one of the pool's; either way
    /// refused unless the schema is the one this build reads (never created or migrated
    /// here: that is the indexer's).
    pub fn reader(&self) -> ReadResult<Reader> {
        let path = self.name().to_owned();
        let unavailable = |message: String| Unavailable {
            path: path.clone(),
            message,
        };
        if self.file.as_ref().is_some_and(|file| !file.is_file()) {
            return Err(unavailable(
                "no such file (is chessref index running?)".into(),
            ));
        }
        let mut conn = self.db.connect().map_err(|e| unavailable(e.to_string()))?;
        let (found, known) = conn
            .schema_version()
            .map_err(|e| unavailable(e.to_string()))?;
        if found != known {
            let why = if found == 0 {
                "no index yet (is chessref index running?)".to_owned()
            } else {
                format!("schema version {found}, this chessref reads version {known}")
            };
            return Err(unavailable(why));
        }
        Ok(Reader { conn, path })
    }
}

/// One reader of the index at `target` (a Postgres pool of its own: a server shares an
/// [`Index`] instead).
pub fn open(target: &DbTarget) -> ReadResult<Reader> {
    Index::open(target, 1).reader()
}

/// A read-only view of the index: one connection.
pub struct Reader {
    conn: Conn,
    path: String,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Reader").field(&self.path).finish()
    }
}

/// Which games the lobby lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateFilter {
    /// Waiting for an opponent.
    Open,
    /// Being played.
    Running,
    /// Ended or cancelled.
    Ended,
}

impl std::str::FromStr for StateFilter {
    type Err = String;

    fn from_str(s: &str) -> Result<StateFilter, String> {
        match s {
            "open" => Ok(StateFilter::Open),
            "running" => Ok(StateFilter::Running),
            "ended" => Ok(StateFilter::Ended),
            other => Err(format!(
                "state {other:?} is not one of open, running, ended"
            )),
        }
    }
}

/// A lobby query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lobby {
    /// Only games in this state.
    pub state: Option<StateFilter>,
    /// Only games this account created, was invited to or plays.
    pub player: Option<Address>,
    /// At most this many games.
    pub limit: u32,
    /// After skipping this many.
    pub offset: u32,
}

/// One game of the lobby.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameSummary {
    /// Decimal game id.
    pub id: String,
    /// `open`, `running`, `ended` or `cancelled`.
    pub phase: String,
    /// Whether its latest event is not final yet (may still be rolled back).
    pub pending: bool,
    /// Creator.
    pub creator: String,
    /// Invited opponent, null for an open game.
    pub opponent: Option<String>,
    /// White, once joined.
    pub white: Option<String>,
    /// Black, once joined.
    pub black: Option<String>,
    /// Stake token, null for ETH.
    pub token: Option<String>,
    /// Stake of each side, decimal (wei or token units).
    pub stake: String,
    /// Initial time of each clock, seconds.
    pub initial_time: u32,
    /// Fischer increment, seconds.
    pub increment: u32,
    /// Moves played.
    pub ply: u32,
    /// Section 8 status name of the current position.
    pub status: String,
    /// `white_wins`, `black_wins`, `draw` or `aborted`, once ended.
    pub result: Option<String>,
    /// Why it ended (`checkmate`, `resignation`, ...), once ended.
    pub reason: Option<String>,
    /// Block of its creation.
    pub created_block: u64,
    /// Block of its latest event.
    pub updated_block: u64,
    /// Divergences between its events and the rules (0 unless something is badly wrong).
    pub divergences: u32,
}

/// One game of the lobby page: its summary and its creator's rating.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LobbyGame {
    /// The game.
    #[serde(flatten)]
    pub game: GameSummary,
    /// The creator's Glicko-2 rating (rating and deviation to 2 decimals, rated games);
    /// null while the creator has no rated game.
    pub creator_rating: Option<RatingSummary>,
}

/// A page of the lobby.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LobbyPage {
    /// Games matching, all pages.
    pub total: u64,
    /// This page, newest first.
    pub games: Vec<LobbyGame>,
    /// The index's last block.
    pub indexed_block: i64,
    /// Seconds since the indexer last heard the node (null before its first step): small
    /// on a quiet chain, growing while the indexer or its node is stalled.
    pub head_age: Option<u64>,
}

/// How fresh the index is (`GET /v1/health`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// The chain id and referee the index follows, once bound.
    pub chain_id: Option<u64>,
    /// The referee.
    pub referee: Option<String>,
    /// The index's last block (-1 before the first).
    pub indexed_block: i64,
    /// The chain head at the indexer's last poll.
    pub head: Option<u64>,
    /// The highest final block at the last poll.
    pub final_block: Option<u64>,
    /// Unix time the indexer last heard the node.
    pub updated_at: Option<u64>,
    /// Seconds since then, by the server's clock.
    pub head_age: Option<u64>,
}

/// One move of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveView {
    /// Ply after the move (1 = first).
    pub ply: u32,
    /// UCI.
    pub uci: String,
    /// SAN, null if the rules refused the move (a divergence).
    pub san: Option<String>,
    /// The packed uint24 the contract took.
    pub packed: u32,
    /// Section 8 status code after the move, as the event reports it.
    pub status: u8,
    /// Its block.
    pub block: u64,
    /// Its transaction.
    pub tx: String,
}

/// Both clocks as of the last move (or the join), decoded from the clock word
/// (REFEREE.md section 3): seconds left exclude the 15 s grace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockView {
    /// The packed clock word, hex.
    pub word: String,
    /// When the side to move's clock started (block timestamp).
    pub last_timestamp: u64,
    /// White's seconds left at `last_timestamp`.
    pub white_seconds: u64,
    /// Black's seconds left at `last_timestamp`.
    pub black_seconds: u64,
    /// `white` or `black` offers a draw, if either.
    pub draw_offer: Option<String>,
}

impl ClockView {
    /// Decodes a clock word.
    pub fn of(word: U256) -> ClockView {
        let clock = ClockWord(word);
        ClockView {
            word: format!("{word:#x}"),
            last_timestamp: clock.last_timestamp(),
            white_seconds: clock.seconds_left(Color::White),
            black_seconds: clock.seconds_left(Color::Black),
            draw_offer: clock.draw_offer().map(|c| match c {
                Color::White => "white".to_owned(),
                Color::Black => "black".to_owned(),
            }),
        }
    }
}

/// A divergence as served.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DivergenceView {
    /// The event.
    pub event: String,
    /// Its block, transaction and log index.
    pub block: u64,
    /// Its transaction.
    pub tx: String,
    /// Its log index.
    pub log_index: u64,
    /// What differs.
    pub what: String,
    /// What the rules give.
    pub expected: String,
    /// What the event says.
    pub found: String,
}

/// One game in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameView {
    /// The lobby's fields.
    #[serde(flatten)]
    pub summary: GameSummary,
    /// Current position, FEN.
    pub fen: String,
    /// Current state, 256 hex digits.
    pub state: String,
    /// Repetition-chain head, hex.
    pub history: String,
    /// Start position, FEN (empty if the start state is invalid).
    pub start_fen: String,
    /// Clocks, once joined.
    pub clock: Option<ClockView>,
    /// The account offering a draw in the current position.
    pub draw_offer: Option<String>,
    /// The moves, in order.
    pub moves: Vec<MoveView>,
    /// Divergences found, with their evidence.
    pub divergence_list: Vec<DivergenceView>,
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` (running, or aborted).
    pub pgn_result: String,
}

/// One entry of the `changes` feed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// Increasing sequence number.
    pub seq: i64,
    /// `created`, `joined`, `move`, `draw_offer`, `ended`, `cancelled`, `final`,
    /// `rollback`, `divergence`.
    pub kind: String,
    /// The game's ply at the change (the move's ply for `move`).
    pub ply: u32,
    /// Block of the change.
    pub block: u64,
}

const SUMMARY_COLUMNS: &str = "id, phase, pending, creator, opponent, white, black, token, stake,
    initial_time, increment, ply, status, result, reason, created_block, updated_block, divergent";

fn non_zero(address: String) -> Option<String> {
    (address.parse::<Address>().ok() != Some(Address::ZERO)).then_some(address)
}

fn summary(row: &Row<'_>) -> DbResult<GameSummary> {
    Ok(GameSummary {
        id: row.get(0)?,
        phase: row.get(1)?,
        pending: row.get::<i64>(2)? != 0,
        creator: row.get(3)?,
        opponent: non_zero(row.get(4)?),
        white: row.get(5)?,
        black: row.get(6)?,
        token: non_zero(row.get(7)?),
        stake: row.get(8)?,
        initial_time: row.int(9)?,
        increment: row.int(10)?,
        ply: row.int(11)?,
        status: row.get(12)?,
        result: row.get(13)?,
        reason: row.get(14)?,
        created_block: row.int(15)?,
        updated_block: row.int(16)?,
        divergences: row.int(17)?,
    })
}

fn change(row: &Row<'_>, from: usize) -> DbResult<Change> {
    Ok(Change {
        seq: row.get(from)?,
        kind: row.get(from + 1)?,
        ply: row.int(from + 2)?,
        block: row.int(from + 3)?,
    })
}

/// The PGN result token of a result name.
pub fn pgn_result(result: Option<&str>) -> &'static str {
    match result {
        Some("white_wins") => "1-0",
        Some("black_wins") => "0-1",
        Some("draw") => "1/2-1/2",
        _ => "*",
    }
}

impl Reader {
    /// Runs `read` in one read transaction, so that the queries of one view see one
    /// committed state of the index (without it each statement reads its own, and a view
    /// could pair a game's row with moves the indexer committed after it; CI saw that).
    /// On Postgres `REPEATABLE READ`: one snapshot for the transaction, not a statement.
    fn in_snapshot<T>(&mut self, read: impl FnOnce(&mut Reader) -> ReadResult<T>) -> ReadResult<T> {
        let begin = if self.conn.is_postgres() {
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        } else {
            "BEGIN"
        };
        self.conn
            .batch(begin, "starting a read")
            .map_err(|e| self.unavailable(e))?;
        let value = read(self);
        // Ended whatever `read` gave (after a failed statement Postgres rolls it back).
        let ended = self.conn.batch("COMMIT", "ending a read");
        let value = value?;
        ended.map_err(|e| self.unavailable(e))?;
        Ok(value)
    }

    fn unavailable(&self, e: impl std::fmt::Display) -> Unavailable {
        Unavailable {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// The lobby: games matching `query`, newest first.
    pub fn lobby(&mut self, query: &Lobby) -> ReadResult<LobbyPage> {
        self.in_snapshot(|reader| reader.lobby_now(query))
    }

    fn lobby_now(&mut self, query: &Lobby) -> ReadResult<LobbyPage> {
        let phases: &[&str] = match query.state {
            None => &["open", "running", "ended", "cancelled"],
            Some(StateFilter::Open) => &["open"],
            Some(StateFilter::Running) => &["running"],
            Some(StateFilter::Ended) => &["ended", "cancelled"],
        };
        let player = query.player.map(|a| a.to_string());
        // Postgres infers `?5`'s type (text) from the comparisons: `IS NULL` gives none.
        let filter = "phase IN (?1, ?2, ?3, ?4) AND (creator = ?5 OR opponent = ?5
            OR white = ?5 OR black = ?5 OR ?5 IS NULL)";
        let phase = |i: usize| phases.get(i).copied().unwrap_or(phases[0]);
        let (p0, p1, p2, p3) = (phase(0), phase(1), phase(2), phase(3));
        let total = self
            .conn
            .query_one(
                &format!("SELECT count(*) FROM games WHERE {filter}"),
                &[&p0, &p1, &p2, &p3, &player],
                "counting the lobby's games",
                |r| r.get::<i64>(0),
            )
            .map_err(|e| self.unavailable(e))?;
        let games = self
            .conn
            .query(
                &format!(
                    "SELECT {SUMMARY_COLUMNS} FROM games WHERE {filter}
                     ORDER BY created_block DESC, created_log DESC LIMIT ?6 OFFSET ?7"
                ),
                &[
                    &p0,
                    &p1,
                    &p2,
                    &p3,
                    &player,
                    &i64::from(query.limit),
                    &i64::from(query.offset),
                ],
                "reading the lobby",
                summary,
            )
            .map_err(|e| self.unavailable(e))?;
        let games = games
            .into_iter()
            .map(|game| {
                let creator_rating = match game.creator.parse::<Address>() {
                    Ok(creator) => ratings::kept_rating(&mut self.conn, creator)
                        .map_err(|e| self.unavailable(e))?
                        .map(|r| r.summary()),
                    Err(_) => None,
                };
                Ok(LobbyGame {
                    creator_rating,
                    game,
                })
            })
            .collect::<ReadResult<_>>()?;
        Ok(LobbyPage {
            total: total.max(0) as u64,
            games,
            indexed_block: self.indexed_block()?,
            head_age: self.health()?.head_age,
        })
    }

    /// `player`'s rating and record (the initial rating and zeros without a rated game),
    /// as the indexer keeps it ([`crate::ratings`]).
    pub fn player(&mut self, player: Address) -> ReadResult<PlayerView> {
        let rating =
            ratings::kept_rating(&mut self.conn, player).map_err(|e| self.unavailable(e))?;
        Ok(rating.unwrap_or(ratings::Rating::INITIAL).view(player))
    }

    /// A page of the leaderboard: rated players by rating, highest first.
    pub fn leaderboard(&mut self, limit: u32, offset: u32) -> ReadResult<ratings::Leaderboard> {
        self.in_snapshot(|reader| reader.leaderboard_now(limit, offset))
    }

    fn leaderboard_now(&mut self, limit: u32, offset: u32) -> ReadResult<ratings::Leaderboard> {
        ratings::leaderboard(&mut self.conn, limit, offset).map_err(|e| self.unavailable(e))
    }

    /// The chain id and referee the index follows, once bound.
    fn source(&mut self) -> ReadResult<Option<(u64, String)>> {
        self.conn
            .query_opt(
                "SELECT chain_id, referee FROM source WHERE id = 1",
                &[],
                "reading what the index follows",
                |r| Ok((r.int(0)?, r.get(1)?)),
            )
            .map_err(|e| self.unavailable(e))
    }

    /// A page of knockout events matching `filter`, newest first ([`crate::tournament`]).
    pub fn tournaments(&mut self, filter: &TournamentFilter) -> ReadResult<TournamentList> {
        self.in_snapshot(|reader| {
            let tournament = reader.tournament_address()?;
            tournament::view::list(&mut reader.conn, &tournament, filter)
                .map_err(|e| reader.unavailable(e))
        })
    }

    /// Knockout event `id` in full, if indexed.
    pub fn tournament(&mut self, id: U256) -> ReadResult<Option<TournamentView>> {
        self.in_snapshot(|reader| {
            let tournament = reader.tournament_address()?;
            let indexed_block = reader.indexed_block()?;
            tournament::view::event(&mut reader.conn, &tournament, id, indexed_block)
                .map_err(|e| reader.unavailable(e))
        })
    }

    /// The referee's tournament (the zero address before the index is bound).
    fn tournament_address(&mut self) -> ReadResult<String> {
        let referee = self.source()?.and_then(|(_, referee)| referee.parse().ok());
        Ok(referee
            .map_or(Address::ZERO, chessref_evm::tournament::tournament_address)
            .to_string())
    }

    /// What the index follows, as a PGN `Site`: `chain ID referee ADDR`.
    pub fn site(&mut self) -> ReadResult<String> {
        Ok(self.source()?.map_or_else(
            || "?".into(),
            |(chain, referee)| format!("chain {chain} referee {referee}"),
        ))
    }

    /// How fresh the index is.
    pub fn health(&mut self) -> ReadResult<Health> {
        let source = self.source()?;
        let cursor: Option<(i64, i64, i64, i64)> = self
            .conn
            .query_opt(
                "SELECT block_number, head, final_block, updated_at FROM cursor WHERE id = 1",
                &[],
                "reading the cursor",
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .map_err(|e| self.unavailable(e))?;
        let now = crate::store::unix_now();
        Ok(Health {
            chain_id: source.as_ref().map(|s| s.0),
            referee: source.map(|s| s.1),
            indexed_block: cursor.map_or(-1, |c| c.0),
            head: cursor.map(|c| c.1.max(0) as u64),
            final_block: cursor.map(|c| c.2.max(0) as u64),
            updated_at: cursor.map(|c| c.3.max(0) as u64),
            head_age: cursor.map(|c| now.saturating_sub(c.3).max(0) as u64),
        })
    }

    /// The index's last block (-1 before the first).
    pub fn indexed_block(&mut self) -> ReadResult<i64> {
        self.conn
            .query_opt(
                "SELECT block_number FROM cursor WHERE id = 1",
                &[],
                "reading the cursor",
                |r| r.get(0),
            )
            .map(|b| b.unwrap_or(-1))
            .map_err(|e| self.unavailable(e))
    }

    /// Game `id` in full, if indexed.
    pub fn game(&mut self, id: U256) -> ReadResult<Option<GameView>> {
        self.in_snapshot(|reader| reader.game_now(id))
    }

    fn game_now(&mut self, id: U256) -> ReadResult<Option<GameView>> {
        let key = id.to_string();
        let row = self
            .conn
            .query_opt(
                &format!(
                    "SELECT {SUMMARY_COLUMNS}, fen, state, history, start_state, clock, draw_offer
                     FROM games WHERE id = ?1"
                ),
                &[&key],
                "reading a game",
                |row| {
                    Ok((
                        summary(row)?,
                        row.get::<String>(18)?,
                        row.get::<String>(19)?,
                        row.get::<String>(20)?,
                        row.get::<String>(21)?,
                        row.get::<Option<String>>(22)?,
                        row.get::<Option<String>>(23)?,
                    ))
                },
            )
            .map_err(|e| self.unavailable(e))?;
        let Some((summary, fen, state, history, start_state, clock, draw_offer)) = row else {
            return Ok(None);
        };
        let moves = self
            .conn
            .query(
                "SELECT ply, uci, san, packed, status, block_number, tx_hash FROM moves
                 WHERE game_id = ?1 ORDER BY seq",
                &[&key],
                "reading a game's moves",
                |r| {
                    Ok(MoveView {
                        ply: r.int(0)?,
                        uci: r.get(1)?,
                        san: r.get(2)?,
                        packed: r.int(3)?,
                        status: r.int(4)?,
                        block: r.int(5)?,
                        tx: r.get(6)?,
                    })
                },
            )
            .map_err(|e| self.unavailable(e))?;
        let divergence_list = self
            .conn
            .query(
                "SELECT event, block_number, tx_hash, log_index, what, expected, found
                 FROM divergences WHERE game_id = ?1 ORDER BY block_number, log_index, id",
                &[&key],
                "reading a game's divergences",
                |r| {
                    Ok(DivergenceView {
                        event: r.get(0)?,
                        block: r.int(1)?,
                        tx: r.get(2)?,
                        log_index: r.int(3)?,
                        what: r.get(4)?,
                        expected: r.get(5)?,
                        found: r.get(6)?,
                    })
                },
            )
            .map_err(|e| self.unavailable(e))?;
        let start_fen = State::from_hex(&start_state)
            .map(|s| s.fen())
            .unwrap_or_default();
        let clock = clock
            .and_then(|word| word.parse::<U256>().ok())
            .map(ClockView::of);
        Ok(Some(GameView {
            pgn_result: pgn_result(summary.result.as_deref()).to_owned(),
            summary,
            fen,
            state,
            history,
            start_fen,
            clock,
            draw_offer,
            moves,
            divergence_list,
        }))
    }

    /// The changes of game `id` after `seq`, oldest first (at most 256).
    pub fn changes(&mut self, id: U256, after: i64) -> ReadResult<Vec<Change>> {
        self.conn
            .query(
                "SELECT seq, kind, ply, block_number FROM changes WHERE game_id = ?1 AND seq > ?2
                 ORDER BY seq LIMIT 256",
                &[&id.to_string(), &after],
                "reading a game's changes",
                |r| change(r, 0),
            )
            .map_err(|e| self.unavailable(e))
    }

    /// The changes of every game after `after`, oldest first (at most 1,024), with their
    /// games: what one poller feeding every event stream reads.
    pub fn all_changes(&mut self, after: i64) -> ReadResult<Vec<(U256, Change)>> {
        self.conn
            .query(
                "SELECT game_id, seq, kind, ply, block_number FROM changes WHERE seq > ?1
                 ORDER BY seq LIMIT 1024",
                &[&after],
                "reading the changes",
                |r| Ok((r.get::<String>(0)?, change(r, 1)?)),
            )
            .map_err(|e| self.unavailable(e))?
            .into_iter()
            .map(|(id, change)| {
                U256::from_str_radix(&id, 10)
                    .map(|id| (id, change))
                    .map_err(|e| self.unavailable(format!("stored game id {id:?}: {e}")))
            })
            .collect()
    }

    /// The latest change's sequence number of all games (0 if none).
    pub fn latest_change(&mut self) -> ReadResult<i64> {
        self.conn
            .query_one(
                "SELECT coalesce(max(seq), 0) FROM changes",
                &[],
                "reading the latest change",
                |r| r.get(0),
            )
            .map_err(|e| self.unavailable(e))
    }

    /// Whether game `id` is over (ended or cancelled) and final: nothing more can change.
    pub fn settled(&mut self, id: U256) -> ReadResult<bool> {
        self.conn
            .query_one(
                "SELECT count(*) FROM games
                 WHERE id = ?1 AND phase IN ('ended', 'cancelled') AND pending = 0",
                &[&id.to_string()],
                "reading whether a game is settled",
                |r| r.get::<i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| self.unavailable(e))
    }

    /// The last change's sequence number of game `id` (0 if none).
    pub fn last_change(&mut self, id: U256) -> ReadResult<i64> {
        self.conn
            .query_one(
                "SELECT coalesce(max(seq), 0) FROM changes WHERE game_id = ?1",
                &[&id.to_string()],
                "reading a game's last change",
                |r| r.get(0),
            )
            .map_err(|e| self.unavailable(e))
    }
}

impl GameView {
    /// The game as PGN: the Seven Tag Roster (White and Black are the players' addresses),
    /// the game id and referee's chain position as extra tags, `Termination` with the
    /// reason, and the moves in SAN (replayed by chessref-core's PGN writer up to the
    /// first move the rules refuse, if any).
    pub fn pgn(&self, site: &str) -> String {
        self.pgn_after(site, &[])
    }

    /// [`pgn`](GameView::pgn) of a channel game whose signed moves (packed, ply 1 first)
    /// a relay holds: those played off-chain come first. While the game is off-chain the
    /// index has no move of it and all of them count; once a position was registered, the
    /// index's ply less its on-chain moves is how many were played off-chain.
    pub fn pgn_after(&self, site: &str, off_chain: &[u32]) -> String {
        let s = &self.summary;
        let signed = if s.ply == 0 && self.moves.is_empty() {
            off_chain.len()
        } else {
            (s.ply as usize).saturating_sub(self.moves.len())
        };
        let off_chain = off_chain.get(..signed).unwrap_or_default();
        let mut tags = vec![
            ("Event".to_owned(), format!("chessref game {}", s.id)),
            ("Site".to_owned(), site.to_owned()),
            ("Date".to_owned(), "????.??.??".to_owned()),
            ("Round".to_owned(), "-".to_owned()),
            (
                "White".to_owned(),
                s.white.clone().unwrap_or_else(|| "?".into()),
            ),
            (
                "Black".to_owned(),
                s.black.clone().unwrap_or_else(|| "?".into()),
            ),
            ("Result".to_owned(), self.pgn_result.clone()),
            ("GameId".to_owned(), s.id.clone()),
        ];
        let termination = match (&s.reason, s.phase.as_str()) {
            (Some(reason), _) => reason.clone(),
            (None, "cancelled") => "cancelled".into(),
            (None, _) => "unterminated".into(),
        };
        tags.push(("Termination".to_owned(), termination));
        if s.initial_time > 0 {
            tags.push((
                "TimeControl".to_owned(),
                format!("{}+{}", s.initial_time, s.increment),
            ));
        }
        let start = State::from_fen(&self.start_fen).unwrap_or_else(|_| State::initial());
        let mut game = Game::new(start);
        for packed in off_chain
            .iter()
            .copied()
            .chain(self.moves.iter().map(|m| m.packed))
        {
            if game.play(RawMove::from_packed(packed)).is_err() {
                break;
            }
        }
        game.to_pgn(&tags, Some(&self.pgn_result))
    }
}
