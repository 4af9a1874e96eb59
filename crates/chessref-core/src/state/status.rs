//! ENCODING.md section 8: the game status for the side to move (check, mate,
//! stalemate, insufficient material, seventy-five moves).

use std::fmt;

use crate::attacks::{
    DIAGONALS, KING_OFFSETS, KNIGHT_OFFSETS, ORTHOGONALS, QUEEN_DIRECTIONS, attacked, occupancies,
    on_board, side_occupancy, squares_of,
};
use crate::piece_code::{BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK};
use crate::position::Position;
use crate::square::Color;

use super::State;
use super::layout::{board_squares, idx};

/// The game status for the side to move (ENCODING.md section 8).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Status {
    /// The game goes on.
    Ongoing = 0,
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can ever mate.
    InsufficientMaterial,
    /// 75 moves (150 plies) without a capture or pawn move.
    SeventyFiveMoves,
}

impl Status {
    /// The code 0..=4 of section 8.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The upper-case name (`"ONGOING"`, `"CHECKMATE"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ongoing => "ONGOING",
            Status::Checkmate => "CHECKMATE",
            Status::Stalemate => "STALEMATE",
            Status::InsufficientMaterial => "INSUFFICIENT_MATERIAL",
            Status::SeventyFiveMoves => "SEVENTY_FIVE_MOVES",
        }
    }

    /// The status with code `code`.
    pub const fn from_code(code: u8) -> Option<Status> {
        match code {
            0 => Some(Status::Ongoing),
            1 => Some(Status::Checkmate),
            2 => Some(Status::Stalemate),
            3 => Some(Status::InsufficientMaterial),
            4 => Some(Status::SeventyFiveMoves),
            _ => None,
        }
    }

    /// Whether the game has ended automatically (codes 1 to 4).
    pub const fn is_over(self) -> bool {
        !matches!(self, Status::Ongoing)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The squares of `us`'s pieces, starting from its back rank (where its pieces
/// usually have a free step), found from the occupancy bits: empty squares cost nothing.
/// `ours` is [`side_occupancy`] of `us`.
fn pieces_from(ours: u64, us: i8) -> impl Iterator<Item = u8> {
    // Bit reversal turns white's h1-first order into lowest-bit-first.
    let mask = ours;
    let mask = if us > 0 { mask.reverse_bits() } else { mask };
    squares_of(mask).map(move |sq| if us > 0 { 119 - sq } else { sq })
}

impl State {
    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        let turn = self.0[idx::CURRENT_PLAYER] as i8;
        attacked(&self.0, self.king_index(turn), -turn)
    }

    /// The status for the side to move (section 8).
    pub fn status(&self) -> Status {
        self.status_and_check().0
    }

    /// The status and whether the side to move is in check (one attack scan for both).
    pub(crate) fn status_and_check(&self) -> (Status, bool) {
        let checked = self.in_check();
        (self.status_given_check(checked), checked)
    }

    /// The status, given whether the side to move is in check ([`State::in_check`]).
    pub(crate) fn status_given_check(&self, checked: bool) -> Status {
        let us = self.0[idx::CURRENT_PLAYER] as i8;
        self.status_given(checked, occupancies(&self.0, us))
    }

    /// [`State::status_given_check`] given the board's [`occupancies`] of the side to move.
    pub(crate) fn status_given(&self, checked: bool, (occ, ours): (u64, u64)) -> Status {
        if !self.has_legal_move_given_check(checked, ours) {
            return if checked {
                Status::Checkmate
            } else {
                Status::Stalemate
            };
        }
        if self.both_sides_insufficient(occ) {
            return Status::InsufficientMaterial;
        }
        if self.halfmove_clock() >= 150 {
            return Status::SeventyFiveMoves;
        }
        Status::Ongoing
    }

    /// Whether the side to move has a legal move.
    pub fn has_legal_move(&self) -> bool {
        let us = self.0[idx::CURRENT_PLAYER] as i8;
        self.has_legal_move_given_check(self.in_check(), side_occupancy(&self.0, us))
    }

    /// [`State::has_legal_move`] given [`State::in_check`] (`checked`).
    /// `ours` is [`side_occupancy`] of the side to move.
    fn has_legal_move_given_check(&self, checked: bool, ours: u64) -> bool {
        // Usually one of the first pieces tried, each with one move its kind can
        // make (a step onto an empty or enemy square), settles it. Out of check, a
        // step by a piece other than the king is legal iff the piece is not pinned
        // (a ray walk from the king), so the king, whose steps need attack scans,
        // comes last. In check, king steps come first (the usual escape), then up to
        // four other pieces' steps, each legal iff it leaves the king safe.
        // Otherwise, generate.
        let b = &self.0;
        let us = b[idx::CURRENT_PLAYER] as i8;
        let king = self.king_index(us);
        let free = |t: u8| on_board(t) && (b[t as usize] as i8) * us <= 0;
        let steps_of = |piece: i8| -> &'static [u8] {
            match piece {
                KNIGHT => &KNIGHT_OFFSETS,
                BISHOP => &DIAGONALS,
                ROOK => &ORTHOGONALS,
                QUEEN => &QUEEN_DIRECTIONS,
                _ => &[],
            }
        };
        if !checked {
            for from in pieces_from(ours, us) {
                let piece = b[from as usize] as i8 * us;
                if piece == KING {
                    continue;
                }
                let moves = if piece == PAWN {
                    // A single push (onto the last rank it promotes, which blocks the same).
                    b[from.wrapping_add((-16 * us) as u8) as usize] == 0
                } else {
                    steps_of(piece).iter().any(|&d| free(from.wrapping_add(d)))
                };
                if moves && !self.is_pinned(from, king, us) {
                    return true;
                }
            }
        }
        // King steps, tested with the king lifted so it cannot shield a square from a slider.
        let mut board = *b;
        board[king as usize] = 0;
        if KING_OFFSETS
            .iter()
            .map(|&d| king.wrapping_add(d))
            .any(|t| free(t) && !attacked(&board, t, -us))
        {
            return true;
        }
        board[king as usize] = b[king as usize];
        if checked {
            let mut tries = 0;
            for from in pieces_from(ours, us) {
                let piece = b[from as usize] as i8 * us;
                if piece == KING {
                    continue;
                }
                let to = if piece == PAWN {
                    Some(from.wrapping_add((-16 * us) as u8)).filter(|&t| b[t as usize] == 0)
                } else {
                    steps_of(piece)
                        .iter()
                        .map(|&d| from.wrapping_add(d))
                        .find(|&t| free(t))
                };
                let Some(to) = to else { continue };
                let (moved, captured) = (board[from as usize], board[to as usize]);
                board[to as usize] = moved;
                board[from as usize] = 0;
                let safe = !attacked(&board, king, -us);
                board[from as usize] = moved;
                board[to as usize] = captured;
                if safe {
                    return true;
                }
                tries += 1;
                if tries == 4 {
                    break;
                }
            }
        }
        Position::from_state(self).has_legal_move()
    }

    /// Section 8's "both sides have insufficient material", with a quick exit
    /// on the first pawn, rook or queen (the usual case).
    /// `occ` is the board's [`occupancy`](crate::attacks::occupancy).
    fn both_sides_insufficient(&self, occ: u64) -> bool {
        for sq in squares_of(occ) {
            if matches!((self.0[sq as usize] as i8).abs(), PAWN | ROOK | QUEEN) {
                return false;
            }
        }
        self.has_insufficient_material(Color::White) && self.has_insufficient_material(Color::Black)
    }

    /// Whether side `c` alone has insufficient material (section 8; the
    /// semantics of shakmaty's `has_insufficient_material`).
    pub fn has_insufficient_material(&self, c: Color) -> bool {
        let sign = c.sign();
        let mut own_knights = 0;
        let mut own_bishops = 0;
        let mut own_pieces = 0;
        let mut opponent_minor_or_heavier = false;
        let mut any_pawn_or_knight = false;
        let mut bishop_squares = [false; 2];
        for sq in board_squares() {
            let p = self.0[sq as usize] as i8;
            if p == 0 {
                continue;
            }
            let role = p.abs();
            if p * sign > 0 {
                own_pieces += 1;
                match role {
                    PAWN | ROOK | QUEEN => return false,
                    KNIGHT => own_knights += 1,
                    BISHOP => own_bishops += 1,
                    _ => {}
                }
            } else if role != KING && role != QUEEN {
                opponent_minor_or_heavier = true;
            }
            if role == PAWN || role == KNIGHT {
                any_pawn_or_knight = true;
            }
            if role == BISHOP {
                let dark = ((sq & 7) + (7 - (sq >> 4))) % 2 == 0;
                bishop_squares[dark as usize] = true;
            }
        }
        if own_knights > 0 {
            return own_pieces <= 2 && !opponent_minor_or_heavier;
        }
        if own_bishops > 0 {
            let one_square_colour = !(bishop_squares[0] && bishop_squares[1]);
            return one_square_colour && !any_pawn_or_knight;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_and_material() {
        let status = |fen: &str| State::from_fen(fen).unwrap().status();
        assert_eq!(
            status("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),
            Status::Checkmate
        );
        assert_eq!(status("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), Status::Stalemate);
        assert_eq!(
            status("7k/8/6K1/8/8/8/8/8 b - - 0 1"),
            Status::InsufficientMaterial
        );
        assert_eq!(
            status("7k/8/6K1/8/8/8/8/6N1 b - - 0 1"),
            Status::InsufficientMaterial
        );
        assert_eq!(status("7k/8/6K1/8/8/8/8/5BB1 b - - 0 1"), Status::Ongoing);
        assert_eq!(
            status("7k/8/6K1/8/8/8/8/4B1B1 b - - 0 1"),
            Status::InsufficientMaterial
        );
        assert_eq!(
            status("7k/p7/6K1/8/8/8/8/6R1 b - - 150 90"),
            Status::SeventyFiveMoves
        );
        assert_eq!(
            status("7k/p7/6K1/8/8/8/8/6R1 b - - 149 90"),
            Status::Ongoing
        );
        let knight_vs_queen = State::from_fen("7k/8/6K1/8/8/8/8/5NQ1 b - - 0 1").unwrap();
        assert!(knight_vs_queen.has_insufficient_material(Color::Black));
        assert!(!knight_vs_queen.has_insufficient_material(Color::White));
        let knight_vs_knight = State::from_fen("6nk/8/6K1/8/8/8/8/5N2 b - - 0 1").unwrap();
        assert!(!knight_vs_knight.has_insufficient_material(Color::White));
        assert_eq!(knight_vs_knight.status(), Status::Ongoing);
    }
}
