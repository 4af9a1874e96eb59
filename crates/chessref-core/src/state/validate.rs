//! ENCODING.md section 7: which 128-byte values are valid states, and the
//! first failing code of one that is not.

use crate::attacks::{attacked, on_board};
use crate::error::InvalidState;
use crate::piece_code::{KING, PAWN, ROOK};

use super::layout::{board_squares, idx};

/// Does `bytes` (any 128 bytes) satisfy section 7? The first failing code, in order.
pub(crate) fn validate_bytes(b: &[u8; 128]) -> Result<(), InvalidState> {
    let at = |i: u8| b[i as usize] as i8;
    for sq in board_squares() {
        if !(-6..=6).contains(&at(sq)) {
            return Err(InvalidState::BadPieceCode);
        }
    }
    for (i, &v) in b.iter().enumerate() {
        if i & 8 == 0 {
            continue;
        }
        let ok = match i {
            idx::MOVE_COUNT_HIGH | idx::MOVE_COUNT_LOW => v <= 127,
            idx::HALFMOVE_CLOCK | idx::BLACK_KING_POS | idx::WHITE_KING_POS => true,
            idx::CURRENT_PLAYER => v == 0x01 || v == 0xff,
            idx::BLACK_LEFT_CASTLING
            | idx::BLACK_RIGHT_CASTLING
            | idx::WHITE_LEFT_CASTLING
            | idx::WHITE_RIGHT_CASTLING => v == 0 || v == 0xff,
            idx::BLACK_EN_PASSANT => v == 0 || (32..=39).contains(&v),
            idx::WHITE_EN_PASSANT => v == 0 || (80..=87).contains(&v),
            _ => v == 0,
        };
        if !ok {
            return Err(InvalidState::BadFlag);
        }
    }
    let (mut white_kings, mut black_kings) = (0, 0);
    for sq in board_squares() {
        match at(sq) {
            KING => white_kings += 1,
            -6 => black_kings += 1,
            _ => {}
        }
    }
    if white_kings != 1 || black_kings != 1 {
        return Err(InvalidState::KingCount);
    }
    let (wk, bk) = (b[idx::WHITE_KING_POS], b[idx::BLACK_KING_POS]);
    // An off-board king byte is in its flag domain (any byte) but points at no king.
    if !on_board(wk) || !on_board(bk) || at(wk) != KING || at(bk) != -KING {
        return Err(InvalidState::KingPosMismatch);
    }
    for f in 0..8u8 {
        if at(f).abs() == PAWN || at(112 + f).abs() == PAWN {
            return Err(InvalidState::PawnOnBackRank);
        }
    }
    let turn = b[idx::CURRENT_PLAYER] as i8;
    let waiting_king = if turn > 0 { bk } else { wk };
    if attacked(b, waiting_king, turn) {
        return Err(InvalidState::OpponentInCheck);
    }
    for (right, king_sq, rook_sq, sign) in [
        (idx::WHITE_LEFT_CASTLING, 116u8, 112u8, 1i8),
        (idx::WHITE_RIGHT_CASTLING, 116, 119, 1),
        (idx::BLACK_LEFT_CASTLING, 4, 0, -1),
        (idx::BLACK_RIGHT_CASTLING, 4, 7, -1),
    ] {
        if b[right] == 0 && (at(king_sq) != KING * sign || at(rook_sq) != ROOK * sign) {
            return Err(InvalidState::BadCastling);
        }
    }
    let (wep, bep) = (b[idx::WHITE_EN_PASSANT], b[idx::BLACK_EN_PASSANT]);
    if wep != 0 && bep != 0 {
        return Err(InvalidState::BadEnPassant);
    }
    if wep != 0
        && (turn != -1
            || !(80..=87).contains(&wep)
            || at(wep - 16) != PAWN
            || at(wep) != 0
            || at(wep + 16) != 0)
    {
        return Err(InvalidState::BadEnPassant);
    }
    if bep != 0
        && (turn != 1
            || !(32..=39).contains(&bep)
            || at(bep + 16) != -PAWN
            || at(bep) != 0
            || at(bep - 16) != 0)
    {
        return Err(InvalidState::BadEnPassant);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::StateError;
    use crate::state::State;

    #[test]
    fn invalid_states_report_the_first_failing_code() {
        let base = *State::initial().as_bytes();
        let with = |changes: &[(usize, u8)]| {
            let mut b = base;
            for &(i, v) in changes {
                b[i] = v;
            }
            State::from_bytes(&b).err()
        };
        let invalid = |code: InvalidState| Some(StateError::Invalid(code));
        assert_eq!(
            State::from_bytes(&base[..127]),
            Err(StateError::BadLength(127))
        );
        assert_eq!(with(&[(36, 7)]), invalid(InvalidState::BadPieceCode));
        assert_eq!(
            with(&[(36, 0xf9), (12, 1)]),
            invalid(InvalidState::BadPieceCode)
        );
        assert_eq!(with(&[(12, 1)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(9, 128)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(56, 0)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(77, 0x44)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(78, 1)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(36, 6)]), invalid(InvalidState::KingCount));
        assert_eq!(with(&[(40, 6)]), invalid(InvalidState::BadFlag));
        assert_eq!(with(&[(123, 115)]), invalid(InvalidState::KingPosMismatch));
        assert_eq!(with(&[(11, 8)]), invalid(InvalidState::KingPosMismatch));
        assert_eq!(with(&[(113, 1)]), invalid(InvalidState::PawnOnBackRank));
        assert_eq!(with(&[(21, 0), (37, 5)]), None);
        assert_eq!(
            with(&[(101, 0), (71, 0xfb), (56, 0xff)]),
            invalid(InvalidState::OpponentInCheck)
        );
        assert_eq!(with(&[(101, 0), (71, 0xfb)]), None);
        assert_eq!(with(&[(119, 0)]), invalid(InvalidState::BadCastling));
        assert_eq!(with(&[(119, 0), (79, 0xff)]), None);
        assert_eq!(with(&[(77, 84)]), invalid(InvalidState::BadEnPassant));
        assert_eq!(with(&[(77, 84), (56, 0xff), (100, 0), (68, 1)]), None);
        assert_eq!(
            with(&[(77, 84), (61, 34), (56, 0xff), (100, 0), (68, 1)]),
            invalid(InvalidState::BadEnPassant)
        );
        assert!(matches!(State::from_hex("zz"), Err(StateError::BadHex(_))));
    }
}
