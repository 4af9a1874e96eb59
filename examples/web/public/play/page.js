// @ts-check
// The page's shared state and what every part of it uses: the query parameters, the
// open game, the element lookup, the notice line and the error line.
import { ethers } from "/vendor/ethers/ethers.min.js";
import { explain } from "./errors.js";

export const params = new URLSearchParams(location.search);
/** The chessref server (`?server=`, default this page's origin). */
export const SERVER = (params.get("server") || location.origin).replace(/\/$/, "");
/** Seconds of an opponent's silence before the page offers to register (`?patience=`). */
export const PATIENCE = Number(params.get("patience") || 60);

export const app = {
  abi: null,
  channelAbi: null, // ChessChannel's views and errors
  tournamentAbi: null, // ChessTournament's calls, views and errors
  home: "lobby", // the view shown when no game is open: "lobby" or "tournaments"
  net: null, // { chainId, referee } from the server
  wallets: new Map(), // EIP-6963 uuid -> { info, provider }
  browser: null, // ethers.BrowserProvider over the chosen wallet
  signer: null,
  account: null,
  referee: null,
  game: null, // the open game's controller
  rematchWith: null, // the opponent of the player's last ended game: whose rematch offer to show
  timings: { sent: {}, seen: {} }, // ply -> when this page sent or drew it (ms since 1970)
};

export const $ = (id) => document.getElementById(id);
export const now = () => Math.floor(Date.now() / 1000);
/** A unix time as the player's clock shows it. */
export const clockTime = (t) => new Date(t * 1000).toLocaleTimeString();

/** The referee's or the channel's custom error in a revert, by name, if it is one
 * (`contract` "tournament": the tournament's first, whose names overlap the referee's). */
export function revertName(e, contract = "referee") {
  const data = e?.data ?? e?.info?.error?.data ?? e?.error?.data;
  if (!app.abi || typeof data !== "string") return null;
  const abis = contract === "tournament" ? [app.tournamentAbi, app.abi, app.channelAbi] : [app.abi, app.channelAbi, app.tournamentAbi];
  for (const abi of abis) {
    try {
      const parsed = abi && new ethers.Interface(abi).parseError(data);
      if (parsed) return `${parsed.name}(${parsed.args.join(", ")})`;
    } catch {
      // not one of this contract's errors
    }
  }
  return `revert data ${data}`;
}

/** Fills `el` with `sentence` and, when there is one, a closed detail holding the raw
 * error (the contract's name and arguments, the library's message). */
export function sayWithDetail(el, sentence, detail = "") {
  el.textContent = sentence;
  if (!detail) return;
  const more = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = "details";
  const code = document.createElement("code");
  code.textContent = detail;
  more.append(summary, code);
  el.append(" ", more);
}

/** Shows `e` in words (nothing: clears); `what` says what failed; `contract`: whose
 * custom errors come first ("referee" or "tournament"). */
export function showError(e, what = "", contract = "referee") {
  if (!e) {
    $("error").textContent = "";
    return;
  }
  const { sentence, detail } = explain(e, revertName(e, contract), contract);
  // Said on the page, the raw error in its detail: not logged (a player's console stays
  // quiet; the tests fail on any console warning).
  sayWithDetail($("error"), what ? `${what}: ${sentence}` : sentence, detail);
}

/** Says `text` on the notice line, with `detail` (a transaction's hash, its gas) closed. */
export function notice(text, detail = "") {
  sayWithDetail($("notice"), text, detail);
}

/** The home views, by name: each one's section and the button that shows it. */
const HOMES = { lobby: "show-lobby", tournaments: "show-tournaments" };

/** Shows the home view `view` ("lobby" or "tournaments"; default: the one shown last) and
 * hides the game panel; remembered for the way back from a game. */
export function showHome(view = app.home) {
  app.home = view;
  $("game").hidden = true;
  for (const [name, button] of Object.entries(HOMES)) {
    $(name).hidden = name !== view;
    $(button).setAttribute("aria-pressed", String(name === view));
  }
}
