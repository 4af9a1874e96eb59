//! A long real game played off-chain the way the honest client plays it: Kasparov v
//! Topalov, Wijk aan Zee 1999 (87 plies, 1-0), both players on session keys their
//! wallets delegated for the whole game, every move acknowledged by the opponent's
//! receipt a second after its stamp, and black's resignation at the end. The
//! signatures are deterministic (RFC 6979), so the transcript is the same on every run.
//! Shared by the `verify` bench, the `channel_long_game` example (which writes the
//! JSON the WASM bench and tests read) and the test that the committed JSON is current.

use alloy_primitives::{Address, U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::{ChannelDomain, ChannelGame, Transcript};
use chessref_core::{Color, State};

/// The game's moves in SAN, white's first.
pub const SAN: &str = "e4 d6 d4 Nf6 Nc3 g6 Be3 Bg7 Qd2 c6 f3 b5 Nge2 Nbd7 Bh6 Bxh6 Qxh6 Bb7 \
    a3 e5 O-O-O Qe7 Kb1 a6 Nc1 O-O-O Nb3 exd4 Rxd4 c5 Rd1 Nb6 g3 Kb8 Na5 Ba8 Bh3 d5 \
    Qf4+ Ka7 Rhe1 d4 Nd5 Nbxd5 exd5 Qd6 Rxd4 cxd4 Re7+ Kb6 Qxd4+ Kxa5 b4+ Ka4 Qc3 Qxd5 \
    Ra7 Bb7 Rxb7 Qc4 Qxf6 Kxa3 Qxa6+ Kxb4 c3+ Kxc3 Qa1+ Kd2 Qb2+ Kd1 Bf1 Rd2 Rd7 Rxd7 \
    Bxc4 bxc4 Qxh8 Rd3 Qa8 c3 Qa4+ Ke1 f4 f5 Kc1 Rd2 Qa7";

/// When the game was joined (unix seconds).
pub const JOINED_AT: u64 = 1_800_000_000;

fn key(label: &str) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&keccak256(label)).expect("a key")
}

/// The transcript (black resigned after white's 44th move) and a verifier's clock half a
/// minute after the last move, at which the resignation is judged.
pub fn transcript() -> (Transcript, u64) {
    let domain = ChannelDomain {
        chain_id: 1,
        verifying_contract: Address::repeat_byte(0x42),
    };
    let (w, b) = (key("long game white"), key("long game black"));
    let game = ChannelGame {
        game_id: U256::from(1999),
        white: w.address(),
        black: b.address(),
        initial_time: 1800,
        increment: 10,
        response_window: 300,
        start_state: None,
    };
    let expires = game.key_expiry(JOINED_AT, 200);
    let white = Seat::with_session(w, key("long game white session"), &domain, &game, expires)
        .expect("signing");
    let black = Seat::with_session(b, key("long game black session"), &domain, &game, expires)
        .expect("signing");
    let mut g = OffChainGame::new(domain, game, white, black).expect("standard start");
    let mut clock = JOINED_AT;
    for (i, san) in SAN.split_whitespace().enumerate() {
        let state = State::from_bytes(&g.last().state).expect("valid");
        let mv = state
            .parse_san(san)
            .unwrap_or_else(|e| panic!("ply {}: {san}: {e}", i + 1));
        // Thinking times of 3 to 40 s, the same on every run.
        clock += 3 + (i as u64 * 17 + 5) % 38;
        g.play(mv.mv(), clock).expect("an honest move");
        g.receipt(clock + 1).expect("signing");
    }
    let now = g.last().timestamp + 30;
    (g.transcript_resigned(Color::Black).expect("signing"), now)
}
