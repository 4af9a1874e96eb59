// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {ChannelBase} from "./ChessChannelBase.t.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {Move, Delegation, Resignation, Result, Receipt, Auth} from "../src/ChannelHash.sol";
import {OwnedWallet, RefusingWallet} from "./mocks/Wallets.sol";

/// @notice The six findings of the review of off-chain play v1 (issue 16), each tried as the
/// cheater would against v2, and shown failing: the honest side wins, or the game goes on.
contract ChessChannelV2AttacksTest is ChannelBase {
    /// @dev 1. f3 e5 2. g4 a6 (black misses Qh4#) 3. Nc3 b6 4. e4 c6: plies 1..8.
    function _missedMateGame() internal returns (uint256 id, Move memory mate) {
        id = _startChannelGame();
        _extend("f2f3 e7e5 g2g4 a7a6 b1c3 b7b6 e2e4 c7c6");
        mate = _next(line[3], "d8h4", 2); // black signs Qh4# as ply 4, after the fact
    }

    /// @dev Black registers (ply-3 g4, its retroactive ply-4 mate).
    function _registerRetroactiveMate(Move memory mate) internal {
        _tryRegister(bob, line[3], mate, "");
    }

    /// @dev `who` registers (`q`, `m`) each signed directly by its author, no receipt,
    /// expecting `revertData` (empty: success). The signatures are made before the prank.
    function _tryRegister(address who, Move memory q, Move memory m, bytes memory revertData) internal {
        Auth memory qa = _byAuthor(q);
        Auth memory ma = _byAuthor(m);
        Receipt memory none = _noReceipt();
        if (revertData.length != 0) vm.expectRevert(revertData);
        vm.recordLogs();
        vm.prank(who);
        channel.register(q, qa, m, ma, none, _direct(""), _frozen(m));
        _absorb(vm.getRecordedLogs());
    }

    function _registeredPly(uint256 id) internal view returns (uint256) {
        return ref.channelGame(id).registeredPly;
    }

    // ------------------------------------------------ 1. a missed mate played retroactively

    function test_Finding1_RetroactiveMateDoesNotEndTheGame() public {
        (uint256 id, Move memory mate) = _missedMateGame();
        _registerRetroactiveMate(mate);
        assertEq(_phase(id), PHASE_RUNNING, "a registration never ends the game");
        assertEq(ClockWord.pendingStatus(pos[id].clock), ChessRules.CHECKMATE, "the mate waits out its window");
        // Nothing is played from it, and it cannot be finished before its window ends.
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.PositionDecided.selector, id));
        ref.claimTimeout(id, pos[id].state, pos[id].history, pos[id].clock);
        uint256 windowEnd = ref.channelGame(id).windowEnd;
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.NotYetPlayable.selector, windowEnd));
        ref.finishRegistered(id, pos[id].state, pos[id].history, pos[id].clock);
    }

    function test_Finding1_RetroactiveMateIsOvertakenByAWatchtower() public {
        (uint256 id, Move memory mate) = _missedMateGame();
        _registerRetroactiveMate(mate);
        vm.warp(block.timestamp + 5);
        _registerBy(8, carol); // anyone holding the later pair: here a watchtower
        assertEq(_registeredPly(id), 8);
        assertEq(ClockWord.pendingStatus(pos[id].clock), 0, "the mate is gone with its registration");
        vm.warp(ref.channelGame(id).windowEnd);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.NoPendingOutcome.selector, id));
        ref.finishRegistered(id, pos[id].state, pos[id].history, pos[id].clock);
        _move(id, "d2d4"); // the game goes on from ply 8, on-chain
        assertEq(_phase(id), PHASE_RUNNING);
    }

    function test_Finding1_RetroactiveMateLosesToTheEquivocationProof() public {
        (uint256 id, Move memory mate) = _missedMateGame();
        _registerRetroactiveMate(mate);
        Auth memory a = _byAuthor(line[4]);
        Auth memory b = _byAuthor(mate);
        vm.prank(carol);
        channel.proveEquivocation(line[4], a, mate, b);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 12);
        assertEq(_credit(alice), 2 * STAKE);
    }

    function test_Finding1_RetroactiveMateOverAFrozenLowerRegistration() public {
        (uint256 id, Move memory mate) = _missedMateGame();
        _register(2); // bob registers ply 2 first
        _registerRetroactiveMate(mate); // then overtakes it with the retroactive mate
        assertEq(_phase(id), PHASE_RUNNING);
        _registerBy(8, alice);
        assertEq(_registeredPly(id), 8);
        assertEq(ClockWord.pendingStatus(pos[id].clock), 0);
    }

    function test_Finding1_AnUnansweredMateEndsAfterItsWindow() public {
        uint256 id = _startChannelGame();
        _extend("f2f3 e7e5 g2g4 d8h4");
        _register(4);
        vm.warp(ref.channelGame(id).windowEnd);
        vm.prank(carol); // anyone
        ref.finishRegistered(id, pos[id].state, pos[id].history, pos[id].clock);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 1);
    }

    // ------------------------------------------------ 2. a contract wallet takes back a move

    /// @dev A game whose white is an OwnedWallet of alice, playing through session key 1
    /// under a pinned delegation; black is bob, signing directly.
    function _walletGame() internal returns (uint256 id, OwnedWallet wallet, Delegation memory d) {
        wallet = new OwnedWallet(alice);
        vm.deal(address(wallet), 10 ether);
        vm.prank(address(wallet));
        id = ref.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "", WINDOW);
        _join(id, bob, STAKE);
        _resetLine(id, ChessRules.initialState());
        d = _delegation(id, SESSION1_PK, 1, type(uint32).max);
        bytes32 dd = channel.digestOf(channel.hashDelegation(d));
        channel.pin(address(wallet), dd, _sig(ALICE_PK, dd)); // anyone may pin; here the opponent
        assertTrue(channel.pinned(address(wallet), dd));
    }

    function _bySessionKey(Move memory m, Delegation memory d) internal view returns (Auth memory a) {
        a.signature = _sig(SESSION1_PK, _moveDigest(m));
        a.delegation = d;
        // The delegation is pinned: the wallet's signature of it is no longer needed.
    }

    function test_Finding2_PinnedWalletCannotDisownItsMove() public {
        (uint256 id, OwnedWallet wallet, Delegation memory d) = _walletGame();
        _extend("e2e4 e7e5 g1f3");
        Move memory takeBack = _next(line[0], "d2d4", 2); // a second ply-1 move, later
        // The wallet now refuses every signature (a changed owner, new code, malice).
        vm.etch(address(wallet), type(RefusingWallet).runtimeCode);
        // Its session key's first move still verifies, so the take-back is an equivocation.
        Auth memory a = _bySessionKey(line[1], d);
        Auth memory b = _bySessionKey(takeBack, d);
        vm.prank(carol);
        channel.proveEquivocation(line[1], a, takeBack, b);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 12);
    }

    function test_Finding2_PinnedWalletsMovesStillRegister() public {
        (uint256 id, OwnedWallet wallet, Delegation memory d) = _walletGame();
        _extend("e2e4 e7e5 g1f3");
        vm.etch(address(wallet), type(RefusingWallet).runtimeCode);
        Auth memory qa = _byAuthor(line[2]);
        Auth memory ma = _bySessionKey(line[3], d);
        vm.prank(bob); // bob registers white's ply-3 move over his own ply-2 one
        channel.register(line[2], qa, line[3], ma, _noReceipt(), _direct(""), _frozen(line[3]));
        assertEq(_registeredPly(id), 3);
    }

    function test_Finding2_UnpinnedWalletSignatureCountsNowhere() public {
        (uint256 id, OwnedWallet wallet,) = _walletGame();
        Result memory r = Result({gameId: id, ply: 0, position: channel.hashMove(line[0]), result: DRAW});
        bytes32 rd = _resultDigest(r);
        Auth memory w = _direct(_sig(ALICE_PK, rd)); // the wallet would say yes, but nobody pinned it
        Auth memory b = _direct(_sig(BOB_PK, rd));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, address(wallet)));
        channel.settle(r, w, b);
        channel.pin(address(wallet), rd, w.signature);
        channel.settle(r, w, b);
        (uint8 result,) = _result(id);
        assertEq(result, DRAW);
    }

    function test_Finding2_PinRefusedWithoutTheWalletsYes() public {
        RefusingWallet refusing = new RefusingWallet();
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, address(refusing)));
        channel.pin(address(refusing), keccak256("x"), _sig(ALICE_PK, keccak256("x")));
        // An EOA has no ERC-1271 answer to pin.
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.pin(alice, keccak256("x"), _sig(ALICE_PK, keccak256("x")));
    }

    // ------------------------------------------------ 3. a signed Result never lapsed

    /// @dev 1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6: white has Qxf7# at ply 7; both signed a draw at ply 2.
    function _lapsedDraw() internal returns (uint256 id, Result memory r, Auth memory w, Auth memory b) {
        id = _startChannelGame();
        _extend("e2e4 e7e5 f1c4 b8c6 d1h5 g8f6");
        r = Result({gameId: id, ply: 2, position: channel.hashMove(line[2]), result: DRAW});
        bytes32 d = _resultDigest(r);
        w = _direct(_sig(ALICE_PK, d));
        b = _direct(_sig(BOB_PK, d));
    }

    function test_Finding3_ResultLapsesOnceALaterPositionIsRegistered() public {
        (uint256 id, Result memory r, Auth memory w, Auth memory b) = _lapsedDraw();
        _registerBy(6, alice);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.LapsedAgreement.selector, 6));
        channel.settle(r, w, b);
        // After the window the mate is played on-chain, and the draw still cannot be settled.
        vm.warp(ref.channelGame(id).windowEnd);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.AgreementsClosed.selector, id));
        channel.settle(r, w, b);
        _move(id, "h5f7");
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 1);
    }

    function test_Finding3_ResultAtTheRegisteredPlyStillSettles() public {
        (uint256 id,,,) = _lapsedDraw();
        _registerBy(6, alice);
        Result memory r = Result({gameId: id, ply: 6, position: channel.hashMove(line[6]), result: WHITE_WINS});
        bytes32 d = _resultDigest(r);
        channel.settle(r, _direct(_sig(ALICE_PK, d)), _direct(_sig(BOB_PK, d)));
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 8);
    }

    // ------------------------------------------------ 4. a rotated-out key still resigned

    function _keyResignation(uint256 id, uint64 expires) internal view returns (Resignation memory r, Auth memory a) {
        Delegation memory d = _delegation(id, SESSION1_PK, 1, 4);
        d.expires = expires;
        r = Resignation({gameId: id, ply: 3, position: channel.hashMove(line[3])});
        a = _bySession(ALICE_PK, SESSION1_PK, d, _resignationDigest(r));
    }

    function test_Finding4_ExpiredKeyCannotResign() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7");
        (Resignation memory r, Auth memory a) = _keyResignation(id, uint64(block.timestamp + 100));
        vm.warp(block.timestamp + 101);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.resignBySignature(r, a, true);
    }

    function test_Finding4_RevokedKeyCannotResign() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7");
        (Resignation memory r, Auth memory a) = _keyResignation(id, type(uint64).max);
        vm.prank(alice);
        channel.revokeSessionKey(id, vm.addr(SESSION1_PK));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.resignBySignature(r, a, true);
    }

    function test_Finding4_RevokedKeysMovesStillCount() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        vm.prank(alice);
        channel.revokeSessionKey(id, vm.addr(SESSION1_PK));
        Delegation memory d = _delegation(id, SESSION1_PK, 1, 4);
        Auth memory a = _bySession(ALICE_PK, SESSION1_PK, d, _moveDigest(line[3]));
        Auth memory qa = _byAuthor(line[2]);
        vm.prank(bob);
        channel.register(line[2], qa, line[3], a, _noReceipt(), _direct(""), _frozen(line[3]));
        assertEq(_registeredPly(id), 3);
    }

    function test_Finding4_ResignationBelowTheRegisteredPlyLapses() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7");
        (Resignation memory r, Auth memory a) = _keyResignation(id, type(uint64).max);
        _register(10);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.LapsedAgreement.selector, 10));
        channel.resignBySignature(r, a, true);
    }

    function test_Finding4_OnlyAPlayerRevokes() public {
        uint256 id = _startChannelGame();
        vm.prank(carol);
        vm.expectRevert(IChessChannelTypes.NotAPlayer.selector);
        channel.revokeSessionKey(id, vm.addr(SESSION1_PK));
    }

    // ------------------------------------------------ 5. off-chain time never charged

    /// @dev 1. e4 e5 2. Nf3: bob has 603 s in line[3]. Alice registers it 300 s after her
    /// move with bob's receipt of it (bob went silent).
    function _bobToMoveWith603() internal returns (uint256 id) {
        id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        assertEq(line[3].blackTime, 603);
        vm.warp(line[3].timestamp + 300);
        _registerWithReceipt(3, line[3].timestamp, alice);
    }

    function test_Finding5_BackdatedLateMoveCannotOvertake() public {
        uint256 id = _bobToMoveWith603();
        vm.warp(line[3].timestamp + 819); // bob thought 819 s
        Move memory backdated = _next(line[3], "b8c6", 2); // and claims 2 s
        // a direct reply is charged by the wall clock: from bob's receipt (his clock's start)
        // to now, past his deadline whatever it is stamped
        _tryRegister(
            bob,
            line[3],
            backdated,
            abi.encodeWithSelector(IChessChannelTypes.FlagFell.selector, uint256(line[3].timestamp) + 603 + 15)
        );
        assertEq(_registeredPly(id), 3);
    }

    function test_Finding5_HonestlyStampedLateMoveIsInvalidAndProvable() public {
        uint256 id = _bobToMoveWith603();
        vm.warp(line[3].timestamp + 819);
        Move memory late = _next(line[3], "b8c6", 2);
        late.timestamp = uint64(block.timestamp); // stamped honestly: 819 s after alice's move
        late.blackTime = 0;
        _tryRegister(bob, line[3], late, abi.encodeWithSelector(IChessChannelTypes.InvalidTransition.selector, 4, 0));
        Auth memory lateAuth = _byAuthor(late);
        vm.prank(alice);
        channel.proveIllegalMove(line[3], late, lateAuth);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 13);
    }

    function test_Finding5_FlaggedPlayerLosesOnTimeAfterTheWindow() public {
        uint256 id = _bobToMoveWith603();
        // Bob was charged from his receipt through the window: 300 + 600 s > 603 + 15 s.
        (,, uint256 blackBudget,,,,,,) = ref.decodeClock(pos[id].clock);
        assertEq(blackBudget, 0);
        vm.warp(ref.channelGame(id).windowEnd + 1);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
    }

    function test_Finding5_SideToMoveAnswersInTheWindowByRegistering() public {
        uint256 id = _bobToMoveWith603();
        vm.warp(line[3].timestamp + 400);
        Move memory reply = _next(line[3], "b8c6", 400);
        reply.timestamp = uint64(block.timestamp);
        _tryRegister(bob, line[3], reply, "");
        assertEq(_registeredPly(id), 4);
    }

    function test_Finding5_RegistrationWithoutReceiptNeedsAFreshMove() public {
        _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        vm.warp(line[3].timestamp + 61);
        _tryRegister(
            alice, line[2], line[3], abi.encodeWithSelector(IChessChannelTypes.StaleMove.selector, line[3].timestamp)
        );
    }

    function test_Finding5_ReceiptBeforeTheMoveOrInTheFutureRefused() public {
        _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        vm.warp(line[3].timestamp + 10);
        Auth memory ma = _byAuthor(line[3]);
        (Receipt memory r, Auth memory ra) = _signedReceipt(line[3], line[3].timestamp - 1);
        vm.prank(alice);
        vm.expectRevert(IChessChannelTypes.BadReceipt.selector);
        channel.register(line[2], _direct(""), line[3], ma, r, ra, _frozen(line[3]));
        (r, ra) = _signedReceipt(line[3], uint64(block.timestamp + 1));
        vm.prank(alice);
        vm.expectRevert(IChessChannelTypes.BadReceipt.selector);
        channel.register(line[2], _direct(""), line[3], ma, r, ra, _frozen(line[3]));
        // A receipt signed by the author instead of the side to move.
        r = _receipt(line[3], line[3].timestamp);
        ra = _direct(_sig(ALICE_PK, _receiptDigest(r)));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob));
        channel.register(line[2], _direct(""), line[3], ma, r, ra, _frozen(line[3]));
    }

    // ------------------------------------------------ 6. overtaking front-run into staleness

    function test_Finding6_FrontRunningRegistrationCannotStaleAnOvertake() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6");
        _register(4);
        // Alice's watchtower sends ply 8; bob front-runs it with ply 5.
        _registerBy(5, bob);
        _registerBy(8, carol);
        assertEq(_registeredPly(id), 8);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.StaleRegistration.selector, 8));
        this.registerExternal(7);
    }

    function test_Finding6_OnlyAPlayerMakesTheFirstRegistration() public {
        _startChannelGame();
        _extend("e2e4 e7e5");
        _tryRegister(carol, line[1], line[2], abi.encodeWithSelector(IChessChannelTypes.NotAPlayer.selector));
    }

    function test_Finding6_NoRegistrationOnceLive() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        _register(2);
        vm.warp(ref.channelGame(id).windowEnd);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.RegistrationClosed.selector, id));
        this.registerExternal(3);
    }
}

/// @notice The second review of the per-move referee (issue 16): the custom start's first
/// move, the court's own guard, withdrawals to the referee.
contract ChessRefereeV2ReviewTest is ChannelBase {
    /// @dev The standard board with the move counter at 2 (white to move): a custom start.
    function _customStart() internal pure returns (bytes memory s) {
        s = ChessRules.initialState();
        s[9] = bytes1(uint8(2));
    }

    function test_CustomStart_CreatorAwayAtJoinKeepsItsFirstMoveWindow() public {
        uint256 id = _create(alice, address(0), true, STAKE, _customStart());
        vm.warp(block.timestamp + 3 days); // the creator is offline when bob joins
        _join(id, bob, STAKE);
        uint256 joined = block.timestamp;
        vm.warp(joined + INITIAL + 16); // the v1 timeout second
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, joined + 300 + INITIAL + 15));
        ref.claimTimeout(id, pos[id].state, pos[id].history, pos[id].clock);
        _move(id, "e2e4"); // in time: charged only from the window's end
        (, uint256 whiteBudget,,,,,,,) = ref.decodeClock(pos[id].clock);
        assertEq(whiteBudget, INITIAL + 15 - (INITIAL + 16 - 300) + INCREMENT);
    }

    function test_CustomStart_CreatorWhoNeverMovesStillLosesOnTime() public {
        uint256 id = _create(alice, address(0), true, STAKE, _customStart());
        _join(id, bob, STAKE);
        vm.warp(block.timestamp + 300 + INITIAL + 16);
        _claimTimeout(id, bob);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS, "a loss, not an abort: a lost start cannot escape with a refund");
        assertEq(reason, 6);
    }

    function test_CourtGuard_PerMoveGameRefused() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.startPrank(address(channel));
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.NotAChannelGame.selector, id));
        ref.registerPosition(id, p.state, p.history, p.clock);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.NotAChannelGame.selector, id));
        ref.endChannelGame(id, WHITE_WINS, 12);
        vm.stopPrank();
    }

    function test_WithdrawTo_RefereeRefused() public {
        uint256 id = _startChannelGame();
        _settle(id, DRAW);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadRecipient.selector, address(ref)));
        ref.withdrawTo(address(0), address(ref));
    }
}
