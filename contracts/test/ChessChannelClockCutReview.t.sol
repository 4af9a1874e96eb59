// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelClockBase} from "./ChessChannelClockBase.t.sol";
import {ChessChannelCore} from "../src/ChessChannelCore.sol";
import {ChannelGame, IChessCourt} from "../src/ChessCourt.sol";
import {Move} from "../src/ChannelHash.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {GameTerms} from "../src/GameTerms.sol";
import {IChessChannelTypes} from "../src/IChessChannel.sol";
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
/// test: pass = the behaviour described, whether the attack fails or succeeds). Findings: a
/// forged ply still buys the clock of a 19,050-ply game (bounded by MAX_PLIES, as designed);
/// MAX_PLIES held from the standard start but not from custom starts, where a valid game
/// past ply 19,050 was cut and its side to move could be flagged early: custom starts now
/// have their own bound (MAX_PLIES_ANY_START, 45,450 plies), and that game keeps its clock.
/// Game unless said: alice (white) vs bob (black), 600 s + 5 s, window 600 s, grace 15 s.
contract ChessChannelClockCutReviewTest is ChannelClockBase {
    uint256 internal constant MAX_PLIES = 19_050;
    uint256 internal constant MAX_PLIES_ANY_START = 45_450;
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
        return _most(initialTime, increment, ply, false);
    }

    /// @dev `_most` from a custom start (`custom`): its longest game is MAX_PLIES_ANY_START.
    function _most(uint256 initialTime, uint256 increment, uint256 ply, bool custom) internal pure returns (uint256) {
        uint256 longest = custom ? MAX_PLIES_ANY_START : MAX_PLIES;
        if (ply > longest) ply = longest;
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
        id = ref.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, initialTime, increment, 0, start, WINDOW);
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
    /// allows; half the runs wholly greedy (instant, the whole increment claimed: the bound is
    /// met exactly), the others greedy 3 plies in 4, from the standard
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
        if (overtake && plies > 2) {
            (frozen, replyAt) = _frozenWord(seed, frozenBudget, increment, plies, blackFirst, from);
        }
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
            uint256 mode = seed & 2 == 0 ? 15 : r % 16;
            if (mode >= 4) {
                t[a] += increment; // greedy: no time spent, the whole increment claimed
            } else if (k == 1) {
                t[a] = (r >> 72) % (t[a] + increment + 1); // the first move is not charged
                stamp += (r >> 8) % 1000; // and its stamp is free
            } else {
                uint256 cap = mode == 0 ? t[a] : (t[a] < 60 ? t[a] : 60); // any spend, or a little
                uint256 elapsed = (r >> 8) % (cap + 1);
                uint256 most = t[a] - elapsed + increment;
                t[a] = mode == 0 ? (r >> 72) % (most + 1) : most;
                stamp += elapsed;
            }
            m = _bare(k, t[0], t[1], stamp);
            assertTrue(harness.timesConsistent(increment, q, m, a == 1), "the sequence is valid (code 4)");
            uint256 most = _most(initialTime, increment, k, blackFirst);
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
                _forged(
                    line[1],
                    "e7e5",
                    2,
                    initials[i] + increments[i],
                    initials[i] + increments[i],
                    uint64(block.timestamp)
                )
            );
            line.push(
                _forged(
                    line[2],
                    "g1f3",
                    3,
                    initials[i] + 2 * increments[i],
                    initials[i] + increments[i],
                    uint64(block.timestamp)
                )
            );
            line.push(
                _forged(
                    line[3],
                    "b8c6",
                    4,
                    initials[i] + 2 * increments[i],
                    initials[i] + 2 * increments[i],
                    uint64(block.timestamp)
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

    // ------------------------------------------------------------------ 2. forged plies

    /// @dev Game `id`'s forged pair at plies `ply - 1`, `ply` (both signed, times 2^32-1: what the
    /// colluders wish they had): 1. e4 e5 from the standard start, named as if `ply - 2` moves
    /// had come before, `previous` naming a move that was never signed. Registered by bob (its
    /// author) at once; every check the court makes passes.
    function _registerForged(uint256 id, uint256 ply, uint32 increment) internal {
        Move memory fake = _startMove(id, ChessRules.initialState());
        fake.ply = uint32(ply - 2);
        fake.previous = keccak256("a move nobody ever signed");
        uint32 full = type(uint32).max;
        uint64 now_ = uint64(block.timestamp);
        Move memory q = _forged(fake, "e2e4", ply - 1, full, full - increment, now_);
        Move memory m = _forged(q, "e7e5", ply, full, full, now_);
        (uint256 code,) = channel.transitionCode(id, increment, q, m);
        assertEq(code, 0, "the shown step is a valid transition");
        _reg(bob, q, m, "");
        assertEq(_registeredPly(id), ply);
    }

    /// @dev ATTACK SUCCEEDS, within a bound. Nothing ties `last.ply` to the moves from the start
    /// (only `previous.ply + 1`; the state's own move count says 2 here): two colluders who sign
    /// 1. e4 e5 as plies 19,049 and 19,050 are cut to `initialTime + 9,525 x increment`, not to
    /// the `initialTime + increment` of the real ply 2. The largest ply the referee stores (2^24-1)
    /// buys no more: MAX_PLIES is what bounds the forgery. On the default 600 s + 5 s terms that is 48,225 s (13.4 h)
    /// a side instead of 605 s; on the longest terms the referee accepts (90 days + 1 day) it is
    /// 9,615 days (26.3 years) a side. The registered position is a fresh opening (halfmove
    /// clock 0, all material), so on-chain play may then run a whole valid game more: the
    /// forgery about doubles the longest hold a valid game of these terms already gives
    /// (docs/TOURNAMENT.md's terms limit), it does not make it unbounded.
    function test_ClockCutReview_Attack_ForgedPlyBuysTheMaxPliesClock() public {
        vm.warp(T);
        uint256 a = _channelGame(INITIAL, INCREMENT, "");
        _registerForged(a, MAX_PLIES, INCREMENT);
        uint256 cut = INITIAL + 9_525 * INCREMENT;
        assertEq(cut, 48_225);
        assertEq(_budget(a, false), cut + GRACE, "black: the clock of a 19,050-ply game");
        assertEq(_budget(a, true), cut + GRACE - WINDOW, "white: the same less the window");
        assertGt(_budget(a, false), 70 * (INITIAL + INCREMENT + GRACE), "80 times what ply 2 holds");

        uint256 b = _channelGame(INITIAL, INCREMENT, "");
        _registerForged(b, type(uint24).max, INCREMENT);
        assertEq(_budget(b, false), cut + GRACE, "a larger forged ply buys nothing more");

        uint256 c = _channelGame(uint32(90 days), uint32(1 days), "");
        _registerForged(c, MAX_PLIES, uint32(1 days));
        assertEq(_budget(c, false), 90 days + 9_525 days + GRACE, "longest terms: 9,615 days a side");
        assertGt(_deadline(c), block.timestamp + 26 * 365 days, "black's deadline over 26 years away");
    }

    /// @dev ATTACK FAILS. A cheater cannot aim the cut at an honest opponent from the standard
    /// start: the honest side's time in any registration is the one it signed (in `previous`,
    /// at its true ply, or vouched for by its receipt; code 4 keeps it in `last`), and valid
    /// times never exceed the bound at their ply (the fuzz test). To cut alice's 610 s, bob
    /// would need a lower ply than her signed move's successor: his reply named as ply 2
    /// after her ply 3 is `InvalidTransition(WRONG_PLY)`. His true ply 4 leaves her clock whole.
    function test_ClockCutReview_Attack_CutCannotBeAimedAtTheHonestSide() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        line.push(_next(line[0], "e2e4", 0));
        line.push(_next(line[1], "e7e5", 0));
        line.push(_next(line[2], "g1f3", 0));
        line.push(_next(line[3], "b8c6", 0));
        assertEq(line[3].whiteTime, 610, "alice at the bound of ply 3");
        Move memory low = line[4];
        low.ply = 2;
        _reg(
            bob, line[3], low, abi.encodeWithSelector(IChessChannelTypes.InvalidTransition.selector, uint8(2), uint8(0))
        );
        _reg(bob, line[3], line[4], "");
        assertEq(_budget(id, true), 610 + GRACE - WINDOW, "alice: her signed time less the window");
        assertEq(_deadline(id), T + 610 + GRACE, "her deadline by her signed time");
    }

    // ------------------------------------------------------------------ 3. MAX_PLIES

    /// @dev A custom start (ENCODING.md section 7 bounds no material): white pawns on a2-d5
    /// (files a-d, ranks 2-5), black pawns on e4-h7, kings a1 and h8, white to move.
    function _thirtyTwoPawns() internal pure returns (bytes memory s) {
        s = new bytes(128);
        for (uint256 f; f < 4; ++f) {
            for (uint256 r = 2; r <= 5; ++r) {
                s[(8 - r) * 16 + f] = 0x01; // white pawn
                s[(8 - (r + 2)) * 16 + f + 4] = 0xFF; // black pawn on ranks 4..7
            }
        }
        s[112] = 0x06; // white king a1
        s[7] = 0xFA; // black king h8
        s[11] = 0x07;
        s[123] = 0x70;
        s[ChessRules.CURRENT_PLAYER] = 0x01;
        (s[62], s[63], s[78], s[79]) = (0xFF, 0xFF, 0xFF, 0xFF);
    }

    /// @dev Why custom starts have their own bound (MAX_PLIES_ANY_START, 45,450). MAX_PLIES assumes at
    /// most 126 pawn moves and captures (16 pawns of 6 moves, 30 captures): true from the
    /// standard start, false from a custom start, which ENCODING.md section 7 does not limit in
    /// material. This start is valid and the referee takes it for a channel game; it holds 32
    /// pawns whose files are clear to promotion: 4 x (3+4+5+6) = 72 pawn moves a side, 144 in
    /// all, and up to 32 captures: up to 176 resets, so up to 177 x 150 = 26,550 plies.
    function test_ClockCutReview_CustomStartHoldsMoreResetsThanMaxPliesAssumes() public {
        bytes memory start = _thirtyTwoPawns();
        assertEq(ChessRules.validateState(start), 0, "a valid state");
        assertEq(ChessRules.status(start), 0, "an ongoing game");
        uint256 pawnMoves;
        for (uint256 i; i < 128; ++i) {
            if (i & 0x88 != 0) continue;
            uint256 rank = 8 - i / 16;
            if (start[i] == 0x01) pawnMoves += 8 - rank;
            if (start[i] == 0xFF) pawnMoves += rank - 1;
        }
        assertEq(pawnMoves, 144, "144 pawn moves, above the 126 resets MAX_PLIES assumes");
        vm.warp(T);
        uint256 id = _channelGame(INITIAL, INCREMENT, start);
        assertTrue(ref.channelGame(id).customStart, "the referee took it");
    }

    // ------------------------------------------------------------------ 3b. a valid game past MAX_PLIES

    /// @dev The 168 reset moves (pawn moves and captures) of the replay from `_thirtyTwoPawns`
    /// plus a rook a side (white d1, black e8), 3 bytes each, white's and black's alternately.
    /// White pushes its pawns file by file (a to d), top pawn first, one square a move, each
    /// to a knight on rank 8; black likewise down files h to e. Every promoted knight but a
    /// file's last is taken, as the opponent's next reset, by its rook from home (so a file's
    /// last knight stays, and a rook never opens a file onto the other king). Generated by a
    /// 30-line script from that description; every move is checked below by the court itself.
    bytes internal constant RESETS = hex"302000475700201000576700100002040000403000677702737700374700302000475700201000576700100002040000"
        hex"504000677702737700273700403000374700302000475700201000576700100002040000605000677702737700172700"
        hex"504000273700403000374700302000475700201000576700100002677702312100465600211100566600110102040100"
        hex"413100667602737600364600312100465600211100566600110102040100514100667602737600263600413100364600"
        hex"312100465600211100566600110102040100615100667602737600162600514100263600413100364600312100465600"
        hex"211100566600110102667602322200455500221200556500120202040200423200657502737500354500322200455500"
        hex"221200556500120202040200524200657502737500253500423200354500322200455500221200556500120202040200"
        hex"625200657502737500152500524200253500423200354500322200455500221200556500120202657502332300445400"
        hex"231300546400130302040300433300647402737400344400332300445400231300546400130302040300534300647402"
        hex"737400243400433300344400332300445400231300546400130302040300635300647402737400142400534300243400"
        hex"433300344400332300445400231300546400130302647402";

    /// @dev A replay in progress: the last move, the next reset, where each rook stands.
    struct Run {
        Move q;
        uint256 next;
        uint256 whiteRook;
        uint256 blackRook;
    }

    /// @dev The start of the replay: the 32-pawn start with a white rook on d1 and a black rook on e8.
    function _longGameStart() internal pure returns (bytes memory s) {
        s = _thirtyTwoPawns();
        s[115] = 0x04; // white rook d1
        s[4] = 0xFC; // black rook e8
    }

    /// @dev Plays `r` on to ply `until` (an external self-call, so each batch starts with fresh
    /// memory), asserting every move is a valid successor by the court's `transitionCode`. A
    /// side to move plays its next reset once the halfmove clock is 148 or 149 (the resets
    /// alternate sides, as the plies do), else a quiet move: its rook home if it is away, else
    /// its king between a1 and b1 (h8 and g8). Every move: no time spent, the increment claimed.
    function replayBatch(Run memory r, uint256 until, uint32 increment) external view returns (Run memory) {
        while (r.q.ply < until) {
            bytes memory s = bytes.concat(r.q.state);
            bool white = ChessRules.whiteToMove(s);
            uint256 m;
            if (ChessRules.halfmoveClock(s) >= 148 && (r.next & 1 == 0) == white) {
                uint256 o = r.next * 3;
                m = uint256(uint8(RESETS[o])) << 16 | uint256(uint8(RESETS[o + 1])) << 8 | uint8(RESETS[o + 2]);
                ++r.next;
                uint256 from = m >> 16;
                if (from == r.whiteRook) r.whiteRook = (m >> 8) & 0xff;
                if (from == r.blackRook) r.blackRook = (m >> 8) & 0xff;
            } else if (white) {
                if (r.whiteRook != 115) {
                    m = r.whiteRook << 16 | 115 << 8;
                    r.whiteRook = 115;
                } else {
                    uint256 k = uint8(s[123]);
                    m = k << 16 | uint256(k == 112 ? 113 : 112) << 8;
                }
            } else {
                if (r.blackRook != 4) {
                    m = r.blackRook << 16 | 4 << 8;
                    r.blackRook = 4;
                } else {
                    uint256 k = uint8(s[11]);
                    m = k << 16 | uint256(k == 7 ? 6 : 7) << 8;
                }
            }
            Move memory next = _instant(r.q, uint24(m), increment);
            (uint256 code, uint256 rule) = channel.transitionCode(r.q.gameId, increment, r.q, next);
            if (code != 0) {
                revert(
                    string.concat(
                        "replay: invalid ply ",
                        vm.toString(next.ply),
                        " code ",
                        vm.toString(code),
                        " rule ",
                        vm.toString(rule)
                    )
                );
            }
            r.q = next;
        }
        return r;
    }

    /// @dev `q` followed by `mv`, played at `q`'s stamp (no time spent), its author claiming the
    /// increment; the first move is stamped now.
    function _instant(Move memory q, uint24 mv, uint32 increment) internal view returns (Move memory m) {
        bytes memory s = bytes.concat(q.state);
        bool white = ChessRules.whiteToMove(s);
        uint256 rule = ChessRules.applyMove(s, mv);
        if (rule != 0) {
            revert(
                string.concat(
                    "replay: ply ", vm.toString(q.ply + 1), " move ", vm.toString(mv), " rule ", vm.toString(rule)
                )
            );
        }
        m = Move({
            gameId: q.gameId,
            ply: q.ply + 1,
            mv: mv,
            state: s,
            history: RepetitionChain.afterMove(s, q.history),
            whiteTime: white ? q.whiteTime + increment : q.whiteTime,
            blackTime: white ? q.blackTime : q.blackTime + increment,
            timestamp: q.ply == 0 ? uint64(block.timestamp) : q.timestamp,
            previous: channel.hashMove(q)
        });
    }

    /// @dev ATTACK FAILS (it succeeded against 5265ca4, whose one bound of 19,050 plies cut this
    /// valid game). From a custom start the referee accepts (`_longGameStart`: 32 pawns, two
    /// rooks, two kings), a transcript of 19,200 plies, every step a valid successor by the
    /// court's own `transitionCode` (legal, the game never decided, times by code 4), each side
    /// playing instantly and claiming its increment: 128 resets, each after 148 or 149 quiet
    /// plies. Both sides hold 600 + 9,600 x 5 = 48,600 s at ply 19,200. Bob registers his last
    /// move: a custom start is bounded by MAX_PLIES_ANY_START, so both keep every second, and
    /// white, to move, is not flagged before its valid clock runs out.
    /// The replay runs unmetered (about 19,200 transition checks) in batches of 400 plies.
    function test_ClockCutReview_Attack_ValidCustomStartGamePastStandardBoundKeepsItsClock() public {
        vm.warp(T);
        bytes memory start = _longGameStart();
        assertEq(ChessRules.validateState(start), 0, "a valid state");
        uint256 id = _channelGame(INITIAL, INCREMENT, start);
        Run memory r;
        r.q = _startMove(id, start);
        r.whiteRook = 115;
        r.blackRook = 4;
        uint256 n = 19_200;
        vm.pauseGasMetering();
        while (r.q.ply + 1 < n) {
            uint256 until = r.q.ply + 400;
            if (until > n - 1) until = n - 1;
            r = this.replayBatch(r, until, INCREMENT);
        }
        vm.resumeGasMetering();
        Run memory last = this.replayBatch(r, n, INCREMENT);
        assertEq(last.next, 128, "128 resets: more than the 126 MAX_PLIES allows for");
        Move memory q = r.q;
        Move memory m = last.q;
        uint256 held = INITIAL + 9_600 * INCREMENT;
        assertEq(m.ply, n);
        assertEq(m.whiteTime, held, "white holds 9,600 increments, validly");
        assertEq(m.blackTime, held, "black too");
        _reg(bob, q, m, "");
        assertEq(_budget(id, false), held + GRACE, "black keeps its valid clock");
        assertEq(_budget(id, true), held + GRACE - WINDOW, "white, to move, too (less the window)");
        assertEq(_deadline(id), T + held + GRACE, "white's deadline is its valid clock's");
    }
}
