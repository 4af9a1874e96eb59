//! A channel game's moves, which the chain does not hold (it holds a settled game's
//! result, or the positions registered): read from a player's transcript (the folders the
//! session writes, [`crate::session::folder`], or a file named) or from the relay
//! (`GET /v1/games/{id}/transcript`), and shown only once checked against the chain's
//! game: the same domain (chain and channel contract), game id, players and terms, every
//! move and signature verified (`chessref_channel`'s transcript verification), every
//! position the chain registered its own, and a settled result the chain's.

use std::fmt;
use std::path::PathBuf;

use alloy_primitives::U256;
use chessref_channel::{ChannelDomain, ChannelGame, NoPins, Transcript, TranscriptReport};
use chessref_core::State;
use chessref_evm::Chain;
use serde::Serialize;

use crate::game_log::{GameLog, Phase};
use crate::seat::{GameView, MoveView, Seat, SeatError, colour_name, unix_now};
use crate::session::folder::{FolderOwner, stored_transcript};
use crate::session::relay;

/// Where the moves shown come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum MovesFrom {
    /// The referee's events (a game played on-chain).
    Chain,
    /// A transcript file (a player's folder, or one named).
    Transcript {
        /// The file.
        path: PathBuf,
    },
    /// A relay's copy.
    Relay {
        /// The relay's base URL.
        url: String,
    },
}

impl fmt::Display for MovesFrom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MovesFrom::Chain => f.write_str("the chain"),
            MovesFrom::Transcript { path } => write!(f, "your transcript at {}", path.display()),
            MovesFrom::Relay { url } => write!(f, "the relay at {url}"),
        }
    }
}

/// A transcript that was found but not shown, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// Where it was.
    pub from: MovesFrom,
    /// Why it is not this game's, in words.
    pub why: String,
}

/// Where to look for a channel game's moves.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// A transcript file named by the reader (looked at alone; refused: an error).
    pub transcript: Option<PathBuf>,
    /// A relay named by the reader (asked when no file is named; refused: an error).
    pub relay: Option<String>,
    /// Where the players' folders are (both players' are looked in when nothing is named).
    pub base: Option<PathBuf>,
}

/// A checked transcript of the game, and where it came from.
#[derive(Clone, Debug)]
pub struct Found {
    /// Where it came from.
    pub from: MovesFrom,
    /// The transcript.
    pub transcript: Transcript,
    /// Its verification.
    pub report: TranscriptReport,
}

/// Looks for game `id`'s moves (nothing for a game played on-chain): the file named, else
/// the relay named, else the players' folders (the one that reaches furthest). A named
/// source that does not check out is an error naming why; a folder's is listed as refused.
pub fn find(
    seat: &mut Seat,
    id: U256,
    sources: &Sources,
) -> Result<(Option<Found>, Vec<Refused>), SeatError> {
    let game = seat.game(id)?;
    let Some(terms) = game.channel_game() else {
        return Ok((None, Vec::new()));
    };
    let domain = seat.referee().channel_domain()?;
    let at = checked_at(seat, &game)?;
    let named = |from: MovesFrom, read: Result<Transcript, String>| {
        let checked = read.and_then(|t| check(&t, &game, &terms, &domain, at).map(|r| (t, r)));
        match checked {
            Ok((transcript, report)) => Ok((
                Some(Found {
                    from,
                    transcript,
                    report,
                }),
                Vec::new(),
            )),
            Err(why) => Err(SeatError::Refused(format!(
                "not shown: the moves of {from} are not game {id}'s: {why}"
            ))),
        }
    };
    if let Some(path) = &sources.transcript {
        let read = stored_transcript(path)
            .map_err(|e| e.to_string())
            .and_then(|t| t.ok_or_else(|| format!("{} is not a file", path.display())));
        return named(MovesFrom::Transcript { path: path.clone() }, read);
    }
    if let Some(url) = &sources.relay {
        return named(
            MovesFrom::Relay { url: url.clone() },
            relay::transcript(url, id),
        );
    }
    let base = sources
        .base
        .clone()
        .unwrap_or_else(crate::session::folder::default_base);
    let chain_id = seat.referee().chain().chain_id()?;
    let mut best: Option<Found> = None;
    let mut refused = Vec::new();
    for player in [terms.white, terms.black] {
        let owner = FolderOwner {
            chain_id,
            referee: seat.referee().address(),
            game_id: id,
            player,
            created_in_block: game.created.block_hash,
        };
        let dir = owner.folder(&base);
        let path = dir.join("transcript.json");
        if !path.is_file() {
            continue;
        }
        let from = MovesFrom::Transcript { path: path.clone() };
        let checked = (|| {
            // A fresh chain repeats the folder's name (CREATE2 addresses, game ids): the
            // folder's claim says which game's files it holds.
            owner.holds(&dir).map_err(|e| e.to_string())?;
            let t = stored_transcript(&path)
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("{} is gone", path.display()))?;
            let report = check(&t, &game, &terms, &domain, at)?;
            Ok::<_, String>((t, report))
        })();
        match checked {
            Ok((transcript, report)) => {
                if best
                    .as_ref()
                    .is_none_or(|b| b.transcript.moves.len() < transcript.moves.len())
                {
                    best = Some(Found {
                        from,
                        transcript,
                        report,
                    });
                }
            }
            Err(why) => refused.push(Refused { from, why }),
        }
    }
    Ok((best, refused))
}

/// The time signatures are judged at: an ended game's end (a session key's signed result
/// was valid then, though its delegation has expired since), else now.
fn checked_at(seat: &mut Seat, game: &GameLog) -> Result<u64, SeatError> {
    if game.phase != Phase::Ended {
        return Ok(unix_now());
    }
    let number = game.updated.block_number;
    let block = seat.referee().chain().block_ref(number)?;
    Ok(block.map_or_else(unix_now, |b| b.timestamp))
}

/// Checks `transcript` against the chain's `game` (its `terms` and `domain`), judging
/// signatures at `at`: its report, or why it is not this game's.
pub fn check(
    transcript: &Transcript,
    game: &GameLog,
    terms: &ChannelGame,
    domain: &ChannelDomain,
    at: u64,
) -> Result<TranscriptReport, String> {
    if transcript.domain != *domain {
        return Err(format!(
            "it is signed for chain {}'s channel contract {}, the game is chain {}'s at {}",
            transcript.domain.chain_id,
            transcript.domain.verifying_contract,
            domain.chain_id,
            domain.verifying_contract
        ));
    }
    let differences = differences(&transcript.game, terms);
    if !differences.is_empty() {
        return Err(format!(
            "its {} differ from the chain's",
            differences.join(", ")
        ));
    }
    let report = transcript.verify(&NoPins, at).map_err(|e| e.to_string())?;
    if let Some(error) = &report.error {
        return Err(format!(
            "{error} (the {} plies before it verify)",
            report.valid_plies
        ));
    }
    let plies = transcript.moves.len();
    for registration in &game.registrations {
        let ply = registration.ply as usize;
        if ply == 0 {
            continue;
        }
        if ply > plies {
            return Err(format!(
                "it stops at ply {plies}, before the position the chain registered at ply {ply}"
            ));
        }
        let signed = transcript.message(ply - 1);
        if signed.state[..] != registration.position.state[..]
            || signed.history != registration.position.history
        {
            return Err(format!(
                "the chain registered another position at ply {ply} than this transcript's"
            ));
        }
    }
    let settled = &report.settlement;
    if game.registrations.is_empty()
        && matches!(settled.call, "settle" | "resignBySignature")
        && let (Some(ending), Some((result, reason))) = (game.ending, settled.ends)
        && (ending.result.code(), ending.reason.code()) != (result, reason)
    {
        return Err(format!(
            "it ends {} by {}, the chain's game ended {ending}",
            ResultWords(result),
            reason
        ));
    }
    Ok(report)
}

/// A result code in words (`white_wins`), or the code.
struct ResultWords(u8);

impl fmt::Display for ResultWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match chessref_evm::EndResult::try_from(self.0) {
            Ok(result) => write!(f, "{result}"),
            Err(_) => write!(f, "with result {}", self.0),
        }
    }
}

/// The terms in which `signed` differs from the chain's `terms`, by name.
fn differences(signed: &ChannelGame, terms: &ChannelGame) -> Vec<&'static str> {
    [
        (signed.game_id != terms.game_id, "game id"),
        (signed.white != terms.white, "white"),
        (signed.black != terms.black, "black"),
        (signed.initial_time != terms.initial_time, "initial time"),
        (signed.increment != terms.increment, "increment"),
        (
            signed.response_window != terms.response_window,
            "response window",
        ),
        (signed.start_state != terms.start_state, "start position"),
    ]
    .into_iter()
    .filter_map(|(differs, name)| differs.then_some(name))
    .collect()
}

/// `view` (of the game `found` is of) with the moves found: the signed moves up to the
/// latest registration then the moves played on-chain, or all signed moves and their final
/// position when nothing was registered.
pub fn show_in(view: &mut GameView, found: Found) {
    let signed: Vec<MoveView> = found
        .transcript
        .moves_in_words()
        .into_iter()
        .map(|(ply, san, uci)| MoveView {
            ply,
            uci,
            san: (!san.is_empty()).then_some(san),
        })
        .collect();
    match view.registered_ply {
        Some(registered) => {
            let mut moves: Vec<MoveView> = signed.into_iter().take(registered as usize).collect();
            moves.extend(view.moves.iter().filter(|m| m.ply > registered).cloned());
            view.moves = moves;
        }
        None => {
            view.moves = signed;
            if let Some(last) = found.transcript.moves.last()
                && let Ok(state) = State::from_bytes(&last.state)
            {
                view.fen = state.fen();
                view.status = state.status().name();
                view.in_check = state.in_check();
                view.turn = colour_name(state.turn());
            }
        }
    }
    view.last_move = view.moves.last().cloned();
    view.moves_from = Some(found.from);
}
