// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";

/// @notice Move generation through `check` against published perft counts
/// (chessprogramming wiki positions and the shakmaty / python-chess / scalachess
/// tricky suites). Each legal-move list asks `check` about every (own piece,
/// square) pair, so a wrong code anywhere shows up as a wrong count.
contract ChessRulesPerftTest is Test {
    function _perft(string memory fen, uint256 depth, uint256 expected) internal pure {
        bytes memory s = K.fen(fen);
        assertEq(ChessRules.validateState(s), 0, "fixture state valid");
        assertEq(K.perft(s, depth), expected, fen);
    }

    function test_Perft_StartDepth2() public pure {
        _perft("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 2, 400);
    }

    function test_Perft_KiwipeteDepth2() public pure {
        _perft("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2, 2039);
    }

    function test_Perft_Position3Depth3() public pure {
        _perft("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3, 2812);
    }

    function test_Perft_Position4Depth2() public pure {
        _perft("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 2, 264);
    }

    function test_Perft_Position4MirroredDepth2() public pure {
        _perft("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 2, 264);
    }

    function test_Perft_Position5Depth2() public pure {
        _perft("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 2, 1486);
    }

    function test_Perft_Position6Depth2() public pure {
        _perft("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 2, 2079);
    }

    function test_Perft_EnPassantEvasionDepth3() public pure {
        _perft("8/8/8/5k2/3p4/8/4P3/4K3 w - - 0 1", 3, 343);
    }

    function test_Perft_KingWalkDepth2() public pure {
        _perft("8/8/8/B2p3Q/2qPp1P1/b7/2P2PkP/4K2R b K - 0 1", 2, 611);
    }

    function test_Perft_AlignDiagonal1Depth2() public pure {
        _perft("3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - - 0 1", 2, 125);
    }

    function test_Perft_AlignDiagonal2Depth3() public pure {
        _perft("2Nq4/2K5/1b6/8/7R/3k4/7P/8 w - - 0 1", 3, 1217);
    }

    function test_Perft_AlignHorizontalDepth3() public pure {
        _perft("5R2/2P5/8/4k3/8/3rK2r/8/8 w - - 0 1", 3, 1030);
    }

    function test_Perft_AlignEnPassantDepth3() public pure {
        _perft("8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1", 3, 711);
    }

    function test_Perft_AlignEnPassantPinnedDepth3() public pure {
        _perft("1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1", 3, 555);
    }

    function test_Perft_EnPassantUnrelatedCheckDepth2() public pure {
        _perft("rnbqk1nr/bb3p1p/1q2r3/2pPp3/3P4/7P/1PP1NpPP/R1BQKBNR w KQkq c6 0 1", 2, 92);
    }

    function test_Perft_TwoPawnCheckersDepth2() public pure {
        _perft("1rrrrrk1/1PPPPPPP/8/8/8/8/8/6K1 b - - 0 1", 2, 131);
    }

    function test_Perft_TwoStepperCheckersDepth2() public pure {
        _perft("1q4k1/3r1Ppp/5NP1/pP6/8/1Q6/3B4/2K2R2 b - - 0 1", 2, 98);
    }

    function test_Perft_MaxLegalsDepth1() public pure {
        _perft("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1", 1, 218);
    }

    function test_Perft_GottaLovePerft1Depth2() public pure {
        _perft("8/ppp3p1/8/8/3p4/5Q2/1ppp2K1/brk4n w - - 0 1", 2, 390);
    }

    function test_Perft_GottaLovePerft2Depth2() public pure {
        _perft("8/6kR/8/8/8/bq6/1rqqqqqq/K1nqnbrq b - - 0 1", 2, 52);
    }
}
