// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessChannel} from "./ChessChannel.sol";

/// @title ChessChannelBlueprint
/// @notice Holds ChessChannel's creation code for ChessReferee's constructor, which deploys
/// its channel from it (the channel's address stays CREATE from the referee, nonce 1).
/// @dev Referee and channel in one initcode would pass EIP-3860's 49,152-byte limit, so the
/// channel's creation code lives here as this contract's code, after one 0xFE byte (the
/// ERC-5202 idea: a call to this contract stops at once and does nothing).
contract ChessChannelBlueprint {
    constructor() {
        bytes memory code = abi.encodePacked(hex"fe", type(ChessChannel).creationCode);
        assembly ("memory-safe") {
            return(add(code, 0x20), mload(code))
        }
    }
}
