//! The relay's wire (CHANNEL.md section 13): what a player sends ([`Frame`], one signed
//! message each) and what the relay answers ([`RelayFrame`]), as JSON text frames of a
//! WebSocket. Members are the transcript's ([`crate::transcript`]), camelCase, with a
//! `type` naming the kind.

use alloy_primitives::{B256, Bytes, U256};
use serde::{Deserialize, Serialize};

use crate::domain::ChannelDomain;
use crate::game::ChannelGame;
use crate::transcript::{DelegationEntry, MoveEntry, ResignationEntry, Side};

/// One signed message a player sends through a relay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Frame {
    /// A wallet delegates a session key (a transcript's `delegations` entry).
    Delegation(DelegationEntry),
    /// A signed move, without its receipt (that is the opponent's own frame).
    Move(MoveEntry),
    /// The side to move's receipt of the move of `ply`.
    Receipt(ReceiptFrame),
    /// A draw offer (binds nobody; the opponent accepts by signing a draw result).
    DrawOffer(SignedPosition),
    /// A resignation (a transcript's `resignation`).
    Resignation(ResignationEntry),
    /// One player's signature of a result; the result binds once both have signed the
    /// same one.
    Result(ResultHalf),
}

impl Frame {
    /// The frame's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            Frame::Delegation(_) => "delegation",
            Frame::Move(_) => "move",
            Frame::Receipt(_) => "receipt",
            Frame::DrawOffer(_) => "drawOffer",
            Frame::Resignation(_) => "resignation",
            Frame::Result(_) => "result",
        }
    }

    /// The frame's signature (a resignation's, one result half's).
    pub fn signature(&self) -> &Bytes {
        match self {
            Frame::Delegation(d) => &d.signature,
            Frame::Move(m) => &m.signature,
            Frame::Receipt(r) => &r.signature,
            Frame::DrawOffer(o) => &o.signature,
            Frame::Resignation(r) => &r.signed.signature,
            Frame::Result(r) => &r.signature,
        }
    }

    /// The ply the frame is about (a delegation's first ply).
    pub fn ply(&self) -> u32 {
        match self {
            Frame::Delegation(d) => d.first_ply,
            Frame::Move(m) => m.ply,
            Frame::Receipt(r) => r.ply,
            Frame::DrawOffer(o) => o.ply,
            Frame::Resignation(r) => r.ply,
            Frame::Result(r) => r.ply,
        }
    }
}

/// A receipt as its own frame: `Receipt(gameId, ply, position, seenAt)` of the move of
/// `ply`, whose game and `hashStruct` complete it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptFrame {
    /// The move's ply.
    pub ply: u32,
    /// Unix time the signer held the move.
    pub seen_at: u64,
    /// The signature.
    pub signature: Bytes,
    /// Index into the delegations, or -1: signed by the player's own address.
    #[serde(default = "direct")]
    pub delegation: i64,
}

/// A message naming a position, signed by one side (a draw offer).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedPosition {
    /// The game.
    pub game_id: U256,
    /// The ply of the latest move.
    pub ply: u32,
    /// That move's `hashStruct`.
    pub position: B256,
    /// Who signs.
    pub by: Side,
    /// The signature.
    pub signature: Bytes,
    /// Index into the delegations, or -1.
    #[serde(default = "direct")]
    pub delegation: i64,
}

/// One side's signature of a `Result`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultHalf {
    /// The game.
    pub game_id: U256,
    /// The ply of the latest move.
    pub ply: u32,
    /// That move's `hashStruct`.
    pub position: B256,
    /// 1 white wins, 2 black wins, 3 draw.
    pub result: u8,
    /// Who signs.
    pub by: Side,
    /// The signature.
    pub signature: Bytes,
    /// Index into the delegations, or -1.
    #[serde(default = "direct")]
    pub delegation: i64,
}

fn direct() -> i64 {
    -1
}

/// What a relay sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum RelayFrame {
    /// First frame of a connection: the game as the relay verifies it, and the number of
    /// messages it holds.
    Welcome {
        /// The signatures' domain.
        domain: ChannelDomain,
        /// The game's players and terms.
        game: ChannelGame,
        /// The sequence number of the latest message (0: none yet).
        latest: u64,
    },
    /// A message the relay accepted, numbered in arrival order from 1.
    Message {
        /// Its sequence number in the game.
        seq: u64,
        /// Unix time the relay accepted it.
        received_at: u64,
        /// The message.
        message: Frame,
    },
    /// The frame just sent is one the relay already holds (it is not sent again).
    Duplicate {
        /// The sequence number of the copy held.
        seq: u64,
    },
    /// The frame just sent was refused and not forwarded.
    Refused {
        /// What kind of problem (`transition`, `signature`, `delegation`, `receipt`,
        /// `order`, `ended`, `time`, `game`, `frame`).
        kind: String,
        /// The transition code (CHANNEL.md section 6) when the move is not a valid
        /// successor.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<u8>,
        /// What is wrong, for a person.
        reason: String,
    },
}

impl RelayFrame {
    /// The JSON text of [`RelayFrame::Message`] `seq`, received at `received_at`, whose
    /// message is `frame_json` (a [`Frame`]'s JSON text, as the relay stores it): the
    /// same text as serialising the whole frame, written around the message's text
    /// instead of serialising the message again (a relay stores a frame's JSON anyway,
    /// and forwards every message it stores).
    pub fn message_text(seq: u64, received_at: u64, frame_json: &str) -> String {
        format!(
            r#"{{"type":"message","seq":{seq},"receivedAt":{received_at},"message":{frame_json}}}"#
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_text_is_the_message_frame_serialised() {
        let frames = [
            Frame::Result(ResultHalf {
                game_id: U256::from(u128::MAX) * U256::from(3),
                ply: 41,
                position: B256::repeat_byte(0xab),
                result: 3,
                by: Side::Black,
                signature: Bytes::from(vec![0x1b; 65]),
                delegation: 0,
            }),
            Frame::Receipt(ReceiptFrame {
                ply: 1,
                seen_at: 1_700_000_000,
                signature: Bytes::from(vec![2; 65]),
                delegation: -1,
            }),
        ];
        for (seq, frame) in frames.into_iter().enumerate() {
            let seq = seq as u64 + 1;
            let whole = serde_json::to_string(&RelayFrame::Message {
                seq,
                received_at: 1_800_000_123,
                message: frame.clone(),
            })
            .expect("serialises");
            let body = serde_json::to_string(&frame).expect("serialises");
            assert_eq!(RelayFrame::message_text(seq, 1_800_000_123, &body), whole);
        }
    }
}
