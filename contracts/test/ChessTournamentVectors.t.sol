// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {TournamentBase} from "./ChessTournamentBase.t.sol";
import {IChessTournamentTypes} from "../src/IChessTournament.sol";

/// @notice Fixed vectors of the bracket maths, for the Rust mirror (`chessref-core`'s
/// bracket) to pin the same values: the permutation and colours for the seed of the draw
/// hash keccak256("chessref") at sizes 8 and 64, lots, and the prizes of two splits.
contract ChessTournamentVectorsTest is TournamentBase {
    event log_named_bytes32(string key, bytes32 val);

    /// @dev The seed is the draw hash's low 64 bits.
    function _seed() internal pure returns (uint64) {
        return uint64(uint256(keccak256("chessref")));
    }

    function _colours(uint256 n) internal pure returns (uint256 bits) {
        for (uint256 m; m < n - 1; ++m) {
            if (uint256(keccak256(abi.encode(uint256(_seed()), 64 + m))) & 1 == 1) bits |= 1 << m;
        }
    }

    function _packed(uint8[] memory perm) internal pure returns (bytes memory out) {
        out = new bytes(perm.length);
        for (uint256 i; i < perm.length; ++i) {
            out[i] = bytes1(perm[i]);
        }
    }

    /// @dev The values, also computed apart (js-sha3, the formulas of `permutation`); colour m
    /// hashes (seed, 64 + m), apart from the shuffle's (seed, j), j <= 63.
    function test_Vectors() public {
        assertEq(_seed(), 3_550_424_555_435_445_564);
        assertEq(_packed(tour.permutation(_seed(), 8)), hex"0501060007040203", "perm n=8");
        assertEq(
            _packed(tour.permutation(_seed(), 64)),
            hex"05012c00072e0b0c13383b090f0632221f331731183d36210d1a1d292b2a16303912202f0435081e141110033a1c0a0e2815233c3e2d0226343f19242537271b",
            "perm n=64"
        );
        // bit m set: white is the lower player (`hi`) of match m
        assertEq(_colours(8), 120, "colours n=8");
        assertEq(_colours(64), 1_776_209_101_880_317_176, "colours n=64");
        // bit m set: white wins the lot of match m of event 1 drawn by the hash keccak256("lot")
        bytes32 h = keccak256("lot");
        uint256 lots;
        for (uint256 m; m < 8; ++m) {
            if (uint256(keccak256(abi.encode(h, uint256(1), m))) & 1 == 0) lots |= 1 << m;
        }
        assertEq(lots, 60, "lots");
        emit log_named_bytes32("lot hash", h);

        // 8 players, 0.1 ether, 5% fee, 60/25/7.5: 0.8 - 0.04 = 0.76 net
        uint256 e = _create(_terms(8, address(0), 500, _split8()));
        assertEq(tour.prizeOf(e, 0), 0.456 ether);
        assertEq(tour.prizeOf(e, 1), 0.19 ether);
        assertEq(tour.prizeOf(e, 2), 0.057 ether);
        assertEq(tour.prizeOf(e, 3), 0);
        // 8 players, 1,000,003 wei, 3.33% fee (266,400), 50.01/24.99/12.5: the winner takes the dust
        uint16[] memory s = new uint16[](3);
        (s[0], s[1], s[2]) = (5_001, 2_499, 1_250);
        IChessTournamentTypes.EventTerms memory t8 = _terms(8, address(0), 333, s);
        t8.fee = 1_000_003;
        e = _create(t8);
        assertEq(tour.prizeOf(e, 0), 3_867_586);
        assertEq(tour.prizeOf(e, 1), 1_932_632);
        assertEq(tour.prizeOf(e, 2), 966_703);
        assertEq(tour.prizeOf(e, 3), 0);
        assertEq(uint256(3_867_586 + 1_932_632 + 2 * 966_703 + 266_400), uint256(8 * 1_000_003));
    }
}
