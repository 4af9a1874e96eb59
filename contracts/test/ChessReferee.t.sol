// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {RealGames} from "./ChessRefereeGames.t.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {ChessRules, IllegalMove, InvalidState, BadStateLength} from "../src/ChessRules.sol";

/// @notice Lifecycle of a game: create, join, cancel, move, resign, draws, timeouts, payouts.
contract ChessRefereeLifecycleTest is RefereeBase {
    // ================================================================ create

    function test_CreateGame_OpenGameStoresTermsAndStake() public {
        uint256 id = _create(alice, address(0), true, STAKE, "");
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertEq(id, 1);
        assertEq(g.white, alice);
        assertEq(g.black, address(0));
        assertEq(g.stake, STAKE);
        assertEq(g.initialTime, INITIAL);
        assertEq(g.increment, INCREMENT);
        assertEq(g.phase, PHASE_OPEN);
        assertTrue(g.creatorWhite);
        assertEq(g.commitment, bytes32(0));
        assertEq(address(ref).balance, STAKE);
    }

    function test_CreateGame_EmitsStandardStartPosition() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        assertEq(pos[id].state, ChessRules.initialState());
        assertEq(
            pos[id].history, keccak256(abi.encode(bytes32(0), ChessRules.repetitionKey(ChessRules.initialState())))
        );
    }

    function test_CreateGame_RevertsOnWrongEth() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.WrongEthAmount.selector, STAKE, STAKE - 1));
        ref.createGame{value: STAKE - 1}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "");
    }

    function test_CreateGame_RevertsOnTooShortClock() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadTimeControl.selector, 59, 0));
        ref.createGame(bob, true, address(0), 0, 59, 0, 0, "");
    }

    function test_CreateGame_RevertsOnTooLargeIncrement() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadTimeControl.selector, 600, 1 days + 1));
        ref.createGame(bob, true, address(0), 0, 600, 1 days + 1, 0, "");
    }

    function test_CreateGame_RevertsAgainstSelf() public {
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.CannotPlaySelf.selector);
        ref.createGame(alice, true, address(0), 0, INITIAL, INCREMENT, 0, "");
    }

    function test_CreateGame_AcceptsValidCustomStart() public {
        bytes memory start = _fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
        uint256 id = _create(alice, bob, true, 0, start);
        assertEq(pos[id].state, start);
        _join(id, bob, 0);
        _move(id, "e2e4");
        assertEq(uint8(pos[id].state[68]), 1);
    }

    function test_CreateGame_RevertsOnInvalidStartState() public {
        bytes memory start = _fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        start[123] = bytes1(uint8(0x75)); // white king byte points at f1, the king is on e1
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(InvalidState.selector, uint8(4)));
        ref.createGame(bob, true, address(0), 0, INITIAL, INCREMENT, 0, start);
    }

    function test_CreateGame_RevertsOnShortStartState() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BadStateLength.selector, 127));
        ref.createGame(bob, true, address(0), 0, INITIAL, INCREMENT, 0, new bytes(127));
    }

    function test_CreateGame_RevertsOnDecidedStartState() public {
        // Black is stalemated.
        bytes memory start = _fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.StartPositionOver.selector, 2));
        ref.createGame(bob, true, address(0), 0, INITIAL, INCREMENT, 0, start);
    }

    // ================================================================ join

    function test_JoinGame_StartsGameAndClock() public {
        uint256 id = _startGame();
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertEq(g.black, bob);
        assertEq(g.phase, PHASE_RUNNING);
        assertEq(g.commitment, ref.positionCommitment(pos[id].state, pos[id].history, pos[id].clock));
        (uint256 last, uint256 w, uint256 b, uint256 inc, uint256 ply, bool wo, bool bo,,) =
            ref.decodeClock(pos[id].clock);
        assertEq(last, T0);
        assertEq(w, INITIAL + ref.GRACE_PERIOD());
        assertEq(b, INITIAL + ref.GRACE_PERIOD());
        assertEq(inc, INCREMENT);
        assertEq(ply, 0);
        assertFalse(wo || bo);
        assertEq(address(ref).balance, 2 * STAKE);
    }

    function test_JoinGame_OpenGameAcceptsAnyone() public {
        uint256 id = _create(alice, address(0), false, STAKE, "");
        _join(id, carol, STAKE);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertEq(g.white, carol);
        assertEq(g.black, alice);
        _move(id, carol, _uci("d2d4"));
        assertEq(_ply(id), 1);
    }

    function test_JoinGame_RevertsForUninvited() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.NotInvited.selector, bob));
        ref.joinGame{value: STAKE}(id, terms);
    }

    function test_JoinGame_RevertsOnDoubleJoin() public {
        uint256 id = _create(alice, address(0), true, STAKE, "");
        _join(id, bob, STAKE);
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotOpen.selector, id));
        ref.joinGame{value: STAKE}(id, terms);
    }

    function test_JoinGame_RevertsForCreator() public {
        uint256 id = _create(alice, address(0), true, STAKE, "");
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.CannotPlaySelf.selector);
        ref.joinGame{value: STAKE}(id, terms);
    }

    function test_JoinGame_RevertsOnWrongStake() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.WrongEthAmount.selector, STAKE, STAKE / 2));
        ref.joinGame{value: STAKE / 2}(id, terms);
    }

    function test_JoinGame_RevertsForUnknownGame() public {
        bytes32 terms = ref.getGame(42).terms;
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotOpen.selector, 42));
        ref.joinGame(42, terms);
    }

    // ================================================================ cancel

    function test_CancelGame_CreditsFullRefund() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        vm.prank(alice);
        ref.cancelGame(id);
        assertEq(_phase(id), PHASE_CANCELLED);
        assertEq(ref.credits(alice, address(0)), STAKE);
        uint256 before = alice.balance;
        vm.prank(alice);
        ref.withdraw(address(0));
        assertEq(alice.balance, before + STAKE);
        assertEq(address(ref).balance, 0);
    }

    function test_CancelGame_RevertsForNonCreator() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.NotCreator.selector);
        ref.cancelGame(id);
    }

    function test_CancelGame_RevertsAfterJoin() public {
        uint256 id = _startGame();
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotOpen.selector, id));
        ref.cancelGame(id);
    }

    function test_JoinGame_RevertsAfterCancel() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        vm.prank(alice);
        ref.cancelGame(id);
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotOpen.selector, id));
        ref.joinGame{value: STAKE}(id, terms);
    }

    // ================================================================ move

    function test_Move_CommitsNewPositionAndEmitsIt() public {
        uint256 id = _startGame();
        vm.warp(T0 + 7);
        bytes memory expected = ChessRules.play(pos[id].state, _uci("e2e4"));
        _move(id, "e2e4");
        assertEq(pos[id].state, expected);
        assertEq(_ply(id), 1);
        assertEq(ref.getGame(id).commitment, ref.positionCommitment(pos[id].state, pos[id].history, pos[id].clock));
    }

    function test_Move_EventCarriesMovePlyStatus() public {
        uint256 id = _startGame();
        vm.recordLogs();
        vm.prank(alice);
        ref.move(id, pos[id].state, pos[id].history, pos[id].clock, _uci("g1f3"));
        (uint24 mv, uint32 ply, uint8 st,,,) =
            abi.decode(vm.getRecordedLogs()[0].data, (uint24, uint32, uint8, bytes32, uint256, bytes));
        assertEq(mv, _uci("g1f3"));
        assertEq(ply, 1);
        assertEq(st, 0);
    }

    function test_Move_FischerClock() public {
        uint256 id = _startGame();
        vm.warp(T0 + 100);
        _move(id, "e2e4");
        (uint256 last, uint256 w, uint256 b,,,,,,) = ref.decodeClock(pos[id].clock);
        assertEq(last, T0 + 100);
        assertEq(w, INITIAL + ref.GRACE_PERIOD() - 100 + INCREMENT);
        assertEq(b, INITIAL + ref.GRACE_PERIOD());
    }

    function test_Move_RevertsOutOfTurn() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.NotYourTurn.selector);
        ref.move(id, p.state, p.history, p.clock, _uci("e7e5"));
    }

    function test_Move_RevertsForNonPlayer() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.prank(carol);
        vm.expectRevert(IChessRefereeTypes.NotAPlayer.selector);
        ref.move(id, p.state, p.history, p.clock, _uci("e2e4"));
    }

    function test_Move_RevertsOnStalePosition() public {
        uint256 id = _startGame();
        Position memory old = pos[id];
        _move(id, "e2e4");
        _move(id, "e7e5");
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.move(id, old.state, old.history, old.clock, _uci("d2d4"));
    }

    function test_Move_RevertsOnForgedState() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        p.state[20] = 0; // remove the e7 pawn
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.move(id, p.state, p.history, p.clock, _uci("e2e4"));
    }

    function test_Move_RevertsOnForgedClock() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.move(id, p.state, p.history, p.clock + (1000 << 40), _uci("e2e4"));
    }

    function test_Move_IllegalGeometryRevertsWithCode() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IllegalMove.selector, uint8(6)));
        ref.move(id, p.state, p.history, p.clock, _uci("e2e5"));
    }

    function test_Move_OffBoardRevertsWithCode() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IllegalMove.selector, uint8(1)));
        ref.move(id, p.state, p.history, p.clock, uint24((100 << 16) | (0x08 << 8)));
    }

    function test_Move_RevertsBeforeJoin() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        bytes memory s = ChessRules.initialState();
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotRunning.selector, id));
        ref.move(id, s, bytes32(0), 0, _uci("e2e4"));
    }

    function test_Move_RevertsAfterGameEnded() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.prank(bob);
        ref.resign(id);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotRunning.selector, id));
        ref.move(id, p.state, p.history, p.clock, _uci("e2e4"));
    }

    function test_Move_AllowedAtLastSecondOfGrace() public {
        uint256 id = _startGame();
        vm.warp(T0 + INITIAL + ref.GRACE_PERIOD());
        _move(id, "e2e4");
        (, uint256 w,,,,,,,) = ref.decodeClock(pos[id].clock);
        assertEq(w, INCREMENT);
    }

    /// @notice The grace is one overdraft per player and game, not a renewable delay: time
    /// borrowed from it on one move is missing on the next.
    function test_Move_GraceBorrowedStaysBorrowed() public {
        vm.recordLogs();
        vm.prank(alice);
        uint256 id = ref.createGame(bob, true, address(0), 0, 60, 0, 0, "");
        _absorb(vm.getRecordedLogs());
        _join(id, bob, 0);
        vm.warp(T0 + 60 + 10); // 10 s into the 15 s grace
        _move(id, "e2e4");
        vm.warp(block.timestamp + 1);
        _move(id, "e7e5");
        Position memory p = pos[id];
        vm.warp(block.timestamp + 6); // only 5 s of grace were left
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.TimeUp.selector);
        ref.move(id, p.state, p.history, p.clock, _uci("g1f3"));
        vm.prank(bob);
        ref.claimTimeout(id, p.state, p.history, p.clock);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 6);
    }

    function test_Move_RevertsWhenMoverTimeIsUp() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.warp(T0 + INITIAL + ref.GRACE_PERIOD() + 1);
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.TimeUp.selector);
        ref.move(id, p.state, p.history, p.clock, _uci("e2e4"));
    }

    function test_Move_CheckmateEndsGameAndPaysWinner() public {
        uint256 id = _startGame();
        _playAll(id, "f2f3 e7e5 g2g4 d8h4", 1);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(_phase(id), PHASE_ENDED);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 1);
        assertEq(ref.getGame(id).commitment, bytes32(0));
        assertEq(ref.credits(bob, address(0)), 2 * STAKE);
        assertEq(ref.credits(alice, address(0)), 0);
    }

    function test_Move_StalemateEndsGameAsDraw() public {
        uint256 id = _create(alice, bob, true, STAKE, _fen("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"));
        _join(id, bob, STAKE);
        _move(id, "f1f7");
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 2);
        assertEq(ref.credits(alice, address(0)), STAKE);
        assertEq(ref.credits(bob, address(0)), STAKE);
    }

    function test_Move_InsufficientMaterialEndsGameAsDraw() public {
        uint256 id = _create(alice, bob, true, STAKE, _fen("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1"));
        _join(id, bob, STAKE);
        _move(id, "e1d2");
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 3);
    }

    function test_Move_SeventyFiveMoveRuleEndsGame() public {
        uint256 id = _create(alice, bob, true, 0, _fen("4k3/8/8/8/8/8/8/R3K3 w - - 149 120"));
        _join(id, bob, 0);
        _move(id, "a1a2");
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 4);
    }

    /// @dev Starts a zero-stake game from `fen` and expects `mv` to revert with `code`.
    function _expectIllegal(string memory fen, uint24 mv, uint8 code) internal {
        uint256 id = _create(alice, bob, true, 0, _fen(fen));
        _join(id, bob, 0);
        Position memory p = pos[id];
        vm.prank(_mover(id));
        vm.expectRevert(abi.encodeWithSelector(IllegalMove.selector, code));
        ref.move(id, p.state, p.history, p.clock, mv);
        assertEq(ref.getGame(id).commitment, ref.positionCommitment(p.state, p.history, p.clock));
    }

    string internal constant START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    /// @notice Every ENCODING.md section 6 code reaches the caller unchanged through `move`.
    function test_Move_PassesEverySection6Code() public {
        _expectIllegal(START, uint24((8 << 16) | (16 << 8)), 1);
        _expectIllegal(START, _uci("e2e2"), 2);
        _expectIllegal(START, _uci("e3e4"), 3);
        _expectIllegal(START, _uci("e7e5"), 4);
        _expectIllegal(START, _uci("a1a2"), 5);
        _expectIllegal(START, _uci("e2e5"), 6);
        _expectIllegal(START, _uci("a1a3"), 7);
        _expectIllegal(START, _uci("e2d3"), 8);
        _expectIllegal("4k3/8/8/8/8/8/8/4K2R w - - 0 1", _uci("e1g1"), 9);
        _expectIllegal("4k3/8/8/8/8/8/4r3/4K2R w K - 0 1", _uci("e1g1"), 10);
        _expectIllegal("4kr2/8/8/8/8/8/8/4K2R w K - 0 1", _uci("e1g1"), 11);
        _expectIllegal("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", _uci("b7b8"), 12);
        _expectIllegal(START, _uci("e2e4q"), 13);
        _expectIllegal("4k3/8/8/8/8/3n4/8/R3K3 w - - 0 1", _uci("e1f2"), 14);
    }

    function _expectInvalidStart(bytes memory start, uint8 code) internal {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(InvalidState.selector, code));
        ref.createGame(bob, true, address(0), 0, INITIAL, INCREMENT, 0, start);
    }

    /// @notice Every ENCODING.md section 7 code refuses a custom start through `createGame`.
    function test_CreateGame_PassesEverySection7Code() public {
        bytes memory s = _fen(START);
        s[0] = bytes1(uint8(7));
        _expectInvalidStart(s, 1);
        s = _fen(START);
        s[12] = bytes1(uint8(1));
        _expectInvalidStart(s, 2);
        s = _fen(START);
        s[4] = 0;
        _expectInvalidStart(s, 3);
        s = _fen(START);
        s[123] = bytes1(uint8(0x75));
        _expectInvalidStart(s, 4);
        _expectInvalidStart(_fen("4k2P/8/8/8/8/8/8/4K3 w - - 0 1"), 5);
        _expectInvalidStart(_fen("4k3/8/8/8/8/8/8/4K2r b - - 0 1"), 6);
        _expectInvalidStart(_fen("4k3/8/8/8/8/8/8/4K3 w K - 0 1"), 7);
        s = _fen(START);
        s[77] = bytes1(uint8(84));
        _expectInvalidStart(s, 8);
        assertEq(ref.nextGameId(), 1);
    }

    // ================================================================ resign

    function test_Resign_OpponentWins() public {
        uint256 id = _startGame();
        vm.prank(alice);
        ref.resign(id);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 5);
        assertEq(ref.credits(bob, address(0)), 2 * STAKE);
    }

    function test_Resign_RevertsForNonPlayer() public {
        uint256 id = _startGame();
        vm.prank(carol);
        vm.expectRevert(IChessRefereeTypes.NotAPlayer.selector);
        ref.resign(id);
    }

    function test_Resign_RevertsBeforeJoin() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotRunning.selector, id));
        ref.resign(id);
    }

    // ================================================================ draw offers

    function test_DrawOffer_AcceptedEndsInDraw() public {
        uint256 id = _startGame();
        _move(id, "e2e4");
        _offer(id, alice);
        Position memory p = pos[id];
        vm.prank(bob);
        ref.acceptDraw(id, p.state, p.history, p.clock);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 8);
        assertEq(ref.credits(alice, address(0)), STAKE);
        assertEq(ref.credits(bob, address(0)), STAKE);
    }

    function test_DrawOffer_CannotAcceptOwnOffer() public {
        uint256 id = _startGame();
        _offer(id, alice);
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.CannotAcceptOwnOffer.selector);
        ref.acceptDraw(id, p.state, p.history, p.clock);
    }

    function test_DrawOffer_LapsesWhenPositionChanges() public {
        uint256 id = _startGame();
        _move(id, "e2e4");
        _offer(id, alice);
        _move(id, "e7e5"); // bob declines by moving
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.NoDrawOffer.selector);
        ref.acceptDraw(id, p.state, p.history, p.clock);
    }

    function test_DrawOffer_StaleOfferPositionRejected() public {
        uint256 id = _startGame();
        _offer(id, alice);
        Position memory offered = pos[id];
        _move(id, "e2e4");
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.acceptDraw(id, offered.state, offered.history, offered.clock);
    }

    function test_DrawOffer_AcceptWithoutOfferReverts() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.NoDrawOffer.selector);
        ref.acceptDraw(id, p.state, p.history, p.clock);
    }

    function test_DrawOffer_NonPlayerCannotOffer() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.prank(carol);
        vm.expectRevert(IChessRefereeTypes.NotAPlayer.selector);
        ref.offerDraw(id, p.state, p.history, p.clock);
    }

    function test_DrawOffer_NonPlayerCannotAccept() public {
        uint256 id = _startGame();
        _offer(id, alice);
        Position memory p = pos[id];
        vm.prank(carol);
        vm.expectRevert(IChessRefereeTypes.NotAPlayer.selector);
        ref.acceptDraw(id, p.state, p.history, p.clock);
    }

    function test_DrawOffer_FlaggedSideCannotOffer() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        vm.warp(T0 + INITIAL + ref.GRACE_PERIOD() + 1);
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.TimeUp.selector);
        ref.offerDraw(id, p.state, p.history, p.clock);
    }

    function test_DrawOffer_FlaggedSideCannotAccept() public {
        uint256 id = _startGame();
        _offer(id, bob);
        Position memory p = pos[id];
        vm.warp(T0 + INITIAL + ref.GRACE_PERIOD() + 1);
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.TimeUp.selector);
        ref.acceptDraw(id, p.state, p.history, p.clock);
    }

    // ================================================================ draw claims

    // Knights out and back twice: the start position occurs for the third time after 8 plies.
    string internal constant SHUFFLE_7 = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1";

    function test_ClaimDraw_ThreefoldByPlayerToMove() public {
        uint256 id = _startGame();
        _playAll(id, string.concat(SHUFFLE_7, " f6g8"), 1);
        Position memory p = pos[id];
        bytes32[] memory keys = _keys(id);
        assertEq(keys.length, 9);
        vm.prank(alice);
        ref.claimDraw(id, p.state, p.history, p.clock, keys);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 10);
    }

    function test_ClaimDraw_RevertsOnSecondOccurrence() public {
        uint256 id = _startGame();
        _playAll(id, "g1f3 g8f6 f3g1 f6g8", 1);
        Position memory p = pos[id];
        bytes32[] memory keys = _keys(id);
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.DrawNotClaimable.selector);
        ref.claimDraw(id, p.state, p.history, p.clock, keys);
    }

    function test_ClaimDraw_RevertsOnForgedWitness() public {
        uint256 id = _startGame();
        _playAll(id, "g1f3 g8f6 f3g1 f6g8", 1);
        Position memory p = pos[id];
        bytes32[] memory keys = _keys(id);
        // Claim the current position occurred twice more by duplicating its key.
        bytes32[] memory forged = new bytes32[](keys.length + 2);
        for (uint256 i; i < keys.length; ++i) {
            forged[i] = keys[i];
        }
        forged[keys.length] = keys[keys.length - 1];
        forged[keys.length + 1] = keys[keys.length - 1];
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.BadWitness.selector);
        ref.claimDraw(id, p.state, p.history, p.clock, forged);
    }

    function test_ClaimDraw_RevertsOnOversizedWitness() public {
        uint256 id = _startGame();
        _playAll(id, "g1f3 g8f6", 1);
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.BadWitness.selector);
        ref.claimDraw(id, p.state, p.history, p.clock, new bytes32[](101));
    }

    function test_ClaimDraw_RevertsForFlaggedPlayer() public {
        uint256 id = _startGame();
        _playAll(id, string.concat(SHUFFLE_7, " f6g8"), 1);
        Position memory p = pos[id];
        bytes32[] memory keys = _keys(id);
        vm.warp(block.timestamp + 1 days);
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.TimeUp.selector);
        ref.claimDraw(id, p.state, p.history, p.clock, keys);
    }

    function test_ClaimDraw_RevertsForPlayerNotToMove() public {
        uint256 id = _startGame();
        _playAll(id, string.concat(SHUFFLE_7, " f6g8"), 1);
        Position memory p = pos[id];
        bytes32[] memory keys = _keys(id);
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.NotYourTurn.selector);
        ref.claimDraw(id, p.state, p.history, p.clock, keys);
    }

    function test_MoveAndClaimDraw_ThreefoldWithTheRepeatingMove() public {
        uint256 id = _startGame();
        _playAll(id, SHUFFLE_7, 1);
        Position memory p = pos[id];
        bytes32[] memory keys = _keys(id);
        bytes32[] memory withNext = new bytes32[](keys.length + 1);
        for (uint256 i; i < keys.length; ++i) {
            withNext[i] = keys[i];
        }
        withNext[keys.length] = ChessRules.repetitionKey(ChessRules.play(p.state, _uci("f6g8")));
        vm.prank(bob);
        ref.moveAndClaimDraw(id, p.state, p.history, p.clock, _uci("f6g8"), withNext);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 10);
    }

    function test_MoveAndClaimDraw_RevertsWholeMoveWithoutDraw() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        bytes32[] memory keys = new bytes32[](0);
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.DrawNotClaimable.selector);
        ref.moveAndClaimDraw(id, p.state, p.history, p.clock, _uci("e2e4"), keys);
        assertEq(ref.getGame(id).commitment, ref.positionCommitment(p.state, p.history, p.clock));
    }

    function test_ClaimDraw_FiftyMoveRule() public {
        uint256 id = _create(alice, bob, true, 0, _fen("4k3/8/8/8/8/8/8/R3K3 w - - 99 80"));
        _join(id, bob, 0);
        _move(id, "a1a2");
        Position memory p = pos[id];
        vm.prank(bob);
        ref.claimDraw(id, p.state, p.history, p.clock, new bytes32[](0));
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 9);
    }

    function test_MoveAndClaimDraw_FiftyMoveRuleWithTheMove() public {
        uint256 id = _create(alice, bob, true, 0, _fen("4k3/8/8/8/8/8/8/R3K3 w - - 99 80"));
        _join(id, bob, 0);
        Position memory p = pos[id];
        vm.prank(alice);
        ref.moveAndClaimDraw(id, p.state, p.history, p.clock, _uci("a1a2"), new bytes32[](0));
        (, uint8 reason) = _result(id);
        assertEq(reason, 9);
    }

    function test_ClaimDraw_FiftyMoveRuleRevertsAt99() public {
        uint256 id = _create(alice, bob, true, 0, _fen("4k3/8/8/8/8/8/8/R3K3 w - - 98 80"));
        _join(id, bob, 0);
        _move(id, "a1a2");
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.DrawNotClaimable.selector);
        ref.claimDraw(id, p.state, p.history, p.clock, new bytes32[](0));
    }

    function test_MoveAndClaimDraw_MateTakesPrecedence() public {
        uint256 id = _startGame();
        _playAll(id, "f2f3 e7e5 g2g4", 1);
        Position memory p = pos[id];
        vm.prank(bob);
        ref.moveAndClaimDraw(id, p.state, p.history, p.clock, _uci("d8h4"), new bytes32[](0));
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 1);
    }

    // ================================================================ timeouts

    function test_ClaimTimeout_WinsForOpponent() public {
        uint256 id = _startGame();
        _playAll(id, "e2e4 e7e5", 10);
        vm.warp(block.timestamp + INITIAL + INCREMENT - 10 + ref.GRACE_PERIOD() + 1);
        _claimTimeout(id, bob);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 6);
        assertEq(ref.credits(bob, address(0)), 2 * STAKE);
    }

    function test_ClaimTimeout_RevertsBeforeDeadline() public {
        uint256 id = _startGame();
        _playAll(id, "e2e4 e7e5", 10);
        uint256 deadline = block.timestamp + INITIAL + INCREMENT - 10 + ref.GRACE_PERIOD();
        vm.warp(deadline); // inside the grace window: the mover may still move
        Position memory p = pos[id];
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, deadline));
        ref.claimTimeout(id, p.state, p.history, p.clock);
    }

    function test_ClaimTimeout_RevertsForFlaggedPlayer() public {
        uint256 id = _startGame();
        _playAll(id, "e2e4 e7e5", 10);
        vm.warp(block.timestamp + 10 days);
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.NotYourTurn.selector);
        ref.claimTimeout(id, p.state, p.history, p.clock);
    }

    function test_ClaimTimeout_RevertsForNonPlayer() public {
        uint256 id = _startGame();
        _playAll(id, "e2e4 e7e5", 10);
        vm.warp(block.timestamp + 10 days);
        Position memory p = pos[id];
        vm.prank(carol);
        vm.expectRevert(IChessRefereeTypes.NotAPlayer.selector);
        ref.claimTimeout(id, p.state, p.history, p.clock);
    }

    function test_ClaimTimeout_DrawWhenClaimantCannotMate() public {
        // Black has only its king: if white flags, black's claim is a draw (FIDE 6.9).
        uint256 id = _create(alice, bob, true, STAKE, _fen("4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1"));
        _join(id, bob, STAKE);
        _playAll(id, "d2d3 e8f7", 1);
        vm.warp(block.timestamp + 1 days);
        _claimTimeout(id, bob);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 7);
        assertEq(ref.credits(alice, address(0)), STAKE);
        assertEq(ref.credits(bob, address(0)), STAKE);
    }

    function test_ClaimTimeout_AbortsWhenWhiteNeverMoved() public {
        uint256 id = _startGame();
        vm.warp(T0 + 1 days);
        _claimTimeout(id, bob);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, ABORTED);
        assertEq(reason, 11);
        assertEq(ref.credits(alice, address(0)), STAKE);
        assertEq(ref.credits(bob, address(0)), STAKE);
    }

    function test_ClaimTimeout_AbortsWhenBlackNeverMoved() public {
        uint256 id = _startGame();
        _move(id, "e2e4");
        vm.warp(T0 + 1 days);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, ABORTED);
        assertEq(reason, 11);
        assertEq(ref.credits(alice, address(0)), STAKE);
        assertEq(ref.credits(bob, address(0)), STAKE);
    }

    function test_ClaimTimeout_CannotOverrideCheckmate() public {
        uint256 id = _startGame();
        _playAll(id, "f2f3 e7e5 g2g4 d8h4", 1);
        Position memory p = pos[id];
        vm.warp(block.timestamp + 10 days);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotRunning.selector, id));
        ref.claimTimeout(id, p.state, p.history, p.clock);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 1);
    }

    // ================================================================ withdraw and views

    function test_Withdraw_PaysCreditOnceAndZeroesIt() public {
        uint256 id = _startGame();
        vm.prank(alice);
        ref.resign(id);
        uint256 before = bob.balance;
        vm.prank(bob);
        ref.withdraw(address(0));
        assertEq(bob.balance, before + 2 * STAKE);
        assertEq(ref.credits(bob, address(0)), 0);
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.NothingToWithdraw.selector);
        ref.withdraw(address(0));
    }

    function test_Clocks_ViewRunsSideToMove() public {
        uint256 id = _startGame();
        _move(id, "e2e4");
        vm.warp(block.timestamp + 42);
        Position memory p = pos[id];
        (uint256 w, uint256 b, bool whiteToMove, uint256 deadline) = ref.clocks(id, p.state, p.history, p.clock);
        assertEq(w, INITIAL + INCREMENT);
        assertEq(b, INITIAL - 42);
        assertFalse(whiteToMove);
        assertEq(deadline, block.timestamp - 42 + INITIAL + ref.GRACE_PERIOD());
    }

    function test_Clocks_ViewRejectsStalePosition() public {
        uint256 id = _startGame();
        Position memory p = pos[id];
        _move(id, "e2e4");
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.clocks(id, p.state, p.history, p.clock);
    }

    // ================================================================ peer-bug regressions

    /// @notice Peer bug: a timeout beat a stalemate already on the board. Here the
    /// stalemating move ends the game in the same transaction.
    function test_Regression_TimeoutCannotBeatStalemate() public {
        uint256 id = _create(alice, bob, true, STAKE, _fen("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"));
        _join(id, bob, STAKE);
        _playAll(id, "f1f2 h8g8 f2f1 g8h8", 1); // ply >= 2: a flag would be a real loss
        _move(id, "f1f7");
        Position memory p = pos[id];
        vm.warp(block.timestamp + 10 days);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotRunning.selector, id));
        ref.claimTimeout(id, p.state, p.history, p.clock);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 2);
    }

    /// @notice Peer bug: castling survived the capture of its rook. Through the referee:
    /// after Bxh1 white may not castle king-side (code 9).
    function test_Regression_NoCastlingAfterRookCaptured() public {
        uint256 id = _create(alice, bob, true, 0, _fen("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1"));
        _join(id, bob, 0);
        _move(id, "g2h1");
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IllegalMove.selector, uint8(9)));
        ref.move(id, p.state, p.history, p.clock, _uci("e1g1"));
    }

    /// @notice Peer bug: castling through check was accepted (code 11).
    function test_Regression_NoCastlingThroughCheck() public {
        uint256 id = _create(alice, bob, true, 0, _fen("4kr2/8/8/8/8/8/8/4K2R w K - 0 1"));
        _join(id, bob, 0);
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IllegalMove.selector, uint8(11)));
        ref.move(id, p.state, p.history, p.clock, _uci("e1g1"));
    }

    /// @notice Peer bug: knight checks went unseen: the king may not step into one (code 14).
    function test_Regression_KnightCheckSeen() public {
        uint256 id = _create(alice, bob, true, 0, _fen("4k3/8/8/8/8/3n4/8/R3K3 w - - 0 1"));
        _join(id, bob, 0);
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IllegalMove.selector, uint8(14)));
        ref.move(id, p.state, p.history, p.clock, _uci("e1f2"));
    }

    /// @notice Peer bug: promotion forced to a queen. A knight promotion is kept.
    function test_Regression_UnderpromotionKept() public {
        uint256 id = _create(alice, bob, true, 0, _fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"));
        _join(id, bob, 0);
        _move(id, "b7b8n");
        assertEq(uint8(pos[id].state[1]), 2);
    }

    /// @notice Peer bug: a piece other than a pawn captured en passant. A knight landing on
    /// the en-passant square leaves the pawn behind it alone.
    function test_Regression_OnlyPawnsCaptureEnPassant() public {
        uint256 id = _create(alice, bob, true, 0, _fen("4k3/8/8/8/6n1/8/4P3/4K3 w - - 0 1"));
        _join(id, bob, 0);
        _move(id, "e2e4"); // white's en-passant byte: e3
        assertEq(uint8(pos[id].state[77]), 84);
        _move(id, "g4e3"); // the knight lands on e3
        assertEq(uint8(pos[id].state[84]), 0xfe); // black knight on e3
        assertEq(uint8(pos[id].state[68]), 1); // white pawn still on e4
    }

    // ================================================================ events

    /// @notice A whole real game rebuilt from the referee's events alone: the start
    /// position, every move with its ply, each new state equal to ChessRules.play of the
    /// previous one, a checkmate on the board at the end, and the result.
    function test_Events_RebuildWholeGame() public {
        keepLogs = true;
        uint256 id = _startGame();
        _playAll(id, RealGames.caruanaPichot2017(), 2);
        bytes memory state;
        uint256 plies;
        uint8 result;
        uint8 reason;
        for (uint256 i; i < allLogs.length; ++i) {
            Vm.Log memory l = allLogs[i];
            if (uint256(l.topics[1]) != id) continue;
            if (l.topics[0] == IChessRefereeTypes.GameCreated.selector) {
                (,,,,,,, state,) =
                    abi.decode(l.data, (bool, address, uint256, uint32, uint32, uint32, bytes32, bytes, bytes32));
            } else if (l.topics[0] == IChessRefereeTypes.MovePlayed.selector) {
                (uint24 mv, uint32 ply,,,, bytes memory next) =
                    abi.decode(l.data, (uint24, uint32, uint8, bytes32, uint256, bytes));
                assertEq(ply, ++plies);
                assertEq(next, ChessRules.play(state, mv));
                state = next;
            } else if (l.topics[0] == IChessRefereeTypes.GameEnded.selector) {
                (result, reason) = abi.decode(l.data, (uint8, uint8));
            }
        }
        assertEq(plies, 79);
        assertEq(ChessRules.status(state), 1);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 1);
    }
}
