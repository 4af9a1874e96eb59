// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {TournamentBase} from "./ChessTournamentBase.t.sol";
import {IChessTournament, IChessTournamentTypes} from "../src/IChessTournament.sol";
import {IChessRefereeTypes} from "../src/IChessReferee.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {ChessRules} from "../src/ChessRules.sol";

/// @notice Games both players abandon: `reportAbandoned`, walkovers, matches without players,
/// and the shares, which always sum to the pool less the organiser fee.
contract ChessTournamentAbandonTest is TournamentBase {
    uint256 internal pool;
    uint256 internal net;

    /// @dev A `size` ETH event with a 3-tier split (60/20/10 at 4, 60/25/7.5 at 8), an odd
    /// fee and a 3.33% organiser fee, filled and drawn.
    function _readyOdd(uint8 size) internal returns (uint256 e) {
        uint16[] memory s = new uint16[](3);
        if (size == 4) (s[0], s[1], s[2]) = (6_000, 2_000, 1_000);
        else (s[0], s[1], s[2]) = (6_000, 2_500, 750);
        IChessTournamentTypes.EventTerms memory t = _terms(size, address(0), 333, s);
        t.fee = 1_000_003;
        e = _create(t);
        for (uint256 i; i < size; ++i) {
            vm.prank(_player(i));
            tour.enter{value: t.fee}(e);
        }
        _passDraw(e, DRAW_HASH);
        pool = uint256(t.fee) * size;
        net = pool - pool * 333 / 10_000;
    }

    /// @dev Starts match `m` and lets both its players vanish; reports it abandoned.
    function _abandon(uint256 e, uint256 m) internal {
        uint256 id = _start(e, m);
        Position memory p = pos[id];
        uint256 deadline = ClockWord.deadline(p.clock, ChessRules.whiteToMove(p.state));
        vm.warp(deadline + ABANDON_AFTER + 1);
        tour.reportAbandoned(e, m, p.state, p.history, p.clock);
    }

    /// @dev Every entrant claims; returns the sum credited.
    function _claimEveryone(uint256 e, uint256 n) internal returns (uint256 sum) {
        for (uint256 i; i < n; ++i) {
            vm.prank(_player(i));
            tour.claim(e);
            sum += tour.credits(_player(i), address(0));
        }
    }

    function test_Abandon_Reverts() public {
        IChessTournamentTypes.EventTerms memory t = _terms(4, address(0), 0, _winnerTakesAll());
        t.abandonAfter = 1 hours - 1;
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadAbandonAfter.selector, 1 hours - 1));
        tour.createEvent(t);
        t.abandonAfter = 30 days + 1;
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.BadAbandonAfter.selector, 30 days + 1));
        tour.createEvent(t);

        uint256 e = _ready(4);
        Position memory none;
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotRunning.selector, 0));
        tour.reportAbandoned(e, 0, none.state, none.history, none.clock);
        uint256 id = _start(e, 0);
        Position memory p = pos[id];
        uint256 until = block.timestamp + T_WINDOW + T_INITIAL + 15 + ABANDON_AFTER;
        vm.warp(until);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotAbandoned.selector, until));
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        vm.warp(until + 1);
        vm.expectRevert(IChessTournamentTypes.StalePosition.selector);
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock + 1);
        vm.expectRevert(IChessTournamentTypes.StalePosition.selector);
        tour.reportAbandoned(e, 0, hex"00", p.history, p.clock);
        // the opponent who is there claims first: the game ended, nothing is abandoned
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        _claimTimeout(id, g.black);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.GameOver.selector, id));
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        tour.report(e, 0);
        assertEq(tour.getMatch(e, 0).winner, g.black);
    }

    /// @dev One round-0 game abandoned: its two players share its loser's place; the final is
    /// a walkover (no game) and its loser's place, held by nobody, goes to the winner.
    function test_Abandon_WalkoverToTheFinal() public {
        uint256 e = _readyOdd(4);
        _abandon(e, 0);
        IChessTournamentTypes.MatchInfo memory a = tour.getMatch(e, 0);
        assertEq(a.status, 4);
        assertEq(a.winner, address(0));
        address champion = _playMatch(e, 1, true);
        vm.recordLogs();
        assertEq(tour.start(e, 2), 0, "a walkover hosts no game");
        IChessTournamentTypes.MatchInfo memory f = tour.getMatch(e, 2);
        assertEq(f.status, 2);
        assertEq(f.winner, champion);
        assertEq(f.white, champion);
        assertEq(f.black, address(0));
        assertEq(f.gameId, 0);
        assertTrue(tour.getEvent(e).finished);
        assertEq(tour.getEvent(e).unassigned, tour.prizeOf(e, 1), "the final's loser's place");

        uint256 sum = _claimEveryone(e, 4);
        uint256 p2 = tour.prizeOf(e, 2);
        assertEq(tour.credits(champion, address(0)), tour.prizeOf(e, 0) + tour.prizeOf(e, 1));
        assertEq(tour.credits(_entrant(a.lo), address(0)), p2 - p2 / 2, "lo takes the odd wei");
        assertEq(tour.credits(_entrant(a.hi), address(0)), p2 / 2);
        assertEq(sum, net, "the shares sum to the pool less the fee");
    }

    /// @dev Both round-0 games abandoned: the final has no players, every entrant gets an
    /// equal part of the winner's place; `claim` records the empty final itself.
    function test_Abandon_FinalWithoutPlayers() public {
        uint256 e = _readyOdd(4);
        _abandon(e, 0);
        _abandon(e, 1);
        uint256 sum = _claimEveryone(e, 4);
        IChessTournamentTypes.MatchInfo memory f = tour.getMatch(e, 2);
        assertEq(f.status, 4);
        assertEq(f.white, address(0));
        assertTrue(tour.getEvent(e).finished);
        uint256 w = tour.prizeOf(e, 0) + tour.getEvent(e).unassigned;
        assertEq(tour.getEvent(e).unassigned, tour.prizeOf(e, 1));
        uint256 p2 = tour.prizeOf(e, 2);
        IChessTournamentTypes.MatchInfo memory a = tour.getMatch(e, 0);
        if (a.lo != 0 && a.hi != 0) a = tour.getMatch(e, 1);
        uint256 expected = (a.lo == 0 ? p2 - p2 / 2 : p2 / 2) + w / 4 + w % 4;
        assertEq(tour.credits(_player(0), address(0)), expected, "entrant 0: its half and the remainder");
        assertEq(sum, net, "the shares sum to the pool less the fee");
    }

    /// @dev An abandoned final: its two players share the loser's and the winner's places.
    function test_Abandon_Final() public {
        uint256 e = _readyOdd(4);
        _playMatch(e, 0, true);
        _playMatch(e, 1, false);
        _abandon(e, 2);
        assertTrue(tour.getEvent(e).finished);
        IChessTournamentTypes.MatchInfo memory f = tour.getMatch(e, 2);
        uint256 sum = _claimEveryone(e, 4);
        uint256 both = tour.prizeOf(e, 1) + tour.prizeOf(e, 0);
        assertEq(tour.credits(_entrant(f.lo), address(0)) + tour.credits(_entrant(f.hi), address(0)), both);
        assertLe(
            tour.credits(_entrant(f.lo), address(0)) - tour.credits(_entrant(f.hi), address(0)), 2, "shared evenly"
        );
        assertEq(sum, net, "the shares sum to the pool less the fee");
    }

    /// @dev 8 players: one half's two quarter-finals abandoned (its semi-final has no players,
    /// nobody holds its loser's place), the final a walkover.
    function test_Abandon_EmptySemiFinalAndWalkover() public {
        uint256 e = _readyOdd(8);
        _abandon(e, 0);
        _abandon(e, 1);
        _playMatch(e, 2, true);
        _playMatch(e, 3, false);
        assertEq(tour.start(e, 4), 0, "no players");
        assertEq(tour.getMatch(e, 4).status, 4);
        address finalist = _playMatch(e, 5, true);
        assertEq(tour.start(e, 6), 0, "a walkover");
        assertEq(tour.getMatch(e, 6).winner, finalist);
        assertEq(tour.getEvent(e).unassigned, tour.prizeOf(e, 2) + tour.prizeOf(e, 1));
        uint256 sum = _claimEveryone(e, 8);
        assertEq(tour.credits(finalist, address(0)), tour.prizeOf(e, 0) + tour.getEvent(e).unassigned);
        assertEq(sum, net, "the shares sum to the pool less the fee");
        vm.prank(organiser);
        tour.claimFee(e);
        assertEq(tour.getEvent(e).paid, pool, "every wei of the pool credited");
    }

    function _entrant(uint8 index) internal view returns (address) {
        return tour.entrantOf(tour.nextEventId() - 1, index);
    }
}
