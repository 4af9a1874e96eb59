// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {RealGames} from "./ChessRefereeGames.t.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {ChessRules, IllegalMove} from "../src/ChessRules.sol";

/// @notice Random play against the referee: legal sequences never corrupt the committed
/// position, illegal moves never change anything, the clock windows never overlap.
contract ChessRefereeFuzzTest is RefereeBase {
    /// @dev A pseudo-random legal move of `s` (uniform tries, then an exhaustive scan),
    /// `found = false` only when the side to move has no legal move.
    function _randomLegal(bytes memory s, uint256 seed) internal pure returns (bool found, uint24 mv) {
        int256 side = uint8(s[56]) == 1 ? int256(1) : -1;
        uint256[16] memory own;
        uint256 n;
        for (uint256 sq; sq < 120; ++sq) {
            if (sq & 0x88 != 0) continue;
            int256 p = int8(uint8(s[sq]));
            if (p != 0 && (p > 0) == (side > 0) && n < 16) own[n++] = sq;
        }
        for (uint256 t; t < 32; ++t) {
            uint256 r = uint256(keccak256(abi.encode(seed, t)));
            uint256 from = own[r % n];
            uint256 to = ((r >> 8) % 8) * 16 + ((r >> 16) % 8);
            mv = _withPromotion(s, from, to, 2 + (r >> 24) % 4);
            if (ChessRules.check(s, mv) == 0) return (true, mv);
        }
        for (uint256 i; i < n; ++i) {
            for (uint256 to; to < 120; ++to) {
                if (to & 0x88 != 0) continue;
                mv = _withPromotion(s, own[i], to, 5);
                if (ChessRules.check(s, mv) == 0) return (true, mv);
            }
        }
        return (false, 0);
    }

    function _withPromotion(bytes memory s, uint256 from, uint256 to, uint256 promo) internal pure returns (uint24) {
        int256 p = int8(uint8(s[from]));
        bool promotes = (p == 1 && to < 8) || (p == -1 && to >= 112);
        return uint24((from << 16) | (to << 8) | (promotes ? promo : 0));
    }

    /// forge-config: default.fuzz.runs = 48
    function testFuzz_RandomLegalGamesKeepCommittedStateExact(uint256 seed) public {
        uint256 id = _startGame();
        for (uint256 i; i < 40; ++i) {
            bytes memory s = pos[id].state;
            (bool found, uint24 mv) = _randomLegal(s, uint256(keccak256(abi.encode(seed, i))));
            assertTrue(found, "a running game always has a legal move");
            bytes memory expected = ChessRules.play(s, mv);
            vm.warp(block.timestamp + 1);
            _move(id, _mover(id), mv);
            assertEq(pos[id].state, expected);
            assertEq(ChessRules.validateState(pos[id].state), 0);
            assertEq(_ply(id), i + 1);
            if (_phase(id) != PHASE_RUNNING) {
                assertTrue(ChessRules.status(expected) != 0, "only a decided position ends a game by a move");
                return;
            }
            assertEq(ChessRules.status(expected), 0);
            assertEq(ref.getGame(id).commitment, ref.positionCommitment(pos[id].state, pos[id].history, pos[id].clock));
        }
    }

    /// @dev Plays `n` plies of a real game so fuzzed moves meet varied positions.
    function _midgame(uint256 n) internal returns (uint256 id) {
        id = _startGame();
        uint24[] memory mvs = _uciList(RealGames.mvlCaruana2019());
        for (uint256 i; i < n; ++i) {
            _move(id, _mover(id), mvs[i]);
        }
    }

    function _tryMove(uint256 id, uint24 mv) internal {
        Position memory p = pos[id];
        uint256 code = ChessRules.check(p.state, mv);
        bytes32 before = ref.getGame(id).commitment;
        if (code == 0) {
            _move(id, _mover(id), mv);
            assertEq(pos[id].state, ChessRules.play(p.state, mv));
            return;
        }
        address mover = _mover(id);
        vm.prank(mover);
        vm.expectRevert(abi.encodeWithSelector(IllegalMove.selector, uint8(code)));
        ref.move(id, p.state, p.history, p.clock, mv);
        assertEq(ref.getGame(id).commitment, before);
        assertEq(_phase(id), PHASE_RUNNING);
        assertEq(address(ref).balance, 2 * STAKE);
    }

    /// forge-config: default.fuzz.runs = 256
    function testFuzz_RawMoveWordIsCheckedLikeChessRules(uint24 mv, uint8 plies) public {
        uint256 id = _midgame(bound(plies, 0, 60));
        _tryMove(id, mv);
    }

    /// forge-config: default.fuzz.runs = 256
    function testFuzz_OnBoardMoveIsCheckedLikeChessRules(uint8 from, uint8 to, uint8 promo, uint8 plies) public {
        uint256 id = _midgame(bound(plies, 0, 60));
        uint256 f = (uint256(from) % 8) * 16 + (uint256(from) >> 5);
        uint256 t = (uint256(to) % 8) * 16 + (uint256(to) >> 5);
        _tryMove(id, uint24((f << 16) | (t << 8) | (promo % 7)));
    }

    function testFuzz_ClockWindowsNeverOverlap(uint32 wait) public {
        uint256 id = _startGame();
        _playAll(id, "e2e4 e7e5", 1);
        Position memory p = pos[id];
        uint256 deadline = block.timestamp + INITIAL + INCREMENT - 1 + ref.GRACE_PERIOD();
        vm.warp(block.timestamp + bound(wait, 0, 2 * INITIAL));
        if (block.timestamp <= deadline) {
            vm.prank(bob);
            vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, deadline));
            ref.claimTimeout(id, p.state, p.history, p.clock);
            _move(id, "g1f3");
            assertEq(_ply(id), 3);
        } else {
            vm.prank(alice);
            vm.expectRevert(IChessRefereeTypes.TimeUp.selector);
            ref.move(id, p.state, p.history, p.clock, _uci("g1f3"));
            vm.prank(bob);
            ref.claimTimeout(id, p.state, p.history, p.clock);
            (uint8 result,) = _result(id);
            assertEq(result, BLACK_WINS);
        }
    }

    function testFuzz_ForgedPositionIsRejected(uint8 index, uint8 value) public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        uint8 flip = value == 0 ? 1 : value; // any non-zero xor changes the byte
        p.state[index % 128] = bytes1(uint8(p.state[index % 128]) ^ flip);
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.move(id, p.state, p.history, p.clock, _uci("e2e4"));
    }
}
