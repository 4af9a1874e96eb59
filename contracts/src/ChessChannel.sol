// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules, BadStateLength} from "./ChessRules.sol";
import {ClockWord} from "./ClockWord.sol";
import {ChannelGame, FrozenPosition, IChessCourt} from "./ChessCourt.sol";
import {ChannelHash, Move, Delegation, Resignation, Result, DrawOffer, Receipt, Auth} from "./ChannelHash.sol";
import {SignatureCheck} from "./SignatureCheck.sol";
import {RepetitionChain} from "./RepetitionChain.sol";
import {Outcome} from "./Outcome.sol";
import {Commitment} from "./Commitment.sol";

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

    /// @notice Seconds a move nobody acknowledged may be older than the block that shows it
    /// (a registration's, or an earlier announcement's) and still start its opponent's clock
    /// (section 7.3): room for an honest client, whose stamps may lag, to get it included.
    uint256 public constant STAMP_TOLERANCE = 60;
    /// @notice The most seconds a signed time can move onto the other player's clock in a
    /// whole game (sections 8, 9): a receipt counts only within this of the move's stamp, and
    /// a move nobody acknowledged starts its opponent's clock at most this long before the
    /// block that shows it. Honest clients refuse a move stamped further behind their clock.
    uint256 public constant CLOCK_TOLERANCE = 30;

    /// @notice The referee whose channel games this contract judges (its deployer).
    IChessCourt public immutable referee;
    uint256 private immutable CACHED_CHAIN_ID;
    bytes32 private immutable CACHED_SEPARATOR;

    /// @notice Whether contract wallet `signer` approved `digest` (ERC-1271, asked once by
    /// `pin`); a pinned digest counts for good.
    mapping(address signer => mapping(bytes32 digest => bool)) public pinned;
    /// @dev When a signed move (by its `hashStruct`) was first shown on-chain: bits 0..63 by
    /// `announce`, while the game was off-chain (`announcedAt`); bits 64..127 by an overtake
    /// that named another position than the registered one (`shownWhileFrozenAt`). 0: never.
    mapping(bytes32 moveHash => uint256) private shown;
    /// @notice When `player` revoked `sessionKey` in `gameId` (0: never): from then on the
    /// key's resignations and results no longer count.
    mapping(uint256 gameId => mapping(address player => mapping(address sessionKey => uint256))) public revokedAt;
    /// @notice The highest `firstPly` of `player`'s delegations in `gameId` shown by `retire`
    /// (0: none): a resignation or result signed by a session key delegated from an earlier
    /// ply no longer counts (section 5).
    mapping(uint256 gameId => mapping(address player => uint256)) public agreementsFrom;

    /// @notice `signer` (a contract wallet) approved `digest` by ERC-1271; pinned for good.
    event SignaturePinned(address indexed signer, bytes32 indexed digest);
    /// @notice A signed move was shown on-chain (`announce`): its opponent's clock may be
    /// charged from this block on (section 7.3). `move` is the whole signed move, so the side
    /// to move can read it from the chain and answer.
    event MoveAnnounced(uint256 indexed gameId, uint32 ply, bytes32 indexed moveHash, Move move);
    /// @notice `player` revoked its session key `sessionKey` in `gameId`.
    event SessionKeyRevoked(uint256 indexed gameId, address indexed player, address indexed sessionKey);
    /// @notice `player`'s delegation from ply `firstPly` was shown (`retire`): its session
    /// keys delegated from an earlier ply sign no more resignations or results in `gameId`.
    event SessionKeysRetired(uint256 indexed gameId, address indexed player, uint256 firstPly);

    /// @notice The game is not running (unknown, open, ended or cancelled).
    error GameNotRunning(uint256 gameId);
    /// @notice The game was not created by `createChannelGame`.
    error NotAChannelGame(uint256 gameId);
    /// @notice A message is not signed on behalf of `player` (section 5).
    error BadSignature(address player);
    /// @notice A resignation or result signed by `sessionKey`, whose delegation's `firstPly`
    /// is below the player's `agreementsFrom`: a later delegation retired it (section 5).
    error RetiredKey(address sessionKey);
    /// @notice A result other than 1, 2 or 3.
    error BadResult(uint8 result);
    /// @notice `last` is not a valid successor of `previous`: section 6 `code`, and the
    /// section 6 move code of ENCODING.md for code 6 (0 for a broken predecessor).
    error InvalidTransition(uint8 code, uint8 ruleCode);
    /// @notice A ply-0 move that is not the game's start move.
    error NotTheStart();
    /// @notice The registration's ply is not above the frozen registration's `registeredPly`.
    error StaleRegistration(uint256 registeredPly);
    /// @notice On-chain play is live (the last registration's response window is over):
    /// the game goes on with the referee's `move`, not with registrations.
    error RegistrationClosed(uint256 gameId);
    /// @notice `registerStart` or `announce` on a game already continued on-chain.
    error AlreadyOnChain(uint256 gameId);
    /// @notice The caller is not one of the two players.
    error NotAPlayer();
    /// @notice The two moves are not an equivocation (section 7.6).
    error NotEquivocation();
    /// @notice The signed move is a valid successor of the position it names.
    error NotIllegal();
    /// @notice The move and the position it names belong to different games, or `retire`
    /// was shown a delegation of another game.
    error WrongGame();
    /// @notice The receipt is not of the registered move, or its time is out of range.
    error BadReceipt();
    /// @notice A registration without a receipt whose move was stamped at `timestamp`, more
    /// than STAMP_TOLERANCE before the block that shows it (section 7.3 step 5).
    error StaleMove(uint256 timestamp);
    /// @notice A direct reply to a frozen registration received or shown after its author's
    /// flag fell, at `deadline` (section 7.3 step 5): the registration stands.
    error FlagFell(uint256 deadline);
    /// @notice A direct reply's `previous` is not the registered position it answers.
    error NotTheRegisteredPosition();
    /// @notice An agreement below the frozen registration's ply `registeredPly`: lapsed.
    error LapsedAgreement(uint256 registeredPly);
    /// @notice On-chain play is live: agreements are made on the referee (`offerDraw`,
    /// `acceptDraw`, `resign`).
    error AgreementsClosed(uint256 gameId);

    constructor() {
        referee = IChessCourt(msg.sender);
        CACHED_CHAIN_ID = block.chainid;
        CACHED_SEPARATOR = ChannelHash.domainSeparator(block.chainid, address(this));
    }

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
        pinned[signer][digest] = true;
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
        if (revokedAt[gameId][msg.sender][sessionKey] != 0) return;
        revokedAt[gameId][msg.sender][sessionKey] = block.timestamp;
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
        if (firstPly <= agreementsFrom[gameId][player]) return;
        agreementsFrom[gameId][player] = firstPly;
        emit SessionKeysRetired(gameId, player, firstPly);
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

    /// @notice Starts on-chain play from the start move, while the game is off-chain: for a
    /// player whose opponent never made (or never answered) the first move. Players only.
    /// Frozen for the response window like any registration; then both budgets are the
    /// initial time plus the grace.
    /// @param start The game's start move (ply 0; `NotTheStart` otherwise).
    function registerStart(Move calldata start) external {
        uint256 gameId = start.gameId;
        ChannelGame memory g = _game(gameId);
        // Only a player: it needs no signature, so anyone else could force any channel game
        // on-chain and start its clock.
        if (msg.sender != g.white && msg.sender != g.black) revert NotAPlayer();
        if (g.windowEnd != 0) revert AlreadyOnChain(gameId);
        _checkStart(g, gameId, start);
        uint256 full = uint256(g.initialTime) + ClockWord.GRACE_PERIOD;
        uint256 clock = ClockWord.registered(
            block.timestamp + g.responseWindow, full, full, g.increment, 0, g.firstMoveWindow, g.customStart
        );
        clock = ClockWord.withReplyDeadline(
            clock, ClockWord.deadline(clock, start.state[ChessRules.CURRENT_PLAYER] == 0x01)
        );
        referee.registerPosition(gameId, start.state, start.history, clock);
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
        return uint64(shown[moveHash]);
    }

    /// @notice When the signed move `moveHash` was first shown by an overtake that named
    /// another position than the registered one (0: never): a registration of it without a
    /// receipt counts it as shown then, to the second (section 7.3).
    /// @param moveHash The move's hashStruct.
    function shownWhileFrozenAt(bytes32 moveHash) external view returns (uint256) {
        return shown[moveHash] >> 64;
    }

    /// @dev Records that the chain showed the signed move `m` (hashStruct `moveHash`) now, in
    /// the bits at `shift` (0 off-chain, 64 while frozen), unless it showed it there before.
    function _show(uint256 gameId, Move calldata m, bytes32 moveHash, uint256 shift) private {
        uint256 was = shown[moveHash];
        if ((was >> shift) & type(uint64).max != 0) return;
        shown[moveHash] = was | (block.timestamp << shift);
        emit MoveAnnounced(gameId, m.ply, moveHash, m);
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
        referee.endChannelGame(gameId, Outcome.winOfOpponent(authorWhite), Outcome.REASON_EQUIVOCATION);
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
        referee.endChannelGame(gameId, Outcome.winOfOpponent(authorWhite), Outcome.REASON_ILLEGAL_SIGNED_MOVE);
    }

    // ------------------------------------------------------------------ views

    /// @notice The EIP-712 domain separator (name "chessref", version "2", this chain,
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

    // ------------------------------------------------------------------ internals

    /// @dev The game, which must be a running channel game.
    function _game(uint256 gameId) private view returns (ChannelGame memory g) {
        g = _gameAsItIs(gameId);
        if (g.phase != PHASE_RUNNING) revert GameNotRunning(gameId);
        if (g.responseWindow == 0) revert NotAChannelGame(gameId);
    }

    /// @dev The referee's `channelGame(gameId)`, whatever the game's phase. Its return (a
    /// static struct: ten words, in `g`'s memory order) copied as it is: the high-level
    /// call's decoding and checks of each field cost about 2,500 gas and 770 bytes of code,
    /// and this referee is the channel's own deployer.
    function _gameAsItIs(uint256 gameId) private view returns (ChannelGame memory g) {
        address court = address(referee);
        bytes4 selector = IChessCourt.channelGame.selector;
        assembly ("memory-safe") {
            let p := mload(0x40)
            mstore(p, selector)
            mstore(add(p, 4), gameId)
            if iszero(staticcall(gas(), court, p, 0x24, g, 0x140)) {
                returndatacopy(p, 0, returndatasize())
                revert(p, returndatasize())
            }
        }
    }

    function _digest(bytes32 structHash) private view returns (bytes32) {
        return ChannelHash.digest(domainSeparator(), structHash);
    }

    /// @dev Sections 7.1, 7.2: an agreement at `ply` counts off-chain, and while a registration
    /// is frozen if not below its ply; never once on-chain play is live.
    function _checkAgreement(ChannelGame memory g, uint256 gameId, uint256 ply) private view {
        if (g.windowEnd == 0) return;
        // forge-lint: disable-next-line(block-timestamp) the window is defined on block time
        if (block.timestamp >= g.windowEnd) revert AgreementsClosed(gameId);
        if (ply < g.registeredPly) revert LapsedAgreement(g.registeredPly);
    }

    /// @dev Reverts `BadSignature(player)` unless `auth` signs `d` (a message of `gameId` at
    /// `ply`, of time `at`) on behalf of `player` (section 5). A session key needs `at`
    /// within its delegation's expiry, and, for an `agreement` (result, resignation), not to
    /// be revoked (`BadSignature`) nor retired by a later delegation (`RetiredKey`, checked
    /// once the signatures verify).
    function _authorise(
        address player,
        bytes32 d,
        uint256 gameId,
        uint256 ply,
        uint256 at,
        bool agreement,
        Auth calldata auth
    ) private view {
        Delegation calldata del = auth.delegation;
        address key;
        // read by hand, with the decoder's range check (see `_heads`)
        assembly ("memory-safe") {
            key := calldataload(add(del, 0x20))
            if shr(160, key) { revert(0, 0) }
        }
        bool ok;
        if (key == address(0)) {
            ok = _signedBy(player, d, auth.signature);
        } else {
            // the delegation's words read by hand, with the decoder's range checks (see `_heads`)
            uint256 dGame;
            uint256 firstPly;
            uint256 lastPly;
            uint256 expires;
            assembly ("memory-safe") {
                dGame := calldataload(del)
                firstPly := calldataload(add(del, 0x40))
                lastPly := calldataload(add(del, 0x60))
                expires := calldataload(add(del, 0x80))
                if or(or(shr(32, firstPly), shr(32, lastPly)), shr(64, expires)) { revert(0, 0) }
            }
            ok = dGame == gameId && firstPly <= ply && ply <= lastPly && at <= expires
                && SignatureCheck.recover(d, auth.signature) == key
                && (!agreement || revokedAt[gameId][player][key] == 0)
                && _signedBy(player, _digest(ChannelHash.hashDelegation(del)), auth.delegationSignature);
            // Revocation and retirement end only a key's agreements: its moves and receipts
            // are evidence, bounded by their signed plies and times.
            if (ok && agreement && firstPly < agreementsFrom[gameId][player]) revert RetiredKey(key);
        }
        if (!ok) revert BadSignature(player);
    }

    /// @dev Whether `player` signed `d`: strict ECDSA recovering to it, whatever its code (an
    /// EOA that later gets code cannot disown its key's signatures), or a pinned digest.
    function _signedBy(address player, bytes32 d, bytes calldata signature) private view returns (bool) {
        address recovered = SignatureCheck.recover(d, signature);
        if (recovered != address(0) && recovered == player) return true;
        return pinned[player][d];
    }

    /// @dev Checks that `m` is signed on behalf of its author (a session key within the
    /// move's own signed time); returns whether that is white, and `m`'s hashStruct.
    function _authoriseMove(ChannelGame memory g, Move calldata m, Auth calldata auth)
        private
        view
        returns (bool authorWhite, bytes32 structHash)
    {
        bytes calldata state = m.state;
        if (state.length != 128) revert BadStateLength(state.length);
        authorWhite = state[ChessRules.CURRENT_PLAYER] != 0x01;
        structHash = ChannelHash.hashMove(m, state);
        // gameId, ply, timestamp read by hand (see `_heads`): `hashMove` checked their ranges
        uint256 gameId;
        uint256 ply;
        uint256 at;
        assembly ("memory-safe") {
            gameId := calldataload(m)
            ply := calldataload(add(m, 0x20))
            at := calldataload(add(m, 0xe0))
        }
        _authorise(authorWhite ? g.white : g.black, _digest(structHash), gameId, ply, at, false, auth);
    }

    /// @dev Section 7.3 step 2: off-chain only a player may register (the first registration
    /// starts on-chain play and its clock); while a registration is frozen anyone may, with a
    /// higher ply; never once on-chain play is live.
    function _checkRegistrant(ChannelGame memory g, uint256 gameId, uint256 ply) private view {
        if (g.windowEnd == 0) {
            if (msg.sender != g.white && msg.sender != g.black) revert NotAPlayer();
            // forge-lint: disable-next-line(block-timestamp) the window is defined on block time
        } else if (block.timestamp >= g.windowEnd) {
            revert RegistrationClosed(gameId);
        } else if (ply <= g.registeredPly) {
            revert StaleRegistration(g.registeredPly);
        }
    }

    /// @dev Section 7.3 steps 3 and 4: `last` signed on behalf of its author, `previous` the
    /// start move (ply 1) or signed on behalf of its author (unless a receipt vouches for it),
    /// `last` a valid successor. Returns `last`'s author, its hashStruct and the state after it.
    function _signedSuccessor(
        ChannelGame memory g,
        Move calldata previous,
        Auth calldata previousAuth,
        Move calldata last,
        Auth calldata lastAuth,
        bool hasReceipt
    ) private view returns (bool authorWhite, bytes32 lastHash, uint256 st) {
        (authorWhite, lastHash) = _authoriseMove(g, last, lastAuth);
        // read by hand (see `_heads`): `_authoriseMove` hashed `last`, checking their ranges
        uint256 gameId;
        uint256 ply;
        assembly ("memory-safe") {
            gameId := calldataload(last)
            ply := calldataload(add(last, 0x20))
        }
        bytes32 previousHash;
        if (ply == 1) {
            _checkStart(g, gameId, previous);
            previousHash = ChannelHash.hashMove(previous);
        } else if (hasReceipt) {
            // The receipt is signed on behalf of the side to move, `previous`'s author (the
            // transition makes `previous`'s side to move `last`'s author): by acknowledging
            // `last` it acknowledges the `previous` that `last` names.
            previousHash = ChannelHash.hashMove(previous);
        } else {
            (, previousHash) = _authoriseMove(g, previous, previousAuth);
        }
        uint256 code;
        uint256 rule;
        (code, rule,, st) = _transition(gameId, g.increment, previous, previousHash, last);
        // forge-lint: disable-next-line(unsafe-typecast) codes are 1..8, move codes 0..14
        if (code != 0) revert InvalidTransition(uint8(code), uint8(rule));
    }

    /// @dev Section 7.3 step 5 with a receipt: it must be of `last` (this game, its ply, its
    /// hashStruct), timed between `last`'s stamp and this block, and signed on behalf of the
    /// side to move (white if `toMoveWhite`). Returns its `seenAt`.
    function _receiptTime(
        ChannelGame memory g,
        Move calldata last,
        bytes32 lastHash,
        bool toMoveWhite,
        Receipt calldata receipt,
        Auth calldata receiptAuth
    ) private view returns (uint256 seenAt) {
        uint256 gameId;
        assembly ("memory-safe") {
            gameId := calldataload(last)
        }
        // Read and compared by hand, with the decoder's range checks (see `_heads`; `last` is
        // hashed, its ranges checked): of `last` (this game, its ply, its hashStruct), timed
        // from `last`'s stamp to this block, and (one acknowledgement per move: a receipt timed
        // long after the stamp would let the side to move restart its own clock with a second
        // receipt, re-review finding A) at most CLOCK_TOLERANCE after the stamp.
        uint256 ply;
        bool bad;
        assembly ("memory-safe") {
            ply := calldataload(add(receipt, 0x20))
            seenAt := calldataload(add(receipt, 0x60))
            if or(shr(32, ply), shr(64, seenAt)) { revert(0, 0) }
            let stamp := calldataload(add(last, 0xe0))
            bad := or(
                or(iszero(eq(calldataload(receipt), gameId)), iszero(eq(ply, calldataload(add(last, 0x20))))),
                or(
                    iszero(eq(calldataload(add(receipt, 0x40)), lastHash)),
                    or(or(lt(seenAt, stamp), gt(seenAt, timestamp())), gt(seenAt, add(stamp, CLOCK_TOLERANCE)))
                )
            )
        }
        if (bad) revert BadReceipt();
        _authorise(
            toMoveWhite ? g.white : g.black,
            _digest(ChannelHash.hashReceipt(receipt)),
            gameId,
            ply,
            seenAt,
            false,
            receiptAuth
        );
    }

    /// @dev Section 7.3 step 6: when the side to move's clock starts (`from`), and when the
    /// registered side to move replied (`replyAt`, 0 if `last` does not show it: an overtake by
    /// one ply or two). With a receipt, its `seenAt`, but never later than the chain first
    /// showed the move (review of v3, finding 1: the side to move's own late receipt undid an
    /// announcement). Without one, off-chain, the move must be fresh (`_freshFrom`); while a
    /// registration is frozen, it counts from when the chain first showed it (`_showing`). A
    /// direct reply counts by the registered side to move's deadline by the wall clock
    /// (`_checkReply`), and so does the reply an overtake by two plies carries as `previous`
    /// (finding 2: it skipped that check); a later pair must be fresh when shown.
    function _clockStart(
        ChannelGame memory g,
        Move calldata previous,
        Move calldata last,
        bytes32 lastHash,
        bool authorWhite,
        Receipt calldata receipt,
        Auth calldata receiptAuth,
        FrozenPosition calldata frozen
    ) private view returns (uint256 times) {
        (uint256 from, uint256 replyAt) = _startTimes(
            g, previous, last, lastHash, authorWhite, receipt, receiptAuth, frozen
        );
        // packed: `register` has no stack slot left for two words (both are times, < 2^64)
        times = from | (replyAt << 64);
    }

    /// @dev `_clockStart`, unpacked.
    function _startTimes(
        ChannelGame memory g,
        Move calldata previous,
        Move calldata last,
        bytes32 lastHash,
        bool authorWhite,
        Receipt calldata receipt,
        Auth calldata receiptAuth,
        FrozenPosition calldata frozen
    ) private view returns (uint256 from, uint256 replyAt) {
        bool hasReceipt = receipt.position != 0;
        uint256 showings = shown[lastHash];
        if (hasReceipt) from = _receiptTime(g, last, lastHash, !authorWhite, receipt, receiptAuth);
        if (g.windowEnd == 0) {
            if (!hasReceipt) {
                from = _freshFrom(last, showings);
            } else if (showings != 0) {
                uint256 announced = _stampFrom(last, showings);
                if (announced < from) from = announced;
            }
            return (from, 0);
        }
        uint256 plies = _plyOf(last) - uint256(g.registeredPly);
        (uint256 at, uint256 shownFrom) = _showing(last, showings);
        if (!hasReceipt) {
            uint256 stamp = _stampOf(last);
            if (plies != 1 && stamp + STAMP_TOLERANCE < at) revert StaleMove(stamp);
            from = shownFrom;
        } else if (showings != 0 && shownFrom < from) {
            from = shownFrom;
        }
        if (plies == 1) {
            _checkReply(previous, frozen, from);
            replyAt = from;
        } else if (plies == 2) {
            bytes32 previousHash;
            // read by hand (see `_heads`): `last.previous`, which section 6 code 3 checked
            assembly ("memory-safe") {
                previousHash := calldataload(add(last, 0x100))
            }
            (, replyAt) = _showing(previous, shown[previousHash]);
            uint256 deadline = ClockWord.replyDeadline(frozen.clock);
            if (replyAt > deadline) revert FlagFell(deadline);
        }
    }

    /// @dev When the chain showed `m` (`at`) and from when its opponent's clock runs by that
    /// (`from`), by its showings (the `shown` word): announced off-chain, as a fresh move
    /// then (a recording while frozen comes later); else first shown while frozen, or now, to
    /// the second: a stamp in the past moves nothing onto the other clock once on-chain (a
    /// tolerance here would be taken at every registration: finding 1 in the registration
    /// phase). A future stamp gives time away.
    function _showing(Move calldata m, uint256 showings) private view returns (uint256 at, uint256 from) {
        at = uint64(showings);
        if (at != 0) return (at, _stampFrom(m, at));
        at = showings >> 64;
        if (at == 0) at = block.timestamp;
        from = _stampOf(m);
        if (from < at) from = at;
    }

    /// @dev `last.timestamp`, read by hand (see `_heads`): `last` is hashed, its ranges checked.
    function _stampOf(Move calldata last) private pure returns (uint256 stamp) {
        assembly ("memory-safe") {
            stamp := calldataload(add(last, 0xe0))
        }
    }

    /// @dev When a move shown on-chain at `shown` starts its opponent's clock: at its stamp,
    /// but no earlier than CLOCK_TOLERANCE before `shown` (a stamp in the past moves at most
    /// that much onto the opponent's clock).
    function _stampFrom(Move calldata last, uint256 shown) private pure returns (uint256 from) {
        from = _stampOf(last);
        if (shown > CLOCK_TOLERANCE && from < shown - CLOCK_TOLERANCE) from = shown - CLOCK_TOLERANCE;
    }

    /// @dev Section 7.3 step 5 without a receipt, but for a direct reply: `last` must be fresh
    /// when the chain showed it (its off-chain announcement, else this block), stamped at most
    /// STAMP_TOLERANCE before; its opponent's clock runs as `_stampFrom` says.
    function _freshFrom(Move calldata last, uint256 showings) private view returns (uint256) {
        uint256 at = uint64(showings);
        if (at == 0) at = block.timestamp;
        uint256 stamp = _stampOf(last);
        if (stamp + STAMP_TOLERANCE < at) revert StaleMove(stamp);
        return _stampFrom(last, at);
    }

    /// @dev Section 7.3 step 5 for the direct reply to a frozen registration: `previous` must be
    /// the registered position (`NotTheRegisteredPosition`; `frozen` is, the caller checked),
    /// and the reply must count (`from`: its receipt, or when the chain showed it) by the
    /// registered side to move's deadline by the wall clock (`FlagFell` otherwise).
    function _checkReply(Move calldata previous, FrozenPosition calldata frozen, uint256 from) private pure {
        if (Commitment.innerCalldata(previous.state, previous.history) != frozen.inner) {
            revert NotTheRegisteredPosition();
        }
        uint256 deadline = ClockWord.replyDeadline(frozen.clock);
        if (from > deadline) revert FlagFell(deadline);
    }

    /// @dev Registers the position after `last` (of section 8 status `st`) with its clock
    /// word, and the pending status of a decided position (section 7.3 step 6).
    function _freeze(
        ChannelGame memory g,
        Move calldata last,
        bool authorWhite,
        uint256 times,
        uint256 frozen,
        uint256 st
    ) private {
        uint256 clock = _registeredClock(g, last, authorWhite, uint64(times), frozen, times >> 64);
        if (st != ChessRules.ONGOING) clock = ClockWord.withPendingStatus(clock, st);
        // `referee.registerPosition(last.gameId, last.state, last.history, clock)` encoded by
        // hand (measured: about 300 gas less than the high-level call's encoding and code
        // check; the referee is this contract's deployer). `last.state` is 128 bytes
        // (`_authoriseMove` checked it), a whole number of words.
        address court = address(referee);
        bytes4 selector = IChessCourt.registerPosition.selector;
        assembly ("memory-safe") {
            // `last.state`'s tail, whose bounds `_authoriseMove` checked
            let state := add(last, calldataload(add(last, 0x60)))
            let gameId := calldataload(last)
            let history := calldataload(add(last, 0x80))
            let p := mload(0x40)
            mstore(p, selector)
            mstore(add(p, 0x04), gameId)
            mstore(add(p, 0x24), 0x80)
            mstore(add(p, 0x44), history)
            mstore(add(p, 0x64), clock)
            calldatacopy(add(p, 0x84), state, 0xa0) // its length word (128) and its bytes
            if iszero(call(gas(), court, 0, p, 0x124, 0, 0)) {
                returndatacopy(p, 0, returndatasize())
                revert(p, returndatasize())
            }
        }
    }

    /// @dev The clock word of a registration of `last` (section 7.3): frozen until the
    /// window's end; the author keeps its signed time; the side to move is charged from
    /// `from` to the window's end (its clock runs through the window: it answers in the
    /// window by registering its reply, or on-chain after it), so its deadline is `from` +
    /// its signed time + the grace, as by the wall clock (kept, unclamped, as the clock word's
    /// reply deadline); budget 0 once that has passed. An overtake's budgets are at most what
    /// the wall clock left (`frozen`, see `_withBudgets`).
    function _registeredClock(
        ChannelGame memory g,
        Move calldata last,
        bool authorWhite,
        uint256 from,
        uint256 frozen,
        uint256 replyAt
    ) private view returns (uint256) {
        uint256 windowEnd = block.timestamp + g.responseWindow;
        uint256 clock = ClockWord.registered(
            windowEnd,
            0,
            0,
            g.increment,
            _plyOf(last),
            // A registered custom-start first move gets no first-move window: its time ran
            // off-chain from its predecessor's stamp (re-review finding B).
            g.customStart ? 0 : g.firstMoveWindow,
            g.customStart
        );
        return _withBudgets(clock, last, authorWhite, windowEnd, from, frozen, replyAt);
    }

    /// @dev `m.ply` read by hand, with the decoder's range check (see `_heads`).
    function _checkedPly(Move calldata m) private pure returns (uint256 ply) {
        assembly ("memory-safe") {
            ply := calldataload(add(m, 0x20))
            if shr(32, ply) { revert(0, 0) }
        }
    }

    /// @dev `m.ply` read by hand (see `_heads`) from a hashed `m`, whose ranges are checked.
    function _plyOf(Move calldata m) private pure returns (uint256 ply) {
        assembly ("memory-safe") {
            ply := calldataload(add(m, 0x20))
        }
    }

    /// @dev `clock` with the two budgets of a registration of `last`: the author's signed time
    /// plus the grace, the side to move's less the charge from `from` to `windowEnd`, floored
    /// at 0; and the side to move's deadline by the wall clock, unclamped (`from` + its time +
    /// the grace: a direct reply proven in time by a receipt still overtakes though its budget
    /// reads 0, section 7.3). For an overtake (`frozen`, the clock word of the registration it
    /// overtakes, else 0) the signed times cannot give back what the wall clock charged: the
    /// registered position's author has at most its budget there plus its increments since,
    /// and a direct reply's author at most its deadline less `from` plus the increment.
    function _withBudgets(
        uint256 clock,
        Move calldata last,
        bool authorWhite,
        uint256 windowEnd,
        uint256 from,
        uint256 frozen,
        uint256 replyAt
    ) private pure returns (uint256) {
        uint256 whiteTime;
        uint256 blackTime;
        // read by hand (see `_heads`): `last` is hashed, its ranges checked
        assembly ("memory-safe") {
            whiteTime := calldataload(add(last, 0xa0))
            blackTime := calldataload(add(last, 0xc0))
        }
        uint256 toMove = (authorWhite ? blackTime : whiteTime) + ClockWord.GRACE_PERIOD;
        uint256 authorBudget = (authorWhite ? whiteTime : blackTime) + ClockWord.GRACE_PERIOD;
        if (frozen != 0) {
            (uint256 authorCap, uint256 toMoveCap) = _overtakeCaps(last, authorWhite, frozen, replyAt);
            if (authorBudget > authorCap) authorBudget = authorCap;
            if (toMove > toMoveCap) toMove = toMoveCap;
        }
        uint256 charge = windowEnd > from ? windowEnd - from : 0;
        uint256 toMoveBudget = charge < toMove ? toMove - charge : 0;
        clock = authorWhite
            ? ClockWord.withBudgets(clock, authorBudget, toMoveBudget)
            : ClockWord.withBudgets(clock, toMoveBudget, authorBudget);
        return ClockWord.withReplyDeadline(clock, from + toMove);
    }

    /// @dev The most each side may keep after an overtake of the registration whose clock word
    /// is `frozen` by `last` (author white if `authorWhite`), whatever the signed times say.
    /// The registered position's author had its clock stopped while it was frozen: at most its
    /// budget there plus an increment for each move of its since (finding C: an overtake by
    /// two plies gave back what the wall clock charged). The registered side to move, if its
    /// reply was shown at `replyAt` (`last`, or `previous` of an overtake by two plies): what
    /// the wall clock left it then, as the direct reply.
    function _overtakeCaps(Move calldata last, bool authorWhite, uint256 frozen, uint256 replyAt)
        private
        pure
        returns (uint256 authorCap, uint256 toMoveCap)
    {
        uint256 plies = _plyOf(last) - ClockWord.ply(frozen);
        uint256 increment = ClockWord.increment(frozen);
        bool odd = plies & 1 == 1;
        // `odd`: `last`'s author is the registered side to move, else the registered author
        uint256 registeredAuthor = ClockWord.budget(frozen, odd != authorWhite) + (plies >> 1) * increment;
        uint256 registeredToMove =
            replyAt == 0 ? type(uint256).max : ClockWord.replyDeadline(frozen) - replyAt + increment;
        (authorCap, toMoveCap) = odd ? (registeredToMove, registeredAuthor) : (registeredAuthor, registeredToMove);
    }

    /// @dev Reverts `NotTheStart` unless `q` is the start move of game `gameId` (section 4.1).
    function _checkStart(ChannelGame memory g, uint256 gameId, Move calldata q) private view {
        if (q.state.length != 128) revert BadStateLength(q.state.length);
        if (
            q.ply != 0 || q.mv != 0 || q.previous != 0 || q.timestamp != 0 || q.whiteTime != g.initialTime
                || q.blackTime != g.initialTime
                || Commitment.innerCalldata(q.state, q.history) != referee.channelStart(gameId)
        ) revert NotTheStart();
    }

    /// @dev Section 6: the first failing transition code of `m` after `q` (whose hashStruct
    /// is `qHash`; 0 if `m` is a valid successor), the move code for code 6, the state after
    /// the move and its section 8 status (when the code is 0 or 7 or 8).
    /// @dev `q`'s status (code 5 comes before 6) is computed only when it can be non-zero: a
    /// decided `q` either has no legal move (then the move fails), or a halfmove clock of
    /// 150 or more, or insufficient material, whose every successor is decided too (no pawn,
    /// so no promotion; a capture only removes material; bishops keep their colour). So the
    /// common path pays one status, the successor's, which `register` needs anyway
    /// (measured: about 3,800 gas saved per registration).
    function _transition(uint256 gameId, uint256 increment, Move calldata q, bytes32 qHash, Move calldata m)
        private
        pure
        returns (uint256 code, uint256 rule, bytes memory s, uint256 st)
    {
        code = _heads(gameId, q, qHash, m);
        if (code != 0) return (code, 0, s, 0);
        bytes calldata ms = m.state;
        if (ms.length != 128) revert BadStateLength(ms.length);
        // the author is black when white is to move after `m`
        if (!_timesConsistent(increment, q, m, ms[ChessRules.CURRENT_PLAYER] == 0x01)) return (BAD_TIME, 0, s, 0);
        s = q.state;
        if (ChessRules.validateState(s) != 0) return (ILLEGAL_MOVE, 0, s, 0);
        if (ChessRules.halfmoveClock(s) >= 150) return (GAME_OVER, 0, s, 0);
        // head words read by hand, with the decoder's range check (see `_heads`)
        assembly ("memory-safe") {
            rule := calldataload(add(m, 0x40))
            if shr(24, rule) { revert(0, 0) }
        }
        rule = ChessRules.applyMove(s, rule);
        if (rule != 0) {
            if (_decided(q)) return (GAME_OVER, 0, s, 0);
            return (ILLEGAL_MOVE, rule, s, 0);
        }
        st = ChessRules.status(s);
        // `q` has a legal move (`m`) and a halfmove clock below 150: it is decided only by
        // insufficient material
        if (st != ChessRules.ONGOING && ChessRules.bothInsufficient(q.state)) return (GAME_OVER, 0, s, 0);
        // `s` and `m.state` (128 bytes each) compared a word at a time rather than by two
        // hashes (saves a copy of `m.state` and both keccaks)
        bool same;
        assembly ("memory-safe") {
            let o := ms.offset
            same := and(
                and(eq(mload(add(s, 0x20)), calldataload(o)), eq(mload(add(s, 0x40)), calldataload(add(o, 0x20)))),
                and(
                    eq(mload(add(s, 0x60)), calldataload(add(o, 0x40))),
                    eq(mload(add(s, 0x80)), calldataload(add(o, 0x60)))
                )
            )
        }
        if (!same) return (WRONG_STATE, 0, s, st);
        bytes32 history;
        assembly ("memory-safe") {
            history := calldataload(add(q, 0x80))
        }
        history = RepetitionChain.afterMove(s, history);
        assembly ("memory-safe") {
            if iszero(eq(history, calldataload(add(m, 0x80)))) { code := WRONG_HISTORY }
        }
    }

    /// @dev Whether `q`'s (valid) state is decided (section 8 status 1-4).
    function _decided(Move calldata q) private pure returns (bool) {
        return ChessRules.status(q.state) != ChessRules.ONGOING;
    }

    /// @dev Section 6 codes 1 to 3 (0 if none): `m` and `q` of game `gameId`, `m` one ply
    /// after `q`, `m` naming `q` (hashStruct `qHash`) as its predecessor.
    /// @dev The head words read by hand, with the decoder's range check of the plies: each
    /// high-level read of a field of a calldata struct re-checks its bounds and range through
    /// shared helper code (measured: about 150 gas a field; here and in `_timesConsistent`
    /// about 1,700 gas per registration, about 4,000 with the other reads by hand). Where a
    /// struct was hashed first (`ChannelHash` checks every range), its words are read as
    /// they stand.
    function _heads(uint256 gameId, Move calldata q, bytes32 qHash, Move calldata m)
        private
        pure
        returns (uint256 code)
    {
        assembly ("memory-safe") {
            let qPly := calldataload(add(q, 0x20))
            let mPly := calldataload(add(m, 0x20))
            if or(shr(32, qPly), shr(32, mPly)) { revert(0, 0) }
            switch or(iszero(eq(calldataload(m), gameId)), iszero(eq(calldataload(q), gameId)))
            case 1 { code := WRONG_GAME }
            default {
                switch eq(mPly, add(qPly, 1))
                case 0 { code := WRONG_PLY }
                default { if iszero(eq(calldataload(add(m, 0x100)), qHash)) { code := WRONG_PREVIOUS } }
            }
        }
    }

    /// @dev Section 6 code 4: stamps never run backwards; the author is charged the time
    /// between its predecessor's stamp and its own (0 after the start move), may not have
    /// run out of time, claims at most what is left plus the increment, and leaves the
    /// other's time alone. `blackAuthor`: whether black made `m`.
    function _timesConsistent(uint256 increment, Move calldata q, Move calldata m, bool blackAuthor)
        private
        pure
        returns (bool)
    {
        uint256 mt;
        uint256 qt;
        uint256 elapsed;
        uint256 qa;
        uint256 qo;
        uint256 ma;
        uint256 mo;
        // read by hand, with the decoder's range checks (see `_heads`)
        assembly ("memory-safe") {
            let qPly := calldataload(add(q, 0x20))
            qa := calldataload(add(q, 0xa0))
            qo := calldataload(add(q, 0xc0))
            qt := calldataload(add(q, 0xe0))
            ma := calldataload(add(m, 0xa0))
            mo := calldataload(add(m, 0xc0))
            mt := calldataload(add(m, 0xe0))
            if or(
                or(or(shr(32, qPly), shr(32, qa)), or(shr(32, qo), shr(64, qt))),
                or(or(shr(32, ma), shr(32, mo)), shr(64, mt))
            ) {
                revert(0, 0)
            }
            if blackAuthor {
                let t := qa
                qa := qo
                qo := t
                t := ma
                ma := mo
                mo := t
            }
            elapsed := mul(iszero(iszero(qPly)), sub(mt, qt))
        }
        if (mt < qt) return false;
        return elapsed <= qa && ma <= qa - elapsed + increment && mo == qo;
    }
}
