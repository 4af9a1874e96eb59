// The two clocks as players read them. `formatClock` is pure (unit-tested under Node);
// `showClocks` draws them.

/** `seconds` left as a clock shows it: "m:ss". */
export function formatClock(seconds) {
  const t = Math.max(0, Math.floor(seconds));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, "0")}`;
}

/** Draws `clocks` ({white, black, running}, seconds) with `colour`'s own at the bottom. */
export function showClocks(clocks, colour) {
  const bottom = colour === "black" ? "black" : "white";
  const top = bottom === "white" ? "black" : "white";
  for (const [id, side] of [["clock-top", top], ["clock-bottom", bottom]]) {
    const el = document.getElementById(id);
    const t = clocks[side];
    el.querySelector(".who").textContent = side;
    el.querySelector(".time").textContent = formatClock(t);
    el.classList.toggle("running", clocks.running === side);
    el.classList.toggle("low", t < 30);
    el.dataset.seconds = String(t);
  }
}
