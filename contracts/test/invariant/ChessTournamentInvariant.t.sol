// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test, Vm} from "../utils/Test.sol";
import {ChessReferee} from "../../src/ChessReferee.sol";
import {ChessRefereeAnnex} from "../../src/ChessRefereeAnnex.sol";
import {ChessChannelAnnex} from "../../src/ChessChannelAnnex.sol";
import {ChessChannelBlueprint} from "../../src/ChessChannelBlueprint.sol";
import {ChessTournamentBlueprint} from "../../src/ChessTournamentBlueprint.sol";
import {IChessReferee, IChessRefereeTypes} from "../../src/IChessReferee.sol";
import {IChessTournament, IChessTournamentTypes} from "../../src/IChessTournament.sol";
import {ChessRules} from "../../src/ChessRules.sol";
import {ClockWord} from "../../src/ClockWord.sol";
import {MockERC20} from "../mocks/MockERC20.sol";
import {MovePicker} from "./ChessRefereeInvariant.t.sol";

interface VmBlockHashes {
    function setBlockhash(uint256 blockNumber, bytes32 blockHash) external;
}

/// @notice Drives the tournament with random event lifecycles: create (ETH or a token, 4 or
/// 8 players), enter, draw, start, random moves, resignations, agreed draws, timeouts, reports,
/// lots, claims, fees and withdrawals, with time and blocks moving on (every block's hash is
/// keccak256(block number), so a lot can be recomputed). Tracks each hosted game's position
/// from the referee's events and who ended it.
contract TournamentHandler {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    IChessReferee public immutable ref;
    IChessTournament public immutable tour;
    MockERC20 public immutable token;
    address public constant ORGANISER = address(0x0C6A);
    address[6] public players;

    struct Position {
        bytes state;
        bytes32 history;
        uint256 clock;
    }

    uint256[] public events;
    uint256[] public games;
    mapping(uint256 gameId => Position) internal pos;
    /// @notice Who made the call that ended each hosted game.
    mapping(uint256 gameId => address) public ender;
    /// @notice The event and match of each hosted game.
    mapping(uint256 gameId => uint256) public eventOf;
    mapping(uint256 gameId => uint256) public matchOf;
    uint256 public abandoned;
    /// @notice The latest lot block armed for each match.
    mapping(uint256 eventId => mapping(uint256 matchIndex => uint256)) public lotOf;
    /// @notice Set if anyone but a game's two players ended it.
    bool public outsiderEnded;
    uint256 public starts;
    uint256 public decided;
    uint256 public claims;
    uint256 public withdrawals;
    /// @notice The revert of a withdrawal of a credit that exists (none expected).
    bytes public withdrawFailure;

    constructor(IChessReferee r, MockERC20 t) {
        ref = r;
        tour = IChessTournament(r.tournament());
        token = t;
        for (uint256 i; i < 6; ++i) {
            players[i] = address(uint160(0xE000 + i));
            vm.deal(players[i], 1_000 ether);
            t.mint(players[i], 1_000 ether);
            vm.prank(players[i]);
            t.approve(address(tour), type(uint256).max);
        }
    }

    function eventCount() external view returns (uint256) {
        return events.length;
    }

    function gameCount() external view returns (uint256) {
        return games.length;
    }

    // ---------------------------------------------------------------- actions

    function createEvent(uint256 seed) external {
        if (events.length >= 4) return;
        bool eight = seed & 1 == 1;
        uint16[] memory split;
        if (eight && seed & 2 == 2) {
            split = new uint16[](3);
            (split[0], split[1], split[2]) = (6_000, 2_500, 750);
        } else {
            split = new uint16[](1);
            split[0] = 10_000;
        }
        IChessTournamentTypes.EventTerms memory t = IChessTournamentTypes.EventTerms({
            token: seed & 4 == 4 ? address(token) : address(0),
            fee: uint96(1 ether + (seed >> 8) % 1_000_003),
            size: eight ? 8 : 4,
            initialTime: 60,
            increment: 0,
            firstMoveWindow: 60,
            responseWindow: 0,
            deadline: uint40(block.timestamp + 2 hours),
            feeBps: uint16((seed >> 40) % 1_001),
            split: split,
            abandonAfter: 1 hours
        });
        vm.prank(ORGANISER);
        events.push(tour.createEvent(t));
    }

    function enter(uint256 eSeed, uint256 pSeed) external {
        if (events.length == 0) return;
        uint256 e = events[eSeed % events.length];
        IChessTournamentTypes.EventInfo memory info = tour.getEvent(e);
        address p = players[pSeed % 6];
        if (info.size == 8 && info.entrants >= 6) p = address(uint160(0xF000 + info.entrants)); // two more seats
        vm.deal(p, p.balance + info.fee);
        if (info.token != address(0)) return _enterToken(e, p, info.fee);
        vm.prank(p);
        tour.enter{value: info.fee}(e);
    }

    function _enterToken(uint256 e, address p, uint256 fee) internal {
        token.mint(p, fee);
        vm.prank(p);
        token.approve(address(tour), type(uint256).max);
        vm.prank(p);
        tour.enter(e);
    }

    function advance(uint256 secondsSeed, uint256 blocksSeed) external {
        uint256 from = block.number;
        vm.warp(block.timestamp + 1 + secondsSeed % 400);
        vm.roll(from + 1 + blocksSeed % 3);
        for (uint256 b = from; b < block.number; ++b) {
            VmBlockHashes(address(vm)).setBlockhash(b, keccak256(abi.encode(b)));
        }
    }

    function draw(uint256 eSeed) external {
        if (events.length == 0) return;
        tour.draw(events[eSeed % events.length]);
    }

    function start(uint256 eSeed, uint256 mSeed) external {
        if (events.length == 0) return;
        uint256 e = events[eSeed % events.length];
        uint256 n = tour.getEvent(e).size;
        vm.recordLogs();
        uint256 m = mSeed % (n - 1);
        uint256 id = tour.start(e, m);
        _absorb(vm.getRecordedLogs());
        if (id == 0) return; // a walkover or a match without players
        games.push(id);
        eventOf[id] = e;
        matchOf[id] = m;
        ++starts;
    }

    function play(uint256 gSeed, uint256 mvSeed) external {
        (bool ok, uint256 id) = _running(gSeed);
        if (!ok) return;
        Position memory p = pos[id];
        (bool found, uint24 mv) = MovePicker.find(p.state, mvSeed);
        if (!found) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        address mover = ChessRules.whiteToMove(p.state) ? g.white : g.black;
        vm.recordLogs();
        vm.prank(mover);
        ref.move(id, p.state, p.history, p.clock, mv);
        _absorb(vm.getRecordedLogs());
        if (ref.getGame(id).phase == 3) ender[id] = mover;
    }

    function resign(uint256 gSeed, bool white) external {
        (bool ok, uint256 id) = _running(gSeed);
        if (!ok) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        address who = white ? g.white : g.black;
        vm.prank(who);
        ref.resign(id);
        ender[id] = who;
    }

    function agreeDraw(uint256 gSeed) external {
        (bool ok, uint256 id) = _running(gSeed);
        if (!ok) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        Position memory p = pos[id];
        vm.recordLogs();
        vm.prank(g.white);
        ref.offerDraw(id, p.state, p.history, p.clock);
        _absorb(vm.getRecordedLogs());
        p = pos[id];
        vm.prank(g.black);
        ref.acceptDraw(id, p.state, p.history, p.clock);
        ender[id] = g.black;
    }

    function timeout(uint256 gSeed) external {
        (bool ok, uint256 id) = _running(gSeed);
        if (!ok) return;
        Position memory p = pos[id];
        bool whiteToMove = ChessRules.whiteToMove(p.state);
        uint256 deadline = ClockWord.deadline(p.clock, whiteToMove);
        if (block.timestamp <= deadline) vm.warp(deadline + 1);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        address waiter = whiteToMove ? g.black : g.white;
        vm.prank(waiter);
        ref.claimTimeout(id, p.state, p.history, p.clock);
        ender[id] = waiter;
    }

    /// @dev Both players of a running game vanish: past the deadline and `abandonAfter`, it
    /// is reported abandoned.
    function abandon(uint256 gSeed) external {
        (bool ok, uint256 id) = _running(gSeed);
        if (!ok) return;
        Position memory p = pos[id];
        uint256 until = ClockWord.deadline(p.clock, ChessRules.whiteToMove(p.state)) + 1 hours;
        if (block.timestamp <= until) vm.warp(until + 1);
        tour.reportAbandoned(eventOf[id], matchOf[id], p.state, p.history, p.clock);
        ++abandoned;
    }

    /// @dev Someone who is not a player tries to end a running game; it must fail.
    function outsider(uint256 gSeed, uint256 who) external {
        (bool ok, uint256 id) = _running(gSeed);
        if (!ok) return;
        address[3] memory others = [ORGANISER, address(tour), address(uint160(0xBAD + who % 7))];
        address o = others[who % 3];
        Position memory p = pos[id];
        vm.prank(o);
        try ref.resign(id) {
            outsiderEnded = true;
        } catch {}
        vm.prank(o);
        try ref.claimTimeout(id, p.state, p.history, p.clock) {
            outsiderEnded = true;
        } catch {}
    }

    function report(uint256 eSeed, uint256 mSeed) external {
        if (events.length == 0) return;
        uint256 e = events[eSeed % events.length];
        vm.recordLogs();
        tour.report(e, mSeed % (tour.getEvent(e).size - 1));
        _absorb(vm.getRecordedLogs());
    }

    function resolveLot(uint256 eSeed, uint256 mSeed) external {
        if (events.length == 0) return;
        uint256 e = events[eSeed % events.length];
        vm.recordLogs();
        tour.resolveLot(e, mSeed % (tour.getEvent(e).size - 1));
        _absorb(vm.getRecordedLogs());
    }

    function claim(uint256 eSeed, uint256 pSeed) external {
        if (events.length == 0) return;
        uint256 e = events[eSeed % events.length];
        IChessTournamentTypes.EventInfo memory info = tour.getEvent(e);
        if (info.entrants == 0) return;
        address p = tour.entrantOf(e, pSeed % info.entrants);
        vm.recordLogs();
        vm.prank(p);
        tour.claim(e);
        _absorb(vm.getRecordedLogs());
        ++claims;
    }

    function claimFee(uint256 eSeed) external {
        if (events.length == 0) return;
        vm.prank(ORGANISER);
        tour.claimFee(events[eSeed % events.length]);
    }

    /// @dev The first account from `pSeed` on with a credit in the asset withdraws it all.
    function withdraw(uint256 pSeed, bool inToken) external {
        address asset = inToken ? address(token) : address(0);
        for (uint256 i; i < 9; ++i) {
            uint256 a = (pSeed % 9 + i) % 9;
            address p = a == 8 ? ORGANISER : _account(a);
            if (tour.credits(p, asset) == 0) continue;
            vm.prank(p);
            try tour.withdraw(asset) {
                ++withdrawals;
            } catch (bytes memory err) {
                withdrawFailure = err;
            }
            return;
        }
    }

    // ---------------------------------------------------------------- helpers

    /// @notice Every account that can hold a credit: the six players, the two extra seats
    /// of 8-player events, the organiser.
    function account(uint256 i) external view returns (address) {
        return i == 8 ? ORGANISER : _account(i);
    }

    function _account(uint256 i) internal view returns (address) {
        return i < 6 ? players[i] : address(uint160(0xF000 + i));
    }

    function _running(uint256 gSeed) internal view returns (bool, uint256) {
        if (games.length == 0) return (false, 0);
        uint256 id = games[gSeed % games.length];
        return (ref.getGame(id).phase == 2, id);
    }

    function _absorb(Vm.Log[] memory logs) internal {
        for (uint256 i; i < logs.length; ++i) {
            Vm.Log memory l = logs[i];
            bytes32 t = l.topics[0];
            if (l.emitter == address(tour)) {
                if (t == IChessTournamentTypes.LotArmed.selector) {
                    (uint256 m, uint256 b) = abi.decode(l.data, (uint256, uint256));
                    lotOf[uint256(l.topics[1])][m] = b;
                } else if (t == IChessTournamentTypes.MatchDecided.selector) {
                    ++decided;
                }
                continue;
            }
            if (l.emitter != address(ref)) continue;
            uint256 id = uint256(l.topics[1]);
            if (t == IChessRefereeTypes.GameCreated.selector) {
                (,,,,,,, bytes memory state, bytes32 history) =
                    abi.decode(l.data, (bool, address, uint256, uint32, uint32, uint32, bytes32, bytes, bytes32));
                pos[id].state = state;
                pos[id].history = history;
            } else if (t == IChessRefereeTypes.GameJoined.selector || t == IChessRefereeTypes.DrawOffered.selector) {
                pos[id].clock = abi.decode(l.data, (uint256));
            } else if (t == IChessRefereeTypes.MovePlayed.selector) {
                (,,, bytes32 history, uint256 clock, bytes memory state) =
                    abi.decode(l.data, (uint24, uint32, uint8, bytes32, uint256, bytes));
                pos[id] = Position(state, history, clock);
            }
        }
    }
}

/// @notice The four invariants of issue 31 over random event lifecycles.
contract ChessTournamentInvariantTest is Test {
    IChessReferee internal ref;
    IChessTournament internal tour;
    MockERC20 internal token;
    TournamentHandler internal handler;

    function setUp() public {
        vm.warp(1_700_000_000);
        vm.roll(1_000);
        ref = IChessReferee(
            address(
                new ChessReferee(
                    address(new ChessChannelBlueprint()),
                    address(new ChessRefereeAnnex()),
                    address(new ChessChannelAnnex()),
                    address(new ChessTournamentBlueprint())
                )
            )
        );
        tour = IChessTournament(ref.tournament());
        token = new MockERC20();
        handler = new TournamentHandler(ref, token);
        targetContract(address(handler));
        bytes4[] memory s = new bytes4[](18);
        s[0] = TournamentHandler.createEvent.selector;
        s[1] = TournamentHandler.enter.selector;
        s[2] = TournamentHandler.enter.selector;
        s[3] = TournamentHandler.advance.selector;
        s[4] = TournamentHandler.draw.selector;
        s[5] = TournamentHandler.start.selector;
        s[6] = TournamentHandler.start.selector;
        s[7] = TournamentHandler.play.selector;
        s[8] = TournamentHandler.resign.selector;
        s[9] = TournamentHandler.agreeDraw.selector;
        s[10] = TournamentHandler.timeout.selector;
        s[11] = TournamentHandler.outsider.selector;
        s[12] = TournamentHandler.report.selector;
        s[13] = TournamentHandler.resolveLot.selector;
        s[14] = TournamentHandler.claim.selector;
        s[15] = TournamentHandler.claimFee.selector;
        s[16] = TournamentHandler.withdraw.selector;
        s[17] = TournamentHandler.abandon.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: s}));
    }

    /// @notice Per event, entries less credits paid is what it still holds, and the contract's
    /// balance in each asset is exactly the events' remaining shares plus the credits nobody
    /// withdrew: no money is created, lost or stuck.
    function invariant_PoolEqualsEntriesLessPaid() public view {
        uint256 remainingEth;
        uint256 remainingToken;
        for (uint256 i; i < handler.eventCount(); ++i) {
            IChessTournamentTypes.EventInfo memory info = tour.getEvent(handler.events(i));
            uint256 entries = uint256(info.fee) * info.entrants;
            assertGe(entries, info.paid, "never more paid than entered");
            if (info.token == address(0)) remainingEth += entries - info.paid;
            else remainingToken += entries - info.paid;
        }
        uint256 creditsEth;
        uint256 creditsToken;
        for (uint256 a; a < 9; ++a) {
            creditsEth += tour.credits(handler.account(a), address(0));
            creditsToken += tour.credits(handler.account(a), address(token));
        }
        assertEq(address(tour).balance, remainingEth + creditsEth, "ETH held = remaining + credits");
        assertEq(token.balanceOf(address(tour)), remainingToken + creditsToken, "tokens held = remaining + credits");
        assertEq(handler.withdrawFailure().length, 0, "a credit could not be withdrawn");
    }

    /// @notice The players of the started matches of one round are all different.
    function invariant_NoPlayerPairedTwiceInARound() public view {
        for (uint256 i; i < handler.eventCount(); ++i) {
            uint256 e = handler.events(i);
            uint256 n = tour.getEvent(e).size;
            uint256 offset;
            for (uint256 count = n / 2; count > 0; count /= 2) {
                address[] memory seen = new address[](2 * count);
                uint256 k;
                for (uint256 m = offset; m < offset + count; ++m) {
                    IChessTournamentTypes.MatchInfo memory info = tour.getMatch(e, m);
                    if (info.status == 0) continue;
                    for (uint256 j; j < k; ++j) {
                        assertTrue(
                            seen[j] == address(0) || (seen[j] != info.white && seen[j] != info.black),
                            "paired twice in a round"
                        );
                    }
                    seen[k++] = info.white;
                    seen[k++] = info.black;
                }
                offset += count;
            }
        }
    }

    /// @notice A decided match's winner is its game's winner as the referee recorded it, or
    /// for a drawn game the lot's, or for a walkover the one side below that has a player; a
    /// started match above round 0 plays its children's winners; an abandoned match's game never
    /// ended, or it has no players because both sides below have none.
    function invariant_ResultAdvancesOnlyItsWinner() public view {
        for (uint256 i; i < handler.eventCount(); ++i) {
            uint256 e = handler.events(i);
            uint256 n = tour.getEvent(e).size;
            for (uint256 m; m < n - 1; ++m) {
                IChessTournamentTypes.MatchInfo memory info = tour.getMatch(e, m);
                if (info.status == 0) continue;
                if (info.gameId == 0) {
                    _checkWithoutGame(e, m, n, info);
                    continue;
                }
                if (info.status == 2) _checkDecided(e, m, info);
                if (info.status == 4) assertEq(ref.getGame(info.gameId).phase, 2, "abandoned: never ended");
                if (m >= n / 2) {
                    uint256 child = 2 * (m - n / 2);
                    assertEq(tour.entrantOf(e, info.lo), tour.getMatch(e, child).winner, "lo = upper child's winner");
                    assertEq(
                        tour.entrantOf(e, info.hi), tour.getMatch(e, child + 1).winner, "hi = lower child's winner"
                    );
                }
            }
        }
    }

    /// @dev A walkover goes to the one side below with a player; a match without players has
    /// none on either side.
    function _checkWithoutGame(uint256 e, uint256 m, uint256 n, IChessTournamentTypes.MatchInfo memory info)
        internal
        view
    {
        assertGe(m, n / 2, "round 0 always plays");
        IChessTournamentTypes.MatchInfo memory a = tour.getMatch(e, 2 * (m - n / 2));
        IChessTournamentTypes.MatchInfo memory b = tour.getMatch(e, 2 * (m - n / 2) + 1);
        if (info.status == 4) {
            assertTrue(a.status == 4 && b.status == 4, "no players: both sides below out");
        } else {
            assertEq(info.status, 2);
            assertTrue((a.status == 4) != (b.status == 4), "a walkover: one side below out");
            assertEq(info.winner, a.status == 4 ? b.winner : a.winner, "the side with a player goes on");
        }
    }

    function _checkDecided(uint256 e, uint256 m, IChessTournamentTypes.MatchInfo memory info) internal view {
        IChessRefereeTypes.GameInfo memory g = ref.getGame(info.gameId);
        assertEq(g.phase, 3, "decided only once the game ended");
        if (g.result == 1) {
            assertEq(info.winner, g.white, "white won");
        } else if (g.result == 2) {
            assertEq(info.winner, g.black, "black won");
        } else {
            assertEq(g.result, 3, "a draw");
            uint256 lotBlock = handler.lotOf(e, m);
            bool whiteWins = uint256(keccak256(abi.encode(keccak256(abi.encode(lotBlock)), e, m))) & 1 == 0;
            assertEq(info.winner, whiteWins ? g.white : g.black, "the lot's winner");
        }
    }

    /// @notice Every ended hosted game was ended by one of its two players; no outsider's
    /// attempt ever succeeded.
    function invariant_OnlyPlayersEndTheirGame() public view {
        assertFalse(handler.outsiderEnded(), "an outsider ended a game");
        for (uint256 i; i < handler.gameCount(); ++i) {
            uint256 id = handler.games(i);
            IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
            if (g.phase != 3) continue;
            address who = handler.ender(id);
            assertTrue(who == g.white || who == g.black, "ended by a player");
        }
    }

    /// @notice The handler really runs events to the end (the invariants are not checked over
    /// an idle contract).
    function test_HandlerRunsWholeEvents() public {
        handler.createEvent(0); // 4 players, ETH
        for (uint256 i; i < 4; ++i) {
            handler.enter(0, i);
        }
        handler.advance(10, 1);
        handler.draw(0);
        handler.start(0, 0);
        handler.start(0, 1);
        handler.resign(0, true);
        handler.agreeDraw(1);
        handler.report(0, 1);
        handler.advance(10, 2);
        handler.start(0, 2);
        handler.timeout(2);
        for (uint256 i; i < 4; ++i) {
            handler.claim(0, i);
        }
        handler.claimFee(0);
        assertTrue(tour.getEvent(handler.events(0)).finished);
        assertEq(handler.claims(), 4);
        assertGe(handler.decided(), 3);
        invariant_PoolEqualsEntriesLessPaid();
        invariant_NoPlayerPairedTwiceInARound();
        invariant_ResultAdvancesOnlyItsWinner();
        invariant_OnlyPlayersEndTheirGame();
        for (uint256 a; a < 9; ++a) {
            if (tour.credits(handler.account(a), address(0)) != 0) handler.withdraw(a, false);
        }
        assertEq(address(tour).balance, 0, "every prize and the fee withdrawn");
    }
}
