// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules, BadStateLength, InvalidState} from "./ChessRules.sol";

/// @title ChessRulesView
/// @notice The chess rules of `ChessRules` as a deployed contract, so any dApp can
/// `eth_call` them for free. Every state argument must be exactly 128 bytes
/// (else `BadStateLength(length)`) and valid per ENCODING.md section 7 (else
/// `InvalidState(code)`), the same boundary the Rust `State` type enforces.
contract ChessRulesView {
    /// @notice Most legal moves one piece can have: a queen in the middle of an empty board.
    uint256 public constant MAX_MOVES_PER_PIECE = 27;

    /// @notice The standard initial position (ENCODING.md section 4).
    /// @return The 128-byte state.
    function initialState() external pure returns (bytes memory) {
        return ChessRules.initialState();
    }

    /// @notice Validates a state (ENCODING.md section 7).
    /// @param state The candidate state; reverts `BadStateLength` if not 128 bytes.
    /// @return 0 if valid, else the first failing section 7 code (1-8).
    function validateState(bytes memory state) external pure returns (uint8) {
        return uint8(ChessRules.validateState(state));
    }

    /// @notice Checks a move (ENCODING.md section 6).
    /// @param state A valid 128-byte state.
    /// @param move `(from << 16) | (to << 8) | promotion`, raw bytes.
    /// @return 0 if the move is legal, else the section 6 rejection code (1-14).
    function check(bytes memory state, uint24 move) external pure returns (uint8) {
        _requireValid(state);
        return uint8(ChessRules.check(state, move));
    }

    /// @notice Plays a move (ENCODING.md section 5); reverts `IllegalMove(code)` if it is illegal.
    /// @param state A valid 128-byte state.
    /// @param move `(from << 16) | (to << 8) | promotion`, raw bytes.
    /// @return The 128-byte state after the move.
    function play(bytes memory state, uint24 move) external pure returns (bytes memory) {
        _requireValid(state);
        return ChessRules.play(state, move);
    }

    /// @notice Game status for the side to move (ENCODING.md section 8).
    /// @param state A valid 128-byte state.
    /// @return 0 ongoing, 1 checkmate, 2 stalemate, 3 insufficient material, 4 seventy-five moves.
    function status(bytes memory state) external pure returns (uint8) {
        _requireValid(state);
        return uint8(ChessRules.status(state));
    }

    /// @notice Whether one side has insufficient mating material (ENCODING.md section 8).
    /// @param state A valid 128-byte state.
    /// @param white True for white, false for black.
    /// @return True if that side cannot mate by any sequence of legal moves (shakmaty semantics).
    function insufficientMaterial(bytes memory state, bool white) external pure returns (bool) {
        _requireValid(state);
        return ChessRules.insufficientMaterial(state, white ? int256(1) : -1);
    }

    /// @notice Repetition key of a position (ENCODING.md section 9).
    /// @param state A valid 128-byte state.
    /// @return keccak256 of the state with counters zeroed and the en-passant byte
    /// zeroed unless an en-passant capture is legal.
    function repetitionKey(bytes memory state) external pure returns (bytes32) {
        _requireValid(state);
        return ChessRules.repetitionKey(state);
    }

    /// @notice Every legal move of the side to move, found by checking each move of
    /// each of its pieces with `check` (for conformance testing and front ends; gas-heavy).
    /// @param state A valid 128-byte state.
    /// @return moves Packed moves `(from << 16) | (to << 8) | promotion`, by from then to square.
    function legalMoves(bytes memory state) external pure returns (uint24[] memory moves) {
        _requireValid(state);
        bool white = ChessRules.whiteToMove(state);
        // A valid state may hold any number of pieces (section 7 bounds only the kings),
        // so the list is sized by the side's pieces: no piece has more than
        // MAX_MOVES_PER_PIECE moves (a queen on an empty board; a promoting pawn has at
        // most 3 targets x 4 pieces, a king 8 steps + 2 castlings).
        uint256 pieces;
        for (uint256 sq = 0; sq < 120; ++sq) {
            if (sq & 8 == 0 && _own(state, sq, white)) ++pieces;
        }
        moves = new uint24[](pieces * MAX_MOVES_PER_PIECE);
        uint256 n;
        for (uint256 from = 0; from < 120; ++from) {
            if (from & 8 != 0 || !_own(state, from, white)) continue;
            for (uint256 to = 0; to < 120; ++to) {
                if (to & 8 != 0) continue;
                uint256 move = (from << 16) | (to << 8);
                uint256 code = ChessRules.check(state, move);
                if (code == 0) {
                    moves[n++] = uint24(move);
                } else if (code == ChessRules.PROMOTION_REQUIRED) {
                    for (uint256 promotion = 2; promotion <= 5; ++promotion) {
                        if (ChessRules.check(state, move | promotion) == 0) moves[n++] = uint24(move | promotion);
                    }
                }
            }
        }
        assembly ("memory-safe") {
            mstore(moves, n) // shrink to the moves found
        }
    }

    /// @dev Whether square `sq` holds a piece of `white` (or black).
    function _own(bytes memory state, uint256 sq, bool white) private pure returns (bool) {
        int8 piece = int8(uint8(state[sq]));
        return white ? piece > 0 : piece < 0;
    }

    function _requireValid(bytes memory state) private pure {
        uint256 code = ChessRules.validateState(state);
        if (code != 0) revert InvalidState(uint8(code));
    }
}
