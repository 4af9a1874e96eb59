// The page's controls: the wallet's Connect, the create form, and the game panel's
// buttons. Off-chain each game action is a signed message; on-chain (after a
// registration), a transaction.
import { ethers } from "/vendor/ethers/ethers.min.js";
import { $, app, showError } from "./page.js";
import { connect, transact } from "./wallet.js";
import { create, loadLobby } from "./lobby.js";

/** Wires every control of the page, once. */
export function wire() {
  $("connect").addEventListener("click", () => connect($("wallets").value).catch(showError));
  $("create").addEventListener("submit", (e) => {
    e.preventDefault();
    create(e.target).catch(showError);
  });
  const game = () => app.game;
  // Off-chain each is a signed message; on-chain (after a registration), a transaction.
  $("offer-draw").addEventListener("click", () => {
    const g = game();
    if (g.onChain) g.chainCall("offer a draw", "offerDraw").catch(showError);
    else g.act("offerDraw");
  });
  $("accept-draw").addEventListener("click", () => {
    const g = game();
    if (g.onChain) g.chainCall("accept the draw", "acceptDraw").catch(showError);
    else g.act("signResult", 3);
  });
  $("decline-draw").addEventListener("click", () => {
    const g = game();
    g.declined = g.onChain ? `chain:${g.onChain.clock}` : g.player.view().ply;
    g.render();
  });
  $("resign").addEventListener("click", () => {
    if (!confirm("Resign this game?")) return;
    const g = game();
    if (g.onChain) transact("resign", app.referee.resign(g.id)).then(() => g.followChain()).catch(showError);
    else g.act("resign");
  });
  $("register").addEventListener("click", () => {
    const g = game();
    if (g.registerIsSafe()) g.channelCall("register", ["register", "registerStart"]).catch(showError);
  });
  $("claim-draw").addEventListener("click", () => {
    // Off-chain a draw is claimed from a registered position (CHANNEL.md 7.5): register
    // first; once the window is over the page offers the claim itself.
    const g = game();
    if (g.onChain) g.claimDraw().catch(showError);
    else if (g.registerIsSafe()) g.channelCall("register to claim the draw", ["register", "registerStart"]).catch(showError);
  });
  $("settle").addEventListener("click", () => game().channelCall("settle", ["settle", "resignBySignature"]).catch(showError));
  $("claim-timeout").addEventListener("click", () => game().claimTimeout().catch(showError));
  $("withdraw").addEventListener("click", async () => {
    try {
      await transact("withdraw", app.referee.withdraw(ethers.ZeroAddress));
      await game().followChain();
    } catch (e) {
      showError(e);
    }
  });
  $("download").addEventListener("click", () => {
    const g = game();
    const t = g.player ? g.player.transcript() : g.watched?.transcript;
    const a = Object.assign(document.createElement("a"), {
      href: URL.createObjectURL(new Blob([JSON.stringify(t, null, 2)], { type: "application/json" })),
      download: `chessref-game-${g.id}.json`,
    });
    a.click();
  });
  $("back").addEventListener("click", () => {
    app.game?.close();
    app.game = null;
    if (app.account) localStorage.removeItem(`chessref:open:${app.net.referee}:${app.account}`);
    $("game").hidden = true;
    $("lobby").hidden = false;
    loadLobby().catch(showError);
  });
}

