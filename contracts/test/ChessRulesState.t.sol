// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {ChessRules, BadStateLength, InvalidState} from "../src/ChessRules.sol";
import {ChessRulesView} from "../src/ChessRulesView.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";

/// @notice Section 7 (state validation), section 8 (status, insufficient
/// material) and section 9 (repetition key), plus the view contract's boundary.
contract ChessRulesStateTest is Test {
    string internal constant START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    function _valid(string memory fen) internal pure returns (uint256) {
        return ChessRules.validateState(K.fen(fen));
    }

    // ---------------------------------------------------------------- section 7

    function test_Valid_Start() public pure {
        assertEq(_valid(START), 0);
    }

    function test_Invalid1_BadPieceCode() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 36, 7)), ChessRules.BAD_PIECE_CODE);
    }

    function test_Invalid1_BadNegativePieceCode() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 36, 0xf9)), ChessRules.BAD_PIECE_CODE);
    }

    function test_Invalid1_BeatsBadFlag() public pure {
        bytes memory s = K.with(K.with(ChessRules.initialState(), 36, 7), 12, 1);
        assertEq(ChessRules.validateState(s), ChessRules.BAD_PIECE_CODE);
    }

    function test_Invalid2_UnlistedShadowByte() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 12, 1)), ChessRules.BAD_FLAG);
    }

    function test_Invalid2_MoveCountLowAbove127() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 9, 128)), ChessRules.BAD_FLAG);
    }

    function test_Invalid2_MoveCountHighAbove127() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 8, 200)), ChessRules.BAD_FLAG);
    }

    function test_Invalid2_CurrentPlayerZero() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 56, 0)), ChessRules.BAD_FLAG);
    }

    function test_Invalid2_CastlingByteNotZeroOrFF() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 79, 1)), ChessRules.BAD_FLAG);
    }

    function test_Invalid2_EnPassantOutOfDomain() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 77, 0x44)), ChessRules.BAD_FLAG);
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 61, 0x54)), ChessRules.BAD_FLAG);
    }

    function test_Valid_HalfmoveClockAnyByte() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 10, 255)), 0);
    }

    function test_Invalid3_TwoWhiteKings() public pure {
        assertEq(_valid("4k3/8/8/8/8/8/8/K3K3 w - - 0 1"), ChessRules.KING_COUNT);
    }

    function test_Invalid3_NoBlackKing() public pure {
        bytes memory s = K.with(K.fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), 4, 0);
        assertEq(ChessRules.validateState(s), ChessRules.KING_COUNT);
    }

    function test_Invalid4_WhiteKingByteWrong() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 123, 115)), ChessRules.KING_POS_MISMATCH);
    }

    function test_Invalid4_KingByteOffBoard() public pure {
        // byte 9 happens to hold 6 (a white king's code) but is not a square
        bytes memory s = K.with(K.with(ChessRules.initialState(), 9, 6), 123, 9);
        assertEq(ChessRules.validateState(s), ChessRules.KING_POS_MISMATCH);
    }

    function test_Invalid4_BlackKingByteWrong() public pure {
        assertEq(ChessRules.validateState(K.with(ChessRules.initialState(), 11, 3)), ChessRules.KING_POS_MISMATCH);
    }

    function test_Invalid5_PawnOnRank8() public pure {
        assertEq(_valid("P3k3/8/8/8/8/8/8/4K3 w - - 0 1"), ChessRules.PAWN_ON_BACK_RANK);
    }

    function test_Invalid5_PawnOnRank1() public pure {
        assertEq(_valid("4k3/8/8/8/8/8/8/p3K3 w - - 0 1"), ChessRules.PAWN_ON_BACK_RANK);
    }

    function test_Invalid6_OpponentInCheck() public pure {
        assertEq(_valid("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"), ChessRules.OPPONENT_IN_CHECK);
    }

    function test_Invalid6_OpponentInKnightCheck() public pure {
        assertEq(_valid("4k3/8/3N4/8/8/8/8/6K1 w - - 0 1"), ChessRules.OPPONENT_IN_CHECK);
    }

    function test_Valid_SideToMoveInCheck() public pure {
        assertEq(_valid("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1"), 0);
    }

    function test_Invalid7_RightWithoutRook() public pure {
        assertEq(_valid("4k3/8/8/8/8/8/8/4K3 w K - 0 1"), ChessRules.BAD_CASTLING);
    }

    function test_Invalid7_RightWithKingAway() public pure {
        assertEq(_valid("r3k3/8/8/8/8/8/8/R2K4 w Q - 0 1"), ChessRules.BAD_CASTLING);
    }

    function test_Invalid7_BlackRightWithoutRook() public pure {
        assertEq(_valid("4k3/8/8/8/8/8/8/4K3 w q - 0 1"), ChessRules.BAD_CASTLING);
    }

    function test_Invalid8_BothEnPassantBytes() public pure {
        bytes memory s = K.with(K.fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1"), 61, 0x22);
        assertEq(ChessRules.validateState(s), ChessRules.BAD_EN_PASSANT);
    }

    function test_Invalid8_WrongSideToMove() public pure {
        // white's byte set while white is to move
        bytes memory s = K.with(K.fen("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1"), 77, 0x54);
        assertEq(ChessRules.validateState(s), ChessRules.BAD_EN_PASSANT);
    }

    function test_Invalid8_NoPawnBeyond() public pure {
        assertEq(_valid("4k3/8/8/8/8/8/8/4K3 b - e3 0 1"), ChessRules.BAD_EN_PASSANT);
    }

    function test_Invalid8_SquareBehindOccupied() public pure {
        assertEq(_valid("4k3/8/8/8/4P3/8/4N3/4K3 b - e3 0 1"), ChessRules.BAD_EN_PASSANT);
    }

    function test_Invalid8_TargetOccupied() public pure {
        assertEq(_valid("4k3/8/8/8/4P3/4N3/8/4K3 b - e3 0 1"), ChessRules.BAD_EN_PASSANT);
    }

    function test_Valid_EnPassantWithoutCapturer() public pure {
        assertEq(_valid("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1"), 0);
    }

    function test_ValidateState_RevertsOnBadLength() public {
        ChessRulesView v = new ChessRulesView();
        vm.expectRevert(abi.encodeWithSelector(BadStateLength.selector, uint256(127)));
        v.validateState(new bytes(127));
    }

    // ---------------------------------------------------------------- view boundary

    function test_View_CheckRevertsOnInvalidState() public {
        ChessRulesView v = new ChessRulesView();
        // all zero: byte 56 (side to move) is out of its domain first
        vm.expectRevert(abi.encodeWithSelector(InvalidState.selector, uint8(ChessRules.BAD_FLAG)));
        v.check(new bytes(128), 0);
    }

    function test_View_StatusRevertsOnBadLength() public {
        ChessRulesView v = new ChessRulesView();
        vm.expectRevert(abi.encodeWithSelector(BadStateLength.selector, uint256(129)));
        v.status(new bytes(129));
    }

    function test_View_PlayMatchesLibrary() public {
        ChessRulesView v = new ChessRulesView();
        bytes memory s = ChessRules.initialState();
        assertEq(v.initialState(), s);
        assertEq(v.play(s, uint24(K.uci("g1f3"))), ChessRules.play(s, K.uci("g1f3")));
        assertEq(v.check(s, uint24(K.uci("g1g3"))), ChessRules.BAD_GEOMETRY);
        assertEq(v.status(s), 0);
        assertEq(v.repetitionKey(s), ChessRules.repetitionKey(s));
        assertEq(v.legalMoves(s).length, 20);
        assertFalse(v.insufficientMaterial(s, true));
    }

    // ---------------------------------------------------------------- section 8

    function _status(string memory fen) internal pure returns (uint256) {
        return ChessRules.status(K.fen(fen));
    }

    function test_Status_OngoingStart() public pure {
        assertEq(_status(START), ChessRules.ONGOING);
    }

    function test_Status_FoolsMate() public pure {
        bytes memory s = K.playAll(ChessRules.initialState(), "f2f3 e7e5 g2g4 d8h4");
        assertEq(ChessRules.status(s), ChessRules.CHECKMATE);
    }

    function test_Status_SmotheredMateByKnight() public pure {
        assertEq(_status("6rk/5Npp/8/8/8/8/8/4K3 b - - 0 1"), ChessRules.CHECKMATE);
    }

    function test_Status_BackRankMate() public pure {
        assertEq(_status("R5k1/5ppp/8/8/8/8/8/4K3 b - - 0 1"), ChessRules.CHECKMATE);
    }

    function test_Status_DoubleCheckMate() public pure {
        // rook and knight check together: only king moves answer, and every square is covered
        assertEq(_status("3rkr2/3p1p2/3N4/8/8/8/8/4R1K1 b - - 0 1"), ChessRules.CHECKMATE);
    }

    function test_Status_CheckAnsweredByBlock() public pure {
        assertEq(_status("R5k1/5ppp/8/8/8/8/7K/2r5 b - - 0 1"), ChessRules.ONGOING);
    }

    function test_Status_CheckAnsweredOnlyByEnPassant() public pure {
        // black pawn d5 just double-stepped and gives check; exd6 e.p. is the only legal move
        bytes memory s = K.fen("k7/8/8/3pP3/4K3/3r1rb1/8/8 w - d6 0 1");
        assertEq(K.legalMoves(s).length, 1);
        assertEq(ChessRules.check(s, K.uci("e5d6")), 0);
        assertEq(ChessRules.status(s), ChessRules.ONGOING);
    }

    function test_Status_Stalemate() public pure {
        assertEq(_status("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), ChessRules.STALEMATE);
    }

    function test_Status_StalemateWithPinnedPiece() public pure {
        // the b7 knight is pinned by the h1 queen and the king has no square
        assertEq(_status("k7/1nK5/1P6/8/8/8/8/7Q b - - 0 1"), ChessRules.STALEMATE);
        // without the pin the knight can move
        assertEq(_status("k7/1nK5/1P6/8/8/8/8/6Q1 b - - 0 1"), ChessRules.ONGOING);
    }

    function test_Status_StalemateBlockedPawns() public pure {
        assertEq(_status("8/8/8/8/8/5k2/5p2/5K2 w - - 0 1"), ChessRules.STALEMATE);
    }

    function test_Status_MateBeatsSeventyFiveMoves() public pure {
        assertEq(_status("R5k1/5ppp/8/8/8/8/8/4K3 b - - 150 90"), ChessRules.CHECKMATE);
    }

    function test_Status_StalemateBeatsInsufficientMaterial() public pure {
        assertEq(_status("7k/5B2/6K1/8/8/8/8/8 b - - 0 1"), ChessRules.STALEMATE);
    }

    function test_Status_SeventyFiveMoves() public pure {
        assertEq(_status("4k3/8/8/8/8/8/8/R3K3 w - - 150 90"), ChessRules.SEVENTY_FIVE_MOVES);
    }

    function test_Status_149PliesIsNotSeventyFive() public pure {
        assertEq(_status("4k3/8/8/8/8/8/8/R3K3 w - - 149 90"), ChessRules.ONGOING);
    }

    function test_Status_InsufficientBeatsSeventyFiveMoves() public pure {
        assertEq(_status("4k3/8/8/8/8/8/8/4K3 w - - 200 90"), ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_Insufficient_BareKings() public pure {
        assertEq(_status("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_Insufficient_KnightVersusKing() public pure {
        assertEq(_status("4k3/8/8/8/8/8/8/4KN2 w - - 0 1"), ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_Insufficient_BishopVersusKing() public pure {
        assertEq(_status("4k3/8/8/8/8/8/8/4KB2 w - - 0 1"), ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_Insufficient_SameColouredBishops() public pure {
        // f1 and c8 are both light squares
        assertEq(_status("2b1k3/8/8/8/8/8/8/4KB2 w - - 0 1"), ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_Insufficient_ManySameColouredBishops() public pure {
        assertEq(_status("2b1k3/8/8/8/8/7B/8/3BKB2 w - - 0 1"), ChessRules.INSUFFICIENT_MATERIAL);
    }

    function test_Sufficient_OppositeColouredBishops() public pure {
        // f1 light, f8 dark: a helpmate exists
        assertEq(_status("4kb2/8/8/8/8/8/8/4KB2 w - - 0 1"), ChessRules.ONGOING);
    }

    function test_Sufficient_TwoKnights() public pure {
        bytes memory s = K.fen("4k3/8/8/8/8/8/8/4KNN1 w - - 0 1");
        assertFalse(ChessRules.insufficientMaterial(s, 1));
        assertTrue(ChessRules.insufficientMaterial(s, -1));
        assertEq(ChessRules.status(s), ChessRules.ONGOING);
    }

    function test_Insufficient_KnightAgainstQueenOnly() public pure {
        bytes memory s = K.fen("4k3/8/8/8/8/8/2q5/4KN2 w - - 0 1");
        assertTrue(ChessRules.insufficientMaterial(s, 1));
        assertFalse(ChessRules.insufficientMaterial(s, -1));
        assertEq(ChessRules.status(s), ChessRules.ONGOING);
    }

    function test_Sufficient_KnightAgainstRook() public pure {
        // the rook could block its own king: a knight mate exists
        assertFalse(ChessRules.insufficientMaterial(K.fen("4k3/8/8/8/8/8/2r5/4KN2 w - - 0 1"), 1));
    }

    function test_Sufficient_KnightAgainstKnight() public pure {
        assertEq(_status("4kn2/8/8/8/8/8/8/4KN2 w - - 0 1"), ChessRules.ONGOING);
    }

    function test_Sufficient_BishopAgainstKnight() public pure {
        bytes memory s = K.fen("4kn2/8/8/8/8/8/8/4KB2 w - - 0 1");
        assertFalse(ChessRules.insufficientMaterial(s, 1));
        assertFalse(ChessRules.insufficientMaterial(s, -1));
    }

    function test_Sufficient_BishopAgainstPawn() public pure {
        bytes memory s = K.fen("4k3/p7/8/8/8/8/8/4KB2 w - - 0 1");
        assertFalse(ChessRules.insufficientMaterial(s, 1));
        assertFalse(ChessRules.insufficientMaterial(s, -1));
    }

    function test_Insufficient_BishopAgainstRookIsInsufficientForBishopSide() public pure {
        bytes memory s = K.fen("4k3/8/8/8/8/8/r7/4KB2 w - - 0 1");
        assertTrue(ChessRules.insufficientMaterial(s, 1));
        assertFalse(ChessRules.insufficientMaterial(s, -1));
    }

    function test_Sufficient_PawnSide() public pure {
        assertFalse(ChessRules.insufficientMaterial(K.fen("4k3/8/8/8/8/8/P7/4K3 w - - 0 1"), 1));
    }

    // ---------------------------------------------------------------- section 9

    function test_RepetitionKey_IgnoresCounters() public pure {
        bytes memory a = K.fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        bytes memory b = K.fen("4k3/8/8/8/8/8/8/R3K3 w - - 37 60");
        assertEq(ChessRules.repetitionKey(a), ChessRules.repetitionKey(b));
    }

    function test_RepetitionKey_IsKeccakOfZeroedState() public pure {
        bytes memory s = K.fen("4k3/8/8/8/8/8/8/R3K3 w - - 37 60");
        bytes memory z = K.with(K.with(K.with(s, 8, 0), 9, 0), 10, 0);
        assertEq(ChessRules.repetitionKey(s), keccak256(z));
    }

    function test_RepetitionKey_DependsOnSideToMove() public pure {
        bytes memory a = K.fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        bytes memory b = K.fen("4k3/8/8/8/8/8/8/R3K3 b - - 0 1");
        assertNotEq(ChessRules.repetitionKey(a), ChessRules.repetitionKey(b));
    }

    function test_RepetitionKey_DependsOnCastlingRights() public pure {
        bytes memory a = K.fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
        bytes memory b = K.fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        assertNotEq(ChessRules.repetitionKey(a), ChessRules.repetitionKey(b));
    }

    function test_RepetitionKey_EnPassantWithoutCapturerIgnored() public pure {
        bytes memory withEp = K.fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1");
        bytes memory without = K.fen("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
        assertEq(ChessRules.repetitionKey(withEp), ChessRules.repetitionKey(without));
    }

    function test_RepetitionKey_LegalEnPassantCounts() public pure {
        bytes memory withEp = K.fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
        bytes memory without = K.fen("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1");
        assertNotEq(ChessRules.repetitionKey(withEp), ChessRules.repetitionKey(without));
        assertEq(ChessRules.repetitionKey(withEp), keccak256(K.with(withEp, 9, 0)));
    }

    function test_RepetitionKey_PinnedEnPassantIgnored() public pure {
        // the d4 pawn is pinned against the a4 king... by the h4 rook once e4 and d4 leave the rank
        bytes memory withEp = K.fen("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1");
        bytes memory without = K.fen("8/8/8/8/k2pP2R/8/8/4K3 b - - 0 1");
        assertEq(ChessRules.check(withEp, K.uci("d4e3")), ChessRules.KING_LEFT_IN_CHECK);
        assertEq(ChessRules.repetitionKey(withEp), ChessRules.repetitionKey(without));
    }

    function test_RepetitionKey_EnPassantFromEitherSide() public pure {
        bytes memory withEp = K.fen("4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1");
        assertEq(ChessRules.repetitionKey(withEp), keccak256(withEp));
        bytes memory right = K.fen("4k3/8/8/4pP2/8/8/8/4K3 w - e6 0 1");
        assertEq(ChessRules.repetitionKey(right), keccak256(right));
    }

    function test_RepetitionKey_DoesNotModifyState() public pure {
        bytes memory s = K.fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 12 40");
        bytes memory before = bytes.concat(s);
        ChessRules.repetitionKey(s);
        assertEq(s, before);
    }

    function test_RepetitionKey_KnightShuffleRepeats() public pure {
        bytes memory s = ChessRules.initialState();
        bytes32 k0 = ChessRules.repetitionKey(s);
        s = K.playAll(s, "g1f3 g8f6 f3g1 f6g8");
        assertEq(ChessRules.repetitionKey(s), k0);
    }
}
