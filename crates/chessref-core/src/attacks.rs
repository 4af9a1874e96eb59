//! Square attacks on a 0x88 board.
//!
//! Offsets are stored as `u8` and added with wrapping arithmetic: a step off
//! the board always lands on an index with bit 0x80 or 0x08 set, so
//! [`on_board`] catches it.

/// Knight steps.
pub(crate) const KNIGHT_OFFSETS: [u8; 8] = offsets([-33, -31, -18, -14, 14, 18, 31, 33]);
/// King steps.
pub(crate) const KING_OFFSETS: [u8; 8] = offsets([-17, -16, -15, -1, 1, 15, 16, 17]);
/// Bishop directions.
pub(crate) const DIAGONALS: [u8; 4] = offsets([-17, -15, 15, 17]);
/// Rook directions.
pub(crate) const ORTHOGONALS: [u8; 4] = offsets([-16, -1, 1, 16]);
/// Queen directions.
pub(crate) const QUEEN_DIRECTIONS: [u8; 8] = offsets([-17, -15, 15, 17, -16, -1, 1, 16]);

const fn offsets<const N: usize>(signed: [i8; N]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = signed[i] as u8;
        i += 1;
    }
    out
}

/// Whether a 0x88 index (possibly the result of a wrapped step) is on the playing board.
#[inline(always)]
pub(crate) const fn on_board(sq: u8) -> bool {
    sq & 0x88 == 0
}

/// Which non-pawn pieces can attack across a square difference, ignoring
/// blockers, indexed by `target - origin + 119` (the 0x88 difference table).
const KNIGHT_BIT: u8 = 1;
const KING_BIT: u8 = 2;
const DIAGONAL_BIT: u8 = 4;
const ORTHOGONAL_BIT: u8 = 8;

struct DiffTable {
    kinds: [u8; 239],
    /// The unit step from origin towards target when they are aligned.
    step: [u8; 239],
}

const DIFF: DiffTable = {
    let mut kinds = [0u8; 239];
    let mut step = [0u8; 239];
    let mut i = 0;
    while i < 8 {
        kinds[(KNIGHT_OFFSETS[i] as i8 as i16 + 119) as usize] |= KNIGHT_BIT;
        kinds[(KING_OFFSETS[i] as i8 as i16 + 119) as usize] |= KING_BIT;
        let d = KING_OFFSETS[i] as i8 as i16;
        let bit = if d == 16 || d == -16 || d == 1 || d == -1 {
            ORTHOGONAL_BIT
        } else {
            DIAGONAL_BIT
        };
        let mut k = 1;
        while k < 8 {
            kinds[(d * k + 119) as usize] |= bit;
            step[(d * k + 119) as usize] = d as i8 as u8;
            k += 1;
        }
        i += 1;
    }
    DiffTable { kinds, step }
};

/// Whether `target` is reachable from `origin` by a slider moving in a straight
/// line (rank, file or diagonal), and in which unit step.
#[inline(always)]
pub(crate) fn line_step(origin: u8, target: u8) -> Option<u8> {
    let s = DIFF.step[(target as i16 - origin as i16 + 119) as usize];
    if s != 0 { Some(s) } else { None }
}

/// Whether `origin`→`target` is a knight's L.
#[inline(always)]
pub(crate) fn is_knight_step(origin: u8, target: u8) -> bool {
    DIFF.kinds[(target as i16 - origin as i16 + 119) as usize] & KNIGHT_BIT != 0
}

/// Whether `origin`→`target` is one king step.
#[inline(always)]
pub(crate) fn is_king_step(origin: u8, target: u8) -> bool {
    DIFF.kinds[(target as i16 - origin as i16 + 119) as usize] & KING_BIT != 0
}

/// Whether `origin`→`target` is diagonal (any distance).
#[inline(always)]
pub(crate) fn is_diagonal(origin: u8, target: u8) -> bool {
    DIFF.kinds[(target as i16 - origin as i16 + 119) as usize] & DIAGONAL_BIT != 0
}

/// Whether `origin`→`target` is along a rank or file (any distance).
#[inline(always)]
pub(crate) fn is_orthogonal(origin: u8, target: u8) -> bool {
    DIFF.kinds[(target as i16 - origin as i16 + 119) as usize] & ORTHOGONAL_BIT != 0
}

/// A 0x88 board read as signed piece codes: the state's raw bytes or the
/// working position's signed array.
pub(crate) trait Board {
    /// The piece code at on-board index `sq`.
    fn at(&self, sq: u8) -> i8;
}

impl Board for [i8; 128] {
    #[inline(always)]
    fn at(&self, sq: u8) -> i8 {
        self[sq as usize]
    }
}

impl Board for [u8; 128] {
    #[inline(always)]
    fn at(&self, sq: u8) -> i8 {
        self[sq as usize] as i8
    }
}

/// Whether square `sq` is attacked by side `by` (1 white, -1 black) on the
/// board `b` (piece codes at 0x88 indices; other indices are ignored).
#[inline]
pub(crate) fn attacked<B: Board>(b: &B, sq: u8, by: i8) -> bool {
    let (pawn, knight, bishop, rook, queen, king) = (by, 2 * by, 3 * by, 4 * by, 5 * by, 6 * by);
    // Diagonals: the first square may hold a king, or a pawn if the step points
    // towards `by`'s side (a `by` pawn attacks forward, so it sits "behind" sq).
    for &d in &DIAGONALS {
        let t = sq.wrapping_add(d);
        if !on_board(t) {
            continue;
        }
        let p = b.at(t);
        if p != 0 {
            let pawn_side = (d as i8 > 0) == (by > 0);
            if p == bishop || p == queen || p == king || (p == pawn && pawn_side) {
                return true;
            }
            continue;
        }
        let p = first_piece_beyond(b, t, d);
        if p == bishop || p == queen {
            return true;
        }
    }
    for &d in &ORTHOGONALS {
        let t = sq.wrapping_add(d);
        if !on_board(t) {
            continue;
        }
        let p = b.at(t);
        if p != 0 {
            if p == rook || p == queen || p == king {
                return true;
            }
            continue;
        }
        let p = first_piece_beyond(b, t, d);
        if p == rook || p == queen {
            return true;
        }
    }
    for &off in &KNIGHT_OFFSETS {
        let t = sq.wrapping_add(off);
        if on_board(t) && b.at(t) == knight {
            return true;
        }
    }
    false
}

/// The first piece on the ray from `from` (exclusive) in direction `d`, or 0
/// when the ray leaves the board empty: what a slider on that ray would meet.
#[inline(always)]
fn first_piece_beyond<B: Board>(b: &B, from: u8, d: u8) -> i8 {
    let mut t = from;
    loop {
        t = t.wrapping_add(d);
        if !on_board(t) {
            return 0;
        }
        let p = b.at(t);
        if p != 0 {
            return p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difference_table_classifies_steps() {
        // e4 = 68.
        assert!(is_knight_step(68, 68 - 33));
        assert!(!is_knight_step(68, 68 - 32));
        assert!(is_king_step(68, 69));
        assert!(is_diagonal(68, 68 - 17 * 3));
        assert!(is_orthogonal(68, 68 + 16 * 3));
        assert!(!is_orthogonal(68, 68 + 17));
        assert_eq!(line_step(68, 68 - 15 * 2), Some((-15i8) as u8));
        assert_eq!(line_step(68, 68 + 33), None);
    }
}
