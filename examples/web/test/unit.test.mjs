// The play page's pure logic under Node, without a browser: the modules of public/play/
// that import nothing from the page (no DOM, no vendored library).
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatClock, offChainClocks, onChainClocks, replyClocks } from "../public/play/clock.js";
import { explain, illegalMoveSentence, outdated, pieceName, revertSentence } from "../public/play/errors.js";

test("a clock reads m:ss, h:mm:ss from an hour, and tenths under 10 s, never rounding up", () => {
  const cases = [
    [300, "5:00"], [301.99, "5:01"], [59.5, "0:59"], [10, "0:10"], [10.01, "0:10"],
    [9.99, "0:09.9"], [9.95, "0:09.9"], [9.9, "0:09.9"], [5.05, "0:05.0"], [0.09, "0:00.0"], [0.1, "0:00.1"],
    [0, "0:00.0"], [-3, "0:00.0"], [3600, "1:00:00"], [3723.4, "1:02:03"], [NaN, "0:00.0"],
  ];
  for (const [seconds, shown] of cases) assert.equal(formatClock(seconds), shown, `${seconds} s`);
});

test("off-chain, only the side to move's clock runs, from its clockFrom, and never below zero", () => {
  const view = { ply: 3, turn: "black", whiteTime: 290, blackTime: 120, clockFrom: 1_000, ended: null, decided: 0 };
  assert.deepEqual(offChainClocks(view, 1_012.5), { white: 290, black: 107.5, running: "black" });
  assert.deepEqual(offChainClocks(view, 990), { white: 290, black: 120, running: "black" }, "a stamp ahead of this clock");
  assert.deepEqual(offChainClocks(view, 2_000), { white: 290, black: 0, running: "black" });
  assert.deepEqual(offChainClocks({ ...view, ply: 0, turn: "white" }, 1_050), { white: 290, black: 120, running: null }, "before the first move");
  assert.deepEqual(offChainClocks({ ...view, ended: "resignation" }, 1_050), { white: 290, black: 120, running: null });
  assert.deepEqual(offChainClocks({ ...view, decided: 1 }, 1_050), { white: 290, black: 120, running: null });
});

test("on-chain, the side to move's clock runs from when the referee's clocks were read", () => {
  const read = { whiteLeft: 100, blackLeft: 50, whiteToMove: true, at: 2_000 };
  assert.deepEqual(onChainClocks(read, 2_030.25), { white: 69.75, black: 50, running: "white" });
  assert.deepEqual(onChainClocks({ ...read, whiteToMove: false }, 2_060), { white: 100, black: 0, running: "black" });
});

test("answering a registration, the player's clock runs to its move-by time", () => {
  assert.deepEqual(replyClocks("white", 5_000, 240, 4_990.5), { white: 9.5, black: 240, running: "white" });
  assert.deepEqual(replyClocks("black", 5_000, 17, 5_001), { black: 0, white: 17, running: "black" });
});

test("every IllegalMove code of ENCODING.md section 6 reads as a sentence naming the piece where it matters", () => {
  assert.equal(illegalMoveSentence(7, { piece: "B", from: "f1", to: "c4" }), "That bishop's path is blocked.");
  assert.equal(illegalMoveSentence(7, { piece: "p", from: "e7", to: "e5" }), "That pawn is blocked.");
  assert.equal(illegalMoveSentence(6, { piece: "n", from: "g8", to: "g6" }), "A knight cannot move that way.");
  assert.equal(illegalMoveSentence(3, { from: "e4" }), "There is no piece on e4.");
  assert.equal(illegalMoveSentence(5, { piece: "R", to: "a2" }), "One of your own pieces is already on a2.");
  assert.equal(illegalMoveSentence(14, { piece: "K" }), "That would leave your king in check.");
  const sentences = new Set();
  for (let code = 1; code <= 14; code++) {
    const s = illegalMoveSentence(code, { piece: "Q", from: "d1", to: "d4" });
    assert.match(s, /^[A-Z].*\.$/, `code ${code}: a sentence`);
    assert.doesNotMatch(s, /IllegalMove|_|\d{2}/, `code ${code}: no jargon`);
    sentences.add(s);
  }
  assert.equal(sentences.size, 14, "one sentence per code");
  assert.equal(illegalMoveSentence(99), "That move is not allowed.");
  assert.equal(pieceName("x"), "piece");
});

test("a contract's custom error reads as a sentence, the raw error kept for the detail", () => {
  assert.deepEqual(explain(new Error("x"), "NotCreator()"), {
    sentence: "Only the player who created this game can cancel it.",
    detail: "the contract refuses: NotCreator()",
  });
  assert.equal(explain(null, "GameNotOpen(7)").sentence, "This game is no longer open: someone joined it, or it was cancelled.");
  assert.equal(revertSentence("SomethingNew"), "The referee refused this.");
  assert.equal(explain({ code: "ACTION_REJECTED", shortMessage: "user rejected action" }).sentence, "You declined in your wallet.");
  assert.equal(explain({ code: "ACTION_REJECTED", shortMessage: "user rejected action" }).detail, "user rejected action");
  assert.equal(explain({ code: "INSUFFICIENT_FUNDS", shortMessage: "insufficient funds" }).sentence, "Your wallet does not hold enough ETH for this.");
  assert.deepEqual(explain(new Error("no wallet found: install one")), { sentence: "no wallet found: install one", detail: "" });
});

test("a relayed draw offer or result half for an older ply is outdated (silent); anything else is not", () => {
  assert.equal(outdated({ type: "drawOffer", ply: 12 }, 14), true);
  assert.equal(outdated({ type: "result", ply: 12 }, 13), true);
  assert.equal(outdated({ type: "drawOffer", ply: 14 }, 14), false, "an offer for the latest move that fails is not merely late");
  assert.equal(outdated({ type: "move", ply: 2 }, 14), false, "a refused move is always reported");
  assert.equal(outdated({ type: "resignation", ply: 2 }, 14), false);
  assert.equal(outdated(null, 14), false);
});
