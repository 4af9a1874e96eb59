// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelClockBase} from "./ChessChannelClockBase.t.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {Move, Auth} from "../src/ChannelHash.sol";

/// @notice Second reader's attacks on the v3 clock rules of `IChessChannel.register` (issue 27,
/// commit ff39d1e): `test_Attack_*` assert the safe behaviour (pass when the attack fails);
/// `test_Finding_*` demonstrate a hole (pass while it exists).
/// Game: alice (white) vs bob (black), 600 s + 5 s, window 600 s, grace 15 s.
contract ChessChannelClockReviewV3Test is ChannelClockBase {
    // ------------------------------------------------------------------ helpers

    /// @dev A game at T with 1. e4 e5 (stamps T, T+2); alice then plays 2. Nf3 stamped T+592
    /// with 20 s left (20 s + 15 s grace), which bob never acknowledges. Alice's receipt of e5
    /// (T+2) puts her wall-clock deadline at T+2 + 605 + 15 = T+622 once bob registers e5.
    function _gameNf3Late() internal returns (uint256 id, Move memory nf3) {
        vm.warp(T);
        id = _startChannelGame();
        _extend("e2e4 e7e5");
        nf3 = _next(line[2], "g1f3", 590);
        assertEq(nf3.whiteTime, 20);
        assertEq(nf3.timestamp, T + 592);
    }

    /// @dev A game at T with 1. e4 e5 2. Nf3 (2 s each, stamps T, T+2, T+4) registered by alice
    /// at T+10: bob to move, his clock from T+4, his wall-clock deadline T+4 + 603 + 15 = T+622.
    function _gameNf3Registered() internal returns (uint256 id) {
        vm.warp(T);
        id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        vm.warp(T + 10);
        _reg(alice, line[2], line[3], "");
        assertEq(_deadline(id), T + 622);
    }

    /// @dev A game at T with 1. e4 (T) e5 (bob thinks 500 s: stamp T+500, 105 s left) 2. Nf3
    /// (T+502) registered by alice at T+510: bob's wall-clock deadline T+502 + 105 + 15 =
    /// T+622, inside the window (T+1110).
    function _gameShortBob() internal returns (uint256 id) {
        vm.warp(T);
        id = _startChannelGame();
        _extend("e2e4");
        vm.warp(T + 502);
        line.push(_next(line[1], "e7e5", 500));
        line.push(_next(line[2], "g1f3", 2));
        vm.warp(T + 510);
        _reg(alice, line[2], line[3], "");
        assertEq(_deadline(id), T + 622);
        assertLt(_deadline(id), ref.channelGame(id).windowEnd);
    }

    // ================================================================== findings

    /// @dev Finding 1a (medium, closed: a receipt counts no later than the move was first
    /// shown, `_startTimes`): the side to move's own receipt overrode the mover's
    /// announcement. CHANNEL.md 7.3 says an announcement "fixes, for the move's opponent, the
    /// latest time from which its clock can run", and section 9 that a withheld receipt does
    /// not cost the mover its time. But `_clockStart` takes a receipt's `seenAt` whenever one is
    /// given and never looks at `shown`: the withholder signs his own receipt at min(block,
    /// stamp + 30), registers the position before the move (with the mover's receipt) and the
    /// move as its direct reply in the same block, and the direct reply's wall-clock cap
    /// (deadline - seenAt + increment) takes the 30 s from the mover.
    /// Numbers: Nf3 stamped T+592 with 20 s (35 with the grace), alice's deadline T+622; carol
    /// announces it at T+597. Through the announcement (no receipt) alice keeps 35 s and bob's
    /// clock runs from T+592 (deadline T+1210); with bob's receipt at T+622 alice keeps 5 s
    /// (the increment) and bob's clock runs from T+622 (T+1240): 30 s moved from alice to bob.
    /// Fix: with a receipt, `from = min(seenAt, F)` where F is the no-receipt `from` of a move
    /// already shown (`_stampFrom(last, announcedAt)` if announced, `max(stamp,
    /// shownWhileFrozenAt)` if recorded); a receipt can only say the move was seen earlier.
    function test_Finding1a_SelfReceiptCannotOverrideTheAnnouncement() public {
        (uint256 id, Move memory nf3) = _gameNf3Late();
        vm.warp(T + 597);
        _announce(carol, nf3);
        assertEq(channel.announcedAt(channel.hashMove(nf3)), T + 597);
        uint256 snap = vm.snapshotState();

        // control: the same registrations, nf3 without a receipt (the watchtower's form)
        vm.warp(T + 622);
        _regR(bob, line[1], line[2], uint64(T + 2), "");
        assertEq(_deadline(id), T + 622, "alice's deadline");
        _reg(carol, line[2], nf3, "");
        assertEq(_budget(id, true), 35, "announced: alice keeps 20 s + grace");
        assertEq(_deadline(id), T + 592 + 603 + 15, "bob's clock from the stamp");

        // attack: bob registers e5 and then nf3 with his own receipt at stamp + 30, one block
        vm.revertToState(snap);
        vm.warp(T + 622);
        _regR(bob, line[1], line[2], uint64(T + 2), "");
        _regR(bob, line[2], nf3, uint64(T + 622), "");
        assertEq(_registeredPly(id), 3);
        assertEq(_budget(id, true), 35, "alice keeps 20 s + grace (was the increment: 30 s taken)");
        assertEq(_deadline(id), T + 592 + 603 + 15, "bob's clock from the stamp, as announced");
        // the watchtower's registration finds it registered already
        _reg(carol, line[2], nf3, _err(IChessChannelTypes.StaleRegistration.selector, 3));
    }

    /// @dev Finding 1b (medium, closed as 1a): the side to move's own receipt overrode the
    /// first showing recorded by finding B's fix. CHANNEL.md 9 promises the mover loses only
    /// "the seconds between your stamp and that first showing"; bob front-runs the mover's
    /// resubmission with the same move and his own receipt timed at the resubmission's block
    /// (anything up to stamp + 30 passes), so the mover also pays the resubmission's delay.
    /// Numbers (finding B's attack 2): bob registers e5 at T+602, alice's pending registration
    /// of Nf3 (stamp T+592) is recorded at T+602; her resubmission at T+614 would leave her
    /// 25 s (T+622 - T+602 + 5); bob's front-run with his receipt at T+614 leaves her 13 s, and
    /// his own clock starts 12 s later (deadline T+1232 instead of T+1220). Had her resubmission
    /// waited until T+622, she would keep 5 s (the increment). Fix: as in 1a.
    function test_Finding1b_SelfReceiptCannotOverrideTheFirstShowing() public {
        (uint256 id, Move memory nf3) = _gameNf3Late();
        vm.warp(T + 602);
        _regR(bob, line[1], line[2], uint64(T + 2), "");
        _regF(alice, line[2], nf3, 0, ""); // her client's registration, sent before his landed
        assertEq(channel.shownWhileFrozenAt(channel.hashMove(nf3)), T + 602);
        uint256 snap = vm.snapshotState();

        // control: her resubmission lands at T+614
        vm.warp(T + 614);
        _reg(alice, line[2], nf3, "");
        assertEq(_budget(id, true), 25, "from the first showing");
        assertEq(_deadline(id), T + 602 + 603 + 15);

        // attack: bob's registration with his receipt at T+614, first in the block
        vm.revertToState(snap);
        vm.warp(T + 614);
        _regR(bob, line[2], nf3, uint64(T + 614), "");
        _reg(alice, line[2], nf3, _err(IChessChannelTypes.StaleRegistration.selector, 3));
        assertEq(_budget(id, true), 25, "from the first showing (was 13: 12 s more taken)");
        assertEq(_deadline(id), T + 602 + 603 + 15, "bob's clock from the first showing");

        // worst case: the resubmission is not in by stamp + 30
        vm.revertToState(snap);
        vm.warp(T + 622);
        _regR(bob, line[2], nf3, uint64(T + 622), "");
        assertEq(_budget(id, true), 25, "still from the first showing (was the increment)");
    }

    /// @dev Finding 2 (low, closed: `previous` of an overtake by two plies is checked and capped
    /// as the direct reply, shown when first shown, `_startTimes`; needs the honest side to
    /// answer a move first shown while frozen
    /// with a 2-ply overtake, which CHANNEL.md 8 tells it not to do): the direct reply's
    /// wall-clock rules (`FlagFell`, the author's cap deadline - from + increment) are checked
    /// only when the direct reply is `last`. As the `previous` of a 2-ply overtake its signed
    /// time is taken whole. A cheater records a backdated direct reply (a call naming a wrong
    /// position: nothing is checked but its signatures and transition) and waits for the answer.
    /// Numbers: bob's deadline T+622. (a) He thinks until T+410 and signs Nc6 stamped T+355 (55 s
    /// back): registered as the direct reply he has 217 s (his deadline after alice's 2-s reply
    /// T+629); answered by alice's (Nc6, Bc4) overtake 2 s later his deadline is T+684: 55 s
    /// gained. (b) Bob has 105 s, deadline T+622 (inside the window): he thinks until T+640,
    /// past his flag, signs Nc6 stamped T+585 (27 s left as signed) and records it; registered
    /// it is `FlagFell(T+622)`; the 2-ply overtake at T+642 gives him a deadline of T+684. The gain is bounded by the answer's freshness (60 s less the answer's delay).
    /// Fix: in an overtake whose `previous` is the direct reply (`previous.ply ==
    /// registeredPly + 1`), check `previous` as the direct reply (from its first showing, else
    /// this block) and cap the registered side to move at deadline - that + increment; or keep
    /// the client rule (answer only the registered position) as normative and say so.
    function test_Finding2_TwoPlyOvertakeKeepsTheDirectReplysWallClock() public {
        uint256 id = _gameNf3Registered();
        uint256 snap = vm.snapshotState();

        // (a) 55 s of backdating laundered
        vm.warp(T + 410);
        Move memory nc6 = _next(line[3], "b8c6", 351); // stamped T+355
        _regF(bob, line[3], nc6, 0, ""); // recorded, nothing checked against his deadline
        assertEq(channel.shownWhileFrozenAt(channel.hashMove(nc6)), T + 410);
        Move memory bc4 = _next(nc6, "f1c4", 2); // alice: the stamp plus her 2 s (section 8)
        uint256 snapA = vm.snapshotState();
        _reg(alice, line[3], nc6, ""); // control: registered as the direct reply
        assertEq(_budget(id, false), 217, "wall clock: T+622 - T+410 + 5");
        vm.warp(T + 412);
        _reg(alice, nc6, bc4, "");
        assertEq(_deadline(id), T + 412 + 217);
        vm.revertToState(snapA);
        vm.warp(T + 412);
        _reg(alice, nc6, bc4, ""); // the 2-ply overtake
        assertEq(_registeredPly(id), 5);
        assertEq(_deadline(id), T + 412 + 217, "as the direct reply (was 55 s more)");

        // (b) past his flag (a game where bob is short of time: deadline T+622, inside the window)
        vm.revertToState(snap);
        id = _gameShortBob();
        vm.warp(T + 640);
        nc6 = _next(line[3], "b8c6", 83); // stamped T+585, 27 s left as signed
        _reg(bob, line[3], nc6, _err(IChessChannelTypes.FlagFell.selector, T + 622));
        _regF(bob, line[3], nc6, 0, "");
        vm.warp(T + 642);
        bc4 = _next(nc6, "f1c4", 2);
        // was: registered, his flag up again until T+684, and he played on
        _reg(alice, nc6, bc4, _err(IChessChannelTypes.FlagFell.selector, T + 622));
        assertEq(_registeredPly(id), 3, "the registration stands: bob loses on time");
    }

    // ================================================================== attacks (safe)

    /// @dev The whole-game bound through the first registration and the frozen phase: bob holds
    /// alice's Nf3 (stamp T+5) 100 s, signs Nc6 stamped 60 s back (the freshest stale stamp),
    /// registers it himself, then answers each of alice's four direct replies after 50 s with a
    /// reply stamped 0 s after hers. Alice (stamping `q.timestamp + (now - shown)`, section 8)
    /// thinks 10 s a move. She ends exactly 30 s short of her wall clock, once; bob ends 60 s
    /// ahead of his (30 s taken from her, 30 s from nobody: the freshness, once) and never more.
    function test_Attack_BackdatingBoundThroughRegistrations() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5"); // stamps T, T+2
        vm.warp(T + 5);
        line.push(_next(line[2], "g1f3", 3)); // alice's, stamp T+5
        vm.warp(T + 105);
        Move memory nc6 = _next(line[3], "b8c6", 40); // stamp T+45, 60 s behind
        _reg(bob, line[3], nc6, "");
        assertEq(_deadline(id), T + 75 + 607 + 15, "alice's clock from 30 s before the block");
        // by the wall clock: alice got Nc6 at T+105 with 607 + 15 s; bob got Nf3 at T+5 with 618
        uint256 aliceWall = 622;
        uint256 bobWall = 618 - 100 + INCREMENT;
        Move memory q = nc6;
        uint256 shownAt = block.timestamp;
        string[8] memory ucis = ["f1c4", "f8c5", "c2c3", "g8f6", "d2d3", "d7d6", "e1g1", "e8g8"];
        for (uint256 i; i < 8; i += 2) {
            vm.warp(block.timestamp + 10);
            Move memory r = _next(q, ucis[i], uint32(block.timestamp - shownAt));
            _reg(alice, q, r, "");
            aliceWall = aliceWall - 10 + INCREMENT;
            vm.warp(block.timestamp + 50);
            Move memory n = _next(r, ucis[i + 1], 0); // 50 s thought, 0 s signed
            _reg(bob, r, n, "");
            bobWall = bobWall - 50 + INCREMENT;
            q = n;
            shownAt = block.timestamp;
        }
        assertEq(_registeredPly(id), 12);
        assertEq(_deadline(id), block.timestamp + aliceWall - 30, "alice: 30 s short, once");
        assertEq(_budget(id, false), bobWall + 60, "bob: 60 s ahead (30 of them hers), once");
    }

    /// @dev Recording a showing (a registration naming another position) cannot be turned
    /// against the move's author or used to dodge a deadline: the first showing sticks (a
    /// later one does not move it), the side to move recording its opponent's move only starts
    /// its own clock sooner, an off-chain announcement keeps its own bits (the earliest counts),
    /// a recording after the deadline is `FlagFell` when registered, and a multi-ply move stale
    /// when first shown stays stale.
    function test_Attack_RecordingCannotPoisonTheShowing() public {
        uint256 id = _gameNf3Registered();
        uint256 snap = vm.snapshotState();
        // alice records bob's reply (sent to her off-chain) at T+100, and again at T+200
        vm.warp(T + 100);
        Move memory nc6 = _next(line[3], "b8c6", 96);
        _regF(alice, line[3], nc6, 0, "");
        vm.warp(T + 200);
        _regF(alice, line[3], nc6, 0, "");
        _regF(bob, line[3], nc6, 12345, "");
        bytes32 h = channel.hashMove(nc6);
        assertEq(channel.shownWhileFrozenAt(h), T + 100, "the first showing sticks");
        assertEq(channel.announcedAt(h), 0, "the announcement bits untouched");
        vm.warp(T + 300);
        _reg(bob, line[3], nc6, "");
        assertEq(_budget(id, false), T + 622 - (T + 100) + INCREMENT, "bob: from the first showing");
        assertEq(_deadline(id), T + 100 + 608 + 15, "alice: from the showing she made");

        // a stale 2-ply move recorded stays stale
        vm.revertToState(snap);
        Move memory n = _next(line[3], "b8c6", 5);
        Move memory b = _next(n, "f1c4", 5); // stamp T+14
        vm.warp(T + 14 + 61);
        _regF(bob, n, b, 0, "");
        vm.warp(T + 14 + 62);
        _reg(bob, n, b, abi.encodeWithSelector(IChessChannelTypes.StaleMove.selector, T + 14));
        assertEq(_registeredPly(id), 3);

        // past the deadline a recording gets bob nothing (a game where it falls in the window)
        vm.revertToState(snap);
        id = _gameShortBob();
        vm.warp(T + 623);
        Move memory late = _next(line[3], "b8c6", 100); // stamped T+602, in time as signed
        _regF(bob, line[3], late, 0, "");
        _reg(bob, line[3], late, _err(IChessChannelTypes.FlagFell.selector, T + 622));
    }

    /// @dev The two showings are packed apart (bits 0..63 off-chain, 64..127 while frozen): a
    /// recording while frozen leaves the announcement, which counts (30 s before it, as a fresh
    /// move), and a later announcement is impossible (`AlreadyOnChain`).
    function test_Attack_ShowingsPackedApart() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        Move memory nf3 = _next(line[2], "g1f3", 2); // stamp T+4
        vm.warp(T + 40);
        _announce(carol, nf3);
        vm.warp(T + 50);
        _regR(bob, line[1], line[2], uint64(T + 2), "");
        vm.warp(T + 60);
        _regF(carol, line[2], nf3, 0, "");
        bytes32 h = channel.hashMove(nf3);
        assertEq(channel.announcedAt(h), T + 40);
        assertEq(channel.shownWhileFrozenAt(h), T + 60);
        Auth memory a = _byAuthor(nf3);
        vm.prank(carol);
        vm.expectRevert(_err(IChessChannelTypes.AlreadyOnChain.selector, id));
        channel.announce(nf3, a);
        vm.warp(T + 70);
        _reg(carol, line[2], nf3, "");
        assertEq(_deadline(id), T + 10 + 603 + 15, "bob from the announcement - 30 s");
    }

    /// @dev Duplicated receipts in a same-block race for the first registration: alice
    /// registers Nf3 with bob's receipt (T+5); bob front-runs with the same pair and a second
    /// receipt of his at stamp + 30. He gains at most CLOCK_TOLERANCE (29 s here) on his own
    /// clock, once, and alice's budget is untouched; one second more is `BadReceipt`.
    function test_Attack_DuplicateReceiptRaceIsBounded() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3"); // nf3 stamp T+4
        vm.warp(T + 40);
        uint256 snap = vm.snapshotState();
        _regR(alice, line[2], line[3], uint64(T + 5), "");
        uint256 honest = _deadline(id);
        uint256 aliceBudget = _budget(id, true);
        vm.revertToState(snap);
        _regR(bob, line[2], line[3], uint64(T + 35), abi.encodeWithSelector(IChessChannelTypes.BadReceipt.selector));
        _regR(bob, line[2], line[3], uint64(T + 34), "");
        _regR(alice, line[2], line[3], uint64(T + 5), _err(IChessChannelTypes.StaleRegistration.selector, 3));
        assertEq(_deadline(id) - honest, 29, "at most 30 s for bob, once");
        assertEq(_budget(id, true), aliceBudget, "alice's budget untouched");
    }

    /// @dev Front-running the honest direct reply from the mempool with a 2-ply overtake built on
    /// it (bob answers at once, 0 s signed) gives bob nothing: his budget is capped at his
    /// registered one plus the increment, alice's clock starts at the block as it would, and her
    /// own registration is merely stale.
    function test_Attack_MempoolTwoPlyFrontRunGainsNothing() public {
        uint256 id = _gameNf3Registered();
        vm.warp(T + 50);
        Move memory nc6 = _next(line[3], "b8c6", 46);
        _reg(bob, line[3], nc6, "");
        vm.warp(T + 60);
        Move memory bc4 = _next(nc6, "f1c4", 10);
        Move memory bc5 = _next(bc4, "f8c5", 0);
        uint256 snap = vm.snapshotState();
        // control: her direct reply, then his, both in this block
        _reg(alice, nc6, bc4, "");
        _reg(bob, bc4, bc5, "");
        uint256 aliceDeadline = _deadline(id);
        uint256 bobBudget = _budget(id, false);
        // attack
        vm.revertToState(snap);
        _reg(bob, bc4, bc5, "");
        _reg(alice, nc6, bc4, _err(IChessChannelTypes.StaleRegistration.selector, 6));
        assertEq(_deadline(id), aliceDeadline, "alice's clock as if she had registered");
        assertEq(_budget(id, false), bobBudget, "bob no better off");
        assertEq(bobBudget, T + 622 - (T + 50) + INCREMENT + INCREMENT, "bob: his wall clock");
    }

    /// @dev Multi-ply overtakes of `registerStart` (ply 0): the budgets are full there, so the caps
    /// are the signed times; a 2-ply overtake by black and a 3-ply one by white each charge the
    /// side to move from the block, and white's first move stays uncharged.
    function test_Attack_RegisterStartMultiPlyOvertakes() public {
        vm.warp(T);
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3"); // stamps T, T+2, T+4
        vm.recordLogs();
        vm.prank(bob);
        channel.registerStart(line[0]);
        _absorb(vm.getRecordedLogs());
        uint256 snap = vm.snapshotState();
        vm.warp(T + 50);
        _reg(bob, line[1], line[2], "");
        assertEq(_budget(id, false), uint256(line[2].blackTime) + 15, "black: signed + grace <= full + inc");
        assertEq(_deadline(id), T + 50 + 605 + 15, "white from the block");
        vm.revertToState(snap);
        vm.warp(T + 50);
        _reg(alice, line[2], line[3], "");
        assertEq(_budget(id, true), uint256(line[3].whiteTime) + 15);
        assertEq(_deadline(id), T + 50 + 603 + 15, "black from the block, not the stamp");
        // a 3-ply overtake with a stale last move is refused
        vm.revertToState(snap);
        vm.warp(T + 65);
        _reg(alice, line[2], line[3], abi.encodeWithSelector(IChessChannelTypes.StaleMove.selector, T + 4));
    }
}
