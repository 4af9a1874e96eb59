// The play page's pure logic under Node, without a browser: the modules of public/play/
// that import nothing from the page (no DOM, no vendored library).
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE_TITLE, formatClock, isLowTime, lowTimeBelow, offChainClocks, onChainClocks, replyClocks, tabTitle } from "../public/play/clock.js";
import { countPieces, material, materialText } from "../public/play/material.js";
import { Premove } from "../public/play/premove.js";
import { MUTE_KEY, SOUNDS, isMuted, moveSound, playSound, setMuted, soundsDue } from "../public/play/sounds.js";
import { explain, illegalMoveSentence, outdated, pieceName, revertSentence } from "../public/play/errors.js";
import {
  boardReason, drawOfferNote, eth, moverOf, offChainOutcome, outcomeWords, ratingText, rematchWords, settles, shortAddress, timeControl, units,
} from "../public/play/words.js";
import {
  deadlineWords, gameWords, matchName, matchWords, nextStep, placeName, playerName, prizeLine, roundName, statusWords, tierName,
} from "../public/play/bracket.js";
import { rematchOffer } from "../public/play/invites.js";

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

test("addresses read short, time controls as players write them, amounts in ETH without trailing zeros", () => {
  assert.equal(shortAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"), "0x7099…79C8");
  assert.equal(shortAddress(null), "");
  assert.equal(timeControl(300, 2), "5+2");
  assert.equal(timeControl("180", "0"), "3+0");
  assert.equal(timeControl(90, 1), "1.5+1");
  assert.equal(eth(10n ** 18n), "1");
  assert.equal(eth(2n * 10n ** 18n), "2");
  assert.equal(eth("10000000000000000"), "0.01");
  assert.equal(eth(1_500_000_000_000_000_000n), "1.5");
  assert.equal(eth(1n), "0.000000000000000001");
  assert.equal(eth(0n), "0");
  assert.equal(eth(-(10n ** 17n)), "-0.1");
});

const STAKE = 10n ** 18n;

test("the result banner says who won, how, and what each side wins or loses", () => {
  assert.deepEqual(outcomeWords({ result: 1, reason: 1, colour: "white", stake: STAKE }), {
    headline: "You won by checkmate.",
    amount: "You win 1 ETH: 2 ETH is paid to you, your stake and your opponent's.",
    payout: 2n * STAKE,
  });
  assert.deepEqual(outcomeWords({ result: 1, reason: 1, colour: "black", stake: STAKE }), {
    headline: "You lost by checkmate.",
    amount: "You lose your stake of 1 ETH.",
    payout: 0n,
  });
  assert.equal(outcomeWords({ result: 2, reason: 5, colour: "black", stake: STAKE }).headline, "You won by resignation.");
  assert.equal(outcomeWords({ result: 2, reason: 6, colour: "white", stake: STAKE }).headline, "You lost on time.");
  const draw = outcomeWords({ result: 3, reason: 8, colour: "black", stake: "10000000000000000" });
  assert.deepEqual(draw, { headline: "Draw by agreement.", amount: "Your stake of 0.01 ETH comes back to you.", payout: 10n ** 16n });
  assert.equal(outcomeWords({ result: 3, reason: 10, colour: "white", stake: STAKE }).headline, "Draw by threefold repetition.");
  assert.deepEqual(outcomeWords({ result: 2, reason: 1, colour: null, stake: STAKE }), { headline: "Black won by checkmate.", amount: "2 ETH to black.", payout: 0n });
  assert.equal(outcomeWords({ result: 4, reason: 0, colour: "white", stake: STAKE }).payout, STAKE);
  // A tournament's game has no stake: no amount to speak of.
  assert.deepEqual(outcomeWords({ result: 1, reason: 1, colour: "white", stake: 0n }), { headline: "You won by checkmate.", amount: "", payout: 0n });
  assert.deepEqual(outcomeWords({ result: 3, reason: 8, colour: null, stake: "0" }), { headline: "Draw by agreement.", amount: "", payout: 0n });
});

test("who settles an ended game: whom it pays; without a stake (a tournament's game) the winner, either side after a draw", () => {
  assert.equal(settles({ result: 1, colour: "white", stake: STAKE }), true);
  assert.equal(settles({ result: 1, colour: "black", stake: STAKE }), false);
  assert.equal(settles({ result: 3, colour: "black", stake: STAKE }), true);
  assert.equal(settles({ result: 1, colour: "white", stake: 0n }), true);
  assert.equal(settles({ result: 2, colour: "white", stake: 0n }), false);
  assert.equal(settles({ result: 2, colour: "black", stake: "0" }), true);
  assert.equal(settles({ result: 3, colour: "white", stake: 0n }), true);
  assert.equal(settles({ result: 1, colour: null, stake: 0n }), false);
});

test("an off-chain game's outcome: the board's reason for a signed mate, agreement for a draw offered, the resigner's loss", () => {
  const transcript = { result: { result: 1 }, resignation: null };
  assert.deepEqual(offChainOutcome({ ended: "result", status: "CHECKMATE" }, transcript), { result: 1, reason: 1, signed: true });
  assert.deepEqual(offChainOutcome({ ended: "result", status: "ONGOING" }, { result: { result: 3 } }), { result: 3, reason: 8, signed: true });
  assert.deepEqual(offChainOutcome({ ended: "result", status: "STALEMATE" }, { result: { result: 3 } }), { result: 3, reason: 2, signed: true });
  assert.deepEqual(offChainOutcome({ ended: "resignation" }, { resignation: { by: "white" } }), { result: 2, reason: 5, signed: true });
  assert.deepEqual(offChainOutcome({ ended: "resignation" }, { resignation: { by: "black" } }), { result: 1, reason: 5, signed: true });
  assert.deepEqual(offChainOutcome({ ended: null, decided: 2, status: "CHECKMATE" }, {}), { result: 2, reason: 1, signed: false });
  assert.equal(offChainOutcome({ ended: null, decided: 0, status: "ONGOING" }, {}), null);
  assert.equal(boardReason("SEVENTY_FIVE_MOVES"), 4);
  assert.equal(boardReason("ONGOING"), null);
});

test("a draw offer in words: made, offered, declined, and lapsed by whose move", () => {
  const note = (o) => drawOfferNote({ ownOffer: null, theirOffer: false, declined: null, ...o });
  assert.equal(note({ ply: 4, colour: "white" }), "");
  assert.equal(note({ ownOffer: 3, ply: 3, colour: "white" }), "You offered a draw: your opponent can accept it until the next move.");
  // White offered after its move of ply 3; black's move of ply 4 answered it.
  assert.equal(note({ ownOffer: 3, ply: 4, colour: "white" }), "Your opponent declined your draw offer and played on.");
  // White offered on its own move (ply 2, white to move), then moved itself.
  assert.equal(note({ ownOffer: 2, ply: 3, colour: "white" }), "Your draw offer lapsed with your move.");
  assert.equal(note({ ownOffer: 2, ply: 3, colour: "black" }), "Your opponent declined your draw offer and played on.");
  assert.equal(note({ ownOffer: 2, ply: 4, colour: "white" }), "", "said for one move, then gone");
  assert.equal(note({ theirOffer: true, ply: 5, colour: "black" }), "Your opponent offers a draw.");
  assert.equal(note({ theirOffer: true, declined: 5, ply: 5, colour: "black" }), "You declined the draw offer.");
  assert.equal(moverOf(1), "white");
  assert.equal(moverOf(2), "black");
});

test("low time: under 10 s, or under a tenth of the initial time when that is less", () => {
  assert.equal(lowTimeBelow(300), 10);
  assert.equal(lowTimeBelow(100), 10);
  assert.equal(lowTimeBelow(60), 6, "a one-minute game");
  assert.equal(lowTimeBelow(15), 1.5);
  assert.equal(lowTimeBelow(undefined), 10, "terms not known yet");
  assert.equal(isLowTime(9.9, 300), true);
  assert.equal(isLowTime(10, 300), false);
  assert.equal(isLowTime(7, 60), false, "7 s of a one-minute game is not low yet");
  assert.equal(isLowTime(5.9, 60), true);
  assert.equal(isLowTime(0, 300), true);
});

test("the tab title: 'Your move' with the clock while hidden on the player's move, the clock on theirs, else the page's title", () => {
  assert.equal(tabTitle({ hidden: true, playing: true, toMove: true, own: 125.4 }), "Your move · 2:05");
  assert.equal(tabTitle({ hidden: true, playing: true, toMove: true, own: 8.25 }), "Your move · 0:08.2");
  assert.equal(tabTitle({ hidden: true, playing: true, toMove: false, own: 61 }), "1:01 · waiting · chessref");
  assert.equal(tabTitle({ hidden: false, playing: true, toMove: true, own: 61 }), BASE_TITLE, "seen: nothing to call for");
  assert.equal(tabTitle({ hidden: true, playing: false, toMove: true, own: 61 }), BASE_TITLE, "the game is over");
  assert.equal(tabTitle({ hidden: true, playing: true, toMove: true, own: null }), BASE_TITLE, "a spectator has no clock of its own");
});

test("material: the pieces each side took and the difference, from a FEN, promotions not counted as captures", () => {
  const start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
  assert.deepEqual(material(start), { captured: { white: "", black: "" }, diff: 0, advantage: { white: 0, black: 0 } });
  assert.deepEqual(countPieces(start).white, { p: 8, n: 2, b: 2, r: 2, q: 1 });
  // After 1.e4 d5 2.exd5 Qxd5 3.Nc3 Qxg2?? 4.Bxg2 (white took a pawn and the queen, black two pawns).
  const m = material("rnb1kbnr/ppp1pppp/8/8/8/2N5/PPPP1PBP/R1BQK1NR b KQkq - 0 4");
  assert.deepEqual(m.captured, { white: "pq", black: "pp" });
  assert.equal(m.diff, 8);
  assert.deepEqual(m.advantage, { white: 8, black: 0 });
  assert.equal(materialText(m, "white"), "♟♛ +8");
  assert.equal(materialText(m, "black"), "♙♙");
  // Black a knight up (white lost a knight, nothing else).
  const n = material("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1");
  assert.equal(n.diff, -3);
  assert.equal(materialText(n, "black"), "♘ +3");
  assert.equal(materialText(n, "white"), "");
  // White promoted a pawn to a second queen and took nothing: a pawn gone, not captured.
  const q = material("4k3/8/8/8/8/8/PPPPPPP1/RNBQKBNQ w - - 0 1");
  assert.deepEqual(q.captured, { white: "ppppppppnnbbrrq", black: "r" });
  assert.equal(q.diff, 7 + 2 * 3 + 2 * 3 + 5 + 2 * 9, "white's whole material against a bare king");
});

test("a premove: one queued, played on arrival when the mirror says legal, dropped with a reason when not, cancelled on its piece", () => {
  const calls = [];
  const legal = (fen, uci) => {
    calls.push([fen, uci]);
    return uci === "e2e4";
  };
  const pm = new Premove();
  assert.equal(pm.arrive("fen0", legal), null, "nothing queued, nothing to play");
  assert.equal(pm.queue("e2e2"), false, "a move that goes nowhere");
  assert.equal(pm.queue("z9e4"), false, "not a move");
  assert.equal(pm.queue("d2d4"), true);
  assert.equal(pm.queue("e2e4"), true, "a second premove replaces the first");
  assert.deepEqual([pm.from, pm.to], ["e2", "e4"]);
  assert.equal(pm.clickCancels("d2"), false, "a click elsewhere leaves it");
  assert.deepEqual(pm.arrive("fen1", legal), { play: "e2e4" });
  assert.deepEqual(calls, [["fen1", "e2e4"]], "the caller's check decides, on the new position");
  assert.equal(pm.uci, null, "played: the queue is empty");
  pm.queue("g1f3");
  const dropped = pm.arrive("fen2", legal);
  assert.equal(dropped.dropped, "g1f3");
  assert.match(dropped.reason, /g1–f3 was not legal after your opponent's move/);
  assert.equal(pm.uci, null);
  pm.queue("a7a8q");
  assert.equal(pm.clickCancels("a7"), true, "a click on the queued piece cancels it");
  assert.equal(pm.uci, null);
  pm.queue("b1c3");
  assert.equal(pm.cancel(), true, "Escape or a right-click");
  assert.equal(pm.cancel(), false);
  pm.queue("b1c3");
  assert.deepEqual(pm.arrive("fen3", () => { throw new Error("bad"); }).dropped, "b1c3", "a check that throws drops it");
});

test("sounds: which one for which event, once each, and the mute remembered", () => {
  assert.equal(moveSound("e4"), "move");
  assert.equal(moveSound("exd5"), "capture");
  assert.equal(moveSound("Bxf7+"), "check");
  assert.equal(moveSound("Qxf7#"), "end");
  assert.equal(moveSound("Kd1", true), "end", "the move that ended the game");
  assert.equal(moveSound("e8=Q"), "move");
  const at = (ply, san, over = false, low = false) => ({ ply, san, over, low });
  assert.deepEqual(soundsDue(null, at(12, "Nf3")), [], "the first look at a game (a reload) is silent");
  assert.deepEqual(soundsDue(at(1, "e4"), at(1, "e4")), [], "nothing new");
  assert.deepEqual(soundsDue(at(1, "e4"), at(2, "exd5")), ["capture"]);
  assert.deepEqual(soundsDue(at(1, "e4"), at(2, "Nf6", true)), ["end"], "a move that ended the game");
  assert.deepEqual(soundsDue(at(2, "Nf6"), at(2, "Nf6", true)), ["end"], "a resignation");
  assert.deepEqual(soundsDue(at(2, "Nf6", true), at(2, "Nf6", true)), [], "the end sounds once");
  assert.deepEqual(soundsDue(at(4, "d4"), at(5, "d5", false, true)), ["move", "lowTime"]);
  assert.deepEqual(soundsDue(at(5, "d5", false, true), at(5, "d5", false, true)), [], "low time sounds once");
  assert.deepEqual(soundsDue(at(5, "d5"), at(5, "d5", true, true)), ["end"], "no low-time sound after the end");
  for (const notes of Object.values(SOUNDS)) for (const [freq, start, length] of notes) assert.ok(freq > 0 && start >= 0 && length > 0);
  const storage = new Map();
  const local = { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => storage.set(k, String(v)) };
  assert.equal(isMuted(local), false, "sounds on by default");
  setMuted(local, true);
  assert.equal(storage.get(MUTE_KEY), "true");
  assert.equal(isMuted(local), true);
  assert.equal(playSound("move", local), false, "muted: nothing plays");
  setMuted(local, false);
  assert.equal(isMuted(local), false);
  assert.equal(playSound("nothing", local), false, "an unknown sound");
});

test("a rating reads as the lobby shows it, rounded with its deviation, or unrated", () => {
  assert.equal(ratingText({ rating: 1662.31, deviation: 290.5, games: 1 }), "1662 ±291");
  assert.equal(ratingText({ rating: 1500, deviation: 350, games: 0 }), "unrated", "no rated game yet");
  assert.equal(ratingText(null), "unrated");
});

test("a rematch offer in words: stake, time control and the colour the player gets", () => {
  const terms = { stake: 10n ** 18n, initialTime: 300, increment: 2 };
  assert.equal(rematchWords({ ...terms, youPlay: "white" }), "Your opponent offers a rematch (1 ETH, 5+2, you play white)");
  assert.equal(rematchWords({ stake: "10000000000000000", initialTime: 90, increment: 0, youPlay: "black" }), "Your opponent offers a rematch (0.01 ETH, 1.5+0, you play black)");
});

test("the rematch offer is the opponent's latest open game invited to the player alone, unless declined", () => {
  const ME = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
  const THEM = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
  const OTHER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
  const games = [
    { id: "3", phase: "open", creator: THEM, opponent: null }, // open to anyone: not a rematch
    { id: "4", phase: "open", creator: OTHER, opponent: ME }, // someone else's invitation
    { id: "5", phase: "open", creator: THEM.toLowerCase(), opponent: ME.toLowerCase() },
    { id: "12", phase: "open", creator: THEM, opponent: ME },
    { id: "13", phase: "open", creator: THEM, opponent: OTHER }, // invited someone else
    { id: "14", phase: "cancelled", creator: THEM, opponent: ME },
  ];
  assert.equal(rematchOffer(games, { me: ME, opponent: THEM })?.id, "12", "the latest, by id as a number");
  assert.equal(rematchOffer(games, { me: ME, opponent: THEM, declined: new Set(["12"]) })?.id, "5");
  assert.equal(rematchOffer(games, { me: ME, opponent: THEM, declined: new Set(["12", "5"]) }), null);
  assert.equal(rematchOffer(games, { me: ME, opponent: OTHER })?.id, "4");
  assert.equal(rematchOffer(games, { me: THEM, opponent: ME }), null, "not the other way round");
  assert.equal(rematchOffer([], { me: ME, opponent: THEM }), null);
});

// ------------------------------------------------------------------ tournaments (bracket.js)

const P = ["0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "0x90F79bf6EB2c4f870365E785982E1f101E93b906", "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"];
const ethMoney = (a) => `${eth(a)} ETH`;
/** A 4-player event as `/v1/tournaments/{id}` says it: round 0 played as `semis`, the final as `final`. */
function event4({ status = "running", semis, final, standings = [] }) {
  const match = (m, round, x) => ({ match: m, round, white: null, black: null, gameId: null, status: "waiting", winner: null, how: null, lotBlock: null, ...x });
  return {
    id: "3", tournament: "0x0000000000000000000000000000000000000007", status, token: "0x0000000000000000000000000000000000000000",
    fee: "10000000000000000", size: 4, entrantCount: 4, entrants: P, standings, prizes: [], pool: "40000000000000000",
    responseWindow: 600, rounds: [[match(0, 0, semis[0]), match(1, 0, semis[1])], [match(2, 1, final)]],
  };
}

test("units and eth: a token's amount in whole tokens, without trailing zeros", () => {
  assert.equal(units(1_500_000n, 6), "1.5");
  assert.equal(units("25000000", 6), "25");
  assert.equal(units(7n, 0), "7");
  assert.equal(units(-5n, 1), "-0.5");
  assert.equal(eth("10000000000000000"), "0.01");
});

test("an event's rounds, places, prizes, deadline and status in words", () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((r) => roundName(r, 64)), ["Round of 64", "Round of 32", "Round of 16", "Quarter-finals", "Semi-finals", "Final"]);
  assert.deepEqual([0, 1].map((r) => roundName(r, 4)), ["Semi-finals", "Final"]);
  assert.deepEqual([0, 1, 2, 3].map((r) => matchName(r, 16)), ["round-of-16 game", "quarter-final", "semi-final", "final"]);
  assert.deepEqual([0, 1, 2, 3, 4].map(placeName), ["Winner", "Finalist", "Semi-finalist", "Quarter-finalist", "Out in the round of 16"]);
  assert.deepEqual([0, 1, 2, 3, 4].map(tierName), ["Winner", "Finalist", "Semi-finalists", "Quarter-finalists", "Out in the round of 16"]);
  const prizes = [{ tier: 0, players: 1, prize: "22800000000000000" }, { tier: 1, players: 1, prize: "9500000000000000" }, { tier: 2, players: 2, prize: "2850000000000000" }, { tier: 3, players: 4, prize: "0" }];
  assert.equal(prizeLine(prizes, ethMoney), "Winner 0.0228 ETH · Finalist 0.0095 ETH · Semi-finalists 0.00285 ETH each");
  assert.equal(deadlineWords(1_000, 1_000), "closed");
  assert.equal(deadlineWords(1_000 + 7_500, 1_000), "closes in 2 h 5 min");
  assert.equal(deadlineWords(1_000 + 3 * 86_400, 1_000), "closes in 3 days");
  assert.equal(deadlineWords(1_045, 1_000), "closes in 45 s");
  assert.equal(gameWords({ initialTime: 180, increment: 2, responseWindow: 600 }), "3+2, moves signed off-chain");
  assert.equal(gameWords({ initialTime: 300, increment: 0, responseWindow: 0 }), "5+0, every move on-chain");
  assert.equal(statusWords({ status: "open", size: 8, entrantCount: 5 }), "Taking entries: 3 of 8 places left");
  assert.equal(statusWords({ status: "finished", winner: P[0] }, P[0]), "Finished: won by you");
  assert.equal(statusWords({ status: "finished", winner: P[1] }, P[0]), "Finished: won by 0x3C44…93BC");
  assert.equal(statusWords({ status: "refunding" }), "Did not fill: every entry is refunded");
});

test("a match's line names the winner and how: on the board, by lot, by walkover; both out", () => {
  const m = { white: P[0], black: P[1] };
  assert.equal(matchWords({ ...m, status: "waiting" }, P[0]), "not started");
  assert.equal(matchWords({ white: P[0], black: null, status: "waiting" }, P[0]), "waiting for its players");
  assert.equal(matchWords({ ...m, status: "running" }, P[0]), "playing");
  // Its game ended, the bracket not told yet: said from the server's view of the game.
  assert.equal(matchWords({ ...m, status: "running" }, P[0], { phase: "running", result: null }), "playing");
  assert.equal(matchWords({ ...m, status: "running" }, P[0], { phase: "ended", result: "black_wins" }), "0x3C44…93BC won the game");
  assert.equal(matchWords({ ...m, status: "running" }, P[0], { phase: "ended", result: "white_wins" }), "you won the game");
  assert.equal(matchWords({ ...m, status: "running" }, P[0], { phase: "ended", result: "draw" }), "drawn: once reported, a lot decides");
  assert.equal(matchWords({ ...m, status: "decided", winner: P[0], how: "game" }, P[0]), "you won on the board");
  assert.equal(matchWords({ ...m, status: "decided", winner: P[1], how: "lot" }, P[0]), "0x3C44…93BC won by lot after a drawn game");
  assert.equal(matchWords({ white: P[1], black: null, status: "decided", winner: P[1], how: "walkover" }, P[0]), "0x3C44…93BC goes on by walkover");
  assert.equal(matchWords({ ...m, status: "lot" }, P[0]), "drawn: a lot decides");
  assert.equal(matchWords({ ...m, status: "abandoned" }, P[0]), "abandoned by both: both out");
  assert.equal(matchWords({ white: null, black: null, status: "abandoned" }, P[0]), "no players: both before it were out");
  assert.equal(playerName(P[0], P[0].toLowerCase()), "you");
});

test("the next step: nothing for an outsider; the draw once its block is mined; Start for both players, white named first", () => {
  const chain = { latestBlock: 20 };
  const semis = [{ white: P[0], black: P[1] }, { white: P[2], black: P[3] }];
  assert.equal(nextStep(event4({ semis }), "0x0000000000000000000000000000000000000009", chain, ethMoney), null);
  const drawing = { ...event4({ status: "drawing", semis: [{}, {}] }) };
  // A transaction lands in the block after the latest: the draw is due once its block is mined.
  assert.equal(nextStep(drawing, P[0], { latestBlock: 19, drawBlock: 20 }, ethMoney).action, null);
  assert.deepEqual(nextStep(drawing, P[0], { latestBlock: 20, drawBlock: 20 }, ethMoney).action, { call: "draw", args: ["3"], label: "Draw the bracket" });
  const white = nextStep(event4({ semis }), P[0], chain, ethMoney);
  assert.deepEqual(white.action, { call: "start", args: ["3", 0], label: "Start the game" });
  assert.match(white.say, /^Semi-finals: you play white against 0x3C44…93BC\. You play white, so you start the game/);
  const black = nextStep(event4({ semis }), P[1], chain, ethMoney);
  assert.match(black.say, /white starts the game, and you may start it too/);
  assert.equal(nextStep(event4({ status: "open", semis }), P[0], chain, ethMoney).action, null);
});

test("the next step while playing: open the game; report a draw; resolve a due lot; start the final once the other semi-final is decided", () => {
  const semis = [{ white: P[0], black: P[1], status: "running", gameId: "7" }, { white: P[2], black: P[3], status: "running", gameId: "8" }];
  const on = nextStep(event4({ semis }), P[1], { latestBlock: 30, games: { 7: { phase: 2, result: 0 } } }, ethMoney);
  assert.deepEqual(on.action, { call: "open", gameId: "7", label: "Open your game" });
  assert.match(on.say, /You play black\.$/);
  // A per-move event's game is not the game view's: the player is told where to play it.
  const perMove = nextStep({ ...event4({ semis }), responseWindow: 0 }, P[1], { latestBlock: 30, games: { 7: { phase: 2, result: 0 } } }, ethMoney);
  assert.equal(perMove.action, null);
  assert.match(perMove.say, /play it with chessref tournament play 3\.$/);
  const drawn = nextStep(event4({ semis }), P[1], { latestBlock: 30, games: { 7: { phase: 3, result: 3 } } }, ethMoney);
  assert.deepEqual(drawn.action, { call: "report", args: ["3", 0], label: "Report the draw" });
  // Black won; the other semi-final still plays: nothing to do but wait.
  const waiting = nextStep(event4({ semis }), P[1], { latestBlock: 30, games: { 7: { phase: 3, result: 2 } } }, ethMoney);
  assert.equal(waiting.action, null);
  assert.match(waiting.say, /against the winner of 0x90F7…b906 vs 0x15d3…6A65, not decided yet/);
  const otherDone = [semis[0], { ...semis[1], status: "decided", winner: P[3], how: "game" }];
  assert.deepEqual(nextStep(event4({ semis: otherDone }), P[1], { latestBlock: 30, games: { 7: { phase: 3, result: 2 } } }, ethMoney).action,
    { call: "start", args: ["3", 2], label: "Start your final" });
  // The other semi-final's game ended on the board, the bracket not told yet: the final's start records it.
  assert.deepEqual(nextStep(event4({ semis }), P[1], { latestBlock: 30, games: { 7: { phase: 3, result: 2 }, 8: { phase: 3, result: 1 } } }, ethMoney).action,
    { call: "start", args: ["3", 2], label: "Start your final" });
  // Drawn: it is reported first (anyone may), and its lot names the opponent.
  const theirDraw = nextStep(event4({ semis }), P[1], { latestBlock: 30, games: { 7: { phase: 3, result: 2 }, 8: { phase: 3, result: 3 } } }, ethMoney);
  assert.deepEqual(theirDraw.action, { call: "report", args: ["3", 1], label: "Report their draw" });
  assert.match(theirDraw.say, /The other semi-final was drawn: report it, and a lot decides your next opponent\.$/);
  // The loser waits for the final; white lost.
  const lost = nextStep(event4({ semis }), P[0], { latestBlock: 30, games: { 7: { phase: 3, result: 2 } } }, ethMoney);
  assert.equal(lost.action, null);
  assert.match(lost.say, /^You lost your semi-final against 0x3C44…93BC\. Prizes are paid once the final is decided\.$/);
  // The final's game ended before the bracket recorded it: the contract would credit now, so the claim is offered.
  assert.deepEqual(nextStep(event4({ semis }), P[0], { latestBlock: 30, games: { 7: { phase: 3, result: 2 } }, claim: "ok" }, ethMoney).action,
    { call: "claim", args: ["3"], label: "Claim your prize" });
  const lot = [{ ...semis[0], status: "lot", lotBlock: 40 }, semis[1]];
  assert.equal(nextStep(event4({ semis: lot }), P[0], { latestBlock: 39 }, ethMoney).action, null);
  assert.equal(nextStep(event4({ semis: lot }), P[0], { latestBlock: 40 }, ethMoney).action.call, "resolveLot");
});

test("the next step at the end: claim the prize, then withdraw it; a refund when the event did not fill", () => {
  const semis = [{ white: P[0], black: P[1], status: "decided", winner: P[0], how: "game" }, { white: P[2], black: P[3], status: "decided", winner: P[3], how: "lot" }];
  const final = { white: P[3], black: P[0], status: "decided", winner: P[0], how: "game", gameId: "9" };
  const standings = [{ player: P[0], tier: 0, prize: "22800000000000000", credited: false }, { player: P[3], tier: 1, prize: "9500000000000000", credited: false }];
  const d = event4({ status: "finished", semis, final, standings });
  const claim = nextStep(d, P[0], { latestBlock: 50, claim: "ok" }, ethMoney);
  assert.deepEqual(claim.action, { call: "claim", args: ["3"], label: "Claim 0.0228 ETH" });
  assert.match(claim.say, /You won the event!/);
  const credited = nextStep(d, P[0], { latestBlock: 51, claim: "claimed", credit: 22800000000000000n }, ethMoney);
  assert.deepEqual(credited.action, { call: "withdraw", args: [d.token], label: "Withdraw 0.0228 ETH" });
  assert.equal(nextStep(d, P[0], { latestBlock: 52, claim: "claimed", credit: 0n }, ethMoney).action, null);
  assert.match(nextStep(d, P[1], { latestBlock: 50, claim: "ok" }, ethMoney).say, /^You are out: 0x7099…79C8 won your semi-final on the board\. Claim your prize/);
  const refund = nextStep({ ...event4({ status: "refunding", semis: [{}, {}] }), entrants: [P[0]] }, P[0], { latestBlock: 5, claim: "ok" }, ethMoney);
  assert.deepEqual(refund.action, { call: "claim", args: ["3"], label: "Claim your refund of 0.01 ETH" });
  const refunding = { ...event4({ status: "refunding", semis: [{}, {}] }), entrants: [P[0]] };
  assert.deepEqual(nextStep(refunding, P[0], { claim: "claimed", credit: 10n ** 16n }, ethMoney).action, { call: "withdraw", args: [refunding.token], label: "Withdraw 0.01 ETH" });
  const refunded = nextStep(refunding, P[0], { claim: "claimed", credit: 0n }, ethMoney);
  assert.equal(refunded.action, null);
  assert.equal(refunded.say, "The event did not fill by its deadline. Your entry fee of 0.01 ETH was refunded.");
});
