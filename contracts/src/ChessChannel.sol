// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules, BadStateLength} from "./ChessRules.sol";
import {ClockWord} from "./ClockWord.sol";
import {ChannelGame, IChessCourt} from "./ChessCourt.sol";
import {ChannelHash, Move, Delegation, Resignation, Result, Auth} from "./ChannelHash.sol";
import {SignatureCheck} from "./SignatureCheck.sol";
import {RepetitionChain} from "./RepetitionChain.sol";
import {Outcome} from "./Outcome.sol";
import {Commitment} from "./Commitment.sol";

/// @title ChessChannel
/// @notice The court of off-chain play (docs/CHANNEL.md): settles a channel game of its
/// referee from signed messages in one transaction, registers the latest signed position
/// so the game continues on-chain, and ends the game when a player is proven to have
/// cheated. Holds no funds and no game data: the referee, which deployed it, keeps both.
/// @dev Anyone may send every call but `claimDraw` (a relayer, a wallet). Each call checks
/// the game (running, a channel game), then the signatures, then its own conditions.
contract ChessChannel {
    // Transition codes (section 6).
    uint256 internal constant WRONG_GAME = 1;
    uint256 internal constant WRONG_PLY = 2;
    uint256 internal constant WRONG_PREVIOUS = 3;
    uint256 internal constant BAD_TIME = 4;
    uint256 internal constant GAME_OVER = 5;
    uint256 internal constant ILLEGAL_MOVE = 6;
    uint256 internal constant WRONG_STATE = 7;
    uint256 internal constant WRONG_HISTORY = 8;

    uint8 internal constant PHASE_RUNNING = 2;

    /// @notice The referee whose channel games this contract judges (its deployer).
    IChessCourt public immutable referee;
    uint256 private immutable CACHED_CHAIN_ID;
    bytes32 private immutable CACHED_SEPARATOR;

    /// @notice The game is not running (unknown, open, ended or cancelled).
    error GameNotRunning(uint256 gameId);
    /// @notice The game was not created by `createChannelGame`.
    error NotAChannelGame(uint256 gameId);
    /// @notice A message is not signed on behalf of `player` (section 5).
    error BadSignature(address player);
    /// @notice A result other than 1, 2 or 3.
    error BadResult(uint8 result);
    /// @notice `last` is not a valid successor of `previous`: section 6 `code`, and the
    /// section 6 move code of ENCODING.md for code 6 (0 for a broken predecessor).
    error InvalidTransition(uint8 code, uint8 ruleCode);
    /// @notice A ply-0 move that is not the game's start move.
    error NotTheStart();
    /// @notice The registration does not replace the on-chain position at `currentPly`.
    error StaleRegistration(uint256 currentPly);
    /// @notice On-chain play is live (the last registration's response window is over):
    /// the game goes on with the referee's `move`, not with registrations.
    error RegistrationClosed(uint256 gameId);
    /// @notice `currentInner` and `currentClock` are not the game's on-chain position.
    error StalePosition();
    /// @notice `registerStart` on a game already continued on-chain.
    error AlreadyOnChain(uint256 gameId);
    /// @notice The caller is not one of the two players.
    error NotAPlayer();
    /// @notice The two moves are not an equivocation (section 7.5).
    error NotEquivocation();
    /// @notice The signed move is a valid successor of the position it names.
    error NotIllegal();
    /// @notice The move and the position it names belong to different games.
    error WrongGame();

    constructor() {
        referee = IChessCourt(msg.sender);
        CACHED_CHAIN_ID = block.chainid;
        CACHED_SEPARATOR = ChannelHash.domainSeparator(block.chainid, address(this));
    }

    // ------------------------------------------------------------------ cooperative ends

    /// @notice Ends a channel game with a result both players signed (reason 8, agreement),
    /// off-chain or on-chain alike.
    /// @param result The signed result: its game, ply (places it in delegation ranges) and
    /// result (1 white wins, 2 black wins, 3 draw; else `BadResult`).
    /// @param white White's authorisation of the result.
    /// @param black Black's authorisation of the result.
    function settle(Result calldata result, Auth calldata white, Auth calldata black) external {
        uint256 gameId = result.gameId;
        ChannelGame memory g = _game(gameId);
        bytes32 d = _digest(ChannelHash.hashResult(result));
        _authorise(g.white, d, gameId, result.ply, white);
        _authorise(g.black, d, gameId, result.ply, black);
        uint8 r = result.result;
        if (r == 0 || r > Outcome.DRAW) revert BadResult(r);
        referee.endChannelGame(gameId, r, Outcome.REASON_AGREEMENT);
    }

    /// @notice Ends a channel game by a resignation signed on behalf of the player who
    /// resigns; the opponent wins (reason 5).
    /// @param resignation The signed resignation.
    /// @param auth The resigning player's authorisation.
    /// @param white True if white resigns, false if black does.
    function resignBySignature(Resignation calldata resignation, Auth calldata auth, bool white) external {
        uint256 gameId = resignation.gameId;
        ChannelGame memory g = _game(gameId);
        _authorise(
            white ? g.white : g.black, _digest(ChannelHash.hashResignation(resignation)), gameId, resignation.ply, auth
        );
        referee.endChannelGame(gameId, Outcome.winOfOpponent(white), Outcome.REASON_RESIGNATION);
    }

    // ------------------------------------------------------------------ dispute

    /// @notice Registers the latest signed pair (section 7.3): `last`, a valid successor of
    /// `previous`, each signed on behalf of its author (`previous` is the unsigned start
    /// move when `last.ply == 1`). A decided `last` ends the game by its status; otherwise
    /// the game continues on-chain from `last` with the clock of section 7.3, replacing the
    /// on-chain position only if `last` has a higher ply, or the same ply and another
    /// position (`StaleRegistration` otherwise).
    /// @param previous The move before `last` (its author is `last`'s opponent).
    /// @param previousAuth Its authorisation (ignored when it is the start move).
    /// @param last The latest signed move.
    /// @param lastAuth Its authorisation.
    /// @param currentInner keccak256(state ‖ history) of the on-chain position (ignored
    /// while the game is off-chain).
    /// @param currentClock Its clock word (from the latest `PositionRegistered`,
    /// `MovePlayed` or `DrawOffered`; ignored while off-chain).
    function register(
        Move calldata previous,
        Auth calldata previousAuth,
        Move calldata last,
        Auth calldata lastAuth,
        bytes32 currentInner,
        uint256 currentClock
    ) external {
        uint256 gameId = last.gameId;
        ChannelGame memory g = _game(gameId);
        // Only a player: a spectator holding one signed pair must not force the game on-chain.
        if (msg.sender != g.white && msg.sender != g.black) revert NotAPlayer();
        bytes memory s = _signedSuccessor(g, previous, previousAuth, last, lastAuth);
        if (g.commitment != 0) {
            if (Commitment.seal(currentInner, currentClock) != g.commitment) revert StalePosition();
            // Only while the registered position is frozen: once on-chain play is live, the
            // chain's clock is the only clock (a registration must not refund a player's time).
            // forge-lint: disable-next-line(block-timestamp) the window is defined on block time
            if (block.timestamp >= ClockWord.lastTimestamp(currentClock)) revert RegistrationClosed(gameId);
            uint256 currentPly = ClockWord.ply(currentClock);
            if (last.ply <= currentPly) revert StaleRegistration(currentPly);
        }
        if (_endIfDecided(gameId, s)) return;
        // The position is frozen for the response window (only a later registration may
        // replace it); then the side to move's clock runs from its signed time.
        uint256 grace = ClockWord.GRACE_PERIOD;
        uint256 clock = ClockWord.registered(
            block.timestamp + g.responseWindow,
            last.whiteTime + grace,
            last.blackTime + grace,
            g.increment,
            last.ply,
            g.firstMoveWindow,
            g.customStart
        );
        referee.registerPosition(gameId, last.state, last.history, clock);
    }

    /// @notice Starts on-chain play from the start move, while the game is off-chain: for a
    /// player whose opponent never made (or never answered) the first move. Players only. Both budgets
    /// are the initial time plus the grace, the side to move's plus the response window.
    /// @param start The game's start move (ply 0; `NotTheStart` otherwise).
    function registerStart(Move calldata start) external {
        uint256 gameId = start.gameId;
        ChannelGame memory g = _game(gameId);
        // Only a player: it needs no signature, so anyone else could force any channel game
        // on-chain and start its clock.
        if (msg.sender != g.white && msg.sender != g.black) revert NotAPlayer();
        if (g.commitment != 0) revert AlreadyOnChain(gameId);
        _checkStart(g, start);
        uint256 full = uint256(g.initialTime) + ClockWord.GRACE_PERIOD;
        uint256 clock = ClockWord.registered(
            block.timestamp + g.responseWindow, full, full, g.increment, 0, g.firstMoveWindow, g.customStart
        );
        referee.registerPosition(gameId, start.state, start.history, clock);
    }

    // ------------------------------------------------------------------ proofs

    /// @notice Proves that a player signed two different moves for one ply: its opponent
    /// wins (reason 12). `NotEquivocation` unless both are of this game and ply, have the
    /// same author and differ.
    /// @param a One signed move.
    /// @param aAuth Its authorisation.
    /// @param b Another signed move of the same ply and author.
    /// @param bAuth Its authorisation.
    function proveEquivocation(Move calldata a, Auth calldata aAuth, Move calldata b, Auth calldata bAuth) external {
        uint256 gameId = a.gameId;
        ChannelGame memory g = _game(gameId);
        (bool authorWhite, bytes32 aHash) = _authoriseMove(g, a, aAuth);
        (bool bAuthorWhite, bytes32 bHash) = _authoriseMove(g, b, bAuth);
        if (b.gameId != gameId || b.ply != a.ply || bAuthorWhite != authorWhite || aHash == bHash) {
            revert NotEquivocation();
        }
        referee.endChannelGame(gameId, Outcome.winOfOpponent(authorWhite), Outcome.REASON_EQUIVOCATION);
    }

    /// @notice Proves that a player signed a move that is not a valid successor of the
    /// position it names (`bad.previous == hashStruct(previous)`): its opponent wins
    /// (reason 13). `previous` needs no signature (the author committed to it) but must be
    /// the start move when its ply is 0. `WrongGame` for moves of two games, `NotIllegal`
    /// for a valid successor.
    /// @param previous The move `bad` names as its predecessor.
    /// @param bad The signed move.
    /// @param badAuth Its authorisation.
    function proveIllegalMove(Move calldata previous, Move calldata bad, Auth calldata badAuth) external {
        uint256 gameId = bad.gameId;
        ChannelGame memory g = _game(gameId);
        (bool authorWhite,) = _authoriseMove(g, bad, badAuth);
        bytes32 previousHash = ChannelHash.hashMove(previous);
        if (bad.previous != previousHash) revert NotIllegal();
        if (previous.ply == 0) _checkStart(g, previous);
        (uint256 code,,) = _transition(gameId, g.increment, previous, previousHash, bad);
        if (code == WRONG_GAME) revert WrongGame();
        if (code == 0) revert NotIllegal();
        referee.endChannelGame(gameId, Outcome.winOfOpponent(authorWhite), Outcome.REASON_ILLEGAL_SIGNED_MOVE);
    }

    // ------------------------------------------------------------------ views

    /// @notice The EIP-712 domain separator (name "chessref", version "1", this chain,
    /// this contract).
    function domainSeparator() public view returns (bytes32) {
        return
            block.chainid == CACHED_CHAIN_ID
                ? CACHED_SEPARATOR
                : ChannelHash.domainSeparator(block.chainid, address(this));
    }

    /// @notice `hashStruct` of a move.
    /// @param m The move.
    function hashMove(Move calldata m) external pure returns (bytes32) {
        return ChannelHash.hashMove(m);
    }

    /// @notice `hashStruct` of a delegation.
    /// @param d The delegation.
    function hashDelegation(Delegation calldata d) external pure returns (bytes32) {
        return ChannelHash.hashDelegation(d);
    }

    /// @notice `hashStruct` of a resignation.
    /// @param r The resignation.
    function hashResignation(Resignation calldata r) external pure returns (bytes32) {
        return ChannelHash.hashResignation(r);
    }

    /// @notice `hashStruct` of a result.
    /// @param r The result.
    function hashResult(Result calldata r) external pure returns (bytes32) {
        return ChannelHash.hashResult(r);
    }

    /// @notice The digest a signer signs for a message with this `hashStruct`.
    /// @param structHash The message's `hashStruct`.
    function digestOf(bytes32 structHash) external view returns (bytes32) {
        return _digest(structHash);
    }

    /// @notice The section 6 transition code of `m` after `q` in game `gameId` with
    /// increment `increment` (0 = valid successor), and the move code for code 6.
    /// @param gameId The game the transition is judged in.
    /// @param increment The game's increment.
    /// @param q The predecessor.
    /// @param m The move.
    function transitionCode(uint256 gameId, uint256 increment, Move calldata q, Move calldata m)
        external
        pure
        returns (uint256 code, uint256 ruleCode)
    {
        (code, ruleCode,) = _transition(gameId, increment, q, ChannelHash.hashMove(q), m);
    }

    // ------------------------------------------------------------------ internals

    /// @dev The game, which must be a running channel game.
    function _game(uint256 gameId) private view returns (ChannelGame memory g) {
        g = referee.channelGame(gameId);
        if (g.phase != PHASE_RUNNING) revert GameNotRunning(gameId);
        if (g.responseWindow == 0) revert NotAChannelGame(gameId);
    }

    function _digest(bytes32 structHash) private view returns (bytes32) {
        return ChannelHash.digest(domainSeparator(), structHash);
    }

    /// @dev Reverts `BadSignature(player)` unless `auth` signs `d` (a message of `gameId` at
    /// `ply`) on behalf of `player` (section 5).
    function _authorise(address player, bytes32 d, uint256 gameId, uint256 ply, Auth calldata auth) private view {
        Delegation calldata del = auth.delegation;
        address key = del.sessionKey;
        bool ok;
        if (key == address(0)) {
            ok = SignatureCheck.isValid(player, d, auth.signature);
        } else {
            ok = del.gameId == gameId && del.firstPly <= ply && ply <= del.lastPly
                && SignatureCheck.recover(d, auth.signature) == key
                && SignatureCheck.isValid(player, _digest(ChannelHash.hashDelegation(del)), auth.delegationSignature);
        }
        if (!ok) revert BadSignature(player);
    }

    /// @dev Checks that `m` is signed on behalf of its author; returns whether that is white,
    /// and `m`'s hashStruct.
    function _authoriseMove(ChannelGame memory g, Move calldata m, Auth calldata auth)
        private
        view
        returns (bool authorWhite, bytes32 structHash)
    {
        if (m.state.length != 128) revert BadStateLength(m.state.length);
        authorWhite = m.state[ChessRules.CURRENT_PLAYER] != 0x01;
        structHash = ChannelHash.hashMove(m);
        _authorise(authorWhite ? g.white : g.black, _digest(structHash), m.gameId, m.ply, auth);
    }

    /// @dev Checks `(previous, last)` as `register` and `claimDraw` take it: both signed on
    /// behalf of their authors (`previous` the start move when `last.ply == 1`), `last` a
    /// valid successor. Returns the state after `last`.
    function _signedSuccessor(
        ChannelGame memory g,
        Move calldata previous,
        Auth calldata previousAuth,
        Move calldata last,
        Auth calldata lastAuth
    ) private view returns (bytes memory s) {
        _authoriseMove(g, last, lastAuth);
        bytes32 previousHash;
        if (last.ply == 1) {
            _checkStart(g, previous);
            previousHash = ChannelHash.hashMove(previous);
        } else {
            (, previousHash) = _authoriseMove(g, previous, previousAuth);
        }
        uint256 code;
        uint256 rule;
        (code, rule, s) = _transition(last.gameId, g.increment, previous, previousHash, last);
        // forge-lint: disable-next-line(unsafe-typecast) codes are 1..8, move codes 0..14
        if (code != 0) revert InvalidTransition(uint8(code), uint8(rule));
    }

    /// @dev Reverts `NotTheStart` unless `q` is the game's start move (section 4.1).
    function _checkStart(ChannelGame memory g, Move calldata q) private pure {
        if (q.state.length != 128) revert BadStateLength(q.state.length);
        if (
            q.ply != 0 || q.mv != 0 || q.previous != 0 || q.whiteTime != g.initialTime || q.blackTime != g.initialTime
                || Commitment.innerCalldata(q.state, q.history) != g.startInner
        ) revert NotTheStart();
    }

    /// @dev Ends the game if `s` is decided (status 1-4); returns whether it did.
    function _endIfDecided(uint256 gameId, bytes memory s) private returns (bool) {
        uint256 st = ChessRules.status(s);
        if (st == ChessRules.ONGOING) return false;
        (uint8 result, uint8 reason) = Outcome.ofStatus(ChessRules.whiteToMove(s), st);
        referee.endChannelGame(gameId, result, reason);
        return true;
    }

    /// @dev Section 6: the first failing transition code of `m` after `q` (whose hashStruct
    /// is `qHash`; 0 if `m` is a valid successor), the move code for code 6, and the state
    /// after the move.
    function _transition(uint256 gameId, uint256 increment, Move calldata q, bytes32 qHash, Move calldata m)
        private
        pure
        returns (uint256 code, uint256 rule, bytes memory s)
    {
        if (m.gameId != gameId || q.gameId != gameId) return (WRONG_GAME, 0, s);
        if (m.ply != uint256(q.ply) + 1) return (WRONG_PLY, 0, s);
        if (m.previous != qHash) return (WRONG_PREVIOUS, 0, s);
        if (m.state.length != 128) revert BadStateLength(m.state.length);
        if (m.state[ChessRules.CURRENT_PLAYER] == 0x01) {
            // black moved: its time may grow by the increment at most, white's stays
            if (m.blackTime > uint256(q.blackTime) + increment || m.whiteTime != q.whiteTime) return (BAD_TIME, 0, s);
        } else if (m.whiteTime > uint256(q.whiteTime) + increment || m.blackTime != q.blackTime) {
            return (BAD_TIME, 0, s);
        }
        s = q.state;
        if (ChessRules.validateState(s) != 0) return (ILLEGAL_MOVE, 0, s);
        if (ChessRules.status(s) != ChessRules.ONGOING) return (GAME_OVER, 0, s);
        rule = ChessRules.applyMove(s, m.mv);
        if (rule != 0) return (ILLEGAL_MOVE, rule, s);
        if (keccak256(s) != keccak256(m.state)) return (WRONG_STATE, 0, s);
        if (RepetitionChain.afterMove(s, q.history) != m.history) return (WRONG_HISTORY, 0, s);
    }
}
