// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelClockBase} from "./ChessChannelClockBase.t.sol";
import {ChessChannelCore} from "../src/ChessChannelCore.sol";
import {ChannelGame, IChessCourt} from "../src/ChessCourt.sol";
import {Move, Auth} from "../src/ChannelHash.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {GameTerms} from "../src/GameTerms.sol";
import {RepetitionChain} from "../src/RepetitionChain.sol";

/// @notice Exposes the channel court's registration clock (`_registeredClock`, with the cut of
/// 5265ca4) beside the same clock without the cut, and section 6 code 4 (`_timesConsistent`),
/// so a fuzz test can drive them with time sequences no real transcript would be cheap to build.
contract ClockCutHarness is ChessChannelCore {
    function _court() internal pure override returns (IChessCourt) {
        return IChessCourt(address(0));
    }

    function _domainSeparator() internal pure override returns (bytes32) {
        return 0;
    }

    /// @notice `_registeredClock` as `register` computes it (signed times cut at `last.ply`).
    function registeredClock(
        ChannelGame memory g,
        Move calldata last,
        bool authorWhite,
        uint256 from,
        uint256 frozen,
        uint256 replyAt
    ) external view returns (uint256) {
        return _registeredClock(g, last, authorWhite, from, frozen, replyAt);
    }

    /// @notice The same clock word with no cut (the formula before 5265ca4).
    function uncutClock(
        ChannelGame memory g,
        Move calldata last,
        bool authorWhite,
        uint256 from,
        uint256 frozen,
        uint256 replyAt
    ) external view returns (uint256) {
        uint256 windowEnd = block.timestamp + g.responseWindow;
        uint256 clock = ClockWord.registered(
            windowEnd, 0, 0, g.increment, last.ply, g.customStart ? 0 : g.firstMoveWindow, g.customStart
        );
        return _withBudgets(clock, last, authorWhite, windowEnd, from, frozen, replyAt, type(uint256).max);
    }

    /// @notice Section 6 code 4 of `m` after `q`, as the court checks it.
    function timesConsistent(uint256 increment, Move calldata q, Move calldata m, bool blackAuthor)
        external
        pure
        returns (bool)
    {
        return _timesConsistent(increment, q, m, blackAuthor);
    }
}

/// @notice Second reader of 5265ca4 (a registration cuts each signed time to
/// `initialTime + ceil(min(ply, 19050)/2) * increment`). `test_ClockCutReview_*` assert that a
/// valid game is untouched; `test_ClockCutReview_Attack_*` assert what an attack gets (see each
/// test: pass = the behaviour described, whether the attack fails or succeeds).
/// Game unless said: alice (white) vs bob (black), 600 s + 5 s, window 600 s, grace 15 s.
contract ChessChannelClockCutReviewTest is ChannelClockBase {
    uint256 internal constant MAX_PLIES = 19_050;
    uint256 internal constant GRACE = ClockWord.GRACE_PERIOD;

    ClockCutHarness internal harness;

    function setUp() public override {
        super.setUp();
        harness = new ClockCutHarness();
    }

    // ------------------------------------------------------------------ helpers

    /// @dev What a side of a valid game can hold at `ply` at most: the cut's own formula,
    /// written from docs/CHANNEL.md 7.3.
    function _most(uint256 initialTime, uint256 increment, uint256 ply) internal pure returns (uint256) {
        if (ply > MAX_PLIES) ply = MAX_PLIES;
        return initialTime + ((ply + 1) / 2) * increment;
    }

    /// @dev A bare move (no state: code 4 and the clock read only its head words).
    function _bare(uint256 ply, uint256 whiteTime, uint256 blackTime, uint256 stamp)
        internal
        pure
        returns (Move memory m)
    {
        m.ply = uint32(ply);
        m.whiteTime = uint32(whiteTime);
        m.blackTime = uint32(blackTime);
        m.timestamp = uint64(stamp);
    }

    /// @dev A channel game alice (white) vs bob on the given terms, joined, off-chain.
    function _channelGame(uint32 initialTime, uint32 increment, bytes memory start) internal returns (uint256 id) {
        vm.recordLogs();
        vm.prank(alice);
        id = ref.createChannelGame{value: STAKE}(
            bob, true, address(0), STAKE, initialTime, increment, 0, start, WINDOW
        );
        _absorb(vm.getRecordedLogs());
        _join(id, bob, STAKE);
    }

    /// @dev `q` followed by the UCI move `uci`, at ply `ply`, with the given times and stamp:
    /// state and history are right, nothing else is checked (the colluders' forged moves).
    function _forged(Move memory q, string memory uci, uint256 ply, uint32 whiteTime, uint32 blackTime, uint64 stamp)
        internal
        view
        returns (Move memory m)
    {
        bytes memory s = bytes.concat(q.state);
        assertEq(ChessRules.applyMove(s, _uci(uci)), 0, "test move must be legal");
        m = Move({
            gameId: q.gameId,
            ply: uint32(ply),
            mv: _uci(uci),
            state: s,
            history: RepetitionChain.afterMove(s, q.history),
            whiteTime: whiteTime,
            blackTime: blackTime,
            timestamp: stamp,
            previous: channel.hashMove(q)
        });
    }

    /// @dev The start position with black to move (a custom start).
    function _blackToMoveStart() internal pure returns (bytes memory s) {
        s = ChessRules.initialState();
        s[ChessRules.CURRENT_PLAYER] = 0xFF;
    }

    // ------------------------------------------------------------------ 1. valid games untouched

    /// @dev Random valid signed time sequences (section 6 code 4, every step checked by the
    /// court's own `_timesConsistent`): any stamps, any claimed remaining time up to what code 4
    /// allows, half the plies greedy (instant, the whole increment claimed), from the standard
    /// start or a custom start with black to move, any terms the referee accepts (increment 0
    /// included), up to MAX_PLIES plies. Neither signed time ever exceeds the bound, and the
    /// registered clock word (with a random `from`, and as an overtake of a random frozen clock
    /// word) equals the clock word without the cut.
    /// forge-config: default.fuzz.runs = 32
    function testFuzz_ClockCutReview_ValidTimesNeverMeetTheCut(
        uint256 seed,
        uint256 initialTime,
        uint256 increment,
        uint256 plies,
        bool blackFirst,
        uint256 fromDelay,
        uint256 frozenBudget,
        bool overtake
    ) public {
        initialTime = bound(initialTime, GameTerms.MIN_INITIAL_TIME, GameTerms.MAX_INITIAL_TIME);
        increment = bound(increment, 0, GameTerms.MAX_INCREMENT);
        // half the runs near the longest game, the rest anywhere
        plies = seed & 1 == 0 ? bound(plies, MAX_PLIES - 300, MAX_PLIES) : bound(plies, 1, MAX_PLIES);
        Move memory m = _validTimes(seed, initialTime, increment, plies, blackFirst);
        ChannelGame memory g;
        g.initialTime = uint32(initialTime);
        g.increment = uint32(increment);
        g.responseWindow = WINDOW;
        g.customStart = blackFirst;
        g.firstMoveWindow = 300;
        vm.warp(m.timestamp + 5);
        uint256 from = m.timestamp + bound(fromDelay, 0, 5);
        uint256 frozen;
        uint256 replyAt;
        if (overtake && plies > 2) (frozen, replyAt) = _frozenWord(seed, frozenBudget, increment, plies, blackFirst, from);
        bool authorWhite = (plies & 1 == 1) != blackFirst;
        assertEq(
            harness.registeredClock(g, m, authorWhite, from, frozen, replyAt),
            harness.uncutClock(g, m, authorWhite, from, frozen, replyAt),
            "a valid transcript's registration is the uncut one"
        );
    }

    /// @dev A random frozen clock word one or two plies before `plies` (budgets anything a clock
    /// word holds) and when its side to move's reply was shown (`from` for a direct reply).
    function _frozenWord(uint256 seed, uint256 budget, uint256 increment, uint256 plies, bool custom, uint256 from)
        internal
        view
        returns (uint256 frozen, uint256 replyAt)
    {
        uint256 back = 1 + (seed >> 1 & 1);
        budget = bound(budget, 0, type(uint32).max);
        frozen = ClockWord.registered(block.timestamp + WINDOW, budget, budget >> 1, increment, plies - back, 0, custom);
        frozen = ClockWord.withReplyDeadline(frozen, block.timestamp + budget);
        replyAt = back == 1 ? from : block.timestamp - 5;
    }

    /// @dev The last move of a random valid time sequence of `plies` plies (see the fuzz test),
    /// each step checked against code 4 and the bound.
    function _validTimes(uint256 seed, uint256 initialTime, uint256 increment, uint256 plies, bool blackFirst)
        internal
        view
        returns (Move memory m)
    {
        uint256[2] memory t = [initialTime, initialTime]; // [white, black]
        Move memory q = _bare(0, initialTime, initialTime, 0);
        uint256 stamp = 1_700_000_000 + (seed % 1000);
        for (uint256 k = 1; k <= plies; ++k) {
            uint256 a = (k & 1 == 1) != blackFirst ? 0 : 1;
            uint256 r = uint256(keccak256(abi.encode(seed, k)));
            if (r & 1 == 0) {
                t[a] += increment; // greedy: no time spent, the whole increment claimed
            } else {
                uint256 elapsed = k == 1 ? 0 : (r >> 8) % (t[a] + 1);
                t[a] = (r >> 72) % (t[a] - elapsed + increment + 1);
                stamp += elapsed; // the first move is not charged: its stamp is free
            }
            m = _bare(k, t[0], t[1], stamp);
            assertTrue(harness.timesConsistent(increment, q, m, a == 1), "the sequence is valid (code 4)");
            uint256 most = _most(initialTime, increment, k);
            assertLe(t[0], most, "white never exceeds the bound");
            assertLe(t[1], most, "black never exceeds the bound");
            q = m;
        }
    }

    /// @dev Standard start, every move instant and claiming its whole increment (the most
    /// code 4 allows): at ply 3 white holds exactly the bound (600 + 2 x 5); registered by
    /// alice, white keeps every second (+ grace), black's clock runs from the stamp.
    function test_ClockCutReview_InstantStandardGameKeepsEverySecond() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        line.push(_next(line[0], "e2e4", 0));
        line.push(_next(line[1], "e7e5", 0));
        line.push(_next(line[2], "g1f3", 0));
        assertEq(line[3].whiteTime, INITIAL + 2 * INCREMENT);
        assertEq(line[3].whiteTime, _most(INITIAL, INCREMENT, 3), "white is at the bound");
        assertEq(line[3].blackTime, INITIAL + INCREMENT);
        _register(3);
        assertEq(_budget(id, true), INITIAL + 2 * INCREMENT + GRACE, "white keeps its signed time");
        assertEq(_budget(id, false), INITIAL + INCREMENT + GRACE - WINDOW, "black charged the window only");
        assertEq(_deadline(id), T + INITIAL + INCREMENT + GRACE, "black's deadline from its signed time");
    }

    /// @dev A custom start with black to move: black's first move is uncharged and claims the
    /// increment, white's reply too. At ply 2 both sides hold the bound for ply 2 (600 + 5),
    /// one of them with only one move made; the registration of ply 1 (black's) and of ply 2
    /// (white's direct reply, an overtake) keep them whole.
    function test_ClockCutReview_CustomStartBlackFirstKeepsItsIncrement() public {
        vm.warp(T);
        uint256 id = _channelGame(INITIAL, INCREMENT, _blackToMoveStart());
        _resetLine(id, _blackToMoveStart());
        line.push(_next(line[0], "e7e5", 0));
        line.push(_next(line[1], "e2e4", 0));
        assertEq(line[1].blackTime, _most(INITIAL, INCREMENT, 1), "black at the bound at ply 1");
        assertEq(line[2].whiteTime, _most(INITIAL, INCREMENT, 2), "white at the bound at ply 2");
        _register(1);
        assertEq(_budget(id, false), INITIAL + INCREMENT + GRACE, "black keeps its first increment");
        _reg(alice, line[1], line[2], "");
        assertEq(_registeredPly(id), 2);
        assertEq(_budget(id, true), INITIAL + INCREMENT + GRACE, "white keeps its increment");
    }

    /// @dev The longest terms the referee accepts (90 days + 1 day) and increment 0 (600 + 0):
    /// an instant, greedy valid game registered at ply 4 keeps both signed times whole.
    function test_ClockCutReview_LongestTermsAndNoIncrementKeepTheirTime() public {
        uint32[2] memory initials = [uint32(90 days), uint32(600)];
        uint32[2] memory increments = [uint32(1 days), uint32(0)];
        for (uint256 i; i < 2; ++i) {
            vm.warp(T + i * 10_000);
            uint256 id = _channelGame(initials[i], increments[i], "");
            _resetLine(id, ChessRules.initialState());
            line[0].whiteTime = initials[i];
            line[0].blackTime = initials[i];
            line.push(_forged(line[0], "e2e4", 1, initials[i] + increments[i], initials[i], uint64(block.timestamp)));
            line.push(
                _forged(line[1], "e7e5", 2, initials[i] + increments[i], initials[i] + increments[i], uint64(block.timestamp))
            );
            line.push(
                _forged(line[2], "g1f3", 3, initials[i] + 2 * increments[i], initials[i] + increments[i], uint64(block.timestamp))
            );
            line.push(
                _forged(
                    line[3], "b8c6", 4, initials[i] + 2 * increments[i], initials[i] + 2 * increments[i], uint64(block.timestamp)
                )
            );
            for (uint256 k = 1; k <= 4; ++k) {
                (uint256 code,) = channel.transitionCode(id, increments[i], line[k - 1], line[k]);
                assertEq(code, 0, "every step is valid");
            }
            _register(4);
            uint256 held = uint256(initials[i]) + 2 * increments[i] + GRACE;
            assertEq(_budget(id, false), held, "black (author) keeps its signed time");
            assertEq(_budget(id, true), held - WINDOW, "white charged the window only");
        }
    }
}
