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
use chessref_channel::seat::{ChannelSeat, ChannelSeatError, Received, SessionKey};
use chessref_channel::transcript::DelegationEntry;
use chessref_channel::{ChannelDomain, ChannelGame, Frame, SignedDelegation, Transcript};
use chessref_core::State;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::channel::{Failure, bad, from_js, key, parse, to_js, unix_time};

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
        let received = self.seat.receive(frame, now).map_err(|r| Failure {
            kind: "refused",
            message: r.to_string(),
            code: r.code().map(|c| (c, r.kind())),
            rule_code: None,
        })?;
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
