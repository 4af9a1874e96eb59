//! A channel game's frozen registration for a page (docs/CHANNEL.md 7.3), thin over
//! `chessref_channel::registration`: the signed pair its transaction's calldata carries,
//! the registered ply, window end and reply deadline its clock word holds, and when the
//! chain first showed a move. The page reads the chain (the `PositionRegistered`, the
//! transaction, the channel's `announcedAt` and `shownWhileFrozenAt`) through its wallet's
//! provider; what that means is decided there, as for the terminal client and the
//! watchtower. The player's answer is `ChannelPlayer.receiveShown` and
//! `ChannelPlayer.registerAnswering` ([`crate::player`]).

use std::str::FromStr;

use alloy_primitives::{B256, Bytes, U256};
use chessref_channel::messages::{Delegation, FrozenPosition};
use chessref_channel::registration::{self, Registration};
use chessref_channel::{Auth, SignedDelegation};
use serde::Deserialize;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::channel::{DelegationJson, Failure, bad, from_js, move_json, parse, to_js, unix_time};

#[wasm_bindgen(typescript_custom_section)]
const REGISTRATION_TS_TYPES: &'static str = r#"
/** How a move in a ChessChannel call is authorised: signed by the player's own address
 * (`delegation` null), or by a session key under the player's signed delegation. */
export interface ChannelAuth {
  signature: string;
  delegation: (ChannelDelegation & { signature: string }) | null;
}
/** One move of a registration's signed pair, as its `register` calldata carries it. */
export interface ChannelSignedMove {
  move: ChannelMove;
  auth: ChannelAuth;
}
/** What a registered position's clock word says of its registration (CHANNEL.md 7.3). */
export interface ChannelRegistration {
  /** The registered ply. */
  ply: number;
  /** Unix time its response window ends: until then it is frozen. */
  windowEnd: number;
  /** Unix time by which the side to move's direct reply must count (its flag falls then);
   * 0 for a registerStart. */
  replyDeadline: number;
}
"#;

/// A `ChannelAuth` from JS.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuthJson {
    signature: Bytes,
    delegation: Option<SignedDelegationJson>,
}

/// A `ChannelDelegation` with its signature from JS.
#[derive(Deserialize)]
struct SignedDelegationJson {
    #[serde(flatten)]
    delegation: DelegationJson,
    signature: Bytes,
}

/// `auth` as a `ChannelAuth`.
pub(crate) fn auth_json(auth: &Auth) -> Value {
    json!({
        "signature": auth.signature,
        "delegation": auth.delegation.as_ref().map(|d| json!({
            "gameId": d.delegation.gameId.to_string(),
            "sessionKey": d.delegation.sessionKey.to_string(),
            "firstPly": d.delegation.firstPly,
            "lastPly": d.delegation.lastPly,
            "expires": d.delegation.expires,
            "signature": d.signature,
        })),
    })
}

/// A `ChannelAuth` from JSON.
pub(crate) fn auth_of(value: Value, what: &str) -> Result<Auth, Failure> {
    let a: AuthJson = parse(value, what)?;
    Ok(Auth {
        signature: a.signature,
        delegation: a.delegation.map(|d| SignedDelegation {
            delegation: Delegation::from(d.delegation),
            signature: d.signature,
        }),
    })
}

/// A clock word from its decimal or 0x hex text.
fn clock_of(clock: &str) -> Result<U256, Failure> {
    U256::from_str(clock)
        .map_err(|e| bad("frozenClock", format!("{clock:?} is not a uint256: {e}")))
}

/// A registered position `{inner, clock}` from 0x hex (`inner`) and a decimal or 0x hex
/// `uint256` (`clock`).
pub(crate) fn frozen_of(inner: &str, clock: &str) -> Result<FrozenPosition, Failure> {
    Ok(FrozenPosition {
        inner: B256::from_str(inner).map_err(|e| {
            bad(
                "frozenInner",
                format!("{inner:?} is not 32 bytes of 0x hex: {e}"),
            )
        })?,
        clock: clock_of(clock)?,
    })
}

/// A `uint256` passed from JS: a BigInt (what ethers reads), a decimal or 0x hex string, or
/// a safe integer, as its decimal or hex text.
pub(crate) fn uint256_text(value: &JsValue, what: &str) -> Result<String, Failure> {
    if let Some(b) = value.dyn_ref::<js_sys::BigInt>() {
        return b
            .to_string(10)
            .ok()
            .and_then(|s| JsValue::from(s).as_string())
            .ok_or_else(|| bad(what, "a BigInt that does not print"));
    }
    if let Some(s) = value.as_string() {
        return Ok(s);
    }
    unix_time(value, what).map(|t| t.to_string())
}

/// `channelRegistrationPair`: the signed pair of a `register` call's calldata, or `null`.
pub fn pair(calldata: &str) -> Result<Value, Failure> {
    let bytes =
        Bytes::from_str(calldata).map_err(|e| bad("calldata", format!("not 0x hex: {e}")))?;
    Ok(match registration::pair_of(&bytes) {
        None => Value::Null,
        Some(pair) => Value::Array(
            pair.iter()
                .map(|(m, auth)| json!({"move": move_json(m), "auth": auth_json(auth)}))
                .collect(),
        ),
    })
}

/// `channelRegistration`: what the registered position's clock word says of it.
pub fn describe(clock: &str) -> Result<Value, Failure> {
    let r = Registration::new(FrozenPosition {
        inner: B256::ZERO,
        clock: clock_of(clock)?,
    });
    Ok(json!({"ply": r.ply(), "windowEnd": r.window_end(), "replyDeadline": r.reply_deadline()}))
}

/// The signed pair (`[previous, last]`, each `{move, auth}`) of a `ChessChannel.register`
/// call's calldata: a registration's transaction `data`, read to take its moves in
/// (`ChannelPlayer.receiveShown`). `null` for another call (`registerStart`, or a call
/// made through a contract wallet, whose calldata is the wallet's). Throws `bad_message`
/// for text that is not 0x hex.
#[wasm_bindgen(js_name = channelRegistrationPair, unchecked_return_type = "[ChannelSignedMove, ChannelSignedMove] | null")]
pub fn channel_registration_pair(calldata: &str) -> Result<JsValue, JsValue> {
    to_js(pair(calldata))
}

/// What the clock word of a registered position (its `PositionRegistered`'s `clock`: a
/// BigInt, or a decimal or 0x hex string) says of the registration: `{ply, windowEnd,
/// replyDeadline}` (docs/CHANNEL.md 7.3). Throws `bad_message` for a clock that is not a
/// `uint256`.
#[wasm_bindgen(js_name = channelRegistration, unchecked_return_type = "ChannelRegistration")]
pub fn channel_registration(
    #[wasm_bindgen(unchecked_param_type = "bigint | string")] clock: JsValue,
) -> Result<JsValue, JsValue> {
    let clock = uint256_text(&clock, "clock")?;
    to_js(describe(&clock))
}

/// When the chain first showed a signed move that the block at `at` shows (unix seconds):
/// `at`, or its announcement (`ChessChannel.announcedAt`) or showing while frozen
/// (`shownWhileFrozenAt`) if earlier (0: never). The `shownAt` to pass to
/// `ChannelPlayer.receiveShown`.
#[wasm_bindgen(js_name = channelFirstShown)]
pub fn channel_first_shown(
    #[wasm_bindgen(unchecked_param_type = "number | bigint")] at: JsValue,
    #[wasm_bindgen(js_name = announcedAt, unchecked_param_type = "number | bigint")]
    announced_at: JsValue,
    #[wasm_bindgen(js_name = shownWhileFrozenAt, unchecked_param_type = "number | bigint")]
    shown_while_frozen_at: JsValue,
) -> Result<f64, JsValue> {
    let shown = registration::first_shown(
        unix_time(&at, "at")?,
        unix_time(&announced_at, "announcedAt")?,
        unix_time(&shown_while_frozen_at, "shownWhileFrozenAt")?,
    );
    Ok(shown as f64)
}

/// The move and authorisation of a `ChannelSignedMove` half, from JS.
pub(crate) fn signed_move_of(
    mv: &JsValue,
    auth: &JsValue,
) -> Result<(chessref_channel::Move, Auth), Failure> {
    let mv = crate::channel::move_of(from_js(mv, "move")?, "move")?;
    let auth = auth_of(from_js(auth, "auth")?, "auth")?;
    Ok((mv, auth))
}

#[cfg(test)]
mod tests {
    //! The pure halves against the shared fixture's signed moves (its delegations and its
    //! direct signatures alike); the JS tests check the same through WASM.

    use chessref_channel::settlement;

    use super::*;

    fn fixture() -> chessref_channel::Transcript {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/channel-examples.json"
        );
        let text = std::fs::read_to_string(path).expect("the fixture");
        let mut f: Value = serde_json::from_str(&text).expect("JSON");
        // The fixture's moves carry more than a transcript's entries: only what it reads.
        f.as_object_mut()
            .expect("an object")
            .retain(|k, _| ["domain", "game", "delegations", "moves"].contains(&k.as_str()));
        serde_json::from_value(f).expect("a transcript")
    }

    #[test]
    fn test_a_registrations_pair_reads_back_as_the_moves_and_authorisations_signed() {
        let t = fixture();
        for ply in 1..t.moves.len() {
            let (previous, last) = (ply - 1, ply);
            let auths = [t.move_auth(previous), t.move_auth(last)].map(|a| a.expect("auth"));
            let calldata = settlement::register(
                (&t.message(previous), &auths[0]),
                (&t.message(last), &auths[1]),
                None,
                None,
                String::new(),
            )
            .calldata;
            let pair = pair(&calldata.to_string()).expect("a register call");
            for (i, at) in [previous, last].into_iter().enumerate() {
                let mv = crate::channel::move_of(pair[i]["move"].clone(), "move").expect("a move");
                assert_eq!(mv, t.message(at), "ply {}", at + 1);
                let auth = auth_of(pair[i]["auth"].clone(), "auth").expect("an auth");
                assert_eq!(auth, auths[i], "ply {}", at + 1);
            }
        }
        let start = settlement::register_start(&t.game.start_move().expect("start")).calldata;
        assert_eq!(pair(&start.to_string()).expect("hex"), Value::Null);
        assert_eq!(pair("0xzz").expect_err("not hex").kind, "bad_message");
    }

    #[test]
    fn test_a_clock_word_says_the_registered_ply_window_end_and_reply_deadline() {
        let clock = U256::from(1_800_000_600u64)
            | U256::from(615u64) << 40usize
            | U256::from(7u64) << 136usize
            | U256::from(1_800_000_315u64) << 208usize;
        let expected =
            json!({"ply": 7, "windowEnd": 1_800_000_600u64, "replyDeadline": 1_800_000_315u64});
        assert_eq!(describe(&clock.to_string()).expect("decimal"), expected);
        assert_eq!(describe(&format!("{clock:#x}")).expect("hex"), expected);
        let e = describe("0xnot").expect_err("not a uint256");
        assert!(e.message.contains("is not a uint256"), "{e:?}");
        assert!(frozen_of("0x12", "1").is_err(), "inner is 32 bytes");
    }
}
