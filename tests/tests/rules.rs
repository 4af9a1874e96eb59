//! ChessRulesView (the compiled contract, on revm) against chessref-core,
//! position by position: every legal move, at least 20 illegal candidates
//! per position covering every rejection code, play bytes, status,
//! insufficient material, repetition key, and validateState on mutated
//! states. Any disagreement is reported with the state hex, the move and
//! both answers.

use chessref_conformance::{
    candidates::illegal_candidates,
    mutations::mutate,
    positions::{START_FENS, random_game_positions, shared_data_dir, shared_perft_fens},
    report::Report,
};
use chessref_core::{Color, RawMove, State, StateError};
use chessref_evm::{ContractRevert, EvmError, RevmChain, RulesView};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Illegal candidates per position, at least.
const MIN_ILLEGAL: usize = 20;

fn view() -> RulesView<RevmChain> {
    RulesView::deploy(RevmChain::new()).expect("deploy ChessRulesView")
}

fn uci(m: RawMove) -> String {
    format!(
        "(from {}, to {}, promotion {}) packed 0x{:06x}",
        m.from,
        m.to,
        m.promotion,
        m.packed()
    )
}

/// Compares everything about one position; returns (legal, illegal) move counts.
fn compare_position(
    view: &mut RulesView<RevmChain>,
    state: &State,
    rng: &mut ChaCha8Rng,
    report: &mut Report,
) -> (usize, usize) {
    let bytes = state.as_bytes();
    let hex = state.to_hex();
    let hex = hex.as_str();
    let ctx = |extra: String| move || format!("state {hex} ({}) {extra}", state.fen());

    report.compare(
        "validateState(valid)",
        ctx(String::new()),
        0u8,
        view.validate_state(bytes).expect("validateState"),
    );
    report.compare(
        "status",
        ctx(String::new()),
        state.status().code(),
        view.status(bytes).expect("status"),
    );
    report.compare(
        "repetitionKey",
        ctx(String::new()),
        state.repetition_key(),
        view.repetition_key(bytes).expect("repetitionKey"),
    );
    for (side, white) in [(Color::White, true), (Color::Black, false)] {
        report.compare(
            "insufficientMaterial",
            ctx(format!("side {side:?}")),
            state.has_insufficient_material(side),
            view.insufficient_material(bytes, white)
                .expect("insufficientMaterial"),
        );
    }

    let legal = state.legal_moves();
    for &mv in &legal {
        let raw = RawMove::from(mv);
        report.compare(
            "check(legal)",
            ctx(format!("move {} {}", mv.to_uci(), uci(raw))),
            0u8,
            view.check(bytes, raw.packed()).expect("check"),
        );
        let rust_next = state.play(mv).expect("legal move plays in Rust");
        match view.play(bytes, raw.packed()) {
            Ok(evm_next) => report.compare(
                "play bytes",
                ctx(format!("move {}", mv.to_uci())),
                rust_next.to_hex(),
                alloy_primitives::hex::encode(&evm_next),
            ),
            Err(e) => report.compare(
                "play(legal)",
                ctx(format!("move {}", mv.to_uci())),
                "ok".to_string(),
                e.to_string(),
            ),
        }
    }

    let illegal = illegal_candidates(state, rng, MIN_ILLEGAL);
    for (i, &raw) in illegal.iter().enumerate() {
        let rust = match state.check(raw) {
            Ok(_) => 0,
            Err(rejection) => rejection.code(),
        };
        report.rejections[rust as usize] += 1;
        let evm = view.check(bytes, raw.packed()).expect("check");
        report.compare(
            "check(candidate)",
            ctx(format!("move {}", uci(raw))),
            rust,
            evm,
        );
        // play must revert with the same code (a sample: it costs a full call).
        if i % 4 == 0 && rust != 0 {
            let evm_play = match view.play(bytes, raw.packed()) {
                Err(EvmError::Reverted { revert, .. }) => revert,
                Ok(next) => ContractRevert::Unknown(next.into()),
                Err(e) => panic!("play: {e}"),
            };
            report.compare(
                "play(illegal) revert",
                ctx(format!("move {}", uci(raw))),
                ContractRevert::IllegalMove(rust),
                evm_play,
            );
        }
    }
    (legal.len(), illegal.len())
}

fn run(title: &str, positions: &[State], seed: u64) -> Report {
    let mut view = view();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut report = Report::default();
    let (mut legal, mut illegal) = (0, 0);
    for state in positions {
        let (l, i) = compare_position(&mut view, state, &mut rng, &mut report);
        assert!(
            i >= MIN_ILLEGAL,
            "only {i} illegal candidates for {}",
            state.fen()
        );
        legal += l;
        illegal += i;
    }
    println!(
        "{title}: {} positions, {legal} legal and {illegal} illegal moves, {} comparisons, {} mismatches",
        positions.len(),
        report.comparisons,
        report.mismatches.len()
    );
    println!(
        "{title}: rejection codes compared (index = code): {:?}",
        report.rejections
    );
    report
}

#[test]
fn initial_state_is_byte_identical() {
    let mut view = view();
    assert_eq!(
        view.initial_state().unwrap(),
        State::initial().as_bytes().to_vec()
    );
}

#[test]
fn perft_positions_conform() {
    let mut fens: Vec<String> = START_FENS.iter().map(|s| s.to_string()).collect();
    match shared_perft_fens() {
        Some(shared) => {
            println!(
                "perft positions: {} from {}",
                shared.len(),
                shared_data_dir().display()
            );
            fens.extend(shared);
        }
        None => println!(
            "perft positions: {} is ABSENT, built-in positions only",
            shared_data_dir().display()
        ),
    }
    let positions: Vec<State> = fens
        .iter()
        .map(|f| State::from_fen(f).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect();
    run("perft positions", &positions, 7).assert_clean("perft positions");
}

#[test]
fn random_game_positions_conform_a() {
    let positions = random_game_positions(0xC0FFEE, 1100, 60);
    assert_eq!(positions.len(), 1100);
    let report = run("random games A", &positions, 11);
    report.assert_clean("random games A");
    for code in 1..=14 {
        assert!(
            report.rejections[code] >= 10,
            "rejection code {code} compared only {} times",
            report.rejections[code]
        );
    }
}

#[test]
fn random_game_positions_conform_b() {
    let positions = random_game_positions(0xBADC0DE, 1100, 220);
    assert_eq!(positions.len(), 1100);
    let report = run("random games B", &positions, 13);
    report.assert_clean("random games B");
    // Long games reach endgames, where castling rights are mostly gone: the
    // castling-check codes 10 and 11 are covered by part A.
    for code in (1..=14).filter(|c| ![10, 11].contains(c)) {
        assert!(
            report.rejections[code] >= 10,
            "rejection code {code} compared only {} times",
            report.rejections[code]
        );
    }
}

#[test]
fn validate_state_agrees_on_mutated_states() {
    let mut view = view();
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut report = Report::default();
    let positions = random_game_positions(0x5EED, 700, 160);
    let mut sampled = 0;
    for state in &positions {
        for bytes in mutate(state.as_bytes(), &mut rng) {
            let rust = match State::from_bytes(&bytes) {
                Ok(_) => 0,
                Err(StateError::Invalid(code)) => code.code(),
                Err(e) => panic!("128 bytes rejected for another reason: {e}"),
            };
            report.invalid_states[rust as usize] += 1;
            let hex = alloy_primitives::hex::encode(bytes);
            let evm = view.validate_state(&bytes).expect("validateState");
            report.compare("validateState", || format!("state {hex}"), rust, evm);
            // The views refuse an invalid state with the same code.
            if rust != 0 && sampled % 5 == 0 {
                let expected = ContractRevert::InvalidState(rust);
                let got = |r: Result<u8, EvmError>| match r {
                    Err(EvmError::Reverted { revert, .. }) => revert,
                    Ok(v) => ContractRevert::Unknown(vec![v].into()),
                    Err(e) => panic!("{e}"),
                };
                report.compare(
                    "status(invalid)",
                    || format!("state {hex}"),
                    expected.clone(),
                    got(view.status(&bytes)),
                );
                report.compare(
                    "check(invalid)",
                    || format!("state {hex}"),
                    expected,
                    got(view.check(&bytes, 0x64_44_00)),
                );
            }
            sampled += 1;
        }
    }
    // Lengths other than 128.
    for len in [0usize, 1, 127, 129, 256] {
        let bytes = vec![0u8; len];
        assert!(matches!(State::from_bytes(&bytes), Err(StateError::BadLength(l)) if l == len));
        match view.status(&bytes) {
            Err(EvmError::Reverted {
                revert: ContractRevert::BadStateLength(l),
                ..
            }) => assert_eq!(l.to::<usize>(), len),
            other => panic!("status of {len} bytes: {other:?}"),
        }
    }
    println!(
        "mutated states: {} compared, {} mismatches; invalid-state codes (index = code): {:?}",
        report.comparisons,
        report.mismatches.len(),
        report.invalid_states
    );
    report.assert_clean("validateState on mutated states");
    for code in 0..=8 {
        assert!(
            report.invalid_states[code] >= 10,
            "invalid-state code {code} compared only {} times",
            report.invalid_states[code]
        );
    }
}

#[test]
fn legal_move_lists_agree() {
    let mut view = view();
    let mut report = Report::default();
    for fen in START_FENS {
        let state = State::from_fen(fen).unwrap();
        let mut rust: Vec<u32> = state
            .legal_moves()
            .into_iter()
            .map(|m| RawMove::from(m).packed())
            .collect();
        let mut evm = view.legal_moves(state.as_bytes()).expect("legalMoves");
        rust.sort_unstable();
        evm.sort_unstable();
        report.compare(
            "legalMoves",
            || format!("state {}", state.to_hex()),
            rust,
            evm,
        );
    }
    report.assert_clean("legalMoves");
}
