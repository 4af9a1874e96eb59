// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessTournament} from "./ChessTournament.sol";

/// @title ChessTournamentBlueprint
/// @notice Holds ChessTournament's creation code for ChessReferee's constructor, which deploys
/// its tournament from it (the tournament's address stays CREATE from the referee, nonce 2).
/// @dev As `ChessChannelBlueprint`: the code after one 0xFE byte (ERC-5202), so the referee's
/// initcode stays under EIP-3860's limit; a call to this contract stops at once.
contract ChessTournamentBlueprint {
    constructor() {
        bytes memory code = abi.encodePacked(hex"fe", type(ChessTournament).creationCode);
        assembly ("memory-safe") {
            return(add(code, 0x20), mload(code))
        }
    }
}
