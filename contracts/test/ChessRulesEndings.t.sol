// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";

/// @notice Differential cases: mates, stalemates and checks with few answers, taken
/// from random games played by python-chess 1.11.2, with its status and legal-move
/// count. Exercises the in-check branches of the status search (king moves first,
/// then blocks and captures of a single checker, king-only under double check).
contract ChessRulesEndingsTest is Test {
    struct Case {
        string fen;
        uint256 status;
        uint256 legalMoves;
    }

    function _cases() internal pure returns (Case[] memory c) {
        c = new Case[](65);
        c[0] = Case("2Q1k1nr/4pp2/1p5p/3p3b/4PP2/P1p4N/2P3PP/5K1R b k - 0 21", 1, 0);
        c[1] = Case("5b2/2p1p1p1/2np1n1r/6Np/5P1P/2P1k1P1/1P6/q3K2R w K - 6 25", 1, 0);
        c[2] = Case("R1b5/3k4/1p6/4Q1N1/1b1p4/8/2P1P3/1q1K4 w - - 0 33", 1, 0);
        c[3] = Case("8/8/8/3kBKP1/1N1P4/N7/8/8 b - - 6 45", 1, 0);
        c[4] = Case("2Q1k3/5p2/3p1P2/2RP2b1/6P1/7P/4K3/6NR b - - 0 32", 1, 0);
        c[5] = Case("8/8/8/6p1/6P1/1k6/3p4/K1r5 w - - 1 67", 1, 0);
        c[6] = Case("rnb1kbnr/1p1pp2p/p7/5pp1/8/5PqP/PPPPP1P1/R1BQKBNR w KQkq - 1 6", 1, 0);
        c[7] = Case("rn4n1/2b2p1r/ppp4p/6p1/2PR1kP1/PP3N2/4K2P/7R b - - 3 24", 1, 0);
        c[8] = Case("8/8/5K1k/p7/6B1/P7/8/7R b - - 1 49", 1, 0);
        c[9] = Case("8/2k5/8/1P3P2/4b3/8/2q5/2K5 w - - 1 60", 1, 0);
        c[10] = Case("2rk3R/R4pp1/8/5P2/6P1/4P1P1/8/3K4 b - - 4 33", 1, 0);
        c[11] = Case("8/1bk5/8/2pp2pp/4P3/3n3P/6PR/5r1K w - - 2 30", 1, 0);
        c[12] = Case("rnbqkbnr/ppppp3/6Q1/6p1/4p3/7P/PPPP1PP1/RNB1KBNR b KQkq - 1 5", 1, 0);
        c[13] = Case("1nbqkbnr/1pppp2p/5p2/6pQ/3PP3/7P/RPPN1PP1/2B1K1NR b Kk - 1 7", 1, 0);
        c[14] = Case("3r4/p7/1k5P/8/2n5/5P2/1q6/2K5 w - - 4 40", 1, 0);
        c[15] = Case("4r1k1/p1p5/8/5P1p/1b1Kq3/2P3P1/P6P/R2R4 w - - 2 26", 1, 0);
        c[16] = Case("2q1k2R/r1p1p3/pp2P3/8/P4P2/R1N5/1P6/5K2 b - - 4 24", 1, 0);
        c[17] = Case("5K1r/8/5k2/8/8/8/8/8 w - - 14 82", 1, 0);
        c[18] = Case("2rqkbnr/pbpnp1p1/1p4Q1/3p4/P7/2P4N/1P1PPPPP/RNB1KB1R b KQk - 2 7", 1, 0);
        c[19] = Case("rn2kbnr/ppp2ppp/3p4/4p3/2P4q/1P3P1P/P2PP2P/RNBQKB1R w KQkq - 1 6", 1, 0);
        c[20] = Case("rnb1kbnr/pp3pp1/3pp3/2p4p/8/PP3PqP/R1PPP3/1NBQKBNR w Kkq - 0 7", 1, 0);
        c[21] = Case("rnb1k2r/pp1p1p1p/4pn2/6p1/1P6/7P/PP1PPPP1/RNq1KBNR w KQkq - 0 7", 1, 0);
        c[22] = Case("8/8/6B1/3PQ3/8/1P1k4/3P3P/2B3K1 b - - 3 55", 1, 0);
        c[23] = Case("8/p2p4/6p1/P3p3/1Pb1k1n1/8/3B3r/4Kr2 w - - 1 49", 1, 0);
        c[24] = Case("q5R1/p1pkb3/2bp3p/1p6/8/2PP3B/PP2PP1P/RN2K3 b Q - 2 16", 1, 0);
        c[25] = Case("5k1K/7P/8/8/4p3/1p2p3/8/8 w - - 0 63", 2, 0);
        c[26] = Case("8/8/2k5/8/5b2/8/2q5/K7 w - - 6 110", 2, 0);
        c[27] = Case("8/6Q1/8/7k/8/7K/8/8 b - - 10 104", 2, 0);
        c[28] = Case("8/2b1k3/2p2n1r/5Kp1/8/7n/8/8 w - - 26 51", 2, 0);
        c[29] = Case("8/8/p7/bp2k1p1/4r1p1/6K1/3r4/8 w - - 5 63", 2, 0);
        c[30] = Case("3k2K1/3r4/6n1/8/8/8/8/8 w - - 4 53", 2, 0);
        c[31] = Case("7k/8/1P6/4KB2/3P4/p4NR1/P7/6N1 b - - 1 53", 2, 0);
        c[32] = Case("8/8/8/8/1K6/8/k7/2Q5 b - - 4 70", 2, 0);
        c[33] = Case("8/2K5/1N6/3Bk3/7P/p1P5/P1P2R2/1R6 b - - 1 54", 2, 0);
        c[34] = Case("3k4/4R3/P4K2/8/6B1/8/8/8 b - - 0 70", 2, 0);
        c[35] = Case("1r6/6n1/p4b2/p7/3k1q2/8/4K3/7r w - - 0 45", 2, 0);
        c[36] = Case("1r6/p7/K1n3k1/P2p4/2p1p3/8/2r5/8 w - - 5 47", 2, 0);
        c[37] = Case("n5k1/8/8/7p/8/6q1/1p6/7K w - - 0 89", 2, 0);
        c[38] = Case("8/k1N4K/8/1R6/2P5/3P2B1/1p6/1N6 b - - 17 64", 2, 0);
        c[39] = Case("8/8/5B2/6p1/PPk3P1/4K3/1R6/3R4 b - - 0 38", 2, 0);
        c[40] = Case("3q2K1/8/8/8/8/7k/8/8 w - - 16 86", 0, 3);
        c[41] = Case("6q1/6K1/8/8/8/5k2/8/8 w - - 32 94", 0, 3);
        c[42] = Case("rnb1kb1r/pp1ppppp/5n2/2P5/1QP5/P2P3P/4qPP1/RNB1KBNR w KQkq - 0 9", 0, 3);
        c[43] = Case("rnbk1b1r/pp1ppp1p/5n2/Q1P3p1/P1P5/3P3P/4BPP1/RNB1K1NR b KQ - 2 11", 0, 2);
        c[44] = Case("r1b2b2/3k1p2/2P1pn2/BP1p4/P7/2KP4/5rP1/RN4NR b - - 0 23", 0, 3);
        c[45] = Case("2b5/4kpb1/2P1p3/1P1p3R/r3P3/8/K5P1/RN4N1 w - - 0 30", 0, 2);
        c[46] = Case("2b2bk1/2P5/8/1P1p4/K5rN/8/8/8 w - - 4 43", 0, 2);
        c[47] = Case("1Bb5/8/8/K6k/3p4/8/r7/8 w - - 1 57", 0, 3);
        c[48] = Case("rnbqkbnr/ppppp1p1/8/5p1Q/P7/4P3/1PPP1PPP/RNB1KBNR b KQkq - 0 3", 0, 2);
        c[49] = Case("7k/8/2N2B2/7K/3P4/1P6/8/8 b - - 6 69", 0, 2);
        c[50] = Case("r4br1/3kpppp/8/2Q1Nn2/p2PP3/N2K3P/3P1P1P/R6R b - - 4 19", 0, 3);
        c[51] = Case("8/8/6Q1/3p4/3P4/8/3k4/1K5q w - - 0 69", 0, 3);
        c[52] = Case("4kb1r/2p3pp/3p1p1n/p7/5P1P/5B1N/8/1b2q1KR w k - 1 26", 0, 2);
        c[53] = Case("4kb1r/2p3pp/3p1p2/p7/5PnP/7N/7K/1b5B w k - 1 28", 0, 3);
        c[54] = Case("4k2r/2p3pp/5p2/p1bp2N1/5PnP/3b4/8/6KB w k - 4 31", 0, 1);
        c[55] = Case("4kN2/2p3p1/5p2/pb1p1P2/6n1/6K1/5b1r/7B w - - 3 36", 0, 3);
        c[56] = Case("2b1k2r/1p1n3p/4p3/r4p1P/2p5/P1b3PN/4PP2/RN2KB1R w KQk - 0 15", 0, 3);
        c[57] = Case("rn1qk3/2p1p3/B4n2/3p4/P2PP3/2N5/1P1b2r1/RN1QK3 w Qq - 1 20", 0, 3);
        c[58] = Case("1N6/2n3k1/8/P1n1P3/8/8/5b2/4qK2 w - - 1 38", 0, 1);
        c[59] = Case("r1bqkbnr/pppBpppp/3p4/8/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 0 3", 0, 3);
        c[60] = Case("r3kbnr/pppb1p1p/4p3/6p1/7P/2N2PP1/PPPP4/RNBQK1qR w KQkq - 1 11", 0, 2);
        c[61] = Case("1r3bn1/pbp2p2/4p3/1N4P1/1k6/8/PP6/R5BK w - - 6 35", 0, 1);
        c[62] = Case("2b5/8/R3p1N1/2k5/8/8/8/2r4K w - - 1 50", 0, 2);
        c[63] = Case("2b2N2/8/R7/2k1p3/8/8/7K/7r w - - 2 52", 0, 3);
        c[64] = Case("r1q1k1Rr/ppp1p3/2np1p2/8/8/1P2P3/P1PP4/RNBQK1N1 b Qkq - 0 11", 0, 3);
    }

    function test_Endings_StatusMatchesPythonChess() public pure {
        Case[] memory c = _cases();
        for (uint256 i = 0; i < c.length; ++i) {
            bytes memory s = K.fen(c[i].fen);
            assertEq(ChessRules.validateState(s), 0, c[i].fen);
            assertEq(ChessRules.status(s), c[i].status, c[i].fen);
        }
    }

    function test_Endings_LegalMoveCountMatchesPythonChess() public pure {
        Case[] memory c = _cases();
        for (uint256 i = 0; i < c.length; ++i) {
            assertEq(K.legalMoves(K.fen(c[i].fen)).length, c[i].legalMoves, c[i].fen);
        }
    }
}
