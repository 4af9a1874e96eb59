// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {ChannelBase} from "./ChessChannelBase.t.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {ChessRules, IllegalMove, BadStateLength} from "../src/ChessRules.sol";
import {RepetitionChain} from "../src/RepetitionChain.sol";
import {ChannelHash, Move, Delegation, Resignation, Receipt, Auth} from "../src/ChannelHash.sol";
import {ChessTestKit as K} from "./rules/ChessTestKit.sol";
import {ChessRulesOld} from "./rules/ChessRulesOld.sol";

/// @notice Second reading (security) of df4c015, the gas rewrite of ChessChannel, ChannelHash
/// and ChessRules in inline assembly. Every test asserts the SAFE behaviour: a failing test
/// is a finding. Raw calldata is built by hand and sent with `address(channel).call`; the
/// pre-rewrite code (df4c015~1) is kept below as `OldChannelTransition` (the channel's
/// hashes and transition, unchanged but for names) and in rules/ChessRulesOld.sol (the
/// whole rules library, renamed) for differential tests.
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
        return
            abi.encodeCall(channel.register, (q, _byAuthor(q), m, _byAuthor(m), _noReceipt(), _direct(""), _frozen(m)));
    }

    /// @dev The registration of line[2], line[3] with black's receipt of line[3].
    function _receiptRegistration() internal view returns (bytes memory) {
        Move memory q = line[2];
        Move memory m = line[3];
        (Receipt memory r, Auth memory ra) = _signedReceipt(m, m.timestamp + 1);
        return abi.encodeCall(channel.register, (q, _direct(""), m, _byAuthor(m), r, ra, _frozen(m)));
    }

    /// @dev The registration of line[2], line[3], line[3] signed by alice's session key.
    function _sessionRegistration() internal view returns (bytes memory) {
        Move memory q = line[2];
        Move memory m = line[3];
        Auth memory ma = _bySession(ALICE_PK, SESSION1_PK, _delegation(gameId, SESSION1_PK, 1, 99), _moveDigest(m));
        return abi.encodeCall(channel.register, (q, _byAuthor(q), m, ma, _noReceipt(), _direct(""), _frozen(m)));
    }

    /// @dev Sends `cd` to the channel from alice (a player); returns success and the data of
    /// the referee's `PositionRegistered` log (empty if none).
    function _send(bytes memory cd) internal returns (bool ok, bytes memory registered) {
        vm.recordLogs();
        vm.prank(alice);
        (ok,) = address(channel).call(cd);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter == address(ref) && logs[i].topics[0] == IChessRefereeTypes.PositionRegistered.selector)
            {
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
            abi.encodeCall(channel.register, (q, _byAuthor(q), m, _byAuthor(m), _noReceipt(), _direct(""), _frozen(m)));
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
        bytes memory cd =
            abi.encodeCall(channel.register, (q, _byAuthor(q), m, ma, _noReceipt(), _direct(""), _frozen(m)));
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
        bytes memory cd = abi.encodeCall(channel.register, (q, _direct(""), m, _byAuthor(m), r, ra, _frozen(m)));
        (bool ok,) = _send(cd);
        bool valid = which == 0 && seenAt >= t && seenAt <= block.timestamp && seenAt <= uint256(t) + 30;
        assertEq(ok, valid, "receipt bounds");
    }

    /// The hand-encoded court call registers the clock the spec gives: with a receipt at
    /// `seenAt`, the author (white) keeps its signed time plus the grace, the side to move
    /// (black) its signed time plus the grace less the time from `seenAt` to the window's end.
    function testFuzz_RegisteredClockFollowsSpec(uint8 delay) public {
        Move memory m = line[3];
        uint64 seenAt = m.timestamp + delay % 31;
        vm.warp(uint256(seenAt) + delay % 7);
        (Receipt memory r, Auth memory ra) = _signedReceipt(m, seenAt);
        bytes memory cd = abi.encodeCall(channel.register, (line[2], _direct(""), m, _byAuthor(m), r, ra, _frozen(m)));
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
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob));
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
        assertEq(err, abi.encodeWithSelector(IChessChannelTypes.NotEquivocation.selector));
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
        assertEq(err, abi.encodeWithSelector(IChessChannelTypes.NotIllegal.selector));
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
