// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {IERC20, SafeERC20} from "./SafeERC20.sol";
import {GameTerms} from "./GameTerms.sol";
import {IChessReferee} from "./IChessReferee.sol";
import {IChessTournament} from "./IChessTournament.sol";
import {ClockWord} from "./ClockWord.sol";
import {Commitment} from "./Commitment.sol";
import {Move} from "./ChannelHash.sol";

/// @title ChessTournament
/// @notice Single-elimination knockouts with a pooled entry fee, on the referee that deployed
/// this contract. Anyone creates an event (size 4 to 64, fee in ETH or one ERC-20, time
/// control, per-move or channel games, deadline, prize split, organiser fee up to 10%); its
/// terms can never change. The first `size` players to pay are in; the hash of the block
/// after the filling entry places them in the bracket. Every pairing follows from the bracket
/// and the results below it, and is played as a referee game between those two players only
/// (`hostGame`: no stake, no abort, a player who does not start loses on time). A result
/// counts only as the referee recorded it; a drawn game is decided by a lot from the hash of
/// a block after the draw was reported. A game both players abandon (the side to move past its
/// deadline by `abandonAfter`, its opponent not claiming) puts both out (`reportAbandoned`); a
/// match whose other side was abandoned is a walkover. Prizes, refunds and the fee are
/// credited and pulled (`withdraw`); the organiser holds nothing at any point.
/// @dev Bracket of n = 2^k entrants: matches 0..n-2, round 0 is 0..n/2-1, `parent(m) = n/2 +
/// m/2`, the final is n-2. Round 0 match m plays bracket positions 2m and 2m+1, held by
/// entrants `perm[2m]` and `perm[2m+1]`, `perm` being the Fisher-Yates shuffle of 0..n-1 by
/// `seed` (`permutation`); white is the upper player (`lo`) if `keccak256(abi.encode(seed,
/// 64 + m))` is even, else the lower (`hi`): the shuffle hashes `(seed, j)` for j <= 63 only,
/// so no colour reuses a shuffle step's hash. A lot goes to white if
/// `keccak256(abi.encode(hash, eventId, m))` is even. Nothing loops over more than n.
contract ChessTournament is IChessTournament {
    using SafeERC20 for address;

    /// @notice Smallest event.
    uint256 public constant MIN_SIZE = 4;
    /// @notice Largest event (entrant indices are 8-bit, the split has 7 tiers).
    uint256 public constant MAX_SIZE = 64;
    /// @notice Largest organiser fee: 10%.
    uint256 public constant MAX_FEE_BPS = 1_000;
    /// @notice The whole, in basis points.
    uint256 public constant BPS = 10_000;
    /// @notice Shortest `abandonAfter`.
    uint256 public constant MIN_ABANDON_AFTER = 1 hours;
    /// @notice Longest `abandonAfter`.
    uint256 public constant MAX_ABANDON_AFTER = 30 days;
    /// @notice Latest registration deadline, from creation: an entry is locked until the
    /// event fills or its deadline passes, so the organiser cannot lock it for years.
    uint256 internal constant MAX_REGISTRATION = 90 days;
    /// @notice The EIP-2935 block-hash history contract (8,191 blocks), used where it has code.
    address public constant HISTORY_STORAGE = 0x0000F90827F1C53a10cb7A02335B175320002935;

    // Match m's colour hashes (seed, COLOUR_DOMAIN + m); the shuffle's hash (seed, j), j < MAX_SIZE.
    uint256 internal constant COLOUR_DOMAIN = MAX_SIZE;

    // Match status.
    uint256 internal constant WAITING = 0;
    uint256 internal constant RUNNING = 1;
    uint256 internal constant DECIDED = 2;
    uint256 internal constant LOT = 3;
    uint256 internal constant ABANDONED = 4;

    // Event flags.
    uint8 internal constant DRAWN = 1;
    uint8 internal constant FINISHED = 2;
    uint8 internal constant FEE_PAID = 4;
    uint8 internal constant CANCELLED = 8;

    // How a match was decided (`MatchDecided.how`).
    uint8 internal constant BY_BOARD = 1;
    uint8 internal constant BY_LOT = 2;
    uint8 internal constant BY_WALKOVER = 3;

    // What a match gives the round above (`_outcome`): a player, nobody (both abandoned), or
    // not known before its game is played.
    uint256 internal constant NEEDS_GAME = 0;
    uint256 internal constant PLAYER = 1;
    uint256 internal constant NOBODY = 2;
    uint256 internal constant UNKNOWN = 3; // `_players` only: a match below is undecided

    // A match record: the low 96 bits of seat word m (its high 160 bits are entrant m's
    // address, written at entry, so a record write is always an update, never a new slot).
    uint256 internal constant HI_SHIFT = 0; // entrant index, 8 bits
    uint256 internal constant LO_SHIFT = 8; // entrant index, 8 bits
    uint256 internal constant WHITE_IS_HI = 1 << 16;
    uint256 internal constant WINNER_IS_HI = 1 << 17;
    uint256 internal constant WALKOVER = 1 << 18; // decided without a game: lo = hi = the winner
    uint256 internal constant STATUS_SHIFT = 20; // 4 bits
    uint256 internal constant TIME_SHIFT = 24; // 32 bits: the start's timestamp, or the lot's block
    uint256 internal constant GAME_SHIFT = 56; // 40 bits
    uint256 internal constant RECORD_MASK = (1 << 96) - 1;
    uint256 internal constant MASK_8 = 0xff;
    uint256 internal constant MASK_32 = 0xffffffff;
    uint256 internal constant MASK_40 = 0xffffffffff;

    // Referee game results.
    uint8 internal constant PHASE_RUNNING = 2;
    uint8 internal constant PHASE_ENDED = 3;
    uint8 internal constant WHITE_WINS = 1;
    uint8 internal constant BLACK_WINS = 2;
    uint8 internal constant DRAW = 3;

    /// @dev One event, in four words.
    struct Event {
        address organiser;
        uint16 feeBps;
        uint8 k; // log2 of the size
        uint8 entrants;
        uint40 deadline;
        uint8 flags;
        address token;
        uint96 fee;
        uint24 initialTime;
        uint24 increment;
        uint24 firstMoveWindow;
        uint24 responseWindow;
        uint40 drawBlock;
        uint64 seed;
        uint32 abandonAfter;
        uint112 split; // tier t's share per player at bits 16t..16t+15
        uint128 paid;
    }

    /// @notice The referee that deployed this tournament: it hosts the games.
    address public immutable referee;

    /// @inheritdoc IChessTournament
    uint256 public nextEventId = 1;
    mapping(uint256 eventId => Event) internal events;
    /// @dev Word i: entrant i's address (high 160 bits) and match i's record (low 96).
    mapping(uint256 eventId => mapping(uint256 index => uint256)) internal seats;
    /// @dev Entrant index + 1 (bits 0..7), claimed (bit 8); 0 = not entered.
    mapping(uint256 eventId => mapping(address player => uint256)) internal entryOf;
    /// @dev The prizes of places held by nobody (the loser's place of a walkover or of a match
    /// without players): the winner's, with its own (or, if nobody won, see `_share`).
    mapping(uint256 eventId => uint256) internal unassigned;
    /// @dev Withdrawable balance + 1 once used (kept non-zero, as the referee's `creditSlots`:
    /// set at entry, so a prize is credited by an update).
    mapping(address account => mapping(address token => uint256)) internal creditSlots;

    bool private transient locked;

    modifier nonReentrant() {
        if (locked) revert Reentrancy();
        locked = true;
        _;
        locked = false;
    }

    /// @dev Created by `ChessReferee`'s constructor, from `ChessTournamentBlueprint`.
    constructor() {
        referee = msg.sender;
    }

    // ------------------------------------------------------------------ registration

    /// @notice Creates an event; the caller is its organiser. The terms are final: no
    /// function changes them.
    /// @param t The terms: `size` 4..64, a power of two (`BadSize`); `feeBps` at most
    /// MAX_FEE_BPS (`FeeTooHigh`); `split` of 1..k+1 tiers, non-increasing, with each tier's
    /// share times its players (1, 1, 2, 4, ...) summing to 10,000 (`BadSplit`); `deadline`
    /// in the future, at most MAX_REGISTRATION ahead (`BadDeadline`); a `token` with code
    /// (`NotAToken`); the time control and windows in the referee's ranges (`BadTimeControl`,
    /// `BadFirstMoveWindow`, `BadResponseWindow`); `abandonAfter`
    /// MIN_ABANDON_AFTER..MAX_ABANDON_AFTER (`BadAbandonAfter`).
    /// @return eventId The new event's id.
    function createEvent(EventTerms calldata t) external nonReentrant returns (uint256 eventId) {
        uint256 size = t.size;
        if (size < MIN_SIZE || size > MAX_SIZE || size & (size - 1) != 0) revert BadSize(size);
        uint256 k;
        while (1 << k < size) ++k;
        if (t.feeBps > MAX_FEE_BPS) revert FeeTooHigh(t.feeBps);
        uint256 split = _packSplit(t.split, k);
        // forge-lint: disable-next-line(block-timestamp) a registration deadline
        if (t.deadline <= block.timestamp || t.deadline > block.timestamp + MAX_REGISTRATION) {
            revert BadDeadline(t.deadline);
        }
        if (t.token != address(0) && t.token.code.length == 0) revert NotAToken(t.token);
        GameTerms.checkTimeControl(t.initialTime, t.increment);
        uint256 window = GameTerms.firstMoveWindow(t.firstMoveWindow);
        if (t.responseWindow != 0) GameTerms.checkResponseWindow(t.responseWindow);
        if (t.abandonAfter < MIN_ABANDON_AFTER || t.abandonAfter > MAX_ABANDON_AFTER) {
            revert BadAbandonAfter(t.abandonAfter);
        }

        eventId = nextEventId++;
        Event storage ev = events[eventId];
        ev.organiser = msg.sender;
        ev.feeBps = t.feeBps;
        // forge-lint: disable-next-line(unsafe-typecast) 2..6
        ev.k = uint8(k);
        ev.deadline = t.deadline;
        ev.token = t.token;
        ev.fee = t.fee;
        // forge-lint: disable-next-line(unsafe-typecast) checked by GameTerms (< 2^24)
        ev.initialTime = uint24(t.initialTime);
        // forge-lint: disable-next-line(unsafe-typecast) checked by GameTerms (< 2^24)
        ev.increment = uint24(t.increment);
        // forge-lint: disable-next-line(unsafe-typecast) checked by GameTerms (< 2^24)
        ev.firstMoveWindow = uint24(window);
        // forge-lint: disable-next-line(unsafe-typecast) checked by GameTerms (< 2^24)
        ev.responseWindow = uint24(t.responseWindow);
        ev.abandonAfter = t.abandonAfter;
        // forge-lint: disable-next-line(unsafe-typecast) 7 tiers of 16 bits
        ev.split = uint112(split);
        emit EventCreated(eventId, msg.sender, t);
    }

    /// @notice Cancels an event nobody has entered (organiser only, `NotOrganiser`;
    /// `HasEntrants` after the first entry): there is nothing to refund.
    /// @param eventId The event.
    function cancelEvent(uint256 eventId) external {
        Event storage ev = _event(eventId);
        if (msg.sender != ev.organiser) revert NotOrganiser();
        if (ev.entrants != 0) revert HasEntrants();
        ev.flags |= CANCELLED;
        emit EventCancelled(eventId);
    }

    /// @notice Enters the caller, paying the fee: the exact ETH, or an ERC-20 the caller
    /// approved whose balance here must grow by exactly the fee (`TokenShortPaid`:
    /// fee-on-transfer tokens are refused). `RegistrationClosed` after the deadline, once
    /// full or cancelled; `AlreadyEntered` for a second seat. The entry that fills the event
    /// arms the draw on the next block.
    /// @param eventId The event.
    function enter(uint256 eventId) external payable nonReentrant {
        Event storage ev = _event(eventId);
        uint256 index = ev.entrants;
        // forge-lint: disable-next-line(block-timestamp) a registration deadline
        if (index == 1 << ev.k || block.timestamp > ev.deadline || ev.flags & CANCELLED != 0) {
            revert RegistrationClosed();
        }
        if (entryOf[eventId][msg.sender] != 0) revert AlreadyEntered();
        ++index;
        // forge-lint: disable-next-line(unsafe-typecast) at most 64
        ev.entrants = uint8(index);
        entryOf[eventId][msg.sender] = index;
        seats[eventId][index - 1] = uint256(uint160(msg.sender)) << 96;
        if (index == 1 << ev.k) {
            ev.drawBlock = uint40(block.number + 1);
            emit DrawArmed(eventId, block.number + 1);
        }
        // forge-lint: disable-next-line(unsafe-typecast) at most 63
        emit Entered(eventId, msg.sender, uint8(index - 1));
        address token = ev.token;
        if (creditSlots[msg.sender][token] == 0) creditSlots[msg.sender][token] = 1;
        _collect(token, ev.fee);
    }

    // ------------------------------------------------------------------ the bracket

    /// @notice Fixes the bracket from the hash of the draw block (anyone, once it is past:
    /// `NotDrawnYet`). If that hash is no longer available the draw is re-armed on the next
    /// block (`DrawArmed`) instead. `start` draws by itself when it can.
    /// @param eventId The event.
    function draw(uint256 eventId) external nonReentrant {
        Event storage ev = _event(eventId);
        if (ev.entrants != 1 << ev.k) revert NotFull();
        if (ev.flags & DRAWN != 0) revert AlreadyDrawn();
        if (_drawSeed(eventId, ev) == 0) {
            ev.drawBlock = uint40(block.number + 1);
            emit DrawArmed(eventId, block.number + 1);
        }
    }

    /// @notice Starts match `matchIndex` (anyone) as a referee game between its two players,
    /// with the event's terms; draws the bracket first if needed. A match above round 0
    /// first records the results of the matches below it that ended on the board and
    /// resolves their lots whose block is past. If one side below was abandoned the match is
    /// a walkover instead (no game, `MatchDecided` how 3), if both were, it has no players
    /// (`MatchAbandoned` with two zero addresses); either returns game id 0. Reverts
    /// `PlayersNotKnown` while a match below has not started, `GameNotEnded` while its game
    /// runs, `LotNotArmed` for a drawn game nobody reported, `LotPending` while its lot waits,
    /// `AlreadyStarted`.
    /// @param eventId The event.
    /// @param matchIndex The match, 0..size-2.
    /// @return gameId The referee game (0 for a walkover or a match without players).
    function start(uint256 eventId, uint256 matchIndex) external nonReentrant returns (uint256 gameId) {
        Event storage ev = _event(eventId);
        uint256 n = _size(ev, matchIndex);
        uint256 seed = _seed(eventId, ev);
        if (_status(seats[eventId][matchIndex]) != WAITING) revert AlreadyStarted(matchIndex);
        (uint256 kind, uint256 lo, uint256 hi) = _players(eventId, ev, matchIndex, n, seed);
        if (kind == UNKNOWN) revert PlayersNotKnown(lo);
        if (kind != NEEDS_GAME) return 0;
        return _host(eventId, ev, matchIndex, _whiteIsHi(seed, matchIndex), lo, hi);
    }

    /// @dev Hosts match `m`'s game between entrants `lo` and `hi` and records it running.
    function _host(uint256 eventId, Event storage ev, uint256 m, bool whiteIsHi, uint256 lo, uint256 hi)
        internal
        returns (uint256 gameId)
    {
        address white = _entrant(eventId, whiteIsHi ? hi : lo);
        address black = _entrant(eventId, whiteIsHi ? lo : hi);
        // The referee is this contract's deployer (trusted code, no callback); its id is
        // needed in the record, so the record is written after the call.
        gameId = IChessReferee(referee)
            .hostGame(white, black, ev.initialTime, ev.increment, ev.firstMoveWindow, ev.responseWindow);
        uint256 rec = (gameId << GAME_SHIFT) | (block.timestamp << TIME_SHIFT) | (RUNNING << STATUS_SHIFT)
            | (whiteIsHi ? WHITE_IS_HI : 0) | (lo << LO_SHIFT) | (hi << HI_SHIFT);
        _write(eventId, m, rec);
        emit MatchStarted(eventId, m, gameId, white, black);
    }

    /// @notice Records the result of a running match's game as the referee recorded it
    /// (anyone; `NotRunning`, `GameNotEnded`): a win sends its winner on; a draw arms the
    /// match's lot on the next block (`LotArmed`). The final's result finishes the event.
    /// @param eventId The event.
    /// @param matchIndex The match.
    function report(uint256 eventId, uint256 matchIndex) external nonReentrant {
        Event storage ev = _event(eventId);
        _size(ev, matchIndex);
        uint256 rec = seats[eventId][matchIndex];
        if (_status(rec) != RUNNING) revert NotRunning(matchIndex);
        uint8 result = _result(rec);
        if (result == DRAW) {
            rec = (rec & ~(MASK_32 << TIME_SHIFT | uint256(0xf) << STATUS_SHIFT)) | ((block.number + 1) << TIME_SHIFT)
                | (LOT << STATUS_SHIFT);
            _write(eventId, matchIndex, rec);
            emit LotArmed(eventId, matchIndex, block.number + 1);
        } else {
            _decide(eventId, ev, matchIndex, rec, (result == WHITE_WINS) == ((rec & WHITE_IS_HI) != 0), BY_BOARD);
        }
    }

    /// @notice Decides a drawn match by its lot (anyone), once the lot's block is past
    /// (`LotPending`; `NoLot` if none is armed). If that block's hash is no longer available
    /// the lot is re-armed on the next block (`LotArmed`) instead.
    /// @param eventId The event.
    /// @param matchIndex The match.
    function resolveLot(uint256 eventId, uint256 matchIndex) external nonReentrant {
        Event storage ev = _event(eventId);
        _size(ev, matchIndex);
        uint256 rec = seats[eventId][matchIndex];
        if (_status(rec) != LOT) revert NoLot(matchIndex);
        if (!_tryLot(eventId, ev, matchIndex, rec)) {
            rec = (rec & ~(MASK_32 << TIME_SHIFT)) | ((block.number + 1) << TIME_SHIFT);
            _write(eventId, matchIndex, rec);
            emit LotArmed(eventId, matchIndex, block.number + 1);
        }
    }

    /// @notice Records that both players abandoned match `matchIndex`'s game (anyone): the
    /// position given is the game's current one on-chain (`StalePosition`; `NotOnChain` for a
    /// channel game nobody registered), not decided (`PositionDecided`: `finishRegistered`
    /// ends it), and its side to move is past its deadline by the event's `abandonAfter`
    /// while its opponent never claimed the game (`NotAbandoned(until)`). Both players are
    /// out and share the match's loser's place (see `_share`); the match above is a walkover
    /// for its other side. `NotRunning`; `GameOver` for a game that ended (`report` it).
    /// @param eventId The event.
    /// @param matchIndex The match.
    /// @param state The game's current 128-byte state.
    /// @param history Its repetition-chain head.
    /// @param clock Its clock word.
    function reportAbandoned(uint256 eventId, uint256 matchIndex, bytes calldata state, bytes32 history, uint256 clock)
        external
        nonReentrant
    {
        Event storage ev = _event(eventId);
        _size(ev, matchIndex);
        uint256 rec = seats[eventId][matchIndex];
        if (_status(rec) != RUNNING) revert NotRunning(matchIndex);
        _checkAbandoned((rec >> GAME_SHIFT) & MASK_40, state, history, clock, ev.abandonAfter);
        _write(eventId, matchIndex, (rec & ~(uint256(0xf) << STATUS_SHIFT)) | (ABANDONED << STATUS_SHIFT));
        bool whiteIsHi = rec & WHITE_IS_HI != 0;
        uint256 lo = (rec >> LO_SHIFT) & MASK_8;
        uint256 hi = (rec >> HI_SHIFT) & MASK_8;
        emit MatchAbandoned(
            eventId, matchIndex, _entrant(eventId, whiteIsHi ? hi : lo), _entrant(eventId, whiteIsHi ? lo : hi)
        );
        _finishIfFinal(eventId, ev, matchIndex, address(0));
    }

    /// @notice Starts on-chain play of a channel match's game that nobody registered (anyone),
    /// so that it can end: `startMove` is its start move, registered by this contract through the
    /// channel's `registerStart` as either player could (`NotTheStart`; `AlreadyOnChain` once
    /// a position is registered). Only once its side to move could no longer have made its
    /// first move in time plus the event's `abandonAfter`: after `startedAt + firstMoveWindow
    /// + initialTime + GRACE_PERIOD + abandonAfter` (`NotAbandoned(until)`). A player who did
    /// play answers with a later signed position within the response window, and the clocks
    /// start afresh after it; else the waiting player claims on time, or, both absent,
    /// `reportAbandoned` puts both out. `NotRunning`; `NotTheMatchGame` if `startMove` names another game.
    /// @param eventId The event.
    /// @param matchIndex The match.
    /// @param startMove The game's start move (ply 0, the standard position, both clocks the initial time).
    function registerStart(uint256 eventId, uint256 matchIndex, Move calldata startMove) external nonReentrant {
        Event storage ev = _event(eventId);
        _size(ev, matchIndex);
        uint256 rec = seats[eventId][matchIndex];
        if (_status(rec) != RUNNING) revert NotRunning(matchIndex);
        uint256 gameId = (rec >> GAME_SHIFT) & MASK_40;
        if (startMove.gameId != gameId) revert NotTheMatchGame(gameId);
        uint256 until = ((rec >> TIME_SHIFT) & MASK_32) + ev.firstMoveWindow + ev.initialTime + ClockWord.GRACE_PERIOD
            + ev.abandonAfter;
        // forge-lint: disable-next-line(block-timestamp) the clock is defined on block time
        if (block.timestamp <= until) revert NotAbandoned(until);
        // The referee and its channel are this contract's deployer's (trusted code, no callback).
        IChessReferee(referee).channel().registerStart(startMove);
    }

    /// @dev Reverts unless running game `gameId`'s current position (state, history, clock)
    /// shows its side to move past its deadline by `abandonAfter` (see `reportAbandoned`).
    function _checkAbandoned(uint256 gameId, bytes calldata state, bytes32 history, uint256 clock, uint256 abandonAfter)
        internal
        view
    {
        (uint8 phase,) = IChessReferee(referee).resultOf(gameId);
        if (phase != PHASE_RUNNING) revert GameOver(gameId);
        bytes32 stored = IChessReferee(referee).commitmentOf(gameId);
        if (stored == 0) revert NotOnChain(gameId);
        if (state.length != 128 || Commitment.seal(Commitment.innerCalldata(state, history), clock) != stored) {
            revert StalePosition();
        }
        if (ClockWord.pendingStatus(clock) != 0) revert PositionDecided(gameId);
        // byte 56 of the state: 0x01 white to move (ENCODING.md)
        uint256 until = ClockWord.deadline(clock, uint8(state[56]) == 1) + abandonAfter;
        // forge-lint: disable-next-line(block-timestamp) the clock is defined on block time
        if (block.timestamp <= until) revert NotAbandoned(until);
    }

    // ------------------------------------------------------------------ money

    /// @notice Credits the caller's share (pull it with `withdraw`): the whole fee back for
    /// an event that did not fill by its deadline; after the final (recorded here first if
    /// its game ended on the board or its lot is due), the prize of the caller's tier (see
    /// `_share` for abandoned games and walkovers). `NotEntered`, `AlreadyClaimed`, `NotFinished`;
    /// `GameNotEnded` while the final's game, or a game below it, still runs.
    /// @param eventId The event.
    function claim(uint256 eventId) external nonReentrant {
        Event storage ev = _event(eventId);
        uint256 entry = entryOf[eventId][msg.sender];
        if (entry == 0) revert NotEntered();
        if (entry & 0x100 != 0) revert AlreadyClaimed();
        entryOf[eventId][msg.sender] = entry | 0x100;
        uint256 n = 1 << ev.k;
        uint256 amount;
        if (ev.entrants < n) {
            // forge-lint: disable-next-line(block-timestamp) a registration deadline
            if (block.timestamp <= ev.deadline) revert NotFinished();
            amount = ev.fee;
        } else {
            if (ev.flags & FINISHED == 0) {
                (uint256 kind,) = _outcome(eventId, ev, n - 2);
                if (kind == NEEDS_GAME) revert NotFinished();
            }
            amount = _share(eventId, ev, entry - 1);
        }
        _credit(eventId, ev, msg.sender, amount);
    }

    /// @notice Credits the organiser fee, `fee · size · feeBps / 10,000`, once, after the
    /// final (organiser only).
    /// @param eventId The event.
    function claimFee(uint256 eventId) external nonReentrant {
        Event storage ev = _event(eventId);
        if (msg.sender != ev.organiser) revert NotOrganiser();
        uint8 flags = ev.flags;
        if (flags & FINISHED == 0) revert NotFinished();
        if (flags & FEE_PAID != 0) revert AlreadyClaimed();
        ev.flags = flags | FEE_PAID;
        _credit(eventId, ev, msg.sender, _pool(ev) * ev.feeBps / BPS);
    }

    /// @notice Sends the caller all its credit in `token` (address(0) = ETH).
    /// @param token The asset.
    function withdraw(address token) external nonReentrant {
        _withdraw(token, msg.sender);
    }

    /// @notice Sends the caller's whole credit in `token` to `to` (not address(0), not this
    /// contract).
    /// @param token The asset.
    /// @param to The recipient.
    function withdrawTo(address token, address to) external nonReentrant {
        if (to == address(0)) revert ZeroRecipient();
        if (to == address(this)) revert BadRecipient(to);
        _withdraw(token, to);
    }

    // ------------------------------------------------------------------ views

    /// @notice An event (all zero for an unknown id).
    /// @param eventId The event.
    function getEvent(uint256 eventId) external view returns (EventInfo memory info) {
        Event storage ev = events[eventId];
        info.organiser = ev.organiser;
        info.token = ev.token;
        info.fee = ev.fee;
        // forge-lint: disable-next-line(unsafe-typecast) at most 64
        info.size = ev.organiser == address(0) ? 0 : uint8(1 << ev.k);
        info.entrants = ev.entrants;
        info.deadline = ev.deadline;
        info.feeBps = ev.feeBps;
        info.initialTime = ev.initialTime;
        info.increment = ev.increment;
        info.firstMoveWindow = ev.firstMoveWindow;
        info.responseWindow = ev.responseWindow;
        info.drawBlock = ev.drawBlock;
        info.seed = ev.seed;
        uint8 flags = ev.flags;
        info.drawn = flags & DRAWN != 0;
        info.finished = flags & FINISHED != 0;
        info.feePaid = flags & FEE_PAID != 0;
        info.cancelled = flags & CANCELLED != 0;
        info.split = new uint16[](ev.k + 1);
        for (uint256 t; t <= ev.k; ++t) {
            // forge-lint: disable-next-line(unsafe-typecast) a 16-bit field
            info.split[t] = uint16(ev.split >> (16 * t));
        }
        info.paid = ev.paid;
        info.abandonAfter = ev.abandonAfter;
        info.unassigned = unassigned[eventId];
    }

    /// @notice A match as recorded (status 0 with no players before its start; a walkover:
    /// `white` its winner, `black` 0, no game; a match without players: status 4, no one).
    /// @param eventId The event.
    /// @param matchIndex The match.
    function getMatch(uint256 eventId, uint256 matchIndex) external view returns (MatchInfo memory info) {
        uint256 rec = seats[eventId][matchIndex];
        uint256 status = _status(rec);
        // forge-lint: disable-next-line(unsafe-typecast) 0..3
        info.status = uint8(status);
        if (status == WAITING) return info;
        uint256 lo = (rec >> LO_SHIFT) & MASK_8;
        uint256 hi = (rec >> HI_SHIFT) & MASK_8;
        // forge-lint: disable-next-line(unsafe-typecast) entrant indices
        (info.lo, info.hi) = (uint8(lo), uint8(hi));
        bool whiteIsHi = rec & WHITE_IS_HI != 0;
        info.white = _entrant(eventId, whiteIsHi ? hi : lo);
        info.black = _entrant(eventId, whiteIsHi ? lo : hi);
        if (rec & WALKOVER != 0) info.black = address(0);
        if (status == ABANDONED && (rec >> GAME_SHIFT) & MASK_40 == 0) {
            (info.white, info.black) = (address(0), address(0));
        }
        info.gameId = (rec >> GAME_SHIFT) & MASK_40;
        if (status == LOT) info.lotBlock = (rec >> TIME_SHIFT) & MASK_32;
        else if (status == RUNNING) info.startedAt = (rec >> TIME_SHIFT) & MASK_32;
        if (status == DECIDED) info.winner = _entrant(eventId, rec & WINNER_IS_HI != 0 ? hi : lo);
    }

    /// @notice White and black of match `matchIndex` as `start` would pair them now
    /// (`PlayersNotKnown` unless the bracket is drawn and the matches below are decided).
    /// @param eventId The event.
    /// @param matchIndex The match.
    function pairing(uint256 eventId, uint256 matchIndex) external view returns (address white, address black) {
        Event storage ev = _event(eventId);
        uint256 n = _size(ev, matchIndex);
        if (ev.flags & DRAWN == 0) revert PlayersNotKnown(matchIndex);
        uint256 lo;
        uint256 hi;
        if (matchIndex < n / 2) {
            uint8[] memory perm = _permutation(ev.seed, n);
            (lo, hi) = (perm[2 * matchIndex], perm[2 * matchIndex + 1]);
        } else {
            uint256 child = 2 * (matchIndex - n / 2);
            uint256 a = seats[eventId][child];
            uint256 b = seats[eventId][child + 1];
            if (_status(a) != DECIDED || _status(b) != DECIDED) revert PlayersNotKnown(matchIndex);
            (lo, hi) = (_winnerIndex(a), _winnerIndex(b));
        }
        bool whiteIsHi = _whiteIsHi(ev.seed, matchIndex);
        white = _entrant(eventId, whiteIsHi ? hi : lo);
        black = _entrant(eventId, whiteIsHi ? lo : hi);
    }

    /// @notice The prize of one player of tier `tier` (0 winner, 1 finalist, 2 semi-finalist,
    /// ..., k the losers of round 0), from the full pool: `net · split[t] / 10,000` for
    /// t ≥ 1, and for the winner `net` less all the others (it takes the rounding dust), `net`
    /// being the pool less the organiser fee. The winner also takes `getEvent(e).unassigned`,
    /// the places of walkovers nobody held; abandoned games are shared (see `claim`).
    /// @param eventId The event.
    /// @param tier The tier, 0..log2(size).
    function prizeOf(uint256 eventId, uint256 tier) external view returns (uint256) {
        Event storage ev = _event(eventId);
        if (tier > ev.k) return 0;
        return _prize(ev, tier);
    }

    /// @notice The player holding entrant index `index` (address(0) if none).
    /// @param eventId The event.
    /// @param index The entrant index (registration order, from 0).
    function entrantOf(uint256 eventId, uint256 index) external view returns (address) {
        return _entrant(eventId, index);
    }

    /// @notice Withdrawable balance of `account` in `token` (address(0) = ETH).
    /// @param account The owner.
    /// @param token The asset.
    function credits(address account, address token) external view returns (uint256) {
        uint256 slot = creditSlots[account][token];
        return slot == 0 ? 0 : slot - 1;
    }

    /// @notice The entrant at each bracket position for `seed`: 0..size-1 shuffled by
    /// Fisher-Yates, for j from size-1 down to 1 swapping j with
    /// `uint256(keccak256(abi.encode(seed, j))) % (j + 1)`.
    /// @param seed The event's seed.
    /// @param size The event's size (at most MAX_SIZE).
    function permutation(uint64 seed, uint256 size) external pure returns (uint8[] memory) {
        if (size == 0 || size > MAX_SIZE) revert BadSize(size);
        return _permutation(seed, size);
    }

    // ------------------------------------------------------------------ internals

    function _event(uint256 eventId) internal view returns (Event storage ev) {
        ev = events[eventId];
        if (ev.organiser == address(0)) revert UnknownEvent(eventId);
    }

    /// @dev The event's size; reverts `BadMatch` unless `matchIndex` is one of its matches.
    function _size(Event storage ev, uint256 matchIndex) internal view returns (uint256 n) {
        n = 1 << ev.k;
        if (matchIndex >= n - 1) revert BadMatch(matchIndex);
    }

    /// @dev The event's seed, drawing it now if due (`NotDrawnYet` if it cannot be).
    function _seed(uint256 eventId, Event storage ev) internal returns (uint256 seed) {
        if (ev.flags & DRAWN != 0) return ev.seed;
        if (ev.entrants != 1 << ev.k) revert NotFull();
        if (_drawSeed(eventId, ev) == 0) revert NotDrawnYet(ev.drawBlock);
        return ev.seed;
    }

    /// @dev `NotDrawnYet` before the draw block is past; else the hash (stored as the seed, its
    /// low 64 bits), or 0 if it expired.
    function _drawSeed(uint256 eventId, Event storage ev) internal returns (bytes32 hash) {
        uint256 b = ev.drawBlock;
        if (block.number <= b) revert NotDrawnYet(b);
        hash = _blockHash(b);
        if (hash == 0) return hash;
        // forge-lint: disable-next-line(unsafe-typecast) the seed is the hash's low 64 bits
        uint64 seed = uint64(uint256(hash));
        ev.seed = seed;
        ev.flags |= DRAWN;
        emit Drawn(eventId, seed);
    }

    /// @dev The hash of past block `b`: from the EIP-2935 history contract where it has code
    /// (8,191 blocks), else `blockhash` (256 blocks); 0 if unavailable.
    function _blockHash(uint256 b) internal view returns (bytes32 hash) {
        if (HISTORY_STORAGE.code.length != 0) {
            (bool ok, bytes memory ret) = HISTORY_STORAGE.staticcall(abi.encode(b));
            if (ok && ret.length == 32) return abi.decode(ret, (bytes32));
            return 0;
        }
        return blockhash(b);
    }

    /// @dev What match `m` gives the round above: (PLAYER, its winner's index); (NOBODY, 0)
    /// if both its players are out (abandoned) or it has none; (NEEDS_GAME, 0) while its
    /// game is not played. Records first a result its game ended with on the board, a due
    /// lot, and for a match above round 0 never started, a walkover or a match without
    /// players (`GameNotEnded`, `LotNotArmed`, `LotPending`).
    function _outcome(uint256 eventId, Event storage ev, uint256 m) internal returns (uint256 kind, uint256 winner) {
        uint256 rec = seats[eventId][m];
        uint256 status = _status(rec);
        if (status == DECIDED) return (PLAYER, _winnerIndex(rec));
        if (status == ABANDONED) return (NOBODY, 0);
        if (status == RUNNING) {
            uint8 result = _result(rec);
            if (result == DRAW) revert LotNotArmed(m);
            rec = _decide(eventId, ev, m, rec, (result == WHITE_WINS) == ((rec & WHITE_IS_HI) != 0), BY_BOARD);
            return (PLAYER, _winnerIndex(rec));
        }
        if (status == LOT) {
            if (!_tryLot(eventId, ev, m, rec)) revert LotPending(m, (rec >> TIME_SHIFT) & MASK_32);
            return (PLAYER, _winnerIndex(seats[eventId][m]));
        }
        uint256 n = 1 << ev.k;
        if (m < n / 2) return (NEEDS_GAME, 0);
        (kind, winner,) = _players(eventId, ev, m, n, 0);
        if (kind == UNKNOWN) return (NEEDS_GAME, 0);
        if (kind == NEEDS_GAME) winner = 0;
    }

    /// @dev The players (lo, hi) of waiting match `m` (NEEDS_GAME), or (UNKNOWN, the match
    /// below that is undecided, 0). Above round 0, when a side below has nobody, records the
    /// walkover (PLAYER, lo = hi = its winner) or the match without players (NOBODY); the
    /// loser's place of either is nobody's (`unassigned`). `seed` is needed in round 0 only.
    function _players(uint256 eventId, Event storage ev, uint256 m, uint256 n, uint256 seed)
        internal
        returns (uint256 kind, uint256 lo, uint256 hi)
    {
        if (m < n / 2) {
            uint8[] memory perm = _permutation(seed, n);
            return (NEEDS_GAME, perm[2 * m], perm[2 * m + 1]);
        }
        uint256 child = 2 * (m - n / 2);
        uint256 k1;
        (kind, lo) = _outcome(eventId, ev, child);
        if (kind == NEEDS_GAME) return (UNKNOWN, child, 0);
        (k1, hi) = _outcome(eventId, ev, child + 1);
        if (k1 == NEEDS_GAME) return (UNKNOWN, child + 1, 0);
        if (kind == PLAYER && k1 == PLAYER) return (NEEDS_GAME, lo, hi);
        unassigned[eventId] += _prize(ev, _roundTier(ev, m, n));
        if (kind == NOBODY && k1 == NOBODY) {
            _write(eventId, m, ABANDONED << STATUS_SHIFT);
            emit MatchAbandoned(eventId, m, address(0), address(0));
            _finishIfFinal(eventId, ev, m, address(0));
            return (NOBODY, 0, 0);
        }
        if (kind != PLAYER) lo = hi;
        _write(eventId, m, (DECIDED << STATUS_SHIFT) | WALKOVER | (lo << LO_SHIFT) | (lo << HI_SHIFT));
        address winner = _entrant(eventId, lo);
        emit MatchDecided(eventId, m, winner, address(0), BY_WALKOVER);
        _finishIfFinal(eventId, ev, m, winner);
        return (PLAYER, lo, lo);
    }

    /// @dev The tier of match `m`'s loser: k less its round r (round r ends before match n - n/2^(r+1)).
    function _roundTier(Event storage ev, uint256 m, uint256 n) internal view returns (uint256) {
        uint256 r;
        while (m >= n - (n >> (r + 1))) ++r;
        return ev.k - r;
    }

    /// @dev Finishes the event if `m` is its final.
    function _finishIfFinal(uint256 eventId, Event storage ev, uint256 m, address winner) internal {
        if (m != (uint256(1) << ev.k) - 2) return;
        ev.flags |= FINISHED;
        emit EventFinished(eventId, winner);
    }

    /// @dev The referee's result of a running match's game: 1 white or 2 black wins, 3 a
    /// draw (`GameNotEnded`, `UnexpectedResult`).
    function _result(uint256 rec) internal view returns (uint8 result) {
        uint256 gameId = (rec >> GAME_SHIFT) & MASK_40;
        uint8 phase;
        (phase, result) = IChessReferee(referee).resultOf(gameId);
        if (phase != PHASE_ENDED) revert GameNotEnded(gameId);
        if (result != WHITE_WINS && result != BLACK_WINS && result != DRAW) revert UnexpectedResult(gameId, result);
    }

    /// @dev Decides an armed lot whose block is past and whose hash is available; false if
    /// not (`LotPending` before the block is past).
    function _tryLot(uint256 eventId, Event storage ev, uint256 m, uint256 rec) internal returns (bool) {
        uint256 lotBlock = (rec >> TIME_SHIFT) & MASK_32;
        if (block.number <= lotBlock) revert LotPending(m, lotBlock);
        bytes32 hash = _blockHash(lotBlock);
        if (hash == 0) return false;
        bool whiteWins = uint256(keccak256(abi.encode(hash, eventId, m))) & 1 == 0;
        _decide(eventId, ev, m, rec, whiteWins == ((rec & WHITE_IS_HI) != 0), BY_LOT);
        return true;
    }

    /// @dev Records match `m` as won by its `hi` player (else `lo`); finishes the event on the final.
    function _decide(uint256 eventId, Event storage ev, uint256 m, uint256 rec, bool hiWins, uint8 how)
        internal
        returns (uint256)
    {
        rec = (rec & ~(uint256(0xf) << STATUS_SHIFT)) | (DECIDED << STATUS_SHIFT) | (hiWins ? WINNER_IS_HI : 0);
        _write(eventId, m, rec);
        uint256 lo = (rec >> LO_SHIFT) & MASK_8;
        uint256 hi = (rec >> HI_SHIFT) & MASK_8;
        address winner = _entrant(eventId, hiWins ? hi : lo);
        emit MatchDecided(eventId, m, winner, _entrant(eventId, hiWins ? lo : hi), how);
        _finishIfFinal(eventId, ev, m, winner);
        return rec;
    }

    /// @dev Entrant `index`'s share of a finished event. The places are the winner's (the net
    /// pool less every loser's place, plus the `unassigned` ones) and one loser's per match
    /// (`prizeOf` its tier): a player who lost a match holds that match's place; the two
    /// players of an abandoned match share its place (`lo` takes the odd wei), and of an
    /// abandoned final the winner's place too; if the final had no players at all, every
    /// entrant gets an equal part of the winner's place (entrant 0 the remainder). So the
    /// shares always sum to the net pool. Walks at most k matches up from its round-0 match.
    function _share(uint256 eventId, Event storage ev, uint256 index) internal view returns (uint256 amount) {
        uint256 k = ev.k;
        uint256 n = 1 << k;
        uint256 winnerPlace = _prize(ev, 0) + unassigned[eventId];
        uint256 fin = seats[eventId][n - 2];
        if (_status(fin) == ABANDONED && (fin >> GAME_SHIFT) & MASK_40 == 0) {
            amount = winnerPlace / n + (index == 0 ? winnerPlace % n : 0);
        }
        uint8[] memory perm = _permutation(ev.seed, n);
        uint256 position;
        while (perm[position] != index) ++position;
        uint256 m = position / 2;
        for (uint256 r; r < k; ++r) {
            uint256 rec = seats[eventId][m];
            if (_status(rec) == ABANDONED) {
                amount += _half(_prize(ev, k - r), rec, index);
                return r == k - 1 ? amount + _half(winnerPlace, rec, index) : amount;
            }
            if (_winnerIndex(rec) != index) return amount + _prize(ev, k - r);
            m = n / 2 + m / 2;
        }
        return amount + winnerPlace;
    }

    /// @dev The part of `place` of entrant `index`, one of the two players of match record
    /// `rec` sharing it: `lo` takes the odd wei.
    function _half(uint256 place, uint256 rec, uint256 index) internal pure returns (uint256) {
        return index == (rec >> LO_SHIFT) & MASK_8 ? place - place / 2 : place / 2;
    }

    /// @dev One player's prize in tier `tier` (see `prizeOf`).
    function _prize(Event storage ev, uint256 tier) internal view returns (uint256) {
        uint256 pool = _pool(ev);
        uint256 net = pool - pool * ev.feeBps / BPS;
        uint256 split = ev.split;
        if (tier != 0) return net * ((split >> (16 * tier)) & 0xffff) / BPS;
        uint256 others;
        uint256 k = ev.k;
        for (uint256 t = 1; t <= k; ++t) {
            others += (uint256(1) << (t - 1)) * (net * ((split >> (16 * t)) & 0xffff) / BPS);
        }
        return net - others;
    }

    function _pool(Event storage ev) internal view returns (uint256) {
        return uint256(ev.fee) << ev.k;
    }

    /// @dev The split as 16-bit fields; reverts `BadSplit` unless it has 1..k+1 tiers, never
    /// increases, and each tier's share times its players (1, 1, 2, 4, ...) sums to 10,000.
    function _packSplit(uint16[] calldata split, uint256 k) internal pure returns (uint256 packed) {
        uint256 len = split.length;
        if (len == 0 || len > k + 1) revert BadSplit();
        uint256 sum;
        for (uint256 t; t < len; ++t) {
            uint256 share = split[t];
            if (t != 0 && share > split[t - 1]) revert BadSplit();
            sum += t == 0 ? share : share << (t - 1);
            packed |= share << (16 * t);
        }
        if (sum != BPS) revert BadSplit();
    }

    /// @dev Fisher-Yates over 0..n-1 (see `permutation`), in memory. In assembly: the checked
    /// Solidity loop (bounds checks, 8-bit masking) cost about 600 gas a step, 38,000 at n = 64.
    function _permutation(uint256 seed, uint256 n) internal pure returns (uint8[] memory perm) {
        assembly ("memory-safe") {
            perm := mload(0x40)
            mstore(perm, n)
            let base := add(perm, 0x20)
            mstore(0x40, add(base, shl(5, n)))
            for { let i := 0 } lt(i, n) { i := add(i, 1) } { mstore(add(base, shl(5, i)), i) }
            mstore(0, seed)
            for { let j := sub(n, 1) } gt(j, 0) { j := sub(j, 1) } {
                mstore(0x20, j)
                let pj := add(base, shl(5, j))
                let pr := add(base, shl(5, mod(keccak256(0, 0x40), add(j, 1))))
                let v := mload(pj)
                mstore(pj, mload(pr))
                mstore(pr, v)
            }
        }
    }

    /// @dev True if the lower player (`hi`) of match `m` has white: `keccak256(abi.encode(seed,
    /// COLOUR_DOMAIN + m))` is odd. The offset keeps the colour hashes apart from the
    /// shuffle's `(seed, j)`, j < MAX_SIZE: with the same inputs, match j's colour would be
    /// the parity of shuffle step j's hash, which for odd j is its swap index's parity.
    function _whiteIsHi(uint256 seed, uint256 m) internal pure returns (bool) {
        return uint256(_hash2(seed, COLOUR_DOMAIN + m)) & 1 == 1;
    }

    /// @dev keccak256(abi.encode(a, b)) for two words.
    function _hash2(uint256 a, uint256 b) internal pure returns (bytes32 r) {
        assembly ("memory-safe") {
            mstore(0, a)
            mstore(32, b)
            r := keccak256(0, 64)
        }
    }

    function _status(uint256 word) internal pure returns (uint256) {
        return (word >> STATUS_SHIFT) & 0xf;
    }

    function _winnerIndex(uint256 rec) internal pure returns (uint256) {
        return rec & WINNER_IS_HI != 0 ? (rec >> HI_SHIFT) & MASK_8 : (rec >> LO_SHIFT) & MASK_8;
    }

    function _entrant(uint256 eventId, uint256 index) internal view returns (address) {
        return address(uint160(seats[eventId][index] >> 96));
    }

    /// @dev Replaces match `m`'s record, keeping entrant m's address in the same word.
    function _write(uint256 eventId, uint256 m, uint256 rec) internal {
        uint256 word = seats[eventId][m];
        seats[eventId][m] = (word & ~RECORD_MASK) | (rec & RECORD_MASK);
    }

    function _credit(uint256 eventId, Event storage ev, address account, uint256 amount) internal {
        // forge-lint: disable-next-line(unsafe-typecast) at most the pool, fee (< 2^96) times 64
        ev.paid += uint128(amount);
        address token = ev.token;
        uint256 slot = creditSlots[account][token];
        creditSlots[account][token] = (slot == 0 ? 1 : slot) + amount;
        emit PrizeCredited(eventId, account, amount);
    }

    /// @dev Takes the fee from the caller: exact ETH, or an exact token balance increase.
    function _collect(address token, uint256 fee) internal {
        if (token == address(0)) {
            if (msg.value != fee) revert WrongEthAmount(fee, msg.value);
            return;
        }
        if (msg.value != 0) revert WrongEthAmount(0, msg.value);
        if (fee == 0) return;
        uint256 before = IERC20(token).balanceOf(address(this));
        token.safeTransferFrom(msg.sender, address(this), fee);
        uint256 received = IERC20(token).balanceOf(address(this));
        received = received > before ? received - before : 0;
        if (received != fee) revert TokenShortPaid(fee, received);
    }

    /// @dev Sends the caller's whole credit in `token` to `to`; the credit is zeroed (set to
    /// the 1 sentinel) before the transfer.
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
}
