// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @title AnnexCall
/// @notice The fallback of a contract split in two (`ChessReferee`, `ChessChannel`): the call
/// runs the annex's code by DELEGATECALL, in the caller's storage and with its `msg.sender`.
library AnnexCall {
    /// @dev Runs this call's calldata on `annex`'s code and returns or reverts with its answer
    /// as it is. Never returns to Solidity code, so memory from 0 on is free to use.
    function forward(address annex) internal {
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), annex, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
