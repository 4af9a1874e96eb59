// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRulesView} from "../src/ChessRulesView.sol";
import {ChessReferee} from "../src/ChessReferee.sol";

/// @notice The Foundry cheatcodes this script uses (a subset of forge-std's Vm).
interface ScriptVm {
    function envOr(string calldata name, uint256 defaultValue) external view returns (uint256);
    function startBroadcast() external;
    function startBroadcast(uint256 privateKey) external;
    function stopBroadcast() external;
}

/// @title Deploy
/// @notice Deploys ChessRulesView and ChessReferee (whose constructor creates ChessChannel)
/// at the addresses `chessref deploy` gives: salted creation in a forge script goes through
/// the deterministic deployment proxy at CREATE2_FACTORY, so each address depends only on
/// SALT and the init code, on every chain. A contract already at its address is kept.
/// @dev Sender: CHESSREF_PRIVATE_KEY (0x-prefixed hex) if set, else forge's own
/// --keystore / --account / --unlocked --sender options. Run it with
/// `scripts/foundry forge script contracts/script/Deploy.s.sol:Deploy --rpc-url URL --broadcast`.
contract Deploy {
    /// @notice The salt of every chessref deployment: bytes32("chessref"), as the Rust
    /// deployer's DEPLOY_SALT.
    bytes32 public constant SALT = bytes32("chessref");
    /// @notice The deterministic deployment proxy forge routes salted creation through.
    address public constant CREATE2_FACTORY = 0x4e59b44847b379578588920cA78FbF26c0B4956C;

    ScriptVm private constant VM = ScriptVm(address(uint160(uint256(keccak256("hevm cheat code")))));

    /// @notice Thrown when the chain has no CREATE2 factory to deploy through.
    error NoCreate2Factory(address factory);

    /// @notice Deploys what is missing and returns both contracts.
    /// @return rules The ChessRulesView.
    /// @return referee The ChessReferee (its court: `referee.channel()`).
    function run() external returns (ChessRulesView rules, ChessReferee referee) {
        if (CREATE2_FACTORY.code.length == 0) revert NoCreate2Factory(CREATE2_FACTORY);
        uint256 key = VM.envOr("CHESSREF_PRIVATE_KEY", uint256(0));
        if (key != 0) VM.startBroadcast(key);
        else VM.startBroadcast();
        address rulesAt = predict(type(ChessRulesView).creationCode);
        rules = rulesAt.code.length != 0 ? ChessRulesView(rulesAt) : new ChessRulesView{salt: SALT}();
        address refereeAt = predict(type(ChessReferee).creationCode);
        referee = refereeAt.code.length != 0 ? ChessReferee(refereeAt) : new ChessReferee{salt: SALT}();
        VM.stopBroadcast();
    }

    /// @notice Where the factory creates `initCode` with SALT.
    /// @param initCode The contract's creation code.
    /// @return The CREATE2 address.
    function predict(bytes memory initCode) public pure returns (address) {
        bytes32 digest = keccak256(abi.encodePacked(bytes1(0xff), CREATE2_FACTORY, SALT, keccak256(initCode)));
        return address(uint160(uint256(digest)));
    }
}
