//! The parsers (FEN, hex, raw bytes, UCI, SAN, PGN) never panic on arbitrary
//! input, and what they accept round-trips.
//!
//! Inputs are arbitrary strings and bytes, strings over each format's alphabet,
//! and near-valid mutations (replaced, inserted, deleted characters) of valid
//! FENs, states and PGNs. Every property runs a bounded number of cases
//! (`CASES`: 2,000 in a debug build, 16,000 optimized; `PROPTEST_CASES`
//! overrides it), with a fixed RNG seed so that CI runs are reproducible.

use std::io::Cursor;
use std::sync::LazyLock;

use chessref_core::{Move, PgnReader, RawMove, Square, State};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Position};

/// Cases per property: 2,000 in a debug build (about 10 s in all), 16,000 when
/// optimized (CI runs `--release`; about 5 s).
const CASES: u32 = if cfg!(debug_assertions) {
    2_000
} else {
    16_000
};

fn config(cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x2026_1121),
        ..Config::default()
    }
}

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
    "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
    "4k3/8/8/8/8/8/8/R3K3 b - - 10 64",
];

const HAND_PGN: &str = r#"[Event "Hand-written"]
[Site "?"]
[White "A \"quoted\" name"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Nf3 {a comment
over two lines} Nc6 3. Bb5 $1 a6 (3... Nf6 4. O-O (4. d3)) 4. Ba4!? Nf6 5. O-O Be7 ; rest of line
6. Re1 b5 7. Bb3 d6 8. c3 O-O 1-0

[FEN "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"]
[SetUp "1"]
[Result "*"]

1. b8=Q+ Kd7 2. Qb5+ *

1.e4 c5 2.Nf3 d6 3.Bb5+ Bd7 4.O-O 1/2-1/2
"#;

/// PGN text of seeded random games, written with shakmaty's SAN (independent of ours).
static GENERATED_PGNS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    (0..16)
        .map(|game| {
            let mut pos = Chess::default();
            let mut text = format!("[Event \"generated {game}\"]\n[Result \"*\"]\n\n");
            for ply in 0..rng.random_range(1..120) {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.random_range(0..moves.len())];
                if ply % 2 == 0 {
                    text.push_str(&format!("{}. ", ply / 2 + 1));
                }
                text.push_str(&SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
                text.push(' ');
            }
            text.push_str("*\n");
            text
        })
        .collect()
});

/// One edit of a text: `(position, kind, byte)`; kind 0 replaces, 1 inserts, 2 deletes.
fn edits(alphabet: &'static [u8], max: usize) -> impl Strategy<Value = Vec<(usize, u8, u8)>> {
    prop::collection::vec(
        (any::<usize>(), 0u8..3, prop::sample::select(alphabet)),
        0..max,
    )
}

fn mutate(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut bytes = base.to_vec();
    for &(at, kind, byte) in edits {
        let pos = if bytes.is_empty() {
            0
        } else {
            at % (bytes.len() + usize::from(kind == 1))
        };
        match kind {
            0 if pos < bytes.len() => bytes[pos] = byte,
            1 => bytes.insert(pos.min(bytes.len()), byte),
            2 if pos < bytes.len() => {
                bytes.remove(pos);
            }
            _ => {}
        }
    }
    bytes
}

const FEN_ALPHABET: &[u8] = b"pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0123456789x\t";
const SAN_ALPHABET: &[u8] = b"NBRQKabcdefgh12345678xO0-=+#!?qrbnP@ ";
const PGN_ALPHABET: &[u8] = b"[]\"{}();%$.\n\r\t *-/01 2NBRQKabcdefgh345678xO=+#!?\\e";
const HEX_ALPHABET: &[u8] = b"0123456789abcdefABCDEFx g";

/// Everything a valid state offers must work without panicking and be consistent.
fn exercise_state(s: &State) {
    let fen = s.fen();
    let back =
        State::from_fen(&fen).unwrap_or_else(|e| panic!("our own FEN {fen:?} is refused: {e}"));
    let (a, b) = (s.as_bytes(), back.as_bytes());
    for i in (0..128).filter(|i| ![8, 9].contains(i)) {
        assert_eq!(a[i], b[i], "FEN round trip changes byte {i}: {fen}");
    }
    assert_eq!(State::from_hex(&s.to_hex()).as_ref(), Ok(s));
    assert_eq!(State::from_bytes(s.as_bytes()).as_ref(), Ok(s));
    let _ = s.pretty();
    let _ = s.repetition_key();
    let _ = s.status();
    for m in s.legal_moves() {
        assert!(
            s.check(m).is_ok(),
            "{fen}: legal_moves lists {m} but check refuses it"
        );
        let san = s
            .san(m)
            .unwrap_or_else(|e| panic!("{fen}: no SAN for legal {m}: {e}"));
        assert_eq!(
            s.parse_san(&san).map(|legal| legal.mv()),
            Ok(m),
            "{fen}: SAN {san} of {m} does not parse back"
        );
        assert_eq!(
            s.parse_move(&m.to_uci()),
            Ok(m),
            "{fen}: UCI {m} does not parse back"
        );
        let _ = s
            .play(m)
            .unwrap_or_else(|e| panic!("{fen}: legal {m} refused by play: {e}"));
    }
}

/// Any text parse_san / parse_move accepts must be a legal move.
fn exercise_move_text(s: &State, text: &str) {
    if let Ok(m) = s.parse_san(text) {
        assert!(
            s.check(m.mv()).is_ok() && s.play(m) == s.play(m.mv()),
            "parse_san({text:?}) = {m}, an illegal move in {}",
            s.fen()
        );
    }
    if let Ok(m) = s.parse_move(text) {
        assert!(
            s.check(m).is_ok(),
            "parse_move({text:?}) = {m}, an illegal move in {}",
            s.fen()
        );
    }
    if let Ok(m) = Move::from_uci(text) {
        assert_eq!(Move::from_uci(&m.to_uci()), Ok(m));
        let _ = s.check(m);
        let _ = s.check(RawMove::from(m));
    }
}

/// Reads all games, replays each, and checks the reader ends (an iterator that
/// yields errors forever would hang its consumers).
fn exercise_pgn(bytes: &[u8]) {
    let mut reader = PgnReader::new(Cursor::new(bytes));
    let bound = bytes.len() + 2;
    let mut items = 0;
    for item in reader.by_ref().take(bound) {
        items += 1;
        if let Ok(game) = item {
            let _ = game.replay();
            let _ = game.replay_prefix();
        }
    }
    assert!(
        items < bound || reader.next().is_none(),
        "PgnReader yields more than {bound} items for {} bytes",
        bytes.len()
    );
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn fen_arbitrary_text(text in ".{0,120}") {
        if let Ok(s) = State::from_fen(&text) {
            exercise_state(&s);
        }
        let _ = text.parse::<State>();
    }

    #[test]
    fn fen_alphabet_text(bytes in prop::collection::vec(prop::sample::select(FEN_ALPHABET), 0..100)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(s) = State::from_fen(&text) {
            exercise_state(&s);
        }
    }

    #[test]
    fn fen_mutations(base in prop::sample::select(FENS), edits in edits(FEN_ALPHABET, 6)) {
        let text = String::from_utf8_lossy(&mutate(base.as_bytes(), &edits)).into_owned();
        if let Ok(s) = State::from_fen(&text) {
            // What we accept, we write and read back identically.
            prop_assert_eq!(State::from_fen(&s.fen()), Ok(s));
            exercise_state(&s);
        }
    }

    #[test]
    fn hex_arbitrary_text(text in "(0x)?[0-9a-fA-Fg ]{0,260}") {
        if let Ok(s) = State::from_hex(&text) {
            prop_assert_eq!(State::from_hex(&s.to_hex()), Ok(s));
        }
        let _ = State::from_hex(&text.replace(' ', ""));
    }

    #[test]
    fn hex_mutations(edits in edits(HEX_ALPHABET, 4)) {
        let text = String::from_utf8_lossy(&mutate(State::initial().to_hex().as_bytes(), &edits)).into_owned();
        if let Ok(s) = State::from_hex(&text) {
            exercise_state(&s);
        }
        let _ = text.parse::<State>();
    }

    #[test]
    fn bytes_arbitrary(bytes in prop::collection::vec(any::<u8>(), 0..140)) {
        if let Ok(s) = State::from_bytes(&bytes) {
            exercise_state(&s);
        }
    }

    /// Valid states edited in a few bytes with plausible values: many stay valid
    /// (odd positions move generation must survive), the rest must be refused cleanly.
    #[test]
    fn bytes_near_valid(
        base in prop::sample::select(FENS),
        edits in prop::collection::vec((0usize..128, prop::sample::select(&[0u8, 1, 2, 3, 4, 5, 6, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0x22, 0x54, 0x74, 0x04][..])), 1..5),
    ) {
        let mut bytes = *State::from_fen(base).unwrap().as_bytes();
        for (i, v) in edits {
            bytes[i] = v;
        }
        if let Ok(s) = State::from_bytes(&bytes) {
            exercise_state(&s);
        }
    }

    #[test]
    fn raw_moves_never_panic(base in prop::sample::select(FENS), packed in any::<u32>()) {
        let s = State::from_fen(base).unwrap();
        let mv = RawMove::from_packed(packed);
        let checked = s.check(mv);
        prop_assert_eq!(s.play(mv).err(), checked.err());
    }

    #[test]
    fn packed_moves_round_trip(packed in any::<u32>()) {
        prop_assert_eq!(RawMove::from_packed(packed).packed(), packed & 0xff_ffff);
    }

    #[test]
    fn square_text(text in "[a-j][0-9]|.{0,3}") {
        if let Ok(square) = text.parse::<Square>() {
            prop_assert_eq!(square.to_string(), text);
        }
    }

    #[test]
    fn uci_arbitrary_text(text in ".{0,8}") {
        exercise_move_text(&State::initial(), &text);
    }

    #[test]
    fn uci_alphabet_text(text in "[a-i][0-9][a-i][0-9][nbrqkpNBRQ1]?") {
        exercise_move_text(&State::from_fen(FENS[4]).unwrap(), &text);
        exercise_move_text(&State::initial(), &text);
    }

    #[test]
    fn san_arbitrary_text(base in prop::sample::select(FENS), text in ".{0,12}") {
        exercise_move_text(&State::from_fen(base).unwrap(), &text);
    }

    #[test]
    fn san_alphabet_text(base in prop::sample::select(FENS), bytes in prop::collection::vec(prop::sample::select(SAN_ALPHABET), 0..9)) {
        let text = String::from_utf8_lossy(&bytes);
        exercise_move_text(&State::from_fen(base).unwrap(), &text);
    }

    #[test]
    fn pgn_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        exercise_pgn(&bytes);
    }

    #[test]
    fn pgn_alphabet_bytes(bytes in prop::collection::vec(prop::sample::select(PGN_ALPHABET), 0..400)) {
        exercise_pgn(&bytes);
    }

    #[test]
    fn pgn_mutations(which in 0usize..17, edits in edits(PGN_ALPHABET, 8)) {
        let base = if which == 16 { HAND_PGN } else { GENERATED_PGNS[which].as_str() };
        exercise_pgn(&mutate(base.as_bytes(), &edits));
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// Unmutated generated and hand-written PGN replays fully.
    #[test]
    fn pgn_valid_replays(which in 0usize..17) {
        let base = if which == 16 { HAND_PGN } else { GENERATED_PGNS[which].as_str() };
        let games: Vec<_> = PgnReader::new(Cursor::new(base.as_bytes())).collect();
        prop_assert!(!games.is_empty());
        for game in games {
            let game = game.map_err(|e| TestCaseError::fail(format!("{e}")))?;
            game.replay().map_err(|e| TestCaseError::fail(format!("{e}")))?;
        }
    }
}

/// A move after an automatic end is refused, naming the game and the ply.
#[test]
fn pgn_move_after_the_end_is_refused() {
    let pgn = "[Event \"x\"]\n\n1. e4 *\n\n[FEN \"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. b8=N Kd7 *\n";
    let games: Vec<_> = PgnReader::new(Cursor::new(pgn.as_bytes())).collect();
    assert_eq!(games.len(), 2);
    let second = games[1].as_ref().expect("reads");
    assert_eq!(second.index, 2);
    assert_eq!(second.sans, ["b8=N", "Kd7"]);
    let error = second
        .replay()
        .expect_err("Kd7 comes after insufficient material");
    let text = error.to_string();
    assert!(
        text.contains("game 2") && text.contains("ply 2") && text.contains("Kd7"),
        "{text}"
    );
}
