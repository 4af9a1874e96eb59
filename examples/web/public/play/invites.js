// @ts-check
// Which open game is a rematch offered to the player: pure, unit-tested under Node
// (test/unit.test.mjs).

/** The open game (of the server's lobby `games`) that `opponent` created for `me` alone,
 * the latest first, leaving out the ids in `declined`; null for none. Both a Rematch
 * click (to answer an offer instead of making a second game) and the offer shown read it. */
export function rematchOffer(games, { me, opponent, declined = new Set() }) {
  const same = (a, b) => Boolean(a && b) && a.toLowerCase() === b.toLowerCase();
  const offers = games.filter((g) => (g.phase ?? "open") === "open" && same(g.creator, opponent) && same(g.opponent, me) && !declined.has(String(g.id)));
  return offers.sort((a, b) => Number(b.id) - Number(a.id))[0] ?? null;
}
