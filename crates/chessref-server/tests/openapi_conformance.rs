//! The served OpenAPI document is accurate: real answers of every endpoint,
//! success and error, validate against the schema it documents for that
//! path and status, and carry no field it does not document.

mod common;

use chessref_server::Config;
use common::{TestServer, validate};
use serde_json::{Value, json};

const INITIAL_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The documented JSON schema of `path`'s POST answer with `status`.
fn response_schema<'a>(doc: &'a Value, path: &str, status: u16) -> &'a Value {
    let op = &doc["paths"][path]["post"];
    let mut resp = &op["responses"][status.to_string()];
    assert!(!resp.is_null(), "{path}: status {status} is not documented");
    if let Some(r) = resp.get("$ref").and_then(Value::as_str) {
        resp = doc.pointer(&r[1..]).expect("response ref");
    }
    &resp["content"]["application/json"]["schema"]
}

#[tokio::test]
async fn every_answer_matches_the_documented_schema() {
    let s = TestServer::start(Config {
        json_limit: 4096,
        pgn_limit: 4096,
        ..Config::default()
    })
    .await;
    let (_, _, body) = s.raw("GET", "/openapi.json", None, vec![]).await;
    let doc: Value = serde_json::from_slice(&body).expect("openapi");

    let json_requests: Vec<(&str, Value)> = vec![
        ("/v1/check", json!({"fen": INITIAL_FEN, "move": "e2e4"})),
        ("/v1/check", json!({"fen": INITIAL_FEN, "move": 6_571_008})),
        ("/v1/check", json!({"fen": INITIAL_FEN, "move": "e2e5"})),
        ("/v1/check", json!({"fen": INITIAL_FEN, "move": "0x644800"})),
        ("/v1/check", json!({"fen": INITIAL_FEN})),
        (
            "/v1/check",
            json!({"fen": "4k3/8/8/8/8/8/8/K3K3 w - - 0 1", "move": "e1e2"}),
        ),
        ("/v1/check", json!({"state": "00", "move": "e2e4"})),
        ("/v1/check", json!({"move": "e2e4"})),
        (
            "/v1/play",
            json!({"fen": INITIAL_FEN, "moves": ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]}),
        ),
        (
            "/v1/play",
            json!({"fen": INITIAL_FEN, "moves": ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]}),
        ),
        (
            "/v1/play",
            json!({"fen": INITIAL_FEN, "moves": ["e4", "e4"]}),
        ),
        (
            "/v1/play",
            json!({"fen": INITIAL_FEN, "moves": ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#", "a6"]}),
        ),
        (
            "/v1/play",
            json!({"fen": "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "moves": ["Nd2"]}),
        ),
        (
            "/v1/play",
            json!({"fen": INITIAL_FEN, "moves": vec!["e2e4"; 1000]}),
        ),
        (
            "/v1/moves",
            json!({"fen": "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"}),
        ),
        ("/v1/moves", json!({"fen": INITIAL_FEN, "state": "00"})),
        (
            "/v1/status",
            json!({"fen": "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"}),
        ),
        ("/v1/status", json!({"fen": INITIAL_FEN, "extra": true})),
    ];
    let mut statuses = std::collections::BTreeSet::new();
    for (path, body) in &json_requests {
        let (status, answer) = s.post_json(path, body).await;
        statuses.insert((path.to_string(), status.as_u16()));
        let schema = response_schema(&doc, path, status.as_u16());
        validate(&doc, schema, &answer, path)
            .unwrap_or_else(|e| panic!("{path} {body} -> {status} {answer}: {e}"));
    }
    let (status, _, answer) = s
        .raw("POST", "/v1/check", Some("text/plain"), b"{}".to_vec())
        .await;
    let answer: Value = serde_json::from_slice(&answer).expect("json");
    validate(
        &doc,
        response_schema(&doc, "/v1/check", status.as_u16()),
        &answer,
        "415",
    )
    .expect("415 body");

    let pgns: [&[u8]; 3] = [
        b"1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n1. e4 e5 2. Ke3 *\n",
        b"[Event \"x\n",
        &[b' '; 5000],
    ];
    for pgn in pgns {
        let (status, _, answer) = s
            .raw(
                "POST",
                "/v1/replay",
                Some("application/x-chess-pgn"),
                pgn.to_vec(),
            )
            .await;
        let answer: Value = serde_json::from_slice(&answer).expect("json");
        statuses.insert(("/v1/replay".into(), status.as_u16()));
        validate(
            &doc,
            response_schema(&doc, "/v1/replay", status.as_u16()),
            &answer,
            "/v1/replay",
        )
        .unwrap_or_else(|e| panic!("replay -> {status} {answer}: {e}"));
    }
    // The requests above reach every documented status but 500 (a bug only) and the replay 400.
    for (path, status) in [
        ("/v1/check", 200),
        ("/v1/check", 400),
        ("/v1/play", 200),
        ("/v1/play", 413),
        ("/v1/play", 422),
        ("/v1/moves", 200),
        ("/v1/moves", 400),
        ("/v1/status", 200),
        ("/v1/status", 400),
        ("/v1/replay", 200),
        ("/v1/replay", 413),
    ] {
        assert!(
            statuses.contains(&(path.to_string(), status)),
            "{path} {status} not exercised"
        );
    }
    s.shutdown().await;
}

/// The validator itself catches drift: extra fields, wrong types, missing fields, bad enums.
#[test]
fn validator_rejects_drift() {
    let doc: Value = serde_json::from_str(chessref_server::OPENAPI_JSON).expect("openapi");
    let schema = json!({"$ref": "#/components/schemas/CheckResponse"});
    validate(
        &doc,
        &schema,
        &json!({"legal": true, "code": 0, "reason": "OK"}),
        "ok",
    )
    .expect("valid");
    for bad in [
        json!({"legal": true, "code": 0, "reason": "OK", "extra": 1}),
        json!({"legal": "yes", "code": 0, "reason": "OK"}),
        json!({"legal": true, "reason": "OK"}),
        json!({"legal": false, "code": 15, "reason": "OK"}),
        json!({"legal": false, "code": 6, "reason": "BAD_GEOMETRIE"}),
    ] {
        assert!(
            validate(&doc, &schema, &bad, "bad").is_err(),
            "{bad} passed"
        );
    }
}
