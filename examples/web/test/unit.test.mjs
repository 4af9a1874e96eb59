// The play page's pure logic under Node, without a browser: the modules of public/play/
// that import nothing from the page (no DOM, no vendored library).
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatClock, offChainClocks, onChainClocks, replyClocks } from "../public/play/clock.js";

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
