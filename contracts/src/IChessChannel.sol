// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {IChessCourt, FrozenPosition} from "./ChessCourt.sol";
import {Move, Delegation, Resignation, Result, DrawOffer, Receipt, Auth} from "./ChannelHash.sol";

/// @title IChessChannelTypes
/// @notice The events and errors of `ChessChannel` and its `ChessChannelAnnex`, declared once.
interface IChessChannelTypes {
    /// @notice `signer` (a contract wallet) approved `digest` by ERC-1271; pinned for good.
    event SignaturePinned(address indexed signer, bytes32 indexed digest);
    /// @notice A signed move was shown on-chain (`announce`): its opponent's clock may be
    /// charged from this block on (section 7.3). `move` is the whole signed move, so the side
    /// to move can read it from the chain and answer.
    event MoveAnnounced(uint256 indexed gameId, uint32 ply, bytes32 indexed moveHash, Move move);
    /// @notice `player` revoked its session key `sessionKey` in `gameId`.
    event SessionKeyRevoked(uint256 indexed gameId, address indexed player, address indexed sessionKey);
    /// @notice `player`'s delegation from ply `firstPly` was shown (`retire`): its session
    /// keys delegated from an earlier ply sign no more resignations or results in `gameId`.
    event SessionKeysRetired(uint256 indexed gameId, address indexed player, uint256 firstPly);

    /// @notice The game is not running (unknown, open, ended or cancelled).
    error GameNotRunning(uint256 gameId);
    /// @notice The game was not created by `createChannelGame`.
    error NotAChannelGame(uint256 gameId);
    /// @notice A message is not signed on behalf of `player` (section 5).
    error BadSignature(address player);
    /// @notice A resignation or result signed by `sessionKey`, whose delegation's `firstPly`
    /// is below the player's `agreementsFrom`: a later delegation retired it (section 5).
    error RetiredKey(address sessionKey);
    /// @notice A result other than 1, 2 or 3.
    error BadResult(uint8 result);
    /// @notice `last` is not a valid successor of `previous`: section 6 `code`, and the
    /// section 6 move code of ENCODING.md for code 6 (0 for a broken predecessor).
    error InvalidTransition(uint8 code, uint8 ruleCode);
    /// @notice A ply-0 move that is not the game's start move.
    error NotTheStart();
    /// @notice The registration's ply is not above the frozen registration's `registeredPly`.
    error StaleRegistration(uint256 registeredPly);
    /// @notice On-chain play is live (the last registration's response window is over):
    /// the game goes on with the referee's `move`, not with registrations.
    error RegistrationClosed(uint256 gameId);
    /// @notice `registerStart` or `announce` on a game already continued on-chain.
    error AlreadyOnChain(uint256 gameId);
    /// @notice The caller is not one of the two players.
    error NotAPlayer();
    /// @notice The two moves are not an equivocation (section 7.6).
    error NotEquivocation();
    /// @notice The signed move is a valid successor of the position it names.
    error NotIllegal();
    /// @notice The move and the position it names belong to different games, or `retire`
    /// was shown a delegation of another game.
    error WrongGame();
    /// @notice The receipt is not of the registered move, or its time is out of range.
    error BadReceipt();
    /// @notice A registration without a receipt whose move was stamped at `timestamp`, more
    /// than STAMP_TOLERANCE before the block that shows it (section 7.3 step 5).
    error StaleMove(uint256 timestamp);
    /// @notice A direct reply to a frozen registration received or shown after its author's
    /// flag fell, at `deadline` (section 7.3 step 5): the registration stands.
    error FlagFell(uint256 deadline);
    /// @notice A direct reply's `previous` is not the registered position it answers.
    error NotTheRegisteredPosition();
    /// @notice An agreement below the frozen registration's ply `registeredPly`: lapsed.
    error LapsedAgreement(uint256 registeredPly);
    /// @notice On-chain play is live: agreements are made on the referee (`offerDraw`,
    /// `acceptDraw`, `resign`).
    error AgreementsClosed(uint256 gameId);
}

/// @title IChessChannel
/// @notice The whole interface of a deployed `ChessChannel` as callers see it: its own
/// functions and those its fallback runs from `ChessChannelAnnex` (docs/CHANNEL.md). The
/// implementations' NatSpec says more.
interface IChessChannel is IChessChannelTypes {
    /// @notice Seconds a move nobody acknowledged may be older than the block that shows it.
    function STAMP_TOLERANCE() external view returns (uint256);

    /// @notice The most seconds a signed time can move onto the other player's clock in a game.
    function CLOCK_TOLERANCE() external view returns (uint256);

    /// @notice The referee whose channel games this contract judges (its deployer).
    function referee() external view returns (IChessCourt);

    /// @notice The `ChessChannelAnnex` whose code runs the functions the channel does not
    /// define itself.
    function annex() external view returns (address);

    /// @notice Whether contract wallet `signer` approved `digest` (pinned by `pin`).
    function pinned(address signer, bytes32 digest) external view returns (bool);

    /// @notice When `player` revoked `sessionKey` in `gameId` (0: never).
    function revokedAt(uint256 gameId, address player, address sessionKey) external view returns (uint256);

    /// @notice The highest `firstPly` of `player`'s delegations in `gameId` shown by `retire`.
    function agreementsFrom(uint256 gameId, address player) external view returns (uint256);

    /// @notice Pins a contract wallet's approval of a digest (ERC-1271, asked once).
    function pin(address signer, bytes32 digest, bytes calldata signature) external;

    /// @notice Revokes the caller's session key in a game.
    function revokeSessionKey(uint256 gameId, address sessionKey) external;

    /// @notice Shows a player's later delegation: its earlier keys sign no more agreements.
    function retire(uint256 gameId, Delegation calldata later, bytes calldata signature, bool white) external;

    /// @notice Ends a channel game with a result both players signed.
    function settle(Result calldata result, Auth calldata white, Auth calldata black) external;

    /// @notice Ends a channel game by a signed resignation.
    function resignBySignature(Resignation calldata resignation, Auth calldata auth, bool white) external;

    /// @notice Registers the latest signed pair (section 7.3).
    function register(
        Move calldata previous,
        Auth calldata previousAuth,
        Move calldata last,
        Auth calldata lastAuth,
        Receipt calldata receipt,
        Auth calldata receiptAuth,
        FrozenPosition calldata frozen
    ) external;

    /// @notice Starts on-chain play from the start move (players only, and the referee's
    /// tournament for a game it hosts).
    function registerStart(Move calldata start) external;

    /// @notice Shows a signed move on-chain while the game is off-chain, without freezing it.
    function announce(Move calldata m, Auth calldata auth) external;

    /// @notice When the signed move `moveHash` was first announced off-chain (0: never).
    function announcedAt(bytes32 moveHash) external view returns (uint256);

    /// @notice When the signed move `moveHash` was first shown while a registration was frozen.
    function shownWhileFrozenAt(bytes32 moveHash) external view returns (uint256);

    /// @notice Proves that a player signed two different moves for one ply.
    function proveEquivocation(Move calldata a, Auth calldata aAuth, Move calldata b, Auth calldata bAuth) external;

    /// @notice Proves that a player signed a move that is not a valid successor.
    function proveIllegalMove(Move calldata previous, Move calldata bad, Auth calldata badAuth) external;

    /// @notice The EIP-712 domain separator.
    function domainSeparator() external view returns (bytes32);

    /// @notice `hashStruct` of a move.
    function hashMove(Move calldata m) external pure returns (bytes32);

    /// @notice `hashStruct` of a delegation.
    function hashDelegation(Delegation calldata d) external pure returns (bytes32);

    /// @notice `hashStruct` of a resignation.
    function hashResignation(Resignation calldata r) external pure returns (bytes32);

    /// @notice `hashStruct` of a result.
    function hashResult(Result calldata r) external pure returns (bytes32);

    /// @notice `hashStruct` of a draw offer.
    function hashDrawOffer(DrawOffer calldata o) external pure returns (bytes32);

    /// @notice `hashStruct` of a receipt.
    function hashReceipt(Receipt calldata r) external pure returns (bytes32);

    /// @notice The digest a signer signs for a message with this `hashStruct`.
    function digestOf(bytes32 structHash) external view returns (bytes32);

    /// @notice The section 6 transition code of `m` after `q` (0 = valid successor).
    function transitionCode(uint256 gameId, uint256 increment, Move calldata q, Move calldata m)
        external
        pure
        returns (uint256 code, uint256 ruleCode);
}
