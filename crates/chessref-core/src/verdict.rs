//! The contract's answer about one move: accepted, or `IllegalMove(code)`.
//!
//! Every surface answers with this one type, so `chessref check --json`,
//! `POST /v1/check` and the WASM `check` cannot drift apart. Its JSON form
//! (feature `serde`) is `{"legal": bool, "code": int, "reason": "NAME"}`.

use std::fmt;

use crate::error::Rejection;
use crate::moves::RawMove;
use crate::state::State;

/// Whether the contract accepts a move and, if not, the section 6 rejection.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Verdict {
    rejection: Option<Rejection>,
}

impl Verdict {
    /// The verdict of accepting the move.
    pub const LEGAL: Verdict = Verdict { rejection: None };

    /// What the contract says about `mv` in `state` (nothing is played).
    pub fn of(state: &State, mv: impl Into<RawMove>) -> Verdict {
        Verdict::from(state.check(mv.into()).map(|_| ()))
    }

    /// The verdict of a rejection.
    pub const fn rejected(rejection: Rejection) -> Verdict {
        Verdict {
            rejection: Some(rejection),
        }
    }

    /// Whether the contract accepts the move.
    pub const fn legal(self) -> bool {
        self.rejection.is_none()
    }

    /// The section 6 rejection, if the move is illegal.
    pub const fn rejection(self) -> Option<Rejection> {
        self.rejection
    }

    /// 0 when legal, else the ENCODING.md section 6 code (1 to 14).
    pub const fn code(self) -> u8 {
        match self.rejection {
            None => 0,
            Some(r) => r.code(),
        }
    }

    /// `"OK"` when legal, else the section 6 name (`"KING_LEFT_IN_CHECK"`, ...).
    pub const fn name(self) -> &'static str {
        match self.rejection {
            None => "OK",
            Some(r) => r.name(),
        }
    }

    /// The verdict whose [`code`](Verdict::code) is `code`, if there is one.
    pub const fn from_code(code: u8) -> Option<Verdict> {
        if code == 0 {
            return Some(Verdict::LEGAL);
        }
        match Rejection::from_code(code) {
            Some(r) => Some(Verdict::rejected(r)),
            None => None,
        }
    }

    /// A sentence for a person: `"legal move"` or why the move is refused.
    pub fn message(self) -> String {
        self.to_string()
    }
}

impl From<Result<(), Rejection>> for Verdict {
    fn from(result: Result<(), Rejection>) -> Verdict {
        Verdict {
            rejection: result.err(),
        }
    }
}

impl From<Rejection> for Verdict {
    fn from(rejection: Rejection) -> Verdict {
        Verdict::rejected(rejection)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rejection {
            None => f.write_str("legal move"),
            Some(r) => write!(f, "{r}"),
        }
    }
}

#[cfg(feature = "serde")]
mod wire {
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};

    use super::Verdict;

    /// The JSON object; field order is the order printed.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct VerdictJson<'a> {
        legal: bool,
        code: u8,
        #[serde(borrow)]
        reason: std::borrow::Cow<'a, str>,
    }

    impl Serialize for Verdict {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            VerdictJson {
                legal: self.legal(),
                code: self.code(),
                reason: self.name().into(),
            }
            .serialize(serializer)
        }
    }

    impl<'de> Deserialize<'de> for Verdict {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Verdict, D::Error> {
            let json = VerdictJson::deserialize(deserializer)?;
            match Verdict::from_code(json.code) {
                Some(v) if v.legal() == json.legal && v.name() == json.reason => Ok(v),
                _ => Err(D::Error::custom(format!(
                    "inconsistent verdict: legal {}, code {}, reason {:?}",
                    json.legal, json.code, json.reason
                ))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_and_rejected_verdicts_carry_code_name_and_message() {
        let s = State::initial();
        let v = Verdict::of(&s, RawMove::parse("e2e4").unwrap());
        assert_eq!((v.legal(), v.code(), v.name()), (true, 0, "OK"));
        assert_eq!(v.message(), "legal move");
        let v = Verdict::of(&s, RawMove::parse("e2e5").unwrap());
        assert_eq!((v.legal(), v.code(), v.name()), (false, 6, "BAD_GEOMETRY"));
        assert_eq!(v.message(), Rejection::BadGeometry.to_string());
        assert_eq!(
            Verdict::from_code(14),
            Some(Verdict::rejected(Rejection::KingLeftInCheck))
        );
        assert_eq!(Verdict::from_code(15), None);
    }

    #[test]
    fn a_king_or_pawn_promotion_is_invalid_promotion() {
        let s = State::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        for text in ["b7b8k", "b7b8p", "0x110106"] {
            let v = Verdict::of(&s, RawMove::parse(text).unwrap());
            assert_eq!((v.code(), v.name()), (13, "INVALID_PROMOTION"), "{text}");
        }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_is_legal_code_reason() {
        let s = State::initial();
        let v = Verdict::of(&s, RawMove::parse("e2e5").unwrap());
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(text, r#"{"legal":false,"code":6,"reason":"BAD_GEOMETRY"}"#);
        assert_eq!(serde_json::from_str::<Verdict>(&text).unwrap(), v);
        assert_eq!(
            serde_json::to_string(&Verdict::LEGAL).unwrap(),
            r#"{"legal":true,"code":0,"reason":"OK"}"#
        );
        assert!(
            serde_json::from_str::<Verdict>(r#"{"legal":true,"code":6,"reason":"BAD_GEOMETRY"}"#)
                .is_err()
        );
    }
}
