// @ts-check
// The board (cm-chessboard): drawing a position with its last move and check, taking a
// move by clicks (legal destinations from the WASM, the contract's code for anything
// else, a promotion choice), turned by Flip, and the move list beside it, which shows an
// earlier position when a move is clicked (or by the arrow keys) without changing the
// game, and gives the game's PGN.
import { Chess } from "/pkg/chessref_wasm.js";
import { Chessboard, COLOR, INPUT_EVENT_TYPE } from "/vendor/cm-chessboard/src/Chessboard.js";
import { Markers, MARKER_TYPE } from "/vendor/cm-chessboard/src/extensions/markers/Markers.js";
import { PromotionDialog, PROMOTION_DIALOG_RESULT_TYPE } from "/vendor/cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js";
import { Accessibility } from "/vendor/cm-chessboard/src/extensions/accessibility/Accessibility.js";
import { $, app, sayWithDetail } from "./page.js";
import { illegalMoveSentence } from "./errors.js";
import { showMaterial } from "./material.js";

let board = null;
/** The orientation last asked of the board: cm-chessboard turns it in its animation
 * queue, so its own getOrientation lags, and asking again while it turns only warns. */
let orientation = COLOR.white;

/** Flip: the board turned from the side it would show. */
let flipped = false;
/** The position the game last drew ({fen, uci, check, colour}), shown unless browsing. */
let live = null;
/** The moves listed: the start position (state hex, "" for the standard one) and the SANs. */
let listed = { start: "", sans: [] };
/** The ply whose position is shown instead of the live one (0 the start), or null. */
let browsing = null;

/** Makes the board, once: the first game opened shows it. */
export function makeBoard() {
  if (board) return;
  document.addEventListener("keydown", browseByKeys);
  board = new Chessboard($("board"), {
    position: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    assetsUrl: "/vendor/cm-chessboard/assets/",
    style: { animationDuration: 150 },
    extensions: [
      { class: Markers, props: { autoMarkers: null } },
      { class: PromotionDialog },
      // Play by keyboard (the board takes focus: arrow keys, Enter on the piece, Enter on its
      // square; or the from/to form) and a board a screen reader reads (a table, the pieces
      // listed). Their text is visually hidden; the form shows while it has focus (play.css).
      {
        class: Accessibility,
        props: { language: "en", keyboardMoveInput: true, movePieceForm: true, boardAsTable: true, piecesAsList: true, visuallyHidden: true },
      },
    ],
  });
  board.view.svg.setAttribute("aria-label", "Chessboard: arrow keys choose a square, Enter picks up the piece there and Enter again puts it down");
}

/** No move input until `enableInput` again (not the player's turn, or no game). */
export function disableInput() {
  board.disableMoveInput();
}

/** Draws the game's position `fen` with the last move `uci` framed and a checked king
 * marked, from `colour`'s side (white for a spectator) unless flipped; an earlier
 * position stays shown while the player browses the move list. */
export function drawBoard(fen, uci, check, colour) {
  live = { fen, uci, check, colour };
  if (browsing === null) show(fen, uci, check);
}

/** The position the pieces are moving to, and the latest one asked for meanwhile. */
let moving = null;
let nextFen = null;

/** Moves the pieces to `fen`, one animation at a time: a position asked for while the
 * pieces still move (the opponent's move, then a premove played on its arrival) is drawn
 * once they stopped, the latest only. Two animations at once desynchronise cm-chessboard's
 * model from its pieces ("no piece on d4"). Sets data-idle once the pieces rest on the
 * latest position (a click during an animation is lost). */
function movePieces(fen) {
  delete document.body.dataset.idle;
  nextFen = fen;
  if (moving) return;
  moving = (async () => {
    let drawn = null;
    while (nextFen !== null) {
      drawn = nextFen;
      nextFen = null;
      await board.setPosition(drawn, true);
    }
    moving = null;
    if (document.body.dataset.fen === drawn) document.body.dataset.idle = "true";
  })();
}

/** Draws `fen` as drawBoard says, from the live game's side. */
function show(fen, uci, check) {
  movePieces(fen);
  const black = (live?.colour === "black") !== flipped;
  document.body.dataset.orientation = black ? "black" : "white";
  const wanted = black ? COLOR.black : COLOR.white;
  if (wanted !== orientation) {
    orientation = wanted;
    board.setOrientation(wanted);
  }
  board.removeMarkers();
  if (uci) {
    board.addMarker(MARKER_TYPE.square, uci.slice(0, 2));
    board.addMarker(MARKER_TYPE.square, uci.slice(2, 4));
  }
  if (check) {
    const turn = fen.split(" ")[1];
    const chess = Chess.fromFen(fen);
    const king = chess.board().findIndex((p) => p === (turn === "w" ? "K" : "k"));
    if (king >= 0) board.addMarker(MARKER_TYPE.circleDanger, "abcdefgh"[king % 8] + (8 - Math.floor(king / 8)));
  }
  document.body.dataset.fen = fen;
  // Beside the clocks, which stay where the player's colour puts them (a flip turns only
  // the board): the material of the position shown.
  showMaterial(fen, live?.colour);
  drawPremove();
}

/** A queued premove's two squares (play.css colours them). */
const PREMOVE = { class: "marker-premove", slice: "markerSquare" };

/** Move input for `colour` during the opponent's turn: a move of its own pieces queued
 * in `premove` (a pawn to the last rank as a queen, as premoves are on lichess), or, on
 * the queued piece, cancelled; nothing is checked or signed now (premove.js: on the
 * opponent's move). `changed()` after either. */
export function enablePremoveInput(colour, premove, changed) {
  board.disableMoveInput();
  if (browsing !== null) return; // an earlier position is on the board
  board.enableMoveInput((event) => {
    if (event.type === INPUT_EVENT_TYPE.moveInputStarted) {
      if (!premove.clickCancels(event.squareFrom)) return true;
      changed();
      return false;
    }
    if (event.type === INPUT_EVENT_TYPE.validateMoveInput) {
      const promotes = board.getPiece(event.squareFrom)?.charAt(1) === "p" && event.squareTo[1] === (colour === "white" ? "8" : "1");
      premove.queue(event.squareFrom + event.squareTo + (promotes ? "q" : ""));
      changed();
      // The piece stays where it is until the move is played.
      return false;
    }
    return undefined;
  }, colour === "white" ? COLOR.white : COLOR.black);
}

/** The game's premove queue, as last marked. */
let queued = null;

/** Marks `premove`'s squares on the board (none when nothing is queued), and keeps them
 * marked on the live position whenever the board is drawn again. */
export function markPremove(premove) {
  queued = premove;
  drawPremove();
}

function drawPremove() {
  board.removeMarkers(PREMOVE);
  if (queued?.uci && browsing === null) {
    board.addMarker(PREMOVE, queued.from);
    board.addMarker(PREMOVE, queued.to);
  }
  if (queued?.uci) document.body.dataset.premove = queued.uci;
  else delete document.body.dataset.premove;
}

/** Move input for `colour` on `stateHex`: legal destinations from the WASM, the
 * contract's code for anything else, a promotion choice; `play(uci)` for a legal one. */
export function enableInput(stateHex, colour, play) {
  board.disableMoveInput();
  // An earlier position is on the board: no move until the live one is back.
  if (browsing !== null) return;
  const chess = Chess.fromStateHex(stateHex);
  const dests = chess.dests();
  board.enableMoveInput((event) => {
    switch (event.type) {
      case INPUT_EVENT_TYPE.moveInputStarted:
        if (!dests.has(event.squareFrom)) return false;
        for (const to of dests.get(event.squareFrom)) board.addMarker(MARKER_TYPE.dot, to);
        return true;
      case INPUT_EVENT_TYPE.validateMoveInput: {
        board.removeMarkers(MARKER_TYPE.dot);
        const uci = event.squareFrom + event.squareTo;
        const piece = chess.pieceAt(event.squareFrom);
        const promotes = (piece === "P" && event.squareTo[1] === "8") || (piece === "p" && event.squareTo[1] === "1");
        const verdict = chess.check(promotes ? `${uci}q` : uci);
        if (!verdict.legal) {
          // The contract's own code, before anything is signed.
          $("verdict").dataset.legal = "false";
          $("verdict").dataset.code = String(verdict.code);
          sayWithDetail(
            $("verdict"),
            illegalMoveSentence(verdict.code, { piece, from: event.squareFrom, to: event.squareTo }),
            `${uci}: the referee would revert IllegalMove(${verdict.code}) ${verdict.reason} — ${verdict.message}`,
          );
          return false;
        }
        $("verdict").dataset.legal = "true";
        delete $("verdict").dataset.code;
        $("verdict").textContent = "";
        if (promotes) {
          board.showPromotionDialog(event.squareTo, colour === "white" ? COLOR.white : COLOR.black, (result) => {
            if (result.type === PROMOTION_DIALOG_RESULT_TYPE.pieceSelected) play(uci + result.piece.charAt(1));
            else play(null);
          });
          return true;
        }
        // The signed position is drawn (animated) by play's render: the board must not move
        // the piece itself as well (false), or it finds the square already empty and warns.
        play(uci);
        return false;
      }
      case INPUT_EVENT_TYPE.moveInputCanceled:
        board.removeMarkers(MARKER_TYPE.dot);
        return undefined;
      default:
        return undefined;
    }
  }, colour === "white" ? COLOR.white : COLOR.black);
}

/** The move list from `start` (a state hex, "" for the standard start): a numbered line
 * per move, each move a button that shows the position after it. */
export function listMoves(sans, start = "") {
  if (start !== listed.start || sans.length < listed.sans.length) browsing = null; // another game
  listed = { start, sans: [...sans] };
  const list = $("moves");
  list.textContent = "";
  for (let i = 0; i < sans.length; i += 2) {
    const line = document.createElement("li");
    for (const [j, san] of sans.slice(i, i + 2).entries()) {
      const ply = i + j + 1;
      const button = Object.assign(document.createElement("button"), { type: "button", textContent: san });
      button.dataset.ply = String(ply);
      button.setAttribute("aria-label", `${Math.ceil(ply / 2)}${ply % 2 ? "." : "..."} ${san}: show the position after it`);
      button.addEventListener("click", () => browse(ply));
      line.append(button, " ");
    }
    list.append(line);
  }
  list.dataset.sans = sans.join(" ");
  markShown();
  // One move pair a line, as players read a score sheet; the latest in view while playing.
  if (browsing === null) list.scrollTop = list.scrollHeight;
}

/** Shows the position after `ply` of the moves listed, or the live game from the last
 * ply on (or null): the game goes on meanwhile, and the board takes no move until then. */
export function browse(ply) {
  if (!board) return;
  if (ply === null || ply >= listed.sans.length) {
    browsing = null;
    markShown();
    if (live) show(live.fen, live.uci, live.check);
    app.game?.render(); // its move input back
    return;
  }
  browsing = Math.max(0, ply);
  board.disableMoveInput();
  const chess = replay(listed.sans.slice(0, browsing));
  const last = browsing > 0 ? replay(listed.sans.slice(0, browsing - 1)).play(listed.sans[browsing - 1]).uci : undefined;
  show(chess.fen(), last, chess.inCheck());
  markShown();
}

/** The moves `sans` played from the listed start. */
function replay(sans) {
  const chess = listed.start ? Chess.fromStateHex(listed.start) : new Chess();
  for (const san of sans) chess.play(san);
  return chess;
}

/** Marks the move whose position is shown (the last while live), and says so. */
function markShown() {
  const shown = browsing ?? listed.sans.length;
  for (const b of $("moves").querySelectorAll("button")) {
    if (Number(/** @type {HTMLElement} */ (b).dataset.ply) === shown) b.setAttribute("aria-current", "step");
    else b.removeAttribute("aria-current");
  }
  if (browsing === null) delete document.body.dataset.browsing;
  else document.body.dataset.browsing = String(browsing);
  $("browsing").hidden = browsing === null;
  $("browsing-ply").textContent = browsing === null ? "" : `after move ${Math.ceil(browsing / 2)}${browsing % 2 ? "" : "..."} (ply ${browsing} of ${listed.sans.length})`;
}

/** The arrow keys step through the moves (Home the start, End the live game), unless the
 * focus is on the board (whose arrow keys choose a square) or in a field. */
function browseByKeys(event) {
  if ($("game").hidden || !listed.sans.length) return;
  const target = /** @type {HTMLElement} */ (event.target);
  if (target.closest?.("input, select, textarea, svg, .cm-chessboard")) return;
  const at = browsing ?? listed.sans.length;
  const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: null }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  browse(to === null ? null : Math.max(0, to));
}

/** Turns the board to the other side (a spectator's too). */
export function flip() {
  flipped = !flipped;
  if (browsing !== null) browse(browsing);
  else if (live) show(live.fen, live.uci, live.check);
}

/** The game as PGN: `headers` (name to value, in order) and the moves listed, ending with
 * `result` ("1-0", "0-1", "1/2-1/2" or "*"). */
export function pgn(headers, result) {
  const chess = replay(listed.sans);
  // The WASM's movetext, without its own tags and result token: the page names both.
  const moves = chess.pgn().split(/\n\n/).at(-1).trim().replace(/\s*(1-0|0-1|1\/2-1\/2|\*)$/, "");
  const tags = Object.entries({ ...headers, Result: result }).map(([k, v]) => `[${k} "${String(v).replace(/[\\"]/g, "\\$&")}"]`);
  const start = listed.start ? [`[SetUp "1"]`, `[FEN "${Chess.fromStateHex(listed.start).fen()}"]`] : [];
  return `${[...tags, ...start].join("\n")}\n\n${moves ? `${moves} ` : ""}${result}\n`;
}
