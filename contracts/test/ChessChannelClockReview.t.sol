// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelClockBase} from "./ChessChannelClockBase.t.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {Move} from "../src/ChannelHash.sol";
import {ClockWord} from "../src/ClockWord.sol";

/// @notice Second reader's attacks on issue 27 (off-chain clocks a cheater cannot bend):
/// `test_Attack_*` assert the safe behaviour; `test_Finding_*` demonstrate a hole.
/// Game: alice (white) vs bob (black), 600 s + 5 s, window 600 s, grace 15 s.
contract ChessChannelClockReviewTest is ChannelClockBase {
    // ------------------------------------------------------------------ helpers

    /// @dev A game at T with 1. e4 e5 2. Nf3 (2 s each, stamps T, T+2, T+4).
    function _game3() internal returns (uint256 id) {
        vm.warp(T);
        id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
    }

    // ================================================================== findings

    /// @dev Finding A (high with the draft's client; closed in the client): a direct reply needs
    /// no freshness, so the cheater can stamp it as far back as its predecessor (signed 0 s)
    /// while the wall clock charges him. The honest reply to it is charged min(signed, wall).
    /// The draft's seat (`seat.rs::reply_stamp`) stamped at least `now - 30`: alice's SIGNED
    /// elapsed then included bob's backdating and the min() kept it (376 s of bob's 400 s).
    /// The seat now holds a move learned from the chain from when the chain showed it and
    /// stamps its reply `q.timestamp + (now - shown)` (CHANNEL.md 8): the lag is carried and
    /// alice pays her 10 s. Both stamps are shown, so that the contract's side stays pinned.
    function test_FindingA_HonestReplyStampedFromTheShowingKeepsItsTime() public {
        uint256 id = _game3();
        vm.warp(T + 10);
        _reg(alice, line[2], line[3], ""); // frozen at Nf3, bob to move, from T+4
        // bob thinks 400 s by the wall clock and signs 0 s (stamp T+4)
        vm.warp(T + 410);
        Move memory nc6 = _next(line[3], "b8c6", 0);
        _reg(bob, line[3], nc6, "");
        assertEq(nc6.timestamp, T + 4, "stamped 406 s before its block");
        uint256 aliceSigned = line[3].whiteTime; // 608
        // alice thinks 10 s; the draft's seat stamped at least now - 30
        vm.warp(T + 420);
        Move memory clamped = _next(nc6, "f1c4", uint32(T + 420 - 30 - nc6.timestamp));
        uint256 snap = vm.snapshotState();
        _reg(alice, nc6, clamped, "");
        uint256 clampedBudget = _budget(id, true);
        assertEq(clampedBudget, aliceSigned - 386 + INCREMENT + 15, "charged 386 s for a 10-s think");
        // the seat's stamp, from when the chain showed bob's move, keeps her whole time
        vm.revertToState(snap);
        Move memory carried = _next(nc6, "f1c4", 10);
        _reg(alice, nc6, carried, "");
        assertEq(_budget(id, true), aliceSigned - 10 + INCREMENT + 15, "lag carried: 10 s");
        assertEq(_budget(id, true) - clampedBudget, 376, "the draft's stamp gave bob 376 s of alice's clock");
    }

    /// @dev Finding B (medium, closed): the remedy for finding 2 (announce, or register, the move
    /// that went unacknowledged) was void if the opponent registered the position BEFORE it
    /// first (with the mover's own old receipt): `announce` reverted `AlreadyOnChain` and a
    /// pending registration `NotTheRegisteredPosition`, and the move counted only from the
    /// block of its resubmission. Now an overtake naming another position than the registered
    /// one records when the chain first showed its move, and the resubmission counts from
    /// there: the mover loses only the seconds between its stamp and that first showing.
    /// Numbers: alice holds e5 from T+2 (deadline T+622 with the grace), plays Nf3 at T+592
    /// with 20 s + 15 s grace left; bob withholds the receipt.
    function test_FindingB_RegisteringThePositionBeforeCostsOnlyTheShowingDelay() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        Move memory nf3 = _next(line[2], "g1f3", 590);
        line.push(nf3);
        assertEq(nf3.whiteTime, 20);
        uint256 snap = vm.snapshotState();

        // control: the watchtower's announcement (20 s later) lands first; she keeps 35 s
        vm.warp(T + 612);
        _announce(carol, nf3, "");
        _regR(bob, line[1], line[2], uint64(T + 2), "");
        vm.warp(T + 624);
        _reg(carol, line[2], nf3, "");
        assertEq(_budget(id, true), 35, "announced: alice keeps 20 s + grace");

        // attack 1: bob's registration of e5 lands first in the same block; the watchtower's
        // registration (sent knowing nothing of it) records the showing instead of reverting
        vm.revertToState(snap);
        vm.warp(T + 612);
        _regR(bob, line[1], line[2], uint64(T + 2), "");
        _announce(carol, nf3, _err(IChessChannelTypes.AlreadyOnChain.selector, id));
        _regF(carol, line[2], nf3, 0, "");
        assertEq(ref.channelGame(id).registeredPly, 2, "nothing registered");
        assertEq(channel.shownWhileFrozenAt(channel.hashMove(nf3)), T + 612);
        assertEq(_deadline(id), T + 622);
        vm.warp(T + 624); // the next slot: past her deadline, but shown before it
        _reg(carol, line[2], nf3, "");
        assertEq(ref.channelGame(id).registeredPly, 3);
        assertEq(_budget(id, true), 35 - 20, "she pays the 20 s from her stamp to the showing");

        // attack 2: her own client's registration 10 s after sending (AUTO_REGISTER_AFTER) lands
        // right after bob's: recorded; the resubmission 12 s later counts from the showing
        vm.revertToState(snap);
        vm.warp(T + 602);
        _regR(bob, line[1], line[2], uint64(T + 2), "");
        _regF(alice, line[2], nf3, 0, "");
        vm.warp(T + 614);
        _reg(alice, line[2], nf3, "");
        assertEq(_budget(id, true), 35 - 10, "10 s: her client's wait, not the resubmission's");
    }

    /// @dev Finding C (low, closed): the wall-clock caps of direct replies were not carried
    /// through an overtake of two plies or more: its budgets were the signed times again. Bob
    /// inflates his signed time with a backdated direct reply (thinks 400 s, signs 0), then,
    /// instead of letting alice's direct reply land, registers it himself with his next move
    /// stamped 60 s before the block. Now the registered position's author (bob) has at most its
    /// budget there plus an increment, and alice's clock starts at the block that shows her his
    /// move, not 30 s before it.
    function test_FindingC_TwoPlyOvertakeKeepsTheWallClockCharge() public {
        uint256 id = _game3();
        vm.warp(T + 10);
        _reg(alice, line[2], line[3], "");
        vm.warp(T + 410);
        Move memory nc6 = _next(line[3], "b8c6", 0);
        _reg(bob, line[3], nc6, "");
        uint256 bobWall = _budget(id, false);
        assertEq(bobWall, (T + 4 + 603 + 15) - (T + 410) + INCREMENT, "bob: 217 s by the wall clock");
        assertEq(uint256(nc6.blackTime) + 15, 623, "his signed time says 623");
        vm.warp(T + 420);
        Move memory bc4 = _next(nc6, "f1c4", 10);
        Move memory nf6 = _next(bc4, "g8f6", uint32(T + 420 - 60 - bc4.timestamp));
        _reg(bob, bc4, nf6, "");
        assertEq(ref.channelGame(id).registeredPly, 6);
        assertEq(_budget(id, false), bobWall + INCREMENT, "no more than his registered budget and an increment");
        assertEq(_deadline(id) - (T + 420), uint256(nf6.whiteTime) + 15, "alice's clock from the block");
    }

    // ================================================================== attacks (safe)

    /// @dev A wrong frozen position for a direct reply (clock 0, another reply deadline, other
    /// budgets, no deadline, an earlier registration's clock) registers nothing: it records
    /// when the chain first showed the reply, and only that first showing counts for it.
    function test_Attack_ForgedFrozenClockRegistersNothing() public {
        uint256 id = _game3();
        vm.warp(T + 10);
        _reg(alice, line[2], line[3], "");
        uint256 good = pos[id].clock;
        vm.warp(T + 30);
        Move memory nc6 = _next(line[3], "b8c6", 20);
        uint256[4] memory forged = [
            uint256(0),
            good + (uint256(1000) << 208), // a later reply deadline
            good | (uint256(0xffff) << 72), // a larger budget
            good & ~(uint256(0xffffffffff) << 208) // no deadline
        ];
        for (uint256 i; i < forged.length; ++i) {
            vm.warp(T + 30 + i);
            _regF(bob, line[3], nc6, forged[i], "");
            assertEq(ref.channelGame(id).registeredPly, 3, "nothing registered");
            assertEq(pos[id].clock, good, "the registration stands");
        }
        assertEq(channel.shownWhileFrozenAt(channel.hashMove(nc6)), T + 30, "the first showing counts");
        vm.warp(T + 50);
        _regF(bob, line[3], nc6, good, "");
        assertEq(ref.channelGame(id).registeredPly, 4);
        // counted from its first showing at T+30, not from T+50
        assertEq(ClockWord.replyDeadline(pos[id].clock), T + 30 + nc6.whiteTime + 15, "alice's clock from T+30");
        // the previous registration's clock is no good for the next reply either
        vm.warp(T + 60);
        Move memory bc4 = _next(nc6, "f1c4", 10);
        _regF(alice, nc6, bc4, good, "");
        assertEq(ref.channelGame(id).registeredPly, 4, "nothing registered");
        _reg(alice, nc6, bc4, "");
        assertEq(ref.channelGame(id).registeredPly, 5);
    }

    /// @dev The direct reply at its deadline exactly counts; one second later `FlagFell`;
    /// and the side to move's deadline cannot be dodged with a receipt it signs itself later
    /// (a receipt after the stamp + 30 s is refused; within, `from` is only ever <= the block).
    /// Bob is short of time (105 s signed), so his deadline falls inside the window.
    function test_Attack_DirectReplyAtTheDeadlineEdge() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4");
        vm.warp(T + 502);
        line.push(_next(line[1], "e7e5", 500));
        line.push(_next(line[2], "g1f3", 2));
        vm.warp(T + 510);
        _reg(alice, line[2], line[3], "");
        uint256 d = _deadline(id);
        assertEq(d, T + 502 + 105 + 15);
        assertLt(d, ref.channelGame(id).windowEnd);
        Move memory nc6 = _next(line[3], "b8c6", 0);
        uint256 snap = vm.snapshotState();
        vm.warp(d);
        _reg(bob, line[3], nc6, "");
        assertEq(_budget(id, false), INCREMENT, "the increment only");
        vm.revertToState(snap);
        vm.warp(d + 1);
        _reg(bob, line[3], nc6, abi.encodeWithSelector(IChessChannelTypes.FlagFell.selector, d));
        // alice's receipt (which she would not give) is the only way to count earlier
        _regR(
            bob,
            line[3],
            nc6,
            uint64(nc6.timestamp + 31),
            abi.encodeWithSelector(IChessChannelTypes.BadReceipt.selector)
        );
        // and after the window he is out of time on-chain too
        assertEq(_budget(id, false), 0);
        vm.warp(ref.channelGame(id).windowEnd + 1);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
    }

    /// @dev Registrations at block == windowEnd are closed, a stale one (same or lower ply)
    /// cannot replace the frozen one to flag the opponent.
    function test_Attack_WindowEdgeAndStaleRegistration() public {
        uint256 id = _game3();
        vm.warp(T + 10);
        _reg(alice, line[2], line[3], "");
        uint256 windowEnd = ref.channelGame(id).windowEnd;
        // bob re-registers e5 with alice's old receipt to restart her clock: stale
        _regR(bob, line[1], line[2], uint64(T + 2), _err(IChessChannelTypes.StaleRegistration.selector, 3));
        Move memory nc6 = _next(line[3], "b8c6", 0);
        vm.warp(windowEnd);
        _reg(bob, line[3], nc6, _err(IChessChannelTypes.RegistrationClosed.selector, id));
    }

    /// @dev `tick`: the first on-chain move clears the reply deadline and charges from the
    /// window's end; the side to move gets no extra time from the bits.
    function test_Attack_TickClearsTheReplyDeadline() public {
        uint256 id = _game3();
        vm.warp(T + 10);
        _reg(alice, line[2], line[3], "");
        uint256 windowEnd = ref.channelGame(id).windowEnd;
        uint256 d = _deadline(id);
        assertGt(d, 0);
        // bob's budget at the window's end: his deadline by the wall clock
        assertEq(windowEnd + _budget(id, false), d);
        vm.warp(windowEnd + 7);
        _move(id, bob, _uci("b8c6"));
        assertEq(ClockWord.replyDeadline(pos[id].clock), 0, "cleared");
        assertEq(_budget(id, false), d - windowEnd - 7 + INCREMENT);
        // and a timeout is claimable exactly after the deadline by the budgets
        vm.warp(block.timestamp + _budget(id, true) + 1);
        _claimTimeout(id, bob);
        (uint8 result,) = _result(id);
        assertEq(result, 2);
    }

    /// @dev A flagged player's reply after the deadline cannot come in through the
    /// announcement of an old move either (announce is off-chain only), and an announcement
    /// of a stale move does not make it fresh.
    function test_Attack_AnnounceAbuse() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        // an old move announced late: shown then, still stale
        vm.warp(T + 4 + 61);
        _announce(carol, line[3], "");
        _reg(alice, line[2], line[3], abi.encodeWithSelector(IChessChannelTypes.StaleMove.selector, T + 4));
        // announcing the opponent's move early only moves its own side's clock start back to
        // the stamp's tolerance; the author cannot gain: a fresh move announced 20 s after its
        // stamp and registered later counts from its stamp, not later
        Move memory nc6 = _next(line[3], "b8c6", 0);
        vm.warp(T + 4 + 61 + 5);
        Move memory nc6b = nc6;
        nc6b.timestamp = uint64(block.timestamp - 20);
        nc6b.blackTime = line[3].blackTime - uint32(nc6b.timestamp - line[3].timestamp) + INCREMENT;
        _announce(alice, nc6b, "");
        vm.warp(block.timestamp + 300);
        _reg(bob, line[3], nc6b, "");
        assertEq(_deadline(id), nc6b.timestamp + line[3].whiteTime + 15, "alice from the stamp");
        // announce is closed once registered; a move of another game is refused there
        _announce(carol, line[1], _err(IChessChannelTypes.AlreadyOnChain.selector, id));
        assertEq(channel.announcedAt(channel.hashMove(line[1])), 0);
    }

    /// @dev Announcing an equivocating twin proves the equivocation (the author loses).
    function test_Attack_AnnouncedTwinIsEquivocation() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        Move memory a = _next(line[2], "g1f3", 3);
        Move memory b = _next(line[2], "b1c3", 3);
        _announce(carol, a, "");
        _announce(carol, b, "");
        channel.proveEquivocation(a, _byAuthor(a), b, _byAuthor(b));
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, 2);
        assertEq(reason, 12);
    }

    /// @dev A future stamp on a fresh registration gives the opponent time and costs the
    /// author it (its signed elapsed runs to the stamp).
    function test_Attack_FutureStampGivesTimeAway() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        vm.warp(T + 10);
        Move memory nf3 = _next(line[2], "g1f3", 500); // stamped T+502, 492 s in the future
        _reg(alice, line[2], nf3, "");
        assertEq(_deadline(id), T + 502 + 603 + 15, "bob from the future stamp");
        assertEq(_budget(id, true), 605 - 500 + 5 + 15, "alice paid the 500 s");
    }

    /// @dev `shown - 30` near 0: no underflow; the stamp is the start.
    function test_Attack_ShownBelowTheTolerance() public {
        vm.warp(10);
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        vm.warp(20);
        _reg(bob, line[1], line[2], "");
        assertEq(_deadline(id), uint256(line[2].timestamp) + line[2].whiteTime + 15);
    }

    /// @dev registerStart, then the first move late in the window, then black's reply:
    /// black cannot claim more than its time; white's first move is uncharged.
    function test_Attack_RegisterStartThenReplies() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4");
        vm.recordLogs();
        vm.prank(bob);
        channel.registerStart(line[0]);
        _absorb(vm.getRecordedLogs());
        assertEq(_deadline(id), T + WINDOW + INITIAL + 15);
        vm.warp(T + WINDOW - 1);
        _reg(alice, line[0], line[1], "");
        // black's clock from this block, through the new window
        assertEq(_deadline(id), T + WINDOW - 1 + INITIAL + 15);
        // black's budget at the window's end is what the wall clock left: 15 s, no more
        uint256 windowEnd = ref.channelGame(id).windowEnd;
        assertEq(_budget(id, false), INITIAL + 15 - WINDOW);
        assertEq(_budget(id, true), uint256(line[1].whiteTime) + 15, "white's first move uncharged");
        // its reply registered at the window's last second is charged from its block
        vm.warp(windowEnd - 1);
        Move memory e5 = _next(line[1], "e7e5", 0);
        _reg(bob, line[1], e5, "");
        assertEq(_budget(id, false), uint256(INITIAL) + 15 - (WINDOW - 1) + INCREMENT, "wall clock, not signed");
    }

    /// @dev The same ply in two forms: the side to move front-runs the author's direct reply
    /// with the same pair and its own receipt; `from` can only be earlier (<= the block), so
    /// the front-runner charges itself more, never the author.
    function test_Attack_SelfReceiptFrontRunOfADirectReply() public {
        uint256 id = _game3();
        vm.warp(T + 10);
        _reg(alice, line[2], line[3], ""); // bob to move
        vm.warp(T + 100);
        Move memory nc6 = _next(line[3], "b8c6", 90);
        uint256 snap = vm.snapshotState();
        _reg(bob, line[3], nc6, "");
        uint256 d = _deadline(id);
        // alice registers bob's reply herself with her receipt at its latest: same or earlier
        vm.revertToState(snap);
        _regR(alice, line[3], nc6, uint64(T + 94 + 6), "");
        assertEq(_deadline(id), d);
        vm.revertToState(snap);
        _regR(alice, line[3], nc6, uint64(T + 94), "");
        assertEq(_deadline(id), d - 6);
    }

    /// @dev A multi-ply overtake by bob that is stale (to dodge a fallen flag) is refused; and
    /// a 2-ply overtake cannot use a move stamped more than 60 s before its block.
    function test_Attack_StaleMultiPlyOvertakeRefused() public {
        uint256 id = _game3();
        vm.warp(T + 10);
        _reg(alice, line[2], line[3], "");
        Move memory nc6 = _next(line[3], "b8c6", 5);
        Move memory bc4 = _next(nc6, "f1c4", 5);
        vm.warp(uint256(bc4.timestamp) + 61);
        _reg(bob, nc6, bc4, abi.encodeWithSelector(IChessChannelTypes.StaleMove.selector, bc4.timestamp));
        assertEq(ref.channelGame(id).registeredPly, 3);
    }
}
