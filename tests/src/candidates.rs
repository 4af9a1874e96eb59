//! Move candidates for one position: every legal move plus illegal ones
//! aimed at each rejection code of ENCODING.md section 6.

use std::collections::BTreeSet;

use chessref_core::{Color, RawMove, Role, Square, State};
use rand::{Rng, RngExt};

/// Every on-board 0x88 index.
pub fn board_squares() -> impl Iterator<Item = u8> {
    (0u8..128).filter(|i| i & 0x88 == 0)
}

fn raw(from: u8, to: u8, promotion: u8) -> RawMove {
    RawMove {
        from,
        to,
        promotion,
    }
}

/// At least `min_illegal` distinct illegal raw moves for `state` (the Rust
/// side decides legality), mixing targeted candidates for every rejection
/// code with random ones; the legal moves are not included.
pub fn illegal_candidates(state: &State, rng: &mut impl Rng, min_illegal: usize) -> Vec<RawMove> {
    let me = state.turn();
    let on_board: Vec<u8> = board_squares().collect();
    let mut own = Vec::new();
    let mut theirs = Vec::new();
    let mut empty = Vec::new();
    for &i in &on_board {
        let sq = Square::new(i).expect("on board");
        match state.piece_at(sq) {
            Some(p) if p.color == me => own.push(i),
            Some(_) => theirs.push(i),
            None => empty.push(i),
        }
    }
    let pick = |v: &[u8], rng: &mut dyn FnMut(usize) -> usize| v[rng(v.len())];
    let mut r = |n: usize| rng.random_range(0..n);
    let mut set: BTreeSet<u32> = BTreeSet::new();
    let add = |m: RawMove, set: &mut BTreeSet<u32>| {
        set.insert(m.packed());
    };

    // 1 OFF_BOARD: shadow squares, indices >= 128, either end.
    let a = pick(&own, &mut r);
    add(raw(a, 8 + (r(8) as u8), 0), &mut set);
    add(raw(a, 128 + r(128) as u8, 0), &mut set);
    add(
        raw(24 + 16 * r(7) as u8, pick(&on_board, &mut r), 0),
        &mut set,
    );
    add(raw(128 + r(128) as u8, 255, 0), &mut set);
    // 2 SAME_SQUARE.
    add(raw(a, a, 0), &mut set);
    // 3 EMPTY_FROM.
    if !empty.is_empty() {
        add(
            raw(pick(&empty, &mut r), pick(&on_board, &mut r), 0),
            &mut set,
        );
    }
    // 4 NOT_YOUR_PIECE.
    add(
        raw(pick(&theirs, &mut r), pick(&on_board, &mut r), 0),
        &mut set,
    );
    // 5 OWN_PIECE_ON_TARGET.
    if own.len() > 1 {
        let b = pick(&own, &mut r);
        if b != a {
            add(raw(a, b, 0), &mut set);
        }
    }
    // King: every neighbour and both castling targets, from wherever it stands.
    let king = state.king(me).index();
    for d in [-17i16, -16, -15, -1, 1, 15, 16, 17, -2, 2] {
        let to = king as i16 + d;
        if (0..128).contains(&to) && (to as u8) & 0x88 == 0 {
            add(raw(king, to as u8, 0), &mut set);
        }
    }
    let home = if me == Color::White { 116 } else { 4 };
    add(raw(home, home + 2, 0), &mut set);
    add(raw(home, home - 2, 0), &mut set);
    // Pawns: steps, double steps, diagonals (captures, en passant, empty).
    let forward: i16 = if me == Color::White { -16 } else { 16 };
    for &p in &own {
        let sq = Square::new(p).expect("on board");
        if state.piece_at(sq).map(|x| x.role) != Some(Role::Pawn) {
            continue;
        }
        for d in [forward, 2 * forward, forward - 1, forward + 1] {
            let to = p as i16 + d;
            if (0..128).contains(&to) && (to as u8) & 0x88 == 0 {
                let last_rank = (to as u8) < 8 || (to as u8) >= 112;
                add(raw(p, to as u8, 0), &mut set);
                if last_rank {
                    // 12 PROMOTION_REQUIRED is the 0 above; 13 INVALID_PROMOTION for these.
                    for promo in [1u8, 6, 7, 255, 2 + r(4) as u8] {
                        add(raw(p, to as u8, promo), &mut set);
                    }
                }
            }
        }
    }
    // 13 INVALID_PROMOTION on moves that do not promote (legal ones first).
    let legal = state.legal_moves();
    for _ in 0..3 {
        if legal.is_empty() {
            break;
        }
        let m = RawMove::from(legal[r(legal.len())]);
        if m.promotion == 0 {
            add(
                raw(m.from, m.to, [1u8, 2, 3, 4, 5, 6, 9, 128, 255][r(9)]),
                &mut set,
            );
        }
    }
    // Random moves of own pieces: geometry, blocked paths, pins, checks.
    for _ in 0..12 {
        add(
            raw(pick(&own, &mut r), pick(&on_board, &mut r), 0),
            &mut set,
        );
    }

    let legal_packed: BTreeSet<u32> = legal.iter().map(|&m| RawMove::from(m).packed()).collect();
    set.retain(|m| !legal_packed.contains(m));
    while set.len() < min_illegal {
        let promo = if r(4) == 0 { r(256) as u8 } else { 0 };
        let m = raw(pick(&own, &mut r), pick(&on_board, &mut r), promo).packed();
        if !legal_packed.contains(&m) {
            set.insert(m);
        }
    }
    set.into_iter().map(RawMove::from_packed).collect()
}
