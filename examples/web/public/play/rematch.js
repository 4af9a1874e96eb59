// @ts-check
// Rematch: the same terms with the colours swapped, one click for each side, each
// confirming its stake in the wallet. The first Rematch creates a channel game invited to
// the opponent (same stake, time control, increment and answer time); the opponent's page,
// on its ended game or in the lobby, shows the offer with Accept (joins) and Decline (hides
// it). A Rematch clicked when the opponent's offer is already open shows that offer rather
// than creating a second game.
import { ethers } from "/vendor/ethers/ethers.min.js";
import { $, app, showError } from "./page.js";
import { api } from "./server.js";
import { createAndOpen, join } from "./lobby.js";
import { rematchOffer } from "./invites.js";
import { rematchWords } from "./words.js";

/** How often the page looks for a rematch offered by the player's last opponent. */
export const REMATCH_POLL_MS = 2_000;

/** The offer shown: `{id, info}` (the referee's getGame of the offered game), or null. */
let shown = null;
/** An Accept is on its way: the offer is not shown again meanwhile. */
let accepting = false;
/** The ids of the offers the player declined: not shown again unless Rematch is clicked. */
const declined = new Set();

/** The game `opponent` offers the player as a rematch, with its terms from the chain, or
 * null; `all`: the declined ones too. */
async function findOffer(opponent, all = false) {
  const open = await api("/v1/games?state=open&limit=50");
  const game = rematchOffer(open.games, { me: app.account, opponent, declined: all ? new Set() : declined });
  if (!game) return null;
  const info = shown?.id === String(game.id) ? shown.info : await app.referee.getGame(game.id);
  return { id: String(game.id), info };
}

/** The player's Rematch on `game` (ended): the opponent's open offer if there is one,
 * else a new game of the same terms, colours swapped, invited to the opponent. */
export async function rematch(game) {
  const opponent = game.opponentAddress();
  const offer = await findOffer(opponent, true);
  if (offer) {
    declined.delete(offer.id);
    return show(offer);
  }
  const info = game.info ?? (await app.referee.getGame(game.id));
  const inEth = info.token === ethers.ZeroAddress;
  await createAndOpen(
    "offer a rematch",
    app.referee.createChannelGame(opponent, game.colour === "black", info.token, info.stake, info.initialTime, info.increment,
      info.firstMoveWindow, "0x", info.responseWindow, { value: inEth ? info.stake : 0n }),
  );
}

/** Shows `offer`; while the game shown owes the player a settlement, Accept waits for it
 * (the winnings would otherwise stay unclaimed behind the new game). */
function show(offer) {
  shown = offer;
  const owed = !$("game").hidden && !$("settle").hidden;
  const { stake, initialTime, increment, creatorWhite } = offer.info;
  const words = rematchWords({ stake, initialTime, increment, youPlay: creatorWhite ? "black" : "white" });
  $("rematch-words").textContent = `${words}.${owed ? " Settle this game first to accept it." : ""}`;
  $("accept-rematch").hidden = owed;
  $("rematch-offer").dataset.game = offer.id;
  $("rematch-offer").hidden = false;
}

function hide() {
  shown = null;
  $("rematch-offer").hidden = true;
  delete $("rematch-offer").dataset.game;
}

/** Accept: joins the offered game (the stake through the wallet) and opens it. */
export async function acceptRematch() {
  if (!shown) return;
  const id = BigInt(shown.id);
  hide();
  accepting = true;
  try {
    await join(id);
  } finally {
    accepting = false;
  }
}

/** Decline: hides the offer (the protocol has no refusal; the creator may cancel). */
export function declineRematch() {
  if (shown) declined.add(shown.id);
  hide();
}

/** Looks every REMATCH_POLL_MS for an offer from the opponent of the player's last game
 * (`app.rematchWith`, set when it ended), shown in the lobby, on the ended game and while
 * waiting for an opponent, not while another game is being played. */
export function watchRematches() {
  let busy = false;
  setInterval(async () => {
    // Waiting on one's own rematch counts as free: two Rematch clicks in the same block
    // make two games, and each page then shows the other's (one accepts, one cancels).
    const playing = () => Boolean(app.game && !$("game").hidden && !app.game.shownOutcome && document.body.dataset.phase !== "open");
    if (busy || accepting || !app.account || !app.rematchWith || playing()) {
      if (playing() && shown) hide();
      return;
    }
    busy = true;
    try {
      const offer = await findOffer(app.rematchWith);
      // A game opened or an Accept clicked meanwhile: the offer is no longer to show.
      if (offer && !accepting && !playing()) show(offer);
      else if (shown) hide();
    } catch (e) {
      showError(e, "looking for a rematch offer");
    } finally {
      busy = false;
    }
  }, REMATCH_POLL_MS);
}
