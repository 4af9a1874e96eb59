//! The long-game transcript the WASM bench and tests read is what the generator writes
//! today, and it verifies: 87 valid plies, every signature checked, black resigned.

#[path = "../examples/channel_long_game.rs"]
mod channel_long_game;

use chessref_channel::{NoPins, Transcript};

const JSON: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/long-game.json");

#[test]
fn test_the_committed_long_game_is_current_and_verifies() {
    let text = std::fs::read_to_string(JSON).expect("the long-game file");
    assert!(
        text == channel_long_game::json(),
        "benches/long-game.json differs from the generator's output: regenerate it with \
         `cargo run -p chessref-channel --example channel_long_game > crates/chessref-channel/benches/long-game.json`"
    );
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let now = value["now"].as_u64().expect("now");
    let t = Transcript::from_json(&text).expect("a transcript");
    assert_eq!(t.moves.len(), 87);
    assert!(
        t.moves
            .iter()
            .all(|m| m.delegation >= 0 && m.receipt.is_some())
    );
    let report = t.verify(&NoPins, now).expect("verifiable");
    assert_eq!(report.error, None);
    assert_eq!(report.valid_plies, 87);
    assert_eq!(report.settlement.call, "resignBySignature");
    assert_eq!(report.settlement.ends, Some((1, 5)));
}
