//! Writes the long-game transcript (Kasparov v Topalov 1999, 87 plies, both players on
//! session keys, every move with its receipt, black's resignation) as JSON on stdout,
//! with `now`, the verifier's clock it is judged at:
//! `cargo run -p chessref-channel --example channel_long_game > crates/chessref-channel/benches/long-game.json`.
//! The WASM bench (`crates/chessref-wasm/js/bench-channel.mjs`) and tests read it; a
//! Rust test compares it with this output byte for byte.

#[path = "../benches/long_game.rs"]
mod long_game;

/// The JSON text: the transcript with `now`.
pub fn json() -> String {
    let (transcript, now) = long_game::transcript();
    let mut value = serde_json::to_value(&transcript).expect("JSON");
    value["now"] = now.into();
    serde_json::to_string_pretty(&value).expect("JSON") + "\n"
}

#[allow(dead_code)] // the tests include this file for `json` only
fn main() {
    print!("{}", json());
}
