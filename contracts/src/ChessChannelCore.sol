// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChessRules, BadStateLength} from "./ChessRules.sol";
import {ClockWord} from "./ClockWord.sol";
import {ChannelGame, FrozenPosition, IChessCourt} from "./ChessCourt.sol";
import {ChannelHash, Move, Delegation, Receipt, Auth} from "./ChannelHash.sol";
import {SignatureCheck} from "./SignatureCheck.sol";
import {RepetitionChain} from "./RepetitionChain.sol";
import {Commitment} from "./Commitment.sol";
import {IChessChannelTypes} from "./IChessChannel.sol";

/// @title ChessChannelCore
/// @notice What `ChessChannel` and its `ChessChannelAnnex` share: the constants, the storage
/// (declared once, so the annex, run by DELEGATECALL in the channel's storage, reads and
/// writes the same slots) and the section 6 and 7 checks. Each contract compiles only the
/// checks it calls.
abstract contract ChessChannelCore is IChessChannelTypes {
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
    /// @dev More plies than any game from the standard start can have: a ply that is not a pawn
    /// move or a capture raises the halfmove clock, 150 ends the game (section 6 code 5), and
    /// such a game has at most 126 pawn moves and captures (16 pawns of at most 6 moves, 30
    /// captures) to reset it, so at most 127 runs of 150 plies.
    uint256 internal constant MAX_PLIES = 19_050;
    /// @dev The same from any valid start (ENCODING.md does not limit material): at most 240
    /// pawn moves (a pawn on rank r has at most 8 - r, or r - 1 for black, moves left: 30 a
    /// file over ranks 2 to 7) and 62 captures, so at most 303 runs of 150 plies.
    uint256 internal constant MAX_PLIES_ANY_START = 45_450;

    /// @dev Whether contract wallet `signer` approved `digest` (ERC-1271, asked once by
    /// `pin`); a pinned digest counts for good.
    mapping(address signer => mapping(bytes32 digest => bool)) internal _pinned;
    /// @dev When a signed move (by its `hashStruct`) was first shown on-chain: bits 0..63 by
    /// `announce`, while the game was off-chain (`announcedAt`); bits 64..127 by an overtake
    /// that named another position than the registered one (`shownWhileFrozenAt`). 0: never.
    mapping(bytes32 moveHash => uint256) internal _shown;
    /// @dev When `player` revoked `sessionKey` in `gameId` (0: never): from then on the
    /// key's resignations and results no longer count.
    mapping(uint256 gameId => mapping(address player => mapping(address sessionKey => uint256))) internal _revokedAt;
    /// @dev The highest `firstPly` of `player`'s delegations in `gameId` shown by `retire`
    /// (0: none): a resignation or result signed by a session key delegated from an earlier
    /// ply no longer counts (section 5).
    mapping(uint256 gameId => mapping(address player => uint256)) internal _agreementsFrom;

    /// @dev The referee whose channel games the channel judges.
    function _court() internal view virtual returns (IChessCourt);

    /// @dev The EIP-712 domain separator (name "chessref", version "2", this chain, the
    /// channel's address).
    function _domainSeparator() internal view virtual returns (bytes32);

    /// @dev Records that the chain showed the signed move `m` (hashStruct `moveHash`) now, in
    /// the bits at `shift` (0 off-chain, 64 while frozen), unless it showed it there before.
    function _show(uint256 gameId, Move calldata m, bytes32 moveHash, uint256 shift) internal {
        uint256 was = _shown[moveHash];
        if ((was >> shift) & type(uint64).max != 0) return;
        _shown[moveHash] = was | (block.timestamp << shift);
        emit MoveAnnounced(gameId, m.ply, moveHash, m);
    }

    /// @dev The game, which must be a running channel game.
    function _game(uint256 gameId) internal view returns (ChannelGame memory g) {
        g = _gameAsItIs(gameId);
        if (g.phase != PHASE_RUNNING) revert GameNotRunning(gameId);
        if (g.responseWindow == 0) revert NotAChannelGame(gameId);
    }

    /// @dev The referee's `channelGame(gameId)`, whatever the game's phase. Its return (a
    /// static struct: ten words, in `g`'s memory order) copied as it is: the high-level
    /// call's decoding and checks of each field cost about 2,500 gas and 770 bytes of code,
    /// and this referee is the channel's own deployer.
    function _gameAsItIs(uint256 gameId) internal view returns (ChannelGame memory g) {
        address court = address(_court());
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

    function _digest(bytes32 structHash) internal view returns (bytes32) {
        return ChannelHash.digest(_domainSeparator(), structHash);
    }

    /// @dev Sections 7.1, 7.2: an agreement at `ply` counts off-chain, and while a registration
    /// is frozen if not below its ply; never once on-chain play is live.
    function _checkAgreement(ChannelGame memory g, uint256 gameId, uint256 ply) internal view {
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
    ) internal view {
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
                && (!agreement || _revokedAt[gameId][player][key] == 0)
                && _signedBy(player, _digest(ChannelHash.hashDelegation(del)), auth.delegationSignature);
            // Revocation and retirement end only a key's agreements: its moves and receipts
            // are evidence, bounded by their signed plies and times.
            if (ok && agreement && firstPly < _agreementsFrom[gameId][player]) revert RetiredKey(key);
        }
        if (!ok) revert BadSignature(player);
    }

    /// @dev Whether `player` signed `d`: strict ECDSA recovering to it, whatever its code (an
    /// EOA that later gets code cannot disown its key's signatures), or a pinned digest.
    function _signedBy(address player, bytes32 d, bytes calldata signature) internal view returns (bool) {
        address recovered = SignatureCheck.recover(d, signature);
        if (recovered != address(0) && recovered == player) return true;
        return _pinned[player][d];
    }

    /// @dev Checks that `m` is signed on behalf of its author (a session key within the
    /// move's own signed time); returns whether that is white, and `m`'s hashStruct.
    function _authoriseMove(ChannelGame memory g, Move calldata m, Auth calldata auth)
        internal
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
    function _checkRegistrant(ChannelGame memory g, uint256 gameId, uint256 ply) internal view {
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
    ) internal view returns (bool authorWhite, bytes32 lastHash, uint256 st) {
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
    ) internal view returns (uint256 seenAt) {
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
    ) internal view returns (uint256 times) {
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
    ) internal view returns (uint256 from, uint256 replyAt) {
        bool hasReceipt = receipt.position != 0;
        uint256 showings = _shown[lastHash];
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
            (, replyAt) = _showing(previous, _shown[previousHash]);
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
    function _showing(Move calldata m, uint256 showings) internal view returns (uint256 at, uint256 from) {
        at = uint64(showings);
        if (at != 0) return (at, _stampFrom(m, at));
        at = showings >> 64;
        if (at == 0) at = block.timestamp;
        from = _stampOf(m);
        if (from < at) from = at;
    }

    /// @dev `last.timestamp`, read by hand (see `_heads`): `last` is hashed, its ranges checked.
    function _stampOf(Move calldata last) internal pure returns (uint256 stamp) {
        assembly ("memory-safe") {
            stamp := calldataload(add(last, 0xe0))
        }
    }

    /// @dev When a move shown on-chain at `shown` starts its opponent's clock: at its stamp,
    /// but no earlier than CLOCK_TOLERANCE before `shown` (a stamp in the past moves at most
    /// that much onto the opponent's clock).
    function _stampFrom(Move calldata last, uint256 shown) internal pure returns (uint256 from) {
        from = _stampOf(last);
        if (shown > CLOCK_TOLERANCE && from < shown - CLOCK_TOLERANCE) from = shown - CLOCK_TOLERANCE;
    }

    /// @dev Section 7.3 step 5 without a receipt, but for a direct reply: `last` must be fresh
    /// when the chain showed it (its off-chain announcement, else this block), stamped at most
    /// STAMP_TOLERANCE before; its opponent's clock runs as `_stampFrom` says.
    function _freshFrom(Move calldata last, uint256 showings) internal view returns (uint256) {
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
    function _checkReply(Move calldata previous, FrozenPosition calldata frozen, uint256 from) internal pure {
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
    ) internal {
        uint256 clock = _registeredClock(g, last, authorWhite, uint64(times), frozen, times >> 64);
        if (st != ChessRules.ONGOING) clock = ClockWord.withPendingStatus(clock, st);
        // `_court().registerPosition(last.gameId, last.state, last.history, clock)` encoded by
        // hand (measured: about 300 gas less than the high-level call's encoding and code
        // check; the referee is this contract's deployer). `last.state` is 128 bytes
        // (`_authoriseMove` checked it), a whole number of words.
        address court = address(_court());
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
    ) internal view returns (uint256) {
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
        uint256 plies = _plyOf(last);
        uint256 longest = g.customStart ? MAX_PLIES_ANY_START : MAX_PLIES;
        if (plies > longest) plies = longest;
        // The most either side can hold after `plies` moves of a valid game: every signed time
        // is at most its predecessor's plus the increment (section 6 code 4), from the start's
        // initial time, and a side has made at most half the moves, rounded up.
        uint256 most = g.initialTime + ((plies + 1) >> 1) * g.increment;
        return _withBudgets(clock, last, authorWhite, windowEnd, from, frozen, replyAt, most);
    }

    /// @dev `m.ply` read by hand, with the decoder's range check (see `_heads`).
    function _checkedPly(Move calldata m) internal pure returns (uint256 ply) {
        assembly ("memory-safe") {
            ply := calldataload(add(m, 0x20))
            if shr(32, ply) { revert(0, 0) }
        }
    }

    /// @dev `m.ply` read by hand (see `_heads`) from a hashed `m`, whose ranges are checked.
    function _plyOf(Move calldata m) internal pure returns (uint256 ply) {
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
    /// and a direct reply's author at most its deadline less `from` plus the increment. No
    /// signed time counts for more than `most`, what a valid game can hold at `last`'s ply.
    function _withBudgets(
        uint256 clock,
        Move calldata last,
        bool authorWhite,
        uint256 windowEnd,
        uint256 from,
        uint256 frozen,
        uint256 replyAt,
        uint256 most
    ) internal pure returns (uint256) {
        uint256 whiteTime;
        uint256 blackTime;
        // read by hand (see `_heads`): `last` is hashed, its ranges checked
        assembly ("memory-safe") {
            whiteTime := calldataload(add(last, 0xa0))
            blackTime := calldataload(add(last, 0xc0))
        }
        // Signed times no valid game reaches are cut to what one could: the two players of a
        // channel game can sign any times between themselves, and a registration checks only
        // the shown step (a hosted tournament game so forged would hold the event for ever).
        if (whiteTime > most) whiteTime = most;
        if (blackTime > most) blackTime = most;
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
        internal
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
    function _checkStart(ChannelGame memory g, uint256 gameId, Move calldata q) internal view {
        if (q.state.length != 128) revert BadStateLength(q.state.length);
        if (
            q.ply != 0 || q.mv != 0 || q.previous != 0 || q.timestamp != 0 || q.whiteTime != g.initialTime
                || q.blackTime != g.initialTime
                || Commitment.innerCalldata(q.state, q.history) != _court().channelStart(gameId)
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
        internal
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
    function _decided(Move calldata q) internal pure returns (bool) {
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
        internal
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
        internal
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
