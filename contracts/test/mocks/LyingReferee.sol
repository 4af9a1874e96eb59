// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice A contract that emits ChessReferee's events with whatever the caller says,
/// checking nothing: the indexer's divergence test points `chessref index` at it and plays
/// a move the rules refuse, which the indexer must record as a divergence. Test-only.
contract LyingReferee {
    event GameCreated(
        uint256 indexed gameId,
        address indexed creator,
        address indexed opponent,
        bool creatorWhite,
        address token,
        uint256 stake,
        uint32 initialTime,
        uint32 increment,
        uint32 firstMoveWindow,
        bytes32 terms,
        bytes state,
        bytes32 history,
        uint32 responseWindow
    );
    event GameJoined(uint256 indexed gameId, address indexed white, address indexed black, uint256 clock);
    event MovePlayed(
        uint256 indexed gameId, uint24 move, uint32 ply, uint8 status, bytes32 history, uint256 clock, bytes state
    );

    /// @notice Emits `GameCreated` of game `gameId`, created by the caller for `opponent`
    /// (the caller white, ETH, no stake, 600 s, no increment, not a channel game) from `state`
    /// and `history`, with terms hash `terms`.
    function create(uint256 gameId, address opponent, bytes calldata state, bytes32 history, bytes32 terms) external {
        emit GameCreated(gameId, msg.sender, opponent, true, address(0), 0, 600, 0, 0, terms, state, history, 0);
    }

    /// @notice Emits `GameJoined` of game `gameId` with `white`, `black` and `clock`.
    function join(uint256 gameId, address white, address black, uint256 clock) external {
        emit GameJoined(gameId, white, black, clock);
    }

    /// @notice Emits `MovePlayed` of game `gameId` exactly as given, legal or not.
    function move(
        uint256 gameId,
        uint24 mv,
        uint32 ply,
        uint8 status,
        bytes32 history,
        uint256 clock,
        bytes calldata state
    ) external {
        emit MovePlayed(gameId, mv, ply, status, history, clock, state);
    }
}
