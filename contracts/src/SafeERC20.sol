// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice The slice of ERC-20 the referee needs.
interface IERC20 {
    /// @notice Balance of `account`.
    function balanceOf(address account) external view returns (uint256);
    /// @notice Moves `amount` from the caller to `to`.
    function transfer(address to, uint256 amount) external returns (bool);
    /// @notice Moves `amount` from `from` to `to` using the caller's allowance.
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @notice The token call failed, returned false, or the token has no code.
error TokenTransferFailed(address token);

/// @notice ERC-20 transfers that accept tokens returning nothing (USDT style)
/// and reject tokens that return false, revert, or are not contracts.
library SafeERC20 {
    /// @notice `token.transfer(to, amount)`, reverting `TokenTransferFailed` on any failure.
    function safeTransfer(address token, address to, uint256 amount) internal {
        _call(token, abi.encodeCall(IERC20.transfer, (to, amount)));
    }

    /// @notice `token.transferFrom(from, to, amount)`, reverting `TokenTransferFailed` on any failure.
    function safeTransferFrom(address token, address from, address to, uint256 amount) internal {
        _call(token, abi.encodeCall(IERC20.transferFrom, (from, to, amount)));
    }

    function _call(address token, bytes memory data) private {
        // A call to an address without code "succeeds": that must not count as a payment.
        if (token.code.length == 0) revert TokenTransferFailed(token);
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length != 0 && (ret.length < 32 || abi.decode(ret, (uint256)) != 1))) {
            revert TokenTransferFailed(token);
        }
    }
}
