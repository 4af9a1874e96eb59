// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelBase} from "./ChessChannelBase.t.sol";
import {FrozenPosition} from "../src/ChessCourt.sol";
import {Move, Auth, Receipt} from "../src/ChannelHash.sol";
import {ClockWord} from "../src/ClockWord.sol";

/// @notice What the clock attack suites (issue 27: `ChessChannelClockAttacks`, and the second
/// reader's `ChessChannelClockReview`, `ChessChannelClockReviewV3`) share: registrations
/// and announcements as a player, a watchtower or a stranger sends them, and the registered
/// clock word read back. Game: alice (white) vs bob (black), 600 s + 5 s, window 600 s,
/// grace 15 s.
abstract contract ChannelClockBase is ChannelBase {
    uint256 internal constant T = 1_000_000;

    /// @dev Registers `q`, `m` (each signed by its author, no receipt) from `who`, naming
    /// the registered position with `frozen` as its clock word (a forged one, or its own),
    /// expecting `revertData` (none: it must not revert); absorbs the events.
    function _regF(address who, Move memory q, Move memory m, uint256 frozen, bytes memory revertData) internal {
        Auth memory qa = q.ply == 0 ? _direct("") : _byAuthor(q);
        Auth memory ma = _byAuthor(m);
        Receipt memory none;
        FrozenPosition memory f = _frozenWith(m.gameId, frozen);
        if (revertData.length != 0) vm.expectRevert(revertData);
        vm.recordLogs();
        vm.prank(who);
        channel.register(q, qa, m, ma, none, _direct(""), f);
        _absorb(vm.getRecordedLogs());
    }

    /// @dev `_regF` naming the registered position as it stands.
    function _reg(address who, Move memory q, Move memory m, bytes memory revertData) internal {
        _regF(who, q, m, pos[m.gameId].clock, revertData);
    }

    /// @dev Registers `q`, `m` with the side to move's receipt of `m` at `seenAt`.
    function _regR(address who, Move memory q, Move memory m, uint64 seenAt, bytes memory revertData) internal {
        (Receipt memory r, Auth memory ra) = _signedReceipt(m, seenAt);
        Auth memory ma = _byAuthor(m);
        FrozenPosition memory frozen = _frozen(m);
        if (revertData.length != 0) vm.expectRevert(revertData);
        vm.recordLogs();
        vm.prank(who);
        channel.register(q, _direct(""), m, ma, r, ra, frozen);
        _absorb(vm.getRecordedLogs());
    }

    /// @dev `m` announced by `who`, expecting `revertData` (none: it must not revert).
    function _announce(address who, Move memory m, bytes memory revertData) internal {
        Auth memory ma = _byAuthor(m);
        if (revertData.length != 0) vm.expectRevert(revertData);
        vm.prank(who);
        channel.announce(m, ma);
    }

    /// @dev `m` announced by `who`.
    function _announce(address who, Move memory m) internal {
        _announce(who, m, "");
    }

    function _budget(uint256 id, bool white) internal view returns (uint256) {
        return ClockWord.budget(pos[id].clock, white);
    }

    function _deadline(uint256 id) internal view returns (uint256) {
        return ClockWord.replyDeadline(pos[id].clock);
    }

    function _registeredPly(uint256 id) internal view returns (uint256) {
        return ref.channelGame(id).registeredPly;
    }
}
