//! The OpenAPI document's request constraints are the service's: a FEN, a state hex or
//! a move the document's pattern allows is refused only for a chess reason (an invalid
//! position with its section 7 code, an illegal move), and one it forbids is refused as
//! malformed. Each pattern is checked against the parser the service uses on the texts
//! of many real values and of every one-character edit of them; the document's examples
//! are answered, and the engines it lists are the ones the server has.

mod common;

use chessref_core::{FenError, RawMove, SanError, State, StateError};
use chessref_server::Config;
use common::TestServer;
use regex::Regex;
use serde_json::{Value, json};

/// The document this server serves, and the compiled pattern at `pointer` in it.
fn pattern(doc: &Value, pointer: &str) -> Regex {
    let text = doc
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no pattern at {pointer}"));
    Regex::new(text).unwrap_or_else(|e| panic!("{pointer}: {e}"))
}

/// `seeds`, and every text one edit away from one of them: a character deleted, replaced
/// by one of `alphabet`, or one of `alphabet` inserted, at every position.
fn edits(seeds: &[&str], alphabet: &[char]) -> Vec<String> {
    let mut out = Vec::new();
    for seed in seeds {
        let chars: Vec<char> = seed.chars().collect();
        out.push((*seed).to_owned());
        for i in 0..=chars.len() {
            if i < chars.len() {
                let mut deleted = chars.clone();
                deleted.remove(i);
                out.push(deleted.into_iter().collect());
            }
            for &c in alphabet {
                if i < chars.len() {
                    let mut replaced = chars.clone();
                    replaced[i] = c;
                    out.push(replaced.into_iter().collect());
                }
                let mut inserted = chars.clone();
                inserted.insert(i, c);
                out.push(inserted.into_iter().collect());
            }
        }
    }
    out
}

/// Whitespace the service ignores around a value (Rust's `trim`) and some it does not.
const SPACES: [char; 6] = [
    '\u{a0}', '\u{85}', '\u{2003}', '\u{feff}', '\u{1c}', '\u{b}',
];

/// Asserts that `allowed` (the document's pattern) and `accepted` (the service's parser
/// reading the text, refusing it only for a chess reason) agree on every text.
fn agree(what: &str, texts: &[String], allowed: &Regex, accepted: impl Fn(&str) -> bool) {
    let mut checked = 0;
    for text in texts {
        assert_eq!(
            allowed.is_match(text),
            accepted(text),
            "{what} {text:?}: the document's pattern (left) and the service (right) disagree"
        );
        checked += 1;
    }
    assert!(checked > 500, "{what}: only {checked} texts");
}

fn served_document() -> Value {
    serde_json::from_str(chessref_server::openapi_document()).expect("the served document")
}

#[test]
fn the_fen_pattern_is_the_fen_reader() {
    let doc = served_document();
    let fen = pattern(&doc, "/components/schemas/Fen/pattern");
    let seeds = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/8/8/K2pP2r/8/8/8/7k w - d6 0 2",
        "4k3/8/8/8/8/8/8/4K3 b Qk e3 12 8192",
        "4k3/8/8/8/8/8/8/4K3 b - -",
        "44/1111k111/8/8/8/8/8/4K3 w Kq - 0 0",
    ];
    let alphabet = [
        '0', '1', '2', '8', '9', 'K', 'k', 'p', 'x', '/', ' ', '\t', '-', 'q', 'Q', 'e', '3', '6',
        'w', 'b',
    ];
    let mut texts = edits(&seeds, &alphabet);
    for space in SPACES {
        texts.push(format!("{space}{}{space}", seeds[0]));
    }
    texts.push(format!("{} 0 08192", &seeds[4]));
    texts.push(format!("{} 0 8193", &seeds[4]));
    texts.push(format!("{} 99999999999999999999999 1", &seeds[4]));
    agree("FEN", &texts, &fen, |text| {
        !matches!(
            State::from_fen(text.trim()),
            Err(e) if !matches!(e, FenError::Invalid(_))
        )
    });
}

#[test]
fn the_state_and_move_patterns_are_the_readers() {
    let doc = served_document();
    let state = pattern(&doc, "/components/schemas/StateHex/pattern");
    let initial = State::initial().to_hex();
    let seeds = [
        initial.clone(),
        format!("0x{initial}"),
        format!("0X{}", initial.to_uppercase()),
    ];
    let seeds: Vec<&str> = seeds.iter().map(String::as_str).collect();
    let mut texts = edits(&seeds, &['0', 'f', 'F', 'g', 'x', ' ']);
    for space in SPACES {
        texts.push(format!("{space}{initial}{space}"));
    }
    agree("state", &texts, &state, |text| {
        !matches!(
            State::from_hex(text.trim()),
            Err(e) if !matches!(e, StateError::Invalid(_))
        )
    });

    let check_move = pattern(
        &doc,
        "/components/schemas/CheckRequest/properties/move/oneOf/0/pattern",
    );
    let seeds = ["e2e4", "e7e8q", "b7b8K", "0x644400", "0X1", "a1h8p"];
    let mut texts = edits(
        &seeds,
        &[
            'a', 'h', 'i', '1', '8', '9', '0', 'x', 'q', 'k', 'F', 'g', ' ',
        ],
    );
    texts.extend(SPACES.iter().map(|space| format!("{space}e2e4{space}")));
    agree("check move", &texts, &check_move, |text| {
        RawMove::parse(text).is_ok()
    });

    let play_move = pattern(
        &doc,
        "/components/schemas/PlayRequest/properties/moves/items/pattern",
    );
    let seeds = [
        "e4", "Nbd7", "exd5", "e8=Q", "e8Q", "O-O", "0-0-0", "Qxf7#", "e2e4", "e7e8q", "Pe4",
        "R1e1+!", "b7b8k", "Kxe2??",
    ];
    let mut texts = edits(
        &seeds,
        &[
            'x', '=', '+', '#', '!', '?', 'q', 'Q', 'K', 'P', '1', '8', '9', 'a', 'h', 'i', '-',
            'O', '0', ' ',
        ],
    );
    texts.extend(SPACES.iter().map(|space| format!("{space}Nf3{space}")));
    // Syntax does not depend on the position; a position with a promotion and castling.
    let position = State::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    agree("play move", &texts, &play_move, |text| {
        !matches!(
            position.parse_move(text.trim()),
            Err(SanError::Syntax { .. })
        )
    });
}

/// Every request example of the document is answered with 200 (an illegal move in
/// `/v1/check` is a 200 verdict too): they are what schemathesis mixes into its cases.
#[tokio::test]
async fn the_request_examples_are_answered() {
    let s = TestServer::start(Config::default()).await;
    let doc = served_document();
    let mut answered = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(body) = item.pointer("/post/requestBody/content") else {
            continue;
        };
        for (media, content) in body.as_object().unwrap() {
            let examples: Vec<Value> = match (content.get("examples"), content.get("example")) {
                (Some(named), _) => named
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|e| e["value"].clone())
                    .collect(),
                (None, Some(example)) => vec![example.clone()],
                (None, None) => continue,
            };
            for example in examples {
                let bytes = match &example {
                    Value::String(text) => text.clone().into_bytes(),
                    other => other.to_string().into_bytes(),
                };
                let (status, _, answer) = s.raw("POST", path, Some(media), bytes).await;
                assert_eq!(
                    status.as_u16(),
                    200,
                    "{path} {example}: {}",
                    String::from_utf8_lossy(&answer)
                );
                answered += 1;
            }
        }
    }
    assert!(answered >= 14, "only {answered} examples");
    s.shutdown().await;
}

/// The engines the served document lists for `/v1/replay` are the ones this build has,
/// and a key given as `null` is refused as the document (no `nullable`) says.
#[tokio::test]
async fn the_served_document_is_this_servers() {
    let s = TestServer::start(Config::default()).await;
    let (_, _, body) = s.raw("GET", "/openapi.json", None, vec![]).await;
    let doc: Value = serde_json::from_slice(&body).unwrap();
    let engines = doc
        .pointer("/paths/~1v1~1replay/post/parameters/0/schema/enum")
        .and_then(Value::as_array)
        .expect("the engine values")
        .clone();
    let expected = if cfg!(feature = "evm") {
        json!(["rust", "evm"])
    } else {
        json!(["rust"])
    };
    assert_eq!(Value::Array(engines.clone()), expected);
    for engine in engines {
        let path = format!("/v1/replay?engine={}", engine.as_str().unwrap());
        let (status, _, answer) = s
            .raw("POST", &path, Some("text/plain"), b"1. e4 e5 *\n".to_vec())
            .await;
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&answer));
    }
    for body in [
        json!({"fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "state": null}),
        json!({"fen": null, "moves": []}),
    ] {
        let path = if body.get("moves").is_some() {
            "/v1/play"
        } else {
            "/v1/status"
        };
        let (status, answer) = s.post_json(path, &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(answer["error"], "bad_json", "{body}: {answer}");
        assert!(
            answer["message"].as_str().unwrap().contains("null"),
            "{answer}"
        );
    }
    s.shutdown().await;
}
