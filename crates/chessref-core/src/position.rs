//! The fast internal position: the 0x88 board of the state plus piece lists,
//! legal move generation (pins and checks computed from the king) and
//! make/unmake. `State` stays the 128-byte public type; move generation,
//! status and perft convert to this form.

use crate::attacks::{
    DIAGONAL_BIT, DIAGONALS, KING_OFFSETS, KNIGHT_OFFSETS, ORTHOGONAL_BIT, ORTHOGONALS,
    QUEEN_DIRECTIONS, attacked, is_king_step, is_knight_step, line_kinds, line_step, on_board,
};
use crate::piece_code::{BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK};
use crate::state::{State, idx};

/// Castling-right bits of [`Position::castling`].
pub(crate) const WHITE_KING_SIDE: u8 = 1;
pub(crate) const WHITE_QUEEN_SIDE: u8 = 2;
pub(crate) const BLACK_KING_SIDE: u8 = 4;
pub(crate) const BLACK_QUEEN_SIDE: u8 = 8;

/// Rights lost when a move leaves or lands on a square (king homes and rook corners),
/// as a table: one load per square in `make` instead of a chain of comparisons.
const RIGHTS_CLEARED: [u8; 128] = {
    let mut t = [0u8; 128];
    t[116] = WHITE_KING_SIDE | WHITE_QUEEN_SIDE;
    t[119] = WHITE_KING_SIDE;
    t[112] = WHITE_QUEEN_SIDE;
    t[4] = BLACK_KING_SIDE | BLACK_QUEEN_SIDE;
    t[7] = BLACK_KING_SIDE;
    t[0] = BLACK_QUEEN_SIDE;
    t
};

/// The slider lists (bishops, rooks, queens) and the lines each moves along.
const SLIDER_LINES: [(usize, u8); 3] = [
    (2, DIAGONAL_BIT),
    (3, ORTHOGONAL_BIT),
    (4, DIAGONAL_BIT | ORTHOGONAL_BIT),
];

/// A bit per 0x88 index, for block/capture and pin-ray target masks.
#[inline(always)]
pub(crate) const fn bit(sq: u8) -> u128 {
    1u128 << sq
}

/// Index of a colour sign (1 white, -1 black) into per-side arrays.
#[inline(always)]
pub(crate) const fn side(color: i8) -> usize {
    (color < 0) as usize
}

/// Receives generated legal moves.
pub(crate) trait Sink {
    /// A move without promotion.
    fn push(&mut self, from: u8, to: u8);
    /// A pawn move onto the last rank: the four promotions.
    fn push_promotions(&mut self, from: u8, to: u8);
    /// Whether generation may stop now (a question already answered).
    #[inline(always)]
    fn satisfied(&self) -> bool {
        false
    }
}

/// Answers "is there any legal move?", stopping at the first.
pub(crate) struct AnyMove(pub bool);

impl Sink for AnyMove {
    #[inline(always)]
    fn push(&mut self, _: u8, _: u8) {
        self.0 = true;
    }
    #[inline(always)]
    fn push_promotions(&mut self, _: u8, _: u8) {
        self.0 = true;
    }
    #[inline(always)]
    fn satisfied(&self) -> bool {
        self.0
    }
}

/// Counts moves (perft's bulk counting at the last ply).
pub(crate) struct Counter(pub u64);

impl Sink for Counter {
    #[inline(always)]
    fn push(&mut self, _: u8, _: u8) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_promotions(&mut self, _: u8, _: u8) {
        self.0 += 4;
    }
}

/// An internal move: squares as 0x88 indices, promotion as a role code (0 none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct IMove {
    pub from: u8,
    pub to: u8,
    pub promotion: u8,
}

/// A growable move list. Arbitrary valid states (section 7 does not bound
/// piece counts) can have far more than the 218 moves of real games.
pub(crate) type MoveList = Vec<IMove>;

impl Sink for Vec<IMove> {
    #[inline(always)]
    fn push(&mut self, from: u8, to: u8) {
        Vec::push(
            self,
            IMove {
                from,
                to,
                promotion: 0,
            },
        );
    }
    #[inline(always)]
    fn push_promotions(&mut self, from: u8, to: u8) {
        for promotion in [QUEEN, ROOK, BISHOP, KNIGHT] {
            Vec::push(
                self,
                IMove {
                    from,
                    to,
                    promotion: promotion as u8,
                },
            );
        }
    }
}

/// What [`Position::make`] needs to undo a move.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Undo {
    captured: i8,
    captured_sq: u8,
    moved: i8,
    castling: u8,
    ep: u8,
    halfmove: u8,
}

/// The working position (see the module docs).
#[derive(Clone)]
pub(crate) struct Position {
    /// 0x88 board; only on-board indices are read.
    pub board: [i8; 128],
    /// Side to move: 1 white, -1 black.
    pub turn: i8,
    /// King squares, `[white, black]`.
    pub kings: [u8; 2],
    /// Castling-right bits (`WHITE_KING_SIDE` ...).
    pub castling: u8,
    /// The square the last double step passed over, 0 if none.
    pub ep: u8,
    /// Halfmove clock (saturating).
    pub halfmove: u8,
    /// Squares of each side's pieces other than the king, one list per role
    /// (`[side][role - 1]`, pawn to queen) so generation loops need no dispatch.
    /// Any number fits: states from outside need not come from a game.
    list: [[[u8; 64]; 5]; 2],
    count: [[u8; 5]; 2],
    /// Position of each occupied square in its list.
    index: [u8; 128],
}

impl Position {
    pub fn from_state(state: &State) -> Position {
        let bytes = state.as_bytes();
        let mut pos = Position {
            board: [0; 128],
            turn: bytes[idx::CURRENT_PLAYER] as i8,
            kings: [bytes[idx::WHITE_KING_POS], bytes[idx::BLACK_KING_POS]],
            castling: 0,
            ep: bytes[idx::WHITE_EN_PASSANT] | bytes[idx::BLACK_EN_PASSANT],
            halfmove: bytes[idx::HALFMOVE_CLOCK],
            list: [[[0; 64]; 5]; 2],
            count: [[0; 5]; 2],
            index: [0; 128],
        };
        for (bit, byte) in [
            (WHITE_KING_SIDE, idx::WHITE_RIGHT_CASTLING),
            (WHITE_QUEEN_SIDE, idx::WHITE_LEFT_CASTLING),
            (BLACK_KING_SIDE, idx::BLACK_RIGHT_CASTLING),
            (BLACK_QUEEN_SIDE, idx::BLACK_LEFT_CASTLING),
        ] {
            if bytes[byte] == 0 {
                pos.castling |= bit;
            }
        }
        for sq in 0..128u8 {
            if !on_board(sq) {
                continue;
            }
            let p = bytes[sq as usize] as i8;
            pos.board[sq as usize] = p;
            if p != 0 && p.abs() != KING {
                pos.add_to_list(side(p), p.abs(), sq);
            }
        }
        pos
    }

    #[inline(always)]
    fn remove_from_list(&mut self, s: usize, role: i8, sq: u8) {
        let r = (role - 1) as usize;
        let i = self.index[sq as usize];
        let last = self.count[s][r] - 1;
        let moved = self.list[s][r][last as usize];
        self.list[s][r][i as usize] = moved;
        self.index[moved as usize] = i;
        self.count[s][r] = last;
    }

    #[inline(always)]
    fn add_to_list(&mut self, s: usize, role: i8, sq: u8) {
        let r = (role - 1) as usize;
        let n = self.count[s][r];
        self.list[s][r][n as usize] = sq;
        self.index[sq as usize] = n;
        self.count[s][r] = n + 1;
    }

    #[inline(always)]
    fn relocate_in_list(&mut self, s: usize, role: i8, from: u8, to: u8) {
        let i = self.index[from as usize];
        self.list[s][(role - 1) as usize][i as usize] = to;
        self.index[to as usize] = i;
    }

    /// Whether `sq` is attacked by side `by`, from `by`'s piece lists and the
    /// 0x88 difference table (usually a handful of lookups; the board decides
    /// blockers). Same answer as [`attacked`] on `self.board`.
    #[inline(always)]
    fn attacked_by(&self, sq: u8, by: i8) -> bool {
        let pawn_row = sq.wrapping_add((16 * by) as u8);
        for t in [pawn_row.wrapping_sub(1), pawn_row.wrapping_add(1)] {
            if on_board(t) && self.board[t as usize] == PAWN * by {
                return true;
            }
        }
        let s = side(by);
        if is_king_step(self.kings[s], sq) {
            return true;
        }
        for &n in &self.list[s][1][..self.count[s][1] as usize] {
            if is_knight_step(n, sq) {
                return true;
            }
        }
        for (r, kinds) in SLIDER_LINES {
            for &from in &self.list[s][r][..self.count[s][r] as usize] {
                if line_kinds(from, sq) & kinds != 0 {
                    let d = line_step(from, sq).expect("aligned squares have a step");
                    let mut t = from.wrapping_add(d);
                    while t != sq && self.board[t as usize] == 0 {
                        t = t.wrapping_add(d);
                    }
                    if t == sq {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Generates every legal move of the side to move into `sink`.
    pub fn generate<S: Sink>(&mut self, sink: &mut S) {
        // Monomorphised per side so colour tests fold into constant comparisons.
        if self.turn > 0 {
            self.generate_side::<S, true>(sink)
        } else {
            self.generate_side::<S, false>(sink)
        }
    }

    #[inline(always)]
    fn generate_side<S: Sink, const WHITE: bool>(&mut self, sink: &mut S) {
        let us: i8 = if WHITE { 1 } else { -1 };
        let them = -us;
        let ksq = self.kings[side(us)];

        // Checkers and pins, found by looking outwards from our king. Pinned
        // pieces are rare, so only their squares and pin directions are kept.
        let mut checkers = 0u32;
        let mut check_mask: u128 = 0;
        let mut pinned: u128 = 0;
        let mut pins = [(0u8, 0u8); 8];
        let mut pin_count = 0usize;
        // Only lines on which an enemy slider stands can hold a check or a pin:
        // the 0x88 difference table finds them from the enemy slider lists.
        let mut lines = [0u8; 8];
        let mut line_count = 0usize;
        let enemy = side(them);
        for (r, kinds) in SLIDER_LINES {
            for &sq in &self.list[enemy][r][..self.count[enemy][r] as usize] {
                if line_kinds(ksq, sq) & kinds != 0 {
                    let d = line_step(ksq, sq).expect("aligned squares have a step");
                    if !lines[..line_count].contains(&d) {
                        lines[line_count] = d;
                        line_count += 1;
                    }
                }
            }
        }
        for &d in &lines[..line_count] {
            let diagonal = matches!(d as i8, -17 | -15 | 15 | 17);
            let slider = if diagonal { BISHOP * them } else { ROOK * them };
            let queen = QUEEN * them;
            let mut t = ksq.wrapping_add(d);
            while on_board(t) && self.board[t as usize] == 0 {
                t = t.wrapping_add(d);
            }
            if !on_board(t) {
                continue;
            }
            let p = self.board[t as usize];
            if p * us < 0 {
                if p == slider || p == queen {
                    checkers += 1;
                    let mut r = ksq.wrapping_add(d);
                    loop {
                        check_mask |= bit(r);
                        if r == t {
                            break;
                        }
                        r = r.wrapping_add(d);
                    }
                }
                continue;
            }
            let own = t;
            t = t.wrapping_add(d);
            while on_board(t) && self.board[t as usize] == 0 {
                t = t.wrapping_add(d);
            }
            if on_board(t) && (self.board[t as usize] == slider || self.board[t as usize] == queen)
            {
                pinned |= bit(own);
                pins[pin_count] = (own, d);
                pin_count += 1;
            }
        }
        // From the enemy knight list: usually two difference-table lookups, not eight squares.
        for &n in &self.list[enemy][1][..self.count[enemy][1] as usize] {
            if is_knight_step(n, ksq) {
                checkers += 1;
                check_mask |= bit(n);
            }
        }
        // An enemy pawn attacking our king stands one row towards us from the king's view.
        let pawn_row = ksq.wrapping_add((-16 * us) as u8);
        for t in [pawn_row.wrapping_sub(1), pawn_row.wrapping_add(1)] {
            if on_board(t) && self.board[t as usize] == PAWN * them {
                checkers += 1;
                check_mask |= bit(t);
            }
        }

        // King steps, tested with the king lifted so it cannot shield a square from a slider.
        // The safe steps are remembered: castling crosses the squares beside the king.
        self.board[ksq as usize] = 0;
        let mut safe_steps = 0u8;
        for (i, &off) in KING_OFFSETS.iter().enumerate() {
            let t = ksq.wrapping_add(off);
            if on_board(t) && self.board[t as usize] * us <= 0 && !self.attacked_by(t, them) {
                safe_steps |= 1 << i;
                sink.push(ksq, t);
            }
        }
        self.board[ksq as usize] = KING * us;
        if sink.satisfied() {
            return;
        }

        match checkers {
            0 => {
                self.castlings::<S, WHITE>(sink, safe_steps);
                if pinned == 0 {
                    self.generate_pieces::<S, false, WHITE, false>(sink, !0, 0, &[]);
                } else {
                    self.generate_pieces::<S, false, WHITE, true>(
                        sink,
                        !0,
                        pinned,
                        &pins[..pin_count],
                    );
                }
            }
            1 => self.generate_pieces::<S, true, WHITE, true>(
                sink,
                check_mask,
                pinned,
                &pins[..pin_count],
            ),
            _ => {}
        }
    }

    /// Moves of the pieces other than the king. With `MASKED` (in check), only
    /// targets in `mask` (capture the checker or block) are generated.
    #[inline(always)]
    /// `PINS` false promises that no piece is pinned (most positions), so the
    /// pin tests compile away.
    fn generate_pieces<S: Sink, const MASKED: bool, const WHITE: bool, const PINS: bool>(
        &mut self,
        sink: &mut S,
        mask: u128,
        pinned: u128,
        pins: &[(u8, u8)],
    ) {
        let us: i8 = if WHITE { 1 } else { -1 };
        let s = side(us);
        let ksq = self.kings[s];
        let fwd = (-16 * us) as u8;
        let start_row = if us > 0 { 6 } else { 1 };
        let last_row = if us > 0 { 0 } else { 7 };
        let ep = self.ep;
        // A pinned piece stays on the line from its king through itself: 0 if free,
        // else the pin direction.
        let pin_of = |from: u8| -> u8 {
            if PINS && pinned != 0 && pinned & bit(from) != 0 {
                pins.iter()
                    .find(|&&(sq, _)| sq == from)
                    .map_or(0, |&(_, d)| d)
            } else {
                0
            }
        };
        let allowed = |t: u8, pin: u8| -> bool {
            (!MASKED || mask & bit(t) != 0) && (!PINS || pin == 0 || line_step(ksq, t) == Some(pin))
        };

        for n in 0..self.count[s][0] as usize {
            let from = self.list[s][0][n];
            let pin = pin_of(from);
            let t = from.wrapping_add(fwd);
            let promotes = t >> 4 == last_row;
            if self.board[t as usize] == 0 {
                if allowed(t, pin) {
                    if promotes {
                        sink.push_promotions(from, t);
                    } else {
                        sink.push(from, t);
                    }
                }
                let t2 = t.wrapping_add(fwd);
                if from >> 4 == start_row && self.board[t2 as usize] == 0 && allowed(t2, pin) {
                    sink.push(from, t2);
                }
            }
            for c in [t.wrapping_sub(1), t.wrapping_add(1)] {
                if !on_board(c) {
                    continue;
                }
                if self.board[c as usize] * us < 0 && allowed(c, pin) {
                    if promotes {
                        sink.push_promotions(from, c);
                    } else {
                        sink.push(from, c);
                    }
                }
            }
        }
        // En passant, found from its square (at most two pawns can take there)
        // rather than tested for every pawn.
        if ep != 0 {
            let behind = ep.wrapping_sub(fwd);
            for from in [behind.wrapping_sub(1), behind.wrapping_add(1)] {
                if on_board(from)
                    && self.board[from as usize] == PAWN * us
                    && self.en_passant_is_legal(from, ep)
                {
                    sink.push(from, ep);
                }
            }
        }
        if sink.satisfied() {
            return;
        }

        for n in 0..self.count[s][1] as usize {
            let from = self.list[s][1][n];
            if pin_of(from) != 0 {
                continue;
            }
            for &off in &KNIGHT_OFFSETS {
                let t = from.wrapping_add(off);
                if on_board(t)
                    && self.board[t as usize] * us <= 0
                    && (!MASKED || mask & bit(t) != 0)
                {
                    sink.push(from, t);
                }
            }
        }

        // One call per slider role, so each direction loop has a constant length.
        if self.slides::<S, MASKED, WHITE, PINS, 4>(sink, 2, &DIAGONALS, mask, &pin_of) {
            return;
        }
        if self.slides::<S, MASKED, WHITE, PINS, 4>(sink, 3, &ORTHOGONALS, mask, &pin_of) {
            return;
        }
        self.slides::<S, MASKED, WHITE, PINS, 8>(sink, 4, &QUEEN_DIRECTIONS, mask, &pin_of);
    }

    /// Moves of our sliders of list `r` along `dirs` (see [`Position::generate_pieces`]);
    /// true when the sink is satisfied and generation stops.
    #[inline(always)]
    fn slides<S: Sink, const MASKED: bool, const WHITE: bool, const PINS: bool, const N: usize>(
        &self,
        sink: &mut S,
        r: usize,
        dirs: &[u8; N],
        mask: u128,
        pin_of: &impl Fn(u8) -> u8,
    ) -> bool {
        let s = usize::from(!WHITE);
        for n in 0..self.count[s][r] as usize {
            if sink.satisfied() {
                return true;
            }
            let from = self.list[s][r][n];
            let pin = pin_of(from);
            for &d in dirs {
                // Pinned: only along the pin line, towards or away from the king.
                if PINS && pin != 0 && d != pin && d != pin.wrapping_neg() {
                    continue;
                }
                let mut t = from.wrapping_add(d);
                while on_board(t) {
                    let p = self.board[t as usize];
                    let own = if WHITE { p > 0 } else { p < 0 };
                    if own {
                        break;
                    }
                    if !MASKED || mask & bit(t) != 0 {
                        sink.push(from, t);
                    }
                    if p != 0 {
                        break;
                    }
                    t = t.wrapping_add(d);
                }
            }
        }
        false
    }

    /// En passant can uncover a check along the rank (two pawns leave it at once),
    /// so it is tested by playing it on the board.
    fn en_passant_is_legal(&mut self, from: u8, to: u8) -> bool {
        let us = self.turn;
        let captured = to.wrapping_sub((-16 * us) as u8);
        self.board[from as usize] = 0;
        self.board[captured as usize] = 0;
        self.board[to as usize] = PAWN * us;
        let legal = !attacked(&self.board, self.kings[side(us)], -us);
        self.board[from as usize] = PAWN * us;
        self.board[captured as usize] = -PAWN * us;
        self.board[to as usize] = 0;
        legal
    }

    /// Castling moves; only called when not in check.
    ///
    /// `safe_steps` has bit `i` set when the king's step `KING_OFFSETS[i]` was
    /// found legal: for the squares beside the king (`-1` at index 3, `+1` at
    /// index 4) that is the "not attacked" castling needs, since out of check no
    /// attack on them runs through the king (a right implies the king is home).
    #[inline(always)]
    fn castlings<S: Sink, const WHITE: bool>(&self, sink: &mut S, safe_steps: u8) {
        let us: i8 = if WHITE { 1 } else { -1 };
        let (king_side, queen_side, home) = if us > 0 {
            (WHITE_KING_SIDE, WHITE_QUEEN_SIDE, 116u8)
        } else {
            (BLACK_KING_SIDE, BLACK_QUEEN_SIDE, 4u8)
        };
        let b = &self.board;
        let h = home as usize;
        if self.castling & king_side != 0
            && b[h + 3] == ROOK * us
            && b[h + 1] == 0
            && b[h + 2] == 0
            && safe_steps & (1 << 4) != 0
            && !self.attacked_by(home + 2, -us)
        {
            sink.push(home, home + 2);
        }
        if self.castling & queen_side != 0
            && b[h - 4] == ROOK * us
            && b[h - 1] == 0
            && b[h - 2] == 0
            && b[h - 3] == 0
            && safe_steps & (1 << 3) != 0
            && !self.attacked_by(home - 2, -us)
        {
            sink.push(home, home - 2);
        }
    }

    /// Plays a legal move (as generated); returns what [`Position::unmake`] needs.
    pub fn make(&mut self, m: IMove) -> Undo {
        let us = self.turn;
        let s = side(us);
        let (from, to) = (m.from, m.to);
        let moved = self.board[from as usize];
        let mut captured = self.board[to as usize];
        let mut captured_sq = to;
        let undo_base = Undo {
            captured: 0,
            captured_sq: 0,
            moved,
            castling: self.castling,
            ep: self.ep,
            halfmove: self.halfmove,
        };
        let piece = moved * us;
        if piece == PAWN && captured == 0 && (from ^ to) & 0x0f != 0 {
            // En passant: the captured pawn stands behind the target.
            captured_sq = to.wrapping_sub((-16 * us) as u8);
            captured = self.board[captured_sq as usize];
            self.board[captured_sq as usize] = 0;
        }
        if captured != 0 {
            self.remove_from_list(1 - s, captured.abs(), captured_sq);
        }
        self.board[from as usize] = 0;
        self.ep = 0;
        if m.promotion != 0 {
            let promoted = m.promotion as i8;
            self.board[to as usize] = promoted * us;
            self.remove_from_list(s, PAWN, from);
            self.add_to_list(s, promoted, to);
        } else {
            self.board[to as usize] = moved;
            if piece == KING {
                self.kings[s] = to;
                if to == from + 2 {
                    self.board[(from + 1) as usize] = ROOK * us;
                    self.board[(from + 3) as usize] = 0;
                    self.relocate_in_list(s, ROOK, from + 3, from + 1);
                } else if to + 2 == from {
                    self.board[(from - 1) as usize] = ROOK * us;
                    self.board[(from - 4) as usize] = 0;
                    self.relocate_in_list(s, ROOK, from - 4, from - 1);
                }
            } else {
                self.relocate_in_list(s, piece, from, to);
                if piece == PAWN && (from ^ to) == 0x20 {
                    self.ep = (from + to) / 2;
                }
            }
        }
        self.castling &= !(RIGHTS_CLEARED[from as usize] | RIGHTS_CLEARED[to as usize]);
        self.halfmove = if piece == PAWN || captured != 0 {
            0
        } else {
            self.halfmove.saturating_add(1)
        };
        self.turn = -us;
        Undo {
            captured,
            captured_sq,
            ..undo_base
        }
    }

    /// Takes back `m`, played by [`Position::make`] which returned `undo`.
    pub fn unmake(&mut self, m: IMove, undo: Undo) {
        let us = -self.turn;
        self.turn = us;
        let s = side(us);
        let (from, to) = (m.from, m.to);
        let piece = undo.moved * us;
        self.board[from as usize] = undo.moved;
        self.board[to as usize] = 0;
        if m.promotion != 0 {
            self.remove_from_list(s, m.promotion as i8, to);
            self.add_to_list(s, PAWN, from);
        } else if piece == KING {
            self.kings[s] = from;
            if to == from + 2 {
                self.board[(from + 3) as usize] = ROOK * us;
                self.board[(from + 1) as usize] = 0;
                self.relocate_in_list(s, ROOK, from + 1, from + 3);
            } else if to + 2 == from {
                self.board[(from - 4) as usize] = ROOK * us;
                self.board[(from - 1) as usize] = 0;
                self.relocate_in_list(s, ROOK, from - 1, from - 4);
            }
        } else {
            self.relocate_in_list(s, piece, to, from);
        }
        if undo.captured != 0 {
            self.board[undo.captured_sq as usize] = undo.captured;
            self.add_to_list(1 - s, undo.captured.abs(), undo.captured_sq);
        }
        self.castling = undo.castling;
        self.ep = undo.ep;
        self.halfmove = undo.halfmove;
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_move(&mut self) -> bool {
        let mut any = AnyMove(false);
        self.generate(&mut any);
        any.0
    }
}
