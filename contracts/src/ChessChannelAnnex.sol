// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules} from "./ChessRules.sol";
import {ClockWord} from "./ClockWord.sol";
import {ChannelGame, IChessCourt} from "./ChessCourt.sol";
import {ChannelHash, Move, Delegation, Resignation, Result, DrawOffer, Receipt, Auth} from "./ChannelHash.sol";
import {SignatureCheck} from "./SignatureCheck.sol";
import {Outcome} from "./Outcome.sol";
import {ChessChannelCore} from "./ChessChannelCore.sol";
import {IChessChannel} from "./IChessChannel.sol";
import {IChessReferee} from "./IChessReferee.sol";

/// @title ChessChannelAnnex
/// @notice The rarely called half of `ChessChannel`: the keys (`pin`, `revokeSessionKey`,
/// `retire`), `registerStart`, `announce`, the proofs of cheating and the views. Deployed
/// once, apart; the channel's fallback runs this code by DELEGATECALL, in the channel's
/// storage, with the caller's `msg.sender`, so to callers these are the channel's own
/// functions (`IChessChannel`). Moved here so that the channel keeps room under EIP-170's
/// 24,576 bytes; `settle`, `resignBySignature` and `register` stay in the channel, so no
/// game's end or registration costs more.
/// @dev Called directly (not through a channel) every function that reads a game reverts:
/// this contract's address has no `referee`. The hash views answer, but `digestOf` and
/// `domainSeparator` then name this contract, not a channel.
contract ChessChannelAnnex is ChessChannelCore {
    // ------------------------------------------------------------------ keys

    /// @notice Pins a contract wallet's approval of a digest (section 5): asks
    /// `signer.isValidSignature(digest, signature)` once and, on the ERC-1271 magic value,
    /// records it for good; `BadSignature(signer)` otherwise. Anyone may call. Only pinned
    /// digests count for a signer that does not sign by ECDSA.
    /// @param signer The contract wallet.
    /// @param digest The EIP-712 digest it approves (typically of a `Delegation`).
    /// @param signature What the wallet takes as its signature.
    function pin(address signer, bytes32 digest, bytes calldata signature) external {
        if (!SignatureCheck.walletApproves(signer, digest, signature)) revert BadSignature(signer);
        _pinned[signer][digest] = true;
        emit SignaturePinned(signer, digest);
    }

    /// @notice Revokes the caller's session key in a game (section 5): from this block on its
    /// resignations and results no longer count; its moves and receipts, bounded by their
    /// signed times, still do. Callable by a player of the game, once per key.
    /// @param gameId The game.
    /// @param sessionKey The key to revoke.
    function revokeSessionKey(uint256 gameId, address sessionKey) external {
        ChannelGame memory g = _gameAsItIs(gameId);
        if (msg.sender != g.white && msg.sender != g.black) revert NotAPlayer();
        if (_revokedAt[gameId][msg.sender][sessionKey] != 0) return;
        _revokedAt[gameId][msg.sender][sessionKey] = block.timestamp;
        emit SessionKeyRevoked(gameId, msg.sender, sessionKey);
    }

    /// @notice Shows a player's delegation `later` of game `gameId` (section 5): from this
    /// block on, a resignation or result signed by one of the player's session keys whose
    /// delegation starts at a ply below `later.firstPly` no longer counts (`RetiredKey`);
    /// their moves and receipts, bounded by their signed plies and times, still do. A
    /// client that rotates keys sends it with the new delegation, so a rotated-out key
    /// cannot agree even if it was not revoked. Anyone may call: the player's signature is
    /// the authority. Checks the game (running, a channel game), the player's signature of
    /// `later` (`BadSignature(player)`; a contract wallet's must be pinned), then that
    /// `later` is of this game (`WrongGame`). Never lowers `agreementsFrom`: a delegation
    /// from a ply not above it changes nothing. `later`'s key, last ply and expiry are not
    /// checked.
    /// @param gameId The game.
    /// @param later The player's delegation.
    /// @param signature The player's signature of `later` (an `Auth.delegationSignature`).
    /// @param white True if `later` is white's, false if black's.
    function retire(uint256 gameId, Delegation calldata later, bytes calldata signature, bool white) external {
        ChannelGame memory g = _game(gameId);
        address player = white ? g.white : g.black;
        if (!_signedBy(player, _digest(ChannelHash.hashDelegation(later)), signature)) revert BadSignature(player);
        if (later.gameId != gameId) revert WrongGame();
        uint256 firstPly = later.firstPly;
        if (firstPly <= _agreementsFrom[gameId][player]) return;
        _agreementsFrom[gameId][player] = firstPly;
        emit SessionKeysRetired(gameId, player, firstPly);
    }

    /// @notice Starts on-chain play from the start move, while the game is off-chain: for a
    /// player whose opponent never made (or never answered) the first move. Players only,
    /// and the referee's `tournament` (for a game it hosts whose players never showed up:
    /// its `registerStart` checks the game and the delay). Frozen for the response window
    /// like any registration; then both budgets are the initial time plus the grace.
    /// @param start The game's start move (ply 0; `NotTheStart` otherwise).
    function registerStart(Move calldata start) external {
        uint256 gameId = start.gameId;
        ChannelGame memory g = _game(gameId);
        // Only a player: it needs no signature, so anyone else could force any channel game
        // on-chain and start its clock. The tournament may, as either player could: the
        // window lets a player who did play answer with a later signed position, and the
        // clocks start afresh after it. The players' path never pays for the lookup.
        if (msg.sender != g.white && msg.sender != g.black && msg.sender != _tournament()) revert NotAPlayer();
        if (g.windowEnd != 0) revert AlreadyOnChain(gameId);
        _checkStart(g, gameId, start);
        uint256 full = uint256(g.initialTime) + ClockWord.GRACE_PERIOD;
        uint256 clock = ClockWord.registered(
            block.timestamp + g.responseWindow, full, full, g.increment, 0, g.firstMoveWindow, g.customStart
        );
        clock = ClockWord.withReplyDeadline(
            clock, ClockWord.deadline(clock, start.state[ChessRules.CURRENT_PLAYER] == 0x01)
        );
        _court().registerPosition(gameId, start.state, start.history, clock);
    }

    /// @notice Shows a signed move on-chain while the game is off-chain, without freezing it
    /// (section 7.3): a later registration of it without a receipt counts as if made now (it
    /// must be fresh now), also as the direct reply to a later registration. For a mover whose
    /// opponent withholds its receipt, when the mover cannot register itself (a watchtower
    /// reading the relay, for a player gone offline). Anyone may call; the first announcement
    /// of a move counts; `AlreadyOnChain` once a position is registered (then the move is
    /// registered instead).
    /// @param m The signed move (emitted whole in `MoveAnnounced`, so its opponent can read it).
    /// @param auth Its authorisation on behalf of its author.
    function announce(Move calldata m, Auth calldata auth) external {
        uint256 gameId = m.gameId;
        ChannelGame memory g = _game(gameId);
        if (g.windowEnd != 0) revert AlreadyOnChain(gameId);
        (, bytes32 moveHash) = _authoriseMove(g, m, auth);
        _show(gameId, m, moveHash, 0);
    }

    /// @notice When the signed move `moveHash` (its hashStruct) was first announced while its
    /// game was off-chain (0: never): a registration of it without a receipt counts it as
    /// shown then, its stamp trusted to CLOCK_TOLERANCE before (section 7.3).
    /// @param moveHash The move's hashStruct.
    function announcedAt(bytes32 moveHash) external view returns (uint256) {
        return uint64(_shown[moveHash]);
    }

    /// @notice When the signed move `moveHash` was first shown by an overtake that named
    /// another position than the registered one (0: never): a registration of it without a
    /// receipt counts it as shown then, to the second (section 7.3).
    /// @param moveHash The move's hashStruct.
    function shownWhileFrozenAt(bytes32 moveHash) external view returns (uint256) {
        return _shown[moveHash] >> 64;
    }

    // ------------------------------------------------------------------ proofs

    /// @notice Proves that a player signed two different moves for one ply: its opponent
    /// wins (reason 12). `NotEquivocation` unless both are of this game and ply, have the
    /// same author and differ. Anyone may call, while the game runs.
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
        _court().endChannelGame(gameId, Outcome.winOfOpponent(authorWhite), Outcome.REASON_EQUIVOCATION);
    }

    /// @notice Proves that a player signed a move that is not a valid successor of the
    /// position it names (`bad.previous == hashStruct(previous)`): its opponent wins
    /// (reason 13). `previous` needs no signature (the author committed to it) but must be
    /// the start move when its ply is 0. `WrongGame` for moves of two games, `NotIllegal`
    /// for a valid successor. Anyone may call, while the game runs.
    /// @param previous The move `bad` names as its predecessor.
    /// @param bad The signed move.
    /// @param badAuth Its authorisation.
    function proveIllegalMove(Move calldata previous, Move calldata bad, Auth calldata badAuth) external {
        uint256 gameId = bad.gameId;
        ChannelGame memory g = _game(gameId);
        (bool authorWhite,) = _authoriseMove(g, bad, badAuth);
        bytes32 previousHash = ChannelHash.hashMove(previous);
        if (bad.previous != previousHash) revert NotIllegal();
        if (previous.ply == 0) _checkStart(g, gameId, previous);
        (uint256 code,,,) = _transition(gameId, g.increment, previous, previousHash, bad);
        if (code == WRONG_GAME) revert WrongGame();
        if (code == 0) revert NotIllegal();
        _court().endChannelGame(gameId, Outcome.winOfOpponent(authorWhite), Outcome.REASON_ILLEGAL_SIGNED_MOVE);
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

    /// @notice `hashStruct` of a draw offer.
    /// @param o The offer.
    function hashDrawOffer(DrawOffer calldata o) external pure returns (bytes32) {
        return ChannelHash.hashDrawOffer(o);
    }

    /// @notice `hashStruct` of a receipt.
    /// @param r The receipt.
    function hashReceipt(Receipt calldata r) external pure returns (bytes32) {
        return ChannelHash.hashReceipt(r);
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
        (code, ruleCode,,) = _transition(gameId, increment, q, ChannelHash.hashMove(q), m);
    }

    /// @notice The EIP-712 domain separator (name "chessref", version "2", this chain,
    /// this contract).
    function domainSeparator() external view returns (bytes32) {
        return _domainSeparator();
    }

    /// @notice Whether contract wallet `signer` approved `digest` (ERC-1271, asked once by
    /// `pin`); a pinned digest counts for good.
    /// @param signer The contract wallet.
    /// @param digest The EIP-712 digest.
    function pinned(address signer, bytes32 digest) external view returns (bool) {
        return _pinned[signer][digest];
    }

    /// @notice When `player` revoked `sessionKey` in `gameId` (0: never): from then on the
    /// key's resignations and results no longer count.
    /// @param gameId The game.
    /// @param player The player.
    /// @param sessionKey The key.
    function revokedAt(uint256 gameId, address player, address sessionKey) external view returns (uint256) {
        return _revokedAt[gameId][player][sessionKey];
    }

    /// @notice The highest `firstPly` of `player`'s delegations in `gameId` shown by `retire`
    /// (0: none): a resignation or result signed by a session key delegated from an earlier
    /// ply no longer counts (section 5).
    /// @param gameId The game.
    /// @param player The player.
    function agreementsFrom(uint256 gameId, address player) external view returns (uint256) {
        return _agreementsFrom[gameId][player];
    }

    /// @dev The channel's referee, asked of the channel this code runs in (its immutable).
    /// @dev The referee's tournament (`IChessReferee.tournament`, run by its annex).
    function _tournament() private view returns (address) {
        return IChessReferee(address(_court())).tournament();
    }

    function _court() internal view override returns (IChessCourt) {
        return IChessChannel(address(this)).referee();
    }

    /// @dev Computed, not cached: this code's immutables would be the annex's, not the channel's.
    function _domainSeparator() internal view override returns (bytes32) {
        return ChannelHash.domainSeparator(block.chainid, address(this));
    }
}
