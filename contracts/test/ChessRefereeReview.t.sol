// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {Vm} from "./utils/Test.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {ChessRulesView} from "../src/ChessRulesView.sol";
import {MockERC20} from "./mocks/MockERC20.sol";

/// @notice A player contract without a receive function: it cannot take ETH.
contract EthRefusingPlayer {
    IChessReferee internal immutable ref;

    constructor(IChessReferee referee) payable {
        ref = referee;
    }

    function create(address opponent, uint256 stake) external returns (uint256) {
        return ref.createGame{value: stake}(opponent, true, address(0), stake, 600, 0, 0, "");
    }

    function withdraw() external {
        ref.withdraw(address(0));
    }

    function withdrawTo(address to) external {
        ref.withdrawTo(address(0), to);
    }
}

/// @notice The findings of the contract reviews (issues 9 and 12), one behaviour per test:
/// each failed on the code before its fix.
contract ChessRefereeReviewTest is RefereeBase {
    // ================================================================ issue 9 item 5: offers never stale a move

    /// @dev alice (white) and bob play 1. e4; returns the game with bob (black) to move.
    function _blackToMove() internal returns (uint256 id) {
        id = _startGame();
        _move(id, "e2e4");
    }

    function test_OfferRace_MoveBuiltBeforeWaitingOfferLands() public {
        uint256 id = _blackToMove();
        Position memory before = pos[id];
        _offer(id, alice); // front-runs bob's move
        vm.prank(bob);
        ref.move(id, before.state, before.history, before.clock, _uci("e7e5"));
        assertEq(_phase(id), PHASE_RUNNING);
    }

    function test_OfferRace_MoveClearsTheFrontRunOffer() public {
        uint256 id = _blackToMove();
        Position memory before = pos[id];
        _offer(id, alice);
        vm.recordLogs();
        vm.prank(bob);
        ref.move(id, before.state, before.history, before.clock, _uci("e7e5"));
        _absorb(vm.getRecordedLogs());
        (,,,,, bool whiteOffers, bool blackOffers,,) = ref.decodeClock(pos[id].clock);
        assertFalse(whiteOffers);
        assertFalse(blackOffers);
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.NoDrawOffer.selector);
        ref.acceptDraw(id, p.state, p.history, p.clock);
    }

    function test_OfferRace_ClaimDrawBuiltBeforeWaitingOfferLands() public {
        uint256 id = _startGame();
        _playAll(id, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8", 1); // start position a third time, white to move
        Position memory before = pos[id];
        _offer(id, bob);
        vm.prank(alice);
        ref.claimDraw(id, before.state, before.history, before.clock, _keys(id));
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 10);
    }

    function test_OfferRace_MoverOfferBuiltBeforeWaitingOfferLands() public {
        uint256 id = _blackToMove();
        Position memory before = pos[id];
        _offer(id, alice);
        vm.prank(bob);
        ref.offerDraw(id, before.state, before.history, before.clock);
        (,,,,, bool whiteOffers, bool blackOffers,,) = ref.decodeClock(before.clock | (3 << 168));
        assertTrue(whiteOffers && blackOffers);
        Position memory p = pos[id];
        assertEq(ref.commitmentOf(id), ref.positionCommitment(p.state, p.history, p.clock | (3 << 168)));
    }

    function test_OfferRace_ClocksViewAcceptsPreOfferClock() public {
        uint256 id = _blackToMove();
        Position memory before = pos[id];
        _offer(id, alice);
        (,, bool whiteToMove,) = ref.clocks(id, before.state, before.history, before.clock);
        assertFalse(whiteToMove);
    }

    function test_OfferRace_ForgedWaitingOfferBitRejected() public {
        uint256 id = _blackToMove();
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.move(id, p.state, p.history, p.clock | (1 << 168), _uci("e7e5"));
    }

    function test_OfferRace_OfferBitTheGameLacksRejected() public {
        uint256 id = _blackToMove();
        Position memory p = pos[id];
        // Offers are only ever added: a clock claiming one the game does not have is forged.
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.move(id, p.state, p.history, p.clock | (2 << 168), _uci("e7e5"));
    }

    function test_OfferRace_MoverOfferCannotDelayFirstMoveAbort() public {
        // White never moves; after the window black claims the abort, and white front-runs
        // the claim with a draw offer (allowed: white's clock has not run out).
        uint256 id = _startGame();
        vm.warp(T0 + ref.DEFAULT_FIRST_MOVE_WINDOW() + 1);
        Position memory before = pos[id];
        _offer(id, alice);
        vm.prank(bob);
        ref.claimTimeout(id, before.state, before.history, before.clock);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, ABORTED);
        assertEq(reason, 11);
    }

    function test_OfferRace_BothOffersLandBeforeTheMove() public {
        uint256 id = _blackToMove();
        Position memory before = pos[id];
        _offer(id, alice);
        _offer(id, bob);
        vm.prank(bob);
        ref.move(id, before.state, before.history, before.clock, _uci("e7e5"));
        assertEq(_phase(id), PHASE_RUNNING);
    }

    /// @dev Issue 12's measurement: 60 s + 12 s, 12-second blocks, each move sent in the
    /// next block and front-run by the opponent's draw offer. Before the fix the mover lost
    /// every such move (StalePosition) and flagged after 5 moves.
    function test_OfferRace_FrontRunEveryMoveCostsNoTime() public {
        vm.recordLogs();
        vm.prank(alice);
        uint256 id = ref.createGame{value: STAKE}(bob, true, address(0), STAKE, 60, 12, 0, "");
        _absorb(vm.getRecordedLogs());
        _join(id, bob, STAKE);
        uint24[] memory mvs = _uciList("g1f3 g8f6 b1c3 b8c6 f3g1 f6g8 c3b1 c6b8 g1f3 g8f6 b1c3 b8c6");
        for (uint256 i; i < mvs.length; ++i) {
            vm.warp(block.timestamp + 12);
            Position memory before = pos[id];
            _offer(id, _waiter(id));
            address mover = _mover(id);
            vm.recordLogs();
            vm.prank(mover);
            ref.move(id, before.state, before.history, before.clock, mvs[i]);
            _absorb(vm.getRecordedLogs());
        }
        assertEq(_phase(id), PHASE_RUNNING);
        assertEq(_ply(id), mvs.length);
    }

    // ================================================================ issue 12 finding 1: no refund from a lost custom start

    function test_CustomStart_LostBlackNeverMovingLosesOnTime() public {
        uint256 id = _create(alice, bob, true, STAKE, _fen("7k/8/5K2/8/8/8/8/6Q1 b - - 0 1"));
        _join(id, bob, STAKE);
        vm.warp(block.timestamp + 1 days);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
        assertEq(ref.credits(alice, address(0)), 2 * STAKE);
        assertEq(ref.credits(bob, address(0)), 0);
    }

    function test_CustomStart_LostBlackNeverAnsweringLosesOnTime() public {
        uint256 id = _create(alice, bob, true, STAKE, _fen("7k/8/5K2/8/8/8/8/6Q1 w - - 0 1"));
        _join(id, bob, STAKE);
        _move(id, "g1g2");
        vm.warp(block.timestamp + 1 days);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
    }

    function test_CustomStart_LostWhiteNeverMovingLosesOnTime() public {
        uint256 id = _create(alice, bob, true, STAKE, _fen("6q1/8/8/8/8/5k2/8/7K w - - 0 1"));
        _join(id, bob, STAKE);
        vm.warp(block.timestamp + 1 days);
        _claimTimeout(id, bob);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 6);
        assertEq(ref.credits(bob, address(0)), 2 * STAKE);
    }

    function test_CustomStart_NeverMovingAgainstBareKingIsADraw() public {
        // White never moves; black, the claimant, has only its king (FIDE 6.9): a draw, not an abort.
        uint256 id = _create(alice, bob, true, STAKE, _fen("7k/8/5K2/8/8/8/8/6Q1 w - - 0 1"));
        _join(id, bob, STAKE);
        vm.warp(block.timestamp + 1 days);
        _claimTimeout(id, bob);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 7);
    }

    // ================================================================ issue 12 finding 3: legalMoves lists every move

    function test_LegalMoves_ListsAll263MovesOfAValidState() public {
        ChessRulesView v = new ChessRulesView();
        bytes memory s = _fen("knQQQQQQ/nnQ4Q/QQ5Q/Q6Q/Q6Q/Q6Q/Q6Q/QQQQQQQK w - - 0 1");
        assertEq(v.validateState(s), 0);
        assertEq(v.status(s), 0);
        // 263: the Rust mirror's count (`State::legal_moves`) for this state.
        assertEq(v.legalMoves(s).length, 263);
    }

    // ================================================================ issue 12 finding 2: joinGame binds the terms

    function _termsFor(address creator, address opponent, uint256 stake, bytes memory start)
        internal
        view
        returns (bytes32)
    {
        return ref.termsHash(creator, opponent, true, address(0), stake, INITIAL, INCREMENT, 0, start);
    }

    function test_JoinTerms_PredictedIdTakenByAnotherGameReverts() public {
        uint256 predicted = ref.nextGameId();
        bytes32 agreed = _termsFor(alice, address(0), STAKE, ""); // bob expects alice's 1-ETH open game
        vm.prank(carol); // carol creates first under that id: ten times the stake
        ref.createGame{value: 10 * STAKE}(address(0), true, address(0), 10 * STAKE, INITIAL, INCREMENT, 0, "");
        bytes32 actual = ref.getGame(predicted).terms;
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.WrongTerms.selector, actual));
        ref.joinGame{value: 10 * STAKE}(predicted, agreed);
        assertEq(_phase(predicted), PHASE_OPEN);
    }

    function test_JoinTerms_LostStartPositionCannotBeSlippedIn() public {
        bytes memory lost = _fen("7k/8/5K2/8/8/8/8/6Q1 b - - 0 1");
        uint256 id = _create(alice, address(0), true, STAKE, lost);
        bytes32 agreed = _termsFor(alice, address(0), STAKE, ""); // bob agreed to the standard start
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.WrongTerms.selector, ref.getGame(id).terms));
        ref.joinGame{value: STAKE}(id, agreed);
    }

    function test_JoinTerms_HashIsTheSameInEventViewAndHelper() public {
        bytes memory start = _fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1");
        vm.recordLogs();
        vm.prank(alice);
        uint256 id = ref.createGame{value: STAKE}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, start);
        bytes32 emitted;
        uint32 window;
        bytes memory data = vm.getRecordedLogs()[0].data;
        (,,,,, window, emitted,,) =
            abi.decode(data, (bool, address, uint256, uint32, uint32, uint32, bytes32, bytes, bytes32));
        assertEq(window, ref.DEFAULT_FIRST_MOVE_WINDOW());
        assertEq(ref.getGame(id).terms, emitted);
        assertEq(_termsFor(alice, bob, STAKE, start), emitted);
        assertEq(ref.getGame(id).firstMoveWindow, ref.DEFAULT_FIRST_MOVE_WINDOW());
    }

    function test_JoinTerms_AgreedTermsJoinAndAreClearedOnceRunning() public {
        uint256 id = _create(alice, address(0), true, STAKE, "");
        bytes32 agreed = _termsFor(alice, address(0), STAKE, "");
        vm.prank(bob);
        ref.joinGame{value: STAKE}(id, agreed);
        assertEq(_phase(id), PHASE_RUNNING);
        assertEq(ref.getGame(id).terms, bytes32(0));
    }

    // ================================================================ issue 12 finding 4: first-move window

    function test_FirstMoveWindow_OutOfRangeReverts() public {
        uint32 tooShort = uint32(ref.MIN_FIRST_MOVE_WINDOW() - 1);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadFirstMoveWindow.selector, tooShort));
        ref.createGame(bob, true, address(0), 0, INITIAL, INCREMENT, tooShort, "");
        uint32 tooLong = uint32(ref.MAX_FIRST_MOVE_WINDOW() + 1);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadFirstMoveWindow.selector, tooLong));
        ref.createGame(bob, true, address(0), 0, INITIAL, INCREMENT, tooLong, "");
    }

    function test_FirstMoveWindow_JoinerWhoNeverMovesIsAbortedAfterWindow() public {
        // alice creates as black; bob joins as white and never moves.
        uint256 id = _create(alice, bob, false, STAKE, "");
        _join(id, bob, STAKE);
        uint256 windowEnd = T0 + ref.DEFAULT_FIRST_MOVE_WINDOW();
        vm.warp(windowEnd);
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, windowEnd));
        ref.claimTimeout(id, p.state, p.history, p.clock);
        vm.warp(windowEnd + 1); // long before white's clock (600 s + grace) runs out
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, ABORTED);
        assertEq(reason, 11);
        assertEq(ref.credits(alice, address(0)), STAKE);
        assertEq(ref.credits(bob, address(0)), STAKE);
    }

    function test_FirstMoveWindow_BlackWhoNeverAnswersIsAbortedAfterWindow() public {
        uint256 id = _startGame();
        vm.warp(T0 + 100);
        _move(id, "e2e4");
        vm.warp(T0 + 100 + ref.DEFAULT_FIRST_MOVE_WINDOW() + 1);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, ABORTED);
        assertEq(reason, 11);
    }

    function test_FirstMoveWindow_LateFirstMoveStandsUntilAborted() public {
        uint256 id = _startGame();
        vm.warp(T0 + ref.DEFAULT_FIRST_MOVE_WINDOW() + 10); // bob could abort, but does not
        _move(id, "e2e4");
        assertEq(_phase(id), PHASE_RUNNING);
        assertEq(_ply(id), 1);
    }

    function test_FirstMoveWindow_OverOnceBothMoved() public {
        uint256 id = _startGame();
        _playAll(id, "e2e4 e7e5", 1);
        uint256 deadline = block.timestamp + INITIAL + INCREMENT - 1 + ref.GRACE_PERIOD();
        vm.warp(block.timestamp + ref.DEFAULT_FIRST_MOVE_WINDOW() + 1);
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, deadline));
        ref.claimTimeout(id, p.state, p.history, p.clock);
    }

    function test_FirstMoveWindow_NoAbortFromCustomStart() public {
        uint256 id = _create(alice, bob, true, STAKE, _fen("7k/8/5K2/8/8/8/8/6Q1 b - - 0 1"));
        _join(id, bob, STAKE);
        // black's clock, not an abort at the window's end; v2: a custom start's first move is
        // charged from the window's end, so its clock only starts then
        uint256 deadline = T0 + ref.DEFAULT_FIRST_MOVE_WINDOW() + INITIAL + ref.GRACE_PERIOD();
        vm.warp(T0 + ref.DEFAULT_FIRST_MOVE_WINDOW() + 1);
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, deadline));
        ref.claimTimeout(id, p.state, p.history, p.clock);
        vm.warp(deadline + 1);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS, "a loss on time, never a refund");
        assertEq(reason, 6);
    }

    function test_FirstMoveWindow_StandardPositionGivenAsBytesIsTheStandardStart() public {
        // Passing the standard position's bytes as a "custom" start hashes to the same terms
        // as a standard game, so it must be one: the joiner keeps the first-move abort.
        uint256 id = _create(alice, bob, false, STAKE, _fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
        assertEq(ref.getGame(id).terms, ref.termsHash(alice, bob, false, address(0), STAKE, INITIAL, INCREMENT, 0, ""));
        _join(id, bob, STAKE);
        (,,,,,,, bool customStart,) = ref.decodeClock(pos[id].clock);
        assertFalse(customStart);
        vm.warp(T0 + ref.DEFAULT_FIRST_MOVE_WINDOW() + 1);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, ABORTED);
        assertEq(reason, 11);
    }

    function test_FirstMoveWindow_ShorterClockGoverns() public {
        vm.recordLogs();
        vm.prank(alice);
        uint256 id = ref.createGame{value: STAKE}(bob, true, address(0), STAKE, 60, 0, 1 days, "");
        _absorb(vm.getRecordedLogs());
        _join(id, bob, STAKE);
        vm.warp(T0 + 60 + ref.GRACE_PERIOD() + 1);
        _claimTimeout(id, bob);
        (uint8 result,) = _result(id);
        assertEq(result, ABORTED);
    }

    function testFuzz_FirstMoveWindow_AbortRefundsBothExactlyAfterWindow(uint32 window, uint32 wait) public {
        window = uint32(bound(window, ref.MIN_FIRST_MOVE_WINDOW(), ref.MAX_FIRST_MOVE_WINDOW()));
        wait = uint32(bound(wait, 0, 2 days));
        vm.recordLogs();
        vm.prank(alice);
        uint256 id = ref.createGame{value: STAKE}(bob, true, address(0), STAKE, 1 days, 0, window, "");
        _absorb(vm.getRecordedLogs());
        _join(id, bob, STAKE);
        uint256 end = T0 + (window < 1 days + ref.GRACE_PERIOD() ? window : 1 days + ref.GRACE_PERIOD());
        vm.warp(T0 + wait);
        Position memory p = pos[id];
        vm.prank(bob);
        if (T0 + wait <= end) {
            vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, end));
            ref.claimTimeout(id, p.state, p.history, p.clock);
            return;
        }
        ref.claimTimeout(id, p.state, p.history, p.clock);
        (uint8 result,) = _result(id);
        assertEq(result, ABORTED);
        assertEq(ref.credits(alice, address(0)) + ref.credits(bob, address(0)), 2 * STAKE);
        assertEq(address(ref).balance, 2 * STAKE);
    }

    // ================================================================ issue 12 finding 5: withdrawal to another address

    function test_WithdrawTo_WinnerThatRefusesEthCollectsElsewhere() public {
        EthRefusingPlayer player = new EthRefusingPlayer{value: STAKE}(ref);
        uint256 id = player.create(bob, STAKE);
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(bob);
        ref.joinGame{value: STAKE}(id, terms);
        vm.prank(bob);
        ref.resign(id);
        vm.expectRevert(IChessRefereeTypes.EthTransferFailed.selector);
        player.withdraw();
        uint256 before = carol.balance;
        vm.recordLogs();
        player.withdrawTo(carol);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 1);
        assertEq(logs[0].topics[0], IChessRefereeTypes.Withdrawn.selector);
        assertEq(logs[0].topics[1], bytes32(uint256(uint160(address(player)))));
        (address to, uint256 amount) = abi.decode(logs[0].data, (address, uint256));
        assertEq(to, carol);
        assertEq(amount, 2 * STAKE);
        assertEq(carol.balance, before + 2 * STAKE);
        assertEq(ref.credits(address(player), address(0)), 0);
        vm.expectRevert(IChessRefereeTypes.NothingToWithdraw.selector);
        player.withdrawTo(carol);
    }

    function test_WithdrawTo_RevertsForZeroRecipient() public {
        uint256 id = _startGame();
        vm.prank(alice);
        ref.resign(id);
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.ZeroRecipient.selector);
        ref.withdrawTo(address(0), address(0));
    }

    function test_WithdrawTo_OnlyMovesTheCallersOwnCredit() public {
        uint256 id = _startGame();
        vm.prank(alice);
        ref.resign(id);
        vm.prank(carol);
        vm.expectRevert(IChessRefereeTypes.NothingToWithdraw.selector);
        ref.withdrawTo(address(0), carol);
        assertEq(ref.credits(bob, address(0)), 2 * STAKE);
    }

    function test_WithdrawTo_TokenCreditToAnotherAddress() public {
        MockERC20 token = new MockERC20();
        token.mint(alice, STAKE);
        token.mint(bob, STAKE);
        vm.prank(alice);
        token.approve(address(ref), STAKE);
        vm.prank(bob);
        token.approve(address(ref), STAKE);
        vm.prank(alice);
        uint256 id = ref.createGame(bob, true, address(token), STAKE, INITIAL, INCREMENT, 0, "");
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(bob);
        ref.joinGame(id, terms);
        vm.prank(alice);
        ref.resign(id);
        vm.prank(bob);
        ref.withdrawTo(address(token), carol);
        assertEq(token.balanceOf(carol), 2 * STAKE);
        assertEq(token.balanceOf(address(ref)), 0);
    }

    function testFuzz_WithdrawTo_MovesExactlyTheCredit(uint256 toSeed, uint96 stake) public {
        // A fresh account derived from the seed (precompiles and cheatcode addresses avoided).
        address to = address(uint160(uint256(keccak256(abi.encode("recipient", toSeed)))));
        vm.deal(alice, uint256(stake));
        vm.deal(bob, uint256(stake));
        uint256 id = _create(alice, bob, true, stake, "");
        _join(id, bob, stake);
        vm.prank(bob);
        ref.resign(id);
        uint256 before = to.balance;
        vm.prank(alice);
        if (stake == 0) {
            vm.expectRevert(IChessRefereeTypes.NothingToWithdraw.selector);
            ref.withdrawTo(address(0), to);
            return;
        }
        ref.withdrawTo(address(0), to);
        assertEq(to.balance - before, 2 * uint256(stake));
        assertEq(ref.credits(alice, address(0)), 0);
        assertEq(address(ref).balance, 0);
    }
}
