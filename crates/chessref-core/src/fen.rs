//! FEN in and out (ENCODING.md section 5).

use crate::error::FenError;
use crate::piece_code::KING;
use crate::square::Piece;
use crate::state::{MAX_PLY, State, idx, validate_bytes};

pub(crate) fn parse(fen: &str) -> Result<State, FenError> {
    let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
    if fields.len() != 4 && fields.len() != 6 {
        return Err(FenError::FieldCount(fields.len()));
    }
    let mut bytes = [0u8; 128];
    parse_board(fields[0], &mut bytes)?;

    let black_to_move = match fields[1] {
        "w" => false,
        "b" => true,
        other => return Err(FenError::Turn(other.to_owned())),
    };
    bytes[idx::CURRENT_PLAYER] = if black_to_move { 0xff } else { 0x01 };

    for i in [
        idx::WHITE_LEFT_CASTLING,
        idx::WHITE_RIGHT_CASTLING,
        idx::BLACK_LEFT_CASTLING,
        idx::BLACK_RIGHT_CASTLING,
    ] {
        bytes[i] = 0xff;
    }
    let castling = fields[2];
    if castling != "-" {
        if castling.is_empty() {
            return Err(FenError::Castling(castling.to_owned()));
        }
        // Standard FEN order, each letter at most once: a subsequence of "KQkq".
        let mut next = 0;
        for c in castling.chars() {
            let order = ["K", "Q", "k", "q"].iter().position(|l| l.starts_with(c));
            match order {
                Some(n) if n >= next => next = n + 1,
                _ => return Err(FenError::Castling(castling.to_owned())),
            }
            let i = [
                idx::WHITE_RIGHT_CASTLING,
                idx::WHITE_LEFT_CASTLING,
                idx::BLACK_RIGHT_CASTLING,
                idx::BLACK_LEFT_CASTLING,
            ];
            bytes[i[next - 1]] = 0;
        }
    }

    let ep = fields[3];
    if ep != "-" {
        let sq: crate::Square = ep.parse().map_err(|_| FenError::EnPassant(ep.to_owned()))?;
        match sq.rank() {
            2 => bytes[idx::WHITE_EN_PASSANT] = sq.index(),
            5 => bytes[idx::BLACK_EN_PASSANT] = sq.index(),
            _ => return Err(FenError::EnPassant(ep.to_owned())),
        }
    }

    let (halfmove, fullmove) = if fields.len() == 6 {
        (fields[4], fields[5])
    } else {
        ("0", "1")
    };
    let halfmove =
        parse_number(halfmove).ok_or_else(|| FenError::HalfmoveClock(halfmove.to_owned()))?;
    bytes[idx::HALFMOVE_CLOCK] = halfmove.min(255) as u8;
    let fullmove_number =
        parse_number(fullmove).ok_or_else(|| FenError::FullmoveNumber(fullmove.to_owned()))?;
    // Fullmove 0 is common in the wild and means the first move.
    let plies = 2 * (fullmove_number.max(1) - 1) + black_to_move as u64;
    if plies > MAX_PLY as u64 {
        return Err(FenError::MoveCountTooLarge(fullmove_number));
    }
    bytes[idx::MOVE_COUNT_HIGH] = (plies >> 7) as u8;
    bytes[idx::MOVE_COUNT_LOW] = (plies & 127) as u8;

    validate_bytes(&bytes)?;
    Ok(State(bytes))
}

/// A decimal number of digits only; `u64::MAX` if it overflows.
fn parse_number(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(s.parse().unwrap_or(u64::MAX))
}

fn parse_board(field: &str, bytes: &mut [u8; 128]) -> Result<(), FenError> {
    let error = |reason| FenError::Board {
        field: field.to_owned(),
        reason,
    };
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(error("expected 8 ranks separated by /"));
    }
    for (row, rank) in ranks.iter().enumerate() {
        let mut file = 0usize;
        for c in rank.chars() {
            if let Some(d) = c.to_digit(10) {
                if !(1..=8).contains(&d) {
                    return Err(error("empty-square counts must be 1 to 8"));
                }
                file += d as usize;
            } else {
                let piece = Piece::from_char(c).ok_or(error(
                    "unknown piece letter (expected one of PNBRQK pnbrqk)",
                ))?;
                if file >= 8 {
                    return Err(error("a rank has more than 8 squares"));
                }
                let sq = row * 16 + file;
                bytes[sq] = piece.code() as u8;
                if piece.code() == KING {
                    bytes[idx::WHITE_KING_POS] = sq as u8;
                } else if piece.code() == -KING {
                    bytes[idx::BLACK_KING_POS] = sq as u8;
                }
                file += 1;
            }
            if file > 8 {
                return Err(error("a rank has more than 8 squares"));
            }
        }
        if file != 8 {
            return Err(error("a rank has fewer than 8 squares"));
        }
    }
    Ok(())
}

pub(crate) fn format(state: &State) -> String {
    let b = state.as_bytes();
    let mut s = String::with_capacity(90);
    for row in 0..8usize {
        let mut empty = 0;
        for file in 0..8usize {
            match Piece::from_code(b[row * 16 + file] as i8) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    s.push(p.char());
                }
            }
        }
        if empty > 0 {
            s.push(char::from(b'0' + empty));
        }
        if row < 7 {
            s.push('/');
        }
    }
    s.push(' ');
    s.push(state.turn().char());
    s.push(' ');
    let before = s.len();
    for (i, c) in [
        (idx::WHITE_RIGHT_CASTLING, 'K'),
        (idx::WHITE_LEFT_CASTLING, 'Q'),
        (idx::BLACK_RIGHT_CASTLING, 'k'),
        (idx::BLACK_LEFT_CASTLING, 'q'),
    ] {
        if b[i] == 0 {
            s.push(c);
        }
    }
    if s.len() == before {
        s.push('-');
    }
    s.push(' ');
    match state.en_passant_square() {
        Some(sq) => s.push_str(&sq.to_string()),
        None => s.push('-'),
    }
    s.push_str(&format!(
        " {} {}",
        state.halfmove_clock(),
        state.fullmove_number()
    ));
    s
}

#[cfg(test)]
mod tests {
    use crate::{FenError, InvalidState, State};

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn initial_fen_round_trips() {
        assert_eq!(State::from_fen(START).unwrap(), State::initial());
        assert_eq!(State::initial().fen(), START);
        let fen = "r1bqkbnr/ppppp1pp/2n5/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
        assert_eq!(State::from_fen(fen).unwrap().fen(), fen);
    }

    #[test]
    fn clocks_are_optional_and_bounded() {
        let s = State::from_fen("4k3/8/8/8/8/8/8/4K3 b - -").unwrap();
        assert_eq!(s.ply(), 1);
        assert_eq!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 0")
                .unwrap()
                .ply(),
            0
        );
        assert_eq!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 b - - 0 8192")
                .unwrap()
                .ply(),
            16383
        );
        assert_eq!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 8193"),
            Err(FenError::MoveCountTooLarge(8193))
        );
        assert_eq!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 300 9")
                .unwrap()
                .halfmove_clock(),
            255
        );
    }

    #[test]
    fn bad_fields_are_named() {
        assert!(matches!(
            State::from_fen("8/8 w - - 0 1"),
            Err(FenError::Board { .. })
        ));
        assert!(matches!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 x - - 0 1"),
            Err(FenError::Turn(_))
        ));
        assert!(matches!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w KK - 0 1"),
            Err(FenError::Castling(_))
        ));
        assert!(matches!(
            State::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w qK - 0 1"),
            Err(FenError::Castling(_))
        ));
        assert!(matches!(
            State::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w  - 0 1"),
            Err(FenError::FieldCount(5))
        ));
        assert_eq!(
            State::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1")
                .unwrap()
                .fen(),
            "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1"
        );
        assert!(matches!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w - e4 0 1"),
            Err(FenError::EnPassant(_))
        ));
        assert!(matches!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w - - x 1"),
            Err(FenError::HalfmoveClock(_))
        ));
        assert!(matches!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 -1"),
            Err(FenError::FullmoveNumber(_))
        ));
        assert!(matches!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0"),
            Err(FenError::FieldCount(5))
        ));
        assert_eq!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w K - 0 1"),
            Err(FenError::Invalid(InvalidState::BadCastling))
        );
        assert_eq!(
            State::from_fen("4k3/8/8/8/8/8/8/4K3 w - e6 0 1"),
            Err(FenError::Invalid(InvalidState::BadEnPassant))
        );
        assert_eq!(
            State::from_fen("8/8/8/8/8/8/8/4K3 w - - 0 1"),
            Err(FenError::Invalid(InvalidState::KingCount))
        );
    }
}
