// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @title Commitment
/// @notice What a running game's position hashes to (docs/REFEREE.md section 1):
/// `inner = keccak256(state[128] ‖ history)`, `commitment = keccak256(inner ‖ clock)`.
library Commitment {
    /// @notice keccak256(state ‖ history) over the 128 state bytes in memory.
    function inner(bytes memory s, bytes32 history) internal pure returns (bytes32 r) {
        assembly ("memory-safe") {
            let p := mload(0x40)
            mcopy(p, add(s, 32), 128)
            mstore(add(p, 128), history)
            r := keccak256(p, 160)
        }
    }

    /// @notice keccak256(state ‖ history) over the 128 state bytes in calldata.
    function innerCalldata(bytes calldata s, bytes32 history) internal pure returns (bytes32 r) {
        assembly ("memory-safe") {
            let p := mload(0x40)
            calldatacopy(p, s.offset, 128)
            mstore(add(p, 128), history)
            r := keccak256(p, 160)
        }
    }

    /// @notice keccak256(inner ‖ clock).
    function seal(bytes32 innerHash, uint256 clock) internal pure returns (bytes32 r) {
        assembly ("memory-safe") {
            mstore(0, innerHash)
            mstore(32, clock)
            r := keccak256(0, 64)
        }
    }
}
