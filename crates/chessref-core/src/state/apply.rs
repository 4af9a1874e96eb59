//! ENCODING.md sections 5 and 6: checking a move (the rejection codes, in
//! order) and applying a legal one byte for byte; move text (UCI or SAN) read
//! into a checked move.

use crate::attacks::{
    attacked, attacked_but_by_king, attacked_given, bit, first_along, is_diagonal, is_king_step,
    is_knight_step, is_orthogonal, line_step, occupancy, on_board,
};
use crate::error::{Rejection, SanError};
use crate::legal_move::Playable;
use crate::moves::{Move, RawMove};
use crate::piece_code::{BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK};
use crate::position::{IMove, MoveList, Position};
use crate::square::{Role, Square};

use super::State;
use super::layout::{MAX_PLY, idx};

/// A legal move played: the move, and what [`Played::gives_check_given`] needs
/// to know about it. The state after it is written where the caller wants it
/// (a `&mut State`), not carried here: a state copied soon after its bytes
/// were written waits for those byte stores (store forwarding), so it is
/// written once, in its final place. For the same reason this is one word
/// (bytes: from, to, promotion code, the two squares the move put a mover's
/// piece on and the two it emptied, `NO_SQUARE` if unused), written and read
/// whole rather than field by field.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Played(u64);

impl std::fmt::Debug for Played {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.mv())
    }
}

impl Played {
    /// A placeholder (a8 to a8), overwritten once a move is found.
    pub const NONE: Played = Played(0);

    fn new(mv: RawMove, placed: [u8; 2], vacated: [u8; 2]) -> Played {
        Played(
            u64::from(mv.from)
                | u64::from(mv.to) << 8
                | u64::from(mv.promotion) << 16
                | u64::from(placed[0]) << 24
                | u64::from(placed[1]) << 32
                | u64::from(vacated[0]) << 40
                | u64::from(vacated[1]) << 48,
        )
    }

    /// The move played.
    pub fn mv(self) -> Move {
        Move {
            from: Square::from_index_unchecked(self.0 as u8),
            to: Square::from_index_unchecked((self.0 >> 8) as u8),
            promotion: Role::from_code((self.0 >> 16) as u8),
        }
    }

    /// Whether the move gives check, found from the squares it changed;
    /// `next` is the state it played to.
    #[cfg(test)]
    pub fn gives_check(&self, next: &State) -> bool {
        self.gives_check_given(next, occupancy(&next.0))
    }

    /// [`Played::gives_check`] given the [`occupancy`] of `next`.
    pub fn gives_check_given(&self, next: &State, occ: u64) -> bool {
        let b = &next.0;
        let them = b[idx::CURRENT_PLAYER] as i8;
        let their_king = next.king_index(them);
        let byte = |i: u32| (self.0 >> (8 * i)) as u8;
        gives_check(
            b,
            occ,
            their_king,
            -them,
            [byte(3), byte(4)],
            [byte(5), byte(6)],
        )
    }
}

/// An off-board index standing for "no square".
const NO_SQUARE: u8 = 0x88;

/// Whether the king on `king` is attacked by side `by` on board `b`, where the
/// previous board had it unattacked (section 7: the waiting side is never in
/// check) and the move put `by` pieces on `placed` and emptied `vacated`. Only
/// a placed piece, or a slider whose line to the king crosses a vacated square,
/// can attack it now: the other pieces' attacks on the king did not change.
fn gives_check(
    b: &[u8; 128],
    occ: u64,
    king: u8,
    by: i8,
    placed: [u8; 2],
    vacated: [u8; 2],
) -> bool {
    // Lines are settled by the first piece from the king, found with the
    // occupancy bits (`occ`, of `b`) rather than by walking the squares in between.
    for sq in placed {
        if !on_board(sq) {
            continue;
        }
        let attacks = match b[sq as usize] as i8 * by {
            PAWN => {
                let ahead = sq.wrapping_add((-16 * by) as u8);
                king == ahead.wrapping_sub(1) || king == ahead.wrapping_add(1)
            }
            KNIGHT => is_knight_step(sq, king),
            KING => is_king_step(sq, king),
            role => {
                let aligned = match role {
                    BISHOP => is_diagonal(sq, king),
                    ROOK => is_orthogonal(sq, king),
                    _ => is_diagonal(sq, king) || is_orthogonal(sq, king),
                };
                aligned && first_along(occ, king, line_step(king, sq).expect("aligned")) == Some(sq)
            }
        };
        if attacks {
            return true;
        }
    }
    for sq in vacated {
        let Some(d) = (if on_board(sq) {
            line_step(king, sq)
        } else {
            None
        }) else {
            continue;
        };
        if let Some(t) = first_along(occ, king, d) {
            let p = b[t as usize] as i8 * by;
            if p == QUEEN || p == if is_diagonal(king, sq) { BISHOP } else { ROOK } {
                return true;
            }
        }
    }
    false
}

/// The [`occupancy`] after a prechecked move of side `us`, from the one before it.
#[inline(always)]
fn occupancy_after(occ: u64, raw: RawMove, kind: MoveKind, us: i8) -> u64 {
    let occ = (occ & !bit(raw.from)) | bit(raw.to);
    match kind {
        MoveKind::Normal | MoveKind::DoubleStep => occ,
        MoveKind::EnPassant => occ & !bit(raw.to.wrapping_add((16 * us) as u8)),
        MoveKind::Castle { rook_from, rook_to } => (occ & !bit(rook_from)) | bit(rook_to),
    }
}

/// The kind of a move that passed the section 6 checks 1 to 13.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum MoveKind {
    Normal,
    DoubleStep,
    EnPassant,
    Castle { rook_from: u8, rook_to: u8 },
}

impl State {
    /// All legal moves (castling as the king's two-square move; promotions to
    /// queen, rook, bishop and knight).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut list = MoveList::new();
        Position::from_state(self).generate(&mut list);
        list.iter().map(|m| to_move(*m)).collect()
    }

    /// Checks a move: `Ok` with the well-formed move iff it is legal, else the
    /// first section 6 rejection in section 6 order.
    pub fn check(&self, mv: impl Into<RawMove>) -> Result<Move, Rejection> {
        let raw = mv.into();
        let kind = self.precheck(raw)?;
        let mut board = self.0;
        let king = self.apply_pieces(&mut board, raw, kind);
        let occ = occupancy_after(
            occupancy(&self.0),
            raw,
            kind,
            self.0[idx::CURRENT_PLAYER] as i8,
        );
        if attacked_given(&board, occ, king, -(self.0[idx::CURRENT_PLAYER] as i8)) {
            return Err(Rejection::KingLeftInCheck);
        }
        Ok(Move {
            from: Square::from_index_unchecked(raw.from),
            to: Square::from_index_unchecked(raw.to),
            promotion: Role::from_code(raw.promotion),
        })
    }

    /// Applies a move (section 5, byte for byte), or rejects it as [`State::check`] does.
    ///
    /// A [`LegalMove`](crate::LegalMove) found in this state (by
    /// [`State::parse_san`]) is applied without being checked again.
    pub fn play(&self, mv: impl Playable) -> Result<State, Rejection> {
        mv.play_on(self)
    }

    /// [`State::check`] and [`State::play`] in one pass: the well-formed move and
    /// the state after it, or the section 6 rejection.
    pub fn check_and_play(&self, mv: impl Into<RawMove>) -> Result<(Move, State), Rejection> {
        self.check_and_play_known(mv.into(), false)
            .map(|(played, next)| (played.mv(), next))
    }

    /// [`State::check_and_play`] for a caller that may know the side to move is
    /// not in check (`not_in_check`, e.g. from the status it computed): then a
    /// plain move of an unpinned piece other than the king cannot leave the king
    /// attacked, and the attack scan (check 14) is skipped. `false` always scans.
    #[inline]
    pub(crate) fn check_and_play_known(
        &self,
        raw: RawMove,
        not_in_check: bool,
    ) -> Result<(Played, State), Rejection> {
        let mut next = *self;
        let played = self.check_and_play_into(raw, not_in_check, None, &mut next)?;
        Ok((played, next))
    }

    /// [`State::check_and_play_known`] writing the state after the move into
    /// `next`, which holds this state on entry (a copy made where the result
    /// is to live) and still does if the move is refused; with this board's
    /// [`occupancy`] if the caller has it (`State::parse_san` does): the attack
    /// test runs on the occupancy after the move derived from it.
    #[inline]
    pub(crate) fn check_and_play_into(
        &self,
        raw: RawMove,
        not_in_check: bool,
        occ: Option<u64>,
        next: &mut State,
    ) -> Result<Played, Rejection> {
        let kind = self.precheck(raw)?;
        self.play_prechecked(raw, kind, not_in_check, occ, next)
    }

    /// [`State::check_and_play_into`] for a plain move (not a pawn's, not
    /// castling) whose checks 1 to 13 the caller has made (`State::parse_san`
    /// finds its origin by walking back from the target, which settles the
    /// geometry and the path): checks 14 only, and plays it.
    #[inline]
    pub(crate) fn play_piece_move_prechecked(
        &self,
        raw: RawMove,
        not_in_check: bool,
        occ: Option<u64>,
        next: &mut State,
    ) -> Result<Played, Rejection> {
        debug_assert_eq!(self.precheck(raw), Ok(MoveKind::Normal));
        self.play_prechecked(raw, MoveKind::Normal, not_in_check, occ, next)
    }

    /// Check 14 and section 5 for a move that passed checks 1 to 13 as `kind`,
    /// the state after it written over `next`, which holds this state on entry
    /// and is restored if the move is refused.
    #[inline(always)]
    fn play_prechecked(
        &self,
        raw: RawMove,
        kind: MoveKind,
        not_in_check: bool,
        occ: Option<u64>,
        next: &mut State,
    ) -> Result<Played, Rejection> {
        let us = self.0[idx::CURRENT_PLAYER] as i8;
        let (placed, vacated) = match kind {
            MoveKind::Normal | MoveKind::DoubleStep => ([raw.to, NO_SQUARE], [raw.from, NO_SQUARE]),
            MoveKind::EnPassant => (
                [raw.to, NO_SQUARE],
                [raw.from, raw.to.wrapping_add((16 * us) as u8)],
            ),
            MoveKind::Castle { rook_from, rook_to } => {
                ([rook_to, NO_SQUARE], [raw.from, rook_from])
            }
        };
        debug_assert_eq!(next, self, "`next` holds the state before the move");
        let result = next;
        let next = &mut result.0;
        let king = self.apply_pieces(next, raw, kind);
        // The flags first: the attack test reads none of them, and by its end
        // these byte stores have left the store buffer, so a copy of the state
        // soon after (whole 16-byte chunks) need not wait for them.
        next[idx::WHITE_EN_PASSANT] = 0;
        next[idx::BLACK_EN_PASSANT] = 0;
        let moved = self.0[raw.from as usize] as i8;
        let captured = self.0[raw.to as usize] != 0 || kind == MoveKind::EnPassant;
        if moved == KING * us {
            if us > 0 {
                next[idx::WHITE_KING_POS] = raw.to;
                next[idx::WHITE_LEFT_CASTLING] = 0xff;
                next[idx::WHITE_RIGHT_CASTLING] = 0xff;
            } else {
                next[idx::BLACK_KING_POS] = raw.to;
                next[idx::BLACK_LEFT_CASTLING] = 0xff;
                next[idx::BLACK_RIGHT_CASTLING] = 0xff;
            }
        }
        for sq in [raw.from, raw.to] {
            // A move from a corner is the rook leaving it (while the right is kept the rook
            // is there); a move onto a corner captures whatever stood there.
            match sq {
                112 => next[idx::WHITE_LEFT_CASTLING] = 0xff,
                119 => next[idx::WHITE_RIGHT_CASTLING] = 0xff,
                0 => next[idx::BLACK_LEFT_CASTLING] = 0xff,
                7 => next[idx::BLACK_RIGHT_CASTLING] = 0xff,
                _ => {}
            }
        }
        if kind == MoveKind::DoubleStep {
            let passed = (raw.from + raw.to) / 2;
            next[if us > 0 {
                idx::WHITE_EN_PASSANT
            } else {
                idx::BLACK_EN_PASSANT
            }] = passed;
        }
        next[idx::HALFMOVE_CLOCK] = if moved == PAWN * us || captured {
            0
        } else {
            self.0[idx::HALFMOVE_CLOCK].saturating_add(1)
        };
        let count = (self.ply() + 1).min(MAX_PLY);
        next[idx::MOVE_COUNT_HIGH] = (count >> 7) as u8;
        next[idx::MOVE_COUNT_LOW] = (count & 127) as u8;
        next[idx::CURRENT_PLAYER] = (-us) as u8;
        let safe_by_pins = not_in_check
            && matches!(kind, MoveKind::Normal | MoveKind::DoubleStep)
            && king != raw.to
            && !self.is_pinned(raw.from, king, us);
        if !safe_by_pins {
            let occ = occupancy_after(occ.unwrap_or_else(|| occupancy(&self.0)), raw, kind, us);
            let attacked = if king == raw.to {
                attacked_given(next, occ, king, -us)
            } else {
                attacked_but_by_king(next, occ, king, -us)
            };
            if attacked {
                *result = *self;
                return Err(Rejection::KingLeftInCheck);
            }
        }
        Ok(Played::new(raw, placed, vacated))
    }

    /// Section 6 checks 1 to 13, in order.
    #[inline(always)]
    fn precheck(&self, raw: RawMove) -> Result<MoveKind, Rejection> {
        let RawMove {
            from,
            to,
            promotion,
        } = raw;
        if !on_board(from) || !on_board(to) {
            return Err(Rejection::OffBoard);
        }
        if from == to {
            return Err(Rejection::SameSquare);
        }
        let b = &self.0;
        let piece = b[from as usize] as i8;
        if piece == 0 {
            return Err(Rejection::EmptyFrom);
        }
        let us = b[idx::CURRENT_PLAYER] as i8;
        if piece * us < 0 {
            return Err(Rejection::NotYourPiece);
        }
        let target = b[to as usize] as i8;
        if target * us > 0 {
            return Err(Rejection::OwnPieceOnTarget);
        }
        let role = piece * us;
        let mut kind = MoveKind::Normal;
        let mut promotes = false;
        match role {
            KNIGHT => {
                if !is_knight_step(from, to) {
                    return Err(Rejection::BadGeometry);
                }
            }
            BISHOP | ROOK | QUEEN => {
                let geometry_ok = match role {
                    BISHOP => is_diagonal(from, to),
                    ROOK => is_orthogonal(from, to),
                    _ => is_diagonal(from, to) || is_orthogonal(from, to),
                };
                if !geometry_ok {
                    return Err(Rejection::BadGeometry);
                }
                let step = line_step(from, to).expect("aligned");
                let mut t = from.wrapping_add(step);
                while t != to {
                    if b[t as usize] != 0 {
                        return Err(Rejection::PathBlocked);
                    }
                    t = t.wrapping_add(step);
                }
            }
            KING => {
                if !is_king_step(from, to) {
                    let home = if us > 0 { 116 } else { 4 };
                    if from != home || (to != home + 2 && to != home - 2) {
                        return Err(Rejection::BadGeometry);
                    }
                    let king_side = to == home + 2;
                    let (right, rook_from, rook_to) = match (us > 0, king_side) {
                        (true, true) => (idx::WHITE_RIGHT_CASTLING, 119u8, 117u8),
                        (true, false) => (idx::WHITE_LEFT_CASTLING, 112, 115),
                        (false, true) => (idx::BLACK_RIGHT_CASTLING, 7, 5),
                        (false, false) => (idx::BLACK_LEFT_CASTLING, 0, 3),
                    };
                    if b[right] == 0xff || b[rook_from as usize] as i8 != ROOK * us {
                        return Err(Rejection::CastlingNotAllowed);
                    }
                    let (lo, hi) = if king_side {
                        (home + 1, rook_from)
                    } else {
                        (rook_from + 1, home)
                    };
                    if (lo..hi).any(|sq| b[sq as usize] != 0) {
                        return Err(Rejection::PathBlocked);
                    }
                    if attacked(b, home, -us) {
                        return Err(Rejection::CastlingInCheck);
                    }
                    if attacked(b, rook_to, -us) {
                        return Err(Rejection::CastlingThroughCheck);
                    }
                    kind = MoveKind::Castle { rook_from, rook_to };
                }
            }
            _ => {
                // Pawn: forward is -16 for white, +16 for black.
                let diff = (to as i16 - from as i16) * us as i16;
                let start_row = if us > 0 { 6 } else { 1 };
                match diff {
                    -16 => {
                        if target != 0 {
                            return Err(Rejection::PathBlocked);
                        }
                    }
                    -32 if from >> 4 == start_row => {
                        let middle = (from + to) / 2;
                        if b[middle as usize] != 0 || target != 0 {
                            return Err(Rejection::PathBlocked);
                        }
                        kind = MoveKind::DoubleStep;
                    }
                    -15 | -17 => {
                        if target == 0 {
                            let ep = if us > 0 {
                                b[idx::BLACK_EN_PASSANT]
                            } else {
                                b[idx::WHITE_EN_PASSANT]
                            };
                            if ep == 0 || ep != to {
                                return Err(Rejection::NoCaptureTarget);
                            }
                            kind = MoveKind::EnPassant;
                        }
                    }
                    _ => return Err(Rejection::BadGeometry),
                }
                promotes = to >> 4 == if us > 0 { 0 } else { 7 };
            }
        }
        if promotes && promotion == 0 {
            return Err(Rejection::PromotionRequired);
        }
        if !matches!(promotion, 0 | 2..=5) || (promotion != 0 && !promotes) {
            return Err(Rejection::InvalidPromotion);
        }
        Ok(kind)
    }

    /// Moves the pieces of a prechecked move on `board`; returns the mover's king square.
    #[inline(always)]
    fn apply_pieces(&self, board: &mut [u8; 128], raw: RawMove, kind: MoveKind) -> u8 {
        let us = self.0[idx::CURRENT_PLAYER] as i8;
        let piece = board[raw.from as usize];
        board[raw.from as usize] = 0;
        board[raw.to as usize] = if raw.promotion != 0 {
            (raw.promotion as i8 * us) as u8
        } else {
            piece
        };
        match kind {
            MoveKind::EnPassant => board[raw.to.wrapping_add((16 * us) as u8) as usize] = 0,
            MoveKind::Castle { rook_from, rook_to } => {
                board[rook_from as usize] = 0;
                board[rook_to as usize] = (ROOK * us) as u8;
            }
            MoveKind::Normal | MoveKind::DoubleStep => {}
        }
        if piece as i8 == KING * us {
            raw.to
        } else {
            self.king_index(us)
        }
    }

    /// Whether our piece on `from` is pinned to our `king`: it is the first piece
    /// on a line from the king, and beyond it the first piece is an enemy slider
    /// moving along that line.
    pub(super) fn is_pinned(&self, from: u8, king: u8, us: i8) -> bool {
        let Some(d) = line_step(king, from) else {
            return false;
        };
        let b = &self.0;
        let mut t = king.wrapping_add(d);
        while t != from {
            if b[t as usize] != 0 {
                return false;
            }
            t = t.wrapping_add(d);
        }
        t = t.wrapping_add(d);
        while on_board(t) && b[t as usize] == 0 {
            t = t.wrapping_add(d);
        }
        if !on_board(t) {
            return false;
        }
        let p = b[t as usize] as i8 * -us;
        let slider = if is_diagonal(king, from) {
            BISHOP
        } else {
            ROOK
        };
        p == slider || p == QUEEN
    }

    /// Parses a move in UCI or SAN and checks that it is legal.
    ///
    /// Castling written king-takes-own-rook (`e1h1`, as lichess and UCI_Chess960
    /// do) is read as the king's two-square move (`e1g1`) when that is legal;
    /// the returned move, like every [`Move`] here, uses the two-square form.
    pub fn parse_move(&self, s: &str) -> Result<Move, SanError> {
        let mut next = *self;
        self.parse_move_and_play(s, false, &mut next)
            .map(Played::mv)
    }

    /// [`State::parse_move`] and the state after the move (written over `next`,
    /// which holds this state on entry and still does if the move is refused),
    /// in one legality check (`not_in_check` as for
    /// [`State::check_and_play_known`]).
    pub(crate) fn parse_move_and_play(
        &self,
        s: &str,
        not_in_check: bool,
        next: &mut State,
    ) -> Result<Played, SanError> {
        let text = s.trim();
        // UCI is two squares and an optional promotion: skip the UCI parse (and its
        // error allocation) for every other text.
        let uci_like = matches!(text.as_bytes(), [b'a'..=b'h', b'1'..=b'8', b'a'..=b'h', b'1'..=b'8', ..] if text.len() <= 5);
        if let Some(mv) = uci_like.then(|| Move::from_uci(text).ok()).flatten() {
            return self
                .check_and_play_into(mv.into(), not_in_check, None, next)
                .or_else(|rejection| {
                    let castling = self
                        .king_takes_rook_castling(mv)
                        .and_then(|c| self.check_and_play_into(c.into(), false, None, next).ok());
                    castling.ok_or_else(|| SanError::Rejected {
                        uci: text.to_owned(),
                        rejection,
                    })
                });
        }
        crate::san::parse_and_play(self, text, not_in_check, next)
    }

    /// The two-square castling move meant by a king-onto-own-rook move, if `mv` is one.
    fn king_takes_rook_castling(&self, mv: Move) -> Option<Move> {
        let us = self.0[idx::CURRENT_PLAYER] as i8;
        let home = if us > 0 { 116 } else { 4 };
        let (from, to) = (mv.from.index(), mv.to.index());
        let rook_corner = to == home + 3 || to == home - 4;
        let is_king_and_rook =
            self.0[from as usize] as i8 == KING * us && self.0[to as usize] as i8 == ROOK * us;
        if from != home || !rook_corner || !is_king_and_rook || mv.promotion.is_some() {
            return None;
        }
        let target = if to > home { home + 2 } else { home - 2 };
        Some(Move::new(mv.from, Square::from_index_unchecked(target)))
    }
}

/// The public [`Move`] of a generated move.
pub(crate) fn to_move(m: IMove) -> Move {
    Move {
        from: Square::from_index_unchecked(m.from),
        to: Square::from_index_unchecked(m.to),
        promotion: Role::from_code(m.promotion),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::layout::idx;

    fn play_uci(state: &State, uci: &str) -> State {
        let mv = Move::from_uci(uci).unwrap();
        let (checked, next) = state.check_and_play(mv).unwrap();
        assert_eq!(checked, mv);
        assert_eq!(state.play(mv), Ok(next));
        next
    }

    /// The check flag found from the changed squares equals a full attack scan, and
    /// the pin shortcut out of check plays exactly what the full check plays, on every
    /// legal move of small trees from positions rich in pins, checks, castling, en
    /// passant and promotions.
    #[test]
    fn incremental_check_and_pin_shortcut_are_exact() {
        fn walk(state: &State, depth: u32, moves: &mut u64) {
            let not_in_check = !state.in_check();
            for mv in state.legal_moves() {
                let (full, full_next) = state.check_and_play_known(mv.into(), false).unwrap();
                let (hinted, hinted_next) =
                    state.check_and_play_known(mv.into(), not_in_check).unwrap();
                assert_eq!(full_next, hinted_next);
                assert_eq!(
                    full.gives_check(&full_next),
                    full_next.in_check(),
                    "{} {mv}",
                    state.fen()
                );
                assert_eq!(
                    hinted.gives_check(&hinted_next),
                    full.gives_check(&full_next)
                );
                *moves += 1;
                if depth > 1 {
                    walk(&full_next, depth - 1, moves);
                }
            }
        }
        let mut moves = 0;
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1",
            "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1",
            // exd6 e.p. uncovers the bishop's diagonal through d5 to the black king.
            "k7/8/8/3pP3/4B3/8/8/4K3 w - d6 0 1",
        ] {
            walk(&State::from_fen(fen).unwrap(), 3, &mut moves);
        }
        assert!(moves > 100_000, "{moves} moves walked");
    }

    #[test]
    fn counters_saturate_and_wrap() {
        let mut bytes = *State::initial().as_bytes();
        bytes[idx::MOVE_COUNT_LOW] = 127;
        bytes[idx::HALFMOVE_CLOCK] = 255;
        let state = State::from_bytes(&bytes).unwrap();
        let next = play_uci(&state, "g1f3");
        assert_eq!(
            (next.0[idx::MOVE_COUNT_HIGH], next.0[idx::MOVE_COUNT_LOW]),
            (1, 0)
        );
        assert_eq!(next.halfmove_clock(), 255);
        assert_eq!(next.ply(), 128);
        bytes[idx::MOVE_COUNT_HIGH] = 127;
        let last = play_uci(&State::from_bytes(&bytes).unwrap(), "g1f3");
        assert_eq!(last.ply(), MAX_PLY);
    }

    fn code(fen: &str, uci: &str) -> u8 {
        let state = State::from_fen(fen).unwrap();
        match state.check(Move::from_uci(uci).unwrap()) {
            Ok(_) => 0,
            Err(r) => r.code(),
        }
    }

    fn raw_code(state: &State, from: u8, to: u8, promotion: u8) -> u8 {
        state
            .check(RawMove {
                from,
                to,
                promotion,
            })
            .err()
            .map_or(0, Rejection::code)
    }

    #[test]
    fn rejection_precedence_of_section_6() {
        let start = State::initial();
        assert_eq!(raw_code(&start, 8, 4, 0), 1);
        assert_eq!(raw_code(&start, 200, 200, 0), 1);
        assert_eq!(raw_code(&start, 100, 100, 9), 2);
        assert_eq!(raw_code(&start, 68, 52, 0), 3);
        assert_eq!(raw_code(&start, 20, 36, 0), 4);
        assert_eq!(raw_code(&start, 118, 100, 0), 5);
        assert_eq!(raw_code(&start, 118, 86, 0), 6);
        assert_eq!(raw_code(&start, 100, 68, 7), 13);
        assert_eq!(raw_code(&start, 100, 68, 5), 13);
        assert_eq!(raw_code(&start, 100, 68, 0), 0);
        assert_eq!(raw_code(&start, 117, 83, 0), 7);
        assert_eq!(raw_code(&start, 100, 83, 0), 8);
        // A pawn diagonal onto its own piece is 5; forward onto a piece is 7.
        assert_eq!(code("4k3/8/8/8/8/3P4/4P3/4K3 w - - 0 1", "e2d3"), 5);
        assert_eq!(code("4k3/8/8/8/8/4p3/4P3/4K3 w - - 0 1", "e2e3"), 7);
        assert_eq!(code("4k3/8/8/8/4p3/8/4P3/4K3 w - - 0 1", "e2e4"), 7);
        assert_eq!(code("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "e2e5"), 6);
        assert_eq!(code("4k3/8/8/8/8/4P3/8/4K3 w - - 0 1", "e3e5"), 6);
        // King two-square moves other than castling patterns are geometry errors.
        assert_eq!(code("4k3/8/8/8/8/8/8/3K4 w - - 0 1", "d1f1"), 6);
        assert_eq!(code("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1e3"), 6);
        // Castling: 9, 7, 10, 11, then 13, then 14.
        assert_eq!(code("4k3/8/8/8/8/8/8/4K2R w - - 0 1", "e1g1"), 9);
        // No rook at all: the castling pattern is still geometry-correct, so 9.
        assert_eq!(code("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1g1"), 9);
        assert_eq!(code("4k3/8/8/8/8/8/8/4KB1R w K - 0 1", "e1g1"), 7);
        assert_eq!(code("r3k3/8/8/8/8/8/8/RN2K3 w Q - 0 1", "e1c1"), 7);
        assert_eq!(code("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1"), 0);
        assert_eq!(code("4k3/4r3/8/8/8/8/8/4K2R w K - 0 1", "e1g1"), 10);
        assert_eq!(code("4k3/5r2/8/8/8/8/8/4K2R w K - 0 1", "e1g1"), 11);
        assert_eq!(code("4k3/6r1/8/8/8/8/8/4K2R w K - 0 1", "e1g1"), 14);
        assert_eq!(code("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1"), 0);
        let castle = State::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
        assert_eq!(raw_code(&castle, 116, 118, 5), 13);
        // Promotions.
        let promo = State::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(raw_code(&promo, 17, 1, 0), 12);
        assert_eq!(raw_code(&promo, 17, 1, 1), 13);
        assert_eq!(raw_code(&promo, 17, 1, 6), 13);
        for role in 2..=5 {
            assert_eq!(raw_code(&promo, 17, 1, role), 0);
        }
        // En passant that uncovers a check along the rank.
        assert_eq!(code("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1", "e5d6"), 14);
        assert_eq!(code("8/8/8/K2pP3/8/8/8/4k3 w - d6 0 1", "e5d6"), 0);
        // Pinned piece, check not answered.
        assert_eq!(code("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "e2c3"), 14);
        assert_eq!(code("4k3/4r3/8/8/8/8/8/3QK3 w - - 0 1", "d1d2"), 14);
        assert_eq!(code("4k3/4r3/8/8/8/8/8/3QK3 w - - 0 1", "d1e2"), 0);
    }

    #[test]
    fn parse_move_reads_king_takes_rook_castling() {
        let state = State::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        assert_eq!(
            state.parse_move("e1h1").unwrap(),
            Move::from_uci("e1g1").unwrap()
        );
        assert_eq!(
            state.parse_move("e1a1").unwrap(),
            Move::from_uci("e1c1").unwrap()
        );
        assert_eq!(
            state.check(Move::from_uci("e1h1").unwrap()),
            Err(Rejection::OwnPieceOnTarget)
        );
        let no_right = State::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1").unwrap();
        assert!(matches!(
            no_right.parse_move("e1h1"),
            Err(SanError::Rejected {
                rejection: Rejection::OwnPieceOnTarget,
                ..
            })
        ));
    }
}
