// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {ChannelBase} from "./ChessChannelBase.t.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessChannel} from "../src/ChessChannel.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {ChessRules, IllegalMove, BadStateLength} from "../src/ChessRules.sol";
import {RepetitionChain} from "../src/RepetitionChain.sol";
import {ChannelHash, Move, Delegation, Resignation, Receipt, Auth} from "../src/ChannelHash.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";

/// @notice Second reading (security) of df4c015, the gas rewrite of ChessChannel, ChannelHash
/// and ChessRules in inline assembly. Every test asserts the SAFE behaviour: a failing test
/// is a finding. Raw calldata is built by hand and sent with `address(channel).call`; the
/// pre-rewrite code (df4c015~1) is kept below as `OldChannelTransition` (the channel's
/// hashes and transition, unchanged but for names) and `ChessRulesOld` (the whole rules
/// library, renamed) for differential tests.
contract ChessChannelCalldataTest is ChannelBase {
    OldChannelTransition internal old;

    // calldata word positions (bytes from the start of the calldata, selector included)
    uint256 internal constant ARGS = 4;
    // Move head
    uint256 internal constant M_GAME = 0x00;
    uint256 internal constant M_PLY = 0x20;
    uint256 internal constant M_MV = 0x40;
    uint256 internal constant M_STATE = 0x60;
    uint256 internal constant M_HISTORY = 0x80;
    uint256 internal constant M_WHITE = 0xa0;
    uint256 internal constant M_BLACK = 0xc0;
    uint256 internal constant M_STAMP = 0xe0;
    uint256 internal constant M_PREVIOUS = 0x100;
    uint256 internal constant MOVE_HEAD = 0x120;
    // register(previous, previousAuth, last, lastAuth, receipt, receiptAuth) head
    uint256 internal constant R_PREVIOUS = 0;
    uint256 internal constant R_PREVIOUS_AUTH = 1;
    uint256 internal constant R_LAST = 2;
    uint256 internal constant R_LAST_AUTH = 3;
    uint256 internal constant R_RECEIPT = 4; // four words inline
    uint256 internal constant R_RECEIPT_AUTH = 8;

    uint256 internal gameId;

    function setUp() public override {
        super.setUp();
        old = new OldChannelTransition();
        gameId = _startChannelGame();
        _extend("e2e4 e7e5 g1f3");
        vm.warp(line[3].timestamp + 1);
    }

    // ================================================================ byte helpers

    function _w(bytes memory cd, uint256 at) internal pure returns (uint256 v) {
        assembly {
            v := mload(add(add(cd, 0x20), at))
        }
    }

    function _setW(bytes memory cd, uint256 at, uint256 v) internal pure {
        assembly {
            mstore(add(add(cd, 0x20), at), v)
        }
    }

    /// @dev Position (in `cd`) of the struct whose offset is head word `slot` of the args.
    function _structAt(bytes memory cd, uint256 slot) internal pure returns (uint256) {
        return ARGS + _w(cd, ARGS + slot * 32);
    }

    /// @dev Position (in `cd`) of the `state` tail (its length word) of the Move at `mAt`.
    function _stateAt(bytes memory cd, uint256 mAt) internal pure returns (uint256 at) {
        unchecked {
            at = mAt + _w(cd, mAt + M_STATE);
        }
    }

    /// @dev `to - from` modulo 2**256 (a backward offset, as the ABI decoder accepts it).
    function _rel(uint256 to, uint256 from) internal pure returns (uint256 d) {
        unchecked {
            d = to - from;
        }
    }

    function _copy(bytes memory b) internal pure returns (bytes memory) {
        return bytes.concat(b);
    }

    /// @dev Bit width of a Move head field (0: a full word, bytes32 or uint256).
    function _moveWidth(uint256 field) internal pure returns (uint256) {
        if (field == M_PLY || field == M_WHITE || field == M_BLACK) return 32;
        if (field == M_MV) return 24;
        if (field == M_STAMP) return 64;
        return 0;
    }

    /// @dev Nonzero bits above `width` from `dirt`.
    function _dirty(uint256 dirt, uint256 width) internal pure returns (uint256 high) {
        high = (dirt >> width) << width;
        if (high == 0) high = 1 << width;
    }

    // ================================================================ registration helpers

    /// @dev The signed registration of line[2], line[3] (plain: both signed directly, no receipt).
    function _plainRegistration() internal view returns (bytes memory) {
        Move memory q = line[2];
        Move memory m = line[3];
        return abi.encodeCall(channel.register, (q, _byAuthor(q), m, _byAuthor(m), _noReceipt(), _direct("")));
    }

    /// @dev The registration of line[2], line[3] with black's receipt of line[3].
    function _receiptRegistration() internal view returns (bytes memory) {
        Move memory q = line[2];
        Move memory m = line[3];
        (Receipt memory r, Auth memory ra) = _signedReceipt(m, m.timestamp + 1);
        return abi.encodeCall(channel.register, (q, _direct(""), m, _byAuthor(m), r, ra));
    }

    /// @dev The registration of line[2], line[3], line[3] signed by alice's session key.
    function _sessionRegistration() internal view returns (bytes memory) {
        Move memory q = line[2];
        Move memory m = line[3];
        Auth memory ma = _bySession(ALICE_PK, SESSION1_PK, _delegation(gameId, SESSION1_PK, 1, 99), _moveDigest(m));
        return abi.encodeCall(channel.register, (q, _byAuthor(q), m, ma, _noReceipt(), _direct("")));
    }

    /// @dev Sends `cd` to the channel from alice (a player); returns success and the data of
    /// the referee's `PositionRegistered` log (empty if none).
    function _send(bytes memory cd) internal returns (bool ok, bytes memory registered) {
        vm.recordLogs();
        vm.prank(alice);
        (ok,) = address(channel).call(cd);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter == address(ref) && logs[i].topics[0] == ChessReferee.PositionRegistered.selector) {
                registered = logs[i].data;
            }
        }
    }

    /// @dev What the well-formed registration `cd` registers (state rolled back).
    function _baseline(bytes memory cd) internal returns (bytes memory registered) {
        uint256 snap = vm.snapshotState();
        bool ok;
        (ok, registered) = _send(cd);
        assertTrue(ok, "baseline registration");
        assertGt(registered.length, 0, "baseline registered");
        vm.revertToState(snap);
    }

    /// @dev A random corruption of `cd` (calldata of a call with struct arguments): a word
    /// xored with noise, with dirty high bits, an offset redirected (forward, backward,
    /// past the end, onto another struct), a length changed, calldata cut or extended.
    function _mutate(bytes memory cd, uint256 seed) internal pure returns (bytes memory out) {
        out = _copy(cd);
        uint256 words = (out.length - ARGS) / 32;
        uint256 at = ARGS + 32 * ((seed >> 8) % words);
        uint256 noise = uint256(keccak256(abi.encode(seed)));
        uint256 kind = seed % 8;
        if (kind == 0) {
            _setW(out, at, _w(out, at) ^ noise);
        } else if (kind == 1) {
            // dirty bits above a small type's width
            uint256 width = [uint256(8), 24, 32, 64, 160][(seed >> 64) % 5];
            _setW(out, at, _w(out, at) | _dirty(noise, width));
        } else if (kind == 2) {
            // an offset/length word moved by a few words either way
            uint256 delta = 32 * ((noise % 9) + 1);
            unchecked {
                _setW(out, at, (noise >> 8) % 2 == 0 ? _w(out, at) + delta : _w(out, at) - delta);
            }
        } else if (kind == 3) {
            // a word pointed at another word-aligned place (or far past the end)
            _setW(out, at, (noise >> 128) % 3 == 0 ? noise : 32 * (noise % (words + 4)));
        } else if (kind == 4) {
            // a low byte flipped (small values: plies, times, lengths, offsets)
            _setW(out, at, _w(out, at) ^ (1 << (noise % 64)));
        } else if (kind == 5) {
            // a word copied from another word
            _setW(out, at, _w(out, ARGS + 32 * (noise % words)));
        } else if (kind == 6) {
            // cut
            uint256 keep = ARGS + (noise % (out.length - ARGS));
            assembly {
                mstore(out, keep)
            }
        } else {
            // extended with a word, and a word altered in the tail
            out = bytes.concat(out, bytes32(noise));
            _setW(out, at, _w(out, at) ^ (noise >> 200));
        }
    }

    /// @dev Any accepted corruption of the signed registration `cd` registers exactly what
    /// the well-formed one does (same ply, state, history and clock word).
    function _assertMutationRegistersOnlyTheSigned(bytes memory cd, uint256 seed) internal {
        bytes memory expected = _baseline(cd);
        bytes memory bad = _mutate(cd, seed);
        (bool ok, bytes memory registered) = _send(bad);
        if (ok) assertEq(registered, expected, "an altered encoding registered something else");
    }

    // ================================================================ 1. raw calldata: register

    /// Sanity: the hand-built raw calldata of a signed pair registers (and so the mutations
    /// below start from a call that succeeds).
    function test_RawRegistrationOfSignedPairSucceeds() public {
        (bool ok, bytes memory registered) = _send(_plainRegistration());
        assertTrue(ok, "raw registration");
        (uint32 ply, bytes memory state, bytes32 history,) = abi.decode(registered, (uint32, bytes, bytes32, uint256));
        assertEq(uint256(ply), 3);
        assertEq(state, line[3].state);
        assertEq(history, line[3].history);
    }

    /// Random corruptions of a plain registration's calldata (offsets, lengths, dirty bits,
    /// cut, extended): refused, or registering exactly the signed position and clock.
    function testFuzz_MutatedPlainRegistrationRegistersOnlyTheSigned(uint256 seed) public {
        _assertMutationRegistersOnlyTheSigned(_plainRegistration(), seed);
    }

    /// The same with a receipt (the receipt's words are read by hand).
    function testFuzz_MutatedReceiptRegistrationRegistersOnlyTheSigned(uint256 seed) public {
        _assertMutationRegistersOnlyTheSigned(_receiptRegistration(), seed);
    }

    /// The same with a session key (the delegation's words are read by hand).
    function testFuzz_MutatedSessionRegistrationRegistersOnlyTheSigned(uint256 seed) public {
        _assertMutationRegistersOnlyTheSigned(_sessionRegistration(), seed);
    }

    /// Dirty high bits in any small field of `last` (ply, mv, times, stamp): refused, as the
    /// ABI decoder refuses them (the hand reads could otherwise see another ply or time than
    /// the signature covers).
    function testFuzz_DirtyLastFieldRefused(uint256 which, uint256 dirt) public {
        uint256[5] memory fields = [M_PLY, M_MV, M_WHITE, M_BLACK, M_STAMP];
        uint256 field = fields[which % 5];
        bytes memory cd = _plainRegistration();
        uint256 at = _structAt(cd, R_LAST) + field;
        _setW(cd, at, _w(cd, at) | _dirty(dirt, _moveWidth(field)));
        (bool ok,) = _send(cd);
        assertFalse(ok, "dirty field accepted");
    }

    /// Dirty high bits in `previous` (signed, no receipt): refused.
    function testFuzz_DirtyPreviousFieldRefused(uint256 which, uint256 dirt) public {
        uint256[5] memory fields = [M_PLY, M_MV, M_WHITE, M_BLACK, M_STAMP];
        uint256 field = fields[which % 5];
        bytes memory cd = _plainRegistration();
        uint256 at = _structAt(cd, R_PREVIOUS) + field;
        _setW(cd, at, _w(cd, at) | _dirty(dirt, _moveWidth(field)));
        (bool ok,) = _send(cd);
        assertFalse(ok, "dirty field accepted");
    }

    /// Dirty high bits in `previous` when a receipt vouches for it (unsigned, only hashed).
    function testFuzz_DirtyPreviousFieldWithReceiptRefused(uint256 which, uint256 dirt) public {
        uint256[5] memory fields = [M_PLY, M_MV, M_WHITE, M_BLACK, M_STAMP];
        uint256 field = fields[which % 5];
        bytes memory cd = _receiptRegistration();
        uint256 at = _structAt(cd, R_PREVIOUS) + field;
        _setW(cd, at, _w(cd, at) | _dirty(dirt, _moveWidth(field)));
        (bool ok,) = _send(cd);
        assertFalse(ok, "dirty field accepted");
    }

    /// Dirty high bits in the receipt's ply or seenAt: refused (seenAt with dirty bits could
    /// otherwise compare as a different time than the one signed).
    function testFuzz_DirtyReceiptFieldRefused(bool seenAt, uint256 dirt) public {
        bytes memory cd = _receiptRegistration();
        uint256 at = ARGS + 32 * R_RECEIPT + (seenAt ? 0x60 : 0x20);
        _setW(cd, at, _w(cd, at) | _dirty(dirt, seenAt ? 64 : 32));
        (bool ok,) = _send(cd);
        assertFalse(ok, "dirty receipt accepted");
    }

    /// Dirty high bits in the delegation's sessionKey, firstPly, lastPly or expires: refused.
    function testFuzz_DirtyDelegationFieldRefused(uint256 which, uint256 dirt) public {
        uint256[4] memory offsets = [uint256(0x20), 0x40, 0x60, 0x80];
        uint256[4] memory widths = [uint256(160), 32, 32, 64];
        uint256 i = which % 4;
        bytes memory cd = _sessionRegistration();
        uint256 at = _structAt(cd, R_LAST_AUTH) + 0x20 + offsets[i];
        _setW(cd, at, _w(cd, at) | _dirty(dirt, widths[i]));
        (bool ok,) = _send(cd);
        assertFalse(ok, "dirty delegation accepted");
    }

    /// `last.state` pointed at `previous.state`'s bytes (two dynamic fields on the same
    /// bytes): the signature does not cover that state; refused.
    function test_LastStateAliasedToPreviousStateRefused() public {
        bytes memory cd = _plainRegistration();
        uint256 lastAt = _structAt(cd, R_LAST);
        uint256 prevState = _stateAt(cd, _structAt(cd, R_PREVIOUS));
        _setW(cd, lastAt + M_STATE, _rel(prevState, lastAt)); // wraps: a backward offset
        (bool ok,) = _send(cd);
        assertFalse(ok);
    }

    /// `previous.state` pointed at `last.state`'s bytes: refused.
    function test_PreviousStateAliasedToLastStateRefused() public {
        bytes memory cd = _plainRegistration();
        uint256 prevAt = _structAt(cd, R_PREVIOUS);
        uint256 lastState = _stateAt(cd, _structAt(cd, R_LAST));
        _setW(cd, prevAt + M_STATE, _rel(lastState, prevAt));
        (bool ok,) = _send(cd);
        assertFalse(ok);
    }

    /// `previous` and `last` the same struct: refused (not one ply apart).
    function test_PreviousAndLastSameBytesRefused() public {
        bytes memory cd = _plainRegistration();
        _setW(cd, ARGS + 32 * R_PREVIOUS, _w(cd, ARGS + 32 * R_LAST));
        (bool ok,) = _send(cd);
        assertFalse(ok);
    }

    /// `last.state` offset past the end of calldata (and huge): refused.
    function testFuzz_LastStateOffsetPastEndRefused(uint256 offset) public {
        bytes memory cd = _plainRegistration();
        uint256 lastAt = _structAt(cd, R_LAST);
        // past the last word that could hold a length (forwards; backwards wraps below)
        offset = bound(offset, cd.length - lastAt - 31, type(uint256).max / 2);
        _setW(cd, lastAt + M_STATE, offset);
        (bool ok,) = _send(cd);
        assertFalse(ok);
    }

    /// A 128-byte length with fewer bytes present (the state runs off the end of calldata):
    /// refused (the hand-encoded court call copies 128 bytes from the tail).
    function test_LastStateRunningOffCalldataEndRefused() public {
        bytes memory cd = _plainRegistration();
        uint256 lastAt = _structAt(cd, R_LAST);
        // point the state at the last word of calldata: its length word reads as whatever is
        // there; write 128 there (the receipt auth's signature tail ends the calldata)
        uint256 lastWord = cd.length - 32;
        _setW(cd, lastWord, 128);
        _setW(cd, lastAt + M_STATE, lastWord - lastAt);
        (bool ok,) = _send(cd);
        assertFalse(ok);
    }

    /// `last.state` of a length other than 128, the move signed over exactly those bytes
    /// (the first 128 being the right state): refused, nothing registered.
    function testFuzz_SignedStateOfOtherLengthRefused(uint8 extra, bool shorter) public {
        Move memory q = line[2];
        Move memory m = line[3];
        uint256 n = shorter ? uint256(extra) % 128 : 128 + 1 + uint256(extra);
        bytes memory s = new bytes(n);
        for (uint256 i; i < n && i < 128; ++i) {
            s[i] = m.state[i];
        }
        m.state = s;
        bytes memory cd =
            abi.encodeCall(channel.register, (q, _byAuthor(q), m, _byAuthor(m), _noReceipt(), _direct("")));
        (bool ok, bytes memory registered) = _send(cd);
        assertFalse(ok, "state of another length accepted");
        assertEq(registered.length, 0);
    }

    /// `last` re-encoded with its state tail moved elsewhere (here: before its head, a
    /// backward offset the decoder accepts): either refused, or the very signed state is
    /// registered (the hand-encoded court call must follow the same offset the hash did).
    function test_LastStateBackwardOffsetRegistersTheSignedState() public {
        bytes memory cd = _plainRegistration();
        bytes memory expected = _baseline(cd);
        uint256 lastAt = _structAt(cd, R_LAST);
        uint256 stateAt = _stateAt(cd, lastAt);
        // append a copy of `last`'s head at the end, and point `last` there; its state
        // offset then points backwards to the original tail
        bytes memory head = new bytes(MOVE_HEAD);
        for (uint256 i; i < MOVE_HEAD; ++i) {
            head[i] = cd[lastAt + i];
        }
        uint256 newAt = cd.length;
        cd = bytes.concat(cd, head);
        _setW(cd, ARGS + 32 * R_LAST, newAt - ARGS);
        _setW(cd, newAt + M_STATE, _rel(stateAt, newAt)); // negative, two's complement
        (bool ok, bytes memory registered) = _send(cd);
        // the ABI decoder (and so the old code) accepts a backward offset: a valid call
        assertTrue(ok, "a well-formed re-encoding of a signed pair refused");
        assertEq(registered, expected, "registered another state than signed");
    }

    /// As above, the decoy: the original tail altered after relocation. The signature was over
    /// the original bytes, so the relocated `last` (pointing at the altered tail) is refused.
    function test_LastStateBackwardOffsetToAlteredBytesRefused() public {
        bytes memory cd = _plainRegistration();
        uint256 lastAt = _structAt(cd, R_LAST);
        uint256 stateAt = _stateAt(cd, lastAt);
        bytes memory head = new bytes(MOVE_HEAD);
        for (uint256 i; i < MOVE_HEAD; ++i) {
            head[i] = cd[lastAt + i];
        }
        uint256 newAt = cd.length;
        // the head copy, then a copy of the genuine tail (length + 128 bytes) after it
        bytes memory tail = new bytes(0xa0);
        for (uint256 i; i < 0xa0; ++i) {
            tail[i] = cd[stateAt + i];
        }
        cd = bytes.concat(cd, head, tail);
        _setW(cd, ARGS + 32 * R_LAST, newAt - ARGS);
        // forward to the genuine copy: fine; now alter the original (decoy) and point back
        _setW(cd, newAt + M_STATE, _rel(stateAt, newAt));
        cd[stateAt + 0x20 + 0x44] = 0x05; // a white queen on e4's square in the decoy
        (bool ok, bytes memory registered) = _send(cd);
        assertFalse(ok, "altered state accepted");
        assertEq(registered.length, 0);
    }

    /// The receipt's signer must see the same `seenAt` the clock uses: a receipt whose
    /// seenAt carries bits above 64 is not read as its low 64 bits (which could pass the
    /// window checks while the hash, if it masked, covered another time).
    function test_ReceiptSeenAtHighBitsDoNotPassAsLowBits() public {
        bytes memory cd = _receiptRegistration();
        uint256 at = ARGS + 32 * R_RECEIPT + 0x60;
        _setW(cd, at, _w(cd, at) | (uint256(1) << 64));
        (bool ok,) = _send(cd);
        assertFalse(ok);
    }

    // ================================================================ 4. hand-read comparisons

    /// A session key's move counts iff the delegation is of this game, its ply range holds
    /// the move's ply and the move's stamp is not after `expires` (section 5), the words read
    /// by hand compared as the spec says, boundaries included.
    function testFuzz_SessionDelegationBounds(uint32 firstPly, uint32 lastPly, uint64 expires, bool otherGame) public {
        Move memory q = line[2];
        Move memory m = line[3];
        uint64 t = m.timestamp;
        // bias towards the boundaries
        if (firstPly % 2 == 0) firstPly = uint32(1 + firstPly % 5);
        if (lastPly % 2 == 0) lastPly = uint32(1 + lastPly % 5);
        if (expires % 2 == 0) expires = t - 2 + expires % 5;
        Delegation memory d = Delegation({
            gameId: otherGame ? gameId + 1 : gameId,
            sessionKey: vm.addr(SESSION1_PK),
            firstPly: firstPly,
            lastPly: lastPly,
            expires: expires
        });
        Auth memory ma = _bySession(ALICE_PK, SESSION1_PK, d, _moveDigest(m));
        bytes memory cd = abi.encodeCall(channel.register, (q, _byAuthor(q), m, ma, _noReceipt(), _direct("")));
        (bool ok,) = _send(cd);
        bool valid = !otherGame && firstPly <= 3 && 3 <= lastPly && t <= expires;
        assertEq(ok, valid, "delegation bounds");
    }

    /// A receipt counts iff it is of `last` (game, ply, hashStruct) and `seenAt` lies in
    /// [stamp, min(block, stamp + STAMP_TOLERANCE)].
    function testFuzz_ReceiptBounds(uint64 seenAt, uint8 which, uint32 wait) public {
        Move memory q = line[2];
        Move memory m = line[3];
        uint64 t = m.timestamp;
        vm.warp(t + wait % 120);
        if (seenAt % 2 == 0) seenAt = t - 3 + seenAt % 130;
        Receipt memory r = _receipt(m, seenAt);
        which %= 4;
        if (which == 1) r.gameId = gameId + 1;
        if (which == 2) r.ply = 2;
        if (which == 3) r.position = channel.hashMove(q);
        Auth memory ra = _direct(_sig(BOB_PK, _receiptDigest(r)));
        bytes memory cd = abi.encodeCall(channel.register, (q, _direct(""), m, _byAuthor(m), r, ra));
        (bool ok,) = _send(cd);
        bool valid = which == 0 && seenAt >= t && seenAt <= block.timestamp && seenAt <= uint256(t) + 60;
        assertEq(ok, valid, "receipt bounds");
    }

    /// The hand-encoded court call registers the clock the spec gives: with a receipt at
    /// `seenAt`, the author (white) keeps its signed time plus the grace, the side to move
    /// (black) its signed time plus the grace less the time from `seenAt` to the window's end.
    function testFuzz_RegisteredClockFollowsSpec(uint8 delay) public {
        Move memory m = line[3];
        uint64 seenAt = m.timestamp + delay % 61;
        vm.warp(uint256(seenAt) + delay % 7);
        (Receipt memory r, Auth memory ra) = _signedReceipt(m, seenAt);
        bytes memory cd = abi.encodeCall(channel.register, (line[2], _direct(""), m, _byAuthor(m), r, ra));
        (bool ok, bytes memory registered) = _send(cd);
        assertTrue(ok);
        (uint32 ply, bytes memory state, bytes32 history, uint256 clock) =
            abi.decode(registered, (uint32, bytes, bytes32, uint256));
        uint256 windowEnd = block.timestamp + WINDOW;
        assertEq(uint256(ply), 3);
        assertEq(state, m.state);
        assertEq(history, m.history);
        assertEq(ClockWord.lastTimestamp(clock), windowEnd, "window end");
        assertEq(ClockWord.budget(clock, true), uint256(m.whiteTime) + ClockWord.GRACE_PERIOD, "author budget");
        assertEq(
            ClockWord.budget(clock, false),
            uint256(m.blackTime) + ClockWord.GRACE_PERIOD - (windowEnd - seenAt),
            "side to move charged from seenAt"
        );
        assertEq(ref.channelGame(gameId).registeredPly, 3);
    }

    /// Front-running: once ply 3 is registered, another signed ply-3 pair (or any lower ply)
    /// cannot overtake it, whoever sends it; the ply the check uses is the signed one.
    function test_SamePlyCannotOvertakeRegistration() public {
        (bool ok,) = _send(_plainRegistration());
        assertTrue(ok);
        bytes memory again = _receiptRegistration();
        vm.prank(carol);
        (ok,) = address(channel).call(again);
        assertFalse(ok, "same ply overtook");
    }

    /// Stale agreements: a resignation signed by a session key its player revoked does not
    /// count (the key read by hand is the one looked up in `revokedAt`); before the
    /// revocation it would have.
    function test_RevokedSessionKeyResignationRefused() public {
        Resignation memory res = Resignation({gameId: gameId, ply: 3, position: channel.hashMove(line[3])});
        Auth memory a = _bySession(
            BOB_PK, SESSION2_PK, _delegation(gameId, SESSION2_PK, 0, 99), channel.digestOf(channel.hashResignation(res))
        );
        uint256 snap = vm.snapshotState();
        channel.resignBySignature(res, a, false);
        assertEq(uint256(ref.getGame(gameId).phase), uint256(PHASE_ENDED), "valid before revocation");
        vm.revertToState(snap);
        vm.prank(bob);
        channel.revokeSessionKey(gameId, vm.addr(SESSION2_PK));
        vm.expectRevert(abi.encodeWithSelector(ChessChannel.BadSignature.selector, bob));
        channel.resignBySignature(res, a, false);
    }

    /// The old code's one observable difference on malformed calldata (informational): the
    /// `transitionCode` VIEW of a move of another game whose ply word is dirty returned code
    /// 1 before and reverts now. The state-changing callers hash `m` first, so both revert.
    function test_TransitionViewDirtyPlyOfOtherGameReverts() public view {
        Move memory q = line[2];
        Move memory m = line[3];
        m.gameId = gameId + 1;
        bytes memory cd = abi.encodeCall(channel.transitionCode, (gameId, INCREMENT, q, m));
        uint256 at = _structAt(cd, 3) + M_PLY;
        _setW(cd, at, _w(cd, at) | (uint256(1) << 40));
        (bool okNew,) = address(channel).staticcall(cd);
        (bool okOld, bytes memory outOld) = address(old).staticcall(cd);
        assertFalse(okNew, "new reverts");
        assertTrue(okOld, "old judged");
        (uint256 code,) = abi.decode(outOld, (uint256, uint256));
        assertEq(code, 1);
    }

    // ================================================================ 1b. proofs and views

    /// The same signed move in two encodings (its state tail at another place) is not an
    /// equivocation: a player cannot be framed with its own move re-encoded.
    function test_SameMoveTwoEncodingsIsNotEquivocation() public {
        Move memory m = line[3];
        Auth memory a = _byAuthor(m);
        bytes memory cd = abi.encodeCall(channel.proveEquivocation, (m, a, m, a));
        // the second copy of `m` (head word 2) gets its state from the first copy's tail
        uint256 aAt = _structAt(cd, 0);
        uint256 bAt = _structAt(cd, 2);
        _setW(cd, bAt + M_STATE, _rel(_stateAt(cd, aAt), bAt));
        (bool ok, bytes memory err) = address(channel).call(cd);
        assertFalse(ok, "re-encoded move proved an equivocation");
        assertEq(err, abi.encodeWithSelector(ChessChannel.NotEquivocation.selector));
        assertEq(uint256(ref.getGame(gameId).phase), uint256(PHASE_RUNNING));
    }

    /// A valid signed move whose encoding shares bytes with its predecessor (its `previous`
    /// hash word doubling as... the predecessor's state tail reused) is not "illegal".
    function test_ValidMoveReencodedIsNotIllegal() public {
        Move memory q = line[2];
        Move memory m = line[3];
        bytes memory cd = abi.encodeCall(channel.proveIllegalMove, (q, m, _byAuthor(m)));
        // move `bad`'s head to the end, its state pointing back at its original tail
        uint256 mAt = _structAt(cd, 1);
        uint256 stateAt = _stateAt(cd, mAt);
        bytes memory head = new bytes(MOVE_HEAD);
        for (uint256 i; i < MOVE_HEAD; ++i) {
            head[i] = cd[mAt + i];
        }
        uint256 newAt = cd.length;
        cd = bytes.concat(cd, head);
        _setW(cd, ARGS + 32, newAt - ARGS);
        _setW(cd, newAt + M_STATE, _rel(stateAt, newAt));
        (bool ok, bytes memory err) = address(channel).call(cd);
        assertFalse(ok, "a valid move was proved illegal");
        assertEq(err, abi.encodeWithSelector(ChessChannel.NotIllegal.selector));
        assertEq(uint256(ref.getGame(gameId).phase), uint256(PHASE_RUNNING));
    }

    /// Random corruptions of proveIllegalMove's calldata for a VALID signed move never end
    /// the game (the hand reads in `_transition` cannot be steered to a failing code while
    /// the signature still covers the valid move).
    function testFuzz_MutatedProofOfValidMoveNeverEndsGame(uint256 seed) public {
        Move memory q = line[2];
        Move memory m = line[3];
        bytes memory cd = _mutate(abi.encodeCall(channel.proveIllegalMove, (q, m, _byAuthor(m))), seed);
        (bool ok,) = address(channel).call(cd);
        assertFalse(ok, "valid move proved illegal");
        assertEq(uint256(ref.getGame(gameId).phase), uint256(PHASE_RUNNING));
    }

    /// Random corruptions of proveEquivocation's calldata for one honest move sent twice
    /// never end the game.
    function testFuzz_MutatedSelfEquivocationNeverEndsGame(uint256 seed) public {
        Move memory m = line[3];
        Auth memory a = _byAuthor(m);
        bytes memory cd = _mutate(abi.encodeCall(channel.proveEquivocation, (m, a, m, a)), seed);
        (bool ok,) = address(channel).call(cd);
        assertFalse(ok, "honest move proved an equivocation");
        assertEq(uint256(ref.getGame(gameId).phase), uint256(PHASE_RUNNING));
    }

    // ================================================================ 2. hash equivalence

    function _plainMoveHash(Move memory m) internal pure returns (bytes32) {
        return keccak256(
            bytes.concat(
                abi.encode(ChannelHash.MOVE_TYPEHASH, m.gameId, m.ply, m.mv, keccak256(m.state)),
                abi.encode(m.history, m.whiteTime, m.blackTime, m.timestamp, m.previous)
            )
        );
    }

    function testFuzz_HashMoveEqualsPlainEncoding(Move memory m) public view {
        assertEq(channel.hashMove(m), _plainMoveHash(m));
        assertEq(old.hashMove(m), _plainMoveHash(m));
    }

    function testFuzz_HashDelegationEqualsPlainEncoding(Delegation memory d) public view {
        bytes32 plain = keccak256(
            abi.encode(ChannelHash.DELEGATION_TYPEHASH, d.gameId, d.sessionKey, d.firstPly, d.lastPly, d.expires)
        );
        assertEq(channel.hashDelegation(d), plain);
        assertEq(old.hashDelegation(d), plain);
    }

    function testFuzz_HashReceiptEqualsPlainEncoding(Receipt memory r) public view {
        bytes32 plain = keccak256(abi.encode(ChannelHash.RECEIPT_TYPEHASH, r.gameId, r.ply, r.position, r.seenAt));
        assertEq(channel.hashReceipt(r), plain);
        assertEq(old.hashReceipt(r), plain);
    }

    /// A move's out-of-range field (raw calldata) reverts in `hashMove`, as in the old code.
    function testFuzz_HashMoveOutOfRangeReverts(Move memory m, uint256 which, uint256 dirt) public {
        uint256[5] memory fields = [M_PLY, M_MV, M_WHITE, M_BLACK, M_STAMP];
        uint256 field = fields[which % 5];
        bytes memory cd = abi.encodeCall(channel.hashMove, (m));
        uint256 at = _structAt(cd, 0) + field;
        _setW(cd, at, _w(cd, at) | _dirty(dirt, _moveWidth(field)));
        (bool ok,) = address(channel).call(cd);
        assertFalse(ok, "new accepts");
        (ok,) = address(old).call(cd);
        assertFalse(ok, "old accepts");
    }

    function testFuzz_HashDelegationOutOfRangeReverts(Delegation memory d, uint256 which, uint256 dirt) public {
        uint256[4] memory offsets = [uint256(0x20), 0x40, 0x60, 0x80];
        uint256[4] memory widths = [uint256(160), 32, 32, 64];
        uint256 i = which % 4;
        bytes memory cd = abi.encodeCall(channel.hashDelegation, (d));
        uint256 at = ARGS + offsets[i]; // a static struct: inline in the head
        _setW(cd, at, _w(cd, at) | _dirty(dirt, widths[i]));
        (bool ok,) = address(channel).call(cd);
        assertFalse(ok, "new accepts");
    }

    function testFuzz_HashReceiptOutOfRangeReverts(Receipt memory r, bool seenAt, uint256 dirt) public {
        bytes memory cd = abi.encodeCall(channel.hashReceipt, (r));
        uint256 at = ARGS + (seenAt ? 0x60 : 0x20);
        _setW(cd, at, _w(cd, at) | _dirty(dirt, seenAt ? 64 : 32));
        (bool ok,) = address(channel).call(cd);
        assertFalse(ok, "new accepts");
    }

    /// The hashes of raw, randomly corrupted calldata: the new and old code agree (both
    /// revert, or both return the same hash).
    function testFuzz_HashMoveRawCalldataMatchesOld(Move memory m, uint256 seed) public {
        bytes memory cd = _mutate(abi.encodeCall(channel.hashMove, (m)), seed);
        (bool okNew, bytes memory outNew) = address(channel).call(cd);
        (bool okOld, bytes memory outOld) = address(old).call(cd);
        assertEq(okNew, okOld, "accepted by one only");
        if (okNew) assertEq(outNew, outOld);
    }

    function testFuzz_HashDelegationRawCalldataMatchesOld(Delegation memory d, uint256 seed) public {
        bytes memory cd = _mutate(abi.encodeCall(channel.hashDelegation, (d)), seed);
        (bool okNew, bytes memory outNew) = address(channel).call(cd);
        (bool okOld, bytes memory outOld) = address(old).call(cd);
        assertEq(okNew, okOld, "accepted by one only");
        if (okNew) assertEq(outNew, outOld);
    }

    function testFuzz_HashReceiptRawCalldataMatchesOld(Receipt memory r, uint256 seed) public {
        bytes memory cd = _mutate(abi.encodeCall(channel.hashReceipt, (r)), seed);
        (bool okNew, bytes memory outNew) = address(channel).call(cd);
        (bool okOld, bytes memory outOld) = address(old).call(cd);
        assertEq(okNew, okOld, "accepted by one only");
        if (okNew) assertEq(outNew, outOld);
    }

    // ================================================================ transition differential

    /// A (q, m) pair of several kinds: valid, illegal move, wrong state, wrong history,
    /// mate (st != 0), a move after mate, start move.
    function _pair(uint256 kind) internal returns (Move memory q, Move memory m) {
        kind %= 6;
        if (kind == 0) return (line[2], line[3]);
        if (kind == 1) return (line[0], line[1]);
        if (kind == 2) {
            (q, m) = (line[2], line[3]);
            m.mv = _uci("e1e2");
            return (q, m);
        }
        if (kind == 3) {
            (q, m) = (line[2], line[3]);
            m.history = bytes32(uint256(m.history) ^ 1);
            return (q, m);
        }
        _resetLine(gameId, ChessRules.initialState());
        _extend("f2f3 e7e5 g2g4 d8h4");
        if (kind == 4) return (line[3], line[4]);
        // a "move" after the mate
        q = line[4];
        m = _successorUnchecked(q, _uci("e1f2"));
    }

    /// `_successor` without the legality assertion.
    function _successorUnchecked(Move memory q, uint24 mv) internal view returns (Move memory m) {
        m = Move({
            gameId: q.gameId,
            ply: q.ply + 1,
            mv: mv,
            state: q.state,
            history: q.history,
            whiteTime: q.whiteTime,
            blackTime: q.blackTime,
            timestamp: q.timestamp + 1,
            previous: channel.hashMove(q)
        });
    }

    function _assertTransitionCalldataMatchesOld(bytes memory cd) internal view {
        (bool okNew, bytes memory outNew) = address(channel).staticcall(cd);
        (bool okOld, bytes memory outOld) = address(old).staticcall(cd);
        if (okOld && !okNew) {
            // the one known difference: code 1 (wrong game) returned by the old code before it
            // read `m.ply`; the new code range-checks m.ply first and reverts (view only;
            // register and proveIllegalMove hash `m` first and revert in both)
            (uint256 code,) = abi.decode(outOld, (uint256, uint256));
            assertEq(code, 1, "new code refuses what the old code judged");
            return;
        }
        assertEq(okNew, okOld, "accepted by one only");
        assertEq(outNew, outOld, "different transition code or revert data");
    }

    /// transitionCode on well-formed pairs of every kind: same code as the old code.
    function testFuzz_TransitionCodeMatchesOld(uint256 kind, uint256 gid, uint32 increment) public {
        (Move memory q, Move memory m) = _pair(kind);
        if (gid % 4 == 0) gid = gameId;
        _assertTransitionCalldataMatchesOld(abi.encodeCall(channel.transitionCode, (gid, increment, q, m)));
    }

    /// transitionCode with random in-range times and stamps (the swapped reads of
    /// `_timesConsistent`): same code as the old code.
    function testFuzz_TransitionTimesMatchOld(
        uint256 kind,
        uint32 qw,
        uint32 qb,
        uint32 mw,
        uint32 mb,
        uint64 qt,
        uint64 mt,
        uint32 increment
    ) public {
        (Move memory q, Move memory m) = _pair(kind);
        if (qw % 2 == 0) {
            // mostly near-valid: small perturbations of the real values
            (qw, qb, mw, mb) = (q.whiteTime + qw % 3, q.blackTime + qb % 3, m.whiteTime + mw % 7, m.blackTime + mb % 7);
            (qt, mt) = (q.timestamp + qt % 3, m.timestamp + mt % 5 - 2);
            increment = increment % 8;
        }
        q.whiteTime = qw;
        q.blackTime = qb;
        q.timestamp = qt;
        m.whiteTime = mw;
        m.blackTime = mb;
        m.timestamp = mt;
        m.previous = channel.hashMove(q);
        _assertTransitionCalldataMatchesOld(abi.encodeCall(channel.transitionCode, (gameId, increment, q, m)));
    }

    /// transitionCode on raw, randomly corrupted calldata: same result as the old code (but
    /// for the known, harmless case in `_assertTransitionCalldataMatchesOld`).
    function testFuzz_TransitionRawCalldataMatchesOld(uint256 kind, uint256 seed) public {
        (Move memory q, Move memory m) = _pair(kind);
        bytes memory cd = _mutate(abi.encodeCall(channel.transitionCode, (gameId, INCREMENT, q, m)), seed);
        _assertTransitionCalldataMatchesOld(cd);
    }

    // ================================================================ 3. rules differential

    function _positions() internal pure returns (bytes[] memory p) {
        p = new bytes[](14);
        p[0] = ChessRules.initialState();
        p[1] = K.fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        p[2] = K.fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
        p[3] = K.fen("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1");
        p[4] = K.fen("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8");
        p[5] = K.fen("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1");
        p[6] = K.fen("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1");
        p[7] = K.fen("1rrrrrk1/1PPPPPPP/8/8/8/8/8/6K1 b - - 0 1");
        // in check: mates, evasions by capture, block, en passant, double check, pins
        p[8] = K.fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        p[9] = K.fen("4k3/8/8/8/8/5n2/8/4K2R w K - 0 1"); // check by knight, king steps
        p[10] = K.fen("4k3/8/8/2pP4/1K6/8/8/8 w - c6 0 1"); // checked by the c5 pawn: dxc6 e.p.
        p[11] = K.fen("4k3/4r3/8/8/8/2B5/3N4/4K3 w - - 0 1"); // block on e2 by Nd2? no: Bc3 to e5? no
        p[12] = K.fen("3qk3/8/8/8/1b6/8/3P4/r3K3 w - - 0 1"); // double check
        p[13] = K.fen("6k1/5ppp/8/8/8/8/5PPP/1r2R1K1 w - - 0 1"); // check, Re1xb1 / block
    }

    /// validateState (castling and flag checks in assembly) agrees with the old library on
    /// valid states with one to three bytes overwritten (biased to the flag, king, rook and
    /// shadow bytes).
    function testFuzz_ValidateStateMatchesOld(uint256 which, uint256 seed) public pure {
        bytes[] memory p = _positions();
        bytes memory s = _copy(p[which % p.length]);
        uint8[18] memory hot = [8, 9, 10, 11, 56, 61, 62, 63, 77, 78, 79, 123, 0, 4, 7, 112, 116, 119];
        uint8[10] memory vals = [0, 1, 0xff, 4, 0xfc, 6, 0xfa, 0x80, 0x7f, 32];
        uint256 n = 1 + seed % 3;
        for (uint256 k; k < n; ++k) {
            uint256 r = uint256(keccak256(abi.encode(seed, k)));
            uint256 i = r % 2 == 0 ? hot[(r >> 8) % 18] : (r >> 8) % 128;
            uint8 v = (r >> 16) % 2 == 0 ? vals[(r >> 24) % 10] : uint8(r >> 32);
            if ((i == 61 || i == 77) && (r >> 40) % 2 == 0) v = uint8(i == 61 ? 32 : 80) + uint8((r >> 48) % 8);
            s[i] = bytes1(v);
        }
        assertEq(ChessRules.validateState(s), ChessRulesOld.validateState(s), "validateState differs");
    }

    /// Every byte value at each castling/flag/king/rook byte, on each position.
    function test_ValidateStateMatchesOldOnEveryFlagValue() public pure {
        bytes[] memory p = _positions();
        uint8[17] memory hot = [8, 9, 56, 61, 62, 63, 77, 78, 79, 0, 4, 7, 112, 116, 119, 11, 123];
        for (uint256 w; w < 4; ++w) {
            for (uint256 h; h < 17; ++h) {
                for (uint256 v; v < 256; ++v) {
                    bytes memory s = _copy(p[w == 3 ? 6 : w]);
                    s[hot[h]] = bytes1(uint8(v));
                    assertEq(ChessRules.validateState(s), ChessRulesOld.validateState(s), "validateState differs");
                }
            }
        }
    }

    /// status (the `_movers` knight and ray rewrite: checkers, evasions) agrees with the old
    /// library on the fixed positions, in check ones included.
    function test_StatusMatchesOldOnPositions() public pure {
        bytes[] memory p = _positions();
        for (uint256 i; i < p.length; ++i) {
            assertEq(ChessRules.validateState(p[i]), ChessRulesOld.validateState(p[i]), "validate");
            if (ChessRules.validateState(p[i]) != 0) continue;
            assertEq(ChessRules.status(p[i]), ChessRulesOld.status(p[i]), "status differs");
        }
    }

    /// status on random sparse boards (two kings and up to 14 random pieces, either side to
    /// move): most are in check, many by several pieces or with pinned defenders: agrees
    /// with the old library whenever the state is valid.
    function testFuzz_StatusMatchesOldOnRandomBoards(uint256 seed) public pure {
        bytes memory s = new bytes(128);
        uint256 r = uint256(keccak256(abi.encode(seed)));
        uint256 wk = _sq(r);
        uint256 bk = _sq(r >> 6);
        if (wk == bk) return;
        s[wk] = bytes1(uint8(6));
        s[bk] = bytes1(uint8(0xfa));
        s[123] = bytes1(uint8(wk));
        s[11] = bytes1(uint8(bk));
        s[56] = (r >> 12) % 2 == 0 ? bytes1(0x01) : bytes1(0xff);
        s[62] = 0xff;
        s[63] = 0xff;
        s[78] = 0xff;
        s[79] = 0xff;
        uint256 pieces = 2 + (r >> 13) % 15;
        for (uint256 k; k < pieces; ++k) {
            uint256 x = uint256(keccak256(abi.encode(seed, k)));
            uint256 sq = _sq(x);
            if ((x >> 12) % 2 == 0) {
                // half the pieces within two squares of a king (checks, blocked kings, mates)
                uint256 k = (x >> 13) % 2 == 0 ? wk : bk;
                uint256 near = k + 16 * ((x >> 14) % 5) + (x >> 17) % 5;
                if (near < 34) continue;
                near -= 34;
                if (near & 0x88 != 0) continue;
                sq = near;
            }
            if (s[sq] != 0) continue;
            int8 code = int8(uint8(1 + (x >> 6) % 5));
            if ((x >> 9) % 2 == 0) code = -code;
            if ((code == 1 || code == -1) && (sq < 8 || sq >= 112)) continue;
            s[sq] = bytes1(uint8(code));
        }
        uint256 v = ChessRules.validateState(s);
        assertEq(v, ChessRulesOld.validateState(s), "validateState differs");
        if (v == ChessRules.OPPONENT_IN_CHECK) {
            // the other side to move: it is the one in check
            s[56] = s[56] == bytes1(0x01) ? bytes1(0xff) : bytes1(0x01);
            v = ChessRules.validateState(s);
            assertEq(v, ChessRulesOld.validateState(s), "validateState differs");
        }
        if (v != 0) return;
        assertEq(ChessRules.status(s), ChessRulesOld.status(s), "status differs");
    }

    /// A random 0x88 board square.
    function _sq(uint256 r) internal pure returns (uint256) {
        return ((r >> 3) % 8) * 16 + r % 8;
    }

    /// Whether the side to move is in check (through the old library's code 6 on the state
    /// with the side flipped).
    function _inCheck(bytes memory s) internal pure returns (bool) {
        bytes memory t = _copy(s);
        t[56] = t[56] == bytes1(0x01) ? bytes1(0xff) : bytes1(0x01);
        return ChessRulesOld.validateState(t) == ChessRules.OPPONENT_IN_CHECK;
    }

    /// Random games preferring checking moves: at every ply validateState and status agree
    /// with the old library, and every legal move's application agrees (same state).
    /// forge-config: default.fuzz.runs = 12
    function testFuzz_StatusMatchesOldOnRandomGamesWithChecks(uint256 seed) public pure {
        bytes memory s = ChessRules.initialState();
        for (uint256 ply; ply < 60; ++ply) {
            assertEq(ChessRules.validateState(s), ChessRulesOld.validateState(s), "validateState differs");
            uint256 st = ChessRules.status(s);
            assertEq(st, ChessRulesOld.status(s), "status differs");
            if (st != ChessRules.ONGOING) return;
            uint256[] memory legal = K.legalMoves(s);
            seed = uint256(keccak256(abi.encode(seed, ply)));
            uint256 pick = legal[seed % legal.length];
            // a checking move if one exists, two times in three
            if (seed % 3 != 0) {
                for (uint256 i; i < legal.length; ++i) {
                    bytes memory t = _copy(s);
                    ChessRules.applyMove(t, legal[(i + seed) % legal.length]);
                    if (_inCheck(t)) {
                        pick = legal[(i + seed) % legal.length];
                        break;
                    }
                }
            }
            bytes memory o = _copy(s);
            assertEq(ChessRules.applyMove(s, pick), 0);
            assertEq(ChessRulesOld.applyMove(o, pick), 0);
            assertEq(s, o, "applyMove differs");
        }
    }
}

// ==================================================================== the code before df4c015

/// @dev df4c015~1's ChannelHash move, delegation and receipt hashes, unchanged.
library ChannelHashOld {
    function hashMove(Move calldata m) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                ChannelHash.MOVE_TYPEHASH,
                m.gameId,
                m.ply,
                m.mv,
                keccak256(m.state),
                m.history,
                m.whiteTime,
                m.blackTime,
                m.timestamp,
                m.previous
            )
        );
    }

    function hashDelegation(Delegation calldata d) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(ChannelHash.DELEGATION_TYPEHASH, d.gameId, d.sessionKey, d.firstPly, d.lastPly, d.expires)
        );
    }

    function hashReceipt(Receipt calldata r) internal pure returns (bytes32) {
        return keccak256(abi.encode(ChannelHash.RECEIPT_TYPEHASH, r.gameId, r.ply, r.position, r.seenAt));
    }
}

/// @dev df4c015~1's ChessChannel hash views and `transitionCode` (with `_transition`,
/// `_decided`, `_timesConsistent`), unchanged but for the names of the old libraries.
contract OldChannelTransition {
    uint256 internal constant WRONG_GAME = 1;
    uint256 internal constant WRONG_PLY = 2;
    uint256 internal constant WRONG_PREVIOUS = 3;
    uint256 internal constant BAD_TIME = 4;
    uint256 internal constant GAME_OVER = 5;
    uint256 internal constant ILLEGAL_MOVE = 6;
    uint256 internal constant WRONG_STATE = 7;
    uint256 internal constant WRONG_HISTORY = 8;

    function hashMove(Move calldata m) external pure returns (bytes32) {
        return ChannelHashOld.hashMove(m);
    }

    function hashDelegation(Delegation calldata d) external pure returns (bytes32) {
        return ChannelHashOld.hashDelegation(d);
    }

    function hashReceipt(Receipt calldata r) external pure returns (bytes32) {
        return ChannelHashOld.hashReceipt(r);
    }

    function transitionCode(uint256 gameId, uint256 increment, Move calldata q, Move calldata m)
        external
        pure
        returns (uint256 code, uint256 ruleCode)
    {
        (code, ruleCode,,) = _transition(gameId, increment, q, ChannelHashOld.hashMove(q), m);
    }

    function _transition(uint256 gameId, uint256 increment, Move calldata q, bytes32 qHash, Move calldata m)
        private
        pure
        returns (uint256 code, uint256 rule, bytes memory s, uint256 st)
    {
        if (m.gameId != gameId || q.gameId != gameId) return (WRONG_GAME, 0, s, 0);
        if (m.ply != uint256(q.ply) + 1) return (WRONG_PLY, 0, s, 0);
        if (m.previous != qHash) return (WRONG_PREVIOUS, 0, s, 0);
        if (m.state.length != 128) revert BadStateLength(m.state.length);
        if (!_timesConsistent(increment, q, m)) return (BAD_TIME, 0, s, 0);
        s = q.state;
        if (ChessRulesOld.validateState(s) != 0) return (ILLEGAL_MOVE, 0, s, 0);
        if (ChessRulesOld.halfmoveClock(s) >= 150) return (GAME_OVER, 0, s, 0);
        rule = ChessRulesOld.applyMove(s, m.mv);
        if (rule != 0) {
            if (_decided(q)) return (GAME_OVER, 0, s, 0);
            return (ILLEGAL_MOVE, rule, s, 0);
        }
        st = ChessRulesOld.status(s);
        if (st != ChessRulesOld.ONGOING && ChessRulesOld.bothInsufficient(q.state)) return (GAME_OVER, 0, s, 0);
        if (keccak256(s) != keccak256(m.state)) return (WRONG_STATE, 0, s, st);
        if (RepetitionChain.afterMove(s, q.history) != m.history) return (WRONG_HISTORY, 0, s, st);
    }

    function _decided(Move calldata q) private pure returns (bool) {
        return ChessRulesOld.status(q.state) != ChessRulesOld.ONGOING;
    }

    function _timesConsistent(uint256 increment, Move calldata q, Move calldata m) private pure returns (bool) {
        if (m.timestamp < q.timestamp) return false;
        uint256 elapsed = q.ply == 0 ? 0 : m.timestamp - q.timestamp;
        bool authorWhite = m.state[ChessRulesOld.CURRENT_PLAYER] != 0x01;
        (uint256 qa, uint256 qo, uint256 ma, uint256 mo) = authorWhite
            ? (uint256(q.whiteTime), uint256(q.blackTime), uint256(m.whiteTime), uint256(m.blackTime))
            : (uint256(q.blackTime), uint256(q.whiteTime), uint256(m.blackTime), uint256(m.whiteTime));
        return elapsed <= qa && ma <= qa - elapsed + increment && mo == qo;
    }
}

/// @dev df4c015~1's contracts/src/ChessRules.sol, the library renamed ChessRulesOld (its errors are
/// the current file's, declared identically).
/// @title ChessRulesOld
/// @notice The chess rules over the 128-byte 0x88 state of `shared/ENCODING.md`:
/// move checking with the section 6 codes in the section 6 order, move
/// application (section 5), state validation (section 7), game status
/// (section 8) and the repetition key (section 9).
/// @dev Every function except `validateState` expects a 128-byte state that
/// passes `validateState`; callers check that once at the boundary (custom
/// start states, view calls) and then only ever feed states produced by
/// `applyMove`, which keeps them valid. A move is a uint24
/// `(from << 16) | (to << 8) | promotion`; only the low 24 bits are read.
///
/// Gas: the referee runs `applyMove`, `status` and `repetitionKey` on every
/// move, so the hot paths (byte access, attack test, "is there any legal
/// move") work on the buffer in place with inline assembly, and the
/// legality test makes and unmakes the move on the buffer instead of copying
/// it. Everything else is plain Solidity.
library ChessRulesOld {
    // ---- section 3: shadow byte indices ----
    uint256 internal constant MOVE_COUNT_HIGH = 8;
    uint256 internal constant MOVE_COUNT_LOW = 9;
    uint256 internal constant HALFMOVE_CLOCK = 10;
    uint256 internal constant BLACK_KING_POS = 11;
    uint256 internal constant WHITE_KING_POS = 123;
    uint256 internal constant CURRENT_PLAYER = 56;
    uint256 internal constant BLACK_EN_PASSANT = 61;
    uint256 internal constant BLACK_LEFT_CASTLING = 62;
    uint256 internal constant BLACK_RIGHT_CASTLING = 63;
    uint256 internal constant WHITE_EN_PASSANT = 77;
    uint256 internal constant WHITE_LEFT_CASTLING = 78;
    uint256 internal constant WHITE_RIGHT_CASTLING = 79;

    // ---- section 6: rejection codes ----
    uint256 internal constant OFF_BOARD = 1;
    uint256 internal constant SAME_SQUARE = 2;
    uint256 internal constant EMPTY_FROM = 3;
    uint256 internal constant NOT_YOUR_PIECE = 4;
    uint256 internal constant OWN_PIECE_ON_TARGET = 5;
    uint256 internal constant BAD_GEOMETRY = 6;
    uint256 internal constant PATH_BLOCKED = 7;
    uint256 internal constant NO_CAPTURE_TARGET = 8;
    uint256 internal constant CASTLING_NOT_ALLOWED = 9;
    uint256 internal constant CASTLING_IN_CHECK = 10;
    uint256 internal constant CASTLING_THROUGH_CHECK = 11;
    uint256 internal constant PROMOTION_REQUIRED = 12;
    uint256 internal constant INVALID_PROMOTION = 13;
    uint256 internal constant KING_LEFT_IN_CHECK = 14;

    // ---- section 7: invalid-state codes ----
    uint256 internal constant BAD_PIECE_CODE = 1;
    uint256 internal constant BAD_FLAG = 2;
    uint256 internal constant KING_COUNT = 3;
    uint256 internal constant KING_POS_MISMATCH = 4;
    uint256 internal constant PAWN_ON_BACK_RANK = 5;
    uint256 internal constant OPPONENT_IN_CHECK = 6;
    uint256 internal constant BAD_CASTLING = 7;
    uint256 internal constant BAD_EN_PASSANT = 8;

    // ---- section 8: status codes ----
    uint256 internal constant ONGOING = 0;
    uint256 internal constant CHECKMATE = 1;
    uint256 internal constant STALEMATE = 2;
    uint256 internal constant INSUFFICIENT_MATERIAL = 3;
    uint256 internal constant SEVENTY_FIVE_MOVES = 4;

    // ---- piece roles (white codes; black = negated) ----
    int256 private constant PAWN = 1;
    int256 private constant KNIGHT = 2;
    int256 private constant BISHOP = 3;
    int256 private constant ROOK = 4;
    int256 private constant QUEEN = 5;
    int256 private constant KING = 6;

    // ---- move kinds found by the geometric checks (what make/unmake must do besides from->to) ----
    uint256 private constant NORMAL = 0;
    uint256 private constant DOUBLE_STEP = 1;
    uint256 private constant EN_PASSANT = 2;
    uint256 private constant CASTLE_KING_SIDE = 3;
    uint256 private constant CASTLE_QUEEN_SIDE = 4;

    /// @dev 0x88 step vectors as signed bytes, read with `signextend(0, byte(i, ..))`:
    /// bytes 0-3 straight (+1, -1, +16, -16), bytes 4-7 diagonal (+15, -15, +17, -17).
    uint256 private constant SLIDER_STEPS = 0x01ff10f00ff111ef << 192;
    /// @dev Knight vectors +33, +31, +18, +14, -33, -31, -18, -14 as signed bytes 0-7.
    uint256 private constant KNIGHT_STEPS = 0x211f120edfe1eef2 << 192;
    /// @dev Bit `0x77 + d` set for each king step d: tests adjacency of two squares
    /// with one shift, since the 0x88 difference of two squares identifies the vector.
    uint256 private constant KING_ADJACENT =
        (1 << 0x78) | (1 << 0x76) | (1 << 0x87) | (1 << 0x67) | (1 << 0x86) | (1 << 0x68) | (1 << 0x88) | (1 << 0x66);

    /// @dev Context of the "any legal move?" search, kept in memory to stay below the stack limit.
    struct Search {
        int256 side; // side to move, 1 or -1
        uint256 king; // its king's square
        uint256 targets; // bit set: squares a non-king move may land on (all when not in check)
        uint256 checker; // square of the single checking piece, 255 when not in check
        int256 pin; // for the piece being searched: step from the king towards its pinner, 0 if not pinned
    }

    // =====================================================================
    // Public API
    // =====================================================================

    /// @notice The standard initial position (ENCODING.md section 4).
    function initialState() internal pure returns (bytes memory) {
        return hex"fcfefdfbfafdfefc0000000400000000" hex"ffffffffffffffff0000000000000000"
            hex"00000000000000000000000000000000" hex"00000000000000000100000000000000"
            hex"00000000000000000000000000000000" hex"00000000000000000000000000000000"
            hex"01010101010101010000000000000000" hex"04020305060302040000007400000000";
    }

    /// @notice Whether white is the side to move (byte 56, CURRENT_PLAYER, is 1).
    function whiteToMove(bytes memory s) internal pure returns (bool w) {
        assembly ("memory-safe") {
            w := eq(byte(0, mload(add(s, 88))), 1) // 32 (length word) + 56
        }
    }

    /// @notice The halfmove clock (byte 10): plies since the last capture or pawn move.
    function halfmoveClock(bytes memory s) internal pure returns (uint256 hm) {
        assembly ("memory-safe") {
            hm := byte(10, mload(add(s, 32)))
        }
    }

    /// @notice Section 7 validation: 0 if `s` is a valid state, else the first failing code.
    /// @dev Reverts `BadStateLength` when `s` is not 128 bytes (no section 7 code covers it).
    /// Off-board king position bytes fail code 4 (they do not point at a king); an
    /// en-passant byte outside 32..39 (black's) / 80..87 (white's) fails code 2, its domain.
    function validateState(bytes memory s) internal pure returns (uint256) {
        if (s.length != 128) revert BadStateLength(s.length);
        unchecked {
            // 1 and 3 over the 64 board bytes a word at a time (a byte loop costs 11,000-60,000
            // gas, too much for the channel's per-transition check). A piece code is in -6..6
            // iff (byte + 6) mod 256 <= 12; kings are 6 and -6 (0xfa).
            uint256 badPiece;
            uint256 whiteKings;
            uint256 blackKings;
            assembly ("memory-safe") {
                // bytes equal to zero in `e`, counted (0x80 marks each, summed by multiplication)
                function zeroBytes(e) -> n {
                    let lo7 := 0x7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f
                    let z := not(or(or(add(and(e, lo7), lo7), e), lo7))
                    n := shr(248, mul(shr(7, z), 0x0101010101010101010101010101010101010101010101010101010101010101))
                }
                let p := add(s, 0x20)
                for { let k := 0 } lt(k, 128) { k := add(k, 32) } {
                    // the board bytes of two rows (bytes 0..7 and 16..23 of the word), others 0
                    let x := and(mload(add(p, k)), 0xffffffffffffffff0000000000000000ffffffffffffffff0000000000000000)
                    let hi := and(x, 0x8080808080808080808080808080808080808080808080808080808080808080)
                    // per byte (b + 6) mod 256, then >= 13 sets the byte's top bit
                    let t :=
                        xor(add(xor(x, hi), 0x0606060606060606060606060606060606060606060606060606060606060606), hi)
                    badPiece := or(
                        badPiece,
                        and(
                            or(
                                t,
                                add(
                                    and(t, 0x7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f),
                                    0x7373737373737373737373737373737373737373737373737373737373737373
                                )
                            ),
                            0x8080808080808080808080808080808080808080808080808080808080808080
                        )
                    )
                    whiteKings := add(
                        whiteKings,
                        zeroBytes(xor(x, 0x0606060606060606060606060606060606060606060606060606060606060606))
                    )
                    blackKings := add(
                        blackKings,
                        zeroBytes(xor(x, 0xfafafafafafafafafafafafafafafafafafafafafafafafafafafafafafafafa))
                    )
                }
            }
            if (badPiece != 0) return BAD_PIECE_CODE;
            // 2: shadow bytes (bytes 8..15 of each row): 0 but for the flags, checked one by one
            if (!_shadowBytesInDomain(s)) return BAD_FLAG;
            // 3: exactly one king of each colour
            if (whiteKings != 1 || blackKings != 1) return KING_COUNT;
            // 4: king position bytes
            uint256 wk = _raw(s, WHITE_KING_POS);
            uint256 bk = _raw(s, BLACK_KING_POS);
            if (wk & 0x88 != 0 || bk & 0x88 != 0 || _at(s, wk) != KING || _at(s, bk) != -KING) {
                return KING_POS_MISMATCH;
            }
            // 5: no pawn on rank 8 (row 0) or rank 1 (row 7): no byte of either row is 0x01 or
            // 0xff, tested a row at a time (a byte of x is 0 iff (x - 0x01..) & ~x & 0x80.. has it)
            bool backRankPawn;
            assembly ("memory-safe") {
                function hasZeroByte(x) -> r {
                    r := and(and(sub(x, 0x0101010101010101), not(x)), 0x8080808080808080)
                }
                let r8 := shr(192, mload(add(s, 0x20)))
                let r1 := shr(192, mload(add(s, 0x90)))
                backRankPawn := or(
                    or(hasZeroByte(xor(r8, 0x0101010101010101)), hasZeroByte(xor(r8, 0xffffffffffffffff))),
                    or(hasZeroByte(xor(r1, 0x0101010101010101)), hasZeroByte(xor(r1, 0xffffffffffffffff)))
                )
            }
            if (backRankPawn) return PAWN_ON_BACK_RANK;
            // 6: the side not to move is not in check
            int256 side = _at(s, CURRENT_PLAYER);
            if (_attacked(s, side > 0 ? bk : wk, side)) return OPPONENT_IN_CHECK;
            // 7: kept castling rights need king and rook at home
            if (!_rightConsistent(s, WHITE_LEFT_CASTLING, 116, 112, KING, ROOK)) return BAD_CASTLING;
            if (!_rightConsistent(s, WHITE_RIGHT_CASTLING, 116, 119, KING, ROOK)) return BAD_CASTLING;
            if (!_rightConsistent(s, BLACK_LEFT_CASTLING, 4, 0, -KING, -ROOK)) return BAD_CASTLING;
            if (!_rightConsistent(s, BLACK_RIGHT_CASTLING, 4, 7, -KING, -ROOK)) return BAD_CASTLING;
            // 8: en passant
            uint256 wep = _raw(s, WHITE_EN_PASSANT);
            uint256 bep = _raw(s, BLACK_EN_PASSANT);
            if (wep != 0 && bep != 0) return BAD_EN_PASSANT;
            if (wep != 0) {
                // set by white's double step: black to move, white pawn on rank 4, the rank-2 square empty
                if (side != -1 || wep < 80 || wep > 87) return BAD_EN_PASSANT;
                if (_at(s, wep - 16) != PAWN || _at(s, wep) != 0 || _at(s, wep + 16) != 0) return BAD_EN_PASSANT;
            }
            if (bep != 0) {
                if (side != 1 || bep < 32 || bep > 39) return BAD_EN_PASSANT;
                if (_at(s, bep + 16) != -PAWN || _at(s, bep) != 0 || _at(s, bep - 16) != 0) return BAD_EN_PASSANT;
            }
        }
        return 0;
    }

    /// @notice Section 6: 0 if `move` is legal in `s`, else the rejection code. `s` is not modified.
    function check(bytes memory s, uint256 move) internal pure returns (uint256 code) {
        (uint256 from, uint256 to, uint256 promotion) = _split(move);
        uint256 kind;
        int256 piece;
        (code, kind, piece) = _precheck(s, from, to, promotion);
        if (code != 0) return code;
        int256 side = piece > 0 ? int256(1) : -1;
        int256 captured = _make(s, from, to, kind, piece, side);
        bool exposed = _attacked(s, piece == KING * side ? to : _kingSquare(s, side), -side);
        _unmake(s, from, to, kind, piece, side, captured);
        if (exposed) return KING_LEFT_IN_CHECK;
    }

    /// @notice Returns the state after `move`; reverts `IllegalMove(code)` if it is illegal. `s` is not modified.
    function play(bytes memory s, uint256 move) internal pure returns (bytes memory next) {
        next = bytes.concat(s);
        uint256 code = applyMove(next, move);
        if (code != 0) revert IllegalMove(uint8(code));
    }

    /// @notice Applies `move` to `s` in place (section 5) and returns 0, or returns the
    /// section 6 code and leaves `s` unchanged.
    function applyMove(bytes memory s, uint256 move) internal pure returns (uint256 code) {
        (uint256 from, uint256 to, uint256 promotion) = _split(move);
        uint256 kind;
        int256 piece;
        (code, kind, piece) = _precheck(s, from, to, promotion);
        if (code != 0) return code;
        int256 side = piece > 0 ? int256(1) : -1;
        int256 captured = _make(s, from, to, kind, piece, side);
        bool isKing = piece == KING * side;
        if (_attacked(s, isKing ? to : _kingSquare(s, side), -side)) {
            _unmake(s, from, to, kind, piece, side, captured);
            return KING_LEFT_IN_CHECK;
        }
        if (promotion != 0) _put(s, to, int256(promotion) * side);
        _updateFlags(s, from, to, kind, isKing, piece == side || captured != 0, side);
    }

    /// @notice Section 8 status of `s` for the side to move.
    function status(bytes memory s) internal pure returns (uint256) {
        int256 side = _at(s, CURRENT_PLAYER);
        uint256 king = _kingSquare(s, side);
        bool inCheck = _attacked(s, king, -side);
        if (!_hasLegalMove(s, side, king, inCheck)) return inCheck ? CHECKMATE : STALEMATE;
        if (bothInsufficient(s)) return INSUFFICIENT_MATERIAL;
        if (_raw(s, HALFMOVE_CLOCK) >= 150) return SEVENTY_FIVE_MOVES;
        return ONGOING;
    }

    /// @notice Whether `side` (1 white, -1 black) has insufficient mating material
    /// (section 8; shakmaty's `has_insufficient_material`).
    function insufficientMaterial(bytes memory s, int256 side) internal pure returns (bool) {
        uint256 ownKnights;
        uint256 ownBishops;
        uint256 ownMinors; // own pieces other than the king
        uint256 oppNonQueen; // opponent pieces other than king and queens
        uint256 knightsOrPawns; // both sides
        uint256 bishopColours; // bit 0: a bishop on a light square, bit 1: on a dark square
        unchecked {
            for (uint256 i = 0; i < 120; ++i) {
                if (i & 8 != 0) continue;
                int256 v = _at(s, i);
                if (v == 0) continue;
                int256 role = v < 0 ? -v : v;
                bool own = (v > 0) == (side > 0);
                if (own) {
                    if (role == PAWN || role == ROOK || role == QUEEN) return false;
                    if (role != KING) ++ownMinors;
                    if (role == KNIGHT) ++ownKnights;
                    if (role == BISHOP) ++ownBishops;
                } else if (role != KING && role != QUEEN) {
                    ++oppNonQueen;
                }
                if (role == KNIGHT || role == PAWN) ++knightsOrPawns;
                // a8 (0) is light: a square is dark iff file + row is odd
                if (role == BISHOP) bishopColours |= 1 << (((i & 7) + (i >> 4)) & 1);
            }
        }
        if (ownKnights != 0) return ownMinors == 1 && oppNonQueen == 0;
        if (ownBishops != 0) return bishopColours != 3 && knightsOrPawns == 0;
        return true;
    }

    /// @notice Section 9 repetition key: keccak256 of the state with bytes 8, 9, 10 zeroed
    /// and the en-passant byte zeroed unless the side to move has a legal en-passant capture.
    function repetitionKey(bytes memory s) internal pure returns (bytes32 key) {
        int256 side = _at(s, CURRENT_PLAYER);
        uint256 epIndex = side > 0 ? BLACK_EN_PASSANT : WHITE_EN_PASSANT;
        uint256 ep = _raw(s, epIndex);
        bool keepEp;
        if (ep != 0) {
            // the capturing pawn stands beside the double-stepped pawn, one row behind the target
            uint256 behind = uint256(int256(ep) + 16 * side);
            if (_epCaptureLegal(s, behind - 1, ep, side) || _epCaptureLegal(s, behind + 1, ep, side)) keepEp = true;
        }
        assembly ("memory-safe") {
            // hash a copy in scratch memory past the free memory pointer
            let src := add(s, 0x20)
            let dst := mload(0x40)
            // zero bytes 8, 9, 10 (move count, halfmove clock) of the first word
            mstore(dst, and(mload(src), not(shl(168, 0xffffff))))
            mstore(add(dst, 0x20), mload(add(src, 0x20)))
            mstore(add(dst, 0x40), mload(add(src, 0x40)))
            mstore(add(dst, 0x60), mload(add(src, 0x60)))
            if iszero(keepEp) { mstore8(add(dst, epIndex), 0) }
            key := keccak256(dst, 128)
        }
    }

    // =====================================================================
    // Move checking (codes 1-13) and make/unmake
    // =====================================================================

    function _split(uint256 move) private pure returns (uint256 from, uint256 to, uint256 promotion) {
        from = (move >> 16) & 0xff;
        to = (move >> 8) & 0xff;
        promotion = move & 0xff;
    }

    /// @dev Codes 1-13 in section 6 order; also returns the move kind and the moving piece.
    function _precheck(bytes memory s, uint256 from, uint256 to, uint256 promotion)
        private
        pure
        returns (uint256 code, uint256 kind, int256 piece)
    {
        // 0x88 covers both "& 0x88 != 0" and ">= 128" for a byte
        if ((from | to) & 0x88 != 0) return (OFF_BOARD, 0, 0);
        if (from == to) return (SAME_SQUARE, 0, 0);
        piece = _at(s, from);
        if (piece == 0) return (EMPTY_FROM, 0, piece);
        int256 side = _at(s, CURRENT_PLAYER);
        if ((piece > 0) != (side > 0)) return (NOT_YOUR_PIECE, 0, piece);
        int256 target = _at(s, to);
        if (target != 0 && (target > 0) == (side > 0)) return (OWN_PIECE_ON_TARGET, 0, piece);
        int256 role = piece * side;
        if (role == PAWN) {
            (code, kind) = _pawnGeometry(s, from, to, side, target);
        } else if (role == KING) {
            (code, kind) = _kingGeometry(s, from, to, side);
        } else {
            code = _pieceGeometry(s, from, to, role);
        }
        if (code != 0) return (code, kind, piece);
        if (role == PAWN && (to >> 4) == (side > 0 ? 0 : 7)) {
            if (promotion == 0) return (PROMOTION_REQUIRED, kind, piece);
            if (promotion < 2 || promotion > 5) return (INVALID_PROMOTION, kind, piece);
        } else if (promotion != 0) {
            return (INVALID_PROMOTION, kind, piece);
        }
    }

    /// @dev Knight, bishop, rook, queen: codes 6 and 7.
    function _pieceGeometry(bytes memory s, uint256 from, uint256 to, int256 role) private pure returns (uint256) {
        unchecked {
            int256 df = int256(to & 7) - int256(from & 7);
            int256 dr = int256(to >> 4) - int256(from >> 4);
            int256 adf = df < 0 ? -df : df;
            int256 adr = dr < 0 ? -dr : dr;
            if (role == KNIGHT) return adf * adr == 2 ? 0 : BAD_GEOMETRY;
            bool diagonal = adf == adr;
            bool straight = adf == 0 || adr == 0;
            if (role == BISHOP ? !diagonal : role == ROOK ? !straight : !(diagonal || straight)) return BAD_GEOMETRY;
            int256 step =
                (dr > 0 ? int256(16) : dr < 0 ? -16 : int256(0)) + (df > 0 ? int256(1) : df < 0 ? -1 : int256(0));
            for (uint256 t = uint256(int256(from) + step); t != to; t = uint256(int256(t) + step)) {
                if (_raw(s, t) != 0) return PATH_BLOCKED;
            }
            return 0;
        }
    }

    /// @dev Pawn: codes 6, 7, 8.
    function _pawnGeometry(bytes memory s, uint256 from, uint256 to, int256 side, int256 target)
        private
        pure
        returns (uint256, uint256)
    {
        unchecked {
            int256 df = int256(to & 7) - int256(from & 7);
            int256 dr = int256(to >> 4) - int256(from >> 4);
            // white moves towards row 0: a forward row step is -side
            if (df == 0) {
                if (dr == -side) return (target != 0 ? PATH_BLOCKED : 0, NORMAL);
                if (dr == -2 * side && (from >> 4) == (side > 0 ? 6 : 1)) {
                    if (_raw(s, (from + to) >> 1) != 0 || target != 0) return (PATH_BLOCKED, 0);
                    return (0, DOUBLE_STEP);
                }
                return (BAD_GEOMETRY, 0);
            }
            if ((df == 1 || df == -1) && dr == -side) {
                if (target != 0) return (0, NORMAL);
                uint256 ep = _raw(s, side > 0 ? BLACK_EN_PASSANT : WHITE_EN_PASSANT);
                if (ep != 0 && ep == to) return (0, EN_PASSANT);
                return (NO_CAPTURE_TARGET, 0);
            }
            return (BAD_GEOMETRY, 0);
        }
    }

    /// @dev King: code 6; castling codes 9, 7, 10, 11 in that order.
    function _kingGeometry(bytes memory s, uint256 from, uint256 to, int256 side)
        private
        pure
        returns (uint256, uint256)
    {
        unchecked {
            if ((KING_ADJACENT >> (to + 0x77 - from)) & 1 != 0) return (0, NORMAL);
            uint256 home = side > 0 ? 116 : 4;
            if (from != home || (to != home + 2 && to != home - 2)) return (BAD_GEOMETRY, 0);
            bool kingSide = to == home + 2;
            uint256 right = side > 0
                ? (kingSide ? WHITE_RIGHT_CASTLING : WHITE_LEFT_CASTLING)
                : (kingSide ? BLACK_RIGHT_CASTLING : BLACK_LEFT_CASTLING);
            if (_raw(s, right) != 0 || _at(s, kingSide ? home + 3 : home - 4) != ROOK * side) {
                return (CASTLING_NOT_ALLOWED, 0);
            }
            if (kingSide) {
                if (_raw(s, home + 1) != 0 || _raw(s, home + 2) != 0) return (PATH_BLOCKED, 0);
            } else if (_raw(s, home - 1) != 0 || _raw(s, home - 2) != 0 || _raw(s, home - 3) != 0) {
                return (PATH_BLOCKED, 0);
            }
            if (_attacked(s, home, -side)) return (CASTLING_IN_CHECK, 0);
            if (_attacked(s, kingSide ? home + 1 : home - 1, -side)) return (CASTLING_THROUGH_CHECK, 0);
            return (0, kingSide ? CASTLE_KING_SIDE : CASTLE_QUEEN_SIDE);
        }
    }

    /// @dev Moves the pieces of a geometrically valid move (the pawn stays a pawn: a
    /// promotion does not change which squares are attacked). Returns the captured piece.
    function _make(bytes memory s, uint256 from, uint256 to, uint256 kind, int256 piece, int256 side)
        private
        pure
        returns (int256 captured)
    {
        unchecked {
            captured = _at(s, to);
            _put(s, to, piece);
            _put(s, from, 0);
            if (kind == EN_PASSANT) {
                // the double-stepped pawn stands one row behind the target, seen from the mover
                _put(s, uint256(int256(to) + 16 * side), 0);
            } else if (kind == CASTLE_KING_SIDE) {
                _put(s, from + 3, 0);
                _put(s, from + 1, ROOK * side);
            } else if (kind == CASTLE_QUEEN_SIDE) {
                _put(s, from - 4, 0);
                _put(s, from - 1, ROOK * side);
            }
        }
    }

    /// @dev Exact inverse of `_make`.
    function _unmake(bytes memory s, uint256 from, uint256 to, uint256 kind, int256 piece, int256 side, int256 captured)
        private
        pure
    {
        unchecked {
            _put(s, from, piece);
            _put(s, to, captured);
            if (kind == EN_PASSANT) {
                _put(s, uint256(int256(to) + 16 * side), -side);
            } else if (kind == CASTLE_KING_SIDE) {
                _put(s, from + 3, ROOK * side);
                _put(s, from + 1, 0);
            } else if (kind == CASTLE_QUEEN_SIDE) {
                _put(s, from - 4, ROOK * side);
                _put(s, from - 1, 0);
            }
        }
    }

    /// @dev Section 5 steps 1 and 3-7 (the board itself was updated by `_make`), in
    /// assembly because it runs on every referee move: byte writes and one read of the
    /// counters instead of a dozen helper calls.
    function _updateFlags(
        bytes memory s,
        uint256 from,
        uint256 to,
        uint256 kind,
        bool isKing,
        bool resetsClock,
        int256 side
    ) private pure {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            let white := eq(side, 1)
            // 1. both en-passant bytes (61 black, 77 white) cleared; 5. set after a double step
            mstore8(add(p, 61), 0)
            mstore8(add(p, 77), 0)
            if eq(kind, 1) { mstore8(add(p, add(61, mul(white, 16))), shr(1, add(from, to))) }
            // 3./4. king position (123 white, 11 black) and both of its side's rights (78/79, 62/63)
            if isKing {
                mstore8(add(p, add(11, mul(white, 112))), to)
                let r := add(p, add(62, mul(white, 16)))
                mstore8(r, 0xff)
                mstore8(add(r, 1), 0xff)
            }
            // 4. a move from a corner moves its rook, a move to a corner captures it:
            // corner 0 -> 62, 7 -> 63, 112 -> 78, 119 -> 79
            for { let i := 0 } lt(i, 2) { i := add(i, 1) } {
                let c := from
                if i { c := to }
                if and(shr(c, 0x810000000000000000000000000081), 1) {
                    mstore8(add(p, add(add(62, and(c, 1)), mul(16, gt(c, 7)))), 0xff)
                }
            }
            // 6./7. bytes 8 (count high), 9 (count low), 10 (halfmove clock)
            let w := mload(p)
            let high := byte(8, w)
            let low := byte(9, w)
            let clock := byte(10, w)
            switch resetsClock
            case 0 { clock := add(clock, lt(clock, 255)) }
            default { clock := 0 }
            switch lt(low, 127)
            case 1 { low := add(low, 1) }
            default {
                if lt(high, 127) {
                    high := add(high, 1)
                    low := 0
                }
            }
            mstore8(add(p, 8), high)
            mstore8(add(p, 9), low)
            mstore8(add(p, 10), clock)
            // CURRENT_PLAYER flips: 0x01 <-> 0xff
            mstore8(add(p, 56), sub(0, side))
        }
    }

    /// @dev Whether the pawn of `side` on `from` (if any) may legally capture en passant on `ep`.
    function _epCaptureLegal(bytes memory s, uint256 from, uint256 ep, int256 side) private pure returns (bool) {
        if (from & 0x88 != 0 || _at(s, from) != side) return false;
        return check(s, (from << 16) | (ep << 8)) == 0;
    }

    // =====================================================================
    // Attack test
    // =====================================================================

    /// @dev True if square `sq` is attacked by side `by` (1 white, -1 black) on the current board.
    /// Scans outwards from `sq`: two pawn squares, eight knight squares, the enemy king's
    /// square (from its position byte, one table lookup), then the eight rays. Unrolled:
    /// this runs at least twice per referee move, and "not attacked" (every test runs) is
    /// the usual answer. Any index in [-128, 255] is on the board iff `and(i, 0x88)` is 0.
    function _attacked(bytes memory s, uint256 sq, int256 by) private pure returns (bool hit) {
        assembly ("memory-safe") {
            // Straight-line code on purpose: the legacy code generator does not inline Yul
            // functions or unroll loops, and this test runs at least twice per referee move.
            // Returns 0 ("not attacked") only by falling through every test; `leave` = attacked.
            function notAttacked(p, target, attacker) -> r {
                // a white attacker pawn sits one row below (target + 16), a black one a row above
                let b := add(target, mul(attacker, 16))
                let v := and(attacker, 0xff)
                let t := sub(b, 1)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := add(b, 1)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                v := and(mul(attacker, 2), 0xff)
                t := add(target, 33)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := add(target, 31)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := add(target, 18)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := add(target, 14)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := sub(target, 33)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := sub(target, 31)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := sub(target, 18)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := sub(target, 14)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                // enemy king from its position byte: 123 (white) / 11 (black); bit 0x77 + d of the
                // constant is set for the eight king steps d
                let k := byte(0, mload(add(p, add(11, mul(eq(attacker, 1), 112)))))
                if and(shr(sub(add(target, 0x77), k), 0x1c0014001c0000000000000000000000000), 1) { leave }
                let q := and(mul(attacker, 5), 0xff)
                let o := and(mul(attacker, 4), 0xff) // rook on the straight rays
                b := and(mul(attacker, 3), 0xff) // bishop on the diagonals
                for { t := add(target, 1) } iszero(and(t, 0x88)) { t := add(t, 1) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, o), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, sub(0, 1)) } iszero(and(t, 0x88)) { t := add(t, sub(0, 1)) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, o), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, 16) } iszero(and(t, 0x88)) { t := add(t, 16) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, o), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, sub(0, 16)) } iszero(and(t, 0x88)) { t := add(t, sub(0, 16)) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, o), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, 15) } iszero(and(t, 0x88)) { t := add(t, 15) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, b), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, sub(0, 15)) } iszero(and(t, 0x88)) { t := add(t, sub(0, 15)) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, b), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, 17) } iszero(and(t, 0x88)) { t := add(t, 17) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, b), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, sub(0, 17)) } iszero(and(t, 0x88)) { t := add(t, sub(0, 17)) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, b), eq(v, q)) { leave }
                        break
                    }
                }
                r := 1
            }
            hit := iszero(notAttacked(add(s, 0x20), sq, by))
        }
    }

    // =====================================================================
    // Legal-move existence (status)
    // =====================================================================

    function _hasLegalMove(bytes memory s, int256 side, uint256 king, bool inCheck) private pure returns (bool) {
        Search memory q = Search({side: side, king: king, targets: type(uint256).max, checker: 255, pin: 0});
        if (!inCheck) {
            // cheapest first: piece moves need no attack test (pins are found by one ray walk)
            return _hasPieceMove(s, q) || _hasKingMove(s, side, king);
        }
        if (_hasKingMove(s, side, king)) return true;
        // the checkers are the enemy pieces that could capture on the king's square
        uint256 checkers = _movers(s, king, -side, true);
        // double check: only the king can move
        if (checkers > 0xff) return false;
        q.checker = checkers - 1;
        return _hasEvasion(s, q);
    }

    /// @dev In check by the one piece on `q.checker`: any legal non-king move that captures
    /// it or blocks its line. Searched from those few squares outwards rather than over every
    /// piece's moves (a mate search costs a third). A pinned piece never answers a check (the
    /// pin and check lines meet only at the king); en passant, which removes a second pawn,
    /// is tested for real.
    function _hasEvasion(bytes memory s, Search memory q) private pure returns (bool) {
        unchecked {
            int256 side = q.side;
            uint256 checker = q.checker;
            uint256 king = q.king;
            // a slider's line to the king, from the checker's side (0 for a knight or pawn)
            int256 step;
            {
                int256 role = _at(s, checker) * -side;
                if (role == BISHOP || role == ROOK || role == QUEEN) step = _lineStep(checker, king);
            }
            uint256 targets = 1 << checker;
            if (step != 0) {
                for (uint256 t = uint256(int256(checker) + step); t != king; t = uint256(int256(t) + step)) {
                    targets |= 1 << t;
                }
            }
            q.targets = targets;
            uint256 ep = _raw(s, side > 0 ? BLACK_EN_PASSANT : WHITE_EN_PASSANT);
            if (ep != 0) {
                for (uint256 j = 0; j < 2; ++j) {
                    uint256 from = uint256(int256(ep) + 16 * side) + j * 2 - 1;
                    if (from & 0x88 == 0 && _at(s, from) == PAWN * side) {
                        if (_candidateLegal(s, q, from, ep, EN_PASSANT, PAWN * side)) return true;
                    }
                }
            }
            if (_reaches(s, king, checker, side, true)) return true;
            if (step != 0) {
                for (uint256 t = uint256(int256(checker) + step); t != king; t = uint256(int256(t) + step)) {
                    if (_reaches(s, king, t, side, false)) return true;
                }
            }
            return false;
        }
    }

    /// @dev Whether an unpinned non-king piece of `side` moves to `t` by a pseudo-legal move:
    /// a capture of the piece there when `capture`, else a step onto the empty `t`.
    function _reaches(bytes memory s, uint256 king, uint256 t, int256 side, bool capture) private pure returns (bool) {
        unchecked {
            for (uint256 list = _movers(s, t, side, capture); list != 0; list >>= 8) {
                if (_pinStep(s, king, (list & 0xff) - 1, side) == 0) return true;
            }
            return false;
        }
    }

    /// @dev The squares (each plus one, one per byte) of the non-king pieces of `side` with
    /// a pseudo-legal move to `t` (as in `_reaches`), pins ignored.
    function _movers(bytes memory s, uint256 t, int256 side, bool capture) private pure returns (uint256 list) {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            let n := and(mul(side, 2), 0xff)
            let u := 0
            for { let i := 0 } lt(i, 8) { i := add(i, 1) } {
                u := add(t, signextend(0, byte(i, KNIGHT_STEPS)))
                if iszero(and(u, 0x88)) {
                    if eq(byte(0, mload(add(p, u))), n) { list := or(shl(8, list), add(u, 1)) }
                }
            }
            let q := and(mul(side, 5), 0xff)
            // straight lines first (rook or queen), then diagonals (bishop or queen)
            let slider := and(mul(side, 4), 0xff)
            for { let i := 0 } lt(i, 8) { i := add(i, 1) } {
                if eq(i, 4) { slider := and(mul(side, 3), 0xff) }
                let d := signextend(0, byte(i, SLIDER_STEPS))
                for { u := add(t, d) } iszero(and(u, 0x88)) { u := add(u, d) } {
                    let v := byte(0, mload(add(p, u)))
                    if v {
                        if or(eq(v, q), eq(v, slider)) { list := or(shl(8, list), add(u, 1)) }
                        break
                    }
                }
            }
            // a pawn of `side` stands one row behind `t`: below it for white (higher index)
            let pawn := and(side, 0xff)
            let behind := add(t, mul(side, 16))
            switch capture
            case 1 {
                u := sub(behind, 1)
                if iszero(and(u, 0x88)) {
                    if eq(byte(0, mload(add(p, u))), pawn) { list := or(shl(8, list), add(u, 1)) }
                }
                u := add(behind, 1)
                if iszero(and(u, 0x88)) {
                    if eq(byte(0, mload(add(p, u))), pawn) { list := or(shl(8, list), add(u, 1)) }
                }
            }
            default {
                if iszero(and(behind, 0x88)) {
                    let v := byte(0, mload(add(p, behind)))
                    if eq(v, pawn) { list := or(shl(8, list), add(behind, 1)) }
                    // a double step lands on row 4 (white) or row 3 (black) over an empty square
                    if iszero(v) {
                        if eq(shr(4, t), add(3, sgt(side, 0))) {
                            u := add(behind, mul(side, 16))
                            if eq(byte(0, mload(add(p, u))), pawn) { list := or(shl(8, list), add(u, 1)) }
                        }
                    }
                }
            }
        }
    }

    /// @dev Any legal king step (castling never needs testing: if it is legal, so is the step to f1/d1).
    function _hasKingMove(bytes memory s, int256 side, uint256 king) private pure returns (bool) {
        unchecked {
            int256 k = KING * side;
            for (uint256 i = 0; i < 8; ++i) {
                uint256 t = uint256(int256(king) + _sliderStep(i));
                if (t & 0x88 != 0) continue;
                int256 v = _at(s, t);
                if (v != 0 && (v > 0) == (side > 0)) continue;
                // lift the king so that it does not shield the squares behind it
                _put(s, king, 0);
                _put(s, t, k);
                bool hit = _attacked(s, t, -side);
                _put(s, t, v);
                _put(s, king, k);
                if (!hit) return true;
            }
            return false;
        }
    }

    /// @dev Any legal move of a non-king piece landing on `q.targets`.
    function _hasPieceMove(bytes memory s, Search memory q) private pure returns (bool) {
        unchecked {
            int256 side = q.side;
            // Rows from the mover's pawn rank towards the enemy, its back rank last: pawns
            // there are rarely pinned and usually have a step, so the search ends early.
            uint256 order = side > 0 ? 0x0605040302010007 : 0x0102030405060700;
            for (uint256 r = 0; r < 8; ++r) {
                uint256 base = ((order >> (56 - 8 * r)) & 0xff) << 4;
                uint256 row = _row(s, base);
                if (row == 0) continue;
                for (uint256 f = 0; f < 8; ++f) {
                    // signed piece code of file f from the row's eight board bytes
                    int256 piece = int256(int8(uint8(row >> (56 - 8 * f))));
                    int256 role = piece * side;
                    if (role <= 0 || role == KING) continue;
                    if (_pieceHasMove(s, q, base + f, piece, role)) return true;
                }
            }
            return false;
        }
    }

    /// @dev Any legal move of the non-king piece `piece` (role `role`) on `from`.
    function _pieceHasMove(bytes memory s, Search memory q, uint256 from, int256 piece, int256 role)
        private
        pure
        returns (bool)
    {
        unchecked {
            int256 side = q.side;
            q.pin = _pinStep(s, q.king, from, side);
            if (role == PAWN) return _pawnHasMove(s, q, from, piece);
            if (role == KNIGHT) {
                for (uint256 i = 0; i < 8; ++i) {
                    uint256 t = uint256(int256(from) + _knightStep(i));
                    if (t & 0x88 != 0 || _at(s, t) * side > 0) continue;
                    if (_candidateLegal(s, q, from, t, NORMAL, piece)) return true;
                }
                return false;
            }
            // bishop: diagonals (4-7), rook: straight (0-3), queen: all
            uint256 last = role == ROOK ? 4 : 8;
            for (uint256 i = role == BISHOP ? 4 : 0; i < last; ++i) {
                int256 d = _sliderStep(i);
                for (uint256 t = uint256(int256(from) + d); t & 0x88 == 0; t = uint256(int256(t) + d)) {
                    int256 v = _at(s, t);
                    if (v * side > 0) break;
                    if (_candidateLegal(s, q, from, t, NORMAL, piece)) return true;
                    if (v != 0) break;
                }
            }
            return false;
        }
    }

    function _pawnHasMove(bytes memory s, Search memory q, uint256 from, int256 piece) private pure returns (bool) {
        unchecked {
            int256 side = q.side;
            // pawns never stand on the last rank, so one step forward is on the board
            uint256 one = uint256(int256(from) - 16 * side);
            if (_raw(s, one) == 0) {
                if (_candidateLegal(s, q, from, one, NORMAL, piece)) return true;
                if ((from >> 4) == (side > 0 ? 6 : 1)) {
                    uint256 two = uint256(int256(one) - 16 * side);
                    if (_raw(s, two) == 0 && _candidateLegal(s, q, from, two, DOUBLE_STEP, piece)) return true;
                }
            }
            uint256 ep = _raw(s, side > 0 ? BLACK_EN_PASSANT : WHITE_EN_PASSANT);
            for (uint256 j = 0; j < 2; ++j) {
                uint256 t = j == 0 ? one - 1 : one + 1;
                if (t & 0x88 != 0) continue;
                int256 v = _at(s, t);
                if (v * side < 0) {
                    if (_candidateLegal(s, q, from, t, NORMAL, piece)) return true;
                } else if (v == 0 && ep != 0 && t == ep) {
                    if (_candidateLegal(s, q, from, t, EN_PASSANT, piece)) return true;
                }
            }
            return false;
        }
    }

    /// @dev Whether a pseudo-legal non-king move is legal, without an attack test except for
    /// en passant: in check it must land on `q.targets` (capture or block the single
    /// checker), and a pinned piece (`q.pin`) must stay on its pin line.
    function _candidateLegal(bytes memory s, Search memory q, uint256 from, uint256 to, uint256 kind, int256 piece)
        private
        pure
        returns (bool)
    {
        unchecked {
            int256 side = q.side;
            if ((q.targets >> to) & 1 == 0) {
                // en passant can also answer a check by removing the checking pawn
                if (kind != EN_PASSANT || uint256(int256(to) + 16 * side) != q.checker) return false;
            }
            uint256 king = q.king;
            if (kind != EN_PASSANT) {
                // a pinned piece may only move along the pin line (never true in check:
                // the check and pin lines meet only at the king)
                int256 pin = q.pin;
                if (pin == 0) return true;
                int256 diff = int256(to) - int256(king);
                int256 steps = diff / pin;
                return steps > 0 && steps < 8 && steps * pin == diff;
            }
            // en passant removes a second pawn from the board: test it for real
            int256 captured = _make(s, from, to, kind, piece, side);
            bool hit = _attacked(s, king, -side);
            _unmake(s, from, to, kind, piece, side, captured);
            return !hit;
        }
    }

    /// @dev If the piece of `side` on `from` is pinned against its king on `king`, the
    /// step from the king towards the pinner; else 0. Pinned: on a line with the king,
    /// nothing between them, and the first piece beyond it on that line an enemy queen,
    /// or rook (straight line) or bishop (diagonal).
    function _pinStep(bytes memory s, uint256 king, uint256 from, int256 side) private pure returns (int256) {
        unchecked {
            int256 df = int256(from & 7) - int256(king & 7);
            int256 dr = int256(from >> 4) - int256(king >> 4);
            bool straight = df == 0 || dr == 0;
            if (!straight && df != dr && df != -dr) return 0;
            int256 step = _lineStep(king, from);
            uint256 t = uint256(int256(king) + step);
            for (; t != from; t = uint256(int256(t) + step)) {
                if (_raw(s, t) != 0) return 0;
            }
            for (t = uint256(int256(t) + step); t & 0x88 == 0; t = uint256(int256(t) + step)) {
                int256 v = _at(s, t);
                if (v == 0) continue;
                if (v == -QUEEN * side || v == (straight ? -ROOK : -BISHOP) * side) return step;
                return 0;
            }
            return 0;
        }
    }

    /// @dev The king-like step from `from` towards `to` (one row and/or one file).
    function _lineStep(uint256 from, uint256 to) private pure returns (int256) {
        unchecked {
            int256 df = int256(to & 7) - int256(from & 7);
            int256 dr = int256(to >> 4) - int256(from >> 4);
            return (dr > 0 ? int256(16) : dr < 0 ? -16 : int256(0)) + (df > 0 ? int256(1) : df < 0 ? -1 : int256(0));
        }
    }

    // =====================================================================
    // Insufficient material
    // =====================================================================

    /// @notice Both sides have insufficient mating material (section 8 status 3). Exits at
    /// the first pawn, rook or queen, which rules out both (the usual case), before the full
    /// per-side count.
    function bothInsufficient(bytes memory s) internal pure returns (bool) {
        bool heavy;
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            for { let i := 0 } lt(i, 120) { i := add(i, 1) } {
                if and(i, 8) {
                    i := add(i, 7)
                    continue
                }
                let v := byte(0, mload(add(p, i)))
                // pawn, rook, queen of either colour: 1, 4, 5, 0xff, 0xfc, 0xfb
                if or(or(eq(v, 1), eq(v, 0xff)), or(or(eq(v, 4), eq(v, 5)), or(eq(v, 0xfc), eq(v, 0xfb)))) {
                    heavy := 1
                    break
                }
            }
        }
        if (heavy) return false;
        return insufficientMaterial(s, 1) && insufficientMaterial(s, -1);
    }

    // =====================================================================
    // Validation helpers
    // =====================================================================

    /// @dev Section 7 code 2 over all shadow bytes at once: every shadow byte that is not a
    /// flag is 0 (one masked OR over the four state words), and each flag is in its domain.
    function _shadowBytesInDomain(bytes memory s) private pure returns (bool) {
        uint256 stray;
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            stray := or(
                or(
                    and(mload(p), 0x000000000000000000000000ffffffff0000000000000000ffffffffffffffff),
                    and(mload(add(p, 32)), 0x0000000000000000ffffffffffffffff000000000000000000ffffffff000000)
                ),
                or(
                    and(mload(add(p, 64)), 0x0000000000000000ffffffffff0000000000000000000000ffffffffffffffff),
                    and(mload(add(p, 96)), 0x0000000000000000ffffffffffffffff0000000000000000ffffff00ffffffff)
                )
            )
        }
        if (stray != 0) return false;
        if (_raw(s, MOVE_COUNT_HIGH) > 127 || _raw(s, MOVE_COUNT_LOW) > 127) return false;
        uint256 v = _raw(s, CURRENT_PLAYER);
        if (v != 0x01 && v != 0xff) return false;
        if (!_isFlag(_raw(s, BLACK_LEFT_CASTLING)) || !_isFlag(_raw(s, BLACK_RIGHT_CASTLING))) return false;
        if (!_isFlag(_raw(s, WHITE_LEFT_CASTLING)) || !_isFlag(_raw(s, WHITE_RIGHT_CASTLING))) return false;
        v = _raw(s, BLACK_EN_PASSANT);
        if (v != 0 && (v < 32 || v > 39)) return false;
        v = _raw(s, WHITE_EN_PASSANT);
        return v == 0 || (v >= 80 && v <= 87);
    }

    /// @dev A castling flag: 0 or 0xff.
    function _isFlag(uint256 v) private pure returns (bool) {
        return v == 0 || v == 0xff;
    }

    function _rightConsistent(bytes memory s, uint256 right, uint256 kingSq, uint256 rookSq, int256 king, int256 rook)
        private
        pure
        returns (bool)
    {
        return _raw(s, right) != 0 || (_at(s, kingSq) == king && _at(s, rookSq) == rook);
    }

    // =====================================================================
    // Byte access
    // =====================================================================

    /// @dev Signed byte `i` of the state (a piece code, or a flag read as int8).
    function _at(bytes memory s, uint256 i) private pure returns (int256 v) {
        assembly ("memory-safe") {
            v := signextend(0, byte(0, mload(add(add(s, 0x20), i))))
        }
    }

    /// @dev Unsigned byte `i` of the state.
    function _raw(bytes memory s, uint256 i) private pure returns (uint256 v) {
        assembly ("memory-safe") {
            v := byte(0, mload(add(add(s, 0x20), i)))
        }
    }

    /// @dev Writes the low byte of `v` (two's complement) at index `i`.
    function _put(bytes memory s, uint256 i, int256 v) private pure {
        assembly ("memory-safe") {
            mstore8(add(add(s, 0x20), i), v)
        }
    }

    /// @dev The eight board bytes of the row starting at `base`, as a uint64 (file a highest).
    function _row(bytes memory s, uint256 base) private pure returns (uint256 v) {
        assembly ("memory-safe") {
            v := shr(192, mload(add(add(s, 0x20), base)))
        }
    }

    function _kingSquare(bytes memory s, int256 side) private pure returns (uint256) {
        return _raw(s, side > 0 ? WHITE_KING_POS : BLACK_KING_POS);
    }

    function _sliderStep(uint256 i) private pure returns (int256 d) {
        assembly {
            d := signextend(0, byte(i, SLIDER_STEPS))
        }
    }

    function _knightStep(uint256 i) private pure returns (int256 d) {
        assembly {
            d := signextend(0, byte(i, KNIGHT_STEPS))
        }
    }
}
