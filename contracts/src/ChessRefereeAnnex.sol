// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules, BadStateLength} from "./ChessRules.sol";
import {ClockWord} from "./ClockWord.sol";
import {RepetitionChain} from "./RepetitionChain.sol";
import {Commitment} from "./Commitment.sol";
import {GameTerms} from "./GameTerms.sol";
import {ChessRefereeCore} from "./ChessRefereeCore.sol";

/// @title ChessRefereeAnnex
/// @notice The rarely called half of `ChessReferee`: cancelling an open game, draw offers and
/// claims, timeouts, `finishRegistered`, `withdrawTo`, and the views. Deployed once, apart;
/// the referee's fallback runs this code by DELEGATECALL, in the referee's storage, with the
/// caller's `msg.sender`, so to callers these are the referee's own functions
/// (`IChessReferee`). Moved here so that the referee keeps room under EIP-170's 24,576 bytes
/// (it had 10 bytes left); none of these runs per move, so no move costs more.
/// @dev Called directly (not through a referee) every function works on this contract's own
/// storage, which holds no game and no credit: nothing can be created here, so every state
/// change reverts (no open game, no running game, nothing to withdraw).
contract ChessRefereeAnnex is ChessRefereeCore {
    // ------------------------------------------------------------------ lifecycle

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

    /// @notice Creates and starts a game between two named players for this referee's
    /// `tournament`, the only caller allowed (`NotTournament`): stake 0, the standard start,
    /// running at once (`GameCreated` with terms 0, then `GameJoined`). Its clock word has the
    /// custom-start rule (ClockWord bit 170): no first-move abort, each side's first move is
    /// charged from the start plus `firstMoveWindow`, so a player who never moves loses on
    /// time and the result names who failed. A channel game (`responseWindow` non-zero) starts
    /// off-chain as after `joinGame` (no commitment, clock 0) with the same rule on-chain
    /// (`registerStart`, `claimTimeout`).
    /// @param white White; not `black`, not address(0).
    /// @param black Black.
    /// @param initialTime As for `createGame`.
    /// @param increment As for `createGame`.
    /// @param firstMoveWindow As for `createGame` (0 = the default): here the time each first
    /// move has before its clock runs.
    /// @param responseWindow 0 for a per-move game, else a channel game's response window
    /// (MIN_RESPONSE_WINDOW..MAX_RESPONSE_WINDOW).
    /// @return gameId The new game's id.
    function hostGame(
        address white,
        address black,
        uint32 initialTime,
        uint32 increment,
        uint32 firstMoveWindow,
        uint32 responseWindow
    ) external nonReentrant returns (uint256 gameId) {
        if (msg.sender != hostTournament) revert NotTournament();
        if (white == black || white == address(0) || black == address(0)) revert CannotPlaySelf();
        GameTerms.checkTimeControl(initialTime, increment);
        uint256 window = GameTerms.firstMoveWindow(firstMoveWindow);
        if (responseWindow != 0) GameTerms.checkResponseWindow(responseWindow);

        gameId = nextGameId++;
        Game storage g = games[gameId];
        g.white = white;
        g.black = black;
        // forge-lint: disable-next-line(unsafe-typecast) at most MAX_INITIAL_TIME (< 2^24), checked above
        g.initialTime = uint24(initialTime);
        // forge-lint: disable-next-line(unsafe-typecast) at most MAX_INCREMENT (< 2^24), checked above
        g.increment = uint24(increment);
        // forge-lint: disable-next-line(unsafe-typecast) at most MAX_FIRST_MOVE_WINDOW (< 2^24)
        g.firstMoveWindow = uint24(window);
        // forge-lint: disable-next-line(unsafe-typecast) at most MAX_RESPONSE_WINDOW (< 2^24), checked above
        g.responseWindow = uint24(responseWindow);
        g.phase = PHASE_RUNNING;
        g.creatorWhite = true;
        // The no-abort rule, also for the court's registrations of a channel game; the start
        // stays the standard one (`startInner` 0: `channelStart` is INITIAL_INNER).
        g.customStart = true;
        uint256 clock;
        if (responseWindow == 0) {
            clock = ClockWord.start(block.timestamp, initialTime + GRACE_PERIOD, increment, window, true);
            g.commitment = Commitment.seal(INITIAL_INNER, clock);
        }
        _emitHosted(gameId, g);
        emit GameJoined(gameId, white, black, clock);
    }

    /// @dev `GameCreated` of a hosted game (terms 0: nobody joins it), from its just written
    /// (warm) storage: `hostGame`'s stack is full.
    function _emitHosted(uint256 gameId, Game storage g) private {
        emit GameCreated(
            gameId,
            g.white,
            g.black,
            true,
            address(0),
            0,
            g.initialTime,
            g.increment,
            g.firstMoveWindow,
            0,
            ChessRules.initialState(),
            INITIAL_HISTORY,
            g.responseWindow
        );
    }

    // ------------------------------------------------------------------ play

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

    // ------------------------------------------------------------------ payouts

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

    /// @notice The `ChessTournament` this referee deployed: the only caller of `hostGame`.
    function tournament() external view returns (address) {
        return hostTournament;
    }

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

    /// @notice A game's phase and result alone (what `getGame` says of them, from one storage
    /// word): for contracts that act on results, such as the tournament.
    /// @param gameId The game.
    /// @return phase 0 none, 1 open, 2 running, 3 ended, 4 cancelled.
    /// @return result 0 until it ends; then 1 white wins, 2 black wins, 3 draw, 4 aborted.
    function resultOf(uint256 gameId) external view returns (uint8 phase, uint8 result) {
        Game storage g = games[gameId];
        return (g.phase, g.result);
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
}
