// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice The Foundry cheatcodes this script uses (a subset of forge-std's Vm).
interface ScriptVm {
    function envOr(string calldata name, uint256 defaultValue) external view returns (uint256);
    function getCode(string calldata artifactPath) external view returns (bytes memory creationBytecode);
    function startBroadcast() external;
    function startBroadcast(uint256 privateKey) external;
    function stopBroadcast() external;
}

/// @title Deploy
/// @notice Deploys ChessRulesView, ChessChannelBlueprint, ChessRefereeAnnex, ChessChannelAnnex,
/// ChessTournamentBlueprint and ChessReferee (whose constructor creates ChessChannel and then
/// ChessTournament from the blueprints; the referee's fallback runs the referee's annex, the
/// channel's the channel's) through the deterministic deployment proxy at CREATE2_FACTORY with SALT, at the
/// addresses `chessref deploy` gives: each depends only on SALT and the init code, so it
/// is the same on every chain. A contract already at its address is kept.
/// @dev The init code is read from the build's artifacts (`vm.getCode`) rather than
/// embedded with `new X{salt: SALT}()`: embedding ChessReferee's 45 KB of init code would
/// make this script itself exceed the 24 KiB limit `forge build --sizes` enforces. The
/// factory call is what a salted `new` in a forge script broadcasts anyway.
/// Sender: CHESSREF_PRIVATE_KEY (0x-prefixed hex) if set, else forge's own
/// --keystore / --account / --unlocked --sender options. Run it with
/// `scripts/foundry forge script contracts/script/Deploy.s.sol:Deploy --rpc-url URL --broadcast`.
contract Deploy {
    /// @notice The salt of every chessref deployment: bytes32("chessref"), as the Rust
    /// deployer's DEPLOY_SALT.
    bytes32 public constant SALT = bytes32("chessref");
    /// @notice The deterministic deployment proxy: calldata `salt ‖ initcode` creates the
    /// contract with CREATE2 and returns its address.
    address public constant CREATE2_FACTORY = 0x4e59b44847b379578588920cA78FbF26c0B4956C;

    ScriptVm private constant VM = ScriptVm(address(uint160(uint256(keccak256("hevm cheat code")))));

    /// @notice Thrown when the chain has no CREATE2 factory to deploy through.
    error NoCreate2Factory(address factory);
    /// @notice Thrown when the factory did not create the contract where predicted.
    error DeployFailed(string artifact, address predicted);

    /// @notice Deploys what is missing and returns both addresses.
    /// @return rules The ChessRulesView.
    /// @return referee The ChessReferee (its court: `ChessReferee(referee).channel()`).
    function run() external returns (address rules, address referee) {
        if (CREATE2_FACTORY.code.length == 0) revert NoCreate2Factory(CREATE2_FACTORY);
        uint256 key = VM.envOr("CHESSREF_PRIVATE_KEY", uint256(0));
        if (key != 0) VM.startBroadcast(key);
        else VM.startBroadcast();
        rules = place("ChessRulesView.sol:ChessRulesView", "");
        address blueprint = place("ChessChannelBlueprint.sol:ChessChannelBlueprint", "");
        address annex = place("ChessRefereeAnnex.sol:ChessRefereeAnnex", "");
        address channelAnnex = place("ChessChannelAnnex.sol:ChessChannelAnnex", "");
        address tournamentBlueprint = place("ChessTournamentBlueprint.sol:ChessTournamentBlueprint", "");
        referee =
            place("ChessReferee.sol:ChessReferee", abi.encode(blueprint, annex, channelAnnex, tournamentBlueprint));
        VM.stopBroadcast();
    }

    /// @notice Where the factory creates `initCode` with SALT.
    /// @param initCode The contract's creation code.
    /// @return The CREATE2 address.
    function predict(bytes memory initCode) public pure returns (address) {
        bytes32 digest = keccak256(abi.encodePacked(bytes1(0xff), CREATE2_FACTORY, SALT, keccak256(initCode)));
        return address(uint160(uint256(digest)));
    }

    /// @notice The artifact's contract (with constructor arguments `args`) at its CREATE2
    /// address, created unless already there.
    function place(string memory artifact, bytes memory args) internal returns (address at) {
        bytes memory initCode = abi.encodePacked(VM.getCode(artifact), args);
        at = predict(initCode);
        if (at.code.length != 0) return at;
        (bool ok,) = CREATE2_FACTORY.call(abi.encodePacked(SALT, initCode));
        if (!ok || at.code.length == 0) revert DeployFailed(artifact, at);
    }
}
