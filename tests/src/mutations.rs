//! Corrupted copies of a valid state, aimed at each invalid-state code of
//! ENCODING.md section 7.

use rand::{Rng, RngExt};

/// Indices of the flag bytes of section 3.
pub const FLAG_INDICES: [usize; 11] = [8, 9, 10, 11, 123, 56, 62, 63, 78, 79, 61];
/// White's en-passant byte (section 3).
pub const WHITE_EP: usize = 77;
/// Black's en-passant byte.
pub const BLACK_EP: usize = 61;

fn on_board(i: usize) -> bool {
    i & 0x88 == 0
}

/// A dozen mutations of `bytes` (a valid state): bad piece codes, stray and
/// out-of-domain flags, extra or missing kings, moved king bytes, pawns on
/// back ranks, side to move flipped (opponent in check), castling rights
/// without king or rook, bad en-passant bytes, random byte flips.
pub fn mutate(bytes: &[u8; 128], rng: &mut impl Rng) -> Vec<[u8; 128]> {
    let mut out = Vec::new();
    let mut m = |f: &mut dyn FnMut(&mut [u8; 128])| {
        let mut s = *bytes;
        f(&mut s);
        if s != *bytes {
            out.push(s);
        }
    };
    let board: Vec<usize> = (0..128).filter(|&i| on_board(i)).collect();
    let shadow: Vec<usize> = (0..128).filter(|&i| !on_board(i)).collect();
    let empties: Vec<usize> = board.iter().copied().filter(|&i| bytes[i] == 0).collect();
    let r1 = rng.random_range(0..board.len());
    let r2 = rng.random_range(0..shadow.len());
    let r3 = rng.random_range(0..empties.len().max(1));
    let code = [7u8, 0x80, 0xf9, 0x7f, 9][rng.random_range(0..5)];
    let flag = FLAG_INDICES[rng.random_range(0..FLAG_INDICES.len())];
    let flag_value = [0x80u8, 0xfe, 0x02, 0x7f, 0xff, 0x33][rng.random_range(0..6)];
    let byte = rng.random_range(0..128usize);
    let value: u8 = rng.random();
    let empty = empties.get(r3).copied();

    // 1 BAD_PIECE_CODE
    m(&mut |s| s[board[r1]] = code);
    // 2 BAD_FLAG: a stray shadow byte, a flag out of its domain.
    m(&mut |s| s[shadow[r2]] = s[shadow[r2]].wrapping_add(1 + (r2 as u8 % 200)));
    m(&mut |s| s[flag] = flag_value);
    // 3 KING_COUNT: an extra king of either colour, a missing king.
    if let Some(e) = empty {
        m(&mut |s| s[e] = 6);
        m(&mut |s| s[e] = 0xfa);
    }
    m(&mut |s| {
        let k = s[123] as usize;
        s[k] = 0;
    });
    // 4 KING_POS_MISMATCH
    if let Some(e) = empty {
        m(&mut |s| s[11] = e as u8);
        m(&mut |s| s[123] = e as u8);
    }
    // 5 PAWN_ON_BACK_RANK
    let back = [
        rng.random_range(0..8usize),
        112 + rng.random_range(0..8usize),
    ];
    for b in back {
        if bytes[b] == 0 {
            m(&mut |s| s[b] = 1);
            m(&mut |s| s[b] = 0xff);
        }
    }
    // 6 OPPONENT_IN_CHECK: flip the side to move (and clear en passant).
    m(&mut |s| {
        s[56] = if s[56] == 1 { 0xff } else { 1 };
        s[61] = 0;
        s[77] = 0;
    });
    // 7 BAD_CASTLING: grant every right.
    m(&mut |s| {
        for i in [62, 63, 78, 79] {
            s[i] = 0;
        }
    });
    // 8 BAD_EN_PASSANT: both bytes, wrong side, wrong rank, random square.
    m(&mut |s| {
        s[61] = 0x22;
        s[77] = 0x54;
    });
    m(&mut |s| s[WHITE_EP] = 80 + rng_free_index(byte, 8) as u8);
    m(&mut |s| s[BLACK_EP] = 32 + rng_free_index(byte, 8) as u8);
    m(&mut |s| s[WHITE_EP] = 0x24);
    m(&mut |s| s[BLACK_EP] = 0x55);
    // Anything at all.
    m(&mut |s| s[byte] = value);
    out
}

fn rng_free_index(seed: usize, n: usize) -> usize {
    seed % n
}
