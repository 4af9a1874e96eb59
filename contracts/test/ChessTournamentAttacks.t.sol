// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {TournamentBase, VmBlocks} from "./ChessTournamentBase.t.sol";
import {IChessTournament, IChessTournamentTypes} from "../src/IChessTournament.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {FeeOnTransferToken} from "./mocks/MockERC20.sol";

/// @dev An entrant whose ETH receive hook tries to withdraw again.
contract ReentrantEntrant {
    IChessTournament internal immutable tour;
    bytes public reentryError;
    uint256 public received;

    constructor(IChessTournament t) {
        tour = t;
    }

    function enter(uint256 e) external payable {
        tour.enter{value: msg.value}(e);
    }

    function claimAndWithdraw(uint256 e) external {
        tour.claim(e);
        tour.withdraw(address(0));
    }

    receive() external payable {
        received += msg.value;
        try tour.withdraw(address(0)) {}
        catch (bytes memory err) {
            reentryError = err;
        }
    }
}

/// @notice The attacks issue 31 names, each as a test that would fail if the attack worked.
contract ChessTournamentAttacksTest is TournamentBase {
    /// @dev Two players who meet gain together at most the prizes of the two places the
    /// bracket gives that match's winner and loser: a thrown game moves money between them,
    /// never from the others. The split never increases, so losing earlier never pays more.
    function test_Attack_CollusionGainsNoMoreThanSplit() public {
        uint256 e = _ready(8);
        uint256 id = _start(e, 0);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        // white throws its first game to black
        vm.prank(g.white);
        ref.resign(id);
        for (uint256 m = 1; m < 7; ++m) {
            if (m >= 4) {
                _start(e, m);
                _decideGame(gameOf[e][m], true);
            } else {
                _playMatch(e, m, true);
            }
        }
        vm.prank(g.white);
        tour.claim(e);
        vm.prank(g.black);
        tour.claim(e);
        uint256 pair = tour.credits(g.white, address(0)) + tour.credits(g.black, address(0));
        uint256 blackTier = _tierFromMatches(e, 8, g.black);
        assertEq(tour.credits(g.white, address(0)), tour.prizeOf(e, 3), "the thrower is out in round 0");
        assertEq(pair, tour.prizeOf(e, blackTier) + tour.prizeOf(e, 3), "the pair: one winner's and one loser's place");
        assertLe(pair, tour.prizeOf(e, 0) + tour.prizeOf(e, 3), "at most the best case of the two places");
        for (uint256 t; t < 3; ++t) {
            assertGe(tour.prizeOf(e, t), tour.prizeOf(e, t + 1), "a deeper run never pays less");
        }
    }

    /// @dev An agreed draw does not let the pair pick who goes on: the lot decides, from a
    /// block hash after the report.
    function test_Attack_AgreedDrawGoesByLot() public {
        uint256 e = _ready(8);
        uint256 id = _start(e, 2);
        _drawGame(id);
        tour.report(e, 2);
        uint256 lotBlock = tour.getMatch(e, 2).lotBlock;
        assertEq(lotBlock, block.number + 1);
        vm.roll(lotBlock + 1);
        bytes32 h = keccak256("a hash neither player chose");
        VmBlocks(address(vm)).setBlockhash(lotBlock, h);
        tour.resolveLot(e, 2);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        bool whiteWins = uint256(keccak256(abi.encode(h, e, uint256(2)))) & 1 == 0;
        assertEq(tour.getMatch(e, 2).winner, whiteWins ? g.white : g.black);
    }

    /// @dev No function changes an event's terms: after entries and every organiser call the
    /// organiser can make, they are as created; cancelling after the first entry reverts.
    function test_Attack_OrganiserCannotChangeTerms() public {
        uint256 e = _createEth(8);
        IChessTournamentTypes.EventInfo memory before = tour.getEvent(e);
        _fill(e, 1);
        vm.startPrank(organiser);
        vm.expectRevert(IChessTournamentTypes.HasEntrants.selector);
        tour.cancelEvent(e);
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        tour.claimFee(e);
        // a new event with other terms is another event
        uint256 other = tour.createEvent(_terms(4, address(0), 1_000, _winnerTakesAll()));
        vm.stopPrank();
        assertEq(other, e + 1);
        IChessTournamentTypes.EventInfo memory afterwards = tour.getEvent(e);
        assertEq(keccak256(abi.encode(_terms_(afterwards))), keccak256(abi.encode(_terms_(before))), "terms unchanged");
    }

    function _terms_(IChessTournamentTypes.EventInfo memory i) internal pure returns (bytes memory) {
        return abi.encode(
            i.organiser,
            i.token,
            i.fee,
            i.size,
            i.deadline,
            i.feeBps,
            i.initialTime,
            i.increment,
            i.firstMoveWindow,
            i.responseWindow,
            i.split
        );
    }

    function test_Attack_CannotEnterTwice() public {
        uint256 e = _createEth(4);
        vm.startPrank(_player(0));
        tour.enter{value: FEE}(e);
        vm.expectRevert(IChessTournamentTypes.AlreadyEntered.selector);
        tour.enter{value: FEE}(e);
        vm.stopPrank();
        assertEq(tour.getEvent(e).entrants, 1);
        assertEq(address(tour).balance, FEE);
    }

    /// @dev A player who moves at the last second of its first-move window plus its clock
    /// keeps the game: the opponent's timeout claim fails in that second, and the game goes on.
    function test_Attack_NoForcedForfeitOnTimelyStarter() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        uint256 deadline = block.timestamp + T_WINDOW + T_INITIAL + 15;
        vm.warp(deadline);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, deadline));
        _claimTimeout(id, g.black);
        _move(id, g.white, _uci("e2e4"));
        vm.expectRevert(IChessRefereeTypes.NotYourTurn.selector);
        _claimTimeout(id, g.black);
        assertEq(_phase(id), PHASE_RUNNING);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.GameNotEnded.selector, id));
        tour.report(e, 0);
        // nobody else can end it either
        vm.expectRevert(IChessRefereeTypes.NotAPlayer.selector);
        vm.prank(_player(63));
        ref.resign(id);
    }

    /// @dev A fee-on-transfer token is refused at entry; nothing is recorded or kept.
    function test_Attack_FeeOnTransferRefused() public {
        FeeOnTransferToken token = new FeeOnTransferToken();
        uint256 e = _create(_terms(4, address(token), 0, _winnerTakesAll()));
        token.mint(_player(0), FEE);
        vm.prank(_player(0));
        token.approve(address(tour), FEE);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.TokenShortPaid.selector, FEE, FEE - FEE / 100));
        vm.prank(_player(0));
        tour.enter(e);
        assertEq(tour.getEvent(e).entrants, 0);
        assertEq(token.balanceOf(address(tour)), 0);
        assertEq(tour.getEvent(e).paid, 0);
    }

    /// @dev The lot's hash does not exist when the draw is reported: not in the report's block,
    /// nor in the lot's own; once it does, every later resolution gives the same winner.
    function test_Attack_LotNotResolvableInReportBlock() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        _drawGame(id);
        tour.report(e, 0);
        uint256 lotBlock = block.number + 1;
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.LotPending.selector, 0, lotBlock));
        tour.resolveLot(e, 0);
        vm.roll(lotBlock);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.LotPending.selector, 0, lotBlock));
        tour.resolveLot(e, 0);
        vm.roll(lotBlock + 1);
        VmBlocks(address(vm)).setBlockhash(lotBlock, keccak256("fixed"));
        uint256 snap = vm.snapshotState();
        tour.resolveLot(e, 0);
        address first = tour.getMatch(e, 0).winner;
        vm.revertToState(snap);
        vm.roll(lotBlock + 200);
        VmBlocks(address(vm)).setBlockhash(lotBlock, keccak256("fixed"));
        tour.resolveLot(e, 0);
        assertEq(tour.getMatch(e, 0).winner, first, "the resolver's timing changes nothing");
    }

    /// @dev A match's game is the one `start` hosted: another game between the same two
    /// players, ended the other way, changes nothing.
    function test_Attack_ReportOtherGame() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        vm.prank(g.white);
        uint256 side = ref.createGame(g.black, true, address(0), 0, 60, 0, 0, "");
        bytes32 terms = ref.getGame(side).terms;
        vm.prank(g.black);
        ref.joinGame(side, terms);
        vm.prank(g.black);
        ref.resign(side);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.GameNotEnded.selector, id));
        tour.report(e, 0);
        _decideGame(id, false);
        tour.report(e, 0);
        assertEq(tour.getMatch(e, 0).winner, g.black, "the hosted game's result");
        assertEq(tour.getMatch(e, 0).gameId, id);
    }

    /// @dev Nobody can start a match before both its players are known.
    function test_Attack_StartBeforePairingKnown() public {
        uint256 e = _createEth(4);
        _fill(e, 3);
        vm.expectRevert(IChessTournamentTypes.NotFull.selector);
        tour.start(e, 0);
        vm.prank(_player(3));
        tour.enter{value: FEE}(e);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotDrawnYet.selector, block.number + 1));
        tour.start(e, 0);
        _passDraw(e, DRAW_HASH);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.PlayersNotKnown.selector, 0));
        tour.start(e, 2);
        uint256 id = _start(e, 0);
        _decideGame(id, true);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.PlayersNotKnown.selector, 1));
        tour.start(e, 2);
    }

    /// @dev A withdrawal's receive hook cannot withdraw again: `Reentrancy`, paid once.
    function test_Attack_ReentrantWithdraw() public {
        uint256 e = _createEth(4);
        ReentrantEntrant attacker = new ReentrantEntrant(tour);
        vm.deal(address(attacker), 0);
        attacker.enter{value: FEE}(e);
        _fill(e, 2);
        vm.deal(address(tour), address(tour).balance + 10 ether); // something to steal
        vm.warp(tour.getEvent(e).deadline + 1);
        attacker.claimAndWithdraw(e);
        assertEq(attacker.received(), FEE, "paid once");
        assertEq(bytes4(attacker.reentryError()), IChessTournamentTypes.Reentrancy.selector);
        assertEq(tour.credits(address(attacker), address(0)), 0);
    }

    /// @dev Only the hosted game's players can end it early.
    function test_Attack_OnlyPlayersEndTheirGame() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        Position memory p = pos[id];
        address[3] memory others = [organiser, address(tour), _player(63)];
        for (uint256 i; i < 3; ++i) {
            vm.startPrank(others[i]);
            vm.expectRevert(IChessRefereeTypes.NotAPlayer.selector);
            ref.resign(id);
            vm.expectRevert(IChessRefereeTypes.NotAPlayer.selector);
            ref.offerDraw(id, p.state, p.history, p.clock);
            vm.stopPrank();
        }
        assertEq(_phase(id), PHASE_RUNNING);
    }
}
