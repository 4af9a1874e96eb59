// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {RefereeGasBase} from "./ChessRefereeGas.t.sol";
import {ChannelBase} from "./ChessChannelBase.t.sol";
import {IChessRefereeTypes} from "../src/IChessReferee.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {FrozenPosition} from "../src/ChessCourt.sol";
import {Move, Delegation, Resignation, Result, Receipt, Auth} from "../src/ChannelHash.sol";

/// @dev Keys and calls shared by the retirement tests: alice (white) plays by SESSION1 from
/// ply 1, then rotates to SESSION3 from ply 5 (issue 27, finding 3).
abstract contract RetireBase is ChannelBase {
    uint256 internal constant SESSION3_PK = 0x5E553;
    uint32 internal constant ROTATED_AT = 5;

    event SessionKeysRetired(uint256 indexed gameId, address indexed player, uint256 firstPly);

    function _oldKey(uint256 id) internal pure returns (Delegation memory) {
        return _delegation(id, SESSION1_PK, 1, type(uint32).max);
    }

    function _newKey(uint256 id) internal pure returns (Delegation memory) {
        return _delegation(id, SESSION3_PK, ROTATED_AT, type(uint32).max);
    }

    function _delegationSig(uint256 playerPk, Delegation memory d) internal view returns (bytes memory) {
        return _sig(playerPk, channel.digestOf(channel.hashDelegation(d)));
    }

    /// @dev `d`, signed by `playerPk`, shown by carol (a relay: anyone may).
    function _retire(uint256 id, uint256 playerPk, Delegation memory d, bool white) internal {
        vm.prank(carol);
        channel.retire(id, d, _delegationSig(playerPk, d), white);
    }

    function _resignation(Move memory at) internal view returns (Resignation memory) {
        return Resignation({gameId: at.gameId, ply: at.ply, position: channel.hashMove(at)});
    }

    function _resultAt(Move memory at, uint8 result) internal view returns (Result memory) {
        return Result({gameId: at.gameId, ply: at.ply, position: channel.hashMove(at), result: result});
    }

    /// @dev A running game where alice rotated from SESSION1 to SESSION3 at ply 5 and did not
    /// revoke SESSION1; play went on to ply 10.
    function _rotatedGame() internal returns (uint256 id) {
        id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 d2d3 f8c5 e1g1 e8g8");
    }
}

/// @notice Issue 27, finding 3: a rotated-out session key signs no more agreements once a
/// later delegation of its player is shown (`retire`), even if it was never revoked
/// (docs/CHANNEL.md sections 5, 7.1, 7.2).
contract ChessChannelRetireTest is RetireBase {
    /// @dev Finding 3 exactly: alice moves to a second key from ply 5 and does not revoke the
    /// first; her client shows the new delegation. At ply 10 the thief of the first key
    /// resigns for her naming ply 3 (off-chain nothing lapses, the position is not checked):
    /// refused. Without the rule, bob wins by that resignation.
    function test_Finding3_RotatedOutKeyCannotResign() public {
        uint256 id = _rotatedGame();
        _retire(id, ALICE_PK, _newKey(id), true);
        assertEq(channel.agreementsFrom(id, alice), ROTATED_AT);
        assertEq(channel.revokedAt(id, alice, vm.addr(SESSION1_PK)), 0, "never revoked");

        Resignation memory r = _resignation(line[3]);
        Auth memory stolen = _bySession(ALICE_PK, SESSION1_PK, _oldKey(id), _resignationDigest(r));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.RetiredKey.selector, vm.addr(SESSION1_PK)));
        vm.prank(carol);
        channel.resignBySignature(r, stolen, true);
        // Naming the latest position changes nothing: the key is retired, not the ply.
        r = _resignation(line[10]);
        stolen = _bySession(ALICE_PK, SESSION1_PK, _oldKey(id), _resignationDigest(r));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.RetiredKey.selector, vm.addr(SESSION1_PK)));
        channel.resignBySignature(r, stolen, true);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
    }

    /// @dev The attack the client's `retire` closes: with the new delegation never shown, the
    /// contract cannot know of it, and the unrevoked old key still resigns (why clients send
    /// `retire` with every rotation, docs/CHANNEL.md 9).
    function test_Finding3_WithoutRetireTheOldKeyStillResigns() public {
        uint256 id = _rotatedGame();
        Resignation memory r = _resignation(line[3]);
        Auth memory stolen = _bySession(ALICE_PK, SESSION1_PK, _oldKey(id), _resignationDigest(r));
        channel.resignBySignature(r, stolen, true);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        assertEq(g.result, BLACK_WINS);
        assertEq(g.reason, 5);
    }

    /// @dev A delegation the player did not sign retires nothing: signed by another key, by
    /// the session key itself, by the opponent, empty, or alice's shown as black's.
    function test_Retire_ForgedDelegationRefused() public {
        uint256 id = _rotatedGame();
        Delegation memory d = _newKey(id);
        bytes memory bad = abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice);
        uint256[3] memory forgers = [CAROL_PK, SESSION3_PK, BOB_PK];
        for (uint256 i; i < forgers.length; ++i) {
            bytes memory sig = _delegationSig(forgers[i], d);
            vm.expectRevert(bad);
            channel.retire(id, d, sig, true);
        }
        vm.expectRevert(bad);
        channel.retire(id, d, "", true);
        // Alice's signature of it, claimed as black's.
        bytes memory alices = _delegationSig(ALICE_PK, d);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob));
        channel.retire(id, d, alices, false);
        // A delegation altered after signing.
        d.firstPly = 9;
        vm.expectRevert(bad);
        channel.retire(id, d, alices, true);
        assertEq(channel.agreementsFrom(id, alice), 0);
        assertEq(channel.agreementsFrom(id, bob), 0);
    }

    /// @dev Alice's delegation of one game does not retire her keys in another: shown for
    /// the other game it is refused, and that game's old key still agrees.
    function test_Retire_DelegationOfAnotherGameRefused() public {
        uint256 a = _rotatedGame();
        uint256 b = _startChannelGame();
        Delegation memory ofA = _newKey(a);
        bytes memory sig = _delegationSig(ALICE_PK, ofA);
        vm.expectRevert(IChessChannelTypes.WrongGame.selector);
        channel.retire(b, ofA, sig, true);
        assertEq(channel.agreementsFrom(b, alice), 0);
        // Shown for its own game it retires there only.
        channel.retire(a, ofA, sig, true);
        assertEq(channel.agreementsFrom(a, alice), ROTATED_AT);
        assertEq(channel.agreementsFrom(b, alice), 0);
        Resignation memory r = Resignation({gameId: b, ply: 1, position: keccak256("a position")});
        channel.resignBySignature(r, _bySession(ALICE_PK, SESSION1_PK, _oldKey(b), _resignationDigest(r)), true);
        assertEq(ref.getGame(b).result, BLACK_WINS);
    }

    /// @dev The mark only rises: an earlier delegation shown later, or the same one again,
    /// changes nothing (and emits nothing).
    function test_Retire_CannotLowerAgreementsFrom() public {
        uint256 id = _rotatedGame();
        Delegation memory third = _delegation(id, CAROL_PK, 9, type(uint32).max);
        vm.expectEmit(true, true, true, true, address(channel));
        emit SessionKeysRetired(id, alice, 9);
        _retire(id, ALICE_PK, third, true);
        vm.recordLogs();
        _retire(id, ALICE_PK, _newKey(id), true);
        _retire(id, ALICE_PK, _oldKey(id), true);
        _retire(id, ALICE_PK, third, true);
        assertEq(vm.getRecordedLogs().length, 0, "nothing emitted");
        assertEq(channel.agreementsFrom(id, alice), 9);
        // SESSION3 (from ply 5) is now retired too: a resignation by it is refused.
        Resignation memory r = _resignation(line[10]);
        Auth memory a = _bySession(ALICE_PK, SESSION3_PK, _newKey(id), _resignationDigest(r));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.RetiredKey.selector, vm.addr(SESSION3_PK)));
        channel.resignBySignature(r, a, true);
        // Black's keys are untouched.
        assertEq(channel.agreementsFrom(id, bob), 0);
    }

    /// @dev Retirement is the session keys': agreements signed by the player's wallet count.
    function test_Retire_WalletSignedAgreementsStillCount() public {
        uint256 id = _rotatedGame();
        _retire(id, ALICE_PK, _delegation(id, SESSION3_PK, type(uint32).max, type(uint32).max), true);
        Result memory r = _resultAt(line[10], DRAW);
        bytes32 d = _resultDigest(r);
        channel.settle(r, _direct(_sig(ALICE_PK, d)), _direct(_sig(BOB_PK, d)));
        assertEq(ref.getGame(id).result, DRAW);
    }

    /// @dev The current key (delegated from the mark) still resigns and agrees.
    function test_Retire_CurrentKeysAgreementsStillCount() public {
        uint256 id = _rotatedGame();
        _retire(id, ALICE_PK, _newKey(id), true);
        Resignation memory r = _resignation(line[10]);
        uint256 snap = vm.snapshotState();
        channel.resignBySignature(r, _bySession(ALICE_PK, SESSION3_PK, _newKey(id), _resignationDigest(r)), true);
        assertEq(ref.getGame(id).result, BLACK_WINS);
        vm.revertToState(snap);
        Result memory result = _resultAt(line[10], WHITE_WINS);
        bytes32 d = _resultDigest(result);
        channel.settle(
            result,
            _bySession(ALICE_PK, SESSION3_PK, _newKey(id), d),
            _bySession(BOB_PK, SESSION2_PK, _delegation(id, SESSION2_PK, 1, type(uint32).max), d)
        );
        assertEq(ref.getGame(id).result, WHITE_WINS);
    }

    /// @dev A result is refused if either signature is by a retired key, whichever side.
    function test_Retire_ResultWithOneRetiredKeyRefused() public {
        uint256 id = _rotatedGame();
        _retire(id, ALICE_PK, _newKey(id), true);
        Result memory r = _resultAt(line[10], WHITE_WINS);
        bytes32 d = _resultDigest(r);
        Auth memory oldWhite = _bySession(ALICE_PK, SESSION1_PK, _oldKey(id), d);
        Auth memory newWhite = _bySession(ALICE_PK, SESSION3_PK, _newKey(id), d);
        Auth memory oldBlack = _bySession(BOB_PK, SESSION2_PK, _delegation(id, SESSION2_PK, 1, type(uint32).max), d);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.RetiredKey.selector, vm.addr(SESSION1_PK)));
        channel.settle(r, oldWhite, oldBlack);
        // Black rotates too (to CAROL_PK's address as key, from ply 8): its old key now fails.
        _retire(id, BOB_PK, _delegation(id, CAROL_PK, 8, type(uint32).max), false);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.RetiredKey.selector, vm.addr(SESSION2_PK)));
        channel.settle(r, newWhite, oldBlack);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
    }

    /// @dev A retired key's moves and receipts are evidence: a pair it signed before the
    /// rotation still registers, with its receipt.
    function test_Retire_RetiredKeysMovesAndReceiptsStillCount() public {
        uint256 id = _rotatedGame();
        _retire(id, ALICE_PK, _newKey(id), true);
        // Ply 3 (alice's, by SESSION1) and bob's receipt of it; ply 4's receipt by SESSION1.
        Move memory q = line[3];
        Move memory m = line[4];
        Auth memory qa = _bySession(ALICE_PK, SESSION1_PK, _oldKey(id), _moveDigest(q));
        Receipt memory rc = _receipt(m, m.timestamp);
        Auth memory ra = _bySession(ALICE_PK, SESSION1_PK, _oldKey(id), _receiptDigest(rc));
        vm.warp(m.timestamp + 1);
        FrozenPosition memory frozen = _frozen(m);
        Auth memory ma = _byAuthor(m);
        vm.prank(bob);
        channel.register(q, qa, m, ma, rc, ra, frozen);
        assertEq(ref.channelGame(id).registeredPly, 4);
    }

    /// @dev Nothing to retire in a game that is not running.
    function test_Retire_GameNotRunningRefused() public {
        uint256 id = _rotatedGame();
        _settle(id, DRAW);
        Delegation memory d = _newKey(id);
        bytes memory sig = _delegationSig(ALICE_PK, d);
        vm.expectRevert(_err(IChessChannelTypes.GameNotRunning.selector, id));
        channel.retire(id, d, sig, true);
    }
}

/// @notice Gas of `retire` and of the agreements it guards (`forge test --isolate` for the
/// documented figures, as ChessChannelGasTest).
contract ChessChannelRetireGasTest is RetireBase, RefereeGasBase {
    function setUp() public override(ChannelBase, RefereeGasBase) {
        super.setUp();
    }

    function _absorb(Vm.Log[] memory logs) internal override(ChannelBase, RefereeBase) {
        ChannelBase._absorb(logs);
    }

    function _retireTx(uint256 id, Delegation memory d) internal returns (uint256) {
        return _txTo(
            address(channel), carol, 0, abi.encodeCall(IChessChannel.retire, (id, d, _delegationSig(ALICE_PK, d), true))
        );
    }

    function test_Gas_Retire() public {
        uint256 id = _rotatedGame();
        uint256 first = _retireTx(id, _newKey(id));
        uint256 again = _retireTx(id, _newKey(id));
        emit log_named_uint("retire (raises agreementsFrom)", first);
        emit log_named_uint("retire (already shown: no change)", again);
        assertEq(channel.agreementsFrom(id, alice), ROTATED_AT);
    }

    function test_Gas_AgreementsBySessionKeys() public {
        uint256 id = _rotatedGame();
        _retireTx(id, _newKey(id));
        Resignation memory r = _resignation(line[10]);
        Auth memory a = _bySession(ALICE_PK, SESSION3_PK, _newKey(id), _resignationDigest(r));
        uint256 snap = vm.snapshotState();
        uint256 resign =
            _txTo(address(channel), carol, 0, abi.encodeCall(IChessChannel.resignBySignature, (r, a, true)));
        vm.revertToState(snap);
        Result memory result = _resultAt(line[10], DRAW);
        bytes32 d = _resultDigest(result);
        Auth memory w = _bySession(ALICE_PK, SESSION3_PK, _newKey(id), d);
        Auth memory b = _bySession(BOB_PK, SESSION2_PK, _delegation(id, SESSION2_PK, 1, type(uint32).max), d);
        uint256 settle = _txTo(address(channel), carol, 0, abi.encodeCall(IChessChannel.settle, (result, w, b)));
        emit log_named_uint("resignBySignature by a session key (after retire)", resign);
        emit log_named_uint("settle, both by session keys (after retire)", settle);
        assertEq(ref.getGame(id).result, DRAW);
    }
}
