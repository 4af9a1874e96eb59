// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {TokenTransferFailed} from "../src/SafeERC20.sol";
import {
    MockERC20,
    FeeOnTransferToken,
    SwitchableFeeToken,
    NoReturnToken,
    FalseReturnToken
} from "./mocks/MockERC20.sol";
import {ReentrantPlayer, HookToken} from "./mocks/Attackers.sol";

/// @notice ERC-20 stakes and the attacks of issue 3: reentrancy (ETH and token hooks),
/// short-paying tokens, outsiders, griefing.
contract ChessRefereeAttacksTest is RefereeBase {
    MockERC20 internal token;

    function setUp() public override {
        super.setUp();
        token = new MockERC20();
        _fund(address(token), alice);
        _fund(address(token), bob);
    }

    function _fund(address t, address who) internal {
        MockERC20(t).mint(who, 10 * STAKE);
        vm.prank(who);
        MockERC20(t).approve(address(ref), type(uint256).max);
    }

    function _createToken(address t) internal returns (uint256 id) {
        vm.recordLogs();
        vm.prank(alice);
        id = ref.createGame(bob, true, t, STAKE, INITIAL, INCREMENT, 0, "");
        _absorb(vm.getRecordedLogs());
    }

    function _joinToken(uint256 id) internal {
        bytes32 terms = ref.getGame(id).terms;
        vm.recordLogs();
        vm.prank(bob);
        ref.joinGame(id, terms);
        _absorb(vm.getRecordedLogs());
    }

    // ================================================================ ERC-20 stakes

    function test_Token_FullGamePaysWinnerInToken() public {
        uint256 id = _createToken(address(token));
        _joinToken(id);
        assertEq(token.balanceOf(address(ref)), 2 * STAKE);
        _playAll(id, "f2f3 e7e5 g2g4 d8h4", 1);
        assertEq(ref.credits(bob, address(token)), 2 * STAKE);
        vm.prank(bob);
        ref.withdraw(address(token));
        assertEq(token.balanceOf(bob), 11 * STAKE);
        assertEq(token.balanceOf(address(ref)), 0);
    }

    function test_Token_FeeOnTransferRejectedAtCreate() public {
        FeeOnTransferToken fot = new FeeOnTransferToken();
        _fund(address(fot), alice);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TokenShortPaid.selector, STAKE, STAKE - STAKE / 100));
        ref.createGame(bob, true, address(fot), STAKE, INITIAL, INCREMENT, 0, "");
    }

    function test_Token_FeeSwitchedOnBeforeJoinRejected() public {
        SwitchableFeeToken sw = new SwitchableFeeToken();
        _fund(address(sw), alice);
        _fund(address(sw), bob);
        uint256 id = _createToken(address(sw));
        sw.setFee(true);
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TokenShortPaid.selector, STAKE, STAKE - STAKE / 100));
        ref.joinGame(id, terms);
        assertEq(_phase(id), PHASE_OPEN);
        assertEq(sw.balanceOf(address(ref)), STAKE);
    }

    function test_Token_NoReturnValueTokenAccepted() public {
        NoReturnToken usdt = new NoReturnToken();
        usdt.mint(alice, STAKE);
        vm.prank(alice);
        usdt.approve(address(ref), STAKE);
        vm.prank(alice);
        uint256 id = ref.createGame(bob, true, address(usdt), STAKE, INITIAL, INCREMENT, 0, "");
        vm.prank(alice);
        ref.cancelGame(id);
        vm.prank(alice);
        ref.withdraw(address(usdt));
        assertEq(usdt.balanceOf(alice), STAKE);
    }

    function test_Token_FalseReturnRejected() public {
        FalseReturnToken bad = new FalseReturnToken();
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(TokenTransferFailed.selector, address(bad)));
        ref.createGame(bob, true, address(bad), STAKE, INITIAL, INCREMENT, 0, "");
    }

    function test_Token_AddressWithoutCodeRejected() public {
        address notAToken = address(0xDEAD);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(TokenTransferFailed.selector, notAToken));
        ref.createGame(bob, true, notAToken, STAKE, INITIAL, INCREMENT, 0, "");
    }

    function test_Token_EthWithTokenGameRejected() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.WrongEthAmount.selector, 0, 1));
        ref.createGame{value: 1}(bob, true, address(token), STAKE, INITIAL, INCREMENT, 0, "");
    }

    function test_Token_JoinWithoutAllowanceReverts() public {
        uint256 id = _createToken(address(token));
        vm.prank(bob);
        token.approve(address(ref), 0);
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(TokenTransferFailed.selector, address(token)));
        ref.joinGame(id, terms);
        assertEq(_phase(id), PHASE_OPEN);
    }

    // ================================================================ reentrancy

    function test_Reentrancy_EthWithdrawCannotReenter() public {
        ReentrantPlayer attacker = new ReentrantPlayer(ref);
        vm.deal(address(attacker), STAKE);
        uint256 id = attacker.create(bob, STAKE);
        // A second, honest credit sits in the contract: the attacker must not reach it.
        uint256 other = _create(alice, bob, true, STAKE, "");
        attacker.cancel(id);
        attacker.withdraw();
        assertEq(attacker.reentryAttempts(), 1);
        assertFalse(attacker.reentrySucceeded());
        assertEq(bytes4(attacker.lastRevert()), IChessRefereeTypes.Reentrancy.selector);
        assertEq(address(attacker).balance, STAKE);
        assertEq(address(ref).balance, STAKE);
        assertEq(_phase(other), PHASE_OPEN);
    }

    function test_Reentrancy_TokenHookCannotWithdrawDuringJoin() public {
        HookToken hook = new HookToken();
        _fund(address(hook), alice);
        _fund(address(hook), bob);
        // alice has an ETH credit the hook will try to pull while bob's stake is in flight.
        uint256 eth = _create(alice, carol, true, STAKE, "");
        vm.prank(alice);
        ref.cancelGame(eth);
        vm.prank(alice);
        uint256 id = ref.createGame(bob, true, address(hook), STAKE, INITIAL, INCREMENT, 0, "");
        hook.arm(ref, abi.encodeCall(IChessReferee.withdraw, (address(0))));
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(bob);
        ref.joinGame(id, terms);
        assertEq(hook.hooks(), 1);
        assertFalse(hook.hookSucceeded());
        assertEq(bytes4(hook.hookRevert()), IChessRefereeTypes.Reentrancy.selector);
        assertEq(ref.credits(alice, address(0)), STAKE);
    }

    function test_Reentrancy_TokenHookCannotCreateDuringWithdraw() public {
        HookToken hook = new HookToken();
        _fund(address(hook), alice);
        vm.prank(alice);
        uint256 id = ref.createGame(bob, true, address(hook), STAKE, INITIAL, INCREMENT, 0, "");
        vm.prank(alice);
        ref.cancelGame(id);
        hook.arm(ref, abi.encodeCall(IChessReferee.createGame, (bob, true, address(hook), 1, INITIAL, 0, 0, "")));
        vm.prank(alice);
        ref.withdraw(address(hook));
        assertFalse(hook.hookSucceeded());
        assertEq(bytes4(hook.hookRevert()), IChessRefereeTypes.Reentrancy.selector);
        assertEq(hook.balanceOf(address(ref)), 0);
        assertEq(ref.nextGameId(), id + 1);
    }

    // ================================================================ outsiders and griefing

    function test_Outsider_CannotClaimDraw() public {
        uint256 id = _startGame();
        _playAll(id, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8", 1);
        Position memory p = pos[id];
        bytes32[] memory keys = _keys(id);
        vm.prank(carol);
        vm.expectRevert(IChessRefereeTypes.NotAPlayer.selector);
        ref.claimDraw(id, p.state, p.history, p.clock, keys);
    }

    function test_Outsider_CannotCancel() public {
        uint256 id = _create(alice, address(0), true, STAKE, "");
        vm.prank(carol);
        vm.expectRevert(IChessRefereeTypes.NotCreator.selector);
        ref.cancelGame(id);
    }

    function test_Outsider_CannotWithdrawOthersCredit() public {
        uint256 id = _startGame();
        vm.prank(alice);
        ref.resign(id);
        vm.prank(carol);
        vm.expectRevert(IChessRefereeTypes.NothingToWithdraw.selector);
        ref.withdraw(address(0));
        assertEq(ref.credits(bob, address(0)), 2 * STAKE);
    }

    function test_Griefing_MatedPlayerCannotStall() public {
        uint256 id = _startGame();
        _playAll(id, "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6", 5);
        // Qxf7# ends the game in the same transaction: the mated side has nothing to stall.
        _move(id, "h5f7");
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 1);
    }

    function test_Griefing_NeverMovingOpponentLosesOnTime() public {
        uint256 id = _startGame();
        _playAll(id, "e2e4 e7e5 g1f3", 5);
        // Black stops moving; after its clock and the grace, white takes the win.
        vm.warp(block.timestamp + INITIAL + 1 days);
        Position memory p = pos[id];
        vm.prank(alice);
        ref.claimTimeout(id, p.state, p.history, p.clock);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
    }

    function test_Griefing_JoinerWhoNeverStartsGetsAborted() public {
        uint256 id = _create(alice, address(0), false, STAKE, "");
        _join(id, carol, STAKE); // carol is white and never moves
        vm.warp(T0 + INITIAL + ref.GRACE_PERIOD() + 1);
        Position memory p = pos[id];
        vm.prank(alice);
        ref.claimTimeout(id, p.state, p.history, p.clock);
        (uint8 result,) = _result(id);
        assertEq(result, ABORTED);
        assertEq(ref.credits(alice, address(0)), STAKE);
        assertEq(ref.credits(carol, address(0)), STAKE);
    }
}
