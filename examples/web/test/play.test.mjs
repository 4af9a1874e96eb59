// Two people, two browsers, one staked game off-chain: the play page in two contexts of
// Debian's Chromium, each with its own wallet (an anvil dev account behind an EIP-1193
// provider announced by EIP-6963), against real `chessref index` and `chessref serve`
// processes on anvil. Moves are clicks on the board; the chain is checked with ethers.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { ethers } from "ethers";
import { provider, refereeArtifact } from "../chain.mjs";
import { servePage } from "../serve.mjs";
import { startStack } from "../stack.mjs";
import { walletScript } from "./wallet.mjs";

const OUT = fileURLToPath(new URL("../test-output/", import.meta.url));
/** anvil's dev accounts 1 and 2: the two players. */
const ALICE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const BOB = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const STAKE = ethers.parseEther("1");

let stack, site, browser, referee;
const errors = [];
const latencies = [];

before(async () => {
  stack = await startStack({ pollMs: 50 });
  site = await servePage(0);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--no-first-run"],
  });
  const health = await (await fetch(`${stack.server}/v1/health`)).json();
  referee = new ethers.Contract(health.referee, refereeArtifact().abi, provider(stack.rpc));
  mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  await site?.close();
  await stack?.stop();
  if (latencies.length) {
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    const figures = { moves: sorted.length, medianMs: at(0.5), p99Ms: at(0.99), maxMs: sorted.at(-1) };
    writeFileSync(`${OUT}latency.json`, JSON.stringify(figures, null, 2));
    console.log(`move latency browser to browser: ${JSON.stringify(figures)}`);
  }
});

/** A browser context with `account`'s wallet, on the play page. */
async function person(account, name, query = "") {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  await context.addInitScript({ content: walletScript(stack.rpc, account) });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(`${name}: ${e}`));
  // A player with no rated game yet is a 404 of /v1/players: the page shows "unrated".
  page.on("console", (m) => m.type() === "error" && !m.location().url.includes("/v1/players/") && errors.push(`${name}: ${m.text()} (${m.location().url})`));
  await page.goto(`${site.url}/play.html?server=${encodeURIComponent(stack.server)}${query}`);
  await page.waitForSelector("body[data-ready]", { timeout: 60_000 });
  assert.equal(await page.getAttribute("body", "data-ready"), "true", await page.innerText("#error"));
  await page.click("#connect");
  await page.waitForSelector("body[data-connected]", { timeout: 30_000 });
  return { context, page, name, account };
}

/** Alice creates a staked channel game from the form; Bob joins it from the lobby. */
async function openGame(alice, bob, { window = "600", minutes = "5" } = {}) {
  await alice.page.fill('#create input[name="stake"]', "1");
  await alice.page.fill('#create input[name="window"]', window);
  await alice.page.fill('#create input[name="minutes"]', minutes);
  await alice.page.click("#create-button");
  await alice.page.waitForSelector("body[data-game]", { timeout: 30_000 });
  const id = await alice.page.getAttribute("body", "data-game");
  await bob.page.click("#back").catch(() => {});
  for (let i = 0; ; i++) {
    await bob.page.evaluate(() => document.getElementById("back").click());
    const row = bob.page.locator(`#open-games tr[data-game="${id}"] button[data-action="join"]`);
    if (await row.count()) {
      await row.click();
      break;
    }
    assert.ok(i < 100, `game ${id} never appeared in Bob's lobby`);
    await bob.page.waitForTimeout(100);
  }
  for (const p of [alice, bob]) await p.page.waitForSelector("body[data-synced]", { timeout: 30_000 });
  return BigInt(id);
}

/** Both boards' screenshots once the pieces stopped moving. */
async function shot(people, name) {
  for (const p of people) {
    await p.page.waitForTimeout(400);
    await p.page.screenshot({ path: `${OUT}play-${name}-${p.name}.png` });
  }
}

const plyOf = async (p) => Number(await p.page.getAttribute("body", "data-ply"));

/** `mover` plays `uci` by two clicks; `other` must show it. Returns the latency, ms. */
async function move(mover, other, uci) {
  const before = await plyOf(mover);
  const sq = (s) => `#board [data-square="${s}"]`;
  await mover.page.waitForSelector(`body[data-ply="${before}"]`);
  const started = Date.now();
  await mover.page.click(sq(uci.slice(0, 2)));
  await mover.page.click(sq(uci.slice(2, 4)));
  await other.page.waitForSelector(`body[data-ply="${before + 1}"]`, { timeout: 30_000, polling: "raf" });
  const ms = Date.now() - started;
  latencies.push(ms);
  await mover.page.waitForSelector(`body[data-ply="${before + 1}"]`, { timeout: 30_000 });
  return ms;
}

test("a staked game played to mate off-chain, settled once, and both balances right on chain", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  const balance = (a) => provider(stack.rpc).getBalance(a);
  const id = await openGame(alice, bob);
  assert.equal(await alice.page.getAttribute("body", "data-colour"), "white");
  assert.equal(await bob.page.getAttribute("body", "data-colour"), "black");
  // Fool's mate: black mates on ply 4.
  await move(alice, bob, "f2f3");
  await move(bob, alice, "e7e5");
  await shot([alice, bob], "ply2");
  await move(alice, bob, "g2g4");
  await move(bob, alice, "d8h4");
  for (const p of [alice, bob]) await p.page.waitForSelector('body[data-phase="ended"]', { timeout: 30_000 });
  assert.match(await bob.page.innerText("#state"), /ended off-chain by a signed result/);
  await shot([alice, bob], "mate");
  // Off-chain, the wallets confirmed only the stake and the delegations.
  for (const p of [alice, bob]) {
    const asked = await p.page.evaluate(() => window.__walletConfirmations);
    assert.deepEqual(asked, ["eth_sendTransaction", "eth_signTypedData_v4"], `${p.name}: ${asked}`);
  }
  const bobBefore = await balance(BOB);
  await bob.page.click("#settle");
  await bob.page.waitForSelector("#withdraw:not([hidden])", { timeout: 30_000 });
  const info = await referee.getGame(id);
  assert.deepEqual([Number(info.phase), Number(info.result)], [3, 2], "black won on chain");
  assert.equal(await referee.credits(BOB, ethers.ZeroAddress), 2n * STAKE);
  assert.equal(await referee.credits(ALICE, ethers.ZeroAddress), 0n);
  await bob.page.click("#withdraw");
  await bob.page.waitForSelector("#withdraw", { state: "hidden", timeout: 30_000 });
  const gained = (await balance(BOB)) - bobBefore;
  assert.ok(gained > 2n * STAKE - ethers.parseEther("0.01") && gained < 2n * STAKE, `Bob got ${ethers.formatEther(gained)} ETH back`);
  await alice.context.close();
  await bob.context.close();
});

test("the page logged no errors", () => {
  assert.deepEqual(errors, []);
});
