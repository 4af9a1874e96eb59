// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice What the channel needs to know of a game (docs/CHANNEL.md section 2).
struct ChannelGame {
    address white;
    address black;
    uint32 initialTime;
    uint32 increment;
    uint32 responseWindow; // 0 for a game not created by `createChannelGame`
    uint32 firstMoveWindow;
    uint8 phase;
    bool customStart;
    uint32 registeredPly; // ply of the latest registration (0 before the first)
    uint64 windowEnd; // end of the latest registration's response window; 0 while off-chain
}

/// @notice A registered position as an overtaking registration names it (docs/CHANNEL.md 7.3):
/// `inner = keccak256(state ‖ history)` and its clock word, both from its `PositionRegistered`.
/// The channel checks them against the referee's commitment.
struct FrozenPosition {
    bytes32 inner;
    uint256 clock;
}

/// @title IChessCourt
/// @notice The referee's side of the channel: one view and the two entry points only the
/// referee's own `ChessChannel` may call.
interface IChessCourt {
    /// @notice The game as the channel needs it.
    /// @param gameId The game.
    function channelGame(uint256 gameId) external view returns (ChannelGame memory);

    /// @notice keccak256(state ‖ history) of the game's start position (asked apart from
    /// `channelGame`: only a first move needs it, and its storage read costs 2,100 gas).
    /// @param gameId The game.
    function channelStart(uint256 gameId) external view returns (bytes32);

    /// @notice The commitment of a running game's position (0 if not running): what a frozen
    /// registration's position and clock word must seal to.
    /// @param gameId The game.
    function commitmentOf(uint256 gameId) external view returns (bytes32);

    /// @notice Continues a running channel game on-chain from a registered position: stores
    /// its commitment, its ply as `registeredPly` and its clock word's timestamp (the end of
    /// its response window) as `windowEnd`, and emits `PositionRegistered`. Only the channel
    /// may call, for a running channel game.
    /// @param gameId The game.
    /// @param state The 128-byte state of the registered position.
    /// @param history Its repetition-chain head.
    /// @param clock Its clock word (docs/REFEREE.md section 3), with the pending status of a
    /// decided position (docs/CHANNEL.md 7.3).
    function registerPosition(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external;

    /// @notice Ends a running channel game and credits the payout. Only the channel may call, for
    /// a running channel game.
    /// @param gameId The game.
    /// @param result 1 white wins, 2 black wins, 3 draw.
    /// @param reason docs/REFEREE.md section 2 and docs/CHANNEL.md section 7.6.
    function endChannelGame(uint256 gameId, uint8 result, uint8 reason) external;
}
