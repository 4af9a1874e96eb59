//! Writes the worked examples of docs/CHANNEL.md section 12 as JSON on stdout:
//! `cargo run -p chessref-channel --example channel_fixture > tests/fixtures/channel-examples.json`.
//! The Rust tests regenerate it and compare byte for byte; the Solidity and JS tests
//! recompute every value in it with their own code.

use alloy_primitives::{Address, B256, U256, aliases::U24, keccak256};
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::SolStruct;
use chessref_channel::messages::{Message, author_of};
use chessref_channel::signer::{delegate, sign};
use chessref_channel::transcript::receipt_of;
use chessref_channel::{
    ChannelDomain, ChannelGame, Delegation, DrawOffer, Move, Receipt, Resignation, ResultMessage,
    SignedDelegation, check_successor,
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
/// When the game was joined (unix seconds): the moves' stamps count from here.
const JOINED_AT: u64 = 1_767_225_600;
/// The verifier's clock at which the fixture's resignation and result are judged.
const NOW: u64 = JOINED_AT + 120;

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
            "timestamp": mv.timestamp,
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

/// A message of type `T` with its hashes, signer and signature: `fields` first.
fn signed_json<M: Message>(
    domain: &ChannelDomain,
    message: &M,
    fields: Value,
    signer: &PrivateKeySigner,
    delegation: i64,
) -> Value {
    let mut v = fields;
    let o = v.as_object_mut().expect("an object");
    o.insert("hash".into(), json!(message.hash().to_string()));
    o.insert("digest".into(), json!(message.digest(domain).to_string()));
    o.insert("signer".into(), json!(signer.address().to_string()));
    o.insert(
        "signature".into(),
        json!(sign(signer, domain, message).expect("signing").to_string()),
    );
    o.insert("delegation".into(), json!(delegation));
    v
}

fn receipt_json(
    domain: &ChannelDomain,
    r: &Receipt,
    signer: &PrivateKeySigner,
    delegation: i64,
) -> Value {
    signed_json(
        domain,
        r,
        json!({
            "gameId": r.gameId.to::<u64>(),
            "ply": r.ply,
            "position": r.position.to_string(),
            "seenAt": r.seenAt,
        }),
        signer,
        delegation,
    )
}

fn delegation_json(
    domain: &ChannelDomain,
    name: &str,
    colour: Color,
    d: &SignedDelegation,
    wallet: Address,
) -> Value {
    json!({
        "name": name,
        "player": if colour == Color::White { "white" } else { "black" },
        "gameId": GAME_ID,
        "sessionKey": d.delegation.sessionKey.to_string(),
        "firstPly": d.delegation.firstPly,
        "lastPly": d.delegation.lastPly,
        "expires": d.delegation.expires,
        "hash": d.delegation.hash().to_string(),
        "digest": d.delegation.digest(domain).to_string(),
        "signer": wallet.to_string(),
        "signature": d.signature.to_string(),
    })
}

fn uci(packed: u32) -> String {
    chessref_core::RawMove::from_packed(packed).to_string()
}

/// The move `uci` from `previous`'s position, signed at `timestamp`.
fn successor(previous: &Move, uci: &str, timestamp: u64) -> Move {
    let mv = chessref_core::Move::from_uci(uci).expect("UCI");
    chessref_channel::transition::successor(previous, mv, timestamp, INCREMENT)
        .expect("a legal move in time")
}

/// Builds the whole fixture.
pub fn build() -> Value {
    let white = key(WHITE_KEY);
    let black = key(BLACK_KEY);
    let white_session_1 = session("chessref fixture: white session 1");
    let white_session_2 = session("chessref fixture: white session 2");
    let black_session = session("chessref fixture: black session");
    let expired_session = session("chessref fixture: expired session");
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
    let expires = game.key_expiry(JOINED_AT, 200);
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
        let d =
            delegate(wallet, &domain, id, key.address(), first, last, expires).expect("signing");
        fx.delegations
            .push((name.to_owned(), colour, d, wallet.address()));
    }

    let start = game.start_move().expect("the standard start");
    // Fool's mate, each move signed differently: white by its first session key,
    // black directly, white by its rotated key, black by its session key. White's first
    // move is not charged; then each mover is charged the time since the move before.
    let m1 = successor(&start, "f2f3", JOINED_AT + 10);
    let m2 = successor(&m1, "e7e5", JOINED_AT + 16);
    let m3 = successor(&m2, "g2g4", JOINED_AT + 26);
    let m4 = successor(&m3, "d8h4", JOINED_AT + 29);
    // Each move with its author's key and the side to move's receipt, signed at once
    // (one or two seconds after the stamp) by its key.
    let signers: [(&Move, &PrivateKeySigner, i64, &PrivateKeySigner, i64, u64); 4] = [
        (&m1, &white_session_1, 0, &black, -1, 1),
        (&m2, &black, -1, &white_session_1, 0, 2),
        (&m3, &white_session_2, 1, &black_session, 2, 1),
        (&m4, &black_session, 2, &white_session_2, 1, 2),
    ];
    let moves: Vec<Value> = signers
        .iter()
        .map(|(m, k, d, rk, rd, delay)| {
            let mut v = fx.move_json(m, Some((k, *d)));
            let receipt = receipt_of(m, m.timestamp + delay);
            v["receipt"] = receipt_json(&domain, &receipt, rk, *rd);
            v
        })
        .collect();

    // A key that expired before the end: its resignation in the final position no
    // longer counts (its moves, stamped before the expiry, would).
    let short = delegate(
        &white,
        &domain,
        id,
        expired_session.address(),
        1,
        u32::MAX,
        m4.timestamp + 1,
    )
    .expect("signing");

    fx.delegations.push((
        "expiredSession".to_owned(),
        Color::White,
        short,
        white.address(),
    ));
    let delegations: Vec<Value> = fx
        .delegations
        .iter()
        .map(|(name, colour, d, wallet)| delegation_json(&domain, name, *colour, d, *wallet))
        .collect();

    // Black offers a draw after its first move (binds nobody; lapsed by white's reply).
    let draw_offer = DrawOffer {
        gameId: id,
        ply: m2.ply,
        position: m2.hash(),
    };
    // White resigns in the final position; both sign black's win there.
    let resignation = Resignation {
        gameId: id,
        ply: m4.ply,
        position: m4.hash(),
    };
    let result = ResultMessage {
        gameId: id,
        ply: m4.ply,
        position: m4.hash(),
        result: 2,
    };
    let result_json =
        |r: &ResultMessage, w: (&PrivateKeySigner, i64), b: (&PrivateKeySigner, i64)| {
            let side = |(k, d): (&PrivateKeySigner, i64)| {
                json!({
                    "signer": k.address().to_string(),
                    "signature": sign(k, &domain, r).expect("signing").to_string(),
                    "delegation": d,
                })
            };
            json!({
                "gameId": r.gameId.to::<u64>(),
                "ply": r.ply,
                "position": r.position.to_string(),
                "result": r.result,
                "hash": r.hash().to_string(),
                "digest": r.digest(&domain).to_string(),
                "white": side(w),
                "black": side(b),
            })
        };

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
    let m3_other = successor(&m2, "g2g3", m3.timestamp);

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
    // Code 4, each of its forms (m2 answers m1, black had 300 s).
    add(
        "timestamp before its predecessor's",
        &m2,
        Move {
            timestamp: m2.timestamp - 1,
            ..m3.clone()
        },
        &white,
    );
    {
        // Black thinks 301 s with 300 s on its clock, then signs claiming 1 s left.
        let late = m1.timestamp + u64::from(INITIAL_TIME) + 1;
        add(
            "signed after its flag fell",
            &m1,
            Move {
                timestamp: late,
                blackTime: 1,
                ..m2.clone()
            },
            &black,
        );
    }
    add(
        "own time raised past the increment",
        &m1,
        Move {
            blackTime: m2.blackTime + 1,
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
    {
        // A move after the mate: the mated side signs a king move anyway, in time.
        let stamp = m4.timestamp + 5;
        let after_mate = Move {
            gameId: id,
            ply: 5,
            mv: U24::from(0x74_64_00u32),
            // The author must be white (the side to move after the mate): flip the
            // state's turn.
            state: {
                let mut state = m4.state.to_vec();
                state[56] = 0xff;
                state.into()
            },
            history: m4.history,
            whiteTime: m4.whiteTime - 5 + INCREMENT,
            blackTime: m4.blackTime,
            timestamp: stamp,
            previous: m4.hash(),
        };
        add("move after checkmate", &m4, after_mate, &white);
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

    // A draw both signed at ply 2: play went on, so it has lapsed.
    let lapsed = ResultMessage {
        gameId: id,
        ply: m2.ply,
        position: m2.hash(),
        result: 3,
    };
    json!({
        "comment": "Worked examples of docs/CHANNEL.md (protocol v2, normative). Generated by `cargo run -p chessref-channel --example channel_fixture`; read by the Rust, Solidity and JS tests. The keys are well-known test keys: never use them for anything real. `now` is the verifier's clock at which the resignation and result (session-key agreements) are judged.",
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
            "DrawOffer": type_json::<DrawOffer>(),
            "Receipt": type_json::<Receipt>(),
        },
        "keys": {
            "white": key_json(&white),
            "black": key_json(&black),
            "whiteSession1": key_json(&white_session_1),
            "whiteSession2": key_json(&white_session_2),
            "blackSession": key_json(&black_session),
            "expiredSession": key_json(&expired_session),
        },
        "game": {
            "gameId": GAME_ID,
            "white": game.white.to_string(),
            "black": game.black.to_string(),
            "initialTime": INITIAL_TIME,
            "increment": INCREMENT,
            "responseWindow": RESPONSE_WINDOW,
            "joinedAt": JOINED_AT,
            "startState": hex(&start.state),
            "startHistory": start.history.to_string(),
        },
        "now": NOW,
        "start": fx.move_json(&start, None),
        "delegations": delegations,
        "moves": moves,
        "drawOffer": signed_json(
            &domain,
            &draw_offer,
            json!({
                "gameId": GAME_ID,
                "ply": draw_offer.ply,
                "position": draw_offer.position.to_string(),
                "by": "black",
            }),
            &black_session,
            2,
        ),
        "resignation": signed_json(
            &domain,
            &resignation,
            json!({
                "gameId": GAME_ID,
                "ply": resignation.ply,
                "position": resignation.position.to_string(),
                "by": "white",
            }),
            &white_session_2,
            1,
        ),
        "result": result_json(&result, (&white, -1), (&black_session, 2)),
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
            "lapsedResult": {
                "comment": "a draw both signed at ply 2, after which play went on to ply 4: lapsed (refused by a verifier, and by the contract once ply 3 or later is registered)",
                "latestPly": m4.ply,
                "result": result_json(&lapsed, (&white_session_1, 0), (&black, -1)),
            },
            "expiredKey": {
                "comment": "a resignation in the final position by white's key of delegations[3], which expired one second after the last move's stamp: it does not count when judged at `now` (after `expires`); a move it had stamped before `expires` would",
                "now": NOW,
                "resignation": signed_json(
                    &domain,
                    &resignation,
                    json!({
                        "gameId": GAME_ID,
                        "ply": resignation.ply,
                        "position": resignation.position.to_string(),
                        "by": "white",
                    }),
                    &expired_session,
                    3,
                ),
            },
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
