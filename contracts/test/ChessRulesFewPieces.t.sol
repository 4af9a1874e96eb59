// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ChessRulesOld} from "./rules/ChessRulesOld.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";

/// @notice Section 8 verdicts of endgames of few pieces, which issue 27 made cheaper
/// (insufficient material counted a word at a time; a bare king's steps found from the
/// enemy's pieces; a bare king in check with no step mated without an evasion search): the
/// expected codes are chessref-core's (`chessref play --fen FEN`), and the frozen library
/// of rules/ChessRulesOld.sol must agree with the current one on these positions, on random
/// boards of kings, knights and bishops (with now and then a pawn, rook or queen), and on
/// random boards of a bare king to move against a king and up to five pieces of any kind.
contract ChessRulesFewPiecesTest is Test {
    struct Case {
        string fen;
        uint256 status;
    }

    function _cases() internal pure returns (Case[] memory c) {
        c = new Case[](39);
        // bare kings and insufficient material
        c[0] = Case("8/8/8/3k4/8/8/8/4K3 b - - 0 60", 3);
        c[1] = Case("8/8/8/8/8/8/8/K1k5 w - - 0 60", 3);
        c[2] = Case("8/8/8/4k3/8/2B1K3/8/8 b - - 4 70", 3);
        c[3] = Case("8/B7/8/8/4k3/6K1/8/8 b - - 0 2", 3);
        c[4] = Case("k7/2N5/1K6/8/8/8/8/8 b - - 4 70", 3);
        c[5] = Case("7k/5K2/6N1/8/8/8/8/8 b - - 4 70", 3);
        c[6] = Case("8/8/8/8/4k3/8/2B1K3/3B4 b - - 4 70", 3);
        c[7] = Case("8/8/2b5/8/2k5/8/2K5/3B4 w - - 0 60", 3);
        c[8] = Case("8/8/8/8/8/2k5/1b6/K7 w - - 4 70", 3);
        // enough material: bishops on both colours, two knights, a knight against a knight,
        // a bishop or a queen
        c[9] = Case("8/8/8/8/4k3/8/2B1K3/B7 b - - 4 70", 0);
        c[10] = Case("8/8/2b5/8/2k5/8/2K5/4B3 w - - 0 60", 0);
        c[11] = Case("8/8/2n5/8/2k5/8/2K5/3N4 w - - 0 60", 0);
        c[12] = Case("8/8/8/8/2k5/8/2K5/3NN3 w - - 0 60", 0);
        c[13] = Case("8/8/8/8/2k5/8/2K5/3N3q w - - 0 60", 0);
        c[14] = Case("8/8/2n5/8/2k5/8/2K5/3B4 w - - 0 60", 0);
        c[15] = Case("8/8/8/3k4/8/8/8/B1K4B b - - 0 60", 0);
        // stalemates of a bare king (with and without insufficient material: stalemate first)
        c[16] = Case("k7/8/1K6/4B3/8/8/8/8 b - - 0 2", 2);
        c[17] = Case("7k/5K2/5NB1/8/8/8/8/8 b - - 0 60", 2);
        c[18] = Case("7k/5K1N/6B1/8/8/8/8/8 b - - 0 60", 2);
        c[19] = Case("8/8/8/8/1K6/8/k7/2Q5 b - - 3 2", 2);
        // mates of a bare king: by a rook from the far corner, a rook nearby, a double
        // check, a queen
        c[20] = Case("R6k/8/6K1/8/8/8/8/8 b - - 3 2", 1);
        c[21] = Case("3R3k/8/6K1/8/8/8/8/8 b - - 3 2", 1);
        c[22] = Case("7k/5K2/6N1/8/8/8/8/7R b - - 0 60", 1);
        c[23] = Case("7k/5KN1/8/8/8/8/8/7R b - - 0 60", 1);
        c[24] = Case("8/8/8/8/8/8/1q6/K1k5 w - - 0 60", 1);
        // a bare king in check that can step away
        c[25] = Case("R6k/8/8/8/8/8/6K1/8 b - - 3 2", 0);
        c[26] = Case("8/8/8/8/8/8/5K1k/6R1 b - - 0 60", 0);
        c[27] = Case("1k6/8/1K6/8/8/8/8/1Q6 b - - 0 60", 0);
        // a king with other pieces, in check with no king move: mated, or saved by a
        // block or a capture
        c[28] = Case("R6k/6pp/8/8/8/8/8/6K1 b - - 0 60", 1);
        c[29] = Case("R6k/6pp/4n3/8/8/8/8/6K1 b - - 0 60", 0);
        c[30] = Case("R6k/6pp/8/8/8/8/r7/6K1 b - - 0 60", 0);
        c[31] = Case("6k1/8/8/8/8/8/6PP/r6K w - - 0 60", 1);
        c[32] = Case("6k1/8/8/8/8/4N3/6PP/r6K w - - 0 60", 0);
        // the dearest bare king registered in ChessChannelGas: two bishops on one colour
        c[33] = Case("B7/8/8/8/2B5/4k3/8/2K5 b - - 0 2", 3);
        // insufficient material out of check: a bare king whose only steps are on the bishop's
        // colour, stalemates by a knight (either side to move) and by two bishops, a knight's
        // side to move
        c[34] = Case("8/8/5K1k/8/6B1/8/8/8 b - - 1 49", 3);
        c[35] = Case("7k/5K2/5N2/8/8/8/8/8 b - - 0 60", 2);
        c[36] = Case("8/8/8/8/8/5n2/5k2/7K w - - 0 60", 2);
        c[37] = Case("k7/8/1K6/4B3/8/8/8/B7 b - - 0 60", 2);
        c[38] = Case("7k/8/5K2/8/8/8/3N4/8 w - - 0 60", 3);
    }

    function test_FewPieceEndgames_StatusAsChessrefCore() public pure {
        Case[] memory c = _cases();
        for (uint256 i; i < c.length; ++i) {
            bytes memory s = K.fen(c[i].fen);
            assertEq(ChessRules.validateState(s), 0, c[i].fen);
            assertEq(ChessRules.status(s), c[i].status, c[i].fen);
        }
    }

    function test_FewPieceEndgames_StatusAsTheOldLibrary() public pure {
        Case[] memory c = _cases();
        for (uint256 i; i < c.length; ++i) {
            bytes memory s = K.fen(c[i].fen);
            assertEq(ChessRules.status(s), ChessRulesOld.status(s), c[i].fen);
        }
    }

    function test_FewPieceEndgames_InsufficientMaterialAsTheOldLibrary() public pure {
        Case[] memory c = _cases();
        for (uint256 i; i < c.length; ++i) {
            bytes memory s = K.fen(c[i].fen);
            _assertMaterialAsOld(s);
        }
    }

    /// @dev 500 seeded random boards: both sides' insufficient material and "both" as the
    /// old per-square count has them.
    function test_RandomMinorPieceBoards_InsufficientMaterialAsTheOldLibrary() public pure {
        uint256 insufficient;
        uint256 sufficient;
        for (uint256 i; i < 500; ++i) {
            bytes memory s = _board(uint256(keccak256(abi.encode("material", i))));
            if (s.length == 0) continue;
            _assertMaterialAsOld(s);
            if (ChessRules.bothInsufficient(s)) ++insufficient;
            else ++sufficient;
        }
        // the boards exercise both verdicts
        assertGt(insufficient, 50, "insufficient boards");
        assertGt(sufficient, 50, "sufficient boards");
    }

    /// @dev The same boards' section 8 status as the old library's.
    function test_RandomMinorPieceBoards_StatusAsTheOldLibrary() public pure {
        uint256 decided;
        for (uint256 i; i < 500; ++i) {
            bytes memory s = _board(uint256(keccak256(abi.encode("material", i))));
            if (s.length == 0) continue;
            uint256 st = ChessRules.status(s);
            assertEq(st, ChessRulesOld.status(s), "status differs");
            if (st == ChessRules.CHECKMATE || st == ChessRules.STALEMATE) ++decided;
        }
        assertGt(decided, 0, "some boards mate or stalemate");
    }

    /// @dev 1,000 seeded random boards of a bare king to move: its status as the old library's,
    /// the stalemates, mates and king-step-only positions among them counted so that the
    /// bare king's step search is exercised both ways.
    function test_RandomBareKingBoards_StatusAsTheOldLibrary() public pure {
        uint256[4] memory seen;
        for (uint256 i; i < 1000; ++i) {
            bytes memory s = _bareKingBoard(uint256(keccak256(abi.encode("bare", i))));
            if (s.length == 0) continue;
            uint256 st = ChessRules.status(s);
            assertEq(st, ChessRulesOld.status(s), "status differs");
            if (st < 4) ++seen[st];
        }
        assertGt(seen[0], 100, "bare kings with a step");
        assertGt(seen[1], 10, "bare kings mated");
        assertGt(seen[2], 10, "bare kings stalemated");
    }

    function testFuzz_BareKingStatusAsTheOldLibrary(uint256 seed) public pure {
        bytes memory s = _bareKingBoard(seed);
        if (s.length == 0) return;
        assertEq(ChessRules.status(s), ChessRulesOld.status(s), "status differs");
    }

    function testFuzz_MaterialAndStatusAsTheOldLibrary(uint256 seed) public pure {
        bytes memory s = _board(seed);
        if (s.length == 0) return;
        _assertMaterialAsOld(s);
        assertEq(ChessRules.status(s), ChessRulesOld.status(s), "status differs");
    }

    function _assertMaterialAsOld(bytes memory s) internal pure {
        assertEq(ChessRules.insufficientMaterial(s, 1), ChessRulesOld.insufficientMaterial(s, 1), "white differs");
        assertEq(ChessRules.insufficientMaterial(s, -1), ChessRulesOld.insufficientMaterial(s, -1), "black differs");
        assertEq(ChessRules.bothInsufficient(s), ChessRulesOld.bothInsufficient(s), "both differs");
    }

    /// @dev A valid random board of `seed`: two kings, up to six knights and bishops of
    /// either colour (kept near the kings half the time, for checks and mates), a pawn, rook
    /// or queen on one board in four; the side to move random (flipped if the other side
    /// is in check). Empty if no valid board came out.
    function _board(uint256 seed) internal pure returns (bytes memory s) {
        s = new bytes(128);
        uint256 wk = _sq(seed);
        uint256 bk = _sq(seed >> 6);
        if (wk == bk) return "";
        s[wk] = bytes1(uint8(6));
        s[bk] = bytes1(uint8(0xfa));
        s[123] = bytes1(uint8(wk));
        s[11] = bytes1(uint8(bk));
        s[56] = (seed >> 12) % 2 == 0 ? bytes1(0x01) : bytes1(0xff);
        s[62] = 0xff;
        s[63] = 0xff;
        s[78] = 0xff;
        s[79] = 0xff;
        uint256 pieces = (seed >> 13) % 7;
        for (uint256 k; k <= pieces; ++k) {
            uint256 x = uint256(keccak256(abi.encode(seed, k)));
            uint256 sq = _sq(x);
            if ((x >> 12) % 2 == 0) {
                uint256 king = (x >> 13) % 2 == 0 ? wk : bk;
                uint256 near = king + 16 * ((x >> 14) % 5) + (x >> 17) % 5;
                if (near < 34 || (near - 34) & 0x88 != 0) continue;
                sq = near - 34;
            }
            if (s[sq] != 0) continue;
            // knights and bishops; the last piece a pawn, rook or queen on one board in four
            uint256 role = 2 + (x >> 20) % 2;
            if (k == pieces) {
                if ((x >> 21) % 4 != 0) continue;
                role = [uint256(1), 4, 5][(x >> 23) % 3];
                if (role == 1 && (sq < 8 || sq >= 112)) continue;
            }
            int8 code = int8(uint8(role));
            if ((x >> 9) % 2 == 0) code = -code;
            s[sq] = bytes1(uint8(code));
        }
        if (ChessRules.validateState(s) == ChessRules.OPPONENT_IN_CHECK) {
            s[56] = s[56] == bytes1(0x01) ? bytes1(0xff) : bytes1(0x01);
        }
        if (ChessRules.validateState(s) != 0) return "";
    }

    /// @dev A valid random board of `seed` whose side to move has its king only (on an edge
    /// half the time): the other side a king and up to six pieces of any kind, most within
    /// two squares of the bare king. Empty if no valid board came out.
    function _bareKingBoard(uint256 seed) internal pure returns (bytes memory s) {
        s = new bytes(128);
        bool whiteBare = (seed >> 12) % 2 == 0;
        uint256 bare = _sq(seed);
        // half the bare kings on the board's edge, where fewer pieces hem them in
        if ((seed >> 40) % 2 == 0) bare = (seed >> 41) % 2 == 0 ? bare & 0x07 : bare & 0x70;
        uint256 other = _sq(seed >> 6);
        if (bare == other) return "";
        s[bare] = bytes1(uint8(whiteBare ? 6 : 0xfa));
        s[other] = bytes1(uint8(whiteBare ? 0xfa : 6));
        s[123] = bytes1(uint8(whiteBare ? bare : other));
        s[11] = bytes1(uint8(whiteBare ? other : bare));
        s[56] = whiteBare ? bytes1(0x01) : bytes1(0xff);
        s[62] = 0xff;
        s[63] = 0xff;
        s[78] = 0xff;
        s[79] = 0xff;
        uint256 pieces = 1 + (seed >> 13) % 6;
        for (uint256 k; k < pieces; ++k) {
            uint256 x = uint256(keccak256(abi.encode(seed, k)));
            uint256 sq = _sq(x);
            if ((x >> 12) % 4 != 0) {
                uint256 near = bare + 16 * ((x >> 14) % 5) + (x >> 17) % 5;
                if (near < 34 || (near - 34) & 0x88 != 0) continue;
                sq = near - 34;
            }
            if (s[sq] != 0) continue;
            uint256 role = 1 + (x >> 20) % 5;
            if (role == 1 && (sq < 8 || sq >= 112)) continue;
            s[sq] = bytes1(uint8(whiteBare ? uint8(256 - role) : uint8(role)));
        }
        if (ChessRules.validateState(s) != 0) return "";
    }

    /// @dev A random 0x88 board square.
    function _sq(uint256 r) internal pure returns (uint256) {
        return ((r >> 3) % 8) * 16 + r % 8;
    }
}
