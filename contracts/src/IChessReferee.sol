// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelGame, IChessCourt} from "./ChessCourt.sol";
import {IChessChannel} from "./IChessChannel.sol";

/// @title IChessRefereeTypes
/// @notice The referee's game record for callers, events and errors: declared once, shared by
/// `ChessReferee`, its `ChessRefereeAnnex` (both run in the referee's storage and emit and
/// raise these) and every caller (`IChessReferee`).
interface IChessRefereeTypes {
    /// @notice Everything about a game but its running position.
    struct GameInfo {
        address white;
        address black;
        address token;
        uint256 stake;
        uint32 initialTime;
        uint32 increment;
        uint8 phase;
        uint8 result;
        uint8 reason;
        bool creatorWhite;
        bytes32 commitment;
        uint32 firstMoveWindow;
        bytes32 terms; // what `joinGame` must be given (see `termsHash`); 0 unless open
        uint32 responseWindow; // channel games only (docs/CHANNEL.md); 0 for others
    }

    /// @notice A game was created. `state` and `history` are the start position
    /// (always 128 bytes, also for the standard start); `terms` is what `joinGame` must be
    /// given (`termsHash` of these terms, or `channelTermsHash` of it and `responseWindow`
    /// for a channel game); `responseWindow` is 0 but for channel games, so an indexer
    /// knows from the event alone which games are played off-chain.
    event GameCreated(
        uint256 indexed gameId,
        address indexed creator,
        address indexed opponent,
        bool creatorWhite,
        address token,
        uint256 stake,
        uint32 initialTime,
        uint32 increment,
        uint32 firstMoveWindow,
        bytes32 terms,
        bytes state,
        bytes32 history,
        uint32 responseWindow
    );
    /// @notice The opponent joined; the game runs and the side to move's clock started
    /// (white's from the standard start). `clock` completes the start position of `GameCreated`.
    event GameJoined(uint256 indexed gameId, address indexed white, address indexed black, uint256 clock);
    /// @notice The creator cancelled an open game; the stake was credited back.
    event GameCancelled(uint256 indexed gameId);
    /// @notice A legal move was played. `ply` counts the moves of this game (1 = first),
    /// `status` is the section 8 status of the new position; `state`, `history` and
    /// `clock` are the new position to pass to the next call.
    event MovePlayed(
        uint256 indexed gameId, uint24 move, uint32 ply, uint8 status, bytes32 history, uint256 clock, bytes state
    );
    /// @notice A player offered a draw in the current position; `clock` is the new clock
    /// word (with the offer flag). Any later move withdraws the offer.
    event DrawOffered(uint256 indexed gameId, address indexed by, uint256 clock);
    /// @notice The game ended. `result`: 1 white wins, 2 black wins, 3 draw, 4 aborted
    /// (both refunded). `reason`: see docs/REFEREE.md (1-4 = section 8 status codes).
    event GameEnded(uint256 indexed gameId, uint8 result, uint8 reason);
    /// @notice A channel game continues on-chain from a signed position the channel
    /// registered (docs/CHANNEL.md section 7.3); `state`, `history` and `clock` are the new
    /// position to pass to the next call, `ply` the moves played before it.
    event PositionRegistered(uint256 indexed gameId, uint32 ply, bytes state, bytes32 history, uint256 clock);
    /// @notice `account` withdrew `amount` of `token` (address(0) = ETH), sent to `to`.
    event Withdrawn(address indexed account, address indexed token, address to, uint256 amount);

    /// @dev Every error this contract raises is declared here, but for those of the
    /// libraries it uses: `IllegalMove`, `InvalidState`, `BadStateLength` (ChessRules.sol)
    /// and `TokenTransferFailed` (SafeERC20.sol).

    /// @notice Time control out of range.
    error BadTimeControl(uint256 initialTime, uint256 increment);
    /// @notice First-move window out of range (MIN_FIRST_MOVE_WINDOW..MAX_FIRST_MOVE_WINDOW, or 0).
    error BadFirstMoveWindow(uint256 firstMoveWindow);
    /// @notice The terms passed to `joinGame` are not the game's; `terms` is the game's.
    error WrongTerms(bytes32 terms);
    /// @notice A withdrawal to address(0).
    error ZeroRecipient();
    /// @notice A withdrawal to an address that would strand the funds (this referee).
    error BadRecipient(address to);
    /// @notice The constructor's channel blueprint created no channel.
    error BadBlueprint(address blueprint);
    /// @notice ETH sent does not match what the call requires.
    error WrongEthAmount(uint256 expected, uint256 received);
    /// @notice The token delivered less (or more) than the stake: fee-on-transfer and
    /// other short-paying tokens are refused.
    error TokenShortPaid(uint256 expected, uint256 received);
    /// @notice A custom start position is already decided (section 8 status not 0).
    error StartPositionOver(uint256 status);
    /// @notice Nobody may play against themselves.
    error CannotPlaySelf();
    /// @notice The game is not waiting for an opponent.
    error GameNotOpen(uint256 gameId);
    /// @notice The game is not running.
    error GameNotRunning(uint256 gameId);
    /// @notice The game was created for another opponent.
    error NotInvited(address invited);
    /// @notice Only the creator may cancel.
    error NotCreator();
    /// @notice The caller is not one of the two players.
    error NotAPlayer();
    /// @notice The caller is a player, but not the one this action needs.
    error NotYourTurn();
    /// @notice The (state, history, clock) passed is not the game's current position.
    error StalePosition();
    /// @notice The side to move has used up its time (grace included).
    error TimeUp();
    /// @notice The side to move still has time until `deadline` (grace included).
    error TimeNotUp(uint256 deadline);
    /// @notice There is no draw offer by the opponent in the current position.
    error NoDrawOffer();
    /// @notice Nobody accepts their own draw offer.
    error CannotAcceptOwnOffer();
    /// @notice Neither the fifty-move rule nor threefold repetition applies.
    error DrawNotClaimable();
    /// @notice The repetition keys do not hash to the committed history.
    error BadWitness();
    /// @notice Nothing to withdraw.
    error NothingToWithdraw();
    /// @notice Sending ETH to the caller failed.
    error EthTransferFailed();
    /// @notice Re-entry into a guarded function.
    error Reentrancy();
    /// @notice Response window of a channel game out of range (MIN_RESPONSE_WINDOW..MAX_RESPONSE_WINDOW).
    error BadResponseWindow(uint256 responseWindow);
    /// @notice The channel game is played off-chain: only the channel paths and `resign` act
    /// on it until a position is registered.
    error OffChain(uint256 gameId);
    /// @notice Only this referee's `channel` may call.
    error NotChannel();
    /// @notice A registered position is frozen until `playableFrom`, the end of its response
    /// window: only a later registration may replace it before then (docs/CHANNEL.md 7.3).
    error NotYetPlayable(uint256 playableFrom);
    /// @notice The game is not a channel game (created by `createChannelGame`).
    error NotAChannelGame(uint256 gameId);
    /// @notice The position is a registered decided position: nothing is played from it;
    /// `finishRegistered` ends the game once its window is over.
    error PositionDecided(uint256 gameId);
    /// @notice `finishRegistered` on a position that is not a registered decided one.
    error NoPendingOutcome(uint256 gameId);
    /// @notice A registered ply beyond what the game record holds (2^24-1; no legal game
    /// gets there).
    error PlyOutOfRange(uint256 ply);
    /// @notice The constructor's annex address holds no code.
    error BadAnnex(address annex);
    /// @notice Only the referee's own tournament may host a game.
    error NotTournament();
}

/// @title IChessReferee
/// @notice The whole interface of a deployed `ChessReferee` as callers see it: its own
/// functions and those its fallback runs from `ChessRefereeAnnex` (docs/REFEREE.md). The
/// implementations' NatSpec says more.
interface IChessReferee is IChessRefereeTypes, IChessCourt {
    /// @notice Seconds each player may overdraw its clock over a whole game (docs/REFEREE.md section 3).
    function GRACE_PERIOD() external view returns (uint256);

    /// @notice Smallest initial time a game may have.
    function MIN_INITIAL_TIME() external view returns (uint256);

    /// @notice Largest initial time.
    function MAX_INITIAL_TIME() external view returns (uint256);

    /// @notice Largest Fischer increment per move.
    function MAX_INCREMENT() external view returns (uint256);

    /// @notice First-move window used when `createGame` is given 0.
    function DEFAULT_FIRST_MOVE_WINDOW() external view returns (uint256);

    /// @notice Smallest first-move window.
    function MIN_FIRST_MOVE_WINDOW() external view returns (uint256);

    /// @notice Largest first-move window.
    function MAX_FIRST_MOVE_WINDOW() external view returns (uint256);

    /// @notice Most repetition keys a threefold witness may hold.
    function MAX_WITNESS_KEYS() external view returns (uint256);

    /// @notice Smallest response window of a channel game (docs/CHANNEL.md section 10).
    function MIN_RESPONSE_WINDOW() external view returns (uint256);

    /// @notice Largest response window of a channel game.
    function MAX_RESPONSE_WINDOW() external view returns (uint256);

    /// @notice Id the next `createGame` returns (ids start at 1).
    function nextGameId() external view returns (uint256);

    /// @notice The court of this referee's channel games (docs/CHANNEL.md).
    function channel() external view returns (IChessChannel);

    /// @notice The `ChessRefereeAnnex` whose code runs the functions the referee does not
    /// define itself.
    function annex() external view returns (address);

    /// @notice The `ChessTournament` this referee deployed: the only caller of `hostGame`.
    function tournament() external view returns (address);

    /// @notice Creates and starts a stake-free game between two named players; the
    /// referee's tournament only (`NotTournament`).
    function hostGame(
        address white,
        address black,
        uint32 initialTime,
        uint32 increment,
        uint32 firstMoveWindow,
        uint32 responseWindow
    ) external returns (uint256 gameId);

    /// @notice A game's phase and result alone (from one storage word).
    function resultOf(uint256 gameId) external view returns (uint8 phase, uint8 result);

    /// @notice Creates a game and pays the creator's stake.
    function createGame(
        address opponent,
        bool creatorWhite,
        address token,
        uint256 stake,
        uint32 initialTime,
        uint32 increment,
        uint32 firstMoveWindow,
        bytes calldata startState
    ) external payable returns (uint256 gameId);

    /// @notice Creates a channel game (docs/CHANNEL.md).
    function createChannelGame(
        address opponent,
        bool creatorWhite,
        address token,
        uint256 stake,
        uint32 initialTime,
        uint32 increment,
        uint32 firstMoveWindow,
        bytes calldata startState,
        uint32 responseWindow
    ) external payable returns (uint256 gameId);

    /// @notice Joins an open game (or one created for the caller), paying the same stake.
    function joinGame(uint256 gameId, bytes32 terms) external payable;

    /// @notice Plays `mv` for the side to move.
    function move(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock, uint24 mv) external;

    /// @notice Resigns.
    function resign(uint256 gameId) external;

    /// @notice Sends the caller all their credit in `token` (address(0) = ETH).
    function withdraw(address token) external;

    /// @notice Cancels a game nobody joined yet.
    function cancelGame(uint256 gameId) external;

    /// @notice Plays `mv` and claims a draw that this move brings about (FIDE 9.2, 9.3).
    function moveAndClaimDraw(
        uint256 gameId,
        bytes calldata state,
        bytes32 history,
        uint256 clock,
        uint24 mv,
        bytes32[] calldata keys
    ) external;

    /// @notice Offers a draw in the current position.
    function offerDraw(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external;

    /// @notice Accepts the opponent's draw offer made in the current position.
    function acceptDraw(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external;

    /// @notice Claims a draw in the current position, by the player to move.
    function claimDraw(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock, bytes32[] calldata keys)
        external;

    /// @notice Claims the game because the side to move ran out of time (grace included), by its
    /// opponent.
    function claimTimeout(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external;

    /// @notice Ends a channel game whose registered position is decided (docs/CHANNEL.md 7.4) by
    /// its outcome (reasons 1-4, as the move reaching it on-chain would have), once its response
    /// window is over.
    function finishRegistered(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external;

    /// @notice Sends the caller's whole credit in `token` to `to`.
    function withdrawTo(address token, address to) external;

    /// @notice Withdrawable balance of `account` in `token` (address(0) = ETH).
    function credits(address account, address token) external view returns (uint256);

    /// @notice Static data, phase, result and current commitment of a game.
    function getGame(uint256 gameId) external view returns (GameInfo memory info);

    /// @notice The terms hash `joinGame` expects for a game with these terms (what `GameCreated`
    /// and `getGame` report).
    function termsHash(
        address creator,
        address opponent,
        bool creatorWhite,
        address token,
        uint256 stake,
        uint32 initialTime,
        uint32 increment,
        uint32 firstMoveWindow,
        bytes calldata startState
    ) external view returns (bytes32);

    /// @notice The terms hash of a channel game.
    function channelTermsHash(bytes32 baseTerms, uint32 responseWindow) external pure returns (bytes32);

    /// @notice The commitment a position hashes to.
    function positionCommitment(bytes calldata state, bytes32 history, uint256 clock) external pure returns (bytes32);

    /// @notice The clocks of a running game as of now, given its current position.
    function clocks(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock)
        external
        view
        returns (uint256 whiteLeft, uint256 blackLeft, bool whiteToMove, uint256 deadline);

    /// @notice Splits a clock word into its fields (see docs/REFEREE.md).
    function decodeClock(uint256 clock)
        external
        pure
        returns (
            uint256 lastTimestamp,
            uint256 whiteBudget,
            uint256 blackBudget,
            uint256 increment,
            uint256 ply,
            bool whiteOffersDraw,
            bool blackOffersDraw,
            bool customStart,
            uint256 firstMoveWindow
        );
}
