// @ts-check
// The premove: one move queued during the opponent's turn and played the moment their
// move arrives, if it is legal then. The module decides nothing about chess itself: the
// caller's `isLegal(fen, uci)` (the WASM mirror's check, the same one every move passes)
// says whether the queued move stands in the new position. It only keeps the queue.

/** One queued move, or none. */
export class Premove {
  constructor() {
    /** @type {string | null} the queued move, UCI ("e2e4", "e7e8q") */
    this.uci = null;
  }

  /** The square the queued move starts from, or null. */
  get from() {
    return this.uci ? this.uci.slice(0, 2) : null;
  }

  /** The square the queued move goes to, or null. */
  get to() {
    return this.uci ? this.uci.slice(2, 4) : null;
  }

  /** Queues `uci` (replacing any queued before: one premove, as on lichess). Refuses a
   * move that goes nowhere or is not UCI; returns whether it was queued. */
  queue(uci) {
    if (typeof uci !== "string" || !/^[a-h][1-8][a-h][1-8][qrbn]?$/.test(uci) || uci.slice(0, 2) === uci.slice(2, 4)) return false;
    this.uci = uci;
    return true;
  }

  /** Drops the queued move (Escape, a right-click, the game's end); whether one was. */
  cancel() {
    const had = this.uci !== null;
    this.uci = null;
    return had;
  }

  /** A click on `square` during the opponent's turn: on the queued piece it cancels the
   * premove (true); elsewhere it leaves it (false). */
  clickCancels(square) {
    return this.uci !== null && square === this.from && this.cancel();
  }

  /** The opponent's move arrived and `fen` is the new position, the player to move:
   * `{play: uci}` when the queued move is legal there (the queue empties: it is played
   * now, through the seat like any move), `{dropped: uci, reason}` when not, or null with
   * nothing queued. */
  arrive(fen, isLegal) {
    const uci = this.uci;
    if (!uci) return null;
    this.uci = null;
    let legal = false;
    try {
      legal = Boolean(isLegal(fen, uci));
    } catch {
      legal = false; // a check that cannot even read the move: not legal
    }
    if (legal) return { play: uci };
    return { dropped: uci, reason: `Your premove ${uci.slice(0, 2)}–${uci.slice(2, 4)} was not legal after your opponent's move, so it was not played.` };
  }
}
