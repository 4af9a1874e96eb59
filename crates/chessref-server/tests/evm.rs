//! `POST /v1/replay?engine=evm`: the compiled contract rules on revm agree
//! with chessref-core game by game (built with `--features evm`).
#![cfg(feature = "evm")]

mod common;

use chessref_server::Config;
use common::TestServer;
use hyper::StatusCode;
use serde_json::Value;

const PGN: &str = r#"[Event "scholar"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "opera"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7
14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0

[Event "en passant and promotion"]
[FEN "4k3/1P6/8/8/3p4/8/4P3/4K3 w - - 0 1"]
[SetUp "1"]

1. e4 dxe3 2. b8=N Kf7 3. Kf1 e2+ 4. Kxe2 *

[Event "after the end"]

1. f3 e5 2. g4 Qh4# 3. a3 *

[Event "illegal"]

1. e4 e5 2. d1d4 *
"#;

async fn replay(s: &TestServer, engine: &str) -> Value {
    let (status, _, body) = s
        .raw(
            "POST",
            &format!("/v1/replay?engine={engine}"),
            Some("application/x-chess-pgn"),
            PGN.as_bytes().to_vec(),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).expect("json")
}

#[tokio::test]
async fn evm_engine_agrees_with_the_rust_engine() {
    let s = TestServer::start(Config::default()).await;
    let evm = replay(&s, "evm").await;
    let rust = replay(&s, "rust").await;
    assert_eq!(evm["count"], 5);
    assert_eq!(evm["failed"], rust["failed"]);
    for (e, r) in evm["games"]
        .as_array()
        .expect("games")
        .iter()
        .zip(rust["games"].as_array().expect("games"))
    {
        assert_eq!(e["engine"], "evm");
        for field in [
            "index", "plies", "fen", "hex", "status", "result", "outcome", "code",
        ] {
            assert_eq!(e[field], r[field], "game {}: {field}", e["index"]);
        }
        assert_eq!(
            e["error"].is_null(),
            r["error"].is_null(),
            "game {}",
            e["index"]
        );
    }
    let g = &evm["games"];
    assert_eq!(
        (
            g[0]["status"].as_str(),
            g[0]["outcome"].as_str(),
            g[0]["plies"].as_u64()
        ),
        (Some("CHECKMATE"), Some("1-0"), Some(7))
    );
    assert_eq!(
        (g[1]["status"].as_str(), g[1]["plies"].as_u64()),
        (Some("CHECKMATE"), Some(33))
    );
    assert_eq!(g[2]["fen"], "1N6/5k2/8/8/8/8/4K3/8 b - - 0 4");
    assert_eq!(
        (g[3]["plies"].as_u64(), g[3]["outcome"].as_str()),
        (Some(4), Some("0-1"))
    );
    assert!(
        g[3]["error"]
            .as_str()
            .is_some_and(|e| e.contains("ply 5") && e.contains("ended")),
        "{}",
        g[3]["error"]
    );
    assert_eq!(
        (g[4]["plies"].as_u64(), g[4]["code"].as_u64()),
        (Some(2), Some(7))
    );
    s.shutdown().await;
}
