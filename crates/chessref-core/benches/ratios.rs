//! chessref-core / shakmaty throughput ratios, measured interleaved.
//!
//! ```sh
//! cargo bench -p chessref-core --bench ratios   # about 30 seconds
//! ```
//!
//! The criterion bench (`vs_shakmaty`) measures each side for seconds in turn,
//! so on a shared machine a change of load between the two turns skews the
//! ratio. Here the two sides alternate run by run (ABBA order) on the same
//! workloads as `vs_shakmaty` (see `workloads/mod.rs`), and the ratio printed is
//! the median of the per-round ratios, next to the ratio of each side's fastest
//! run. Bars (issue 19): perft >= 1 on both positions, pgn_replay >= 1.5, and
//! san_replay (the public `State::parse_san` then `State::play`, per move)
//! >= 1.

use std::hint::black_box;
use std::time::Instant;

use chessref_core::{State, perft};

mod workloads;
use workloads::*;

fn seconds(run: &mut dyn FnMut() -> u64) -> f64 {
    let start = Instant::now();
    black_box(run());
    start.elapsed().as_secs_f64()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Runs both sides `rounds` times, alternating which goes first, and prints the ratios.
fn compare(
    name: &str,
    unit: &str,
    elements: u64,
    rounds: usize,
    bar: Option<f64>,
    ours: &mut dyn FnMut() -> u64,
    theirs: &mut dyn FnMut() -> u64,
) {
    assert_eq!(ours(), elements, "{name}: chessref-core counts differently");
    assert_eq!(theirs(), elements, "{name}: shakmaty counts differently");
    let (mut ours_t, mut theirs_t, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (a, b) = if round % 2 == 0 {
            let a = seconds(ours);
            (a, seconds(theirs))
        } else {
            let b = seconds(theirs);
            (seconds(ours), b)
        };
        ours_t.push(a);
        theirs_t.push(b);
        ratios.push(b / a);
    }
    let best = |t: &[f64]| t.iter().copied().fold(f64::INFINITY, f64::min);
    let best_ratio = best(&theirs_t) / best(&ours_t);
    let (ours_m, theirs_m) = (median(&mut ours_t), median(&mut theirs_t));
    let ratio = median(&mut ratios);
    let rate = |t: f64| elements as f64 / t / 1e6;
    let verdict = match bar {
        Some(bar) if ratio >= bar => format!("bar {bar}: met"),
        Some(bar) => format!("bar {bar}: NOT met"),
        None => "(no bar; for reference)".to_owned(),
    };
    println!(
        "{name:<18} chessref-core {:>8.2} M{unit}/s  shakmaty {:>8.2} M{unit}/s  ratio {ratio:.2} (fastest runs {best_ratio:.2})  {verdict}",
        rate(ours_m),
        rate(theirs_m),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; this binary has no options.
    println!(
        "interleaved chessref-core vs shakmaty 0.30.1 (both perfts count in bulk at the last ply)"
    );
    for (name, fen, depth, nodes) in [
        ("perft_initial_d5", INITIAL, 5, 4_865_609u64),
        ("perft_kiwipete_d4", KIWIPETE, 4, 4_085_603),
    ] {
        let ours = State::from_fen(fen).expect("FEN");
        let theirs = shakmaty_position(fen);
        compare(
            name,
            "nodes",
            nodes,
            21,
            Some(1.0),
            &mut || perft(black_box(&ours), depth),
            &mut || shakmaty::perft(black_box(&theirs), depth),
        );
    }
    let games = generate_games();
    let total = games.iter().map(Vec::len).sum::<usize>() as u64;
    let pgn = write_pgn(&games);
    compare(
        "pgn_replay",
        "plies",
        total,
        41,
        Some(1.5),
        &mut || replay_ours(black_box(pgn.as_bytes())) as u64,
        &mut || replay_shakmaty(black_box(&pgn), true) as u64,
    );
    compare(
        "san_replay",
        "plies",
        total,
        41,
        Some(1.0),
        &mut || san_replay_ours(black_box(&games)) as u64,
        &mut || san_replay_shakmaty(black_box(&games)) as u64,
    );
}
