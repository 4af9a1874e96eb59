// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {TournamentBase, VmBlocks} from "./ChessTournamentBase.t.sol";
import {TournamentChannelBase} from "./ChessTournamentChannel.t.sol";
import {IChessTournament, IChessTournamentTypes} from "../src/IChessTournament.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {IChessChannelTypes} from "../src/IChessChannel.sol";
import {Move} from "../src/ChannelHash.sol";
import {ChessRefereeAnnex} from "../src/ChessRefereeAnnex.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {MockERC20} from "./mocks/MockERC20.sol";

/// @dev An ERC-20 whose `transferFrom` calls back into the tournament (as an ERC-777 hook
/// would) and records how that call ended.
contract CallbackToken is MockERC20 {
    address internal target;
    bytes internal callback;
    bytes public callbackError;
    bool public callbackRan;

    function arm(address t, bytes calldata data) external {
        (target, callback) = (t, data);
    }

    function _move(address from, address to, uint256 amount) internal override {
        super._move(from, to, amount);
        if (target == address(0) || callbackRan) return;
        callbackRan = true;
        (bool ok, bytes memory err) = target.call(callback);
        if (!ok) callbackError = err;
    }
}

/// @dev Stands in for the EIP-2935 history contract: the hash of block `b` for the 32-byte
/// query `b` (a cold storage read, as the real one), a revert for a block it does not hold.
contract HistoryStandIn {
    mapping(uint256 => bytes32) internal hashes;

    function set(uint256 b, bytes32 h) external {
        hashes[b] = h;
    }

    fallback(bytes calldata query) external returns (bytes memory) {
        bytes32 h = hashes[abi.decode(query, (uint256))];
        if (h == 0) revert();
        return abi.encode(h);
    }
}

/// @notice The second reader's attacks on the tournament and the referee's new paths (issue
/// 31), per-move events: each test shows an attack failing to do harm.
contract ChessTournamentReviewTest is TournamentBase {
    /// @dev Only the tournament hosts games: a stranger, an organiser and an entrant are
    /// refused through the referee, and the annex called directly (its own storage has no
    /// tournament) refuses everyone, so no game for non-entrants can be made.
    function test_Attack_HostGameForNonEntrants() public {
        uint256 e = _ready(4);
        address[3] memory callers = [_player(63), organiser, _player(0)];
        for (uint256 i; i < 3; ++i) {
            vm.prank(callers[i]);
            vm.expectRevert(IChessRefereeTypes.NotTournament.selector);
            ref.hostGame(_player(60), _player(61), 60, 0, 0, 0);
        }
        ChessRefereeAnnex annexCode = ChessRefereeAnnex(ref.annex());
        vm.prank(address(tour));
        vm.expectRevert(IChessRefereeTypes.NotTournament.selector);
        annexCode.hostGame(_player(60), _player(61), 60, 0, 0, 0);
        assertEq(ref.nextGameId(), 1, "no game made");
        assertEq(tour.getEvent(e).entrants, 4);
    }

    /// @dev Two events with the same players: a match reads only the game its own `start`
    /// hosted, never the other event's (ended the other way).
    function test_Attack_ReportAnotherEventsGame() public {
        uint256 e1 = _ready(4);
        uint256 e2 = _ready(4);
        uint256 id1 = _start(e1, 0);
        uint256 id2 = _start(e2, 0);
        assertTrue(id1 != id2);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id1);
        _decideGame(id1, true);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.GameNotEnded.selector, id2));
        tour.report(e2, 0);
        tour.report(e1, 0);
        assertEq(tour.getMatch(e1, 0).winner, g.white);
        assertEq(tour.getMatch(e2, 0).status, 1, "e2's match still runs its own game");
        assertEq(tour.getMatch(e2, 0).gameId, id2);
    }

    /// @dev A second `start` cannot replace a running match's game, nor start a decided one.
    function test_Attack_RestartAMatch() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.AlreadyStarted.selector, 0));
        tour.start(e, 0);
        _decideGame(id, false);
        tour.report(e, 0);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.AlreadyStarted.selector, 0));
        tour.start(e, 0);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotRunning.selector, 0));
        tour.report(e, 0);
        assertEq(tour.getMatch(e, 0).gameId, id);
        assertEq(ref.nextGameId(), id + 1, "one game for the match");
    }

    /// @dev White waits to the last second of its first move; black's first move then has
    /// its own first-move window and clock from white's move: white cannot flag it at once.
    function test_Attack_LateFirstMoveCannotForfeitTheReply() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        vm.warp(block.timestamp + T_WINDOW + T_INITIAL + 15);
        _move(id, g.white, _uci("e2e4"));
        uint256 replyDeadline = block.timestamp + T_WINDOW + T_INITIAL + 15;
        vm.warp(replyDeadline);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, replyDeadline));
        _claimTimeout(id, g.white);
        _move(id, g.black, _uci("e7e5"));
        assertEq(_phase(id), PHASE_RUNNING);
    }

    /// @dev Both players vanish mid-game (lead's note 1): the match is shown abandoned, not
    /// before the waiting player had `abandonAfter` to claim; the bracket goes on and the
    /// shares and the fee are the pool to the wei.
    function test_Attack_BothVanishMidGameDoesNotStallTheEvent() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        _move(id, g.white, _uci("e2e4"));
        _move(id, g.black, _uci("e7e5"));
        Position memory p = pos[id];
        uint256 until = ClockWord.deadline(p.clock, true) + ABANDON_AFTER;
        vm.warp(until);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotAbandoned.selector, until));
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        vm.warp(until + 1);
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotRunning.selector, 0));
        tour.reportAbandoned(e, 0, p.state, p.history, p.clock);
        address champion = _playMatch(e, 1, true);
        assertEq(tour.start(e, 2), 0, "the final is a walkover");
        uint256 total = _claimAll(e, 4);
        vm.prank(organiser);
        tour.claimFee(e);
        assertEq(total + tour.credits(organiser, address(0)), 4 * uint256(FEE), "prizes + fee = pool");
        assertEq(tour.credits(champion, address(0)), tour.prizeOf(e, 0) + tour.prizeOf(e, 1));
    }

    /// @dev Nobody is paid twice: a second claim, a second fee, the fee by another, and after
    /// every withdrawal the contract holds nothing of the event.
    function test_Attack_PayOutTwice() public {
        uint256 e = _ready(8);
        _playAll(e, 8);
        _claimAll(e, 8);
        for (uint256 i; i < 8; ++i) {
            vm.prank(_player(i));
            vm.expectRevert(IChessTournamentTypes.AlreadyClaimed.selector);
            tour.claim(e);
        }
        vm.prank(_player(0));
        vm.expectRevert(IChessTournamentTypes.NotOrganiser.selector);
        tour.claimFee(e);
        vm.startPrank(organiser);
        tour.claimFee(e);
        vm.expectRevert(IChessTournamentTypes.AlreadyClaimed.selector);
        tour.claimFee(e);
        tour.withdraw(address(0));
        vm.stopPrank();
        for (uint256 i; i < 8; ++i) {
            if (tour.credits(_player(i), address(0)) == 0) continue;
            vm.prank(_player(i));
            tour.withdraw(address(0));
        }
        assertEq(address(tour).balance, 0, "the pool, exactly");
        assertEq(tour.getEvent(e).paid, 8 * uint256(FEE));
    }

    /// @dev An event that did not fill: no entry once a refund is possible (the deadline's
    /// second still takes an entry, and no refund), each entrant gets its fee back once, and
    /// the contract ends with nothing while another event's pool is untouched.
    function test_Attack_RefundRacesALateEntry() public {
        uint256 other = _ready(4);
        uint256 e = _createEth(8);
        _fill(e, 5);
        uint40 deadline = tour.getEvent(e).deadline;
        vm.warp(deadline);
        vm.prank(_player(0));
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        tour.claim(e);
        vm.prank(_player(5));
        tour.enter{value: FEE}(e);
        vm.warp(uint256(deadline) + 1);
        vm.prank(_player(6));
        vm.expectRevert(IChessTournamentTypes.RegistrationClosed.selector);
        tour.enter{value: FEE}(e);
        for (uint256 i; i < 6; ++i) {
            vm.startPrank(_player(i));
            tour.claim(e);
            vm.expectRevert(IChessTournamentTypes.AlreadyClaimed.selector);
            tour.claim(e);
            tour.withdraw(address(0));
            vm.stopPrank();
        }
        vm.prank(organiser);
        vm.expectRevert(IChessTournamentTypes.NotFinished.selector);
        tour.claimFee(e);
        assertEq(address(tour).balance, 4 * uint256(FEE), "only the other event's pool is left");
        assertEq(tour.getEvent(other).paid, 0);
    }

    /// @dev A token whose transfer calls back into the tournament during `enter` (an ERC-777
    /// style hook) cannot enter a second seat, claim or withdraw inside it: `Reentrancy`, and
    /// the outer entry stands alone.
    function test_Attack_TokenCallbackReentersEnter() public {
        for (uint256 i; i < 3; ++i) {
            CallbackToken token = new CallbackToken();
            uint256 e = _create(_terms(4, address(token), 0, _winnerTakesAll()));
            bytes[3] memory calls = [
                abi.encodeCall(IChessTournament.enter, (e)),
                abi.encodeCall(IChessTournament.claim, (e)),
                abi.encodeCall(IChessTournament.withdraw, (address(token)))
            ];
            token.arm(address(tour), calls[i]);
            token.mint(_player(0), FEE);
            vm.prank(_player(0));
            token.approve(address(tour), FEE);
            vm.prank(_player(0));
            tour.enter(e);
            assertTrue(token.callbackRan());
            assertEq(bytes4(token.callbackError()), IChessTournamentTypes.Reentrancy.selector);
            assertEq(tour.getEvent(e).entrants, 1, "one seat");
            assertEq(tour.entrantOf(e, 0), _player(0));
            assertEq(token.balanceOf(address(tour)), FEE, "one fee");
        }
    }

    /// @dev The draw cannot be re-rolled by starving its hash lookup: whatever gas `draw` is
    /// sent with, it either reverts or draws with the real hash, never re-arms (the lookup
    /// gets 63/64 of what is left, far more than it needs, while the re-arm needs more than
    /// 1/64 of it).
    function test_Attack_StarvedHashLookupCannotReRollTheDraw() public {
        address history = 0x0000F90827F1C53a10cb7A02335B175320002935;
        vm.etch(history, address(new HistoryStandIn()).code);
        uint256 e = _createEth(4);
        _fill(e, 4);
        uint256 b = tour.getEvent(e).drawBlock;
        vm.roll(b + 1);
        HistoryStandIn(history).set(b, DRAW_HASH);
        uint256 drawn;
        for (uint256 g = 10_000; g < 150_000; g += 250) {
            uint256 snap = vm.snapshotState();
            (bool ok,) = address(tour).call{gas: g}(abi.encodeCall(IChessTournament.draw, (e)));
            IChessTournamentTypes.EventInfo memory info = tour.getEvent(e);
            if (ok) {
                ++drawn;
                assertTrue(info.drawn, "drawn, not re-armed");
                assertEq(info.seed, uint64(uint256(DRAW_HASH)));
            }
            assertEq(info.drawBlock, b, "the draw block never moves");
            vm.revertToState(snap);
        }
        assertGt(drawn, 0, "enough gas draws");
    }

    /// @dev Hosted games take game ids from the referee's one counter without disturbing a
    /// stake game around them: it is created, joined, played and paid as before.
    function test_Attack_HostedGamesLeaveStakeGamesAlone() public {
        address a = _player(62);
        address b = _player(63);
        vm.recordLogs();
        vm.prank(a);
        uint256 before = ref.createGame{value: 1 ether}(b, true, address(0), 1 ether, 60, 0, 0, "");
        _absorb(vm.getRecordedLogs());
        uint256 e = _ready(4);
        uint256 hosted = _start(e, 0);
        assertEq(hosted, before + 1);
        bytes32 terms = ref.getGame(before).terms;
        vm.recordLogs();
        vm.prank(b);
        ref.joinGame{value: 1 ether}(before, terms);
        _absorb(vm.getRecordedLogs());
        _move(before, a, _uci("e2e4"));
        vm.prank(b);
        ref.resign(before);
        assertEq(ref.credits(a, address(0)), 2 ether, "the stake game pays as before");
        assertEq(_phase(hosted), PHASE_RUNNING, "the hosted game is untouched");
        assertEq(ref.getGame(hosted).stake, 0);
    }
}

/// @notice The second reader's attacks on channel events, and the tournament's registration
/// of the start of a channel game both players left unregistered (lead's decision 2).
contract ChessTournamentChannelReviewTest is TournamentChannelBase {
    /// @dev The earliest second `tour.registerStart` accepts for match 0, started at `startedAt`.
    function _registrable(uint256 startedAt) internal pure returns (uint256) {
        return startedAt + 120 + INITIAL + ClockWord.GRACE_PERIOD + 1 hours + 1;
    }

    /// @dev Both players of a channel match never show up: nobody can register the game,
    /// so without the tournament's `registerStart` it can never be shown abandoned and every
    /// prize is locked. With it: registered after the delay, then abandoned, the bracket
    /// goes on and the pool is paid out whole.
    function test_Attack_ChannelMatchNobodyRegistersStallsTheEvent() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        uint256 startedAt = block.timestamp;
        _resetLine(id, ChessRules.initialState());
        vm.warp(_registrable(startedAt));
        vm.recordLogs();
        vm.prank(address(0xBEEF)); // anyone
        tour.registerStart(e, 0, line[0]);
        _absorb(vm.getRecordedLogs());
        assertEq(ref.channelGame(id).windowEnd, block.timestamp + WINDOW, "on-chain, frozen for the window");
        uint256 until = ClockWord.deadline(pos[id].clock, true) + 1 hours;
        vm.warp(until);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotAbandoned.selector, until));
        tour.reportAbandoned(e, 0, pos[id].state, pos[id].history, pos[id].clock);
        vm.warp(until + 1);
        tour.reportAbandoned(e, 0, pos[id].state, pos[id].history, pos[id].clock);
        assertEq(tour.getMatch(e, 0).status, 4);

        uint256 other = _startMatch(e, 1);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(other);
        vm.prank(g.black);
        ref.resign(other);
        tour.report(e, 1);
        assertEq(tour.start(e, 2), 0, "the final is a walkover");
        assertTrue(tour.getEvent(e).finished);
        address[4] memory players = [alice, bob, carol, dave];
        uint256 total;
        for (uint256 i; i < 4; ++i) {
            vm.prank(players[i]);
            tour.claim(e);
            total += tour.credits(players[i], address(0));
        }
        assertEq(total, 4 * uint256(FEE), "the whole pool");
        assertEq(tour.credits(g.white, address(0)), 4 * uint256(FEE), "winner takes all");
    }

    /// @dev Not before the side to move's latest first move plus `abandonAfter`.
    function test_Attack_TournamentRegisterStartTooEarly() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        _resetLine(id, ChessRules.initialState());
        uint256 until = _registrable(block.timestamp) - 1;
        vm.warp(until);
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotAbandoned.selector, until));
        tour.registerStart(e, 0, line[0]);
        assertEq(ref.channelGame(id).windowEnd, 0, "still off-chain");
    }

    /// @dev The tournament registers only its match's own game: not another match's, not
    /// another event's, not a private channel game between the same players; a match that is
    /// not running, or a per-move game, is refused too; and a stranger still cannot register
    /// the start through the channel.
    function test_Attack_TournamentRegisterStartOfAnotherGame() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        uint256 sibling = _startMatch(e, 1);
        uint256 privateGame = _startChannelGame(); // alice vs bob, staked, off-chain
        vm.warp(block.timestamp + 30 days);
        uint256[2] memory others = [sibling, privateGame];
        for (uint256 i; i < 2; ++i) {
            Move memory s = _startMove(others[i], ChessRules.initialState());
            vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotTheMatchGame.selector, id));
            tour.registerStart(e, 0, s);
            assertEq(ref.channelGame(others[i]).windowEnd, 0);
        }
        vm.expectRevert(abi.encodeWithSelector(IChessTournamentTypes.NotRunning.selector, 2));
        tour.registerStart(e, 2, _startMove(id, ChessRules.initialState()));
        vm.prank(address(0xBEEF));
        vm.expectRevert(IChessChannelTypes.NotAPlayer.selector);
        channel.registerStart(_startMove(privateGame, ChessRules.initialState()));
        // a start that is not the game's start move
        Move memory forged = _startMove(id, ChessRules.initialState());
        forged.whiteTime = 1;
        vm.expectRevert(IChessChannelTypes.NotTheStart.selector);
        tour.registerStart(e, 0, forged);
    }

    /// @dev A per-move event's game is never a channel game: the channel refuses it.
    function test_Attack_TournamentRegisterStartOfAPerMoveGame() public {
        uint16[] memory split = new uint16[](1);
        split[0] = 10_000;
        uint256 e = tour.createEvent(
            IChessTournamentTypes.EventTerms({
                token: address(0),
                fee: FEE,
                size: 4,
                initialTime: INITIAL,
                increment: 0,
                firstMoveWindow: 120,
                responseWindow: 0,
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
        VmBlocks(address(vm)).setBlockhash(b, keccak256("chessref"));
        uint256 id = _startMatch(e, 0);
        vm.warp(block.timestamp + 30 days);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.NotAChannelGame.selector, id));
        tour.registerStart(e, 0, _startMove(id, ChessRules.initialState()));
    }

    /// @dev Players who are playing off-chain lose nothing when the tournament registers the
    /// start: white answers within the window with the latest signed pair (as it would a
    /// start its opponent registered), the clocks run from there (white cannot flag black),
    /// and the start cannot be registered again.
    function test_Attack_TournamentRegisteredStartIsAnsweredByPlay() public {
        uint256 e = _channelEvent();
        uint256 id = _startMatch(e, 0);
        vm.warp(_registrable(block.timestamp));
        // they play now (a long game, well past the delay), signing as they go
        _resetLine(id, ChessRules.initialState());
        _extend("e2e4 e7e5 d1h5 b8c6 f1c4");
        vm.warp(block.timestamp + 8);
        vm.recordLogs();
        tour.registerStart(e, 0, line[0]);
        _absorb(vm.getRecordedLogs());
        vm.warp(block.timestamp + 2);
        _registerBy(5, alice); // the overtaking pair: black to move, in trouble
        assertEq(ref.channelGame(id).registeredPly, 5);
        // black's clock runs from the overtake, not from the stale start white was flagged in
        uint256 blackDeadline = ClockWord.deadline(pos[id].clock, false);
        assertGt(blackDeadline, block.timestamp + INITIAL);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, blackDeadline));
        ref.claimTimeout(id, pos[id].state, pos[id].history, pos[id].clock);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.AlreadyOnChain.selector, id));
        tour.registerStart(e, 0, line[0]);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
        assertEq(tour.getMatch(e, 0).status, 1);
    }
}
