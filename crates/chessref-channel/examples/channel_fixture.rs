//! Writes the worked examples of docs/CHANNEL.md section 10 as JSON on stdout:
//! `cargo run -p chessref-channel --example channel_fixture > tests/fixtures/channel-examples.json`.
//! The Rust tests regenerate it and compare byte for byte; the Solidity and JS tests
//! recompute every value in it with their own code.

use alloy_primitives::{Address, B256, Bytes, U256, aliases::U24, keccak256};
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::SolStruct;
use chessref_channel::messages::{Message, author_of};
use chessref_channel::signer::{delegate, sign};
use chessref_channel::{
    ChannelDomain, ChannelGame, Delegation, Move, Resignation, ResultMessage, SignedDelegation,
    check_successor,
};
use chessref_core::{Color, State};
use serde_json::{Value, json};

/// Anvil's well-known test accounts 1 and 2 (never use them for anything real).
const WHITE_KEY: &str = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const BLACK_KEY: &str = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
/// Anvil's account 0, which deploys the referee at nonce 0.
const DEPLOYER: Address = alloy_primitives::address!("f39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
const GAME_ID: u64 = 7;
const INITIAL_TIME: u32 = 300;
const INCREMENT: u32 = 2;
const RESPONSE_WINDOW: u32 = 600;

fn hex(bytes: &[u8]) -> String {
    format!("0x{}", alloy_primitives::hex::encode(bytes))
}

fn key(text: &str) -> PrivateKeySigner {
    text.parse().expect("a valid private key")
}

/// A session key derived from a label, so the file is reproducible.
fn session(label: &str) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&keccak256(label.as_bytes())).expect("a valid private key")
}

fn key_json(k: &PrivateKeySigner) -> Value {
    json!({ "privateKey": hex(&k.to_bytes().0), "address": k.address().to_string() })
}

struct Fixture {
    domain: ChannelDomain,
    delegations: Vec<(String, Color, SignedDelegation, Address)>,
}

impl Fixture {
    fn move_json(&self, mv: &Move, signer: Option<(&PrivateKeySigner, i64)>) -> Value {
        let (signer_address, signature, delegation) = match signer {
            None => (Address::ZERO.to_string(), "0x".to_owned(), -1),
            Some((k, d)) => (
                k.address().to_string(),
                sign(k, &self.domain, mv).expect("signing").to_string(),
                d,
            ),
        };
        let author = match author_of(mv) {
            Some(Color::White) => "white",
            Some(Color::Black) => "black",
            None => "none",
        };
        let status = State::from_bytes(&mv.state)
            .map(|s| s.status().code())
            .unwrap_or(255);
        json!({
            "gameId": mv.gameId.to::<u64>(),
            "ply": mv.ply,
            "mv": mv.packed(),
            "uci": uci(mv.packed()),
            "state": hex(&mv.state),
            "history": mv.history.to_string(),
            "whiteTime": mv.whiteTime,
            "blackTime": mv.blackTime,
            "previous": mv.previous.to_string(),
            "hash": mv.hash().to_string(),
            "digest": mv.digest(&self.domain).to_string(),
            "author": author,
            "signer": signer_address,
            "signature": signature,
            "delegation": delegation,
            "status": status,
        })
    }
}

fn uci(packed: u32) -> String {
    chessref_core::RawMove::from_packed(packed).to_string()
}

/// The move `uci` from `previous`'s position with the author's time spent.
fn successor(previous: &Move, uci: &str, spent: u32) -> Move {
    let mv = chessref_core::Move::from_uci(uci).expect("UCI");
    chessref_channel::transition::successor(previous, mv, spent, INCREMENT).expect("a legal move")
}

/// Builds the whole fixture.
pub fn build() -> Value {
    let white = key(WHITE_KEY);
    let black = key(BLACK_KEY);
    let white_session_1 = session("chessref fixture: white session 1");
    let white_session_2 = session("chessref fixture: white session 2");
    let black_session = session("chessref fixture: black session");
    let referee = DEPLOYER.create(0);
    let domain = ChannelDomain {
        chain_id: 31337,
        verifying_contract: referee.create(1),
    };
    let game = ChannelGame {
        game_id: U256::from(GAME_ID),
        white: white.address(),
        black: black.address(),
        initial_time: INITIAL_TIME,
        increment: INCREMENT,
        response_window: RESPONSE_WINDOW,
        start_state: None,
    };
    let id = game.game_id;
    let mut fx = Fixture {
        domain,
        delegations: Vec::new(),
    };
    // White's first key covers plies 1-2 only; the rotated key takes over from ply 3.
    for (name, colour, wallet, key, first, last) in [
        (
            "whiteSession1",
            Color::White,
            &white,
            &white_session_1,
            1u32,
            2u32,
        ),
        (
            "whiteSession2",
            Color::White,
            &white,
            &white_session_2,
            3,
            u32::MAX,
        ),
        (
            "blackSession",
            Color::Black,
            &black,
            &black_session,
            1,
            u32::MAX,
        ),
    ] {
        let d = delegate(wallet, &domain, id, key.address(), first, last).expect("signing");
        fx.delegations
            .push((name.to_owned(), colour, d, wallet.address()));
    }

    let start = game.start_move().expect("the standard start");
    // Fool's mate, each move signed differently: white by its first session key,
    // black directly, white by its rotated key, black by its session key.
    let m1 = successor(&start, "f2f3", 4);
    let m2 = successor(&m1, "e7e5", 6);
    let m3 = successor(&m2, "g2g4", 10);
    let m4 = successor(&m3, "d8h4", 3);
    let signers: [(&Move, &PrivateKeySigner, i64); 4] = [
        (&m1, &white_session_1, 0),
        (&m2, &black, -1),
        (&m3, &white_session_2, 1),
        (&m4, &black_session, 2),
    ];
    let moves: Vec<Value> = signers
        .iter()
        .map(|(m, k, d)| fx.move_json(m, Some((k, *d))))
        .collect();

    let delegations: Vec<Value> = fx
        .delegations
        .iter()
        .map(|(name, colour, d, wallet)| {
            json!({
                "name": name,
                "player": if *colour == Color::White { "white" } else { "black" },
                "gameId": GAME_ID,
                "sessionKey": d.delegation.sessionKey.to_string(),
                "firstPly": d.delegation.firstPly,
                "lastPly": d.delegation.lastPly,
                "hash": d.delegation.hash().to_string(),
                "digest": d.delegation.digest(&domain).to_string(),
                "signer": wallet.to_string(),
                "signature": d.signature.to_string(),
            })
        })
        .collect();

    let resignation = Resignation { gameId: id, ply: 3 };
    let result = ResultMessage {
        gameId: id,
        ply: 4,
        result: 2,
    };
    let signed = |k: &PrivateKeySigner, m: &dyn Fn(&PrivateKeySigner) -> Bytes| m(k).to_string();

    // Negative examples.
    let m1_sig = sign(&white_session_1, &domain, &m1).expect("signing");
    let high_s = {
        let r = &m1_sig[..32];
        let s = U256::from_be_slice(&m1_sig[32..64]);
        let n = U256::from_str_radix(
            "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
            16,
        )
        .expect("the curve order");
        let mut twin = r.to_vec();
        twin.extend_from_slice(&(n - s).to_be_bytes::<32>());
        twin.push(if m1_sig[64] == 27 { 28 } else { 27 });
        hex(&twin)
    };
    let other_chain = ChannelDomain {
        chain_id: 1,
        ..domain
    };
    let m3_other = successor(&m2, "g2g3", 10);

    let mut transitions = Vec::new();
    let mut add = |name: &str, previous: &Move, bad: Move, signer: &PrivateKeySigner| {
        let error = check_successor(previous, &bad, INCREMENT).expect_err("an invalid successor");
        transitions.push(json!({
            "name": name,
            "code": error.code(),
            "ruleCode": error.rule_code(),
            "previous": fx.move_json(previous, None),
            "move": fx.move_json(&bad, Some((signer, -1))),
        }));
    };
    add(
        "wrong ply",
        &m1,
        Move {
            ply: 3,
            ..m2.clone()
        },
        &black,
    );
    add(
        "wrong previous",
        &m1,
        Move {
            previous: B256::ZERO,
            ..m2.clone()
        },
        &black,
    );
    add(
        "opponent's time cut",
        &m1,
        Move {
            whiteTime: m1.whiteTime - 60,
            ..m2.clone()
        },
        &black,
    );
    add(
        "own time raised past the increment",
        &m1,
        Move {
            blackTime: INITIAL_TIME + INCREMENT + 1,
            ..m2.clone()
        },
        &black,
    );
    {
        // A move after the mate: the mated side signs a king move anyway.
        let mut after_mate = successor(&m3, "d8h4", 3);
        after_mate = Move {
            ply: 5,
            previous: m4.hash(),
            mv: U24::from(0x74_64_00u32),
            ..after_mate
        };
        let after_mate = Move {
            whiteTime: m4.whiteTime,
            blackTime: m4.blackTime,
            ..after_mate
        };
        // The author must be white (the side to move after the mate): flip the state's turn.
        let mut state = m4.state.to_vec();
        state[56] = 0xff;
        add(
            "move after checkmate",
            &m4,
            Move {
                state: state.into(),
                ..after_mate
            },
            &white,
        );
    }
    add(
        "illegal move",
        &m1,
        Move {
            mv: U24::from(0x64_34_00u32),
            ..m2.clone()
        },
        &black,
    );
    {
        // A predecessor whose state breaks section 7 (a second white king on e4).
        let mut bytes = m1.state.to_vec();
        bytes[0x34 / 16 * 8 + 0x34 % 16] = 6;
        let broken = Move {
            state: bytes.into(),
            ..m1.clone()
        };
        let next = Move {
            previous: broken.hash(),
            ..m2.clone()
        };
        add("predecessor invalid", &broken, next, &black);
    }
    {
        let mut bytes = m2.state.to_vec();
        bytes[10] = 9;
        add(
            "wrong state",
            &m1,
            Move {
                state: bytes.into(),
                ..m2.clone()
            },
            &black,
        );
    }
    add(
        "wrong history",
        &m1,
        Move {
            history: B256::ZERO,
            ..m2.clone()
        },
        &black,
    );

    let sign_with = |k: &PrivateKeySigner, m: &dyn Fn(&PrivateKeySigner) -> Bytes| signed(k, m);
    json!({
        "comment": "Worked examples of docs/CHANNEL.md (normative). Generated by `cargo run -p chessref-channel --example channel_fixture`; read by the Rust, Solidity and JS tests. The keys are well-known test keys: never use them for anything real.",
        "domain": {
            "name": chessref_channel::domain::NAME,
            "version": chessref_channel::domain::VERSION,
            "chainId": domain.chain_id,
            "verifyingContract": domain.verifying_contract.to_string(),
            "separator": domain.separator().to_string(),
            "referee": referee.to_string(),
            "deployer": DEPLOYER.to_string(),
        },
        "types": {
            "Move": type_json::<Move>(),
            "Delegation": type_json::<Delegation>(),
            "Resignation": type_json::<Resignation>(),
            "Result": type_json::<ResultMessage>(),
        },
        "keys": {
            "white": key_json(&white),
            "black": key_json(&black),
            "whiteSession1": key_json(&white_session_1),
            "whiteSession2": key_json(&white_session_2),
            "blackSession": key_json(&black_session),
        },
        "game": {
            "gameId": GAME_ID,
            "white": game.white.to_string(),
            "black": game.black.to_string(),
            "initialTime": INITIAL_TIME,
            "increment": INCREMENT,
            "responseWindow": RESPONSE_WINDOW,
            "startState": hex(&start.state),
            "startHistory": start.history.to_string(),
        },
        "start": fx.move_json(&start, None),
        "delegations": delegations,
        "moves": moves,
        "resignation": {
            "gameId": GAME_ID,
            "ply": resignation.ply,
            "by": "white",
            "hash": resignation.hash().to_string(),
            "digest": resignation.digest(&domain).to_string(),
            "signer": white_session_2.address().to_string(),
            "signature": sign_with(&white_session_2, &|k| sign(k, &domain, &resignation).expect("signing")),
            "delegation": 1,
        },
        "result": {
            "gameId": GAME_ID,
            "ply": result.ply,
            "result": result.result,
            "hash": result.hash().to_string(),
            "digest": result.digest(&domain).to_string(),
            "white": {
                "signer": white.address().to_string(),
                "signature": sign(&white, &domain, &result).expect("signing").to_string(),
                "delegation": -1,
            },
            "black": {
                "signer": black_session.address().to_string(),
                "signature": sign(&black_session, &domain, &result).expect("signing").to_string(),
                "delegation": 2,
            },
        },
        "negative": {
            "highS": {
                "comment": "the high-s twin of moves[0]'s signature: plain ecrecover gives the same signer, the protocol refuses it",
                "digest": m1.digest(&domain).to_string(),
                "signature": high_s,
                "signer": white_session_1.address().to_string(),
            },
            "wrongSigner": fx.move_json(&m2, Some((&white, -1))),
            "otherChain": {
                "chainId": other_chain.chain_id,
                "separator": other_chain.separator().to_string(),
                "digest": m1.digest(&other_chain).to_string(),
            },
            "equivocation": {
                "a": fx.move_json(&m3, Some((&white_session_2, 1))),
                "b": fx.move_json(&m3_other, Some((&white_session_2, 1))),
            },
            "transitions": transitions,
        },
    })
}

fn type_json<T: SolStruct>() -> Value {
    json!({
        "type": T::eip712_encode_type(),
        "typeHash": keccak256(T::eip712_encode_type().as_bytes()).to_string(),
    })
}

#[allow(dead_code)] // the tests include this file for `build` only
fn main() {
    let text = serde_json::to_string_pretty(&build()).expect("JSON");
    println!("{text}");
}
