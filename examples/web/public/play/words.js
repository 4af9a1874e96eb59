// @ts-check
// What the page says to a player, as players say it: short addresses, "5+2", amounts in
// ETH, how a game ended and what it won or lost, and where a draw offer stands. Pure:
// unit-tested under Node (test/unit.test.mjs).

/** An address as a player reads it: `0x7099…79C8` (empty for none). */
export function shortAddress(address) {
  return address ? `${address.slice(0, 6)}…${address.slice(-4)}` : "";
}

/** A time control as players write it: minutes + increment in seconds ("5+2", "1.5+0"). */
export function timeControl(initialSeconds, increment) {
  return `${Number(initialSeconds) / 60}+${Number(increment)}`;
}

/** `wei` (a bigint, or what BigInt takes) as ETH without trailing zeros: "1", "0.01". */
export function eth(wei) {
  return units(wei, 18);
}

/** `amount` in a token's smallest units as whole tokens of `decimals` decimals, without
 * trailing zeros: units(1500000n, 6) is "1.5". */
export function units(amount, decimals) {
  const w = BigInt(amount);
  const one = 10n ** BigInt(decimals);
  const sign = w < 0n ? "-" : "";
  const abs = w < 0n ? -w : w;
  const fraction = decimals > 0 ? (abs % one).toString().padStart(Number(decimals), "0").replace(/0+$/, "") : "";
  return `${sign}${abs / one}${fraction ? `.${fraction}` : ""}`;
}

/** How a game ended, by the referee's reason code (REFEREE.md): the words after
 * "won" or "Draw". */
const HOW = {
  1: "by checkmate", 2: "by stalemate", 3: "by insufficient material", 4: "by the seventy-five-move rule",
  5: "by resignation", 6: "on time", 7: "on time, but the other side cannot mate", 8: "by agreement",
  9: "by the fifty-move rule", 10: "by threefold repetition", 11: "on time (the flagged player never moved)",
  12: "by proof of a double-signed move", 13: "by proof of an illegal signed move",
};

/** The reason code of a position the board decided, by its status name (the WASM's
 * `status`), or null for a game still on. */
export function boardReason(status) {
  return { CHECKMATE: 1, STALEMATE: 2, INSUFFICIENT_MATERIAL: 3, SEVENTY_FIVE_MOVES: 4 }[status] ?? null;
}

/** How an off-chain game ended or was decided, from a ChannelPlayer `view` and its
 * `transcript`: `{result, reason, signed}` (result 1 white wins, 2 black wins, 3 draw;
 * `signed`: both signatures are held, so it can be settled), or null while it goes on. */
export function offChainOutcome(view, transcript) {
  if (view.ended === "resignation") {
    // The transcript names the side that resigned ("white" or "black").
    return { result: transcript.resignation?.by === "white" ? 2 : 1, reason: 5, signed: true };
  }
  if (view.ended === "result") {
    return { result: Number(transcript.result.result), reason: boardReason(view.status) ?? 8, signed: true };
  }
  if (view.decided) return { result: Number(view.decided), reason: boardReason(view.status) ?? 8, signed: false };
  return null;
}

/** The result banner of an ended game: `{headline, amount, payout}` for `colour` (null: a
 * spectator) in a game of `stake` wei a player. `amount` says what the player won or
 * lost; `payout` is the wei the referee credits the player on settlement. */
export function outcomeWords({ result, reason, colour, stake }) {
  const s = BigInt(stake);
  const how = HOW[reason] || `(reason ${reason})`;
  // A game without a stake (a tournament's) moves no money: the headline alone.
  if (s === 0n) return { headline: outcomeWords({ result, reason, colour, stake: 1n }).headline, amount: "", payout: 0n };
  if (result === 4) return { headline: "Game aborted.", amount: colour ? `Your stake of ${eth(s)} ETH comes back to you.` : "", payout: colour ? s : 0n };
  if (result === 3) {
    return {
      headline: `Draw ${how}.`,
      amount: colour ? `Your stake of ${eth(s)} ETH comes back to you.` : `Each player's ${eth(s)} ETH comes back.`,
      payout: colour ? s : 0n,
    };
  }
  const winner = result === 1 ? "white" : "black";
  if (!colour) return { headline: `${winner === "white" ? "White" : "Black"} won ${how}.`, amount: `${eth(2n * s)} ETH to ${winner}.`, payout: 0n };
  if (colour === winner) {
    return { headline: `You won ${how}.`, amount: `You win ${eth(s)} ETH: ${eth(2n * s)} ETH is paid to you, your stake and your opponent's.`, payout: 2n * s };
  }
  return { headline: `You lost ${how}.`, amount: `You lose your stake of ${eth(s)} ETH.`, payout: 0n };
}

/** Whether the player of `colour` (null: a spectator) settles an ended game of `stake`
 * wei on-chain: whom the settlement pays; in a game without a stake (a tournament's,
 * whose result counts only once the referee records it), the winner, and either player
 * after a draw. */
export function settles({ result, colour, stake }) {
  if (!colour) return false;
  if (BigInt(stake) > 0n) return outcomeWords({ result, reason: 0, colour, stake }).payout > 0n;
  return result === 3 || result === (colour === "white" ? 1 : 2);
}

/** Who plays the move of `ply` (white plays the odd plies, from the standard start). */
export function moverOf(ply) {
  return Number(ply) % 2 === 1 ? "white" : "black";
}

/** Where draw offers stand, for the player of `colour` at `ply`: `ownOffer`, the ply the
 * player offered a draw at (null: none); `theirOffer`, the opponent's offer stands now;
 * `declined`, the ply whose offer the player declined. A sentence, or "" for nothing to
 * say. The protocol carries no refusal (CHANNEL.md 4.5): an offer lapses with the next
 * move, so an offer the opponent answered with a move was declined. */
export function drawOfferNote({ ownOffer, theirOffer, declined, ply, colour }) {
  if (theirOffer) return declined === ply ? "You declined the draw offer." : "Your opponent offers a draw.";
  if (ownOffer === null || ownOffer === undefined) return "";
  if (ownOffer === ply) return "You offered a draw: your opponent can accept it until the next move.";
  if (ply === ownOffer + 1) {
    return moverOf(ply) === colour ? "Your draw offer lapsed with your move." : "Your opponent declined your draw offer and played on.";
  }
  return "";
}

/** A player's rating as the lobby and the game show it: "1523 ±180", or "unrated" for
 * none (`rating`: the server's `{rating, deviation, games}`, or null). */
export function ratingText(rating) {
  return rating && rating.games !== 0 ? `${Math.round(rating.rating)} ±${Math.round(rating.deviation)}` : "unrated";
}

/** A rematch offered to the player, in words: "Your opponent offers a rematch (1 ETH, 5+2,
 * you play white)" (`stake` in wei, `initialTime` and `increment` in seconds, `youPlay`
 * the player's colour in it). */
export function rematchWords({ stake, initialTime, increment, youPlay }) {
  return `Your opponent offers a rematch (${eth(stake)} ETH, ${timeControl(initialTime, increment)}, you play ${youPlay})`;
}
