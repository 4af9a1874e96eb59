// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {TournamentBase, VmBlocks} from "./ChessTournamentBase.t.sol";
import {TournamentChannelBase} from "./ChessTournamentChannel.t.sol";
import {RealGames} from "./ChessRefereeGames.t.sol";
import {IChessTournamentTypes} from "../src/IChessTournament.sol";
import {IChessRefereeTypes} from "../src/IChessReferee.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {IChessChannelTypes} from "../src/IChessChannel.sol";
import {Move, Auth} from "../src/ChannelHash.sol";
import {TokenTransferFailed} from "../src/SafeERC20.sol";
import {MockERC20} from "./mocks/MockERC20.sol";

/// @notice Second reader of issue 31 (a214540: the registration deadline is at most 90 days
/// after creation). Each test is one way an organiser or an entrant might try to keep the
/// entrants' fees locked. The registration phase is bounded as claimed (90 days + 1 s), and
/// every stalled step after the fill can be driven by a stranger. The `TermsLimit_` tests
/// show what the terms allow, as docs/TOURNAMENT.md says: after the fill an event lasts as
/// long as its games, and the longest time control `createEvent` accepts (a 90-day clock, a
/// 1-day increment) lets one slow entrant hold every entry past 90 days and two agreeing
/// entrants for over a year (decades with more moves). The `TrustLimit_` test: an
/// organiser's own freezable fee token holds them for ever (the token is trusted).
contract ChessTournamentLockReviewTest is TournamentBase {
    address internal stranger = address(0x5757);

    /// @dev The longest terms `createEvent` accepts: a 90-day clock, a 1-day increment and
    /// first-move window, a 30-day `abandonAfter`; a 4-player winner-takes-all ETH event.
    function _longestTerms() internal view returns (IChessTournamentTypes.EventTerms memory t) {
        t = _terms(4, address(0), 0, _winnerTakesAll());
        t.initialTime = 90 days;
        t.increment = 1 days;
        t.firstMoveWindow = 1 days;
        t.abandonAfter = 30 days;
    }

    /// @dev Moves to `b` (or past it) and gives block `b` the hash `h`.
    function _hashAt(uint256 b, bytes32 h) internal {
        if (block.number <= b) vm.roll(b + 1);
        VmBlocks(address(vm)).setBlockhash(b, h);
    }

    // ------------------------------------------------------------ registration

    /// @dev An entry into an event that never fills is locked at most 90 days and 1 second
    /// after creation: the deadline is the last second to enter, its next the first to be
    /// refunded; the organiser cannot cancel (or otherwise move the deadline) once an entry is
    /// in, and gets no fee.
    function test_LockReview_UnfilledEntryIsRefundedNinetyDaysAndOneSecondAfterCreation() public {
        uint256 created = block.timestamp;
        IChessTournamentTypes.EventTerms memory t = _terms(4, address(0), 1_000, _winnerTakesAll());
        t.deadline = uint40(created + 90 days);
        uint256 e = _create(t);
        vm.prank(_player(0));
        tour.enter{value: FEE}(e);
        vm.prank(organiser);
        vm.expectRevert(IChessTournamentTypes.HasEntrants.selector);
        tour.cancelEvent(e);

        vm.warp(created + 90 days);
        vm.prank(_player(0));
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        tour.claim(e);
        vm.prank(_player(1));
        tour.enter{value: FEE}(e); // the deadline's own second still admits an entry

        vm.warp(created + 90 days + 1);
        vm.prank(_player(2));
        vm.expectRevert(IChessTournamentTypes.RegistrationClosed.selector);
        tour.enter{value: FEE}(e);
        vm.prank(organiser);
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        tour.claimFee(e);
        for (uint256 i; i < 2; ++i) {
            uint256 before = _player(i).balance;
            vm.startPrank(_player(i));
            tour.claim(e);
            tour.withdraw(address(0));
            vm.stopPrank();
            assertEq(_player(i).balance - before, FEE, "the whole fee back");
        }
        assertEq(address(tour).balance, 0, "nothing of the event is left");
        assertEq(tour.getEvent(e).deadline, created + 90 days, "no call moved the deadline");
    }

    /// @dev No deadline edge slips past the bound: the bound's second is accepted, the next
    /// refused, so is the largest uint40 (`block.timestamp + 90 days` is computed in 256
    /// bits: nothing wraps), and near the end of the uint40 range the bound still holds.
    function test_LockReview_DeadlineEdgesCannotBypassTheBound() public {
        IChessTournamentTypes.EventTerms memory t = _terms(4, address(0), 0, _winnerTakesAll());
        uint256 bound = block.timestamp + 90 days;
        uint40[3] memory refused = [uint40(bound + 1), type(uint40).max, uint40(block.timestamp)];
        for (uint256 i; i < refused.length; ++i) {
            t.deadline = refused[i];
            vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadDeadline.selector, refused[i]));
            tour.createEvent(t);
        }
        t.deadline = uint40(bound);
        assertEq(tour.getEvent(tour.createEvent(t)).deadline, bound);

        vm.warp(uint256(type(uint40).max) - 100 days);
        bound = block.timestamp + 90 days;
        t.deadline = uint40(bound + 1);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadDeadline.selector, bound + 1));
        tour.createEvent(t);
        t.deadline = type(uint40).max;
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadDeadline.selector, type(uint40).max));
        tour.createEvent(t);
        t.deadline = uint40(bound);
        assertEq(tour.getEvent(tour.createEvent(t)).deadline, bound);
    }

    /// @dev The bound refuses no valid call of a player: in an event with the latest deadline,
    /// the entry that fills it at that deadline's last second arms the draw, and the event
    /// is drawn, played, paid and its fee credited as any other.
    function test_LockReview_EventFilledAtTheDeadlinesLastSecondRunsNormally() public {
        uint256 created = block.timestamp;
        IChessTournamentTypes.EventTerms memory t = _terms(4, address(0), 500, _winnerTakesAll());
        t.deadline = uint40(created + 90 days);
        uint256 e = _create(t);
        _fill(e, 3);
        vm.warp(created + 90 days);
        vm.prank(_player(3));
        tour.enter{value: FEE}(e);
        _passDraw(e, DRAW_HASH);
        vm.prank(stranger);
        tour.draw(e);
        _playAll(e, 4);
        assertTrue(tour.getEvent(e).finished);
        uint256 total = _claimAll(e, 4);
        vm.prank(organiser);
        tour.claimFee(e);
        assertEq(total + tour.credits(organiser, address(0)), 4 * uint256(FEE), "prizes + fee = pool");
    }

    // ------------------------------------------------------------ after the fill

    /// @dev A full event nobody draws is not stuck: long after its draw block's hash expired
    /// (past both the 256-block `blockhash` range and EIP-2935's 8,191), a stranger's `draw`
    /// re-arms it, and on the next block draws it; a stranger then starts its matches.
    function test_LockReview_FilledEventNobodyDrawsIsDrawnByAStrangerLater() public {
        uint256 e = _createEth(4);
        _fill(e, 4);
        uint256 armed = tour.getEvent(e).drawBlock;
        vm.roll(armed + 10_000);
        VmBlocks(address(vm)).setBlockhash(armed, 0);
        vm.prank(stranger);
        tour.draw(e);
        IChessTournamentTypes.EventInfo memory info = tour.getEvent(e);
        assertFalse(info.drawn, "an expired hash re-arms, it does not draw");
        assertEq(info.drawBlock, block.number + 1);
        _hashAt(info.drawBlock, DRAW_HASH);
        vm.prank(stranger);
        tour.draw(e);
        assertTrue(tour.getEvent(e).drawn);
        vm.prank(stranger);
        assertGt(tour.start(e, 0), 0, "a stranger starts a match");
    }

    /// @dev An entrant who never starts, facing an opponent who never claims (the organiser's
    /// second account, say), holds the event only until the first-move window, the clock,
    /// the grace and `abandonAfter` are past: then a stranger reports the game abandoned, the
    /// final is a walkover, and every entry is paid out to the wei.
    function test_LockReview_NoShowFacingASilentOpponentIsReportedByAStranger() public {
        uint256 e = _ready(4);
        uint256 startedAt = block.timestamp;
        uint256 id = _start(e, 0);
        Position memory p = pos[id];
        uint256 until = startedAt + T_WINDOW + T_INITIAL + ClockWord.GRACE_PERIOD + ABANDON_AFTER;
        assertEq(ClockWord.deadline(p.clock, ChessRules.whiteToMove(p.state)) + ABANDON_AFTER, until);
        vm.warp(until);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotAbandoned.selector, until));
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        vm.warp(until + 1);
        vm.prank(stranger);
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        address champion = _playMatch(e, 1, true);
        vm.prank(stranger);
        assertEq(tour.start(e, 2), 0, "the final is a walkover");
        assertEq(tour.getMatch(e, 2).winner, champion);
        uint256 total = _claimAll(e, 4);
        vm.prank(organiser);
        tour.claimFee(e);
        assertEq(total + tour.credits(organiser, address(0)), 4 * uint256(FEE), "prizes + fee = pool");
    }

    /// @dev A drawn game nobody reports, then a lot nobody resolves until its hash expired:
    /// a stranger reports it, re-arms the lot, resolves it, and the event goes on.
    function test_LockReview_LotNobodyResolvesIsResolvedByAStranger() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        _drawGame(id);
        vm.prank(stranger);
        tour.report(e, 0);
        uint256 lotBlock = tour.getMatch(e, 0).lotBlock;
        vm.roll(lotBlock + 10_000);
        VmBlocks(address(vm)).setBlockhash(lotBlock, 0);
        vm.prank(stranger);
        tour.resolveLot(e, 0);
        IChessTournamentTypes.MatchInfo memory m = tour.getMatch(e, 0);
        assertEq(m.status, 3, "still a lot: re-armed");
        assertEq(m.lotBlock, block.number + 1);
        _hashAt(m.lotBlock, keccak256("lot"));
        vm.prank(stranger);
        tour.resolveLot(e, 0);
        assertEq(tour.getMatch(e, 0).status, 2, "decided by lot");
        _playMatch(e, 1, true);
        _playMatch(e, 2, true);
        assertTrue(tour.getEvent(e).finished);
    }

    /// @dev A final both finalists abandon does not hold the pool: a stranger reports it,
    /// the event is finished, and every entry and the fee are paid out to the wei.
    function test_LockReview_AbandonedFinalReleasesEveryEntry() public {
        uint256 e = _ready(4);
        _playMatch(e, 0, true);
        _playMatch(e, 1, false);
        uint256 id = _start(e, 2);
        Position memory p = pos[id];
        vm.warp(ClockWord.deadline(p.clock, ChessRules.whiteToMove(p.state)) + ABANDON_AFTER + 1);
        vm.prank(stranger);
        tour.reportAbandoned(e, 2, p.state, p.history, p.clock);
        assertTrue(tour.getEvent(e).finished);
        uint256 total = _claimAll(e, 4);
        vm.prank(organiser);
        tour.claimFee(e);
        assertEq(total + tour.credits(organiser, address(0)), 4 * uint256(FEE), "prizes + fee = pool");
    }

    // ------------------------------------------------ limits of trust and of the terms (TOURNAMENT.md)

    /// @dev A TRUST LIMIT, documented (docs/TOURNAMENT.md: the fee token is trusted). The fee token is the
    /// organiser's choice and only needs code: an organiser who issues its own token with an
    /// owner's freeze takes the entries, then freezes the tournament's balance. The refunds
    /// are credited after the deadline as they should be, but no withdrawal, to the entrant
    /// or any other address, can ever move them.
    function test_LockReview_TrustLimit_OrganisersFreezableTokenHoldsEveryRefund() public {
        vm.prank(organiser);
        FreezableToken token = new FreezableToken();
        uint256 e = _create(_terms(4, address(token), 0, _winnerTakesAll()));
        for (uint256 i; i < 2; ++i) {
            token.mint(_player(i), FEE);
            vm.startPrank(_player(i));
            token.approve(address(tour), FEE);
            tour.enter(e);
            vm.stopPrank();
        }
        vm.prank(organiser);
        token.freeze(address(tour));
        vm.warp(tour.getEvent(e).deadline + 1);
        for (uint256 i; i < 2; ++i) {
            vm.startPrank(_player(i));
            tour.claim(e);
            assertEq(tour.credits(_player(i), address(token)), FEE, "refund credited");
            vm.expectRevert(abi.encodeWithSelector(TokenTransferFailed.selector, address(token)));
            tour.withdraw(address(token));
            vm.expectRevert(abi.encodeWithSelector(TokenTransferFailed.selector, address(token)));
            tour.withdrawTo(address(token), stranger);
            vm.stopPrank();
        }
        assertEq(token.balanceOf(address(tour)), 2 * uint256(FEE), "the entries sit frozen");
    }

    /// @dev A LIMIT OF THE TERMS, documented (docs/TOURNAMENT.md: how long an event can last).
    /// Two entrants who agree (the organiser's two accounts, drawn into
    /// one match) hold every entry for over a year in one round-0 game, on terms
    /// `createEvent` accepts: each of 190 instant moves adds the 1-day increment to its
    /// mover's 90-day clock, then each side spends its whole clock on one move. The event
    /// filled at creation; 90 days is long past; nobody else can end the game (no timeout
    /// is due, it is not abandoned, the final cannot start) and no entrant can claim. The
    /// budget grows by an increment a move, and a game can have up to 19,050 plies (the
    /// 75-move rule only asks for a pawn move or a capture every 150 plies), so the lock is
    /// decades on these terms: entrants see them before they pay.
    function test_LockReview_TermsLimit_TwoAgreeingEntrantsHoldEveryEntryForAYear() public {
        uint256 created = block.timestamp;
        uint256 e = _create(_longestTerms());
        _fill(e, 4);
        _passDraw(e, DRAW_HASH);
        uint256 id = _start(e, 0);
        _playMatch(e, 1, true); // the other semi-final is played out at once

        string[4] memory dance = ["g1f3", "g8f6", "f3g1", "f6g8"];
        uint256 d;
        for (uint256 ply; ply < 190; ++ply) {
            if (ply == 140) _move(id, "e2e4"); // a pawn move every < 150 plies: no 75-move rule
            else if (ply == 141) _move(id, "e7e5");
            else _move(id, dance[d++ % 4]);
        }
        Position memory p = pos[id];
        assertEq(ClockWord.budget(p.clock, true), 90 days + ClockWord.GRACE_PERIOD + 95 days, "white banked");
        assertEq(ClockWord.budget(p.clock, false), 90 days + ClockWord.GRACE_PERIOD + 95 days, "black banked");
        for (uint256 i; i < 2; ++i) {
            p = pos[id];
            vm.warp(ClockWord.deadline(p.clock, ChessRules.whiteToMove(p.state)));
            _move(id, dance[d++ % 4]);
        }
        assertGt(block.timestamp, created + 365 days, "over a year after creation");
        assertEq(_phase(id), PHASE_RUNNING, "the game still runs");

        p = pos[id];
        uint256 deadline = ClockWord.deadline(p.clock, ChessRules.whiteToMove(p.state));
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotAbandoned.selector, deadline + 30 days));
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.GameNotEnded.selector, id));
        tour.start(e, 2);
        for (uint256 i; i < 4; ++i) {
            vm.prank(_player(i));
            vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.GameNotEnded.selector, id));
            tour.claim(e);
        }
        vm.prank(organiser);
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        tour.claimFee(e);
    }

    /// @dev A LIMIT OF THE TERMS, documented (docs/TOURNAMENT.md), with no accomplice. One entrant alone, facing an honest opponent
    /// who moves at once, holds every entry past the 90 days by playing within its clock:
    /// 1 day (its increment) a move for 40 moves, then its whole clock (91 days) on one move.
    /// Four months after creation the game runs, the honest opponent has no timeout to
    /// claim, nobody can report it abandoned, and no entrant can claim. It may go on so
    /// for as many moves as the honest side cannot end the game in without losing.
    function test_LockReview_TermsLimit_OneSlowEntrantHoldsEveryEntryBeyondNinetyDays() public {
        uint256 created = block.timestamp;
        uint256 e = _create(_longestTerms());
        _fill(e, 4);
        _passDraw(e, DRAW_HASH);
        uint256 id = _start(e, 0);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        address honest = g.white;
        uint24[] memory moves = _uciList(RealGames.mvlCaruana2019());
        for (uint256 ply; ply < 83; ++ply) {
            if (ply % 2 == 1) {
                // the slow entrant (black): its first move at the first-move window's end, then
                // 1 day a move (its increment: its clock stays full), then its whole clock
                uint256 wait = 1 days;
                if (ply == 81) wait = ClockWord.deadline(pos[id].clock, false) - block.timestamp;
                vm.warp(block.timestamp + wait);
            }
            _move(id, _mover(id), moves[ply]);
        }
        assertGt(block.timestamp, created + 120 days, "four months after creation");
        assertEq(_phase(id), PHASE_RUNNING, "the game still runs");

        // The honest side replied at once; now the slow side thinks again, within its clock.
        vm.warp(block.timestamp + 12 hours);
        Position memory p = pos[id];
        uint256 deadline = ClockWord.deadline(p.clock, false);
        vm.prank(honest);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, deadline));
        ref.claimTimeout(id, p.state, p.history, p.clock);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotAbandoned.selector, deadline + 30 days));
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        for (uint256 i; i < 4; ++i) {
            vm.prank(_player(i));
            vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.GameNotEnded.selector, id));
            tour.claim(e);
        }
    }
}

/// @notice Second reader of issue 31, channel events: a channel registration takes its budgets
/// from the signed times of the two moves it shows, and two entrants who agree can sign any
/// times between themselves (a clock of 2^32 s, 136 years, held the event for ever before the
/// court cut signed times to what the event's time control can give at the shown ply).
contract ChessTournamentLockReviewChannelTest is TournamentChannelBase {
    address internal stranger = address(0x5757);

    /// @dev ATTACK FAILS (it succeeded before the fix). In an event of 10-minute games (600 s
    /// + 5 s, window 600 s, `abandonAfter` 1 hour), alice and bob, drawn into match 0, sign
    /// ply 1 honestly, then a ply 2 that gives both sides 2^32 s (an invalid transition nobody
    /// else can see: its predecessor is never shown), then a valid ply 3; alice registers
    /// plies 2 and 3. The court cuts each signed time to what a valid game holds at ply 3
    /// (the initial time and two increments), so black's deadline is minutes away, and once it
    /// is an hour past a stranger reports the game abandoned and the event goes on.
    function test_LockReview_Attack_ForgedChannelClockIsCutToTheTimeControl() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        _resetLine(id, ChessRules.initialState());
        line.push(_next(line[0], "e2e4", 0));
        Move memory forged = _next(line[1], "e7e5", 0);
        (forged.whiteTime, forged.blackTime) = (type(uint32).max - INCREMENT, type(uint32).max - INCREMENT);
        line.push(forged);
        line.push(_next(line[2], "g1f3", 0));
        uint256 registeredAt = block.timestamp;
        _register(3);

        Position memory p = pos[id];
        uint256 most = INITIAL + 2 * INCREMENT + ClockWord.GRACE_PERIOD;
        assertEq(ClockWord.budget(p.clock, true), most, "white holds what a valid game can");
        uint256 deadline = ClockWord.deadline(p.clock, false);
        assertLe(deadline, registeredAt + WINDOW + most, "black's clock is the time control's");

        vm.warp(deadline + 1 hours + 1);
        vm.prank(stranger);
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        assertEq(tour.getMatch(e, 0).status, 4, "both out: the event goes on");
    }
}

/// @dev An ERC-20 whose issuer can freeze any holder (as several stablecoins can): a
/// frozen holder cannot send.
contract FreezableToken is MockERC20 {
    address internal immutable issuer = msg.sender;
    mapping(address holder => bool) public frozen;

    function freeze(address holder) external {
        require(msg.sender == issuer, "issuer");
        frozen[holder] = true;
    }

    function _move(address from, address to, uint256 amount) internal override {
        require(!frozen[from], "frozen");
        super._move(from, to, amount);
    }
}
