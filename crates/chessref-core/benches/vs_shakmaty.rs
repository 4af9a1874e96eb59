//! chessref-core against shakmaty 0.30.1, measured in the same run.
//!
//! ```sh
//! cargo bench -p chessref-core --bench vs_shakmaty   # about 3 minutes
//! sh crates/chessref-core/benches/ratios.sh          # chessref/shakmaty throughput ratios
//! ```
//!
//! Groups (each has a `chessref-core` and a `shakmaty` entry; criterion prints
//! elements per second, and `benches/ratios.sh` prints chessref/shakmaty):
//!
//! - `perft_initial_d5`, `perft_kiwipete_d4`: nodes per second of
//!   `chessref_core::perft` against `shakmaty::perft`. Both count in bulk at the
//!   last ply (the leaf count of depth 1 is the length of the legal move list;
//!   no move of the last ply is played). `shakmaty-leafwise` is shakmaty
//!   playing every last-ply move too, for reference.
//! - `pgn_replay`: plies per second reading PGN text of seeded random games and
//!   replaying it with the referee's rules. chessref-core: `PgnReader` (tags,
//!   move numbers, comments, results) and `PgnGame::replay` (SAN resolved on our
//!   generator, `check`, `play`, history and automatic-end status after every
//!   ply). shakmaty has no PGN reader, so its side is a minimal hand-written
//!   tokenizer over the same text (tag lines skipped, move numbers and results
//!   dropped) plus `SanPlus::from_ascii`, `San::to_move` (validation against its
//!   legal moves), `play_unchecked`, and the same automatic-end check before
//!   each ply (`is_game_over` or 150 halfmoves). `shakmaty-no-end-check` skips
//!   that check, for reference.
//! - `san_replay`: the same games as pre-split SAN tokens, parse + validate +
//!   apply only: `State::parse_san` + `State::play` against
//!   `San::from_ascii` + `to_move` + `play_unchecked`; no end check on either side.

use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use chessref_core::{PgnReader, State, perft};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Chess, Position};

const INITIAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// Generated games for the replay benchmarks.
const GAMES: usize = 200;
const MAX_PLIES: usize = 200;

fn shakmaty_position(fen: &str) -> Chess {
    Fen::from_ascii(fen.as_bytes())
        .expect("FEN")
        .into_position(CastlingMode::Standard)
        .expect("position")
}

/// shakmaty perft without bulk counting: every move of the last ply is played.
fn shakmaty_perft_leafwise(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            shakmaty_perft_leafwise(&child, depth - 1)
        })
        .sum()
}

fn bench_perft(c: &mut Criterion) {
    for (name, fen, depth, nodes) in [
        ("initial", INITIAL, 5, 4_865_609u64),
        ("kiwipete", KIWIPETE, 4, 4_085_603),
    ] {
        let ours = State::from_fen(fen).expect("FEN");
        let theirs = shakmaty_position(fen);
        assert_eq!(
            perft(&ours, depth),
            nodes,
            "chessref-core perft({name}, {depth})"
        );
        assert_eq!(
            shakmaty::perft(&theirs, depth),
            nodes,
            "shakmaty perft({name}, {depth})"
        );
        let mut group = c.benchmark_group(format!("perft_{name}_d{depth}"));
        group.throughput(Throughput::Elements(nodes));
        group.sample_size(10);
        group.bench_function("chessref-core", |b| {
            b.iter(|| perft(black_box(&ours), depth))
        });
        group.bench_function("shakmaty", |b| {
            b.iter(|| shakmaty::perft(black_box(&theirs), depth))
        });
        group.bench_function("shakmaty-leafwise", |b| {
            b.iter(|| shakmaty_perft_leafwise(black_box(&theirs), depth))
        });
        group.finish();
    }
}

/// Seeded random games from the initial position, as SAN tokens (shakmaty's
/// writer, with `+`/`#`), each until the game ends automatically or MAX_PLIES.
fn generate_games() -> Vec<Vec<String>> {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    (0..GAMES)
        .map(|_| {
            let mut pos = Chess::default();
            let mut sans = Vec::new();
            while sans.len() < MAX_PLIES && !pos.is_game_over() && pos.halfmoves() < 150 {
                let moves = pos.legal_moves();
                let m = moves[rng.random_range(0..moves.len())];
                sans.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
            }
            sans
        })
        .collect()
}

fn write_pgn(games: &[Vec<String>]) -> String {
    let mut text = String::new();
    for (i, sans) in games.iter().enumerate() {
        text.push_str(&format!(
            "[Event \"bench {}\"]\n[Site \"?\"]\n[Date \"2026.11.21\"]\n[Round \"{}\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"*\"]\n\n",
            i + 1,
            i + 1
        ));
        for (ply, san) in sans.iter().enumerate() {
            if ply % 2 == 0 {
                text.push_str(&format!("{}. ", ply / 2 + 1));
            }
            text.push_str(san);
            text.push(if ply % 16 == 15 { '\n' } else { ' ' });
        }
        text.push_str("*\n\n");
    }
    text
}

fn replay_ours(pgn: &[u8]) -> usize {
    let mut plies = 0;
    for game in PgnReader::new(Cursor::new(pgn)) {
        let game = game.expect("generated PGN reads");
        plies += game.replay().expect("generated PGN replays").plies();
    }
    plies
}

/// A minimal PGN movetext scanner for shakmaty (it has no PGN reader).
fn replay_shakmaty(pgn: &str, end_check: bool) -> usize {
    let mut plies = 0;
    let mut pos = Chess::default();
    for line in pgn.lines() {
        if line.starts_with('[') {
            continue;
        }
        for token in line.split_ascii_whitespace() {
            match token {
                "*" | "1-0" | "0-1" | "1/2-1/2" => {
                    pos = Chess::default();
                    continue;
                }
                t if t.ends_with('.') && t.as_bytes()[0].is_ascii_digit() => continue,
                _ => {}
            }
            if end_check {
                assert!(
                    !pos.is_game_over() && pos.halfmoves() < 150,
                    "move after the end"
                );
            }
            let san = SanPlus::from_ascii(token.as_bytes()).expect("SAN").san;
            let m = san.to_move(&pos).expect("legal");
            pos.play_unchecked(m);
            plies += 1;
        }
    }
    plies
}

fn san_replay_ours(games: &[Vec<String>]) -> usize {
    let mut plies = 0;
    for sans in games {
        let mut state = State::initial();
        for san in sans {
            let mv = state.parse_san(san).expect("legal SAN");
            state = state.play(mv).expect("legal");
            plies += 1;
        }
    }
    plies
}

fn san_replay_shakmaty(games: &[Vec<String>]) -> usize {
    let mut plies = 0;
    for sans in games {
        let mut pos = Chess::default();
        for san in sans {
            let m = San::from_ascii(san.as_bytes())
                .expect("SAN")
                .to_move(&pos)
                .expect("legal");
            pos.play_unchecked(m);
            plies += 1;
        }
    }
    plies
}

fn bench_replay(c: &mut Criterion) {
    let games = generate_games();
    let total: usize = games.iter().map(Vec::len).sum();
    let pgn = write_pgn(&games);
    assert_eq!(replay_ours(pgn.as_bytes()), total);
    assert_eq!(replay_shakmaty(&pgn, true), total);
    assert_eq!(san_replay_ours(&games), total);
    assert_eq!(san_replay_shakmaty(&games), total);
    println!(
        "replay benchmarks: {GAMES} games, {total} plies, {} bytes of PGN",
        pgn.len()
    );

    let mut group = c.benchmark_group("pgn_replay");
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("chessref-core", |b| {
        b.iter(|| replay_ours(black_box(pgn.as_bytes())))
    });
    group.bench_function("shakmaty", |b| {
        b.iter(|| replay_shakmaty(black_box(&pgn), true))
    });
    group.bench_function("shakmaty-no-end-check", |b| {
        b.iter(|| replay_shakmaty(black_box(&pgn), false))
    });
    group.finish();

    let mut group = c.benchmark_group("san_replay");
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("chessref-core", |b| {
        b.iter(|| san_replay_ours(black_box(&games)))
    });
    group.bench_function("shakmaty", |b| {
        b.iter(|| san_replay_shakmaty(black_box(&games)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    targets = bench_perft, bench_replay
}
criterion_main!(benches);
