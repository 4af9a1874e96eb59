//! WASM bindings of chessref-core: the `ChessReferee` contract's own rules
//! for dApp front ends, so a page knows before the player signs exactly what
//! the contract will say.
//!
//! Moves and states are encoded exactly as the contract's ABI takes them: a
//! move is the `uint24` `(from << 16) | (to << 8) | promotion` over 0x88
//! squares, a state is 128 bytes (`0x`-prefixed hex for ethers).
//!
//! Errors thrown to JS are `Error` objects with a stable `kind`
//! (`"bad_fen"`, `"bad_state"`, `"bad_move"`, `"illegal_move"`,
//! `"ambiguous_move"`, `"game_over"`) and, where one applies, the ENCODING.md
//! section 6 or 7 `code` and its `reason` name. The off-chain play bindings
//! ([`channel`]) add `"bad_message"`, `"bad_signature"`, `"bad_key"` and
//! `"invalid_transition"` (with the CHANNEL.md section 6 `code`, `reason` and
//! `ruleCode`).

pub mod channel;
pub mod player;
pub mod registration;
pub mod verdict;

use chessref_core::{
    Color, FenError, Game, GameError, Move, MoveInfo, RawMove, RawMoveError, SanError, Square,
    State, StateError, Verdict,
};
use js_sys::{Array, Map, Object, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** What the contract says about a move (ENCODING.md section 6). */
export interface CheckResult {
  /** Whether the contract accepts the move. */
  legal: boolean;
  /** 0 when legal, else the section 6 code (1..14). */
  code: number;
  /** "OK" when legal, else the section 6 name, e.g. "KING_LEFT_IN_CHECK". */
  reason: string;
  /** A sentence for a person. */
  message: string;
}
/** A legal move in every form. */
export interface MoveInfo {
  uci: string;
  san: string;
  /** The contract's uint24: (from << 16) | (to << 8) | promotion. */
  packed: number;
  /** What kind of move it is; absent for a quiet move. */
  flags?: Array<"capture" | "en_passant" | "castling" | "promotion" | "check" | "checkmate">;
}
/** Draws the side to move may claim now or with its next move (FIDE 9.2, 9.3). */
export interface ClaimableDraws {
  threefold: boolean;
  fiftyMoves: boolean;
}
/** An automatic end (status 1..4). */
export interface Outcome {
  /** "1-0", "0-1" or "1/2-1/2". */
  result: string;
  /** Section 8 status name. */
  termination: string;
}
/** A raw move's bytes. */
export interface RawMove {
  from: number;
  to: number;
  promotion: number;
}
/** Section 7 verdict on 128 bytes from outside. */
export interface StateValidation {
  valid: boolean;
  /** 0 when valid, else the section 7 code (1..8); -1 for a wrong length or bad hex. */
  code: number;
  reason: string;
  message: string;
}
/** Thrown errors carry these fields. */
export interface ChessrefError extends Error {
  kind: "bad_fen" | "bad_state" | "bad_move" | "bad_square" | "illegal_move" | "ambiguous_move" | "game_over"
    | "bad_message" | "bad_signature" | "bad_key" | "invalid_transition";
  code?: number;
  reason?: string;
  /** For "invalid_transition" (CHANNEL.md section 6): the ENCODING.md section 6 code beside transition code 6, else 0. */
  ruleCode?: number;
}
"#;

pub(crate) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    // Reflect.set on a fresh plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value.into());
}

/// A JS `Error` with `kind` and, if given, the section 6/7 `code` and `reason`.
pub(crate) fn error(kind: &str, message: &str, code: Option<(u8, &str)>) -> JsValue {
    let err = js_sys::Error::new(message);
    set(&err, "kind", kind);
    if let Some((code, reason)) = code {
        set(&err, "code", code);
        set(&err, "reason", reason);
    }
    err.into()
}

fn fen_error(e: FenError) -> JsValue {
    let code = match &e {
        FenError::Invalid(i) => Some((i.code(), i.name())),
        _ => None,
    };
    error("bad_fen", &e.to_string(), code)
}

fn state_error(e: StateError) -> JsValue {
    let code = match &e {
        StateError::Invalid(i) => Some((i.code(), i.name())),
        _ => None,
    };
    error("bad_state", &e.to_string(), code)
}

fn san_error(e: SanError) -> JsValue {
    match &e {
        SanError::Syntax { .. } => error("bad_move", &e.to_string(), None),
        SanError::Illegal { .. } => error("illegal_move", &e.to_string(), None),
        SanError::Rejected { rejection, .. } => error(
            "illegal_move",
            &e.to_string(),
            Some((rejection.code(), rejection.name())),
        ),
        SanError::Ambiguous { .. } => error("ambiguous_move", &e.to_string(), None),
    }
}

fn game_error(e: GameError) -> JsValue {
    match e {
        GameError::Over { .. } => error("game_over", &e.to_string(), None),
        GameError::Illegal(r) => error("illegal_move", &e.to_string(), Some((r.code(), r.name()))),
        GameError::San(s) => san_error(s),
    }
}

fn verdict_object(v: Verdict) -> JsValue {
    let obj = Object::new();
    set(&obj, "legal", v.legal());
    set(&obj, "code", v.code());
    set(&obj, "reason", v.name());
    set(&obj, "message", v.message());
    obj.into()
}

/// The JS form of a move: the fields of core's JSON form (`flags` only when set).
fn move_object(info: MoveInfo) -> JsValue {
    let obj = Object::new();
    set(&obj, "uci", info.uci);
    set(&obj, "san", info.san);
    set(&obj, "packed", info.packed);
    if !info.flags.is_empty() {
        let flags: Array = info.flags.names().map(JsValue::from_str).collect();
        set(&obj, "flags", flags);
    }
    obj.into()
}

fn bad_move(e: RawMoveError) -> JsValue {
    error("bad_move", &e.to_string(), None)
}

fn packed_move(packed: u32) -> Result<RawMove, JsValue> {
    RawMove::from_uint24(packed.into()).map_err(bad_move)
}

/// A game as the referee runs it: a start position plus the moves played,
/// so repetition and draw claims can be answered too.
#[wasm_bindgen]
pub struct Chess {
    game: Game,
}

#[wasm_bindgen]
impl Chess {
    /// A game from the standard initial position.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Chess {
        Chess {
            game: Game::new(State::initial()),
        }
    }

    /// A game from a FEN. Throws `bad_fen` (with the section 7 code for an invalid position).
    #[wasm_bindgen(js_name = fromFen)]
    pub fn from_fen(fen: &str) -> Result<Chess, JsValue> {
        Ok(Chess {
            game: Game::new(State::from_fen(fen.trim()).map_err(fen_error)?),
        })
    }

    /// A game from a 128-byte state as hex (optional `0x`), e.g. read from the
    /// contract. Throws `bad_state` (with the section 7 code for an invalid state).
    #[wasm_bindgen(js_name = fromStateHex)]
    pub fn from_state_hex(hex: &str) -> Result<Chess, JsValue> {
        Ok(Chess {
            game: Game::new(State::from_hex(hex.trim()).map_err(state_error)?),
        })
    }

    /// A game from the 128 state bytes.
    #[wasm_bindgen(js_name = fromStateBytes)]
    pub fn from_state_bytes(bytes: &[u8]) -> Result<Chess, JsValue> {
        Ok(Chess {
            game: Game::new(State::from_bytes(bytes).map_err(state_error)?),
        })
    }

    /// An independent copy (same start and history).
    #[wasm_bindgen(js_name = clone)]
    pub fn clone_game(&self) -> Chess {
        Chess {
            game: self.game.clone(),
        }
    }

    fn state(&self) -> &State {
        self.game.state()
    }

    /// The current position as FEN.
    pub fn fen(&self) -> String {
        self.state().fen()
    }

    /// The current state as the contract's `bytes`: `0x` and 256 lowercase hex characters.
    #[wasm_bindgen(js_name = stateHex)]
    pub fn state_hex(&self) -> String {
        format!("0x{}", self.state().to_hex())
    }

    /// The current state's 128 bytes.
    #[wasm_bindgen(js_name = stateBytes)]
    pub fn state_bytes(&self) -> Vec<u8> {
        self.state().as_bytes().to_vec()
    }

    /// `"white"` or `"black"`: the side to move.
    pub fn turn(&self) -> String {
        match self.state().turn() {
            Color::White => "white".into(),
            Color::Black => "black".into(),
        }
    }

    /// Plies since the standard initial position (state bytes 8, 9).
    pub fn ply(&self) -> u16 {
        self.state().ply()
    }

    /// Plies since the last capture or pawn move (state byte 10).
    #[wasm_bindgen(js_name = halfmoveClock)]
    pub fn halfmove_clock(&self) -> u8 {
        self.state().halfmove_clock()
    }

    /// The legal moves in UCI.
    #[wasm_bindgen(js_name = legalMoves)]
    pub fn legal_moves(&self) -> Vec<String> {
        self.state()
            .legal_moves()
            .iter()
            .map(Move::to_uci)
            .collect()
    }

    /// The legal moves in SAN.
    #[wasm_bindgen(js_name = legalMovesSan)]
    pub fn legal_moves_san(&self) -> Vec<String> {
        let state = self.state();
        state
            .legal_moves()
            .into_iter()
            .map(|mv| MoveInfo::new(state, mv).san)
            .collect()
    }

    /// The legal moves with UCI, SAN and packed forms.
    #[wasm_bindgen(js_name = legalMoveInfos, unchecked_return_type = "MoveInfo[]")]
    pub fn legal_move_infos(&self) -> Array {
        MoveInfo::all(self.state())
            .into_iter()
            .map(move_object)
            .collect()
    }

    /// For board widgets: origin square -> destination squares (`Map<string, string[]>`).
    #[wasm_bindgen(unchecked_return_type = "Map<string, string[]>")]
    pub fn dests(&self) -> Map {
        let map = Map::new();
        for (from, tos) in self.state().destinations() {
            let arr: Array = tos.iter().map(|to| JsValue::from(to.to_string())).collect();
            map.set(&JsValue::from(from.to_string()), &arr);
        }
        map
    }

    /// The 64 squares from a8 to h1 (FEN order): a FEN piece letter, or `""` when empty.
    pub fn board(&self) -> Vec<String> {
        verdict::board(self.state())
    }

    /// The FEN letter of the piece on `square` (`"e4"`), or undefined.
    #[wasm_bindgen(js_name = pieceAt)]
    pub fn piece_at(&self, square: &str) -> Result<Option<String>, JsValue> {
        let sq: Square = square
            .trim()
            .parse()
            .map_err(|_| error("bad_square", &format!("invalid square {square:?}"), None))?;
        Ok(self.state().piece_at(sq).map(|p| p.char().to_string()))
    }

    /// What the contract says about a move here (section 6 code; nothing is
    /// played): UCI with any promotion letter (`e7e8k` is INVALID_PROMOTION, as
    /// the contract says), or the packed `uint24` as `0x` hex, read as
    /// `chessref check` and the HTTP server read it. Throws `bad_move` otherwise.
    #[wasm_bindgen(unchecked_return_type = "CheckResult")]
    pub fn check(&self, uci: &str) -> Result<JsValue, JsValue> {
        verdict::check_text(self.state(), uci)
            .map(verdict_object)
            .map_err(bad_move)
    }

    /// What the contract says about a packed `uint24` move, any bytes (off-board included).
    #[wasm_bindgen(js_name = checkPacked, unchecked_return_type = "CheckResult")]
    pub fn check_packed(&self, packed: u32) -> Result<JsValue, JsValue> {
        verdict::check_packed(self.state(), packed)
            .map(verdict_object)
            .map_err(bad_move)
    }

    /// Plays a move in UCI or SAN; returns its forms. Throws `illegal_move`
    /// (with the section 6 code when there is one), `ambiguous_move`,
    /// `bad_move` or `game_over`; the game is unchanged then.
    #[wasm_bindgen(unchecked_return_type = "MoveInfo")]
    pub fn play(&mut self, text: &str) -> Result<JsValue, JsValue> {
        let state = *self.state();
        if let Some(outcome) = self.game.outcome() {
            let msg = format!(
                "the game is over: {} ({})",
                outcome.termination.name(),
                outcome.result
            );
            return Err(error("game_over", &msg, None));
        }
        let mv = state.parse_move(text.trim()).map_err(san_error)?;
        self.game.play(mv).map_err(game_error)?;
        Ok(move_object(MoveInfo::new(&state, mv)))
    }

    /// Plays a packed `uint24` move exactly as the contract would receive it.
    #[wasm_bindgen(js_name = playPacked, unchecked_return_type = "MoveInfo")]
    pub fn play_packed(&mut self, packed: u32) -> Result<JsValue, JsValue> {
        let state = *self.state();
        let raw = packed_move(packed)?;
        self.game.play(raw).map_err(game_error)?;
        let mv = *self
            .game
            .moves()
            .last()
            .ok_or_else(|| error("bad_move", "no move was recorded", None))?;
        Ok(move_object(MoveInfo::new(&state, mv)))
    }

    /// Takes back the last move; returns it in UCI, or undefined at the start.
    pub fn undo(&mut self) -> Option<String> {
        self.game.undo().map(|m| m.to_uci())
    }

    /// The moves played, in UCI.
    pub fn history(&self) -> Vec<String> {
        self.game.moves().iter().map(Move::to_uci).collect()
    }

    /// Section 8 status code: 0 ongoing, 1 checkmate, 2 stalemate, 3 insufficient material, 4 seventy-five moves.
    pub fn status(&self) -> u8 {
        self.game.status().code()
    }

    /// Section 8 status name (`"ONGOING"`, `"CHECKMATE"`, ...).
    #[wasm_bindgen(js_name = statusName)]
    pub fn status_name(&self) -> String {
        self.game.status().name().into()
    }

    /// Whether the game ended automatically (status 1 to 4).
    #[wasm_bindgen(js_name = isOver)]
    pub fn is_over(&self) -> bool {
        self.game.status().is_over()
    }

    /// The automatic end, or undefined.
    #[wasm_bindgen(unchecked_return_type = "Outcome | undefined")]
    pub fn outcome(&self) -> JsValue {
        match self.game.outcome() {
            None => JsValue::UNDEFINED,
            Some(o) => {
                let obj = Object::new();
                set(&obj, "result", o.result.to_string());
                set(&obj, "termination", o.termination.name());
                obj.into()
            }
        }
    }

    /// Whether the side to move is in check.
    #[wasm_bindgen(js_name = inCheck)]
    pub fn in_check(&self) -> bool {
        self.state().in_check()
    }

    /// Whether `side` (`"white"` or `"black"`) has insufficient mating material (section 8).
    #[wasm_bindgen(js_name = insufficientMaterial)]
    pub fn insufficient_material(&self, side: &str) -> Result<bool, JsValue> {
        let color = match side {
            "white" | "w" => Color::White,
            "black" | "b" => Color::Black,
            _ => {
                return Err(error(
                    "bad_move",
                    &format!("side must be \"white\" or \"black\", got {side:?}"),
                    None,
                ));
            }
        };
        Ok(self.state().has_insufficient_material(color))
    }

    /// Occurrences of the current position since the last irreversible move (this one included).
    pub fn repetitions(&self) -> usize {
        self.game.repetitions()
    }

    /// Draws the side to move may claim, now or together with its next move.
    #[wasm_bindgen(js_name = claimableDraws, unchecked_return_type = "ClaimableDraws")]
    pub fn claimable_draws(&self) -> JsValue {
        let obj = Object::new();
        set(&obj, "threefold", self.game.can_claim_threefold());
        set(&obj, "fiftyMoves", self.game.can_claim_fifty_moves());
        obj.into()
    }

    /// The move (UCI) whose resulting position would occur a third time, for
    /// a threefold claim made with that move; undefined if none (or if the
    /// position already occurred three times).
    #[wasm_bindgen(js_name = threefoldClaimMove)]
    pub fn threefold_claim_move(&self) -> Option<String> {
        self.game
            .threefold_claim_move_or_now()
            .flatten()
            .map(|m| m.to_uci())
    }

    /// Whether the current position occurred five times (reported; the contract does not end on it).
    #[wasm_bindgen(js_name = isFivefold)]
    pub fn is_fivefold(&self) -> bool {
        self.game.is_fivefold()
    }

    /// Section 9 repetition key, `0x`-prefixed (the contract's `bytes32`).
    #[wasm_bindgen(js_name = repetitionKey)]
    pub fn repetition_key(&self) -> String {
        self.state().repetition_key().to_string()
    }

    /// The game as PGN.
    pub fn pgn(&self) -> String {
        self.game.to_pgn(&[], None)
    }
}

/// The threefold witness `ChessReferee.claimDraw` takes for the last of `states` (a
/// game's positions in order, its start first, each as 256 hex digits; an empty string
/// stands for the standard start): the repetition keys since the last capture or pawn
/// move, oldest first, `0x`-prefixed. Throws `bad_state` for an invalid state.
#[wasm_bindgen(js_name = repetitionWitness)]
pub fn repetition_witness(states: Vec<String>) -> Result<Vec<String>, JsValue> {
    let positions = states
        .iter()
        .map(|hex| match hex.trim() {
            "" => Ok(State::initial()),
            hex => State::from_hex(hex).map_err(state_error),
        })
        .collect::<Result<Vec<State>, JsValue>>()?;
    Ok(chessref_core::chain::witness(&positions)
        .iter()
        .map(ToString::to_string)
        .collect())
}

/// The contract's `uint24` for a move's wire text (UCI with any promotion
/// letter, or `0x` hex), as `chessref check` reads it. Throws `bad_move`.
#[wasm_bindgen(js_name = encodeMove)]
pub fn encode_move(uci: &str) -> Result<u32, JsValue> {
    RawMove::parse(uci).map(RawMove::packed).map_err(bad_move)
}

/// The bytes of a packed move (any value up to 2^24 - 1).
#[wasm_bindgen(js_name = decodeMove, unchecked_return_type = "RawMove")]
pub fn decode_move(packed: u32) -> Result<JsValue, JsValue> {
    let raw = packed_move(packed)?;
    let obj = Object::new();
    set(&obj, "from", raw.from);
    set(&obj, "to", raw.to);
    set(&obj, "promotion", raw.promotion);
    Ok(obj.into())
}

/// UCI of a packed move, or undefined when its bytes are no well-formed move (off board, bad promotion).
#[wasm_bindgen(js_name = packedToUci)]
pub fn packed_to_uci(packed: u32) -> Option<String> {
    let raw = RawMove::from_packed(packed & 0xFF_FFFF);
    if packed > 0xFF_FFFF {
        return None;
    }
    let from = Square::new(raw.from)?;
    let to = Square::new(raw.to)?;
    let promotion = match raw.promotion {
        0 => None,
        code @ 2..=5 => chessref_core::Role::from_code(code),
        _ => return None,
    };
    Some(
        Move {
            from,
            to,
            promotion,
        }
        .to_uci(),
    )
}

/// The 0x88 index of a square name (`"e4"` -> 68). Throws `bad_square`.
#[wasm_bindgen(js_name = squareIndex)]
pub fn square_index(name: &str) -> Result<u8, JsValue> {
    name.trim()
        .parse::<Square>()
        .map(Square::index)
        .map_err(|_| error("bad_square", &format!("invalid square {name:?}"), None))
}

/// The name of a 0x88 index, or undefined when it is off the board.
#[wasm_bindgen(js_name = squareName)]
pub fn square_name(index: u8) -> Option<String> {
    Square::new(index).map(|s| s.to_string())
}

/// The initial state as the contract's `bytes` (`0x` + 256 hex characters).
#[wasm_bindgen(js_name = initialStateHex)]
pub fn initial_state_hex() -> String {
    format!("0x{}", State::initial().to_hex())
}

/// Section 7 check of a state from outside (a custom start, a signed
/// off-chain state): what the contract's `validateState` returns.
#[wasm_bindgen(js_name = validateStateHex, unchecked_return_type = "StateValidation")]
pub fn validate_state_hex(hex: &str) -> JsValue {
    let obj = Object::new();
    let (valid, code, reason, message): (bool, i32, &str, String) =
        match State::from_hex(hex.trim()) {
            Ok(_) => (true, 0, "OK", "valid state".into()),
            Err(e @ StateError::Invalid(i)) => {
                (false, i32::from(i.code()), i.name(), e.to_string())
            }
            Err(e) => (false, -1, "BAD_ENCODING", e.to_string()),
        };
    set(&obj, "valid", valid);
    set(&obj, "code", code);
    set(&obj, "reason", reason);
    set(&obj, "message", message);
    obj.into()
}

/// The section 6 name of a rejection code (`14` -> `"KING_LEFT_IN_CHECK"`), `"OK"` for 0, undefined otherwise.
#[wasm_bindgen(js_name = rejectionName)]
pub fn rejection_name(code: u8) -> Option<String> {
    if code == 0 {
        return Some("OK".into());
    }
    chessref_core::Rejection::from_code(code).map(|r| r.name().to_owned())
}
