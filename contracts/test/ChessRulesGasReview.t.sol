// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test, Vm} from "./utils/Test.sol";
import {ChessRules, IllegalMove} from "../src/ChessRules.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {Outcome} from "../src/Outcome.sol";
import {RepetitionChain} from "../src/RepetitionChain.sol";
import {ChessRulesOld as Old} from "./rules/ChessRulesOld.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";
import {RealGames} from "./ChessRefereeGames.t.sol";
import {RefereeBase} from "./ChessRefereeBase.t.sol";

/// @notice Positions and move generators shared by the two review suites below.
abstract contract GasReviewFixtures {
    /// @dev Hand-made attack positions (all pass section 7), each aimed at one shortcut of
    /// the issue 19 change: the gives-check test from the moved piece and the line it left,
    /// the pin test, the free pawn step, insufficient material a word at a time.
    function _tricky() internal pure returns (string[36] memory f) {
        f[0] = "3qkr2/3p1p2/8/8/4N3/8/8/K3R3 w - - 0 1"; // Nd6: discovered double-check mate; Nc5 single
        f[1] = "k7/8/8/8/8/8/K7/R7 w - - 0 1"; // the king steps off its rook's file
        f[2] = "7k/8/8/8/8/2K5/8/B7 w - - 0 1"; // the king steps off its bishop's diagonal
        f[3] = "8/8/8/8/8/8/R1P4k/K7 w - - 0 1"; // c2c4 (double step) uncovers the rook on rank 2
        f[4] = "4k3/8/8/3p4/4P3/8/8/K3R3 w - - 0 1"; // exd5 uncovers the rook on the e-file
        f[5] = "k2r4/8/8/8/8/3p4/4N3/3K4 b - - 0 1"; // dxe2: black pawn check plus discovered rook
        f[6] = "8/4P3/3k4/8/8/8/8/K7 w - - 0 1"; // e8=N+ (knight check), e8=B (none)
        f[7] = "7k/P5pp/8/8/8/8/8/K7 w - - 0 1"; // a8=Q#, a8=R#, a8=N/B no check
        f[8] = "2r5/RP5k/8/8/8/8/8/K7 w - - 0 1"; // bxc8=N uncovers the rook on rank 7
        f[9] = "8/8/8/R2pP2k/8/8/8/K7 w - d6 0 1"; // exd6 e.p. uncovers a rank check on the enemy king
        f[10] = "8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1"; // exd6 e.p. exposes the own king along the rank
        f[11] = "6k1/8/8/3pP3/8/8/B7/K7 w - d6 0 1"; // exd6 e.p. uncovers a diagonal check
        f[12] = "8/8/8/8/2Pp4/8/3K4/k7 b - c3 0 1"; // black dxc3 e.p. checks
        f[13] = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"; // castling both ways, both sides
        f[14] = "5k2/8/8/8/8/8/8/4K2R w K - 0 1"; // O-O gives check on the f-file
        f[15] = "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1"; // O-O-O gives check on the d-file
        f[16] = "r3k3/8/8/8/8/8/8/3K4 b q - 0 1"; // black O-O-O gives check
        f[17] = "4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1"; // castling out of check (10)
        f[18] = "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1"; // castling through check (11)
        f[19] = "4k3/8/8/8/8/8/6r1/R3K2R w KQ - 0 1"; // castling into check (14)
        f[20] = "8/8/8/3k4/8/3K4/8/8 w - - 0 1"; // kings one square apart
        f[21] = "k7/8/8/2Q5/8/8/8/K7 w - - 0 1"; // Qb6 stalemates
        f[22] = "k7/1n4p1/NK4P1/8/8/8/7P/7B w - - 0 1"; // h3: stalemate, pinned knight, blocked pawn
        f[23] = "7k/7p/5b1P/8/3B4/1K6/8/R7 w - - 0 1"; // Ra8#: the only blocker is pinned
        f[24] = "8/8/4k3/8/3r4/2B5/1b6/7K w - - 0 1"; // Bxd4: K+B v K+B on one colour
        f[25] = "8/8/4k3/8/3r4/1bB5/8/7K w - - 0 1"; // Bxd4: bishops on both colours
        f[26] = "8/8/4k3/3r4/8/2N5/8/K7 w - - 0 1"; // Nxd5: K+N v K
        f[27] = "8/8/4k3/3r4/8/2N5/7q/K7 w - - 0 1"; // Nxd5: K+N v K+Q (not both insufficient)
        f[28] = "4k3/6p1/8/8/4N3/8/8/K3R3 w - - 0 1"; // Nf6: double check; then gxf6 is refused
        f[29] = "4k3/8/3N4/8/8/8/3r4/K3R3 b - - 0 1"; // custom start in double check
        f[30] = "7k/8/8/8/8/8/8/K5R1 w - - 149 80"; // any quiet move: seventy-five moves
        f[31] = "7k/8/6K1/8/8/8/8/R7 w - - 149 80"; // Ra8#: mate beats seventy-five moves
        f[32] = "8/8/8/8/8/8/1p5k/3K4 b - - 0 1"; // b1=Q+ (black promotion check along rank 1)
        f[33] = "k7/8/8/8/8/8/8/K1b1b1b1 w - - 0 1"; // three dark bishops: insufficient
        f[34] = "1rrrrrk1/1PPPPPPP/8/8/8/8/8/6K1 b - - 0 1"; // promotions everywhere
        f[35] = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"; // perft 3: e.p. and rank pins
    }

    /// @dev Perft positions 2, 4 and 5 and a symmetric middlegame with pins on both sides.
    function _classic() internal pure returns (string[4] memory f) {
        f[0] = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        f[1] = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
        f[2] = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
        f[3] = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";
    }

    function _games() internal pure returns (string[6] memory g) {
        g[0] = RealGames.caruanaPichot2017();
        g[1] = RealGames.mvlCaruana2019();
        g[2] = RealGames.kosteniukGlavina2023();
        g[3] = RealGames.caruanaMvl2019();
        g[4] = RealGames.nakamuraMvl2018();
        g[5] = RealGames.engineThreefold();
    }

    /// @dev A start state: a tricky position, a perft position, or a real game after a
    /// random number of its plies (played with the OLD library).
    function _startState(uint256 seed) internal pure returns (bytes memory s) {
        uint256 pick = seed % 3;
        seed >>= 8;
        if (pick == 0) return K.fen(_tricky()[seed % 36]);
        if (pick == 1) return K.fen(_classic()[seed % 4]);
        uint256[] memory line = K.parseLine(_games()[seed % 6]);
        uint256 plies = (seed >> 8) % line.length;
        s = Old.initialState();
        for (uint256 i; i < plies; ++i) {
            require(Old.applyMove(s, line[i]) == 0, "real game replays");
        }
    }

    /// @dev The squares of the side to move's pieces.
    function _ownSquares(bytes memory s) internal pure returns (uint256[] memory sq) {
        uint256[] memory buf = new uint256[](64);
        uint256 n;
        bool white = s[56] == 0x01;
        for (uint256 i; i < 120; ++i) {
            if (i & 8 != 0) continue;
            int8 v = int8(uint8(s[i]));
            if (v != 0 && (v > 0) == white) buf[n++] = i;
        }
        sq = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            sq[i] = buf[i];
        }
    }

    /// @dev A raw move of a piece of the side to move (usually), with junk now and then:
    /// off-board bytes (0x08, 0x88, 0x7f, 0xff, ...), promotion bytes outside 2..5, and
    /// dirty bits above the 24 the library reads.
    function _candidate(bytes memory s, uint256[] memory own, uint256 seed) internal pure returns (uint256 mv) {
        uint256 from = own.length == 0 ? uint8(seed) : own[(seed >> 8) % own.length];
        uint256 to = uint8(seed >> 16) & 0x77;
        uint256 promotion;
        uint256 r = (seed >> 24) % 16;
        if (r == 0) from = uint8(seed >> 32); // any byte
        else if (r == 1) to = uint8(seed >> 40); // any byte
        else if (r == 2) to = to | 0x08; // shadow column
        // a pawn about to promote: promote (usually to a legal piece)
        int8 v = int8(uint8(s[from & 0x7f]));
        if ((v == 1 && (to >> 4) == 0) || (v == -1 && (to >> 4) == 7)) promotion = 2 + (seed >> 48) % 4;
        uint256 p = (seed >> 56) % 8;
        if (p == 0) promotion = uint8(seed >> 64); // any byte
        else if (p == 1) promotion = (seed >> 72) % 7; // 0..6
        mv = (from << 16) | (to << 8) | promotion;
        if ((seed >> 80) % 4 == 0) mv |= (seed >> 88) << 24; // dirty high bits
    }
}

/// @notice Differential review of the issue 19 gas change (commit 0583df0) against a frozen
/// earlier library (`ChessRulesOld`, df4c015~1: before both gas rewrites of the rules, so
/// independent of either): every crafted attack and every fuzzed
/// (state, move) must give the same code, after-state, check flag, status, repetition key
/// and material verdicts, and `playMove` must leave memory alone.
contract ChessRulesGasReviewTest is Test, GasReviewFixtures {
    // ================================================================ the differential

    /// @dev Old vs new on `(s, mv)`; returns the (common) code. `s` is not modified.
    function _diff(bytes memory s, uint256 mv) internal pure returns (uint256 code) {
        bytes memory a = bytes.concat(s);
        bytes memory b = bytes.concat(s);
        bytes memory c = bytes.concat(s);
        code = Old.applyMove(a, mv);
        (uint256 newCode, bool givesCheck) = ChessRules.playMove(b, mv);
        assertEq(newCode, code, "playMove code");
        assertEq(ChessRules.applyMove(c, mv), code, "applyMove code");
        assertEq(ChessRules.check(s, mv), code, "check code");
        assertEq(b, a, "playMove after-state");
        assertEq(c, a, "applyMove after-state");
        if (code != 0) {
            assertFalse(givesCheck, "no check flag on a refused move");
            return code;
        }
        _diffPosition(a, b, givesCheck);
    }

    /// @dev Old vs new on a position reached by a legal move: `a` (old) and `b` (new) equal,
    /// `givesCheck` from `playMove`.
    function _diffPosition(bytes memory a, bytes memory b, bool givesCheck) internal pure {
        assertEq(givesCheck, Old.sideToMoveInCheckForTest(a), "gives check");
        uint256 st = Old.status(a);
        assertEq(ChessRules.statusInCheck(b, givesCheck), st, "statusInCheck (referee path)");
        assertEq(ChessRules.status(b), st, "status");
        assertEq(b, a, "status leaves the state alone");
        _diffMaterial(a);
        assertEq(ChessRules.repetitionKey(b), Old.repetitionKey(a), "repetition key");
    }

    function _diffMaterial(bytes memory s) internal pure {
        assertEq(ChessRules.bothInsufficient(s), Old.bothInsufficient(s), "bothInsufficient");
        assertEq(ChessRules.insufficientMaterial(s, 1), Old.insufficientMaterial(s, 1), "insufficient white");
        assertEq(ChessRules.insufficientMaterial(s, -1), Old.insufficientMaterial(s, -1), "insufficient black");
    }

    /// @dev Status of a (valid) start position, old vs new, both ways new can be asked.
    function _diffStart(bytes memory s) internal pure returns (uint256 st) {
        st = Old.status(s);
        assertEq(ChessRules.status(s), st, "start status");
        assertEq(ChessRules.statusInCheck(s, Old.sideToMoveInCheckForTest(s)), st, "start statusInCheck");
        _diffMaterial(s);
        assertEq(ChessRules.repetitionKey(s), Old.repetitionKey(s), "start repetition key");
    }

    /// @dev `_diff` of one UCI move of a FEN, asserting the expected code.
    function _diffUci(string memory fen, string memory uci, uint256 expectCode) internal pure returns (bytes memory s) {
        s = K.fen(fen);
        assertEq(Old.validateState(s), 0, "attack position is a valid custom start");
        assertEq(_diff(s, K.uci(uci)), expectCode, "expected code");
        if (expectCode == 0) Old.applyMove(s, K.uci(uci));
    }

    /// @dev `_diffUci` of a legal move, then the expected check flag and status of the result.
    function _expect(string memory fen, string memory uci, bool inCheck, uint256 st) internal pure {
        bytes memory s = _diffUci(fen, uci, 0);
        bytes memory t = K.fen(fen);
        (uint256 code, bool givesCheck) = ChessRules.playMove(t, K.uci(uci));
        assertEq(code, 0);
        assertEq(t, s);
        assertEq(givesCheck, inCheck, "expected check flag");
        assertEq(ChessRules.statusInCheck(t, givesCheck), st, "expected status");
    }

    /// @dev Every move of every piece of the side to move (64 targets, promotions 0/2-5
    /// and junk for the code-12 ones), plus a few junk moves; old vs new on each.
    function _allMoves(bytes memory s) internal pure returns (uint256 legal) {
        uint256[] memory own = _ownSquares(s);
        for (uint256 i; i < own.length; ++i) {
            for (uint256 to; to < 120; ++to) {
                if (to & 8 != 0) continue;
                uint256 mv = (own[i] << 16) | (to << 8);
                uint256 code = _diff(s, mv);
                if (code == 0) ++legal;
                if (code == ChessRules.PROMOTION_REQUIRED || code == ChessRules.INVALID_PROMOTION) {
                    for (uint256 p = 1; p <= 6; ++p) {
                        if (_diff(s, mv | p) == 0) ++legal;
                    }
                    _diff(s, mv | 0xff);
                    _diff(s, mv | 0x85);
                }
            }
            // off-board and shadow targets, junk promotion on an ordinary move
            _diff(s, (own[i] << 16) | (0x08 << 8));
            _diff(s, (own[i] << 16) | (0x88 << 8));
            _diff(s, (own[i] << 16) | (0x7f << 8));
            _diff(s, (own[i] << 16) | (0xff << 8));
            _diff(s, (own[i] << 16) | ((own[i] ^ 0x10) << 8) | 0xff);
        }
        _diff(s, 0x080000);
        _diff(s, 0x880000);
        _diff(s, 0x7f7f00);
        _diff(s, type(uint256).max);
    }

    // ================================================================ gives-check attacks

    function test_DiscoveredDoubleCheckMate_KnightLeavesRookFile() public pure {
        _expect(_tricky()[0], "e4d6", true, ChessRules.CHECKMATE);
    }

    function test_DiscoveredSingleCheckMate_KnightLeavesBackRank() public pure {
        // only the rook behind the knight checks: the line through the vacated square
        _expect("R2N3k/6pp/8/8/8/8/8/K7 w - - 0 1", "d8e6", true, ChessRules.CHECKMATE);
    }

    function test_DiscoveredSingleCheck_KnightLeavesRookFile() public pure {
        _expect(_tricky()[0], "e4c5", true, ChessRules.ONGOING);
    }

    function test_DiscoveredCheck_KingStepsOffRookFile() public pure {
        _expect(_tricky()[1], "a2b3", true, ChessRules.ONGOING);
    }

    function test_DiscoveredCheck_KingStepsOffBishopDiagonal() public pure {
        // K+B v K: the check is found and the status is insufficient material, not ongoing
        _expect(_tricky()[2], "c3c4", true, ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_DiscoveredCheck_PawnDoubleStepUncoversRank() public pure {
        _expect(_tricky()[3], "c2c4", true, ChessRules.ONGOING);
    }

    function test_DiscoveredCheck_PawnCaptureUncoversFile() public pure {
        _expect(_tricky()[4], "e4d5", true, ChessRules.ONGOING);
    }

    function test_BlackPawnCaptureChecksAndUncoversRook() public pure {
        _expect(_tricky()[5], "d3e2", true, ChessRules.ONGOING);
    }

    function test_PawnDoubleStepGivesCheck() public pure {
        _expect("8/8/8/5k2/8/8/4P3/K7 w - - 0 1", "e2e4", true, ChessRules.ONGOING);
    }

    function test_BlackPawnStepGivesCheck() public pure {
        _expect("k7/8/8/8/8/3p4/8/4K3 b - - 0 1", "d3d2", true, ChessRules.ONGOING);
    }

    function test_PawnBesideKingOnEdgeGivesNoCheck() public pure {
        // a pawn on the h-file and a king on the a-file one row up: 0x88 must not wrap
        _expect("8/8/8/8/k7/8/7P/K7 w - - 0 1", "h2h3", false, ChessRules.ONGOING);
        _expect("8/8/8/8/8/k7/7P/K7 w - - 0 1", "h2h4", false, ChessRules.ONGOING);
    }

    function test_KnightOnEdgeGivesNoWrappedCheck() public pure {
        // Nh3: h3 + 15/17/31/33 wraps onto the a-file in a plain index, not in 0x88
        _expect("8/8/8/8/8/k7/8/K5N1 w - - 0 1", "g1h3", false, ChessRules.INSUFFICIENT_MATERIAL);
        _expect("8/8/8/8/k7/8/8/K5N1 w - - 0 1", "g1h3", false, ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_PromotionToKnightGivesCheck() public pure {
        _expect(_tricky()[6], "e7e8n", true, ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_PromotionToBishopGivesNoCheck() public pure {
        _expect(_tricky()[6], "e7e8b", false, ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_PromotionToQueenMatesAlongRank() public pure {
        _expect(_tricky()[7], "a7a8q", true, ChessRules.CHECKMATE);
    }

    function test_PromotionToRookMatesAlongRank() public pure {
        _expect(_tricky()[7], "a7a8r", true, ChessRules.CHECKMATE);
    }

    function test_PromotionToKnightOnRankGivesNoCheck() public pure {
        _expect(_tricky()[7], "a7a8n", false, ChessRules.ONGOING);
    }

    function test_PromotionCaptureUncoversRankCheck() public pure {
        _expect(_tricky()[8], "b7c8n", true, ChessRules.ONGOING);
    }

    function test_BlackPromotionChecksAlongRank() public pure {
        _expect(_tricky()[32], "b2b1q", true, ChessRules.ONGOING);
        _expect(_tricky()[32], "b2b1n", false, ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_EnPassantUncoversRankCheckOnEnemyKing() public pure {
        _expect(_tricky()[9], "e5d6", true, ChessRules.ONGOING);
    }

    function test_EnPassantUncoversDiagonalCheck() public pure {
        _expect(_tricky()[11], "e5d6", true, ChessRules.ONGOING);
    }

    function test_BlackEnPassantGivesCheck() public pure {
        _expect(_tricky()[12], "d4c3", true, ChessRules.ONGOING);
    }

    function test_CastlingKingSideGivesCheck() public pure {
        _expect(_tricky()[14], "e1g1", true, ChessRules.ONGOING);
    }

    function test_CastlingQueenSideGivesCheck() public pure {
        _expect(_tricky()[15], "e1c1", true, ChessRules.ONGOING);
    }

    function test_BlackCastlingGivesCheck() public pure {
        _expect(_tricky()[16], "e8c8", true, ChessRules.ONGOING);
    }

    function test_DoubleCheckThenCaptureOfOneCheckerRefused() public pure {
        bytes memory s = _diffUci(_tricky()[28], "e4f6", 0);
        assertEq(_diff(s, K.uci("g7f6")), ChessRules.KING_LEFT_IN_CHECK);
        assertEq(ChessRules.status(s), ChessRules.ONGOING);
    }

    function test_CustomStartInDoubleCheck_OnlyKingMoves() public pure {
        bytes memory s = K.fen(_tricky()[29]);
        assertEq(Old.validateState(s), 0);
        assertEq(_diffStart(s), ChessRules.ONGOING);
        assertEq(_diff(s, K.uci("d2d6")), ChessRules.KING_LEFT_IN_CHECK); // captures one checker
        assertEq(_diff(s, K.uci("d2e2")), ChessRules.KING_LEFT_IN_CHECK); // blocks the other
        assertEq(_diff(s, K.uci("e8f7")), ChessRules.KING_LEFT_IN_CHECK); // the knight covers f7
        assertEq(_diff(s, K.uci("e8f8")), 0);
    }

    // ================================================================ move-check attacks

    function test_EnPassantPinnedAlongRankRefused() public pure {
        _diffUci(_tricky()[10], "e5d6", ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_CastlingOutOfCheckRefused() public pure {
        _diffUci(_tricky()[17], "e1g1", ChessRules.CASTLING_IN_CHECK);
        _diffUci(_tricky()[17], "e1c1", ChessRules.CASTLING_IN_CHECK);
    }

    function test_CastlingThroughCheckRefused() public pure {
        _diffUci(_tricky()[18], "e1g1", ChessRules.CASTLING_THROUGH_CHECK);
    }

    function test_CastlingIntoCheckRefused() public pure {
        _diffUci(_tricky()[19], "e1g1", ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_CastlingWithPromotionByte_CodeOrder() public pure {
        // 10 and 11 come before 13; a castling that passes them with a promotion byte is 13
        bytes memory s = K.fen(_tricky()[17]);
        assertEq(_diff(s, K.uci("e1g1") | 5), ChessRules.CASTLING_IN_CHECK);
        s = K.fen(_tricky()[18]);
        assertEq(_diff(s, K.uci("e1g1") | 2), ChessRules.CASTLING_THROUGH_CHECK);
        assertEq(_diff(s, K.uci("e1c1") | 0xff), ChessRules.INVALID_PROMOTION);
        s = K.fen(_tricky()[19]);
        assertEq(_diff(s, K.uci("e1g1") | 3), ChessRules.INVALID_PROMOTION);
    }

    function test_CastlingRightLostOrRookMissing() public pure {
        bytes memory s = K.fen("4k3/8/8/8/8/8/8/R3K2R w Q - 0 1");
        assertEq(_diff(s, K.uci("e1g1")), ChessRules.CASTLING_NOT_ALLOWED); // right gone
        s = K.fen("4k3/8/8/8/8/8/8/R3KN1R w Q - 0 1");
        assertEq(_diff(s, K.uci("e1g1")), ChessRules.CASTLING_NOT_ALLOWED); // 9 before 7
        s = K.fen("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1");
        assertEq(_diff(s, K.uci("e1c1")), ChessRules.PATH_BLOCKED); // b1 between king and rook
        assertEq(_diff(s, K.uci("e1g1")), 0);
    }

    function test_KingStepNextToEnemyKingRefused() public pure {
        _diffUci(_tricky()[20], "d3d4", ChessRules.KING_LEFT_IN_CHECK);
        _diffUci(_tricky()[20], "d3e4", ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_AdjacentKingsIsNotAValidStart() public pure {
        bytes memory s = K.fen("8/8/8/3kK3/8/8/8/8 w - - 0 1");
        assertEq(ChessRules.validateState(s), Old.validateState(s));
        assertEq(ChessRules.validateState(s), ChessRules.OPPONENT_IN_CHECK);
    }

    function test_PinnedPieceMovesOffLineRefused() public pure {
        // the knight on b7 is pinned by the bishop on h1 (and the free-pawn fast path must not fire)
        bytes memory s = K.fen("k7/1n4p1/NK4P1/8/8/8/7P/7B b - - 0 1");
        assertEq(_diffStart(s), ChessRules.STALEMATE);
        assertEq(_diff(s, K.uci("b7d6")), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_OffBoardAndShadowSquares() public pure {
        bytes memory s = Old.initialState();
        assertEq(_diff(s, K.raw(0x08, 0x20, 0)), ChessRules.OFF_BOARD);
        assertEq(_diff(s, K.raw(0x64, 0x88, 0)), ChessRules.OFF_BOARD);
        assertEq(_diff(s, K.raw(0x7f, 0x64, 0)), ChessRules.OFF_BOARD);
        assertEq(_diff(s, K.raw(0x64, 0xff, 0)), ChessRules.OFF_BOARD);
        assertEq(_diff(s, K.raw(0xe4, 0x44, 0)), ChessRules.OFF_BOARD); // e2 with bit 7 set
        assertEq(_diff(s, K.raw(0x64, 0x4c, 0)), ChessRules.OFF_BOARD); // shadow byte 76
        assertEq(_diff(s, K.raw(0x38, 0x38, 0)), ChessRules.OFF_BOARD); // CURRENT_PLAYER
    }

    function test_DirtyHighBitsIgnored() public pure {
        bytes memory s = Old.initialState();
        uint256 e2e4 = K.uci("e2e4");
        assertEq(_diff(s, e2e4 | (type(uint256).max << 24)), 0);
        assertEq(_diff(s, e2e4 | (1 << 24)), 0);
        assertEq(_diff(s, e2e4 | (1 << 255)), 0);
    }

    function test_JunkPromotionBytes() public pure {
        bytes memory s = K.fen(_tricky()[7]);
        assertEq(_diff(s, K.uci("a7a8")), ChessRules.PROMOTION_REQUIRED);
        assertEq(_diff(s, K.uci("a7a8") | 1), ChessRules.INVALID_PROMOTION); // a pawn
        assertEq(_diff(s, K.uci("a7a8") | 6), ChessRules.INVALID_PROMOTION); // a king
        assertEq(_diff(s, K.uci("a7a8") | 0xfb), ChessRules.INVALID_PROMOTION); // -5 as a byte
        assertEq(_diff(s, K.uci("a1b1") | 5), ChessRules.INVALID_PROMOTION); // king step
        assertEq(_diff(s, K.uci("a1b1") | 0x80), ChessRules.INVALID_PROMOTION);
        s = Old.initialState();
        assertEq(_diff(s, K.uci("e2e4") | 5), ChessRules.INVALID_PROMOTION);
        assertEq(_diff(s, K.uci("g1f3") | 2), ChessRules.INVALID_PROMOTION);
        // the en-passant capture with a promotion byte
        s = K.fen(_tricky()[9]);
        assertEq(_diff(s, K.uci("e5d6") | 5), ChessRules.INVALID_PROMOTION);
        // a blocked push to the last rank: 7 before 12/13
        s = K.fen("1n5k/1P6/8/8/8/8/8/K7 w - - 0 1");
        assertEq(_diff(s, K.uci("b7b8") | 9), ChessRules.PATH_BLOCKED);
        assertEq(_diff(s, K.uci("b7a8")), ChessRules.NO_CAPTURE_TARGET);
        assertEq(_diff(s, K.uci("b7a8") | 9), ChessRules.NO_CAPTURE_TARGET);
    }

    function test_PawnGeometryCodes() public pure {
        bytes memory s = K.fen("4k3/8/8/8/p7/P7/1P6/4K3 w - - 0 1");
        assertEq(_diff(s, K.uci("b2b4")), 0);
        assertEq(_diff(s, K.uci("a3a4")), ChessRules.PATH_BLOCKED);
        assertEq(_diff(s, K.uci("a3a5")), ChessRules.BAD_GEOMETRY); // double step off the home row
        assertEq(_diff(s, K.uci("b2b1")), ChessRules.BAD_GEOMETRY); // backwards
        assertEq(_diff(s, K.uci("b2a1")), ChessRules.BAD_GEOMETRY); // backwards diagonal
        assertEq(_diff(s, K.uci("b2c3")), ChessRules.NO_CAPTURE_TARGET);
        assertEq(_diff(s, K.uci("b2d3")), ChessRules.BAD_GEOMETRY);
        assertEq(_diff(s, K.uci("a3b4")), ChessRules.NO_CAPTURE_TARGET);
    }

    // ================================================================ status attacks

    function test_StalemateByQueen() public pure {
        _expect(_tricky()[21], "c5b6", false, ChessRules.STALEMATE);
    }

    function test_StalemateWithPinnedKnightAndBlockedPawn() public pure {
        _expect(_tricky()[22], "h2h3", false, ChessRules.STALEMATE);
    }

    function test_MateBecauseTheOnlyBlockerIsPinned() public pure {
        _expect(_tricky()[23], "a1a8", true, ChessRules.CHECKMATE);
    }

    function test_FreePawnOnKingLineIsNotTakenAsAMove() public pure {
        // the only pawn on its home row has an empty square ahead but is pinned on a
        // diagonal through its king: the fast path must skip it, the search finds no move
        bytes memory s = K.fen("3k4/2p4R/3N4/B7/8/8/8/K7 b - - 0 1"); // black c7, pinned by Ba5
        assertEq(Old.validateState(s), 0);
        assertEq(_diffStart(s), ChessRules.STALEMATE);
        s = K.fen("k7/8/8/8/1b6/4n3/3P3r/4K3 w - - 0 1"); // white d2, pinned by Bb4
        assertEq(Old.validateState(s), 0);
        assertEq(_diffStart(s), ChessRules.STALEMATE);
    }

    function test_StalemateByPinningTheOnlyFreePawn() public pure {
        // Ba5 pins c7 against d8: a home-row pawn with an empty square ahead, but no move
        _expect("3k4/2p4R/3N4/8/1B6/8/8/K7 w - - 0 1", "b4a5", false, ChessRules.STALEMATE);
    }

    function test_InsufficientSameColourBishopsAfterCapture() public pure {
        _expect(_tricky()[24], "c3d4", false, ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_BishopsOnBothColoursAfterCapture() public pure {
        _expect(_tricky()[25], "c3d4", false, ChessRules.ONGOING);
    }

    function test_KnightVersusBareKingAfterCapture() public pure {
        _expect(_tricky()[26], "c3d5", false, ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_KnightVersusQueenIsNotInsufficient() public pure {
        _expect(_tricky()[27], "c3d5", false, ChessRules.ONGOING);
    }

    function test_ThreeSameColourBishopsInsufficient() public pure {
        _expect(_tricky()[33], "a1a2", false, ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_SeventyFiveMoves() public pure {
        _expect(_tricky()[30], "a1b1", false, ChessRules.SEVENTY_FIVE_MOVES);
    }

    function test_MateBeatsSeventyFiveMoves() public pure {
        _expect(_tricky()[31], "a1a8", true, ChessRules.CHECKMATE);
    }

    function test_MaterialVerdictsOnCrowdedBoards() public pure {
        // many minor pieces (byte counts well past 1) and every piece code on the board
        string[6] memory f = [
            "bbbbkbbb/bbbbbbbb/8/8/8/8/BBBBBBBB/BBBBKBBB w - - 0 1",
            "nnnnknnn/8/8/8/8/8/8/NNNNKNNN w - - 0 1",
            "4k3/8/8/8/8/8/8/B1B1KB1B w - - 0 1",
            "4k3/8/8/8/8/8/8/1B1BK1B1 b - - 0 1",
            "4k3/8/8/8/8/8/8/2N1K3 w - - 0 1",
            "4k3/4q3/8/8/8/8/8/2N1K3 w - - 0 1"
        ];
        for (uint256 i; i < f.length; ++i) {
            _diffMaterial(K.fen(f[i]));
        }
    }

    // ================================================================ memory

    /// @dev playMove + statusInCheck + repetitionKey (the referee's sequence) between guard
    /// allocations: the free memory pointer never goes down, the zero slot stays zero, and
    /// bytes allocated before and right after the state are untouched.
    bytes internal constant BEFORE = hex"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef77";

    function _memoryCheck(bytes memory start, uint256 mv) internal pure {
        bytes memory before = bytes.concat(BEFORE);
        bytes memory s = bytes.concat(start);
        bytes memory guard = new bytes(96);
        for (uint256 i; i < 96; ++i) {
            guard[i] = bytes1(uint8(0xa5 ^ i));
        }
        uint256 sPtr;
        uint256 gPtr;
        assembly ("memory-safe") {
            sPtr := s
            gPtr := guard
        }
        // the state is followed directly by the guard
        assertEq(gPtr, sPtr + 32 + 128, "guard right after the state");
        bytes memory guardCopy = bytes.concat(guard);
        bytes memory expect = bytes.concat(start);
        _playLikeTheReferee(s, mv, expect);
        assertEq(s.length, 128, "state length");
        assertEq(s, expect, "state bytes");
        assertEq(guard, guardCopy, "allocation after the state untouched");
        assertEq(before, BEFORE, "allocation before the state untouched");
    }

    /// @dev The referee's sequence on `s`, with the free memory pointer and zero slot watched;
    /// `expect` (a copy of `s`) becomes the old library's result.
    function _playLikeTheReferee(bytes memory s, uint256 mv, bytes memory expect) internal pure {
        uint256 oldCode = Old.applyMove(expect, mv);
        uint256 st = oldCode == 0 ? Old.status(expect) : 0;
        bytes32 key = oldCode == 0 ? Old.repetitionKey(expect) : bytes32(0);
        uint256 fmp1;
        assembly ("memory-safe") {
            fmp1 := mload(0x40)
        }
        (uint256 code, bool inCheck) = ChessRules.playMove(s, mv);
        uint256 fmp2;
        assembly ("memory-safe") {
            fmp2 := mload(0x40)
        }
        assertEq(fmp2, fmp1, "playMove allocates nothing");
        assertEq(code, oldCode, "code");
        if (code == 0) {
            assertEq(ChessRules.repetitionKey(s), key, "key");
            assertEq(ChessRules.statusInCheck(s, inCheck), st, "status");
        }
        uint256 fmp3;
        uint256 zero;
        assembly ("memory-safe") {
            fmp3 := mload(0x40)
            zero := mload(0x60)
        }
        assertGe(fmp3, fmp2, "free memory pointer monotone");
        assertEq(zero, 0, "zero slot");
    }

    function test_MemorySane_EnPassantCheckCastlingPromotionAndRefusals() public pure {
        _memoryCheck(K.fen(_tricky()[9]), K.uci("e5d6")); // e.p. with check
        _memoryCheck(K.fen(_tricky()[10]), K.uci("e5d6")); // e.p. refused (unmake)
        _memoryCheck(K.fen(_tricky()[12]), K.uci("d4c3")); // black e.p. (writes a row up)
        _memoryCheck(K.fen(_tricky()[13]), K.uci("e1g1"));
        _memoryCheck(K.fen(_tricky()[13]), K.uci("e1c1"));
        _memoryCheck(K.fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"), K.uci("e8c8"));
        _memoryCheck(K.fen(_tricky()[19]), K.uci("e1g1")); // castling refused after make (unmake)
        _memoryCheck(K.fen(_tricky()[7]), K.uci("a7a8q"));
        _memoryCheck(K.fen(_tricky()[34]), K.uci("g8h7"));
        _memoryCheck(K.fen(_tricky()[34]), K.uci("f8g7"));
        _memoryCheck(K.fen(_tricky()[0]), K.uci("e4d6"));
        _memoryCheck(K.fen(_tricky()[22]), K.uci("h2h3"));
        _memoryCheck(Old.initialState(), type(uint256).max);
    }

    function testFuzz_MemorySaneAfterPlayMove(uint256 seed) public pure {
        bytes memory s = K.fen(_tricky()[seed % 36]);
        uint256[] memory own = _ownSquares(s);
        for (uint256 i; i < 6; ++i) {
            _memoryCheck(s, _candidate(s, own, uint256(keccak256(abi.encode(seed, i)))));
        }
    }

    // ================================================================ broad differentials

    function test_AttackPositionsAreValidAndAgreeAtTheStart() public pure {
        string[36] memory f = _tricky();
        for (uint256 i; i < f.length; ++i) {
            bytes memory s = K.fen(f[i]);
            assertEq(Old.validateState(s), 0, f[i]);
            assertEq(ChessRules.validateState(s), 0, f[i]);
            _diffStart(s);
        }
    }

    /// @dev Every move from every attack position, old vs new.
    function test_AllMovesFromEveryAttackPosition() public pure {
        string[36] memory f = _tricky();
        for (uint256 i; i < f.length; ++i) {
            _allMoves(K.fen(f[i]));
        }
    }

    /// forge-config: default.fuzz.runs = 48
    /// @dev (b) every move from a tricky position or a perft position after 0-3 random
    /// legal plies (so the positions a move leads to are attacked too).
    function testFuzz_AllMovesFromTrickyPositionsAfterRandomPlies(uint256 seed) public pure {
        bytes memory s = seed % 2 == 0 ? K.fen(_tricky()[(seed >> 8) % 36]) : K.fen(_classic()[(seed >> 8) % 4]);
        uint256 plies = (seed >> 16) % 4;
        for (uint256 ply; ply < plies; ++ply) {
            if (!_playRandomLegal(s, uint256(keccak256(abi.encode(seed, ply))))) break;
        }
        _allMoves(s);
    }

    /// forge-config: default.fuzz.runs = 64
    /// @dev (a) random games from real positions (real-game prefixes, perft and attack
    /// positions), random raw moves with junk bits at every ply, old vs new on each.
    function testFuzz_RandomGamesFromRealPositions(uint256 seed) public pure {
        bytes memory s = _startState(seed);
        _diffStart(s);
        for (uint256 ply; ply < 16; ++ply) {
            if (!_playRandomLegal(s, uint256(keccak256(abi.encode(seed, ply, "game"))))) break;
        }
    }

    /// @dev Tries raw candidates (each one diffed) until one is legal and plays it in `s`;
    /// falls back to the old library's full move list. False if the game is over.
    function _playRandomLegal(bytes memory s, uint256 seed) internal pure returns (bool) {
        if (Old.status(s) != ChessRules.ONGOING) return false;
        uint256[] memory own = _ownSquares(s);
        for (uint256 i; i < 40; ++i) {
            uint256 mv = _candidate(s, own, uint256(keccak256(abi.encode(seed, i))));
            if (_diff(s, mv) == 0) {
                Old.applyMove(s, mv);
                return true;
            }
        }
        uint256[] memory legal = _oldLegalMoves(s, own);
        if (legal.length == 0) return false;
        uint256 pick = legal[seed % legal.length];
        assertEq(_diff(s, pick), 0);
        Old.applyMove(s, pick);
        return true;
    }

    function _oldLegalMoves(bytes memory s, uint256[] memory own) internal pure returns (uint256[] memory moves) {
        uint256[] memory buf = new uint256[](320);
        uint256 n;
        for (uint256 i; i < own.length; ++i) {
            for (uint256 to; to < 120; ++to) {
                if (to & 8 != 0) continue;
                uint256 mv = (own[i] << 16) | (to << 8);
                uint256 code = Old.check(s, mv);
                if (code == 0) buf[n++] = mv;
                else if (code == ChessRules.PROMOTION_REQUIRED && Old.check(s, mv | 5) == 0) buf[n++] = mv | 5;
            }
        }
        moves = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            moves[i] = buf[i];
        }
    }

    /// forge-config: default.fuzz.runs = 128
    /// @dev Random custom starts (random kings, 0-40 random pieces, random side, castling
    /// rights and en passant where consistent, clocks near 150): validateState agrees; on a
    /// valid one the status, material verdicts and key agree, and so do all its moves (a
    /// third of the runs) or 24 random raw moves.
    function testFuzz_RandomCustomStates(uint256 seed) public pure {
        bytes memory s = _randomState(seed);
        uint256 invalid = Old.validateState(s);
        assertEq(ChessRules.validateState(s), invalid, "validateState");
        if (invalid != 0) {
            // the usual failure is the side not to move in check: try the other side to move
            s[56] = s[56] == 0x01 ? bytes1(0xff) : bytes1(0x01);
            s[61] = 0;
            s[77] = 0;
            invalid = Old.validateState(s);
            assertEq(ChessRules.validateState(s), invalid, "validateState (flipped)");
            if (invalid != 0) return;
        }
        _diffStart(s);
        // every move of every piece for a third of them, 24 random raw moves for the rest
        if (seed % 3 == 0) {
            _allMoves(s);
            return;
        }
        uint256[] memory own = _ownSquares(s);
        for (uint256 i; i < 24; ++i) {
            _diff(s, _candidate(s, own, uint256(keccak256(abi.encode(seed, i, "custom")))));
        }
    }

    function _randomState(uint256 seed) internal pure returns (bytes memory s) {
        s = new bytes(128);
        uint256 r = uint256(keccak256(abi.encode(seed, "state")));
        uint256 wk = _boardSquare(r);
        uint256 bk = _boardSquare(r >> 8);
        if (bk == wk) bk = wk ^ 0x01;
        s[wk] = bytes1(uint8(6));
        s[bk] = bytes1(uint8(0xfa));
        s[123] = bytes1(uint8(wk));
        s[11] = bytes1(uint8(bk));
        uint256 mode = (r >> 16) % 4; // 0: minor pieces only, 1: few of anything, 2-3: many
        uint256 n = mode == 0 ? (r >> 24) % 8 : mode == 1 ? (r >> 24) % 8 : (r >> 24) % 40;
        for (uint256 i; i < n; ++i) {
            uint256 x = uint256(keccak256(abi.encode(r, i)));
            uint256 sq = _boardSquare(x);
            if (s[sq] != 0) continue;
            uint256 role = mode == 0 ? 2 + x % 2 : 1 + (x >> 8) % 5;
            if (role == 1 && ((sq >> 4) == 0 || (sq >> 4) == 7)) continue; // no pawn on a back rank
            int256 code = (x >> 16) % 2 == 0 ? int256(role) : -int256(role);
            s[sq] = bytes1(uint8(int8(code)));
        }
        bool white = (r >> 32) % 2 == 0;
        s[56] = white ? bytes1(0x01) : bytes1(0xff);
        // castling rights where king and rook stand at home, kept at random
        s[62] = s[63] = s[78] = s[79] = 0xff;
        if (s[116] == 0x06 && s[112] == 0x04 && (r >> 40) % 2 == 0) s[78] = 0;
        if (s[116] == 0x06 && s[119] == 0x04 && (r >> 41) % 2 == 0) s[79] = 0;
        if (s[4] == 0xfa && s[0] == 0xfc && (r >> 42) % 2 == 0) s[62] = 0;
        if (s[4] == 0xfa && s[7] == 0xfc && (r >> 43) % 2 == 0) s[63] = 0;
        // en passant: the opponent's pawn just double-stepped past an empty square
        if ((r >> 44) % 3 == 0) {
            uint256 file = (r >> 48) % 8;
            if (white && s[48 + file] == 0xff && s[32 + file] == 0 && s[16 + file] == 0) {
                s[61] = bytes1(uint8(32 + file));
            }
            if (!white && s[64 + file] == 0x01 && s[80 + file] == 0 && s[96 + file] == 0) {
                s[77] = bytes1(uint8(80 + file));
            }
        }
        uint256 clock = (r >> 56) % 4 == 0 ? 147 + (r >> 64) % 4 : (r >> 64) % 100;
        s[10] = bytes1(uint8(clock));
        s[8] = bytes1(uint8((r >> 72) % 128));
        s[9] = bytes1(uint8((r >> 80) % 128));
        // sometimes pile pawns next to their home rows, where the free-pawn fast path looks
        if ((r >> 88) % 3 == 0) {
            for (uint256 f; f < 8; ++f) {
                if ((r >> (96 + f)) & 1 == 0) continue;
                if (s[96 + f] == 0) s[96 + f] = 0x01;
                if (s[16 + f] == 0) s[16 + f] = 0xff;
            }
        }
    }

    function _boardSquare(uint256 x) internal pure returns (uint256) {
        return ((x >> 3) % 8) * 16 + x % 8;
    }

    /// forge-config: default.fuzz.runs = 256
    /// @dev validateState (touched by the change: constants built by `mul(ones, ..)`) on
    /// near-valid junk: random bytes dropped into the initial position.
    function testFuzz_ValidateStateAgreesOnJunk(uint256 seed, uint8 i, uint8 v, uint8 j, uint8 w) public pure {
        bytes memory s = Old.initialState();
        if (seed % 2 == 0) s = K.fen(_tricky()[(seed >> 8) % 36]);
        s[i % 128] = bytes1(v);
        if ((seed >> 16) % 2 == 0) s[j % 128] = bytes1(w);
        assertEq(ChessRules.validateState(s), Old.validateState(s));
    }
}

/// @notice The same differential through the deployed referee: custom-start games (any
/// state `validateState` accepts) played with `move`; the new referee's event state and
/// status, game end, commitment and revert codes must be what the old rules give.
contract ChessRefereeGasReviewTest is RefereeBase, GasReviewFixtures {
    /// @dev A running custom-start game from `s` (alice white, bob black).
    function _customGame(bytes memory s) internal returns (uint256 id) {
        id = _create(alice, bob, true, STAKE, s);
        _join(id, bob, STAKE);
    }

    /// @dev Plays `mv` in game `id` and checks everything against the old rules; returns
    /// the status the move produced (reverts are expected and checked for illegal moves).
    function _refMove(uint256 id, uint24 mv) internal returns (uint256 st, bool refused) {
        Position memory p = pos[id];
        bytes memory expect = bytes.concat(p.state);
        uint256 code = Old.applyMove(expect, mv);
        address mover = _mover(id);
        if (code != 0) {
            vm.expectRevert(abi.encodeWithSelector(IllegalMove.selector, uint8(code)));
            vm.prank(mover);
            ref.move(id, p.state, p.history, p.clock, mv);
            return (0, true);
        }
        st = Old.status(expect);
        bytes32 h =
            RepetitionChain.next(Old.halfmoveClock(expect) == 0 ? bytes32(0) : p.history, Old.repetitionKey(expect));
        vm.recordLogs();
        vm.prank(mover);
        ref.move(id, p.state, p.history, p.clock, mv);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        _checkMovePlayed(logs, mv, st, h, expect);
        _absorb(logs);
        _checkAfter(id, st, h, expect);
    }

    /// @dev After a legal move: running with the commitment of the new position, or ended
    /// with the result and reason of the old status.
    function _checkAfter(uint256 id, uint256 st, bytes32 h, bytes memory expect) internal view {
        if (st == ChessRules.ONGOING) {
            assertEq(_phase(id), PHASE_RUNNING);
            assertEq(ref.commitmentOf(id), ref.positionCommitment(expect, h, pos[id].clock), "commitment");
        } else {
            assertEq(_phase(id), PHASE_ENDED);
            (uint8 result, uint8 reason) = _result(id);
            (uint8 r, uint8 why) = Outcome.ofStatus(Old.whiteToMove(expect), st);
            assertEq(uint256(result), uint256(r), "result");
            assertEq(uint256(reason), uint256(why), "reason");
            assertEq(ref.commitmentOf(id), bytes32(0));
        }
    }

    /// @dev The one MovePlayed among `logs` carries `mv`, status `st`, history `h`, state `expect`.
    function _checkMovePlayed(Vm.Log[] memory logs, uint24 mv, uint256 st, bytes32 h, bytes memory expect)
        internal
        view
    {
        uint256 seen;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(ref) || logs[i].topics[0] != IChessRefereeTypes.MovePlayed.selector) {
                continue;
            }
            (uint24 m,, uint8 status, bytes32 history,, bytes memory state) =
                abi.decode(logs[i].data, (uint24, uint32, uint8, bytes32, uint256, bytes));
            assertEq(uint256(m), uint256(mv), "event move");
            assertEq(uint256(status), st, "event status");
            assertEq(history, h, "event history");
            assertEq(state, expect, "event state");
            ++seen;
        }
        assertEq(seen, 1, "one MovePlayed");
    }

    function test_Referee_CustomStart_DiscoveredDoubleCheckMateEndsGame() public {
        uint256 id = _customGame(K.fen(_tricky()[0]));
        (uint256 st,) = _refMove(id, _uci("e4d6"));
        assertEq(st, ChessRules.CHECKMATE);
        (uint8 result,) = _result(id);
        assertEq(uint256(result), uint256(WHITE_WINS));
    }

    function test_Referee_CustomStart_DiscoveredSingleCheckMateEndsGame() public {
        uint256 id = _customGame(K.fen("R2N3k/6pp/8/8/8/8/8/K7 w - - 0 1"));
        (uint256 st,) = _refMove(id, _uci("d8e6"));
        assertEq(st, ChessRules.CHECKMATE);
        (uint8 result,) = _result(id);
        assertEq(uint256(result), uint256(WHITE_WINS));
    }

    function test_Referee_CustomStart_EnPassantDiscoveredCheckThenKingMove() public {
        uint256 id = _customGame(K.fen(_tricky()[9]));
        (uint256 st,) = _refMove(id, _uci("e5d6"));
        assertEq(st, ChessRules.ONGOING);
        (, bool refused) = _refMove(id, _uci("h5g5")); // stays on the rank: still in check
        assertTrue(refused);
        (st,) = _refMove(id, _uci("h5h6"));
        assertEq(st, ChessRules.ONGOING);
    }

    function test_Referee_CustomStart_StalemateWithPinnedKnight() public {
        uint256 id = _customGame(K.fen(_tricky()[22]));
        (uint256 st,) = _refMove(id, _uci("h2h3"));
        assertEq(st, ChessRules.STALEMATE);
    }

    function test_Referee_CustomStart_StalemateByPinningTheOnlyFreePawn() public {
        uint256 id = _customGame(K.fen("3k4/2p4R/3N4/8/1B6/8/8/K7 w - - 0 1"));
        (uint256 st,) = _refMove(id, _uci("b4a5"));
        assertEq(st, ChessRules.STALEMATE);
    }

    function test_Referee_CustomStart_MateWithPinnedBlocker() public {
        uint256 id = _customGame(K.fen(_tricky()[23]));
        (uint256 st,) = _refMove(id, _uci("a1a8"));
        assertEq(st, ChessRules.CHECKMATE);
    }

    function test_Referee_CustomStart_PromotionMate() public {
        uint256 id = _customGame(K.fen(_tricky()[7]));
        (uint256 st,) = _refMove(id, _uci("a7a8q"));
        assertEq(st, ChessRules.CHECKMATE);
    }

    function test_Referee_CustomStart_CastlingCheckAndInsufficientMaterialEnd() public {
        uint256 id = _customGame(K.fen(_tricky()[14]));
        (uint256 st,) = _refMove(id, _uci("e1g1"));
        assertEq(st, ChessRules.ONGOING);
        id = _customGame(K.fen(_tricky()[24]));
        (st,) = _refMove(id, _uci("c3d4"));
        assertEq(st, ChessRules.INSUFFICIENT_MATERIAL);
        id = _customGame(K.fen(_tricky()[25])); // bishops on both colours: the game goes on
        (st,) = _refMove(id, _uci("c3d4"));
        assertEq(st, ChessRules.ONGOING);
    }

    function test_Referee_CustomStart_InDoubleCheck_RefusalsMatch() public {
        uint256 id = _customGame(K.fen(_tricky()[29]));
        (, bool refused) = _refMove(id, _uci("d2d6"));
        assertTrue(refused);
        (, refused) = _refMove(id, _uci("d2e2"));
        assertTrue(refused);
        _refMove(id, _uci("e8e7") | 0x05); // junk promotion on a king step: 13
        (uint256 st,) = _refMove(id, _uci("e8f8"));
        assertEq(st, ChessRules.ONGOING);
    }

    function test_Referee_JunkMovesRevertWithOldCodes() public {
        uint256 id = _customGame(K.fen(_tricky()[13]));
        uint24[8] memory junk = [
            uint24(0x080000),
            uint24(0x748800),
            uint24(0x7f7f00),
            uint24(0xffffff),
            uint24(0x747400),
            uint24(0x7476ff),
            uint24(0x747705),
            uint24(0x706005)
        ];
        for (uint256 i; i < junk.length; ++i) {
            (, bool refused) = _refMove(id, junk[i]);
            assertTrue(refused);
        }
    }

    /// forge-config: default.fuzz.runs = 24
    /// @dev Random games from random custom starts (attack and perft positions) through the
    /// referee, each move checked against the old rules (event, status, end, commitment).
    function testFuzz_Referee_RandomCustomGamesMatchOldRules(uint256 seed) public {
        bytes memory s = seed % 3 == 0 ? K.fen(_classic()[(seed >> 8) % 4]) : K.fen(_tricky()[(seed >> 8) % 36]);
        if (Old.status(s) != ChessRules.ONGOING) return; // refused as a start
        uint256 id = _customGame(s);
        for (uint256 ply; ply < 12; ++ply) {
            if (_phase(id) != PHASE_RUNNING) return;
            bytes memory cur = pos[id].state;
            uint256[] memory own = _ownSquares(cur);
            uint256 r = uint256(keccak256(abi.encode(seed, ply)));
            // one raw (often illegal) move, then a legal one
            _refMove(id, uint24(_candidate(cur, own, r)));
            if (_phase(id) != PHASE_RUNNING) return;
            cur = pos[id].state;
            own = _ownSquares(cur);
            uint256 mv;
            for (uint256 i; i < 40; ++i) {
                uint256 c = _candidate(cur, own, uint256(keccak256(abi.encode(r, i)))) & 0xffffff;
                if (Old.check(cur, c) == 0) {
                    mv = c;
                    break;
                }
            }
            if (mv == 0) return;
            _refMove(id, uint24(mv));
        }
    }
}
