//! Streaming PGN import: [`PgnReader`] yields one [`PgnGame`] at a time.
//!
//! The reader works on bytes straight from a [`BufRead`], one game in memory at
//! a time, so a multi-gigabyte file needs constant memory (a game's tags and
//! main-line SAN tokens only; comments and variations are skipped without being
//! stored). Text need not be UTF-8: tag values are decoded lossily.
//!
//! Accepted syntax (PGN standard plus what real files contain): tag pairs
//! `[Name "value"]` with `\"` and `\\` escapes, several on one line or followed
//! by moves on the same line; brace comments `{...}` spanning lines; `;`
//! comments to the end of the line; `%` escape lines (in column 0); NAGs `$n`;
//! nested variations `(...)`; move numbers `1.`, `1...`, glued or not (`1.e4`);
//! annotation glyphs `!`, `?`, `!!`, `!?`...; results `1-0`, `0-1`, `1/2-1/2`,
//! `*`. A game ends at its result, at a blank line after its movetext, at a tag
//! that follows its movetext, or at the end of input.

use std::io::{self, BufRead};

use crate::error::{FenError, SanError};
use crate::game::{Game, GameError};
use crate::state::{State, Status};

/// Longest tag name, tag value or move token kept; longer input is a syntax error
/// (and is skipped without being buffered, so memory stays bounded).
const MAX_TOKEN: usize = 255;
const MAX_TAG_VALUE: usize = 8192;
/// Most main-line plies kept for one game (the move count saturates at 16383 plies).
const MAX_PLIES: usize = 16_384;

/// Tokens ChessBase and others write for a null move (a pass). Not a chess move.
const NULL_MOVES: [&str; 4] = ["--", "Z0", "0000", "@@@@"];

/// One game as read from PGN: its tags, its main line as SAN text and its result token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// 1-based position of the game in the input.
    pub index: usize,
    /// Tag pairs in input order (values unescaped).
    pub tags: Vec<(String, String)>,
    /// Main-line moves as written (move numbers, comments, NAGs, glyphs and variations removed).
    pub sans: Sans,
    /// The result token that ended the movetext (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub result: Option<String>,
}

/// A game's main-line SAN tokens, stored as one text (one allocation per game,
/// not one per move): iterate with [`Sans::iter`], index with `sans[i]`.
///
/// ```
/// use chessref_core::Sans;
///
/// let sans: Sans = ["e4", "e5", "Nf3"].into_iter().collect();
/// assert_eq!(sans.len(), 3);
/// assert_eq!(&sans[2], "Nf3");
/// assert_eq!(sans, ["e4", "e5", "Nf3"]);
/// assert_eq!(sans.iter().skip(1).collect::<Vec<_>>(), ["e5", "Nf3"]);
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Sans {
    text: String,
    /// The end of each token in `text` (each starts where the previous ends).
    ends: Vec<u32>,
}

impl Sans {
    /// No moves.
    pub fn new() -> Sans {
        Sans::default()
    }

    /// Room for `moves` moves of `bytes` bytes in all.
    pub fn with_capacity(moves: usize, bytes: usize) -> Sans {
        Sans {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(moves),
        }
    }

    /// Appends a move.
    pub fn push(&mut self, san: &str) {
        self.text.push_str(san);
        self.ends
            .push(u32::try_from(self.text.len()).expect("SAN text under 4 GiB"));
    }

    /// The number of moves.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no moves.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Move `i` (0-based), if there is one.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some(&self.text[start..end])
    }

    /// The moves in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + Clone + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let san = &self.text[start..end as usize];
            start = end as usize;
            san
        })
    }
}

impl std::ops::Index<usize> for Sans {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        self.get(i).expect("move index in range")
    }
}

impl std::fmt::Debug for Sans {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Sans {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Sans {
        let mut sans = Sans::new();
        for san in iter {
            sans.push(san.as_ref());
        }
        sans
    }
}

impl<S: AsRef<str>> From<Vec<S>> for Sans {
    fn from(moves: Vec<S>) -> Sans {
        moves.into_iter().collect()
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for Sans {
    fn eq(&self, other: &[S; N]) -> bool {
        self.len() == N && self.iter().zip(other).all(|(a, b)| a == b.as_ref())
    }
}

impl<S: AsRef<str>> PartialEq<[S]> for Sans {
    fn eq(&self, other: &[S]) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == b.as_ref())
    }
}

/// What went wrong reading or replaying PGN. Every variant names the game (1-based).
#[derive(Debug, thiserror::Error)]
pub enum PgnError {
    /// The text is not PGN.
    #[error("game {game}: PGN syntax error on line {line}: {message}")]
    Syntax {
        /// 1-based game number.
        game: usize,
        /// 1-based line of the input.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The `[FEN]` tag is not a valid position.
    #[error("game {game}: bad FEN tag {fen:?}: {source}")]
    BadFen {
        /// 1-based game number.
        game: usize,
        /// The tag value.
        fen: String,
        /// Why it was refused.
        source: FenError,
    },
    /// A main-line move is not legal (or not a move at all).
    #[error("game {game}, ply {ply}: illegal move {san:?}: {reason}")]
    IllegalMove {
        /// 1-based game number.
        game: usize,
        /// 1-based ply within the game's main line.
        ply: usize,
        /// The move as written.
        san: String,
        /// Why it was refused.
        reason: SanError,
    },
    /// A main-line move matches several legal moves.
    #[error("game {game}, ply {ply}: ambiguous move {san:?}: {reason}")]
    AmbiguousMove {
        /// 1-based game number.
        game: usize,
        /// 1-based ply within the game's main line.
        ply: usize,
        /// The move as written.
        san: String,
        /// The candidates.
        reason: SanError,
    },
    /// A move after the game ended automatically (checkmate, stalemate,
    /// insufficient material, 75 moves): the referee accepts nothing more.
    #[error(
        "game {game}, ply {ply}: move {san:?} after the game ended ({status}) at ply {ended_at}"
    )]
    GameOver {
        /// 1-based game number.
        game: usize,
        /// 1-based ply of the refused move.
        ply: usize,
        /// The move as written.
        san: String,
        /// How the game had ended.
        status: Status,
        /// Number of plies played when it ended.
        ended_at: usize,
    },
    /// A `[Variant]` tag naming another game than standard chess (Chess960,
    /// crazyhouse, antichess, ...): the referee plays standard chess only.
    #[error(
        "game {game}: variant {variant:?} is not supported (the referee plays standard chess only)"
    )]
    UnsupportedVariant {
        /// 1-based game number.
        game: usize,
        /// The tag value.
        variant: String,
    },
    /// A null move (`--`, `Z0`, ...): a pass, which chess and the referee do not have.
    #[error("game {game}, ply {ply}: null move {san:?} is not a chess move")]
    NullMove {
        /// 1-based game number.
        game: usize,
        /// 1-based ply of the null move.
        ply: usize,
        /// The token as written.
        san: String,
    },
    /// Reading the input failed.
    #[error("reading PGN failed: {0}")]
    Io(#[from] io::Error),
}

impl PgnError {
    /// The 1-based game number the error belongs to (`None` for I/O errors).
    pub fn game(&self) -> Option<usize> {
        match self {
            PgnError::Syntax { game, .. }
            | PgnError::BadFen { game, .. }
            | PgnError::IllegalMove { game, .. }
            | PgnError::AmbiguousMove { game, .. }
            | PgnError::GameOver { game, .. }
            | PgnError::UnsupportedVariant { game, .. }
            | PgnError::NullMove { game, .. } => Some(*game),
            PgnError::Io(_) => None,
        }
    }
}

/// The outcome of replaying a game's main line as far as it is legal.
#[derive(Debug)]
pub struct Replay {
    /// The game up to (not including) the first refused move.
    pub game: Game,
    /// Why replay stopped early; `None` when every move was played.
    pub error: Option<PgnError>,
}

impl PgnGame {
    /// The value of tag `name` (first occurrence, case-sensitive as PGN is).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The start position: the `[FEN]` tag if present (unless `[SetUp "0"]`), else the
    /// initial position. A game of another variant than standard chess has none.
    pub fn start(&self) -> Result<State, PgnError> {
        if let Some(variant) = self.tag("Variant")
            && !is_standard_variant(variant)
        {
            return Err(PgnError::UnsupportedVariant {
                game: self.index,
                variant: variant.to_owned(),
            });
        }
        match self.tag("FEN") {
            Some(fen) if self.tag("SetUp") != Some("0") => {
                State::from_fen(fen.trim()).map_err(|source| PgnError::BadFen {
                    game: self.index,
                    fen: fen.to_owned(),
                    source,
                })
            }
            _ => Ok(State::initial()),
        }
    }

    /// Replays the main line from [`PgnGame::start`]; the first refused move is an error
    /// naming the game, the ply and the SAN.
    pub fn replay(&self) -> Result<Game, PgnError> {
        let Replay { game, error } = self.replay_prefix()?;
        match error {
            None => Ok(game),
            Some(e) => Err(e),
        }
    }

    /// Replays the main line as far as it is legal, returning the game reached and
    /// why it stopped (if it did). Errs only when there is no start position.
    pub fn replay_prefix(&self) -> Result<Replay, PgnError> {
        let mut game = Game::new(self.start()?);
        game.reserve(self.sans.len());
        for (i, san) in self.sans.iter().enumerate() {
            let ply = i + 1;
            if NULL_MOVES.contains(&san) {
                let error = PgnError::NullMove {
                    game: self.index,
                    ply,
                    san: san.to_owned(),
                };
                return Ok(Replay {
                    game,
                    error: Some(error),
                });
            }
            if let Err(e) = game.play_san(san) {
                let error = match e {
                    GameError::Over {
                        status,
                        ply: ended_at,
                    } => PgnError::GameOver {
                        game: self.index,
                        ply,
                        san: san.to_owned(),
                        status,
                        ended_at,
                    },
                    GameError::San(reason @ SanError::Ambiguous { .. }) => {
                        PgnError::AmbiguousMove {
                            game: self.index,
                            ply,
                            san: san.to_owned(),
                            reason,
                        }
                    }
                    GameError::San(reason) => PgnError::IllegalMove {
                        game: self.index,
                        ply,
                        san: san.to_owned(),
                        reason,
                    },
                    GameError::Illegal(rejection) => PgnError::IllegalMove {
                        game: self.index,
                        ply,
                        san: san.to_owned(),
                        reason: SanError::Rejected {
                            uci: san.to_owned(),
                            rejection,
                        },
                    },
                };
                return Ok(Replay {
                    game,
                    error: Some(error),
                });
            }
        }
        Ok(Replay { game, error: None })
    }
}

/// Whether a `[Variant]` tag value names standard chess: the names real files
/// use for it (lichess writes "From Position" for standard chess from a FEN).
fn is_standard_variant(value: &str) -> bool {
    const STANDARD: [&str; 6] = [
        "",
        "standard",
        "chess",
        "normal",
        "from position",
        "fromposition",
    ];
    let value = value.trim();
    STANDARD.iter().any(|name| value.eq_ignore_ascii_case(name))
}

/// Whether the reader is before the movetext (tags) or inside it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Tags,
    Moves,
}

/// Streaming PGN reader: an iterator of games, each `Ok(PgnGame)` or the syntax
/// (or I/O) error that made it unreadable. After a syntax error the reader goes
/// on with the next game.
pub struct PgnReader<R: BufRead> {
    inner: R,
    position: Position,
    /// Games yielded so far.
    games: usize,
    /// An I/O error ended the input.
    failed: bool,
}

/// Where the reader is in the input.
struct Position {
    /// 1-based line of the next byte.
    line: u64,
    /// No byte of the current line consumed yet (for `%` escapes).
    at_line_start: bool,
    /// The current line has something other than whitespace.
    line_has_content: bool,
    /// Bytes consumed so far (for progress reporting).
    bytes_read: u64,
}

impl Position {
    /// Accounts for consumed bytes.
    fn advance(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        self.bytes_read += chunk.len() as u64;
        let tail = match chunk.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                self.line += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
                self.line_has_content = false;
                self.at_line_start = true;
                &chunk[last + 1..]
            }
            None => chunk,
        };
        if !tail.is_empty() {
            self.at_line_start = false;
            if tail.iter().any(|b| !b.is_ascii_whitespace()) {
                self.line_has_content = true;
            }
        }
    }
}

/// Bytes that end a symbol token.
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b'$' | b'"'
        )
}

impl<R: BufRead> PgnReader<R> {
    /// A reader over `inner`.
    pub fn new(inner: R) -> PgnReader<R> {
        let position = Position {
            line: 1,
            at_line_start: true,
            line_has_content: false,
            bytes_read: 0,
        };
        PgnReader {
            inner,
            position,
            games: 0,
            failed: false,
        }
    }

    /// Bytes consumed from the input so far.
    pub fn bytes_read(&self) -> u64 {
        self.position.bytes_read
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        loop {
            match self.inner.fill_buf() {
                Ok(buf) => return Ok(buf.first().copied()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Consumes one byte already seen by `peek`.
    fn bump(&mut self, b: u8) {
        self.inner.consume(1);
        self.position.advance(&[b]);
    }

    /// Consumes bytes while `keep` holds, handing each consumed run to `sink` (whole
    /// buffer slices at a time: this is the reader's hot path). Returns the byte that
    /// stopped it, left unread, or `None` at the end of input.
    fn take_while(
        &mut self,
        keep: impl Fn(u8) -> bool,
        mut sink: impl FnMut(&[u8]),
    ) -> io::Result<Option<u8>> {
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(None);
            }
            let n = buf.iter().position(|&b| !keep(b)).unwrap_or(buf.len());
            sink(&buf[..n]);
            self.position.advance(&buf[..n]);
            let stop = buf.get(n).copied();
            self.inner.consume(n);
            if stop.is_some() {
                return Ok(stop);
            }
        }
    }

    /// Skips to the end of the line, leaving the newline unread.
    fn skip_line(&mut self) -> io::Result<()> {
        self.take_while(|b| b != b'\n', |_| {})?;
        Ok(())
    }

    /// Skips a brace comment (the `{` already consumed). Returns false at end of input.
    fn skip_comment(&mut self) -> io::Result<bool> {
        match self.take_while(|b| b != b'}', |_| {})? {
            Some(b) => {
                self.bump(b);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Reads a tag pair after its `[`. Errors are messages; the rest of the line is then skipped.
    fn read_tag(&mut self) -> io::Result<Result<(String, String), String>> {
        self.take_while(|b| b == b' ' || b == b'\t', |_| {})?;
        let mut name = Vec::new();
        self.take_while(
            |b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'=' | b':' | b'-'),
            |chunk| {
                name.extend_from_slice(
                    &chunk[..chunk.len().min(MAX_TOKEN.saturating_sub(name.len()))],
                )
            },
        )?;
        if name.is_empty() {
            return Ok(Err("tag without a name".to_owned()));
        }
        self.take_while(|b| b == b' ' || b == b'\t', |_| {})?;
        if self.peek()? != Some(b'"') {
            return Ok(Err(format!(
                "tag {} has no quoted value",
                String::from_utf8_lossy(&name)
            )));
        }
        self.bump(b'"');
        let mut value = Vec::new();
        let mut too_long = false;
        loop {
            let stop = self.take_while(
                |b| b != b'"' && b != b'\\' && b != b'\n',
                |chunk| {
                    if value.len() + chunk.len() > MAX_TAG_VALUE {
                        too_long = true;
                    } else {
                        value.extend_from_slice(chunk);
                    }
                },
            )?;
            match stop {
                None | Some(b'\n') => {
                    return Ok(Err(format!(
                        "tag {} value is not closed on its line",
                        String::from_utf8_lossy(&name)
                    )));
                }
                Some(b'"') => {
                    self.bump(b'"');
                    break;
                }
                Some(_) => {
                    self.bump(b'\\');
                    match self.peek()? {
                        Some(c @ (b'"' | b'\\')) => {
                            self.bump(c);
                            value.push(c);
                        }
                        _ => value.push(b'\\'),
                    }
                }
            }
        }
        self.take_while(|b| matches!(b, b' ' | b'\t' | b'\r'), |_| {})?;
        if self.peek()? != Some(b']') {
            return Ok(Err(format!(
                "tag {} is not closed with ]",
                String::from_utf8_lossy(&name)
            )));
        }
        self.bump(b']');
        if too_long {
            return Ok(Err(format!(
                "tag {} value is longer than {MAX_TAG_VALUE} bytes",
                String::from_utf8_lossy(&name)
            )));
        }
        Ok(Ok((
            String::from_utf8_lossy(&name).into_owned(),
            String::from_utf8_lossy(&value).into_owned(),
        )))
    }

    /// Reads a symbol token (SAN, move number, result, glyph), keeping at most `MAX_TOKEN` bytes.
    fn read_symbol(&mut self, token: &mut Vec<u8>) -> io::Result<bool> {
        token.clear();
        let mut too_long = false;
        self.take_while(
            |b| !is_delimiter(b),
            |chunk| {
                if token.len() + chunk.len() > MAX_TOKEN {
                    too_long = true;
                } else {
                    token.extend_from_slice(chunk);
                }
            },
        )?;
        Ok(too_long)
    }

    /// Reads the next game; `Ok(None)` at the end of input.
    fn read_game(&mut self) -> io::Result<Option<Result<PgnGame, PgnError>>> {
        let mut tags = Vec::new();
        // Room for a typical game up front: growing from empty costs several copies per game.
        let mut sans = Sans::with_capacity(128, 512);
        let mut result = None;
        let mut section = Section::Tags;
        let mut depth = 0usize;
        let mut syntax: Option<(u64, String)> = None;
        let mut content = false;
        let mut token = Vec::with_capacity(16);
        while let Some(b) = self.peek()? {
            if b == b'\n' {
                let blank = !self.position.line_has_content;
                self.bump(b);
                if blank && section == Section::Moves {
                    break;
                }
                continue;
            }
            if b.is_ascii_whitespace() {
                self.take_while(|b| b != b'\n' && b.is_ascii_whitespace(), |_| {})?;
                continue;
            }
            if b == b'%' && self.position.at_line_start {
                self.skip_line()?;
                continue;
            }
            match b {
                b'[' => {
                    if section == Section::Moves {
                        if depth > 0 {
                            let line = self.position.line;
                            record(&mut syntax, line, "a tag inside a variation".to_owned());
                        }
                        break; // the next game's tags
                    }
                    self.bump(b);
                    content = true;
                    let line = self.position.line;
                    match self.read_tag()? {
                        Ok(tag) => tags.push(tag),
                        Err(message) => {
                            record(&mut syntax, line, message);
                            self.skip_line()?;
                        }
                    }
                }
                b'{' => {
                    let line = self.position.line;
                    self.bump(b);
                    if !self.skip_comment()? {
                        record(&mut syntax, line, "comment { is never closed".to_owned());
                    }
                }
                b';' => self.skip_line()?,
                b'(' => {
                    self.bump(b);
                    section = Section::Moves;
                    content = true;
                    depth += 1;
                }
                b')' => {
                    self.bump(b);
                    section = Section::Moves;
                    content = true;
                    if depth == 0 {
                        let line = self.position.line;
                        record(&mut syntax, line, "unbalanced )".to_owned());
                    } else {
                        depth -= 1;
                    }
                }
                b'$' => {
                    self.bump(b);
                    section = Section::Moves;
                    content = true;
                    let mut digits = 0;
                    self.take_while(|b| b.is_ascii_digit(), |chunk| digits += chunk.len())?;
                    if digits == 0 {
                        let line = self.position.line;
                        record(&mut syntax, line, "$ without a NAG number".to_owned());
                    }
                }
                b'}' | b']' | b'"' => {
                    self.bump(b);
                    content = true;
                    let line = self.position.line;
                    record(&mut syntax, line, format!("unexpected {:?}", b as char));
                }
                _ => {
                    let line = self.position.line;
                    let too_long = self.read_symbol(&mut token)?;
                    section = Section::Moves;
                    content = true;
                    if too_long {
                        record(
                            &mut syntax,
                            line,
                            format!("token longer than {MAX_TOKEN} bytes"),
                        );
                        continue;
                    }
                    match classify(&token) {
                        Token::Result(r) => {
                            if depth == 0 {
                                result = Some(r.to_owned());
                                break;
                            }
                        }
                        Token::Skip => {}
                        Token::Move(san) => {
                            if depth == 0 {
                                if sans.len() >= MAX_PLIES {
                                    record(
                                        &mut syntax,
                                        line,
                                        format!("more than {MAX_PLIES} plies"),
                                    );
                                } else {
                                    match std::str::from_utf8(san) {
                                        Ok(s) => sans.push(s),
                                        Err(_) => record(
                                            &mut syntax,
                                            line,
                                            format!(
                                                "move {:?} is not text",
                                                String::from_utf8_lossy(san)
                                            ),
                                        ),
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if !content && result.is_none() {
            return Ok(None);
        }
        if depth > 0 {
            let line = self.position.line;
            record(
                &mut syntax,
                line,
                format!("{depth} variation(s) not closed"),
            );
        }
        self.games += 1;
        let index = self.games;
        Ok(Some(match syntax {
            Some((line, message)) => Err(PgnError::Syntax {
                game: index,
                line,
                message,
            }),
            None => Ok(PgnGame {
                index,
                tags,
                sans,
                result,
            }),
        }))
    }
}

/// Keeps the first syntax error of a game (later ones are usually consequences).
fn record(syntax: &mut Option<(u64, String)>, line: u64, message: String) {
    if syntax.is_none() {
        *syntax = Some((line, message));
    }
}

/// A symbol token's role in movetext.
enum Token<'a> {
    Result(&'static str),
    Move(&'a [u8]),
    Skip,
}

/// Classifies a symbol token: result, bare move number or glyph (skipped), or a move
/// (with any leading move number `12.` / `12...` and trailing `!`/`?` glyphs removed).
fn classify(token: &[u8]) -> Token<'_> {
    match token {
        b"1-0" => return Token::Result("1-0"),
        b"0-1" => return Token::Result("0-1"),
        // Some exports write the draw with the one-half sign.
        b"1/2-1/2" | b"\xc2\xbd-\xc2\xbd" => return Token::Result("1/2-1/2"),
        b"*" => return Token::Result("*"),
        _ => {}
    }
    let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut rest = token;
    if digits > 0 && digits == token.len() {
        return Token::Skip; // a move number without its dot
    }
    if digits > 0 && token[digits] == b'.' {
        rest = &token[digits..];
    }
    let dots = rest.iter().take_while(|&&b| b == b'.').count();
    rest = &rest[dots..];
    let glyphs = rest
        .iter()
        .rev()
        .take_while(|&&b| b == b'!' || b == b'?')
        .count();
    rest = &rest[..rest.len() - glyphs];
    if rest.is_empty() {
        Token::Skip
    } else {
        Token::Move(rest)
    }
}

impl<R: BufRead> Iterator for PgnReader<R> {
    type Item = Result<PgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.read_game() {
            Ok(game) => game,
            Err(e) => {
                self.failed = true;
                Some(Err(PgnError::Io(e)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Result<PgnGame, PgnError>> {
        PgnReader::new(text.as_bytes()).collect()
    }

    fn games(text: &str) -> Vec<PgnGame> {
        read(text)
            .into_iter()
            .map(|g| g.expect("game reads"))
            .collect()
    }

    #[test]
    fn reads_tags_moves_and_result() {
        let g = games("[Event \"Test\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0\n");
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].index, 1);
        assert_eq!(
            g[0].tags,
            vec![
                ("Event".into(), "Test".into()),
                ("Result".into(), "1-0".into())
            ]
        );
        assert_eq!(g[0].sans, ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
        assert_eq!(g[0].result.as_deref(), Some("1-0"));
        assert_eq!(g[0].tag("Event"), Some("Test"));
    }

    #[test]
    fn skips_comments_nags_variations_and_escapes() {
        let text = "% escape line with [brackets] and {braces\n\
                    [Event \"x\"]\n\n\
                    1. e4 {a comment\n\nspanning a blank line} e5 $1 ; rest of line e4\n\
                    2. Nf3!? (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6 $14 3.Bb5?? a6! 1/2-1/2";
        let g = games(text);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].sans, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        assert_eq!(g[0].result.as_deref(), Some("1/2-1/2"));
    }

    #[test]
    fn glued_move_numbers_and_black_continuations() {
        let g = games("1.e4 e5 2.Nf3 2...Nc6 3. O-O-O 0-0 *");
        assert_eq!(g[0].sans, ["e4", "e5", "Nf3", "Nc6", "O-O-O", "0-0"]);
        assert_eq!(g[0].result.as_deref(), Some("*"));
    }

    #[test]
    fn splits_games_at_results_blank_lines_and_new_tags() {
        let text = "[A \"1\"] 1.e4 e5 { no result }\n\n[A \"2\"]\n1.d4 d5\n[A \"3\"]\n\n1.c4 0-1 [A \"4\"] 1. Nf3\n\n\n    1. e4 { tagless }";
        let g = games(text);
        assert_eq!(g.len(), 5);
        assert_eq!(g[0].sans, ["e4", "e5"]);
        assert_eq!(g[0].result, None);
        assert_eq!(g[1].tag("A"), Some("2"));
        assert_eq!(g[1].sans, ["d4", "d5"]);
        assert_eq!(g[2].sans, ["c4"]);
        assert_eq!(g[2].result.as_deref(), Some("0-1"));
        assert_eq!(g[3].tag("A"), Some("4"));
        assert!(g[4].tags.is_empty());
        assert_eq!(g[4].sans, ["e4"]);
        assert_eq!(
            g.iter().map(|g| g.index).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
    }

    #[test]
    fn blank_lines_inside_tags_do_not_split() {
        let g = games("[Event \"a\"]\n\n[Date \"b\"]\n\n1. e4 *\n");
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].tags.len(), 2);
    }

    #[test]
    fn pathological_tag_values() {
        let g = games(
            r#"[A "b\""] [B "b\""] [C "A]]"] [D "A]]["] [E "\"A]][\""] [F "\"A]][\"\\"] [G "\"]"]"#,
        );
        assert_eq!(g.len(), 1);
        let values: Vec<&str> = g[0].tags.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(
            values,
            ["b\"", "b\"", "A]]", "A]][", "\"A]][\"", "\"A]][\"\\", "\"]"]
        );
        assert!(g[0].sans.is_empty());
    }

    #[test]
    fn syntax_errors_name_the_game_and_line_and_reading_goes_on() {
        let r = read("1. e4 e5 *\n\n[Event \"unterminated]\n1. d4 *\n\n1. c4 ) *\n\n1. Nf3 *\n");
        assert_eq!(r.len(), 4, "{r:?}");
        assert!(r[0].is_ok());
        match &r[1] {
            Err(PgnError::Syntax {
                game: 2, line: 3, ..
            }) => {}
            other => panic!("expected a syntax error in game 2 line 3, got {other:?}"),
        }
        assert!(
            matches!(&r[2], Err(PgnError::Syntax { game: 3, message, .. }) if message.contains("unbalanced"))
        );
        assert_eq!(r[3].as_ref().unwrap().sans, ["Nf3"]);
        assert_eq!(r[3].as_ref().unwrap().index, 4);
    }

    #[test]
    fn unterminated_comment_and_variation_are_errors() {
        assert!(matches!(
            &read("1. e4 { never closed")[..],
            [Err(PgnError::Syntax { .. })]
        ));
        assert!(matches!(
            &read("1. e4 (1. d4 d5")[..],
            [Err(PgnError::Syntax { .. })]
        ));
    }

    #[test]
    fn empty_and_comment_only_input_has_no_games() {
        assert!(read("").is_empty());
        assert!(read("\n\n  \n").is_empty());
        assert!(read("{ just a comment }\n; and another\n").is_empty());
    }

    #[test]
    fn non_utf8_tags_are_decoded_lossily() {
        let bytes: &[u8] = b"[White \"M\xfcller\"]\n\n1. e4 *\n";
        let g: Vec<_> = PgnReader::new(bytes).collect();
        let g = g[0].as_ref().unwrap();
        assert_eq!(g.tag("White"), Some("M\u{fffd}ller"));
        assert_eq!(g.sans, ["e4"]);
    }

    #[test]
    fn overlong_tokens_are_refused_without_buffering() {
        let text = format!("1. {} *", "a".repeat(100_000));
        assert!(matches!(&read(&text)[..], [Err(PgnError::Syntax { .. })]));
    }

    #[test]
    fn bytes_read_counts_everything() {
        let text = "1. e4 *\n\n1. d4 *\n";
        let mut r = PgnReader::new(text.as_bytes());
        while r.next().is_some() {}
        assert_eq!(r.bytes_read(), text.len() as u64);
    }

    #[test]
    fn buffer_boundaries_do_not_change_what_is_read() {
        let text = "% escape\n[Event \"long \\\"value\\\" here\"] [Site \"x\"]\n\n1. e4 {comment\n\nwith blank} e5 $12 (1... c5 2. Nf3) \
                    2. Nf3!? ; line comment\n2... Nc6 3.Bb5 1-0\n\n1. d4 d5\n\n%esc\n1.c4 *";
        let expected = games(text);
        assert_eq!(expected.len(), 3);
        assert_eq!(expected[0].tag("Event"), Some("long \"value\" here"));
        assert_eq!(expected[0].sans, ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
        for capacity in [1, 2, 3, 5, 7, 16] {
            let mut reader =
                PgnReader::new(io::BufReader::with_capacity(capacity, text.as_bytes()));
            let got: Vec<PgnGame> = reader.by_ref().map(|g| g.unwrap()).collect();
            assert_eq!(got, expected, "buffer capacity {capacity}");
            assert_eq!(reader.bytes_read(), text.len() as u64);
        }
    }

    #[test]
    fn classify_tokens() {
        assert!(matches!(classify(b"12."), Token::Skip));
        assert!(matches!(classify(b"12..."), Token::Skip));
        assert!(matches!(classify(b"12"), Token::Skip));
        assert!(matches!(classify(b"!?"), Token::Skip));
        assert!(matches!(classify(b"12...exd5!?"), Token::Move(b"exd5")));
        assert!(matches!(classify(b"Nf3+"), Token::Move(b"Nf3+")));
        assert!(matches!(classify(b"0-0-0"), Token::Move(b"0-0-0")));
        assert!(matches!(classify(b"1/2-1/2"), Token::Result("1/2-1/2")));
        assert!(matches!(
            classify("\u{bd}-\u{bd}".as_bytes()),
            Token::Result("1/2-1/2")
        ));
    }

    // Replay tests need the rules engine (State::parse_san, Game::play).

    #[test]
    fn replay_plays_the_main_line() {
        let g = &games("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *")[0];
        let game = g.replay().unwrap();
        assert_eq!(game.plies(), 6);
        assert_eq!(
            game.state().fen(),
            "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4"
        );
    }

    #[test]
    fn replay_honours_fen_and_setup() {
        let text = "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n\n1... Kd7 2. e4 *";
        let game = games(text)[0].replay().unwrap();
        assert_eq!(game.state().fen(), "8/3k4/8/8/4P3/8/8/4K3 b - e3 0 2");
        let bad = games("[FEN \"not a fen\"]\n\n1. e4 *")[0].replay();
        assert!(matches!(bad, Err(PgnError::BadFen { game: 1, .. })));
    }

    #[test]
    fn other_variants_are_refused_by_name_and_reading_goes_on() {
        let r = read(concat!(
            "[Variant \"Antichess\"]\n\n1. e3 b5 2. Bxb5 *\n\n",
            "[Variant \"Chess960\"]\n[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\n9. g3 *\n\n",
            "[Variant \"From Position\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 *\n\n",
            "[Variant \"Standard\"]\n\n1. e4 *",
        ));
        assert_eq!(r.len(), 4);
        for (i, name) in [(0, "Antichess"), (1, "Chess960")] {
            let err = r[i].as_ref().unwrap().replay_prefix().unwrap_err();
            assert!(
                matches!(&err, PgnError::UnsupportedVariant { game, variant } if *game == i + 1 && variant == name),
                "{err:?}"
            );
            assert!(err.to_string().contains("not supported"), "{err}");
        }
        assert_eq!(r[2].as_ref().unwrap().replay().unwrap().plies(), 1);
        assert_eq!(r[3].as_ref().unwrap().replay().unwrap().plies(), 1);
    }

    #[test]
    fn replay_errors_name_game_ply_and_san() {
        let r = read(
            "1. e4 e5 *\n\n1. e4 e5 2. Ke3 *\n\n[FEN \"4k3/8/8/8/8/8/K7/R6R w - - 0 1\"]\n\n1. Rd1 *\n\n[FEN \"4k3/8/8/8/8/8/K7/R6R w - - 0 1\"]\n\n1. Rad1 *",
        );
        let err = r[1].as_ref().unwrap().replay().unwrap_err();
        assert!(
            matches!(&err, PgnError::IllegalMove { game: 2, ply: 3, san, .. } if san == "Ke3"),
            "{err:?}"
        );
        assert!(err.to_string().contains("game 2, ply 3"), "{err}");
        assert!(err.to_string().contains("Ke3"), "{err}");
        let err = r[2].as_ref().unwrap().replay().unwrap_err();
        assert!(
            matches!(&err, PgnError::AmbiguousMove { game: 3, ply: 1, san, .. } if san == "Rd1"),
            "{err:?}"
        );
        assert_eq!(r[3].as_ref().unwrap().replay().unwrap().plies(), 1);
    }

    #[test]
    fn replay_refuses_moves_after_mate_and_null_moves() {
        let g = &games("1. f3 e5 2. g4 Qh4# 3. Kf2 0-1")[0];
        let Replay { game, error } = g.replay_prefix().unwrap();
        assert_eq!(game.plies(), 4);
        match error {
            Some(PgnError::GameOver {
                game: 1,
                ply: 5,
                ref san,
                status: Status::Checkmate,
                ended_at: 4,
            }) if san == "Kf2" => {}
            other => panic!("expected GameOver, got {other:?}"),
        }
        let err = games("1. e4 Z0 2. d4 *")[0].replay().unwrap_err();
        assert!(
            matches!(
                err,
                PgnError::NullMove {
                    game: 1,
                    ply: 2,
                    ..
                }
            ),
            "{err:?}"
        );
    }
}
