// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules, IllegalMove, BadStateLength} from "./ChessRules.sol";
import {ClockWord} from "./ClockWord.sol";
import {IERC20, SafeERC20, TokenTransferFailed} from "./SafeERC20.sol";
import {RepetitionChain} from "./RepetitionChain.sol";
import {Outcome} from "./Outcome.sol";
import {Commitment} from "./Commitment.sol";
import {GameTerms} from "./GameTerms.sol";
import {IChessRefereeTypes} from "./IChessReferee.sol";

/// @title ChessRefereeCore
/// @notice What `ChessReferee` and its `ChessRefereeAnnex` share: the constants, the storage
/// layout (the annex runs in the referee's storage, by DELEGATECALL from the referee's
/// fallback, so both must declare exactly the same slots, in this one place), the
/// reentrancy lock, and the internal steps both use (load and check a position, play a move,
/// end a game and credit its payout).
abstract contract ChessRefereeCore is IChessRefereeTypes {
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
    uint256 public constant MIN_INITIAL_TIME = GameTerms.MIN_INITIAL_TIME;
    /// @notice Largest initial time (the clock word holds 32-bit seconds).
    uint256 public constant MAX_INITIAL_TIME = GameTerms.MAX_INITIAL_TIME;
    /// @notice Largest Fischer increment per move.
    uint256 public constant MAX_INCREMENT = GameTerms.MAX_INCREMENT;
    /// @notice First-move window used when `createGame` is given 0: five minutes.
    uint256 public constant DEFAULT_FIRST_MOVE_WINDOW = GameTerms.DEFAULT_FIRST_MOVE_WINDOW;
    /// @notice Smallest first-move window (several L1 blocks, a human noticing the join).
    uint256 public constant MIN_FIRST_MOVE_WINDOW = GameTerms.MIN_FIRST_MOVE_WINDOW;
    /// @notice Largest first-move window: bounds how long a player who never moves can
    /// keep the other's stake locked in a game from the standard start.
    uint256 public constant MAX_FIRST_MOVE_WINDOW = GameTerms.MAX_FIRST_MOVE_WINDOW;
    /// @notice Most repetition keys a threefold witness may hold. The chain restarts at
    /// every capture or pawn move, so it holds halfmove clock + 1 keys at most, and from a
    /// halfmove clock of 100 on the fifty-move rule applies without any witness.
    uint256 public constant MAX_WITNESS_KEYS = RepetitionChain.MAX_WITNESS_KEYS;
    /// @notice Smallest response window of a channel game: how long a registration stays
    /// frozen for an answer (50 L1 slots: an answer gets in under congestion an attacker
    /// can time; docs/CHANNEL.md section 10).
    uint256 public constant MIN_RESPONSE_WINDOW = GameTerms.MIN_RESPONSE_WINDOW;
    /// @notice Largest response window of a channel game.
    uint256 public constant MAX_RESPONSE_WINDOW = GameTerms.MAX_RESPONSE_WINDOW;

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
    /// @dev The `ChessTournament` the constructor deployed: the only account that may call
    /// `hostGame`. Appended after every other slot, so nothing moves; read by the annex only.
    address internal hostTournament;

    bool private transient locked;

    /// @dev keccak256(initial state ‖ history of the initial position).
    bytes32 internal immutable INITIAL_INNER;
    /// @dev History (repetition-chain head) of the standard initial position.
    bytes32 internal immutable INITIAL_HISTORY;

    modifier nonReentrant() {
        if (locked) revert Reentrancy();
        locked = true;
        _;
        locked = false;
    }

    constructor() {
        bytes memory s = ChessRules.initialState();
        bytes32 h = RepetitionChain.start(ChessRules.repetitionKey(s));
        INITIAL_HISTORY = h;
        INITIAL_INNER = Commitment.inner(s, h);
    }

    /// @dev Checks and applies a move; returns the new state, history, clock and status.
    function _play(Game storage g, uint256 gameId, bytes calldata state, bytes32 history, uint256 clock, uint24 mv)
        internal
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
        internal
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
    function _checkMover(Game storage g, bool whiteToMove) internal view {
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
        internal
        view
        returns (bytes memory s, uint256 current)
    {
        (s, current) = _loadAny(g, gameId, state, history, clock);
        if (ClockWord.pendingStatus(current) != 0) revert PositionDecided(gameId);
    }

    /// @dev `_load` without refusing a registered decided position (for `finishRegistered`).
    function _loadAny(Game storage g, uint256 gameId, bytes calldata state, bytes32 history, uint256 clock)
        internal
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
    function _withLateOffers(bytes32 inner, uint256 clock, bytes32 stored) internal pure returns (uint256 current) {
        for (uint256 offers = 1; offers <= ClockWord.BOTH_OFFERS; ++offers) {
            current = clock | (offers << ClockWord.OFFER_SHIFT);
            if (current != clock && Commitment.seal(inner, current) == stored) return current;
        }
        revert StalePosition();
    }

    /// @dev True if the caller is white, false if black; reverts for anyone else.
    function _playerColour(Game storage g) internal view returns (bool isWhite) {
        if (msg.sender == g.white) return true;
        if (msg.sender != g.black) revert NotAPlayer();
    }

    /// @dev Seconds a player sees left: budget minus running time minus the grace, >= 0.
    function _shown(uint256 budget, uint256 running) internal pure returns (uint256) {
        uint256 spent = running + GRACE_PERIOD;
        return budget > spent ? budget - spent : 0;
    }

    /// @dev Reverts `NotYetPlayable` while a registered position's response window runs
    /// (only a later registration may replace it then: docs/CHANNEL.md 7.3), `TimeUp` once
    /// the side to move's budget is spent.
    function _requireLive(uint256 clock, bool whiteToMove) internal view {
        uint256 from = ClockWord.lastTimestamp(clock);
        // forge-lint: disable-next-line(block-timestamp) the clock is defined on block time
        if (block.timestamp < from) revert NotYetPlayable(from);
        if (_overdue(clock, whiteToMove)) revert TimeUp();
    }

    function _overdue(uint256 clock, bool whiteToMove) internal view returns (bool) {
        // forge-lint: disable-next-line(block-timestamp) the clock is defined on block time, with a grace
        return block.timestamp > ClockWord.deadline(clock, whiteToMove);
    }

    /// @dev Reason of a draw claim in position `s` with chain head `h`; reverts if none applies.
    function _drawReason(bytes memory s, bytes32 h, bytes32[] calldata keys) internal pure returns (uint8) {
        uint256 reason = RepetitionChain.claim(s, h, keys);
        if (reason == RepetitionChain.NOT_CLAIMABLE) revert DrawNotClaimable();
        if (reason == RepetitionChain.BAD_WITNESS) revert BadWitness();
        // forge-lint: disable-next-line(unsafe-typecast) 9 or 10
        return uint8(reason);
    }

    /// @dev Ends a game whose position `s` is decided (section 8 status `st`, 1-4).
    function _endByStatus(uint256 gameId, bytes memory s, uint256 st) internal {
        (uint8 result, uint8 reason) = Outcome.ofStatus(ChessRules.whiteToMove(s), st);
        _end(gameId, result, reason);
    }

    /// @dev Ends a running game and credits the payout (winner both stakes; draw and
    /// abort refund each player).
    function _end(uint256 gameId, uint8 result, uint8 reason) internal {
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
    function _withdraw(address token, address to) internal {
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

    function _credit(address account, address token, uint256 amount) internal {
        uint256 slot = creditSlots[account][token];
        creditSlots[account][token] = (slot == 0 ? 1 : slot) + amount;
    }

    /// @dev Takes `stake` from the caller: exact ETH, or an exact token balance increase.
    /// Also initialises the caller's credit slot for `token` (see `creditSlots`).
    function _collectStake(address token, uint256 stake) internal {
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

    /// @dev The terms hash of an open game, from storage.
    function _termsOf(Game storage g, address creator, address opponent, bytes32 start)
        internal
        view
        returns (bytes32)
    {
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
    function _withWindow(bytes32 baseTerms, uint256 responseWindow) internal pure returns (bytes32 r) {
        if (responseWindow == 0) return baseTerms;
        assembly ("memory-safe") {
            mstore(0, baseTerms)
            mstore(32, responseWindow)
            r := keccak256(0, 64)
        }
    }
}
