// @ts-check
// A knockout event as a player reads it (docs/TOURNAMENT.md): its status and terms in
// words, the rounds' and places' names, each match's line in the bracket, and the
// player's next step (what is due and which tournament call does it). Reads the server's
// `/v1/tournaments` JSON (the indexer's) and, for the player's own match, what the chain
// says; decides nothing the contract does not. Pure: unit-tested under Node
// (test/unit.test.mjs).
import { shortAddress, timeControl } from "./words.js";

/** Whether two addresses are the same account (any case); false when either is missing. */
export function same(a, b) {
  return Boolean(a && b) && a.toLowerCase() === b.toLowerCase();
}

/** A player's name in the bracket: "you" for the page's own account, else the short address. */
export function playerName(address, me) {
  if (!address) return "";
  return same(address, me) ? "you" : shortAddress(address);
}

/** The name of round `round` (0 first) of an event of `size` players: "Final",
 * "Semi-finals", "Quarter-finals", "Round of 16". */
export function roundName(round, size) {
  const players = Number(size) >> round;
  return { 2: "Final", 4: "Semi-finals", 8: "Quarter-finals" }[players] ?? `Round of ${players}`;
}

/** One match of round `round` as players name it: "final", "semi-final", "quarter-final",
 * "round-of-16 game". */
export function matchName(round, size) {
  const players = Number(size) >> round;
  return { 2: "final", 4: "semi-final", 8: "quarter-final" }[players] ?? `round-of-${players} game`;
}

/** The name of prize place `tier` (0 the winner, 1 the finalist, 2 the semi-finalists, …),
 * of all who hold it. */
export function tierName(tier) {
  return ["Winner", "Finalist", "Semi-finalists", "Quarter-finalists"][tier] ?? `Out in the round of ${2 ** tier}`;
}

/** The name of one player's place `tier`: "Winner", "Finalist", "Semi-finalist", …. */
export function placeName(tier) {
  return ["Winner", "Finalist", "Semi-finalist", "Quarter-finalist"][tier] ?? `Out in the round of ${2 ** tier}`;
}

/** The event's prizes in one line: "Winner 0.0228 ETH · Finalist 0.0095 ETH ·
 * Semi-finalists 0.00285 ETH each" (`money` formats an amount; places paying nothing left
 * out). */
export function prizeLine(prizes, money) {
  return prizes
    .filter((p) => BigInt(p.prize) > 0n)
    .map((p) => `${tierName(p.tier)} ${money(p.prize)}${p.players > 1 ? " each" : ""}`)
    .join(" · ");
}

/** A span of seconds as a player says it: "45 s", "12 min", "2 h 5 min", "3 days". */
export function spanWords(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) {
    const m = Math.floor((s % 3600) / 60);
    return `${Math.floor(s / 3600)} h${m ? ` ${m} min` : ""}`;
  }
  const days = Math.floor(s / 86400);
  return `${days} day${days === 1 ? "" : "s"}`;
}

/** When entries close, from `deadline` and `now` (unix seconds): "closes in 2 h 5 min",
 * or "closed". */
export function deadlineWords(deadline, now) {
  return deadline > now ? `closes in ${spanWords(deadline - now)}` : "closed";
}

/** The event's games in words: "5+2, played off-chain" (channel games) or "5+2, every
 * move on-chain". */
export function gameWords(summary) {
  const how = Number(summary.responseWindow) > 0 ? "moves signed off-chain" : "every move on-chain";
  return `${timeControl(summary.initialTime, summary.increment)}, ${how}`;
}

/** What an event's status says to a player (the server's `status`): "Taking entries: 3
 * of 8 places left", "Playing", "Won by you". */
export function statusWords(summary, me) {
  switch (summary.status) {
    case "open": {
      const left = summary.size - summary.entrantCount;
      return `Taking entries: ${left} of ${summary.size} place${summary.size === 1 ? "" : "s"} left`;
    }
    case "drawing": return "Full: the bracket is being drawn";
    case "running": {
      // With the bracket (an event's detail): the round being played, the lowest one open.
      const open = summary.rounds?.findIndex((r) => r.some((m) => m.status !== "decided" && m.status !== "abandoned"));
      return open >= 0 ? `Playing the ${roundName(open, summary.size).toLowerCase()}` : "Playing";
    }
    case "finished": return summary.winner ? `Finished: won by ${playerName(summary.winner, me)}` : "Finished without a winner";
    case "refunding": return "Did not fill: every entry is refunded";
    case "cancelled": return "Cancelled by its organiser";
    default: return String(summary.status);
  }
}

/** How a decided match was won, after "won": the server's `how`. */
const HOW = { game: "on the board", lot: "by lot after a drawn game", walkover: "by walkover", forfeit: "by forfeit" };

/** A match's line under its two players in the bracket: "playing", "white won on the
 * board", "drawn: a lot decides", "walkover", "both out". `game`: the server's view of a
 * running match's game (`{phase, result}`), whose end the bracket records only at the
 * next start or report. */
export function matchWords(match, me, game = null) {
  switch (match.status) {
    case "waiting": return match.white && match.black ? "not started" : "waiting for its players";
    case "running": {
      if (game?.phase !== "ended") return "playing";
      if (game.result === "draw") return "drawn: once reported, a lot decides";
      const side = { white_wins: "white", black_wins: "black" }[game.result];
      return side ? `${playerName(match[side], me)} won the game` : "game over";
    }
    case "lot": return "drawn: a lot decides";
    case "abandoned": return match.white || match.black ? "abandoned by both: both out" : "no players: both before it were out";
    case "decided": {
      const winner = playerName(match.winner, me);
      const how = HOW[match.how] ?? "";
      if (match.how === "walkover") return `${winner} ${winner === "you" ? "go" : "goes"} on by walkover`;
      return `${winner} won${how ? ` ${how}` : ""}`;
    }
    default: return String(match.status);
  }
}

/** Whether the page's game view plays the event's games: channel games (a response
 * window), not per-move ones. */
export function playsHere(summary) {
  return Number(summary.responseWindow) > 0;
}

/** Every match of the event's bracket, in match order. */
function allMatches(detail) {
  return detail.rounds.flat().sort((a, b) => a.match - b.match);
}

/** The match the player `me` is in last (the highest round it reached), or null. */
export function myMatch(detail, me) {
  return allMatches(detail).filter((m) => same(m.white, me) || same(m.black, me)).at(-1) ?? null;
}

/** The match whose winner plays on in match `m`'s next match (`size` players), and that
 * next match's index: the winner of m plays next in size/2 + m/2, beside m's sibling. */
export function nextMatchOf(m, size) {
  return { next: size / 2 + Math.floor(m / 2), sibling: m ^ 1 };
}

/** The players of a match, for "A vs B" (either side may be unknown yet). */
function pairWords(match, me) {
  if (!match) return "a match not played yet";
  const [w, b] = [playerName(match.white, me), playerName(match.black, me)];
  return w && b ? `${w} vs ${b}` : w || b || "a match not played yet";
}

/**
 * The player's next step in an event it entered: `{say, action}`, where `action` is the
 * tournament call due (`{call, args, label}`: draw, start, report, resolveLot, claim,
 * withdraw) or `{call: "open", gameId, label}` (its game in the game view), or null when
 * nothing is the player's to do. Null for a player not entered.
 *
 * `chain` is what the page read from the chain for it: `latestBlock`; `drawBlock` (the
 * block whose hash draws the bracket); `games` (the referee's `{phase, result}` by game
 * id, of the player's running game and of the match beside it: phase 3 is ended, result
 * 1 white won, 2 black won, 3 drawn);
 * `claim` ("ok": claim would credit now, "claimed", or null: not known); `credit` (its
 * withdrawable balance in the event's token, wei). `money` formats an amount.
 */
export function nextStep(detail, me, chain, money) {
  if (!me || !detail.entrants.some((a) => same(a, me))) return null;
  const id = detail.id;
  const credit = BigInt(chain.credit ?? 0);
  const withdraw = credit > 0n ? { call: "withdraw", args: [detail.token], label: `Withdraw ${money(credit)}` } : null;
  const standing = detail.standings.find((s) => same(s.player, me));
  const prize = standing ? BigInt(standing.prize) : null;
  /** At the end: claim, then withdraw; `before` says how the player's event ended. */
  const end = (before) => {
    if (chain.claim === "ok") {
      if (prize === 0n) return { say: `${before} Your place pays no prize.`, action: null };
      const what = prize === null ? "your prize" : `your prize of ${money(prize)}`;
      return { say: `${before} Claim ${what}: it is credited to you, then you withdraw it.`, action: { call: "claim", args: [id], label: prize === null ? "Claim your prize" : `Claim ${money(prize)}` } };
    }
    if (withdraw) return { say: `${before} ${money(credit)} is credited to you: withdraw it to your wallet.`, action: withdraw };
    if (chain.claim === "claimed") return { say: `${before} ${prize ? `Your prize of ${money(prize)} was paid.` : "Nothing is left to claim."}`, action: null };
    return { say: before, action: null };
  };
  switch (detail.status) {
    case "open":
      return { say: `You are entered: ${detail.entrantCount} of ${detail.size} players so far. The bracket is drawn once the event is full.`, action: null };
    case "cancelled":
      return { say: "The event was cancelled.", action: null };
    case "refunding": {
      if (chain.claim === "ok") return { say: `The event did not fill by its deadline: claim your entry fee of ${money(detail.fee)} back.`, action: { call: "claim", args: [id], label: `Claim your refund of ${money(detail.fee)}` } };
      if (withdraw) return { say: `The event did not fill by its deadline. ${money(credit)} is credited to you: withdraw it to your wallet.`, action: withdraw };
      return { say: `The event did not fill by its deadline.${chain.claim === "claimed" ? ` Your entry fee of ${money(detail.fee)} was refunded.` : ""}`, action: null };
    }
    case "drawing": {
      const drawBlock = Number(chain.drawBlock ?? 0);
      // A transaction lands in the block after the latest: it reads the draw block's hash
      // once that block is mined.
      if (drawBlock && Number(chain.latestBlock ?? 0) < drawBlock) {
        return { say: `The event is full. The bracket is drawn from the hash of block ${drawBlock}, which is not mined yet.`, action: null };
      }
      return { say: "The event is full: draw the bracket (anyone may; the first game's start draws it too).", action: { call: "draw", args: [id], label: "Draw the bracket" } };
    }
    default:
      break;
  }
  const m = myMatch(detail, me);
  if (!m) return { say: "The bracket is not drawn yet.", action: null };
  const size = detail.size;
  const rounds = Math.log2(size);
  const round = roundName(m.round, size);
  const game = matchName(m.round, size);
  const final = m.round === rounds - 1;
  const colour = same(m.white, me) ? "white" : "black";
  const opponent = colour === "white" ? m.black : m.white;
  const matches = allMatches(detail);
  /** The referee's `{phase, result}` of a match's game, if the page read it. */
  const gameOf = (match) => (match?.gameId && chain.games?.[match.gameId]) || null;
  /** After a win in match m: the next match's start, if its other side is known (its
   * game ended on the board, which the start records, or the bracket has it decided). */
  const onwards = (won) => {
    if (final) return end(`${won} You won the event!`);
    const { next, sibling } = nextMatchOf(m.match, size);
    const other = matches.find((x) => x.match === sibling);
    const otherGame = other?.status === "running" ? gameOf(other) : null;
    const otherEnded = Number(otherGame?.phase) === 3;
    if (otherEnded && Number(otherGame.result) === 3) {
      return { say: `${won} The other ${game} was drawn: report it, and a lot decides your next opponent.`, action: { call: "report", args: [id, sibling], label: "Report their draw" } };
    }
    const ready = other && (["decided", "lot", "abandoned"].includes(other.status) || otherEnded);
    const nextName = roundName(m.round + 1, size);
    if (ready) return { say: `${won} Next: the ${nextName.toLowerCase()}. Start it when you are ready: your clock runs from the start.`, action: { call: "start", args: [id, next], label: `Start your ${matchName(m.round + 1, size)}` } };
    return { say: `${won} Next: the ${nextName.toLowerCase()}, against the winner of ${pairWords(other, me)}, not decided yet.`, action: null };
  };
  // Out: the prize once the final is decided; the contract's own answer (claim would
  // credit now) counts before the bracket records the final's game.
  const out = (how) => (detail.status === "finished" || chain.claim ? end(how) : { say: `${how} Prizes are paid once the final is decided.`, action: null });
  switch (m.status) {
    case "waiting": {
      if (!opponent) return { say: `${round}: your opponent is not known yet.`, action: null };
      const who = colour === "white" ? "You play white, so you start the game" : "You play black: white starts the game, and you may start it too";
      return {
        say: `${round}: you play ${colour} against ${shortAddress(opponent)}. ${who}; each side's clock runs from the start.`,
        action: { call: "start", args: [id, m.match], label: "Start the game" },
      };
    }
    case "running": {
      const played = gameOf(m);
      if (!played || Number(played.phase) !== 3) {
        const on = `${round}: your game against ${shortAddress(opponent)} is on. You play ${colour}.`;
        // The game view plays channel games (moves signed off-chain); a per-move game is
        // played by `chessref tournament play`.
        if (!playsHere(detail)) return { say: `${on} Its moves are sent on-chain one by one, which this page does not do yet: play it with chessref tournament play ${id}.`, action: null };
        return { say: on, action: { call: "open", gameId: m.gameId, label: "Open your game" } };
      }
      const result = Number(played.result);
      if (result === 3) return { say: `${round}: your game was drawn. Report it: a lot from a later block decides who goes on.`, action: { call: "report", args: [id, m.match], label: "Report the draw" } };
      const won = (result === 1) === (colour === "white");
      if (won) return onwards(`You won your ${game}.`);
      return out(`You lost your ${game} against ${shortAddress(opponent)}.`);
    }
    case "lot": {
      const due = Number(chain.latestBlock ?? 0) >= Number(m.lotBlock ?? 0);
      if (!due) return { say: `${round}: your game was drawn; the hash of block ${m.lotBlock} decides who goes on once it is mined.`, action: null };
      return { say: `${round}: your game was drawn and its lot is due: resolve it to see who goes on.`, action: { call: "resolveLot", args: [id, m.match], label: "Resolve the lot" } };
    }
    case "decided": {
      const how = HOW[m.how] ? ` ${HOW[m.how]}` : "";
      if (same(m.winner, me)) return onwards(m.how === "walkover" ? `You went on from the ${game} by walkover.` : `You won your ${game}${how}.`);
      return out(`You are out: ${shortAddress(m.winner)} won your ${game}${how}.`);
    }
    case "abandoned":
      return out(`Your ${game} was abandoned by both players: you are both out.`);
    default:
      return { say: `${round}: ${m.status}.`, action: null };
  }
}
