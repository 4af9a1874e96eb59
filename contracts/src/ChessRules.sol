// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice A move was rejected; `code` is the ENCODING.md section 6 rejection code (1-14).
error IllegalMove(uint8 code);
/// @notice A state failed ENCODING.md section 7; `code` is the first failing check (1-8).
error InvalidState(uint8 code);
/// @notice A state was not exactly 128 bytes long.
error BadStateLength(uint256 length);

/// @title ChessRules
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
library ChessRules {
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

    /// @dev Bit `0x77 + d` set for each 0x88 difference d of two squares on one rank, file
    /// or diagonal (a queen's line).
    uint256 private constant LINES = 0x4081208210840888049002a001c07f7f01c002a004900888108420824081;
    /// @dev Bit `0x77 + d` set for each knight leap d.
    uint256 private constant KNIGHT_LEAPS = 0x140022000000220014 << 84;

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
                let ones := 0x0101010101010101010101010101010101010101010101010101010101010101
                for { let k := 0 } lt(k, 128) { k := add(k, 32) } {
                    // the board bytes of two rows (bytes 0..7 and 16..23 of the word), others 0
                    let x := and(mload(add(p, k)), 0xffffffffffffffff0000000000000000ffffffffffffffff0000000000000000)
                    let hi := and(x, 0x8080808080808080808080808080808080808080808080808080808080808080)
                    // per byte (b + 6) mod 256, then >= 13 sets the byte's top bit
                    let t := xor(add(xor(x, hi), mul(ones, 6)), hi)
                    badPiece := or(
                        badPiece,
                        and(
                            or(
                                t,
                                add(
                                    and(t, 0x7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f),
                                    mul(ones, 0x73)
                                )
                            ),
                            0x8080808080808080808080808080808080808080808080808080808080808080
                        )
                    )
                    whiteKings := add(whiteKings, zeroBytes(xor(x, mul(ones, 6))))
                    blackKings := add(blackKings, zeroBytes(xor(x, mul(ones, 0xfa))))
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
            // 7: kept castling rights (flag 0) need king and rook at home: white's flags 78
            // and 79, king on 116, rooks on 112 and 119; black's 62 and 63, king on 4, rooks on 0
            // and 7. One assembly block (measured: about 800 gas less than a helper call per
            // right, and shorter code).
            bool badCastling;
            assembly ("memory-safe") {
                let p := add(s, 0x20)
                let wHome := eq(byte(0, mload(add(p, 116))), 6)
                let bHome := eq(byte(0, mload(add(p, 4))), 0xfa)
                badCastling := or(
                    or(
                        and(iszero(byte(0, mload(add(p, 78)))), iszero(and(wHome, eq(byte(0, mload(add(p, 112))), 4)))),
                        and(iszero(byte(0, mload(add(p, 79)))), iszero(and(wHome, eq(byte(0, mload(add(p, 119))), 4))))
                    ),
                    or(
                        and(iszero(byte(0, mload(add(p, 62)))), iszero(and(bHome, eq(byte(0, mload(p)), 0xfc)))),
                        and(iszero(byte(0, mload(add(p, 63)))), iszero(and(bHome, eq(byte(0, mload(add(p, 7))), 0xfc))))
                    )
                )
            }
            if (badCastling) return BAD_CASTLING;
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

    /// @notice `applyMove`, also telling whether the move gives check (the side to move
    /// in `s` afterwards is in check), for `statusInCheck`: the same code but the last line.
    function playMove(bytes memory s, uint256 move) internal pure returns (uint256 code, bool givesCheck) {
        (uint256 from, uint256 to, uint256 promotion) = _split(move);
        uint256 kind;
        int256 piece;
        (code, kind, piece) = _precheck(s, from, to, promotion);
        if (code != 0) return (code, false);
        int256 side = piece > 0 ? int256(1) : -1;
        int256 captured = _make(s, from, to, kind, piece, side);
        bool isKing = piece == KING * side;
        if (_attacked(s, isKing ? to : _kingSquare(s, side), -side)) {
            _unmake(s, from, to, kind, piece, side, captured);
            return (KING_LEFT_IN_CHECK, false);
        }
        if (promotion != 0) _put(s, to, int256(promotion) * side);
        _updateFlags(s, from, to, kind, isKing, piece == side || captured != 0, side);
        givesCheck = _givesCheck(s, from, to, kind, side);
    }

    /// @notice Section 8 status of `s` for the side to move.
    function status(bytes memory s) internal pure returns (uint256) {
        int256 side = _at(s, CURRENT_PLAYER);
        return statusInCheck(s, _attacked(s, _kingSquare(s, side), -side));
    }

    /// @notice `status`, given whether the side to move is in check (from `playMove`).
    function statusInCheck(bytes memory s, bool inCheck) internal pure returns (uint256) {
        int256 side = _at(s, CURRENT_PLAYER);
        uint256 king = _kingSquare(s, side);
        // The usual case first: a free pawn step is a legal move and puts a pawn on the board,
        // so material suffices (measured on the gas test's 641 real moves: the median move
        // about 540 gas less than with the count).
        if (inCheck || !_freePawnStep(s, side, king)) {
            if (!_hasLegalMove(s, side, king, inCheck)) return inCheck ? CHECKMATE : STALEMATE;
            if (bothInsufficient(s)) return INSUFFICIENT_MATERIAL;
        }
        if (_raw(s, HALFMOVE_CLOCK) >= 150) return SEVENTY_FIVE_MOVES;
        return ONGOING;
    }

    /// @notice Whether `side` (1 white, -1 black) has insufficient mating material
    /// (section 8; shakmaty's `has_insufficient_material`).
    function insufficientMaterial(bytes memory s, int256 side) internal pure returns (bool) {
        (uint256 counts, uint256 colours) = _material(s);
        return _insufficient(side > 0 ? counts : _blacksView(counts), colours);
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

    /// @dev Codes 1-13 in section 6 order; also returns the move kind and the moving piece
    /// (meaningful when the code is 0). In assembly but for the castling attack tests: it runs
    /// on every move, and the Solidity version was about 1,600 bytes of the referee's code.
    function _precheck(bytes memory s, uint256 from, uint256 to, uint256 promotion)
        private
        pure
        returns (uint256 code, uint256 kind, int256 piece)
    {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            let side
            let role
            // one pass through this block: every `break` is a decision (code 0 with a kind,
            // or codes 1-9); codes 10 and 11 (castling) below, 12 and 13 after the block
            for {} 1 {} {
                // 0x88 covers both "& 0x88 != 0" and ">= 128" for a byte
                if and(or(from, to), 0x88) {
                    code := 1 // OFF_BOARD
                    break
                }
                if eq(from, to) {
                    code := 2 // SAME_SQUARE
                    break
                }
                piece := signextend(0, byte(0, mload(add(p, from))))
                if iszero(piece) {
                    code := 3 // EMPTY_FROM
                    break
                }
                side := signextend(0, byte(0, mload(add(p, 56)))) // CURRENT_PLAYER
                if iszero(eq(slt(piece, 0), slt(side, 0))) {
                    code := 4 // NOT_YOUR_PIECE
                    break
                }
                let target := signextend(0, byte(0, mload(add(p, to))))
                if and(iszero(iszero(target)), eq(slt(target, 0), slt(side, 0))) {
                    code := 5 // OWN_PIECE_ON_TARGET
                    break
                }
                role := mul(piece, side)
                let df := sub(and(to, 7), and(from, 7))
                let dr := sub(shr(4, to), shr(4, from))
                if eq(role, 1) {
                    // pawn: codes 6, 7, 8; white moves towards row 0, a forward row step is -side
                    let fwd := sub(0, side)
                    if iszero(df) {
                        if eq(dr, fwd) {
                            if target { code := 7 } // PATH_BLOCKED
                            break
                        }
                        // a double step from row 6 (white) or 1 (black) over an empty square
                        if and(eq(dr, mul(2, fwd)), eq(shr(4, from), add(1, mul(5, sgt(side, 0))))) {
                            if or(byte(0, mload(add(p, shr(1, add(from, to))))), target) {
                                code := 7 // PATH_BLOCKED
                                break
                            }
                            kind := 1 // DOUBLE_STEP
                            break
                        }
                        code := 6 // BAD_GEOMETRY
                        break
                    }
                    if and(eq(dr, fwd), or(eq(df, 1), eq(df, not(0)))) {
                        if target { break }
                        // the opponent's en-passant byte: 61 (black's) for white, 77 for black
                        let ep := byte(0, mload(add(p, add(61, mul(16, slt(side, 0))))))
                        if and(iszero(iszero(ep)), eq(ep, to)) {
                            kind := 2 // EN_PASSANT
                            break
                        }
                        code := 8 // NO_CAPTURE_TARGET
                        break
                    }
                    code := 6 // BAD_GEOMETRY
                    break
                }
                if eq(role, 6) {
                    // king: code 6; castling codes 9 and 7 here, 10 and 11 below
                    if and(shr(sub(add(to, 0x77), from), KING_ADJACENT), 1) { break }
                    let home := 4
                    if sgt(side, 0) { home := 116 }
                    let kingSide := eq(to, add(home, 2))
                    if or(iszero(eq(from, home)), iszero(or(kingSide, eq(to, sub(home, 2))))) {
                        code := 6 // BAD_GEOMETRY
                        break
                    }
                    // the right byte: 62/63 (black's queen/king side), 78/79 (white's)
                    let rook := sub(home, 4)
                    if kingSide { rook := add(home, 3) }
                    if or(
                        byte(0, mload(add(p, add(add(62, kingSide), mul(16, sgt(side, 0)))))),
                        iszero(eq(signextend(0, byte(0, mload(add(p, rook)))), mul(4, side)))
                    ) {
                        code := 9 // CASTLING_NOT_ALLOWED
                        break
                    }
                    // every square between king and rook empty
                    let between := or(byte(0, mload(add(p, sub(home, 1)))), byte(0, mload(add(p, sub(home, 2)))))
                    between := or(between, byte(0, mload(add(p, sub(home, 3)))))
                    if kingSide { between := or(byte(0, mload(add(p, add(home, 1)))), byte(0, mload(add(p, to)))) }
                    if between {
                        code := 7 // PATH_BLOCKED
                        break
                    }
                    kind := add(3, iszero(kingSide)) // CASTLE_KING_SIDE 3, CASTLE_QUEEN_SIDE 4
                    break
                }
                // knight, bishop, rook, queen: codes 6 and 7
                let adf := df
                if slt(df, 0) { adf := sub(0, df) }
                let adr := dr
                if slt(dr, 0) { adr := sub(0, dr) }
                if eq(role, 2) {
                    if iszero(eq(mul(adf, adr), 2)) { code := 6 } // BAD_GEOMETRY
                    break
                }
                let diagonal := eq(adf, adr)
                let straight := or(iszero(adf), iszero(adr))
                let fits := or(diagonal, straight)
                if eq(role, 3) { fits := diagonal }
                if eq(role, 4) { fits := straight }
                if iszero(fits) {
                    code := 6 // BAD_GEOMETRY
                    break
                }
                let step := add(mul(16, sub(sgt(dr, 0), slt(dr, 0))), sub(sgt(df, 0), slt(df, 0)))
                for { let t := add(from, step) } iszero(eq(t, to)) { t := add(t, step) } {
                    if byte(0, mload(add(p, t))) {
                        code := 7 // PATH_BLOCKED
                        break
                    }
                }
                break
            }
            // codes 12 and 13 (castling's after its attack tests below)
            if iszero(or(code, gt(kind, 2))) {
                // a pawn reaching row 0 (white) or row 7 (black) promotes to 2..5
                switch and(eq(role, 1), eq(shr(4, to), mul(7, slt(side, 0))))
                case 1 {
                    if iszero(promotion) { code := 12 } // PROMOTION_REQUIRED
                    if or(lt(promotion, 2), gt(promotion, 5)) { if promotion { code := 13 } }
                }
                default {
                    // INVALID_PROMOTION
                    if promotion { code := 13 }
                }
            }
        }
        if (kind > EN_PASSANT) {
            // castling: codes 10, 11, then 13 (a king move never promotes)
            int256 by = -piece / KING;
            if (_attacked(s, from, by)) return (CASTLING_IN_CHECK, 0, piece);
            if (_attacked(s, kind == CASTLE_KING_SIDE ? from + 1 : from - 1, by)) {
                return (CASTLING_THROUGH_CHECK, 0, piece);
            }
            if (promotion != 0) return (INVALID_PROMOTION, 0, piece);
        }
    }

    /// @dev Moves the pieces of a geometrically valid move (the pawn stays a pawn: a
    /// promotion does not change which squares are attacked). Returns the captured piece.
    function _make(bytes memory s, uint256 from, uint256 to, uint256 kind, int256 piece, int256 side)
        private
        pure
        returns (int256 captured)
    {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            captured := signextend(0, byte(0, mload(add(p, to))))
            mstore8(add(p, to), piece)
            mstore8(add(p, from), 0)
            switch kind
            case 2 {
                // EN_PASSANT: the double-stepped pawn stands one row behind the target, seen from the mover
                mstore8(add(p, add(to, mul(16, side))), 0)
            }
            case 3 {
                // CASTLE_KING_SIDE: the rook from h1/h8 to f1/f8
                mstore8(add(p, add(from, 3)), 0)
                mstore8(add(p, add(from, 1)), mul(4, side))
            }
            case 4 {
                // CASTLE_QUEEN_SIDE: the rook from a1/a8 to d1/d8
                mstore8(add(p, sub(from, 4)), 0)
                mstore8(add(p, sub(from, 1)), mul(4, side))
            }
        }
    }

    /// @dev Exact inverse of `_make`.
    function _unmake(bytes memory s, uint256 from, uint256 to, uint256 kind, int256 piece, int256 side, int256 captured)
        private
        pure
    {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            mstore8(add(p, from), piece)
            mstore8(add(p, to), captured)
            switch kind
            case 2 { mstore8(add(p, add(to, mul(16, side))), sub(0, side)) }
            case 3 {
                mstore8(add(p, add(from, 3)), mul(4, side))
                mstore8(add(p, add(from, 1)), 0)
            }
            case 4 {
                mstore8(add(p, sub(from, 4)), mul(4, side))
                mstore8(add(p, sub(from, 1)), 0)
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

    /// @dev Whether the move from `from` to `to` (of `kind`) just made by `side` attacks the
    /// enemy king, on the board after it (promotion included). The side not to move is never
    /// in check before a move (section 7 code 6, kept by every legal move), so only the moved
    /// piece and the line through the square it left can attack that king now; en passant and
    /// castling, which empty or fill two more squares, take the full test (measured: about
    /// 1,900 gas less than the full test at the median of the gas test's 641 real moves).
    function _givesCheck(bytes memory s, uint256 from, uint256 to, uint256 kind, int256 side)
        private
        pure
        returns (bool hit)
    {
        if (kind >= EN_PASSANT) return _attacked(s, _kingSquare(s, -side), side);
        assembly ("memory-safe") {
            // Whether the first piece from `k` on the line through `v` is a queen of `by`,
            // or its rook (straight line) or bishop (diagonal); false if no line joins them.
            // The literal is LINES (a Yul function cannot name a constant).
            function line(p, k, v, by) -> r {
                if iszero(
                    and(shr(add(sub(v, k), 0x77), 0x4081208210840888049002a001c07f7f01c002a004900888108420824081), 1)
                ) { leave }
                let dr := sub(shr(4, v), shr(4, k))
                let df := sub(and(v, 7), and(k, 7))
                // the rook on a rank or file, else the bishop
                let own := and(mul(by, 3), 0xff)
                if or(iszero(dr), iszero(df)) { own := and(mul(by, 4), 0xff) }
                let step := add(mul(16, sub(sgt(dr, 0), slt(dr, 0))), sub(sgt(df, 0), slt(df, 0)))
                let q := and(mul(by, 5), 0xff)
                for { let t := add(k, step) } iszero(and(t, 0x88)) { t := add(t, step) } {
                    let x := byte(0, mload(add(p, t)))
                    if x {
                        r := or(eq(x, q), eq(x, own))
                        leave
                    }
                }
            }
            let p := add(s, 0x20)
            // the enemy king: 11 (black's) after a white move, 123 (white's) after a black one
            let k := byte(0, mload(add(p, add(11, mul(slt(side, 0), 112)))))
            let role := mul(signextend(0, byte(0, mload(add(p, to)))), side)
            switch role
            case 1 {
                // a white pawn attacks 15 and 17 squares up (index down), a black one down
                let d := mul(sub(k, to), side)
                hit := or(eq(d, not(14)), eq(d, not(16)))
            }
            case 2 { hit := and(shr(add(sub(k, to), 0x77), KNIGHT_LEAPS), 1) }
            case 6 {}
            default { hit := line(p, k, to, side) }
            if iszero(hit) { hit := line(p, k, from, side) }
        }
    }

    // =====================================================================
    // Legal-move existence (status)
    // =====================================================================

    /// @dev Whether `side` has a legal move, its free pawn steps ruled out already when it is
    /// not in check.
    function _hasLegalMove(bytes memory s, int256 side, uint256 king, bool inCheck) private pure returns (bool) {
        Search memory q = Search({side: side, king: king, targets: type(uint256).max, checker: 255, pin: 0});
        if (!inCheck) {
            // cheapest first: piece moves need no attack test (pins are found by one ray walk)
            if (_hasPieceMove(s, q)) return true;
            return _bareKing(s, side) ? _hasKingStep(s, side, king) : _hasKingMove(s, side, king);
        }
        // a bare king has no other answer to a check than a step
        if (_bareKing(s, side)) return _hasKingStep(s, side, king);
        if (_hasKingMove(s, side, king)) return true;
        // the checkers are the enemy pieces that could capture on the king's square
        uint256 checkers = _movers(s, king, -side, true);
        // double check: only the king can move
        if (checkers > 0xff) return false;
        q.checker = checkers - 1;
        return _hasEvasion(s, q);
    }

    /// @dev Whether `side` has no piece but its king (`_ownPieces` of the board bytes, four
    /// rows to a word): then only king steps answer, found by `_hasKingStep` (measured: a
    /// bare king mated by a rook from the far corner, about 28,000 gas less than a search for
    /// blocks; a position in check that has other pieces, about 550 more).
    function _bareKing(bytes memory s, int256 side) private pure returns (bool) {
        uint256 ones;
        uint256 a;
        uint256 b;
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            // 0x01 in every byte, built at run time (see `_material`)
            ones := div(not(0), add(0xfe, iszero(iszero(p))))
            let board := 0xffffffffffffffff0000000000000000ffffffffffffffff0000000000000000
            a := or(and(mload(p), board), shr(64, and(mload(add(p, 0x20)), board)))
            b := or(and(mload(add(p, 0x40)), board), shr(64, and(mload(add(p, 0x60)), board)))
        }
        return _ownPieces(a, side, ones) | _ownPieces(b, side, ones) == 0;
    }

    /// @dev Outside check, the usual proof that the side to move has a legal move: a pawn of
    /// `side` on its home row or the next, off every line through its king (so not pinned),
    /// with an empty square ahead. In assembly, before the general search (measured on the gas
    /// test's 641 real moves: the median status 300 gas less, the p90 1,100 more, paid by
    /// positions without such a pawn).
    function _freePawnStep(bytes memory s, int256 side, uint256 king) private pure returns (bool found) {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            let pawn := and(side, 0xff)
            let ahead := mul(side, sub(0, 16))
            // white's home row 6, black's 1, then the next row: each row's eight board bytes
            // read with one load (measured on the gas test's 641 real moves: the median move
            // about 270 gas less; a side without pawns there about 490)
            let row := 16
            if sgt(side, 0) { row := 96 }
            for { let r := 0 } lt(r, 2) { r := add(r, 1) } {
                let w := mload(add(p, row))
                for { let f := 0 } lt(f, 8) { f := add(f, 1) } {
                    if eq(byte(f, w), pawn) {
                        let t := add(row, f)
                        if iszero(
                            or(byte(0, mload(add(p, add(t, ahead)))), and(shr(add(sub(t, king), 0x77), LINES), 1))
                        ) {
                            found := 1
                            break
                        }
                    }
                }
                if found { break }
                row := add(row, ahead)
            }
        }
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
            // The eight knight squares unrolled (measured: about 540 gas less per call than a
            // loop decoding KNIGHT_STEPS, for 220 bytes of code; a mate search makes three to
            // five calls, about 2,200 gas on fool's mate).
            let u := add(t, 33)
            if iszero(and(u, 0x88)) { if eq(byte(0, mload(add(p, u))), n) { list := add(u, 1) } }
            u := add(t, 31)
            if iszero(and(u, 0x88)) {
                if eq(byte(0, mload(add(p, u))), n) { list := or(shl(8, list), add(u, 1)) }
            }
            u := add(t, 18)
            if iszero(and(u, 0x88)) {
                if eq(byte(0, mload(add(p, u))), n) { list := or(shl(8, list), add(u, 1)) }
            }
            u := add(t, 14)
            if iszero(and(u, 0x88)) {
                if eq(byte(0, mload(add(p, u))), n) { list := or(shl(8, list), add(u, 1)) }
            }
            u := sub(t, 33)
            if iszero(and(u, 0x88)) {
                if eq(byte(0, mload(add(p, u))), n) { list := or(shl(8, list), add(u, 1)) }
            }
            u := sub(t, 31)
            if iszero(and(u, 0x88)) {
                if eq(byte(0, mload(add(p, u))), n) { list := or(shl(8, list), add(u, 1)) }
            }
            u := sub(t, 18)
            if iszero(and(u, 0x88)) {
                if eq(byte(0, mload(add(p, u))), n) { list := or(shl(8, list), add(u, 1)) }
            }
            u := sub(t, 14)
            if iszero(and(u, 0x88)) {
                if eq(byte(0, mload(add(p, u))), n) { list := or(shl(8, list), add(u, 1)) }
            }
            let q := and(mul(side, 5), 0xff)
            // straight lines first (rook or queen), then diagonals (bishop or queen)
            let slider := and(mul(side, 4), 0xff)
            // the steps from a shifted copy of SLIDER_STEPS (measured: about 100 gas less per
            // call than indexing it by a counter); the last four are the diagonals
            for { let steps := SLIDER_STEPS } steps { steps := shl(8, steps) } {
                if eq(steps, shl(32, SLIDER_STEPS)) { slider := and(mul(side, 3), 0xff) }
                let d := sar(248, steps)
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

    /// @dev Whether the king of `side` on `king`, `side` having no other piece, has a legal
    /// step: of its steps onto the board and not onto a piece of its own, those not next to
    /// the enemy king, less those the enemy's other pieces strike, found piece by piece with
    /// the king lifted (a knight's or pawn's from its squares, if near; a line's by one walk
    /// between). A bare king's board is mostly empty, and testing each step from its own
    /// square (`_hasKingMove`) walks its long lines again and again (measured: a bare king
    /// beside a king and queen, its one step tested last, about 13,000 gas less; beside a
    /// king and two rooks, its first step free, about 800 more).
    function _hasKingStep(bytes memory s, int256 side, uint256 king) private pure returns (bool safe) {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            // the enemy: 1 white, -1 black
            let by := sub(0, side)
            // bit i: the step by byte i of SLIDER_STEPS is open
            let open := 0
            {
                // the enemy king's position byte: 123 (white) or 11 (black)
                let ek := byte(0, mload(add(p, add(11, mul(sgt(by, 0), 112)))))
                for { let i := 0 } lt(i, 8) { i := add(i, 1) } {
                    let t := add(king, signextend(0, byte(i, SLIDER_STEPS)))
                    if iszero(and(t, 0x88)) {
                        if iszero(sgt(mul(signextend(0, byte(0, mload(add(p, t)))), side), 0)) {
                            if iszero(and(shr(sub(add(t, 0x77), ek), KING_ADJACENT), 1)) {
                                open := or(open, shl(i, 1))
                            }
                        }
                    }
                }
            }
            if open {
                // lifted, so that it does not shield a step behind it on a checking line
                mstore8(add(p, king), 0)
                for { let row := 0 } and(lt(row, 0x80), iszero(iszero(open))) { row := add(row, 0x10) } {
                    // the row's eight board bytes, file a first
                    let w := shr(192, mload(add(p, row)))
                    for { let e := row } w { e := add(e, 1) } {
                        // the role of an enemy piece (1-6), else 0 or negative
                        let r := mul(signextend(0, shr(56, w)), by)
                        w := and(shl(8, w), 0xffffffffffffffff)
                        // an enemy piece but its king (whose steps are out already); a pawn more
                        // than two rows or files from the king strikes none of its steps, nor a
                        // knight more than three
                        let near := and(sgt(r, 0), slt(r, 6))
                        if and(near, lt(r, 3)) {
                            let dr := sub(shr(4, e), shr(4, king))
                            let df := sub(and(e, 7), and(king, 7))
                            if slt(dr, 0) { dr := sub(0, dr) }
                            if slt(df, 0) { df := sub(0, df) }
                            if lt(dr, df) { dr := df }
                            near := lt(dr, add(r, 2))
                        }
                        if near {
                            for { let i := 0 } lt(i, 8) { i := add(i, 1) } {
                                if and(shr(i, open), 1) {
                                    let t := add(king, signextend(0, byte(i, SLIDER_STEPS)))
                                    // bit t - e + 0x77 of the tables: the 0x88 difference names the vector
                                    let d := sub(add(t, 0x77), e)
                                    let hit := 0
                                    // a knight (2) by its table; a white pawn (1) strikes the row above
                                    // it (lower index), a black one the row below
                                    if eq(r, 2) { hit := and(shr(d, KNIGHT_LEAPS), 1) }
                                    if eq(r, 1) {
                                        let a := sub(e, mul(16, by))
                                        hit := or(eq(t, sub(a, 1)), eq(t, add(a, 1)))
                                    }
                                    // a bishop (3) on a diagonal, a rook (4) on a straight line, a queen
                                    // (5) on either, with nothing between
                                    if and(gt(r, 2), and(shr(d, LINES), 1)) {
                                        let straight := or(eq(shr(4, t), shr(4, e)), eq(and(t, 7), and(e, 7)))
                                        if or(eq(r, 5), eq(straight, eq(r, 4))) {
                                            let dr := sub(shr(4, t), shr(4, e))
                                            let df := sub(and(t, 7), and(e, 7))
                                            let u :=
                                                add(mul(16, sub(sgt(dr, 0), slt(dr, 0))), sub(sgt(df, 0), slt(df, 0)))
                                            let x := add(e, u)
                                            for {} and(iszero(eq(x, t)), iszero(byte(0, mload(add(p, x))))) {} {
                                                x := add(x, u)
                                            }
                                            hit := eq(x, t)
                                        }
                                    }
                                    if hit { open := and(open, not(shl(i, 1))) }
                                }
                            }
                        }
                    }
                }
                mstore8(add(p, king), and(mul(side, 6), 0xff))
            }
            safe := iszero(iszero(open))
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
                // Bit 7 of each file's byte set where a piece of `side` but its king stands:
                // the other files are passed over, those after the last such piece not visited
                // (measured on the gas test's 641 real moves: p90 about 900 gas less).
                uint256 own = _ownPieces(row, side, 0x0101010101010101);
                for (uint256 f = 0; own != 0; ++f) {
                    if (own >> 63 != 0) {
                        // signed piece code of file f from the row's eight board bytes
                        int256 piece = int256(int8(uint8(row >> (56 - 8 * f))));
                        if (_pieceHasMove(s, q, base + f, piece, piece * side)) return true;
                    }
                    own = (own << 8) & type(uint64).max;
                }
            }
            return false;
        }
    }

    /// @dev 0x80 in each board byte of `w` that holds a piece of `side` other than its king
    /// (`ones`: 0x01 in each byte of `w` to test; piece codes -6..6), by byte-wise tests of
    /// the low seven bits l, which carry into no other byte: white's are l = 1-5 (l + 0x7f
    /// reaches bit 7, l + 0x7a does not: not empty, not the king 6, not black's 0x7a-0x7f),
    /// black's l = 0x7b-0x7f under bit 7 (l + 5 reaches bit 7; the king is 0x7a).
    function _ownPieces(uint256 w, int256 side, uint256 ones) private pure returns (uint256 own) {
        assembly ("memory-safe") {
            let low := mul(ones, 0x7f)
            let l := and(w, low)
            switch sgt(side, 0)
            case 1 { own := and(add(l, low), not(add(l, mul(ones, 0x7a)))) }
            default { own := and(w, add(l, mul(ones, 5))) }
            own := and(own, mul(ones, 0x80))
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
    function _pinStep(bytes memory s, uint256 king, uint256 from, int256 side) private pure returns (int256 step) {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            if and(shr(add(sub(from, king), 0x77), LINES), 1) {
                let dr := sub(shr(4, from), shr(4, king))
                let df := sub(and(from, 7), and(king, 7))
                let straight := or(iszero(dr), iszero(df))
                let d := add(mul(16, sub(sgt(dr, 0), slt(dr, 0))), sub(sgt(df, 0), slt(df, 0)))
                let t := add(king, d)
                for {} and(iszero(eq(t, from)), iszero(byte(0, mload(add(p, t))))) {} { t := add(t, d) }
                if eq(t, from) {
                    // the enemy queen, and its rook (straight) or bishop (diagonal)
                    let q := and(mul(side, sub(0, 5)), 0xff)
                    let own := and(mul(side, sub(0, 3)), 0xff)
                    if straight { own := and(mul(side, sub(0, 4)), 0xff) }
                    for { t := add(t, d) } iszero(and(t, 0x88)) { t := add(t, d) } {
                        let v := byte(0, mload(add(p, t)))
                        if v {
                            if or(eq(v, q), eq(v, own)) { step := d }
                            break
                        }
                    }
                }
            }
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

    /// @notice Both sides have insufficient mating material (section 8 status 3). Rules out
    /// any pawn, rook or queen (the usual case) a word at a time before the per-side count.
    function bothInsufficient(bytes memory s) internal pure returns (bool) {
        uint256 heavy;
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            let ones := 0x0101010101010101010101010101010101010101010101010101010101010101
            for { let i := 0 } lt(i, 0x80) { i := add(i, 0x40) } {
                // the board bytes of four rows, one piece code a byte
                let board := 0xffffffffffffffff0000000000000000ffffffffffffffff0000000000000000
                let w := or(and(mload(add(p, i)), board), shr(64, and(mload(add(p, add(i, 0x20))), board)))
                // |code| in every byte (a black code, bit 7 set, negated: ~v + 1, no carry)
                let black := and(shr(7, w), ones)
                let a := add(xor(w, mul(black, 0xff)), black)
                // pawn 1, rook 4, queen 5: the non-zero |codes| with bit 1 clear
                heavy := or(heavy, and(add(a, mul(ones, 0x7f)), not(shl(6, a))))
            }
        }
        if (heavy & 0x8080808080808080808080808080808080808080808080808080808080808080 != 0) return false;
        (uint256 counts, uint256 colours) = _material(s);
        return _insufficient(counts, colours) && _insufficient(_blacksView(counts), colours);
    }

    /// @dev Section 8's insufficient material of one side, from `_material`'s counts seen from
    /// that side (its roles in bytes 1-5, the opponent's in bytes 9-13) and bishop colours.
    function _insufficient(uint256 counts, uint256 colours) private pure returns (bool r) {
        assembly ("memory-safe") {
            // own pawns, rooks or queens: never insufficient
            if iszero(and(counts, 0xffff0000ff00)) {
                let knights := and(shr(16, counts), 0xff)
                let bishops := and(shr(24, counts), 0xff)
                r := 1
                // a knight: it alone, and the opponent nothing but king and queens (roles 9-12 absent)
                if knights { r := and(eq(add(knights, bishops), 1), iszero(and(counts, shl(72, 0xffffffff)))) }
                // else bishops: all bishops on one colour, no knight or pawn on the board
                if iszero(knights) {
                    if bishops {
                        r := and(iszero(eq(colours, 3)), iszero(and(counts, or(shl(16, 0xff), shl(72, 0xffff)))))
                    }
                }
            }
        }
    }

    /// @dev `_material`'s counts seen from black: its roles in bytes 1-5, white's in 9-13.
    function _blacksView(uint256 counts) private pure returns (uint256) {
        return (counts >> 64) | ((counts & type(uint64).max) << 64);
    }

    /// @dev The material on the board, counted a word at a time (measured: about 15,800 gas
    /// less for both sides than the loop over the squares per side it replaces): byte k of
    /// `counts` (from the low end) is how many pieces of role k (1-5) white has, byte 8 + k
    /// black's; bit 0 / bit 1 of `colours`: a bishop of either side on a light / dark square
    /// (a8 is light: a square is dark iff file + row is odd).
    function _material(bytes memory s) private pure returns (uint256 counts, uint256 colours) {
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            // 0x01 in every byte, computed at run time: one more literal copy of it makes the
            // optimizer build the constant with less code and more gas at each use, on every
            // referee move too (measured: 29 gas a move)
            let ones := div(not(0), add(0xfe, iszero(iszero(p))))
            for { let i := 0 } lt(i, 0x80) { i := add(i, 0x40) } {
                // Four rows' board bytes, in the order r, r + 2, r + 1, r + 3 (r even): a
                // square is dark on an odd file of the first two, an even file of the others.
                let board := 0xffffffffffffffff0000000000000000ffffffffffffffff0000000000000000
                let w := or(and(mload(add(p, i)), board), shr(64, and(mload(add(p, add(i, 0x20))), board)))
                // 0x01 in the bytes of black pieces, of white ones (and empty squares, which
                // match no role)
                let black := and(shr(7, w), ones)
                let white := xor(black, ones)
                // |code| in every byte (a black code negated: ~v + 1, no carry), as bit planes
                let a := add(xor(w, mul(black, 0xff)), black)
                let b0 := and(a, ones)
                let b1 := and(shr(1, a), ones)
                let b2 := and(shr(2, a), ones)
                // Each role's 0x01 bytes; white's count into byte k, black's into byte k + 8:
                // the sum of a word's bytes ends up in its top byte (at most 32, no carry).
                let m := and(b0, xor(or(b1, b2), ones)) // 1 pawn
                counts := add(
                    counts,
                    or(shl(8, shr(248, mul(and(m, white), ones))), shl(72, shr(248, mul(and(m, black), ones))))
                )
                m := and(b1, xor(or(b0, b2), ones)) // 2 knight
                counts := add(
                    counts,
                    or(shl(16, shr(248, mul(and(m, white), ones))), shl(80, shr(248, mul(and(m, black), ones))))
                )
                m := and(and(b0, b1), xor(b2, ones)) // 3 bishop
                counts := add(
                    counts,
                    or(shl(24, shr(248, mul(and(m, white), ones))), shl(88, shr(248, mul(and(m, black), ones))))
                )
                {
                    let on := mul(m, 0xff)
                    let dark := 0x00ff00ff00ff00ff00ff00ff00ff00ffff00ff00ff00ff00ff00ff00ff00ff00
                    colours := or(
                        colours,
                        or(iszero(iszero(and(on, not(dark)))), shl(1, iszero(iszero(and(on, dark)))))
                    )
                }
                m := and(b2, xor(or(b0, b1), ones)) // 4 rook
                counts := add(
                    counts,
                    or(shl(32, shr(248, mul(and(m, white), ones))), shl(96, shr(248, mul(and(m, black), ones))))
                )
                m := and(and(b0, b2), xor(b1, ones)) // 5 queen
                counts := add(
                    counts,
                    or(shl(40, shr(248, mul(and(m, white), ones))), shl(104, shr(248, mul(and(m, black), ones))))
                )
            }
        }
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
        // The flags in one assembly block (measured: about 300 gas less than a helper call
        // per byte, and shorter code): move counts (bytes 8, 9) at most 127, the side to move
        // (56) 0x01 or 0xff, the castling flags (62, 63, 78, 79) 0 or 0xff, black's en-passant
        // byte (61) 0 or 32..39, white's (77) 0 or 80..87.
        bool ok;
        assembly ("memory-safe") {
            let p := add(s, 0x20)
            let w := mload(p)
            ok := iszero(and(or(byte(8, w), byte(9, w)), 0x80))
            w := mload(add(p, 32))
            let v := byte(24, w)
            ok := and(ok, or(eq(v, 0x01), eq(v, 0xff)))
            v := byte(30, w)
            ok := and(ok, or(iszero(v), eq(v, 0xff)))
            v := byte(31, w)
            ok := and(ok, or(iszero(v), eq(v, 0xff)))
            v := byte(29, w)
            ok := and(ok, or(iszero(v), eq(shr(3, v), 4)))
            w := mload(add(p, 64))
            v := byte(14, w)
            ok := and(ok, or(iszero(v), eq(v, 0xff)))
            v := byte(15, w)
            ok := and(ok, or(iszero(v), eq(v, 0xff)))
            v := byte(13, w)
            ok := and(ok, or(iszero(v), eq(shr(3, v), 10)))
        }
        return ok;
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
}
