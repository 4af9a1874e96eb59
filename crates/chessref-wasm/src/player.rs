//! One player's seat in a channel game played through the relay, for a page:
//! `chessref-channel`'s [`ChannelSeat`] (every message checked by the mirror before it
//! counts, the player's own messages signed by a session key the page keeps, and what an
//! honest client answers) behind a JS class. The page only carries frames between the
//! relay's WebSocket and this class, asks the wallet for what binds the player (the
//! delegation, the stake, the settlement), and draws.
//!
//! Frames are the relay's JSON (docs/CHANNEL.md section 13); a transcript is the JSON
//! `chessref channel verify` reads. Unix times are seconds.

use std::fmt;

use alloy_primitives::{Address, B256, Bytes};
use chessref_channel::messages::FrozenPosition;
use chessref_channel::registration::Registration;
use chessref_channel::seat::{ChannelSeat, ChannelSeatError, Received, SessionKey};
use chessref_channel::transcript::DelegationEntry;
use chessref_channel::{
    Auth, ChannelDomain, ChannelGame, Frame, Move, Refusal, SignedDelegation, Transcript,
};
use chessref_core::State;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::channel::{Failure, bad, from_js, key, parse, to_js, unix_time};
use crate::registration::{frozen_of, signed_move_of, uint256_text};

/// A session key held by the page: signs digests as the protocol wants them (RFC 6979,
/// low s, v 27 or 28).
struct PageKey {
    key: k256::ecdsa::SigningKey,
    address: Address,
}

impl fmt::Debug for PageKey {
    // Never print the key itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PageKey({})", self.address)
    }
}

impl SessionKey for PageKey {
    fn address(&self) -> Address {
        self.address
    }

    fn sign_digest(&self, digest: &B256) -> Result<Bytes, String> {
        let (signature, recovery) = self
            .key
            .sign_prehash_recoverable(digest.as_slice())
            .map_err(|e| e.to_string())?;
        let signature =
            alloy_primitives::Signature::from_signature_and_parity(signature, recovery.is_y_odd());
        Ok(Bytes::copy_from_slice(&signature.normalized_s().as_bytes()))
    }
}

fn seat_failure(e: ChannelSeatError) -> Failure {
    let kind = match &e {
        ChannelSeatError::NotYourMove | ChannelSeatError::Ended(_) => "refused",
        ChannelSeatError::Move(_) => "bad_move",
        ChannelSeatError::Sign(_) | ChannelSeatError::NotCovered(_) => "bad_key",
        _ => "bad_message",
    };
    Failure::new(kind, e.to_string())
}

/// A message the mirror refuses, as JS sees it: `refused`, with its `reason` (and `code`
/// for a move that is not a valid successor).
fn refused(r: Refusal) -> Failure {
    Failure {
        kind: "refused",
        message: r.to_string(),
        code: r.code().map(|c| (c, r.kind())),
        rule_code: None,
    }
}

fn frames_json(frames: &[Frame]) -> Result<Value, Failure> {
    serde_json::to_value(frames).map_err(|e| bad("frames", e))
}

fn received_json(received: &Received) -> Value {
    match received {
        Received::Known => json!({"kind": "known"}),
        Received::Delegation(side) => json!({"kind": "delegation", "by": side.name()}),
        Received::Move { ply, by, san, uci } => {
            json!({"kind": "move", "ply": ply, "by": by.name(), "san": san, "uci": uci})
        }
        Received::Receipt(ply) => json!({"kind": "receipt", "ply": ply}),
        Received::DrawOffer(side) => json!({"kind": "drawOffer", "by": side.name()}),
        Received::ResultHalf(side, result) => {
            json!({"kind": "result", "by": side.name(), "result": result})
        }
        Received::Ended => json!({"kind": "ended"}),
    }
}

/// The player's seat: see the module documentation.
#[wasm_bindgen]
pub struct ChannelPlayer {
    seat: ChannelSeat,
}

impl ChannelPlayer {
    /// The seat of `player` in `game` under `domain`, with the session key
    /// `session_key` (0x hex) and the wallet's delegation of it (a transcript's
    /// `delegations` entry: `{player, gameId, sessionKey, firstPly, lastPly, expires,
    /// signature}`).
    pub fn create(
        game: Value,
        domain: Value,
        player: &str,
        session_key: &str,
        delegation: Value,
    ) -> Result<ChannelPlayer, Failure> {
        let game: ChannelGame = parse(game, "game")?;
        let domain: ChannelDomain = parse(domain, "domain")?;
        let player: Address = player
            .parse()
            .map_err(|e| bad("player", format!("{player:?}: {e}")))?;
        let key = key(session_key)?;
        let address = Address::from_private_key(&key);
        let entry: DelegationEntry = parse(delegation, "delegation")?;
        let delegation = SignedDelegation {
            delegation: entry.delegation(),
            signature: entry.signature,
        };
        let seat = ChannelSeat::new(
            domain,
            game,
            player,
            Box::new(PageKey { key, address }),
            delegation,
        )
        .map_err(seat_failure)?;
        Ok(ChannelPlayer { seat })
    }

    /// Takes in `frame` from the relay at `now`: `{received, send}`, what it was and
    /// the frames to send in answer. A frame the mirror refuses changes nothing: an
    /// error of kind `refused` with its `reason` (and `code` for a move that is not a
    /// valid successor).
    pub fn take(&mut self, frame: Value, now: u64) -> Result<Value, Failure> {
        let frame: Frame = parse(frame, "frame")?;
        let received = self.seat.receive(frame, now).map_err(refused)?;
        let send = self.seat.answer(&received, now).map_err(seat_failure)?;
        Ok(json!({"received": received_json(&received), "send": frames_json(&send)?}))
    }

    /// Plays `text` (SAN or UCI) at `now`: the frames to send (the player's delegation
    /// first if not sent yet, the move, and the result if the move decides the game).
    pub fn make_move(&mut self, text: &str, now: u64) -> Result<Value, Failure> {
        let mut frames = self.seat.play(text, now).map_err(seat_failure)?;
        frames.extend(self.seat.agree_to_the_board(now).map_err(seat_failure)?);
        frames_json(&frames)
    }

    /// Takes in the signed move `mv` (authorised by `auth`) that the chain first showed at
    /// `shown_at`, at `now` ([`ChannelSeat::receive_shown`]): what it was. Nothing is sent
    /// in answer: while a registration is frozen, play goes on by registrations.
    pub fn take_shown(
        &mut self,
        mv: &Move,
        auth: &Auth,
        shown_at: u64,
        now: u64,
    ) -> Result<Value, Failure> {
        let received = self
            .seat
            .receive_shown(mv, auth, shown_at, now)
            .map_err(refused)?;
        Ok(received_json(&received))
    }

    /// The `register` that answers the registration of `frozen` from the transcript held,
    /// at chain time `now` ([`Registration::overtake`]): a later pair held overtakes it,
    /// the player's reply to it among them (the direct reply). `null` when nothing later
    /// than the registered ply is held.
    pub fn answering(&self, frozen: FrozenPosition, now: u64) -> Result<Value, Failure> {
        match Registration::new(frozen).overtake(self.seat.transcript(), now) {
            None => Ok(Value::Null),
            Some(s) => serde_json::to_value(&s).map_err(|e| bad("settlement", e)),
        }
    }

    /// When the page must register the player's own latest move itself, sent at
    /// `sent_at` ([`ChannelSeat::auto_register_at`]): `min(sent_at + 10, its stamp + 30)`
    /// while the move has no receipt from the opponent and the game goes on off-chain.
    pub fn auto_register_at(&self, sent_at: u64) -> Option<u64> {
        self.seat.auto_register_at(sent_at)
    }

    /// A view of the game for drawing: the position, the clocks as signed, whose move,
    /// the moves in SAN, how it ended or what the board decided.
    pub fn view(&self) -> Value {
        let last = self.seat.last();
        let position = self.seat.position();
        let sans = sans(self.seat.transcript());
        json!({
            "colour": self.seat.colour().to_string(),
            "ply": last.ply,
            "fen": position.fen(),
            "state": alloy_primitives::hex::encode_prefixed(position.as_bytes()),
            "turn": position.turn().to_string(),
            "status": position.status().name(),
            "check": position.in_check(),
            "toMove": self.seat.to_move(),
            "lastMove": self.seat.last_move().map(|(san, uci)| json!({"san": san, "uci": uci})),
            "whiteTime": last.whiteTime,
            "blackTime": last.blackTime,
            "stamp": last.timestamp,
            "clockFrom": self.seat.clock_from(),
            "moves": sans,
            "drawOffered": self.seat.draw_offered(),
            "decided": self.seat.decided_code(),
            "ended": self.seat.ended(),
        })
    }
}

/// The SAN of every move held, replayed from the start.
fn sans(t: &Transcript) -> Vec<String> {
    let Ok(mut position) = t.game.start() else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(t.moves.len());
    for entry in &t.moves {
        let found = position
            .legal_moves()
            .into_iter()
            .find(|mv| chessref_core::RawMove::from(*mv).packed() == entry.mv);
        let Some(mv) = found else { break };
        out.push(position.san(mv).unwrap_or_default());
        match State::from_bytes(&entry.state) {
            Ok(next) => position = next,
            Err(_) => break,
        }
    }
    out
}

#[wasm_bindgen]
impl ChannelPlayer {
    /// The seat of `player` in `game` (`ChannelGame`) under `domain`, signing with
    /// `sessionKey` (0x hex, made by the page and never sent) under `delegation`, which
    /// the player's wallet signed (`channelTypedData("Delegation", ...)`): `{player,
    /// gameId, sessionKey, firstPly, lastPly, expires, signature}`. Throws `bad_message`
    /// (also for a delegation of another game or key) or `bad_key`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ChannelGame")] game: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ChannelDomain")] domain: JsValue,
        player: &str,
        #[wasm_bindgen(js_name = sessionKey)] session_key: &str,
        delegation: JsValue,
    ) -> Result<ChannelPlayer, JsValue> {
        Ok(ChannelPlayer::create(
            from_js(&game, "game")?,
            from_js(&domain, "domain")?,
            player,
            session_key,
            from_js(&delegation, "delegation")?,
        )?)
    }

    /// A frame from the relay (a `message` frame's `message`), checked by the mirror at
    /// `now`: `{received: {kind, ...}, send: frames}`. Throws `refused` (with `reason`,
    /// and `code` for an invalid move) when it does not verify: nothing changed. A
    /// resignation or result signed by a session key is refused once a later delegation
    /// of its player is held (the key is retired, docs/CHANNEL.md 5).
    pub fn receive(&mut self, frame: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let now = unix_time(&now, "now")?;
        to_js(from_js(&frame, "frame").and_then(|f| self.take(f, now)))
    }

    /// Plays `text` (SAN or UCI) at `now`, checked first: the frames to send. Throws
    /// `bad_move` for an illegal move (nothing signed) and `refused` out of turn.
    pub fn play(&mut self, text: &str, now: JsValue) -> Result<JsValue, JsValue> {
        let now = unix_time(&now, "now")?;
        to_js(self.make_move(text, now))
    }

    /// A draw offer in the latest position: the frames to send.
    #[wasm_bindgen(js_name = offerDraw)]
    pub fn offer_draw(&mut self, now: JsValue) -> Result<JsValue, JsValue> {
        let now = unix_time(&now, "now")?;
        to_js(
            self.seat
                .offer_draw(now)
                .map_err(seat_failure)
                .and_then(|f| frames_json(&f)),
        )
    }

    /// The player's signature of `result` (3 accepts the opponent's draw offer): the
    /// frames to send.
    #[wasm_bindgen(js_name = signResult)]
    pub fn sign_result(&mut self, result: u8, now: JsValue) -> Result<JsValue, JsValue> {
        let now = unix_time(&now, "now")?;
        to_js(
            self.seat
                .sign_result(result, now)
                .map_err(seat_failure)
                .and_then(|f| frames_json(&f)),
        )
    }

    /// A resignation: the frames to send.
    pub fn resign(&mut self, now: JsValue) -> Result<JsValue, JsValue> {
        let now = unix_time(&now, "now")?;
        to_js(
            self.seat
                .resign(now)
                .map_err(seat_failure)
                .and_then(|f| frames_json(&f)),
        )
    }

    /// After (re)connecting, with every frame the relay sent since: what it lacks of
    /// this player's transcript and what the player owes.
    pub fn resync(&mut self, relayed: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let now = unix_time(&now, "now")?;
        let relayed: Vec<Frame> = parse(from_js(&relayed, "relayed")?, "relayed frames")?;
        to_js(
            self.seat
                .resync(&relayed, now)
                .map_err(seat_failure)
                .and_then(|f| frames_json(&f)),
        )
    }

    /// Takes in a stored transcript (a reloaded page), each message checked at `now`.
    pub fn restore(&mut self, transcript: JsValue, now: JsValue) -> Result<(), JsValue> {
        let now = unix_time(&now, "now")?;
        let t: Transcript = parse(from_js(&transcript, "transcript")?, "transcript")?;
        Ok(self.seat.restore(&t, now).map_err(seat_failure)?)
    }

    /// The transcript held: what `chessref channel verify|settle|dispute` read.
    pub fn transcript(&self) -> Result<JsValue, JsValue> {
        to_js(serde_json::to_value(self.seat.transcript()).map_err(|e| bad("transcript", e)))
    }

    /// When the page must register the player's own latest move itself (docs/CHANNEL.md
    /// 8 and 9), given `sentAt`, when it sent that move (after a reload, when it sent it
    /// again): `min(sentAt + 10, the move's stamp + 30)` (unix seconds) while the move
    /// has no receipt from the opponent and the game goes on off-chain, else `undefined`
    /// (the opponent's move, a move acknowledged, no move yet, a game ended). The page
    /// registers by itself once its clock reaches it, so that the registration, included
    /// within 30 s, lands within the 60 s after the stamp that one without a receipt has.
    #[wasm_bindgen(js_name = autoRegisterAt)]
    pub fn auto_register_at_js(
        &self,
        #[wasm_bindgen(js_name = sentAt, unchecked_param_type = "number | bigint")]
        sent_at: JsValue,
    ) -> Result<Option<f64>, JsValue> {
        let sent_at = unix_time(&sent_at, "sentAt")?;
        Ok(self.auto_register_at(sent_at).map(|t| t as f64))
    }

    /// Takes in a signed move of the game that the chain showed (a registration's pair, from
    /// `channelRegistrationPair`), first shown at `shownAt` (`channelFirstShown`), at `now`
    /// (unix seconds): `{kind, ...}` as `receive` says it (`known` for a move held). It is
    /// checked by the mirror as a relayed move is, but whatever its stamp's lag (the chain
    /// took it), and the player holds the opponent's move from its showing: its reply is
    /// stamped from then and its clock runs from then (`view().clockFrom`). Throws `refused`
    /// for a move that contradicts the transcript or does not verify (nothing changed), or
    /// `bad_message`.
    #[wasm_bindgen(js_name = receiveShown, unchecked_return_type = "{ kind: string; ply?: number; by?: string; san?: string; uci?: string }")]
    pub fn receive_shown(
        &mut self,
        #[wasm_bindgen(js_name = move, unchecked_param_type = "ChannelMove")] mv: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ChannelAuth")] auth: JsValue,
        #[wasm_bindgen(js_name = shownAt, unchecked_param_type = "number | bigint")]
        shown_at: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] now: JsValue,
    ) -> Result<JsValue, JsValue> {
        let shown_at = unix_time(&shown_at, "shownAt")?;
        let now = unix_time(&now, "now")?;
        let (mv, auth) = signed_move_of(&mv, &auth)?;
        to_js(self.take_shown(&mv, &auth, shown_at, now))
    }

    /// The `ChessChannel.register` call that answers the frozen registration of the
    /// position `{frozenInner, frozenClock}` (its `PositionRegistered`: `keccak256(state ‖
    /// history)` and its clock word, a BigInt or a decimal or 0x hex string) from the
    /// transcript held, at chain time `now`: `{call, why, ends, calldata}` like a verify
    /// report's settlement, naming the registered position, or `null` when nothing later
    /// than the registered ply is held. The latest pair the contract takes: acknowledged,
    /// fresh, or the player's direct reply to the registered move, which counts by the
    /// registration's reply deadline by the wall clock (docs/CHANNEL.md 7.3). Throws
    /// `bad_message` for a position that does not parse.
    #[wasm_bindgen(js_name = registerAnswering, unchecked_return_type = "ChannelSettlement | null")]
    pub fn register_answering(
        &self,
        #[wasm_bindgen(js_name = frozenInner)] frozen_inner: &str,
        #[wasm_bindgen(js_name = frozenClock, unchecked_param_type = "bigint | string")]
        frozen_clock: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] now: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = unix_time(&now, "now")?;
        let clock = uint256_text(&frozen_clock, "frozenClock")?;
        let frozen = frozen_of(frozen_inner, &clock)?;
        to_js(self.answering(frozen, now))
    }

    /// The game as the page draws it: `{colour, ply, fen, state, turn, status, check,
    /// toMove, lastMove, whiteTime, blackTime, stamp, clockFrom (the time the side to
    /// move's clock runs from: the player's own receipt of the latest move when it is to
    /// move, else the latest stamp), moves, drawOffered, decided,
    /// ended}`.
    #[wasm_bindgen(js_name = view)]
    pub fn view_js(&self) -> Result<JsValue, JsValue> {
        to_js(Ok(self.view()))
    }
}

#[cfg(test)]
mod tests {
    //! Two page seats play through frames as JSON, the way two browsers do through the
    //! relay: every answer each one gives is carried to the other.

    use alloy_primitives::keccak256;
    use chessref_channel::messages::Delegation;

    use super::*;

    const T0: u64 = 1_800_000_000;
    const WALLETS: [&str; 2] = ["white wallet", "black wallet"];
    const SESSIONS: [&str; 2] = ["white session", "black session"];

    fn secret(label: &str) -> String {
        keccak256(label).to_string()
    }

    fn address(label: &str) -> Address {
        Address::from_private_key(&key(&secret(label)).expect("a key"))
    }

    fn domain() -> ChannelDomain {
        ChannelDomain {
            chain_id: 31337,
            verifying_contract: Address::repeat_byte(7),
        }
    }

    /// The wallet's signed delegation, as a page gets it back from `eth_signTypedData_v4`.
    fn delegation(side: usize) -> Value {
        let d = Delegation {
            gameId: alloy_primitives::U256::from(1),
            sessionKey: address(SESSIONS[side]),
            firstPly: 1,
            lastPly: u32::MAX,
            expires: T0 + 86_400,
        };
        let digest = chessref_channel::messages::Message::digest(&d, &domain());
        let signature = PageKey {
            key: key(&secret(WALLETS[side])).expect("a key"),
            address: address(WALLETS[side]),
        }
        .sign_digest(&digest)
        .expect("signing");
        json!({
            "player": if side == 0 { "white" } else { "black" },
            "gameId": "1", "sessionKey": d.sessionKey, "firstPly": 1, "lastPly": u32::MAX,
            "expires": d.expires, "signature": signature,
        })
    }

    fn players() -> [ChannelPlayer; 2] {
        let game = json!({"gameId": "1", "white": address(WALLETS[0]), "black": address(WALLETS[1]),
                          "initialTime": 600, "increment": 0, "responseWindow": 600});
        let domain = json!({"chainId": 31337, "verifyingContract": Address::repeat_byte(7)});
        [0, 1].map(|side| {
            ChannelPlayer::create(
                game.clone(),
                domain.clone(),
                &address(WALLETS[side]).to_string(),
                &secret(SESSIONS[side]),
                delegation(side),
            )
            .expect("a seat")
        })
    }

    /// Carries `frames` from `from` to the other side and every answer back, until quiet.
    fn carry(players: &mut [ChannelPlayer; 2], from: usize, frames: Value, now: u64) {
        let mut pending = vec![(1 - from, frames)];
        while let Some((to, frames)) = pending.pop() {
            for frame in frames.as_array().expect("frames").clone() {
                let answer = players[to].take(frame, now).expect("a valid frame");
                if !answer["send"].as_array().expect("send").is_empty() {
                    pending.push((1 - to, answer["send"].clone()));
                }
            }
        }
    }

    #[test]
    fn test_two_page_seats_play_fools_mate_and_both_agree() {
        let mut players = players();
        for (i, san) in ["f3", "e5", "g4", "Qh4#"].iter().enumerate() {
            let side = i % 2;
            let frames = players[side].make_move(san, T0 + i as u64).expect("legal");
            carry(&mut players, side, frames, T0 + i as u64);
        }
        for p in &players {
            let view = p.view();
            assert_eq!(view["ended"], "result", "{view}");
            assert_eq!(view["decided"], 2);
            assert_eq!(view["moves"], json!(["f3", "e5", "g4", "Qh4#"]));
            assert_eq!(view["status"], "CHECKMATE");
        }
        let t = players[0].seat.transcript();
        assert_eq!(t, players[1].seat.transcript());
        assert!(
            t.moves.iter().all(|m| m.receipt.is_some()),
            "every move acknowledged"
        );
        let report = t
            .verify(&chessref_channel::NoPins, T0 + 10)
            .expect("verifies");
        assert_eq!(report.settlement.call, "settle");
    }

    #[test]
    fn test_a_forged_move_is_refused_and_changes_nothing() {
        let mut players = players();
        let frames = players[0].make_move("e4", T0).expect("legal");
        let mut forged = frames.as_array().expect("frames")[1].clone();
        assert_eq!(forged["type"], "move");
        forged["mv"] = json!(0x644500); // e2e5 in place of e2e4, the signature unchanged
        let delegation = frames[0].clone();
        players[1]
            .take(delegation, T0)
            .expect("the delegation verifies");
        let refused = players[1].take(forged, T0).expect_err("a forged move");
        assert_eq!(refused.kind, "refused", "{refused:?}");
        assert_eq!(players[1].view()["ply"], 0, "nothing changed");
        // An illegal move of one's own is refused before anything is signed.
        let illegal = players[0].make_move("Ke2", T0 + 1).expect_err("illegal");
        assert_eq!(illegal.kind, "refused", "not black's turn: {illegal:?}");
        let mut players = self::players();
        let illegal = players[0].make_move("e5", T0).expect_err("illegal");
        assert_eq!(illegal.kind, "bad_move", "{illegal:?}");
        assert!(players[0].seat.transcript().moves.is_empty());
    }

    #[test]
    fn test_the_page_is_told_when_to_register_its_unacknowledged_move() {
        let mut players = players();
        let frames = players[0].make_move("e4", T0).expect("legal");
        assert_eq!(players[0].auto_register_at(T0), Some(T0 + 10));
        assert_eq!(players[0].auto_register_at(T0 + 25), Some(T0 + 30));
        assert_eq!(players[1].auto_register_at(T0), None, "nothing of black's");
        carry(&mut players, 0, frames, T0);
        assert_eq!(players[0].auto_register_at(T0), None, "acknowledged");
    }

    /// e4 e5 Nf3 Nc6 between the two seats at T0 + ply, every move acknowledged.
    fn four_plies() -> [ChannelPlayer; 2] {
        let mut players = players();
        for (i, san) in ["e4", "e5", "Nf3", "Nc6"].iter().enumerate() {
            let at = T0 + 1 + i as u64;
            let frames = players[i % 2].make_move(san, at).expect("legal");
            carry(&mut players, i % 2, frames, at);
        }
        players
    }

    /// A registered position's clock word: ply `ply`, window end `window_end`, reply
    /// deadline `deadline` (the other fields play no part here).
    fn clock(ply: u32, window_end: u64, deadline: u64) -> alloy_primitives::U256 {
        use alloy_primitives::U256;
        U256::from(window_end) | U256::from(ply) << 136usize | U256::from(deadline) << 208usize
    }

    /// The signed move of ply `ply` that `player` holds.
    fn signed(player: &ChannelPlayer, ply: u32) -> (Move, Auth) {
        let t = player.seat.transcript();
        let i = ply as usize - 1;
        (t.message(i), t.move_auth(i).expect("an authorisation"))
    }

    #[test]
    fn test_a_page_overtakes_a_stale_registration_with_the_pair_it_holds() {
        use alloy_sol_types::SolCall;
        use chessref_channel::messages::IChessChannel;
        use chessref_channel::settlement;
        let players = four_plies();
        let frozen = FrozenPosition {
            inner: B256::repeat_byte(0x42),
            clock: clock(2, T0 + 700, T0 + 400),
        };
        let answer = players[0]
            .answering(frozen.clone(), T0 + 100)
            .expect("valid");
        assert_eq!(answer["call"], "register");
        // What the Rust side builds from the same signed moves: the pair of plies 3 and 4
        // with white's receipt of Nc6, naming the registered position.
        let (nf3, nc6) = (signed(&players[0], 3), signed(&players[0], 4));
        let seen_at = players[0].seat.transcript().moves[3]
            .receipt
            .as_ref()
            .expect("acknowledged")
            .seen_at;
        let call = IChessChannel::registerCall::abi_decode(
            &answer["calldata"]
                .as_str()
                .expect("hex")
                .parse::<Bytes>()
                .expect("bytes"),
        )
        .expect("a register call");
        let expected = settlement::register(
            (&nf3.0, &nf3.1),
            (&nc6.0, &nc6.1),
            Some((
                &chessref_channel::transcript::receipt_of(&nc6.0, seen_at),
                &Auth::from(&call.receiptAuth),
            )),
            None,
            String::new(),
        )
        .answering(frozen.clone());
        assert_eq!(answer["calldata"], json!(expected.calldata));
        assert_eq!(call.frozen, frozen);
        // The receipt's signature is white's session key's, under white's delegation.
        let digest = chessref_channel::messages::Message::digest(&call.receipt, &domain_of());
        let signer =
            chessref_channel::auth::recover(digest, &call.receiptAuth.signature).expect("recovers");
        assert_eq!(signer, address(SESSIONS[0]));
        // Registered at ply 4: nothing later is held.
        let latest = FrozenPosition {
            inner: B256::repeat_byte(0x42),
            clock: clock(4, T0 + 700, T0 + 400),
        };
        assert_eq!(
            players[0].answering(latest, T0 + 100).expect("valid"),
            Value::Null
        );
    }

    #[test]
    fn test_a_move_shown_on_chain_is_answered_by_the_direct_reply_charged_from_its_showing() {
        use alloy_sol_types::SolCall;
        use chessref_channel::messages::IChessChannel;
        let mut players = four_plies();
        // White's Bc4 never reaches black through the relay; white registers it, and the
        // chain shows it at T0 + 50. Black's page reads it at T0 + 52.
        players[0].make_move("Bc4", T0 + 20).expect("legal");
        let (bc4, auth) = signed(&players[0], 5);
        let received = players[1]
            .take_shown(&bc4, &auth, T0 + 50, T0 + 52)
            .expect("a valid successor");
        assert_eq!(received["kind"], "move");
        assert_eq!(
            (received["ply"].clone(), received["san"].clone()),
            (json!(5), json!("Bc4"))
        );
        assert_eq!(
            players[1]
                .take_shown(&bc4, &auth, T0 + 50, T0 + 53)
                .expect("valid")["kind"],
            "known"
        );
        let view = players[1].view();
        assert_eq!(
            (view["toMove"].clone(), view["clockFrom"].clone()),
            (json!(true), json!(T0 + 50))
        );
        // Black thinks 10 s after the showing: it signs exactly 10 s.
        players[1].make_move("Nf6", T0 + 60).expect("legal");
        let (nf6, _) = signed(&players[1], 6);
        assert_eq!(nf6.timestamp, bc4.timestamp + 10);
        let frozen = FrozenPosition {
            inner: B256::repeat_byte(0x55),
            clock: clock(5, T0 + 650, T0 + 340),
        };
        // Long after Bc4's stamp, as the direct reply it needs no freshness.
        let answer = players[1]
            .answering(frozen.clone(), T0 + 200)
            .expect("valid");
        let bytes: Bytes = answer["calldata"]
            .as_str()
            .expect("hex")
            .parse()
            .expect("bytes");
        let call = IChessChannel::registerCall::abi_decode(&bytes).expect("a register call");
        assert_eq!((call.previous, call.last), (bc4, nf6));
        assert_eq!(call.receipt.position, B256::ZERO, "no receipt");
        assert_eq!(call.frozen, frozen);
        assert!(
            answer["why"]
                .as_str()
                .is_some_and(|why| why.contains(&format!("direct reply to the registration of ply 5: charged by the wall clock from when the chain shows it, which must be by unix time {}", T0 + 340))),
            "{answer}"
        );
        // A move the transcript contradicts is refused and changes nothing.
        let (nc6, nc6_auth) = signed(&players[0], 4);
        let mut other = nc6.clone();
        other.timestamp += 1;
        let refused = players[0]
            .take_shown(&other, &nc6_auth, T0 + 50, T0 + 52)
            .expect_err("not the move held");
        assert_eq!(refused.kind, "refused", "{refused:?}");
        assert_eq!(players[0].view()["ply"], 5);
    }

    fn domain_of() -> ChannelDomain {
        ChannelDomain {
            chain_id: 31337,
            verifying_contract: Address::repeat_byte(7),
        }
    }

    #[test]
    fn test_a_delegation_of_another_key_is_refused() {
        let game = json!({"gameId": "1", "white": address(WALLETS[0]), "black": address(WALLETS[1]),
                          "initialTime": 600, "increment": 0, "responseWindow": 600});
        let domain = json!({"chainId": 31337, "verifyingContract": Address::repeat_byte(7)});
        let err = ChannelPlayer::create(
            game,
            domain,
            &address(WALLETS[0]).to_string(),
            &secret("another session"),
            delegation(0),
        )
        .err()
        .expect("refused");
        assert!(err.message.contains("names session key"), "{err:?}");
    }
}
