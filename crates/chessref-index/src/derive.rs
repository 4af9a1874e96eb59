//! The derived tables (`games`, `moves`, `divergences`, `changes`), rebuilt for a game by
//! folding its stored raw logs through chessref-evm's [`GameLog`]: the one fold of
//! referee events, which replays every move through chessref-core. The index never
//! interprets an event itself.

use std::collections::BTreeSet;

use alloy_primitives::{U256, hex};
use chessref_client::{Divergence, GameLog, LogPlace, game_log::fold_game};
use chessref_core::State;

use crate::db::{Sql, Tx};
use crate::error::{IndexError, Result};
use crate::store::{game_logs, sql_int, unix_now};

/// A divergence stored for the first time, with its evidence: what `chessref index`
/// prints loudly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewDivergence {
    /// The game.
    pub game_id: U256,
    /// What GameLog found.
    pub divergence: Divergence,
    /// The event's topics, hex.
    pub raw_topics: String,
    /// The event's data, hex.
    pub raw_data: String,
}

impl std::fmt::Display for NewDivergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = &self.divergence;
        write!(
            f,
            "DIVERGENCE game {} {} at block {} tx {} log {}: {} expected {} found {} \
             (topics {} data {})",
            self.game_id,
            d.event,
            d.place.block_number,
            d.place.tx_hash,
            d.place.log_index,
            d.what,
            d.expected,
            d.found,
            self.raw_topics,
            self.raw_data
        )
    }
}

/// What a refold found besides the rows it wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refolded {
    /// Divergences seen for the first time.
    pub divergences: Vec<NewDivergence>,
    /// Games with logs but no `GameCreated` (created before the first indexed block).
    pub orphans: Vec<U256>,
}

/// What the `changes` feed compares between a game's old and new rows.
struct Summary {
    moves: i64,
    last_move: Option<(i64, i64)>,
    phase: String,
    draw_offer: Option<String>,
}

/// Appends one row to the `changes` feed (what live readers poll).
fn change(tx: &mut Tx<'_>, id: &str, kind: &str, ply: i64, block: i64) -> Result<()> {
    tx.execute(
        "INSERT INTO changes (game_id, kind, ply, block_number) VALUES (?1, ?2, ?3, ?4)",
        &[&id, &kind, &ply, &block],
        "recording a change",
    )?;
    Ok(())
}

fn summary(tx: &mut Tx<'_>, id: &str) -> Result<Option<Summary>> {
    let row = tx.query_opt(
        "SELECT phase, draw_offer FROM games WHERE id = ?1",
        &[&id],
        "reading a game",
        |row| Ok((row.get::<String>(0)?, row.get::<Option<String>>(1)?)),
    )?;
    let Some((phase, draw_offer)) = row else {
        return Ok(None);
    };
    let (moves, last_move) = tx.query_one(
        "SELECT count(*), max(seq) FROM moves WHERE game_id = ?1",
        &[&id],
        "counting moves",
        |row| Ok((row.get::<i64>(0)?, row.get::<Option<i64>>(1)?)),
    )?;
    let last_move = match last_move {
        None => None,
        Some(seq) => tx.query_opt(
            "SELECT block_number, log_index FROM moves WHERE game_id = ?1 AND seq = ?2",
            &[&id, &seq],
            "reading a move",
            |row| Ok((row.get::<i64>(0)?, row.get::<i64>(1)?)),
        )?,
    };
    Ok(Some(Summary {
        moves,
        last_move,
        phase,
        draw_offer,
    }))
}

/// The order of phases: a game only moves forward through them.
fn rank(phase: &str) -> u8 {
    match phase {
        "open" => 0,
        "running" => 1,
        _ => 2,
    }
}

fn place_key(place: &LogPlace) -> Result<(i64, i64)> {
    Ok((
        sql_int(place.block_number, "block number")?,
        sql_int(place.log_index, "log index")?,
    ))
}

/// Rebuilds the derived rows of each game of `ids` from its stored logs, inside `tx`.
/// A game whose logs are gone (its creation rolled back) loses its rows; a game is
/// pending while its latest event is above `final_block`.
pub fn refold(tx: &mut Tx<'_>, ids: &BTreeSet<U256>, final_block: u64) -> Result<Refolded> {
    let mut refolded = Refolded::default();
    for &id in ids {
        let key = id.to_string();
        let raw = game_logs(tx, id)?;
        let mut logs = Vec::with_capacity(raw.len());
        for log in &raw {
            logs.push(log.decode().map_err(|e| {
                IndexError::Invariant(format!("a stored log of game {id} no longer decodes: {e}"))
            })?);
        }
        let old = summary(tx, &key)?;
        let Some(game) = fold_game(&logs) else {
            if old.is_some() {
                tx.execute(
                    "DELETE FROM games WHERE id = ?1",
                    &[&key],
                    "deleting a rolled-back game",
                )?;
                change(tx, &key, "rollback", 0, sql_int(final_block, "block")?)?;
            }
            if !raw.is_empty() {
                refolded.orphans.push(id);
            }
            continue;
        };
        let updated_block = sql_int(game.updated.block_number, "block number")?;
        write_game(tx, &key, &game, final_block)?;
        let moves_changed = write_moves(tx, &key, &game, old.as_ref())?;
        // The feed (docs/INDEX.md, "The event feed"): what changed since the rows this
        // game had, in chain order. A rollback names the ply the game's moves are kept
        // to; the moves after it that the chain now has follow, then the game's end if it
        // has one again.
        let phase = game.phase.name();
        let phase_back = old
            .as_ref()
            .is_some_and(|o| o.phase != phase && rank(phase) < rank(&o.phase));
        let rolled_back = old.is_some() && (moves_changed.rolled_back || phase_back);
        if old.is_none() {
            // The block of the creation itself, not of the game's latest event.
            let created_block = sql_int(game.created.block_number, "block number")?;
            change(tx, &key, "created", 0, created_block)?;
        }
        if rolled_back {
            let kept = match moves_changed.from {
                0 => game.registrations.last().map_or(0, |r| r.ply),
                n => game.moves[n - 1].ply,
            };
            let ply = if moves_changed.rolled_back {
                kept
            } else {
                game.ply()
            };
            change(tx, &key, "rollback", ply.into(), updated_block)?;
        }
        // The phase the feed last announced: after a rollback, at most running.
        let announced = match &old {
            None => "open",
            Some(_) if rolled_back => {
                let old_phase = old.as_ref().map_or("open", |o| o.phase.as_str());
                if rank(old_phase) > rank("running") {
                    "running"
                } else {
                    old_phase
                }
            }
            Some(o) => o.phase.as_str(),
        };
        let announced_rank = if rolled_back && rank(phase) < rank(announced) {
            rank(phase)
        } else {
            rank(announced)
        };
        // A join comes before the moves it starts (a back-filled game too), an end after
        // the moves that led to it.
        if announced_rank < rank("running")
            && rank(phase) >= rank("running")
            && game.white.is_some()
        {
            change(tx, &key, "joined", 0, updated_block)?;
        }
        for mv in &game.moves[moves_changed.from..] {
            change(
                tx,
                &key,
                "move",
                mv.ply.into(),
                sql_int(mv.place.block_number, "block")?,
            )?;
        }
        if rank(phase) > rank("running") && rank(phase) > announced_rank {
            change(tx, &key, phase, game.ply().into(), updated_block)?;
        }
        let offer = game.draw_offer.map(|a| a.to_string());
        if offer.is_some() && old.as_ref().is_none_or(|o| o.draw_offer != offer) {
            change(tx, &key, "draw_offer", game.ply().into(), updated_block)?;
        }
        for divergence in &game.divergences {
            if let Some(new) = write_divergence(tx, id, divergence, &raw)? {
                change(tx, &key, "divergence", game.ply().into(), updated_block)?;
                refolded.divergences.push(new);
            }
        }
    }
    Ok(refolded)
}

/// Marks final every game whose latest event is at or below `final_block`, with a
/// `final` change each; returns them.
pub fn finalise(tx: &mut Tx<'_>, final_block: u64) -> Result<BTreeSet<U256>> {
    let final_block = sql_int(final_block, "block number")?;
    let ids = tx.query(
        "UPDATE games SET pending = 0 WHERE pending = 1 AND updated_block <= ?1
         RETURNING id, ply, updated_block",
        &[&final_block],
        "finalising games",
        |row| {
            Ok((
                row.get::<String>(0)?,
                row.get::<i64>(1)?,
                row.get::<i64>(2)?,
            ))
        },
    )?;
    let mut finalised = BTreeSet::new();
    for (id, ply, block) in ids {
        change(tx, &id, "final", ply, block)?;
        finalised.insert(
            id.parse::<U256>()
                .map_err(|e| IndexError::Invariant(format!("stored game id {id:?}: {e}")))?,
        );
    }
    Ok(finalised)
}

fn opt_addr(a: Option<alloy_primitives::Address>) -> Option<String> {
    a.map(|a| a.to_string())
}

fn write_game(tx: &mut Tx<'_>, key: &str, game: &GameLog, final_block: u64) -> Result<()> {
    let shown = game.shown_state();
    let state_bytes = game.position.map_or(game.start_state, |p| p.state);
    let history = game.position.map_or(game.start_history, |p| p.history);
    let status = shown.map_or("INVALID", |s: State| s.status().name());
    let fen = shown.map(|s| s.fen()).unwrap_or_default();
    let (created_block, created_log) = place_key(&game.created)?;
    let updated_block = sql_int(game.updated.block_number, "block number")?;
    tx.execute(
        "INSERT INTO games (id, created_block, created_log, creator, opponent, creator_white,
             white, black, token, stake, initial_time, increment, first_move_window, phase,
             result, reason, ply, status, start_state, state, fen, history, clock, draw_offer,
             divergent, updated_block, pending)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
             ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)
         ON CONFLICT (id) DO UPDATE SET created_block = excluded.created_block,
             created_log = excluded.created_log, creator = excluded.creator,
             opponent = excluded.opponent, creator_white = excluded.creator_white,
             white = excluded.white, black = excluded.black, token = excluded.token,
             stake = excluded.stake, initial_time = excluded.initial_time,
             increment = excluded.increment, first_move_window = excluded.first_move_window,
             phase = excluded.phase, result = excluded.result, reason = excluded.reason,
             ply = excluded.ply, status = excluded.status, start_state = excluded.start_state,
             state = excluded.state, fen = excluded.fen, history = excluded.history,
             clock = excluded.clock, draw_offer = excluded.draw_offer,
             divergent = excluded.divergent, updated_block = excluded.updated_block,
             pending = excluded.pending",
        &[
            &key,
            &created_block,
            &created_log,
            &game.creator.to_string(),
            &game.opponent.to_string(),
            &i64::from(game.creator_white),
            &opt_addr(game.white),
            &opt_addr(game.black),
            &game.token.to_string(),
            &game.stake.to_string(),
            &i64::from(game.initial_time),
            &i64::from(game.increment),
            &i64::from(game.first_move_window),
            &game.phase.name(),
            &game.ending.map(|e| e.result.name()),
            &game.ending.map(|e| e.reason.name()),
            &i64::from(game.ply()),
            &status,
            &hex::encode(game.start_state),
            &hex::encode(state_bytes),
            &fen,
            &history.to_string(),
            &game.position.map(|p| format!("{:#x}", p.clock)),
            &opt_addr(game.draw_offer),
            &(game.divergences.len() as i64),
            &updated_block,
            &i64::from(game.updated.block_number > final_block),
        ],
        "writing a game",
    )?;
    Ok(())
}

/// Which of a game's moves were (re)written.
struct MovesWritten {
    /// Index in `GameLog::moves` of the first move written.
    from: usize,
    /// Whether stored moves had to be dropped (a rollback).
    rolled_back: bool,
}

/// Moves are append-only in chain order: when the stored ones are a prefix of the fold's
/// (same count or fewer, the last at the same place), only the new ones are written;
/// otherwise the game's moves are rewritten.
fn write_moves(
    tx: &mut Tx<'_>,
    key: &str,
    game: &GameLog,
    old: Option<&Summary>,
) -> Result<MovesWritten> {
    let stored = old.map_or(0, |o| o.moves) as usize;
    let prefix = match old.and_then(|o| o.last_move) {
        None => stored == 0,
        Some(last) => {
            stored <= game.moves.len() && place_key(&game.moves[stored - 1].place)? == last
        }
    };
    // Otherwise the moves the chain still has at the same places are kept, and only
    // those after them are replaced.
    let from = if prefix {
        stored
    } else {
        let places = tx.query(
            "SELECT block_number, log_index FROM moves WHERE game_id = ?1 ORDER BY seq",
            &[&key],
            "reading a game's moves",
            |row| Ok((row.get::<i64>(0)?, row.get::<i64>(1)?)),
        )?;
        let mut common = 0;
        while common < places.len()
            && common < game.moves.len()
            && place_key(&game.moves[common].place)? == places[common]
        {
            common += 1;
        }
        tx.execute(
            "DELETE FROM moves WHERE game_id = ?1 AND seq > ?2",
            &[&key, &(common as i64)],
            "deleting a game's rolled-back moves",
        )?;
        common
    };
    for (seq, mv) in (from + 1..).zip(&game.moves[from..]) {
        let (block, index) = place_key(&mv.place)?;
        tx.execute(
            "INSERT INTO moves (game_id, seq, ply, packed, uci, san, status, state, clock,
                 block_number, tx_hash, log_index)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            &[
                &key,
                &(seq as i64),
                &i64::from(mv.ply),
                &i64::from(mv.packed),
                &mv.uci,
                &mv.san,
                &i64::from(mv.status),
                &hex::encode(mv.position.state),
                &format!("{:#x}", mv.position.clock),
                &block,
                &mv.place.tx_hash.to_string(),
                &index,
            ],
            "writing a move",
        )?;
    }
    Ok(MovesWritten {
        from,
        rolled_back: !prefix && from < stored,
    })
}

/// Stores `divergence` with its raw event unless it is stored already (the evidence
/// outlives refolds and rollbacks); returns it when new.
fn write_divergence(
    tx: &mut Tx<'_>,
    id: U256,
    divergence: &Divergence,
    raw: &[crate::RawLog],
) -> Result<Option<NewDivergence>> {
    let evidence = raw.iter().find(|log| log.place == divergence.place);
    let raw_topics = evidence.map_or(String::new(), |log| hex::encode_prefixed(log.topics_blob()));
    let raw_data = evidence.map_or(String::new(), |log| hex::encode_prefixed(&log.data));
    let (block, index) = place_key(&divergence.place)?;
    // Kept once: a refold meets the same divergence again (UNIQUE on its place and what).
    let inserted = tx.execute(
        "INSERT INTO divergences (game_id, event, block_number, tx_hash, log_index,
             what, expected, found, raw_topics, raw_data, detected_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
         ON CONFLICT (game_id, block_number, log_index, what) DO NOTHING",
        &[
            &id.to_string(),
            &divergence.event,
            &block,
            &divergence.place.tx_hash.to_string(),
            &index,
            &divergence.what,
            &divergence.expected,
            &divergence.found,
            &raw_topics,
            &raw_data,
            &unix_now(),
        ],
        "writing a divergence",
    )?;
    Ok((inserted == 1).then(|| NewDivergence {
        game_id: id,
        divergence: divergence.clone(),
        raw_topics,
        raw_data,
    }))
}
