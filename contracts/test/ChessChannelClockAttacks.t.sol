// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelClockBase} from "./ChessChannelClockBase.t.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {Move, Auth} from "../src/ChannelHash.sol";
import {ClockWord} from "../src/ClockWord.sol";

/// @notice Issue 27's red-team findings on the off-chain clock, each a test of the safe
/// behaviour (docs/CHANNEL.md sections 7.3, 8, 9).
contract ChessChannelClockAttacksTest is ChannelClockBase {
    /// @dev Finding 4: a late reply to `registerStart` was impossible: the start move's
    /// timestamp is 0, so the late-reply path charged white the whole Unix time and
    /// reverted `StaleMove`. The first move answers `registerStart` like any direct reply
    /// in the window, and is not charged (section 6 code 4).
    function test_Finding4_FirstMoveAnswersRegisterStartWhenLate() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        vm.recordLogs();
        vm.prank(bob);
        channel.registerStart(line[0]);
        _absorb(vm.getRecordedLogs());
        // held up on L1 far past STAMP_TOLERANCE, but inside the window
        vm.warp(block.timestamp + WINDOW - 1);
        _registerBy(1, carol);
        assertEq(ref.channelGame(id).registeredPly, 1);
        (, uint256 whiteBudget,,,,,,,) = ref.decodeClock(pos[id].clock);
        assertEq(whiteBudget, uint256(line[1].whiteTime) + 15, "the first move is not charged");
    }

    /// @dev The same late first move after the window: registrations are closed, the game
    /// is live on-chain from the start.
    function test_Finding4_FirstMoveAfterTheWindowIsRefused() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        vm.prank(bob);
        channel.registerStart(line[0]);
        vm.warp(block.timestamp + WINDOW);
        vm.expectRevert(_err(IChessChannelTypes.RegistrationClosed.selector, id));
        this.registerExternal(1);
    }

    // ------------------------------------------------------------------ helpers

    // ------------------------------------------------------------------ finding 1

    /// @dev Finding 1, the registration phase: bob answers each of alice's registered replies
    /// with a registration stamped 60 s before its block (he thinks 70 s a move and signs 10 s);
    /// alice thinks 10 s a move. Under v2 each of his fresh registrations charged alice from his
    /// stamp, 60 s a move onto her clock, and flagged her after 12 plies. Now a direct reply is
    /// charged by the wall clock: his 70 s are his, alice keeps exactly what she signed, and
    /// it is bob who flags.
    function test_Finding1_RegisteredRepliesAreChargedByTheWallClock() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        _reg(alice, line[0], line[1], "");
        string[4] memory shuffle = ["g8f6", "g1f3", "f6g8", "f3g1"];
        Move memory q = line[1];
        uint256 bobThought;
        for (uint256 k; k < 16; ++k) {
            bool bobMoves = k % 2 == 0;
            vm.warp(block.timestamp + (bobMoves ? 70 : 10));
            // each signs 10 s of thinking after the move it answers: bob's stamp is 60 s
            // behind his block, and alice's inherits that (an honest seat stamps its reply
            // from when it saw the move: here, bob's registration)
            Move memory m = _next(q, shuffle[k % 4], 10);
            _reg(bobMoves ? bob : alice, q, m, "");
            if (bobMoves) bobThought += 70;
            q = m;
        }
        // alice: her budget is exactly what she signed (10 s a move, the increment back)
        assertEq(_budget(id, true), uint256(q.whiteTime) + 15, "alice keeps what she signed");
        assertEq(uint256(q.whiteTime), INITIAL + INCREMENT + 8 * INCREMENT - 8 * 10, "10 s a move");
        // bob: charged 70 s a move by the wall clock, not the 10 s he signed; as the side to
        // move now his budget runs through the window from alice's block
        uint256 bobLeft = INITIAL + 15 + 8 * INCREMENT - bobThought;
        assertEq(ClockWord.replyDeadline(pos[id].clock), block.timestamp + bobLeft, "bob's deadline by the wall clock");
        assertLt(bobLeft, uint256(q.blackTime) + 15 - 8 * 60 + 1, "his signed time says 480 s more");
        // his next reply, whatever he stamps, is past his deadline once he thinks that long
        vm.warp(block.timestamp + bobLeft + 1);
        Move memory late = _next(q, shuffle[0], 10);
        _reg(bob, q, late, abi.encodeWithSelector(IChessChannelTypes.FlagFell.selector, block.timestamp - 1));
    }

    /// @dev Finding 1, the first registration: bob registers his own move stamped 60 s before
    /// the block (still fresh). Under v2 alice's clock ran from his stamp: 60 s of his thinking
    /// on her clock. Now it runs from at most CLOCK_TOLERANCE (30 s) before the block.
    function test_Finding1_BackdatedFreshRegistrationMovesAtMostTheTolerance() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        vm.warp(line[2].timestamp + 60);
        _reg(bob, line[1], line[2], "");
        uint256 from = block.timestamp - channel.CLOCK_TOLERANCE();
        uint256 windowEnd = block.timestamp + WINDOW;
        uint256 toMove = uint256(line[2].whiteTime) + 15;
        assertEq(ClockWord.replyDeadline(pos[id].clock), from + toMove, "from the block less 30 s");
        assertEq(_budget(id, true), toMove > windowEnd - from ? toMove - (windowEnd - from) : 0);
        // one second staler and it is refused
        _startChannelGame();
        _extend("e2e4 e7e5");
        vm.warp(line[2].timestamp + 61);
        _reg(bob, line[1], line[2], abi.encodeWithSelector(IChessChannelTypes.StaleMove.selector, line[2].timestamp));
    }

    // ------------------------------------------------------------------ finding 5

    /// @dev Finding 5: the side to move signed a second receipt of the move it must answer at
    /// stamp + 60 and registered with it, restarting its clock 59 s late. A receipt now counts
    /// only within CLOCK_TOLERANCE (30 s) of the stamp.
    function test_Finding5_SecondReceiptPastTheToleranceRefused() public {
        _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        vm.warp(line[3].timestamp + 60);
        vm.expectRevert(IChessChannelTypes.BadReceipt.selector);
        this.registerWithReceiptExternal(3, line[3].timestamp + 31, bob);
        _registerWithReceipt(3, line[3].timestamp + 30, bob);
        assertEq(ref.channelGame(line[3].gameId).registeredPly, 3);
    }

    /// @dev External entry to `_registerWithReceipt`, so its revert can be expected.
    function registerWithReceiptExternal(uint256 i, uint64 seenAt, address registrant) external {
        _registerWithReceipt(i, seenAt, registrant);
    }

    // ------------------------------------------------------------------ finding 2

    /// @dev 1. e4 e5 2. Nf3: alice holds e5 (her receipt at its stamp) and plays Nf3 5 s
    /// later; bob never acknowledges it and never moves.
    function _withheldNf3() internal returns (uint256 id, Move memory nf3) {
        id = _startChannelGame();
        _extend("e2e4 e7e5");
        vm.warp(line[2].timestamp + 5);
        nf3 = _next(line[2], "g1f3", 5);
        line.push(nf3);
    }

    /// @dev Finding 2: without her opponent's receipt, alice's move could only come in as a
    /// late reply, charged from her previous stamp, and bob flagged her by registering the
    /// pair before it with her own receipt. A watchtower reading the relay announces her move
    /// 20 s after it went unacknowledged; 700 s later bob registers e5 with her receipt, and
    /// her announced Nf3 overtakes: she keeps the time she had when she sent it, bob's clock
    /// ran from her stamp, and bob loses on time.
    function test_Finding2_AnnouncedMoveKeepsTheMoversTime() public {
        (uint256 id, Move memory nf3) = _withheldNf3();
        vm.warp(nf3.timestamp + 20);
        _announce(carol, nf3);
        assertEq(channel.announcedAt(channel.hashMove(nf3)), block.timestamp);
        assertEq(ref.channelGame(id).windowEnd, 0, "an announcement freezes nothing");
        vm.warp(nf3.timestamp + 700);
        _registerWithReceipt(2, line[2].timestamp, bob); // alice's own receipt of e5
        _reg(carol, line[2], nf3, "");
        assertEq(ref.channelGame(id).registeredPly, 3);
        // alice: charged from her receipt of e5 to her stamp (5 s), not 700 s
        assertEq(_budget(id, true), uint256(nf3.whiteTime) + 15, "alice keeps what she signed");
        // bob: from her stamp (the announcement came 20 s after it: within 30 s), through
        // the window, past his 600 s
        assertEq(ClockWord.replyDeadline(pos[id].clock), nf3.timestamp + nf3.blackTime + 15);
        assertEq(_budget(id, false), 0, "bob's flag fell");
        vm.warp(ref.channelGame(id).windowEnd + 1);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
    }

    /// @dev The same without the announcement: the attack the red team showed (her reply counts
    /// from the block, 700 s after her receipt of e5: past her flag).
    function test_Finding2_WithoutTheAnnouncementTheAttackStands() public {
        (uint256 id, Move memory nf3) = _withheldNf3();
        vm.warp(nf3.timestamp + 700);
        _registerWithReceipt(2, line[2].timestamp, bob);
        uint256 deadline = ClockWord.replyDeadline(pos[id].clock);
        _reg(carol, line[2], nf3, abi.encodeWithSelector(IChessChannelTypes.FlagFell.selector, deadline));
    }

    /// @dev Alice, offline when bob went silent, comes back 700 s later and registers her
    /// announced Nf3 herself: it counts as fresh at the announcement, so bob's clock ran from
    /// (at most 30 s before) it.
    function test_Finding2_AnnouncedMoveRegistersLate() public {
        (uint256 id, Move memory nf3) = _withheldNf3();
        vm.warp(nf3.timestamp + 20);
        _announce(carol, nf3);
        vm.warp(nf3.timestamp + 700);
        _reg(alice, line[2], nf3, "");
        assertEq(ClockWord.replyDeadline(pos[id].clock), nf3.timestamp + nf3.blackTime + 15, "bob from the stamp");
        assertEq(_budget(id, false), 0, "bob's flag fell");
        // without the announcement the same registration is stale
        (, Move memory other) = _withheldNf3();
        vm.warp(other.timestamp + 700);
        _reg(alice, line[2], other, abi.encodeWithSelector(IChessChannelTypes.StaleMove.selector, other.timestamp));
    }

    /// @dev An announcement needs the move signed by its author, counts once, never needs a
    /// player, and is for off-chain play only (once a position is registered, moves are
    /// registered).
    function test_Finding2_AnnounceGuards() public {
        (uint256 id, Move memory nf3) = _withheldNf3();
        Auth memory forged = _direct(_sig(CAROL_PK, _moveDigest(nf3)));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.announce(nf3, forged);
        _announce(carol, nf3);
        uint256 first = channel.announcedAt(channel.hashMove(nf3));
        vm.warp(block.timestamp + 100);
        _announce(bob, nf3);
        assertEq(channel.announcedAt(channel.hashMove(nf3)), first, "the first announcement counts");
        _reg(alice, line[2], nf3, "");
        Auth memory a = _byAuthor(line[2]);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.AlreadyOnChain.selector, id));
        channel.announce(line[2], a);
    }
}
