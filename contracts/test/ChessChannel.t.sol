// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelBase} from "./ChessChannelBase.t.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {ChessRules, BadStateLength} from "../src/ChessRules.sol";
import {ChannelGame} from "../src/ChessCourt.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {Move, Delegation, Resignation, Result, Auth} from "../src/ChannelHash.sol";

/// @notice Channel games on the referee: creation terms, the off-chain phase, the court's
/// entry points.
contract ChessChannelGameTest is ChannelBase {
    function test_CreateChannelGame_TermsHashWrapsBaseTermsWithWindow() public {
        uint256 id = _createChannel(alice, bob, "");
        bytes32 base = ref.termsHash(alice, bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "");
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertEq(g.terms, keccak256(abi.encode(base, uint256(WINDOW))));
        assertEq(g.terms, ref.channelTermsHash(base, WINDOW));
        assertEq(g.responseWindow, WINDOW);
    }

    function test_CreateChannelGame_RejectsWindowBelowMinimum() public {
        assertEq(ref.MIN_RESPONSE_WINDOW(), 600);
        vm.prank(alice);
        vm.expectRevert(_err(IChessRefereeTypes.BadResponseWindow.selector, 599));
        ref.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "", 599);
    }

    function test_CreateChannelGame_RejectsWindowAboveMaximum() public {
        vm.prank(alice);
        vm.expectRevert(_err(IChessRefereeTypes.BadResponseWindow.selector, 1 days + 1));
        ref.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "", 1 days + 1);
    }

    function test_CreateGame_TermsHashAndWindowUnchanged() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertEq(g.terms, ref.termsHash(alice, bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, ""));
        assertEq(g.responseWindow, 0);
    }

    function test_JoinChannelGame_RunsOffChainWithoutCommitmentOrClock() public {
        uint256 id = _createChannel(alice, bob, "");
        _join(id, bob, STAKE);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertEq(g.phase, PHASE_RUNNING);
        assertEq(g.commitment, bytes32(0));
        assertEq(pos[id].clock, 0, "GameJoined carries clock 0");
    }

    function test_JoinChannelGame_RejectsBaseTermsWithoutWindow() public {
        uint256 id = _createChannel(alice, bob, "");
        bytes32 base = ref.termsHash(alice, bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "");
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.WrongTerms.selector, terms));
        ref.joinGame{value: STAKE}(id, base);
    }

    function test_OffChain_MoveRevertsOffChain() public {
        uint256 id = _startChannelGame();
        vm.prank(alice);
        vm.expectRevert(_err(IChessRefereeTypes.OffChain.selector, id));
        ref.move(id, pos[id].state, pos[id].history, 0, _uci("e2e4"));
    }

    function test_OffChain_ClaimTimeoutRevertsOffChain() public {
        uint256 id = _startChannelGame();
        vm.warp(block.timestamp + 1 days);
        vm.prank(bob);
        vm.expectRevert(_err(IChessRefereeTypes.OffChain.selector, id));
        ref.claimTimeout(id, pos[id].state, pos[id].history, 0);
    }

    function test_OffChain_ResignPaysOpponent() public {
        uint256 id = _startChannelGame();
        vm.prank(bob);
        ref.resign(id);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 5);
        assertEq(_credit(alice), 2 * STAKE);
    }

    function test_Court_RegisterPositionOnlyByChannel() public {
        uint256 id = _startChannelGame();
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.NotChannel.selector);
        ref.registerPosition(id, pos[id].state, pos[id].history, 1);
    }

    function test_Court_EndChannelGameOnlyByChannel() public {
        uint256 id = _startChannelGame();
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.NotChannel.selector);
        ref.endChannelGame(id, WHITE_WINS, 8);
    }

    function test_Court_EndChannelGameRefusesEndedGame() public {
        uint256 id = _startChannelGame();
        _settle(id, DRAW);
        vm.prank(address(channel));
        vm.expectRevert(_err(IChessRefereeTypes.GameNotRunning.selector, id));
        ref.endChannelGame(id, WHITE_WINS, 8);
    }

    function test_Court_ChannelIsDeployedByTheReferee() public view {
        assertEq(address(channel.referee()), address(ref));
    }

    function test_Court_ChannelGameViewKeepsStart() public {
        uint256 id = _startChannelGame();
        ChannelGame memory c = ref.channelGame(id);
        assertEq(c.white, alice);
        assertEq(c.black, bob);
        assertEq(c.responseWindow, WINDOW);
        assertEq(ref.channelStart(id), keccak256(abi.encodePacked(line[0].state, line[0].history)));
        assertFalse(c.customStart);
    }

    function test_Court_CustomStartKeptAfterJoin() public {
        bytes memory start = _fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        uint256 id = _createChannel(alice, bob, start);
        _join(id, bob, STAKE);
        ChannelGame memory c = ref.channelGame(id);
        assertTrue(c.customStart);
        Move memory s0 = _startMove(id, start);
        assertEq(ref.channelStart(id), keccak256(abi.encodePacked(s0.state, s0.history)));
    }
}

/// @notice The cooperative endings: a result signed by both, a resignation signed by the loser.
contract ChessChannelSettleTest is ChannelBase {
    function test_Settle_WhiteWinsPaysWinnerBothStakes() public {
        uint256 id = _startChannelGame();
        _settle(id, WHITE_WINS);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 8);
        assertEq(_credit(alice), 2 * STAKE);
        assertEq(_credit(bob), 0);
    }

    function test_Settle_DrawRefundsEach() public {
        uint256 id = _startChannelGame();
        _settle(id, DRAW);
        assertEq(_credit(alice), STAKE);
        assertEq(_credit(bob), STAKE);
    }

    function test_Settle_RejectsResultZero() public {
        uint256 id = _startChannelGame();
        vm.expectRevert(_err(IChessChannelTypes.BadResult.selector, 0));
        this.settleExternal(id, 0);
    }

    function test_Settle_RejectsResultFour() public {
        uint256 id = _startChannelGame();
        vm.expectRevert(_err(IChessChannelTypes.BadResult.selector, 4));
        this.settleExternal(id, 4);
    }

    function test_Settle_RejectsSignatureOfOnlyOnePlayer() public {
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: 0, position: 0, result: WHITE_WINS});
        bytes32 d = _resultDigest(r);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob));
        channel.settle(r, _direct(_sig(ALICE_PK, d)), _direct(_sig(ALICE_PK, d)));
    }

    function test_Settle_SecondSettlementReverts() public {
        uint256 id = _startChannelGame();
        _settle(id, WHITE_WINS);
        vm.expectRevert(_err(IChessChannelTypes.GameNotRunning.selector, id));
        this.settleExternal(id, WHITE_WINS);
        assertEq(_credit(alice), 2 * STAKE, "paid once");
    }

    function test_Settle_RejectsOnChainGame() public {
        uint256 id = _startGame();
        vm.expectRevert(_err(IChessChannelTypes.NotAChannelGame.selector, id));
        this.settleExternal(id, WHITE_WINS);
    }

    function test_Settle_RejectsOpenGame() public {
        uint256 id = _createChannel(alice, bob, "");
        vm.expectRevert(_err(IChessChannelTypes.GameNotRunning.selector, id));
        this.settleExternal(id, WHITE_WINS);
    }

    /// @dev v2: while a registration is frozen, a result counts only at or above its ply
    /// (section 7.1), so this one names the registered position.
    function test_Settle_AfterRegistration() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        _register(2);
        Result memory r = Result({gameId: id, ply: 2, position: channel.hashMove(line[2]), result: BLACK_WINS});
        bytes32 d = _resultDigest(r);
        channel.settle(r, _direct(_sig(ALICE_PK, d)), _direct(_sig(BOB_PK, d)));
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 8);
        assertEq(_credit(bob), 2 * STAKE);
        assertEq(ref.getGame(id).commitment, bytes32(0));
    }

    function test_ResignBySignature_OpponentWins() public {
        uint256 id = _startChannelGame();
        Resignation memory r = Resignation({gameId: id, ply: 7, position: 0});
        channel.resignBySignature(r, _direct(_sig(ALICE_PK, _resignationDigest(r))), true);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 5);
        assertEq(_credit(bob), 2 * STAKE);
    }

    function test_ResignBySignature_RejectsResignationForTheOtherSide() public {
        uint256 id = _startChannelGame();
        Resignation memory r = Resignation({gameId: id, ply: 7, position: 0});
        Auth memory a = _direct(_sig(ALICE_PK, _resignationDigest(r)));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob));
        channel.resignBySignature(r, a, false);
    }

    function test_ResignBySignature_BySessionKey() public {
        uint256 id = _startChannelGame();
        Resignation memory r = Resignation({gameId: id, ply: 7, position: 0});
        Auth memory a = _bySession(BOB_PK, SESSION1_PK, _delegation(id, SESSION1_PK, 1, 100), _resignationDigest(r));
        channel.resignBySignature(r, a, false);
        assertEq(_credit(alice), 2 * STAKE);
    }
}

/// @notice The dispute path: registering signed pairs, the clock they start, replacement.
contract ChessChannelRegisterTest is ChannelBase {
    function test_Register_FirstMoveFromStartContinuesOnChain() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        _register(1);
        assertEq(ref.getGame(id).commitment, ref.positionCommitment(line[1].state, line[1].history, pos[id].clock));
        vm.warp(block.timestamp + WINDOW + 5);
        _move(id, "e7e5");
        assertEq(_ply(id), 2);
    }

    function test_Register_EmitsPositionRegistered() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        Move memory q = line[1];
        Move memory m = line[2];
        (Auth memory qa, Auth memory ma) = (_byAuthor(q), _byAuthor(m));
        vm.expectEmit(true, false, false, false, address(ref));
        emit IChessRefereeTypes.PositionRegistered(id, 2, m.state, m.history, 0);
        vm.prank(bob);
        channel.register(q, qa, m, ma, _noReceipt(), _direct(""), _frozen(m));
    }

    /// @dev v2 (section 7.3): the side to move's clock runs from the move's stamp through
    /// the window, so its budget at the window's end is its time + grace - (window's end - stamp).
    function test_Register_ClockResumesFromSignedTimesAfterTheWindow() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        Move memory m = line[3];
        vm.warp(m.timestamp + 7);
        _register(3);
        (uint256 last, uint256 wb, uint256 bb, uint256 inc, uint256 ply,,, bool custom, uint256 window) =
            ref.decodeClock(pos[id].clock);
        assertEq(last, block.timestamp + WINDOW, "frozen for the response window");
        assertEq(wb, m.whiteTime + 15, "author: its time + grace");
        assertEq(bb, m.blackTime + 15 - (WINDOW + 7), "side to move: charged from the stamp to the window's end");
        assertEq(inc, INCREMENT);
        assertEq(ply, 3);
        assertFalse(custom);
        assertEq(window, 300);
    }

    /// @dev v2: the side to move's deadline is its move's stamp + its time + grace (its clock
    /// ran through the window), no longer the window's end + its time + grace.
    function test_Register_SideToMoveFlaggedAfterStampPlusTime() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        _register(3);
        uint256 deadline = line[3].timestamp + line[3].blackTime + 15;
        vm.warp(deadline);
        vm.prank(alice);
        vm.expectRevert(_err(IChessRefereeTypes.TimeNotUp.selector, deadline));
        ref.claimTimeout(id, pos[id].state, pos[id].history, pos[id].clock);
        vm.warp(deadline + 1);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
    }

    function test_Register_RejectsForgedStartMove() public {
        uint256 id = _startChannelGame();
        line[0].whiteTime = INITIAL + 1;
        _extend("e2e4");
        Auth memory a = _byAuthor(line[1]);
        vm.prank(ref.getGame(line[1].gameId).white);
        vm.expectRevert(IChessChannelTypes.NotTheStart.selector);
        channel.register(line[0], _direct(""), line[1], a, _noReceipt(), _direct(""), _frozen(line[1]));
    }

    function test_Register_RejectsInvalidTransitionWithItsCode() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        Move memory m = _next(line[1], "e7e5", 2);
        m.whiteTime -= 1; // black cuts white's time
        (Auth memory qa, Auth memory ma) = (_byAuthor(line[1]), _byAuthor(m));
        vm.prank(ref.getGame(m.gameId).white);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.InvalidTransition.selector, 4, 0));
        channel.register(line[1], qa, m, ma, _noReceipt(), _direct(""), _frozen(m));
        id;
    }

    function test_Register_RejectsUnsignedPrevious() public {
        _startChannelGame();
        _extend("e2e4 e7e5");
        (Auth memory qa, Auth memory ma) = (_signMove(BOB_PK, line[1]), _byAuthor(line[2]));
        vm.prank(ref.getGame(line[2].gameId).white);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.register(line[1], qa, line[2], ma, _noReceipt(), _direct(""), _frozen(line[2]));
    }

    function test_Register_RejectsLastSignedByNonAuthor() public {
        _startChannelGame();
        _extend("e2e4 e7e5");
        (Auth memory qa, Auth memory ma) = (_byAuthor(line[1]), _signMove(ALICE_PK, line[2]));
        vm.prank(ref.getGame(line[2].gameId).white);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob));
        channel.register(line[1], qa, line[2], ma, _noReceipt(), _direct(""), _frozen(line[2]));
    }

    function test_Register_RejectsStateOfWrongLength() public {
        _startChannelGame();
        _extend("e2e4 e7e5");
        Move memory m = line[2];
        m.state = bytes.concat(m.state, hex"00");
        (Auth memory qa, Auth memory ma) = (_byAuthor(line[1]), _direct(""));
        vm.prank(ref.getGame(m.gameId).white);
        vm.expectRevert(abi.encodeWithSelector(BadStateLength.selector, 129));
        channel.register(line[1], qa, m, ma, _noReceipt(), _direct(""), _frozen(m));
    }

    function test_Register_StaleRegistrationOvertakenByHigherPly() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6");
        _register(2); // alice registers an old pair
        _register(4); // bob overtakes with the latest
        assertEq(_ply(id), 4);
        assertEq(pos[id].state, line[4].state);
    }

    function test_Register_LowerPlyIsStale() public {
        _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6");
        _register(4);
        vm.expectRevert(_err(IChessChannelTypes.StaleRegistration.selector, 4));
        this.registerExternal(2);
    }

    function test_Register_SamePositionAtSamePlyIsStale() public {
        _startChannelGame();
        _extend("e2e4 e7e5");
        _register(2);
        vm.expectRevert(_err(IChessChannelTypes.StaleRegistration.selector, 2));
        this.registerExternal(2);
    }

    function test_Register_ClosedOnceOnChainPlayIsLive() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        // alice (white) registers the pair before her signed ply 3 and, after the window,
        // plays another move on-chain: the chain's clock now rules, and her signed g1f3
        // can no longer replace it (nor refund anybody's time)
        _register(2);
        vm.warp(block.timestamp + WINDOW + 3);
        _move(id, "d2d4");
        assertEq(_ply(id), 3);
        vm.expectRevert(_err(IChessChannelTypes.RegistrationClosed.selector, id));
        this.registerExternal(3);
    }

    /// @dev v2: an overtaking move without a receipt must be fresh (section 7.3 step 5), so
    /// black's reply in the window's last second is stamped then.
    function test_Register_HigherPlyOvertakesWithinTheWindow() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        _register(2);
        vm.warp(block.timestamp + WINDOW - 1);
        line.push(_successor(line[3], _uci("b8c6"), uint32(block.timestamp - line[3].timestamp)));
        _register(4);
        assertEq(_ply(id), 4);
    }

    function test_Register_SamePlyWithinTheWindowIsStale() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        _register(2);
        vm.expectRevert(_err(IChessChannelTypes.StaleRegistration.selector, 2));
        this.registerExternal(2);
        assertEq(_ply(id), 2);
    }

    function test_Register_RejectsNonPlayer() public {
        _startChannelGame();
        _extend("e2e4 e7e5");
        (Auth memory qa, Auth memory ma) = (_byAuthor(line[1]), _byAuthor(line[2]));
        Move memory q = line[1];
        Move memory m = line[2];
        vm.prank(carol);
        vm.expectRevert(IChessChannelTypes.NotAPlayer.selector);
        channel.register(q, qa, m, ma, _noReceipt(), _direct(""), _frozen(m));
    }

    /// @dev v2 replaced v1's "name the frozen position" (StalePosition) by: anyone may
    /// overtake a frozen registration with a higher ply, knowing nothing of it.
    function test_Register_AnyoneOvertakesWhileFrozen() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6");
        _register(2);
        _registerBy(4, carol);
        assertEq(_ply(id), 4);
        assertEq(pos[id].state, line[4].state);
    }

    /// @dev v2: a registered decided position does not end the game; after the window
    /// anyone finishes it with `finishRegistered` (sections 7.3, 7.4).
    function test_Register_DecidedFinalPositionSettlesAfterTheWindow() public {
        uint256 id = _startChannelGame();
        _extend("f2f3 e7e5 g2g4 d8h4"); // fool's mate
        _register(4);
        assertEq(_phase(id), PHASE_RUNNING, "a registration never ends the game");
        assertEq(ClockWord.pendingStatus(pos[id].clock), ChessRules.CHECKMATE);
        Position memory p = pos[id];
        vm.expectRevert(_err(IChessRefereeTypes.NotYetPlayable.selector, block.timestamp + WINDOW));
        ref.finishRegistered(id, p.state, p.history, p.clock);
        vm.warp(block.timestamp + WINDOW);
        vm.prank(carol);
        ref.finishRegistered(id, p.state, p.history, p.clock);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 1);
        assertEq(_credit(bob), 2 * STAKE);
    }

    function test_Register_AfterSettlementReverts() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        _settle(id, DRAW);
        vm.expectRevert(_err(IChessChannelTypes.GameNotRunning.selector, id));
        this.registerExternal(2);
        assertEq(_credit(alice), STAKE, "paid once");
        assertEq(_credit(bob), STAKE, "paid once");
    }

    function test_Register_MateFirstThenSettlementReverts() public {
        uint256 id = _startChannelGame();
        _extend("f2f3 e7e5 g2g4 d8h4");
        _register(4);
        // v2: an earlier result lapses against the frozen mate; once finished, nothing settles
        vm.expectRevert(_err(IChessChannelTypes.LapsedAgreement.selector, 4));
        this.settleExternal(id, DRAW);
        vm.warp(block.timestamp + WINDOW);
        ref.finishRegistered(id, pos[id].state, pos[id].history, pos[id].clock);
        vm.expectRevert(_err(IChessChannelTypes.GameNotRunning.selector, id));
        this.settleExternal(id, DRAW);
        assertEq(_credit(bob), 2 * STAKE, "paid once");
        assertEq(_credit(alice), 0);
    }

    function test_RegisterStart_StartsOnChainAfterTheWindow() public {
        uint256 id = _startChannelGame();
        vm.recordLogs();
        vm.prank(bob);
        channel.registerStart(line[0]);
        _absorb(vm.getRecordedLogs());
        (uint256 last, uint256 wb, uint256 bb,, uint256 ply,,,,) = ref.decodeClock(pos[id].clock);
        assertEq(last, block.timestamp + WINDOW);
        assertEq(wb, INITIAL + 15);
        assertEq(bb, INITIAL + 15);
        assertEq(ply, 0);
        vm.warp(block.timestamp + WINDOW);
        _move(id, "e2e4");
        assertEq(_ply(id), 1);
    }

    function test_RegisterStart_RejectsWhenOnChain() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        _register(1);
        vm.prank(alice);
        vm.expectRevert(_err(IChessChannelTypes.AlreadyOnChain.selector, id));
        channel.registerStart(line[0]);
    }

    function test_RegisterStart_RejectsOtherPosition() public {
        _startChannelGame();
        _extend("e2e4");
        Move memory fake = line[1];
        fake.ply = 0;
        fake.mv = 0;
        fake.previous = 0;
        fake.whiteTime = INITIAL;
        vm.prank(alice);
        vm.expectRevert(IChessChannelTypes.NotTheStart.selector);
        channel.registerStart(fake);
    }

    function test_RegisterStart_RejectsNonPlayer() public {
        _startChannelGame();
        Move memory start = line[0];
        vm.prank(carol);
        vm.expectRevert(IChessChannelTypes.NotAPlayer.selector);
        channel.registerStart(start);
    }
}

/// @notice A registered position is frozen for the response window: only a later
/// registration may replace it, so a stale registration cannot be followed at once by a
/// winning move or a draw claim the registrant let pass off-chain.
contract ChessChannelFreezeTest is ChannelBase {
    /// @dev Nf3 Nf6 Ng1 Ng8 twice: the start position for the third time after ply 8.
    function _knightDance() internal returns (uint256 id) {
        id = _startChannelGame();
        _extend("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
    }

    function _witness() internal view returns (bytes32[] memory keys) {
        keys = new bytes32[](9);
        for (uint256 i; i < 9; ++i) {
            keys[i] = ChessRules.repetitionKey(line[i].state);
        }
    }

    function _claimDraw(uint256 id, address who, bytes32[] memory keys) internal {
        Position storage p = pos[id];
        vm.prank(who);
        ref.claimDraw(id, p.state, p.history, p.clock, keys);
    }

    function test_Freeze_ThreefoldClaimedOnChainAfterTheWindow() public {
        uint256 id = _knightDance();
        _register(8);
        vm.warp(block.timestamp + WINDOW + 1);
        _claimDraw(id, alice, _witness());
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 10);
    }

    function test_Freeze_DrawClaimDuringTheWindowReverts() public {
        uint256 id = _knightDance();
        _register(8);
        bytes32[] memory keys = _witness();
        Position storage p = pos[id];
        vm.prank(alice);
        vm.expectRevert(_err(IChessRefereeTypes.NotYetPlayable.selector, block.timestamp + WINDOW));
        ref.claimDraw(id, p.state, p.history, p.clock, keys);
    }

    function test_Freeze_StaleThreefoldClaimIsOvertaken() public {
        // The repetition happened at ply 8; white played on and the game went on.
        uint256 id = _knightDance();
        _extend("e2e4 e7e5");
        _register(8);
        // black overtakes with the latest pair before the window ends: no claim is left
        _register(10);
        vm.warp(block.timestamp + WINDOW + 1);
        bytes32[] memory keys = _witness();
        Position storage p = pos[id];
        vm.prank(alice);
        vm.expectRevert();
        ref.claimDraw(id, p.state, p.history, p.clock, keys);
        assertEq(_ply(id), 10);
    }

    function test_Freeze_StaleRegistrationCannotMateAtOnce() public {
        // Black missed the mate at ply 4 and played a6; the game went on to ply 5.
        uint256 id = _startChannelGame();
        _extend("f2f3 e7e5 g2g4 a7a6 h2h3");
        _register(3);
        Position storage p = pos[id];
        uint24 mate = _uci("d8h4");
        vm.prank(bob);
        vm.expectRevert(_err(IChessRefereeTypes.NotYetPlayable.selector, block.timestamp + WINDOW));
        ref.move(id, p.state, p.history, p.clock, mate);
        // white overtakes with the latest pair within the window
        _register(5);
        assertEq(_ply(id), 5);
    }

    function test_Freeze_OfferDrawDuringTheWindowReverts() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        _register(2);
        Position storage p = pos[id];
        vm.prank(bob);
        vm.expectRevert(_err(IChessRefereeTypes.NotYetPlayable.selector, block.timestamp + WINDOW));
        ref.offerDraw(id, p.state, p.history, p.clock);
    }

    /// @dev v2 (section 8): the side to move's clock is not stopped by the window; the
    /// registration charges it from the move's stamp to the window's end up front.
    function test_Freeze_SideToMovesClockRunsThroughTheWindow() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        vm.warp(line[3].timestamp);
        _register(3);
        (uint256 wl, uint256 bl, bool whiteToMove, uint256 deadline) =
            ref.clocks(id, pos[id].state, pos[id].history, pos[id].clock);
        assertEq(wl, line[3].whiteTime);
        assertEq(bl, line[3].blackTime - WINDOW, "what is left once the window is over");
        assertFalse(whiteToMove);
        assertEq(deadline, line[3].timestamp + line[3].blackTime + 15, "as if on-chain since the stamp");
    }
}

/// @notice Proofs of cheating: equivocation and illegal signed moves, each transition code.
contract ChessChannelProofTest is ChannelBase {
    function test_ProveEquivocation_OpponentWins() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        Move memory other = _next(line[0], "d2d4", 2);
        channel.proveEquivocation(line[1], _byAuthor(line[1]), other, _byAuthor(other));
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 12);
        assertEq(_credit(bob), 2 * STAKE);
    }

    function test_ProveEquivocation_SameMoveTwiceIsNot() public {
        _startChannelGame();
        _extend("e2e4");
        Auth memory a = _byAuthor(line[1]);
        vm.expectRevert(IChessChannelTypes.NotEquivocation.selector);
        channel.proveEquivocation(line[1], a, line[1], a);
    }

    function test_ProveEquivocation_DifferentPliesAreNot() public {
        _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        (Auth memory a, Auth memory b) = (_byAuthor(line[1]), _byAuthor(line[3]));
        vm.expectRevert(IChessChannelTypes.NotEquivocation.selector);
        channel.proveEquivocation(line[1], a, line[3], b);
    }

    function test_ProveEquivocation_RequiresBothSignatures() public {
        _startChannelGame();
        _extend("e2e4");
        Move memory other = _next(line[0], "d2d4", 2);
        (Auth memory a, Auth memory b) = (_byAuthor(line[1]), _signMove(BOB_PK, other));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.proveEquivocation(line[1], a, other, b);
    }

    function test_ProveEquivocation_WhileFrozen() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        _register(2);
        Move memory other = _next(line[1], "c7c5", 2);
        channel.proveEquivocation(line[2], _byAuthor(line[2]), other, _byAuthor(other));
        (uint8 result,) = _result(id);
        assertEq(result, WHITE_WINS);
    }

    /// @dev Proves `bad` (signed by its author) illegal after `q` and checks the win.
    function _proveAndCheck(uint256 id, Move memory q, Move memory bad, uint256 code) internal {
        (uint256 c,) = channel.transitionCode(id, INCREMENT, q, bad);
        assertEq(c, code, "transition code");
        bool authorWhite = !ChessRules.whiteToMove(bad.state);
        channel.proveIllegalMove(q, bad, _byAuthor(bad));
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, authorWhite ? BLACK_WINS : WHITE_WINS);
        assertEq(reason, 13);
    }

    function test_ProveIllegalMove_WrongPly() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        Move memory bad = _next(line[1], "e7e5", 2);
        bad.ply = 3;
        _proveAndCheck(id, line[1], bad, 2);
    }

    function test_ProveIllegalMove_BadTime() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        Move memory bad = _next(line[1], "e7e5", 2);
        bad.blackTime = line[1].blackTime + INCREMENT + 1;
        _proveAndCheck(id, line[1], bad, 4);
    }

    function test_ProveIllegalMove_GameOver() public {
        uint256 id = _startChannelGame();
        // a signed-looking predecessor whose position is drawn by insufficient material
        Move memory q = line[0];
        q.ply = 6;
        q.state = _fen("4k3/8/8/8/8/8/8/4K3 w - - 0 40");
        Move memory bad = _next(q, "e1e2", 2);
        _proveAndCheck(id, q, bad, 5);
    }

    function test_ProveIllegalMove_IllegalMove() public {
        uint256 id = _startChannelGame();
        Move memory bad = _next(line[0], "e2e4", 2);
        bad.mv = _uci("e2e5");
        (uint256 c, uint256 rule) = channel.transitionCode(id, INCREMENT, line[0], bad);
        assertEq(rule, 6, "bad geometry");
        assertEq(c, 6);
        _proveAndCheck(id, line[0], bad, 6);
    }

    function test_ProveIllegalMove_BrokenPredecessorIsCode6Rule0() public {
        uint256 id = _startChannelGame();
        Move memory q = line[0];
        q.ply = 4;
        bytes memory broken = bytes.concat(q.state);
        broken[0] = 0x07; // no such piece code
        q.state = broken;
        Move memory bad = _next(line[0], "e2e4", 2);
        bad.ply = 5;
        q.timestamp = bad.timestamp; // consistent times (code 4 comes before 6)
        bad.previous = channel.hashMove(q);
        (uint256 c, uint256 rule) = channel.transitionCode(id, INCREMENT, q, bad);
        assertEq(c, 6);
        assertEq(rule, 0);
        _proveAndCheck(id, q, bad, 6);
    }

    function test_ProveIllegalMove_WrongState() public {
        uint256 id = _startChannelGame();
        Move memory bad = _next(line[0], "e2e4", 2);
        bad.mv = _uci("d2d4");
        _proveAndCheck(id, line[0], bad, 7);
    }

    function test_ProveIllegalMove_WrongHistory() public {
        uint256 id = _startChannelGame();
        Move memory bad = _next(line[0], "g1f3", 2);
        bad.history = keccak256("not the chain");
        _proveAndCheck(id, line[0], bad, 8);
    }

    function test_ProveIllegalMove_ValidSuccessorIsNot() public {
        _startChannelGame();
        _extend("e2e4");
        Auth memory a = _byAuthor(line[1]);
        vm.expectRevert(IChessChannelTypes.NotIllegal.selector);
        channel.proveIllegalMove(line[0], line[1], a);
    }

    function test_ProveIllegalMove_OtherPredecessorIsNot() public {
        _startChannelGame();
        _extend("e2e4 e7e5");
        Auth memory a = _byAuthor(line[2]);
        vm.expectRevert(IChessChannelTypes.NotIllegal.selector);
        channel.proveIllegalMove(line[0], line[2], a);
    }

    function test_ProveIllegalMove_OtherGameIsWrongGame() public {
        uint256 id = _startChannelGame();
        Move memory q = line[1 - 1];
        q.gameId = id + 1;
        q.ply = 2;
        Move memory bad = _next(line[0], "e2e4", 2);
        bad.ply = 3;
        bad.previous = channel.hashMove(q);
        Auth memory a = _byAuthor(bad);
        vm.expectRevert(IChessChannelTypes.WrongGame.selector);
        channel.proveIllegalMove(q, bad, a);
    }

    function test_ProveIllegalMove_ForgedStartIsNotTheStart() public {
        _startChannelGame();
        Move memory q = line[0];
        q.whiteTime = 1;
        Move memory bad = _next(q, "e2e4", 0);
        Auth memory a = _byAuthor(bad);
        vm.expectRevert(IChessChannelTypes.NotTheStart.selector);
        channel.proveIllegalMove(q, bad, a);
    }
}
