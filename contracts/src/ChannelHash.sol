// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice A signed move (docs/CHANNEL.md section 4.1).
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

/// @notice A player's permission for `sessionKey` to sign for it in one game over a ply
/// range, until `expires` (section 4.2).
struct Delegation {
    uint256 gameId;
    address sessionKey;
    uint32 firstPly;
    uint32 lastPly;
    uint64 expires;
}

/// @notice An off-chain resignation in the position `position` of ply `ply` (section 4.3).
struct Resignation {
    uint256 gameId;
    uint32 ply;
    bytes32 position;
}

/// @notice A result both players sign in the position `position` of ply `ply` (section 4.4).
struct Result {
    uint256 gameId;
    uint32 ply;
    bytes32 position;
    uint8 result;
}

/// @notice A non-binding draw offer (section 4.5); never an argument of a call, hashed here
/// so that clients can check their encoding against the contract's.
struct DrawOffer {
    uint256 gameId;
    uint32 ply;
    bytes32 position;
}

/// @notice The signer held the move `position` of ply `ply` at `seenAt` (section 4.6).
struct Receipt {
    uint256 gameId;
    uint32 ply;
    bytes32 position;
    uint64 seenAt;
}

/// @notice How a message is signed on behalf of a player (section 5): directly
/// (`delegation.sessionKey == address(0)`) or by a delegated session key.
struct Auth {
    bytes signature;
    Delegation delegation;
    bytes delegationSignature;
}

/// @title ChannelHash
/// @notice The EIP-712 type hashes and `hashStruct` of the channel's messages (section 4).
library ChannelHash {
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant NAME_HASH = keccak256("chessref");
    bytes32 internal constant VERSION_HASH = keccak256("2");
    bytes32 internal constant MOVE_TYPEHASH = keccak256(
        "Move(uint256 gameId,uint32 ply,uint24 mv,bytes state,bytes32 history,uint32 whiteTime,uint32 blackTime,uint64 timestamp,bytes32 previous)"
    );
    bytes32 internal constant DELEGATION_TYPEHASH =
        keccak256("Delegation(uint256 gameId,address sessionKey,uint32 firstPly,uint32 lastPly,uint64 expires)");
    bytes32 internal constant RESIGNATION_TYPEHASH =
        keccak256("Resignation(uint256 gameId,uint32 ply,bytes32 position)");
    bytes32 internal constant RESULT_TYPEHASH =
        keccak256("Result(uint256 gameId,uint32 ply,bytes32 position,uint8 result)");
    bytes32 internal constant DRAW_OFFER_TYPEHASH = keccak256("DrawOffer(uint256 gameId,uint32 ply,bytes32 position)");
    bytes32 internal constant RECEIPT_TYPEHASH =
        keccak256("Receipt(uint256 gameId,uint32 ply,bytes32 position,uint64 seenAt)");

    /// @notice The domain separator of a channel contract on a chain.
    function domainSeparator(uint256 chainId, address verifyingContract) internal pure returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, chainId, verifyingContract));
    }

    /// @notice keccak256(0x19 ‖ 0x01 ‖ separator ‖ structHash).
    function digest(bytes32 separator, bytes32 structHash) internal pure returns (bytes32 d) {
        assembly ("memory-safe") {
            let p := mload(0x40)
            mstore(p, hex"1901")
            mstore(add(p, 2), separator)
            mstore(add(p, 34), structHash)
            d := keccak256(p, 66)
        }
    }

    function hashMove(Move calldata m) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                MOVE_TYPEHASH,
                m.gameId,
                m.ply,
                m.mv,
                keccak256(m.state),
                m.history,
                m.whiteTime,
                m.blackTime,
                m.timestamp,
                m.previous
            )
        );
    }

    function hashDelegation(Delegation calldata d) internal pure returns (bytes32) {
        return keccak256(abi.encode(DELEGATION_TYPEHASH, d.gameId, d.sessionKey, d.firstPly, d.lastPly, d.expires));
    }

    function hashResignation(Resignation calldata r) internal pure returns (bytes32) {
        return keccak256(abi.encode(RESIGNATION_TYPEHASH, r.gameId, r.ply, r.position));
    }

    function hashResult(Result calldata r) internal pure returns (bytes32) {
        return keccak256(abi.encode(RESULT_TYPEHASH, r.gameId, r.ply, r.position, r.result));
    }

    function hashDrawOffer(DrawOffer calldata o) internal pure returns (bytes32) {
        return keccak256(abi.encode(DRAW_OFFER_TYPEHASH, o.gameId, o.ply, o.position));
    }

    function hashReceipt(Receipt calldata r) internal pure returns (bytes32) {
        return keccak256(abi.encode(RECEIPT_TYPEHASH, r.gameId, r.ply, r.position, r.seenAt));
    }
}
