// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";

/// @notice Random games and random raw moves: legal moves keep the state valid,
/// illegal ones never change it, and the library's own "any legal move?" search
/// (status) and en-passant test (repetition key) agree with a brute-force move list.
contract ChessRulesFuzzTest is Test {
    function _positions() internal pure returns (bytes[] memory p) {
        p = new bytes[](8);
        p[0] = ChessRules.initialState();
        p[1] = K.fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        p[2] = K.fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
        p[3] = K.fen("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1");
        p[4] = K.fen("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8");
        p[5] = K.fen("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1");
        p[6] = K.fen("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1");
        p[7] = K.fen("1rrrrrk1/1PPPPPPP/8/8/8/8/8/6K1 b - - 0 1");
    }

    /// @dev A raw move biased towards interesting bytes: mostly on-board squares, sometimes
    /// anything; promotion mostly 0, sometimes any byte.
    function _rawMove(uint256 seed) internal pure returns (uint256) {
        uint256 from = uint8(seed);
        uint256 to = uint8(seed >> 8);
        uint256 promotion = uint8(seed >> 16);
        if ((seed >> 24) % 4 != 0) {
            from &= 0x77;
            to &= 0x77;
        }
        if ((seed >> 32) % 4 != 0) promotion = (seed >> 40) % 4 == 0 ? promotion % 6 : 0;
        return (from << 16) | (to << 8) | promotion;
    }

    function testFuzz_IllegalMoveNeverChangesState(uint256 which, uint256 seed) public pure {
        bytes[] memory p = _positions();
        bytes memory s = p[which % p.length];
        uint256 move = _rawMove(seed);
        uint256 code = ChessRules.check(s, move);
        bytes memory copy = bytes.concat(s);
        assertEq(ChessRules.applyMove(copy, move), code, "applyMove and check agree");
        if (code != 0) {
            assertEq(copy, s, "illegal move left the state unchanged");
        } else {
            assertEq(copy, ChessRules.play(s, move), "applyMove and play agree");
            assertEq(ChessRules.validateState(copy), 0, "legal move keeps the state valid");
        }
    }

    function testFuzz_CheckCodeInRange(uint256 which, uint24 move) public pure {
        bytes[] memory p = _positions();
        uint256 code = ChessRules.check(p[which % p.length], move);
        assertLe(code, 14);
    }

    /// forge-config: default.fuzz.runs = 24
    function testFuzz_RandomGameStaysValid(uint256 seed) public pure {
        bytes memory s = ChessRules.initialState();
        for (uint256 ply = 0; ply < 40; ++ply) {
            assertEq(ChessRules.validateState(s), 0, "state valid");
            uint256[] memory legal = K.legalMoves(s);
            uint256 st = ChessRules.status(s);
            // status 1/2 exactly when the brute-force list is empty
            assertEq(st == ChessRules.CHECKMATE || st == ChessRules.STALEMATE, legal.length == 0, "status vs move list");
            _assertKeyMatchesMoveList(s, legal);
            if (st != ChessRules.ONGOING) return;
            seed = uint256(keccak256(abi.encode(seed, ply)));
            // an illegal raw move must not change anything
            uint256 raw = _rawMove(seed >> 64);
            uint256 code = ChessRules.check(s, raw);
            bytes memory copy = bytes.concat(s);
            assertEq(ChessRules.applyMove(copy, raw), code);
            if (code != 0) assertEq(copy, s);
            // play a random legal move in place
            uint256 move = legal[seed % legal.length];
            assertEq(ChessRules.applyMove(s, move), 0, "listed move is legal");
        }
    }

    /// @dev The repetition key keeps the en-passant byte iff the move list holds a pawn capture onto it.
    function _assertKeyMatchesMoveList(bytes memory s, uint256[] memory legal) internal pure {
        bool white = s[56] == 0x01;
        uint256 epIndex = white ? 61 : 77;
        uint256 ep = uint8(s[epIndex]);
        bool capture;
        if (ep != 0) {
            for (uint256 i = 0; i < legal.length; ++i) {
                uint256 from = (legal[i] >> 16) & 0xff;
                int8 piece = int8(uint8(s[from]));
                if (((legal[i] >> 8) & 0xff) == ep && (piece == 1 || piece == -1)) capture = true;
            }
        }
        bytes memory z = K.with(K.with(K.with(s, 8, 0), 9, 0), 10, 0);
        if (!capture) z = K.with(z, epIndex, 0);
        assertEq(ChessRules.repetitionKey(s), keccak256(z), "repetition key");
    }
}
