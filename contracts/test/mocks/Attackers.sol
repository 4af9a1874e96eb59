// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {IChessReferee} from "../../src/IChessReferee.sol";
import {MockERC20} from "./MockERC20.sol";

/// @notice A player contract whose ETH receive hook re-enters `withdraw` (and other
/// guarded entry points) to try to be paid twice.
contract ReentrantPlayer {
    IChessReferee internal immutable ref;
    uint256 public reentryAttempts;
    bool public reentrySucceeded;
    bytes public lastRevert;

    constructor(IChessReferee referee) {
        ref = referee;
    }

    function create(address opponent, uint256 stake) external returns (uint256) {
        return ref.createGame{value: stake}(opponent, true, address(0), stake, 600, 0, 0, "");
    }

    function cancel(uint256 id) external {
        ref.cancelGame(id);
    }

    function withdraw() external {
        ref.withdraw(address(0));
    }

    receive() external payable {
        if (reentryAttempts > 0) return;
        ++reentryAttempts;
        try ref.withdraw(address(0)) {
            reentrySucceeded = true;
        } catch (bytes memory reason) {
            lastRevert = reason;
        }
    }
}

/// @notice An ERC-777-like token that calls back into the referee from inside every
/// transfer (the hook a malicious or hook-bearing token gives its holders).
contract HookToken is MockERC20 {
    IChessReferee public ref;
    bytes public hookCall;
    bool public hookSucceeded;
    bytes public hookRevert;
    uint256 public hooks;

    function arm(IChessReferee referee, bytes calldata call) external {
        ref = referee;
        hookCall = call;
    }

    function _move(address from, address to, uint256 amount) internal override {
        super._move(from, to, amount);
        if (address(ref) == address(0) || hookCall.length == 0) return;
        ++hooks;
        (bool ok, bytes memory ret) = address(ref).call(hookCall);
        if (ok) hookSucceeded = true;
        else hookRevert = ret;
    }
}
