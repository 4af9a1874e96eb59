//! Square attacks on a 0x88 board.
//!
//! Offsets are stored as `u8` and added with wrapping arithmetic: a step off
//! the board always lands on an index with bit 0x80 or 0x08 set, so
//! [`on_board`] catches it.

use crate::piece_code::{BISHOP, KING, KNIGHT, ROOK};

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
/// The difference-table bit of diagonal lines (see [`line_kinds`]).
pub(crate) const DIAGONAL_BIT: u8 = 4;
/// The difference-table bit of rank and file lines (see [`line_kinds`]).
pub(crate) const ORTHOGONAL_BIT: u8 = 8;

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

/// The line kinds (`DIAGONAL_BIT`, `ORTHOGONAL_BIT`) joining `origin` and
/// `target`, 0 if none: one lookup answers "can a slider of these kinds reach",
/// a queen included (its mask has both bits).
#[inline(always)]
pub(crate) fn line_kinds(origin: u8, target: u8) -> u8 {
    DIFF.kinds[(target as i16 - origin as i16 + 119) as usize] & (DIAGONAL_BIT | ORTHOGONAL_BIT)
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
    /// The eight on-board bytes of 0x88 row `row` (files a to h), little-endian.
    fn row_bytes(&self, row: usize) -> u64;
}

impl Board for [i8; 128] {
    #[inline(always)]
    fn at(&self, sq: u8) -> i8 {
        self[sq as usize]
    }
    #[inline(always)]
    fn row_bytes(&self, row: usize) -> u64 {
        let r = &self[row * 16..row * 16 + 8];
        u64::from_le_bytes(std::array::from_fn(|i| r[i] as u8))
    }
}

impl Board for [u8; 128] {
    #[inline(always)]
    fn at(&self, sq: u8) -> i8 {
        self[sq as usize] as i8
    }
    #[inline(always)]
    fn row_bytes(&self, row: usize) -> u64 {
        let r = &self[row * 16..row * 16 + 8];
        u64::from_le_bytes(std::array::from_fn(|i| r[i]))
    }
}

/// The 64-square index (bit `row * 8 + file`) of an on-board 0x88 index.
#[inline(always)]
const fn sq64(sq: u8) -> usize {
    // (row * 16 + file + file) / 2 = row * 8 + file.
    ((sq.wrapping_add(sq & 7) >> 1) & 63) as usize
}

/// The [`occupancy`] bit of an on-board 0x88 index.
#[inline(always)]
pub(crate) const fn bit(sq: u8) -> u64 {
    1 << sq64(sq)
}

/// The 0x88 index of a 64-square index.
#[inline(always)]
const fn sq88(i: u32) -> u8 {
    // row * 8 + file + row * 8 = row * 16 + file.
    (i + (i & 0x38)) as u8
}

/// The occupied squares of `b` as 64 bits (bit `row * 8 + file`), eight bytes
/// at a time: it lets a ray find its first piece with one bit scan instead of
/// a walk whose length the branch predictor cannot guess.
#[inline(always)]
pub(crate) fn occupancy<B: Board>(b: &B) -> u64 {
    // The side's half is dead code here, and the compiler drops it.
    occupancies(b, 1).0
}

/// The squares of `b` holding pieces of side `us` (1 white, -1 black), as
/// [`occupancy`] bits: a negative code is a byte with its high bit set.
#[inline(always)]
pub(crate) fn side_occupancy<B: Board>(b: &B, us: i8) -> u64 {
    occupancies(b, us).1
}

/// [`occupancy`] and [`side_occupancy`] of `us` in one pass over the board.
#[inline(always)]
pub(crate) fn occupancies<B: Board>(b: &B, us: i8) -> (u64, u64) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let (mut occ, mut ours) = (0u64, 0u64);
    let mut row = 0;
    while row < 8 {
        let w = b.row_bytes(row);
        let nonzero = (((w & LOW7) + LOW7) | w) & HIGH;
        let side = if us > 0 { nonzero & !w } else { w & HIGH };
        occ |= ((nonzero >> 7).wrapping_mul(GATHER) >> 56) << (row * 8);
        ours |= ((side >> 7).wrapping_mul(GATHER) >> 56) << (row * 8);
        row += 1;
    }
    (occ, ours)
}

/// The 0x88 squares of the bits of `mask`, lowest bit (a8 side) first.
#[inline(always)]
pub(crate) fn squares_of(mut mask: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let i = mask.trailing_zeros();
        mask &= mask - 1;
        Some(sq88(i))
    })
}

/// The eight line steps, those towards higher indices first (their nearest
/// square on a ray is the lowest set bit), diagonal and orthogonal alternating.
const LINE_STEPS: [u8; 8] = offsets([1, 15, 16, 17, -1, -15, -16, -17]);

/// `RAYS[i][sq64]`: the squares beyond a square along `LINE_STEPS[i]`, to the edge.
const RAYS: [[u64; 64]; 8] = {
    let mut rays = [[0u64; 64]; 8];
    let mut i = 0;
    while i < 8 {
        let mut sq = 0u8;
        while sq < 128 {
            if on_board(sq) {
                let mut t = sq.wrapping_add(LINE_STEPS[i]);
                while on_board(t) {
                    rays[i][sq64(sq)] |= 1 << sq64(t);
                    t = t.wrapping_add(LINE_STEPS[i]);
                }
            }
            sq += 1;
        }
        i += 1;
    }
    rays
};

/// An index off the board whose byte is always 0: a shadow byte that section 7
/// requires to be 0 in a state, and 0 in the working position's board. It
/// pads the step tables below, so a step off the board reads an empty square.
const EMPTY_OFF_BOARD: u8 = 12;

/// `KNIGHT_TARGETS[sq64]`, `KING_TARGETS[sq64]`: the 0x88 squares a knight's
/// or king's step away, padded with [`EMPTY_OFF_BOARD`] to eight, so that
/// reading all eight needs no test of the board's edge.
const KNIGHT_TARGETS: [[u8; 8]; 64] = step_targets(&KNIGHT_OFFSETS);
const KING_TARGETS: [[u8; 8]; 64] = step_targets(&KING_OFFSETS);

const fn step_targets(steps: &[u8; 8]) -> [[u8; 8]; 64] {
    let mut out = [[EMPTY_OFF_BOARD; 8]; 64];
    let mut sq = 0u8;
    while sq < 128 {
        if on_board(sq) {
            let (mut k, mut n) = (0, 0);
            while k < 8 {
                let t = sq.wrapping_add(steps[k]);
                if on_board(t) {
                    out[sq64(sq)][n] = t;
                    n += 1;
                }
                k += 1;
            }
        }
        sq += 1;
    }
    out
}

/// The first occupied square beyond `sq` along `LINE_STEPS[i]` in `occ`, if any.
#[inline(always)]
fn first_on_ray(occ: u64, sq: u8, i: usize) -> Option<u8> {
    let (t, any) = nearest_on_ray(occ, sq, i);
    any.then_some(t)
}

/// The first occupied square beyond `sq` in the direction of the unit line
/// step `step` (as [`line_step`] gives it) in `occ`, if any.
#[inline(always)]
pub(crate) fn first_along(occ: u64, sq: u8, step: u8) -> Option<u8> {
    let i = match step as i8 {
        1 => 0,
        15 => 1,
        16 => 2,
        17 => 3,
        -1 => 4,
        -15 => 5,
        -16 => 6,
        _ => 7,
    };
    first_on_ray(occ, sq, i)
}

/// The nearest occupied square beyond `sq` along `LINE_STEPS[i]` in `occ`, and
/// whether there is one (if not, the square is any on-board square, to be
/// ignored): no branch, for the loops that look at every ray.
#[inline(always)]
fn nearest_on_ray(occ: u64, sq: u8, i: usize) -> (u8, bool) {
    let blockers = RAYS[i][sq64(sq)] & occ;
    // With a bit set where the ray cannot reach when it is empty: no zero test.
    let first = if i < 4 {
        (blockers | 1 << 63).trailing_zeros()
    } else {
        (blockers | 1).ilog2()
    };
    (sq88(first), blockers != 0)
}

/// The squares holding `piece` (a knight, bishop, rook, queen or king of
/// either side) from which it reaches `sq` in one move on a board whose
/// [`occupancy`] is `occ`: its steps around `sq`, or the nearest piece along
/// each of its lines from `sq`. Every move of a `piece` to `sq` that can be
/// legal starts on one of them. Found without a branch per square.
#[inline(always)]
pub(crate) fn origins_of<B: Board>(b: &B, occ: u64, sq: u8, piece: i8) -> Squares {
    match piece.unsigned_abs() as i8 {
        KNIGHT => pieces_on_steps(b, sq, &KNIGHT_TARGETS, piece),
        KING => pieces_on_steps(b, sq, &KING_TARGETS, piece),
        // The rays of LINE_STEPS: the diagonal ones are the odd ones.
        BISHOP => nearest_pieces_on_rays::<B, 1, 2>(b, occ, sq, piece),
        ROOK => nearest_pieces_on_rays::<B, 0, 2>(b, occ, sq, piece),
        _ => nearest_pieces_on_rays::<B, 0, 1>(b, occ, sq, piece),
    }
}

/// The squares a step of `targets` away from `sq` that hold `piece`.
#[inline(always)]
fn pieces_on_steps<B: Board>(b: &B, sq: u8, targets: &[[u8; 8]; 64], piece: i8) -> Squares {
    let mut found = Squares { packed: 0, len: 0 };
    for &t in &targets[sq64(sq)] {
        found.keep(t, b.at(t) == piece);
    }
    found
}

/// The nearest pieces from `sq` along the rays `FIRST`, `FIRST + STRIDE`, ...
/// of `LINE_STEPS` that are `piece`.
#[inline(always)]
fn nearest_pieces_on_rays<B: Board, const FIRST: usize, const STRIDE: usize>(
    b: &B,
    occ: u64,
    sq: u8,
    piece: i8,
) -> Squares {
    let mut found = Squares { packed: 0, len: 0 };
    let mut i = FIRST;
    while i < 8 {
        let (t, any) = nearest_on_ray(occ, sq, i);
        found.keep(t, any & (b.at(t) == piece));
        i += STRIDE;
    }
    found
}

/// Up to eight squares, packed in one word rather than a byte array: read
/// right after being written, a word kept in a register costs nothing, while
/// a word loaded over fresh byte stores waits for them (store forwarding).
#[derive(Clone, Copy)]
pub(crate) struct Squares {
    packed: u64,
    len: u32,
}

impl Squares {
    /// Appends `sq` if `found` (written either way, counted only if found).
    #[inline(always)]
    fn keep(&mut self, sq: u8, found: bool) {
        let shift = 8 * (self.len & 7);
        self.packed = (self.packed & !(0xff << shift)) | (u64::from(sq) << shift);
        self.len += u32::from(found);
    }
}

impl Iterator for Squares {
    type Item = u8;

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        if self.len == 0 {
            return None;
        }
        let sq = self.packed as u8;
        self.packed >>= 8;
        self.len -= 1;
        Some(sq)
    }
}

/// Whether square `sq` is attacked by side `by` (1 white, -1 black) on the
/// board `b` (piece codes at 0x88 indices; other indices are ignored).
#[inline]
pub(crate) fn attacked<B: Board>(b: &B, sq: u8, by: i8) -> bool {
    attacked_given(b, occupancy(b), sq, by)
}

/// [`attacked`] with the board's [`occupancy`] already computed.
#[inline]
pub(crate) fn attacked_given<B: Board>(b: &B, occ: u64, sq: u8, by: i8) -> bool {
    attacked_but_by_king(b, occ, sq, by) | next_to_king(b, sq, by)
}

/// [`attacked_given`] but for the `by` king's attack: enough for the square
/// of a king after a move of another piece of its side, because the kings of
/// a valid state are never next to each other (section 7: the side not to move
/// is not in check) and that move did not bring them closer.
///
/// Every line and knight square is looked at, without an early return: the
/// answer is almost always "no" (a king's square after a legal move), and a
/// branch per ray whose outcome depends on the board costs more in
/// mispredictions than the few instructions it would skip.
#[inline]
pub(crate) fn attacked_but_by_king<B: Board>(b: &B, occ: u64, sq: u8, by: i8) -> bool {
    // By piece code plus 8: bit 0 for a piece of the attacking side that
    // attacks along an orthogonal line, bit 1 along a diagonal.
    const WHITE_SLIDES: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 3, 0, 0];
    const BLACK_SLIDES: [u8; 16] = [0, 0, 0, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let slides = if by > 0 { &WHITE_SLIDES } else { &BLACK_SLIDES };
    let mut hit = 0u8;
    let mut i = 0;
    while i < 8 {
        let (t, any) = nearest_on_ray(occ, sq, i);
        let p = b.at(t) & -i8::from(any);
        // LINE_STEPS alternates orthogonal (even) and diagonal (odd) lines.
        hit |= slides[(p + 8) as usize & 15] & (1 << (i & 1));
        i += 1;
    }
    let mut hit = hit != 0;
    // A `by` pawn attacks forward, so it sits one row "behind" sq, towards `by`'s side.
    let behind = sq.wrapping_add((16 * by) as u8);
    for t in [behind.wrapping_sub(1), behind.wrapping_add(1)] {
        hit |= on_board(t) & (b.at(t & 0x77) == by);
    }
    // The eight knight squares, each read: cheaper than a loop over the
    // occupied ones, whose count varies.
    hit | holds_around(b, sq, &KNIGHT_TARGETS, 2 * by)
}

/// Whether the `by` king is one step from `sq`.
#[inline(always)]
fn next_to_king<B: Board>(b: &B, sq: u8, by: i8) -> bool {
    holds_around(b, sq, &KING_TARGETS, 6 * by)
}

/// Whether `piece` stands on one of the squares a step of `targets` away from `sq`.
#[inline(always)]
fn holds_around<B: Board>(b: &B, sq: u8, targets: &[[u8; 8]; 64], piece: i8) -> bool {
    let mut hit = false;
    for &t in &targets[sq64(sq)] {
        hit |= b.at(t) == piece;
    }
    hit
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ray walk `attacked` replaced: every piece of `by` that reaches `sq`.
    fn attacked_by_walking(b: &[u8; 128], sq: u8, by: i8) -> bool {
        (0..128u8).filter(|&t| on_board(t) && t != sq).any(|t| {
            let p = b[t as usize] as i8;
            if p == 0 || p.signum() != by {
                return false;
            }
            match p.abs() {
                1 => {
                    sq == t.wrapping_add((-16 * by) as u8).wrapping_sub(1)
                        || sq == t.wrapping_add((-16 * by) as u8).wrapping_add(1)
                }
                2 => is_knight_step(t, sq),
                6 => is_king_step(t, sq),
                role => {
                    let kind_ok = match role {
                        3 => is_diagonal(t, sq),
                        4 => is_orthogonal(t, sq),
                        _ => is_diagonal(t, sq) || is_orthogonal(t, sq),
                    };
                    kind_ok && {
                        let d = line_step(t, sq).unwrap();
                        let mut u = t.wrapping_add(d);
                        while u != sq && b[u as usize] == 0 {
                            u = u.wrapping_add(d);
                        }
                        u == sq
                    }
                }
            }
        })
    }

    #[test]
    fn attack_tables_agree_with_walking_the_board() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "1k6/7K/8/8/4Q2Q/8/8/7Q w - - 0 1",
            "7k/8/8/8/8/8/8/K7 w - - 0 1",
        ] {
            let state = crate::State::from_fen(fen).unwrap();
            let b = state.as_bytes();
            let mut signed = [0i8; 128];
            for (i, &v) in b.iter().enumerate() {
                signed[i] = if on_board(i as u8) { v as i8 } else { 0 };
            }
            for sq in (0..128u8).filter(|&sq| on_board(sq)) {
                for by in [1, -1] {
                    let expected = attacked_by_walking(b, sq, by);
                    assert_eq!(attacked(b, sq, by), expected, "{fen} {sq} {by}");
                    assert_eq!(attacked(&signed, sq, by), expected, "{fen} {sq} {by}");
                }
            }
        }
    }

    /// The step tables' padding stands for "off the board": its byte is 0 in every
    /// state (section 7 refuses any other value) and in the working position.
    #[test]
    fn step_table_padding_reads_an_empty_square() {
        assert!(!on_board(EMPTY_OFF_BOARD));
        let initial = crate::State::initial();
        assert_eq!(initial.as_bytes()[EMPTY_OFF_BOARD as usize], 0);
        let mut bytes = *initial.as_bytes();
        bytes[EMPTY_OFF_BOARD as usize] = 2;
        assert_eq!(
            crate::State::from_bytes(&bytes),
            Err(crate::StateError::Invalid(crate::InvalidState::BadFlag))
        );
        // Every on-board square's eight targets: its real steps, then padding.
        for sq in (0..128u8).filter(|&sq| on_board(sq)) {
            for (targets, offsets) in [
                (&KNIGHT_TARGETS, &KNIGHT_OFFSETS),
                (&KING_TARGETS, &KING_OFFSETS),
            ] {
                let real: Vec<u8> = offsets
                    .iter()
                    .map(|&d| sq.wrapping_add(d))
                    .filter(|&t| on_board(t))
                    .collect();
                let row = &targets[sq64(sq)];
                assert_eq!(&row[..real.len()], &real[..]);
                assert!(row[real.len()..].iter().all(|&t| t == EMPTY_OFF_BOARD));
            }
        }
    }

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
