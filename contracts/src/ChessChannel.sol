// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {AnnexCall} from "./AnnexCall.sol";
import {ChannelGame, FrozenPosition, IChessCourt} from "./ChessCourt.sol";
import {ChannelHash, Move, Resignation, Result, Receipt, Auth} from "./ChannelHash.sol";
import {Outcome} from "./Outcome.sol";
import {Commitment} from "./Commitment.sol";
import {ChessChannelCore} from "./ChessChannelCore.sol";

/// @title ChessChannel
/// @notice The court of off-chain play, protocol v2 (docs/CHANNEL.md): settles a channel
/// game of its referee from signed agreements in one transaction, registers the latest
/// signed pair (frozen for the game's response window, in which anyone holding a later
/// pair may overtake it) so the game continues on-chain, and ends the game when a player is
/// proven to have cheated. Holds no funds and no game data (the referee keeps both); keeps
/// only pinned contract-wallet approvals and revoked and retired session keys.
/// @dev Every call but the first registration (and `registerStart`) may be sent by anyone:
/// a relayer, a wallet, a watchtower. Each call checks the game (running, a channel game),
/// then who may call, then the signatures, then its own conditions; `settle` and
/// `resignBySignature` check the lapse of the agreement before its signatures.
///
/// This contract's own code holds what a game's end or a dispute runs through (`settle`,
/// `resignBySignature`, `register`); the rarely called paths (keys: `pin`,
/// `revokeSessionKey`, `retire`; `registerStart`, `announce`, the proofs) and the views run
/// from `ChessChannelAnnex`, deployed apart and fixed at construction, by DELEGATECALL from
/// this contract's fallback, in this contract's storage (`ChessChannelCore` declares it once
/// for both). Callers see one contract: `IChessChannel` is its whole interface.
contract ChessChannel is ChessChannelCore {
    /// @notice The referee whose channel games this contract judges (its deployer).
    IChessCourt public immutable referee;
    /// @notice The `ChessChannelAnnex` whose code runs, in this contract's storage, every
    /// call this contract does not define itself (see the fallback).
    address public immutable annex;
    uint256 private immutable CACHED_CHAIN_ID;
    bytes32 private immutable CACHED_SEPARATOR;

    /// @param annexCode A deployed `ChessChannelAnnex` (the referee checks it holds code).
    constructor(address annexCode) {
        referee = IChessCourt(msg.sender);
        annex = annexCode;
        CACHED_CHAIN_ID = block.chainid;
        CACHED_SEPARATOR = ChannelHash.domainSeparator(block.chainid, address(this));
    }

    /// @notice Every function of `IChessChannel` this contract does not define runs from the
    /// annex, in this contract's storage and with the caller's `msg.sender`: its answer or
    /// its revert is returned as it is. Not payable: no annex function takes ETH.
    fallback() external {
        AnnexCall.forward(annex);
    }

    // ------------------------------------------------------------------ cooperative ends

    /// @notice Ends a channel game with a result both players signed (reason 8, agreement),
    /// while it is off-chain, or while a registration is frozen if the result is not below
    /// its ply (`LapsedAgreement`); `AgreementsClosed` once on-chain play is live.
    /// @param result The signed result: its game, ply, position and result (1 white wins,
    /// 2 black wins, 3 draw; else `BadResult`).
    /// @param white White's authorisation of the result.
    /// @param black Black's authorisation of the result.
    function settle(Result calldata result, Auth calldata white, Auth calldata black) external {
        uint256 gameId = result.gameId;
        ChannelGame memory g = _game(gameId);
        _checkAgreement(g, gameId, result.ply);
        bytes32 d = _digest(ChannelHash.hashResult(result));
        _authorise(g.white, d, gameId, result.ply, block.timestamp, true, white);
        _authorise(g.black, d, gameId, result.ply, block.timestamp, true, black);
        uint8 r = result.result;
        if (r == 0 || r > Outcome.DRAW) revert BadResult(r);
        referee.endChannelGame(gameId, r, Outcome.REASON_AGREEMENT);
    }

    /// @notice Ends a channel game by a resignation signed on behalf of the player who
    /// resigns; the opponent wins (reason 5). The same lapse rules as `settle`.
    /// @param resignation The signed resignation.
    /// @param auth The resigning player's authorisation.
    /// @param white True if white resigns, false if black does.
    function resignBySignature(Resignation calldata resignation, Auth calldata auth, bool white) external {
        uint256 gameId = resignation.gameId;
        ChannelGame memory g = _game(gameId);
        _checkAgreement(g, gameId, resignation.ply);
        _authorise(
            white ? g.white : g.black,
            _digest(ChannelHash.hashResignation(resignation)),
            gameId,
            resignation.ply,
            block.timestamp,
            true,
            auth
        );
        referee.endChannelGame(gameId, Outcome.winOfOpponent(white), Outcome.REASON_RESIGNATION);
    }

    // ------------------------------------------------------------------ dispute

    /// @notice Registers the latest signed pair (section 7.3): `last`, a valid successor of
    /// `previous`, signed on behalf of its author. The position after `last` is frozen for
    /// the game's response window (then played on-chain; a decided one is then finished by
    /// `ChessReferee.finishRegistered`). Off-chain only a player may call; while a
    /// registration is frozen anyone may, with a higher ply (`StaleRegistration`); once
    /// on-chain play is live, `RegistrationClosed`.
    /// @param previous The move before `last` (the unsigned start move when `last.ply == 1`).
    /// @param previousAuth Its authorisation on behalf of its author (ignored for the start
    /// move, and with a receipt: the receipt's signer, `previous`'s author, vouches for it).
    /// @param last The latest signed move.
    /// @param lastAuth Its authorisation on behalf of its author.
    /// @param receipt The side to move's receipt of `last` (its clock runs from `seenAt`),
    /// or `position == 0` for none (section 7.3 step 5 says from when its clock runs then).
    /// @param receiptAuth The receipt's authorisation on behalf of the side to move.
    /// @param frozen While a registration is frozen, that registered position (its `inner` and
    /// clock word, from its `PositionRegistered`): the overtake is charged by the wall clock
    /// from it. If it is not the registered position (a registration sent before another
    /// landed), nothing is registered: the call records when the chain first showed `last`
    /// (`MoveAnnounced`), from which a registration of it with the right position counts.
    /// Ignored while the game is off-chain.
    function register(
        Move calldata previous,
        Auth calldata previousAuth,
        Move calldata last,
        Auth calldata lastAuth,
        Receipt calldata receipt,
        Auth calldata receiptAuth,
        FrozenPosition calldata frozen
    ) external {
        uint256 gameId;
        // read by hand (see `_heads`)
        assembly ("memory-safe") {
            gameId := calldataload(last)
        }
        ChannelGame memory g = _game(gameId);
        _checkRegistrant(g, gameId, _checkedPly(last));
        (bool authorWhite, bytes32 lastHash, uint256 st) =
            _signedSuccessor(g, previous, previousAuth, last, lastAuth, receipt.position != 0);
        if (g.windowEnd != 0 && Commitment.seal(frozen.inner, frozen.clock) != referee.commitmentOf(gameId)) {
            _show(gameId, last, lastHash, 64);
            return;
        }
        uint256 times = _clockStart(g, previous, last, lastHash, authorWhite, receipt, receiptAuth, frozen);
        _freeze(g, last, authorWhite, times, g.windowEnd != 0 ? frozen.clock : 0, st);
    }

    /// @notice The EIP-712 domain separator (name "chessref", version "2", this chain,
    /// this contract).
    function domainSeparator() external view returns (bytes32) {
        return _domainSeparator();
    }

    function _domainSeparator() internal view override returns (bytes32) {
        return
            block.chainid == CACHED_CHAIN_ID
                ? CACHED_SEPARATOR
                : ChannelHash.domainSeparator(block.chainid, address(this));
    }

    function _court() internal view override returns (IChessCourt) {
        return referee;
    }
}
