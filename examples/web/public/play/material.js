// @ts-check
// Material as players read it beside the clocks: the pieces each side has taken and the
// material difference (+3), counted from the position alone (a FEN's placement), so a
// reload, a spectator and a position registered on-chain all read the same.

/** What each piece is worth, as players count (the king is not counted). */
export const VALUES = { p: 1, n: 3, b: 3, r: 5, q: 9 };

/** Each side's pieces at the start, by type. */
const START = { p: 8, n: 2, b: 2, r: 2, q: 1 };

/** The order players list captured pieces in: pawns first, the queen last. */
const ORDER = ["p", "n", "b", "r", "q"];

/** Counts of each side's pieces, by lower-case type, in a FEN's placement (or the whole
 * FEN: only its first field is read). */
export function countPieces(fen) {
  const counts = { white: { p: 0, n: 0, b: 0, r: 0, q: 0 }, black: { p: 0, n: 0, b: 0, r: 0, q: 0 } };
  for (const c of String(fen).split(" ")[0]) {
    const type = c.toLowerCase();
    if (!(type in VALUES)) continue;
    counts[c === type ? "black" : "white"][type] += 1;
  }
  return counts;
}

/** The pieces of one side no longer on the board, as lower-case letters in ORDER. A
 * piece beyond the starting count was promoted from a pawn, so that pawn was not taken. */
function missing(own) {
  let promoted = 0;
  for (const type of ["n", "b", "r", "q"]) promoted += Math.max(0, own[type] - START[type]);
  const taken = [];
  for (const type of ORDER) {
    let gone = Math.max(0, START[type] - own[type]);
    if (type === "p") gone = Math.max(0, gone - promoted);
    for (let i = 0; i < gone; i++) taken.push(type);
  }
  return taken.join("");
}

/** The material of `fen`: `captured.white` the black pieces white has taken (and
 * `captured.black` white's), `diff` white's material less black's (+3: white is a piece
 * up), `advantage` each side's lead (its part of diff, 0 for the side behind). */
export function material(fen) {
  const counts = countPieces(fen);
  const worth = (side) => ORDER.reduce((sum, type) => sum + VALUES[type] * counts[side][type], 0);
  const diff = worth("white") - worth("black");
  return {
    captured: { white: missing(counts.black), black: missing(counts.white) },
    diff,
    advantage: { white: Math.max(0, diff), black: Math.max(0, -diff) },
  };
}

/** The figurines players read captured pieces as (the taken side's colour). */
const FIGURINES = { white: { p: "♙", n: "♘", b: "♗", r: "♖", q: "♕" }, black: { p: "♟", n: "♞", b: "♝", r: "♜", q: "♛" } };

/** What shows beside `side`'s clock: the pieces it took as figurines, and "+n" when it
 * is ahead ("♟♟♞ +4"); empty before anything was taken. */
export function materialText(m, side) {
  const taken = side === "white" ? "black" : "white";
  const pieces = Array.from(m.captured[side], (t) => FIGURINES[taken][t]).join("");
  const lead = m.advantage[side] > 0 ? `+${m.advantage[side]}` : "";
  return [pieces, lead].filter(Boolean).join(" ");
}

/** Shows the material beside each clock of the page: `colour`'s own (white for a
 * spectator) at the bottom, as showClocks draws them. */
export function showMaterial(fen, colour) {
  const m = material(fen);
  const bottom = colour === "black" ? "black" : "white";
  const top = bottom === "white" ? "black" : "white";
  for (const [id, side] of [["clock-top", top], ["clock-bottom", bottom]]) {
    const el = /** @type {HTMLElement | null} */ (document.querySelector(`#${id} .material`));
    if (!el) continue;
    el.textContent = materialText(m, side);
    el.dataset.lead = String(m.advantage[side]);
  }
}
