//! A game: a start state plus its history, with the rules that need history
//! (repetition, claims) and the automatic ends of ENCODING.md section 8.
//!
//! The referee contract ends a game automatically only on status 1 to 4
//! (checkmate, stalemate, insufficient material, seventy-five moves); draws by
//! repetition or by the fifty-move rule are *claimed*. [`Game`] follows it
//! exactly: fivefold repetition is reported ([`Game::is_fivefold`]) but does not
//! stop play, because the contract, which keeps only an O(1) commitment to the
//! positions, does not end the game on it.

use std::fmt;

use alloy_primitives::B256;

use crate::error::{Rejection, SanError};
use crate::moves::{Move, RawMove};
use crate::square::Color;
use crate::state::{Played, State, Status};

/// Why [`Game::play`] refused a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The game already ended automatically; nothing more may be played.
    #[error("the game is over: {} (status {}) after ply {ply}", .status.name(), .status.code())]
    Over {
        /// The automatic end (status 1 to 4).
        status: Status,
        /// Plies played when it ended.
        ply: usize,
    },
    /// The move is illegal in the current position.
    #[error("illegal move: {rejection} (code {code}, {name})", rejection = .0, code = .0.code(), name = .0.name())]
    Illegal(#[from] Rejection),
    /// The move text does not name exactly one legal move.
    #[error(transparent)]
    San(#[from] SanError),
}

/// Who won, as PGN writes it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
}

impl GameResult {
    /// The PGN result token.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The side that won, if any.
    pub const fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a game ended automatically.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    /// The result.
    pub result: GameResult,
    /// The status that ended it (1 to 4).
    pub termination: Status,
}

/// A start state plus the moves played from it.
#[derive(Clone, Debug)]
pub struct Game {
    /// `states[0]` is the start, `states[i]` the position after `i` plies.
    states: Vec<State>,
    moves: Vec<Move>,
    /// Status of the last state (computed once per move: `play` needs it anyway).
    status: Status,
    /// Whether the side to move is in check (found with the status; lets the next
    /// move's legality check skip the attack scan for unpinned pieces).
    in_check: bool,
}

impl Game {
    /// A game starting at `start` (any valid state, not only the initial position).
    pub fn new(start: State) -> Game {
        let (status, in_check) = start.status_and_check();
        Game {
            states: vec![start],
            moves: Vec::new(),
            status,
            in_check,
        }
    }

    /// Reserves room for `plies` more moves (replaying a known main line).
    pub(crate) fn reserve(&mut self, plies: usize) {
        self.states.reserve(plies);
        self.moves.reserve(plies);
    }

    /// The start state.
    pub fn start(&self) -> &State {
        &self.states[0]
    }

    /// The current state.
    pub fn state(&self) -> &State {
        self.states
            .last()
            .expect("a game always has its start state")
    }

    /// Every state from the start to the current one (`plies() + 1` states).
    pub fn states(&self) -> &[State] {
        &self.states
    }

    /// The moves played, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The number of moves played (plies).
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// Plays a move. Refused with [`GameError::Over`] once the game ended
    /// automatically (status 1 to 4), else with the section 6 rejection if illegal.
    pub fn play(&mut self, mv: impl Into<RawMove>) -> Result<(), GameError> {
        self.ensure_running()?;
        let raw = mv.into();
        let not_in_check = !self.in_check;
        let (current, next) = self.next_slot();
        match current.check_and_play_into(raw, not_in_check, None, next) {
            Ok(played) => {
                self.push(played);
                Ok(())
            }
            Err(rejection) => {
                self.states.pop();
                Err(rejection.into())
            }
        }
    }

    /// Plays a move given as SAN (or UCI); returns the move played.
    pub fn play_san(&mut self, san: &str) -> Result<Move, GameError> {
        self.ensure_running()?;
        let not_in_check = !self.in_check;
        let (current, next) = self.next_slot();
        match current.parse_move_and_play(san, not_in_check, next) {
            Ok(played) => {
                self.push(played);
                Ok(played.mv())
            }
            Err(error) => {
                self.states.pop();
                Err(error.into())
            }
        }
    }

    /// The current state, and a new last state for a move to write its
    /// result into in place (see `Played`): kept by [`Game::push`], popped if
    /// the move is refused.
    fn next_slot(&mut self) -> (State, &mut State) {
        let current = *self.state();
        self.states.push(current);
        (current, self.states.last_mut().expect("just pushed"))
    }

    fn ensure_running(&self) -> Result<(), GameError> {
        if self.status.is_over() {
            return Err(GameError::Over {
                status: self.status,
                ply: self.plies(),
            });
        }
        Ok(())
    }

    /// Records a move whose state after is already the last of `states`.
    fn push(&mut self, played: Played) {
        // One pass over the new board for the check, the status and the material.
        let next = self.state();
        let them = next.as_bytes()[crate::state::idx::CURRENT_PLAYER] as i8;
        let (occ, ours) = crate::attacks::occupancies(next.as_bytes(), them);
        let check = played.gives_check_given(next, occ);
        self.status = next.status_given(check, (occ, ours));
        self.in_check = check;
        self.moves.push(played.mv());
    }

    /// Undoes the last move; `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.states.pop();
        (self.status, self.in_check) = self.state().status_and_check();
        Some(mv)
    }

    /// The status of the current position (ENCODING.md section 8).
    pub fn status(&self) -> Status {
        self.status
    }

    /// The automatic end (status 1 to 4), if the game has ended.
    pub fn outcome(&self) -> Option<Outcome> {
        Outcome::of(self.status, self.state().turn())
    }

    /// Index of the first state that can repeat later ones: the last state whose
    /// halfmove clock is 0 (after an irreversible move), else the start.
    fn window_start(&self) -> usize {
        self.states
            .iter()
            .rposition(|s| s.halfmove_clock() == 0)
            .unwrap_or(0)
    }

    /// Repetition keys (section 9) of the states in the window with `turn` to move.
    fn window_keys(&self, turn: Color) -> Vec<B256> {
        self.states[self.window_start()..]
            .iter()
            .filter(|s| s.turn() == turn)
            .map(State::repetition_key)
            .collect()
    }

    /// How often the current position (by section 9 key) has occurred since the last
    /// irreversible move, the current occurrence included.
    pub fn repetitions(&self) -> usize {
        let state = self.state();
        let key = state.repetition_key();
        self.window_keys(state.turn())
            .iter()
            .filter(|k| **k == key)
            .count()
    }

    /// The current position has occurred at least three times (a threefold claim now).
    pub fn is_threefold(&self) -> bool {
        self.repetitions() >= 3
    }

    /// The current position has occurred at least five times. The referee does not end
    /// the game on it (see the module docs); it is still a valid threefold claim.
    pub fn is_fivefold(&self) -> bool {
        self.repetitions() >= 5
    }

    /// The side to move may claim a draw by repetition (FIDE 9.2): the position
    /// occurred three times, or one of its legal moves would make the resulting
    /// position occur a third time (a claim made with that move). Never once the
    /// game ended automatically.
    pub fn can_claim_threefold(&self) -> bool {
        self.threefold_claim_move_or_now().is_some()
    }

    /// `Some(None)` when the position repeats three times now, `Some(Some(move))` for a
    /// move that brings the third occurrence about, `None` when no claim is possible.
    pub fn threefold_claim_move_or_now(&self) -> Option<Option<Move>> {
        if self.status.is_over() {
            return None;
        }
        if self.is_threefold() {
            return Some(None);
        }
        let state = self.state();
        let earlier = self.window_keys(!state.turn());
        if earlier.len() < 2 {
            return None;
        }
        state.legal_moves().into_iter().find_map(|mv| {
            let next = state.play(mv).ok()?;
            // An irreversible move starts a new window: its position cannot repeat.
            if next.halfmove_clock() == 0 {
                return None;
            }
            let key = next.repetition_key();
            (earlier.iter().filter(|k| **k == key).count() >= 2).then_some(Some(mv))
        })
    }

    /// Fifty moves (100 plies) without a capture or pawn move have been played and
    /// the game has not ended automatically (a mate on the board takes precedence).
    pub fn is_fifty_moves(&self) -> bool {
        !self.status.is_over() && self.state().halfmove_clock() >= 100
    }

    /// The side to move may claim a draw under the fifty-move rule (FIDE 9.3): the
    /// halfmove clock is at least 100, or it is 99 and a legal move that is neither
    /// a capture nor a pawn move would complete the fifty moves (a claim made with
    /// that move). Never once the game ended automatically.
    pub fn can_claim_fifty_moves(&self) -> bool {
        if self.status.is_over() {
            return false;
        }
        let state = self.state();
        match state.halfmove_clock() {
            100.. => true,
            99 => state
                .legal_moves()
                .into_iter()
                .any(|mv| state.play(mv).is_ok_and(|n| n.halfmove_clock() != 0)),
            _ => false,
        }
    }

    /// The game as PGN: `tags` in the given order (a `[Result]` tag, and `[SetUp]`/`[FEN]`
    /// for a non-initial start, are added when missing), SAN movetext with move numbers,
    /// then the result: `result` if given, else the `[Result]` tag's, else the automatic
    /// outcome, else `*`.
    pub fn to_pgn(&self, tags: &[(String, String)], result: Option<&str>) -> String {
        let tagged = tags
            .iter()
            .find(|(k, _)| k == "Result")
            .map(|(_, v)| v.as_str());
        let result = result
            .or(tagged)
            .map(str::to_owned)
            .unwrap_or_else(|| match self.outcome() {
                Some(o) => o.result.to_string(),
                None => "*".to_owned(),
            });
        let mut out = String::new();
        let has = |name: &str| tags.iter().any(|(k, _)| k == name);
        let write_tag = |out: &mut String, k: &str, v: &str| {
            let v = v.replace('\\', "\\\\").replace('"', "\\\"");
            out.push_str(&format!("[{k} \"{v}\"]\n"));
        };
        for (k, v) in tags {
            write_tag(&mut out, k, v);
        }
        if !has("Result") {
            write_tag(&mut out, "Result", &result);
        }
        if *self.start() != State::initial() {
            if !has("SetUp") {
                write_tag(&mut out, "SetUp", "1");
            }
            if !has("FEN") {
                write_tag(&mut out, "FEN", &self.start().fen());
            }
        }
        out.push('\n');
        let mut line = String::new();
        let push_token = |out: &mut String, line: &mut String, token: &str| {
            if !line.is_empty() && line.len() + 1 + token.len() > 79 {
                out.push_str(line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(token);
        };
        for (i, (state, mv)) in self.states.iter().zip(&self.moves).enumerate() {
            let number = state.ply() / 2 + 1;
            match state.turn() {
                Color::White => push_token(&mut out, &mut line, &format!("{number}.")),
                Color::Black if i == 0 => push_token(&mut out, &mut line, &format!("{number}...")),
                Color::Black => {}
            }
            let san = state
                .san(*mv)
                .expect("every move in a game was legal when played");
            push_token(&mut out, &mut line, &san);
        }
        push_token(&mut out, &mut line, &result);
        out.push_str(&line);
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::PgnReader;

    fn game_from(fen: &str, moves: &[&str]) -> Game {
        let mut g = Game::new(State::from_fen(fen).unwrap());
        for m in moves {
            g.play_san(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        }
        g
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    /// Game::play and play_san skip the attack scan for unpinned pieces out of check:
    /// every raw move must still get exactly State::check's answer.
    #[test]
    fn play_agrees_with_check_on_every_raw_move() {
        let fens = [
            START,
            "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
            "4k3/8/8/8/8/2b5/3R4/4K3 w - - 0 1",
            "4k3/4r3/8/8/8/8/3Q4/4K3 w - - 0 1",
            "8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnb1kbnr/pppp1ppp/8/4p3/5P1q/8/PPPPP1PP/RNBQKBNR w KQkq - 1 3",
            "4k3/1P2q3/8/8/8/8/8/4K2R w K - 0 1",
            "r3k2r/8/8/8/8/8/8/R2QK2R b KQkq - 0 1",
        ];
        for fen in fens {
            let state = State::from_fen(fen).unwrap();
            for from in 0..128u8 {
                for to in 0..128u8 {
                    for promotion in [0u8, 2, 5] {
                        let raw = RawMove {
                            from,
                            to,
                            promotion,
                        };
                        let mut game = Game::new(state);
                        let expected = state.check(raw);
                        assert_eq!(
                            game.play(raw).map_err(|e| match e {
                                GameError::Illegal(r) => r,
                                other => panic!("{fen} {raw:?}: {other}"),
                            }),
                            expected.map(|_| ()),
                            "{fen} {raw:?}"
                        );
                        if let Ok(mv) = expected {
                            assert_eq!(game.state(), &state.play(raw).unwrap(), "{fen} {raw:?}");
                            let mut by_text = Game::new(state);
                            assert_eq!(
                                by_text.play_san(&mv.to_uci()).unwrap(),
                                mv,
                                "{fen} {raw:?}"
                            );
                            let san = state.san(mv).unwrap();
                            let mut by_san = Game::new(state);
                            assert_eq!(by_san.play_san(&san).unwrap(), mv, "{fen} {san}");
                            assert_eq!(by_san.state(), game.state(), "{fen} {san}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn plays_and_records_history() {
        let mut g = Game::new(State::initial());
        g.play(Move::from_uci("e2e4").unwrap()).unwrap();
        let m = g.play_san("c5").unwrap();
        assert_eq!(m.to_uci(), "c7c5");
        assert_eq!(g.plies(), 2);
        assert_eq!(
            g.moves().iter().map(Move::to_uci).collect::<Vec<_>>(),
            ["e2e4", "c7c5"]
        );
        assert_eq!(g.start(), &State::initial());
        assert_eq!(g.states().len(), 3);
        assert_eq!(
            g.state().fen(),
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"
        );
        assert_eq!(g.undo().unwrap().to_uci(), "c7c5");
        assert_eq!(g.plies(), 1);
    }

    #[test]
    fn illegal_moves_carry_the_section_6_code() {
        let mut g = Game::new(State::initial());
        let e = g
            .play(RawMove {
                from: 116,
                to: 116,
                promotion: 0,
            })
            .unwrap_err();
        assert_eq!(e, GameError::Illegal(Rejection::SameSquare));
        let e = g
            .play(RawMove {
                from: 100,
                to: 52,
                promotion: 0,
            })
            .unwrap_err();
        assert_eq!(e, GameError::Illegal(Rejection::BadGeometry));
        assert!(matches!(g.play_san("Ke2"), Err(GameError::San(_))));
        assert_eq!(g.plies(), 0);
    }

    #[test]
    fn checkmate_ends_the_game_and_refuses_more_moves() {
        let mut g = game_from(START, &["f3", "e5", "g4", "Qh4#"]);
        assert_eq!(g.status(), Status::Checkmate);
        assert_eq!(
            g.outcome(),
            Some(Outcome {
                result: GameResult::BlackWins,
                termination: Status::Checkmate
            })
        );
        let e = g.play_san("Kf2").unwrap_err();
        assert_eq!(
            e,
            GameError::Over {
                status: Status::Checkmate,
                ply: 4
            }
        );
        assert!(
            e.to_string().contains("CHECKMATE") && e.to_string().contains("ply 4"),
            "{e}"
        );
        assert!(g.play(Move::from_uci("e1f2").unwrap()).is_err());
        assert!(!g.can_claim_threefold() && !g.can_claim_fifty_moves());
    }

    #[test]
    fn draws_by_status_are_outcomes() {
        let g = game_from("k7/3N4/1K6/1B6/8/8/8/8 b - - 99 1", &[]);
        assert_eq!(
            g.outcome(),
            Some(Outcome {
                result: GameResult::Draw,
                termination: Status::Stalemate
            })
        );
        let mut g = game_from("8/8/8/4k3/8/8/3r4/4K3 w - - 0 1", &[]);
        assert_eq!(g.status(), Status::Ongoing);
        g.play_san("Kxd2").unwrap();
        assert_eq!(
            g.outcome().map(|o| o.termination),
            Some(Status::InsufficientMaterial)
        );
        let g = game_from("8/8/8/4k3/8/8/3R4/4K3 w - - 149 100", &["Rd3"]);
        assert_eq!(
            g.outcome(),
            Some(Outcome {
                result: GameResult::Draw,
                termination: Status::SeventyFiveMoves
            })
        );
    }

    #[test]
    fn threefold_counts_and_claims_with_the_next_move() {
        let knights = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
        for n in 0..=knights.len() {
            let g = game_from(START, &knights[..n]);
            let reps = match n {
                4 => 2,
                8 => 3,
                _ if n >= 5 => 2,
                _ => 1,
            };
            assert_eq!(g.repetitions(), reps, "after {n} plies");
            assert_eq!(g.is_threefold(), n == 8, "after {n} plies");
            // At ply 7 Ng8 would make the third occurrence.
            assert_eq!(g.can_claim_threefold(), n >= 7, "after {n} plies");
        }
        let g = game_from(START, &knights[..7]);
        assert_eq!(
            g.threefold_claim_move_or_now(),
            Some(Some(Move::from_uci("f6g8").unwrap()))
        );
        let g = game_from(START, &[&knights[..], &["e4"]].concat());
        assert_eq!(g.repetitions(), 1);
        assert!(!g.can_claim_threefold());
    }

    #[test]
    fn fivefold_is_reported_but_does_not_end_the_game() {
        let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        let moves: Vec<&str> = cycle.iter().cycle().take(16).copied().collect();
        let mut g = game_from(START, &moves);
        assert_eq!(g.repetitions(), 5);
        assert!(g.is_fivefold() && g.can_claim_threefold());
        assert_eq!(g.outcome(), None);
        g.play_san("e4").unwrap();
        assert!(!g.is_fivefold());
    }

    #[test]
    fn repetition_window_starts_at_the_last_irreversible_move() {
        // The start position occurs twice, then a pawn move; the next cycle starts afresh.
        let g = game_from(
            START,
            &[
                "Nf3", "Nf6", "Ng1", "Ng8", "e4", "e5", "Nf3", "Nf6", "Ng1", "Ng8",
            ],
        );
        assert_eq!(g.repetitions(), 2);
        assert!(!g.can_claim_threefold());
    }

    #[test]
    fn en_passant_byte_without_a_legal_capture_does_not_make_positions_differ() {
        // After 1.e4 the ep byte is set but black cannot capture: section 9 ignores it.
        let g = game_from(
            START,
            &["e4", "Nf6", "Nf3", "Ng8", "Ng1", "Nf6", "Nf3", "Ng8", "Ng1"],
        );
        assert_eq!(g.repetitions(), 3);
    }

    #[test]
    fn fifty_move_claims() {
        let g = game_from("6R1/7k/8/8/1r3B2/5K2/8/8 w - - 99 119", &[]);
        assert!(!g.is_fifty_moves());
        assert!(g.can_claim_fifty_moves(), "a quiet move completes 50 moves");
        let g = game_from("8/7k/8/6R1/1r3B2/5K2/8/8 b - - 100 119", &[]);
        assert!(g.is_fifty_moves() && g.can_claim_fifty_moves());
        let g = game_from("8/5R2/8/r2KB3/6k1/8/8/8 w - - 19 79", &[]);
        assert!(!g.is_fifty_moves() && !g.can_claim_fifty_moves());
        let g = game_from("k7/8/NKB5/8/8/8/8/8 b - - 105 176", &[]);
        assert_eq!(g.status(), Status::Checkmate);
        assert!(
            !g.is_fifty_moves() && !g.can_claim_fifty_moves(),
            "mate takes precedence"
        );
        // Clock 99 but only captures or pawn moves: no claim with the next move.
        let g = game_from("7k/8/8/8/8/8/p7/K7 w - - 99 80", &[]);
        assert_eq!(g.state().legal_moves().len(), 2);
        assert!(g.can_claim_fifty_moves(), "Kb2 is quiet");
        let g = game_from("k7/8/8/8/8/8/1q6/K7 w - - 99 80", &[]);
        assert_eq!(
            g.state()
                .legal_moves()
                .iter()
                .map(Move::to_uci)
                .collect::<Vec<_>>(),
            ["a1b2"]
        );
        assert!(!g.can_claim_fifty_moves(), "the only move is a capture");
    }

    #[test]
    fn pgn_export_round_trips() {
        let g = game_from(
            START,
            &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O", "Nf6"],
        );
        let tags = vec![("Event".to_owned(), "Test \"quoted\" \\ event".to_owned())];
        let pgn = g.to_pgn(&tags, None);
        assert!(
            pgn.starts_with("[Event \"Test \\\"quoted\\\" \\\\ event\"]\n[Result \"*\"]\n\n"),
            "{pgn}"
        );
        assert!(
            pgn.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. O-O Nf6 *"),
            "{pgn}"
        );
        let back: Vec<_> = PgnReader::new(pgn.as_bytes()).collect();
        let back = back[0].as_ref().unwrap();
        assert_eq!(back.tag("Event"), Some("Test \"quoted\" \\ event"));
        assert_eq!(back.replay().unwrap().moves(), g.moves());
    }

    #[test]
    fn pgn_export_from_a_position_with_black_to_move_and_mate() {
        let g = game_from("4k3/8/8/8/8/8/4P3/4K3 b - - 0 30", &["Kd7", "e4"]);
        let pgn = g.to_pgn(&[], Some("1/2-1/2"));
        assert!(
            pgn.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 30\"]"),
            "{pgn}"
        );
        assert!(pgn.contains("30... Kd7 31. e4 1/2-1/2"), "{pgn}");
        let back: Vec<_> = PgnReader::new(pgn.as_bytes()).collect();
        assert_eq!(
            back[0].as_ref().unwrap().replay().unwrap().state(),
            g.state()
        );

        let mate = game_from(START, &["f3", "e5", "g4", "Qh4#"]);
        assert!(
            mate.to_pgn(&[], None)
                .ends_with("1. f3 e5 2. g4 Qh4# 0-1\n")
        );
        let resigned =
            game_from(START, &["e4"]).to_pgn(&[("Result".to_owned(), "1-0".to_owned())], None);
        assert_eq!(resigned, "[Result \"1-0\"]\n\n1. e4 1-0\n");
    }

    #[test]
    fn pgn_export_wraps_long_games() {
        let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        let moves: Vec<&str> = cycle.iter().cycle().take(40).copied().collect();
        let pgn = game_from(START, &moves).to_pgn(&[], None);
        assert!(pgn.lines().all(|l| l.len() <= 80), "{pgn}");
    }
}
