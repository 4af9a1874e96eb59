// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules, IllegalMove} from "../../src/ChessRules.sol";

/// @notice Storage layouts ChessReferee could have used, reduced to what a move does
/// (same checks, same clock rule, same repetition chain, same event), so their move gas
/// can be compared with the real contract on the same games. Test-only.
abstract contract AlternativeRefereeBase {
    event MovePlayed(
        uint256 indexed gameId, uint24 move, uint32 ply, uint8 status, bytes32 history, uint256 clock, bytes state
    );

    error NotYourTurn();
    error TimeUp();
    error StalePosition();

    struct Players {
        address white;
        address black;
    }

    mapping(uint256 => Players) internal players;

    function _tick(uint256 clock, bool whiteToMove) internal view returns (uint256 c) {
        uint256 shift = whiteToMove ? 40 : 72;
        uint256 left = (clock >> shift) & 0xffffffff;
        uint256 elapsed = block.timestamp - (clock & 0xffffffffff);
        if (elapsed > left + 15) revert TimeUp();
        left = (elapsed >= left ? 0 : left - elapsed) + ((clock >> 104) & 0xffffffff);
        uint256 ply = ((clock >> 136) & 0xffffffff) + 1;
        c = clock
            & ~(uint256(0xffffffffff)
                | (uint256(0xffffffff) << shift)
                | (uint256(0xffffffff) << 136)
                | (uint256(3) << 168));
        c |= block.timestamp | (left << shift) | (ply << 136);
    }

    /// @dev The part every layout shares: turn, clock, rules, chain, status, event.
    function _step(uint256 gameId, bytes memory s, bytes32 history, uint256 clock, uint24 mv)
        internal
        returns (bytes32 h, uint256 c)
    {
        bool whiteToMove = uint8(s[56]) == 1;
        Players storage p = players[gameId];
        if (msg.sender != (whiteToMove ? p.white : p.black)) revert NotYourTurn();
        c = _tick(clock, whiteToMove);
        uint256 st;
        {
            (uint256 code, bool inCheck) = ChessRules.playMove(s, mv);
            if (code != 0) revert IllegalMove(uint8(code));
            bytes32 key = ChessRules.repetitionKey(s);
            h = uint8(s[10]) == 0 ? keccak256(abi.encode(bytes32(0), key)) : keccak256(abi.encode(history, key));
            st = ChessRules.statusInCheck(s, inCheck);
        }
        bytes32 topic = MovePlayed.selector;
        uint256 ply = (c >> 136) & 0xffffffff;
        assembly ("memory-safe") {
            let q := mload(0x40)
            mstore(q, mv)
            mstore(add(q, 0x20), ply)
            mstore(add(q, 0x40), st)
            mstore(add(q, 0x60), h)
            mstore(add(q, 0x80), c)
            mstore(add(q, 0xa0), 0xc0)
            mstore(add(q, 0xc0), 128)
            mcopy(add(q, 0xe0), add(s, 0x20), 128)
            log2(q, 0x160, topic, gameId)
        }
    }

    function _startClock(uint32 initial, uint32 increment) internal view returns (uint256) {
        return block.timestamp | (uint256(initial) << 40) | (uint256(initial) << 72) | (uint256(increment) << 104);
    }
}

/// @notice Alternative A: the whole position in storage (4 state words, history, clock);
/// `move(gameId, mv)` needs no position in calldata.
contract FullStorageReferee is AlternativeRefereeBase {
    struct Game {
        bytes32[4] state;
        bytes32 history;
        uint256 clock;
    }

    mapping(uint256 => Game) internal games;

    function start(uint256 gameId, address white, address black, uint32 initial, uint32 increment) external {
        players[gameId] = Players(white, black);
        bytes memory s = ChessRules.initialState();
        Game storage g = games[gameId];
        for (uint256 i; i < 4; ++i) {
            bytes32 w;
            assembly ("memory-safe") {
                w := mload(add(add(s, 32), mul(i, 32)))
            }
            g.state[i] = w;
        }
        g.history = keccak256(abi.encode(bytes32(0), ChessRules.repetitionKey(s)));
        g.clock = _startClock(initial, increment);
    }

    function move(uint256 gameId, uint24 mv) external {
        Game storage g = games[gameId];
        bytes memory s = new bytes(128);
        bytes32[4] memory old;
        for (uint256 i; i < 4; ++i) {
            bytes32 w = g.state[i];
            old[i] = w;
            assembly ("memory-safe") {
                mstore(add(add(s, 32), mul(i, 32)), w)
            }
        }
        (bytes32 h, uint256 c) = _step(gameId, s, g.history, g.clock, mv);
        for (uint256 i; i < 4; ++i) {
            bytes32 w;
            assembly ("memory-safe") {
                w := mload(add(add(s, 32), mul(i, 32)))
            }
            if (w != old[i]) g.state[i] = w;
        }
        g.history = h;
        g.clock = c;
    }
}

/// @notice Alternative B: a commitment to (state, history) in one slot and the clock word
/// in a second slot; the state and history come in calldata.
contract TwoSlotReferee is AlternativeRefereeBase {
    struct Game {
        bytes32 commitment;
        uint256 clock;
    }

    mapping(uint256 => Game) internal games;

    function start(uint256 gameId, address white, address black, uint32 initial, uint32 increment) external {
        players[gameId] = Players(white, black);
        bytes memory s = ChessRules.initialState();
        bytes32 h = keccak256(abi.encode(bytes32(0), ChessRules.repetitionKey(s)));
        games[gameId] = Game(keccak256(abi.encodePacked(s, h)), _startClock(initial, increment));
    }

    function move(uint256 gameId, bytes calldata state, bytes32 history, uint24 mv) external {
        Game storage g = games[gameId];
        bytes memory s = state;
        if (keccak256(abi.encodePacked(s, history)) != g.commitment) revert StalePosition();
        (bytes32 h, uint256 c) = _step(gameId, s, history, g.clock, mv);
        g.commitment = keccak256(abi.encodePacked(s, h));
        g.clock = c;
    }
}
