//! The 128-byte state of ENCODING.md and the rules over it.

use std::fmt;
use std::str::FromStr;

use alloy_primitives::{B256, keccak256};

use crate::attacks::{
    DIAGONALS, KING_OFFSETS, KNIGHT_OFFSETS, ORTHOGONALS, QUEEN_DIRECTIONS, attacked, is_diagonal,
    is_king_step, is_knight_step, is_orthogonal, line_step, on_board,
};
use crate::error::{FenError, InvalidState, Rejection, SanError, StateError};
use crate::moves::{Move, RawMove};
use crate::position::{BISHOP, IMove, KING, KNIGHT, MoveList, PAWN, Position, QUEEN, ROOK};
use crate::square::{Color, Piece, Role, Square};

/// Exactly the 128 bytes of ENCODING.md (0x88 board plus shadow flags).
///
/// Always valid (section 7) when constructed through this API.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct State(pub(crate) [u8; 128]);

/// The game status for the side to move (ENCODING.md section 8).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Status {
    /// The game goes on.
    Ongoing = 0,
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can ever mate.
    InsufficientMaterial,
    /// 75 moves (150 plies) without a capture or pawn move.
    SeventyFiveMoves,
}

impl Status {
    /// The code 0..=4 of section 8.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The upper-case name (`"ONGOING"`, `"CHECKMATE"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ongoing => "ONGOING",
            Status::Checkmate => "CHECKMATE",
            Status::Stalemate => "STALEMATE",
            Status::InsufficientMaterial => "INSUFFICIENT_MATERIAL",
            Status::SeventyFiveMoves => "SEVENTY_FIVE_MOVES",
        }
    }

    /// The status with code `code`.
    pub const fn from_code(code: u8) -> Option<Status> {
        match code {
            0 => Some(Status::Ongoing),
            1 => Some(Status::Checkmate),
            2 => Some(Status::Stalemate),
            3 => Some(Status::InsufficientMaterial),
            4 => Some(Status::SeventyFiveMoves),
            _ => None,
        }
    }

    /// Whether the game has ended automatically (codes 1 to 4).
    pub const fn is_over(self) -> bool {
        !matches!(self, Status::Ongoing)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Indices of the shadow-board flags (ENCODING.md section 3).
pub(crate) mod idx {
    pub const MOVE_COUNT_HIGH: usize = 8;
    pub const MOVE_COUNT_LOW: usize = 9;
    pub const HALFMOVE_CLOCK: usize = 10;
    pub const BLACK_KING_POS: usize = 11;
    pub const WHITE_KING_POS: usize = 123;
    pub const CURRENT_PLAYER: usize = 56;
    pub const BLACK_LEFT_CASTLING: usize = 62;
    pub const BLACK_RIGHT_CASTLING: usize = 63;
    pub const WHITE_LEFT_CASTLING: usize = 78;
    pub const WHITE_RIGHT_CASTLING: usize = 79;
    pub const BLACK_EN_PASSANT: usize = 61;
    pub const WHITE_EN_PASSANT: usize = 77;
}

const INITIAL: [u8; 128] = {
    let mut b = [0u8; 128];
    let back = [4u8, 2, 3, 5, 6, 3, 2, 4];
    let mut f = 0;
    while f < 8 {
        b[f] = (back[f] as i8).wrapping_neg() as u8;
        b[16 + f] = 0xff;
        b[96 + f] = 1;
        b[112 + f] = back[f];
        f += 1;
    }
    b[idx::BLACK_KING_POS] = 4;
    b[idx::WHITE_KING_POS] = 116;
    b[idx::CURRENT_PLAYER] = 1;
    b
};

/// A legal move played: the move, the state after it, and whether it gives check.
pub(crate) struct Played {
    pub mv: Move,
    pub next: State,
    pub check: bool,
}

/// An off-board index standing for "no square".
const NO_SQUARE: u8 = 0x88;

/// Whether the king on `king` is attacked by side `by` on board `b`, where the
/// previous board had it unattacked (section 7: the waiting side is never in
/// check) and the move put `by` pieces on `placed` and emptied `vacated`. Only
/// a placed piece, or a slider whose line to the king crosses a vacated square,
/// can attack it now: the other pieces' attacks on the king did not change.
fn gives_check(b: &[u8; 128], king: u8, by: i8, placed: [u8; 2], vacated: [u8; 2]) -> bool {
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
                aligned && {
                    let d = line_step(sq, king).expect("aligned");
                    let mut t = sq.wrapping_add(d);
                    while t != king && b[t as usize] == 0 {
                        t = t.wrapping_add(d);
                    }
                    t == king
                }
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
        let mut t = king.wrapping_add(d);
        while on_board(t) && b[t as usize] == 0 {
            t = t.wrapping_add(d);
        }
        if on_board(t) {
            let p = b[t as usize] as i8 * by;
            if p == QUEEN || p == if is_diagonal(king, sq) { BISHOP } else { ROOK } {
                return true;
            }
        }
    }
    false
}

/// The kind of a move that passed the section 6 checks 1 to 13.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum MoveKind {
    Normal,
    DoubleStep,
    EnPassant,
    Castle { rook_from: u8, rook_to: u8 },
}

/// Does `bytes` (any 128 bytes) satisfy section 7? The first failing code, in order.
fn validate(b: &[u8; 128]) -> Result<(), InvalidState> {
    let at = |i: u8| b[i as usize] as i8;
    for sq in board_squares() {
        if !(-6..=6).contains(&at(sq)) {
            return Err(InvalidState::BadPieceCode);
        }
    }
    for (i, &v) in b.iter().enumerate() {
        if i & 8 == 0 {
            continue;
        }
        let ok = match i {
            idx::MOVE_COUNT_HIGH | idx::MOVE_COUNT_LOW => v <= 127,
            idx::HALFMOVE_CLOCK | idx::BLACK_KING_POS | idx::WHITE_KING_POS => true,
            idx::CURRENT_PLAYER => v == 0x01 || v == 0xff,
            idx::BLACK_LEFT_CASTLING
            | idx::BLACK_RIGHT_CASTLING
            | idx::WHITE_LEFT_CASTLING
            | idx::WHITE_RIGHT_CASTLING => v == 0 || v == 0xff,
            idx::BLACK_EN_PASSANT => v == 0 || (32..=39).contains(&v),
            idx::WHITE_EN_PASSANT => v == 0 || (80..=87).contains(&v),
            _ => v == 0,
        };
        if !ok {
            return Err(InvalidState::BadFlag);
        }
    }
    let (mut white_kings, mut black_kings) = (0, 0);
    for sq in board_squares() {
        match at(sq) {
            KING => white_kings += 1,
            -6 => black_kings += 1,
            _ => {}
        }
    }
    if white_kings != 1 || black_kings != 1 {
        return Err(InvalidState::KingCount);
    }
    let (wk, bk) = (b[idx::WHITE_KING_POS], b[idx::BLACK_KING_POS]);
    // An off-board king byte is in its flag domain (any byte) but points at no king.
    if !on_board(wk) || !on_board(bk) || at(wk) != KING || at(bk) != -KING {
        return Err(InvalidState::KingPosMismatch);
    }
    for f in 0..8u8 {
        if at(f).abs() == PAWN || at(112 + f).abs() == PAWN {
            return Err(InvalidState::PawnOnBackRank);
        }
    }
    let turn = b[idx::CURRENT_PLAYER] as i8;
    let waiting_king = if turn > 0 { bk } else { wk };
    if attacked(b, waiting_king, turn) {
        return Err(InvalidState::OpponentInCheck);
    }
    for (right, king_sq, rook_sq, sign) in [
        (idx::WHITE_LEFT_CASTLING, 116u8, 112u8, 1i8),
        (idx::WHITE_RIGHT_CASTLING, 116, 119, 1),
        (idx::BLACK_LEFT_CASTLING, 4, 0, -1),
        (idx::BLACK_RIGHT_CASTLING, 4, 7, -1),
    ] {
        if b[right] == 0 && (at(king_sq) != KING * sign || at(rook_sq) != ROOK * sign) {
            return Err(InvalidState::BadCastling);
        }
    }
    let (wep, bep) = (b[idx::WHITE_EN_PASSANT], b[idx::BLACK_EN_PASSANT]);
    if wep != 0 && bep != 0 {
        return Err(InvalidState::BadEnPassant);
    }
    if wep != 0
        && (turn != -1
            || !(80..=87).contains(&wep)
            || at(wep - 16) != PAWN
            || at(wep) != 0
            || at(wep + 16) != 0)
    {
        return Err(InvalidState::BadEnPassant);
    }
    if bep != 0
        && (turn != 1
            || !(32..=39).contains(&bep)
            || at(bep + 16) != -PAWN
            || at(bep) != 0
            || at(bep - 16) != 0)
    {
        return Err(InvalidState::BadEnPassant);
    }
    Ok(())
}

/// Section 7 validation of 128 bytes.
pub(crate) fn validate_bytes(b: &[u8; 128]) -> Result<(), InvalidState> {
    validate(b)
}

/// The 64 on-board 0x88 indices, a8 first.
pub(crate) fn board_squares() -> impl Iterator<Item = u8> {
    (0..64u8).map(|i| (i >> 3) << 4 | (i & 7))
}

/// The 64 on-board 0x88 indices, starting from `us`'s back rank (where its
/// pieces usually are).
fn board_squares_from(us: i8) -> impl Iterator<Item = u8> {
    (0..64u8).map(move |i| {
        let sq = (i >> 3) << 4 | (i & 7);
        if us > 0 { 119 - sq } else { sq }
    })
}

impl State {
    /// The standard initial position (section 4).
    pub fn initial() -> State {
        State(INITIAL)
    }

    /// Validates 128 bytes (length, then section 7 in code order).
    pub fn from_bytes(bytes: &[u8]) -> Result<State, StateError> {
        let array: [u8; 128] = bytes
            .try_into()
            .map_err(|_| StateError::BadLength(bytes.len()))?;
        validate(&array)?;
        Ok(State(array))
    }

    /// The 128 bytes.
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.0
    }

    /// Parses 256 hex digits (either case, optional `0x`) and validates them.
    pub fn from_hex(s: &str) -> Result<State, StateError> {
        let s = s.trim();
        let digits = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .unwrap_or(s);
        if !digits.is_ascii() {
            return Err(StateError::BadHex("not ASCII hex digits".into()));
        }
        if digits.len() != 256 {
            return Err(StateError::BadHex(format!(
                "expected 256 hex digits (128 bytes), got {} characters",
                digits.len()
            )));
        }
        let mut bytes = [0u8; 128];
        for (i, pair) in digits.as_bytes().chunks(2).enumerate() {
            let nibble = |c: u8| (c as char).to_digit(16);
            match (nibble(pair[0]), nibble(pair[1])) {
                (Some(h), Some(l)) => bytes[i] = (h * 16 + l) as u8,
                _ => {
                    return Err(StateError::BadHex(format!(
                        "invalid hex digit at position {}",
                        2 * i + if nibble(pair[0]).is_none() { 0 } else { 1 }
                    )));
                }
            }
        }
        State::from_bytes(&bytes)
    }

    /// 256 lower-case hex digits, no `0x`.
    pub fn to_hex(&self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut s = String::with_capacity(256);
        for &byte in &self.0 {
            s.push(DIGITS[(byte >> 4) as usize] as char);
            s.push(DIGITS[(byte & 15) as usize] as char);
        }
        s
    }

    /// Parses a FEN (section 5) into a validated state.
    ///
    /// Accepts the 6 standard fields or the first 4 (clocks then default to
    /// `0 1`). A fullmove number of 0 is read as 1; a halfmove clock above 255
    /// saturates at 255 as the byte does; a move count above 16383 plies is
    /// rejected. The castling and en-passant fields must describe the position
    /// (section 7), otherwise [`FenError::Invalid`] names the rule.
    pub fn from_fen(fen: &str) -> Result<State, FenError> {
        crate::fen::parse(fen)
    }

    /// The FEN of this state (section 5).
    pub fn fen(&self) -> String {
        crate::fen::format(self)
    }

    /// A board for terminals: ranks 8 to 1, files a to h, with the side to move.
    pub fn pretty(&self) -> String {
        let mut s = String::with_capacity(300);
        for row in 0..8u8 {
            s.push(char::from(b'8' - row));
            s.push(' ');
            for file in 0..8u8 {
                s.push(' ');
                s.push(
                    Piece::from_code(self.0[(row * 16 + file) as usize] as i8)
                        .map_or('.', Piece::char),
                );
            }
            s.push('\n');
        }
        s.push_str("   a b c d e f g h\n");
        s.push_str(match self.turn() {
            Color::White => "white to move",
            Color::Black => "black to move",
        });
        if self.in_check() {
            s.push_str(" (in check)");
        }
        s.push('\n');
        s
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        if self.0[idx::CURRENT_PLAYER] == 1 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Plies played since the standard initial position (bytes 8, 9).
    pub fn ply(&self) -> u16 {
        self.0[idx::MOVE_COUNT_HIGH] as u16 * 128 + self.0[idx::MOVE_COUNT_LOW] as u16
    }

    /// Plies since the last capture or pawn move (byte 10).
    pub fn halfmove_clock(&self) -> u8 {
        self.0[idx::HALFMOVE_CLOCK]
    }

    /// The fullmove number of FEN (`ply / 2 + 1`).
    pub fn fullmove_number(&self) -> u16 {
        self.ply() / 2 + 1
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.0[sq.index() as usize] as i8)
    }

    /// The square of `c`'s king (from the shadow bytes).
    pub fn king(&self, c: Color) -> Square {
        let byte = match c {
            Color::White => self.0[idx::WHITE_KING_POS],
            Color::Black => self.0[idx::BLACK_KING_POS],
        };
        Square::from_index_unchecked(byte)
    }

    /// The en-passant square (the one the last double step passed over), if set.
    pub fn en_passant_square(&self) -> Option<Square> {
        Square::new(self.0[idx::WHITE_EN_PASSANT] | self.0[idx::BLACK_EN_PASSANT])
            .filter(|sq| sq.index() != 0)
    }

    /// Whether `c` keeps its king-side (`king_side`) or queen-side castling right.
    pub fn has_castling_right(&self, c: Color, king_side: bool) -> bool {
        let i = match (c, king_side) {
            (Color::White, true) => idx::WHITE_RIGHT_CASTLING,
            (Color::White, false) => idx::WHITE_LEFT_CASTLING,
            (Color::Black, true) => idx::BLACK_RIGHT_CASTLING,
            (Color::Black, false) => idx::BLACK_LEFT_CASTLING,
        };
        self.0[i] == 0
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        let turn = self.0[idx::CURRENT_PLAYER] as i8;
        let king = if turn > 0 {
            self.0[idx::WHITE_KING_POS]
        } else {
            self.0[idx::BLACK_KING_POS]
        };
        attacked(&self.0, king, -turn)
    }

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
        if attacked(&board, king, -(self.0[idx::CURRENT_PLAYER] as i8)) {
            return Err(Rejection::KingLeftInCheck);
        }
        Ok(Move {
            from: Square::from_index_unchecked(raw.from),
            to: Square::from_index_unchecked(raw.to),
            promotion: Role::from_code(raw.promotion),
        })
    }

    /// Applies a move (section 5, byte for byte), or rejects it as [`State::check`] does.
    pub fn play(&self, mv: impl Into<RawMove>) -> Result<State, Rejection> {
        self.check_and_play(mv).map(|(_, next)| next)
    }

    /// [`State::check`] and [`State::play`] in one pass: the well-formed move and
    /// the state after it, or the section 6 rejection.
    pub fn check_and_play(&self, mv: impl Into<RawMove>) -> Result<(Move, State), Rejection> {
        self.check_and_play_known(mv.into(), false)
            .map(|played| (played.mv, played.next))
    }

    /// [`State::check_and_play`] for a caller that may know the side to move is
    /// not in check (`not_in_check`, e.g. from the status it computed): then a
    /// plain move of an unpinned piece other than the king cannot leave the king
    /// attacked, and the attack scan (check 14) is skipped. `false` always scans.
    /// Also tells whether the move gives check, found from the squares it changed.
    pub(crate) fn check_and_play_known(
        &self,
        raw: RawMove,
        not_in_check: bool,
    ) -> Result<Played, Rejection> {
        let kind = self.precheck(raw)?;
        let mut next = self.0;
        let king = self.apply_pieces(&mut next, raw, kind);
        let us = self.0[idx::CURRENT_PLAYER] as i8;
        let safe_by_pins = not_in_check
            && matches!(kind, MoveKind::Normal | MoveKind::DoubleStep)
            && king != raw.to
            && !self.is_pinned(raw.from, king, us);
        if !safe_by_pins && attacked(&next, king, -us) {
            return Err(Rejection::KingLeftInCheck);
        }
        next[idx::WHITE_EN_PASSANT] = 0;
        next[idx::BLACK_EN_PASSANT] = 0;
        let moved = self.0[raw.from as usize] as i8 * us;
        let captured = self.0[raw.to as usize] != 0 || kind == MoveKind::EnPassant;
        if moved == KING {
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
        next[idx::HALFMOVE_CLOCK] = if moved == PAWN || captured {
            0
        } else {
            self.0[idx::HALFMOVE_CLOCK].saturating_add(1)
        };
        let count = (self.ply() + 1).min(MAX_PLY);
        next[idx::MOVE_COUNT_HIGH] = (count >> 7) as u8;
        next[idx::MOVE_COUNT_LOW] = (count & 127) as u8;
        next[idx::CURRENT_PLAYER] = (-us) as u8;
        let mv = Move {
            from: Square::from_index_unchecked(raw.from),
            to: Square::from_index_unchecked(raw.to),
            promotion: Role::from_code(raw.promotion),
        };
        let their_king = if us > 0 {
            self.0[idx::BLACK_KING_POS]
        } else {
            self.0[idx::WHITE_KING_POS]
        };
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
        let check = gives_check(&next, their_king, us, placed, vacated);
        Ok(Played {
            mv,
            next: State(next),
            check,
        })
    }

    /// Section 6 checks 1 to 13, in order.
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
        if piece as i8 * us == KING {
            raw.to
        } else if us > 0 {
            self.0[idx::WHITE_KING_POS]
        } else {
            self.0[idx::BLACK_KING_POS]
        }
    }

    /// The status for the side to move (section 8).
    pub fn status(&self) -> Status {
        self.status_and_check().0
    }

    /// The status and whether the side to move is in check (one attack scan for both).
    pub(crate) fn status_and_check(&self) -> (Status, bool) {
        let checked = self.in_check();
        (self.status_given_check(checked), checked)
    }

    /// The status, given whether the side to move is in check ([`State::in_check`]).
    pub(crate) fn status_given_check(&self, checked: bool) -> Status {
        if !self.has_legal_move_given_check(checked) {
            return if checked {
                Status::Checkmate
            } else {
                Status::Stalemate
            };
        }
        if self.both_sides_insufficient() {
            return Status::InsufficientMaterial;
        }
        if self.halfmove_clock() >= 150 {
            return Status::SeventyFiveMoves;
        }
        Status::Ongoing
    }

    /// Whether the side to move has a legal move.
    pub fn has_legal_move(&self) -> bool {
        self.has_legal_move_given_check(self.in_check())
    }

    /// [`State::has_legal_move`] given [`State::in_check`] (`checked`).
    fn has_legal_move_given_check(&self, checked: bool) -> bool {
        // Usually one of the first pieces tried, each with one move its kind can
        // make (a step onto an empty or enemy square), settles it. Out of check, a
        // step by a piece other than the king is legal iff the piece is not pinned
        // (a ray walk from the king), so the king, whose steps need attack scans,
        // comes last. In check, king steps come first (the usual escape), then up to
        // four other pieces' steps, each legal iff it leaves the king safe.
        // Otherwise, generate.
        let b = &self.0;
        let us = b[idx::CURRENT_PLAYER] as i8;
        let king = if us > 0 {
            b[idx::WHITE_KING_POS]
        } else {
            b[idx::BLACK_KING_POS]
        };
        let free = |t: u8| on_board(t) && (b[t as usize] as i8) * us <= 0;
        let steps_of = |piece: i8| -> &'static [u8] {
            match piece {
                KNIGHT => &KNIGHT_OFFSETS,
                BISHOP => &DIAGONALS,
                ROOK => &ORTHOGONALS,
                QUEEN => &QUEEN_DIRECTIONS,
                _ => &[],
            }
        };
        if !checked {
            for from in board_squares_from(us) {
                let piece = b[from as usize] as i8 * us;
                if piece <= 0 || piece == KING {
                    continue;
                }
                let moves = if piece == PAWN {
                    // A single push (onto the last rank it promotes, which blocks the same).
                    b[from.wrapping_add((-16 * us) as u8) as usize] == 0
                } else {
                    steps_of(piece).iter().any(|&d| free(from.wrapping_add(d)))
                };
                if moves && !self.is_pinned(from, king, us) {
                    return true;
                }
            }
        }
        // King steps, tested with the king lifted so it cannot shield a square from a slider.
        let mut board = *b;
        board[king as usize] = 0;
        if KING_OFFSETS
            .iter()
            .map(|&d| king.wrapping_add(d))
            .any(|t| free(t) && !attacked(&board, t, -us))
        {
            return true;
        }
        board[king as usize] = b[king as usize];
        if checked {
            let mut tries = 0;
            for from in board_squares_from(us) {
                let piece = b[from as usize] as i8 * us;
                if piece <= 0 || piece == KING {
                    continue;
                }
                let to = if piece == PAWN {
                    Some(from.wrapping_add((-16 * us) as u8)).filter(|&t| b[t as usize] == 0)
                } else {
                    steps_of(piece)
                        .iter()
                        .map(|&d| from.wrapping_add(d))
                        .find(|&t| free(t))
                };
                let Some(to) = to else { continue };
                let (moved, captured) = (board[from as usize], board[to as usize]);
                board[to as usize] = moved;
                board[from as usize] = 0;
                let safe = !attacked(&board, king, -us);
                board[from as usize] = moved;
                board[to as usize] = captured;
                if safe {
                    return true;
                }
                tries += 1;
                if tries == 4 {
                    break;
                }
            }
        }
        Position::from_state(self).has_legal_move()
    }

    /// Whether our piece on `from` is pinned to our `king`: it is the first piece
    /// on a line from the king, and beyond it the first piece is an enemy slider
    /// moving along that line.
    fn is_pinned(&self, from: u8, king: u8, us: i8) -> bool {
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

    /// Section 8's "both sides have insufficient material", with a quick exit
    /// on the first pawn, rook or queen (the usual case).
    fn both_sides_insufficient(&self) -> bool {
        for sq in board_squares() {
            if matches!((self.0[sq as usize] as i8).abs(), PAWN | ROOK | QUEEN) {
                return false;
            }
        }
        self.has_insufficient_material(Color::White) && self.has_insufficient_material(Color::Black)
    }

    /// Whether side `c` alone has insufficient material (section 8; the
    /// semantics of shakmaty's `has_insufficient_material`).
    pub fn has_insufficient_material(&self, c: Color) -> bool {
        let sign = c.sign();
        let mut own_knights = 0;
        let mut own_bishops = 0;
        let mut own_pieces = 0;
        let mut opponent_minor_or_heavier = false;
        let mut any_pawn_or_knight = false;
        let mut bishop_squares = [false; 2];
        for sq in board_squares() {
            let p = self.0[sq as usize] as i8;
            if p == 0 {
                continue;
            }
            let role = p.abs();
            if p * sign > 0 {
                own_pieces += 1;
                match role {
                    PAWN | ROOK | QUEEN => return false,
                    KNIGHT => own_knights += 1,
                    BISHOP => own_bishops += 1,
                    _ => {}
                }
            } else if role != KING && role != QUEEN {
                opponent_minor_or_heavier = true;
            }
            if role == PAWN || role == KNIGHT {
                any_pawn_or_knight = true;
            }
            if role == BISHOP {
                let dark = ((sq & 7) + (7 - (sq >> 4))) % 2 == 0;
                bishop_squares[dark as usize] = true;
            }
        }
        if own_knights > 0 {
            return own_pieces <= 2 && !opponent_minor_or_heavier;
        }
        if own_bishops > 0 {
            let one_square_colour = !(bishop_squares[0] && bishop_squares[1]);
            return one_square_colour && !any_pawn_or_knight;
        }
        true
    }

    /// The repetition key (section 9): keccak256 of the bytes with the move
    /// count and halfmove clock zeroed, and the en-passant byte zeroed unless
    /// the side to move has a legal en-passant capture.
    pub fn repetition_key(&self) -> B256 {
        let mut bytes = self.0;
        bytes[idx::MOVE_COUNT_HIGH] = 0;
        bytes[idx::MOVE_COUNT_LOW] = 0;
        bytes[idx::HALFMOVE_CLOCK] = 0;
        if !self.has_legal_en_passant() {
            bytes[idx::WHITE_EN_PASSANT] = 0;
            bytes[idx::BLACK_EN_PASSANT] = 0;
        }
        keccak256(bytes)
    }

    /// Whether the side to move can legally capture en passant.
    pub fn has_legal_en_passant(&self) -> bool {
        let us = self.0[idx::CURRENT_PLAYER] as i8;
        let ep = if us > 0 {
            self.0[idx::BLACK_EN_PASSANT]
        } else {
            self.0[idx::WHITE_EN_PASSANT]
        };
        if ep == 0 {
            return false;
        }
        // Our pawns that could capture onto ep stand one row behind it, one file aside.
        let row = ep.wrapping_add((16 * us) as u8);
        [row.wrapping_sub(1), row.wrapping_add(1)]
            .into_iter()
            .any(|from| {
                on_board(from)
                    && self.0[from as usize] as i8 == PAWN * us
                    && self
                        .check(RawMove {
                            from,
                            to: ep,
                            promotion: 0,
                        })
                        .is_ok()
            })
    }

    /// The SAN of a legal move (`Nf3`, `exd5`, `O-O`, `e8=Q+`, `Qh4#`).
    pub fn san(&self, mv: Move) -> Result<String, Rejection> {
        crate::san::format(self, mv)
    }

    /// Parses SAN against the legal moves (accepts `0-0`, `e8Q`, `+ # ! ?` suffixes).
    pub fn parse_san(&self, san: &str) -> Result<Move, SanError> {
        crate::san::parse(self, san)
    }

    /// Parses a move in UCI or SAN and checks that it is legal.
    ///
    /// Castling written king-takes-own-rook (`e1h1`, as lichess and UCI_Chess960
    /// do) is read as the king's two-square move (`e1g1`) when that is legal;
    /// the returned move, like every [`Move`] here, uses the two-square form.
    pub fn parse_move(&self, s: &str) -> Result<Move, SanError> {
        self.parse_move_and_play(s, false).map(|played| played.mv)
    }

    /// [`State::parse_move`] and the state after the move, in one legality check
    /// (`not_in_check` as for [`State::check_and_play_known`]).
    pub(crate) fn parse_move_and_play(
        &self,
        s: &str,
        not_in_check: bool,
    ) -> Result<Played, SanError> {
        let text = s.trim();
        // UCI is two squares and an optional promotion: skip the UCI parse (and its
        // error allocation) for every other text.
        let uci_like = matches!(text.as_bytes(), [b'a'..=b'h', b'1'..=b'8', b'a'..=b'h', b'1'..=b'8', ..] if text.len() <= 5);
        if let Some(mv) = uci_like.then(|| Move::from_uci(text).ok()).flatten() {
            return self
                .check_and_play_known(mv.into(), not_in_check)
                .or_else(|rejection| {
                    let castling = self
                        .king_takes_rook_castling(mv)
                        .and_then(|c| self.check_and_play_known(c.into(), false).ok());
                    castling.ok_or_else(|| SanError::Rejected {
                        uci: text.to_owned(),
                        rejection,
                    })
                });
        }
        crate::san::parse_and_play(self, text, not_in_check)
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

/// The largest move count the two count bytes hold.
pub(crate) const MAX_PLY: u16 = 16383;

pub(crate) fn to_move(m: IMove) -> Move {
    Move {
        from: Square::from_index_unchecked(m.from),
        to: Square::from_index_unchecked(m.to),
        promotion: Role::from_code(m.promotion),
    }
}

impl Default for State {
    fn default() -> State {
        State::initial()
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

impl FromStr for State {
    type Err = FenError;

    /// FEN, or 256 hex digits (an optional `0x`); an invalid hex state is
    /// reported as [`FenError::Invalid`] with its section 7 code.
    fn from_str(s: &str) -> Result<State, FenError> {
        let t = s.trim();
        let digits = t
            .strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .unwrap_or(t);
        if digits.len() == 256 && digits.bytes().all(|c| c.is_ascii_hexdigit()) {
            return State::from_hex(digits).map_err(|e| match e {
                StateError::Invalid(code) => FenError::Invalid(code),
                // 256 hex digits always make 128 bytes.
                StateError::BadLength(_) | StateError::BadHex(_) => FenError::FieldCount(1),
            });
        }
        State::from_fen(s)
    }
}

impl TryFrom<&[u8]> for State {
    type Error = StateError;

    fn try_from(bytes: &[u8]) -> Result<State, StateError> {
        State::from_bytes(bytes)
    }
}

impl AsRef<[u8]> for State {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[index] before->after` for every byte that differs.
    fn diff(before: &State, after: &State) -> Vec<(usize, u8, u8)> {
        (0..128)
            .filter(|&i| before.0[i] != after.0[i])
            .map(|i| (i, before.0[i], after.0[i]))
            .collect()
    }

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
                let full = state.check_and_play_known(mv.into(), false).unwrap();
                let hinted = state.check_and_play_known(mv.into(), not_in_check).unwrap();
                assert_eq!(full.next, hinted.next);
                assert_eq!(full.check, full.next.in_check(), "{} {mv}", state.fen());
                assert_eq!(hinted.check, full.check);
                *moves += 1;
                if depth > 1 {
                    walk(&full.next, depth - 1, moves);
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
    fn initial_state_matches_section_4() {
        let rows = [
            "fc fe fd fb fa fd fe fc  00 00 00 04 00 00 00 00",
            "ff ff ff ff ff ff ff ff  00 00 00 00 00 00 00 00",
            "00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
            "00 00 00 00 00 00 00 00  01 00 00 00 00 00 00 00",
            "00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
            "00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
            "01 01 01 01 01 01 01 01  00 00 00 00 00 00 00 00",
            "04 02 03 05 06 03 02 04  00 00 00 74 00 00 00 00",
        ];
        let hex: String = rows.concat().split_whitespace().collect();
        assert_eq!(State::initial().to_hex(), hex);
        assert_eq!(
            State::from_hex(&format!("0x{hex}")).unwrap(),
            State::initial()
        );
    }

    /// A move in UCI and the bytes it changes.
    type ByteChanges<'a> = (&'a str, &'a [(usize, u8, u8)]);

    #[test]
    fn worked_examples_of_section_10() {
        let expected: [ByteChanges; 7] = [
            (
                "e2e4",
                &[
                    (9, 0x00, 0x01),
                    (56, 0x01, 0xff),
                    (68, 0x00, 0x01),
                    (77, 0x00, 0x54),
                    (100, 0x01, 0x00),
                ],
            ),
            (
                "c7c5",
                &[
                    (9, 0x01, 0x02),
                    (18, 0xff, 0x00),
                    (50, 0x00, 0xff),
                    (56, 0xff, 0x01),
                    (61, 0x00, 0x22),
                    (77, 0x54, 0x00),
                ],
            ),
            (
                "g1f3",
                &[
                    (9, 0x02, 0x03),
                    (10, 0x00, 0x01),
                    (56, 0x01, 0xff),
                    (61, 0x22, 0x00),
                    (85, 0x00, 0x02),
                    (118, 0x02, 0x00),
                ],
            ),
            (
                "d7d6",
                &[
                    (9, 0x03, 0x04),
                    (10, 0x01, 0x00),
                    (19, 0xff, 0x00),
                    (35, 0x00, 0xff),
                    (56, 0xff, 0x01),
                ],
            ),
            (
                "f1b5",
                &[
                    (9, 0x04, 0x05),
                    (10, 0x00, 0x01),
                    (49, 0x00, 0x03),
                    (56, 0x01, 0xff),
                    (117, 0x03, 0x00),
                ],
            ),
            (
                "c8d7",
                &[
                    (2, 0xfd, 0x00),
                    (9, 0x05, 0x06),
                    (10, 0x01, 0x02),
                    (19, 0x00, 0xfd),
                    (56, 0xff, 0x01),
                ],
            ),
            (
                "e1g1",
                &[
                    (9, 0x06, 0x07),
                    (10, 0x02, 0x03),
                    (56, 0x01, 0xff),
                    (78, 0x00, 0xff),
                    (79, 0x00, 0xff),
                    (116, 0x06, 0x00),
                    (117, 0x00, 0x04),
                    (118, 0x00, 0x06),
                    (119, 0x04, 0x00),
                    (123, 0x74, 0x76),
                ],
            ),
        ];
        let mut state = State::initial();
        for (uci, bytes) in expected {
            let next = play_uci(&state, uci);
            assert_eq!(diff(&state, &next), bytes, "after {uci}");
            assert_eq!(State::from_bytes(next.as_bytes()), Ok(next));
            state = next;
        }
        assert_eq!(
            state.fen(),
            "rn1qkbnr/pp1bpppp/3p4/1Bp5/4P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 3 4"
        );

        let underpromotion = State::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(
            diff(&underpromotion, &play_uci(&underpromotion, "b7b8n")),
            [
                (1, 0x00, 0x02),
                (9, 0x00, 0x01),
                (17, 0x01, 0x00),
                (56, 0x01, 0xff)
            ]
        );
        let en_passant =
            State::from_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3")
                .unwrap();
        assert_eq!(
            diff(&en_passant, &play_uci(&en_passant, "d4e3")),
            [
                (9, 0x05, 0x06),
                (56, 0xff, 0x01),
                (67, 0xff, 0x00),
                (68, 0x01, 0x00),
                (77, 0x54, 0x00),
                (84, 0x00, 0xff)
            ]
        );
        let corner = State::from_fen("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1").unwrap();
        assert_eq!(
            diff(&corner, &play_uci(&corner, "g2h1")),
            [
                (9, 0x01, 0x02),
                (56, 0xff, 0x01),
                (79, 0x00, 0xff),
                (102, 0xfd, 0x00),
                (119, 0x04, 0xfd)
            ]
        );
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
    fn invalid_states_report_the_first_failing_code() {
        let base = *State::initial().as_bytes();
        let with = |changes: &[(usize, u8)]| {
            let mut b = base;
            for &(i, v) in changes {
                b[i] = v;
            }
            State::from_bytes(&b).err()
        };
        let invalid = |code: InvalidState| Some(StateError::Invalid(code));
        assert_eq!(
            State::from_bytes(&base[..127]),
            Err(StateError::BadLength(127))
        );
        assert_eq!(with(&[(36, 7)]), invalid(InvalidState::BadPieceCode));
        assert_eq!(
            with(&[(36, 0xf9), (12, 1)]),
            invalid(InvalidState::BadPieceCode)
        );
        assert_eq!(with(&[(12, 1)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(9, 128)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(56, 0)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(77, 0x44)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(78, 1)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(36, 6)]), invalid(InvalidState::KingCount));
        assert_eq!(with(&[(40, 6)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(123, 115)]), invalid(InvalidState::KingPosMismatch));
        assert_eq!(with(&[(11, 8)]), invalid(InvalidState::KingPosMismatch));
        assert_eq!(with(&[(113, 1)]), invalid(InvalidState::PawnOnBackRank));
        assert_eq!(with(&[(21, 0), (37, 5)]), None);
        assert_eq!(
            with(&[(101, 0), (71, 0xfb), (56, 0xff)]),
            invalid(InvalidState::OpponentInCheck)
        );
        assert_eq!(with(&[(101, 0), (71, 0xfb)]), None);
        assert_eq!(with(&[(119, 0)]), invalid(InvalidState::BadCastling));
        assert_eq!(with(&[(119, 0), (79, 0xff)]), None);
        assert_eq!(with(&[(77, 84)]), invalid(InvalidState::BadEnPassant));
        assert_eq!(with(&[(77, 84), (56, 0xff), (100, 0), (68, 1)]), None);
        assert_eq!(
            with(&[(77, 84), (61, 34), (56, 0xff), (100, 0), (68, 1)]),
            invalid(InvalidState::BadEnPassant)
        );
        assert!(matches!(State::from_hex("zz"), Err(StateError::BadHex(_))));
    }

    #[test]
    fn status_and_material() {
        let status = |fen: &str| State::from_fen(fen).unwrap().status();
        assert_eq!(
            status("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),
            Status::Checkmate
        );
        assert_eq!(status("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), Status::Stalemate);
        assert_eq!(
            status("7k/8/6K1/8/8/8/8/8 b - - 0 1"),
            Status::InsufficientMaterial
        );
        assert_eq!(
            status("7k/8/6K1/8/8/8/8/6N1 b - - 0 1"),
            Status::InsufficientMaterial
        );
        assert_eq!(status("7k/8/6K1/8/8/8/8/5BB1 b - - 0 1"), Status::Ongoing);
        assert_eq!(
            status("7k/8/6K1/8/8/8/8/4B1B1 b - - 0 1"),
            Status::InsufficientMaterial
        );
        assert_eq!(
            status("7k/p7/6K1/8/8/8/8/6R1 b - - 150 90"),
            Status::SeventyFiveMoves
        );
        assert_eq!(
            status("7k/p7/6K1/8/8/8/8/6R1 b - - 149 90"),
            Status::Ongoing
        );
        let knight_vs_queen = State::from_fen("7k/8/6K1/8/8/8/8/5NQ1 b - - 0 1").unwrap();
        assert!(knight_vs_queen.has_insufficient_material(Color::Black));
        assert!(!knight_vs_queen.has_insufficient_material(Color::White));
        let knight_vs_knight = State::from_fen("6nk/8/6K1/8/8/8/8/5N2 b - - 0 1").unwrap();
        assert!(!knight_vs_knight.has_insufficient_material(Color::White));
        assert_eq!(knight_vs_knight.status(), Status::Ongoing);
    }

    #[test]
    fn repetition_key_ignores_clocks_and_unusable_en_passant() {
        let a = State::from_fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1").unwrap();
        let b = State::from_fen("4k3/8/8/8/4P3/8/8/4K3 b - - 7 30").unwrap();
        assert_eq!(a.repetition_key(), b.repetition_key());
        let c = State::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").unwrap();
        let d = State::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").unwrap();
        assert!(c.has_legal_en_passant());
        assert_ne!(c.repetition_key(), d.repetition_key());
        // The en-passant capture would expose the black king on the rank: not legal, key ignores it.
        let e = State::from_fen("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1").unwrap();
        let f = State::from_fen("8/8/8/8/k2pP2R/8/8/4K3 b - - 0 1").unwrap();
        assert!(!e.has_legal_en_passant());
        assert_eq!(e.repetition_key(), f.repetition_key());
        assert_eq!(
            a.repetition_key(),
            keccak256({
                let mut bytes = *b.as_bytes();
                bytes[8] = 0;
                bytes[9] = 0;
                bytes[10] = 0;
                bytes
            })
        );
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

    #[test]
    fn hex_and_fen_parse_through_from_str() {
        let hex = State::initial().to_hex();
        assert_eq!(hex.parse::<State>().unwrap(), State::initial());
        assert_eq!(
            State::initial().to_string().parse::<State>().unwrap(),
            State::initial()
        );
        assert!(State::initial().pretty().contains("r n b q k b n r"));
    }
}
