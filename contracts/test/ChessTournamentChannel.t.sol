// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelBase} from "./ChessChannelBase.t.sol";
import {VmBlocks} from "./ChessTournamentBase.t.sol";
import {IChessTournament, IChessTournamentTypes} from "../src/IChessTournament.sol";
import {IChessRefereeTypes} from "../src/IChessReferee.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {RepetitionChain} from "../src/RepetitionChain.sol";

/// @notice Shared harness of the channel-event tests: a 4-player channel event whose match 0
/// is alice (white) against bob (black), so the channel helpers sign for its players.
abstract contract TournamentChannelBase is ChannelBase {
    IChessTournament internal tour;
    address internal dave = address(0xDA7E);
    uint96 internal constant FEE = 0.1 ether;

    function setUp() public virtual override {
        super.setUp();
        tour = IChessTournament(ref.tournament());
        vm.roll(100);
        vm.deal(dave, 10 ether);
    }

    /// @dev A 4-player channel event with the channel tests' time control, entered by alice,
    /// bob, carol and dave, drawn with a hash that makes match 0 alice (white) against bob
    /// (black): the channel helpers sign as those two.
    function _channelEvent() internal returns (uint256 e) {
        uint16[] memory split = new uint16[](1);
        split[0] = 10_000;
        e = tour.createEvent(
            IChessTournamentTypes.EventTerms({
                token: address(0),
                fee: FEE,
                size: 4,
                initialTime: INITIAL,
                increment: INCREMENT,
                firstMoveWindow: 120,
                responseWindow: WINDOW,
                deadline: uint40(block.timestamp + 1 days),
                feeBps: 0,
                split: split,
                abandonAfter: 1 hours
            })
        );
        address[4] memory players = [alice, bob, carol, dave];
        for (uint256 i; i < 4; ++i) {
            vm.prank(players[i]);
            tour.enter{value: FEE}(e);
        }
        uint256 b = tour.getEvent(e).drawBlock;
        vm.roll(b + 1);
        for (uint256 h = 1;; ++h) {
            uint8[] memory perm = tour.permutation(uint64(h), 4);
            bool whiteIsHi = uint256(keccak256(abi.encode(h, uint256(64)))) & 1 == 1;
            (uint8 w, uint8 bl) = whiteIsHi ? (perm[1], perm[0]) : (perm[0], perm[1]);
            if (w == 0 && bl == 1) {
                VmBlocks(address(vm)).setBlockhash(b, bytes32(h));
                break;
            }
        }
        tour.draw(e);
    }

    function _startMatch(uint256 e, uint256 m) internal returns (uint256 id) {
        vm.recordLogs();
        id = tour.start(e, m);
        _absorb(vm.getRecordedLogs());
    }
}

/// @notice Channel events (`responseWindow` non-zero): each pairing is a channel game hosted
/// running off-chain, ended by the court like any channel game; a player who never starts
/// loses on time through `registerStart` and `claimTimeout` (no abort: the hosted game has
/// the custom-start rule), so the bracket always learns who failed.
contract ChessTournamentChannelTest is TournamentChannelBase {
    /// @dev The hosted game is a channel game that runs off-chain, as after `joinGame`.
    function test_ChannelEvent_HostsARunningChannelGame() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertEq(g.white, alice);
        assertEq(g.black, bob);
        assertEq(g.phase, PHASE_RUNNING);
        assertEq(g.responseWindow, WINDOW);
        assertEq(g.commitment, bytes32(0), "off-chain: no commitment");
        assertEq(pos[id].clock, 0, "GameJoined clock 0, as a joined channel game");
        bytes memory s = ChessRules.initialState();
        bytes32 h = RepetitionChain.start(ChessRules.repetitionKey(s));
        assertEq(ref.channelStart(id), keccak256(abi.encodePacked(s, h)), "the standard start");
        assertTrue(ref.channelGame(id).customStart, "the no-abort rule for the court");
    }

    /// @dev A channel game nobody registered cannot be shown abandoned (no clock on-chain):
    /// a player registers it first; then its registered clock counts like any.
    function test_ChannelEvent_AbandonNeedsARegisteredPosition() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        _resetLine(id, ChessRules.initialState());
        vm.warp(block.timestamp + 30 days);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotOnChain.selector, id));
        tour.reportAbandoned(e, 0, line[0].state, line[0].history, 0);
        vm.recordLogs();
        vm.prank(bob);
        channel.registerStart(line[0]);
        _absorb(vm.getRecordedLogs());
        uint256 until = block.timestamp + WINDOW + 120 + INITIAL + 15 + 1 hours;
        vm.warp(until + 1);
        tour.reportAbandoned(e, 0, pos[id].state, pos[id].history, pos[id].clock);
        assertEq(tour.getMatch(e, 0).status, 4);
    }

    /// @dev A result both players sign settles the hosted game through the court; the
    /// tournament takes it from the referee like any result.
    function test_ChannelEvent_SettledResultAdvancesTheWinner() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        _settle(id, BLACK_WINS);
        tour.report(e, 0);
        assertEq(tour.getMatch(e, 0).winner, bob);
    }

    /// @dev White never makes its first move: black registers the start, and after the
    /// response window, the first-move window and white's clock, claims the game on time.
    function test_ChannelEvent_NoShowLosesThroughTheCourt() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        _resetLine(id, ChessRules.initialState());
        vm.recordLogs();
        vm.prank(bob);
        channel.registerStart(line[0]);
        _absorb(vm.getRecordedLogs());
        uint256 deadline = block.timestamp + WINDOW + 120 + INITIAL + 15;
        vm.warp(deadline);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, deadline));
        _claimTimeout(id, bob);
        vm.warp(deadline + 1);
        _claimTimeout(id, bob);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS, "a loss on time, never an abort");
        assertEq(reason, 6);
        tour.report(e, 0);
        assertEq(tour.getMatch(e, 0).winner, bob);
    }

    /// @dev Black never answers white's first move: white registers the start, plays on-chain
    /// after the window; black's first move is charged from the window's end, and it loses on time.
    function test_ChannelEvent_NoShowAsBlackLosesThroughTheCourt() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        _resetLine(id, ChessRules.initialState());
        vm.recordLogs();
        vm.prank(alice);
        channel.registerStart(line[0]);
        _absorb(vm.getRecordedLogs());
        vm.warp(block.timestamp + WINDOW);
        _move(id, "e2e4");
        uint256 deadline = block.timestamp + 120 + INITIAL + 15;
        vm.warp(deadline + 1);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
        tour.report(e, 0);
        assertEq(tour.getMatch(e, 0).winner, alice);
    }
}
