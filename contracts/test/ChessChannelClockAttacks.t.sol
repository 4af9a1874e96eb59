// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelBase} from "./ChessChannelBase.t.sol";
import {ChessChannel} from "../src/ChessChannel.sol";

/// @notice Issue 27's red-team findings on the off-chain clock, each a test of the safe
/// behaviour (docs/CHANNEL.md sections 7.3, 8, 9).
contract ChessChannelClockAttacksTest is ChannelBase {
    /// @dev Finding 4: a late reply to `registerStart` was impossible: the start move's
    /// timestamp is 0, so the late-reply path charged white the whole Unix time and
    /// reverted `StaleMove`. The first move answers `registerStart` like any direct reply
    /// in the window, and is not charged (section 6 code 4).
    function test_Finding4_FirstMoveAnswersRegisterStartWhenLate() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        vm.prank(bob);
        channel.registerStart(line[0]);
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
        vm.expectRevert(_err(ChessChannel.RegistrationClosed.selector, id));
        this.registerExternal(1);
    }
}
