// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {TournamentBase, VmBlocks} from "./ChessTournamentBase.t.sol";
import {IChessTournament, IChessTournamentTypes} from "../src/IChessTournament.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessRefereeAnnex} from "../src/ChessRefereeAnnex.sol";
import {ChessChannelAnnex} from "../src/ChessChannelAnnex.sol";
import {ChessChannelBlueprint} from "../src/ChessChannelBlueprint.sol";
import {ChessTournament} from "../src/ChessTournament.sol";
import {ChessTournamentBlueprint} from "../src/ChessTournamentBlueprint.sol";
import {MockERC20, FeeOnTransferToken} from "./mocks/MockERC20.sol";

/// @notice Unit tests of `ChessTournament` and of the referee's `hostGame`: every function's
/// effect and every revert.
contract ChessTournamentTest is TournamentBase {
    // ================================================================ deployment and hostGame

    /// @dev The referee deploys its tournament at its second CREATE (nonce 2, after the
    /// channel), and the tournament names the referee.
    function test_RefereeDeploysItsTournamentAtNonce2() public view {
        assertEq(address(tour), _createAddress(address(ref), 2), "tournament = create(referee, 2)");
        assertEq(address(ref.channel()), _createAddress(address(ref), 1), "channel = create(referee, 1)");
        assertEq(tour.referee(), address(ref));
        assertGt(address(tour).code.length, 0);
    }

    /// @dev A blueprint without code is refused.
    function test_ConstructorRefusesATournamentBlueprintWithoutCode() public {
        address channelBlueprint = address(new ChessChannelBlueprint());
        address annex = address(new ChessRefereeAnnex());
        address channelAnnex = address(new ChessChannelAnnex());
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadBlueprint.selector, address(0xb1)));
        new ChessReferee(channelBlueprint, annex, channelAnnex, address(0xb1));
    }

    /// @dev Nobody but the tournament may host a game: not a player, not the referee's annex caller.
    function test_HostGame_OnlyTheTournament() public {
        vm.expectRevert(IChessRefereeTypes.NotTournament.selector);
        vm.prank(alice);
        ref.hostGame(alice, bob, 60, 0, 60, 0);
        // called on the annex directly, its own (empty) storage names no tournament
        IChessReferee annex = IChessReferee(ref.annex());
        vm.expectRevert(IChessRefereeTypes.NotTournament.selector);
        annex.hostGame(alice, bob, 60, 0, 60, 0);
    }

    /// @dev A hosted game runs at once between its two named players, stake 0, the standard
    /// start, with the no-abort rule in its clock word; terms are checked as `createGame`'s.
    function test_HostGame_RunsAtOnceWithTheNoAbortRule() public {
        vm.recordLogs();
        vm.prank(address(tour));
        uint256 id = ref.hostGame(alice, bob, 300, 2, 0, 0);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        _absorb(logs);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertEq(g.white, alice);
        assertEq(g.black, bob);
        assertEq(g.phase, PHASE_RUNNING);
        assertEq(g.stake, 0);
        assertEq(g.firstMoveWindow, 300, "0 = the default window");
        assertEq(g.terms, bytes32(0));
        assertEq(_count(logs, IChessRefereeTypes.GameCreated.selector), 1);
        assertEq(_count(logs, IChessRefereeTypes.GameJoined.selector), 1);
        (uint256 last,,,,,,, bool custom, uint256 window) = ref.decodeClock(pos[id].clock);
        assertEq(last, block.timestamp);
        assertTrue(custom, "no first-move abort");
        assertEq(window, 300);
        // a running game can't be cancelled
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotOpen.selector, id));
        vm.prank(alice);
        ref.cancelGame(id);
    }

    function test_HostGame_RefusesBadTerms() public {
        vm.startPrank(address(tour));
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadTimeControl.selector, 59, 0));
        ref.hostGame(alice, bob, 59, 0, 0, 0);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadFirstMoveWindow.selector, 59));
        ref.hostGame(alice, bob, 60, 0, 59, 0);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadResponseWindow.selector, 599));
        ref.hostGame(alice, bob, 60, 0, 0, 599);
        vm.expectRevert(IChessRefereeTypes.CannotPlaySelf.selector);
        ref.hostGame(alice, alice, 60, 0, 0, 0);
        vm.expectRevert(IChessRefereeTypes.CannotPlaySelf.selector);
        ref.hostGame(alice, address(0), 60, 0, 0, 0);
        vm.stopPrank();
    }

    /// @dev A hosted player who never moves loses on time (reason 6), never an abort: its
    /// clock runs from the start plus the window.
    function test_HostGame_NoShowLosesOnTime() public {
        vm.recordLogs();
        vm.prank(address(tour));
        uint256 id = ref.hostGame(alice, bob, 60, 0, 120, 0);
        _absorb(vm.getRecordedLogs());
        uint256 deadline = block.timestamp + 120 + 60 + 15;
        vm.warp(deadline);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, deadline));
        _claimTimeout(id, bob);
        vm.warp(deadline + 1);
        _claimTimeout(id, bob);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 6);
    }

    // ================================================================ createEvent

    function test_CreateEvent_StoresTheTerms() public {
        IChessTournamentTypes.EventTerms memory t = _terms(8, address(0), 500, _split8());
        vm.expectEmit(true, true, false, true, address(tour));
        emit IChessTournamentTypes.EventCreated(1, organiser, t);
        uint256 e = _create(t);
        assertEq(e, 1);
        assertEq(tour.nextEventId(), 2);
        IChessTournamentTypes.EventInfo memory info = tour.getEvent(e);
        assertEq(info.organiser, organiser);
        assertEq(info.size, 8);
        assertEq(info.fee, FEE);
        assertEq(info.feeBps, 500);
        assertEq(info.initialTime, T_INITIAL);
        assertEq(info.firstMoveWindow, T_WINDOW);
        assertEq(info.deadline, t.deadline);
        assertEq(info.split.length, 4);
        assertEq(info.split[0], 6_000);
        assertEq(info.split[2], 750);
        assertEq(info.split[3], 0);
        assertEq(info.entrants, 0);
    }

    function test_CreateEvent_DeadlineAtMostNinetyDaysAhead() public {
        IChessTournamentTypes.EventTerms memory t = _terms(8, address(0), 0, _winnerTakesAll());
        uint256 last = block.timestamp + 90 days;
        t.deadline = uint40(last + 1);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadDeadline.selector, last + 1));
        tour.createEvent(t);
        t.deadline = uint40(last);
        uint256 id = tour.createEvent(t);
        assertEq(tour.getEvent(id).deadline, last);
    }

    function testFuzz_CreateEvent_DeadlineRange(uint40 deadline) public {
        IChessTournamentTypes.EventTerms memory t = _terms(8, address(0), 0, _winnerTakesAll());
        t.deadline = deadline;
        if (deadline <= block.timestamp || deadline > block.timestamp + 90 days) {
            vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadDeadline.selector, deadline));
        }
        tour.createEvent(t);
    }

    function test_CreateEvent_Reverts() public {
        uint16[] memory s = _winnerTakesAll();
        for (uint256 i; i < 4; ++i) {
            uint8 size = [3, 12, 128, 2][i];
            vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadSize.selector, size));
            tour.createEvent(_terms(size, address(0), 0, s));
        }
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.FeeTooHigh.selector, 1_001));
        tour.createEvent(_terms(8, address(0), 1_001, s));

        IChessTournamentTypes.EventTerms memory t = _terms(8, address(0), 0, s);
        t.deadline = uint40(block.timestamp);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadDeadline.selector, block.timestamp));
        tour.createEvent(t);

        t = _terms(8, address(0xdead), 0, s);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotAToken.selector, address(0xdead)));
        tour.createEvent(t);

        t = _terms(8, address(0), 0, s);
        t.initialTime = 59;
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadTimeControl.selector, 59, 0));
        tour.createEvent(t);
        t = _terms(8, address(0), 0, s);
        t.firstMoveWindow = 1 days + 1;
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadFirstMoveWindow.selector, 1 days + 1));
        tour.createEvent(t);
        t = _terms(8, address(0), 0, s);
        t.responseWindow = 599;
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadResponseWindow.selector, 599));
        tour.createEvent(t);
    }

    function test_CreateEvent_SplitRules() public {
        uint16[] memory s = new uint16[](0);
        vm.expectRevert(IChessTournamentTypes.BadSplit.selector);
        tour.createEvent(_terms(8, address(0), 0, s));
        // 5 tiers for a 3-round event
        s = new uint16[](5);
        (s[0], s[1], s[2], s[3], s[4]) = (6_000, 2_000, 500, 250, 0);
        vm.expectRevert(IChessTournamentTypes.BadSplit.selector);
        tour.createEvent(_terms(8, address(0), 0, s));
        // increasing
        s = new uint16[](2);
        (s[0], s[1]) = (4_000, 6_000);
        vm.expectRevert(IChessTournamentTypes.BadSplit.selector);
        tour.createEvent(_terms(8, address(0), 0, s));
        // per-player shares: 60/25/7.5 sums to 10,000 only with the two semi-finalists counted
        s = new uint16[](3);
        (s[0], s[1], s[2]) = (6_000, 2_500, 1_500);
        vm.expectRevert(IChessTournamentTypes.BadSplit.selector);
        tour.createEvent(_terms(8, address(0), 0, s));
        // equal shares all the way down: 1 + 1 + 2 + 4 = 8 players of 1,250
        s = new uint16[](4);
        (s[0], s[1], s[2], s[3]) = (1_250, 1_250, 1_250, 1_250);
        tour.createEvent(_terms(8, address(0), 0, s));
        tour.createEvent(_terms(8, address(0), 0, _split8()));
    }

    // ================================================================ cancel and enter

    function test_CancelEvent() public {
        uint256 e = _createEth(8);
        vm.expectRevert(IChessTournamentTypes.NotOrganiser.selector);
        tour.cancelEvent(e);
        vm.prank(organiser);
        tour.cancelEvent(e);
        assertTrue(tour.getEvent(e).cancelled);
        vm.expectRevert(IChessTournamentTypes.RegistrationClosed.selector);
        vm.prank(_player(0));
        tour.enter{value: FEE}(e);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.UnknownEvent.selector, 99));
        tour.cancelEvent(99);
    }

    function test_Enter_EthAndReverts() public {
        uint256 e = _createEth(4);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.WrongEthAmount.selector, FEE, FEE - 1));
        vm.prank(_player(0));
        tour.enter{value: FEE - 1}(e);
        vm.expectEmit(true, true, false, true, address(tour));
        emit IChessTournamentTypes.Entered(e, _player(0), 0);
        vm.prank(_player(0));
        tour.enter{value: FEE}(e);
        vm.expectRevert(IChessTournamentTypes.AlreadyEntered.selector);
        vm.prank(_player(0));
        tour.enter{value: FEE}(e);
        assertEq(tour.entrantOf(e, 0), _player(0));
        assertEq(address(tour).balance, FEE);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.UnknownEvent.selector, 7));
        tour.enter{value: FEE}(7);
    }

    function test_Enter_ClosesWhenFullOrLate() public {
        uint256 e = _createEth(4);
        _fill(e, 4);
        IChessTournamentTypes.EventInfo memory info = tour.getEvent(e);
        assertEq(info.entrants, 4);
        assertEq(info.drawBlock, block.number + 1, "the filling entry arms the draw on the next block");
        vm.expectRevert(IChessTournamentTypes.RegistrationClosed.selector);
        vm.prank(_player(4));
        tour.enter{value: FEE}(e);

        uint256 late = _createEth(4);
        vm.warp(tour.getEvent(late).deadline + 1);
        vm.expectRevert(IChessTournamentTypes.RegistrationClosed.selector);
        vm.prank(_player(0));
        tour.enter{value: FEE}(late);
    }

    function test_Enter_Erc20() public {
        MockERC20 token = new MockERC20();
        uint256 e = _create(_terms(4, address(token), 0, _winnerTakesAll()));
        token.mint(_player(0), FEE);
        vm.prank(_player(0));
        token.approve(address(tour), FEE);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.WrongEthAmount.selector, 0, 1));
        vm.prank(_player(0));
        tour.enter{value: 1}(e);
        vm.prank(_player(0));
        tour.enter(e);
        assertEq(token.balanceOf(address(tour)), FEE);
        assertEq(token.balanceOf(_player(0)), 0);
    }

    // ================================================================ draw

    function test_Draw_WaitsForTheDrawBlockAndFixesTheSeed() public {
        uint256 e = _createEth(4);
        _fill(e, 3);
        vm.expectRevert(IChessTournamentTypes.NotFull.selector);
        tour.draw(e);
        _fill4th(e);
        uint256 b = tour.getEvent(e).drawBlock;
        vm.roll(b);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotDrawnYet.selector, b));
        tour.draw(e);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotDrawnYet.selector, b));
        tour.start(e, 0);
        _passDraw(e, DRAW_HASH);
        vm.expectEmit(true, false, false, true, address(tour));
        emit IChessTournamentTypes.Drawn(e, uint64(uint256(DRAW_HASH)));
        tour.draw(e);
        IChessTournamentTypes.EventInfo memory info = tour.getEvent(e);
        assertTrue(info.drawn);
        assertEq(info.seed, uint64(uint256(DRAW_HASH)));
        vm.expectRevert(IChessTournamentTypes.AlreadyDrawn.selector);
        tour.draw(e);
    }

    /// @dev An expired draw hash re-arms the draw on the next block instead of drawing from 0.
    function test_Draw_ReArmsWhenTheHashExpired() public {
        uint256 e = _createEth(4);
        _fill(e, 4);
        uint256 b = tour.getEvent(e).drawBlock;
        vm.roll(b + 300);
        VmBlocks(address(vm)).setBlockhash(b, 0);
        vm.expectEmit(true, false, false, true, address(tour));
        emit IChessTournamentTypes.DrawArmed(e, block.number + 1);
        tour.draw(e);
        assertFalse(tour.getEvent(e).drawn);
        assertEq(tour.getEvent(e).drawBlock, block.number + 1);
        _passDraw(e, DRAW_HASH);
        tour.draw(e);
        assertTrue(tour.getEvent(e).drawn);
    }

    /// @dev `start` draws by itself when the hash is there.
    function test_Start_DrawsLazily() public {
        uint256 e = _createEth(4);
        _fill(e, 4);
        _passDraw(e, DRAW_HASH);
        _start(e, 0);
        assertTrue(tour.getEvent(e).drawn);
    }

    // ================================================================ start

    /// @dev Round 0 pairs the shuffled positions, colours by the seed's parity per match.
    function test_Start_Round0FollowsThePermutationAndColours() public {
        uint256 e = _ready(8);
        uint64 seed = tour.getEvent(e).seed;
        uint8[] memory perm = tour.permutation(seed, 8);
        for (uint256 m; m < 4; ++m) {
            (address w, address b) = tour.pairing(e, m);
            uint256 id = _start(e, m);
            IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
            assertEq(g.white, w);
            assertEq(g.black, b);
            bool whiteIsHi = uint256(keccak256(abi.encode(uint256(seed), 64 + m))) & 1 == 1;
            address lo = _player(perm[2 * m]);
            address hi = _player(perm[2 * m + 1]);
            assertEq(g.white, whiteIsHi ? hi : lo, "white");
            assertEq(g.black, whiteIsHi ? lo : hi, "black");
            IChessTournamentTypes.MatchInfo memory info = tour.getMatch(e, m);
            assertEq(info.status, 1);
            assertEq(info.gameId, id);
            assertEq(info.startedAt, block.timestamp);
            assertEq(info.lo, perm[2 * m]);
            assertEq(info.hi, perm[2 * m + 1]);
        }
    }

    function test_Start_Reverts() public {
        uint256 e = _ready(8);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadMatch.selector, 7));
        tour.start(e, 7);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.PlayersNotKnown.selector, 0));
        tour.start(e, 4);
        uint256 id = _start(e, 0);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.AlreadyStarted.selector, 0));
        tour.start(e, 0);
        _start(e, 1);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.GameNotEnded.selector, id));
        tour.start(e, 4);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.PlayersNotKnown.selector, 4));
        tour.pairing(e, 4);
    }

    /// @dev A later round's start records its children's board results itself.
    function test_Start_SettlesTheMatchesBelow() public {
        uint256 e = _ready(8);
        uint256 a = _start(e, 0);
        uint256 b = _start(e, 1);
        _decideGame(a, true);
        _decideGame(b, false);
        IChessRefereeTypes.GameInfo memory ga = ref.getGame(a);
        IChessRefereeTypes.GameInfo memory gb = ref.getGame(b);
        uint256 id = _start(e, 4);
        assertEq(tour.getMatch(e, 0).winner, ga.white);
        assertEq(tour.getMatch(e, 1).winner, gb.black);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertTrue(
            (g.white == ga.white && g.black == gb.black) || (g.white == gb.black && g.black == ga.white),
            "the two winners meet"
        );
        bool whiteIsHi = uint256(keccak256(abi.encode(uint256(tour.getEvent(e).seed), uint256(64 + 4)))) & 1 == 1;
        assertEq(g.white, whiteIsHi ? gb.black : ga.white, "lo = the upper child's winner");
    }

    // ================================================================ report and lots

    function test_Report_Reverts() public {
        uint256 e = _ready(4);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotRunning.selector, 0));
        tour.report(e, 0);
        uint256 id = _start(e, 0);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.GameNotEnded.selector, id));
        tour.report(e, 0);
        _decideGame(id, false);
        tour.report(e, 0);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotRunning.selector, 0));
        tour.report(e, 0);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadMatch.selector, 3));
        tour.report(e, 3);
    }

    function test_Report_WinAdvancesTheWinner() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        _decideGame(id, false);
        vm.expectEmit(true, false, false, true, address(tour));
        emit IChessTournamentTypes.MatchDecided(e, 0, g.black, g.white, 1);
        tour.report(e, 0);
        assertEq(tour.getMatch(e, 0).status, 2);
        assertEq(tour.getMatch(e, 0).winner, g.black);
    }

    /// @dev A drawn game arms a lot on the next block; it resolves only after that block, by
    /// the parity of keccak256(hash, event, match).
    function test_Lot_DecidesADrawnGame() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 1);
        _drawGame(id);
        uint256 lotBlock = block.number + 1;
        vm.expectEmit(true, false, false, true, address(tour));
        emit IChessTournamentTypes.LotArmed(e, 1, lotBlock);
        tour.report(e, 1);
        assertEq(tour.getMatch(e, 1).status, 3);
        assertEq(tour.getMatch(e, 1).lotBlock, lotBlock);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.LotPending.selector, 1, lotBlock));
        tour.resolveLot(e, 1);
        vm.roll(lotBlock);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.LotPending.selector, 1, lotBlock));
        tour.resolveLot(e, 1);
        vm.roll(lotBlock + 1);
        bytes32 h = keccak256("lot");
        VmBlocks(address(vm)).setBlockhash(lotBlock, h);
        tour.resolveLot(e, 1);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        bool whiteWins = uint256(keccak256(abi.encode(h, e, uint256(1)))) & 1 == 0;
        assertEq(tour.getMatch(e, 1).winner, whiteWins ? g.white : g.black);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NoLot.selector, 1));
        tour.resolveLot(e, 1);
    }

    function test_Lot_ReArmsWhenTheHashExpired() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        _drawGame(id);
        tour.report(e, 0);
        uint256 lotBlock = block.number + 1;
        vm.roll(lotBlock + 400);
        VmBlocks(address(vm)).setBlockhash(lotBlock, 0);
        tour.resolveLot(e, 0);
        assertEq(tour.getMatch(e, 0).status, 3);
        assertEq(tour.getMatch(e, 0).lotBlock, block.number + 1);
        vm.roll(block.number + 2);
        VmBlocks(address(vm)).setBlockhash(block.number - 1, keccak256("again"));
        tour.resolveLot(e, 0);
        assertEq(tour.getMatch(e, 0).status, 2);
    }

    /// @dev `start` resolves a due lot below it; it refuses while the lot waits or is not armed.
    function test_Start_ResolvesADueLot() public {
        uint256 e = _ready(4);
        uint256 a = _start(e, 0);
        uint256 b = _start(e, 1);
        _decideGame(a, true);
        _drawGame(b);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.LotNotArmed.selector, 1));
        tour.start(e, 2);
        tour.report(e, 1);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.LotPending.selector, 1, block.number + 1));
        tour.start(e, 2);
        vm.roll(block.number + 2);
        VmBlocks(address(vm)).setBlockhash(block.number - 1, keccak256("lot"));
        _start(e, 2);
        assertEq(tour.getMatch(e, 1).status, 2);
        assertEq(tour.getMatch(e, 0).status, 2);
    }

    // ================================================================ money

    /// @dev A whole 8-player event: every prize by tier, the fee, and the pool spent exactly.
    function test_FullEvent_PrizesSumToThePoolLessTheFee() public {
        uint256 e = _ready(8);
        _playAll(e, 8);
        IChessTournamentTypes.EventInfo memory info = tour.getEvent(e);
        assertTrue(info.finished);
        uint256 pool = 8 * uint256(FEE);
        uint256 fee = pool * 500 / 10_000;
        uint256 net = pool - fee;
        uint256 paidOut = _claimAll(e, 8);
        for (uint256 i; i < 8; ++i) {
            uint256 tier = _tierFromMatches(e, 8, _player(i));
            assertEq(tour.credits(_player(i), address(0)), tour.prizeOf(e, tier), "prize by tier");
        }
        assertEq(tour.prizeOf(e, 1), net * 2_500 / 10_000);
        assertEq(tour.prizeOf(e, 2), net * 750 / 10_000);
        assertEq(tour.prizeOf(e, 3), 0);
        vm.prank(organiser);
        tour.claimFee(e);
        assertEq(tour.credits(organiser, address(0)), fee);
        assertEq(paidOut + fee, pool, "prizes + fee = pool exactly");
        assertEq(tour.getEvent(e).paid, pool);
        // everyone withdraws: the contract is empty
        for (uint256 i; i < 8; ++i) {
            if (tour.credits(_player(i), address(0)) == 0) continue;
            uint256 before = _player(i).balance;
            uint256 c = tour.credits(_player(i), address(0));
            vm.prank(_player(i));
            tour.withdraw(address(0));
            assertEq(_player(i).balance, before + c);
        }
        vm.prank(organiser);
        tour.withdraw(address(0));
        assertEq(address(tour).balance, 0);
    }

    /// @dev The winner takes the rounding dust: with a fee that doesn't divide, Σ is still the pool.
    function test_Prizes_WinnerTakesTheDust() public {
        uint16[] memory s = new uint16[](3);
        (s[0], s[1], s[2]) = (5_001, 2_499, 1_250);
        IChessTournamentTypes.EventTerms memory t = _terms(8, address(0), 333, s);
        t.fee = 1_000_003;
        uint256 e = _create(t);
        uint256 pool = 8 * uint256(1_000_003);
        uint256 orgFee = pool * 333 / 10_000;
        uint256 net = pool - orgFee;
        uint256 sum = tour.prizeOf(e, 0) + tour.prizeOf(e, 1) + 2 * tour.prizeOf(e, 2) + 4 * tour.prizeOf(e, 3);
        assertEq(sum, net);
        assertGt(tour.prizeOf(e, 0), net * 5_001 / 10_000, "dust went to the winner");
    }

    function test_Claim_Reverts() public {
        uint256 e = _ready(4);
        vm.expectRevert(IChessTournamentTypes.NotEntered.selector);
        vm.prank(alice);
        tour.claim(e);
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        vm.prank(_player(0));
        tour.claim(e);
        _playAll(e, 4);
        vm.prank(_player(0));
        tour.claim(e);
        vm.expectRevert(IChessTournamentTypes.AlreadyClaimed.selector);
        vm.prank(_player(0));
        tour.claim(e);
    }

    /// @dev `claim` records the final's board result itself.
    function test_Claim_SettlesTheFinal() public {
        uint256 e = _ready(4);
        _playMatch(e, 0, true);
        _playMatch(e, 1, true);
        uint256 id = _start(e, 2);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        _decideGame(id, true);
        vm.prank(g.white);
        tour.claim(e);
        assertTrue(tour.getEvent(e).finished);
        assertEq(tour.credits(g.white, address(0)), tour.prizeOf(e, 0));
    }

    function test_ClaimFee_Reverts() public {
        uint256 e = _ready(4);
        vm.expectRevert(IChessTournamentTypes.NotOrganiser.selector);
        tour.claimFee(e);
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        vm.prank(organiser);
        tour.claimFee(e);
        _playAll(e, 4);
        vm.prank(organiser);
        tour.claimFee(e);
        vm.expectRevert(IChessTournamentTypes.AlreadyClaimed.selector);
        vm.prank(organiser);
        tour.claimFee(e);
    }

    /// @dev An event that did not fill by its deadline refunds every entry in full, once.
    function test_Refund_NotFull() public {
        uint256 e = _createEth(8);
        _fill(e, 5);
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        vm.prank(_player(0));
        tour.claim(e);
        vm.warp(tour.getEvent(e).deadline + 1);
        for (uint256 i; i < 5; ++i) {
            vm.prank(_player(i));
            tour.claim(e);
            assertEq(tour.credits(_player(i), address(0)), FEE);
            uint256 before = _player(i).balance;
            vm.prank(_player(i));
            tour.withdraw(address(0));
            assertEq(_player(i).balance, before + FEE, "full refund");
        }
        assertEq(address(tour).balance, 0);
        assertEq(tour.getEvent(e).paid, 5 * uint256(FEE));
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        vm.prank(organiser);
        tour.claimFee(e);
    }

    function test_Withdraw_Reverts() public {
        vm.expectRevert(IChessTournamentTypes.NothingToWithdraw.selector);
        tour.withdraw(address(0));
        vm.expectRevert(IChessTournamentTypes.ZeroRecipient.selector);
        tour.withdrawTo(address(0), address(0));
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadRecipient.selector, address(tour)));
        tour.withdrawTo(address(0), address(tour));
    }

    function test_WithdrawTo_SendsElsewhere() public {
        uint256 e = _createEth(4);
        _fill(e, 1);
        vm.warp(tour.getEvent(e).deadline + 1);
        vm.startPrank(_player(0));
        tour.claim(e);
        tour.withdrawTo(address(0), address(0xBEEF));
        vm.stopPrank();
        assertEq(address(0xBEEF).balance, FEE);
        assertEq(tour.credits(_player(0), address(0)), 0);
    }

    /// @dev An ERC-20 event end to end: fees in, prizes and the fee out, balance 0.
    function test_FullEvent_Erc20() public {
        MockERC20 token = new MockERC20();
        uint256 e = _create(_terms(4, address(token), 1_000, _winnerTakesAll()));
        for (uint256 i; i < 4; ++i) {
            token.mint(_player(i), FEE);
            vm.startPrank(_player(i));
            token.approve(address(tour), FEE);
            tour.enter(e);
            vm.stopPrank();
        }
        _passDraw(e, DRAW_HASH);
        _playAll(e, 4);
        address champion = tour.getMatch(e, 2).winner;
        for (uint256 i; i < 4; ++i) {
            vm.prank(_player(i));
            tour.claim(e);
        }
        vm.prank(organiser);
        tour.claimFee(e);
        vm.prank(champion);
        tour.withdraw(address(token));
        vm.prank(organiser);
        tour.withdraw(address(token));
        assertEq(token.balanceOf(champion), 4 * uint256(FEE) * 9 / 10);
        assertEq(token.balanceOf(organiser), 4 * uint256(FEE) / 10);
        assertEq(token.balanceOf(address(tour)), 0);
    }

    // ================================================================ helpers

    function _fill4th(uint256 e) internal {
        vm.prank(_player(3));
        tour.enter{value: FEE}(e);
    }

    /// @dev CREATE address of `deployer` at `nonce` (1..127).
    function _createAddress(address deployer, uint256 nonce) internal pure returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes2(0xd694), deployer, uint8(nonce))))));
    }
}
