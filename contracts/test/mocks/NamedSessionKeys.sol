// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice Prototype of the session-key design not taken (issue 10 item 2): each player
/// names its session key on-chain at create or join, and settlement reads it from storage
/// instead of verifying a delegation. Test-only: it isolates exactly what that design adds
/// to create/join (one more argument, one fresh storage slot per player) and to settlement
/// (one cold slot read per player), so the two designs can be measured side by side.
contract NamedSessionKeys {
    mapping(uint256 gameId => mapping(address player => address key)) public sessionKeys;

    /// @notice What create/join would do besides their current work: store the caller's key.
    function nameKey(uint256 gameId, address key) external {
        if (key != address(0)) sessionKeys[gameId][msg.sender] = key;
    }

    /// @notice What settlement would do instead of verifying a delegation: read the key.
    function keyOf(uint256 gameId, address player) external view returns (address) {
        return sessionKeys[gameId][player];
    }
}
