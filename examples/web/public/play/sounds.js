// @ts-check
// Sounds for move, capture, check, the game's end and low time, synthesized with the Web
// Audio API: no audio file to download (the page stays small). Which sound an event
// makes, and whether the player muted them (remembered in localStorage), are pure and
// unit-tested; `playSound` is the only part that needs a browser.

/** Where the mute choice is kept. */
export const MUTE_KEY = "chessref:muted";

/** Each sound as notes: [frequency Hz, start s, length s, wave]. Short and soft. */
export const SOUNDS = {
  move: [[520, 0, 0.07, "triangle"]],
  capture: [[300, 0, 0.06, "square"], [220, 0.05, 0.09, "triangle"]],
  check: [[880, 0, 0.08, "sine"], [1175, 0.09, 0.1, "sine"]],
  end: [[523, 0, 0.15, "sine"], [659, 0.15, 0.15, "sine"], [784, 0.3, 0.3, "sine"]],
  lowTime: [[988, 0, 0.06, "square"], [988, 0.12, 0.06, "square"]],
};

/** The sound a move makes, from its SAN and whether it ended the game: the end first,
 * then check, then a capture, else a move. */
export function moveSound(san, ended = false) {
  if (ended || /#$/.test(san ?? "")) return "end";
  if (/\+$/.test(san ?? "")) return "check";
  if (/x/.test(san ?? "")) return "capture";
  return "move";
}

/** The sounds due since the page last sounded: `before` and `after` are
 * `{ply, san, over, low}` (the ply drawn, its move's SAN, whether the game is over,
 * whether the player's own clock is in low time). A new move sounds once (the end if it
 * ended the game); an end without a move (a resignation, a draw agreed, a flag) sounds
 * once; entering low time sounds once. Nothing on the first look at a game (a reload). */
export function soundsDue(before, after) {
  if (!before) return [];
  const due = [];
  if (after.ply > before.ply) due.push(moveSound(after.san, after.over && !before.over));
  else if (after.over && !before.over) due.push("end");
  if (after.low && !before.low && !after.over) due.push("lowTime");
  return due;
}

/** Whether the player muted the sounds (`storage`: localStorage, or any getItem). */
export function isMuted(storage) {
  return storage.getItem(MUTE_KEY) === "true";
}

/** Remembers the player's choice. */
export function setMuted(storage, muted) {
  storage.setItem(MUTE_KEY, muted ? "true" : "false");
}

/** @type {AudioContext | null} */
let audio = null;

/** Plays `name` unless muted. A browser starts audio only after the player touched the
 * page: before that (an opponent's move on a page not yet clicked) nothing sounds, and
 * nothing asks the browser (which would warn in the console). */
export function playSound(name, storage = localStorage) {
  const notes = SOUNDS[name];
  if (!notes || isMuted(storage)) return false;
  if (typeof AudioContext === "undefined" || !navigator.userActivation?.hasBeenActive) return false;
  audio ??= new AudioContext();
  const start = audio.currentTime + 0.01;
  for (const [freq, at, length, wave] of notes) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = /** @type {OscillatorType} */ (wave);
    osc.frequency.value = freq;
    // A soft attack and decay: a click, not a beep.
    gain.gain.setValueAtTime(0.0001, start + at);
    gain.gain.exponentialRampToValueAtTime(0.15, start + at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
    osc.connect(gain).connect(audio.destination);
    osc.start(start + at);
    osc.stop(start + at + length + 0.02);
  }
  return true;
}
