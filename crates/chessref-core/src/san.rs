//! Standard algebraic notation, written and read against our own move generator.

use crate::attacks::{occupancy, on_board, origins_of};
use crate::error::{Rejection, SanError};
use crate::legal_move::LegalMove;
use crate::moves::{Move, RawMove};
use crate::piece_code::{KING, PAWN};
use crate::position::Position;
use crate::square::{Role, Square};
use crate::state::{Played, State};

fn is_castling(role: i8, mv: Move) -> bool {
    role == KING && mv.from.file().abs_diff(mv.to.file()) == 2
}

pub(crate) fn format(state: &State, mv: Move) -> Result<String, Rejection> {
    let mv = state.check(mv)?;
    let b = state.as_bytes();
    let role = (b[mv.from.index() as usize] as i8).abs();
    let mut san = String::with_capacity(8);
    if is_castling(role, mv) {
        san.push_str(if mv.to.file() == 6 { "O-O" } else { "O-O-O" });
    } else {
        let capture =
            b[mv.to.index() as usize] != 0 || (role == PAWN && mv.from.file() != mv.to.file());
        if role == PAWN {
            if capture {
                san.push(char::from(b'a' + mv.from.file()));
            }
        } else {
            san.push(Role::from_code(role as u8).expect("a piece").upper_char());
            let (mut others, mut same_file, mut same_rank) = (false, false, false);
            let piece = b[mv.from.index() as usize];
            for sq in origins_of(b, occupancy(b), mv.to.index(), piece as i8) {
                if sq != mv.from.index()
                    && state
                        .check(RawMove {
                            from: sq,
                            to: mv.to.index(),
                            promotion: 0,
                        })
                        .is_ok()
                {
                    let from = Square::new(sq).expect("on board");
                    others = true;
                    same_file |= from.file() == mv.from.file();
                    same_rank |= from.rank() == mv.from.rank();
                }
            }
            if others {
                if !same_file {
                    san.push(char::from(b'a' + mv.from.file()));
                } else if !same_rank {
                    san.push(char::from(b'1' + mv.from.rank()));
                } else {
                    san.push_str(&mv.from.to_string());
                }
            }
        }
        if capture {
            san.push('x');
        }
        san.push_str(&mv.to.to_string());
        if let Some(promotion) = mv.promotion {
            san.push('=');
            san.push(promotion.upper_char());
        }
    }
    let next = state.play(mv)?;
    if next.in_check() {
        san.push(if Position::from_state(&next).has_legal_move() {
            '+'
        } else {
            '#'
        });
    }
    Ok(san)
}

/// What a SAN text says about its move.
struct Pattern {
    role: Role,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: Square,
    promotion: Option<Role>,
}

fn syntax(san: &str, reason: &'static str) -> SanError {
    SanError::Syntax {
        san: san.to_owned(),
        reason,
    }
}

/// The role of an upper-case SAN piece letter (`N B R Q K P`).
#[inline(always)]
fn piece_letter(c: u8) -> Option<Role> {
    match c {
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        b'K' => Some(Role::King),
        b'P' => Some(Role::Pawn),
        _ => None,
    }
}

fn parse_pattern(original: &str, text: &[u8]) -> Result<Pattern, SanError> {
    let mut rest = text;
    let role = match rest.first().copied().and_then(piece_letter) {
        Some(role) => {
            rest = &rest[1..];
            role
        }
        None => Role::Pawn,
    };
    let mut promotion = None;
    if let [init @ .., last] = rest {
        let explicit = init.last() == Some(&b'=');
        let letter = matches!(last, b'N' | b'B' | b'R' | b'Q')
            || (explicit && matches!(last, b'n' | b'b' | b'r' | b'q'));
        if letter {
            promotion = piece_letter(last.to_ascii_uppercase());
            rest = if explicit {
                &init[..init.len() - 1]
            } else {
                init
            };
        } else if explicit {
            return Err(syntax(
                original,
                "promotion piece must be one of N, B, R, Q",
            ));
        }
    }
    if promotion.is_some() && role != Role::Pawn {
        return Err(syntax(original, "only a pawn can promote"));
    }
    let [origin @ .., file, rank] = rest else {
        return Err(syntax(original, "missing target square"));
    };
    let to = match (file, rank) {
        (f @ b'a'..=b'h', r @ b'1'..=b'8') => {
            Square::from_coords(f - b'a', r - b'1').expect("in range")
        }
        _ => return Err(syntax(original, "invalid target square")),
    };
    let origin = match origin {
        [o @ .., b'x'] => o,
        o => o,
    };
    let (mut from_file, mut from_rank) = (None, None);
    match origin {
        [] => {}
        [f @ b'a'..=b'h'] => from_file = Some(f - b'a'),
        [r @ b'1'..=b'8'] => from_rank = Some(r - b'1'),
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            from_file = Some(f - b'a');
            from_rank = Some(r - b'1');
        }
        _ => {
            return Err(syntax(
                original,
                "invalid origin (disambiguation) before the target square",
            ));
        }
    }
    Ok(Pattern {
        role,
        from_file,
        from_rank,
        to,
        promotion,
    })
}

#[inline]
pub(crate) fn parse(state: &State, san: &str) -> Result<LegalMove, SanError> {
    // The state after is written straight into the result (see `Played`).
    let mut legal = LegalMove::new(Played::NONE, *state, *state);
    let played = parse_and_play(state, san, false, legal.after_mut())?;
    legal.set_move(played);
    Ok(legal)
}

/// [`parse`] and the state after the move (written over `next`, which holds
/// `state` on entry and still does if the move is refused), from the one
/// legality check that resolved it (replay needs both; checking again to play
/// would double the work). `not_in_check` as for [`State::check_and_play_known`].
pub(crate) fn parse_and_play(
    state: &State,
    san: &str,
    not_in_check: bool,
    next: &mut State,
) -> Result<Played, SanError> {
    let mut text = san.trim_ascii().as_bytes();
    while let [rest @ .., b'+' | b'#' | b'!' | b'?'] = text {
        text = rest;
    }
    if text.is_empty() {
        return Err(syntax(san, "empty move"));
    }
    if !text.is_ascii() {
        return Err(syntax(san, "unexpected character"));
    }
    let b = state.as_bytes();
    let us = state.turn().sign();
    let home = if us > 0 { 116u8 } else { 4u8 };

    let castle = match text {
        b"O-O" | b"0-0" => Some(home + 2),
        b"O-O-O" | b"0-0-0" => Some(home - 2),
        _ => None,
    };
    if let Some(to) = castle {
        let is_king = b[home as usize] as i8 == KING * us;
        return match state.check_and_play_into(
            RawMove {
                from: home,
                to,
                promotion: 0,
            },
            not_in_check,
            None,
            next,
        ) {
            Ok(played) if is_king => Ok(played),
            _ => Err(SanError::Illegal {
                san: san.to_owned(),
            }),
        };
    }

    // Resolved with `check` on every piece of the named kind: exact, and far
    // cheaper than generating all legal moves.
    let pattern = parse_pattern(san, text)?;
    let piece = pattern.role.code() as i8 * us;
    let promotion = pattern.promotion.map_or(0, Role::code);
    let to = pattern.to.index();
    let mut found: Option<Played> = None;
    let mut more = Vec::new();
    if pattern.role == Role::Pawn {
        // A pawn comes from one row behind (or two, for a double step), on its
        // own file or, capturing, the named one: at most one origin fits.
        let back = (16 * us) as u8;
        let behind = to.wrapping_add(back);
        let file = pattern.from_file.unwrap_or(pattern.to.file());
        let from = match pattern.from_rank {
            Some(rank) => Square::from_coords(file, rank).map(Square::index),
            None if file != pattern.to.file() => Some((behind & 0xf0) | file),
            None if on_board(behind) && b[behind as usize] == 0 => Some(behind.wrapping_add(back)),
            None => Some(behind),
        };
        let found = from
            .filter(|&sq| on_board(sq) && b[sq as usize] as i8 == piece)
            .and_then(|from| {
                state
                    .check_and_play_into(
                        RawMove {
                            from,
                            to,
                            promotion,
                        },
                        not_in_check,
                        None,
                        next,
                    )
                    .ok()
            });
        return found.ok_or_else(|| SanError::Illegal {
            san: san.to_owned(),
        });
    }
    // Every origin found passes section 6 checks 1 to 12 but for the target's
    // (on the board, not the target, our piece, the role's step or the first
    // piece along its line, so the path is clear; no promotion, see
    // `parse_pattern`): check 5 here, and the origins need only check 14.
    if b[to as usize] as i8 * us > 0 {
        return Err(SanError::Illegal {
            san: san.to_owned(),
        });
    }
    let occ = occupancy(b);
    for sq in origins_of(b, occ, to, piece) {
        let from = Square::new(sq).expect("on board");
        if pattern.from_file.is_some_and(|f| f != from.file())
            || pattern.from_rank.is_some_and(|r| r != from.rank())
        {
            continue;
        }
        let raw = RawMove {
            from: sq,
            to,
            promotion,
        };
        match found {
            None => {
                found = state
                    .play_piece_move_prechecked(raw, not_in_check, Some(occ), next)
                    .ok()
            }
            Some(_) => {
                if let Ok(mv) = state.check(raw) {
                    more.push(mv);
                }
            }
        }
    }
    match found {
        None => Err(SanError::Illegal {
            san: san.to_owned(),
        }),
        Some(played) if more.is_empty() => Ok(played),
        Some(played) => {
            more.insert(0, played.mv());
            Err(SanError::Ambiguous {
                san: san.to_owned(),
                candidates: more,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Move, SanError, State};

    fn state(fen: &str) -> State {
        State::from_fen(fen).unwrap()
    }

    fn san(fen: &str, uci: &str) -> String {
        state(fen).san(Move::from_uci(uci).unwrap()).unwrap()
    }

    #[test]
    fn formats_standard_san() {
        let start = State::initial();
        assert_eq!(start.san(Move::from_uci("g1f3").unwrap()).unwrap(), "Nf3");
        assert_eq!(start.san(Move::from_uci("e2e4").unwrap()).unwrap(), "e4");
        assert!(start.san(Move::from_uci("e2e5").unwrap()).is_err());
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        assert_eq!(san(kiwipete, "e1g1"), "O-O");
        assert_eq!(san(kiwipete, "e1c1"), "O-O-O");
        assert_eq!(san(kiwipete, "d5e6"), "dxe6");
        assert_eq!(san(kiwipete, "e5f7"), "Nxf7");
        assert_eq!(san("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "a1d1"), "Rad1");
        assert_eq!(san("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3"), "R1a3");
        assert_eq!(san("1k6/7K/8/8/4Q2Q/8/8/7Q w - - 0 1", "h4e1"), "Qh4e1");
        assert_eq!(san("1k6/7K/8/8/4Q2Q/8/8/7Q w - - 0 1", "h1e1"), "Q1e1");
        assert_eq!(san("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n"), "b8=N");
        assert_eq!(san("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q"), "b8=Q+");
        assert_eq!(
            san(
                "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
                "d8h4"
            ),
            "Qh4#"
        );
    }

    #[test]
    fn parses_lenient_san() {
        let start = State::initial();
        assert_eq!(
            start.parse_san("Nf3").unwrap(),
            Move::from_uci("g1f3").unwrap()
        );
        assert_eq!(
            start.parse_san("e4!?").unwrap(),
            Move::from_uci("e2e4").unwrap()
        );
        assert_eq!(
            start.parse_san("Ng1f3").unwrap(),
            Move::from_uci("g1f3").unwrap()
        );
        assert!(matches!(
            start.parse_san("Nd4"),
            Err(SanError::Illegal { .. })
        ));
        assert!(matches!(
            start.parse_san("Zz9"),
            Err(SanError::Syntax { .. })
        ));
        assert!(matches!(start.parse_san(""), Err(SanError::Syntax { .. })));
        let kiwipete =
            state("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        assert_eq!(
            kiwipete.parse_san("0-0").unwrap(),
            Move::from_uci("e1g1").unwrap()
        );
        assert_eq!(
            kiwipete.parse_san("O-O-O+").unwrap(),
            Move::from_uci("e1c1").unwrap()
        );
        assert_eq!(
            kiwipete.parse_san("dxe6").unwrap(),
            Move::from_uci("d5e6").unwrap()
        );
        assert_eq!(
            kiwipete.parse_san("de6").unwrap(),
            Move::from_uci("d5e6").unwrap()
        );
        let rooks = state("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
        match rooks.parse_san("Rf1") {
            Err(SanError::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), 2),
            other => panic!("expected ambiguity, got {other:?}"),
        }
        assert_eq!(
            rooks.parse_san("Rhf1").unwrap(),
            Move::from_uci("h1f1").unwrap()
        );
        assert_eq!(
            rooks.parse_san("Rh1f1").unwrap(),
            Move::from_uci("h1f1").unwrap()
        );
        let promo = state("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(
            promo.parse_san("b8=N").unwrap(),
            Move::from_uci("b7b8n").unwrap()
        );
        assert_eq!(
            promo.parse_san("b8Q").unwrap(),
            Move::from_uci("b7b8q").unwrap()
        );
        assert_eq!(
            promo.parse_san("b8=q").unwrap(),
            Move::from_uci("b7b8q").unwrap()
        );
        assert!(matches!(
            promo.parse_san("b8"),
            Err(SanError::Illegal { .. })
        ));
        assert_eq!(
            promo.parse_move("b7b8r").unwrap(),
            Move::from_uci("b7b8r").unwrap()
        );
        assert!(matches!(
            promo.parse_move("b7b6"),
            Err(SanError::Rejected { .. })
        ));
    }
}
