// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {IChessRefereeTypes} from "./IChessReferee.sol";

/// @title GameTerms
/// @notice The ranges of a game's time control and windows, in one place for every contract
/// that makes or promises a referee game: `ChessReferee` (`createGame`), its annex
/// (`hostGame`) and `ChessTournament` (`createEvent`, which fixes the terms its hosted games
/// will have, so an event can never reach a start its games would refuse).
library GameTerms {
    /// @notice Smallest initial time a game may have (minute-scale clocks).
    uint256 internal constant MIN_INITIAL_TIME = 60;
    /// @notice Largest initial time (the clock word holds 32-bit seconds).
    uint256 internal constant MAX_INITIAL_TIME = 90 days;
    /// @notice Largest Fischer increment per move.
    uint256 internal constant MAX_INCREMENT = 1 days;
    /// @notice First-move window used when 0 is given: five minutes.
    uint256 internal constant DEFAULT_FIRST_MOVE_WINDOW = 5 minutes;
    /// @notice Smallest first-move window.
    uint256 internal constant MIN_FIRST_MOVE_WINDOW = 60;
    /// @notice Largest first-move window.
    uint256 internal constant MAX_FIRST_MOVE_WINDOW = 1 days;
    /// @notice Smallest response window of a channel game.
    uint256 internal constant MIN_RESPONSE_WINDOW = 600;
    /// @notice Largest response window of a channel game.
    uint256 internal constant MAX_RESPONSE_WINDOW = 1 days;

    /// @notice Reverts `BadTimeControl` unless the initial time and increment are in range.
    function checkTimeControl(uint256 initialTime, uint256 increment) internal pure {
        if (initialTime < MIN_INITIAL_TIME || initialTime > MAX_INITIAL_TIME || increment > MAX_INCREMENT) {
            revert IChessRefereeTypes.BadTimeControl(initialTime, increment);
        }
    }

    /// @notice The first-move window for `requested` seconds (0 = the default); reverts
    /// `BadFirstMoveWindow` out of range.
    function firstMoveWindow(uint32 requested) internal pure returns (uint256 window) {
        window = requested == 0 ? DEFAULT_FIRST_MOVE_WINDOW : requested;
        if (window < MIN_FIRST_MOVE_WINDOW || window > MAX_FIRST_MOVE_WINDOW) {
            revert IChessRefereeTypes.BadFirstMoveWindow(requested);
        }
    }

    /// @notice Reverts `BadResponseWindow` unless `responseWindow` is a channel game's (in range).
    function checkResponseWindow(uint32 responseWindow) internal pure {
        if (responseWindow < MIN_RESPONSE_WINDOW || responseWindow > MAX_RESPONSE_WINDOW) {
            revert IChessRefereeTypes.BadResponseWindow(responseWindow);
        }
    }
}
