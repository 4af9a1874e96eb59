// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelBase} from "./ChessChannelBase.t.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {Move, Delegation, Result, Auth} from "../src/ChannelHash.sol";

/// @notice Fuzzed channel paths: random signers, plies, claimed times and delegation ranges.
contract ChessChannelFuzzTest is ChannelBase {
    /// @dev Knights out and back twice: 16 plies, no capture, never decided.
    string internal constant LINE = "g1f3 g8f6 b1c3 b8c6 f3g1 f6g8 c3b1 c6b8 g1f3 g8f6 b1c3 b8c6 f3g1 f6g8 c3b1 c6b8";

    function testFuzz_Settle_OnlyTheTwoPlayersSignaturesSettle(
        uint256 whitePk,
        uint256 blackPk,
        bool realWhite,
        bool realBlack,
        uint8 result
    ) public {
        whitePk = realWhite ? ALICE_PK : bound(whitePk, 1, N - 1);
        blackPk = realBlack ? BOB_PK : bound(blackPk, 1, N - 1);
        result = uint8(bound(result, 1, 3));
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: 9, position: 0, result: result});
        bytes32 d = _resultDigest(r);
        (Auth memory w, Auth memory b) = (_direct(_sig(whitePk, d)), _direct(_sig(blackPk, d)));
        if (whitePk != ALICE_PK) {
            vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        } else if (blackPk != BOB_PK) {
            vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob));
        }
        channel.settle(r, w, b);
        if (whitePk == ALICE_PK && blackPk == BOB_PK) assertEq(ref.getGame(id).result, result);
    }

    function testFuzz_Register_AnyPlyContinuesOnChainAtThatPly(uint8 plies) public {
        uint256 id = _startChannelGame();
        _extend(LINE);
        uint256 n = bound(plies, 1, 16);
        _register(n);
        assertEq(_ply(id), n);
        assertEq(pos[id].state, line[n].state);
    }

    /// @dev v2: the signed times are charged by their stamps (white's first move is free),
    /// the author keeps its signed time, and the side to move is charged from the stamp of
    /// the registered move (at most STAMP_TOLERANCE old) to the window's end, down to 0.
    function testFuzz_Register_BudgetsAreTheSignedTimes(uint32 spentWhite, uint32 spentBlack, uint32 delay) public {
        uint256 id = _startChannelGame();
        spentWhite = uint32(bound(spentWhite, 0, INITIAL));
        spentBlack = uint32(bound(spentBlack, 0, INITIAL));
        delay = uint32(bound(delay, 0, channel.STAMP_TOLERANCE()));
        line.push(_next(line[0], "e2e4", 0));
        line.push(_next(line[1], "e7e5", spentBlack));
        line.push(_next(line[2], "g1f3", spentWhite));
        vm.warp(line[3].timestamp + delay);
        _register(3);
        (uint256 last, uint256 wb, uint256 bb,,,,,,) = ref.decodeClock(pos[id].clock);
        assertEq(last, block.timestamp + WINDOW, "frozen until the response window ends");
        assertEq(wb, INITIAL + INCREMENT - spentWhite + INCREMENT + 15, "author: its signed time + grace");
        uint256 blackTime = INITIAL - spentBlack + INCREMENT + 15;
        uint256 charge = WINDOW + delay;
        assertEq(bb, blackTime > charge ? blackTime - charge : 0, "side to move: charged from the stamp");
    }

    function testFuzz_Transition_NobodyCutsTheOpponentsTime(uint32 claimed) public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        Move memory m = _next(line[1], "e7e5", 2);
        vm.assume(claimed != m.whiteTime);
        m.whiteTime = claimed; // black claims some other time for white
        (uint256 code,) = channel.transitionCode(id, INCREMENT, line[1], m);
        assertEq(code, 4);
    }

    function testFuzz_Transition_OwnTimeRaisedAtMostByIncrement(uint32 claimed) public {
        uint256 id = _startChannelGame();
        Move memory m = _next(line[0], "e2e4", 0);
        m.whiteTime = claimed;
        (uint256 code,) = channel.transitionCode(id, INCREMENT, line[0], m);
        assertEq(code, claimed <= INITIAL + INCREMENT ? 0 : 4);
    }

    function testFuzz_SessionKey_ValidExactlyInItsRange(uint32 firstPly, uint32 lastPly, uint32 ply) public {
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: ply, position: 0, result: DRAW});
        bytes32 d = _resultDigest(r);
        Auth memory w = _bySession(ALICE_PK, SESSION1_PK, _delegation(id, SESSION1_PK, firstPly, lastPly), d);
        Auth memory b = _direct(_sig(BOB_PK, d));
        bool inRange = firstPly <= ply && ply <= lastPly;
        if (!inRange) vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
        if (inRange) assertEq(_credit(alice), STAKE);
    }
}
