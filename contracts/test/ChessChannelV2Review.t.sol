// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelBase} from "./ChessChannelBase.t.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {Move, Delegation, Resignation, Result, Receipt, Auth} from "../src/ChannelHash.sol";
import {RefusingWallet} from "./mocks/Wallets.sol";

/// @notice Independent review of off-chain play v2 (issue 16). Every test asserts the SAFE
/// behaviour: a passing test is an attack that fails. The tests marked FINDING fail on the
/// reviewed code (b7aa973) and describe a real weakness.
contract ChessChannelV2ReviewTest is ChannelBase {
    // ---------------------------------------------------------------- helpers

    /// @dev alice (white) vs bob, standard start, `initial` seconds each, joined (off-chain).
    function _startGameWith(uint32 initial) internal returns (uint256 id) {
        vm.recordLogs();
        vm.prank(alice);
        id = ref.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, initial, INCREMENT, 0, "", WINDOW);
        _absorb(vm.getRecordedLogs());
        _join(id, bob, STAKE);
        _resetLine(id, ChessRules.initialState());
        line[0].whiteTime = initial;
        line[0].blackTime = initial;
    }

    /// @dev The standard board with the move counter at 2: a custom start.
    function _customStart() internal pure returns (bytes memory s) {
        s = ChessRules.initialState();
        s[9] = bytes1(uint8(2));
    }

    /// @dev `who` registers (q, m) with the given authorisations and receipt, expecting
    /// `revertData` (empty: success). Signatures must be made by the caller beforehand.
    function _reg(
        address who,
        Move memory q,
        Auth memory qa,
        Move memory m,
        Auth memory ma,
        Receipt memory r,
        Auth memory ra,
        bytes memory revertData
    ) internal {
        if (revertData.length != 0) vm.expectRevert(revertData);
        vm.recordLogs();
        vm.prank(who);
        channel.register(q, qa, m, ma, r, ra, _frozen(m));
        _absorb(vm.getRecordedLogs());
    }

    /// @dev Registers line[i-1], line[i] with the side to move's receipt at `seenAt`.
    function _regReceipt(address who, uint256 i, uint64 seenAt, bytes memory revertData) internal {
        (Receipt memory r, Auth memory ra) = _signedReceipt(line[i], seenAt);
        Auth memory ma = _byAuthor(line[i]);
        _reg(who, line[i - 1], _direct(""), line[i], ma, r, ra, revertData);
    }

    function _regPlain(address who, Move memory q, Move memory m, bytes memory revertData) internal {
        Auth memory qa = q.ply == 0 ? _direct("") : _byAuthor(q);
        Auth memory ma = _byAuthor(m);
        _reg(who, q, qa, m, ma, _noReceipt(), _direct(""), revertData);
    }

    function _windowEnd(uint256 id) internal view returns (uint256) {
        return ref.channelGame(id).windowEnd;
    }

    function _budget(uint256 id, bool white) internal view returns (uint256) {
        return ClockWord.budget(pos[id].clock, white);
    }

    /// @dev A move message after a decided `q`: same board with the side flipped, signed
    /// by whoever its state makes the author. Not a legal move (there is none).
    function _moveAfterGameOver(Move memory q) internal view returns (Move memory m) {
        bytes memory s = bytes.concat(q.state);
        s[ChessRules.CURRENT_PLAYER] = s[ChessRules.CURRENT_PLAYER] == 0x01 ? bytes1(0x00) : bytes1(0x01);
        m = Move({
            gameId: q.gameId,
            ply: q.ply + 1,
            mv: 0,
            state: s,
            history: q.history,
            whiteTime: q.whiteTime,
            blackTime: q.blackTime,
            timestamp: q.timestamp + 2,
            previous: channel.hashMove(q)
        });
    }

    /// @dev The side to move registers line[i-1], line[i] with its own receipt "seen now";
    /// returns whether the registration went through.
    function _trySelfReceipt(uint256 i) internal returns (bool ok) {
        (Receipt memory r, Auth memory ra) = _signedReceipt(line[i], uint64(block.timestamp));
        Auth memory ma = _byAuthor(line[i]);
        Move memory q = line[i - 1];
        Move memory m = line[i];
        vm.recordLogs();
        vm.prank(vm.addr(ChessRules.whiteToMove(m.state) ? ALICE_PK : BOB_PK));
        try channel.register(q, _direct(""), m, ma, r, ra, _frozen(m)) {
            ok = true;
        } catch {}
        _absorb(vm.getRecordedLogs());
    }

    // ================================================================ FINDINGS (fail today)

    /// FINDING A (medium, uncharged time). The side to move signs its OWN receipt for the
    /// move it must answer, with `seenAt` = now, and registers it: its clock restarts from
    /// now with its whole signed time, though it has held the move (and sent the opponent an
    /// honest receipt) for almost all of that time. Nothing proves the second receipt wrong.
    /// Safe behaviour: a receipt cannot move the start of its signer's clock more than
    /// STAMP_TOLERANCE past the move's stamp.
    function test_FindingA_SelfReceiptCannotRestartTheSideToMovesClock() public {
        uint256 id = _startGameWith(2 hours);
        _extend("e2e4 e7e5 g1f3");
        uint256 t0 = line[3].timestamp;
        uint256 tS = line[3].blackTime; // 7203 s
        // Bob received Nf3 at t0 and sent alice an honest receipt of it (seenAt t0), so
        // alice's client does not register. Bob thinks until just before his flag...
        vm.warp(t0 + tS - 5);
        // ...then registers alice's move with a second receipt of his own: "seen just now".
        // Safe either way: the receipt is refused, or it does not restart his clock.
        if (!_trySelfReceipt(3)) return;
        uint256 deadline = ClockWord.deadline(pos[id].clock, false);
        // Honest bound: his flag at t0 + tS + grace (plus at most the stamp tolerance).
        assertLe(deadline, t0 + tS + ClockWord.GRACE_PERIOD + channel.STAMP_TOLERANCE(), "bob restarted his clock");
    }

    /// FINDING A, the concrete loss: alice cannot claim bob's flag one window after it fell.
    function test_FindingA_SelfReceiptFlagCannotBeDodged() public {
        uint256 id = _startGameWith(2 hours);
        _extend("e2e4 e7e5 g1f3");
        uint256 t0 = line[3].timestamp;
        uint256 tS = line[3].blackTime;
        vm.warp(t0 + tS - 5);
        if (!_trySelfReceipt(3)) return; // refused: safe
        // Bob's wall-clock flag (t0 + tS + grace) is long past, and the window is over.
        vm.warp(_windowEnd(id) + tS / 2);
        _claimTimeout(id, alice);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 6);
    }

    /// FINDING B (low/medium, flagged player plays on). In a game from a custom start a
    /// registration at ply 1 (black to make its first move) gets ClockWord.turnStart's
    /// first-move window on top of the registration: black's deadline is windowEnd +
    /// firstMoveWindow + budget, not `from + tS + grace` (CHANNEL.md 7.3). Off-chain black's
    /// first move was charged from white's stamp with no such window, and a black whose flag
    /// fell (budget 0) may still move up to firstMoveWindow (up to 1 day) after the window.
    function test_FindingB_CustomStartPly1FlaggedBlackLosesAfterTheWindow() public {
        bytes memory start = _customStart();
        uint256 id = _createChannel(alice, bob, start);
        _join(id, bob, STAKE);
        _resetLine(id, start);
        _extend("e2e4");
        uint256 t1 = line[1].timestamp;
        vm.warp(t1 + 700); // bob's 600 s + grace are gone
        _regReceipt(alice, 1, uint64(t1), "");
        assertEq(_budget(id, false), 0, "bob's flag fell");
        vm.warp(_windowEnd(id) + 1);
        _claimTimeout(id, alice);
        (uint8 result,) = _result(id);
        assertEq(result, WHITE_WINS);
    }

    function test_FindingB_CustomStartPly1FlaggedBlackCannotMove() public {
        bytes memory start = _customStart();
        uint256 id = _createChannel(alice, bob, start);
        _join(id, bob, STAKE);
        _resetLine(id, start);
        _extend("e2e4");
        uint256 t1 = line[1].timestamp;
        vm.warp(t1 + 700);
        _regReceipt(alice, 1, uint64(t1), "");
        vm.warp(_windowEnd(id) + 200); // inside the default 300 s first-move window
        Position memory p = pos[id];
        uint24 mv = _uci("e7e5");
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.TimeUp.selector);
        ref.move(id, p.state, p.history, p.clock, mv);
    }

    /// FINDING C (low, boundary). A registration whose side to move has flagged stores budget
    /// 0, i.e. deadline == windowEnd, and a move is accepted AT the deadline: in the block
    /// stamped exactly windowEnd the flagged player still moves (and collects the increment).
    /// On an L2 with 1-2 s blocks this is easy to hit. Safe behaviour: TimeUp.
    function test_FindingC_FlaggedSideToMoveCannotMoveAtTheWindowsEnd() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        uint256 t0 = line[3].timestamp;
        vm.warp(t0 + 300);
        _regReceipt(alice, 3, uint64(t0), "");
        assertEq(_budget(id, false), 0, "bob's flag fell by the wall clock");
        vm.warp(_windowEnd(id));
        Position memory p = pos[id];
        uint24 mv = _uci("b8c6");
        vm.prank(bob);
        vm.expectRevert(IChessRefereeTypes.TimeUp.selector);
        ref.move(id, p.state, p.history, p.clock, mv);
        // The one second REFEREE.md 3 admits: at the deadline itself the claim is not yet
        // valid either; one second later alice wins on time.
        uint256 deadline = _windowEnd(id);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, deadline));
        ref.claimTimeout(id, p.state, p.history, p.clock);
        vm.warp(deadline + 1);
        vm.prank(alice);
        ref.claimTimeout(id, p.state, p.history, p.clock);
        assertEq(ref.getGame(id).phase, 3, "ended on time");
    }

    /// FINDING D (medium, design; CHANNEL.md 9 admits the outcome but not the threat model).
    /// Bob answered alice's move at once (signed reply, sent). Alice withholds the receipt and
    /// registers her move with bob's receipt of it. Bob's client registers his reply 30 s
    /// after sending it, but the transaction is included 70 s after his stamp (the very
    /// congestion section 10 says an attacker can cause for minutes): StaleMove. He cannot
    /// sign a fresh reply (equivocation: he already sent one), and his clock ran through the
    /// window (initial 600 s = W): he loses on time although he moved in 5 s.
    /// Safe behaviour: his honest reply still overtakes (e.g. charge an overtaking reply to
    /// the registered position by the wall clock, as `move` would, instead of requiring a
    /// fresh stamp).
    function test_FindingD_HonestReplyStillOvertakesAfterInclusionDelay() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6");
        uint256 t0 = line[3].timestamp;
        // bob's receipt of Nf3 at t0, his reply Nc6 stamped t0 + 2 (line[4]).
        vm.warp(t0 + 40);
        _regReceipt(alice, 3, uint64(t0), "");
        vm.warp(line[4].timestamp + 70);
        _regPlain(bob, line[3], line[4], "");
        assertEq(ref.channelGame(id).registeredPly, 4);
    }

    /// FINDING D, why the honest side has no way out: re-signing its reply with a fresh stamp
    /// (the only thing that would pass the freshness test) is an equivocation with the reply
    /// alice already holds, and loses the game by proof. (Passes: the trap is real.)
    function test_FindingD_FreshReSignedReplyIsAnEquivocation() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6");
        uint256 t0 = line[3].timestamp;
        vm.warp(t0 + 40);
        _regReceipt(alice, 3, uint64(t0), "");
        vm.warp(line[4].timestamp + 70);
        Move memory fresh = _next(line[3], "b8c6", 72);
        fresh.timestamp = uint64(block.timestamp);
        _regPlain(bob, line[3], fresh, "");
        Auth memory a = _byAuthor(line[4]);
        Auth memory b = _byAuthor(fresh);
        vm.prank(alice);
        channel.proveEquivocation(line[4], a, fresh, b);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 12);
    }

    // ================================================================ attacks that fail

    // ------------------------------------------------ receipts

    /// The receipt vouches for `previous` only through `last.previous`: a self-receipt cannot
    /// put a fabricated `previous` under the opponent's real move.
    function test_Receipt_FabricatedPreviousUnderRealMoveRefused() public {
        _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        Move memory fake = _next(line[1], "d7d5", 2); // a ply-2 move bob never made
        _regReceiptWithPrevious(
            bob, fake, 3, abi.encodeWithSelector(IChessChannelTypes.InvalidTransition.selector, 3, 0)
        );
    }

    function _regReceiptWithPrevious(address who, Move memory q, uint256 i, bytes memory revertData) internal {
        (Receipt memory r, Auth memory ra) = _signedReceipt(line[i], uint64(line[i].timestamp));
        Auth memory ma = _byAuthor(line[i]);
        _reg(who, q, _direct(""), line[i], ma, r, ra, revertData);
    }

    /// The author cannot build on a fabricated `previous` and borrow the opponent's receipt of
    /// its real move: the receipt names the real move's hash.
    function test_Receipt_OfAnotherMoveRefused() public {
        _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        Move memory fakePrev = _next(line[1], "d7d5", 2);
        Move memory fakeLast = _next(fakePrev, "g1f3", 2);
        (Receipt memory r, Auth memory ra) = _signedReceipt(line[3], uint64(line[3].timestamp));
        Auth memory ma = _byAuthor(fakeLast);
        vm.warp(block.timestamp + 500);
        _reg(
            alice,
            fakePrev,
            _direct(""),
            fakeLast,
            ma,
            r,
            ra,
            abi.encodeWithSelector(IChessChannelTypes.BadReceipt.selector)
        );
        // Nor a receipt of another ply of the same game.
        (r, ra) = _signedReceipt(line[1], uint64(line[1].timestamp));
        ma = _byAuthor(line[3]);
        _reg(
            alice,
            line[2],
            _direct(""),
            line[3],
            ma,
            r,
            ra,
            abi.encodeWithSelector(IChessChannelTypes.BadReceipt.selector)
        );
    }

    /// A receipt by the side to move's session key outside the key's ply range is refused.
    function test_Receipt_SessionKeyOutsideItsRangeRefused() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        Delegation memory d = _delegation(id, SESSION2_PK, 4, 10); // bob's key from ply 4
        Receipt memory r = _receipt(line[3], uint64(line[3].timestamp));
        Auth memory ra = _bySession(BOB_PK, SESSION2_PK, d, _receiptDigest(r));
        Auth memory ma = _byAuthor(line[3]);
        vm.warp(block.timestamp + 200);
        _reg(
            alice,
            line[2],
            _direct(""),
            line[3],
            ma,
            r,
            ra,
            abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob)
        );
    }

    /// A revoked key's receipt is evidence and still counts (section 5): revoking cannot be
    /// used by the side to move to void its receipt and dodge the charge.
    function test_Receipt_RevokedKeysReceiptStillCharges() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        Delegation memory d = _delegation(id, SESSION2_PK, 1, 100);
        Receipt memory r = _receipt(line[3], uint64(line[3].timestamp));
        Auth memory ra = _bySession(BOB_PK, SESSION2_PK, d, _receiptDigest(r));
        vm.prank(bob);
        channel.revokeSessionKey(id, vm.addr(SESSION2_PK));
        Auth memory ma = _byAuthor(line[3]);
        vm.warp(block.timestamp + 300);
        _reg(alice, line[2], _direct(""), line[3], ma, r, ra, "");
        assertEq(_budget(id, false), 0);
    }

    // ------------------------------------------------ signatures

    function test_Signature_HighSTwinRefused() public {
        _startChannelGame();
        _extend("e2e4 e7e5");
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(BOB_PK, _moveDigest(line[2]));
        Auth memory twin = _direct(abi.encodePacked(r, bytes32(N - uint256(s)), v == 27 ? uint8(28) : uint8(27)));
        Auth memory qa = _byAuthor(line[1]);
        _reg(
            alice,
            line[1],
            qa,
            line[2],
            twin,
            _noReceipt(),
            _direct(""),
            abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob)
        );
    }

    /// An EOA that later gets code (EIP-7702) cannot disown its key's moves.
    function test_Signature_EoaWithCodeCannotDisown() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        Auth memory qa = _byAuthor(line[2]);
        Auth memory ma = _byAuthor(line[3]);
        vm.etch(alice, type(RefusingWallet).runtimeCode);
        _reg(bob, line[2], qa, line[3], ma, _noReceipt(), _direct(""), "");
        assertEq(ref.channelGame(id).registeredPly, 3);
    }

    /// @dev bob registers (line[2], line[3]) with white's move authorised by `a`: refused as
    /// not signed on behalf of alice.
    function _refusedAsAlices(Auth memory qa, Auth memory a) internal {
        _reg(
            bob,
            line[2],
            qa,
            line[3],
            a,
            _noReceipt(),
            _direct(""),
            abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice)
        );
    }

    function test_Signature_SessionKeyBounds() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        Auth memory qa = _byAuthor(line[2]);
        // Move stamped after the key's expiry.
        Delegation memory d = _delegation(id, SESSION1_PK, 1, 9);
        d.expires = line[3].timestamp - 1;
        Auth memory a = _bySession(ALICE_PK, SESSION1_PK, d, _moveDigest(line[3]));
        _refusedAsAlices(qa, a);
        // Ply outside the range.
        d = _delegation(id, SESSION1_PK, 5, 9);
        a = _bySession(ALICE_PK, SESSION1_PK, d, _moveDigest(line[3]));
        _refusedAsAlices(qa, a);
        // Delegation of another game.
        d = _delegation(id + 1, SESSION1_PK, 1, 9);
        a = _bySession(ALICE_PK, SESSION1_PK, d, _moveDigest(line[3]));
        _refusedAsAlices(qa, a);
        // Delegation signed by the opponent.
        d = _delegation(id, SESSION1_PK, 1, 9);
        a = _bySession(BOB_PK, SESSION1_PK, d, _moveDigest(line[3]));
        _refusedAsAlices(qa, a);
    }

    /// A session key revoked in this very block can no longer agree.
    function test_Signature_RevokedKeyCannotSettleInTheSameBlock() public {
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: 0, position: channel.hashMove(line[0]), result: BLACK_WINS});
        bytes32 d = _resultDigest(r);
        Delegation memory del = _delegation(id, SESSION1_PK, 0, 100);
        Auth memory w = _bySession(ALICE_PK, SESSION1_PK, del, d);
        Auth memory b = _direct(_sig(BOB_PK, d));
        vm.prank(alice);
        channel.revokeSessionKey(id, vm.addr(SESSION1_PK));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    // ------------------------------------------------ proofs

    function test_Proof_ValidMoveCannotBeConvicted() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        Auth memory a = _byAuthor(line[3]);
        vm.expectRevert(IChessChannelTypes.NotIllegal.selector);
        channel.proveIllegalMove(line[2], line[3], a);
        // A different `previous` than the one it names: not a proof.
        vm.expectRevert(IChessChannelTypes.NotIllegal.selector);
        channel.proveIllegalMove(line[1], line[3], a);
        // White's first move against a ply-0 move that is not the start.
        Move memory fakeStart = line[0];
        fakeStart.whiteTime = 1;
        Move memory first = _next(fakeStart, "e2e4", 0);
        Auth memory fa = _byAuthor(first);
        vm.expectRevert(IChessChannelTypes.NotTheStart.selector);
        channel.proveIllegalMove(fakeStart, first, fa);
        assertEq(_phase(id), PHASE_RUNNING);
    }

    function test_Proof_EquivocationNeedsSameAuthorAndDifferentMoves() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        Auth memory a = _byAuthor(line[1]);
        vm.expectRevert(IChessChannelTypes.NotEquivocation.selector);
        channel.proveEquivocation(line[1], a, line[1], a);
        Auth memory b = _byAuthor(line[2]);
        vm.expectRevert(IChessChannelTypes.NotEquivocation.selector);
        channel.proveEquivocation(line[1], a, line[2], b); // different plies and authors
        assertEq(_phase(id), PHASE_RUNNING);
    }

    /// The proofs still apply while live, and never after the game ended (no double payment).
    function test_Proof_WhileLiveThenNeverTwice() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        Move memory other = _next(line[1], "d7d5", 2); // bob equivocates at ply 2
        _register(3);
        vm.warp(_windowEnd(id) + 1);
        _move(id, "b8c6");
        Auth memory a = _byAuthor(line[2]);
        Auth memory b = _byAuthor(other);
        channel.proveEquivocation(line[2], a, other, b);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 12);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.GameNotRunning.selector, id));
        channel.proveEquivocation(line[2], a, other, b);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotRunning.selector, id));
        ref.resign(id);
        assertEq(_credit(alice), 2 * STAKE);
        assertEq(_credit(bob), 0);
    }

    /// Document trap, not a contract bug: CHANNEL.md 8 tells honest clients to accept a move
    /// stamped up to 30 s in the future and to "stamp their own moves with their clock"; an
    /// honest reply within those seconds is then code 4 (stamps never run backwards) and loses
    /// the game by proof. The contract is right per section 6; the doc must say
    /// `stamp = max(own clock, predecessor's stamp)` (same for `seenAt`).
    function test_DocTrap_ReplyStampedBeforeAFutureStampIsProvable() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        Move memory ahead = _next(line[2], "g1f3", 2);
        ahead.timestamp = uint64(block.timestamp + 25); // alice's clock 25 s ahead: accepted by bob
        Move memory reply = _next(ahead, "b8c6", 0);
        reply.timestamp = uint64(block.timestamp + 5); // bob, by his clock, 5 s later
        (uint256 code,) = channel.transitionCode(id, INCREMENT, ahead, reply);
        assertEq(code, 4, "the honest-per-doc reply is an invalid successor");
    }

    // ------------------------------------------------ decided positions, finishRegistered

    function test_Decided_CannotBeOvertakenByAMoveAfterIt() public {
        uint256 id = _startChannelGame();
        _extend("f2f3 e7e5 g2g4 d8h4");
        _register(4);
        Move memory after_ = _moveAfterGameOver(line[4]);
        vm.warp(block.timestamp + 1);
        _regPlain(alice, line[4], after_, abi.encodeWithSelector(IChessChannelTypes.InvalidTransition.selector, 5, 0));
        // And signing it is itself a provable loss.
        Auth memory a = _byAuthor(after_);
        channel.proveIllegalMove(line[4], after_, a);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 13);
    }

    function test_Finish_GuardsAndNoDoublePayment() public {
        uint256 id = _startChannelGame();
        _extend("f2f3 e7e5 g2g4 d8h4");
        _register(4);
        Position memory p = pos[id];
        vm.warp(_windowEnd(id));
        // Offers and other calls on a decided position are refused.
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.PositionDecided.selector, id));
        ref.offerDraw(id, p.state, p.history, p.clock);
        // A forged clock (the pending bits cleared, or an extra offer bit) is stale.
        uint256 noPending = p.clock & ~(uint256(7) << 171);
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.finishRegistered(id, p.state, p.history, noPending);
        vm.expectRevert(IChessRefereeTypes.StalePosition.selector);
        ref.finishRegistered(id, p.state, p.history, p.clock | (uint256(1) << 168));
        vm.prank(carol);
        ref.finishRegistered(id, p.state, p.history, p.clock);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotRunning.selector, id));
        ref.finishRegistered(id, p.state, p.history, p.clock);
        assertEq(_credit(bob), 2 * STAKE);
        assertEq(_credit(alice), 0);
    }

    function test_Finish_NotOnAnOngoingRegistration() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        _register(2);
        vm.warp(_windowEnd(id));
        Position memory p = pos[id];
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.NoPendingOutcome.selector, id));
        ref.finishRegistered(id, p.state, p.history, p.clock);
    }

    // ------------------------------------------------ agreements

    function test_Agreement_ResignationClosedOnceLive() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        _register(3);
        Resignation memory r = Resignation({gameId: id, ply: 3, position: channel.hashMove(line[3])});
        Auth memory a = _direct(_sig(BOB_PK, _resignationDigest(r)));
        vm.warp(_windowEnd(id));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.AgreementsClosed.selector, id));
        channel.resignBySignature(r, a, false);
        // The same signature cannot be presented as the other player's.
        vm.warp(_windowEnd(id) - 1);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.resignBySignature(r, a, true);
    }

    function test_Agreement_BadResultRefused() public {
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: 0, position: 0, result: 4});
        bytes32 d = _resultDigest(r);
        Auth memory w = _direct(_sig(ALICE_PK, d));
        Auth memory b = _direct(_sig(BOB_PK, d));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadResult.selector, 4));
        channel.settle(r, w, b);
    }

    // ------------------------------------------------ registerStart, first moves

    function test_RegisterStart_Guards() public {
        uint256 id = _startChannelGame();
        Move memory start = line[0];
        vm.prank(carol);
        vm.expectRevert(IChessChannelTypes.NotAPlayer.selector);
        channel.registerStart(start);
        Move memory altered = line[0];
        altered.blackTime = INITIAL + 1;
        vm.prank(bob);
        vm.expectRevert(IChessChannelTypes.NotTheStart.selector);
        channel.registerStart(altered);
        vm.prank(bob);
        channel.registerStart(start);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.AlreadyOnChain.selector, id));
        channel.registerStart(start);
    }

    /// registerStart against a game already played off-chain is answered by any higher pair.
    function test_RegisterStart_RollbackIsOvertaken() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6");
        vm.recordLogs();
        vm.prank(alice);
        channel.registerStart(line[0]);
        _absorb(vm.getRecordedLogs());
        vm.warp(block.timestamp + 10);
        _registerBy(4, carol);
        assertEq(ref.channelGame(id).registeredPly, 4);
    }

    /// Standard start, registerStart, white never moves: abort after window + first-move
    /// window, not before.
    function test_RegisterStart_AbortCountsFromTheWindowsEnd() public {
        uint256 id = _startChannelGame();
        vm.recordLogs();
        vm.prank(bob);
        channel.registerStart(line[0]);
        _absorb(vm.getRecordedLogs());
        uint256 we = _windowEnd(id);
        vm.warp(we + 300);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.TimeNotUp.selector, we + 300));
        ref.claimTimeout(id, pos[id].state, pos[id].history, pos[id].clock);
        vm.warp(we + 301);
        _claimTimeout(id, bob);
        (uint8 result,) = _result(id);
        assertEq(result, ABORTED);
    }

    // ------------------------------------------------ court, storage widths

    function test_Court_OnlyTheChannel() public {
        uint256 id = _startChannelGame();
        Position memory p = pos[id];
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.NotChannel.selector);
        ref.endChannelGame(id, WHITE_WINS, 12);
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.NotChannel.selector);
        ref.registerPosition(id, p.state, p.history, 0);
    }

    /// A ply beyond the 24-bit registeredPly is refused, never truncated (which would let a
    /// lower ply overtake it).
    function test_Storage_PlyBeyond24BitsRefused() public {
        _startChannelGame();
        _extend("e2e4");
        Move memory q = line[1];
        q.ply = uint32(type(uint24).max);
        Move memory m = _next(q, "e7e5", 2);
        _regPlain(
            alice,
            q,
            m,
            abi.encodeWithSelector(IChessRefereeTypes.PlyOutOfRange.selector, uint256(type(uint24).max) + 1)
        );
    }

    /// Moves and other position calls revert while off-chain and while frozen.
    function test_Phases_NoOnChainPlayOffChainOrFrozen() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        Position memory p = pos[id];
        uint24 mv = _uci("e2e4");
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.OffChain.selector, id));
        ref.move(id, p.state, p.history, p.clock, mv);
        _register(2);
        p = pos[id];
        mv = _uci("g1f3");
        uint256 we = _windowEnd(id);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.NotYetPlayable.selector, we));
        ref.move(id, p.state, p.history, p.clock, mv);
    }
}
