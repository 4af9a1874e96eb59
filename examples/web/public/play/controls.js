// @ts-check
// The page's controls: the wallet's Connect, the create form, and the game panel's
// buttons. Off-chain each game action is a signed message; on-chain (after a
// registration), a transaction.
import { $, app, showError, showHome } from "./page.js";
import { connect, transact } from "./wallet.js";
import { create, loadLobby } from "./lobby.js";
import { loadTournaments } from "./tournaments.js";
import { storageKey } from "./relay.js";
import { isMuted, setMuted } from "./sounds.js";
import { browse, flip, pgn } from "./board.js";
import { acceptRematch, declineRematch, rematch } from "./rematch.js";

/** Wires every control of the page, once. */
export function wire() {
  $("connect").addEventListener("click", () => connect(/** @type {HTMLSelectElement} */ ($("wallets")).value).catch(showError));
  $("create").addEventListener("submit", (e) => {
    e.preventDefault();
    create(e.target).catch(showError);
  });
  // The game panel's buttons act on the open game, and only when there is one: a button
  // is offered only where it applies, and a click that races a change does nothing.
  const on = (id, act) => $(id).addEventListener("click", () => {
    if (app.game) act(app.game);
  });
  // Off-chain each is a signed message; on-chain (after a registration), a transaction.
  on("offer-draw", (g) => {
    if (g.onChain) g.chainCall("offer a draw", "offerDraw").catch(showError);
    else if (g.player) {
      g.ownOffer = g.player.view().ply;
      // Kept for a reload: the offer stands until the next move, and its answer is told.
      localStorage.setItem(storageKey(g.id, "offer"), String(g.ownOffer));
      g.act("offerDraw");
    }
  });
  on("accept-draw", (g) => {
    if (g.onChain) g.chainCall("accept the draw", "acceptDraw").catch(showError);
    else g.act("signResult", 3);
  });
  on("decline-draw", (g) => {
    if (!g.onChain && !g.player) return;
    g.declined = g.onChain ? `chain:${g.onChain.clock}` : g.player.view().ply;
    g.render();
  });
  on("resign", (g) => {
    if (!g.colour || !confirm("Resign this game?")) return;
    if (g.onChain) transact("resign", app.referee.resign(g.id)).then(() => g.followChain()).catch(showError);
    else g.act("resign");
  });
  on("register", (g) => {
    if (g.registerIsSafe()) g.channelCall("register", ["register", "registerStart"]).catch(showError);
  });
  on("claim-draw", (g) => {
    // Off-chain a draw is claimed from a registered position (CHANNEL.md 7.5): register
    // first; once the window is over the page offers the claim itself.
    if (g.onChain) g.claimDraw().catch(showError);
    else if (g.registerIsSafe()) g.channelCall("register to claim the draw", ["register", "registerStart"]).catch(showError);
  });
  on("settle", (g) => g.channelCall("settle", ["settle", "resignBySignature"]).catch(showError));
  on("claim-timeout", (g) => g.claimTimeout().catch(showError));
  on("cancel", (g) => g.cancel().catch(showError));
  on("withdraw", (g) => g.withdraw().catch(showError));
  on("rematch", (g) => rematch(g).catch(showError));
  $("accept-rematch").addEventListener("click", () => acceptRematch().catch(showError));
  $("decline-rematch").addEventListener("click", declineRematch);
  on("download", (g) => {
    const t = g.player ? g.player.transcript() : g.watched?.transcript;
    if (!t) return;
    save(JSON.stringify(t, null, 2), `chessref-game-${g.id}.json`, "application/json");
  });
  // A premove is cancelled by Escape or a right-click on the board (or a click on its piece).
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") app.game?.cancelPremove();
  });
  $("board").addEventListener("contextmenu", (e) => {
    if (app.game?.cancelPremove()) e.preventDefault();
  });
  // The mute is the player's, for every game: remembered across reloads.
  $("mute").setAttribute("aria-pressed", String(isMuted(localStorage)));
  $("mute").addEventListener("click", () => {
    setMuted(localStorage, !isMuted(localStorage));
    $("mute").setAttribute("aria-pressed", String(isMuted(localStorage)));
  });
  on("flip", () => flip());
  on("to-live", () => browse(null));
  on("download-pgn", (g) => save(pgn(g.pgnTags(), g.pgnResult()), `chessref-game-${g.id}.pgn`, "application/x-chess-pgn"));
  $("back").addEventListener("click", () => home(app.home));
  $("show-lobby").addEventListener("click", () => home("lobby"));
  $("show-tournaments").addEventListener("click", () => home("tournaments"));
}

/** Leaves the open game, if any, for the home view `view` ("lobby" or "tournaments"). */
function home(view) {
  if (app.game) {
    app.game.close();
    app.game = null;
    if (app.account) localStorage.removeItem(`chessref:open:${app.net.referee}:${app.account}`);
  }
  showHome(view);
  (view === "tournaments" ? loadTournaments(true) : loadLobby()).catch(showError);
}

/** Offers `text` as a download named `name`. */
function save(text, name, type) {
  const a = Object.assign(document.createElement("a"), { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  a.click();
}
