// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Move} from "./ChannelHash.sol";

/// @title IChessTournamentTypes
/// @notice The tournament's records, events and errors: declared once, shared by
/// `ChessTournament` and its callers (`IChessTournament`).
interface IChessTournamentTypes {
    /// @notice What an organiser fixes at `createEvent`; nothing changes it afterwards.
    struct EventTerms {
        address token; // address(0) = ETH
        uint96 fee; // entry fee per player
        uint8 size; // 4, 8, 16, 32 or 64 players
        uint32 initialTime; // the games' time control, as `createGame`'s
        uint32 increment;
        uint32 firstMoveWindow; // 0 = the referee's default; a player's time to start
        uint32 responseWindow; // 0: per-move games; else channel games with this window
        uint40 deadline; // registration closes after this timestamp
        uint16 feeBps; // organiser fee, at most MAX_FEE_BPS, credited only after the final
        uint16[] split; // per player of tier t (0 winner, 1 finalist, 2 semi-finalists, ...)
        uint32 abandonAfter; // seconds past the side to move's deadline, nobody claiming, after which a game counts as abandoned by both
    }

    /// @notice An event as stored, for callers.
    struct EventInfo {
        address organiser;
        address token;
        uint96 fee;
        uint8 size;
        uint8 entrants;
        uint40 deadline;
        uint16 feeBps;
        uint32 initialTime;
        uint32 increment;
        uint32 firstMoveWindow;
        uint32 responseWindow;
        uint40 drawBlock; // the block whose hash places the entrants (0 until the event fills)
        uint64 seed; // the low 64 bits of that hash, once drawn
        bool drawn;
        bool finished;
        bool feePaid;
        bool cancelled;
        uint16[] split;
        uint128 paid; // every credit of this event so far (prizes, refunds, the fee)
        uint32 abandonAfter;
        uint256 unassigned; // prizes of places no player holds (walkovers, void matches): the winner's
    }

    /// @notice A match as stored, for callers. `lo` and `hi` are entrant indices (the upper
    /// and lower half of the bracket below it), known from its start on.
    struct MatchInfo {
        uint8 status; // 0 waiting, 1 running, 2 decided, 3 lot armed, 4 abandoned by both (or void: no players)
        address white;
        address black;
        uint256 gameId;
        uint256 startedAt; // the start's timestamp (0 before)
        uint256 lotBlock; // the armed lot's block (status 3), else 0
        address winner; // once decided
        uint8 lo;
        uint8 hi;
    }

    /// @notice An event was created with these terms.
    event EventCreated(uint256 indexed eventId, address indexed organiser, EventTerms terms);
    /// @notice The organiser cancelled an event nobody had entered.
    event EventCancelled(uint256 indexed eventId);
    /// @notice `player` paid the fee and holds entrant index `index` (its seed number).
    event Entered(uint256 indexed eventId, address indexed player, uint8 index);
    /// @notice The event is full; the hash of `drawBlock` will place the entrants (also when
    /// the draw is re-armed because that hash expired).
    event DrawArmed(uint256 indexed eventId, uint256 drawBlock);
    /// @notice The bracket is fixed by `seed`.
    event Drawn(uint256 indexed eventId, uint64 seed);
    /// @notice Match `matchIndex` is played as referee game `gameId`.
    event MatchStarted(
        uint256 indexed eventId, uint256 matchIndex, uint256 indexed gameId, address white, address black
    );
    /// @notice The game of match `matchIndex` was drawn: the hash of `lotBlock` decides it.
    event LotArmed(uint256 indexed eventId, uint256 matchIndex, uint256 lotBlock);
    /// @notice `winner` goes on, `loser` is out. `how`: 1 on the board (the referee's result),
    /// 2 by lot after a drawn game, 3 by walkover (`loser` 0: the other side was abandoned).
    /// A walkover is played by no game.
    event MatchDecided(uint256 indexed eventId, uint256 matchIndex, address winner, address loser, uint8 how);
    /// @notice The final is decided (`winner` 0 if nobody won it: abandoned or void).
    event EventFinished(uint256 indexed eventId, address winner);
    /// @notice Both players of match `matchIndex` are out: its game was abandoned by both, or
    /// (both 0) it has no players because both matches below it were.
    event MatchAbandoned(uint256 indexed eventId, uint256 matchIndex, address white, address black);
    /// @notice `amount` of the event's pool was credited to `account` (a prize, a refund, the
    /// organiser fee); pull it with `withdraw`.
    event PrizeCredited(uint256 indexed eventId, address indexed account, uint256 amount);
    /// @notice `account` withdrew `amount` of `token` to `to`.
    event Withdrawn(address indexed account, address indexed token, address to, uint256 amount);

    /// @notice The size is not 4, 8, 16, 32 or 64.
    error BadSize(uint256 size);
    /// @notice The split is empty, longer than the event has tiers, increasing, or its
    /// per-player shares times the players of each tier do not sum to 10,000.
    error BadSplit();
    /// @notice The organiser fee is above MAX_FEE_BPS.
    error FeeTooHigh(uint256 feeBps);
    /// @notice The registration deadline is not in the future, or more than MAX_REGISTRATION
    /// (90 days) ahead.
    error BadDeadline(uint256 deadline);
    /// @notice The fee token has no code.
    error NotAToken(address token);
    /// @notice `abandonAfter` is out of MIN_ABANDON_AFTER..MAX_ABANDON_AFTER.
    error BadAbandonAfter(uint256 abandonAfter);
    /// @notice No event has this id.
    error UnknownEvent(uint256 eventId);
    /// @notice Past the deadline, full, or cancelled.
    error RegistrationClosed();
    /// @notice The caller already holds a seat in this event.
    error AlreadyEntered();
    /// @notice The caller holds no seat in this event.
    error NotEntered();
    /// @notice The ETH sent is not the fee (or ETH was sent with a token fee).
    error WrongEthAmount(uint256 expected, uint256 received);
    /// @notice The token balance grew by less than the fee (fee-on-transfer tokens are refused).
    error TokenShortPaid(uint256 expected, uint256 received);
    /// @notice The event is not full.
    error NotFull();
    /// @notice The bracket is already drawn.
    error AlreadyDrawn();
    /// @notice The draw's block hash is not available yet (before `drawBlock` + 1).
    error NotDrawnYet(uint256 drawBlock);
    /// @notice No such match in this event.
    error BadMatch(uint256 matchIndex);
    /// @notice A player of this match is not known yet (a match below is not decided).
    error PlayersNotKnown(uint256 matchIndex);
    /// @notice The match was already started.
    error AlreadyStarted(uint256 matchIndex);
    /// @notice The match is not running (never started, or already decided).
    error NotRunning(uint256 matchIndex);
    /// @notice The match's game has not ended on the referee.
    error GameNotEnded(uint256 gameId);
    /// @notice The referee recorded a result the bracket cannot use (an abort).
    error UnexpectedResult(uint256 gameId, uint8 result);
    /// @notice Match `matchIndex`'s game was drawn and its lot is not armed: `report` it first.
    error LotNotArmed(uint256 matchIndex);
    /// @notice The lot of match `matchIndex` waits for the hash of `lotBlock`.
    error LotPending(uint256 matchIndex, uint256 lotBlock);
    /// @notice The match has no armed lot.
    error NoLot(uint256 matchIndex);
    /// @notice The game is not played on-chain (a channel game nobody registered): a player
    /// registers it (or, long overdue, anyone through `registerStart`) before it can be shown
    /// abandoned.
    error NotOnChain(uint256 gameId);
    /// @notice The position given is not the game's current one (or not 128 bytes).
    error StalePosition();
    /// @notice The game's registered position is decided: `finishRegistered` ends it.
    error PositionDecided(uint256 gameId);
    /// @notice The game has ended: `report` it.
    error GameOver(uint256 gameId);
    /// @notice The game counts as abandoned only after `until`.
    error NotAbandoned(uint256 until);
    /// @notice The final is not decided yet (and the event is not refunding).
    error NotFinished();
    /// @notice This prize, refund or fee was already credited.
    error AlreadyClaimed();
    /// @notice Only the event's organiser may do this.
    error NotOrganiser();
    /// @notice The event has entrants: it can no longer be cancelled.
    error HasEntrants();
    /// @notice The caller has no credit in this token.
    error NothingToWithdraw();
    /// @notice `withdrawTo` to address(0).
    error ZeroRecipient();
    /// @notice `withdrawTo` to this contract.
    error BadRecipient(address to);
    /// @notice The ETH transfer of a withdrawal failed.
    error EthTransferFailed();
    /// @notice The start move given names another game than the match's `gameId`.
    error NotTheMatchGame(uint256 gameId);
    /// @notice Re-entry into a guarded function.
    error Reentrancy();
}

/// @title IChessTournament
/// @notice The interface of `ChessTournament` (its NatSpec says more).
interface IChessTournament is IChessTournamentTypes {
    /// @notice The referee that deployed this tournament and hosts its games.
    function referee() external view returns (address);
    /// @notice Id the next `createEvent` returns (ids start at 1).
    function nextEventId() external view returns (uint256);
    /// @notice Creates an event; the caller is its organiser.
    function createEvent(EventTerms calldata terms) external returns (uint256 eventId);
    /// @notice Cancels an event nobody entered (organiser only).
    function cancelEvent(uint256 eventId) external;
    /// @notice Enters the caller, paying the fee.
    function enter(uint256 eventId) external payable;
    /// @notice Fixes the bracket from the draw block's hash (re-arms it if expired).
    function draw(uint256 eventId) external;
    /// @notice Starts match `matchIndex`'s game on the referee.
    function start(uint256 eventId, uint256 matchIndex) external returns (uint256 gameId);
    /// @notice Records a running match's result from the referee.
    function report(uint256 eventId, uint256 matchIndex) external;
    /// @notice Decides a drawn match by its lot (re-arms it if the hash expired).
    function resolveLot(uint256 eventId, uint256 matchIndex) external;
    /// @notice Records a running match whose game both players abandoned.
    function reportAbandoned(uint256 eventId, uint256 matchIndex, bytes calldata state, bytes32 history, uint256 clock)
        external;
    /// @notice Registers the start of a channel match's game nobody registered, once long overdue.
    function registerStart(uint256 eventId, uint256 matchIndex, Move calldata startMove) external;
    /// @notice Credits the caller's prize (or its refund, for an event that did not fill).
    function claim(uint256 eventId) external;
    /// @notice Credits the organiser fee after the final.
    function claimFee(uint256 eventId) external;
    /// @notice Sends the caller all its credit in `token`.
    function withdraw(address token) external;
    /// @notice Sends the caller's credit in `token` to `to`.
    function withdrawTo(address token, address to) external;
    /// @notice An event.
    function getEvent(uint256 eventId) external view returns (EventInfo memory);
    /// @notice A match.
    function getMatch(uint256 eventId, uint256 matchIndex) external view returns (MatchInfo memory);
    /// @notice White and black of a match whose players are known.
    function pairing(uint256 eventId, uint256 matchIndex) external view returns (address white, address black);
    /// @notice The prize of one player of tier `tier`.
    function prizeOf(uint256 eventId, uint256 tier) external view returns (uint256);
    /// @notice The player holding entrant index `index`.
    function entrantOf(uint256 eventId, uint256 index) external view returns (address);
    /// @notice The withdrawable balance of `account` in `token`.
    function credits(address account, address token) external view returns (uint256);
    /// @notice The bracket positions' entrants for `seed` (a Fisher-Yates shuffle of 0..size-1).
    function permutation(uint64 seed, uint256 size) external pure returns (uint8[] memory);
}
