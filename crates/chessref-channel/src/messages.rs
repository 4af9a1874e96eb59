//! The EIP-712 messages of CHANNEL.md section 4.
//!
//! The struct names and member lists are the type strings: `Move`, `Delegation`,
//! `Resignation`, `Result`. `hash()` is EIP-712 `hashStruct`, `digest(domain)` what is
//! signed.

use alloy_primitives::{B256, U256};
use alloy_sol_types::SolStruct;
use chessref_core::Color;

use crate::domain::ChannelDomain;

alloy_sol_types::sol! {
    /// A signed move (CHANNEL.md 4.1): the move, the position it produces, both
    /// remaining times as its author claims them, and `hashStruct` of the move before.
    #[derive(Debug, PartialEq, Eq)]
    struct Move {
        uint256 gameId;
        uint32 ply;
        uint24 mv;
        bytes state;
        bytes32 history;
        uint32 whiteTime;
        uint32 blackTime;
        bytes32 previous;
    }

    /// A player's wallet lets `sessionKey` sign for it in one game over a ply range
    /// (CHANNEL.md 4.2).
    #[derive(Debug, PartialEq, Eq)]
    struct Delegation {
        uint256 gameId;
        address sessionKey;
        uint32 firstPly;
        uint32 lastPly;
    }

    /// The signer resigns; the opponent wins (CHANNEL.md 4.3).
    #[derive(Debug, PartialEq, Eq)]
    struct Resignation {
        uint256 gameId;
        uint32 ply;
    }

    /// A result both players sign: 1 white wins, 2 black wins, 3 draw (CHANNEL.md 4.4).
    #[derive(Debug, PartialEq, Eq)]
    struct Result {
        uint256 gameId;
        uint32 ply;
        uint8 result;
    }

    /// The ABI form of an authorisation (`ChessChannel`'s `Auth`): `delegation.sessionKey
    /// == 0` means the player signed directly.
    #[derive(Debug, PartialEq, Eq)]
    struct AuthAbi {
        bytes signature;
        Delegation delegation;
        bytes delegationSignature;
    }

    /// The calls of CHANNEL.md section 7.
    interface IChessChannel {
        function settle(Result result, AuthAbi white, AuthAbi black) external;
        function resignBySignature(Resignation resignation, AuthAbi auth, bool white) external;
        function register(Move previous, AuthAbi previousAuth, Move last, AuthAbi lastAuth, bytes32 currentInner, uint256 currentClock) external;
        function registerStart(Move start) external;
        function proveEquivocation(Move a, AuthAbi aAuth, Move b, AuthAbi bAuth) external;
        function proveIllegalMove(Move previous, Move bad, AuthAbi badAuth) external;
        function domainSeparator() external view returns (bytes32);
    }
}

/// What every channel message has: a game, a ply (which places it in a delegation's
/// range) and its EIP-712 hashes.
pub trait Message: SolStruct {
    /// The game the message belongs to.
    fn game_id(&self) -> U256;
    /// The message's ply.
    fn ply(&self) -> u32;
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
    ($($t:ty),*) => {$(
        impl Message for $t {
            fn game_id(&self) -> U256 {
                self.gameId
            }
            fn ply(&self) -> u32 {
                self.ply
            }
        }
    )*};
}
message!(Move, Resignation, Result);

impl Message for Delegation {
    fn game_id(&self) -> U256 {
        self.gameId
    }
    /// A delegation is signed once for its whole range; its first ply stands for it.
    fn ply(&self) -> u32 {
        self.firstPly
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
}
