// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

// TEST-ONLY: a frozen earlier implementation of the rules, the differential oracle of
// ChessChannelCalldata.t.sol (second reading of df4c015) and ChessRulesGasReview.t.sol
// (second reading of 0583df0, issue 19's gas work). Do not edit the rules here.
import {IllegalMove, InvalidState, BadStateLength} from "../../src/ChessRules.sol";

/// @dev df4c015~1's contracts/src/ChessRules.sol, the library renamed ChessRulesOld (its errors are
/// the current file's, declared identically).
/// @title ChessRulesOld
/// @notice The chess rules over the 128-byte 0x88 state of `shared/ENCODING.md`:
/// move checking with the section 6 codes in the section 6 order, move
/// application (section 5), state validation (section 7), game status
/// (section 8) and the repetition key (section 9).
/// @dev Every function except `validateState` expects a 128-byte state that
/// passes `validateState`; callers check that once at the boundary (custom
/// start states, view calls) and then only ever feed states produced by
/// `applyMove`, which keeps them valid. A move is a uint24
/// `(from << 16) | (to << 8) | promotion`; only the low 24 bits are read.
///
/// Gas: the referee runs `applyMove`, `status` and `repetitionKey` on every
/// move, so the hot paths (byte access, attack test, "is there any legal
/// move") work on the buffer in place with inline assembly, and the
/// legality test makes and unmakes the move on the buffer instead of copying
/// it. Everything else is plain Solidity.
library ChessRulesOld {
    // ---- section 3: shadow byte indices ----
    uint256 internal constant MOVE_COUNT_HIGH = 8;
    uint256 internal constant MOVE_COUNT_LOW = 9;
    uint256 internal constant HALFMOVE_CLOCK = 10;
    uint256 internal constant BLACK_KING_POS = 11;
    uint256 internal constant WHITE_KING_POS = 123;
    uint256 internal constant CURRENT_PLAYER = 56;
    uint256 internal constant BLACK_EN_PASSANT = 61;
    uint256 internal constant BLACK_LEFT_CASTLING = 62;
    uint256 internal constant BLACK_RIGHT_CASTLING = 63;
    uint256 internal constant WHITE_EN_PASSANT = 77;
    uint256 internal constant WHITE_LEFT_CASTLING = 78;
    uint256 internal constant WHITE_RIGHT_CASTLING = 79;

    // ---- section 6: rejection codes ----
    uint256 internal constant OFF_BOARD = 1;
    uint256 internal constant SAME_SQUARE = 2;
    uint256 internal constant EMPTY_FROM = 3;
    uint256 internal constant NOT_YOUR_PIECE = 4;
    uint256 internal constant OWN_PIECE_ON_TARGET = 5;
    uint256 internal constant BAD_GEOMETRY = 6;
    uint256 internal constant PATH_BLOCKED = 7;
    uint256 internal constant NO_CAPTURE_TARGET = 8;
    uint256 internal constant CASTLING_NOT_ALLOWED = 9;
    uint256 internal constant CASTLING_IN_CHECK = 10;
    uint256 internal constant CASTLING_THROUGH_CHECK = 11;
    uint256 internal constant PROMOTION_REQUIRED = 12;
    uint256 internal constant INVALID_PROMOTION = 13;
    uint256 internal constant KING_LEFT_IN_CHECK = 14;

    // ---- section 7: invalid-state codes ----
    uint256 internal constant BAD_PIECE_CODE = 1;
    uint256 internal constant BAD_FLAG = 2;
    uint256 internal constant KING_COUNT = 3;
    uint256 internal constant KING_POS_MISMATCH = 4;
    uint256 internal constant PAWN_ON_BACK_RANK = 5;
    uint256 internal constant OPPONENT_IN_CHECK = 6;
    uint256 internal constant BAD_CASTLING = 7;
    uint256 internal constant BAD_EN_PASSANT = 8;

    // ---- section 8: status codes ----
    uint256 internal constant ONGOING = 0;
    uint256 internal constant CHECKMATE = 1;
    uint256 internal constant STALEMATE = 2;
    uint256 internal constant INSUFFICIENT_MATERIAL = 3;
    uint256 internal constant SEVENTY_FIVE_MOVES = 4;

    // ---- piece roles (white codes; black = negated) ----
    int256 private constant PAWN = 1;
    int256 private constant KNIGHT = 2;
    int256 private constant BISHOP = 3;
    int256 private constant ROOK = 4;
    int256 private constant QUEEN = 5;
    int256 private constant KING = 6;

    // ---- move kinds found by the geometric checks (what make/unmake must do besides from->to) ----
    uint256 private constant NORMAL = 0;
    uint256 private constant DOUBLE_STEP = 1;
    uint256 private constant EN_PASSANT = 2;
    uint256 private constant CASTLE_KING_SIDE = 3;
    uint256 private constant CASTLE_QUEEN_SIDE = 4;

    /// @dev 0x88 step vectors as signed bytes, read with `signextend(0, byte(i, ..))`:
    /// bytes 0-3 straight (+1, -1, +16, -16), bytes 4-7 diagonal (+15, -15, +17, -17).
    uint256 private constant SLIDER_STEPS = 0x01ff10f00ff111ef << 192;
    /// @dev Knight vectors +33, +31, +18, +14, -33, -31, -18, -14 as signed bytes 0-7.
    uint256 private constant KNIGHT_STEPS = 0x211f120edfe1eef2 << 192;
    /// @dev Bit `0x77 + d` set for each king step d: tests adjacency of two squares
    /// with one shift, since the 0x88 difference of two squares identifies the vector.
    uint256 private constant KING_ADJACENT =
        (1 << 0x78) | (1 << 0x76) | (1 << 0x87) | (1 << 0x67) | (1 << 0x86) | (1 << 0x68) | (1 << 0x88) | (1 << 0x66);

    /// @dev Context of the "any legal move?" search, kept in memory to stay below the stack limit.
    struct Search {
        int256 side; // side to move, 1 or -1
        uint256 king; // its king's square
        uint256 targets; // bit set: squares a non-king move may land on (all when not in check)
        uint256 checker; // square of the single checking piece, 255 when not in check
        int256 pin; // for the piece being searched: step from the king towards its pinner, 0 if not pinned
    }

    // =====================================================================
    // Public API
    // =====================================================================

    /// @notice The standard initial position (ENCODING.md section 4).
    function initialState() internal pure returns (bytes memory) {
        return hex"fcfefdfbfafdfefc0000000400000000" hex"ffffffffffffffff0000000000000000"
            hex"00000000000000000000000000000000" hex"00000000000000000100000000000000"
            hex"00000000000000000000000000000000" hex"00000000000000000000000000000000"
            hex"01010101010101010000000000000000" hex"04020305060302040000007400000000";
    }

    /// @notice Whether white is the side to move (byte 56, CURRENT_PLAYER, is 1).
    function whiteToMove(bytes memory s) internal pure returns (bool w) {
        assembly ("memory-safe") {
            w := eq(byte(0, mload(add(s, 88))), 1) // 32 (length word) + 56
        }
    }

    /// @notice The halfmove clock (byte 10): plies since the last capture or pawn move.
    function halfmoveClock(bytes memory s) internal pure returns (uint256 hm) {
        assembly ("memory-safe") {
            hm := byte(10, mload(add(s, 32)))
        }
    }

    /// @notice Section 7 validation: 0 if `s` is a valid state, else the first failing code.
    /// @dev Reverts `BadStateLength` when `s` is not 128 bytes (no section 7 code covers it).
    /// Off-board king position bytes fail code 4 (they do not point at a king); an
    /// en-passant byte outside 32..39 (black's) / 80..87 (white's) fails code 2, its domain.
    function validateState(bytes memory s) internal pure returns (uint256) {
        if (s.length != 128) revert BadStateLength(s.length);
        unchecked {
            // 1 and 3 over the 64 board bytes a word at a time (a byte loop costs 11,000-60,000
            // gas, too much for the channel's per-transition check). A piece code is in -6..6
            // iff (byte + 6) mod 256 <= 12; kings are 6 and -6 (0xfa).
            uint256 badPiece;
            uint256 whiteKings;
            uint256 blackKings;
            assembly ("memory-safe") {
                // bytes equal to zero in `e`, counted (0x80 marks each, summed by multiplication)
                function zeroBytes(e) -> n {
                    let lo7 := 0x7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f
                    let z := not(or(or(add(and(e, lo7), lo7), e), lo7))
                    n := shr(248, mul(shr(7, z), 0x0101010101010101010101010101010101010101010101010101010101010101))
                }
                let p := add(s, 0x20)
                for { let k := 0 } lt(k, 128) { k := add(k, 32) } {
                    // the board bytes of two rows (bytes 0..7 and 16..23 of the word), others 0
                    let x := and(mload(add(p, k)), 0xffffffffffffffff0000000000000000ffffffffffffffff0000000000000000)
                    let hi := and(x, 0x8080808080808080808080808080808080808080808080808080808080808080)
                    // per byte (b + 6) mod 256, then >= 13 sets the byte's top bit
                    let t :=
                        xor(add(xor(x, hi), 0x0606060606060606060606060606060606060606060606060606060606060606), hi)
                    badPiece := or(
                        badPiece,
                        and(
                            or(
                                t,
                                add(
                                    and(t, 0x7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f),
                                    0x7373737373737373737373737373737373737373737373737373737373737373
                                )
                            ),
                            0x8080808080808080808080808080808080808080808080808080808080808080
                        )
                    )
                    whiteKings := add(
                        whiteKings,
                        zeroBytes(xor(x, 0x0606060606060606060606060606060606060606060606060606060606060606))
                    )
                    blackKings := add(
                        blackKings,
                        zeroBytes(xor(x, 0xfafafafafafafafafafafafafafafafafafafafafafafafafafafafafafafafa))
                    )
                }
            }
            if (badPiece != 0) return BAD_PIECE_CODE;
            // 2: shadow bytes (bytes 8..15 of each row): 0 but for the flags, checked one by one
            if (!_shadowBytesInDomain(s)) return BAD_FLAG;
            // 3: exactly one king of each colour
            if (whiteKings != 1 || blackKings != 1) return KING_COUNT;
            // 4: king position bytes
            uint256 wk = _raw(s, WHITE_KING_POS);
            uint256 bk = _raw(s, BLACK_KING_POS);
            if (wk & 0x88 != 0 || bk & 0x88 != 0 || _at(s, wk) != KING || _at(s, bk) != -KING) {
                return KING_POS_MISMATCH;
            }
            // 5: no pawn on rank 8 (row 0) or rank 1 (row 7): no byte of either row is 0x01 or
            // 0xff, tested a row at a time (a byte of x is 0 iff (x - 0x01..) & ~x & 0x80.. has it)
            bool backRankPawn;
            assembly ("memory-safe") {
                function hasZeroByte(x) -> r {
                    r := and(and(sub(x, 0x0101010101010101), not(x)), 0x8080808080808080)
                }
                let r8 := shr(192, mload(add(s, 0x20)))
                let r1 := shr(192, mload(add(s, 0x90)))
                backRankPawn := or(
                    or(hasZeroByte(xor(r8, 0x0101010101010101)), hasZeroByte(xor(r8, 0xffffffffffffffff))),
                    or(hasZeroByte(xor(r1, 0x0101010101010101)), hasZeroByte(xor(r1, 0xffffffffffffffff)))
                )
            }
            if (backRankPawn) return PAWN_ON_BACK_RANK;
            // 6: the side not to move is not in check
            int256 side = _at(s, CURRENT_PLAYER);
            if (_attacked(s, side > 0 ? bk : wk, side)) return OPPONENT_IN_CHECK;
            // 7: kept castling rights need king and rook at home
            if (!_rightConsistent(s, WHITE_LEFT_CASTLING, 116, 112, KING, ROOK)) return BAD_CASTLING;
            if (!_rightConsistent(s, WHITE_RIGHT_CASTLING, 116, 119, KING, ROOK)) return BAD_CASTLING;
            if (!_rightConsistent(s, BLACK_LEFT_CASTLING, 4, 0, -KING, -ROOK)) return BAD_CASTLING;
            if (!_rightConsistent(s, BLACK_RIGHT_CASTLING, 4, 7, -KING, -ROOK)) return BAD_CASTLING;
            // 8: en passant
            uint256 wep = _raw(s, WHITE_EN_PASSANT);
            uint256 bep = _raw(s, BLACK_EN_PASSANT);
            if (wep != 0 && bep != 0) return BAD_EN_PASSANT;
            if (wep != 0) {
                // set by white's double step: black to move, white pawn on rank 4, the rank-2 square empty
                if (side != -1 || wep < 80 || wep > 87) return BAD_EN_PASSANT;
                if (_at(s, wep - 16) != PAWN || _at(s, wep) != 0 || _at(s, wep + 16) != 0) return BAD_EN_PASSANT;
            }
            if (bep != 0) {
                if (side != 1 || bep < 32 || bep > 39) return BAD_EN_PASSANT;
                if (_at(s, bep + 16) != -PAWN || _at(s, bep) != 0 || _at(s, bep - 16) != 0) return BAD_EN_PASSANT;
            }
        }
        return 0;
    }

    /// @notice Section 6: 0 if `move` is legal in `s`, else the rejection code. `s` is not modified.
    function check(bytes memory s, uint256 move) internal pure returns (uint256 code) {
        (uint256 from, uint256 to, uint256 promotion) = _split(move);
        uint256 kind;
        int256 piece;
        (code, kind, piece) = _precheck(s, from, to, promotion);
        if (code != 0) return code;
        int256 side = piece > 0 ? int256(1) : -1;
        int256 captured = _make(s, from, to, kind, piece, side);
        bool exposed = _attacked(s, piece == KING * side ? to : _kingSquare(s, side), -side);
        _unmake(s, from, to, kind, piece, side, captured);
        if (exposed) return KING_LEFT_IN_CHECK;
    }

    /// @notice Returns the state after `move`; reverts `IllegalMove(code)` if it is illegal. `s` is not modified.
    function play(bytes memory s, uint256 move) internal pure returns (bytes memory next) {
        next = bytes.concat(s);
        uint256 code = applyMove(next, move);
        if (code != 0) revert IllegalMove(uint8(code));
    }

    /// @notice Applies `move` to `s` in place (section 5) and returns 0, or returns the
    /// section 6 code and leaves `s` unchanged.
    function applyMove(bytes memory s, uint256 move) internal pure returns (uint256 code) {
        (uint256 from, uint256 to, uint256 promotion) = _split(move);
        uint256 kind;
        int256 piece;
        (code, kind, piece) = _precheck(s, from, to, promotion);
        if (code != 0) return code;
        int256 side = piece > 0 ? int256(1) : -1;
        int256 captured = _make(s, from, to, kind, piece, side);
        bool isKing = piece == KING * side;
        if (_attacked(s, isKing ? to : _kingSquare(s, side), -side)) {
            _unmake(s, from, to, kind, piece, side, captured);
            return KING_LEFT_IN_CHECK;
        }
        if (promotion != 0) _put(s, to, int256(promotion) * side);
        _updateFlags(s, from, to, kind, isKing, piece == side || captured != 0, side);
    }

    /// @notice Section 8 status of `s` for the side to move.
    function status(bytes memory s) internal pure returns (uint256) {
        int256 side = _at(s, CURRENT_PLAYER);
        uint256 king = _kingSquare(s, side);
        bool inCheck = _attacked(s, king, -side);
        if (!_hasLegalMove(s, side, king, inCheck)) return inCheck ? CHECKMATE : STALEMATE;
        if (bothInsufficient(s)) return INSUFFICIENT_MATERIAL;
        if (_raw(s, HALFMOVE_CLOCK) >= 150) return SEVENTY_FIVE_MOVES;
        return ONGOING;
    }

    /// @notice Whether `side` (1 white, -1 black) has insufficient mating material
    /// (section 8; shakmaty's `has_insufficient_material`).
    function insufficientMaterial(bytes memory s, int256 side) internal pure returns (bool) {
        uint256 ownKnights;
        uint256 ownBishops;
        uint256 ownMinors; // own pieces other than the king
        uint256 oppNonQueen; // opponent pieces other than king and queens
        uint256 knightsOrPawns; // both sides
        uint256 bishopColours; // bit 0: a bishop on a light square, bit 1: on a dark square
        unchecked {
            for (uint256 i = 0; i < 120; ++i) {
                if (i & 8 != 0) continue;
                int256 v = _at(s, i);
                if (v == 0) continue;
                int256 role = v < 0 ? -v : v;
                bool own = (v > 0) == (side > 0);
                if (own) {
                    if (role == PAWN || role == ROOK || role == QUEEN) return false;
                    if (role != KING) ++ownMinors;
                    if (role == KNIGHT) ++ownKnights;
                    if (role == BISHOP) ++ownBishops;
                } else if (role != KING && role != QUEEN) {
                    ++oppNonQueen;
                }
                if (role == KNIGHT || role == PAWN) ++knightsOrPawns;
                // a8 (0) is light: a square is dark iff file + row is odd
                if (role == BISHOP) bishopColours |= 1 << (((i & 7) + (i >> 4)) & 1);
            }
        }
        if (ownKnights != 0) return ownMinors == 1 && oppNonQueen == 0;
        if (ownBishops != 0) return bishopColours != 3 && knightsOrPawns == 0;
        return true;
    }

    /// @notice Section 9 repetition key: keccak256 of the state with bytes 8, 9, 10 zeroed
    /// and the en-passant byte zeroed unless the side to move has a legal en-passant capture.
    function repetitionKey(bytes memory s) internal pure returns (bytes32 key) {
        int256 side = _at(s, CURRENT_PLAYER);
        uint256 epIndex = side > 0 ? BLACK_EN_PASSANT : WHITE_EN_PASSANT;
        uint256 ep = _raw(s, epIndex);
        bool keepEp;
        if (ep != 0) {
            // the capturing pawn stands beside the double-stepped pawn, one row behind the target
            uint256 behind = uint256(int256(ep) + 16 * side);
            if (_epCaptureLegal(s, behind - 1, ep, side) || _epCaptureLegal(s, behind + 1, ep, side)) keepEp = true;
        }
        assembly ("memory-safe") {
            // hash a copy in scratch memory past the free memory pointer
            let src := add(s, 0x20)
            let dst := mload(0x40)
            // zero bytes 8, 9, 10 (move count, halfmove clock) of the first word
            mstore(dst, and(mload(src), not(shl(168, 0xffffff))))
            mstore(add(dst, 0x20), mload(add(src, 0x20)))
            mstore(add(dst, 0x40), mload(add(src, 0x40)))
            mstore(add(dst, 0x60), mload(add(src, 0x60)))
            if iszero(keepEp) { mstore8(add(dst, epIndex), 0) }
            key := keccak256(dst, 128)
        }
    }

    // =====================================================================
    // Move checking (codes 1-13) and make/unmake
    // =====================================================================

    function _split(uint256 move) private pure returns (uint256 from, uint256 to, uint256 promotion) {
        from = (move >> 16) & 0xff;
        to = (move >> 8) & 0xff;
        promotion = move & 0xff;
    }

    /// @dev Codes 1-13 in section 6 order; also returns the move kind and the moving piece.
    function _precheck(bytes memory s, uint256 from, uint256 to, uint256 promotion)
        private
        pure
        returns (uint256 code, uint256 kind, int256 piece)
    {
        // 0x88 covers both "& 0x88 != 0" and ">= 128" for a byte
        if ((from | to) & 0x88 != 0) return (OFF_BOARD, 0, 0);
        if (from == to) return (SAME_SQUARE, 0, 0);
        piece = _at(s, from);
        if (piece == 0) return (EMPTY_FROM, 0, piece);
        int256 side = _at(s, CURRENT_PLAYER);
        if ((piece > 0) != (side > 0)) return (NOT_YOUR_PIECE, 0, piece);
        int256 target = _at(s, to);
        if (target != 0 && (target > 0) == (side > 0)) return (OWN_PIECE_ON_TARGET, 0, piece);
        int256 role = piece * side;
        if (role == PAWN) {
            (code, kind) = _pawnGeometry(s, from, to, side, target);
        } else if (role == KING) {
            (code, kind) = _kingGeometry(s, from, to, side);
        } else {
            code = _pieceGeometry(s, from, to, role);
        }
        if (code != 0) return (code, kind, piece);
        if (role == PAWN && (to >> 4) == (side > 0 ? 0 : 7)) {
            if (promotion == 0) return (PROMOTION_REQUIRED, kind, piece);
            if (promotion < 2 || promotion > 5) return (INVALID_PROMOTION, kind, piece);
        } else if (promotion != 0) {
            return (INVALID_PROMOTION, kind, piece);
        }
    }

    /// @dev Knight, bishop, rook, queen: codes 6 and 7.
    function _pieceGeometry(bytes memory s, uint256 from, uint256 to, int256 role) private pure returns (uint256) {
        unchecked {
            int256 df = int256(to & 7) - int256(from & 7);
            int256 dr = int256(to >> 4) - int256(from >> 4);
            int256 adf = df < 0 ? -df : df;
            int256 adr = dr < 0 ? -dr : dr;
            if (role == KNIGHT) return adf * adr == 2 ? 0 : BAD_GEOMETRY;
            bool diagonal = adf == adr;
            bool straight = adf == 0 || adr == 0;
            if (role == BISHOP ? !diagonal : role == ROOK ? !straight : !(diagonal || straight)) return BAD_GEOMETRY;
            int256 step =
                (dr > 0 ? int256(16) : dr < 0 ? -16 : int256(0)) + (df > 0 ? int256(1) : df < 0 ? -1 : int256(0));
            for (uint256 t = uint256(int256(from) + step); t != to; t = uint256(int256(t) + step)) {
                if (_raw(s, t) != 0) return PATH_BLOCKED;
            }
            return 0;
        }
    }

    /// @dev Pawn: codes 6, 7, 8.
    function _pawnGeometry(bytes memory s, uint256 from, uint256 to, int256 side, int256 target)
        private
        pure
        returns (uint256, uint256)
    {
        unchecked {
            int256 df = int256(to & 7) - int256(from & 7);
            int256 dr = int256(to >> 4) - int256(from >> 4);
            // white moves towards row 0: a forward row step is -side
            if (df == 0) {
                if (dr == -side) return (target != 0 ? PATH_BLOCKED : 0, NORMAL);
                if (dr == -2 * side && (from >> 4) == (side > 0 ? 6 : 1)) {
                    if (_raw(s, (from + to) >> 1) != 0 || target != 0) return (PATH_BLOCKED, 0);
                    return (0, DOUBLE_STEP);
                }
                return (BAD_GEOMETRY, 0);
            }
            if ((df == 1 || df == -1) && dr == -side) {
                if (target != 0) return (0, NORMAL);
                uint256 ep = _raw(s, side > 0 ? BLACK_EN_PASSANT : WHITE_EN_PASSANT);
                if (ep != 0 && ep == to) return (0, EN_PASSANT);
                return (NO_CAPTURE_TARGET, 0);
            }
            return (BAD_GEOMETRY, 0);
        }
    }

    /// @dev King: code 6; castling codes 9, 7, 10, 11 in that order.
    function _kingGeometry(bytes memory s, uint256 from, uint256 to, int256 side)
        private
        pure
        returns (uint256, uint256)
    {
        unchecked {
            if ((KING_ADJACENT >> (to + 0x77 - from)) & 1 != 0) return (0, NORMAL);
            uint256 home = side > 0 ? 116 : 4;
            if (from != home || (to != home + 2 && to != home - 2)) return (BAD_GEOMETRY, 0);
            bool kingSide = to == home + 2;
            uint256 right = side > 0
                ? (kingSide ? WHITE_RIGHT_CASTLING : WHITE_LEFT_CASTLING)
                : (kingSide ? BLACK_RIGHT_CASTLING : BLACK_LEFT_CASTLING);
            if (_raw(s, right) != 0 || _at(s, kingSide ? home + 3 : home - 4) != ROOK * side) {
                return (CASTLING_NOT_ALLOWED, 0);
            }
            if (kingSide) {
                if (_raw(s, home + 1) != 0 || _raw(s, home + 2) != 0) return (PATH_BLOCKED, 0);
            } else if (_raw(s, home - 1) != 0 || _raw(s, home - 2) != 0 || _raw(s, home - 3) != 0) {
                return (PATH_BLOCKED, 0);
            }
            if (_attacked(s, home, -side)) return (CASTLING_IN_CHECK, 0);
            if (_attacked(s, kingSide ? home + 1 : home - 1, -side)) return (CASTLING_THROUGH_CHECK, 0);
            return (0, kingSide ? CASTLE_KING_SIDE : CASTLE_QUEEN_SIDE);
        }
    }

    /// @dev Moves the pieces of a geometrically valid move (the pawn stays a pawn: a
    /// promotion does not change which squares are attacked). Returns the captured piece.
    function _make(bytes memory s, uint256 from, uint256 to, uint256 kind, int256 piece, int256 side)
        private
        pure
        returns (int256 captured)
    {
        unchecked {
            captured = _at(s, to);
            _put(s, to, piece);
            _put(s, from, 0);
            if (kind == EN_PASSANT) {
                // the double-stepped pawn stands one row behind the target, seen from the mover
                _put(s, uint256(int256(to) + 16 * side), 0);
            } else if (kind == CASTLE_KING_SIDE) {
                _put(s, from + 3, 0);
                _put(s, from + 1, ROOK * side);
            } else if (kind == CASTLE_QUEEN_SIDE) {
                _put(s, from - 4, 0);
                _put(s, from - 1, ROOK * side);
            }
        }
    }

    /// @dev Exact inverse of `_make`.
    function _unmake(bytes memory s, uint256 from, uint256 to, uint256 kind, int256 piece, int256 side, int256 captured)
        private
        pure
    {
        unchecked {
            _put(s, from, piece);
            _put(s, to, captured);
            if (kind == EN_PASSANT) {
                _put(s, uint256(int256(to) + 16 * side), -side);
            } else if (kind == CASTLE_KING_SIDE) {
                _put(s, from + 3, ROOK * side);
                _put(s, from + 1, 0);
            } else if (kind == CASTLE_QUEEN_SIDE) {
                _put(s, from - 4, ROOK * side);
                _put(s, from - 1, 0);
            }
        }
    }

    /// @dev Section 5 steps 1 and 3-7 (the board itself was updated by `_make`), in
    /// assembly because it runs on every referee move: byte writes and one read of the
    /// counters instead of a dozen helper calls.
    function _updateFlags(
        bytes memory s,
        uint256 from,
        uint256 to,
        uint256 kind,
        bool isKing,
        bool resetsClock,
        int256 side
    ) private pure {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            let white := eq(side, 1)
            // 1. both en-passant bytes (61 black, 77 white) cleared; 5. set after a double step
            mstore8(add(p, 61), 0)
            mstore8(add(p, 77), 0)
            if eq(kind, 1) { mstore8(add(p, add(61, mul(white, 16))), shr(1, add(from, to))) }
            // 3./4. king position (123 white, 11 black) and both of its side's rights (78/79, 62/63)
            if isKing {
                mstore8(add(p, add(11, mul(white, 112))), to)
                let r := add(p, add(62, mul(white, 16)))
                mstore8(r, 0xff)
                mstore8(add(r, 1), 0xff)
            }
            // 4. a move from a corner moves its rook, a move to a corner captures it:
            // corner 0 -> 62, 7 -> 63, 112 -> 78, 119 -> 79
            for { let i := 0 } lt(i, 2) { i := add(i, 1) } {
                let c := from
                if i { c := to }
                if and(shr(c, 0x810000000000000000000000000081), 1) {
                    mstore8(add(p, add(add(62, and(c, 1)), mul(16, gt(c, 7)))), 0xff)
                }
            }
            // 6./7. bytes 8 (count high), 9 (count low), 10 (halfmove clock)
            let w := mload(p)
            let high := byte(8, w)
            let low := byte(9, w)
            let clock := byte(10, w)
            switch resetsClock
            case 0 { clock := add(clock, lt(clock, 255)) }
            default { clock := 0 }
            switch lt(low, 127)
            case 1 { low := add(low, 1) }
            default {
                if lt(high, 127) {
                    high := add(high, 1)
                    low := 0
                }
            }
            mstore8(add(p, 8), high)
            mstore8(add(p, 9), low)
            mstore8(add(p, 10), clock)
            // CURRENT_PLAYER flips: 0x01 <-> 0xff
            mstore8(add(p, 56), sub(0, side))
        }
    }

    /// @dev Whether the pawn of `side` on `from` (if any) may legally capture en passant on `ep`.
    function _epCaptureLegal(bytes memory s, uint256 from, uint256 ep, int256 side) private pure returns (bool) {
        if (from & 0x88 != 0 || _at(s, from) != side) return false;
        return check(s, (from << 16) | (ep << 8)) == 0;
    }

    // =====================================================================
    // Attack test
    // =====================================================================

    /// @dev True if square `sq` is attacked by side `by` (1 white, -1 black) on the current board.
    /// Scans outwards from `sq`: two pawn squares, eight knight squares, the enemy king's
    /// square (from its position byte, one table lookup), then the eight rays. Unrolled:
    /// this runs at least twice per referee move, and "not attacked" (every test runs) is
    /// the usual answer. Any index in [-128, 255] is on the board iff `and(i, 0x88)` is 0.
    function _attacked(bytes memory s, uint256 sq, int256 by) private pure returns (bool hit) {
        assembly ("memory-safe") {
            // Straight-line code on purpose: the legacy code generator does not inline Yul
            // functions or unroll loops, and this test runs at least twice per referee move.
            // Returns 0 ("not attacked") only by falling through every test; `leave` = attacked.
            function notAttacked(p, target, attacker) -> r {
                // a white attacker pawn sits one row below (target + 16), a black one a row above
                let b := add(target, mul(attacker, 16))
                let v := and(attacker, 0xff)
                let t := sub(b, 1)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := add(b, 1)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                v := and(mul(attacker, 2), 0xff)
                t := add(target, 33)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := add(target, 31)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := add(target, 18)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := add(target, 14)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := sub(target, 33)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := sub(target, 31)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := sub(target, 18)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                t := sub(target, 14)
                if iszero(and(t, 0x88)) { if eq(byte(0, mload(add(p, t))), v) { leave } }
                // enemy king from its position byte: 123 (white) / 11 (black); bit 0x77 + d of the
                // constant is set for the eight king steps d
                let k := byte(0, mload(add(p, add(11, mul(eq(attacker, 1), 112)))))
                if and(shr(sub(add(target, 0x77), k), 0x1c0014001c0000000000000000000000000), 1) { leave }
                let q := and(mul(attacker, 5), 0xff)
                let o := and(mul(attacker, 4), 0xff) // rook on the straight rays
                b := and(mul(attacker, 3), 0xff) // bishop on the diagonals
                for { t := add(target, 1) } iszero(and(t, 0x88)) { t := add(t, 1) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, o), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, sub(0, 1)) } iszero(and(t, 0x88)) { t := add(t, sub(0, 1)) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, o), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, 16) } iszero(and(t, 0x88)) { t := add(t, 16) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, o), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, sub(0, 16)) } iszero(and(t, 0x88)) { t := add(t, sub(0, 16)) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, o), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, 15) } iszero(and(t, 0x88)) { t := add(t, 15) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, b), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, sub(0, 15)) } iszero(and(t, 0x88)) { t := add(t, sub(0, 15)) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, b), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, 17) } iszero(and(t, 0x88)) { t := add(t, 17) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, b), eq(v, q)) { leave }
                        break
                    }
                }
                for { t := add(target, sub(0, 17)) } iszero(and(t, 0x88)) { t := add(t, sub(0, 17)) } {
                    v := byte(0, mload(add(p, t)))
                    if v {
                        if or(eq(v, b), eq(v, q)) { leave }
                        break
                    }
                }
                r := 1
            }
            hit := iszero(notAttacked(add(s, 0x20), sq, by))
        }
    }

    // =====================================================================
    // Legal-move existence (status)
    // =====================================================================

    function _hasLegalMove(bytes memory s, int256 side, uint256 king, bool inCheck) private pure returns (bool) {
        Search memory q = Search({side: side, king: king, targets: type(uint256).max, checker: 255, pin: 0});
        if (!inCheck) {
            // cheapest first: piece moves need no attack test (pins are found by one ray walk)
            return _hasPieceMove(s, q) || _hasKingMove(s, side, king);
        }
        if (_hasKingMove(s, side, king)) return true;
        // the checkers are the enemy pieces that could capture on the king's square
        uint256 checkers = _movers(s, king, -side, true);
        // double check: only the king can move
        if (checkers > 0xff) return false;
        q.checker = checkers - 1;
        return _hasEvasion(s, q);
    }

    /// @dev In check by the one piece on `q.checker`: any legal non-king move that captures
    /// it or blocks its line. Searched from those few squares outwards rather than over every
    /// piece's moves (a mate search costs a third). A pinned piece never answers a check (the
    /// pin and check lines meet only at the king); en passant, which removes a second pawn,
    /// is tested for real.
    function _hasEvasion(bytes memory s, Search memory q) private pure returns (bool) {
        unchecked {
            int256 side = q.side;
            uint256 checker = q.checker;
            uint256 king = q.king;
            // a slider's line to the king, from the checker's side (0 for a knight or pawn)
            int256 step;
            {
                int256 role = _at(s, checker) * -side;
                if (role == BISHOP || role == ROOK || role == QUEEN) step = _lineStep(checker, king);
            }
            uint256 targets = 1 << checker;
            if (step != 0) {
                for (uint256 t = uint256(int256(checker) + step); t != king; t = uint256(int256(t) + step)) {
                    targets |= 1 << t;
                }
            }
            q.targets = targets;
            uint256 ep = _raw(s, side > 0 ? BLACK_EN_PASSANT : WHITE_EN_PASSANT);
            if (ep != 0) {
                for (uint256 j = 0; j < 2; ++j) {
                    uint256 from = uint256(int256(ep) + 16 * side) + j * 2 - 1;
                    if (from & 0x88 == 0 && _at(s, from) == PAWN * side) {
                        if (_candidateLegal(s, q, from, ep, EN_PASSANT, PAWN * side)) return true;
                    }
                }
            }
            if (_reaches(s, king, checker, side, true)) return true;
            if (step != 0) {
                for (uint256 t = uint256(int256(checker) + step); t != king; t = uint256(int256(t) + step)) {
                    if (_reaches(s, king, t, side, false)) return true;
                }
            }
            return false;
        }
    }

    /// @dev Whether an unpinned non-king piece of `side` moves to `t` by a pseudo-legal move:
    /// a capture of the piece there when `capture`, else a step onto the empty `t`.
    function _reaches(bytes memory s, uint256 king, uint256 t, int256 side, bool capture) private pure returns (bool) {
        unchecked {
            for (uint256 list = _movers(s, t, side, capture); list != 0; list >>= 8) {
                if (_pinStep(s, king, (list & 0xff) - 1, side) == 0) return true;
            }
            return false;
        }
    }

    /// @dev The squares (each plus one, one per byte) of the non-king pieces of `side` with
    /// a pseudo-legal move to `t` (as in `_reaches`), pins ignored.
    function _movers(bytes memory s, uint256 t, int256 side, bool capture) private pure returns (uint256 list) {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            let n := and(mul(side, 2), 0xff)
            let u := 0
            for { let i := 0 } lt(i, 8) { i := add(i, 1) } {
                u := add(t, signextend(0, byte(i, KNIGHT_STEPS)))
                if iszero(and(u, 0x88)) {
                    if eq(byte(0, mload(add(p, u))), n) { list := or(shl(8, list), add(u, 1)) }
                }
            }
            let q := and(mul(side, 5), 0xff)
            // straight lines first (rook or queen), then diagonals (bishop or queen)
            let slider := and(mul(side, 4), 0xff)
            for { let i := 0 } lt(i, 8) { i := add(i, 1) } {
                if eq(i, 4) { slider := and(mul(side, 3), 0xff) }
                let d := signextend(0, byte(i, SLIDER_STEPS))
                for { u := add(t, d) } iszero(and(u, 0x88)) { u := add(u, d) } {
                    let v := byte(0, mload(add(p, u)))
                    if v {
                        if or(eq(v, q), eq(v, slider)) { list := or(shl(8, list), add(u, 1)) }
                        break
                    }
                }
            }
            // a pawn of `side` stands one row behind `t`: below it for white (higher index)
            let pawn := and(side, 0xff)
            let behind := add(t, mul(side, 16))
            switch capture
            case 1 {
                u := sub(behind, 1)
                if iszero(and(u, 0x88)) {
                    if eq(byte(0, mload(add(p, u))), pawn) { list := or(shl(8, list), add(u, 1)) }
                }
                u := add(behind, 1)
                if iszero(and(u, 0x88)) {
                    if eq(byte(0, mload(add(p, u))), pawn) { list := or(shl(8, list), add(u, 1)) }
                }
            }
            default {
                if iszero(and(behind, 0x88)) {
                    let v := byte(0, mload(add(p, behind)))
                    if eq(v, pawn) { list := or(shl(8, list), add(behind, 1)) }
                    // a double step lands on row 4 (white) or row 3 (black) over an empty square
                    if iszero(v) {
                        if eq(shr(4, t), add(3, sgt(side, 0))) {
                            u := add(behind, mul(side, 16))
                            if eq(byte(0, mload(add(p, u))), pawn) { list := or(shl(8, list), add(u, 1)) }
                        }
                    }
                }
            }
        }
    }

    /// @dev Any legal king step (castling never needs testing: if it is legal, so is the step to f1/d1).
    function _hasKingMove(bytes memory s, int256 side, uint256 king) private pure returns (bool) {
        unchecked {
            int256 k = KING * side;
            for (uint256 i = 0; i < 8; ++i) {
                uint256 t = uint256(int256(king) + _sliderStep(i));
                if (t & 0x88 != 0) continue;
                int256 v = _at(s, t);
                if (v != 0 && (v > 0) == (side > 0)) continue;
                // lift the king so that it does not shield the squares behind it
                _put(s, king, 0);
                _put(s, t, k);
                bool hit = _attacked(s, t, -side);
                _put(s, t, v);
                _put(s, king, k);
                if (!hit) return true;
            }
            return false;
        }
    }

    /// @dev Any legal move of a non-king piece landing on `q.targets`.
    function _hasPieceMove(bytes memory s, Search memory q) private pure returns (bool) {
        unchecked {
            int256 side = q.side;
            // Rows from the mover's pawn rank towards the enemy, its back rank last: pawns
            // there are rarely pinned and usually have a step, so the search ends early.
            uint256 order = side > 0 ? 0x0605040302010007 : 0x0102030405060700;
            for (uint256 r = 0; r < 8; ++r) {
                uint256 base = ((order >> (56 - 8 * r)) & 0xff) << 4;
                uint256 row = _row(s, base);
                if (row == 0) continue;
                for (uint256 f = 0; f < 8; ++f) {
                    // signed piece code of file f from the row's eight board bytes
                    int256 piece = int256(int8(uint8(row >> (56 - 8 * f))));
                    int256 role = piece * side;
                    if (role <= 0 || role == KING) continue;
                    if (_pieceHasMove(s, q, base + f, piece, role)) return true;
                }
            }
            return false;
        }
    }

    /// @dev Any legal move of the non-king piece `piece` (role `role`) on `from`.
    function _pieceHasMove(bytes memory s, Search memory q, uint256 from, int256 piece, int256 role)
        private
        pure
        returns (bool)
    {
        unchecked {
            int256 side = q.side;
            q.pin = _pinStep(s, q.king, from, side);
            if (role == PAWN) return _pawnHasMove(s, q, from, piece);
            if (role == KNIGHT) {
                for (uint256 i = 0; i < 8; ++i) {
                    uint256 t = uint256(int256(from) + _knightStep(i));
                    if (t & 0x88 != 0 || _at(s, t) * side > 0) continue;
                    if (_candidateLegal(s, q, from, t, NORMAL, piece)) return true;
                }
                return false;
            }
            // bishop: diagonals (4-7), rook: straight (0-3), queen: all
            uint256 last = role == ROOK ? 4 : 8;
            for (uint256 i = role == BISHOP ? 4 : 0; i < last; ++i) {
                int256 d = _sliderStep(i);
                for (uint256 t = uint256(int256(from) + d); t & 0x88 == 0; t = uint256(int256(t) + d)) {
                    int256 v = _at(s, t);
                    if (v * side > 0) break;
                    if (_candidateLegal(s, q, from, t, NORMAL, piece)) return true;
                    if (v != 0) break;
                }
            }
            return false;
        }
    }

    function _pawnHasMove(bytes memory s, Search memory q, uint256 from, int256 piece) private pure returns (bool) {
        unchecked {
            int256 side = q.side;
            // pawns never stand on the last rank, so one step forward is on the board
            uint256 one = uint256(int256(from) - 16 * side);
            if (_raw(s, one) == 0) {
                if (_candidateLegal(s, q, from, one, NORMAL, piece)) return true;
                if ((from >> 4) == (side > 0 ? 6 : 1)) {
                    uint256 two = uint256(int256(one) - 16 * side);
                    if (_raw(s, two) == 0 && _candidateLegal(s, q, from, two, DOUBLE_STEP, piece)) return true;
                }
            }
            uint256 ep = _raw(s, side > 0 ? BLACK_EN_PASSANT : WHITE_EN_PASSANT);
            for (uint256 j = 0; j < 2; ++j) {
                uint256 t = j == 0 ? one - 1 : one + 1;
                if (t & 0x88 != 0) continue;
                int256 v = _at(s, t);
                if (v * side < 0) {
                    if (_candidateLegal(s, q, from, t, NORMAL, piece)) return true;
                } else if (v == 0 && ep != 0 && t == ep) {
                    if (_candidateLegal(s, q, from, t, EN_PASSANT, piece)) return true;
                }
            }
            return false;
        }
    }

    /// @dev Whether a pseudo-legal non-king move is legal, without an attack test except for
    /// en passant: in check it must land on `q.targets` (capture or block the single
    /// checker), and a pinned piece (`q.pin`) must stay on its pin line.
    function _candidateLegal(bytes memory s, Search memory q, uint256 from, uint256 to, uint256 kind, int256 piece)
        private
        pure
        returns (bool)
    {
        unchecked {
            int256 side = q.side;
            if ((q.targets >> to) & 1 == 0) {
                // en passant can also answer a check by removing the checking pawn
                if (kind != EN_PASSANT || uint256(int256(to) + 16 * side) != q.checker) return false;
            }
            uint256 king = q.king;
            if (kind != EN_PASSANT) {
                // a pinned piece may only move along the pin line (never true in check:
                // the check and pin lines meet only at the king)
                int256 pin = q.pin;
                if (pin == 0) return true;
                int256 diff = int256(to) - int256(king);
                int256 steps = diff / pin;
                return steps > 0 && steps < 8 && steps * pin == diff;
            }
            // en passant removes a second pawn from the board: test it for real
            int256 captured = _make(s, from, to, kind, piece, side);
            bool hit = _attacked(s, king, -side);
            _unmake(s, from, to, kind, piece, side, captured);
            return !hit;
        }
    }

    /// @dev If the piece of `side` on `from` is pinned against its king on `king`, the
    /// step from the king towards the pinner; else 0. Pinned: on a line with the king,
    /// nothing between them, and the first piece beyond it on that line an enemy queen,
    /// or rook (straight line) or bishop (diagonal).
    function _pinStep(bytes memory s, uint256 king, uint256 from, int256 side) private pure returns (int256) {
        unchecked {
            int256 df = int256(from & 7) - int256(king & 7);
            int256 dr = int256(from >> 4) - int256(king >> 4);
            bool straight = df == 0 || dr == 0;
            if (!straight && df != dr && df != -dr) return 0;
            int256 step = _lineStep(king, from);
            uint256 t = uint256(int256(king) + step);
            for (; t != from; t = uint256(int256(t) + step)) {
                if (_raw(s, t) != 0) return 0;
            }
            for (t = uint256(int256(t) + step); t & 0x88 == 0; t = uint256(int256(t) + step)) {
                int256 v = _at(s, t);
                if (v == 0) continue;
                if (v == -QUEEN * side || v == (straight ? -ROOK : -BISHOP) * side) return step;
                return 0;
            }
            return 0;
        }
    }

    /// @dev The king-like step from `from` towards `to` (one row and/or one file).
    function _lineStep(uint256 from, uint256 to) private pure returns (int256) {
        unchecked {
            int256 df = int256(to & 7) - int256(from & 7);
            int256 dr = int256(to >> 4) - int256(from >> 4);
            return (dr > 0 ? int256(16) : dr < 0 ? -16 : int256(0)) + (df > 0 ? int256(1) : df < 0 ? -1 : int256(0));
        }
    }

    // =====================================================================
    // Insufficient material
    // =====================================================================

    /// @notice Both sides have insufficient mating material (section 8 status 3). Exits at
    /// the first pawn, rook or queen, which rules out both (the usual case), before the full
    /// per-side count.
    function bothInsufficient(bytes memory s) internal pure returns (bool) {
        bool heavy;
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            for { let i := 0 } lt(i, 120) { i := add(i, 1) } {
                if and(i, 8) {
                    i := add(i, 7)
                    continue
                }
                let v := byte(0, mload(add(p, i)))
                // pawn, rook, queen of either colour: 1, 4, 5, 0xff, 0xfc, 0xfb
                if or(or(eq(v, 1), eq(v, 0xff)), or(or(eq(v, 4), eq(v, 5)), or(eq(v, 0xfc), eq(v, 0xfb)))) {
                    heavy := 1
                    break
                }
            }
        }
        if (heavy) return false;
        return insufficientMaterial(s, 1) && insufficientMaterial(s, -1);
    }

    // =====================================================================
    // Validation helpers
    // =====================================================================

    /// @dev Section 7 code 2 over all shadow bytes at once: every shadow byte that is not a
    /// flag is 0 (one masked OR over the four state words), and each flag is in its domain.
    function _shadowBytesInDomain(bytes memory s) private pure returns (bool) {
        uint256 stray;
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            stray := or(
                or(
                    and(mload(p), 0x000000000000000000000000ffffffff0000000000000000ffffffffffffffff),
                    and(mload(add(p, 32)), 0x0000000000000000ffffffffffffffff000000000000000000ffffffff000000)
                ),
                or(
                    and(mload(add(p, 64)), 0x0000000000000000ffffffffff0000000000000000000000ffffffffffffffff),
                    and(mload(add(p, 96)), 0x0000000000000000ffffffffffffffff0000000000000000ffffff00ffffffff)
                )
            )
        }
        if (stray != 0) return false;
        if (_raw(s, MOVE_COUNT_HIGH) > 127 || _raw(s, MOVE_COUNT_LOW) > 127) return false;
        uint256 v = _raw(s, CURRENT_PLAYER);
        if (v != 0x01 && v != 0xff) return false;
        if (!_isFlag(_raw(s, BLACK_LEFT_CASTLING)) || !_isFlag(_raw(s, BLACK_RIGHT_CASTLING))) return false;
        if (!_isFlag(_raw(s, WHITE_LEFT_CASTLING)) || !_isFlag(_raw(s, WHITE_RIGHT_CASTLING))) return false;
        v = _raw(s, BLACK_EN_PASSANT);
        if (v != 0 && (v < 32 || v > 39)) return false;
        v = _raw(s, WHITE_EN_PASSANT);
        return v == 0 || (v >= 80 && v <= 87);
    }

    /// @dev A castling flag: 0 or 0xff.
    function _isFlag(uint256 v) private pure returns (bool) {
        return v == 0 || v == 0xff;
    }

    function _rightConsistent(bytes memory s, uint256 right, uint256 kingSq, uint256 rookSq, int256 king, int256 rook)
        private
        pure
        returns (bool)
    {
        return _raw(s, right) != 0 || (_at(s, kingSq) == king && _at(s, rookSq) == rook);
    }

    // =====================================================================
    // Byte access
    // =====================================================================

    /// @dev Signed byte `i` of the state (a piece code, or a flag read as int8).
    function _at(bytes memory s, uint256 i) private pure returns (int256 v) {
        assembly ("memory-safe") {
            v := signextend(0, byte(0, mload(add(add(s, 0x20), i))))
        }
    }

    /// @dev Unsigned byte `i` of the state.
    function _raw(bytes memory s, uint256 i) private pure returns (uint256 v) {
        assembly ("memory-safe") {
            v := byte(0, mload(add(add(s, 0x20), i)))
        }
    }

    /// @dev Writes the low byte of `v` (two's complement) at index `i`.
    function _put(bytes memory s, uint256 i, int256 v) private pure {
        assembly ("memory-safe") {
            mstore8(add(add(s, 0x20), i), v)
        }
    }

    /// @dev The eight board bytes of the row starting at `base`, as a uint64 (file a highest).
    function _row(bytes memory s, uint256 base) private pure returns (uint256 v) {
        assembly ("memory-safe") {
            v := shr(192, mload(add(add(s, 0x20), base)))
        }
    }

    function _kingSquare(bytes memory s, int256 side) private pure returns (uint256) {
        return _raw(s, side > 0 ? WHITE_KING_POS : BLACK_KING_POS);
    }

    function _sliderStep(uint256 i) private pure returns (int256 d) {
        assembly {
            d := signextend(0, byte(i, SLIDER_STEPS))
        }
    }

    function _knightStep(uint256 i) private pure returns (int256 d) {
        assembly {
            d := signextend(0, byte(i, KNIGHT_STEPS))
        }
    }

    /// @dev Test-only addition: the old `_attacked` on the side to move's king, i.e. the
    /// `inCheck` the old `status` computed (ChessRulesGasReview.t.sol compares it).
    function sideToMoveInCheckForTest(bytes memory s) internal pure returns (bool) {
        int256 side = _at(s, CURRENT_PLAYER);
        return _attacked(s, _kingSquare(s, side), -side);
    }
}
