// @ts-check
// The two clocks as players read them. The pure functions (unit-tested under Node) say
// how much time each side has at a moment and how a clock shows it; `showClocks` draws.

/** Under this many seconds a clock shows tenths (and reads as low time to a player). */
export const TENTHS_BELOW = 10;

/** The page's title while nothing calls for the player's eye. */
export const BASE_TITLE = "chessref — a staked game off-chain";

/** Below how many seconds a clock is in low time for a game of `initial` seconds: 10 s,
 * or 10 % of the initial time if that is less (as lichess does: a one-minute game is
 * not in low time for a sixth of it). */
export function lowTimeBelow(initial) {
  return Number.isFinite(initial) && initial > 0 ? Math.min(TENTHS_BELOW, initial / 10) : TENTHS_BELOW;
}

/** Whether `seconds` left is low time in a game of `initial` seconds. */
export function isLowTime(seconds, initial) {
  return seconds < lowTimeBelow(initial);
}

/** The tab's title: while the page is hidden and the game is on, "Your move" with the
 * player's clock when it is its move, else the player's clock (the opponent thinks);
 * otherwise (seen, over, watched) the page's own title. */
export function tabTitle({ hidden, playing, toMove, own }) {
  if (!hidden || !playing || own === undefined || own === null) return BASE_TITLE;
  return toMove ? `Your move · ${formatClock(own)}` : `${formatClock(own)} · waiting · chessref`;
}

/** `seconds` left as a chess clock shows it: "m:ss" ("h:mm:ss" from an hour), and
 * "0:0s.t" with tenths under 10 s. Never rounds up: a clock that shows time has it. */
export function formatClock(seconds) {
  const s = Number.isFinite(seconds) ? Math.max(0, seconds) : 0;
  if (s < TENTHS_BELOW) {
    const tenths = Math.floor(s * 10 + 1e-9);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const whole = Math.floor(s);
  const [h, m, sec] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
}

/** Off-chain, at unix time `t` (seconds, fractional): the signed times of `view` (a
 * ChannelPlayer view), the side to move's running from `view.clockFrom` (the latest
 * stamp, or the player's own receipt of it on its own move: CHANNEL.md 8). Stopped
 * before the first move and once the game is ended or decided. */
export function offChainClocks(view, t) {
  const running = view.ply > 0 && !view.ended && !view.decided ? view.turn : null;
  const since = running ? Math.max(0, t - view.clockFrom) : 0;
  return {
    white: Math.max(0, view.whiteTime - (running === "white" ? since : 0)),
    black: Math.max(0, view.blackTime - (running === "black" ? since : 0)),
    running,
  };
}

/** On-chain, at unix time `t`: the referee's `clocks` read at `at` (whiteLeft,
 * blackLeft, whiteToMove), the side to move's running since. */
export function onChainClocks({ whiteLeft, blackLeft, whiteToMove, at }, t) {
  const since = Math.max(0, t - at);
  return {
    white: Math.max(0, whiteLeft - (whiteToMove ? since : 0)),
    black: Math.max(0, blackLeft - (whiteToMove ? 0 : since)),
    running: whiteToMove ? "white" : "black",
  };
}

/** While a registration on the player's move is frozen, at unix time `t`: the player's
 * clock runs to `moveBy` (when its signed time runs out), the other's is its signed time. */
export function replyClocks(colour, moveBy, otherTime, t) {
  const other = colour === "white" ? "black" : "white";
  return { [colour]: Math.max(0, moveBy - t), [other]: otherTime, running: colour };
}

/** Draws `clocks` ({white, black, running}, seconds) with `colour`'s own at the bottom,
 * a clock in low time (for a game of `initial` seconds) marked. */
export function showClocks(clocks, colour, initial) {
  const bottom = colour === "black" ? "black" : "white";
  const top = bottom === "white" ? "black" : "white";
  for (const [id, side] of [["clock-top", top], ["clock-bottom", bottom]]) {
    const el = document.getElementById(id);
    const t = clocks[side];
    el.querySelector(".who").textContent = side;
    el.querySelector(".time").textContent = formatClock(t);
    el.classList.toggle("running", clocks.running === side);
    el.classList.toggle("low", isLowTime(t, initial));
    el.dataset.seconds = String(Math.floor(t));
  }
}
