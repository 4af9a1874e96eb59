//! ChessReferee against chessref-core, game by game on the in-process
//! chain: after every ply the MovePlayed state equals the Rust state byte
//! for byte, the status, ply, move and repetition history agree, the stored
//! commitment is the hash of that position, and the ending and the credits
//! are the predicted ones. Random games (with illegal attempts that must
//! revert with exactly the Rust code), and the real games of ../shared/data.

use std::{fs::File, io::BufReader};

use chessref_conformance::positions::shared_data_dir;
use chessref_core::PgnReader;
use chessref_evm::{EndReason, Replayer, RevmChain, SimulateOptions, simulate};

#[test]
fn random_games_with_illegal_attempts_agree() {
    let options = SimulateOptions {
        games: 60,
        seed: 2024,
        illegal_rate: 0.5,
        max_plies: 250,
    };
    let summary = simulate(RevmChain::new(), &options, |_| {}).expect("simulate");
    println!(
        "simulate: {} games, {} moves, {} illegal attempts by code {:?}, gas {:?}, endings {:?}",
        summary.games,
        summary.plies,
        summary.illegal_attempts,
        summary.illegal_by_code,
        summary.gas,
        summary.endings
    );
    assert!(
        summary.mismatches == 0,
        "mismatches:\n{}",
        summary.mismatch_details.join("\n")
    );
    assert_eq!(summary.games, 60);
    assert!(summary.plies > 5_000, "{} plies", summary.plies);
    for code in [1, 2, 3, 4, 5, 6, 7, 8, 13, 14] {
        assert!(
            summary.illegal_by_code[code] > 0,
            "no illegal attempt with code {code}: {:?}",
            summary.illegal_by_code
        );
    }
    assert!(
        summary
            .endings
            .iter()
            .any(|(ending, _)| ending.reason == EndReason::Checkmate),
        "some random game ends in mate: {:?}",
        summary.endings
    );
}

#[test]
fn a_move_refused_by_the_rust_replay_is_refused_on_chain_with_the_same_code() {
    let pgn = "[Event \"illegal\"]\n\n1. e4 e5 2. d1d4 *\n";
    let mut replayer = Replayer::new(RevmChain::new()).expect("deploy");
    let game = PgnReader::new(pgn.as_bytes()).next().expect("one game");
    let report = replayer.replay(game).expect("replay");
    assert_eq!(report.plies, 2);
    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
    // d1d4 passes over d2 and d3: PATH_BLOCKED, code 7, from the contract too.
    assert_eq!(report.refused_code, Some(7));
    assert!(report.note.is_some_and(|n| n.contains("d1d4")));
    assert_eq!(report.ending, None);
}

/// Replays the first `limit` games of a PGN of ../shared/data/pgn.
fn replay_shared(file: &str, limit: usize) -> Option<chessref_evm::ReplaySummary> {
    let path = shared_data_dir().join("pgn").join(file);
    let Ok(input) = File::open(&path) else {
        println!(
            "{} is ABSENT: real-game replay not run (random games still are)",
            path.display()
        );
        return None;
    };
    let mut replayer = Replayer::new(RevmChain::new()).expect("deploy");
    let mut details = Vec::new();
    for game in PgnReader::new(BufReader::new(input)).take(limit) {
        let report = replayer.replay(game).expect("replay");
        details.extend(report.mismatches.iter().map(ToString::to_string));
    }
    let summary = replayer.summary();
    println!("{file}: {summary:?}");
    assert!(
        details.is_empty(),
        "{} mismatches in {file}:\n{}",
        details.len(),
        details[..details.len().min(40)].join("\n")
    );
    Some(summary)
}

#[test]
fn real_games_replay_identically_lichess_and_threefold() {
    if let Some(s) = replay_shared("lichess_2025-05_sample.pgn", usize::MAX) {
        assert_eq!((s.games, s.pgn_errors), (438, 0));
    }
    // Every one of these ends in a claimable threefold: each claim is sent with its witness.
    if let Some(s) = replay_shared("engine_threefold.pgn", usize::MAX) {
        assert_eq!(s.games, 713);
    }
}

#[test]
fn real_games_replay_identically_twic() {
    if let Some(s) = replay_shared("twic0920.pgn", usize::MAX) {
        assert_eq!(s.games, 2245);
    }
}

#[test]
fn real_games_replay_identically_masters_sample() {
    if let Some(s) = replay_shared("masters_sample.pgn", 3_000) {
        assert_eq!(s.games, 3_000);
    }
}
