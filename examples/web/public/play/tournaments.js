// @ts-check
// The Tournaments view: knockout events (docs/TOURNAMENT.md) from the server's
// `/v1/tournaments`, the open ones with an Enter button (the fee through the wallet, one
// confirmation in ETH; an ERC-20 fee takes an approval first), the player's next step in
// each event it entered (Start, the game in the game view, a drawn game's report and lot,
// the draw, claim and withdraw), and one event's bracket, drawn again as it changes while
// the view is shown. The words and the next step come from bracket.js.
import { ethers } from "/vendor/ethers/ethers.min.js";
import { $, app, sayWithDetail, showError } from "./page.js";
import { api, indexed } from "./server.js";
import { transact } from "./wallet.js";
import { shortAddress, units } from "./words.js";
import {
  deadlineWords, gameWords, matchWords, myMatch, nextStep, placeName, playerName, playsHere, prizeLine, roundName, same, statusWords,
} from "./bracket.js";
import { openGame } from "./game.js";

/** How often the view asks the server again while it is shown (the bracket live). */
export const TOURNAMENTS_REFRESH_MS = 3_000;

/** What the page calls on an ERC-20 fee token. */
const ERC20 = [
  "function symbol() view returns (string)",
  "function decimals() view returns (uint8)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function approve(address spender, uint256 amount) returns (bool)",
];

/** Each fee token's `{symbol, decimals}` (ETH for the zero address), read once. */
const tokens = new Map([[ethers.ZeroAddress, { symbol: "ETH", decimals: 18 }]]);
/** The event whose bracket is shown (its id), chosen by a click or the player's own. */
let selected = null;
/** What the view shows now: unchanged, nothing is redrawn (a button keeps its focus). */
let shown = null;
/** An action is on its way through the wallet: its buttons stay disabled. */
let busy = false;

/** How long what the view said of an action stays once the view changes after it. */
const NOTICE_MS = 10_000;
/** When the view last said something (ms since 1970). */
let said = 0;

/** Says `text` on the view's status line, `detail` closed. */
function say(text, detail = "") {
  said = Date.now();
  sayWithDetail($("t-notice"), text, detail);
}

/** Fills `el` with `text`, each short address in it kept on one line (a phone would break
 * one at its ellipsis). */
function withAddresses(el, text) {
  for (const [i, part] of text.split(/(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4})/).entries()) {
    if (i % 2 === 0) {
      el.append(part);
    } else {
      const span = document.createElement("span");
      span.className = "nowrap";
      span.textContent = part;
      el.append(span);
    }
  }
}

/** The fee token's symbol and decimals: read from the token once a wallet gives a chain
 * to read; before that, its smallest units. */
async function tokenOf(address) {
  const key = ethers.getAddress(address);
  if (tokens.has(key)) return tokens.get(key);
  if (!app.browser) return { symbol: `units of token ${shortAddress(key)}`, decimals: 0 };
  const erc20 = new ethers.Contract(key, ERC20, app.browser);
  const [symbol, decimals] = await Promise.all([erc20.symbol(), erc20.decimals()]);
  const token = { symbol: String(symbol), decimals: Number(decimals) };
  tokens.set(key, token);
  return token;
}

/** A function formatting amounts of `address`'s token: "0.01 ETH", "25 USDC". */
async function moneyOf(address) {
  const { symbol, decimals } = await tokenOf(address);
  return (amount) => `${units(amount, decimals)} ${symbol}`;
}

/** The tournament contract at `address`, through the wallet. */
function tournament(address) {
  return new ethers.Contract(address, app.tournamentAbi, app.signer);
}

/** The chain time, by the latest block (a node, a test, may run ahead of this clock). */
async function chainNow() {
  const block = app.browser ? await app.browser.getBlock("latest").catch(() => null) : null;
  return { now: Math.max(Math.floor(Date.now() / 1000), block?.timestamp ?? 0), latestBlock: block?.number ?? 0 };
}

/** What the chain says for the player's next step in event `d` (bracket.js nextStep). */
async function chainFacts(d, latestBlock) {
  const facts = { latestBlock, drawBlock: 0, games: {}, claim: null, credit: 0n };
  if (!app.signer || !d.entrants.some((a) => same(a, app.account))) return facts;
  const t = tournament(d.tournament);
  const reads = [t.credits(app.account, d.token).then((c) => (facts.credit = c))];
  // getFunction: a Contract's own getEvent names an ABI event, not the view.
  if (d.status === "drawing") reads.push(t.getFunction("getEvent")(d.id).then((e) => (facts.drawBlock = Number(e.drawBlock))));
  if (["finished", "refunding", "running"].includes(d.status)) {
    // Whether claim would credit now: the contract's own answer, from the player's account.
    reads.push(t.getFunction("claim").staticCall(d.id).then(() => (facts.claim = "ok"), (e) => {
      const name = e?.revert?.name ?? t.interface.parseError(e?.data ?? "0x")?.name;
      if (name === "AlreadyClaimed") facts.claim = "claimed";
    }));
  }
  // The player's game and the one beside it (whose winner it meets next), as the referee has them.
  const mine = myMatch(d, app.account);
  const beside = mine && d.rounds.flat().find((m) => m.match === (mine.match ^ 1));
  for (const m of [mine, beside]) {
    if (m?.status !== "running" || !m.gameId) continue;
    reads.push(app.referee.getGame(m.gameId).then((g) => (facts.games[m.gameId] = { phase: Number(g.phase), result: Number(g.result) })));
  }
  await Promise.all(reads.map((r) => r.catch(() => {})));
  return facts;
}

/** Refreshes the view by itself every TOURNAMENTS_REFRESH_MS while it is shown. */
export function refreshTournaments() {
  let running = false;
  let failed = false;
  setInterval(async () => {
    if (running || busy || $("tournaments").hidden || document.body.dataset.ready !== "true") return;
    running = true;
    try {
      await loadTournaments();
      if (failed) showError(null);
      failed = false;
    } catch (e) {
      failed = true;
      showError(e, "refreshing the tournaments");
    } finally {
      running = false;
    }
  }, TOURNAMENTS_REFRESH_MS);
}

/** Reads the events and draws the view (`force`: even if nothing changed). */
export async function loadTournaments(force = false) {
  const me = app.account;
  const [open, recent, mine] = await Promise.all([
    api("/v1/tournaments?status=open&limit=20"),
    api("/v1/tournaments?limit=20"),
    me ? api(`/v1/tournaments?player=${me}&limit=20`) : { tournaments: [] },
  ]);
  // The player's events still going, and the bracket shown: in full.
  const active = mine.tournaments.filter((t) => t.status !== "cancelled");
  if (selected === null) selected = (active.find((t) => t.status === "running") ?? recent.tournaments.find((t) => t.status === "running"))?.id ?? null;
  const ids = new Set([...open.tournaments.map((t) => t.id), ...active.map((t) => t.id), ...(selected === null ? [] : [selected])]);
  /** @type {Map<string, any>} */
  const details = new Map();
  await Promise.all([...ids].map(async (id) => details.set(id, await api(`/v1/tournaments/${id}`))));
  // The shown bracket's running games, as the server has them: one that ended is said so
  // before the bracket records it (at the next start or report).
  /** @type {Map<string, any>} */
  const games = new Map();
  const shownEvent = selected === null ? null : details.get(selected);
  const running = shownEvent ? shownEvent.rounds.flat().filter((m) => m.status === "running" && m.gameId) : [];
  await Promise.all(running.map(async (m) => games.set(m.gameId, await api(`/v1/games/${m.gameId}`).then((g) => ({ phase: g.phase, result: g.result }), () => null))));
  const { now, latestBlock } = await chainNow();
  const steps = [];
  for (const t of active) {
    const d = details.get(t.id);
    const money = await moneyOf(d.token);
    const step = nextStep(d, me, await chainFacts(d, latestBlock), money);
    if (step) steps.push({ d, step });
  }
  // The index's height moves with every block: not a change of what the view shows.
  const key = JSON.stringify([open, recent, [...details.values()].map((d) => ({ ...d, indexedBlock: null })), [...games], steps.map((s) => s.step), me, selected, Math.floor(now / 60)]);
  if (key === shown && !force) return;
  shown = key;
  // What the last action said is old news once the view changed after it.
  if (Date.now() - said > NOTICE_MS) say("");
  await renderNext(steps);
  await renderOpen(open.tournaments, details, now);
  renderList(recent.tournaments);
  await renderEvent(shownEvent, games);
}

/** The most pressing first: a game to play or start, then a lot, the draw, a claim. */
const URGENCY = { open: 0, start: 1, report: 2, resolveLot: 3, draw: 4, claim: 5, withdraw: 6 };

/** "Your next game": one card per event the player is in, its step and its button. */
async function renderNext(steps) {
  const list = $("next-list");
  list.textContent = "";
  $("next-games").hidden = steps.length === 0;
  steps.sort((a, b) => (URGENCY[a.step.action?.call] ?? 9) - (URGENCY[b.step.action?.call] ?? 9));
  for (const { d, step } of steps) {
    const card = document.createElement("div");
    card.className = "next";
    card.dataset.event = d.id;
    if (step.action) card.dataset.action = step.action.call;
    const title = document.createElement("strong");
    title.textContent = `Event #${d.id}`;
    const text = document.createElement("span");
    withAddresses(text, step.say);
    card.append(title, " ", text);
    if (step.action) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = step.action.label;
      button.dataset.call = step.action.call;
      button.disabled = busy;
      button.addEventListener("click", () => act(d, step.action));
      card.append(" ", button);
    }
    const view = document.createElement("button");
    view.type = "button";
    view.className = "link";
    view.textContent = "Bracket";
    view.setAttribute("aria-label", `Show the bracket of event ${d.id}`);
    view.addEventListener("click", () => select(d.id));
    card.append(" ", view);
    list.append(card);
  }
}

/** The open events: their terms, prizes, places left, and Enter. */
async function renderOpen(events, details, now) {
  const list = $("open-events");
  list.textContent = "";
  $("no-open").hidden = events.length > 0;
  for (const t of events) {
    const d = details.get(t.id);
    const money = await moneyOf(t.token);
    const card = document.createElement("article");
    card.className = "event-card";
    card.dataset.event = t.id;
    const entered = d.entrants.some((a) => same(a, app.account));
    const left = t.size - t.entrantCount;
    const erc20 = t.token !== ethers.ZeroAddress;
    const h = document.createElement("h3");
    h.textContent = `Event #${t.id}: ${t.size}-player knockout`;
    const terms = document.createElement("dl");
    const rows = [
      ["entry", money(t.fee)],
      ["places", `${left} of ${t.size} left`],
      ["games", gameWords(t)],
      ["entries", `${deadlineWords(t.deadline, now)} (${new Date(t.deadline * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })})`],
      ["prizes", prizeLine(d.prizes, money) || "none"],
    ];
    if (t.organiserFeeBps > 0) rows.push(["organiser", `${t.organiserFeeBps / 100}% of the pool, after the final`]);
    for (const [k, v] of rows) {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.textContent = v;
      terms.append(dt, dd);
    }
    const foot = document.createElement("p");
    foot.className = "enter";
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.call = "enter";
    button.textContent = entered ? "Entered" : erc20 ? "Approve and enter" : `Enter for ${money(t.fee)}`;
    // The visible words start the accessible name (what a voice user says to click it).
    button.setAttribute("aria-label", `${button.textContent}: event ${t.id}`);
    button.disabled = busy || entered || !app.account || left <= 0 || t.deadline <= now;
    button.addEventListener("click", () => enter(t));
    foot.append(button);
    const why = document.createElement("small");
    why.textContent = !app.account ? " Connect a wallet to enter."
      : entered ? " You hold a place: the bracket is drawn once the event is full."
      : erc20 ? ` The fee is paid in ${(await tokenOf(t.token)).symbol}: your wallet asks twice, first to let the tournament take the fee (an approval), then to enter.`
      : " One confirmation in your wallet. If the event does not fill by its deadline, the fee comes back in full.";
    foot.append(why);
    card.append(h, terms, foot);
    list.append(card);
  }
}

/** Every recent event, one row each, with its bracket a click away. */
function renderList(events) {
  const body = $("events").querySelector("tbody");
  body.textContent = "";
  for (const t of events) {
    const row = body.insertRow();
    row.dataset.event = t.id;
    if (t.id === selected) row.setAttribute("aria-current", "true");
    for (const text of [`#${t.id}`, `${t.entrantCount}/${t.size}`, statusWords(t, app.account)]) row.insertCell().textContent = text;
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Bracket";
    button.setAttribute("aria-label", `Show the bracket of event ${t.id}`);
    button.addEventListener("click", () => select(t.id));
    row.insertCell().append(button);
  }
}

/** Shows event `id`'s bracket. */
function select(id) {
  selected = id;
  loadTournaments(true).then(() => $("event").scrollIntoView({ block: "start" })).catch((e) => showError(e, "reading the event"));
}

/** One event: its status, the bracket (rounds as columns, stacked on a phone), places;
 * `games`: its running games as the server has them, by id. */
async function renderEvent(d, games) {
  $("event").hidden = !d;
  if (!d) return;
  const money = await moneyOf(d.token);
  const me = app.account;
  $("event").dataset.event = d.id;
  $("event").dataset.status = d.status;
  $("event-title").textContent = `Event #${d.id}: ${d.size}-player knockout`;
  const pool = `pool ${money(d.pool)}`;
  $("event-status").textContent = `${statusWords(d, me)} · ${gameWords(d)} · ${pool}${BigInt(d.paid) > 0n ? `, ${money(d.paid)} paid out` : ""}`;
  $("event-prizes").textContent = prizeLine(d.prizes, money) ? `Prizes: ${prizeLine(d.prizes, money)}.` : "";
  const bracket = $("bracket");
  bracket.textContent = "";
  if (!d.seed && d.rounds.every((r) => r.every((m) => !m.white && !m.black))) {
    const who = document.createElement("p");
    who.className = "entrants";
    const names = d.entrants.map((a) => playerName(a, me));
    who.textContent = d.entrants.length
      ? `Entered so far: ${names.join(", ")}. The bracket is drawn from a block's hash once all ${d.size} places are taken.`
      : `Nobody has entered yet. The bracket is drawn from a block's hash once all ${d.size} places are taken.`;
    bracket.append(who);
  } else {
    for (const [r, matches] of d.rounds.entries()) {
      const column = document.createElement("section");
      column.className = "round";
      column.setAttribute("aria-label", roundName(r, d.size));
      const h = document.createElement("h4");
      h.textContent = roundName(r, d.size);
      const list = document.createElement("div");
      list.className = "matches";
      for (const m of matches) list.append(matchBox(m, me, playsHere(d), games.get(m.gameId) ?? null));
      column.append(h, list);
      bracket.append(column);
    }
  }
  const standings = $("standings");
  standings.textContent = "";
  $("standings-wrap").hidden = d.standings.length === 0;
  for (const s of d.standings) {
    const li = document.createElement("li");
    if (same(s.player, me)) li.className = "you";
    li.textContent = `${placeName(s.tier)}: ${playerName(s.player, me)}, ${money(s.prize)}${s.credited ? " (credited)" : ""}`;
    standings.append(li);
  }
}

/** One match of the bracket: its two players (colour, "you", the winner marked) and what
 * became of it; `playable`: its running game opens in the game view; `game`: the server's
 * view of that game. */
function matchBox(m, me, playable, game) {
  const box = document.createElement("div");
  box.className = "match";
  box.dataset.match = String(m.match);
  box.dataset.status = m.status;
  if (same(m.white, me) || same(m.black, me)) box.classList.add("mine");
  for (const colour of ["white", "black"]) {
    const address = m[colour];
    const side = document.createElement("div");
    side.className = `side ${colour}`;
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.title = address ? `plays ${colour}` : "";
    swatch.hidden = !address;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = address ? playerName(address, me) : "to be decided";
    if (address) name.title = address;
    else name.classList.add("unknown");
    side.append(swatch, name);
    if (address && same(address, me)) side.classList.add("you");
    if (m.status === "decided" && same(m.winner, address)) {
      side.classList.add("winner");
      const mark = document.createElement("span");
      mark.className = "mark";
      mark.textContent = "✓";
      mark.setAttribute("aria-label", "winner");
      side.append(mark);
    } else if (address && (m.status === "decided" || m.status === "abandoned")) side.classList.add("out");
    box.append(side);
  }
  const how = document.createElement("p");
  how.className = "how";
  how.textContent = matchWords(m, me, game);
  box.append(how);
  if (playable && m.gameId && m.status === "running" && game?.phase !== "ended") {
    const watch = document.createElement("button");
    watch.type = "button";
    watch.className = "link";
    const playing = same(m.white, me) || same(m.black, me);
    watch.textContent = playing ? "Play" : "Watch";
    watch.setAttribute("aria-label", `${watch.textContent} game ${m.gameId}`);
    watch.addEventListener("click", () => openGame(BigInt(m.gameId)).catch(showError));
    how.append(" ", watch);
  }
  return box;
}

/** Runs `body` with the view's buttons off, its error in words (the tournament's first). */
async function busyWith(label, body) {
  busy = true;
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("#tournaments button[data-call]"))) b.disabled = true;
  showError(null);
  try {
    await body();
  } catch (e) {
    showError(e, label, "tournament");
    say("");
  } finally {
    busy = false;
    if (!$("tournaments").hidden) await loadTournaments(true).catch((e) => showError(e, "reading the events"));
  }
}

/** Enters event `t`: one confirmation in ETH; an ERC-20 fee is approved first (only
 * when the allowance falls short). */
function enter(t) {
  return busyWith(`entering event #${t.id}`, async () => {
    if (!app.signer) throw new Error("connect a wallet first");
    const money = await moneyOf(t.token);
    const contract = tournament(t.tournament);
    let receipt;
    if (t.token === ethers.ZeroAddress) {
      receipt = await transact(`enter event #${t.id} for ${money(t.fee)}`, contract.enter(t.id, { value: BigInt(t.fee) }), say);
    } else {
      const erc20 = new ethers.Contract(t.token, ERC20, app.signer);
      if ((await erc20.allowance(app.account, t.tournament)) < BigInt(t.fee)) {
        await transact(`approval (1 of 2): let the tournament take ${money(t.fee)}`, erc20.approve(t.tournament, BigInt(t.fee)), say);
      }
      receipt = await transact(`enter event #${t.id} (2 of 2)`, contract.enter(t.id), say);
    }
    await indexed(receipt.blockNumber, say);
    say(`You are entered in event #${t.id}.`, `transaction ${receipt.hash}`);
    selected = t.id;
  });
}

/** Does the player's next step in event `d`: a tournament call through the wallet, or
 * its game opened in the game view (after a Start, the game it started). */
function act(d, action) {
  if (action.call === "open") return openGame(BigInt(action.gameId)).catch(showError);
  const what = action.label.charAt(0).toLowerCase() + action.label.slice(1);
  return busyWith(what, async () => {
    const contract = tournament(d.tournament);
    const receipt = await transact(what, contract.getFunction(action.call)(...action.args), say);
    await indexed(receipt.blockNumber, say);
    const started = receipt.logs
      .filter((l) => same(l.address, d.tournament))
      .map((l) => contract.interface.parseLog(l))
      .find((e) => e?.name === "MatchStarted");
    if (started) {
      say("");
      await openGame(started.args.gameId);
    }
  });
}
