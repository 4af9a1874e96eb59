// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules} from "./ChessRules.sol";

/// @title Outcome
/// @notice Results and reasons of `GameEnded` (docs/REFEREE.md section 2, docs/CHANNEL.md
/// section 7.6), and the result a decided position (section 8 status 1-4) implies.
library Outcome {
    uint8 internal constant WHITE_WINS = 1;
    uint8 internal constant BLACK_WINS = 2;
    uint8 internal constant DRAW = 3;

    uint8 internal constant REASON_CHECKMATE = 1;
    uint8 internal constant REASON_STALEMATE = 2;
    uint8 internal constant REASON_INSUFFICIENT_MATERIAL = 3;
    uint8 internal constant REASON_SEVENTY_FIVE_MOVES = 4;
    uint8 internal constant REASON_RESIGNATION = 5;
    uint8 internal constant REASON_AGREEMENT = 8;
    /// @notice The loser signed two different moves for one ply.
    uint8 internal constant REASON_EQUIVOCATION = 12;
    /// @notice The loser signed a move that is not a valid successor of the position it names.
    uint8 internal constant REASON_ILLEGAL_SIGNED_MOVE = 13;

    /// @notice Result and reason of a game whose position is decided (status `st`, 1-4),
    /// `whiteToMove` being the side to move in it (the mated side for a checkmate).
    function ofStatus(bool whiteToMove, uint256 st) internal pure returns (uint8 result, uint8 reason) {
        if (st == ChessRules.CHECKMATE) return (whiteToMove ? BLACK_WINS : WHITE_WINS, REASON_CHECKMATE);
        if (st == ChessRules.STALEMATE) return (DRAW, REASON_STALEMATE);
        if (st == ChessRules.INSUFFICIENT_MATERIAL) return (DRAW, REASON_INSUFFICIENT_MATERIAL);
        // ChessRules.SEVENTY_FIVE_MOVES, the one decided status left.
        return (DRAW, REASON_SEVENTY_FIVE_MOVES);
    }

    /// @notice The win of the opponent of `white` (true: white) by `reason`.
    function winOfOpponent(bool white) internal pure returns (uint8) {
        return white ? BLACK_WINS : WHITE_WINS;
    }
}
