// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @title SignatureCheck
/// @notice Signatures of docs/CHANNEL.md section 5: strict 65-byte low-s ECDSA, and the
/// one ERC-1271 question `ChessChannel.pin` asks a contract wallet.
library SignatureCheck {
    /// @notice secp256k1n / 2: a larger `s` is the malleable high-s twin, refused.
    uint256 internal constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;
    /// @notice ERC-1271 `isValidSignature(bytes32,bytes)` selector and magic value.
    bytes4 internal constant ERC1271_MAGIC = 0x1626ba7e;
    /// @notice Gas a contract wallet may spend judging one signature: bounds what a wallet
    /// can make a relayer or the opponent pay, and is ample for a multisig of a few owners.
    uint256 internal constant ERC1271_GAS = 100_000;

    /// @notice The signer of `digest` by a strict 65-byte `r ‖ s ‖ v` signature: v 27 or 28,
    /// 0 < s <= HALF_ORDER, r != 0. address(0) for a malformed or unrecoverable signature.
    function recover(bytes32 digest, bytes calldata signature) internal pure returns (address signer) {
        if (signature.length != 65) return address(0);
        bytes32 r;
        uint256 s;
        uint256 v;
        assembly ("memory-safe") {
            r := calldataload(signature.offset)
            s := calldataload(add(signature.offset, 32))
            v := byte(0, calldataload(add(signature.offset, 64)))
        }
        if (r == 0 || s == 0 || s > HALF_ORDER || (v != 27 && v != 28)) return address(0);
        // forge-lint: disable-next-line(unsafe-typecast) v is 27 or 28
        return ecrecover(digest, uint8(v), r, bytes32(s));
    }

    /// @notice Whether contract `wallet` approves `digest` by ERC-1271 (a static call with
    /// ERC1271_GAS; a revert, a short answer or any other value is a refusal). Asked only when
    /// a digest is pinned (docs/CHANNEL.md section 5), never when a message is judged, so a
    /// wallet's later answers cannot disown what it once approved.
    function walletApproves(address wallet, bytes32 digest, bytes calldata signature) internal view returns (bool ok) {
        if (wallet.code.length == 0) return false;
        bytes memory request = abi.encodeWithSelector(ERC1271_MAGIC, digest, signature);
        uint256 gasLimit = ERC1271_GAS;
        bytes32 answer;
        assembly ("memory-safe") {
            // copy at most one word of the answer: a wallet cannot make us pay for more
            mstore(0, 0)
            let success := staticcall(gasLimit, wallet, add(request, 32), mload(request), 0, 32)
            answer := mload(0)
            ok := and(success, gt(returndatasize(), 31))
        }
        ok = ok && bytes4(answer) == ERC1271_MAGIC;
    }
}
