//! The HTTP API end to end: a real server on 127.0.0.1:0, real requests.

mod common;

use chessref_server::Config;
use common::TestServer;
use hyper::StatusCode;
use serde_json::{Value, json};

/// ENCODING.md section 4, row by row.
const INITIAL_HEX: &str = concat!(
    "fcfefdfbfafdfefc",
    "0000000400000000",
    "ffffffffffffffff",
    "0000000000000000",
    "0000000000000000",
    "0000000000000000",
    "0000000000000000",
    "0100000000000000",
    "0000000000000000",
    "0000000000000000",
    "0000000000000000",
    "0000000000000000",
    "0101010101010101",
    "0000000000000000",
    "0402030506030204",
    "0000007400000000",
);

const INITIAL_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn packed(from: u8, to: u8, promotion: u8) -> u32 {
    (u32::from(from) << 16) | (u32::from(to) << 8) | u32::from(promotion)
}

async fn server() -> TestServer {
    TestServer::start(Config::default()).await
}

#[tokio::test]
async fn check_answers_exactly_the_cli_json_object() {
    let s = server().await;
    let (status, body) = s
        .post_json("/v1/check", &json!({"fen": INITIAL_FEN, "move": "e2e4"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"legal": true, "code": 0, "reason": "OK"}));
    let (status, body) = s
        .post_json("/v1/check", &json!({"fen": INITIAL_FEN, "move": "e2e5"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        json!({"legal": false, "code": 6, "reason": "BAD_GEOMETRY"})
    );
    s.shutdown().await;
}

#[tokio::test]
async fn check_takes_state_hex_and_packed_moves() {
    let s = server().await;
    // Black pawn e7e5 with white to move: NOT_YOUR_PIECE.
    let (_, body) = s
        .post_json(
            "/v1/check",
            &json!({"state": format!("0x{INITIAL_HEX}"), "move": "e7e5"}),
        )
        .await;
    assert_eq!(
        body,
        json!({"legal": false, "code": 4, "reason": "NOT_YOUR_PIECE"})
    );
    // e2 = 100, e4 = 68: the packed uint24 of the contract ABI.
    let (_, body) = s
        .post_json(
            "/v1/check",
            &json!({"state": INITIAL_HEX, "move": packed(100, 68, 0)}),
        )
        .await;
    assert_eq!(body["code"], 0);
    // A shadow-board index (col 8) is off the board: code 1, unreachable through UCI.
    let (_, body) = s
        .post_json(
            "/v1/check",
            &json!({"state": INITIAL_HEX, "move": packed(100, 72, 0)}),
        )
        .await;
    assert_eq!(
        body,
        json!({"legal": false, "code": 1, "reason": "OFF_BOARD"})
    );
    // Promotion byte 6 (king) on a pawn reaching the last rank: INVALID_PROMOTION.
    let fen = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
    let (_, body) = s
        .post_json("/v1/check", &json!({"fen": fen, "move": packed(17, 1, 6)}))
        .await;
    assert_eq!(
        body,
        json!({"legal": false, "code": 13, "reason": "INVALID_PROMOTION"})
    );
    let (_, body) = s
        .post_json("/v1/check", &json!({"fen": fen, "move": "b7b8"}))
        .await;
    assert_eq!(
        body,
        json!({"legal": false, "code": 12, "reason": "PROMOTION_REQUIRED"})
    );
    let (_, body) = s
        .post_json("/v1/check", &json!({"fen": fen, "move": "b7b8n"}))
        .await;
    assert_eq!(body["legal"], true);
    // As `chessref check`: promotion letters p and k parse and the rules reject them.
    for uci in ["b7b8k", "b7b8p"] {
        let (_, body) = s
            .post_json("/v1/check", &json!({"fen": fen, "move": uci}))
            .await;
        assert_eq!(
            body,
            json!({"legal": false, "code": 13, "reason": "INVALID_PROMOTION"}),
            "{uci}"
        );
    }
    // The packed move as 0x hex text, as `chessref check 0x644400` takes it.
    let (_, body) = s
        .post_json(
            "/v1/check",
            &json!({"fen": INITIAL_FEN, "move": "0x644400"}),
        )
        .await;
    assert_eq!(body, json!({"legal": true, "code": 0, "reason": "OK"}));
    let (_, body) = s
        .post_json(
            "/v1/check",
            &json!({"fen": INITIAL_FEN, "move": "0x644800"}),
        )
        .await;
    assert_eq!(body["reason"], "OFF_BOARD");
    s.shutdown().await;
}

#[tokio::test]
async fn check_reports_castling_and_pin_codes() {
    let s = server().await;
    // White king e1 attacked by the rook on e8: castling out of check.
    let fen = "4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    let (_, body) = s
        .post_json("/v1/check", &json!({"fen": fen, "move": "e1g1"}))
        .await;
    assert_eq!(
        body,
        json!({"legal": false, "code": 10, "reason": "CASTLING_IN_CHECK"})
    );
    // f1 attacked by the rook on f8: castling through check.
    let fen = "5rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    let (_, body) = s
        .post_json("/v1/check", &json!({"fen": fen, "move": "e1g1"}))
        .await;
    assert_eq!(
        body,
        json!({"legal": false, "code": 11, "reason": "CASTLING_THROUGH_CHECK"})
    );
    // The knight on e2 is pinned by the rook on e8.
    let fen = "4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1";
    let (_, body) = s
        .post_json("/v1/check", &json!({"fen": fen, "move": "e2c3"}))
        .await;
    assert_eq!(
        body,
        json!({"legal": false, "code": 14, "reason": "KING_LEFT_IN_CHECK"})
    );
    s.shutdown().await;
}

#[tokio::test]
async fn bad_input_is_a_4xx_json_error_naming_the_problem() {
    let s = server().await;
    let cases: Vec<(Value, StatusCode, &str)> = vec![
        (
            json!({"move": "e2e4"}),
            StatusCode::BAD_REQUEST,
            "bad_position_choice",
        ),
        (
            json!({"fen": INITIAL_FEN, "state": INITIAL_HEX, "move": "e2e4"}),
            StatusCode::BAD_REQUEST,
            "bad_position_choice",
        ),
        (
            json!({"fen": INITIAL_FEN, "move": "e2e4", "extra": 1}),
            StatusCode::BAD_REQUEST,
            "bad_json",
        ),
        (
            json!({"fen": INITIAL_FEN}),
            StatusCode::BAD_REQUEST,
            "bad_json",
        ),
        (
            json!({"fen": INITIAL_FEN, "move": "e2e9"}),
            StatusCode::BAD_REQUEST,
            "bad_move",
        ),
        (
            json!({"fen": INITIAL_FEN, "move": "e2e4x"}),
            StatusCode::BAD_REQUEST,
            "bad_move",
        ),
        (
            json!({"fen": INITIAL_FEN, "move": "0x1000000"}),
            StatusCode::BAD_REQUEST,
            "bad_move",
        ),
        (
            json!({"fen": INITIAL_FEN, "move": "0x"}),
            StatusCode::BAD_REQUEST,
            "bad_move",
        ),
        (
            json!({"fen": INITIAL_FEN, "move": 16_777_216u32}),
            StatusCode::BAD_REQUEST,
            "bad_move",
        ),
        (
            json!({"fen": INITIAL_FEN, "move": -1}),
            StatusCode::BAD_REQUEST,
            "bad_move",
        ),
        (
            json!({"fen": INITIAL_FEN, "move": true}),
            StatusCode::BAD_REQUEST,
            "bad_move",
        ),
        (
            json!({"fen": "not a fen", "move": "e2e4"}),
            StatusCode::BAD_REQUEST,
            "bad_fen",
        ),
        (
            json!({"state": "00", "move": "e2e4"}),
            StatusCode::BAD_REQUEST,
            "bad_state",
        ),
        (
            json!({"state": "zz".repeat(128), "move": "e2e4"}),
            StatusCode::BAD_REQUEST,
            "bad_state",
        ),
        (
            json!({"fen": 42, "move": "e2e4"}),
            StatusCode::BAD_REQUEST,
            "bad_json",
        ),
    ];
    for (body, expected_status, expected_kind) in cases {
        let (status, answer) = s.post_json("/v1/check", &body).await;
        assert_eq!(status, expected_status, "{body}: {answer}");
        assert_eq!(answer["error"], expected_kind, "{body}: {answer}");
        assert!(
            answer["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{answer}"
        );
    }
    // Keys are camelCase: a snake_case key is refused with a 400 that names it.
    let (status, answer) = s
        .post_json(
            "/v1/status",
            &json!({"fen": INITIAL_FEN, "halfmove_clock": 0}),
        )
        .await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad_json")),
        "{answer}"
    );
    let message = answer["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("unknown field `halfmove_clock`")
            && message.contains("keys are camelCase: `halfmoveClock`"),
        "{message}"
    );
    let (status, answer) = s.post_raw_json("/v1/check", b"{\"fen\": ".to_vec()).await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad_json"))
    );
    let (status, _, body) = s
        .raw("POST", "/v1/check", Some("text/plain"), b"{}".to_vec())
        .await;
    let answer: Value = serde_json::from_slice(&body).expect("json");
    assert_eq!(
        (status, answer["error"].as_str()),
        (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Some("unsupported_media_type")
        )
    );
    let (status, _, body) = s.raw("POST", "/v1/check", None, b"{}".to_vec()).await;
    assert_eq!(
        status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "{}",
        String::from_utf8_lossy(&body)
    );
    s.shutdown().await;
}

#[tokio::test]
async fn invalid_states_carry_their_section_7_code() {
    let s = server().await;
    // Byte 0 = 0x07 is not a piece code.
    let bad_piece = format!("07{}", &INITIAL_HEX[2..]);
    let (status, answer) = s
        .post_json("/v1/status", &json!({"state": bad_piece}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (
            answer["error"].as_str(),
            answer["code"].as_u64(),
            answer["reason"].as_str()
        ),
        (Some("bad_state"), Some(1), Some("BAD_PIECE_CODE"))
    );
    // Black to move while white is in check from the black rook? Here white (not to move) is in check.
    let fen = "4k3/8/8/8/8/8/8/r3K3 b - - 0 1";
    let (status, answer) = s.post_json("/v1/moves", &json!({"fen": fen})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (
            answer["error"].as_str(),
            answer["code"].as_u64(),
            answer["reason"].as_str()
        ),
        (Some("bad_fen"), Some(6), Some("OPPONENT_IN_CHECK"))
    );
    // Two white kings.
    let fen = "4k3/8/8/8/8/8/8/K3K3 w - - 0 1";
    let (_, answer) = s
        .post_json("/v1/play", &json!({"fen": fen, "moves": []}))
        .await;
    assert_eq!(
        (answer["code"].as_u64(), answer["reason"].as_str()),
        (Some(3), Some("KING_COUNT"))
    );
    s.shutdown().await;
}

#[tokio::test]
async fn body_size_is_limited() {
    let s = TestServer::start(Config {
        json_limit: 256,
        pgn_limit: 512,
        ..Config::default()
    })
    .await;
    let big = json!({"fen": INITIAL_FEN, "moves": vec!["e2e4"; 100]});
    let (status, answer) = s.post_json("/v1/play", &big).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer["error"], "payload_too_large");
    assert!(
        answer["message"].as_str().unwrap_or("").contains("256"),
        "{answer}"
    );
    let (status, _, body) = s
        .raw(
            "POST",
            "/v1/replay",
            Some("application/x-chess-pgn"),
            vec![b' '; 4096],
        )
        .await;
    assert_eq!(
        status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        String::from_utf8_lossy(&body)
    );
    s.shutdown().await;
}

/// ENCODING.md section 10, shared with the chessref-core and WASM tests.
const WORKED_EXAMPLES: &str = include_str!("../../../tests/fixtures/encoding-examples.json");

/// Applies ENCODING.md section 10's `[index, before, after]` lists to a hex state.
fn patch(hex: &str, changes: &Value) -> String {
    let mut bytes: Vec<u8> = (0..128)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex"))
        .collect();
    let changes: Vec<(usize, u8, u8)> =
        serde_json::from_value(changes.clone()).expect("[index, before, after] lists");
    for (i, before, after) in changes {
        assert_eq!(bytes[i], before, "byte {i}");
        bytes[i] = after;
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn play_reproduces_the_worked_examples_byte_for_byte() {
    let s = server().await;
    let fixture: Value = serde_json::from_str(WORKED_EXAMPLES).expect("fixture");
    let examples = fixture["examples"].as_array().expect("examples");
    assert_eq!(examples.len(), 4);
    for example in examples {
        let name = example["name"].as_str().expect("name");
        let (_, start) = s
            .post_json("/v1/play", &json!({"fen": example["fen"], "moves": []}))
            .await;
        let mut expected = start["state"].as_str().expect("state").to_owned();
        let mut sans = Vec::new();
        let mut fen = Value::Null;
        for step in example["moves"].as_array().expect("moves") {
            sans.push(step["san"].clone());
            let (status, body) = s
                .post_json("/v1/play", &json!({"state": start["state"], "moves": sans}))
                .await;
            assert_eq!(status, StatusCode::OK, "{name}: {body}");
            expected = patch(&expected, &step["changes"]);
            assert_eq!(body["state"], expected, "{name}: after {}", step["san"]);
            fen = body["fen"].clone();
        }
        assert_eq!(fen, example["finalFen"], "{name}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn play_reports_the_moves_of_the_worked_example() {
    let s = server().await;
    let moves = ["e4", "c5", "Nf3", "d6", "Bb5+", "Bd7", "O-O"];
    let (status, body) = s
        .post_json("/v1/play", &json!({"state": INITIAL_HEX, "moves": moves}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "ONGOING");
    assert_eq!(body["inCheck"], false);
    let sans: Vec<&str> = body["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["san"].as_str().expect("san"))
        .collect();
    assert_eq!(sans, moves);
    assert_eq!(
        body["moves"][0],
        json!({"uci": "e2e4", "san": "e4", "packed": packed(100, 68, 0)})
    );
    assert_eq!(body["moves"][6]["uci"], "e1g1");
    s.shutdown().await;
}

#[tokio::test]
async fn play_ends_games_and_reports_claimable_draws() {
    let s = server().await;
    let (_, body) = s
        .post_json(
            "/v1/play",
            &json!({"fen": INITIAL_FEN, "moves": ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "h5f7"]}),
        )
        .await;
    assert_eq!(
        (body["status"].as_str(), body["statusCode"].as_u64()),
        (Some("CHECKMATE"), Some(1))
    );
    assert_eq!(body["inCheck"], true);
    assert_eq!(body["result"], "1-0");
    let (status, body) = s.post_json("/v1/play", &json!({"fen": INITIAL_FEN, "moves": ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#", "a6"]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        (body["error"].as_str(), body["index"].as_u64()),
        (Some("game_over"), Some(8))
    );
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
    let (_, body) = s
        .post_json(
            "/v1/play",
            &json!({"fen": INITIAL_FEN, "moves": &shuffle[..4]}),
        )
        .await;
    assert_eq!(
        (
            body["repetitions"].as_u64(),
            body["claimable"]["threefold"].as_bool()
        ),
        (Some(2), Some(false))
    );
    let (_, body) = s
        .post_json("/v1/play", &json!({"fen": INITIAL_FEN, "moves": shuffle}))
        .await;
    assert_eq!(
        (
            body["repetitions"].as_u64(),
            body["claimable"]["threefold"].as_bool()
        ),
        (Some(3), Some(true))
    );
    assert_eq!(body["status"], "ONGOING");
    assert_eq!(body["result"], Value::Null);
    let (_, body) = s
        .post_json(
            "/v1/play",
            &json!({"fen": "4k3/8/8/8/8/8/8/R3K3 w - - 99 80", "moves": ["Ra2"]}),
        )
        .await;
    assert_eq!(body["claimable"]["fiftyMoves"], true);
    s.shutdown().await;
}

#[tokio::test]
async fn play_refuses_bad_moves_with_their_index_and_code() {
    let s = server().await;
    let (status, body) = s
        .post_json(
            "/v1/play",
            &json!({"fen": INITIAL_FEN, "moves": ["e4", "e5", "e1e2", "Ke7", "e2e4"]}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        (
            body["error"].as_str(),
            body["index"].as_u64(),
            body["code"].as_u64(),
            body["reason"].as_str()
        ),
        (
            Some("illegal_move"),
            Some(5),
            Some(5),
            Some("OWN_PIECE_ON_TARGET")
        )
    );
    let (status, body) = s
        .post_json("/v1/play", &json!({"fen": INITIAL_FEN, "moves": ["Qh5"]}))
        .await;
    assert_eq!(
        (status, body["error"].as_str(), body["index"].as_u64()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("illegal_move"),
            Some(1)
        )
    );
    // Both knights can reach d2.
    let (status, body) = s
        .post_json(
            "/v1/play",
            &json!({"fen": "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "moves": ["Nd2"]}),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("ambiguous_move"))
    );
    let (status, body) = s
        .post_json("/v1/play", &json!({"fen": INITIAL_FEN, "moves": ["??"]}))
        .await;
    assert_eq!(status.as_u16() / 100, 4, "{body}");
    let (status, body) = s
        .post_json("/v1/play", &json!({"fen": INITIAL_FEN, "moves": "e4"}))
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad_json"))
    );
    s.shutdown().await;
}

#[tokio::test]
async fn moves_lists_uci_san_packed_and_dests() {
    let s = server().await;
    let (status, body) = s
        .post_json("/v1/moves", &json!({"state": INITIAL_HEX}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["count"], 20);
    assert_eq!(body["moves"].as_array().map(Vec::len), Some(20));
    assert_eq!(body["dests"]["e2"], json!(["e3", "e4"]));
    assert_eq!(body["dests"]["g1"].as_array().map(Vec::len), Some(2));
    assert!(
        body["moves"]
            .as_array()
            .expect("moves")
            .contains(&json!({"uci": "g1f3", "san": "Nf3", "packed": packed(118, 85, 0)}))
    );
    // Four promotions to one square are listed once in dests.
    let (_, body) = s
        .post_json(
            "/v1/moves",
            &json!({"fen": "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"}),
        )
        .await;
    assert_eq!(body["dests"]["b7"], json!(["b8"]));
    let promotions = body["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .filter(|m| m["uci"].as_str().is_some_and(|u| u.starts_with("b7b8")))
        .count();
    assert_eq!(promotions, 4);
    s.shutdown().await;
}

#[tokio::test]
async fn status_reports_section_8_and_the_repetition_key() {
    let s = server().await;
    let (_, body) = s
        .post_json(
            "/v1/status",
            &json!({"fen": "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"}),
        )
        .await;
    assert_eq!(
        (
            body["status"].as_str(),
            body["statusCode"].as_u64(),
            body["inCheck"].as_bool()
        ),
        (Some("CHECKMATE"), Some(1), Some(true))
    );
    let (_, body) = s
        .post_json(
            "/v1/status",
            &json!({"fen": "7k/8/6Q1/6K1/8/8/8/8 b - - 0 1"}),
        )
        .await;
    assert_eq!(body["status"], "STALEMATE");
    let (_, body) = s
        .post_json(
            "/v1/status",
            &json!({"fen": "4k3/8/8/8/8/8/8/4KB2 w - - 0 1"}),
        )
        .await;
    assert_eq!(body["status"], "INSUFFICIENT_MATERIAL");
    assert_eq!(
        body["insufficientMaterial"],
        json!({"white": true, "black": true})
    );
    let (_, body) = s
        .post_json(
            "/v1/status",
            &json!({"fen": "4k3/8/8/8/8/8/8/R3K3 w - - 150 100"}),
        )
        .await;
    assert_eq!(body["status"], "SEVENTY_FIVE_MOVES");
    // A game that ended automatically leaves nothing to claim.
    assert_eq!(body["fiftyMovesClaimable"], false);
    let (_, body) = s
        .post_json(
            "/v1/status",
            &json!({"fen": "4k3/8/8/8/8/8/8/R3K3 w - - 120 100"}),
        )
        .await;
    assert_eq!(
        (
            body["status"].as_str(),
            body["fiftyMovesClaimable"].as_bool()
        ),
        (Some("ONGOING"), Some(true))
    );
    let (_, body) = s
        .post_json("/v1/status", &json!({"state": INITIAL_HEX}))
        .await;
    assert_eq!(
        (
            body["turn"].as_str(),
            body["ply"].as_u64(),
            body["halfmoveClock"].as_u64()
        ),
        (Some("white"), Some(0), Some(0))
    );
    assert_eq!(body["fen"], INITIAL_FEN);
    assert_eq!(body["state"], INITIAL_HEX);
    let key = body["repetitionKey"].as_str().expect("key");
    assert!(key.len() == 66 && key.starts_with("0x"), "{key}");
    // The same position with different clocks has the same key.
    let (_, other) = s
        .post_json(
            "/v1/status",
            &json!({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 7 30"}),
        )
        .await;
    assert_eq!(other["repetitionKey"], key);
    s.shutdown().await;
}

/// The answer of `POST /v1/replay` (Rust engine) for `pgn`, which must be 200.
async fn replay_ok(s: &TestServer, pgn: &str) -> Value {
    let (status, _, body) = s
        .raw(
            "POST",
            "/v1/replay",
            Some("application/x-chess-pgn"),
            pgn.as_bytes().to_vec(),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).expect("json")
}

#[tokio::test]
async fn replay_reports_every_game() {
    let s = server().await;
    let pgn = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
               [Event \"b\"]\n\n1. e4 e5 2. Ke3 *\n\n\
               [Event \"c\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\"]\n[SetUp \"1\"]\n\n1. O-O-O Kf7 *\n";
    let body = replay_ok(&s, pgn).await;
    assert_eq!(
        (body["count"].as_u64(), body["failed"].as_u64()),
        (Some(3), Some(1))
    );
    let g = &body["games"];
    assert_eq!(
        (
            g[0]["plies"].as_u64(),
            g[0]["status"].as_str(),
            g[0]["outcome"].as_str(),
            g[0]["result"].as_str()
        ),
        (Some(7), Some("CHECKMATE"), Some("1-0"), Some("1-0"))
    );
    assert_eq!(g[0]["error"], Value::Null);
    assert_eq!(g[1]["plies"], 2);
    let error = g[1]["error"].as_str().expect("error");
    assert!(
        error.contains("game 2") && error.contains("ply 3") && error.contains("Ke3"),
        "{error}"
    );
    assert_eq!(
        g[1]["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
    );
    assert_eq!(
        (g[2]["plies"].as_u64(), g[2]["engine"].as_str()),
        (Some(2), Some("rust"))
    );
    assert_eq!(g[2]["fen"], "8/5k2/8/8/8/8/8/2KR4 w - - 2 2");
    s.shutdown().await;
}

#[tokio::test]
async fn replay_reports_automatic_draws_variants_and_fivefold_like_the_cli() {
    let s = server().await;
    let pgn = "[FEN \"4k3/8/8/8/8/8/3p4/4K3 w - - 0 1\"]\n\n1. Kxd2 Kd7 2. Kc3 1/2-1/2\n\n\
               [Variant \"Antichess\"]\n\n1. e3 b5 2. Bxb5 *\n\n\
               1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 \
               7. Nf3 Nf6 8. Ng1 Ng8 *\n";
    let body = replay_ok(&s, pgn).await;
    assert_eq!(
        (body["count"].as_u64(), body["failed"].as_u64()),
        (Some(3), Some(1))
    );
    let g = &body["games"];
    assert_eq!(
        (
            &g[0]["plies"],
            &g[0]["status"],
            &g[0]["movesAfterEnd"],
            &g[0]["error"]
        ),
        (
            &json!(1),
            &json!("INSUFFICIENT_MATERIAL"),
            &json!(2),
            &Value::Null
        )
    );
    let variant = g[1]["error"].as_str().expect("error");
    assert!(
        variant.contains("\"Antichess\" is not supported"),
        "{variant}"
    );
    assert_eq!(
        (&g[2]["status"], &g[2]["fivefoldPly"]),
        (&json!("ONGOING"), &json!(16))
    );
    s.shutdown().await;
}

#[tokio::test]
async fn moves_flag_captures_castling_promotions_and_checks() {
    let s = server().await;
    let (status, body) = s
        .post_json(
            "/v1/moves",
            &json!({"fen": "1n2k3/P7/8/8/8/8/8/R3K3 w Q - 0 1"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let flags = |uci: &str| {
        body["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .find(|m| m["uci"] == uci)
            .map(|m| m.get("flags").cloned())
            .expect("a legal move")
    };
    assert_eq!(
        flags("a7b8q"),
        Some(json!(["capture", "promotion", "check"]))
    );
    assert_eq!(flags("e1c1"), Some(json!(["castling"])));
    assert_eq!(flags("e1e2"), None, "a quiet move has no flags");
    s.shutdown().await;
}

#[tokio::test]
async fn replay_engine_is_chosen_by_query() {
    let s = server().await;
    let pgn = b"1. e4 e5 *\n".to_vec();
    let (status, _, _) = s
        .raw(
            "POST",
            "/v1/replay?engine=rust",
            Some("text/plain"),
            pgn.clone(),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, body) = s
        .raw(
            "POST",
            "/v1/replay?engine=stockfish",
            Some("text/plain"),
            pgn.clone(),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let (status, _, body) = s
        .raw(
            "POST",
            "/v1/replay?depth=3",
            Some("text/plain"),
            pgn.clone(),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "{}",
        String::from_utf8_lossy(&body)
    );
    #[cfg(not(feature = "evm"))]
    {
        let (status, _, body) = s
            .raw(
                "POST",
                "/v1/replay?engine=evm",
                Some("text/plain"),
                pgn.clone(),
            )
            .await;
        let body: Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("engine_unavailable"))
        );
    }
    let (status, _, _) = s
        .raw(
            "POST",
            "/v1/replay",
            Some("text/plain"),
            vec![0xff, 0xfe, b'e'],
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _, body) = s.raw("POST", "/v1/replay", None, b" \n".to_vec()).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "{}",
        String::from_utf8_lossy(&body)
    );
    s.shutdown().await;
}

#[tokio::test]
async fn unknown_paths_and_methods_are_json_errors() {
    let s = server().await;
    let (status, ct, body) = s.raw("GET", "/v1/nope", None, vec![]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(ct.starts_with("application/json"));
    assert_eq!(
        serde_json::from_slice::<Value>(&body).expect("json")["error"],
        "not_found"
    );
    let (status, ct, body) = s.raw("GET", "/v1/check", None, vec![]).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(ct.starts_with("application/json"));
    assert_eq!(
        serde_json::from_slice::<Value>(&body).expect("json")["error"],
        "method_not_allowed"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn openapi_document_describes_the_routes() {
    let s = server().await;
    let (status, ct, body) = s.raw("GET", "/openapi.json", None, vec![]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(ct.starts_with("application/json"));
    let doc: Value = serde_json::from_slice(&body).expect("openapi is JSON");
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
    let paths = doc["paths"].as_object().expect("paths");
    let mut documented: Vec<(String, String)> = Vec::new();
    for (path, item) in paths {
        for method in item.as_object().expect("path item").keys() {
            documented.push((method.to_uppercase(), path.clone()));
        }
    }
    documented.sort();
    let mut expected = vec![
        ("GET".to_owned(), "/openapi.json".to_owned()),
        ("POST".into(), "/v1/check".into()),
        ("POST".into(), "/v1/moves".into()),
        ("POST".into(), "/v1/play".into()),
        ("POST".into(), "/v1/replay".into()),
        ("POST".into(), "/v1/status".into()),
        ("GET".into(), "/v1/games".into()),
        ("GET".into(), "/v1/games/{id}".into()),
        ("GET".into(), "/v1/games/{id}.pgn".into()),
        ("GET".into(), "/v1/games/{id}/events".into()),
        ("GET".into(), "/v1/games/{id}/channel".into()),
        ("GET".into(), "/v1/health".into()),
        ("GET".into(), "/v1/games/{id}/transcript".into()),
        ("GET".into(), "/v1/players/{address}".into()),
        ("GET".into(), "/v1/players".into()),
        ("GET".into(), "/v1/tournaments".into()),
        ("GET".into(), "/v1/tournaments/{id}".into()),
    ];
    expected.sort();
    assert_eq!(documented, expected);
    // Every documented route exists (an empty body is refused, but not with 404/405;
    // the game routes of a server without an index answer 404 `no_index`).
    for (method, path) in &documented {
        let path = path
            .replace("{id}", "1")
            .replace("{address}", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
        let (status, _, body) = s
            .raw(method, &path, Some("application/json"), b"{}".to_vec())
            .await;
        let no_index = status == StatusCode::NOT_FOUND
            && serde_json::from_slice::<Value>(&body).expect("json")["error"] == "no_index";
        assert!(
            no_index || status != StatusCode::NOT_FOUND && status != StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}: {status}"
        );
    }
    // Every $ref resolves.
    let text = String::from_utf8(body).expect("utf8");
    for piece in text.split("\"$ref\": \"#/").skip(1) {
        let pointer = format!("/{}", &piece[..piece.find('"').expect("ref end")]);
        assert!(doc.pointer(&pointer).is_some(), "unresolved $ref {pointer}");
    }
    // The documented error kinds include every kind the tests meet.
    let kinds = doc
        .pointer("/components/schemas/Error/properties/error/enum")
        .expect("kinds")
        .as_array()
        .expect("array");
    for kind in [
        "bad_json",
        "bad_move",
        "illegal_move",
        "game_over",
        "payload_too_large",
        "engine_unavailable",
    ] {
        assert!(kinds.contains(&json!(kind)), "{kind}");
    }
    s.shutdown().await;
}

/// Deterministic garbage: nothing the client sends gets a 5xx or a non-JSON answer.
#[tokio::test]
async fn garbage_never_gets_a_server_error() {
    let s = server().await;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pieces = [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"fen\"",
        "\"state\"",
        "\"move\"",
        "\"moves\"",
        "\"e2e4\"",
        "\"e7e8q\"",
        "\"Nf3\"",
        "null",
        "true",
        "16777215",
        "-3",
        "1e400",
        "\"\\u0000\"",
        "\"8/8/8/8/8/8/8/8 w - - 0 1\"",
        "\"0x\"",
        INITIAL_FEN,
        "\"O-O\"",
    ];
    let endpoints = [
        "/v1/check",
        "/v1/play",
        "/v1/moves",
        "/v1/status",
        "/v1/replay",
    ];
    for round in 0..300 {
        let len = (next() % 12) as usize;
        let mut body = String::new();
        for _ in 0..len {
            body.push_str(pieces[(next() % pieces.len() as u64) as usize]);
        }
        let path = endpoints[round % endpoints.len()];
        let (status, ct, answer) = s
            .raw(
                "POST",
                path,
                Some("application/json"),
                body.clone().into_bytes(),
            )
            .await;
        assert!(status.as_u16() < 500, "{path} {body:?}: {status}");
        assert!(ct.starts_with("application/json"), "{path} {body:?}: {ct}");
        serde_json::from_slice::<Value>(&answer).unwrap_or_else(|e| panic!("{path} {body:?}: {e}"));
    }
    s.shutdown().await;
}

#[tokio::test]
async fn browsers_may_call_it_from_any_origin() {
    let s = server().await;
    let (status, _, _) = s.raw("OPTIONS", "/v1/check", None, vec![]).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let headers = s.headers("OPTIONS", "/v1/play").await;
    assert_eq!(
        headers
            .get("access-control-allow-origin")
            .map(|v| v.as_bytes()),
        Some(&b"*"[..])
    );
    assert!(
        headers
            .get("access-control-allow-methods")
            .is_some_and(|v| v.to_str().unwrap_or("").contains("POST"))
    );
    assert!(
        headers
            .get("access-control-allow-headers")
            .is_some_and(|v| v.to_str().unwrap_or("").contains("content-type"))
    );
    for (method, path) in [
        ("POST", "/v1/check"),
        ("GET", "/openapi.json"),
        ("GET", "/nowhere"),
    ] {
        let headers = s.headers(method, path).await;
        assert_eq!(
            headers
                .get("access-control-allow-origin")
                .map(|v| v.as_bytes()),
            Some(&b"*"[..]),
            "{method} {path}"
        );
    }
    s.shutdown().await;
}

/// A request whose body is still arriving when shutdown starts is answered in full.
#[tokio::test]
async fn shutdown_finishes_requests_in_flight() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = server().await;
    let body = json!({"fen": INITIAL_FEN, "move": "e2e4"}).to_string();
    let mut stream = tokio::net::TcpStream::connect(s.addr)
        .await
        .expect("connect");
    // `Expect: 100-continue`: the server answers "100 Continue" once the handler
    // reads the body, so the request is provably in flight before shutdown starts.
    let head = format!(
        "POST /v1/check HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nexpect: 100-continue\r\n\r\n",
        s.addr,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("write head");
    let mut interim = [0u8; 25];
    stream
        .read_exact(&mut interim)
        .await
        .expect("read 100 Continue");
    assert_eq!(&interim, b"HTTP/1.1 100 Continue\r\n\r\n");
    let _ = s.stop.take().expect("stop").send(());
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    stream
        .write_all(body.as_bytes())
        .await
        .expect("write the body");
    let mut answer = Vec::new();
    // The server closes the connection after this last answer; bound the wait anyway.
    tokio::time::timeout(
        std::time::Duration::from_secs(30),
        stream.read_to_end(&mut answer),
    )
    .await
    .expect("the answer arrives and the connection closes")
    .expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.ends_with(r#"{"legal":true,"code":0,"reason":"OK"}"#),
        "{answer}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn shutdown_is_graceful() {
    let s = server().await;
    let addr = s.addr;
    let (status, _) = s
        .post_json("/v1/check", &json!({"fen": INITIAL_FEN, "move": "e2e4"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    s.shutdown().await;
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "still listening after shutdown"
    );
}
