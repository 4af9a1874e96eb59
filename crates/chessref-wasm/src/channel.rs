//! Off-chain play in the browser (docs/CHANNEL.md, protocol v2), thin over
//! `chessref-channel`: the start move and honest successors to sign, EIP-712 hashes,
//! digests and the typed data a wallet signs (ethers `signTypedData`) for every message
//! (`Move`, `Delegation`, `Resignation`, `Result`, `DrawOffer`, `Receipt`), signature
//! recovery with the protocol's rules, signing a digest with a session key, and
//! whole-transcript verification (at the verifier's clock, with what it knows of the
//! contract's pins and revocations) with the settling call.
//!
//! Messages and transcripts are plain objects in the JSON forms of
//! `tests/fixtures/channel-examples.json` (camelCase). Unix times (`timestamp`,
//! `expires`, `seenAt`, a revocation's `at`) are numbers, or decimal strings for values
//! beyond 2^53-1 (which is how they are written back). Every rule, hash and verdict is
//! `chessref-channel`'s; this module only converts between JSON and its types. Each
//! binding is a pure function here (tested natively) wrapped for JS, and every failure
//! is a JS `Error` with a `kind`: `bad_message`, `bad_state`, `bad_move`,
//! `bad_signature`, `bad_key` or `invalid_transition` (with the CHANNEL.md section 6
//! `code`, its `reason` and the ENCODING.md `ruleCode`).

use std::fmt::Display;

use alloy_primitives::{Address, B256, Bytes, U256};
use chessref_channel::auth::{KnownPins, Retirement, Revocation, recover};
use chessref_channel::messages::Message;
use chessref_channel::transcript::{MoveEntry, receipt_of};
use chessref_channel::{
    ChannelDomain, ChannelGame, Delegation, DrawOffer, Move, NoPins, Receipt, Resignation,
    ResultMessage, Transcript, TranscriptError, TransitionError, check_successor, successor,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
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
/** A signature in a transcript: `delegation` is an index into the transcript's
 * `delegations`, or -1 (the default) for a signature by the player's own address. */
export interface ChannelSignature {
  signature: string;
  delegation?: number;
}
/** The opponent's signed receipt of a move, in a transcript (CHANNEL.md 4.6). */
export interface ChannelMoveReceipt extends ChannelSignature {
  /** Unix time (seconds) the opponent held the move. */
  seenAt: number;
}
/** A Move message (docs/CHANNEL.md 4.1); in a transcript with its signature, its
 * delegation index and the opponent's receipt. */
export interface ChannelMove {
  gameId: number | string;
  ply: number;
  /** The packed move, as ChessReferee.move takes it (a uint24). */
  mv: number;
  state: string;
  history: string;
  whiteTime: number;
  blackTime: number;
  /** Unix time (seconds) its author signed it; 0 for the start move. */
  timestamp: number;
  /** hashStruct of the move before. */
  previous: string;
  signature?: string;
  delegation?: number;
  receipt?: ChannelMoveReceipt;
}
/** A session key's delegation (CHANNEL.md 4.2), signed by the player's wallet. */
export interface ChannelDelegation {
  gameId: number | string;
  sessionKey: string;
  firstPly: number;
  lastPly: number;
  /** Unix time (seconds) after which the key no longer signs; a decimal string beyond 2^53-1. */
  expires: number | string;
}
/** A delegation in a transcript, with the wallet's signature. */
export interface ChannelDelegationEntry extends ChannelDelegation {
  player: "white" | "black";
  signature: string;
}
/** A resignation in the position `position` (the hashStruct of the move of ply `ply`; CHANNEL.md 4.3). */
export interface ChannelResignation {
  gameId: number | string;
  ply: number;
  position: string;
}
/** A result both players sign in a position: 1 white wins, 2 black wins, 3 draw (CHANNEL.md 4.4). */
export interface ChannelResult {
  gameId: number | string;
  ply: number;
  position: string;
  result: number;
}
/** A non-binding draw offer in a position (CHANNEL.md 4.5). */
export interface ChannelDrawOffer {
  gameId: number | string;
  ply: number;
  position: string;
}
/** "The signer held the move `position` (of ply `ply`) at `seenAt`" (CHANNEL.md 4.6). */
export interface ChannelReceipt {
  gameId: number | string;
  ply: number;
  position: string;
  seenAt: number;
}
/** The EIP-712 primary types of the protocol. */
export type ChannelMessageType = "Move" | "Delegation" | "Resignation" | "Result" | "DrawOffer" | "Receipt";
/** Any channel message. */
export type ChannelMessage = ChannelMove | ChannelDelegation | ChannelResignation | ChannelResult | ChannelDrawOffer | ChannelReceipt;
/** EIP-712 typed data for ethers signTypedData(domain, types, message), with its hashes. */
export interface ChannelTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: string };
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: ChannelMessageType;
  message: Record<string, unknown>;
  /** EIP-712 hashStruct. */
  hash: string;
  /** What is signed. */
  digest: string;
}
/** A whole off-chain game (CHANNEL.md section 12; the fixture is one). */
export interface ChannelTranscript {
  domain: ChannelDomain;
  game: ChannelGame;
  delegations?: ChannelDelegationEntry[];
  moves?: ChannelMove[];
  resignation?: ChannelResignation & ChannelSignature & { by: "white" | "black" };
  result?: ChannelResult & { white: ChannelSignature; black: ChannelSignature };
}
/** What the verifier knows of ChessChannel's records; by default nothing is pinned,
 * nothing revoked or retired and every player is taken as an EOA. */
export interface ChannelPins {
  /** Digests pinned on-chain (ChessChannel.pinned(signer, digest)). */
  pinned?: Array<{ signer: string; digest: string }>;
  /** Addresses that may be contract wallets with pins not listed: their unverifiable
   * signatures are reported in `unchecked` instead of refused. */
  contracts?: string[];
  /** Session keys revoked on-chain (revokedAt(gameId, player, sessionKey) = at). */
  revocations?: Array<{ gameId: number | string; player: string; sessionKey: string; at: number | string }>;
  /** Later delegations shown on-chain (ChessChannel.retire, SessionKeysRetired): the
   * player's session keys delegated from a ply below `firstPly` sign no resignation or
   * result. A later delegation the transcript holds retires them without this. */
  retirements?: Array<{ gameId: number | string; player: string; firstPly: number }>;
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
  /** Possible contract wallets whose signatures count only if pinned on-chain. */
  unchecked: string[];
  settlement: ChannelSettlement;
}
"#;

/// A failure as JS sees it: an `Error` with `kind`, and for an invalid transition its
/// `code`, `reason` and `ruleCode`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The error's `kind`.
    pub kind: &'static str,
    /// Its message.
    pub message: String,
    /// `code` and `reason`, when one applies.
    pub code: Option<(u8, &'static str)>,
    /// `ruleCode`, for an invalid transition.
    pub rule_code: Option<u8>,
}

impl Failure {
    pub(crate) fn new(kind: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            code: None,
            rule_code: None,
        }
    }
}

impl From<Failure> for JsValue {
    fn from(f: Failure) -> JsValue {
        let err = error(f.kind, &f.message, f.code);
        if let Some(rule) = f.rule_code {
            crate::set(err.unchecked_ref(), "ruleCode", rule);
        }
        err
    }
}

pub(crate) fn bad(what: &str, e: impl Display) -> Failure {
    Failure::new("bad_message", format!("{what}: {e}"))
}

/// The largest integer a JS number holds exactly.
const MAX_SAFE: u64 = (1 << 53) - 1;

/// A unix time as JSON: a number, or a decimal string beyond 2^53-1.
fn seconds(t: u64) -> Value {
    if t <= MAX_SAFE {
        json!(t)
    } else {
        json!(t.to_string())
    }
}

/// The members holding unix times (`uint64`): decimal strings there become numbers.
const TIME_KEYS: [&str; 4] = ["timestamp", "expires", "seenAt", "at"];

fn normalise_times(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if TIME_KEYS.contains(&key.as_str())
                    && let Some(t) = v.as_str().and_then(|s| s.parse::<u64>().ok())
                {
                    *v = json!(t);
                } else {
                    normalise_times(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalise_times),
        _ => {}
    }
}

pub(crate) fn parse<T: DeserializeOwned>(mut value: Value, what: &str) -> Result<T, Failure> {
    normalise_times(&mut value);
    serde_json::from_value(value).map_err(|e| bad(what, e))
}

pub(crate) fn from_js(value: &JsValue, what: &str) -> Result<Value, Failure> {
    if value.is_undefined() || value.is_null() {
        return Err(bad(what, "missing (an object is expected)"));
    }
    let text = js_sys::JSON::stringify(value).map_err(|e| {
        let why = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_default();
        bad(
            what,
            format!("not JSON ({why}; write BigInts as decimal strings)"),
        )
    })?;
    let text = JsValue::from(text)
        .as_string()
        .ok_or_else(|| bad(what, "not JSON (an object is expected)"))?;
    serde_json::from_str(&text).map_err(|e| bad(what, e))
}

pub(crate) fn to_js(value: Result<Value, Failure>) -> Result<JsValue, JsValue> {
    let value = value?;
    js_sys::JSON::parse(&value.to_string())
        .map_err(|_| Failure::new("bad_message", "the answer is not JSON").into())
}

/// A unix time passed to a binding: a whole non-negative number up to 2^53-1, a
/// BigInt, or a decimal string.
pub(crate) fn unix_time(value: &JsValue, what: &str) -> Result<u64, Failure> {
    if let Some(f) = value.as_f64() {
        if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f <= MAX_SAFE as f64 {
            return Ok(f as u64);
        }
        return Err(bad(
            what,
            format!("{f} is not a whole number of seconds from 0 to 2^53-1 (pass a BigInt beyond)"),
        ));
    }
    let text = if let Some(b) = value.dyn_ref::<js_sys::BigInt>() {
        b.to_string(10)
            .ok()
            .and_then(|s| JsValue::from(s).as_string())
    } else {
        value.as_string()
    };
    match text {
        Some(t) => t
            .parse::<u64>()
            .map_err(|_| bad(what, format!("{t} is not a unix time from 0 to 2^64-1"))),
        None => Err(bad(
            what,
            "a unix time in seconds (a number or a BigInt) is expected",
        )),
    }
}

pub(crate) fn move_json(m: &Move) -> Value {
    json!({
        "gameId": m.gameId.to_string(),
        "ply": m.ply,
        "mv": m.packed(),
        "state": m.state.to_string(),
        "history": m.history.to_string(),
        "whiteTime": m.whiteTime,
        "blackTime": m.blackTime,
        "timestamp": seconds(m.timestamp),
        "previous": m.previous.to_string(),
    })
}

/// A move message in its JSON form (extra members, such as a signature, ignored).
pub(crate) fn move_of(value: Value, what: &str) -> Result<Move, Failure> {
    let entry: MoveEntry = parse(value, what)?;
    if entry.mv > 0xff_ffff {
        return Err(bad(
            what,
            format!("mv {} is not a uint24 packed move", entry.mv),
        ));
    }
    Ok(entry.message())
}

fn transition_failure(e: TransitionError) -> Failure {
    Failure {
        kind: "invalid_transition",
        message: e.to_string(),
        code: Some((e.code(), e.name())),
        rule_code: Some(e.rule_code()),
    }
}

/// `channelStartMove`: the start move of a game's terms.
pub fn start_move(game: Value) -> Result<Value, Failure> {
    let game: ChannelGame = parse(game, "game")?;
    let start = game
        .start_move()
        .map_err(|e| Failure::new("bad_state", format!("start state: {e}")))?;
    Ok(move_json(&start))
}

/// `channelSuccessor`: the move playing `uci` after `previous`, stamped `timestamp`.
pub fn next_move(
    previous: Value,
    uci: &str,
    timestamp: u64,
    increment: u32,
) -> Result<Value, Failure> {
    let previous = move_of(previous, "previous move")?;
    let mv = chessref_core::RawMove::parse(uci)
        .map_err(|e| Failure::new("bad_move", format!("{uci:?}: {e}")))?;
    let next = successor(&previous, mv, timestamp, increment).map_err(transition_failure)?;
    Ok(move_json(&next))
}

/// `channelCheckSuccessor`.
pub fn check_next(previous: Value, next: Value, increment: u32) -> Result<(), Failure> {
    let previous = move_of(previous, "previous move")?;
    let next = move_of(next, "move")?;
    check_successor(&previous, &next, increment)
        .map(|_| ())
        .map_err(transition_failure)
}

/// `channelReceipt`: the receipt of `mv` held at `seen_at`.
pub fn receipt(mv: Value, seen_at: u64) -> Result<Value, Failure> {
    let mv = move_of(mv, "move")?;
    Ok(receipt_json(&receipt_of(&mv, seen_at)))
}

/// `channelPosition`: the `position` a resignation, result, draw offer or receipt of
/// `mv` names (its `hashStruct`).
pub fn position(mv: Value) -> Result<String, Failure> {
    Ok(move_of(mv, "move")?.position().to_string())
}

fn receipt_json(r: &Receipt) -> Value {
    json!({
        "gameId": r.gameId.to_string(),
        "ply": r.ply,
        "position": r.position.to_string(),
        "seenAt": seconds(r.seenAt),
    })
}

/// A `ChannelDelegation` from JS.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DelegationJson {
    game_id: U256,
    session_key: Address,
    first_ply: u32,
    last_ply: u32,
    expires: u64,
}

impl From<DelegationJson> for Delegation {
    fn from(d: DelegationJson) -> Delegation {
        Delegation {
            gameId: d.game_id,
            sessionKey: d.session_key,
            firstPly: d.first_ply,
            lastPly: d.last_ply,
            expires: d.expires,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PositionJson {
    game_id: U256,
    ply: u32,
    position: B256,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResultJson {
    game_id: U256,
    ply: u32,
    position: B256,
    result: u8,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReceiptJson {
    game_id: U256,
    ply: u32,
    position: B256,
    seen_at: u64,
}

/// The EIP-712 `types` of `M` for ethers (`{Name: [{name, type}, ...]}`) and its
/// primary type's name, read from the crate's own type string.
fn types_of<M: Message>() -> (String, Value) {
    let root = M::eip712_root_type();
    let (name, members) = root.split_once('(').unwrap_or((&root, ")"));
    let fields: Vec<Value> = members
        .trim_end_matches(')')
        .split(',')
        .filter_map(|member| member.split_once(' '))
        .map(|(ty, field)| json!({ "name": field, "type": ty }))
        .collect();
    (name.to_string(), json!({ name: fields }))
}

fn typed<M: Message>(domain: &ChannelDomain, message: &M, fields: Value) -> Value {
    let (name, types) = types_of::<M>();
    json!({
        "domain": {
            "name": chessref_channel::domain::NAME,
            "version": chessref_channel::domain::VERSION,
            "chainId": domain.chain_id,
            "verifyingContract": domain.verifying_contract.to_string(),
        },
        "types": types,
        "primaryType": name,
        "message": fields,
        "hash": message.hash().to_string(),
        "digest": message.digest(domain).to_string(),
    })
}

/// `channelTypedData`: the typed data, `hashStruct` and digest of a `kind` message.
pub fn typed_data(kind: &str, domain: Value, message: Value) -> Result<Value, Failure> {
    let domain: ChannelDomain = parse(domain, "domain")?;
    let what = format!("{kind} message");
    Ok(match kind {
        "Move" => {
            let m = move_of(message, &what)?;
            typed(&domain, &m, move_json(&m))
        }
        "Delegation" => {
            let d = Delegation::from(parse::<DelegationJson>(message, &what)?);
            let fields = json!({
                "gameId": d.gameId.to_string(),
                "sessionKey": d.sessionKey.to_string(),
                "firstPly": d.firstPly,
                "lastPly": d.lastPly,
                "expires": seconds(d.expires),
            });
            typed(&domain, &d, fields)
        }
        "Resignation" | "DrawOffer" => {
            let p: PositionJson = parse(message, &what)?;
            let fields = json!({
                "gameId": p.game_id.to_string(),
                "ply": p.ply,
                "position": p.position.to_string(),
            });
            if kind == "Resignation" {
                let r = Resignation {
                    gameId: p.game_id,
                    ply: p.ply,
                    position: p.position,
                };
                typed(&domain, &r, fields)
            } else {
                let d = DrawOffer {
                    gameId: p.game_id,
                    ply: p.ply,
                    position: p.position,
                };
                typed(&domain, &d, fields)
            }
        }
        "Result" => {
            let r: ResultJson = parse(message, &what)?;
            let r = ResultMessage {
                gameId: r.game_id,
                ply: r.ply,
                position: r.position,
                result: r.result,
            };
            let fields = json!({
                "gameId": r.gameId.to_string(),
                "ply": r.ply,
                "position": r.position.to_string(),
                "result": r.result,
            });
            typed(&domain, &r, fields)
        }
        "Receipt" => {
            let r: ReceiptJson = parse(message, &what)?;
            let r = Receipt {
                gameId: r.game_id,
                ply: r.ply,
                position: r.position,
                seenAt: r.seen_at,
            };
            typed(&domain, &r, receipt_json(&r))
        }
        other => {
            return Err(Failure::new(
                "bad_message",
                format!(
                    "unknown message type {other:?}: Move, Delegation, Resignation, Result, DrawOffer or Receipt"
                ),
            ));
        }
    })
}

/// `channelRecover`.
pub fn recover_signer(digest: &str, signature: &str) -> Result<String, Failure> {
    let digest = digest_of(digest)?;
    let signature: Bytes = signature
        .parse()
        .map_err(|e| Failure::new("bad_signature", format!("signature {signature:?}: {e}")))?;
    recover(digest, &signature)
        .map(|a| a.to_string())
        .map_err(|e| Failure::new("bad_signature", e.to_string()))
}

fn digest_of(digest: &str) -> Result<B256, Failure> {
    digest.parse().map_err(|e| {
        Failure::new(
            "bad_signature",
            format!("digest {digest:?}: {e} (a digest is 32 bytes of 0x hex)"),
        )
    })
}

pub(crate) fn key(private_key: &str) -> Result<k256::ecdsa::SigningKey, Failure> {
    let bytes: B256 = private_key
        .parse()
        .map_err(|_| Failure::new("bad_key", "a private key is 32 bytes of 0x hex"))?;
    k256::ecdsa::SigningKey::from_bytes(&bytes.0.into())
        .map_err(|_| Failure::new("bad_key", "not a valid secp256k1 private key"))
}

/// `channelAddressOf`.
pub fn address_of(private_key: &str) -> Result<String, Failure> {
    Ok(Address::from_private_key(&key(private_key)?).to_string())
}

/// `channelSign`.
pub fn sign(private_key: &str, digest: &str) -> Result<String, Failure> {
    let digest = digest_of(digest)?;
    let (signature, recovery) = key(private_key)?
        .sign_prehash_recoverable(digest.as_slice())
        .map_err(|e| Failure::new("bad_signature", e.to_string()))?;
    let signature =
        alloy_primitives::Signature::from_signature_and_parity(signature, recovery.is_y_odd());
    Ok(Bytes::copy_from_slice(&signature.normalized_s().as_bytes()).to_string())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PinsJson {
    #[serde(default)]
    pinned: Vec<PinJson>,
    #[serde(default)]
    contracts: Vec<Address>,
    #[serde(default)]
    revocations: Vec<RevocationJson>,
    #[serde(default)]
    retirements: Vec<RetirementJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RetirementJson {
    game_id: U256,
    player: Address,
    first_ply: u32,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PinJson {
    signer: Address,
    digest: B256,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RevocationJson {
    game_id: U256,
    player: Address,
    session_key: Address,
    at: u64,
}

impl From<PinsJson> for KnownPins {
    fn from(p: PinsJson) -> KnownPins {
        KnownPins {
            pinned: p.pinned.into_iter().map(|p| (p.signer, p.digest)).collect(),
            contracts: p.contracts.into_iter().collect(),
            revocations: p
                .revocations
                .into_iter()
                .map(|r| Revocation {
                    game_id: r.game_id,
                    player: r.player,
                    session_key: r.session_key,
                    at: r.at,
                })
                .collect(),
            retirements: p
                .retirements
                .into_iter()
                .map(|r| Retirement {
                    game_id: r.game_id,
                    player: r.player,
                    first_ply: r.first_ply,
                })
                .collect(),
        }
    }
}

/// `channelVerifyTranscript`: the report of `transcript` at the verifier's clock `now`
/// with the pins and revocations it knows (none when `pins` is `None`).
pub fn verify_transcript(
    transcript: Value,
    now: u64,
    pins: Option<Value>,
) -> Result<Value, Failure> {
    let t: Transcript = parse(transcript, "transcript")?;
    for (i, m) in t.moves.iter().enumerate() {
        if m.mv > 0xff_ffff {
            return Err(bad(
                "transcript",
                format!("moves[{i}].mv {} is not a uint24 packed move", m.mv),
            ));
        }
    }
    let report = match pins {
        None => t.verify(&NoPins, now),
        Some(p) => t.verify(&KnownPins::from(parse::<PinsJson>(p, "pins")?), now),
    }
    .map_err(|e| match e {
        TranscriptError::Start(_) => Failure::new("bad_state", format!("transcript: {e}")),
        e => bad("transcript", e),
    })?;
    serde_json::to_value(&report).map_err(|e| bad("transcript report", e))
}

// ------------------------------------------------------------------ JS bindings

/// The start move (ply 0, timestamp 0) of a channel game `{gameId, white, black,
/// initialTime, increment, responseWindow, startState?}`. Throws `bad_message` or
/// `bad_state`.
#[wasm_bindgen(js_name = channelStartMove, unchecked_return_type = "ChannelMove")]
pub fn channel_start_move(
    #[wasm_bindgen(unchecked_param_type = "ChannelGame")] game: JsValue,
) -> Result<JsValue, JsValue> {
    to_js(from_js(&game, "game").and_then(start_move))
}

/// The move message that plays `uci` after `previous`, signed by its author at unix
/// time `timestamp` (seconds): what an honest client signs next. The author is charged
/// the time since `previous`'s stamp (nothing after the start move) and gains
/// `increment`. Throws `invalid_transition` (with the CHANNEL.md section 6 `code`: 4
/// for a stamp before `previous`'s or a fallen flag, 5 after the game ended, 6 with the
/// `ruleCode` for an illegal move), `bad_move` or `bad_message`.
#[wasm_bindgen(js_name = channelSuccessor, unchecked_return_type = "ChannelMove")]
pub fn channel_successor(
    #[wasm_bindgen(unchecked_param_type = "ChannelMove")] previous: JsValue,
    uci: &str,
    #[wasm_bindgen(unchecked_param_type = "number | bigint")] timestamp: JsValue,
    increment: u32,
) -> Result<JsValue, JsValue> {
    let timestamp = unix_time(&timestamp, "timestamp")?;
    to_js(
        from_js(&previous, "previous move")
            .and_then(|previous| next_move(previous, uci, timestamp, increment)),
    )
}

/// Checks that `next` is a valid successor of `previous` (CHANNEL.md section 6); throws
/// `invalid_transition` with the transition `code`, its `reason` and the `ruleCode`.
#[wasm_bindgen(js_name = channelCheckSuccessor)]
pub fn channel_check_successor(
    #[wasm_bindgen(unchecked_param_type = "ChannelMove")] previous: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ChannelMove")] next: JsValue,
    increment: u32,
) -> Result<(), JsValue> {
    let previous = from_js(&previous, "previous move")?;
    let next = from_js(&next, "move")?;
    Ok(check_next(previous, next, increment)?)
}

/// The receipt `{gameId, ply, position, seenAt}` of `move` held at unix time `seenAt`:
/// what the side to move signs on receiving it (CHANNEL.md 4.6).
#[wasm_bindgen(js_name = channelReceipt, unchecked_return_type = "ChannelReceipt")]
pub fn channel_receipt(
    #[wasm_bindgen(unchecked_param_type = "ChannelMove")] mv: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number | bigint")] seen_at: JsValue,
) -> Result<JsValue, JsValue> {
    let seen_at = unix_time(&seen_at, "seenAt")?;
    to_js(from_js(&mv, "move").and_then(|mv| receipt(mv, seen_at)))
}

/// The `position` (the move's `hashStruct`) that a resignation, result, draw offer or
/// receipt in the position after `move` names.
#[wasm_bindgen(js_name = channelPosition)]
pub fn channel_position(
    #[wasm_bindgen(unchecked_param_type = "ChannelMove")] mv: JsValue,
) -> Result<String, JsValue> {
    Ok(position(from_js(&mv, "move")?)?)
}

/// The EIP-712 typed data of a `kind` message ("Move", "Delegation", "Resignation",
/// "Result", "DrawOffer", "Receipt") under `domain` `{chainId, verifyingContract}`:
/// `{domain, types, primaryType, message, hash, digest}`, ready for ethers
/// `signTypedData(domain, types, message)` (a wallet signing a delegation, a receipt or
/// a result). Throws `bad_message`.
#[wasm_bindgen(js_name = channelTypedData, unchecked_return_type = "ChannelTypedData")]
pub fn channel_typed_data(
    #[wasm_bindgen(unchecked_param_type = "ChannelMessageType")] kind: &str,
    #[wasm_bindgen(unchecked_param_type = "ChannelDomain")] domain: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ChannelMessage")] message: JsValue,
) -> Result<JsValue, JsValue> {
    let domain = from_js(&domain, "domain")?;
    let message = from_js(&message, &format!("{kind} message"))?;
    to_js(typed_data(kind, domain, message))
}

/// The address a 65-byte signature of `digest` recovers to, under the protocol's rules
/// (v 27 or 28, low s, never address 0); throws `bad_signature` naming what is wrong.
#[wasm_bindgen(js_name = channelRecover)]
pub fn channel_recover(digest: &str, signature: &str) -> Result<String, JsValue> {
    Ok(recover_signer(digest, signature)?)
}

/// The address of a private key (a session key the page generated with
/// `crypto.getRandomValues`); throws `bad_key`.
#[wasm_bindgen(js_name = channelAddressOf)]
pub fn channel_address_of(private_key: &str) -> Result<String, JsValue> {
    Ok(address_of(private_key)?)
}

/// Signs a message digest (from `channelTypedData`) with a private key, as the
/// protocol wants it: 65 bytes `r ‖ s ‖ v`, low s, v 27 or 28 (RFC 6979: the same bytes
/// alloy and ethers produce). For session keys; a wallet signs the typed data itself.
#[wasm_bindgen(js_name = channelSign)]
pub fn channel_sign(private_key: &str, digest: &str) -> Result<String, JsValue> {
    Ok(sign(private_key, digest)?)
}

/// Checks a whole transcript (every signature, delegation range and expiry, turn
/// order, every move, the signed times and clocks, every receipt, the signed end's
/// game and position) at the verifier's clock `now` (unix seconds: what a session key's
/// resignation or result is judged at), with what the verifier knows of the contract's
/// pins and revocations (`pins`, none by default), and says which call settles or
/// disputes it: `{validPlies, error, status, fen, unchecked, settlement: {call, why,
/// ends, calldata}}`. Throws `bad_message` for a file that is not a transcript and
/// `bad_state` for a bad start state.
#[wasm_bindgen(js_name = channelVerifyTranscript, unchecked_return_type = "TranscriptReport")]
pub fn channel_verify_transcript(
    #[wasm_bindgen(unchecked_param_type = "ChannelTranscript")] transcript: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number | bigint")] now: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ChannelPins")] pins: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let now = unix_time(&now, "now")?;
    let transcript = from_js(&transcript, "transcript")?;
    let pins = match pins {
        Some(p) if !p.is_undefined() && !p.is_null() => Some(from_js(&p, "pins")?),
        _ => None,
    };
    to_js(verify_transcript(transcript, now, pins))
}

#[cfg(test)]
mod tests {
    //! The bindings' pure halves against every example of the shared fixture
    //! (tests/fixtures/channel-examples.json); the JS tests check the same through WASM.

    use super::*;

    fn fixture() -> Value {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/channel-examples.json"
        );
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture")).expect("JSON")
    }

    fn domain(f: &Value) -> Value {
        f["domain"].clone()
    }

    fn now(f: &Value) -> u64 {
        f["now"].as_u64().expect("now")
    }

    /// `(kind, message)` for every signed or hashed example of the fixture.
    fn examples(f: &Value) -> Vec<(&'static str, String, Value)> {
        let n = &f["negative"];
        let mut all = vec![("Move", "start".to_string(), f["start"].clone())];
        for m in f["moves"].as_array().expect("moves") {
            all.push(("Move", format!("ply {}", m["ply"]), m.clone()));
            all.push((
                "Receipt",
                format!("receipt of ply {}", m["ply"]),
                m["receipt"].clone(),
            ));
        }
        for d in f["delegations"].as_array().expect("delegations") {
            all.push(("Delegation", d["name"].to_string(), d.clone()));
        }
        all.push((
            "Resignation",
            "resignation".into(),
            f["resignation"].clone(),
        ));
        all.push(("Result", "result".into(), f["result"].clone()));
        all.push(("DrawOffer", "draw offer".into(), f["drawOffer"].clone()));
        all.push((
            "Move",
            "equivocation a".into(),
            n["equivocation"]["a"].clone(),
        ));
        all.push((
            "Move",
            "equivocation b".into(),
            n["equivocation"]["b"].clone(),
        ));
        all.push((
            "Resignation",
            "expired key".into(),
            n["expiredKey"]["resignation"].clone(),
        ));
        all.push((
            "Result",
            "lapsed result".into(),
            n["lapsedResult"]["result"].clone(),
        ));
        all.push(("Move", "wrong signer".into(), n["wrongSigner"].clone()));
        for t in n["transitions"].as_array().expect("transitions") {
            all.push((
                "Move",
                format!("{}: previous", t["name"]),
                t["previous"].clone(),
            ));
            all.push(("Move", format!("{}: move", t["name"]), t["move"].clone()));
        }
        all
    }

    /// The signatures of an example: `(signature, signer)`.
    fn signatures(v: &Value) -> Vec<(String, String)> {
        let mut all = Vec::new();
        for s in [v, &v["white"], &v["black"]] {
            if let (Some(sig), Some(signer)) = (s["signature"].as_str(), s["signer"].as_str())
                && sig != "0x"
            {
                all.push((sig.to_string(), signer.to_string()));
            }
        }
        all
    }

    #[test]
    fn test_every_example_hashes_digests_and_recovers_as_the_fixture_says() {
        let f = fixture();
        let mut checked = 0;
        for (kind, name, v) in examples(&f) {
            let t = typed_data(kind, domain(&f), v.clone()).expect(&name);
            assert_eq!(t["primaryType"], kind, "{name}");
            assert_eq!(t["hash"], v["hash"], "{name}: hash");
            assert_eq!(t["digest"], v["digest"], "{name}: digest");
            for (signature, signer) in signatures(&v) {
                assert_eq!(
                    recover_signer(v["digest"].as_str().unwrap(), &signature),
                    Ok(signer),
                    "{name}"
                );
                checked += 1;
            }
        }
        // 4 moves, 4 receipts, 4 delegations, the resignation, both result signatures, the
        // draw offer and 14 negative examples (11 transitions).
        assert_eq!(checked, 33, "every signature of the fixture");
        let other = json!({"chainId": f["negative"]["otherChain"]["chainId"], "verifyingContract": f["domain"]["verifyingContract"]});
        let t = typed_data("Move", other, f["moves"][0].clone()).expect("other chain");
        assert_eq!(t["digest"], f["negative"]["otherChain"]["digest"]);
        assert_eq!(t["domain"]["version"], "2");
    }

    #[test]
    fn test_types_are_the_documented_type_strings() {
        let f = fixture();
        for (kind, ty) in f["types"].as_object().expect("types") {
            let message = match kind.as_str() {
                "Move" => f["start"].clone(),
                "Delegation" => f["delegations"][0].clone(),
                "Resignation" => f["resignation"].clone(),
                "Result" => f["result"].clone(),
                "DrawOffer" => f["drawOffer"].clone(),
                "Receipt" => f["moves"][0]["receipt"].clone(),
                other => panic!("unexpected type {other}"),
            };
            let t = typed_data(kind, domain(&f), message).expect(kind);
            let members: Vec<String> = t["types"][kind]
                .as_array()
                .expect("members")
                .iter()
                .map(|m| {
                    format!(
                        "{} {}",
                        m["type"].as_str().unwrap(),
                        m["name"].as_str().unwrap()
                    )
                })
                .collect();
            assert_eq!(
                format!("{kind}({})", members.join(",")),
                ty["type"].as_str().unwrap()
            );
            let fields: Vec<&String> = t["message"].as_object().expect("message").keys().collect();
            assert_eq!(
                fields.len(),
                members.len(),
                "{kind}: every member has a value"
            );
        }
    }

    #[test]
    fn test_session_keys_sign_the_fixtures_bytes() {
        let f = fixture();
        let keys = &f["keys"];
        for m in f["moves"].as_array().expect("moves") {
            let signer = m["signer"].as_str().unwrap();
            let key = keys
                .as_object()
                .unwrap()
                .values()
                .find(|k| k["address"] == signer)
                .expect("a known key");
            let private = key["privateKey"].as_str().unwrap();
            assert_eq!(address_of(private).as_deref(), Ok(signer));
            assert_eq!(
                sign(private, m["digest"].as_str().unwrap()),
                Ok(m["signature"].as_str().unwrap().to_string())
            );
        }
        assert_eq!(
            sign("0x00", "0x00").map_err(|e| e.kind),
            Err("bad_signature")
        );
        assert_eq!(address_of("0x00").map_err(|e| e.kind), Err("bad_key"));
        let zero = format!("0x{}", "0".repeat(64));
        assert_eq!(address_of(&zero).map_err(|e| e.kind), Err("bad_key"));
    }

    #[test]
    fn test_start_and_successors_rebuild_the_fixtures_moves() {
        let f = fixture();
        let mut game = f["game"].clone();
        game.as_object_mut().unwrap().remove("startState");
        let start = start_move(game).expect("start");
        let hash =
            |m: &Value| typed_data("Move", domain(&f), m.clone()).expect("move")["hash"].clone();
        assert_eq!(hash(&start), f["start"]["hash"]);
        assert_eq!(start["timestamp"], 0);
        let increment = f["game"]["increment"].as_u64().unwrap() as u32;
        let mut previous = start;
        for m in f["moves"].as_array().expect("moves") {
            let at = m["timestamp"].as_u64().unwrap();
            let next = next_move(previous.clone(), m["uci"].as_str().unwrap(), at, increment)
                .expect("legal");
            assert_eq!(hash(&next), m["hash"], "ply {}", m["ply"]);
            assert_eq!(next["timestamp"], m["timestamp"]);
            check_next(previous, m.clone(), increment).expect("valid");
            let r = receipt(m.clone(), m["receipt"]["seenAt"].as_u64().unwrap()).expect("receipt");
            assert_eq!(
                typed_data("Receipt", domain(&f), r).unwrap()["hash"],
                m["receipt"]["hash"]
            );
            assert_eq!(
                position(m.clone()).as_ref(),
                Ok(&m["hash"].as_str().unwrap().to_string())
            );
            previous = m.clone();
        }
        // A stamp before the predecessor's, and a fallen flag: code 4.
        let last = f["moves"][3].clone();
        let t = last["timestamp"].as_u64().unwrap();
        let third = f["moves"][2]["timestamp"].as_u64().unwrap();
        let e =
            next_move(f["moves"][2].clone(), "e8e7", third - 1, increment).expect_err("backwards");
        assert_eq!(
            (e.kind, e.code),
            ("invalid_transition", Some((4, "BAD_TIME")))
        );
        let e = next_move(f["moves"][2].clone(), "e8e7", t + 10_000, increment).expect_err("flag");
        assert_eq!(e.code, Some((4, "BAD_TIME")), "{}", e.message);
        // After the mate: code 5.
        let e = next_move(last, "a2a3", t + 1, increment).expect_err("mate");
        assert_eq!(e.code, Some((5, "GAME_OVER")));
        let e = next_move(f["moves"][0].clone(), "e7e4", t, increment).expect_err("illegal");
        assert_eq!(e.code, Some((6, "ILLEGAL_MOVE")));
        assert!(e.rule_code.is_some_and(|r| r > 0), "{}", e.message);
        assert_eq!(
            next_move(f["start"].clone(), "e2", 0, 2).map_err(|e| e.kind),
            Err("bad_move")
        );
    }

    #[test]
    fn test_negative_transitions_have_their_codes() {
        let f = fixture();
        let increment = f["game"]["increment"].as_u64().unwrap() as u32;
        for t in f["negative"]["transitions"]
            .as_array()
            .expect("transitions")
        {
            let e = check_next(t["previous"].clone(), t["move"].clone(), increment)
                .expect_err("invalid");
            assert_eq!(e.kind, "invalid_transition");
            assert_eq!(
                e.code.map(|c| u64::from(c.0)),
                t["code"].as_u64(),
                "{}",
                t["name"]
            );
            assert_eq!(
                e.rule_code.map(u64::from),
                t["ruleCode"].as_u64(),
                "{}",
                t["name"]
            );
        }
    }

    fn verify(t: &Value, now: u64, pins: Option<Value>) -> Value {
        verify_transcript(t.clone(), now, pins).expect("a transcript")
    }

    #[test]
    fn test_transcript_verdicts() {
        let f = fixture();
        let r = verify(&f, now(&f), None);
        assert_eq!(r["validPlies"], 4);
        assert_eq!(r["error"], Value::Null);
        assert_eq!(r["status"], 1, "fool's mate");
        assert_eq!(r["settlement"]["call"], "settle");
        assert_eq!(r["settlement"]["ends"], json!([2, 8]));

        let mut resigned = f.clone();
        resigned.as_object_mut().unwrap().remove("result");
        let r = verify(&resigned, now(&f), None);
        assert_eq!(
            (&r["error"], &r["settlement"]["call"]),
            (&Value::Null, &json!("resignBySignature"))
        );
        assert_eq!(r["settlement"]["ends"], json!([2, 5]));

        let mut bare = resigned.clone();
        bare.as_object_mut().unwrap().remove("resignation");
        let r = verify(&bare, now(&f), None);
        assert_eq!(r["settlement"]["call"], "register");
        assert_eq!(r["settlement"]["ends"], json!([2, 1]));

        let mut lapsed = f.clone();
        lapsed["result"] = f["negative"]["lapsedResult"]["result"].clone();
        let r = verify(&lapsed, now(&f), None);
        assert_eq!(
            r["error"],
            "the result was signed at ply 2, but play went on to ply 4: it has lapsed"
        );
        assert_eq!(r["settlement"]["call"], "register");

        let mut expired = resigned.clone();
        expired["resignation"] = f["negative"]["expiredKey"]["resignation"].clone();
        let at = f["negative"]["expiredKey"]["now"].as_u64().unwrap();
        let r = verify(&expired, at, None);
        assert!(
            r["error"].as_str().unwrap().contains("expired"),
            "{}",
            r["error"]
        );
        assert_eq!(r["settlement"]["call"], "register");
        // Before its expiry the key is still retired: its delegation starts at ply 1, and
        // white's whiteSession2 (delegations[1]) is a later one, from ply 3 (issue 27,
        // finding 3).
        let expires = f["delegations"][3]["expires"].as_u64().unwrap();
        assert_eq!(f["delegations"][3]["firstPly"], 1);
        assert_eq!(f["delegations"][1]["firstPly"], 3);
        let r = verify(&expired, expires, None);
        let error = r["error"].as_str().unwrap();
        assert!(
            error.starts_with("ply 4: session key ")
                && error.ends_with("is delegated from ply 1, but the player's later delegation from ply 3 retired it: it signs no more resignations or results"),
            "{error}"
        );
        assert_eq!(r["settlement"]["call"], "register");
        // Times may come as decimal strings.
        let mut first = f["moves"][0].clone();
        first["timestamp"] = json!(first["timestamp"].to_string());
        first["receipt"]["seenAt"] = json!(first["receipt"]["seenAt"].to_string());
        let t = json!({"domain": f["domain"], "game": f["game"], "delegations": f["delegations"], "moves": [first]});
        let r = verify(&t, now(&f), None);
        assert_eq!(r["error"], Value::Null);
        assert_eq!(r["validPlies"], 1);
    }

    #[test]
    fn test_pins_and_revocations() {
        let f = fixture();
        let mut resigned = f.clone();
        resigned.as_object_mut().unwrap().remove("result");
        // White's resignation is by whiteSession2 (delegations[1]): revoked before now.
        let d = &f["delegations"][1];
        let revoked = json!({"revocations": [{"gameId": 7, "player": f["game"]["white"], "sessionKey": d["sessionKey"], "at": now(&f) - 1}]});
        let r = verify(&resigned, now(&f), Some(revoked.clone()));
        assert!(
            r["error"].as_str().unwrap().contains("revoked"),
            "{}",
            r["error"]
        );
        assert_eq!(r["settlement"]["call"], "register");
        let r = verify(&resigned, now(&f) - 2, Some(revoked));
        assert_eq!(r["error"], Value::Null, "not revoked yet");

        // White's own signature of the result replaced: refused, unless pinned, or
        // unchecked when white may be a contract wallet.
        let mut unsigned = f.clone();
        unsigned["result"]["white"]["signature"] = json!(format!("0x{}", "11".repeat(65)));
        let r = verify(&unsigned, now(&f), None);
        assert_ne!(r["error"], Value::Null);
        assert_eq!(r["settlement"]["call"], "register");
        let pinned =
            json!({"pinned": [{"signer": f["game"]["white"], "digest": f["result"]["digest"]}]});
        let r = verify(&unsigned, now(&f), Some(pinned));
        assert_eq!(
            (&r["error"], &r["settlement"]["call"]),
            (&Value::Null, &json!("settle"))
        );
        // A later delegation shown on-chain only (`retire`, from ply 4): whiteSession2, from
        // ply 3, no longer resigns; black's, or another game's, retirement changes nothing.
        let retired = |game: u64, player: &Value| json!({"retirements": [{"gameId": game, "player": player, "firstPly": 4}]});
        let r = verify(&resigned, now(&f), Some(retired(7, &f["game"]["white"])));
        assert!(
            r["error"].as_str().unwrap().contains("retired it"),
            "{}",
            r["error"]
        );
        assert_eq!(r["settlement"]["call"], "register");
        for other in [
            retired(7, &f["game"]["black"]),
            retired(8, &f["game"]["white"]),
        ] {
            let r = verify(&resigned, now(&f), Some(other));
            assert_eq!(r["error"], Value::Null);
        }

        let contract = json!({"contracts": [f["game"]["white"]]});
        let r = verify(&unsigned, now(&f), Some(contract));
        let white = f["game"]["white"].as_str().unwrap().to_lowercase();
        assert_eq!(r["unchecked"], json!([white]));
        let e =
            verify_transcript(f.clone(), 0, Some(json!({"pins": []}))).expect_err("unknown member");
        assert_eq!(e.kind, "bad_message");
        assert!(
            e.message.starts_with("pins: unknown field"),
            "{}",
            e.message
        );
    }

    #[test]
    fn test_bad_input_is_a_clear_error() {
        let f = fixture();
        let e = verify_transcript(json!({"moves": 3}), 0, None).expect_err("not a transcript");
        assert_eq!(e.kind, "bad_message");
        assert!(e.message.starts_with("transcript: "), "{}", e.message);
        let mut v1 = f["moves"][0].clone();
        v1.as_object_mut().unwrap().remove("timestamp");
        let e = typed_data("Move", domain(&f), v1).expect_err("a v1 move");
        assert_eq!(e.message, "Move message: missing field `timestamp`");
        let e = typed_data("Delegation", domain(&f), json!({"gameId": 7, "sessionKey": f["keys"]["white"]["address"], "firstPly": 1, "lastPly": 2})).expect_err("v1");
        assert!(
            e.message.contains("missing field `expires`"),
            "{}",
            e.message
        );
        let e =
            typed_data("Resignation", domain(&f), json!({"gameId": 7, "ply": 4})).expect_err("v1");
        assert!(
            e.message.contains("missing field `position`"),
            "{}",
            e.message
        );
        let e = typed_data("Draw", domain(&f), json!({})).expect_err("unknown");
        assert!(e.message.contains("DrawOffer or Receipt"), "{}", e.message);
        let mut wide = f["moves"][0].clone();
        wide["mv"] = json!(1 << 24);
        let e = typed_data("Move", domain(&f), wide.clone()).unwrap_err();
        assert!(
            e.message.contains("uint24") || e.message.contains("24 bits"),
            "{}",
            e.message
        );
        let mut t = f.clone();
        t["moves"][0] = wide;
        let e = verify_transcript(t, 0, None).unwrap_err();
        assert!(e.message.contains("24 bits"), "{}", e.message);
        let mut bad_start = f.clone();
        bad_start["game"]["startState"] = json!(format!("0x{}", "00".repeat(128)));
        assert_eq!(
            verify_transcript(bad_start, 0, None).unwrap_err().kind,
            "bad_state"
        );
        let e = recover_signer(
            f["negative"]["highS"]["digest"].as_str().unwrap(),
            f["negative"]["highS"]["signature"].as_str().unwrap(),
        );
        assert_eq!(e.map_err(|e| e.kind), Err("bad_signature"));
        assert_eq!(
            recover_signer("0x12", "0x").map_err(|e| e.kind),
            Err("bad_signature")
        );
        assert_eq!(seconds(u64::MAX), json!("18446744073709551615"));
    }
}
