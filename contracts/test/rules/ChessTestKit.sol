// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules} from "../../src/ChessRules.sol";

/// @notice Test-only helpers for the rules tests: FEN and UCI parsing, a
/// brute-force legal-move list (every from/to pair through `ChessRules.check`,
/// independent of the library's own move search) and perft.
library ChessTestKit {
    /// @notice 0x88 index of a square name such as "e4".
    function sq(string memory name) internal pure returns (uint256) {
        bytes memory b = bytes(name);
        require(b.length == 2, "square name");
        return _square(b, 0);
    }

    function _square(bytes memory b, uint256 at) private pure returns (uint256) {
        uint256 file = uint8(b[at]) - 97;
        uint256 rank = uint8(b[at + 1]) - 48;
        require(file < 8 && rank >= 1 && rank <= 8, "square");
        return (8 - rank) * 16 + file;
    }

    /// @notice Packed move of a UCI string ("e2e4", "e7e8q").
    function uci(string memory text) internal pure returns (uint256 move) {
        bytes memory b = bytes(text);
        require(b.length == 4 || b.length == 5, "uci length");
        move = (_square(b, 0) << 16) | (_square(b, 2) << 8);
        if (b.length == 5) {
            bytes1 p = b[4];
            uint256 promotion = p == "n" ? 2 : p == "b" ? 3 : p == "r" ? 4 : p == "q" ? 5 : 0;
            require(promotion != 0, "uci promotion");
            move |= promotion;
        }
    }

    /// @notice Packed raw move from its three bytes.
    function raw(uint256 from, uint256 to, uint256 promotion) internal pure returns (uint256) {
        return (from << 16) | (to << 8) | promotion;
    }

    /// @notice The 128-byte state of a FEN (no validation beyond syntax).
    function fen(string memory text) internal pure returns (bytes memory s) {
        bytes memory f = bytes(text);
        s = new bytes(128);
        uint256 i;
        uint256 row;
        uint256 col;
        for (; f[i] != " "; ++i) {
            bytes1 c = f[i];
            if (c == "/") {
                ++row;
                col = 0;
            } else if (c >= "1" && c <= "8") {
                col += uint8(c) - 48;
            } else {
                int8 code = _pieceCode(c);
                uint256 index = row * 16 + col;
                s[index] = bytes1(uint8(code));
                if (code == 6) s[123] = bytes1(uint8(index));
                if (code == -6) s[11] = bytes1(uint8(index));
                ++col;
            }
        }
        ++i;
        bool white = f[i] == "w";
        s[56] = white ? bytes1(0x01) : bytes1(0xff);
        i += 2;
        s[62] = 0xff;
        s[63] = 0xff;
        s[78] = 0xff;
        s[79] = 0xff;
        for (; f[i] != " "; ++i) {
            if (f[i] == "K") s[79] = 0;
            else if (f[i] == "Q") s[78] = 0;
            else if (f[i] == "k") s[63] = 0;
            else if (f[i] == "q") s[62] = 0;
        }
        ++i;
        if (f[i] != "-") {
            uint256 ep = _square(f, i);
            // the en-passant byte belongs to the side that just moved
            s[white ? 61 : 77] = bytes1(uint8(ep));
            i += 2;
        } else {
            ++i;
        }
        ++i;
        uint256 halfmove;
        for (; i < f.length && f[i] != " "; ++i) {
            halfmove = halfmove * 10 + uint8(f[i]) - 48;
        }
        ++i;
        uint256 fullmove;
        for (; i < f.length && f[i] != " "; ++i) {
            fullmove = fullmove * 10 + uint8(f[i]) - 48;
        }
        if (fullmove == 0) fullmove = 1;
        uint256 count = 2 * (fullmove - 1) + (white ? 0 : 1);
        s[10] = bytes1(uint8(halfmove > 255 ? 255 : halfmove));
        s[8] = bytes1(uint8(count / 128));
        s[9] = bytes1(uint8(count % 128));
    }

    function _pieceCode(bytes1 c) private pure returns (int8) {
        if (c == "P") return 1;
        if (c == "N") return 2;
        if (c == "B") return 3;
        if (c == "R") return 4;
        if (c == "Q") return 5;
        if (c == "K") return 6;
        if (c == "p") return -1;
        if (c == "n") return -2;
        if (c == "b") return -3;
        if (c == "r") return -4;
        if (c == "q") return -5;
        if (c == "k") return -6;
        revert("fen piece");
    }

    /// @notice Every legal move, by asking `check` about every (own piece, square) pair
    /// and every promotion: slow, but independent of the library's move search.
    function legalMoves(bytes memory s) internal pure returns (uint256[] memory moves) {
        uint256[] memory buffer = new uint256[](320);
        uint256 n;
        bool white = s[56] == 0x01;
        for (uint256 from = 0; from < 120; ++from) {
            if (from & 8 != 0) continue;
            int8 v = int8(uint8(s[from]));
            if (v == 0 || (v > 0) != white) continue;
            for (uint256 to = 0; to < 120; ++to) {
                if (to & 8 != 0) continue;
                uint256 move = (from << 16) | (to << 8);
                uint256 code = ChessRules.check(s, move);
                if (code == 0) {
                    buffer[n++] = move;
                } else if (code == ChessRules.PROMOTION_REQUIRED) {
                    for (uint256 p = 2; p <= 5; ++p) {
                        if (ChessRules.check(s, move | p) == 0) buffer[n++] = move | p;
                    }
                }
            }
        }
        moves = new uint256[](n);
        for (uint256 i = 0; i < n; ++i) {
            moves[i] = buffer[i];
        }
    }

    /// @notice Leaf count of the legal-move tree of `depth` plies.
    function perft(bytes memory s, uint256 depth) internal pure returns (uint256 nodes) {
        uint256[] memory moves = legalMoves(s);
        if (depth == 1) return moves.length;
        for (uint256 i = 0; i < moves.length; ++i) {
            nodes += perft(ChessRules.play(s, moves[i]), depth - 1);
        }
    }

    /// @notice Plays space-separated UCI moves, reverting on the first illegal one.
    function playAll(bytes memory s, string memory line) internal pure returns (bytes memory) {
        bytes memory b = bytes(line);
        uint256 start;
        for (uint256 i = 0; i <= b.length; ++i) {
            if (i == b.length || b[i] == " ") {
                if (i > start) {
                    bytes memory word = new bytes(i - start);
                    for (uint256 j = 0; j < word.length; ++j) {
                        word[j] = b[start + j];
                    }
                    s = ChessRules.play(s, uci(string(word)));
                }
                start = i + 1;
            }
        }
        return s;
    }

    /// @notice Splits space-separated UCI moves into packed moves.
    function parseLine(string memory line) internal pure returns (uint256[] memory moves) {
        bytes memory b = bytes(line);
        uint256 count;
        for (uint256 i = 0; i < b.length; ++i) {
            if (b[i] != " " && (i == 0 || b[i - 1] == " ")) ++count;
        }
        moves = new uint256[](count);
        uint256 n;
        uint256 start;
        for (uint256 i = 0; i <= b.length; ++i) {
            if (i == b.length || b[i] == " ") {
                if (i > start) {
                    bytes memory word = new bytes(i - start);
                    for (uint256 j = 0; j < word.length; ++j) {
                        word[j] = b[start + j];
                    }
                    moves[n++] = uci(string(word));
                }
                start = i + 1;
            }
        }
    }

    /// @notice A copy of `s` with byte `i` set to `v`.
    function with(bytes memory s, uint256 i, uint8 v) internal pure returns (bytes memory t) {
        t = bytes.concat(s);
        t[i] = bytes1(v);
    }
}
