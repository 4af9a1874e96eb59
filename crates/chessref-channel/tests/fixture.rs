//! The worked examples of docs/CHANNEL.md section 12: the committed fixture is what
//! the generator writes today, byte for byte, and every example in it means what the
//! document says.

#[path = "../examples/channel_fixture.rs"]
mod channel_fixture;

use alloy_primitives::{Address, B256, Bytes, U256, aliases::U24};
use chessref_channel::auth::{AuthError, Authorised, Pins, recover};
use chessref_channel::messages::Message;
use chessref_channel::transcript::{ReceiptEntry, receipt_of};
use chessref_channel::{
    Auth, ChannelDomain, DrawOffer, Move, NoPins, Resignation, ResultMessage, SignedDelegation,
    Transcript, TranscriptError, TransitionError, check_successor,
};
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
        timestamp: v["timestamp"].as_u64().expect("timestamp"),
        previous: b256(&v["previous"]),
    }
}

fn address(v: &Value) -> Address {
    v.as_str().expect("address").parse().expect("address")
}

/// The verifier's clock the fixture's agreements are judged at.
fn now(f: &Value) -> u64 {
    f["now"].as_u64().expect("now")
}

fn transcript() -> (Value, Transcript) {
    let text = std::fs::read_to_string(FIXTURE).expect("fixture");
    (
        serde_json::from_str(&text).expect("JSON"),
        Transcript::from_json(&text).expect("transcript"),
    )
}

/// The authorisation of a fixture entry with `signature` and `delegation` (an index
/// into the transcript's delegations, or -1).
fn auth_of(t: &Transcript, v: &Value) -> Auth {
    let signature = bytes(&v["signature"]);
    match v["delegation"].as_i64().expect("delegation") {
        -1 => Auth::direct(signature),
        i => {
            let entry = &t.delegations[i as usize];
            Auth {
                signature,
                delegation: Some(SignedDelegation {
                    delegation: entry.delegation(),
                    signature: entry.signature.clone(),
                }),
            }
        }
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
        assert_eq!(
            recover(m.digest(&d), &bytes(&v["signature"])),
            Ok(address(&v["signer"])),
            "ply {}",
            m.ply
        );
        let r = &v["receipt"];
        let receipt = receipt_of(&m, r["seenAt"].as_u64().expect("seenAt"));
        assert_eq!(receipt.position, m.hash(), "a receipt names its move");
        assert_eq!(receipt.hash(), b256(&r["hash"]), "receipt of ply {}", m.ply);
        assert_eq!(receipt.digest(&d), b256(&r["digest"]));
        assert_eq!(
            recover(receipt.digest(&d), &bytes(&r["signature"])),
            Ok(address(&r["signer"]))
        );
    }
    for v in f["delegations"].as_array().expect("delegations") {
        let t: Transcript = Transcript::from_json(&f.to_string()).expect("transcript");
        let i = t
            .delegations
            .iter()
            .position(|e| e.session_key == address(&v["sessionKey"]))
            .expect("listed");
        let del = t.delegations[i].delegation();
        assert_eq!(del.hash(), b256(&v["hash"]));
        assert_eq!(del.digest(&d), b256(&v["digest"]));
        assert_eq!(
            recover(del.digest(&d), &bytes(&v["signature"])),
            Ok(address(&v["signer"]))
        );
    }
}

#[test]
fn test_type_strings_are_the_documented_ones() {
    let f = fixture();
    for (name, ty) in [
        (
            "Move",
            "Move(uint256 gameId,uint32 ply,uint24 mv,bytes state,bytes32 history,uint32 whiteTime,uint32 blackTime,uint64 timestamp,bytes32 previous)",
        ),
        (
            "Delegation",
            "Delegation(uint256 gameId,address sessionKey,uint32 firstPly,uint32 lastPly,uint64 expires)",
        ),
        (
            "Resignation",
            "Resignation(uint256 gameId,uint32 ply,bytes32 position)",
        ),
        (
            "Result",
            "Result(uint256 gameId,uint32 ply,bytes32 position,uint8 result)",
        ),
        (
            "DrawOffer",
            "DrawOffer(uint256 gameId,uint32 ply,bytes32 position)",
        ),
        (
            "Receipt",
            "Receipt(uint256 gameId,uint32 ply,bytes32 position,uint64 seenAt)",
        ),
    ] {
        assert_eq!(f["types"][name]["type"], ty);
        assert_eq!(
            b256(&f["types"][name]["typeHash"]),
            alloy_primitives::keccak256(ty)
        );
    }
    assert_eq!(f["domain"]["version"], "2");
}

#[test]
fn test_draw_offer_names_its_position_and_is_signed() {
    let (f, t) = transcript();
    let v = &f["drawOffer"];
    let offer = DrawOffer {
        gameId: U256::from(v["gameId"].as_u64().expect("gameId")),
        ply: v["ply"].as_u64().expect("ply") as u32,
        position: b256(&v["position"]),
    };
    assert_eq!(offer.hash(), b256(&v["hash"]));
    assert_eq!(offer.digest(&t.domain), b256(&v["digest"]));
    assert_eq!(offer.position, t.message(offer.ply as usize - 1).hash());
    assert_eq!(
        auth_of(&t, v).verify(&t.domain, &offer, t.game.black, &NoPins, now(&f)),
        Ok(Authorised::Valid)
    );
}

#[test]
fn test_fixture_is_a_valid_transcript_settled_by_the_signed_result() {
    let (f, t) = transcript();
    assert!(
        t.moves.iter().all(|m| m.receipt.is_some()),
        "every move acknowledged"
    );
    let report = t.verify(&NoPins, now(&f)).expect("verifiable");
    assert_eq!(report.error, None);
    assert_eq!(report.valid_plies, 4);
    assert_eq!(report.status, 1, "fool's mate");
    assert_eq!(report.settlement.call, "settle");
    assert_eq!(report.settlement.ends, Some((2, 8)));
}

#[test]
fn test_without_a_signed_end_the_mate_settles_by_registration() {
    let (f, mut t) = transcript();
    t.result = None;
    t.resignation = None;
    let report = t.verify(&NoPins, now(&f)).expect("verifiable");
    assert_eq!(report.error, None);
    assert_eq!(report.settlement.call, "register");
    assert_eq!(
        report.settlement.ends,
        Some((2, 1)),
        "black mates (pending)"
    );
    assert!(
        report.settlement.why.contains("receipt"),
        "{}",
        report.settlement.why
    );
    // The registration carries white's receipt of the mate.
    let with = report.settlement.calldata.clone();
    t.moves[3].receipt = None;
    let without = t.verify(&NoPins, now(&f)).expect("verifiable");
    assert_ne!(with, without.settlement.calldata);
    assert!(
        without.settlement.why.contains("StaleMove"),
        "{}",
        without.settlement.why
    );
}

#[test]
fn test_resignation_alone_settles_by_resignation() {
    let (f, mut t) = transcript();
    t.result = None;
    let report = t.verify(&NoPins, now(&f)).expect("verifiable");
    assert_eq!(report.error, None);
    assert_eq!(report.settlement.call, "resignBySignature");
    assert_eq!(report.settlement.ends, Some((2, 5)));
}

#[test]
fn test_lapsed_result_is_refused() {
    let (f, mut t) = transcript();
    let v = &f["negative"]["lapsedResult"]["result"];
    let mut r = t.result.clone().expect("a result");
    r.ply = v["ply"].as_u64().expect("ply") as u32;
    r.position = b256(&v["position"]);
    r.result = v["result"].as_u64().expect("result") as u8;
    r.white.signature = bytes(&v["white"]["signature"]);
    r.white.delegation = v["white"]["delegation"].as_i64().expect("index");
    r.black.signature = bytes(&v["black"]["signature"]);
    r.black.delegation = v["black"]["delegation"].as_i64().expect("index");
    // Its signatures are good, for the position of ply 2.
    let message = ResultMessage {
        gameId: r.game_id,
        ply: r.ply,
        position: r.position,
        result: r.result,
    };
    assert_eq!(message.hash(), b256(&v["hash"]));
    assert_eq!(message.position, t.message(1).hash());
    for (side, player) in [("white", t.game.white), ("black", t.game.black)] {
        assert_eq!(
            auth_of(&t, &v[side]).verify(&t.domain, &message, player, &NoPins, now(&f)),
            Ok(Authorised::Valid)
        );
    }
    t.result = Some(r);
    let report = t.verify(&NoPins, now(&f)).expect("verifiable");
    assert_eq!(
        report.error,
        Some(TranscriptError::Lapsed {
            what: "result",
            ply: 2,
            latest: 4
        })
    );
    assert!(report.error.expect("lapsed").to_string().contains("lapsed"));
    assert_eq!(
        report.settlement.call, "register",
        "not settled by the lapsed draw"
    );
}

#[test]
fn test_an_expired_keys_resignation_is_refused() {
    let (f, mut t) = transcript();
    let v = &f["negative"]["expiredKey"]["resignation"];
    let at = f["negative"]["expiredKey"]["now"].as_u64().expect("now");
    let message = Resignation {
        gameId: t.game.game_id,
        ply: v["ply"].as_u64().expect("ply") as u32,
        position: b256(&v["position"]),
    };
    assert_eq!(message.hash(), b256(&v["hash"]));
    let auth = auth_of(&t, v);
    let expires = auth
        .delegation
        .as_ref()
        .expect("a session key")
        .delegation
        .expires;
    assert!(at > expires);
    assert_eq!(
        auth.verify(&t.domain, &message, t.game.white, &NoPins, at),
        Err(AuthError::KeyExpired { expires, at })
    );
    assert_eq!(
        auth.verify(&t.domain, &message, t.game.white, &NoPins, expires),
        Ok(Authorised::Valid),
        "in force until its expiry"
    );
    t.result = None;
    let r = t.resignation.as_mut().expect("a resignation");
    r.signed.signature = auth.signature.clone();
    r.signed.delegation = v["delegation"].as_i64().expect("index");
    let report = t.verify(&NoPins, at).expect("verifiable");
    assert!(
        matches!(
            report.error,
            Some(TranscriptError::Signature {
                error: AuthError::KeyExpired { .. },
                ..
            })
        ),
        "{:?}",
        report.error
    );
    assert_eq!(report.settlement.call, "register");
}

#[test]
fn test_receipts_are_checked() {
    let (f, t) = transcript();
    // A receipt signed by the move's author instead of the side to move.
    let mut bad = t.clone();
    bad.moves[2].receipt = Some(ReceiptEntry {
        seen_at: bad.moves[2].receipt.as_ref().expect("receipt").seen_at,
        signed: chessref_channel::transcript::SignatureEntry {
            signature: bad.moves[2].signature.clone(),
            delegation: -1,
        },
    });
    let report = bad.verify(&NoPins, now(&f)).expect("verifiable");
    let error = report.error.expect("a bad receipt");
    assert!(
        matches!(error, TranscriptError::Receipt { ply: 3, .. }),
        "{error}"
    );
    assert_eq!(report.valid_plies, 3, "the move itself is valid");
    // A receipt timed before the move's stamp.
    let mut early = t.clone();
    let stamp = early.moves[0].timestamp;
    early.moves[0].receipt.as_mut().expect("receipt").seen_at = stamp - 1;
    let error = early.verify(&NoPins, now(&f)).expect("verifiable").error;
    assert!(
        error
            .as_ref()
            .is_some_and(|e| e.to_string().contains("before the move's stamp")),
        "{error:?}"
    );
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
    let black = address(&f["game"]["black"]);
    let error = Auth::direct(bytes(&v["signature"]))
        .verify(&d, &message(v), black, &NoPins, 0)
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
    let signer = address(&f["moves"][0]["signer"]);
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
        auth_of(&t, v)
            .verify(&d, m, white, &NoPins, 0)
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
    let mut time_forms = Vec::new();
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
        if error.code() == 4 {
            time_forms.push(std::mem::discriminant(&error));
        }
    }
    for code in 2..=8 {
        assert!(
            codes.contains(&code),
            "no example of transition code {code}"
        );
    }
    for form in [
        TransitionError::TimeBackwards {
            previous: 0,
            got: 0,
        },
        TransitionError::FlagFell {
            elapsed: 0,
            remaining: 0,
        },
        TransitionError::TooMuchTime {
            claimed: 0,
            allowed: 0,
            remaining: 0,
            elapsed: 0,
        },
        TransitionError::OtherTimeChanged { was: 0, got: 0 },
    ] {
        assert!(
            time_forms.contains(&std::mem::discriminant(&form)),
            "no example of code 4 form {form:?}"
        );
    }
}

#[test]
fn test_session_key_outside_its_range_is_refused() {
    let (f, t) = transcript();
    // White's first key covers plies 1-2; ply 3 is its rotated key's.
    let mut moved = t.clone();
    moved.moves[2].delegation = 0;
    let report = moved.verify(&NoPins, now(&f)).expect("verifiable");
    let error = report.error.expect("out of range");
    assert_eq!(error.ply(), 3);
    assert!(
        error.to_string().contains("outside the delegation's range"),
        "{error}"
    );
}

/// Every player may be a contract wallet, and nothing is pinned (an EOA that later got
/// code, EIP-7702, and never pinned anything).
struct AllContracts;

impl Pins for AllContracts {
    fn is_pinned(&self, _: Address, _: B256) -> bool {
        false
    }
    fn may_be_contract(&self, _: Address) -> bool {
        true
    }
}

#[test]
fn test_an_account_with_code_cannot_disown_its_ecdsa_signatures() {
    let (f, t) = transcript();
    let report = t.verify(&AllContracts, now(&f)).expect("verifiable");
    assert_eq!(
        report.error, None,
        "ECDSA recovering to the player is checked first"
    );
    assert_eq!(report.valid_plies, 4);
    assert!(report.unchecked.is_empty());
}

#[test]
fn test_only_a_pinned_digest_counts_for_a_contract_wallet() {
    let (f, t) = transcript();
    // Black's delegation "signed" by a contract wallet: any bytes, ECDSA by nobody.
    let mut wallet = t.clone();
    let d = &mut wallet.delegations[2];
    d.signature = Bytes::from(vec![0x11; 65]);
    let digest = d.delegation().digest(&t.domain);
    let black = t.game.black;
    // Not pinned, and the verifier knows nothing: refused.
    let report = wallet.verify(&NoPins, now(&f)).expect("verifiable");
    assert!(report.error.is_some());
    // Not known pinned, black may be a contract: unchecked, never valid.
    let mut known = chessref_channel::KnownPins::default();
    known.contracts.insert(black);
    let report = wallet.verify(&known, now(&f)).expect("verifiable");
    assert_eq!(report.error, None);
    assert_eq!(report.unchecked, vec![black]);
    // Pinned: valid.
    let mut known = chessref_channel::KnownPins::default();
    known.pinned.insert((black, digest));
    let report = wallet.verify(&known, now(&f)).expect("verifiable");
    assert_eq!(report.error, None);
    assert!(report.unchecked.is_empty());
}

#[test]
fn test_a_revoked_keys_agreement_no_longer_counts() {
    let (f, mut t) = transcript();
    t.result = None;
    let white = t.game.white;
    let key = t.delegations[1].session_key;
    let mut known = chessref_channel::KnownPins::default();
    known.revocations.push(chessref_channel::Revocation {
        game_id: t.game.game_id,
        player: white,
        session_key: key,
        at: now(&f),
    });
    let report = t.verify(&known, now(&f)).expect("verifiable");
    assert!(
        matches!(
            report.error,
            Some(TranscriptError::Signature {
                error: AuthError::KeyRevoked { .. },
                ..
            })
        ),
        "{:?}",
        report.error
    );
    // Its moves and receipts still count.
    assert_eq!(report.valid_plies, 4);
    let report = t.verify(&known, now(&f) - 1).expect("verifiable");
    assert_eq!(report.error, None, "before the revocation");
}

#[test]
fn a_move_number_beyond_24_bits_is_refused_not_clamped() {
    let mut f: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/channel-examples.json"
        ))
        .unwrap(),
    )
    .unwrap();
    f["moves"][0]["mv"] = serde_json::json!(0x0100_0000u32 + 0x0C1C);
    let e = chessref_channel::Transcript::from_json(&f.to_string()).unwrap_err();
    assert!(e.to_string().contains("24 bits"), "{e}");
}
