// @ts-check
// The lobby: the server's open and running games, and creating or joining one (the
// stake goes through the wallet).
import { ethers } from "/vendor/ethers/ethers.min.js";
import { $, app, showError } from "./page.js";
import { api, indexed } from "./server.js";
import { transact } from "./wallet.js";
import { eth, ratingText, shortAddress, timeControl } from "./words.js";
import { openGame } from "./game.js";

/** How often the lobby asks the server for its games while it is shown (the server has
 * no lobby feed: its event streams are per game). */
export const LOBBY_REFRESH_MS = 3_000;

/** What the tables show now (the games, and who looks): unchanged, nothing is redrawn. */
let shown = null;

/** Refreshes the lobby by itself every LOBBY_REFRESH_MS while it is in view. */
export function refreshLobby() {
  let busy = false;
  let failed = false; // the last refresh failed: its error is on the page
  setInterval(async () => {
    if (busy || $("lobby").hidden || document.body.dataset.ready !== "true") return;
    busy = true;
    try {
      await loadLobby();
      // The server is back: its absence no longer needs saying.
      if (failed) showError(null);
      failed = false;
    } catch (e) {
      failed = true;
      showError(e, "refreshing the lobby");
    } finally {
      busy = false;
    }
  }, LOBBY_REFRESH_MS);
}

export async function loadLobby() {
  const [open, running] = await Promise.all([api("/v1/games?state=open&limit=50"), api("/v1/games?state=running&limit=50")]);
  const key = JSON.stringify([open.games, running.games, app.account]);
  if (key === shown) return;
  shown = key;
  const body = (id) => $(id).querySelector("tbody");
  body("open-games").textContent = "";
  for (const g of open.games) {
    const row = body("open-games").insertRow();
    row.dataset.game = g.id;
    for (const text of [`#${g.id}`, shortAddress(g.creator), ratingText(g.creatorRating), `${eth(g.stake)} ETH`, timeControl(g.initialTime, g.increment)]) {
      row.insertCell().textContent = text;
    }
    row.cells[1].className = "addr";
    row.cells[1].title = g.creator;
    const window = row.insertCell();
    const action = row.insertCell();
    const button = document.createElement("button");
    button.type = "button";
    const mine = app.account && g.creator.toLowerCase() === app.account.toLowerCase();
    button.textContent = mine ? "Open" : "Join";
    button.setAttribute("aria-label", `${button.textContent} game ${g.id}`);
    button.dataset.action = mine ? "open" : "join";
    button.disabled = !app.account || (g.opponent && g.opponent.toLowerCase() !== app.account.toLowerCase() && !mine);
    button.addEventListener("click", () => (mine ? openGame(BigInt(g.id)) : join(BigInt(g.id))).catch(showError));
    action.append(button);
    if (app.referee) {
      app.referee.getGame(g.id).then((info) => (window.textContent = answerTime(Number(info.responseWindow)))).catch(() => {});
    }
  }
  body("running-games").textContent = "";
  for (const g of running.games) {
    const row = body("running-games").insertRow();
    row.dataset.game = g.id;
    for (const text of [`#${g.id}`, shortAddress(g.white), shortAddress(g.black), `${eth(g.stake)} ETH`, String(Math.ceil(g.ply / 2))]) row.insertCell().textContent = text;
    row.cells[1].className = row.cells[2].className = "addr";
    [row.cells[1].title, row.cells[2].title] = [g.white, g.black];
    const button = document.createElement("button");
    button.type = "button";
    const player = app.account && [g.white, g.black].some((a) => a?.toLowerCase() === app.account.toLowerCase());
    button.textContent = player ? "Play" : "Watch";
    button.setAttribute("aria-label", `${button.textContent} game ${g.id}`);
    button.dataset.action = player ? "play" : "watch";
    button.addEventListener("click", () => openGame(BigInt(g.id)).catch(showError));
    row.insertCell().append(button);
  }
}

/** A response window as a player reads it: "10 min", "45 s". */
function answerTime(seconds) {
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

export async function create(form) {
  if (!app.referee) throw new Error("connect a wallet first");
  const stake = ethers.parseEther(form.stake.value.trim());
  const opponent = form.opponent.value.trim() || ethers.ZeroAddress;
  if (!ethers.isAddress(opponent)) throw new Error(`opponent ${opponent} is not an address`);
  await createAndOpen(
    "create",
    app.referee.createChannelGame(opponent, form.colour.value === "white", ethers.ZeroAddress, stake,
      Number(form.minutes.value) * 60, Number(form.increment.value), 0, "0x", Number(form.window.value), { value: stake }),
  );
}

/** Sends `pending` (a createChannelGame through the wallet, labelled `label`), then opens
 * the game it created once the server has indexed it. */
export async function createAndOpen(label, pending) {
  const receipt = await transact(label, pending);
  const created = receipt.logs.map((l) => app.referee.interface.parseLog(l)).find((e) => e?.name === "GameCreated");
  await indexed(receipt.blockNumber);
  await openGame(created.args.gameId);
}

/** Joins game `id` (the stake through the wallet) and opens it. */
export async function join(id) {
  // The joiner binds the terms it reads (stake, clocks, window, colours): a game whose
  // terms changed since would revert WrongTerms.
  const info = await app.referee.getGame(id);
  const receipt = await transact(`join game ${id}`, app.referee.joinGame(id, info.terms, { value: info.token === ethers.ZeroAddress ? info.stake : 0n }));
  await indexed(receipt.blockNumber);
  await openGame(id);
}

