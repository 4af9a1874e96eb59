//! The worked examples of docs/CHANNEL.md section 10: the committed fixture is what
//! the generator writes today, byte for byte, and every example in it means what the
//! document says.

#[path = "../examples/channel_fixture.rs"]
mod channel_fixture;

use alloy_primitives::{Address, B256, Bytes, U256, aliases::U24};
use chessref_channel::auth::{AuthError, recover};
use chessref_channel::messages::Message;
use chessref_channel::{Auth, ChannelDomain, Move, NoContractWallets, Transcript, check_successor};
use serde_json::Value;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/channel-examples.json"
);

fn fixture() -> Value {
    serde_json::from_str(&std::fs::read_to_string(FIXTURE).expect("the fixture file"))
        .expect("JSON")
}

fn domain(f: &Value) -> ChannelDomain {
    serde_json::from_value(f["domain"].clone()).expect("domain")
}

fn b256(v: &Value) -> B256 {
    v.as_str().expect("hex").parse().expect("32 bytes")
}

fn bytes(v: &Value) -> Bytes {
    v.as_str().expect("hex").parse().expect("hex bytes")
}

fn message(v: &Value) -> Move {
    Move {
        gameId: U256::from(v["gameId"].as_u64().expect("gameId")),
        ply: v["ply"].as_u64().expect("ply") as u32,
        mv: U24::from(v["mv"].as_u64().expect("mv") as u32),
        state: bytes(&v["state"]),
        history: b256(&v["history"]),
        whiteTime: v["whiteTime"].as_u64().expect("whiteTime") as u32,
        blackTime: v["blackTime"].as_u64().expect("blackTime") as u32,
        previous: b256(&v["previous"]),
    }
}

#[test]
fn test_committed_fixture_is_what_the_generator_writes() {
    let generated = serde_json::to_string_pretty(&channel_fixture::build()).expect("JSON") + "\n";
    let committed = std::fs::read_to_string(FIXTURE).expect("the fixture file");
    assert!(
        generated == committed,
        "tests/fixtures/channel-examples.json differs from the generator's output: regenerate it with \
         `cargo run -p chessref-channel --example channel_fixture > tests/fixtures/channel-examples.json` \
         only if the protocol change is intended (docs/CHANNEL.md)"
    );
}

#[test]
fn test_every_move_hash_digest_and_signer_match() {
    let f = fixture();
    let d = domain(&f);
    assert_eq!(d.separator(), b256(&f["domain"]["separator"]));
    for v in f["moves"].as_array().expect("moves") {
        let m = message(v);
        assert_eq!(m.hash(), b256(&v["hash"]), "hash of ply {}", m.ply);
        assert_eq!(m.digest(&d), b256(&v["digest"]), "digest of ply {}", m.ply);
        let signer: Address = v["signer"]
            .as_str()
            .expect("signer")
            .parse()
            .expect("address");
        assert_eq!(
            recover(m.digest(&d), &bytes(&v["signature"])),
            Ok(signer),
            "ply {}",
            m.ply
        );
    }
}

#[test]
fn test_fixture_is_a_valid_transcript_settled_by_the_signed_result() {
    let t = Transcript::from_json(&std::fs::read_to_string(FIXTURE).expect("fixture"))
        .expect("transcript");
    let report = t.verify(&NoContractWallets).expect("verifiable");
    assert_eq!(report.error, None);
    assert_eq!(report.valid_plies, 4);
    assert_eq!(report.status, 1, "fool's mate");
    assert_eq!(report.settlement.call, "settle");
    assert_eq!(report.settlement.ends, Some((2, 8)));
}

#[test]
fn test_without_a_signed_end_the_mate_settles_by_registration() {
    let mut t = Transcript::from_json(&std::fs::read_to_string(FIXTURE).expect("fixture"))
        .expect("transcript");
    t.result = None;
    t.resignation = None;
    let report = t.verify(&NoContractWallets).expect("verifiable");
    assert_eq!(report.settlement.call, "register");
    assert_eq!(report.settlement.ends, Some((2, 1)), "black mates");
}

#[test]
fn test_resignation_alone_settles_by_resignation() {
    let mut t = Transcript::from_json(&std::fs::read_to_string(FIXTURE).expect("fixture"))
        .expect("transcript");
    t.result = None;
    let report = t.verify(&NoContractWallets).expect("verifiable");
    assert_eq!(report.settlement.call, "resignBySignature");
    assert_eq!(report.settlement.ends, Some((2, 5)));
}

#[test]
fn test_high_s_twin_is_refused() {
    let f = fixture();
    let n = &f["negative"]["highS"];
    assert_eq!(
        recover(b256(&n["digest"]), &bytes(&n["signature"])),
        Err(AuthError::HighS)
    );
}

#[test]
fn test_signature_by_the_wrong_player_is_refused() {
    let f = fixture();
    let d = domain(&f);
    let v = &f["negative"]["wrongSigner"];
    let black: Address = f["game"]["black"]
        .as_str()
        .expect("black")
        .parse()
        .expect("address");
    let error = Auth::direct(bytes(&v["signature"]))
        .verify(&d, &message(v), black, &NoContractWallets)
        .expect_err("white signed black's move");
    assert!(
        matches!(error, AuthError::WrongSigner { expected, .. } if expected == black),
        "{error}"
    );
}

#[test]
fn test_a_signature_is_bound_to_its_chain() {
    let f = fixture();
    let d = domain(&f);
    let other = ChannelDomain {
        chain_id: f["negative"]["otherChain"]["chainId"].as_u64().expect("id"),
        ..d
    };
    assert_eq!(
        other.separator(),
        b256(&f["negative"]["otherChain"]["separator"])
    );
    let m = message(&f["moves"][0]);
    assert_eq!(
        m.digest(&other),
        b256(&f["negative"]["otherChain"]["digest"])
    );
    let signer: Address = f["moves"][0]["signer"]
        .as_str()
        .expect("signer")
        .parse()
        .expect("address");
    let sig = bytes(&f["moves"][0]["signature"]);
    assert_ne!(
        recover(m.digest(&other), &sig),
        Ok(signer),
        "a signature must not verify on another chain"
    );
}

#[test]
fn test_equivocating_pair_is_two_valid_signatures_of_one_ply() {
    let f = fixture();
    let d = domain(&f);
    let (a, b) = (
        &f["negative"]["equivocation"]["a"],
        &f["negative"]["equivocation"]["b"],
    );
    let (ma, mb) = (message(a), message(b));
    assert_eq!(ma.ply, mb.ply);
    assert_ne!(ma.hash(), mb.hash());
    let t = Transcript::from_json(&f.to_string()).expect("transcript");
    let white = t.game.white;
    for (v, m) in [(a, &ma), (b, &mb)] {
        let entry = &t.delegations[v["delegation"].as_i64().expect("index") as usize];
        let auth = Auth {
            signature: bytes(&v["signature"]),
            delegation: Some(chessref_channel::SignedDelegation {
                delegation: chessref_channel::Delegation {
                    gameId: entry.game_id,
                    sessionKey: entry.session_key,
                    firstPly: entry.first_ply,
                    lastPly: entry.last_ply,
                },
                signature: entry.signature.clone(),
            }),
        };
        auth.verify(&d, m, white, &NoContractWallets)
            .expect("signed on white's behalf");
    }
}

#[test]
fn test_every_invalid_transition_has_its_code() {
    let f = fixture();
    let increment = f["game"]["increment"].as_u64().expect("increment") as u32;
    let cases = f["negative"]["transitions"]
        .as_array()
        .expect("transitions");
    let mut codes: Vec<u64> = Vec::new();
    for case in cases {
        let error = check_successor(
            &message(&case["previous"]),
            &message(&case["move"]),
            increment,
        )
        .expect_err(case["name"].as_str().expect("name"));
        assert_eq!(
            u64::from(error.code()),
            case["code"].as_u64().expect("code"),
            "{}",
            case["name"]
        );
        assert_eq!(
            u64::from(error.rule_code()),
            case["ruleCode"].as_u64().expect("rule code"),
            "{}",
            case["name"]
        );
        codes.push(case["code"].as_u64().expect("code"));
    }
    for code in 2..=8 {
        assert!(
            codes.contains(&code),
            "no example of transition code {code}"
        );
    }
}

#[test]
fn test_session_key_outside_its_range_is_refused() {
    let f = fixture();
    let t = Transcript::from_json(&f.to_string()).expect("transcript");
    // White's first key covers plies 1-2; ply 3 is its rotated key's.
    let mut moved = t.clone();
    moved.moves[2].delegation = 0;
    let report = moved.verify(&NoContractWallets).expect("verifiable");
    let error = report.error.expect("out of range");
    assert_eq!(error.ply(), 3);
    assert!(
        error.to_string().contains("outside the delegation's range"),
        "{error}"
    );
}

/// Every player answers ERC-1271 with a refusal (an EOA that later got code, EIP-7702).
struct RefusingWallets;

impl chessref_channel::ContractWallets for RefusingWallets {
    fn is_contract(&self, _: Address) -> bool {
        true
    }
    fn is_valid_signature(&self, _: Address, _: B256, _: &[u8]) -> Option<bool> {
        Some(false)
    }
}

#[test]
fn test_an_account_with_code_cannot_disown_its_ecdsa_signatures() {
    let t = Transcript::from_json(&std::fs::read_to_string(FIXTURE).expect("fixture"))
        .expect("transcript");
    let report = t.verify(&RefusingWallets).expect("verifiable");
    assert_eq!(
        report.error, None,
        "ECDSA recovering to the player is checked first"
    );
    assert_eq!(report.valid_plies, 4);
}
