//! The EIP-712 messages of CHANNEL.md section 4.
//!
//! The struct names and member lists are the type strings: `Move`, `Delegation`,
//! `Resignation`, `Result`, `DrawOffer`, `Receipt`. `hash()` is EIP-712 `hashStruct`,
//! `digest(domain)` what is signed.

use alloy_primitives::{B256, U256, keccak256};
use alloy_sol_types::SolStruct;
use chessref_core::Color;

use crate::domain::ChannelDomain;

alloy_sol_types::sol! {
    /// A signed move (CHANNEL.md 4.1): the move, the position it produces, both
    /// remaining times as its author claims them, the unix time its author signed it,
    /// and `hashStruct` of the move before.
    #[derive(Debug, PartialEq, Eq)]
    struct Move {
        uint256 gameId;
        uint32 ply;
        uint24 mv;
        bytes state;
        bytes32 history;
        uint32 whiteTime;
        uint32 blackTime;
        uint64 timestamp;
        bytes32 previous;
    }

    /// A player's wallet lets `sessionKey` sign for it in one game over a ply range,
    /// until `expires` (CHANNEL.md 4.2).
    #[derive(Debug, PartialEq, Eq)]
    struct Delegation {
        uint256 gameId;
        address sessionKey;
        uint32 firstPly;
        uint32 lastPly;
        uint64 expires;
    }

    /// The signer resigns in the position `position` (the `hashStruct` of the move of
    /// ply `ply`); the opponent wins (CHANNEL.md 4.3).
    #[derive(Debug, PartialEq, Eq)]
    struct Resignation {
        uint256 gameId;
        uint32 ply;
        bytes32 position;
    }

    /// A result both players sign in the position `position` of ply `ply`: 1 white
    /// wins, 2 black wins, 3 draw (CHANNEL.md 4.4).
    #[derive(Debug, PartialEq, Eq)]
    struct Result {
        uint256 gameId;
        uint32 ply;
        bytes32 position;
        uint8 result;
    }

    /// A non-binding offer of a draw in the position `position` (CHANNEL.md 4.5).
    #[derive(Debug, PartialEq, Eq)]
    struct DrawOffer {
        uint256 gameId;
        uint32 ply;
        bytes32 position;
    }

    /// "The signer held the move `position` (of ply `ply`) at `seenAt`" (CHANNEL.md 4.6).
    #[derive(Debug, PartialEq, Eq)]
    struct Receipt {
        uint256 gameId;
        uint32 ply;
        bytes32 position;
        uint64 seenAt;
    }

    /// The ABI form of an authorisation (`ChessChannel`'s `Auth`): `delegation.sessionKey
    /// == 0` means the player signed directly.
    #[derive(Debug, PartialEq, Eq)]
    struct AuthAbi {
        bytes signature;
        Delegation delegation;
        bytes delegationSignature;
    }

    /// A registered position as an overtaking registration names it (CHANNEL.md 7.3):
    /// `inner = keccak256(state ‖ history)` and its clock word, from its
    /// `PositionRegistered`. All zero off-chain, where it is ignored.
    #[derive(Debug, Default, PartialEq, Eq)]
    struct FrozenPosition {
        bytes32 inner;
        uint256 clock;
    }

    /// The calls of CHANNEL.md sections 5 and 7.
    interface IChessChannel {
        function settle(Result result, AuthAbi white, AuthAbi black) external;
        function resignBySignature(Resignation resignation, AuthAbi auth, bool white) external;
        function register(Move previous, AuthAbi previousAuth, Move last, AuthAbi lastAuth, Receipt receipt, AuthAbi receiptAuth, FrozenPosition frozen) external;
        function registerStart(Move start) external;
        function announce(Move m, AuthAbi auth) external;
        function announcedAt(bytes32 moveHash) external view returns (uint256);
        function shownWhileFrozenAt(bytes32 moveHash) external view returns (uint256);
        function proveEquivocation(Move a, AuthAbi aAuth, Move b, AuthAbi bAuth) external;
        function proveIllegalMove(Move previous, Move bad, AuthAbi badAuth) external;
        function pin(address signer, bytes32 digest, bytes signature) external;
        function revokeSessionKey(uint256 gameId, address sessionKey) external;
        function retire(uint256 gameId, Delegation later, bytes signature, bool white) external;
        function agreementsFrom(uint256 gameId, address player) external view returns (uint256);
        function pinned(address signer, bytes32 digest) external view returns (bool);
        function revokedAt(uint256 gameId, address player, address sessionKey) external view returns (uint64);
        function domainSeparator() external view returns (bytes32);
    }
}

/// What bounds a session key's signature of a message in time (CHANNEL.md 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeBound {
    /// Evidence (`Move`, `Receipt`): the message's own signed time must be at most the
    /// delegation's `expires`; revocation does not apply.
    Signed(u64),
    /// The verifier's clock must be at most `expires`; `revocable`: the key must also not
    /// be revoked by then (`Resignation`, `Result`: agreements), else only the clock
    /// (`DrawOffer`, and a `Delegation`, which a session key never signs).
    Clock {
        /// Whether a revocation of the key cuts it short.
        revocable: bool,
    },
}

/// What every channel message has: a game, a ply (which places it in a delegation's
/// range), a time bound for session keys and its EIP-712 hashes.
pub trait Message: SolStruct {
    /// The game the message belongs to.
    fn game_id(&self) -> U256;
    /// The message's ply.
    fn ply(&self) -> u32;
    /// What bounds a session key's signature of it in time.
    fn time_bound(&self) -> TimeBound;
    /// EIP-712 `hashStruct`.
    fn hash(&self) -> B256 {
        self.eip712_hash_struct()
    }
    /// The digest signed under `domain`.
    fn digest(&self, domain: &ChannelDomain) -> B256 {
        self.eip712_signing_hash(&domain.eip712())
    }
}

macro_rules! message {
    ($($t:ty => |$m:ident| $bound:expr),* $(,)?) => {$(
        impl Message for $t {
            fn game_id(&self) -> U256 {
                self.gameId
            }
            fn ply(&self) -> u32 {
                self.ply
            }
            fn time_bound(&self) -> TimeBound {
                let $m = self;
                $bound
            }
        }
    )*};
}
message!(
    Move => |m| TimeBound::Signed(m.timestamp),
    Receipt => |m| TimeBound::Signed(m.seenAt),
    Resignation => |_m| TimeBound::Clock { revocable: true },
    Result => |_m| TimeBound::Clock { revocable: true },
    DrawOffer => |_m| TimeBound::Clock { revocable: false },
);

impl Message for Delegation {
    fn game_id(&self) -> U256 {
        self.gameId
    }
    /// A delegation is signed once for its whole range; its first ply stands for it.
    fn ply(&self) -> u32 {
        self.firstPly
    }
    /// Never signed by a session key; the clock stands for it.
    fn time_bound(&self) -> TimeBound {
        TimeBound::Clock { revocable: false }
    }
}

/// The author of a move message: the side NOT to move in its state (CHANNEL.md 4.1:
/// black if byte 56 is 1, else white). `None` if the state is not 128 bytes.
pub fn author_of(mv: &Move) -> Option<Color> {
    if mv.state.len() != 128 {
        return None;
    }
    Some(if mv.state[56] == 1 {
        Color::Black
    } else {
        Color::White
    })
}

impl Move {
    /// The packed move as a number (`(from << 16) | (to << 8) | promotion`).
    pub fn packed(&self) -> u32 {
        self.mv.to::<u32>()
    }

    /// The position this move names (`hashStruct`), what a `Resignation`, `Result`,
    /// `DrawOffer` or `Receipt` of it carries as `position`.
    pub fn position(&self) -> B256 {
        self.hash()
    }
}

/// The EIP-712 digest of a message whose `hashStruct` is `hash` under the domain whose
/// separator is `separator`: `keccak256(0x19 ‖ 0x01 ‖ separator ‖ hash)`, what alloy's
/// `eip712_signing_hash` ([`Message::digest`]) computes, for a verifier that hashes its
/// domain once and each move once (a move's `hashStruct` is also its receipt's
/// `position` and the next move's `previous`). Tested equal to [`Message::digest`].
pub fn signing_hash(separator: B256, hash: B256) -> B256 {
    let mut input = [0u8; 2 + 32 + 32];
    input[0] = 0x19;
    input[1] = 0x01;
    input[2..34].copy_from_slice(separator.as_slice());
    input[34..].copy_from_slice(hash.as_slice());
    keccak256(input)
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{Address, Bytes, aliases::U24};

    use super::*;

    /// `signing_hash` with the separator hashed once is alloy's `eip712_signing_hash`.
    #[test]
    fn test_signing_hash_is_the_eip712_digest() {
        let domain = ChannelDomain {
            chain_id: 31337,
            verifying_contract: Address::repeat_byte(3),
        };
        let separator = domain.separator();
        let mv = Move {
            gameId: U256::from(5),
            ply: 9,
            mv: U24::from(0x0c1c00u32),
            state: Bytes::from(vec![7u8; 128]),
            history: B256::repeat_byte(1),
            whiteTime: 100,
            blackTime: 90,
            timestamp: 1_800_000_000,
            previous: B256::repeat_byte(2),
        };
        assert_eq!(signing_hash(separator, mv.hash()), mv.digest(&domain));
        let receipt = Receipt {
            gameId: mv.gameId,
            ply: 9,
            position: mv.hash(),
            seenAt: 1_800_000_001,
        };
        assert_eq!(
            signing_hash(separator, receipt.hash()),
            receipt.digest(&domain)
        );
        let result = Result {
            gameId: mv.gameId,
            ply: 9,
            position: mv.hash(),
            result: 3,
        };
        assert_eq!(
            signing_hash(separator, result.hash()),
            result.digest(&domain)
        );
        let delegation = Delegation {
            gameId: mv.gameId,
            sessionKey: Address::repeat_byte(4),
            firstPly: 1,
            lastPly: u32::MAX,
            expires: 1_800_003_600,
        };
        assert_eq!(
            signing_hash(separator, delegation.hash()),
            delegation.digest(&domain)
        );
    }
}
