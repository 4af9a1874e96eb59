// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {ChessRules, IllegalMove} from "../src/ChessRules.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";

/// @notice Section 6 rejection codes (one behaviour per test), section 5 move
/// application (the ENCODING.md section 10 worked examples, byte for byte) and
/// the peer bugs the issue names.
contract ChessRulesMoveTest is Test {
    string internal constant START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    function _code(string memory fen, string memory uciMove) internal pure returns (uint256) {
        return ChessRules.check(K.fen(fen), K.uci(uciMove));
    }

    function _codeRaw(string memory fen, uint256 from, uint256 to, uint256 promotion) internal pure returns (uint256) {
        return ChessRules.check(K.fen(fen), K.raw(from, to, promotion));
    }

    // ---------------------------------------------------------------- setup

    function test_InitialStateMatchesSection4() public pure {
        assertEq(ChessRules.initialState(), K.fen(START));
        assertEq(ChessRules.validateState(ChessRules.initialState()), 0);
    }

    function test_InitialPositionHasTwentyMoves() public pure {
        assertEq(K.legalMoves(ChessRules.initialState()).length, 20);
    }

    // ---------------------------------------------------------------- 1 OFF_BOARD

    function test_OffBoard_FromInShadow() public pure {
        assertEq(_codeRaw(START, 8, 100, 0), ChessRules.OFF_BOARD);
    }

    function test_OffBoard_ToAbove127() public pure {
        assertEq(_codeRaw(START, 100, 0x84, 0), ChessRules.OFF_BOARD);
    }

    function test_OffBoard_FromAbove127EvenIfLowBitsLookOnBoard() public pure {
        // 0xF4 & 0x88 != 0; 0x74 would be e1
        assertEq(_codeRaw(START, 0xf4, 0x64, 0), ChessRules.OFF_BOARD);
    }

    function test_OffBoard_BeatsSameSquare() public pure {
        assertEq(_codeRaw(START, 200, 200, 0), ChessRules.OFF_BOARD);
    }

    function test_OffBoard_OnlyLow24BitsOfMoveRead() public pure {
        uint256 move = (uint256(1) << 200) | K.uci("e2e4");
        assertEq(ChessRules.check(ChessRules.initialState(), move), 0);
    }

    // ---------------------------------------------------------------- 2 SAME_SQUARE

    function test_SameSquare() public pure {
        assertEq(_code(START, "e2e2"), ChessRules.SAME_SQUARE);
    }

    function test_SameSquare_EmptySquare() public pure {
        assertEq(_code(START, "e4e4"), ChessRules.SAME_SQUARE);
    }

    // ---------------------------------------------------------------- 3 EMPTY_FROM

    function test_EmptyFrom() public pure {
        assertEq(_code(START, "e4e5"), ChessRules.EMPTY_FROM);
    }

    // ---------------------------------------------------------------- 4 NOT_YOUR_PIECE

    function test_NotYourPiece_WhiteMovesBlack() public pure {
        assertEq(_code(START, "e7e5"), ChessRules.NOT_YOUR_PIECE);
    }

    function test_NotYourPiece_BlackMovesWhite() public pure {
        assertEq(
            _code("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "d2d4"), ChessRules.NOT_YOUR_PIECE
        );
    }

    // ---------------------------------------------------------------- 5 OWN_PIECE_ON_TARGET

    function test_OwnPieceOnTarget() public pure {
        assertEq(_code(START, "a1a2"), ChessRules.OWN_PIECE_ON_TARGET);
    }

    function test_OwnPieceOnTarget_BeatsBadGeometry() public pure {
        // rook a1 -> b2 is not straight, but b2 holds a white pawn: 5 comes first
        assertEq(_code(START, "a1b2"), ChessRules.OWN_PIECE_ON_TARGET);
    }

    // ---------------------------------------------------------------- 6 BAD_GEOMETRY

    function test_BadGeometry_Knight() public pure {
        assertEq(_code(START, "b1b3"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_BishopStraight() public pure {
        assertEq(_code("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", "c1c4"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_RookDiagonal() public pure {
        assertEq(_code("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1c3"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_QueenKnightJump() public pure {
        assertEq(_code("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "d1e3"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_KingTwoSquaresNotCastlingPattern() public pure {
        assertEq(_code("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1e3"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_KingTwoSidewaysOffHome() public pure {
        assertEq(_code("4k3/8/8/8/8/8/8/3K4 w - - 0 1", "d1f1"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_WhiteKingOnE8IsNotCastling() public pure {
        assertEq(_code("K7/8/8/8/8/8/8/4k3 b - - 0 1", "e1g1"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_PawnBackwards() public pure {
        assertEq(_code("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", "e4e3"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_PawnTripleStep() public pure {
        assertEq(_code(START, "e2e5"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_PawnDoubleStepNotFromHomeRank() public pure {
        assertEq(_code("4k3/8/8/8/8/4P3/8/4K3 w - - 0 1", "e3e5"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_PawnSideways() public pure {
        assertEq(_code("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", "e4d4"), ChessRules.BAD_GEOMETRY);
    }

    function test_BadGeometry_PawnDiagonalTwo() public pure {
        assertEq(_code("4k3/8/8/2p5/8/4P3/8/4K3 w - - 0 1", "e3c5"), ChessRules.BAD_GEOMETRY);
    }

    // ---------------------------------------------------------------- 7 PATH_BLOCKED

    function test_PathBlocked_Rook() public pure {
        assertEq(_code(START, "a1a3"), ChessRules.PATH_BLOCKED);
    }

    function test_PathBlocked_BishopByEnemy() public pure {
        assertEq(_code("4k3/8/8/8/8/3p4/8/1B2K3 w - - 0 1", "b1e4"), ChessRules.PATH_BLOCKED);
    }

    function test_PathBlocked_PawnStepOntoEnemy() public pure {
        assertEq(_code("4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1", "e4e5"), ChessRules.PATH_BLOCKED);
    }

    function test_PathBlocked_DoubleStepMiddleSquare() public pure {
        assertEq(_code("4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1", "e2e4"), ChessRules.PATH_BLOCKED);
    }

    function test_PathBlocked_DoubleStepTargetSquare() public pure {
        assertEq(_code("4k3/8/8/8/4n3/8/4P3/4K3 w - - 0 1", "e2e4"), ChessRules.PATH_BLOCKED);
    }

    function test_PathBlocked_CastlingKingSide() public pure {
        assertEq(_code("4k3/8/8/8/8/8/8/4KB1R w K - 0 1", "e1g1"), ChessRules.PATH_BLOCKED);
    }

    function test_PathBlocked_CastlingQueenSideB1() public pure {
        // b1 is between king and rook although the king never crosses it
        assertEq(_code("4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1", "e1c1"), ChessRules.PATH_BLOCKED);
    }

    function test_PathBlocked_CastlingOntoEnemyPiece() public pure {
        assertEq(_code("4k3/8/8/8/8/8/8/4K1nR w K - 0 1", "e1g1"), ChessRules.PATH_BLOCKED);
    }

    function test_PathBlocked_BeatsCastlingInCheck() public pure {
        // in check from e8 rook and f1 occupied: 7 comes before 10
        assertEq(_code("k3r3/8/8/8/8/8/8/4KB1R w K - 0 1", "e1g1"), ChessRules.PATH_BLOCKED);
    }

    // ---------------------------------------------------------------- 8 NO_CAPTURE_TARGET

    function test_NoCaptureTarget() public pure {
        assertEq(_code(START, "e2d3"), ChessRules.NO_CAPTURE_TARGET);
    }

    function test_NoCaptureTarget_StaleEnPassantSquare() public pure {
        // black's en-passant byte is not set: capturing towards d6 finds nothing
        assertEq(_code("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1", "e5d6"), ChessRules.NO_CAPTURE_TARGET);
    }

    function test_NoCaptureTarget_OwnEnPassantByteDoesNotCount() public pure {
        // after white's e2e4 white's byte is e3; a black pawn may capture there, a white one may not go to e3 anyway
        bytes memory s = K.fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
        assertEq(ChessRules.check(s, K.uci("d4e3")), 0);
    }

    function test_NoCaptureTarget_PawnToEmptyA8WithoutEnPassant() public pure {
        // an unset en-passant byte is 0 = a8: it must not count as a target
        assertEq(_code("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7a8q"), ChessRules.NO_CAPTURE_TARGET);
    }

    // ---------------------------------------------------------------- 9 CASTLING_NOT_ALLOWED

    function test_CastlingNotAllowed_RightLost() public pure {
        assertEq(_code("4k3/8/8/8/8/8/8/4K2R w - - 0 1", "e1g1"), ChessRules.CASTLING_NOT_ALLOWED);
    }

    function test_CastlingNotAllowed_BeatsPathBlocked() public pure {
        assertEq(_code("4k3/8/8/8/8/8/8/4KB1R w - - 0 1", "e1g1"), ChessRules.CASTLING_NOT_ALLOWED);
    }

    function test_CastlingNotAllowed_QueenSideBlack() public pure {
        assertEq(_code("r3k3/8/8/8/8/8/8/4K3 b - - 0 1", "e8c8"), ChessRules.CASTLING_NOT_ALLOWED);
    }

    function test_CastlingNotAllowed_RookNotOnCorner() public pure {
        // right byte kept but no rook on h1 (an inconsistent state; the rule still applies)
        bytes memory s = K.fen("4k3/8/8/8/8/8/8/4K3 w K - 0 1");
        assertEq(ChessRules.check(s, K.uci("e1g1")), ChessRules.CASTLING_NOT_ALLOWED);
    }

    // ---------------------------------------------------------------- 10 CASTLING_IN_CHECK

    function test_CastlingInCheck() public pure {
        assertEq(_code("4r1k1/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"), ChessRules.CASTLING_IN_CHECK);
    }

    function test_CastlingInCheck_ByKnight() public pure {
        assertEq(_code("6k1/8/8/8/8/3n4/8/4K2R w K - 0 1", "e1g1"), ChessRules.CASTLING_IN_CHECK);
    }

    // ---------------------------------------------------------------- 11 CASTLING_THROUGH_CHECK

    function test_CastlingThroughCheck() public pure {
        assertEq(_code("5rk1/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"), ChessRules.CASTLING_THROUGH_CHECK);
    }

    function test_CastlingThroughCheck_QueenSideD8() public pure {
        assertEq(_code("r3k3/8/8/8/8/8/8/3RK3 b q - 0 1", "e8c8"), ChessRules.CASTLING_THROUGH_CHECK);
    }

    function test_CastlingThroughCheck_BeatsInvalidPromotion() public pure {
        assertEq(_codeRaw("5rk1/8/8/8/8/8/8/4K2R w K - 0 1", 116, 118, 5), ChessRules.CASTLING_THROUGH_CHECK);
    }

    function test_Castling_B1AttackedIsFine() public pure {
        // only the king's squares matter: b1 attacked does not stop O-O-O
        assertEq(_code("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1"), 0);
    }

    // ---------------------------------------------------------------- 12 PROMOTION_REQUIRED

    function test_PromotionRequired() public pure {
        assertEq(_code("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8"), ChessRules.PROMOTION_REQUIRED);
    }

    function test_PromotionRequired_Capture() public pure {
        assertEq(_code("n3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7a8"), ChessRules.PROMOTION_REQUIRED);
    }

    function test_PromotionRequired_BeatsKingLeftInCheck() public pure {
        // the b7 pawn is pinned against the a7 king by the h7 rook... promoting with 0 is 12 first
        assertEq(_code("4k3/KP5r/8/8/8/8/8/8 w - - 0 1", "b7b8"), ChessRules.PROMOTION_REQUIRED);
    }

    // ---------------------------------------------------------------- 13 INVALID_PROMOTION

    function test_InvalidPromotion_King() public pure {
        assertEq(_codeRaw("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", 17, 1, 6), ChessRules.INVALID_PROMOTION);
    }

    function test_InvalidPromotion_Pawn() public pure {
        assertEq(_codeRaw("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", 17, 1, 1), ChessRules.INVALID_PROMOTION);
    }

    function test_InvalidPromotion_ByteOutOfRange() public pure {
        assertEq(_codeRaw("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", 17, 1, 0xfb), ChessRules.INVALID_PROMOTION);
    }

    function test_InvalidPromotion_OnNonPromotingMove() public pure {
        assertEq(_codeRaw(START, 100, 68, 5), ChessRules.INVALID_PROMOTION);
    }

    function test_InvalidPromotion_OnKnightMove() public pure {
        assertEq(_codeRaw(START, 118, 85, 2), ChessRules.INVALID_PROMOTION);
    }

    function test_InvalidPromotion_BeatsKingLeftInCheck() public pure {
        assertEq(_codeRaw("4k3/KP5r/8/8/8/8/8/8 w - - 0 1", 17, 1, 7), ChessRules.INVALID_PROMOTION);
    }

    // ---------------------------------------------------------------- 14 KING_LEFT_IN_CHECK

    function test_KingLeftInCheck_PinnedPiece() public pure {
        assertEq(_code("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "e2c3"), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_KingLeftInCheck_CheckNotAnswered() public pure {
        assertEq(_code("4k3/4r3/8/8/8/8/8/R3K3 w - - 0 1", "a1a2"), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_KingLeftInCheck_KingStepsIntoCheck() public pure {
        assertEq(_code("4k3/8/8/8/8/8/5r2/4K3 w - - 0 1", "e1f1"), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_KingLeftInCheck_KingStepsAlongCheckingRay() public pure {
        // the king must not shield the square behind it
        assertEq(_code("4k3/8/8/8/8/8/8/r3K3 w - - 0 1", "e1f1"), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_KingLeftInCheck_NextToEnemyKing() public pure {
        assertEq(_code("8/8/8/8/8/4k3/8/4K3 w - - 0 1", "e1e2"), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_KingLeftInCheck_CastlingOntoAttackedSquare() public pure {
        assertEq(_code("6r1/3k4/8/8/8/8/8/4K2R w K - 0 1", "e1g1"), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_KingLeftInCheck_EnPassantUncoversRankCheck() public pure {
        assertEq(_code("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1", "e5d6"), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_KingLeftInCheck_IntoPawnAttack() public pure {
        assertEq(_code("4k3/8/8/8/8/5p2/8/4K3 w - - 0 1", "e1e2"), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_Legal_CaptureTheChecker() public pure {
        assertEq(_code("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", "e1e2"), 0);
    }

    // ---------------------------------------------------------------- section 10 worked examples

    function _expect(bytes memory before, uint256[] memory idx, uint8[] memory vals)
        internal
        pure
        returns (bytes memory e)
    {
        e = bytes.concat(before);
        for (uint256 i = 0; i < idx.length; ++i) {
            e[idx[i]] = bytes1(vals[i]);
        }
    }

    function _assertDiff(bytes memory before, bytes memory afterState, uint256[] memory idx, uint8[] memory vals)
        internal
        pure
    {
        assertEq(afterState, _expect(before, idx, vals));
    }

    function test_WorkedExample_RuyLopezOpeningToCastling() public pure {
        bytes memory s = ChessRules.initialState();
        bytes memory n;
        // 1. e4
        n = ChessRules.play(s, K.uci("e2e4"));
        _assertDiff(s, n, _i5(9, 56, 68, 77, 100), _v5(0x01, 0xff, 0x01, 0x54, 0x00));
        s = n;
        // 1... c5
        n = ChessRules.play(s, K.uci("c7c5"));
        _assertDiff(s, n, _i6(9, 18, 50, 56, 61, 77), _v6(0x02, 0x00, 0xff, 0x01, 0x22, 0x00));
        s = n;
        // 2. Nf3
        n = ChessRules.play(s, K.uci("g1f3"));
        _assertDiff(s, n, _i6(9, 10, 56, 61, 85, 118), _v6(0x03, 0x01, 0xff, 0x00, 0x02, 0x00));
        s = n;
        // 2... d6
        n = ChessRules.play(s, K.uci("d7d6"));
        _assertDiff(s, n, _i5(9, 10, 19, 35, 56), _v5(0x04, 0x00, 0x00, 0xff, 0x01));
        s = n;
        // 3. Bb5+
        n = ChessRules.play(s, K.uci("f1b5"));
        _assertDiff(s, n, _i5(9, 10, 49, 56, 117), _v5(0x05, 0x01, 0x03, 0xff, 0x00));
        s = n;
        // 3... Bd7
        n = ChessRules.play(s, K.uci("c8d7"));
        _assertDiff(s, n, _i5(2, 9, 10, 19, 56), _v5(0x00, 0x06, 0x02, 0xfd, 0x01));
        s = n;
        // 4. O-O
        n = ChessRules.play(s, K.uci("e1g1"));
        uint256[] memory idx = new uint256[](10);
        uint8[] memory val = new uint8[](10);
        (idx[0], val[0]) = (9, 0x07);
        (idx[1], val[1]) = (10, 0x03);
        (idx[2], val[2]) = (56, 0xff);
        (idx[3], val[3]) = (78, 0xff);
        (idx[4], val[4]) = (79, 0xff);
        (idx[5], val[5]) = (116, 0x00);
        (idx[6], val[6]) = (117, 0x04);
        (idx[7], val[7]) = (118, 0x06);
        (idx[8], val[8]) = (119, 0x00);
        (idx[9], val[9]) = (123, 0x76);
        _assertDiff(s, n, idx, val);
    }

    function test_WorkedExample_Underpromotion() public pure {
        bytes memory s = K.fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
        bytes memory n = ChessRules.play(s, K.uci("b7b8n"));
        uint256[] memory idx = new uint256[](4);
        uint8[] memory val = new uint8[](4);
        (idx[0], val[0]) = (1, 0x02);
        (idx[1], val[1]) = (9, 0x01);
        (idx[2], val[2]) = (17, 0x00);
        (idx[3], val[3]) = (56, 0xff);
        _assertDiff(s, n, idx, val);
    }

    function test_WorkedExample_EnPassant() public pure {
        bytes memory s = K.fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3");
        bytes memory n = ChessRules.play(s, K.uci("d4e3"));
        _assertDiff(s, n, _i6(9, 56, 67, 68, 77, 84), _v6(0x06, 0x01, 0x00, 0x00, 0x00, 0xff));
    }

    function test_WorkedExample_CaptureOnCorner() public pure {
        bytes memory s = K.fen("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1");
        bytes memory n = ChessRules.play(s, K.uci("g2h1"));
        _assertDiff(s, n, _i5(9, 56, 79, 102, 119), _v5(0x02, 0x01, 0xff, 0x00, 0xfd));
    }

    // ---------------------------------------------------------------- section 5 details

    function test_ApplyMove_IllegalLeavesStateUnchanged() public pure {
        bytes memory s = K.fen("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
        bytes memory before = bytes.concat(s);
        assertEq(ChessRules.applyMove(s, K.uci("e2c3")), ChessRules.KING_LEFT_IN_CHECK);
        assertEq(s, before);
    }

    function test_ApplyMove_IllegalCastlingLeavesStateUnchanged() public pure {
        bytes memory s = K.fen("6r1/3k4/8/8/8/8/8/4K2R w K - 0 1");
        bytes memory before = bytes.concat(s);
        assertEq(ChessRules.applyMove(s, K.uci("e1g1")), ChessRules.KING_LEFT_IN_CHECK);
        assertEq(s, before);
    }

    function test_ApplyMove_IllegalEnPassantLeavesStateUnchanged() public pure {
        bytes memory s = K.fen("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1");
        bytes memory before = bytes.concat(s);
        assertEq(ChessRules.applyMove(s, K.uci("e5d6")), ChessRules.KING_LEFT_IN_CHECK);
        assertEq(s, before);
    }

    function test_Check_DoesNotModifyState() public pure {
        bytes memory s = K.fen("r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1");
        bytes memory before = bytes.concat(s);
        assertEq(ChessRules.check(s, K.uci("e5d6")), 0);
        assertEq(ChessRules.check(s, K.uci("e1c1")), 0);
        assertEq(ChessRules.check(s, K.uci("e1g1")), 0);
        assertEq(s, before);
    }

    function test_Play_DoesNotModifyInput() public pure {
        bytes memory s = ChessRules.initialState();
        ChessRules.play(s, K.uci("e2e4"));
        assertEq(s, ChessRules.initialState());
    }

    function test_Play_RevertsWithCode() public {
        Player p = new Player();
        vm.expectRevert(abi.encodeWithSelector(IllegalMove.selector, uint8(ChessRules.BAD_GEOMETRY)));
        p.play(ChessRules.initialState(), K.uci("e2e5"));
    }

    function test_Castling_QueenSideMovesRook() public pure {
        bytes memory n = ChessRules.play(K.fen("r3k3/8/8/8/8/8/8/4K3 b q - 5 20"), K.uci("e8c8"));
        assertEq(n, K.fen("2kr4/8/8/8/8/8/8/4K3 w - - 6 21"));
    }

    function test_RookMoveFromCornerLosesOnlyThatRight() public pure {
        bytes memory n = ChessRules.play(K.fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), K.uci("a1a5"));
        assertEq(n, K.fen("r3k2r/8/8/R7/8/8/8/4K2R b Kkq - 1 1"));
    }

    function test_KingMoveLosesBothRights() public pure {
        bytes memory n = ChessRules.play(K.fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"), K.uci("e8d8"));
        assertEq(n, K.fen("r2k3r/8/8/8/8/8/8/R3K2R w KQ - 1 2"));
    }

    function test_HalfmoveClockSaturatesAt255() public pure {
        bytes memory s = K.fen("4k3/8/8/8/8/8/8/4K2R w - - 255 1");
        bytes memory n = ChessRules.play(s, K.uci("h1h2"));
        assertEq(uint8(n[10]), 255);
    }

    function test_MoveCountLowWrapsIntoHigh() public pure {
        bytes memory s = K.fen("4k3/8/8/8/8/8/8/4K2R b - - 0 64"); // ply 127
        assertEq(uint8(s[9]), 127);
        bytes memory n = ChessRules.play(s, K.uci("e8d8"));
        assertEq(uint8(n[8]), 1);
        assertEq(uint8(n[9]), 0);
    }

    function test_MoveCountSaturatesAt16383() public pure {
        bytes memory s = K.with(K.with(K.fen("4k3/8/8/8/8/8/8/4K2R b - - 0 1"), 8, 127), 9, 127);
        bytes memory n = ChessRules.play(s, K.uci("e8d8"));
        assertEq(uint8(n[8]), 127);
        assertEq(uint8(n[9]), 127);
    }

    function test_EnPassantByteClearedByNextMove() public pure {
        bytes memory s = ChessRules.play(ChessRules.initialState(), K.uci("e2e4"));
        assertEq(uint8(s[77]), 0x54);
        s = ChessRules.play(s, K.uci("g8f6"));
        assertEq(uint8(s[77]), 0);
        assertEq(uint8(s[61]), 0);
    }

    function test_BlackPromotionCapturesCornerRook() public pure {
        bytes memory n = ChessRules.play(K.fen("4k3/8/8/8/8/8/6p1/4K2R b K - 3 40"), K.uci("g2h1r"));
        assertEq(n, K.fen("4k3/8/8/8/8/8/8/4K2r w - - 0 41"));
    }

    // ---------------------------------------------------------------- peer bugs (regressions)

    function test_PeerBug_CastlingRightDiesWithCapturedRook() public pure {
        // black bishop takes h1, then leaves: white must not castle with a rook that no longer exists
        bytes memory s = K.fen("4k3/8/8/8/8/8/6b1/4K2R b K - 0 1");
        s = ChessRules.play(s, K.uci("g2h1"));
        assertEq(uint8(s[79]), 0xff);
        s = ChessRules.play(s, K.uci("e1d2"));
        s = ChessRules.play(s, K.uci("h1e4"));
        s = ChessRules.play(s, K.uci("d2e1"));
        assertEq(uint8(s[79]), 0xff);
    }

    function test_PeerBug_CastlingRightDiesWithCapturedRookEvenIfAnotherRookArrives() public pure {
        // knight takes a1; later a white rook stands on a1 again: the right stays lost
        bytes memory s = K.fen("4k3/8/8/8/8/1n6/7R/R3K3 b Q - 0 1");
        s = ChessRules.play(s, K.uci("b3a1"));
        assertEq(uint8(s[78]), 0xff);
        s = ChessRules.play(s, K.uci("h2a2"));
        s = ChessRules.play(s, K.uci("e8d7"));
        s = ChessRules.play(s, K.uci("a2a1"));
        s = ChessRules.play(s, K.uci("d7e7"));
        assertEq(ChessRules.check(s, K.uci("e1c1")), ChessRules.CASTLING_NOT_ALLOWED);
    }

    function test_PeerBug_KnightCannotCaptureEnPassant() public pure {
        // after e2e4 a black knight landing on e3 is an ordinary move: the e4 pawn stays
        bytes memory s = K.fen("4k3/8/8/8/6n1/8/4P3/4K3 w - - 0 1");
        s = ChessRules.play(s, K.uci("e2e4"));
        bytes memory n = ChessRules.play(s, K.uci("g4e3"));
        assertEq(n[68], bytes1(0x01));
        assertEq(uint8(n[10]), 1); // no capture: the clock runs
    }

    function test_PeerBug_KingCannotCaptureEnPassant() public pure {
        bytes memory s = K.fen("8/8/8/8/5k2/8/4P3/4K3 w - - 0 1");
        s = ChessRules.play(s, K.uci("e2e4"));
        bytes memory n = ChessRules.play(s, K.uci("f4e3"));
        assertEq(n[68], bytes1(0x01));
    }

    function test_PeerBug_QueenDiagonalToEnPassantSquareCapturesNothing() public pure {
        bytes memory s = K.fen("4k3/8/8/2q5/8/8/4P3/4K3 w - - 0 1");
        s = ChessRules.play(s, K.uci("e2e4"));
        bytes memory n = ChessRules.play(s, K.uci("c5e3"));
        assertEq(n[68], bytes1(0x01));
    }

    function test_PeerBug_PromotionNotForcedToQueen() public pure {
        bytes memory s = K.fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
        assertEq(ChessRules.play(s, K.uci("b7b8n"))[1], bytes1(0x02));
        assertEq(ChessRules.play(s, K.uci("b7b8b"))[1], bytes1(0x03));
        assertEq(ChessRules.play(s, K.uci("b7b8r"))[1], bytes1(0x04));
        assertEq(ChessRules.play(s, K.uci("b7b8q"))[1], bytes1(0x05));
    }

    function test_PeerBug_BlackUnderpromotion() public pure {
        bytes memory s = K.fen("4k3/8/8/8/8/8/6p1/K7 b - - 0 1");
        assertEq(ChessRules.play(s, K.uci("g2g1n"))[118], bytes1(0xfe));
    }

    function test_PeerBug_KnightCheckSeen() public pure {
        // the king may not ignore a knight check...
        assertEq(_code("4k3/8/8/8/8/5n2/8/4K2R w - - 0 1", "h1h2"), ChessRules.KING_LEFT_IN_CHECK);
        // ...nor step onto a knight-attacked square
        assertEq(_code("4k3/8/8/8/8/8/8/3nK3 w - - 0 1", "e1f2"), ChessRules.KING_LEFT_IN_CHECK);
    }

    function test_PeerBug_CastlingThroughCheckRejected() public pure {
        assertEq(_code("r3k2r/8/8/8/8/8/5n2/R3K2R w KQkq - 0 1", "e1c1"), ChessRules.CASTLING_THROUGH_CHECK);
    }

    function test_PeerBug_CastlingThroughKnightAttackRejected() public pure {
        // a knight on e3 attacks f1 (and d1)
        assertEq(_code("4k3/8/8/8/8/4n3/8/R3K2R w KQ - 0 1", "e1g1"), ChessRules.CASTLING_THROUGH_CHECK);
        assertEq(_code("4k3/8/8/8/8/4n3/8/R3K2R w KQ - 0 1", "e1c1"), ChessRules.CASTLING_THROUGH_CHECK);
    }

    function test_PeerBug_CastlingOutOfCheckRejected() public pure {
        assertEq(_code("4k3/8/8/8/8/8/3p4/R3K2R w KQ - 0 1", "e1g1"), ChessRules.CASTLING_IN_CHECK);
    }

    // ---------------------------------------------------------------- small array helpers

    function _i5(uint256 a, uint256 b, uint256 c, uint256 d, uint256 e) internal pure returns (uint256[] memory r) {
        r = new uint256[](5);
        (r[0], r[1], r[2], r[3], r[4]) = (a, b, c, d, e);
    }

    function _v5(uint8 a, uint8 b, uint8 c, uint8 d, uint8 e) internal pure returns (uint8[] memory r) {
        r = new uint8[](5);
        (r[0], r[1], r[2], r[3], r[4]) = (a, b, c, d, e);
    }

    function _i6(uint256 a, uint256 b, uint256 c, uint256 d, uint256 e, uint256 f)
        internal
        pure
        returns (uint256[] memory r)
    {
        r = new uint256[](6);
        (r[0], r[1], r[2], r[3], r[4], r[5]) = (a, b, c, d, e, f);
    }

    function _v6(uint8 a, uint8 b, uint8 c, uint8 d, uint8 e, uint8 f) internal pure returns (uint8[] memory r) {
        r = new uint8[](6);
        (r[0], r[1], r[2], r[3], r[4], r[5]) = (a, b, c, d, e, f);
    }
}

/// @notice External wrapper so that expectRevert can observe a library revert.
contract Player {
    function play(bytes memory s, uint256 move) external pure returns (bytes memory) {
        return ChessRules.play(s, move);
    }
}
