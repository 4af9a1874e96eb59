// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessRulesView} from "../src/ChessRulesView.sol";

/// @notice The findings of the contract reviews (issues 9 and 12), one behaviour per test:
/// each failed on the code before its fix.
contract ChessRefereeReviewTest is RefereeBase {
    // ================================================================ issue 9 item 5: offers never stale a move

    /// @dev alice (white) and bob play 1. e4; returns the game with bob (black) to move.
    function _blackToMove() internal returns (uint256 id) {
        id = _startGame();
        _move(id, "e2e4");
    }

    function _offerFrom(uint256 id, address who) internal {
        Position memory p = pos[id];
        vm.recordLogs();
        vm.prank(who);
        ref.offerDraw(id, p.state, p.history, p.clock);
        _absorb(vm.getRecordedLogs());
    }

    function test_OfferRace_MoveBuiltBeforeWaitingOfferLands() public {
        uint256 id = _blackToMove();
        Position memory before = pos[id];
        _offerFrom(id, alice); // front-runs bob's move
        vm.prank(bob);
        ref.move(id, before.state, before.history, before.clock, _uci("e7e5"));
        assertEq(_phase(id), PHASE_RUNNING);
    }

    function test_OfferRace_MoveClearsTheFrontRunOffer() public {
        uint256 id = _blackToMove();
        Position memory before = pos[id];
        _offerFrom(id, alice);
        vm.recordLogs();
        vm.prank(bob);
        ref.move(id, before.state, before.history, before.clock, _uci("e7e5"));
        _absorb(vm.getRecordedLogs());
        (,,,,, bool whiteOffers, bool blackOffers,,) = ref.decodeClock(pos[id].clock);
        assertFalse(whiteOffers);
        assertFalse(blackOffers);
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(ChessReferee.NoDrawOffer.selector);
        ref.acceptDraw(id, p.state, p.history, p.clock);
    }

    function test_OfferRace_ClaimDrawBuiltBeforeWaitingOfferLands() public {
        uint256 id = _startGame();
        _playAll(id, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8", 1); // start position a third time, white to move
        Position memory before = pos[id];
        _offerFrom(id, bob);
        vm.prank(alice);
        ref.claimDraw(id, before.state, before.history, before.clock, _keys(id));
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 10);
    }

    function test_OfferRace_MoverOfferBuiltBeforeWaitingOfferLands() public {
        uint256 id = _blackToMove();
        Position memory before = pos[id];
        _offerFrom(id, alice);
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
        _offerFrom(id, alice);
        (,, bool whiteToMove,) = ref.clocks(id, before.state, before.history, before.clock);
        assertFalse(whiteToMove);
    }

    function test_OfferRace_ForgedWaitingOfferBitRejected() public {
        uint256 id = _blackToMove();
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(ChessReferee.StalePosition.selector);
        ref.move(id, p.state, p.history, p.clock | (1 << 168), _uci("e7e5"));
    }

    function test_OfferRace_MoverOwnOfferBitNotAssumed() public {
        uint256 id = _blackToMove();
        Position memory p = pos[id];
        // Only the WAITING player's offer is tolerated: a mover's bit that is not stored is a forgery.
        vm.prank(bob);
        vm.expectRevert(ChessReferee.StalePosition.selector);
        ref.move(id, p.state, p.history, p.clock | (2 << 168), _uci("e7e5"));
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
            _offerFrom(id, _waiter(id));
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

    function _claim(uint256 id, address who) internal {
        Position memory p = pos[id];
        vm.prank(who);
        ref.claimTimeout(id, p.state, p.history, p.clock);
    }

    function test_CustomStart_LostBlackNeverMovingLosesOnTime() public {
        uint256 id = _create(alice, bob, true, STAKE, _fen("7k/8/5K2/8/8/8/8/6Q1 b - - 0 1"));
        _join(id, bob, STAKE);
        vm.warp(block.timestamp + 1 days);
        _claim(id, alice);
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
        _claim(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
    }

    function test_CustomStart_LostWhiteNeverMovingLosesOnTime() public {
        uint256 id = _create(alice, bob, true, STAKE, _fen("6q1/8/8/8/8/5k2/8/7K w - - 0 1"));
        _join(id, bob, STAKE);
        vm.warp(block.timestamp + 1 days);
        _claim(id, bob);
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
        _claim(id, bob);
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
}
