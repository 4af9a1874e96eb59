// @ts-check
// The board (cm-chessboard): drawing a position with its last move and check, taking a
// move by clicks (legal destinations from the WASM, the contract's code for anything
// else, a promotion choice), and the move list beside it.
import { Chess } from "/pkg/chessref_wasm.js";
import { Chessboard, COLOR, INPUT_EVENT_TYPE } from "/vendor/cm-chessboard/src/Chessboard.js";
import { Markers, MARKER_TYPE } from "/vendor/cm-chessboard/src/extensions/markers/Markers.js";
import { PromotionDialog, PROMOTION_DIALOG_RESULT_TYPE } from "/vendor/cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js";
import { Accessibility } from "/vendor/cm-chessboard/src/extensions/accessibility/Accessibility.js";
import { $, sayWithDetail } from "./page.js";
import { illegalMoveSentence } from "./errors.js";
import { showMaterial } from "./material.js";

let board = null;
/** The orientation last asked of the board: cm-chessboard turns it in its animation
 * queue, so its own getOrientation lags, and asking again while it turns only warns. */
let orientation = COLOR.white;

/** Makes the board, once: the first game opened shows it. */
export function makeBoard() {
  if (board) return;
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

/** Draws `fen` with the last move `uci` framed and a checked king marked. */
export function drawBoard(fen, uci, check, colour) {
  // data-idle once the pieces stopped moving (a click during an animation is lost).
  delete document.body.dataset.idle;
  board.setPosition(fen, true).then(() => {
    if (document.body.dataset.fen === fen) document.body.dataset.idle = "true";
  });
  const wanted = colour === "black" ? COLOR.black : COLOR.white;
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
  showMaterial(fen, colour);
}

/** A queued premove's two squares (play.css colours them). */
const PREMOVE = { class: "marker-premove", slice: "markerSquare" };

/** Move input for `colour` during the opponent's turn: a move of its own pieces queued
 * in `premove` (a pawn to the last rank as a queen, as premoves are on lichess), or, on
 * the queued piece, cancelled; nothing is checked or signed now (premove.js: on the
 * opponent's move). `changed()` after either. */
export function enablePremoveInput(colour, premove, changed) {
  board.disableMoveInput();
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

/** Marks `premove`'s squares on the board (none when nothing is queued). */
export function markPremove(premove) {
  board.removeMarkers(PREMOVE);
  if (premove.uci) {
    board.addMarker(PREMOVE, premove.from);
    board.addMarker(PREMOVE, premove.to);
    document.body.dataset.premove = premove.uci;
  } else delete document.body.dataset.premove;
}

/** Move input for `colour` on `stateHex`: legal destinations from the WASM, the
 * contract's code for anything else, a promotion choice; `play(uci)` for a legal one. */
export function enableInput(stateHex, colour, play) {
  board.disableMoveInput();
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

/** The move list, a numbered line per move: "e4 e5". */
export function listMoves(sans) {
  const list = $("moves");
  list.textContent = "";
  for (let i = 0; i < sans.length; i += 2) {
    list.append(Object.assign(document.createElement("li"), { textContent: sans.slice(i, i + 2).join(" ") }));
  }
  list.dataset.sans = sans.join(" ");
}
