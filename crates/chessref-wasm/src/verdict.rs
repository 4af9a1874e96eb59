//! Plain-Rust answers behind the bindings, so they are tested natively and
//! the JS layer only converts them.

use chessref_core::{Move, RawMove, Rejection, State};

/// What the contract would say about a move: `IllegalMove(code)` or acceptance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the contract accepts the move.
    pub legal: bool,
    /// 0 when legal, else the ENCODING.md section 6 code.
    pub code: u8,
    /// `"OK"` when legal, else the section 6 name.
    pub reason: &'static str,
    /// A sentence for a person.
    pub message: String,
}

impl Verdict {
    /// The verdict of `state.check(mv)`.
    pub fn of(state: &State, mv: RawMove) -> Verdict {
        match state.check(mv) {
            Ok(_) => Verdict {
                legal: true,
                code: 0,
                reason: "OK",
                message: "legal move".into(),
            },
            Err(r) => Verdict::rejected(r),
        }
    }

    /// The verdict for rejection `r`.
    pub fn rejected(r: Rejection) -> Verdict {
        Verdict {
            legal: false,
            code: r.code(),
            reason: r.name(),
            message: r.to_string(),
        }
    }
}

/// A legal move in every form a front end needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveForms {
    /// UCI (`e2e4`).
    pub uci: String,
    /// SAN with check suffixes (`Nf3+`).
    pub san: String,
    /// The contract's `uint24`.
    pub packed: u32,
}

impl MoveForms {
    /// The forms of `mv`, legal in `state`.
    pub fn of(state: &State, mv: Move) -> MoveForms {
        MoveForms {
            uci: mv.to_uci(),
            // SAN exists for every legal move; UCI keeps the field readable otherwise.
            san: state.san(mv).unwrap_or_else(|_| mv.to_uci()),
            packed: RawMove::from(mv).packed(),
        }
    }
}

/// Origin square -> destination squares of the legal moves, in generation
/// order, each destination once (the four promotions share one).
pub fn dests(state: &State) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for mv in state.legal_moves() {
        let from = mv.from.to_string();
        let to = mv.to.to_string();
        match out.iter_mut().find(|(f, _)| *f == from) {
            Some((_, tos)) => {
                if !tos.contains(&to) {
                    tos.push(to);
                }
            }
            None => out.push((from, vec![to])),
        }
    }
    out
}

/// The 64 squares from a8 to h1 (FEN order), each a FEN piece letter or empty.
pub fn board(state: &State) -> Vec<String> {
    let mut squares = Vec::with_capacity(64);
    for rank in (0..8).rev() {
        for file in 0..8 {
            let piece =
                chessref_core::Square::from_coords(file, rank).and_then(|sq| state.piece_at(sq));
            squares.push(piece.map(|p| p.char().to_string()).unwrap_or_default());
        }
    }
    squares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_section_6() {
        let s = State::initial();
        let e2e4 = Move::from_uci("e2e4").expect("uci");
        assert_eq!(Verdict::of(&s, e2e4.into()).code, 0);
        let v = Verdict::of(
            &s,
            RawMove {
                from: 100,
                to: 52,
                promotion: 0,
            },
        );
        assert_eq!((v.legal, v.code, v.reason), (false, 6, "BAD_GEOMETRY"));
        let v = Verdict::of(
            &s,
            RawMove {
                from: 100,
                to: 8,
                promotion: 0,
            },
        );
        assert_eq!((v.code, v.reason), (1, "OFF_BOARD"));
        assert!(!v.message.is_empty());
    }

    #[test]
    fn move_forms_carry_the_packed_uint24() {
        let s = State::initial();
        let f = MoveForms::of(&s, Move::from_uci("g1f3").expect("uci"));
        assert_eq!(
            f,
            MoveForms {
                uci: "g1f3".into(),
                san: "Nf3".into(),
                packed: (118 << 16) | (85 << 8)
            }
        );
    }

    #[test]
    fn dests_group_moves_by_origin() {
        let d = dests(&State::initial());
        assert_eq!(d.len(), 10);
        assert_eq!(d.iter().map(|(_, t)| t.len()).sum::<usize>(), 20);
        let e2 = d.iter().find(|(f, _)| f == "e2").expect("e2 moves");
        let mut tos = e2.1.clone();
        tos.sort();
        assert_eq!(tos, ["e3", "e4"]);
        let promo = dests(&State::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").expect("fen"));
        assert_eq!(
            promo
                .iter()
                .find(|(f, _)| f == "b7")
                .map(|(_, t)| t.clone()),
            Some(vec!["b8".to_owned()])
        );
    }

    #[test]
    fn board_is_in_fen_order() {
        let b = board(&State::initial());
        assert_eq!(b.len(), 64);
        assert_eq!(
            (b[0].as_str(), b[4].as_str(), b[60].as_str(), b[63].as_str()),
            ("r", "k", "K", "R")
        );
        assert_eq!(b[32], "");
    }
}
