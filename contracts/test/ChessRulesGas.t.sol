// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ChessRulesView} from "../src/ChessRulesView.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";

/// @notice What the referee runs on every move: the state arrives in calldata,
/// is copied to memory, and goes through applyMove + status + repetitionKey.
contract RulesStep {
    function step(bytes calldata state, uint256 move)
        external
        view
        returns (bytes memory next, uint256 status, uint256 gasUsed, uint256 parts)
    {
        next = state;
        uint256 start = gasleft();
        uint256 code = ChessRules.applyMove(next, move);
        uint256 a = gasleft();
        status = ChessRules.status(next);
        uint256 b = gasleft();
        bytes32 key = ChessRules.repetitionKey(next);
        gasUsed = start - gasleft();
        // per-part split for profiling: apply << 64 | status << 32 | key
        parts = ((start - a) << 64) | ((a - b) << 32) | (b + gasUsed - start);
        require(code == 0 && key != bytes32(0), "illegal move in fixture game");
    }
}

/// @notice Gas of the rules part of a referee move over real games (lichess,
/// May 2025, CC0), transcribed as UCI. Prints median / p90 / max per move; the
/// budget assertions keep regressions out.
contract ChessRulesGasTest is Test {
    address internal constant CONSOLE = 0x000000000000000000636F6e736F6c652e6c6f67;

    function _log(string memory label, uint256 value) internal view {
        (bool ok,) = CONSOLE.staticcall(abi.encodeWithSignature("log(string,uint256)", label, value));
        ok;
    }

    function _games() internal pure returns (string[] memory g) {
        g = new string[](8);
        // https://lichess.org/oBJ0oVy6
        g[0] =
            "e2e4 g7g6 g1f3 f8g7 d2d4 e7e6 d4d5 e6d5 e4d5 d8e7 f1e2 g8f6 c2c4 d7d6 e1g1 c8g4 f1e1 e7d7 f3d4 e8g8 b1c3 c7c5 d4f3 g4f3 e2f3 a7a6 c1d2 b7b5 c4b5 a6b5 b2b3 b5b4 c3e4 f6e4 f3e4 g7a1 d1a1 f8e8 d2h6 f7f6 a1f6 d7f7 f6d6 b8d7 g1f1 a8a2 h6g5 f7f2";
        // https://lichess.org/dCuN4yxp
        g[1] =
            "e2e4 e7e6 f2f4 d7d5 e4d5 e6d5 g1f3 f8d6 f1e2 d6f4 d2d4 f4d6 e1g1 g8e7 c2c4 c7c6 b1c3 e8g8 c1g5 f7f6 g5h4 c8e6 h2h3 d5c4 b2b3 d6b4 a1c1 c4b3 a2b3 b8d7 c3e4 e7d5 h4f2 g8h8 d1c2 b4e7 e2c4 d7b6 f1d1 d5b4 c2b2 e6f5 e4c5 d8c8 d4d5 b6d5 c4d5 b4d5 b3b4 a7a6 c5b3 d5b4 b3d4 b4d3 b2c2 d3f2 d4f5 f2d1 f5e7 c8e6 e7f5 d1e3 f5e3 e6e3 g1h1 a6a5 c1e1 e3f4 c2b3 b7b5 e1e7 a8e8 b3f7 f4c1 f3g1 f8f7 e7e8 f7f8 e8f8";
        // https://lichess.org/EvZlrlg6
        g[2] =
            "d2d4 d7d5 g1f3 g8f6 c1f4 c8f5 e2e3 e7e6 h2h3 b8d7 f1d3 f5d3 d1d3 a7a6 a2a3 c7c5 c2c3 a8c8 b1d2 c5c4 d3c2 f8e7 e1g1 h7h6 f1e1 e8g8 b2b3 b7b5 b3c4 d5c4 e3e4 d7b6 a1d1 b6a4 d1a1 d8a5 d2b1 g7g5 f4e5 f6d7 e5g3 e7f6 e4e5 f6g7 h3h4 g5g4 f3h2 h6h5 f2f3 f7f5 e5f6 d7f6 e1e6 c8e8 e6e8 f8e8 g3e5 f6d5 c2g6 e8e5 d4e5 a5b6 g1h1 b6g6 f3g4 h5g4 b1d2 g7e5 a1e1 e5h2 h1h2 g4g3 h2h1 a4c3 d2f3 c3e4 f3e5 e4f2 h1g1 g6f6 e5f3 d5f4 e1e8 g8f7 e8e1 f4d3 e1f1 c4c3 f3g5 f7f8 g5h7 f8f7 h7f6 f7f6 a3a4 b5b4 h4h5 b4b3 h5h6 c3c2 h6h7 f6g7 h7h8q g7h8 f1f2 g3f2 g1h2 c2c1q g2g3 c1e3";
        // https://lichess.org/n6AALtuw
        g[3] =
            "e2e4 e7e5 g1f3 d7d5 e4d5 e5e4 f3g1 g8f6 f1c4 f8c5 f2f3 e8g8 b1c3 c8f5 d2d4 e4d3 c2d3 f8e8 g1e2 a7a6 d3d4 c5b4 e1g1 b7b5 c4b3 c7c6 d5c6 b8c6 a2a3 b4a5 c1f4 a5b6 f4e3 e8e3 d1d2 e3e8 a1d1 a8c8 g1h1 c6a5 b3a2 d8d6 b2b4 a5c6 d4d5 c6e5 d2f4 d6d7 e2c1 c8c3 d1e1 c3c1 e1c1 e5d3 f4d2 d3c1 f1c1 d7d6 c1c6 d6d8 d5d6 f5e6 a2e6 e8e6 g2g3 d8d7 c6b6 f6d5 b6b8 e6e8 b8e8 d7e8 d2d5 e8e1 h1g2 e1e2 g2h3 e2e6 d5e6 f7e6 d6d7 g8f8 d7d8q f8f7 d8d7 f7f6 d7d8 f6e5 d8g5 e5d6 g5g7 d6d5 g7h7 d5e5 h7e4 e5d6 e4d3 d6e7 d3d4 e7f7 d4a7 f7f6 a7a6 f6e5 a6b5 e5f6 b5e8 f6e5 a3a4 e5d6 a4a5 d6d5 a5a6 d5e5 a6a7 e5d5 a7a8q d5e5 a8c8 e5f5 c8c2 f5e5 e8h8 e5d6 f3f4 d6e7 h8d8 e7f7 c2c8 f7g6 c8c7 g6f5 d8d3 f5f6 c7c4 f6e7 d3c3 e7f7 c4c7";
        // https://lichess.org/BbZSxiw9
        g[4] =
            "e2e4 d7d5 e4d5 g8f6 b1c3 f6d5 f1c4 c7c6 g1f3 c8g4 e1g1 e7e6 h2h3 g4h5 f1e1 f8e7 d2d3 e8g8 c3e4 b8d7 e4g3 h5g6 c2c3 d7b6 c4b3 e7d6 g3e4 d6c7 d3d4 d5f4 b3c2 b6d5 a2a3 b7b6 e4g3 d8b8 f3e5 c7e5 e1e5 g6c2 d1c2 f4g6 e5e1 b8d8 c3c4 d5f6 c1e3 d8d6 g3e4 f6e4 c2e4 a8d8 a1d1 d6d7 e4f3 d7d6 c4c5 d6d5 f3d5 d8d5 c5b6 a7b6 d1c1 g6e7 c1c3 f8c8 c3b3 b6b5 b3c3 e7f5 e1c1 f5d4 e3d4 d5d4 c3c6 c8c6 c1c6 g7g6 c6c5 b5b4 a3a4 d4d2 a4a5 d2b2 a5a6 b2a2 c5b5 a2a6 b5b4 g8g7 g1h2 h7h5 f2f3 a6a2 h2g3 g6g5 b4b5 f7f6 b5b7 g7g6 b7b6 e6e5 b6b8 h5h4 g3h2 g6f5 b8f8 a2a6 f8c8 f5f4 c8c4 f4f5 c4b4 a6c6 b4a4 c6e6 a4e4 e6d6 e4a4 d6d4 a4a6 d4d2 a6a4 d2c2 a4e4 c2d2 e4c4 d2d1 c4c6 d1d4 c6c5 f5f4 c5c6 f6f5 c6f6 e5e4 f3e4 d4e4 f6c6 e4e2 c6c4 e2e4 c4c3 g5g4 h3g4 f5g4 c3c4 e4c4 h2g1 g4g3 g1f1 c4c2 f1e1 c2g2 e1d1";
        // https://lichess.org/hdVYsEMH
        g[5] =
            "d2d3 d7d5 g1f3 c7c6 g2g3 c8f5 f1g2 f5g6 f3h4 b8d7 b1d2 e7e5 e1g1 g8f6 d2b3 f8d6 c1g5 d8c7 a2a4 a7a6 d1d2 d7c5 b3c5 d6c5 b2b4 c5d6 f1e1 h7h6 h4g6 f7g6 g5f6 g7f6 b4b5 a6b5 a4b5 a8a1 e1a1 e8f7 b5c6 c7c6 c2c4 e5e4 d3e4 d5e4 d2c2 h8e8 a1b1 f7g7 g1h1 d6c5 f2f3 f6f5 f3e4 f5e4 b1f1 g6g5 c2c3 g7h7 f1f6 c6d7 f6f1 b7b6 c3f6 c5d4 f6f7 d7f7 f1f7 h7g6 f7d7 d4c5 h2h3 g6f6 h3h4 g5h4 g3h4 e8e5 h1h2 f6f5 g2h3 f5f4 d7f7 f4e3 f7f6 h6h5 h3f1 e3d4 f6g6 d4c4 g6g5 c5d6 f1g2 e5g5";
        // https://lichess.org/pmeHvW5A
        g[6] =
            "e2e4 d7d5 e4d5 g8f6 g1f3 f6d5 f1e2 d5f6 d2d3 e7e6 b1d2 f8d6 e1g1 e8g8 f1e1 b8c6 d2c4 d6e7 c1f4 b7b6 h2h3 c8b7 f3h2 f6d5 f4g3 c6d4 e2f3 d4f3 d1f3 a8b8 f3g4 d5f6 g4e2 d8d5 h2f3 b8c8 a1c1 c7c5 c4e3 d5h5 e3f1 f6d5 f1h2 f8e8 h2g4 e7f6 g4f6 d5f6 e2e5 b7f3 e5d6 f3a8 a2a4 e8d8 d6f4 h5g6 a4a5 f6h5 f4h4 h5g3 f2g3 a8c6 a5b6 a7b6 c1a1 d8d4 g3g4 c8d8 a1a7 h7h6 h4g3 h6h5 g4g5 h5h4 g3e3 d4d5 e1f1 d5g5 f1f7 g5g2 g1f1 g2g1 f1e2 g6g2 e3f2 c6f3 e2e3 g2g5 e3f3 g1g3 f3e2";
        // https://lichess.org/3ztfOLbY
        g[7] =
            "b2b3 e7e5 c1b2 b8c6 g1f3 d7d6 e2e3 f7f5 c2c4 g8f6 d2d3 f8e7 b1d2 e8g8 f1e2 c8e6 a1c1 h7h6 e1g1 g7g5 e3e4 f5e4 d2e4 f6e4 d3e4 g5g4 f3e1 h6h5 g2g3 e7g5 c1b1 d8e7 e1d3 e7h7 c4c5 h7e4 c5d6 c7d6 f1e1 e6d5 f2f3 e4e3 d3f2 f8f3 d1d5 g8g7 e2f3 e3f3 d5d6 a8f8 b2e5 c6e5 d6e5 g7h6 e5c5 f8f6 e1e8 h5h4 b1e1 h4h3 e8h8 h6g7 f2e4 f3g2";
    }

    function _sort(uint256[] memory a) internal pure {
        for (uint256 i = 1; i < a.length; ++i) {
            uint256 v = a[i];
            uint256 j = i;
            while (j > 0 && a[j - 1] > v) {
                a[j] = a[j - 1];
                --j;
            }
            a[j] = v;
        }
    }

    function _logParts(string memory label, uint256[] memory values, uint256 n) internal view {
        uint256[] memory sorted = new uint256[](n);
        for (uint256 i = 0; i < n; ++i) {
            sorted[i] = values[i];
        }
        _sort(sorted);
        _log(string.concat(label, " median"), sorted[n / 2]);
        _log(string.concat(label, " p90"), sorted[(n * 9) / 10]);
        _log(string.concat(label, " max"), sorted[n - 1]);
    }

    function test_Gas_RulesPartPerMoveOverRealGames() public {
        RulesStep stepper = new RulesStep();
        string[] memory g = _games();
        uint256[] memory all = new uint256[](1000);
        uint256[] memory applyGas = new uint256[](1000);
        uint256[] memory statusGas = new uint256[](1000);
        uint256[] memory keyGas = new uint256[](1000);
        uint256 n;
        uint256 mates;
        for (uint256 i = 0; i < g.length; ++i) {
            uint256[] memory moves = K.parseLine(g[i]);
            bytes memory s = ChessRules.initialState();
            uint256 st;
            for (uint256 j = 0; j < moves.length; ++j) {
                assertEq(st, 0, "game continued after its end");
                uint256 used;
                uint256 parts;
                (s, st, used, parts) = stepper.step(s, moves[j]);
                applyGas[n] = parts >> 64;
                statusGas[n] = (parts >> 32) & 0xffffffff;
                keyGas[n] = parts & 0xffffffff;
                all[n++] = used;
            }
            if (st == ChessRules.CHECKMATE) ++mates;
        }
        assertEq(mates, 3, "three of the games end in mate");
        uint256[] memory sorted = new uint256[](n);
        for (uint256 i = 0; i < n; ++i) {
            sorted[i] = all[i];
        }
        _sort(sorted);
        uint256 median = sorted[n / 2];
        uint256 p90 = sorted[(n * 9) / 10];
        uint256 max = sorted[n - 1];
        _log("rules gas per move, plies", n);
        _log("rules gas per move, median", median);
        _log("rules gas per move, p90", p90);
        _log("rules gas per move, max", max);
        _logParts("applyMove", applyGas, n);
        _logParts("status", statusGas, n);
        _logParts("repetitionKey", keyGas, n);
        assertLe(median, 20000, "median budget");
        assertLe(p90, 30000, "p90 budget");
        assertLe(max, 80000, "max budget");
    }
}
