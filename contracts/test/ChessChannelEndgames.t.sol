// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelBase} from "./ChessChannelBase.t.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ClockWord} from "../src/ClockWord.sol";

/// @notice Registrations of bare-king endgames (issue 27 made their section 8 status
/// cheaper): each registered position, reached by a move from an undecided one, pends the
/// status chessref-core gives it (`chessref play --fen START MOVES`).
contract ChessChannelEndgamesTest is ChannelBase {
    struct Line {
        string start;
        string moves;
        uint256 status;
    }

    function _lines() internal pure returns (Line[] memory l) {
        l = new Line[](8);
        // a king takes the last rook: king against king
        l[0] = Line("8/8/8/8/1k6/8/3r4/5K2 w - - 0 1", "f1e1 b4b5 e1d2", ChessRules.INSUFFICIENT_MATERIAL);
        // a bishop takes the last knight: a bare king in mid-board, its fourth step legal
        l[1] = Line("1B6/8/2n5/8/4k3/7K/8/8 w - - 0 1", "h3g3 c6a7 b8a7", ChessRules.INSUFFICIENT_MATERIAL);
        // a bishop takes the last knight and stalemates the bare king (stalemate first)
        l[2] = Line("k7/8/1K6/8/8/3n4/8/6B1 w - - 0 1", "g1h2 d3e5 h2e5", ChessRules.STALEMATE);
        // a queen stalemates the bare king
        l[3] = Line("2Q5/8/8/1K6/8/8/8/k7 w - - 0 1", "b5b4 a1a2 c8c1", ChessRules.STALEMATE);
        // a rook mates the bare king from the far corner
        l[4] = Line("6k1/8/6K1/8/8/8/8/R7 w - - 0 1", "a1a2 g8h8 a2a8", ChessRules.CHECKMATE);
        // the same check without the king's guard: the bare king steps away
        l[5] = Line("6k1/8/8/8/8/8/8/R5K1 w - - 0 1", "g1g2 g8h8 a1a8", ChessRules.ONGOING);
        // a bishop takes the last knight: a bare king in mid-board, two bishops on one colour
        // covering its first five steps
        l[6] = Line("B7/8/8/1B2n3/8/4k3/8/3K4 w - - 0 1", "d1c1 e5c4 b5c4", ChessRules.INSUFFICIENT_MATERIAL);
        // a queen leaves the bare king one step of eight: undecided
        l[7] = Line("5Q2/8/8/4k3/8/8/3K4/8 w - - 0 1", "f8f7 e5e4 f7f6", ChessRules.ONGOING);
    }

    function test_Register_BareKingEndgamesPendTheirStatus() public {
        Line[] memory l = _lines();
        for (uint256 i; i < l.length; ++i) {
            bytes memory start = _fen(l[i].start);
            uint256 id = _createChannel(alice, bob, start);
            _join(id, bob, STAKE);
            _resetLine(id, start);
            _extend(l[i].moves);
            _register(line.length - 1);
            assertEq(ClockWord.pendingStatus(pos[id].clock), l[i].status, l[i].moves);
            assertEq(pos[id].state, line[line.length - 1].state, "the registered position");
        }
    }
}
