// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules, IllegalMove, InvalidState, BadStateLength} from "./ChessRules.sol";
import {ClockWord} from "./ClockWord.sol";
import {IERC20, SafeERC20, TokenTransferFailed} from "./SafeERC20.sol";
import {ChessChannel} from "./ChessChannel.sol";
import {ChannelGame, IChessCourt} from "./ChessCourt.sol";
import {RepetitionChain} from "./RepetitionChain.sol";
import {Outcome} from "./Outcome.sol";
import {Commitment} from "./Commitment.sol";

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
contract ChessReferee is IChessCourt {
    using SafeERC20 for address;

    // ------------------------------------------------------------------ constants

    /// @notice Seconds each player may overdraw its clock over a whole game, for L2
    /// sequencer timestamp drift and inclusion delay. Each clock field holds a budget =
    /// time left + this grace (set at join to initialTime + GRACE_PERIOD); a move is
    /// accepted while `block.timestamp <= lastTs + budget` and the budget becomes
    /// `budget - elapsed + increment`, so time borrowed from the grace stays borrowed:
    /// a flagged player cannot keep moving every few seconds. A timeout can be claimed
    /// from the next second on: a move and a timeout claim are never both valid. (In a game
    /// from the standard start a first move after its first-move window, within the clock,
    /// and the abort it allows are both valid until one of them is included.)
    uint256 public constant GRACE_PERIOD = ClockWord.GRACE_PERIOD;
    /// @notice Smallest initial time a game may have (minute-scale clocks).
    uint256 public constant MIN_INITIAL_TIME = 60;
    /// @notice Largest initial time (the clock word holds 32-bit seconds).
    uint256 public constant MAX_INITIAL_TIME = 90 days;
    /// @notice Largest Fischer increment per move.
    uint256 public constant MAX_INCREMENT = 1 days;
    /// @notice First-move window used when `createGame` is given 0: five minutes.
    uint256 public constant DEFAULT_FIRST_MOVE_WINDOW = 5 minutes;
    /// @notice Smallest first-move window (several L1 blocks, a human noticing the join).
    uint256 public constant MIN_FIRST_MOVE_WINDOW = 60;
    /// @notice Largest first-move window: bounds how long a player who never moves can
    /// keep the other's stake locked in a game from the standard start.
    uint256 public constant MAX_FIRST_MOVE_WINDOW = 1 days;
    /// @notice Most repetition keys a threefold witness may hold. The chain restarts at
    /// every capture or pawn move, so it holds halfmove clock + 1 keys at most, and from a
    /// halfmove clock of 100 on the fifty-move rule applies without any witness.
    uint256 public constant MAX_WITNESS_KEYS = RepetitionChain.MAX_WITNESS_KEYS;
    /// @notice Smallest response window of a channel game: how long a registration stays
    /// frozen for an answer (50 L1 slots: an answer gets in under congestion an attacker
    /// can time; docs/CHANNEL.md section 10).
    uint256 public constant MIN_RESPONSE_WINDOW = 600;
    /// @notice Largest response window of a channel game.
    uint256 public constant MAX_RESPONSE_WINDOW = 1 days;

    // Game phases.
    uint8 internal constant PHASE_NONE = 0;
    uint8 internal constant PHASE_OPEN = 1;
    uint8 internal constant PHASE_RUNNING = 2;
    uint8 internal constant PHASE_ENDED = 3;
    uint8 internal constant PHASE_CANCELLED = 4;

    // Results.
    uint8 internal constant RESULT_WHITE_WINS = 1;
    uint8 internal constant RESULT_BLACK_WINS = 2;
    uint8 internal constant RESULT_DRAW = 3;
    uint8 internal constant RESULT_ABORTED = 4;

    // Reasons: 1-4 (the ENCODING.md section 8 status codes that end a game by themselves),
    // 9, 10 (draw claims), 12, 13 (channel proofs) are in Outcome and RepetitionChain.
    uint8 internal constant REASON_RESIGNATION = 5;
    uint8 internal constant REASON_TIMEOUT = 6;
    uint8 internal constant REASON_TIMEOUT_VS_INSUFFICIENT_MATERIAL = 7;
    uint8 internal constant REASON_AGREEMENT = 8;
    uint8 internal constant REASON_NO_FIRST_MOVE = 11;

    // ------------------------------------------------------------------ storage

    /// @dev Slot 0 is the only word written by a move; slots 1 and 2 are read by it
    /// (only the mover's); the rest is touched on create, join and end. Slot 2 also holds
    /// what a channel game's court needs (`windowEnd`, `registeredPly`), written by a
    /// registration beside the commitment: no caller ever supplies them. The 24-bit fields
    /// are bounded by `_terms` (times at most 90 days), and a legal game has fewer than
    /// 2^24 plies (the 75-move rule ends it long before).
    struct Game {
        bytes32 commitment; // running position; 0 unless the game is running
        address white;
        uint24 initialTime;
        uint24 increment;
        uint24 firstMoveWindow; // seconds; see `claimTimeout`
        uint24 responseWindow; // seconds; non-zero = a channel game (docs/CHANNEL.md)
        address black;
        uint8 phase;
        uint8 result;
        uint8 reason;
        bool creatorWhite;
        bool customStart; // the game starts from a custom position (kept: the court needs it)
        uint32 windowEnd; // channel games: end of the latest registration's window; 0 off-chain
        uint24 registeredPly; // channel games: ply of the latest registration
        address token; // address(0) = ETH
        uint256 stake; // paid by each player
        // keccak256(state ‖ history) of a custom start position; 0 = standard. Cleared at
        // join, but for channel games (the court needs their start).
        bytes32 startInner;
    }

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

    /// @dev What a joiner agrees to; `termsHash` is keccak256(abi.encode(Terms)).
    struct Terms {
        address creator;
        address opponent; // address(0) for an open game
        bool creatorWhite;
        address token;
        uint256 stake;
        uint256 initialTime;
        uint256 increment;
        uint256 firstMoveWindow; // after the default for 0 is applied
        bytes32 start; // keccak256(state ‖ history) of the start position
    }

    /// @notice Id the next `createGame` returns (ids start at 1).
    uint256 public nextGameId = 1;
    mapping(uint256 gameId => Game) internal games;
    /// @dev Withdrawable balance + 1, once the pair was ever used (0 = never used). The
    /// slot is made non-zero when a player stakes and stays non-zero after a withdrawal,
    /// so crediting a payout inside a game-ending move is a 5,000-gas update instead of a
    /// 22,100-gas slot creation (the move-gas maximum is set by ending moves).
    mapping(address account => mapping(address token => uint256)) internal creditSlots;

    bool private transient locked;

    /// @dev keccak256(initial state ‖ history of the initial position).
    bytes32 internal immutable INITIAL_INNER;
    /// @dev History (repetition-chain head) of the standard initial position.
    bytes32 internal immutable INITIAL_HISTORY;
    /// @notice The court of this referee's channel games, deployed by the constructor: the
    /// only account that may call `registerPosition` and `endChannelGame`.
    ChessChannel public immutable channel;

    // ------------------------------------------------------------------ events

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

    // ------------------------------------------------------------------ errors

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

    modifier nonReentrant() {
        if (locked) revert Reentrancy();
        locked = true;
        _;
        locked = false;
    }

    /// @param channelBlueprint A `ChessChannelBlueprint`: the channel is created from its
    /// code (`BadBlueprint` if that fails). Deployment tools check the channel's code.
    constructor(address channelBlueprint) {
        bytes memory s = ChessRules.initialState();
        bytes32 h = RepetitionChain.start(ChessRules.repetitionKey(s));
        INITIAL_HISTORY = h;
        INITIAL_INNER = Commitment.inner(s, h);
        address created;
        uint256 size = channelBlueprint.code.length;
        if (size > 1) {
            assembly ("memory-safe") {
                let p := mload(0x40)
                extcodecopy(channelBlueprint, p, 1, sub(size, 1))
                created := create(0, p, sub(size, 1))
            }
        }
        if (created == address(0)) revert BadBlueprint(channelBlueprint);
        channel = ChessChannel(created);
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
        if (responseWindow < MIN_RESPONSE_WINDOW || responseWindow > MAX_RESPONSE_WINDOW) {
            revert BadResponseWindow(responseWindow);
        }
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

    /// @notice Cancels a game nobody joined yet; the creator's stake is credited back
    /// (pull it with `withdraw`).
    /// @param gameId The game to cancel.
    function cancelGame(uint256 gameId) external {
        Game storage g = games[gameId];
        if (g.phase != PHASE_OPEN) revert GameNotOpen(gameId);
        address creator = g.creatorWhite ? g.white : g.black;
        if (msg.sender != creator) revert NotCreator();
        g.phase = PHASE_CANCELLED;
        g.startInner = 0;
        uint256 stake = g.stake;
        if (stake != 0) _credit(creator, g.token, stake);
        emit GameCancelled(gameId);
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

    /// @notice Plays `mv` and claims a draw that this move brings about (FIDE 9.2, 9.3):
    /// the new position has a halfmove clock of at least 100, or has now occurred three
    /// times. A move that mates or otherwise ends the game (section 8) ends it as usual.
    /// @param keys Threefold witness for the NEW position (ignored for a fifty-move claim):
    /// the repetition keys of every position since the last capture or pawn move, oldest
    /// first, the new position's key last.
    function moveAndClaimDraw(
        uint256 gameId,
        bytes calldata state,
        bytes32 history,
        uint256 clock,
        uint24 mv,
        bytes32[] calldata keys
    ) external {
        (bytes memory s, bytes32 h,, uint256 st) = _play(games[gameId], gameId, state, history, clock, mv);
        if (st != 0) {
            _endByStatus(gameId, s, st);
            return;
        }
        _end(gameId, RESULT_DRAW, _drawReason(s, h, keys));
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

    /// @notice Offers a draw in the current position. The offer is part of the clock word
    /// (see `DrawOffered`) and lapses with the next move. An offer by the player who waits
    /// never stales the mover's pending call: every call also accepts the clock without it.
    /// @param gameId The game; `state`, `history`, `clock`: the current position.
    function offerDraw(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external {
        Game storage g = games[gameId];
        bytes memory s;
        (s, clock) = _load(g, gameId, state, history, clock);
        bool isWhite = _playerColour(g);
        _requireLive(clock, ChessRules.whiteToMove(s));
        clock = ClockWord.withOffer(clock, isWhite);
        g.commitment = Commitment.seal(Commitment.inner(s, history), clock);
        emit DrawOffered(gameId, msg.sender, clock);
    }

    /// @notice Accepts the opponent's draw offer made in the current position.
    /// @param gameId The game; `state`, `history`, `clock`: the current position.
    function acceptDraw(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external {
        Game storage g = games[gameId];
        bytes memory s;
        (s, clock) = _load(g, gameId, state, history, clock);
        bool isWhite = _playerColour(g);
        if (!ClockWord.offers(clock, !isWhite)) {
            if (ClockWord.offers(clock, isWhite)) revert CannotAcceptOwnOffer();
            revert NoDrawOffer();
        }
        _requireLive(clock, ChessRules.whiteToMove(s));
        _end(gameId, RESULT_DRAW, REASON_AGREEMENT);
    }

    /// @notice Claims a draw in the current position, by the player to move: fifty-move
    /// rule (halfmove clock >= 100) or threefold repetition (the current position occurred
    /// at least three times since the last capture or pawn move).
    /// @param keys Threefold witness (ignored when the fifty-move rule applies): the
    /// repetition keys of every position since the last capture or pawn move, oldest first,
    /// ending with the current position's key; they must hash to `history`.
    function claimDraw(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock, bytes32[] calldata keys)
        external
    {
        Game storage g = games[gameId];
        bytes memory s;
        (s, clock) = _load(g, gameId, state, history, clock);
        bool whiteToMove = ChessRules.whiteToMove(s);
        if (_playerColour(g) != whiteToMove) revert NotYourTurn();
        _requireLive(clock, whiteToMove);
        _end(gameId, RESULT_DRAW, _drawReason(s, history, keys));
    }

    /// @notice Claims the game because the side to move ran out of time (grace included),
    /// by its opponent: a win, or a draw if the claimant has insufficient mating material
    /// (FIDE 6.9). In a game from the standard start, a player who has not made its first
    /// move within the first-move window (or its clock, if shorter) lets its opponent
    /// abort the game instead, both stakes refunded. From a custom start there is no
    /// abort: a player who never moves loses on time like any other (a refund would let
    /// the side facing a lost start position escape).
    /// @param gameId The game; `state`, `history`, `clock`: the current position.
    function claimTimeout(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external {
        Game storage g = games[gameId];
        bytes memory s;
        (s, clock) = _load(g, gameId, state, history, clock);
        bool whiteToMove = ChessRules.whiteToMove(s);
        if (_playerColour(g) == whiteToMove) revert NotYourTurn();
        uint256 deadline = ClockWord.deadline(clock, whiteToMove);
        bool abort = ClockWord.ply(clock) < 2 && !ClockWord.customStart(clock);
        if (abort) {
            uint256 windowEnd = ClockWord.lastTimestamp(clock) + ClockWord.firstMoveWindow(clock);
            if (windowEnd < deadline) deadline = windowEnd;
        }
        // forge-lint: disable-next-line(block-timestamp) the clock is defined on block time, with a grace
        if (block.timestamp <= deadline) revert TimeNotUp(deadline);
        // Never let a flag beat a result already on the board. A running game's position
        // is never decided (moves end games at once and decided start states are refused),
        // so this only guards the invariant.
        uint256 st = ChessRules.status(s);
        if (st != ChessRules.ONGOING) {
            _endByStatus(gameId, s, st);
        } else if (abort) {
            _end(gameId, RESULT_ABORTED, REASON_NO_FIRST_MOVE);
        } else if (ChessRules.insufficientMaterial(s, whiteToMove ? -1 : int256(1))) {
            _end(gameId, RESULT_DRAW, REASON_TIMEOUT_VS_INSUFFICIENT_MATERIAL);
        } else {
            _end(gameId, whiteToMove ? RESULT_BLACK_WINS : RESULT_WHITE_WINS, REASON_TIMEOUT);
        }
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

    /// @notice Ends a channel game whose registered position is decided (docs/CHANNEL.md
    /// 7.4) by its outcome (reasons 1-4, as the move reaching it on-chain would have), once
    /// its response window is over. Anyone may call.
    /// @param gameId The game; `state`, `history`, `clock`: the registered position (from
    /// its `PositionRegistered`).
    function finishRegistered(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock) external {
        (bytes memory s, uint256 current) = _loadAny(games[gameId], gameId, state, history, clock);
        uint256 st = ClockWord.pendingStatus(current);
        if (st == 0) revert NoPendingOutcome(gameId);
        uint256 from = ClockWord.lastTimestamp(current);
        // forge-lint: disable-next-line(block-timestamp) the window is defined on block time
        if (block.timestamp < from) revert NotYetPlayable(from);
        _endByStatus(gameId, s, st);
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

    /// @notice Sends the caller's whole credit in `token` to `to`: for an owner that cannot
    /// receive it itself (a contract refusing ETH, an address the token blocks).
    /// @param token The asset to withdraw (address(0) = ETH).
    /// @param to The recipient; not address(0), not this referee (`BadRecipient`).
    function withdrawTo(address token, address to) external nonReentrant {
        if (to == address(0)) revert ZeroRecipient();
        // Sent here, a payout would be stranded: nothing credits the referee's own balance.
        if (to == address(this)) revert BadRecipient(to);
        _withdraw(token, to);
    }

    // ------------------------------------------------------------------ views

    /// @notice Withdrawable balance of `account` in `token` (address(0) = ETH).
    /// @param account The owner.
    /// @param token The asset.
    function credits(address account, address token) external view returns (uint256) {
        uint256 slot = creditSlots[account][token];
        return slot == 0 ? 0 : slot - 1;
    }

    /// @notice Static data, phase, result and current commitment of a game.
    /// @param gameId The game.
    /// @return info The game (all zero for an unknown id).
    function getGame(uint256 gameId) external view returns (GameInfo memory info) {
        Game storage g = games[gameId];
        info = GameInfo({
            white: g.white,
            black: g.black,
            token: g.token,
            stake: g.stake,
            initialTime: g.initialTime,
            increment: g.increment,
            phase: g.phase,
            result: g.result,
            reason: g.reason,
            creatorWhite: g.creatorWhite,
            commitment: g.commitment,
            firstMoveWindow: g.firstMoveWindow,
            terms: 0,
            responseWindow: g.responseWindow
        });
        if (info.phase == PHASE_OPEN) {
            bytes32 start = g.startInner;
            (address creator, address opponent) =
                info.creatorWhite ? (info.white, info.black) : (info.black, info.white);
            info.terms = _termsOf(g, creator, opponent, start == 0 ? INITIAL_INNER : start);
        }
    }

    /// @notice The terms hash `joinGame` expects for a game with these terms (what
    /// `GameCreated` and `getGame` report): keccak256(abi.encode(Terms)).
    /// @param creator The creator.
    /// @param opponent The invited address, or address(0) for an open game.
    /// @param creatorWhite As given to `createGame`.
    /// @param token As given to `createGame`.
    /// @param stake As given to `createGame`.
    /// @param initialTime As given to `createGame`.
    /// @param increment As given to `createGame`.
    /// @param firstMoveWindow As given to `createGame` (0 means the default, as there).
    /// @param startState Empty for the standard start, else the 128-byte start state.
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
    ) external view returns (bytes32) {
        Terms memory t = Terms({
            creator: creator,
            opponent: opponent,
            creatorWhite: creatorWhite,
            token: token,
            stake: stake,
            initialTime: initialTime,
            increment: increment,
            firstMoveWindow: firstMoveWindow == 0 ? DEFAULT_FIRST_MOVE_WINDOW : firstMoveWindow,
            start: INITIAL_INNER
        });
        if (startState.length != 0) {
            if (startState.length != 128) revert BadStateLength(startState.length);
            bytes memory s = startState;
            t.start = Commitment.inner(s, RepetitionChain.start(ChessRules.repetitionKey(s)));
        }
        return keccak256(abi.encode(t));
    }

    /// @notice The terms hash of a channel game: keccak256(abi.encode(baseTerms,
    /// responseWindow)), `baseTerms` being `termsHash(...)` of the same `createGame` terms.
    /// @param baseTerms `termsHash` of the game's other terms.
    /// @param responseWindow As given to `createChannelGame`.
    function channelTermsHash(bytes32 baseTerms, uint32 responseWindow) external pure returns (bytes32) {
        return keccak256(abi.encode(baseTerms, responseWindow));
    }

    /// @notice The commitment of a running game's position (0 if not running).
    /// @param gameId The game.
    function commitmentOf(uint256 gameId) external view returns (bytes32) {
        return games[gameId].commitment;
    }

    /// @notice The commitment a position hashes to: `keccak256(keccak256(state ‖ history) ‖ clock)`.
    /// @param state 128-byte state.
    /// @param history Repetition-chain head.
    /// @param clock Clock word.
    function positionCommitment(bytes calldata state, bytes32 history, uint256 clock) external pure returns (bytes32) {
        if (state.length != 128) revert BadStateLength(state.length);
        return Commitment.seal(Commitment.innerCalldata(state, history), clock);
    }

    /// @notice The clocks of a running game as of now, given its current position.
    /// @param gameId The game; `state`, `history`, `clock`: the current position.
    /// @return whiteLeft White's remaining seconds (its budget minus the grace, floored at 0).
    /// @return blackLeft Black's remaining seconds (same).
    /// @return whiteToMove Whose clock runs.
    /// @return deadline Last timestamp at which the side to move may still move (grace included).
    function clocks(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock)
        external
        view
        returns (uint256 whiteLeft, uint256 blackLeft, bool whiteToMove, uint256 deadline)
    {
        bytes memory s;
        (s, clock) = _load(games[gameId], gameId, state, history, clock);
        whiteToMove = ChessRules.whiteToMove(s);
        uint256 last = ClockWord.turnStart(clock);
        // forge-lint: disable-next-line(block-timestamp) a registered position's clock starts later
        uint256 elapsed = block.timestamp > last ? block.timestamp - last : 0;
        whiteLeft = _shown(ClockWord.budget(clock, true), whiteToMove ? elapsed : 0);
        blackLeft = _shown(ClockWord.budget(clock, false), whiteToMove ? 0 : elapsed);
        deadline = ClockWord.deadline(clock, whiteToMove);
    }

    /// @notice Splits a clock word into its fields (see docs/REFEREE.md).
    /// @param clock The clock word.
    /// @return lastTimestamp When the side to move's clock started.
    /// @return whiteBudget White's budget at `lastTimestamp`: seconds left + unused grace.
    /// @return blackBudget Black's budget at `lastTimestamp`.
    /// @return increment Fischer increment.
    /// @return ply Moves played in this game.
    /// @return whiteOffersDraw White offered a draw in this position.
    /// @return blackOffersDraw Black offered a draw in this position.
    /// @return customStart The game started from a custom position (no first-move abort).
    /// @return firstMoveWindow Seconds each player has for its first move (standard start).
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
        )
    {
        lastTimestamp = ClockWord.lastTimestamp(clock);
        whiteBudget = ClockWord.budget(clock, true);
        blackBudget = ClockWord.budget(clock, false);
        increment = ClockWord.increment(clock);
        ply = ClockWord.ply(clock);
        whiteOffersDraw = ClockWord.offers(clock, true);
        blackOffersDraw = ClockWord.offers(clock, false);
        customStart = ClockWord.customStart(clock);
        firstMoveWindow = ClockWord.firstMoveWindow(clock);
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
        if (initialTime < MIN_INITIAL_TIME || initialTime > MAX_INITIAL_TIME || increment > MAX_INCREMENT) {
            revert BadTimeControl(initialTime, increment);
        }
        if (opponent == msg.sender) revert CannotPlaySelf();
        return Terms({
            creator: msg.sender,
            opponent: opponent,
            creatorWhite: creatorWhite,
            token: token,
            stake: stake,
            initialTime: initialTime,
            increment: increment,
            firstMoveWindow: _firstMoveWindow(firstMoveWindow),
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

    /// @dev The first-move window for `requested` seconds (0 = the default); reverts out of range.
    function _firstMoveWindow(uint32 requested) private pure returns (uint256 window) {
        window = requested == 0 ? DEFAULT_FIRST_MOVE_WINDOW : requested;
        if (window < MIN_FIRST_MOVE_WINDOW || window > MAX_FIRST_MOVE_WINDOW) revert BadFirstMoveWindow(requested);
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

    /// @dev The terms hash of an open game, from storage.
    function _termsOf(Game storage g, address creator, address opponent, bytes32 start) private view returns (bytes32) {
        return _withWindow(
            keccak256(
                abi.encode(
                    Terms({
                        creator: creator,
                        opponent: opponent,
                        creatorWhite: g.creatorWhite,
                        token: g.token,
                        stake: g.stake,
                        initialTime: g.initialTime,
                        increment: g.increment,
                        firstMoveWindow: g.firstMoveWindow,
                        start: start
                    })
                )
            ),
            g.responseWindow
        );
    }

    /// @dev A channel game's terms hash from its base terms hash (unchanged for window 0).
    function _withWindow(bytes32 baseTerms, uint256 responseWindow) private pure returns (bytes32 r) {
        if (responseWindow == 0) return baseTerms;
        assembly ("memory-safe") {
            mstore(0, baseTerms)
            mstore(32, responseWindow)
            r := keccak256(0, 64)
        }
    }

    /// @dev Checks and applies a move; returns the new state, history, clock and status.
    function _play(Game storage g, uint256 gameId, bytes calldata state, bytes32 history, uint256 clock, uint24 mv)
        private
        returns (bytes memory s, bytes32 h, uint256 c, uint256 st)
    {
        (s, clock) = _load(g, gameId, state, history, clock);
        bool whiteToMove = ChessRules.whiteToMove(s);
        _checkMover(g, whiteToMove);
        c = ClockWord.tick(clock, whiteToMove);
        if (c == 0) {
            _requireLive(clock, whiteToMove);
            revert TimeUp();
        }
        (uint256 code, bool inCheck) = ChessRules.playMove(s, mv);
        // forge-lint: disable-next-line(unsafe-typecast) section 6 codes are 1..14
        if (code != 0) revert IllegalMove(uint8(code));
        // Repetition chain: restart at every irreversible move (halfmove clock 0). Written
        // out, not `RepetitionChain.afterMove`: the optimizer inlines that differently, and the
        // median move of the gas test's 641 real moves costs 46 gas more (measured).
        h = RepetitionChain.next(ChessRules.halfmoveClock(s) == 0 ? bytes32(0) : history, ChessRules.repetitionKey(s));
        st = ChessRules.statusInCheck(s, inCheck);
        _emitMovePlayed(gameId, mv, ClockWord.ply(c), st, h, c, s);
    }

    /// @dev `emit MovePlayed(...)` with the standard ABI layout, encoded by hand: Solidity's
    /// encoder spends about 2,600 gas more copying the `bytes` field (measured).
    function _emitMovePlayed(uint256 gameId, uint24 mv, uint256 ply, uint256 st, bytes32 h, uint256 c, bytes memory s)
        private
    {
        bytes32 topic = MovePlayed.selector;
        assembly ("memory-safe") {
            let p := mload(0x40)
            mstore(p, mv)
            mstore(add(p, 0x20), ply)
            mstore(add(p, 0x40), st)
            mstore(add(p, 0x60), h)
            mstore(add(p, 0x80), c)
            mstore(add(p, 0xa0), 0xc0) // offset of `state`
            mstore(add(p, 0xc0), 128) // its length
            mcopy(add(p, 0xe0), add(s, 0x20), 128)
            log2(p, 0x160, topic, gameId)
        }
    }

    /// @dev Reverts unless the caller is the player to move.
    function _checkMover(Game storage g, bool whiteToMove) private view {
        if (msg.sender != (whiteToMove ? g.white : g.black)) {
            if (msg.sender == (whiteToMove ? g.black : g.white)) revert NotYourTurn();
            revert NotAPlayer();
        }
    }

    /// @dev Checks that the game runs and that (state, history, clock) is its position;
    /// returns the state and the game's clock word. The clock may be passed without draw
    /// offers made after the caller read it: an offer can land between that moment and the
    /// call (front-run from the mempool, by either player) and must never make a timely
    /// call fail (issue 9). Offers are only ever added to a position, so a clock with an
    /// offer bit the game does not have is still stale.
    function _load(Game storage g, uint256 gameId, bytes calldata state, bytes32 history, uint256 clock)
        private
        view
        returns (bytes memory s, uint256 current)
    {
        (s, current) = _loadAny(g, gameId, state, history, clock);
        if (ClockWord.pendingStatus(current) != 0) revert PositionDecided(gameId);
    }

    /// @dev `_load` without refusing a registered decided position (for `finishRegistered`).
    function _loadAny(Game storage g, uint256 gameId, bytes calldata state, bytes32 history, uint256 clock)
        private
        view
        returns (bytes memory s, uint256 current)
    {
        bytes32 stored = g.commitment;
        if (stored == 0) {
            if (g.phase == PHASE_RUNNING) revert OffChain(gameId);
            revert GameNotRunning(gameId);
        }
        if (state.length != 128) revert BadStateLength(state.length);
        s = state;
        bytes32 inner = Commitment.inner(s, history);
        current = clock;
        if (Commitment.seal(inner, current) != stored) current = _withLateOffers(inner, clock, stored);
    }

    /// @dev The clock word `clock` plus the offer bits it lacks that make the position
    /// match `stored`; reverts `StalePosition` if none do. Off the common path: a call
    /// whose clock matches at once never gets here.
    function _withLateOffers(bytes32 inner, uint256 clock, bytes32 stored) private pure returns (uint256 current) {
        for (uint256 offers = 1; offers <= ClockWord.BOTH_OFFERS; ++offers) {
            current = clock | (offers << ClockWord.OFFER_SHIFT);
            if (current != clock && Commitment.seal(inner, current) == stored) return current;
        }
        revert StalePosition();
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

    /// @dev True if the caller is white, false if black; reverts for anyone else.
    function _playerColour(Game storage g) private view returns (bool isWhite) {
        if (msg.sender == g.white) return true;
        if (msg.sender != g.black) revert NotAPlayer();
    }

    /// @dev Seconds a player sees left: budget minus running time minus the grace, >= 0.
    function _shown(uint256 budget, uint256 running) private pure returns (uint256) {
        uint256 spent = running + GRACE_PERIOD;
        return budget > spent ? budget - spent : 0;
    }

    /// @dev Reverts `NotYetPlayable` while a registered position's response window runs
    /// (only a later registration may replace it then: docs/CHANNEL.md 7.3), `TimeUp` once
    /// the side to move's budget is spent.
    function _requireLive(uint256 clock, bool whiteToMove) private view {
        uint256 from = ClockWord.lastTimestamp(clock);
        // forge-lint: disable-next-line(block-timestamp) the clock is defined on block time
        if (block.timestamp < from) revert NotYetPlayable(from);
        if (_overdue(clock, whiteToMove)) revert TimeUp();
    }

    function _overdue(uint256 clock, bool whiteToMove) private view returns (bool) {
        // forge-lint: disable-next-line(block-timestamp) the clock is defined on block time, with a grace
        return block.timestamp > ClockWord.deadline(clock, whiteToMove);
    }

    /// @dev Reason of a draw claim in position `s` with chain head `h`; reverts if none applies.
    function _drawReason(bytes memory s, bytes32 h, bytes32[] calldata keys) private pure returns (uint8) {
        uint256 reason = RepetitionChain.claim(s, h, keys);
        if (reason == RepetitionChain.NOT_CLAIMABLE) revert DrawNotClaimable();
        if (reason == RepetitionChain.BAD_WITNESS) revert BadWitness();
        // forge-lint: disable-next-line(unsafe-typecast) 9 or 10
        return uint8(reason);
    }

    /// @dev Ends a game whose position `s` is decided (section 8 status `st`, 1-4).
    function _endByStatus(uint256 gameId, bytes memory s, uint256 st) private {
        (uint8 result, uint8 reason) = Outcome.ofStatus(ChessRules.whiteToMove(s), st);
        _end(gameId, result, reason);
    }

    /// @dev Ends a running game and credits the payout (winner both stakes; draw and
    /// abort refund each player).
    function _end(uint256 gameId, uint8 result, uint8 reason) private {
        Game storage g = games[gameId];
        g.commitment = 0;
        g.phase = PHASE_ENDED;
        g.result = result;
        g.reason = reason;
        emit GameEnded(gameId, result, reason);
        uint256 stake = g.stake;
        if (stake == 0) return;
        address token = g.token;
        if (result == RESULT_WHITE_WINS) {
            _credit(g.white, token, 2 * stake);
        } else if (result == RESULT_BLACK_WINS) {
            _credit(g.black, token, 2 * stake);
        } else {
            _credit(g.white, token, stake);
            _credit(g.black, token, stake);
        }
    }

    /// @dev Sends the caller's whole credit in `token` to `to`; the credit is zeroed
    /// (set to the 1 sentinel) before the transfer.
    function _withdraw(address token, address to) private {
        uint256 slot = creditSlots[msg.sender][token];
        if (slot <= 1) revert NothingToWithdraw();
        uint256 amount = slot - 1;
        creditSlots[msg.sender][token] = 1;
        emit Withdrawn(msg.sender, token, to, amount);
        if (token == address(0)) {
            (bool ok,) = to.call{value: amount}("");
            if (!ok) revert EthTransferFailed();
        } else {
            token.safeTransfer(to, amount);
        }
    }

    function _credit(address account, address token, uint256 amount) private {
        uint256 slot = creditSlots[account][token];
        creditSlots[account][token] = (slot == 0 ? 1 : slot) + amount;
    }

    /// @dev Takes `stake` from the caller: exact ETH, or an exact token balance increase.
    /// Also initialises the caller's credit slot for `token` (see `creditSlots`).
    function _collectStake(address token, uint256 stake) private {
        if (stake != 0 && creditSlots[msg.sender][token] == 0) creditSlots[msg.sender][token] = 1;
        if (token == address(0)) {
            if (msg.value != stake) revert WrongEthAmount(stake, msg.value);
            return;
        }
        if (msg.value != 0) revert WrongEthAmount(0, msg.value);
        if (stake == 0) return;
        if (token.code.length == 0) revert TokenTransferFailed(token);
        uint256 before = IERC20(token).balanceOf(address(this));
        token.safeTransferFrom(msg.sender, address(this), stake);
        uint256 received = IERC20(token).balanceOf(address(this));
        received = received > before ? received - before : 0;
        if (received != stake) revert TokenShortPaid(stake, received);
    }
}
