// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice The Foundry cheatcodes our tests use (a subset of forge-std's Vm).
/// @dev The npm `forge-std` package is an unofficial 2022 copy whose
/// assertions do not revert under forge 1.x, so the project keeps this small
/// base instead; every assertion here is a forge cheatcode and reverts.
interface Vm {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    struct Gas {
        uint64 gasLimit;
        uint64 gasTotalUsed;
        uint64 gasMemoryUsed;
        int64 gasRefunded;
        uint64 gasRemaining;
    }

    // Environment.
    function warp(uint256 timestamp) external;
    function roll(uint256 blockNumber) external;
    function deal(address account, uint256 balance) external;
    function etch(address target, bytes calldata code) external;
    function store(address target, bytes32 slot, bytes32 value) external;
    function load(address target, bytes32 slot) external view returns (bytes32);
    function prank(address sender) external;
    function startPrank(address sender) external;
    function stopPrank() external;
    function addr(uint256 privateKey) external pure returns (address);
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function chainId(uint256 newChainId) external;
    function setNonce(address account, uint64 newNonce) external;
    function snapshotState() external returns (uint256 snapshotId);
    function revertToState(uint256 snapshotId) external returns (bool success);
    function parseJson(string calldata json, string calldata key) external pure returns (bytes memory);
    function parseJsonUint(string calldata json, string calldata key) external pure returns (uint256);
    function parseJsonInt(string calldata json, string calldata key) external pure returns (int256);
    function parseJsonBytes(string calldata json, string calldata key) external pure returns (bytes memory);
    function parseJsonBytes32(string calldata json, string calldata key) external pure returns (bytes32);
    function parseJsonAddress(string calldata json, string calldata key) external pure returns (address);
    function parseJsonString(string calldata json, string calldata key) external pure returns (string memory);
    function parseJsonKeys(string calldata json, string calldata key) external pure returns (string[] memory);
    function keyExistsJson(string calldata json, string calldata key) external pure returns (bool);
    function label(address account, string calldata newLabel) external;
    function assume(bool condition) external pure;
    function toString(uint256 value) external pure returns (string memory);
    function toString(bytes calldata value) external pure returns (string memory);
    function envOr(string calldata name, uint256 defaultValue) external view returns (uint256);
    function readFile(string calldata path) external view returns (string memory);
    function projectRoot() external view returns (string memory);

    // Expectations.
    function expectRevert() external;
    function expectRevert(bytes4 revertData) external;
    function expectRevert(bytes calldata revertData) external;
    function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData) external;
    function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData, address emitter) external;
    function expectEmit() external;
    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory logs);

    // Gas.
    function lastCallGas() external view returns (Gas memory gas);
    function pauseGasMetering() external;
    function resumeGasMetering() external;

    // Assertions (cheatcodes: they revert with a readable message).
    function assertTrue(bool condition, string calldata error) external pure;
    function assertFalse(bool condition, string calldata error) external pure;
    function assertEq(bool left, bool right, string calldata error) external pure;
    function assertEq(uint256 left, uint256 right, string calldata error) external pure;
    function assertEq(int256 left, int256 right, string calldata error) external pure;
    function assertEq(address left, address right, string calldata error) external pure;
    function assertEq(bytes32 left, bytes32 right, string calldata error) external pure;
    function assertEq(bytes calldata left, bytes calldata right, string calldata error) external pure;
    function assertEq(string calldata left, string calldata right, string calldata error) external pure;
    function assertNotEq(uint256 left, uint256 right, string calldata error) external pure;
    function assertNotEq(bytes32 left, bytes32 right, string calldata error) external pure;
    function assertNotEq(bytes calldata left, bytes calldata right, string calldata error) external pure;
    function assertLt(uint256 left, uint256 right, string calldata error) external pure;
    function assertLe(uint256 left, uint256 right, string calldata error) external pure;
    function assertGt(uint256 left, uint256 right, string calldata error) external pure;
    function assertGe(uint256 left, uint256 right, string calldata error) external pure;
}

/// @notice Minimal forge test base: cheatcodes, reverting assertions,
/// fuzz-input bounding and invariant targets.
abstract contract Test {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    /// @dev Forge reads this flag to tell a test contract from a helper.
    bool public IS_TEST = true;

    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    address[] private targetedContracts;
    FuzzSelector[] private targetedSelectors;
    address[] private excludedSenders;

    // ---- assertions ----
    function assertTrue(bool c) internal pure {
        vm.assertTrue(c, "");
    }

    function assertTrue(bool c, string memory err) internal pure {
        vm.assertTrue(c, err);
    }

    function assertFalse(bool c) internal pure {
        vm.assertFalse(c, "");
    }

    function assertFalse(bool c, string memory err) internal pure {
        vm.assertFalse(c, err);
    }

    function assertEq(bool a, bool b) internal pure {
        vm.assertEq(a, b, "");
    }

    function assertEq(bool a, bool b, string memory err) internal pure {
        vm.assertEq(a, b, err);
    }

    function assertEq(uint256 a, uint256 b) internal pure {
        vm.assertEq(a, b, "");
    }

    function assertEq(uint256 a, uint256 b, string memory err) internal pure {
        vm.assertEq(a, b, err);
    }

    function assertEq(int256 a, int256 b) internal pure {
        vm.assertEq(a, b, "");
    }

    function assertEq(int256 a, int256 b, string memory err) internal pure {
        vm.assertEq(a, b, err);
    }

    function assertEq(address a, address b) internal pure {
        vm.assertEq(a, b, "");
    }

    function assertEq(address a, address b, string memory err) internal pure {
        vm.assertEq(a, b, err);
    }

    function assertEq(bytes32 a, bytes32 b) internal pure {
        vm.assertEq(a, b, "");
    }

    function assertEq(bytes32 a, bytes32 b, string memory err) internal pure {
        vm.assertEq(a, b, err);
    }

    function assertEq(bytes memory a, bytes memory b) internal pure {
        vm.assertEq(a, b, "");
    }

    function assertEq(bytes memory a, bytes memory b, string memory err) internal pure {
        vm.assertEq(a, b, err);
    }

    function assertEq(string memory a, string memory b) internal pure {
        vm.assertEq(a, b, "");
    }

    function assertEq(string memory a, string memory b, string memory err) internal pure {
        vm.assertEq(a, b, err);
    }

    function assertNotEq(uint256 a, uint256 b) internal pure {
        vm.assertNotEq(a, b, "");
    }

    function assertNotEq(bytes32 a, bytes32 b) internal pure {
        vm.assertNotEq(a, b, "");
    }

    function assertNotEq(bytes memory a, bytes memory b) internal pure {
        vm.assertNotEq(a, b, "");
    }

    function assertLt(uint256 a, uint256 b) internal pure {
        vm.assertLt(a, b, "");
    }

    function assertLt(uint256 a, uint256 b, string memory err) internal pure {
        vm.assertLt(a, b, err);
    }

    function assertLe(uint256 a, uint256 b) internal pure {
        vm.assertLe(a, b, "");
    }

    function assertLe(uint256 a, uint256 b, string memory err) internal pure {
        vm.assertLe(a, b, err);
    }

    function assertGt(uint256 a, uint256 b) internal pure {
        vm.assertGt(a, b, "");
    }

    function assertGt(uint256 a, uint256 b, string memory err) internal pure {
        vm.assertGt(a, b, err);
    }

    function assertGe(uint256 a, uint256 b) internal pure {
        vm.assertGe(a, b, "");
    }

    function assertGe(uint256 a, uint256 b, string memory err) internal pure {
        vm.assertGe(a, b, err);
    }

    /// @dev Maps any fuzz input onto [min, max] without discarding runs.
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        if (x >= min && x <= max) return x;
        uint256 size = max - min + 1;
        return min + (x % size);
    }

    // ---- invariant targets (read by forge's invariant runner) ----
    function targetContract(address target) internal {
        targetedContracts.push(target);
    }

    function targetSelector(FuzzSelector memory selector) internal {
        targetedSelectors.push(selector);
    }

    function excludeSender(address sender) internal {
        excludedSenders.push(sender);
    }

    /// @notice Contracts the invariant runner calls.
    function targetContracts() public view returns (address[] memory) {
        return targetedContracts;
    }

    /// @notice Selectors the invariant runner calls.
    function targetSelectors() public view returns (FuzzSelector[] memory) {
        return targetedSelectors;
    }

    /// @notice Senders the invariant runner never uses.
    function excludeSenders() public view returns (address[] memory) {
        return excludedSenders;
    }
}
