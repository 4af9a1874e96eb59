//! What reading and replaying one PGN game found: the one per-game report that
//! `chessref pgn`, `POST /v1/replay` and any later surface print.
//!
//! Two rules live here so that every surface applies them alike:
//!
//! - Moves written after an automatic draw that leaves moves possible
//!   (insufficient material, the seventy-five-move rule) do not make the file
//!   broken: FIDE draws the game at that ply (9.6) and players often play on
//!   without noticing. The game is reported as ended at that ply, with the
//!   number of moves after it that were not played. Moves after checkmate or
//!   stalemate, where no move exists, remain an error.
//! - The PGN result is the movetext's termination token, else the `[Result]` tag.
//!
//! Its JSON form (feature `serde`) is one object with `index`, `plies`, `fen`,
//! `hex`, `status`, `result`, `outcome`, `error`, `code`, `fivefoldPly` and
//! `movesAfterEnd` (camelCase keys, as every JSON chessref writes).

use crate::error::SanError;
use crate::fivefold::Fivefold;
use crate::game::Outcome;
use crate::pgn::{PgnError, PgnGame, Replay};
use crate::state::{State, Status};

/// One game's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnReport {
    /// 1-based index of the game in the input.
    pub index: usize,
    /// Plies played (up to the first refused move, or the automatic end).
    pub plies: usize,
    /// The last position reached; `None` when the game has no valid start.
    pub state: Option<State>,
    /// Section 8 status of the last position reached.
    pub status: Option<Status>,
    /// The automatic end reached, if any.
    pub outcome: Option<Outcome>,
    /// The result the PGN states: the movetext's token, else the `[Result]` tag.
    pub result: Option<String>,
    /// The first fivefold repetition (FIDE 9.6.1: drawn; the contract does not
    /// end the game, either player may claim it).
    pub fivefold: Option<Fivefold>,
    /// Main-line moves written after an automatic draw by insufficient material
    /// or the seventy-five-move rule, not played.
    pub moves_after_end: usize,
    /// Why the game could not be read or replayed to its end; `None` otherwise.
    pub error: Option<String>,
    /// Section 6 code of the refused move, when the error is one.
    pub code: Option<u8>,
}

impl PgnReport {
    /// The report of one item of a [`PgnReader`](crate::PgnReader): the game
    /// replayed, or why it could not be read (`next_index` numbers an error that
    /// names no game).
    pub fn read(item: &Result<PgnGame, PgnError>, next_index: usize) -> PgnReport {
        match item {
            Ok(game) => PgnReport::replay(game),
            Err(e) => PgnReport::unreadable(e, next_index),
        }
    }

    /// The report of a game the reader could not read.
    pub fn unreadable(err: &PgnError, next_index: usize) -> PgnReport {
        PgnReport {
            index: err.game().unwrap_or(next_index),
            plies: 0,
            state: None,
            status: None,
            outcome: None,
            result: None,
            fivefold: None,
            moves_after_end: 0,
            error: Some(err.to_string()),
            code: rejection_code(err),
        }
    }

    /// Replays `game`'s main line as far as it is legal and reports it.
    pub fn replay(game: &PgnGame) -> PgnReport {
        PgnReport::of_prefix(game, game.replay_prefix().as_ref())
    }

    /// The report of `game` from its replay already made (`prefix`, the
    /// answer of [`PgnGame::replay_prefix`]), for a caller that also needs
    /// the replay itself (the EVM engine plays the same states on chain).
    pub fn of_prefix(game: &PgnGame, prefix: Result<&Replay, &PgnError>) -> PgnReport {
        let result = game
            .result
            .clone()
            .or_else(|| game.tag("Result").map(str::to_owned));
        match prefix {
            Err(e) => PgnReport {
                index: game.index,
                result,
                ..PgnReport::unreadable(e, game.index)
            },
            Ok(Replay {
                game: played,
                error,
            }) => {
                let (error, moves_after_end) = match error {
                    Some(PgnError::GameOver {
                        status: Status::InsufficientMaterial | Status::SeventyFiveMoves,
                        ended_at,
                        ..
                    }) => (None, game.sans.len() - ended_at),
                    other => (other.as_ref(), 0),
                };
                PgnReport {
                    index: game.index,
                    plies: played.plies(),
                    state: Some(*played.state()),
                    status: Some(played.status()),
                    outcome: played.outcome(),
                    result,
                    fivefold: played.fivefold(),
                    moves_after_end,
                    code: error.and_then(rejection_code),
                    error: error.map(ToString::to_string),
                }
            }
        }
    }

    /// Whether the game is broken: unreadable, or a move refused before its end.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// A line for a person about what is worth knowing beyond the numbers: the
    /// error, an automatic end with moves written after it, a fivefold
    /// repetition. `None` for an unremarkable game.
    pub fn remark(&self) -> Option<String> {
        if let Some(error) = &self.error {
            return Some(error.clone());
        }
        let mut notes = Vec::new();
        if self.moves_after_end > 0
            && let Some(outcome) = self.outcome
        {
            let moves = match self.moves_after_end {
                1 => "1 move".to_owned(),
                n => format!("{n} moves"),
            };
            notes.push(format!(
                "ended at ply {} ({}, {}); {moves} written after the end not played",
                self.plies,
                outcome.termination.name(),
                outcome.result
            ));
        }
        if let Some(fivefold) = self.fivefold {
            notes.push(fivefold.to_string());
        }
        (!notes.is_empty()).then(|| format!("game {}: {}", self.index, notes.join("; ")))
    }
}

/// The section 6 code behind a refused move, when there is one.
fn rejection_code(err: &PgnError) -> Option<u8> {
    match err {
        PgnError::IllegalMove {
            reason: SanError::Rejected { rejection, .. },
            ..
        } => Some(rejection.code()),
        _ => None,
    }
}

#[cfg(feature = "serde")]
mod wire {
    use serde::{Serialize, Serializer};

    use super::PgnReport;

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct PgnReportJson<'a> {
        index: usize,
        plies: usize,
        fen: Option<String>,
        hex: Option<String>,
        status: Option<&'static str>,
        result: Option<&'a str>,
        outcome: Option<&'static str>,
        error: Option<&'a str>,
        code: Option<u8>,
        fivefold_ply: Option<usize>,
        moves_after_end: usize,
    }

    impl Serialize for PgnReport {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            PgnReportJson {
                index: self.index,
                plies: self.plies,
                fen: self.state.map(|s| s.fen()),
                hex: self.state.map(|s| s.to_hex()),
                status: self.status.map(|s| s.name()),
                result: self.result.as_deref(),
                outcome: self.outcome.map(|o| o.result.as_str()),
                error: self.error.as_deref(),
                code: self.code,
                fivefold_ply: self.fivefold.map(|f| f.ply),
                moves_after_end: self.moves_after_end,
            }
            .serialize(serializer)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PgnReader;

    fn reports(text: &str) -> Vec<PgnReport> {
        PgnReader::new(text.as_bytes())
            .enumerate()
            .map(|(i, item)| PgnReport::read(&item, i + 1))
            .collect()
    }

    #[test]
    fn a_clean_game_reports_its_end_and_the_stated_result() {
        let r = &reports("[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1")[0];
        assert_eq!(
            (r.index, r.plies, r.status),
            (1, 4, Some(Status::Checkmate))
        );
        assert_eq!(r.outcome.map(|o| o.result.as_str()), Some("0-1"));
        assert_eq!(r.result.as_deref(), Some("0-1"));
        assert!(!r.failed() && r.remark().is_none());
    }

    #[test]
    fn the_result_tag_stands_in_for_a_missing_token() {
        let r = &reports("[Result \"1-0\"]\n\n1. e4 e5\n")[0];
        assert_eq!((r.plies, r.result.as_deref()), (2, Some("1-0")));
        let r = &reports("1. e4 e5\n")[0];
        assert_eq!(r.result, None);
    }

    #[test]
    fn moves_after_an_insufficient_material_draw_end_the_game_there() {
        // Kxd2 leaves two bare kings: drawn at ply 2, the third move is not played.
        let text = "[FEN \"4k3/8/8/8/8/8/3p4/4K3 w - - 0 1\"]\n\n1. Kxd2 Kd7 2. Kc3 1/2-1/2";
        let r = &reports(text)[0];
        assert_eq!(r.error, None);
        assert!(!r.failed());
        assert_eq!((r.plies, r.status), (1, Some(Status::InsufficientMaterial)));
        assert_eq!(r.moves_after_end, 2);
        assert_eq!(r.outcome.map(|o| o.result.as_str()), Some("1/2-1/2"));
        let remark = r.remark().unwrap();
        assert!(
            remark.contains("ended at ply 1") && remark.contains("2 moves"),
            "{remark}"
        );
    }

    #[test]
    fn moves_after_mate_and_illegal_moves_are_errors_with_their_code() {
        let r = reports("1. f3 e5 2. g4 Qh4# 3. a3 *\n\n1. e4 e5 2. d1d4 *\n\n1. e4 e5 2. Ke3 *");
        assert!(r[0].failed() && r[0].error.as_ref().unwrap().contains("ply 5"));
        assert_eq!((r[0].plies, r[0].moves_after_end, r[0].code), (4, 0, None));
        assert_eq!((r[1].plies, r[1].code), (2, Some(7)));
        assert!(r[2].failed());
        assert_eq!(r[2].code, None);
    }

    #[test]
    fn unreadable_games_and_other_variants_are_reported_and_reading_goes_on() {
        let r = reports(
            "[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. P@e4 *\n\n1. e4 }\n\n1. d4 *",
        );
        assert_eq!(r.len(), 3);
        let variant = r[0].error.as_deref().unwrap();
        assert!(
            variant.contains("\"Crazyhouse\" is not supported"),
            "{variant}"
        );
        assert_eq!((r[0].plies, r[0].state), (0, None));
        assert!(r[1].failed() && r[1].error.as_ref().unwrap().contains("syntax"));
        assert_eq!(r[2].index, 3);
        assert!(!r[2].failed());
    }

    #[test]
    fn a_fivefold_repetition_is_reported_with_its_ply() {
        let text = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 \
                    7. Nf3 Nf6 8. Ng1 Ng8 9. e4 *";
        let r = &reports(text)[0];
        assert_eq!((r.status, r.plies), (Some(Status::Ongoing), 17));
        assert_eq!(r.fivefold.map(|f| f.ply), Some(16));
        let remark = r.remark().unwrap();
        assert!(
            remark.contains("fivefold repetition at ply 16") && remark.contains("9.6.1"),
            "{remark}"
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_names_every_field() {
        let r = &reports("[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1")[0];
        let v = serde_json::to_value(r).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "index": 1, "plies": 4,
                "fen": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
                "hex": r.state.unwrap().to_hex(),
                "status": "CHECKMATE", "result": "0-1", "outcome": "0-1",
                "error": null, "code": null, "fivefoldPly": null, "movesAfterEnd": 0,
            })
        );
    }
}
