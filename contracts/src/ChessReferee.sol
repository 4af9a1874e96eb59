// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {AnnexCall} from "./AnnexCall.sol";
import {ChessRules, InvalidState, BadStateLength} from "./ChessRules.sol";
import {ClockWord} from "./ClockWord.sol";
import {IChessChannel} from "./IChessChannel.sol";
import {ChannelGame, IChessCourt} from "./ChessCourt.sol";
import {RepetitionChain} from "./RepetitionChain.sol";
import {Commitment} from "./Commitment.sol";
import {GameTerms} from "./GameTerms.sol";
import {ChessRefereeCore} from "./ChessRefereeCore.sol";

/// @title ChessReferee
/// @notice Runs chess games with equal stakes (ETH or one ERC-20 token) between two players:
/// every move is checked on-chain by `ChessRules` over the 128-byte state of
/// `shared/ENCODING.md`, a Fischer clock runs on `block.timestamp`, draws are offered,
/// accepted or claimed (fifty moves, threefold repetition), and payouts are credited and
/// pulled with `withdraw`. Nobody has any power over a game but its two players.
/// @dev Gas design (see docs/REFEREE.md): a running game keeps ONE storage word that
/// changes per move, `commitment = keccak256(keccak256(state ‖ history) ‖ clock)`.
/// The caller passes the current position (128-byte state, repetition-chain head
/// `history`, packed `clock` word) in calldata; the contract checks it against the
/// commitment, applies the move in memory and stores the new commitment. Events carry
/// the full new position, so a client always knows what to send next.
///
/// A draw offer also changes the commitment; every call that takes a position therefore
/// also accepts the clock word without offers made after the caller read it, so an offer
/// can never make the other player's move or claim stale (issue 9).
///
/// Channel games (`createChannelGame`, docs/CHANNEL.md) are played off-chain with signed
/// moves after the join; the `ChessChannel` this contract deploys settles them, or
/// registers a signed position from which they continue here like any game.
///
/// The referee's own code holds what runs per game and per move (create, join, move, resign,
/// withdraw) and the court's entry points; the rarely called paths (cancel, draw offers and
/// claims, timeouts, `finishRegistered`, `withdrawTo`) and the views run from
/// `ChessRefereeAnnex`, deployed apart and fixed at construction, by DELEGATECALL from this
/// contract's fallback, in this contract's storage (`ChessRefereeCore` declares it once for
/// both). Callers see one contract: `IChessReferee` is its whole interface.
contract ChessReferee is ChessRefereeCore, IChessCourt {
    /// @notice The court of this referee's channel games, deployed by the constructor: the
    /// only account that may call `registerPosition` and `endChannelGame`.
    IChessChannel public immutable channel;
    /// @notice The `ChessRefereeAnnex` whose code runs, in this contract's storage, every call
    /// this contract does not define itself (see the fallback).
    address public immutable annex;

    /// @param channelBlueprint A `ChessChannelBlueprint`: the channel is created from its
    /// code (`BadBlueprint` if that fails). Deployment tools check the channel's code.
    /// @param annexCode A deployed `ChessRefereeAnnex` (`BadAnnex` if no code is there).
    /// Deployment tools check its code.
    /// @param channelAnnexCode A deployed `ChessChannelAnnex`, the channel's constructor
    /// argument (`BadAnnex` if no code is there). Deployment tools check its code.
    /// @param tournamentBlueprint A `ChessTournamentBlueprint`: the tournament, the only
    /// account that may `hostGame`, is created from its code after the channel (CREATE from
    /// this contract, nonce 2; `BadBlueprint` if that fails). Deployment tools check its code.
    constructor(address channelBlueprint, address annexCode, address channelAnnexCode, address tournamentBlueprint) {
        if (annexCode.code.length == 0) revert BadAnnex(annexCode);
        if (channelAnnexCode.code.length == 0) revert BadAnnex(channelAnnexCode);
        annex = annexCode;
        address created;
        uint256 size = channelBlueprint.code.length;
        if (size > 1) {
            assembly ("memory-safe") {
                let p := mload(0x40)
                let n := sub(size, 1)
                extcodecopy(channelBlueprint, p, 1, n)
                mstore(add(p, n), channelAnnexCode) // the channel's constructor argument
                created := create(0, p, add(n, 0x20))
            }
        }
        if (created == address(0)) revert BadBlueprint(channelBlueprint);
        channel = IChessChannel(created);
        hostTournament = _fromBlueprint(tournamentBlueprint);
    }

    /// @dev CREATE of the creation code a blueprint holds after its 0xFE byte, with no
    /// constructor argument; reverts `BadBlueprint` if nothing was created.
    function _fromBlueprint(address blueprint) private returns (address created) {
        uint256 size = blueprint.code.length;
        if (size > 1) {
            assembly ("memory-safe") {
                let p := mload(0x40)
                let n := sub(size, 1)
                extcodecopy(blueprint, p, 1, n)
                created := create(0, p, n)
            }
        }
        if (created == address(0)) revert BadBlueprint(blueprint);
    }

    /// @notice Every function of `IChessReferee` this contract does not define runs from the
    /// annex, in this contract's storage and with the caller's `msg.sender`: its answer or
    /// its revert is returned as it is. Not payable: no annex function takes ETH.
    fallback() external {
        AnnexCall.forward(annex);
    }

    // ------------------------------------------------------------------ lifecycle

    /// @notice Creates a game and pays the creator's stake.
    /// @param opponent The only address allowed to join, or address(0) for an open game.
    /// @param creatorWhite True if the creator plays white.
    /// @param token address(0) for ETH (send `stake` as msg.value), else an ERC-20 the
    /// creator approved for `stake`; the balance received must equal `stake` exactly.
    /// @param stake Amount each player pays; the winner gets both, a draw refunds each.
    /// @param initialTime Seconds on each clock, MIN_INITIAL_TIME..MAX_INITIAL_TIME.
    /// @param increment Fischer increment in seconds added after each move, 0..MAX_INCREMENT.
    /// @param firstMoveWindow Seconds each player has for its first move in a game from the
    /// standard start before the opponent may abort it (`claimTimeout`);
    /// MIN_FIRST_MOVE_WINDOW..MAX_FIRST_MOVE_WINDOW, or 0 for DEFAULT_FIRST_MOVE_WINDOW.
    /// @param startState Empty for the standard initial position, else a 128-byte state
    /// that must be valid (section 7) and not already decided (section 8 status 0).
    /// @return gameId The new game's id.
    function createGame(
        address opponent,
        bool creatorWhite,
        address token,
        uint256 stake,
        uint32 initialTime,
        uint32 increment,
        uint32 firstMoveWindow,
        bytes calldata startState
    ) external payable nonReentrant returns (uint256 gameId) {
        return _create(
            _terms(opponent, creatorWhite, token, stake, initialTime, increment, firstMoveWindow), startState, 0
        );
    }

    /// @notice Creates a channel game (docs/CHANNEL.md): the terms of `createGame`, played
    /// off-chain with signed moves after the join and settled through `channel`.
    /// @param opponent As for `createGame`.
    /// @param creatorWhite As for `createGame`.
    /// @param token As for `createGame`.
    /// @param stake As for `createGame`.
    /// @param initialTime As for `createGame`.
    /// @param increment As for `createGame`.
    /// @param firstMoveWindow As for `createGame` (applies once play continues on-chain).
    /// @param startState As for `createGame`.
    /// @param responseWindow Seconds the side to move gets on top of its time after a
    /// registration, MIN_RESPONSE_WINDOW..MAX_RESPONSE_WINDOW. Part of the terms: the game's
    /// terms hash is `channelTermsHash(termsHash(...), responseWindow)`.
    /// @return gameId The new game's id.
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
    ) external payable nonReentrant returns (uint256 gameId) {
        GameTerms.checkResponseWindow(responseWindow);
        return _create(
            _terms(opponent, creatorWhite, token, stake, initialTime, increment, firstMoveWindow),
            startState,
            responseWindow
        );
    }

    /// @notice Joins an open game (or one created for the caller), paying the same stake;
    /// the game starts and the side to move's clock runs from now. A channel game starts
    /// off-chain instead (`GameJoined.clock` 0, no commitment).
    /// @param gameId The game to join.
    /// @param terms The `termsHash` of the terms the caller agrees to (from `GameCreated`,
    /// `getGame` or `termsHash`); reverts `WrongTerms` if the game's terms differ, so an
    /// id that now names another game than the caller expected can never be joined.
    function joinGame(uint256 gameId, bytes32 terms) external payable nonReentrant {
        Game storage g = games[gameId];
        if (g.phase != PHASE_OPEN) revert GameNotOpen(gameId);
        bool creatorWhite = g.creatorWhite;
        address creator = creatorWhite ? g.white : g.black;
        address invited = creatorWhite ? g.black : g.white;
        if (invited != address(0) && invited != msg.sender) revert NotInvited(invited);
        if (msg.sender == creator) revert CannotPlaySelf();
        bytes32 inner = g.startInner;
        bool customStart = inner != 0;
        if (!customStart) inner = INITIAL_INNER;
        bytes32 expected = _termsOf(g, creator, invited, inner);
        if (terms != expected) revert WrongTerms(expected);

        if (creatorWhite) g.black = msg.sender;
        else g.white = msg.sender;
        g.phase = PHASE_RUNNING;

        // A channel game runs off-chain: no clock, commitment 0, start kept for the court.
        uint256 clock;
        if (g.responseWindow == 0) {
            if (customStart) g.startInner = 0;
            clock = ClockWord.start(
                block.timestamp, g.initialTime + GRACE_PERIOD, g.increment, g.firstMoveWindow, customStart
            );
            g.commitment = Commitment.seal(inner, clock);
        }

        emit GameJoined(gameId, g.white, g.black, clock);
        _collectStake(g.token, g.stake);
    }

    // ------------------------------------------------------------------ play

    /// @notice Plays `mv` for the side to move.
    /// @param gameId The game.
    /// @param state The current 128-byte state (from the last `MovePlayed`, or `GameCreated`).
    /// @param history The current repetition-chain head (same source).
    /// @param clock The current clock word (last `MovePlayed`, `DrawOffered` or `GameJoined`).
    /// @param mv `(from << 16) | (to << 8) | promotion`, 0x88 squares; an illegal move
    /// reverts `IllegalMove(code)` with the section 6 code.
    function move(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock, uint24 mv) external {
        Game storage g = games[gameId];
        (bytes memory s, bytes32 h, uint256 c, uint256 st) = _play(g, gameId, state, history, clock, mv);
        if (st != 0) _endByStatus(gameId, s, st);
        else g.commitment = Commitment.seal(Commitment.inner(s, h), c);
    }

    /// @notice Resigns; the opponent wins. Allowed at any time while the game runs.
    /// @param gameId The game.
    function resign(uint256 gameId) external {
        Game storage g = games[gameId];
        if (g.phase != PHASE_RUNNING) revert GameNotRunning(gameId);
        if (msg.sender == g.white) _end(gameId, RESULT_BLACK_WINS, REASON_RESIGNATION);
        else if (msg.sender == g.black) _end(gameId, RESULT_WHITE_WINS, REASON_RESIGNATION);
        else revert NotAPlayer();
    }

    // ------------------------------------------------------------------ court (channel)

    /// @inheritdoc IChessCourt
    function registerPosition(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external {
        Game storage g = _court(gameId);
        uint256 ply = ClockWord.ply(clock);
        if (ply > type(uint24).max) revert PlyOutOfRange(ply);
        g.commitment = Commitment.seal(Commitment.innerCalldata(state, history), clock);
        // forge-lint: disable-next-line(unsafe-typecast) a block time plus a window: below 2^32 until 2106
        g.windowEnd = uint32(ClockWord.lastTimestamp(clock));
        // forge-lint: disable-next-line(unsafe-typecast) checked above
        g.registeredPly = uint24(ply);
        // forge-lint: disable-next-line(unsafe-typecast) checked above
        emit PositionRegistered(gameId, uint32(ply), state, history, clock);
    }

    /// @inheritdoc IChessCourt
    function endChannelGame(uint256 gameId, uint8 result, uint8 reason) external {
        _court(gameId);
        _end(gameId, result, reason);
    }

    /// @inheritdoc IChessCourt
    function channelGame(uint256 gameId) external view returns (ChannelGame memory c) {
        Game storage g = games[gameId];
        c.white = g.white;
        c.black = g.black;
        c.initialTime = g.initialTime;
        c.increment = g.increment;
        c.responseWindow = g.responseWindow;
        c.firstMoveWindow = g.firstMoveWindow;
        c.phase = g.phase;
        c.customStart = g.customStart;
        c.registeredPly = g.registeredPly;
        c.windowEnd = g.windowEnd;
    }

    /// @inheritdoc IChessCourt
    function commitmentOf(uint256 gameId) external view returns (bytes32) {
        return games[gameId].commitment;
    }

    /// @inheritdoc IChessCourt
    function channelStart(uint256 gameId) external view returns (bytes32) {
        bytes32 start = games[gameId].startInner;
        return start == 0 ? INITIAL_INNER : start;
    }

    // ------------------------------------------------------------------ payouts

    /// @notice Sends the caller all their credit in `token` (address(0) = ETH).
    /// @param token The asset to withdraw.
    function withdraw(address token) external nonReentrant {
        _withdraw(token, msg.sender);
    }

    // ------------------------------------------------------------------ internals

    /// @dev The terms of a new game by the caller (the start is filled in by `_create`);
    /// reverts for a time control or window out of range and for a game against oneself.
    function _terms(
        address opponent,
        bool creatorWhite,
        address token,
        uint256 stake,
        uint32 initialTime,
        uint32 increment,
        uint32 firstMoveWindow
    ) private view returns (Terms memory) {
        GameTerms.checkTimeControl(initialTime, increment);
        if (opponent == msg.sender) revert CannotPlaySelf();
        return Terms({
            creator: msg.sender,
            opponent: opponent,
            creatorWhite: creatorWhite,
            token: token,
            stake: stake,
            initialTime: initialTime,
            increment: increment,
            firstMoveWindow: GameTerms.firstMoveWindow(firstMoveWindow),
            start: 0
        });
    }

    /// @dev Creates a game with terms `t` from `startState`; `responseWindow` 0 for an
    /// on-chain game, else a channel game's window (already checked).
    function _create(Terms memory t, bytes calldata startState, uint32 responseWindow)
        private
        returns (uint256 gameId)
    {
        (bytes memory s, bytes32 history, bytes32 startInner) = _startPosition(startState);
        t.start = startInner == 0 ? INITIAL_INNER : startInner;

        gameId = nextGameId++;
        Game storage g = games[gameId];
        if (t.creatorWhite) {
            g.white = msg.sender;
            g.black = t.opponent;
        } else {
            g.white = t.opponent;
            g.black = msg.sender;
        }
        // forge-lint: disable-next-line(unsafe-typecast) at most MAX_INITIAL_TIME (< 2^24) by `_terms`
        g.initialTime = uint24(t.initialTime);
        // forge-lint: disable-next-line(unsafe-typecast) at most MAX_INCREMENT (< 2^24) by `_terms`
        g.increment = uint24(t.increment);
        g.phase = PHASE_OPEN;
        g.creatorWhite = t.creatorWhite;
        // forge-lint: disable-next-line(unsafe-typecast) at most MAX_FIRST_MOVE_WINDOW (< 2^24)
        g.firstMoveWindow = uint24(t.firstMoveWindow);
        // forge-lint: disable-next-line(unsafe-typecast) at most MAX_RESPONSE_WINDOW (< 2^24), checked by the caller
        if (responseWindow != 0) g.responseWindow = uint24(responseWindow);
        if (t.token != address(0)) g.token = t.token;
        if (t.stake != 0) g.stake = t.stake;
        if (startInner != 0) {
            g.startInner = startInner;
            g.customStart = true;
        }

        _emitGameCreated(gameId, t, s, history, responseWindow);
        _collectStake(t.token, t.stake);
    }

    /// @dev The start position of a new game: the standard one for an empty `startState`,
    /// else the validated custom state; `startInner` is 0 for the standard start (also when
    /// `startState` is exactly its bytes).
    function _startPosition(bytes calldata startState)
        private
        view
        returns (bytes memory s, bytes32 history, bytes32 startInner)
    {
        if (startState.length == 0) return (ChessRules.initialState(), INITIAL_HISTORY, 0);
        if (startState.length != 128) revert BadStateLength(startState.length);
        s = startState;
        uint256 invalid = ChessRules.validateState(s);
        // forge-lint: disable-next-line(unsafe-typecast) section 7 codes are 1..8
        if (invalid != 0) revert InvalidState(uint8(invalid));
        uint256 st = ChessRules.status(s);
        if (st != ChessRules.ONGOING) revert StartPositionOver(st);
        history = RepetitionChain.start(ChessRules.repetitionKey(s));
        startInner = Commitment.inner(s, history);
        // The standard position given as bytes is the standard start: it has the same
        // terms hash, so it must also keep the first-move abort a joiner expects.
        if (startInner == INITIAL_INNER) startInner = 0;
    }

    /// @dev `emit GameCreated`, from the terms (kept apart: createGame's stack is full).
    function _emitGameCreated(uint256 gameId, Terms memory t, bytes memory s, bytes32 history, uint32 responseWindow)
        private
    {
        emit GameCreated(
            gameId,
            t.creator,
            t.opponent,
            t.creatorWhite,
            t.token,
            t.stake,
            uint32(t.initialTime),
            uint32(t.increment),
            uint32(t.firstMoveWindow),
            _withWindow(keccak256(abi.encode(t)), responseWindow),
            s,
            history,
            responseWindow
        );
    }

    /// @dev The game, for a call of the court: only the channel may call (`NotChannel`), for a
    /// running (`GameNotRunning`) channel game (`NotAChannelGame`). The channel checks the
    /// same; this second guard keeps per-move games and ended games out of the court whatever
    /// the channel does (no double payment, no commitment written into a per-move game).
    function _court(uint256 gameId) private view returns (Game storage g) {
        if (msg.sender != address(channel)) revert NotChannel();
        g = games[gameId];
        if (g.phase != PHASE_RUNNING) revert GameNotRunning(gameId);
        if (g.responseWindow == 0) revert NotAChannelGame(gameId);
    }
}
