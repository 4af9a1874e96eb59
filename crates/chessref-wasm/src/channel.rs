//! Off-chain play in the browser (docs/CHANNEL.md), thin over `chessref-channel`: the
//! start move and honest successors to sign, EIP-712 digests and the typed data a
//! wallet signs (ethers `signTypedData`), signature recovery with the protocol's rules,
//! signing a digest with a session key, and whole-transcript verification with the
//! settling call. Messages and transcripts are plain objects in the JSON forms of
//! `tests/fixtures/channel-examples.json`.

use alloy_primitives::{Address, B256, Bytes, U256};
use chessref_channel::auth::recover;
use chessref_channel::messages::Message;
use chessref_channel::transcript::MoveEntry;
use chessref_channel::{
    ChannelDomain, ChannelGame, Delegation, NoContractWallets, Resignation, ResultMessage,
    Transcript, check_successor, successor,
};
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

use crate::error;

#[wasm_bindgen(typescript_custom_section)]
const CHANNEL_TS_TYPES: &'static str = r#"
/** Where channel signatures are valid (docs/CHANNEL.md section 3). */
export interface ChannelDomain {
  chainId: number;
  /** The ChessChannel address (ChessReferee.channel()). */
  verifyingContract: string;
}
/** A channel game's terms, as ChessReferee.getGame reports them. */
export interface ChannelGame {
  gameId: number | string;
  white: string;
  black: string;
  initialTime: number;
  increment: number;
  responseWindow: number;
  /** 128 bytes as 0x hex; absent for the standard start. */
  startState?: string;
}
/** A Move message (docs/CHANNEL.md 4.1); `signature` when signed. */
export interface ChannelMove {
  gameId: number | string;
  ply: number;
  /** The packed move, as ChessReferee.move takes it. */
  mv: number;
  state: string;
  history: string;
  whiteTime: number;
  blackTime: number;
  previous: string;
  signature?: string;
}
/** EIP-712 typed data for ethers signTypedData(domain, types, message), with its hashes. */
export interface ChannelTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: string };
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: "Move" | "Delegation" | "Resignation" | "Result";
  message: Record<string, unknown>;
  /** EIP-712 hashStruct. */
  hash: string;
  /** What is signed. */
  digest: string;
}
/** The ChessChannel call that settles or disputes a transcript. */
export interface ChannelSettlement {
  call: string;
  why: string;
  /** [result, reason] the call ends the game with; null when the game goes on on-chain. */
  ends: [number, number] | null;
  calldata: string;
}
/** What channelVerifyTranscript found. */
export interface TranscriptReport {
  validPlies: number;
  /** The first problem (its ply and why), null when every move is valid. */
  error: string | null;
  status: number;
  fen: string;
  unchecked: string[];
  settlement: ChannelSettlement;
}
"#;

fn from_js<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    let text = js_sys::JSON::stringify(value)
        .map_err(|_| error("bad_message", &format!("{what}: not JSON"), None))?;
    serde_json::from_str(&String::from(text))
        .map_err(|e| error("bad_message", &format!("{what}: {e}"), None))
}

fn to_js(value: &serde_json::Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).expect("serde_json writes JSON")
}

fn move_json(m: &chessref_channel::Move) -> serde_json::Value {
    serde_json::json!({
        "gameId": m.gameId.to_string(),
        "ply": m.ply,
        "mv": m.packed(),
        "state": m.state.to_string(),
        "history": m.history.to_string(),
        "whiteTime": m.whiteTime,
        "blackTime": m.blackTime,
        "previous": m.previous.to_string(),
    })
}

/// The start move (ply 0) of a channel game `{gameId, white, black, initialTime,
/// increment, responseWindow, startState?}`.
#[wasm_bindgen(js_name = channelStartMove, unchecked_return_type = "ChannelMove")]
pub fn channel_start_move(
    #[wasm_bindgen(unchecked_param_type = "ChannelGame")] game: JsValue,
) -> Result<JsValue, JsValue> {
    let game: ChannelGame = from_js(&game, "game")?;
    let start = game
        .start_move()
        .map_err(|e| error("bad_state", &format!("start state: {e}"), None))?;
    Ok(to_js(&move_json(&start)))
}

/// The move message that plays `uci` after `previous`, its author having spent `spent`
/// seconds: what an honest client signs next. Throws `illegal_move` (with the section 6
/// code) or `game_over`.
#[wasm_bindgen(js_name = channelSuccessor, unchecked_return_type = "ChannelMove")]
pub fn channel_successor(
    #[wasm_bindgen(unchecked_param_type = "ChannelMove")] previous: JsValue,
    uci: &str,
    spent: u32,
    increment: u32,
) -> Result<JsValue, JsValue> {
    let previous: MoveEntry = from_js(&previous, "previous move")?;
    let mv =
        chessref_core::RawMove::parse(uci).map_err(|e| error("bad_move", &e.to_string(), None))?;
    let next = successor(&previous.message(), mv, spent, increment).map_err(transition_error)?;
    Ok(to_js(&move_json(&next)))
}

fn transition_error(e: chessref_channel::TransitionError) -> JsValue {
    let err = error(
        "invalid_transition",
        &e.to_string(),
        Some((e.code(), e.name())),
    );
    crate::set(err.unchecked_ref(), "ruleCode", e.rule_code());
    err
}

/// Checks that `next` is a valid successor of `previous` (CHANNEL.md section 6); throws
/// `invalid_transition` with the transition `code`, its `reason` and the `ruleCode`.
#[wasm_bindgen(js_name = channelCheckSuccessor)]
pub fn channel_check_successor(
    #[wasm_bindgen(unchecked_param_type = "ChannelMove")] previous: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ChannelMove")] next: JsValue,
    increment: u32,
) -> Result<(), JsValue> {
    let previous: MoveEntry = from_js(&previous, "previous move")?;
    let next: MoveEntry = from_js(&next, "move")?;
    check_successor(&previous.message(), &next.message(), increment)
        .map(|_| ())
        .map_err(transition_error)
}

/// The EIP-712 typed data of a `kind` message ("Move", "Delegation", "Resignation",
/// "Result") under `domain` `{chainId, verifyingContract}`: `{domain, types,
/// primaryType, message, hash, digest}`, ready for ethers `signTypedData(domain, types,
/// message)` (a wallet signing a delegation or a result).
#[wasm_bindgen(js_name = channelTypedData, unchecked_return_type = "ChannelTypedData")]
pub fn channel_typed_data(
    kind: &str,
    #[wasm_bindgen(unchecked_param_type = "ChannelDomain")] domain: JsValue,
    #[wasm_bindgen(unchecked_param_type = "object")] message: JsValue,
) -> Result<JsValue, JsValue> {
    let domain: ChannelDomain = from_js(&domain, "domain")?;
    let (types, fields, hash, digest) = match kind {
        "Move" => {
            let m = from_js::<MoveEntry>(&message, "move")?.message();
            (MOVE_TYPES, move_json(&m), m.hash(), m.digest(&domain))
        }
        "Delegation" => {
            let d: Delegation = from_js::<DelegationJson>(&message, "delegation")?.into();
            let fields = serde_json::json!({"gameId": d.gameId.to_string(), "sessionKey": d.sessionKey.to_string(), "firstPly": d.firstPly, "lastPly": d.lastPly});
            (DELEGATION_TYPES, fields, d.hash(), d.digest(&domain))
        }
        "Resignation" => {
            let r: Resignation = from_js::<PlyJson>(&message, "resignation")?.into();
            let fields = serde_json::json!({"gameId": r.gameId.to_string(), "ply": r.ply});
            (RESIGNATION_TYPES, fields, r.hash(), r.digest(&domain))
        }
        "Result" => {
            let r: ResultMessage = from_js::<ResultJson>(&message, "result")?.into();
            let fields = serde_json::json!({"gameId": r.gameId.to_string(), "ply": r.ply, "result": r.result});
            (RESULT_TYPES, fields, r.hash(), r.digest(&domain))
        }
        other => {
            return Err(error(
                "bad_message",
                &format!("unknown message type {other:?}: Move, Delegation, Resignation or Result"),
                None,
            ));
        }
    };
    let types: serde_json::Value = serde_json::from_str(types).expect("a constant");
    Ok(to_js(&serde_json::json!({
        "domain": {
            "name": chessref_channel::domain::NAME,
            "version": chessref_channel::domain::VERSION,
            "chainId": domain.chain_id,
            "verifyingContract": domain.verifying_contract.to_string(),
        },
        "types": types,
        "primaryType": kind,
        "message": fields,
        "hash": hash.to_string(),
        "digest": digest.to_string(),
    })))
}

const MOVE_TYPES: &str = r#"{"Move":[{"name":"gameId","type":"uint256"},{"name":"ply","type":"uint32"},{"name":"mv","type":"uint24"},{"name":"state","type":"bytes"},{"name":"history","type":"bytes32"},{"name":"whiteTime","type":"uint32"},{"name":"blackTime","type":"uint32"},{"name":"previous","type":"bytes32"}]}"#;
const DELEGATION_TYPES: &str = r#"{"Delegation":[{"name":"gameId","type":"uint256"},{"name":"sessionKey","type":"address"},{"name":"firstPly","type":"uint32"},{"name":"lastPly","type":"uint32"}]}"#;
const RESIGNATION_TYPES: &str =
    r#"{"Resignation":[{"name":"gameId","type":"uint256"},{"name":"ply","type":"uint32"}]}"#;
const RESULT_TYPES: &str = r#"{"Result":[{"name":"gameId","type":"uint256"},{"name":"ply","type":"uint32"},{"name":"result","type":"uint8"}]}"#;

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DelegationJson {
    game_id: U256,
    session_key: Address,
    first_ply: u32,
    last_ply: u32,
}

impl From<DelegationJson> for Delegation {
    fn from(d: DelegationJson) -> Delegation {
        Delegation {
            gameId: d.game_id,
            sessionKey: d.session_key,
            firstPly: d.first_ply,
            lastPly: d.last_ply,
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlyJson {
    game_id: U256,
    ply: u32,
}

impl From<PlyJson> for Resignation {
    fn from(r: PlyJson) -> Resignation {
        Resignation {
            gameId: r.game_id,
            ply: r.ply,
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResultJson {
    game_id: U256,
    ply: u32,
    result: u8,
}

impl From<ResultJson> for ResultMessage {
    fn from(r: ResultJson) -> ResultMessage {
        ResultMessage {
            gameId: r.game_id,
            ply: r.ply,
            result: r.result,
        }
    }
}

/// The address a 65-byte signature of `digest` recovers to, under the protocol's rules
/// (v 27 or 28, low s, never address 0); throws `bad_signature` naming what is wrong.
#[wasm_bindgen(js_name = channelRecover)]
pub fn channel_recover(digest: &str, signature: &str) -> Result<String, JsValue> {
    let digest: B256 = digest
        .parse()
        .map_err(|e| error("bad_signature", &format!("digest {digest:?}: {e}"), None))?;
    let signature: Bytes = signature
        .parse()
        .map_err(|e| error("bad_signature", &format!("signature: {e}"), None))?;
    recover(digest, &signature)
        .map(|a| a.to_string())
        .map_err(|e| error("bad_signature", &e.to_string(), None))
}

fn key(private_key: &str) -> Result<k256::ecdsa::SigningKey, JsValue> {
    let bytes: B256 = private_key
        .parse()
        .map_err(|_| error("bad_key", "a private key is 32 bytes of hex", None))?;
    k256::ecdsa::SigningKey::from_bytes(&bytes.0.into())
        .map_err(|_| error("bad_key", "not a valid secp256k1 private key", None))
}

/// The address of a private key (a session key the page generated with
/// `crypto.getRandomValues`); throws `bad_key`.
#[wasm_bindgen(js_name = channelAddressOf)]
pub fn channel_address_of(private_key: &str) -> Result<String, JsValue> {
    Ok(Address::from_private_key(&key(private_key)?).to_string())
}

/// Signs a message digest (from `channelTypedData`) with a private key, as the
/// protocol wants it: 65 bytes `r ‖ s ‖ v`, low s, v 27 or 28 (RFC 6979: the same bytes
/// alloy and ethers produce). For session keys; a wallet signs the typed data itself.
#[wasm_bindgen(js_name = channelSign)]
pub fn channel_sign(private_key: &str, digest: &str) -> Result<String, JsValue> {
    let digest: B256 = digest
        .parse()
        .map_err(|e| error("bad_signature", &format!("digest {digest:?}: {e}"), None))?;
    let (signature, recovery) = key(private_key)?
        .sign_prehash_recoverable(digest.as_slice())
        .map_err(|e| error("bad_signature", &e.to_string(), None))?;
    let signature =
        alloy_primitives::Signature::from_signature_and_parity(signature, recovery.is_y_odd());
    Ok(Bytes::copy_from_slice(&signature.normalized_s().as_bytes()).to_string())
}

/// Checks a whole transcript (every signature, turn order, every move, the clocks) and
/// says which call settles or disputes it: `{validPlies, error, status, fen, unchecked,
/// settlement: {call, why, ends, calldata}}`. Throws `bad_message` for a file that is not
/// a transcript.
#[wasm_bindgen(js_name = channelVerifyTranscript, unchecked_return_type = "TranscriptReport")]
pub fn channel_verify_transcript(
    #[wasm_bindgen(unchecked_param_type = "object")] transcript: JsValue,
) -> Result<JsValue, JsValue> {
    let t: Transcript = from_js(&transcript, "transcript")?;
    let report = t
        .verify(&NoContractWallets)
        .map_err(|e| error("bad_message", &e.to_string(), None))?;
    let value =
        serde_json::to_value(&report).map_err(|e| error("bad_message", &e.to_string(), None))?;
    Ok(to_js(&value))
}
