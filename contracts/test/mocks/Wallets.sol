// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice An ERC-1271 contract wallet with one owner key: a signature is valid iff it is
/// the owner's 65-byte ECDSA signature `r ‖ s ‖ v` of the hash.
contract OwnedWallet {
    address public immutable owner;

    constructor(address walletOwner) {
        owner = walletOwner;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        (bytes32 r, bytes32 s) = abi.decode(signature[:64], (bytes32, bytes32));
        address signer = ecrecover(hash, uint8(signature[64]), r, s);
        return signer != address(0) && signer == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }

    receive() external payable {}
}

/// @notice A contract wallet that answers every signature with a wrong value.
contract RefusingWallet {
    function isValidSignature(bytes32, bytes calldata) external pure returns (bytes4) {
        return 0x1626ba7f;
    }
}

/// @notice A contract wallet that works through about 1,000,000 gas before answering yes:
/// the channel's bounded stipend makes that a refusal, at a bounded cost.
contract GasBurningWallet {
    function isValidSignature(bytes32 hash, bytes calldata) external pure returns (bytes4) {
        uint256 x = uint256(hash);
        for (uint256 i; i < 10_000; ++i) {
            x = uint256(keccak256(abi.encode(x)));
        }
        return x == 0 ? bytes4(0) : bytes4(0x1626ba7e);
    }
}
