//! Runs the built `chessref` binary and checks its exact output forms and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn chessref(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn chessref_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

fn json(o: &Output) -> Value {
    serde_json::from_str(stdout(o).trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

#[test]
fn perft_prints_the_total_on_the_last_line() {
    let o = chessref(&["perft", "3"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().last(), Some("8902"));
    let o = chessref(&["perft", "2", "--fen", KIWIPETE]);
    assert_eq!(stdout(&o).trim(), "2039");
}

#[test]
fn perft_divide_lists_every_move_then_the_total() {
    let o = chessref(&["perft", "2", "--divide"]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 21);
    assert!(lines.contains(&"e2e4: 20"), "{out}");
    assert!(lines.contains(&"g1f3: 20"), "{out}");
    let sum: u64 = lines[..20]
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 400);
    assert_eq!(lines[20], "400");
    let o = chessref(&["perft", "0", "--divide"]);
    assert_eq!(stdout(&o), "1\n");
}

#[test]
fn moves_lists_legal_moves_in_uci() {
    let o = chessref(&["moves"]);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 20);
    assert!(out.lines().any(|l| l == "b1c3"));
    let o = chessref(&[
        "moves",
        "--fen",
        "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        "--json",
    ]);
    let v = json(&o);
    let moves: Vec<&str> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    for promo in ["b7b8q", "b7b8r", "b7b8b", "b7b8n"] {
        assert!(moves.contains(&promo), "{moves:?}");
    }
    assert_eq!(v["san"].as_array().unwrap().len(), moves.len());
    assert!(
        v["san"].as_array().unwrap().iter().any(|s| s == "b8=Q+"),
        "{v}"
    );
}

#[test]
fn check_exit_codes_and_json() {
    let o = chessref(&[
        "check",
        "--fen",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "e2e4",
        "--json",
    ]);
    assert_eq!(code(&o), 0);
    assert_eq!(
        json(&o),
        serde_json::json!({"legal": true, "code": 0, "reason": "OK"})
    );

    let o = chessref(&[
        "check",
        "--fen",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "e2e5",
        "--json",
    ]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        json(&o),
        serde_json::json!({"legal": false, "code": 6, "reason": "BAD_GEOMETRY"})
    );

    // A pinned knight: KING_LEFT_IN_CHECK.
    let o = chessref(&[
        "check",
        "--fen",
        "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1",
        "e2c3",
        "--json",
    ]);
    assert_eq!(json(&o)["code"], 14);
    assert_eq!(json(&o)["reason"], "KING_LEFT_IN_CHECK");

    // Syntactically odd but well-formed squares are checked, not refused as input.
    let o = chessref(&["check", "e2e2", "--json"]);
    assert_eq!(
        (code(&o), json(&o)["reason"].clone()),
        (1, "SAME_SQUARE".into())
    );
    let o = chessref(&[
        "check",
        "--fen",
        "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        "b7b8k",
        "--json",
    ]);
    assert_eq!(json(&o)["reason"], "INVALID_PROMOTION");
    let o = chessref(&[
        "check",
        "--fen",
        "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        "b7b8",
        "--json",
    ]);
    assert_eq!(json(&o)["reason"], "PROMOTION_REQUIRED");
    // The packed uint24 form reaches off-board squares.
    let o = chessref(&["check", "0x640800", "--json"]);
    assert_eq!(
        json(&o),
        serde_json::json!({"legal": false, "code": 1, "reason": "OFF_BOARD"})
    );
    let o = chessref(&["check", "0x644400"]);
    assert_eq!(
        (code(&o), stdout(&o).trim().to_owned()),
        (0, "legal".to_owned())
    );

    let o = chessref(&["check", "e2e4x"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("e2e4x"), "{}", stderr(&o));
    let o = chessref(&["check", "--fen", "not a fen", "e2e4"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("not a fen"), "{}", stderr(&o));
}

#[test]
fn play_accepts_uci_and_san() {
    let o = chessref(&["play", "e2e4", "c5", "Nf3"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("fen: rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        "{out}"
    );
    assert!(out.contains("status: ONGOING (0)"), "{out}");
    let hex = out.lines().find_map(|l| l.strip_prefix("hex: ")).unwrap();
    assert_eq!(hex.len(), 256);

    let o = chessref(&["play", "--json", "f3", "e5", "g4", "Qh4#"]);
    let v = json(&o);
    assert_eq!(v["status"], "CHECKMATE");
    assert_eq!(
        v["moves"],
        serde_json::json!(["f2f3", "e7e5", "g2g4", "d8h4"])
    );

    // A move after mate is refused, naming the end.
    let o = chessref(&["play", "f3", "e5", "g4", "Qh4#", "Kf2"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("CHECKMATE"), "{}", stderr(&o));
    let o = chessref(&["play", "e4", "Ke7"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("move 2"), "{}", stderr(&o));
}

#[test]
fn state_decodes_fen_and_hex_both_ways() {
    let o = chessref(&[
        "state",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "--json",
    ]);
    assert_eq!(code(&o), 0);
    let v = json(&o);
    let hex = v["hex"].as_str().unwrap().to_owned();
    assert!(hex.starts_with("fcfefdfbfafdfefc00000004"), "{hex}");
    assert_eq!(v["status"], "ONGOING");
    assert_eq!(v["inCheck"], false);

    let o = chessref(&["state", &hex, "--json"]);
    assert_eq!(
        json(&o)["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    let o = chessref(&["state", &format!("0x{hex}")]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
}

#[test]
fn state_reports_invalid_states_with_their_section_7_code() {
    // The side not to move is in check: OPPONENT_IN_CHECK (6).
    let o = chessref(&["state", "4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1", "--json"]);
    assert_eq!(code(&o), 1);
    let v = json(&o);
    assert_eq!(
        (v["valid"].clone(), v["code"].clone(), v["reason"].clone()),
        (false.into(), 6.into(), "OPPONENT_IN_CHECK".into())
    );

    // Hex with a bad piece code on a1: BAD_PIECE_CODE (1).
    let o = chessref(&[
        "state",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "--json",
    ]);
    let mut bytes = hex_bytes(json(&o)["hex"].as_str().unwrap());
    bytes[112] = 9;
    let o = chessref(&["state", &to_hex(&bytes), "--json"]);
    assert_eq!(code(&o), 1);
    assert_eq!(json(&o)["code"], 1);
    assert_eq!(json(&o)["reason"], "BAD_PIECE_CODE");

    // Not a state at all: bad input.
    let o = chessref(&["state", "abc"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("128"), "{}", stderr(&o));
    let o = chessref(&["state", "rnbqkbnr/pppppppp w"]);
    assert_eq!(code(&o), 2);
}

fn hex_bytes(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

const TWO_GAMES: &str = "[Event \"a\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n[Event \"b\"]\n\n1. e4 e5 2. Ke3 *\n";

#[test]
fn pgn_json_reports_every_game() {
    let o = chessref_stdin(&["pgn", "-", "--json"], TWO_GAMES);
    assert_eq!(
        code(&o),
        1,
        "a game with an illegal move makes the exit status non-zero"
    );
    let out = stdout(&o);
    let rows: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["index"], 1);
    assert_eq!(rows[0]["plies"], 4);
    assert_eq!(rows[0]["status"], "CHECKMATE");
    assert_eq!(rows[0]["result"], "0-1");
    assert_eq!(rows[0]["error"], Value::Null);
    assert_eq!(rows[0]["hex"].as_str().unwrap().len(), 256);
    assert_eq!(rows[1]["index"], 2);
    assert_eq!(rows[1]["plies"], 2);
    assert_eq!(
        rows[1]["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
    );
    let err = rows[1]["error"].as_str().unwrap();
    assert!(
        err.contains("game 2") && err.contains("ply 3") && err.contains("Ke3"),
        "{err}"
    );
}

#[test]
fn pgn_plain_summarises_and_succeeds_on_clean_files() {
    let dir = std::env::temp_dir().join(format!("chessref-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("clean.pgn");
    std::fs::write(&path, "1. e4 e5 2. Nf3 Nc6 *\n\n1. d4 d5 1/2-1/2\n").unwrap();
    let o = chessref(&["pgn", path.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o).trim(), "2 games, 6 plies, 0 with errors");
    let missing = dir.join("missing.pgn");
    let o = chessref(&["pgn", missing.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("missing.pgn"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_usage_exits_2_without_panicking() {
    for args in [
        &["perft"][..],
        &["perft", "x"],
        &["nonsense"],
        &["check"],
        &["perft", "99"],
        &["moves", "--fen", ""],
    ] {
        let o = chessref(args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
}

const REPLAY_GAMES: &str = r#"[Event "scholar"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0

[Event "en passant, castling, promotion"]
[Result "*"]

1. e4 Nf6 2. e5 d5 3. exd6 Nc6 4. dxc7 e5 5. cxd8=N Kxd8 6. Nf3 Bd6 7. Bc4 Ke7 8. O-O *
"#;

#[test]
fn replay_json_reports_every_ply_matching_the_contract() {
    let o = chessref_stdin(&["replay", "-", "--json"], REPLAY_GAMES);
    assert_eq!(code(&o), 0, "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["games"], 2);
    assert_eq!(v["plies"], 7 + 15);
    assert_eq!(v["mismatches"], 0);
    let median = v["gas"]["median"].as_u64().expect("gas median");
    let max = v["gas"]["max"].as_u64().expect("gas max");
    assert!(v["gas"]["p90"].as_u64().is_some());
    assert!(21_000 < median && median <= max, "gas {median} .. {max}");
    assert!(v["movesPerSec"].as_f64().is_some_and(|r| r > 0.0));
    // The scholar's mate ended on chain; the second game is still running.
    assert_eq!(
        v["endings"],
        serde_json::json!([{
            "result": {"code": 1, "name": "white_wins"},
            "reason": {"code": 1, "name": "checkmate"},
            "games": 1,
        }])
    );
}

#[test]
fn replay_text_names_results_and_reasons() {
    let o = chessref_stdin(&["replay", "-"], REPLAY_GAMES);
    assert_eq!(code(&o), 0, "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("game 1:") && l.ends_with(", white_wins, checkmate")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("game 2:") && l.ends_with(", running")),
        "{out}"
    );
    assert!(out.contains("endings white_wins, checkmate: 1;"), "{out}");
}

#[test]
fn replay_of_an_unreadable_file_is_bad_input() {
    let o = chessref(&["replay", "/nonexistent/games.pgn"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("/nonexistent/games.pgn"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn simulate_with_illegal_attempts_agrees_with_the_contract() {
    let o = chessref(&[
        "simulate",
        "--games",
        "2",
        "--seed",
        "3",
        "--illegal-rate",
        "0.3",
    ]);
    assert_eq!(code(&o), 0, "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("2 games"), "{out}");
    assert!(out.contains(" 0 mismatches"), "{out}");
    assert!(out.contains("gas per move: median"), "{out}");
    // Seed 3 with illegal attempts: one mate, one game resigned at the ply limit.
    assert!(
        out.contains(
            "endings (result, reason: games): black_wins, checkmate: 1; black_wins, resignation: 1"
        ),
        "{out}"
    );
}

#[test]
fn simulate_json_gives_each_ending_as_code_and_name() {
    let o = chessref(&["simulate", "--games", "2", "--seed", "3", "--json"]);
    assert_eq!(code(&o), 0, "stderr: {}", stderr(&o));
    assert_eq!(
        json(&o)["endings"],
        serde_json::json!([{
            "result": {"code": 2, "name": "black_wins"},
            "reason": {"code": 5, "name": "resignation"},
            "games": 2,
        }])
    );
}

#[test]
fn check_on_the_evm_answers_like_the_rust_check() {
    let fen = "r3k2r/8/8/8/8/8/6b1/R3K2R w KQkq - 0 1";
    for mv in ["e1g1", "e1c1", "a1a8", "e1e3", "h1h2"] {
        let rust = chessref(&["check", "--fen", fen, mv, "--json"]);
        let evm = chessref(&["check", "--evm", "--fen", fen, mv, "--json"]);
        assert_eq!(stdout(&rust), stdout(&evm), "{mv}");
        assert_eq!(code(&rust), code(&evm), "{mv}");
    }
}

#[test]
fn play_takes_flags_after_the_moves() {
    let o = chessref(&["play", "e2e4", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json(&o)["moves"], serde_json::json!(["e2e4"]));
    let fen = "7k/8/8/8/8/K6n/6P1/2r5 w - - 0 1";
    let o = chessref(&["play", "--fen", fen, "g2h3", "c1h1", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json(&o)["fen"], "7k/8/8/8/8/K6P/8/7r w - - 1 2");
    // A move never starts with `--`: an unknown flag is bad usage, not a move.
    let o = chessref(&["play", "e2e4", "--jsn"]);
    assert_eq!(code(&o), 2);
    assert!(!stderr(&o).contains("as a move"), "{}", stderr(&o));
}

#[test]
fn play_and_pgn_say_when_a_game_reached_fivefold_repetition() {
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(4);
    let mut args = vec!["play"];
    args.extend(shuffle.iter().copied());
    let o = chessref(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("status: ONGOING (0)"), "{out}");
    assert!(
        out.contains("fivefold repetition at ply 16: drawn under FIDE 9.6.1, claimable on-chain"),
        "{out}"
    );
    args.push("--json");
    assert_eq!(json(&chessref(&args))["fivefoldPly"], 16);

    let pgn = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 \
               7. Nf3 Nf6 8. Ng1 Ng8 9. e4 *\n";
    let o = chessref_stdin(&["pgn", "-"], pgn);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("game 1: fivefold repetition at ply 16: drawn under FIDE 9.6.1"),
        "{}",
        stdout(&o)
    );
    let o = chessref_stdin(&["pgn", "-", "--json"], pgn);
    assert_eq!(json(&o)["fivefoldPly"], 16);
    assert_eq!(json(&o)["status"], "ONGOING");
}

#[test]
fn pgn_reports_other_variants_per_game_and_goes_on() {
    let pgn = "[Variant \"Antichess\"]\n\n1. e3 b5 2. Bxb5 Bb7 3. Bxd7 *\n\n\
               [Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@b4 *\n\n\
               [Variant \"Standard\"]\n\n1. e4 e5 *\n";
    let o = chessref_stdin(&["pgn", "-"], pgn);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("game 1: variant \"Antichess\" is not supported"),
        "{out}"
    );
    assert!(
        out.contains("game 2: variant \"Crazyhouse\" is not supported"),
        "{out}"
    );
    assert!(out.ends_with("3 games, 2 plies, 2 with errors\n"), "{out}");
}

/// Game 2 plays on after Kxd2 left two bare kings (an automatic draw).
const PLAYED_ON_AFTER_A_DRAW: &str = "1. e4 e5 *\n\n\
    [FEN \"4k3/8/8/8/8/8/3p4/4K3 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n1. Kxd2 Kd7 2. Kc3 1/2-1/2\n";

#[test]
fn pgn_and_replay_agree_on_games_played_on_after_an_automatic_draw() {
    let o = chessref_stdin(&["pgn", "-"], PLAYED_ON_AFTER_A_DRAW);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "game 2: ended at ply 1 (INSUFFICIENT_MATERIAL, 1/2-1/2); 2 moves written after the end not played"
        ),
        "{out}"
    );
    assert!(
        out.ends_with("2 games, 3 plies, 0 with errors, 1 with moves after an automatic draw\n"),
        "{out}"
    );
    let o = chessref_stdin(&["pgn", "-", "--json"], PLAYED_ON_AFTER_A_DRAW);
    let row: Value = serde_json::from_str(stdout(&o).lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        (
            &row["plies"],
            &row["status"],
            &row["movesAfterEnd"],
            &row["error"]
        ),
        (
            &serde_json::json!(1),
            &serde_json::json!("INSUFFICIENT_MATERIAL"),
            &serde_json::json!(2),
            &Value::Null
        )
    );
    let o = chessref_stdin(&["replay", "-", "--json"], PLAYED_ON_AFTER_A_DRAW);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        (json(&o)["plies"].clone(), json(&o)["mismatches"].clone()),
        (3.into(), 0.into())
    );
}

#[test]
fn long_runs_stay_quiet_when_piped() {
    // stderr is a pipe here: no progress bar, no control characters.
    for o in [
        chessref_stdin(&["pgn", "-"], REPLAY_GAMES),
        chessref_stdin(&["replay", "-"], REPLAY_GAMES),
        chessref(&["simulate", "--games", "2", "--seed", "5"]),
    ] {
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(stderr(&o), "");
        assert!(!stdout(&o).contains('\u{1b}'), "{}", stdout(&o));
    }
}

const CHANNEL_FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/channel-examples.json"
);

#[test]
fn channel_verify_accepts_the_fixture_and_names_the_settling_call() {
    let out = chessref(&["channel", "verify", CHANNEL_FIXTURE, "--now", FIXTURE_NOW]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("valid: 4 signed plies"), "{stdout}");
    assert!(stdout.contains("ChessChannel.settle"), "{stdout}");
}

/// The fixture's `now`: its session keys' delegations expire soon after.
const FIXTURE_NOW: &str = "1767225720";

#[test]
fn channel_verify_judges_a_session_keys_result_at_the_time_given() {
    // An hour later the session keys' delegations have expired: the signed result no
    // longer counts, and the last pair (a mate) is to be registered instead.
    let out = chessref(&["channel", "verify", CHANNEL_FIXTURE, "--now", "1767229320"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("expired"), "{stdout}");
    assert!(stdout.contains("ChessChannel.register"), "{stdout}");
}

#[test]
fn channel_verify_reports_the_first_bad_ply_with_exit_1() {
    let mut f: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(CHANNEL_FIXTURE).unwrap()).unwrap();
    // Replace ply 2 by the fixture's validly signed move that cuts white's time.
    let cut = f["negative"]["transitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "opponent's time cut")
        .unwrap()["move"]
        .clone();
    f["moves"][1] = cut;
    let out = chessref_stdin(
        &["channel", "verify", "-", "--json", "--now", FIXTURE_NOW],
        &f.to_string(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["validPlies"], 1);
    let error = report["error"].as_str().unwrap();
    assert!(
        error.contains("ply 2") && error.contains("BAD_TIME"),
        "{error}"
    );
    assert_eq!(report["settlement"]["call"], "proveIllegalMove");
}

#[test]
fn channel_verify_refuses_junk_with_exit_2() {
    let out = chessref_stdin(&["channel", "verify", "-"], "{\"moves\": 3}");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a transcript"));
}

/// anvil's account 1: white in [`anvil_channel_game`], the player who sends.
const ANVIL_1: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/// `chessref channel settle|dispute FILE` on `anvil`, sent from [`ANVIL_1`].
fn channel_send(call: &str, file: &str, anvil: &chessref_evm::anvil::Anvil) -> Output {
    chessref(&[
        "channel",
        call,
        file,
        "--rpc",
        anvil.url(),
        "--unlocked",
        ANVIL_1,
    ])
}

/// A channel game between anvil's accounts 1 and 2 (well-known keys), played off-chain;
/// returns the anvil node (alive while held), the game and the referee client.
fn anvil_channel_game(
    plies: &[&str],
) -> (
    chessref_evm::anvil::Anvil,
    chessref_channel::client::OffChainGame,
    chessref_evm::Referee<chessref_evm::RpcChain>,
) {
    use chessref_evm::Chain;
    let anvil =
        chessref_evm::anvil::Anvil::spawn().expect("anvil (installed by scripts/bootstrap.sh)");
    let chain = chessref_evm::RpcChain::connect(anvil.url()).expect("connect");
    let mut referee = chessref_evm::Referee::deploy(chain).expect("deploy");
    let accounts = referee.chain().accounts().to_vec();
    let (white, black) = (accounts[1], accounts[2]);
    let stake = alloy_primitives::U256::from(1_000u64);
    let created = referee
        .create_channel_game(white, &chessref_evm::GameSetup::eth(black, stake), 600)
        .expect("create");
    referee.join_game(black, created.id, stake).expect("join");
    let domain = referee.channel_domain().expect("domain");
    let terms = referee.channel_game(created.id, None).expect("terms");
    let ws =
        chessref_channel::client::Seat::wallet(referee.chain().signer(white).expect("anvil key"));
    let bs =
        chessref_channel::client::Seat::wallet(referee.chain().signer(black).expect("anvil key"));
    let mut game =
        chessref_channel::client::OffChainGame::new(domain, terms, ws, bs).expect("game");
    // Stamped by the node's clock, each move 2 s after the last, each acknowledged.
    let mut now = referee.chain().timestamp().expect("time");
    for uci in plies {
        now += 2;
        game.play(chessref_core::Move::from_uci(uci).unwrap(), now)
            .expect("legal");
        game.receipt(now + 1).expect("receipt");
    }
    (anvil, game, referee)
}

fn write_transcript(t: &chessref_channel::Transcript, name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("chessref-{name}-{}.json", std::process::id()));
    std::fs::write(&path, serde_json::to_string_pretty(t).unwrap()).unwrap();
    path
}

#[test]
fn channel_settle_sends_the_signed_result_over_rpc() {
    let (anvil, game, mut referee) = anvil_channel_game(&["e2e4", "e7e5", "g1f3"]);
    let path = write_transcript(&game.transcript_agreed(1).unwrap(), "settle");
    let file = path.to_str().unwrap();
    // A settled game is not a dispute.
    let refused = channel_send("dispute", file, &anvil);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("use `chessref channel settle`"),
        "{}",
        stderr(&refused)
    );
    // Issue 29, item 5: the key sources of every command, never a node account picked
    // silently: with none, nothing is sent and the sources are named.
    let keyless = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(["channel", "settle", file, "--rpc", anvil.url()])
        .env_remove("CHESSREF_PRIVATE_KEY")
        .env_remove("CHESSREF_PRIVATE_KEYS")
        .output()
        .unwrap();
    assert_eq!(keyless.status.code(), Some(2));
    assert!(
        stderr(&keyless).contains("no sender: set CHESSREF_PRIVATE_KEY"),
        "{}",
        stderr(&keyless)
    );
    assert_eq!(
        referee.game(game.game.game_id).unwrap().phase,
        2,
        "nothing sent"
    );
    let out = channel_send("settle", file, &anvil);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!("sending from {ANVIL_1} (white)")),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("ended: white_wins, agreement"),
        "{}",
        stdout(&out)
    );
    assert_eq!(referee.game(game.game.game_id).unwrap().phase, 3);
    // Sending it again is refused by the chain, with the contract's error in words.
    let again = channel_send("settle", file, &anvil);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("settle reverted: game 1 is not running"),
        "{}",
        stderr(&again)
    );
    std::fs::remove_file(path).ok();
}

#[test]
fn channel_settle_registers_a_mate_then_finishes_it_after_the_window() {
    use chessref_evm::Chain;
    let (anvil, game, mut referee) = anvil_channel_game(&["f2f3", "e7e5", "g2g4", "d8h4"]);
    let path = write_transcript(&game.transcript(), "mate");
    let file = path.to_str().unwrap();
    // The receipt is timed a few seconds ahead of the node's clock: let it catch up.
    referee.chain().advance_time(10).unwrap();
    let first = channel_send("settle", file, &anvil);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(
        stdout(&first).contains("a decided position (result 2, reason 1)"),
        "{}",
        stdout(&first)
    );
    // No registration ends a game at once: inside the window the outcome is pending.
    let id = game.game.game_id;
    assert_eq!(referee.game(id).unwrap().phase, 2);
    let early = channel_send("settle", file, &anvil);
    assert_eq!(early.status.code(), Some(0), "{}", stderr(&early));
    // Its end as a clock time and a distance (issue 29), not a unix time.
    assert!(
        stdout(&early).contains("pending until ")
            && stdout(&early).contains(" UTC (in ")
            && !stdout(&early).contains("s from now"),
        "{}",
        stdout(&early)
    );
    referee.chain().advance_time(601).unwrap();
    let finish = channel_send("settle", file, &anvil);
    assert_eq!(finish.status.code(), Some(0), "{}", stderr(&finish));
    assert!(
        stdout(&finish).contains("ended: black_wins, checkmate"),
        "{}",
        stdout(&finish)
    );
    assert_eq!(referee.game(id).unwrap().phase, 3);
    std::fs::remove_file(path).ok();
}

#[test]
fn channel_dispute_registers_the_latest_pair_over_rpc() {
    let (anvil, game, mut referee) = anvil_channel_game(&["d2d4", "d7d5"]);
    let path = write_transcript(&game.transcript(), "dispute");
    // The receipt is timed a few seconds ahead of the node's clock: let it catch up.
    {
        use chessref_evm::Chain;
        referee.chain().advance_time(10).unwrap();
    }
    let file = path.to_str().unwrap();
    let refused = channel_send("settle", file, &anvil);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("use `chessref channel dispute`"),
        "{}",
        stderr(&refused)
    );
    let out = channel_send("dispute", file, &anvil);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("continues on-chain from ply 2"),
        "{}",
        stdout(&out)
    );
    assert_ne!(
        referee.game(game.game.game_id).unwrap().commitment,
        alloy_primitives::B256::ZERO
    );
    std::fs::remove_file(path).ok();
}

/// A PGN mixing played games, an illegal move (refused on chain too), a game played on
/// after an automatic draw, a start already over and a FEN start, repeated past the
/// workers' reorder window.
fn mixed_replay_pgn() -> String {
    let one = format!(
        "{REPLAY_GAMES}\n{PLAYED_ON_AFTER_A_DRAW}\n\
         [Event \"illegal\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n\
         [FEN \"7k/5QQ1/8/8/8/8/8/K7 b - - 0 1\"]\n[Result \"1-0\"]\n\n1-0\n\n\
         [FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[Result \"*\"]\n\n1. e4 Kd7 2. e5 *\n\n"
    );
    one.repeat(12)
}

/// stdout without the closing line's throughput (the only timing it holds).
fn without_rate(out: &str) -> String {
    out.lines()
        .map(|l| match l.find(" moves/s on ") {
            Some(end) if l.starts_with("total: ") => {
                let start = l[..end].rfind("; ").expect("a rate after a ';'");
                format!("{}{}", &l[..start], &l[end..])
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn replay_reports_the_same_for_any_number_of_jobs() {
    let pgn = mixed_replay_pgn();
    let one = chessref_stdin(&["replay", "-", "--jobs", "1"], &pgn);
    assert_eq!(code(&one), 0, "{}", stderr(&one));
    let expected = without_rate(&stdout(&one));
    assert!(expected.contains("game 72: "), "{expected}");
    assert!(expected.contains("  note: "), "{expected}");
    assert!(expected.contains(" 0 mismatches, "), "{expected}");
    for jobs in ["2", "3", "8"] {
        let o = chessref_stdin(&["replay", "-", "--jobs", jobs], &pgn);
        assert_eq!(code(&o), code(&one), "--jobs {jobs}: {}", stderr(&o));
        assert_eq!(stderr(&o), stderr(&one), "--jobs {jobs}");
        assert_eq!(without_rate(&stdout(&o)), expected, "--jobs {jobs}");
    }
    // --limit and --json too (the JSON's timing fields aside).
    let summary = |jobs: &str| {
        let o = chessref_stdin(
            &["replay", "-", "--json", "--limit", "40", "--jobs", jobs],
            &pgn,
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let mut v = json(&o);
        v["movesPerSec"] = serde_json::Value::Null;
        v["seconds"] = serde_json::Value::Null;
        v
    };
    let sequential = summary("1");
    assert_eq!(sequential["games"], 40);
    assert_eq!(summary("2"), sequential);
}

#[test]
fn replay_of_bytes_that_are_not_utf8_ends_alike_for_any_number_of_jobs() {
    // A PGN that is not UTF-8 midway: the games before it are reported, then the
    // same error and exit status, whatever the number of workers.
    let mut bytes = mixed_replay_pgn().into_bytes();
    bytes.extend_from_slice(b"[Event \"bad\"]\n\n1. e4 \xff\xfe e5 *\n");
    let run = |jobs: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chessref"))
            .args(["replay", "-", "--jobs", jobs])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        child.wait_with_output().expect("the binary ends")
    };
    let one = run("1");
    let two = run("2");
    assert_eq!(code(&two), code(&one), "{}", stderr(&two));
    assert_eq!(stderr(&two), stderr(&one));
    assert_eq!(without_rate(&stdout(&two)), without_rate(&stdout(&one)));
}

#[test]
fn watch_on_postgres_takes_the_one_watchtower_lock() {
    let pg = chessref_pgtest::TempPostgres::start().unwrap();
    let url = pg.url();
    // Another watchtower holds the database's lock.
    let holder = postgres_session(&url, "the other tower");
    let once = || {
        chessref(&[
            "watch",
            "--db",
            &url,
            "--once",
            "--rpc",
            "http://127.0.0.1:1",
        ])
    };
    // --once does not wait: refused, naming the holder, before the node is asked.
    let out = once();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("is held by another chessref watch (the other tower from"),
        "{err}"
    );
    assert!(
        !err.contains("127.0.0.1:1"),
        "the node was not asked: {err}"
    );
    // Free: taken, then the node is asked (and, here, is not there).
    drop(holder);
    let out = once();
    assert_ne!(code(&out), 0);
    assert!(!stderr(&out).contains("is held by"), "{}", stderr(&out));
    // Not a database URL at all.
    let out = chessref(&["watch", "--db", "mysql://root@h/db", "--once"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("unsupported database URL scheme mysql://"),
        "{}",
        stderr(&out)
    );
}

/// The watchtower's lock of the database at `url`, held as `name`.
fn postgres_session(url: &str, name: &str) -> chessref_index::db::PgWriterLock {
    let chessref_index::db::DbTarget::Postgres(pg) = url.parse().unwrap() else {
        panic!("{url} is no Postgres URL");
    };
    chessref_index::db::PgWriterLock::try_acquire(&pg, chessref_index::db::Role::Watchtower, name)
        .unwrap()
}
