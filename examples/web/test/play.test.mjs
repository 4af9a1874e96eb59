// Two people, two browsers, one staked game off-chain: the play page in two contexts of
// Debian's Chromium, each with its own wallet (an anvil dev account behind an EIP-1193
// provider announced by EIP-6963), against real `chessref index` and `chessref serve`
// processes on anvil. Moves are clicks on the board; the chain is checked with ethers.
import { test, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import { ethers } from "ethers";
import { provider, refereeArtifact, tournamentAbi } from "../chain.mjs";
import { servePage } from "../serve.mjs";
import { chessrefBinary, startStack } from "../stack.mjs";
import { walletScript } from "../devwallet.mjs";

const OUT = fileURLToPath(new URL("../test-output/", import.meta.url));
/** axe-core's browser build, injected into a page to audit it. */
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
/** anvil's dev accounts 1 and 2: the two players. */
const ALICE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const BOB = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
/** anvil's dev account 3: a spectator. */
const CAROL = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const STAKE = ethers.parseEther("1");
/** anvil's dev keys: Alice's (account 1), Bob's (account 2) and a watchtower's (account 5). */
const ALICE_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const BOB_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
const TOWER_KEY = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";

let stack, site, browser, referee;
const errors = [];
const latencies = [];
/** Every context a test opened: closed after it, even when it failed. */
const contexts = new Set();

async function closeAll() {
  for (const c of contexts) await c.close().catch(() => {});
  contexts.clear();
}

afterEach(closeAll);
const clicks = [];

/** What the current test's pages logged: any page error, console error or console
 * warning fails the test (playTest). */
const problems = [];

/** Listens to `page` (of `name`) for page errors and console errors and warnings. */
function watch(page, name) {
  page.on("pageerror", (e) => {
    errors.push(`${name}: ${e}`);
    problems.push(`${name}: page error: ${e}`);
  });
  page.on("console", (m) => {
    if (m.type() !== "error" && m.type() !== "warning") return;
    errors.push(`${name}: ${m.text()} (${m.location().url})`);
    problems.push(`${name}: console ${m.type()}: ${m.text()} (${m.location().url})`);
  });
  return page;
}

/** A play test: fails on any page error, console error or console warning of its pages. */
function playTest(name, body) {
  test(name, async () => {
    problems.length = 0;
    await body();
    assert.deepEqual(problems, [], "the pages logged errors or warnings");
  });
}

before(async () => {
  stack = await startStack({ pollMs: 50 });
  site = await servePage(0);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--no-first-run"],
  });
  referee = await refereeOf(stack);
  mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  await site?.close();
  await stack?.stop();
  if (latencies.length) {
    const stats = (xs) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
      return { moves: sorted.length, medianMs: +at(0.5).toFixed(1), p99Ms: +at(0.99).toFixed(1), maxMs: +sorted.at(-1).toFixed(1) };
    };
    const figures = { pageToPage: stats(latencies), clickToOtherBoard: stats(clicks) };
    writeFileSync(`${OUT}latency.json`, JSON.stringify(figures, null, 2));
    console.log(`move latency browser to browser: ${JSON.stringify(figures)}`);
  }
});

/** The referee the stack's server follows, read through its node. */
async function refereeOf(s) {
  const health = await (await fetch(`${s.server}/v1/health`)).json();
  return new ethers.Contract(health.referee, refereeArtifact().abi, provider(s.rpc));
}

/** Runs `body` on a chain of its own: the test moves anvil's time, which would leave the
 * shared chain's clock ahead of the browsers' (their moves are stamped by the wall
 * clock, as people's are). */
async function onOwnChain(body) {
  const shared = { stack, referee };
  stack = await startStack({ pollMs: 50 });
  referee = await refereeOf(stack);
  try {
    await body();
  } finally {
    // The pages go before their chain does, or they log its absence.
    await closeAll();
    await stack.stop();
    ({ stack, referee } = shared);
  }
}

/** A browser context with `account`'s wallet, on the play page (`device`: more of the
 * context's options, a phone's isMobile and hasTouch). */
async function person(account, name, query = "", viewport = { width: 1100, height: 760 }, device = {}) {
  const context = await browser.newContext({ viewport, ...device });
  contexts.add(context);
  await context.addInitScript({ content: walletScript(stack.rpc, account) });
  const page = watch(await context.newPage(), name);
  await page.goto(`${site.url}/play.html?server=${encodeURIComponent(stack.server)}${query}`);
  await page.waitForSelector("body[data-ready]", { timeout: 60_000 });
  assert.equal(await page.getAttribute("body", "data-ready"), "true", await page.innerText("#error"));
  await page.click("#connect");
  await page.waitForSelector("body[data-connected]", { timeout: 30_000 });
  return { context, page, name, account };
}

/** A game created from `p`'s form, staked `stake` ETH: its id, once the page shows it. */
async function createFromForm(p, stake = "1") {
  await p.page.fill('#create input[name="stake"]', stake);
  await p.page.click("#create-button");
  await until(p, "body[data-game]");
  return p.page.getAttribute("body", "data-game");
}

/** The ETH `account` paid for gas in the blocks after `from`: gas used times its price. */
async function feesPaid(account, from) {
  const node = provider(stack.rpc);
  let fees = 0n;
  for (let n = from + 1; n <= (await node.getBlockNumber()); n++) {
    const block = await node.getBlock(n, true);
    for (const tx of block.prefetchedTransactions) {
      if (tx.from.toLowerCase() !== account.toLowerCase()) continue;
      const receipt = await node.getTransactionReceipt(tx.hash);
      fees += receipt.gasUsed * receipt.gasPrice;
    }
  }
  return fees;
}

/** Alice creates a staked channel game from the form; Bob joins it from the lobby. */
async function openGame(alice, bob, { window = "600", minutes = "5" } = {}) {
  await alice.page.fill('#create input[name="stake"]', "1");
  await alice.page.fill('#create input[name="window"]', window);
  await alice.page.fill('#create input[name="minutes"]', minutes);
  await alice.page.click("#create-button");
  await alice.page.waitForSelector("body[data-game]", { timeout: 30_000 });
  const id = await alice.page.getAttribute("body", "data-game");
  // Bob's lobby shows the game by itself (it refreshes every 3 s).
  const join = `#open-games tr[data-game="${id}"] button[data-action="join"]`;
  await until(bob, join);
  await bob.page.click(join);
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

/** Waits for `selector` on `p`'s page; a timeout names what the page says went wrong. */
async function until(p, selector) {
  try {
    await p.page.waitForSelector(selector, { timeout: 30_000 });
  } catch (e) {
    const said = await p.page.evaluate(() => `error: ${document.getElementById("error").textContent}; notice: ${document.getElementById("notice").textContent}; state: ${document.getElementById("state").textContent}`);
    throw new Error(`${p.name}: no ${selector} within 30 s (${said})`);
  }
}

const plyOf = async (p) => Number(await p.page.getAttribute("body", "data-ply"));

/** `mover` plays `uci` by two clicks; `other` must show it. Returns the latency, ms. */
async function move(mover, other, uci) {
  const before = await plyOf(mover);
  const sq = (s) => `#board [data-square="${s}"]`;
  await mover.page.waitForSelector(`body[data-ply="${before}"][data-idle]`);
  const started = Date.now();
  await mover.page.click(sq(uci.slice(0, 2)));
  await mover.page.click(sq(uci.slice(2, 4)));
  await other.page.waitForSelector(`body[data-ply="${before + 1}"]`, { timeout: 30_000, polling: "raf" });
  clicks.push(Date.now() - started);
  await mover.page.waitForSelector(`body[data-ply="${before + 1}"]`, { timeout: 30_000 });
  // Signed and sent by one page, checked and drawn by the other: both pages' clocks.
  const sent = await mover.page.evaluate((ply) => window.chessref.timings.sent[ply], before + 1);
  const seen = await other.page.evaluate((ply) => window.chessref.timings.seen[ply], before + 1);
  latencies.push(seen - sent);
}

/** Légal's mate: white mates on ply 13. */
const LEGAL = ["e2e4", "e7e5", "g1f3", "d7d6", "f1c4", "c8g4", "b1c3", "g7g6", "f3e5", "g4d1", "c4f7", "e8e7", "c3d5"];

/** The gas `account` paid in the blocks after `from`. */
async function gasPaid(account, from) {
  const node = provider(stack.rpc);
  let gas = 0n;
  for (let n = from + 1; n <= (await node.getBlockNumber()); n++) {
    const block = await node.getBlock(n, true);
    for (const tx of block.prefetchedTransactions) {
      if (tx.from.toLowerCase() === account.toLowerCase()) gas += (await node.getTransactionReceipt(tx.hash)).gasUsed;
    }
  }
  return gas;
}

/** The packed uint24 of a UCI move without promotion (0x88 squares, ENCODING.md). */
const packed = (uci) => {
  const sq = (s) => (56 - s.charCodeAt(1)) * 16 + (s.charCodeAt(0) - 97); // rank 8 is row 0
  return (sq(uci.slice(0, 2)) << 16) | (sq(uci.slice(2, 4)) << 8);
};

/** The same game played per move on the referee (create, join, a transaction a move):
 * the gas of each side. */
async function perMove(ucis) {
  const node = provider(stack.rpc);
  const [white, black] = [await node.getSigner(ALICE), await node.getSigner(BOB)];
  const gas = { white: 0n, black: 0n };
  const as = (s) => referee.connect(s);
  let receipt = await (await as(white).createGame(BOB, true, ethers.ZeroAddress, STAKE, 300, 2, 0, "0x", { value: STAKE })).wait();
  gas.white += receipt.gasUsed;
  const created = receipt.logs.map((l) => referee.interface.parseLog(l)).find((e) => e?.name === "GameCreated");
  const id = created.args.gameId;
  receipt = await (await as(black).joinGame(id, created.args.terms, { value: STAKE })).wait();
  gas.black += receipt.gasUsed;
  let { state, history } = created.args;
  let clock = receipt.logs.map((l) => referee.interface.parseLog(l)).find((e) => e?.name === "GameJoined").args.clock;
  for (const [i, uci] of ucis.entries()) {
    receipt = await (await as(i % 2 ? black : white).getFunction("move")(id, state, history, clock, packed(uci))).wait();
    gas[i % 2 ? "black" : "white"] += receipt.gasUsed;
    const played = receipt.logs.map((l) => referee.interface.parseLog(l)).find((e) => e?.name === "MovePlayed");
    ({ state, history, clock } = played.args);
  }
  assert.equal(Number((await referee.getGame(id)).phase), 3, "the per-move game ended at mate");
  return gas;
}

playTest("a staked game played to mate off-chain, settled once, and both balances right on chain", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  const node = provider(stack.rpc);
  const startBlock = await node.getBlockNumber();
  const id = await openGame(alice, bob);
  assert.equal(await alice.page.getAttribute("body", "data-colour"), "white");
  assert.equal(await bob.page.getAttribute("body", "data-colour"), "black");
  for (const [i, uci] of LEGAL.entries()) {
    await (i % 2 ? move(bob, alice, uci) : move(alice, bob, uci));
    if (i === 3) await shot([alice, bob], "ply4");
  }
  for (const p of [alice, bob]) await p.page.waitForSelector('body[data-phase="ended"]', { timeout: 30_000 });
  // Issue 28 finding 6: the banner says who won, how, and the amount; Settle is offered
  // only to whom it pays, saying how much.
  await until(alice, '#result[data-outcome="won"]');
  await until(bob, '#result[data-outcome="lost"]');
  assert.equal(await alice.page.innerText("#result"), "You won by checkmate. You win 1 ETH: 2 ETH is paid to you, your stake and your opponent's.");
  assert.equal(await bob.page.innerText("#result"), "You lost by checkmate. You lose your stake of 1 ETH.");
  assert.ok(await bob.page.locator("#settle").isHidden(), "Settle is not offered to the loser");
  assert.equal(await alice.page.innerText("#settle"), "Settle: collect 2 ETH");
  assert.match(await bob.page.innerText("#state"), /^Your opponent settles it on-chain\./);
  const clockTexts = (p) => p.page.locator(".clock .time").allInnerTexts();
  const endClocks = await clockTexts(alice);
  assert.equal(await alice.page.getAttribute("#moves", "data-sans"), "e4 e5 Nf3 d6 Bc4 Bg4 Nc3 g6 Nxe5 Bxd1 Bxf7+ Ke7 Nd5#");
  assert.deepEqual((await alice.page.locator("#moves li").allInnerTexts()).slice(0, 2), ["e4 e5", "Nf3 d6"]);
  await shot([alice, bob], "mate");
  // Off-chain, each wallet confirmed only the stake and the session key's delegation.
  for (const p of [alice, bob]) {
    const asked = await p.page.evaluate(() => window.__walletConfirmations);
    assert.deepEqual(asked, ["eth_sendTransaction", "eth_signTypedData_v4"], `${p.name}: ${asked}`);
  }
  const aliceBefore = await node.getBalance(ALICE);
  const settleFrom = await node.getBlockNumber();
  const payout = BigInt(await alice.page.getAttribute("#result", "data-payout"));
  await alice.page.click("#settle");
  await alice.page.waitForSelector("#withdraw:not([hidden])", { timeout: 30_000 });
  await until(bob, '#state:has-text("Settled on-chain.")');
  assert.equal(payout, (await referee.getGame(id)).stake * 2n, "the banner's payout is both stakes on chain");
  assert.equal(await alice.page.innerText("#withdraw"), "Withdraw 2 ETH");
  assert.ok(await bob.page.locator("#withdraw").isHidden(), "nothing to withdraw for the loser");
  assert.equal(await alice.page.innerText("#result"), "You won by checkmate. You win 1 ETH: 2 ETH is paid to you, your stake and your opponent's.", "still the mate, not the chain's 'agreement'");
  const info = await referee.getGame(id);
  // Settled by the result both signed: white wins, by agreement (reason 8) to the mate.
  assert.deepEqual([Number(info.phase), Number(info.result), Number(info.reason)], [3, 1, 8], "white won on chain");
  assert.equal(await referee.credits(ALICE, ethers.ZeroAddress), payout);
  assert.equal(await referee.credits(BOB, ethers.ZeroAddress), 0n);
  // Settling is one transaction: a second settle reverts, and the page no longer offers it.
  assert.ok(await alice.page.locator("#settle").isHidden());
  const channelGas = { white: await gasPaid(ALICE, startBlock), black: await gasPaid(BOB, startBlock) };
  await alice.page.click("#withdraw");
  await alice.page.waitForSelector("#withdraw", { state: "hidden", timeout: 30_000 });
  await until(alice, '#state:has-text("2 ETH is back in your wallet.")');
  const gained = (await node.getBalance(ALICE)) - aliceBefore;
  assert.equal(gained, payout - (await feesPaid(ALICE, settleFrom)), `Alice got ${ethers.formatEther(gained)} ETH back`);
  // The clocks stayed where the mate stopped them, through settlement and withdrawal.
  assert.deepEqual(await clockTexts(alice), endClocks);
  const moveGas = await perMove(LEGAL);
  const figures = {
    plies: LEGAL.length,
    channel: { white: Number(channelGas.white), black: Number(channelGas.black) },
    perMove: { white: Number(moveGas.white), black: Number(moveGas.black) },
  };
  writeFileSync(`${OUT}gas.json`, JSON.stringify(figures, null, 2));
  console.log(`gas per player (create/join, settle; withdraw excluded): ${JSON.stringify(figures)}`);
  assert.ok(channelGas.white + channelGas.black < moveGas.white + moveGas.black, "off-chain costs less in all");
  await alice.context.close();
  await bob.context.close();
});

playTest("the page loads small and becomes interactive fast", async () => {
  const context = await browser.newContext();
  const page = watch(await context.newPage(), "visitor");
  const bodies = [];
  page.on("response", async (r) => {
    if (r.status() === 200) bodies.push(r.body().then((b) => ({ url: r.url(), gzip: gzipSync(b).length })).catch(() => null));
  });
  await page.goto(`${site.url}/play.html?server=${encodeURIComponent(stack.server)}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  const interactiveMs = await page.evaluate(() => performance.getEntriesByName("interactive")[0].startTime);
  const loaded = (await Promise.all(bodies)).filter(Boolean).filter((b) => !b.url.startsWith(stack.server));
  const gzipBytes = loaded.reduce((n, b) => n + b.gzip, 0);
  const figures = { files: loaded.length, gzipBytes, gzipKiB: Math.round(gzipBytes / 1024), interactiveMs: Math.round(interactiveMs) };
  writeFileSync(`${OUT}load.json`, JSON.stringify(figures, null, 2));
  console.log(`page load: ${JSON.stringify(figures)}`);
  assert.ok(loaded.some((b) => b.url.endsWith(".wasm")), "the wasm was loaded");
  await context.close();
});

/** anvil's clock moved forward `seconds`, and a block mined at the new time. */
async function advance(seconds) {
  const node = provider(stack.rpc);
  await node.send("evm_increaseTime", [seconds]);
  await node.send("evm_mine", []);
}

playTest("a player who closes the page mid-game is registered, its clock runs on chain, and the timeout is claimed", async () => {
  await onOwnChain(async () => {
    const alice = await person(ALICE, "alice", "&patience=2");
    const bob = await person(BOB, "bob", "&patience=2");
    const id = await openGame(alice, bob);
    const credit = await referee.credits(ALICE, ethers.ZeroAddress);
    await move(alice, bob, "e2e4");
    await move(bob, alice, "e7e5");
    // Bob goes away; Alice's next move is never acknowledged.
    await bob.context.close();
    await alice.page.click('#board [data-square="g1"]');
    await alice.page.click('#board [data-square="f3"]');
    await alice.page.waitForSelector('body[data-ply="3"]');
    await alice.page.waitForSelector("#register:not([hidden])", { timeout: 30_000 });
    assert.match(await alice.page.innerText("#state"), /has not acknowledged your move .* register before/);
    await shot([alice], "silent");
    await alice.page.click("#register");
    await alice.page.waitForSelector('body[data-phase="registered"]', { timeout: 30_000 });
    const channel = await referee.channelGame(id);
    assert.equal(Number(channel.registeredPly), 3, "the pair of plies 2 and 3 registered");
    assert.match(await alice.page.innerText("#state"), /registered on-chain at ply 3/);
    // After the response window the game goes on on-chain with black to move; black's
    // clock runs out there.
    await advance(Number(channel.windowEnd) - Number((await provider(stack.rpc).getBlock("latest")).timestamp) + 1);
    await alice.page.waitForSelector('body[data-phase="onchain"]', { timeout: 30_000 });
    await advance(3_600);
    await alice.page.waitForSelector("#claim-timeout:not([hidden])", { timeout: 30_000 });
    await alice.page.click("#claim-timeout");
    await alice.page.waitForSelector('body[data-phase="ended"]', { timeout: 30_000 });
    const info = await referee.getGame(id);
    assert.deepEqual([Number(info.phase), Number(info.result), Number(info.reason)], [3, 1, 6], "white wins on time");
    assert.equal((await referee.credits(ALICE, ethers.ZeroAddress)) - credit, 2n * STAKE);
    assert.match(await alice.page.innerText("#result"), /^You won on time\. You win 1 ETH/);
    await shot([alice], "timeout");
    await alice.context.close();
  });
});

playTest("an opponent who holds the move without a receipt: the mover's page registers it by itself, and its clock is safe", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  const id = await openGame(alice, bob);
  await move(alice, bob, "e2e4");
  await move(bob, alice, "e7e5");
  // Bob's page goes on receiving but sends nothing more: no receipt of Alice's next move.
  await bob.page.evaluate(() => {
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      if (!window.__silent) send.call(this, data);
    };
    window.__silent = true;
  });
  const asked = (await alice.page.evaluate(() => window.__walletConfirmations)).length;
  await alice.page.click('#board [data-square="g1"]');
  await alice.page.click('#board [data-square="f3"]');
  await until(bob, 'body[data-ply="3"]');
  // Nobody clicks: Alice's page registers by itself (at most 10 s after sending).
  await until(alice, 'body[data-auto-registered="3"]');
  await until(alice, 'body[data-phase="registered"]');
  assert.match(await alice.page.innerText("#state"), /Your opponent did not confirm your move: it was registered on-chain so your clock is safe/);
  const channel = await referee.channelGame(id);
  assert.equal(Number(channel.registeredPly), 3, "the pair of plies 2 and 3 registered");
  // Through the wallet (on anvil's dev wallet, no click), with the 2 gwei tip.
  assert.deepEqual((await alice.page.evaluate(() => window.__walletConfirmations)).slice(asked), ["eth_sendTransaction"]);
  const [registered] = await referee.queryFilter(referee.filters.PositionRegistered(id), 0, "latest");
  const tx = await provider(stack.rpc).getTransaction(registered.transactionHash);
  assert.equal(tx.from, ALICE);
  assert.ok(tx.maxPriorityFeePerGas >= ethers.parseUnits("2", "gwei"), `tip ${tx.maxPriorityFeePerGas}`);
  // Alice kept her time: her budget is her signed time in Nf3 plus the 15 s grace.
  const nf3 = await alice.page.evaluate(() => window.chessref.game.player.transcript().moves[2]);
  assert.equal(nf3.receipt, undefined, "Bob never acknowledged it");
  const block = await provider(stack.rpc).getBlock(registered.blockNumber);
  assert.ok(block.timestamp <= Number(nf3.timestamp) + 60, `registered at ${block.timestamp}, stamped ${nf3.timestamp}`);
  const whiteBudget = Number((BigInt(registered.args.clock) >> 40n) & 0xffffffffn);
  assert.equal(whiteBudget, Number(nf3.whiteTime) + 15);
  await shot([alice], "auto-registered");
  await alice.context.close();
  await bob.context.close();
});

playTest("a forged move injected into the relay is refused there and by the page, and no board changes", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  const id = await openGame(alice, bob);
  await move(alice, bob, "e2e4");
  // An illegal move of Bob's own is refused in his browser with the contract's code,
  // before anything is signed or sent.
  await bob.page.click('#board [data-square="e7"]');
  await bob.page.click('#board [data-square="e4"]');
  assert.equal(await bob.page.getAttribute("#verdict", "data-legal"), "false");
  assert.match(await bob.page.innerText("#verdict"), /^A pawn cannot move that way\./);
  assert.match(await bob.page.textContent("#verdict details"), /e7e4: the referee would revert IllegalMove\(6\) BAD_GEOMETRY/);
  assert.equal(await plyOf(bob), 1);
  // A third party on the relay: Black's e7e5 for ply 2 under White's signature of ply 1.
  const transcript = await (await fetch(`${stack.server}/v1/games/${id}/transcript`)).json();
  const signed = transcript.moves[0];
  const forged = { type: "move", ...signed, ply: 2, mv: packed("e7e5"), previous: signed.previous };
  const mallory = await browser.newContext();
  const page = watch(await mallory.newPage(), "mallory");
  await page.goto(`${site.url}/play.html?server=${encodeURIComponent(stack.server)}`);
  const answer = await page.evaluate(
    ({ url, frame }) =>
      new Promise((resolve) => {
        const socket = new WebSocket(url);
        const seen = [];
        socket.onmessage = (e) => {
          const f = JSON.parse(e.data);
          seen.push(f.type);
          if (f.type === "welcome") socket.send(JSON.stringify(frame));
          if (f.type === "refused") resolve({ refused: f, seen });
        };
        socket.onclose = (e) => resolve({ closed: e.code, reason: e.reason, seen });
      }),
    { url: `${stack.server.replace(/^http/, "ws")}/v1/games/${id}/channel`, frame: forged },
  );
  assert.ok(answer.refused || answer.closed === 1008, JSON.stringify(answer));
  if (answer.refused) assert.match(answer.refused.kind, /signature|transition|order/, JSON.stringify(answer.refused));
  // Had a relay forwarded it, the page's own mirror refuses it too.
  const local = await bob.page.evaluate((frame) => {
    window.chessref.game.take(frame);
    return document.getElementById("notice").textContent;
  }, forged);
  assert.match(local, /does not verify and is ignored/);
  await bob.page.waitForTimeout(500);
  for (const p of [alice, bob]) assert.equal(await plyOf(p), 1, `${p.name}'s board did not change`);
  await shot([bob], "forged");
  // Play goes on.
  await move(bob, alice, "e7e5");
  await mallory.close();
  await alice.context.close();
  await bob.context.close();
});

playTest("a page reloaded mid-game resumes from its own storage and the relay, without asking the wallet again", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  const id = await openGame(alice, bob);
  await move(alice, bob, "d2d4");
  await move(bob, alice, "d7d5");
  await move(alice, bob, "c2c4");
  await alice.page.reload();
  await alice.page.waitForSelector('body[data-ply="3"][data-synced]', { timeout: 30_000 });
  assert.equal(await alice.page.getAttribute("body", "data-colour"), "white");
  assert.deepEqual(await alice.page.evaluate(() => window.__walletConfirmations), [], "the session key came from storage");
  // A visitor without a wallet watches from the lobby.
  const carol = await browser.newContext();
  const watcher = watch(await carol.newPage(), "carol");
  await watcher.goto(`${site.url}/play.html?server=${encodeURIComponent(stack.server)}`);
  await watcher.waitForSelector('body[data-ready="true"]');
  await watcher.click(`#running-games tr[data-game="${id}"] button[data-action="watch"]`);
  await watcher.waitForSelector('body[data-phase="watching"][data-ply="3"]', { timeout: 30_000 });
  await move(bob, alice, "e7e6");
  await move(alice, bob, "b1c3");
  await watcher.waitForSelector('body[data-ply="5"]', { timeout: 30_000 });
  assert.equal(await watcher.getAttribute("#moves", "data-sans"), "d4 d5 c4 e6 Nc3");
  await carol.close();
  // The transcript, downloaded at any time, is what `chessref channel verify` reads.
  const [download] = await Promise.all([bob.page.waitForEvent("download"), bob.page.click("#download")]);
  const file = join(OUT, "transcript.json");
  await download.saveAs(file);
  const verified = execFileSync(chessrefBinary(), ["channel", "verify", file], { encoding: "utf8" });
  assert.match(verified, /valid: 5 signed plies/);
  assert.equal(await bob.page.getAttribute("#moves", "data-sans"), "d4 d5 c4 e6 Nc3");
  await shot([alice, bob], "reloaded");
  await alice.context.close();
  await bob.context.close();
});

playTest("a threefold repetition is claimed from the page: registered off-chain, claimed on-chain after the window", async () => {
  await onOwnChain(async () => {
    const alice = await person(ALICE, "alice");
    const bob = await person(BOB, "bob");
    // Registering on one's own move, the claimant's clock runs through the response window
    // (CHANNEL.md 7.3): 30 minutes outlast a 600 s window.
    const id = await openGame(alice, bob, { minutes: "30" });
    const shuffle = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"];
    for (const [i, uci] of shuffle.entries()) await (i % 2 ? move(bob, alice, uci) : move(alice, bob, uci));
    // The start position a third time, white to move: the WASM says the draw is claimable.
    await alice.page.waitForSelector("#claim-draw:not([hidden])", { timeout: 30_000 });
    await alice.page.click("#claim-draw");
    await alice.page.waitForSelector('body[data-phase="registered"]', { timeout: 30_000 });
    const channel = await referee.channelGame(id);
    assert.equal(Number(channel.registeredPly), 8);
    await advance(Number(channel.windowEnd) - Number((await provider(stack.rpc).getBlock("latest")).timestamp) + 1);
    await alice.page.waitForSelector('body[data-phase="onchain"]', { timeout: 30_000 });
    await alice.page.waitForSelector("#claim-draw:not([hidden])", { timeout: 30_000 });
    await alice.page.click("#claim-draw");
    await until(alice, 'body[data-phase="ended"]');
    const info = await referee.getGame(id);
    assert.deepEqual([Number(info.phase), Number(info.result), Number(info.reason)], [3, 3, 10], "a draw by threefold repetition");
    assert.match(await alice.page.innerText("#result"), /^Draw by threefold repetition\. Your stake of 1 ETH comes back to you\./);
    await alice.context.close();
    await bob.context.close();
  });
});

playTest("registering on one's own move with less time left than the response window asks first; refused, nothing is sent", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  // Five minutes against a 600 s window: registering on her own move would flag Alice.
  const id = await openGame(alice, bob, { minutes: "5", window: "600" });
  const shuffle = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"];
  for (const [i, uci] of shuffle.entries()) await (i % 2 ? move(bob, alice, uci) : move(alice, bob, uci));
  await alice.page.waitForSelector("#claim-draw:not([hidden])", { timeout: 30_000 });
  const asked = new Promise((resolve, reject) => {
    alice.page.once("dialog", async (dialog) => {
      resolve(dialog.message());
      await dialog.dismiss();
    });
    setTimeout(() => reject(new Error("the page registered without asking")), 10_000);
  });
  await alice.page.click("#claim-draw");
  assert.match(await asked, /runs the 600 s response window on your clock, and you have \d+ s left: you would lose on time/);
  await alice.page.waitForTimeout(1_000);
  assert.equal(await alice.page.getAttribute("body", "data-phase"), "offchain", "nothing registered");
  assert.equal(Number((await referee.channelGame(id)).registeredPly), 0, "no registration on chain");
  assert.equal(await alice.page.innerText("#error"), "", "a refusal is no error");
  await alice.context.close();
  await bob.context.close();
});

playTest("after a registration the same buttons act on-chain: a move is a transaction, a draw is offered and accepted", async () => {
  await onOwnChain(async () => {
    const alice = await person(ALICE, "alice", "&patience=600");
    const bob = await person(BOB, "bob", "&patience=600");
    const id = await openGame(alice, bob, { minutes: "30" });
    await move(alice, bob, "e2e4");
    await move(bob, alice, "c7c5");
    // Black registers (say, its opponent's page went quiet) from its own transcript.
    await bob.page.evaluate(() => window.chessref.game.channelCall("register", ["register"]));
    for (const p of [alice, bob]) await until(p, 'body[data-phase="registered"]');
    const channel = await referee.channelGame(id);
    await advance(Number(channel.windowEnd) - Number((await provider(stack.rpc).getBlock("latest")).timestamp) + 1);
    for (const p of [alice, bob]) await until(p, 'body[data-phase="onchain"]');
    // White's move is now a transaction from the board.
    await alice.page.click('#board [data-square="g1"]');
    await alice.page.click('#board [data-square="f3"]');
    await until(bob, 'body[data-ply="3"]');
    const [played] = await referee.queryFilter(referee.filters.MovePlayed(id), 0, "latest");
    assert.equal(Number(played.args.ply), 3);
    assert.deepEqual(await alice.page.evaluate(() => window.__walletConfirmations.slice(2)), ["eth_sendTransaction"]);
    await until(bob, "#offer-draw:not([hidden])");
    await bob.page.click("#offer-draw");
    await until(alice, "#accept-draw:not([hidden])");
    await alice.page.click("#accept-draw");
    for (const p of [alice, bob]) await until(p, 'body[data-phase="ended"]');
    const info = await referee.getGame(id);
    assert.deepEqual([Number(info.phase), Number(info.result), Number(info.reason)], [3, 3, 8], "a draw by agreement");
    await shot([alice, bob], "onchain-draw");
    await alice.context.close();
    await bob.context.close();
  });
});

/** The clock word's field of `bits` bits at bit `shift` (REFEREE.md section 3). */
const field = (clock, shift, bits) => Number((BigInt(clock) >> BigInt(shift)) & ((1n << BigInt(bits)) - 1n));

playTest("a registration on the player's move is answered from the page in its window: the direct reply, charged by the wall clock, shown by a block seconds after it was sent", async () => {
  // On a chain of its own: it mines a block ahead of the wall clock.
  await onOwnChain(directReply);
});

/** The direct-reply test's body, on its own chain. */
async function directReply() {
  const alice = await person(ALICE, "alice", "&patience=600");
  const bob = await person(BOB, "bob", "&patience=600");
  // Five minutes against a 600 s window: waiting for the window's end would flag Alice.
  const id = await openGame(alice, bob, { minutes: "5", window: "600" });
  await move(alice, bob, "e2e4");
  await move(bob, alice, "e7e5");
  // Bob takes the game on-chain on Alice's move, from his own transcript: e5 with Alice's
  // receipt, which starts her clock when she held it.
  await bob.page.waitForFunction(() => window.chessref.game.player.transcript().moves[1]?.receipt);
  await bob.page.evaluate(() => window.chessref.game.channelCall("register", ["register"]));
  const [first] = await referee.queryFilter(referee.filters.PositionRegistered(id), 0, "latest");
  assert.equal(Number(first.args.ply), 2);
  const windowEnd = field(first.args.clock, 0, 40);
  const deadline = field(first.args.clock, 208, 40);
  const e5 = await alice.page.evaluate(() => window.chessref.game.player.transcript().moves[1]);
  // The chain's deadline for Alice's reply: her time in e5 and the grace, from her receipt.
  assert.equal(deadline, Number(e5.receipt.seenAt) + Number(e5.whiteTime) + 15);
  assert.ok(deadline < windowEnd, `the window (to ${windowEnd}) outlasts Alice's clock (to ${deadline})`);
  // Alice's page says it and keeps her board: her move, by when her signed time runs out.
  await until(alice, `body[data-reply-deadline="${deadline}"]`);
  const moveBy = Number(await alice.page.getAttribute("body", "data-reply-by"));
  assert.equal(moveBy, deadline - 15);
  assert.equal(await alice.page.getAttribute("body", "data-phase"), "registered");
  const [byText, deadlineText, windowText] = await alice.page.evaluate(
    (ts) => ts.map((t) => new Date(t * 1000).toLocaleTimeString()), [moveBy, deadline, windowEnd]);
  const state = await alice.page.innerText("#state");
  assert.ok(state.startsWith("Your opponent took the game on-chain at ply 2: your move, by " + byText), state);
  assert.ok(state.includes(`the chain's deadline for your reply is ${deadlineText}`) && state.includes(`the chain decides after ${windowText}`), state);
  const clock = Number(await alice.page.getAttribute("#clock-bottom", "data-seconds"));
  const wall = Math.floor(Date.now() / 1000);
  assert.ok(Math.abs(clock - (moveBy - wall)) <= 2, `Alice's clock shows ${clock} s, ${moveBy - wall} s to go`);
  assert.ok(await alice.page.locator("#clock-bottom.running").count(), "her clock runs");
  await shot([alice], "reply-due");
  // Reloaded in the window, her page gets her seat back from its storage and the relay.
  await alice.page.reload();
  await until(alice, `body[data-reply-by="${moveBy}"][data-idle]`);
  // Alice moves in the window: her page registers it as the direct reply, by itself. The
  // node estimates its gas with the chain's clock a second behind the page's (as anvil's
  // may be) and a later block shows it, two seconds after her stamp: the reply then counts
  // from that block and its budget is capped by it, 13 gas more than the estimate. Sent
  // with the exact estimate, it ran out of gas, mined and reverted (the flake under load).
  const node = provider(stack.rpc);
  await node.send("evm_setAutomine", [false]);
  await node.send("evm_setNextBlockTimestamp", [Math.floor(Date.now() / 1000) - 1]);
  await alice.page.click('#board [data-square="g1"]');
  await alice.page.click('#board [data-square="f3"]');
  await until(alice, 'body[data-ply="3"]:not([data-reply-by])');
  for (let i = 0; (await node.send("eth_getBlockByNumber", ["pending", false])).transactions.length === 0; i++) {
    assert.ok(i < 300, "Alice's page sent no reply within 30 s");
    await alice.page.waitForTimeout(100);
  }
  const stamp = Number(await alice.page.evaluate(() => window.chessref.game.player.transcript().moves[2].timestamp));
  await node.send("evm_mine", [Math.max(stamp, Math.floor(Date.now() / 1000)) + 2]);
  await node.send("evm_setAutomine", [true]);
  let reply;
  for (let i = 0; !reply; i++) {
    [, reply] = await referee.queryFilter(referee.filters.PositionRegistered(id), 0, "latest");
    assert.ok(reply || i < 300, `no registration of Alice's reply within 30 s (${await alice.page.evaluate(() => [document.getElementById("error").textContent, document.getElementById("notice").textContent, document.getElementById("state").textContent].join(" / "))})`);
    if (!reply) await alice.page.waitForTimeout(100);
  }
  assert.equal(Number(reply.args.ply), 3, "the registered ply + 1");
  const tx = await node.getTransaction(reply.transactionHash);
  const at = (await node.getBlock(reply.blockNumber)).timestamp;
  assert.equal(tx.from, ALICE);
  assert.ok(tx.maxPriorityFeePerGas >= ethers.parseUnits("2", "gwei"), `tip ${tx.maxPriorityFeePerGas}`);
  assert.deepEqual(await alice.page.evaluate(() => window.__walletConfirmations), ["eth_sendTransaction"], "no click but the move");
  assert.ok(at <= deadline && at < windowEnd, `shown at ${at}: by the deadline ${deadline}, in the window to ${windowEnd}`);
  // The budgets the chain set, by the wall clock: Alice charged from her receipt of e5 to
  // the block that showed her reply (her signed time never less), Bob's clock running from
  // that block, to the second.
  const nf3 = await alice.page.evaluate(() => window.chessref.game.player.transcript().moves[2]);
  const increment = 2;
  const white = field(reply.args.clock, 40, 32);
  assert.equal(white, Number(e5.whiteTime) + 15 + increment - (at - Number(e5.receipt.seenAt)));
  assert.ok(Number(nf3.whiteTime) + 15 >= white, `signed ${nf3.whiteTime} s, charged to ${white - 15} s`);
  assert.equal(field(reply.args.clock, 208, 40), at + Number(nf3.blackTime) + 15, "Bob's deadline from the block");
  const windowEnd2 = field(reply.args.clock, 0, 40);
  assert.equal(windowEnd2, at + 600);
  assert.equal(field(reply.args.clock, 72, 32), Math.max(0, Number(nf3.blackTime) + 15 - (windowEnd2 - at)));
  // Bob's page takes the reply from the chain (the relay is closed): his move, by his deadline.
  await until(bob, `body[data-ply="3"][data-reply-deadline="${at + Number(nf3.blackTime) + 15}"]`);
  assert.match(await bob.page.innerText("#state"), /^Your opponent took the game on-chain at ply 3: your move, by /);
  assert.equal(await alice.page.innerText("#error"), "");
  await shot([alice, bob], "direct-reply");
  await alice.context.close();
  await bob.context.close();
}

playTest("a stale registration is overtaken by the page at once with the later pair it holds", async () => {
  const alice = await person(ALICE, "alice", "&patience=600");
  const bob = await person(BOB, "bob", "&patience=600");
  const id = await openGame(alice, bob, { minutes: "30" });
  for (const [i, uci] of ["e2e4", "e7e5", "g1f3", "b8c6"].entries()) await (i % 2 ? move(bob, alice, uci) : move(alice, bob, uci));
  await alice.page.waitForFunction(() => window.chessref.game.player.transcript().moves[3]?.receipt);
  // Bob registers the pair of ply 2 from a transcript cut short, his page closed.
  const transcript = await bob.page.evaluate(() => window.chessref.game.player.transcript());
  await bob.context.close();
  transcript.moves = transcript.moves.slice(0, 2);
  const stale = join(OUT, "stale-bob.json");
  writeFileSync(stale, JSON.stringify(transcript));
  const asked = (await alice.page.evaluate(() => window.__walletConfirmations)).length;
  execFileSync(chessrefBinary(), ["channel", "dispute", stale, "--rpc", stack.rpc], { env: { ...process.env, CHESSREF_PRIVATE_KEY: BOB_KEY }, encoding: "utf8" });
  const [registered] = await referee.queryFilter(referee.filters.PositionRegistered(id), 0, "latest");
  assert.equal(Number(registered.args.ply), 2);
  // Alice's page overtakes it by itself with the pair of plies 3 and 4 and her receipt.
  await until(alice, 'body[data-phase="registered"][data-ply="4"]');
  let overtake;
  for (let i = 0; !overtake; i++) {
    [, overtake] = await referee.queryFilter(referee.filters.PositionRegistered(id), 0, "latest");
    assert.ok(overtake || i < 300, "no overtake within 30 s");
    if (!overtake) await alice.page.waitForTimeout(100);
  }
  assert.equal(Number(overtake.args.ply), 4);
  const tx = await provider(stack.rpc).getTransaction(overtake.transactionHash);
  assert.equal(tx.from, ALICE);
  assert.ok(tx.maxPriorityFeePerGas >= ethers.parseUnits("2", "gwei"), `tip ${tx.maxPriorityFeePerGas}`);
  assert.ok(overtake.blockNumber > registered.blockNumber);
  assert.deepEqual((await alice.page.evaluate(() => window.__walletConfirmations)).slice(asked), ["eth_sendTransaction"]);
  await until(alice, "#state:has-text(\"You answered a stale registration: now registered at ply 4: your move\")");
  assert.equal(await alice.page.innerText("#error"), "");
  await alice.context.close();
});

playTest("a stale registration answered by the watchtower is shown to the player who was away", async () => {
  await onOwnChain(async () => {
    const alice = await person(ALICE, "alice");
    const bob = await person(BOB, "bob");
    const id = await openGame(alice, bob, { minutes: "30" });
    for (const [i, uci] of ["e2e4", "e7e5", "g1f3", "b8c6"].entries()) await (i % 2 ? move(bob, alice, uci) : move(alice, bob, uci));
    // Bob goes away; Alice registers the pair of ply 2 from a transcript cut short, with her
    // page closed (open, it would overtake her own stale registration at once).
    const transcript = await alice.page.evaluate(() => window.chessref.game.player.transcript());
    await bob.context.close();
    await alice.context.close();
    transcript.moves = transcript.moves.slice(0, 2);
    const stale = join(OUT, "stale.json");
    writeFileSync(stale, JSON.stringify(transcript));
    const key = { CHESSREF_PRIVATE_KEY: ALICE_KEY };
    const bin = chessrefBinary();
    execFileSync(bin, ["channel", "dispute", stale, "--rpc", stack.rpc], { env: { ...process.env, ...key }, encoding: "utf8" });
    assert.equal(Number((await referee.channelGame(id)).registeredPly), 2);
    // A watchtower (anvil's account 5) answers from the relay's database.
    const tower = execFileSync(bin, ["watch", "--rpc", stack.rpc, "--db", stack.db, "--once"], {
      env: { ...process.env, CHESSREF_PRIVATE_KEY: TOWER_KEY },
      encoding: "utf8",
    });
    assert.match(tower, /ChessChannel\.register/);
    assert.equal(Number((await referee.channelGame(id)).registeredPly), 4);
    // Bob comes back (a fresh browser profile) and sees what happened while he was away.
    const back = await person(BOB, "bob");
    await back.page.click(`#running-games tr[data-game="${id}"] button[data-action="play"]`);
    await until(back, 'body[data-phase="registered"]');
    assert.match(await back.page.innerText("#state"), /a stale registration was answered: now registered at ply 4/);
    await shot([back], "overtaken");
    await alice.context.close();
    await back.context.close();
  });
});

playTest("issue 28 finding 1: no game panel on a first visit, none after Lobby, and no game button without a game", async () => {
  const alice = await person(ALICE, "alice");
  for (const id of ["game", "board", "offer-draw", "resign"]) assert.ok(await alice.page.locator(`#${id}`).isHidden(), `#${id} hidden on a first visit`);
  await createFromForm(alice);
  await until(alice, 'body[data-phase="open"]');
  assert.ok(await alice.page.locator("#board").isVisible(), "the game's board");
  await alice.page.click("#back");
  await until(alice, "#lobby:not([hidden])");
  for (const id of ["game", "board", "offer-draw", "resign"]) assert.ok(await alice.page.locator(`#${id}`).isHidden(), `#${id} hidden after Lobby`);
  // What a stale click or a script would do with the hidden buttons: nothing, and no error.
  await alice.page.evaluate(() => {
    window.confirm = () => true;
    for (const id of ["offer-draw", "accept-draw", "decline-draw", "resign", "settle", "withdraw", "download", "cancel", "rematch", "accept-rematch", "decline-rematch"]) document.getElementById(id).click();
  });
  await alice.page.waitForTimeout(500);
  assert.equal(await alice.page.innerText("#error"), "");
});

playTest("issue 28 finding 2: the lobby refreshes by itself: a game created after the page opened appears without a click", async () => {
  const bob = await person(BOB, "bob");
  const alice = await person(ALICE, "alice");
  const id = await createFromForm(alice);
  const started = Date.now();
  // Bob's page is left alone: no click, no reload.
  await until(bob, `#open-games tr[data-game="${id}"] button[data-action="join"]`);
  console.log(`a new game in the other page's lobby after ${Date.now() - started} ms`);
  await bob.page.click(`#open-games tr[data-game="${id}"] button[data-action="join"]`);
  for (const p of [alice, bob]) await until(p, "body[data-synced]");
  assert.equal(await bob.page.getAttribute("body", "data-colour"), "black");
});

playTest("issue 28 finding 3: waiting for an opponent, the creator can only cancel, and the stake comes back to the wallet", async () => {
  // On a chain of its own: the wallet's balance moves by this game alone (no credit won
  // in another test is withdrawn with the stake).
  await onOwnChain(async () => {
    const alice = await person(ALICE, "alice");
    const node = provider(stack.rpc);
    const id = await createFromForm(alice);
    await until(alice, 'body[data-phase="open"]');
    assert.ok(await alice.page.locator("#cancel").isVisible(), "Cancel offered");
    for (const b of ["offer-draw", "resign", "accept-draw", "claim-draw", "register", "settle", "withdraw"]) {
      assert.ok(await alice.page.locator(`#${b}`).isHidden(), `#${b} not offered while waiting`);
    }
    assert.match(await alice.page.innerText("#state"), /^Waiting for an opponent to join\. Your stake of 1 ETH is held by the referee/);
    const from = await node.getBlockNumber();
    const before = await node.getBalance(ALICE);
    await alice.page.click("#cancel");
    await until(alice, 'body[data-phase="cancelled"] #withdraw:not([hidden])');
    assert.match(await alice.page.innerText("#state"), /^Game cancelled\. Your stake of 1 ETH is credited to you on the referee/);
    assert.equal(Number((await referee.getGame(id)).phase), 4, "cancelled on chain");
    assert.equal(await referee.credits(ALICE, ethers.ZeroAddress), STAKE);
    await alice.page.click("#withdraw");
    await until(alice, '#state:has-text("is back in your wallet")');
    assert.ok(await alice.page.locator("#withdraw").isHidden(), "nothing more to withdraw");
    assert.match(await alice.page.innerText("#state"), /^Game cancelled\. 1 ETH is back in your wallet\./);
    assert.equal(await referee.credits(ALICE, ethers.ZeroAddress), 0n);
    const fees = await feesPaid(ALICE, from);
    const delta = (await node.getBalance(ALICE)) - before;
    assert.ok(fees > 0n, "cancel and withdraw paid gas");
    assert.equal(delta, STAKE - fees, `balance delta ${ethers.formatEther(delta)} ETH = stake - ${ethers.formatEther(fees)} ETH of gas`);
    assert.deepEqual((await alice.page.evaluate(() => window.__walletConfirmations)).slice(-2), ["eth_sendTransaction", "eth_sendTransaction"]);
    // Reloaded, the page opens on the lobby, not on the cancelled game, and the lobby does
    // not list it.
    await alice.page.reload();
    await until(alice, "body[data-connected] #lobby:not([hidden])");
    assert.ok(await alice.page.locator("#game").isHidden(), "no game panel");
    await alice.page.waitForSelector(`#open-games tr[data-game="${id}"]`, { state: "detached", timeout: 30_000 });
    assert.equal(await alice.page.innerText("#error"), "");
  });
});
playTest("issue 28 finding 4: a replayed old draw offer is silent after a reload, and an illegal drop reads as a sentence", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  await openGame(alice, bob);
  await move(alice, bob, "e2e4");
  await move(bob, alice, "e7e5");
  await until(alice, "#offer-draw:not([hidden])");
  await alice.page.click("#offer-draw");
  await until(bob, "#accept-draw:not([hidden])");
  await move(alice, bob, "g1f3");
  await move(bob, alice, "b8c6");
  // The bishop's way to h3 crosses its own pawn on g2: refused before anything is signed.
  await alice.page.waitForSelector('body[data-ply="4"][data-idle]');
  await alice.page.click('#board [data-square="f1"]');
  await alice.page.click('#board [data-square="h3"]');
  assert.equal(await alice.page.getAttribute("#verdict", "data-code"), "7");
  assert.match(await alice.page.innerText("#verdict"), /^That bishop's path is blocked\./);
  assert.match(await alice.page.textContent("#verdict details"), /IllegalMove\(7\) PATH_BLOCKED/);
  assert.equal(await plyOf(alice), 4);
  // Both reload: the relay replays its backlog, the draw offer of ply 2 among it.
  for (const p of [alice, bob]) await p.page.reload();
  for (const p of [alice, bob]) await until(p, 'body[data-ply="4"][data-synced]');
  await alice.page.waitForTimeout(1_000);
  for (const p of [alice, bob]) {
    assert.equal(await p.page.innerText("#error"), "", `${p.name}: no error`);
    assert.doesNotMatch(await p.page.innerText("#notice"), /verify|ignored|0x/, `${p.name}: no alarm`);
    assert.ok(await p.page.locator("#accept-draw").isHidden(), `${p.name}: the old offer is not offered`);
  }
  await move(alice, bob, "f1c4");
});

playTest("issue 28 finding 5: a draw offer in words: the offerer sees it made and learns the answer, the other reads a sentence with Accept and Decline", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  const id = await openGame(alice, bob);
  await move(alice, bob, "e2e4");
  // Alice offers on Bob's move: she sees it was made, and no second Offer button.
  await alice.page.click("#offer-draw");
  await until(alice, '#draw-note:has-text("You offered a draw: your opponent can accept it until the next move.")');
  assert.ok(await alice.page.locator("#offer-draw").isHidden(), "one offer at a time");
  // Reloaded, Alice's page still knows her offer stands.
  await alice.page.reload();
  await until(alice, 'body[data-ply="1"][data-synced]');
  await until(alice, '#draw-note:has-text("You offered a draw")');
  assert.ok(await alice.page.locator("#offer-draw").isHidden(), "one offer at a time, after a reload too");
  await until(bob, '#draw-note:has-text("Your opponent offers a draw.")');
  assert.ok(await bob.page.locator("#accept-draw").isVisible() && await bob.page.locator("#decline-draw").isVisible());
  // Bob declines, then plays on: the offer lapses, and Alice learns it was declined.
  await bob.page.click("#decline-draw");
  assert.equal(await bob.page.innerText("#draw-note"), "You declined the draw offer.");
  assert.ok(await bob.page.locator("#accept-draw").isHidden());
  await move(bob, alice, "e7e5");
  await until(alice, '#draw-note:has-text("Your opponent declined your draw offer and played on.")');
  // Bob offers on Alice's move; she plays instead, and Bob learns it.
  await bob.page.click("#offer-draw");
  await until(alice, '#draw-note:has-text("Your opponent offers a draw.")');
  await move(alice, bob, "g1f3");
  await until(bob, '#draw-note:has-text("Your opponent declined your draw offer and played on.")');
  assert.ok(await alice.page.locator("#accept-draw").isHidden(), "the lapsed offer is no longer offered");
  assert.equal(await alice.page.innerText("#draw-note"), "");
  // Alice offers again; Bob accepts: a draw by agreement, each stake back, Settle for both.
  await move(bob, alice, "b8c6");
  await alice.page.click("#offer-draw");
  await until(bob, "#accept-draw:not([hidden])");
  await bob.page.click("#accept-draw");
  for (const p of [alice, bob]) {
    await until(p, '#result[data-outcome="drawn"]');
    assert.equal(await p.page.innerText("#result"), "Draw by agreement. Your stake of 1 ETH comes back to you.");
    assert.equal(await p.page.innerText("#settle"), "Settle: collect 1 ETH", `${p.name}: Settle offered, saying how much`);
  }
  const credit = await referee.credits(BOB, ethers.ZeroAddress);
  await bob.page.click("#settle");
  await until(bob, "#withdraw:not([hidden])");
  const info = await referee.getGame(id);
  assert.deepEqual([Number(info.phase), Number(info.result), Number(info.reason)], [3, 3, 8], "a draw by agreement on chain");
  assert.equal((await referee.credits(BOB, ethers.ZeroAddress)) - credit, STAKE, "Bob's stake back");
  await until(alice, '#state:has-text("Settled on-chain")');
  assert.ok(await alice.page.locator("#settle").isHidden(), "settled once");
});

/** Fails unless `p`'s page is no wider than its viewport (no horizontal scroll). */
/** Queues `uci` on `p`'s board during the opponent's turn (two clicks): the page shows it. */
async function premove(p, uci) {
  // As moveTo: a click while the pieces still move (a premove just played on arrival) is
  // lost, and cm-chessboard then warns of the empty square the second click lands on.
  await p.page.waitForSelector("body[data-idle]");
  await p.page.click(`#board [data-square="${uci.slice(0, 2)}"]`);
  await p.page.click(`#board [data-square="${uci.slice(2, 4)}"]`);
  await until(p, `body[data-premove="${uci}"]`);
}

/** `mover` plays `uci` by clicks and both pages reach `ply` (the other's premove may
 * have been played on arrival, so its page may never show the ply between). */
async function moveTo(mover, other, uci, ply) {
  await mover.page.waitForSelector(`body[data-ply="${await plyOf(mover)}"][data-idle]`);
  await mover.page.click(`#board [data-square="${uci.slice(0, 2)}"]`);
  await mover.page.click(`#board [data-square="${uci.slice(2, 4)}"]`);
  for (const p of [mover, other]) await until(p, `body[data-ply="${ply}"]`);
}

playTest("issue 28: a premove played on arrival, one dropped as illegal, cancelled by Escape or its piece; material after a capture; the capture's sound", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  await openGame(alice, bob);
  await bob.page.waitForSelector('body[data-ply="0"][data-idle]');
  // Cancelled by Escape, by a right-click on the board, and by a click on the queued piece.
  await premove(bob, "g8f6");
  await bob.page.keyboard.press("Escape");
  await bob.page.waitForSelector("body:not([data-premove])");
  await premove(bob, "g8f6");
  await bob.page.click("#board", { button: "right" });
  await bob.page.waitForSelector("body:not([data-premove])");
  await premove(bob, "g8f6");
  await bob.page.click('#board [data-square="g8"]');
  await bob.page.waitForSelector("body:not([data-premove])");
  // Queued during white's first move, played the moment it arrives, signed by the seat.
  await premove(bob, "e7e5");
  assert.equal(await bob.page.locator("#board .marker-premove").count(), 2, "its two squares are marked");
  await moveTo(alice, bob, "e2e4", 2);
  assert.equal(await bob.page.getAttribute("#moves", "data-sans"), "e4 e5");
  assert.equal(await alice.page.getAttribute("#moves", "data-sans"), "e4 e5", "signed and relayed as any move");
  await bob.page.waitForSelector("body:not([data-premove])");
  // exd4 queued for d4: played, a capture; the material beside the clocks, on both pages.
  await premove(bob, "e5d4");
  await moveTo(alice, bob, "d2d4", 4);
  assert.equal(await alice.page.getAttribute("#moves", "data-sans"), "e4 e5 d4 exd4");
  // Each page's own clock at the bottom: black's lead above white's board, below black's.
  assert.equal(await bob.page.innerText("#clock-bottom .material"), "♙ +1");
  assert.equal(await bob.page.innerText("#clock-top .material"), "");
  assert.equal(await alice.page.innerText("#clock-top .material"), "♙ +1");
  await alice.page.waitForSelector('body[data-sound="capture"]');
  // dxc3 queued for a piece on c3 that never comes (Nf3): dropped with a sentence, and
  // black still to move with nothing signed.
  await premove(bob, "d4c3");
  await moveTo(alice, bob, "g1f3", 5);
  await bob.page.waitForSelector("body:not([data-premove])");
  assert.match(await bob.page.innerText("#verdict"), /^Your premove d4–c3 was not legal after your opponent's move/);
  await bob.page.waitForTimeout(300);
  assert.equal(await plyOf(bob), 5);
  assert.equal(await plyOf(alice), 5);
  await move(bob, alice, "b8c6");
  assert.equal(await alice.page.innerText("#clock-bottom .material"), "", "white is a pawn down: no lead to show");
});

playTest("issue 28: the tab title says 'Your move' or the clock while the page is hidden, and the mute is remembered across a reload", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  await openGame(alice, bob);
  await move(alice, bob, "e2e4");
  // document.visibilityState as a browser in the background reports it.
  const hide = (p, hidden) => p.page.evaluate((h) => {
    if (h) Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    else delete (/** @type {any} */ (document)).visibilityState;
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
  for (const p of [alice, bob]) assert.equal(await p.page.title(), "chessref — a staked game off-chain", `${p.name}: seen, the page's title`);
  await hide(bob, true);
  await hide(alice, true);
  await bob.page.waitForFunction(() => /^Your move · [0-9]:[0-5][0-9]$/.test(document.title));
  await alice.page.waitForFunction(() => /^[0-9]:[0-5][0-9] · waiting · chessref$/.test(document.title));
  await hide(bob, false);
  await bob.page.waitForFunction(() => document.title === "chessref — a staked game off-chain");
  await hide(alice, false);
  // The mute: pressed, remembered after a reload.
  assert.equal(await alice.page.getAttribute("#mute", "aria-pressed"), "false", "sounds on by default");
  await alice.page.click("#mute");
  assert.equal(await alice.page.getAttribute("#mute", "aria-pressed"), "true");
  await alice.page.reload();
  await until(alice, 'body[data-ply="1"][data-synced]');
  assert.equal(await alice.page.getAttribute("#mute", "aria-pressed"), "true", "still muted after the reload");
  await alice.page.click("#mute");
  assert.equal(await alice.page.getAttribute("#mute", "aria-pressed"), "false");
});

playTest("issue 28: low time in a one-minute game: tenths under 10 s, the red clock under 6 s (a tenth of it), and its sound once", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  await openGame(alice, bob, { minutes: "1" });
  await move(alice, bob, "e2e4");
  // Black thinks: Bob's page's time jumps ahead (Playwright's clock), his clock with it.
  await bob.page.clock.install();
  await bob.page.clock.fastForward(50_000);
  await bob.page.waitForFunction(() => /^0:0[6-9]\.\d$/.test(document.querySelector("#clock-bottom .time").textContent));
  assert.equal(await bob.page.locator("#clock-bottom.low").count(), 0, "7–10 s of a one-minute game is not low time yet");
  assert.notEqual(await bob.page.getAttribute("body", "data-sound"), "lowTime");
  await bob.page.clock.fastForward(5_000);
  await until(bob, "#clock-bottom.low");
  assert.match(await bob.page.innerText("#clock-bottom .time"), /^0:0[0-5]\.\d$/);
  await until(bob, 'body[data-sound="lowTime"]');
  assert.equal(await bob.page.locator("#clock-top.low").count(), 0, "white's clock is not low");
  assert.equal(await alice.page.locator("#clock-top.low").count(), 0, "nor is black's on white's page, whose time did not jump");
});

async function assertFits(p, where) {
  const [doc, view] = await p.page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(doc <= view, `${p.name} ${where}: the page is ${doc} px wide in a ${view} px viewport`);
}

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

playTest("issue 28 finding 7: on a phone one column without horizontal scroll, the opponent's clock above the board, one's own below, Resign in thumb reach", async () => {
  const alice = await person(ALICE, "alice", "", PHONE);
  const bob = await person(BOB, "bob", "", DESKTOP);
  await assertFits(alice, "lobby");
  await alice.page.screenshot({ path: `${OUT}phone-lobby.png` });
  const id = await openGame(alice, bob);
  await assertFits(alice, "game");
  for (const [i, uci] of ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"].entries()) await (i % 2 ? move(bob, alice, uci) : move(alice, bob, uci));
  const box = async (p, sel) => p.page.locator(sel).boundingBox();
  for (const [p, mine, theirs] of [[alice, "white", "black"], [bob, "black", "white"]]) {
    const [top, board, bottom] = [await box(p, "#clock-top"), await box(p, "#board"), await box(p, "#clock-bottom")];
    assert.ok(top.y + top.height <= board.y + 1 && bottom.y >= board.y + board.height - 1, `${p.name}: clocks above and below the board`);
    assert.equal(await p.page.innerText("#clock-top .who"), theirs, `${p.name}: the opponent's clock on top`);
    assert.equal(await p.page.innerText("#clock-bottom .who"), mine, `${p.name}: one's own below`);
  }
  // The phone: one column (the board as wide as the screen, the details under it), and
  // Resign and Offer draw in the lower half of the screen without scrolling.
  const board = await box(alice, "#board");
  assert.ok(board.width >= PHONE.width - 40, `the board is ${board.width} px wide`);
  assert.ok((await box(alice, "aside")).y >= board.y + board.height, "the details under the board");
  for (const button of ["#resign", "#offer-draw"]) {
    const b = await box(alice, button);
    assert.ok(b.y >= PHONE.height / 2 && b.y + b.height <= PHONE.height, `${button} at ${b.y}..${b.y + b.height}`);
    assert.ok(b.height >= 40, `${button} is ${b.height} px high: big enough for a thumb`);
  }
  await assertFits(alice, "game after six moves");
  await alice.page.waitForTimeout(400);
  await alice.page.screenshot({ path: `${OUT}phone.png` });
  await bob.page.waitForTimeout(400);
  await bob.page.screenshot({ path: `${OUT}desktop.png` });
  // A real click on Resign (no board over it: Playwright fails a click another element takes).
  alice.page.once("dialog", (d) => d.accept());
  await alice.page.click("#resign", { timeout: 5_000 });
  await until(bob, '#result[data-outcome="won"]');
  assert.match(await bob.page.innerText("#result"), /^You won by resignation\. You win 1 ETH/);
  await until(alice, '#result[data-outcome="lost"]');
  assert.equal(await alice.page.innerText("#result"), "You lost by resignation. You lose your stake of 1 ETH.");
  await assertFits(alice, "the ended game");
  await alice.page.screenshot({ path: `${OUT}phone-ended.png` });
  // A visitor without a wallet watching from the lobby reads the same ending.
  const carol = await browser.newContext({ viewport: PHONE });
  contexts.add(carol);
  const watcher = watch(await carol.newPage(), "carol");
  await watcher.goto(`${site.url}/play.html?server=${encodeURIComponent(stack.server)}`);
  await watcher.waitForSelector('body[data-ready="true"]');
  await watcher.click(`#running-games tr[data-game="${id}"] button[data-action="watch"]`);
  await watcher.waitForSelector('body[data-phase="watching"] #result:not([hidden])', { timeout: 30_000 });
  assert.equal(await watcher.innerText("#result"), "Black won by resignation. 2 ETH to black.");
});

playTest("issue 28 finding 8: words, not jargon: short addresses, 5+2, the answer time explained, no Connect once connected, illegal moves as sentences", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  for (const p of [alice, bob]) {
    assert.ok(await p.page.locator("#connect").isHidden(), `${p.name}: no Connect once connected`);
    assert.ok(await p.page.locator("#wallets").isHidden(), `${p.name}: no wallet choice once connected`);
  }
  assert.match(await alice.page.innerText("#account"), /0x7099…79C8$/);
  assert.match(await alice.page.innerText('label:has(input[name="window"])'), /how long the other player has to answer if you take the game on-chain/);
  await alice.page.fill('#create input[name="minutes"]', "5");
  await alice.page.fill('#create input[name="increment"]', "2");
  const id = await createFromForm(alice);
  const row = `#open-games tr[data-game="${id}"]`;
  await until(bob, row);
  const cells = await bob.page.locator(`${row} td`).allInnerTexts();
  assert.match(cells[2], /^(unrated|\d+ ±\d+)$/);
  assert.deepEqual([...cells.slice(0, 2), ...cells.slice(3, 6)], [`#${id}`, "0x7099…79C8", "1 ETH", "5+2", "10 min"]);
  await bob.page.click(`${row} button[data-action="join"]`);
  for (const p of [alice, bob]) await until(p, "body[data-synced]");
  assert.equal(await alice.page.innerText("#you"), "white, 0x7099…79C8");
  assert.equal(await alice.page.innerText("#opponent"), "0x3C44…93BC");
  assert.equal(await bob.page.innerText("#time-control"), "5+2");
  await move(alice, bob, "e2e4");
  // An illegal drop reads as a sentence; the contract's code only in a closed detail.
  await bob.page.waitForSelector('body[data-ply="1"][data-idle]');
  await bob.page.click('#board [data-square="g8"]');
  await bob.page.click('#board [data-square="g6"]');
  assert.match(await bob.page.innerText("#verdict"), /^A knight cannot move that way\.\s+details$/);
  assert.match(await bob.page.textContent("#verdict details code"), /IllegalMove\(6\) BAD_GEOMETRY/);
  // Nowhere on either page a full address or a hash a player would have to read.
  for (const p of [alice, bob]) {
    const text = await p.page.innerText("body");
    assert.doesNotMatch(text, /0x[0-9a-fA-F]{40}/, `${p.name}: a full address on the page`);
    assert.doesNotMatch(text, /IllegalMove|BAD_GEOMETRY|revert/, `${p.name}: a contract code on the page`);
  }
  await bob.page.click("#back");
  await until(bob, `#running-games tr[data-game="${id}"]`);
  assert.deepEqual((await bob.page.locator(`#running-games tr[data-game="${id}"] td`).allInnerTexts()).slice(1, 3), ["0x7099…79C8", "0x3C44…93BC"]);
});

/** Presses Tab on `p`'s page until `selector` has the focus (at most `max` presses);
 * every element the focus lands on must show it (an outline). */
async function tabTo(p, selector, max = 150) {
  for (let i = 0; i < max; i++) {
    const at = await p.page.evaluate((s) => {
      const el = document.activeElement;
      if (!el || el === document.body) return { matches: false };
      const style = getComputedStyle(el);
      const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className}` : ""}`;
      return { matches: el.matches(s), name, outline: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2 };
    }, selector);
    if (at.name) assert.ok(at.outline, `${p.name}: ${at.name} has the focus but shows no outline`);
    if (at.matches) return;
    await p.page.keyboard.press("Tab");
  }
  throw new Error(`${p.name}: no ${selector} within ${max} Tab presses`);
}

/** axe-core's audit of `p`'s page as it is: fails on any serious or critical violation,
 * naming each; returns the lesser ones. */
async function audit(p, where) {
  if (!(await p.page.evaluate(() => "axe" in window))) await p.page.addScriptTag({ path: AXE });
  const violations = await p.page.evaluate(async () => {
    const found = await window.axe.run(document, { resultTypes: ["violations"] });
    return found.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" ")) }));
  });
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(serious, [], `${p.name}, ${where}: serious or critical accessibility violations`);
  return violations;
}

/** A person whose page is used by the keyboard alone: opened, audited in the lobby, and
 * connected by Tab and Enter. */
async function keyboardPerson(account, name) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  contexts.add(context);
  await context.addInitScript({ content: walletScript(stack.rpc, account) });
  const page = watch(await context.newPage(), name);
  await page.goto(`${site.url}/play.html?server=${encodeURIComponent(stack.server)}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  const p = { context, page, name, account };
  await audit(p, "the lobby before connecting");
  await tabTo(p, "#connect");
  await page.keyboard.press("Enter");
  await page.waitForSelector("body[data-connected]", { timeout: 30_000 });
  return p;
}

/** `p` (white, its board focused on `cursor`'s square) plays `uci` on the board by arrow
 * keys and Enter; returns the square the board's keyboard focus is left on. */
async function arrowMove(p, cursor, uci) {
  await tabTo(p, "#board svg");
  let at = cursor;
  for (const target of [uci.slice(0, 2), uci.slice(2, 4)]) {
    const files = target.charCodeAt(0) - at.charCodeAt(0);
    const ranks = target.charCodeAt(1) - at.charCodeAt(1);
    for (let i = 0; i < Math.abs(files); i++) await p.page.keyboard.press(files > 0 ? "ArrowRight" : "ArrowLeft");
    for (let i = 0; i < Math.abs(ranks); i++) await p.page.keyboard.press(ranks > 0 ? "ArrowUp" : "ArrowDown");
    await p.page.keyboard.press("Enter");
    at = target;
  }
  return at;
}

/** `p` plays `uci` by typing it into the board's move form (Tab to it, the two squares,
 * Enter). */
async function typedMove(p, uci) {
  await tabTo(p, ".cm-chessboard-accessibility .input-from");
  await p.page.keyboard.type(uci.slice(0, 2));
  await p.page.keyboard.press("Tab");
  await p.page.keyboard.type(uci.slice(2, 4));
  await p.page.keyboard.press("Enter");
}

playTest("issue 28 finding 9: a whole game by the keyboard alone (the board's arrow keys, the typed move form), visible focus, and no serious accessibility violation in the lobby, the game and its end", async () => {
  const alice = await keyboardPerson(ALICE, "alice");
  const bob = await keyboardPerson(BOB, "bob");
  await audit(bob, "the lobby");
  // Alice creates a game from the form: Tab to the stake, type it, Enter.
  await tabTo(alice, '#create input[name="stake"]');
  await alice.page.keyboard.press("Control+A");
  await alice.page.keyboard.type("1");
  await alice.page.keyboard.press("Enter");
  await until(alice, "body[data-game]");
  const id = await alice.page.getAttribute("body", "data-game");
  await audit(alice, "waiting for an opponent");
  // Bob joins from his lobby by Tab and Enter.
  const join = `#open-games tr[data-game="${id}"] button[data-action="join"]`;
  await until(bob, join);
  await tabTo(bob, join);
  await bob.page.keyboard.press("Enter");
  for (const p of [alice, bob]) await until(p, "body[data-synced]");
  // The board is labelled for a screen reader, and can be read as a table.
  assert.match(await alice.page.getAttribute("#board svg", "aria-label"), /^Chessboard: arrow keys/);
  assert.equal(await alice.page.locator(".cm-chessboard-accessibility table tr").count(), 9);
  // Fool's mate: Alice (white) by the board's arrow keys, Bob (black) by the typed form.
  let cursor = "a1"; // where the board's keyboard focus starts
  for (const [i, uci] of ["f2f3", "e7e5", "g2g4", "d8h4"].entries()) {
    const [mover, other] = i % 2 ? [bob, alice] : [alice, bob];
    await mover.page.waitForSelector(`body[data-ply="${i}"][data-idle]`, { timeout: 30_000 });
    if (i % 2) await typedMove(mover, uci);
    else cursor = await arrowMove(mover, cursor, uci);
    for (const p of [other, mover]) await until(p, `body[data-ply="${i + 1}"]`);
    if (i === 1) {
      await audit(alice, "during the game");
      await audit(bob, "during the game");
    }
  }
  for (const p of [alice, bob]) await until(p, "#result:not([hidden])");
  assert.match(await alice.page.innerText("#result"), /^You lost by checkmate\./);
  assert.match(await bob.page.innerText("#result"), /^You won by checkmate\./);
  await audit(alice, "after the game's end");
  await audit(bob, "after the game's end");
  await shot([alice, bob], "keyboard");
});

/** The FEN after `sans` from the standard start, by the WASM package (Node build). */
function fenAfter(sans) {
  const { Chess } = createRequire(import.meta.url)("../../../crates/chessref-wasm/pkg/node/chessref_wasm.js");
  const chess = new Chess();
  for (const san of sans) chess.play(san);
  return chess.fen();
}

/** The vertical centre of `square` on `p`'s board. */
async function rowOf(p, square) {
  const box = await p.page.locator(`#board rect[data-square="${square}"]`).boundingBox();
  return box.y + box.height / 2;
}

/** The PGN `p`'s page downloads from its Download PGN button. */
async function downloadPgn(p) {
  const [download] = await Promise.all([p.page.waitForEvent("download"), p.page.click("#download-pgn")]);
  assert.match(download.suggestedFilename(), /^chessref-game-\d+\.pgn$/);
  return readFileSync(await download.path(), "utf8");
}

playTest("the move list shows earlier positions (a click, the arrow keys) without changing the game; Flip turns a spectator's board; the PGN downloads beside the transcript", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  const id = await openGame(alice, bob);
  await move(alice, bob, "f2f3");
  await move(bob, alice, "e7e5");
  // Bob looks at the position after 1. f3 while Alice plays on.
  await bob.page.click('#moves button[data-ply="1"]');
  await until(bob, 'body[data-browsing="1"]');
  assert.equal(await bob.page.getAttribute("body", "data-fen"), fenAfter(["f3"]));
  assert.match(await bob.page.innerText("#browsing"), /^Showing an earlier position, after move 1 \(ply 1 of 2\)\./);
  assert.equal(await bob.page.getAttribute('#moves button[data-ply="1"]', "aria-current"), "step");
  await move(alice, bob, "g2g4");
  assert.equal(await bob.page.getAttribute("body", "data-browsing"), "1", "still the earlier position");
  assert.equal(await bob.page.getAttribute("body", "data-fen"), fenAfter(["f3"]));
  // The arrow keys step (the focus is on the move list, not the board), Home and End.
  const steps = [["ArrowRight", 2, ["f3", "e5"]], ["ArrowLeft", 1, ["f3"]], ["Home", 0, []]];
  for (const [key, ply, sans] of steps) {
    await bob.page.keyboard.press(key);
    await until(bob, `body[data-browsing="${ply}"]`);
    assert.equal(await bob.page.getAttribute("body", "data-fen"), fenAfter(sans), `${key}: the position after ${ply} plies`);
  }
  await bob.page.keyboard.press("End");
  await until(bob, "body:not([data-browsing])");
  assert.equal(await bob.page.getAttribute("body", "data-fen"), fenAfter(["f3", "e5", "g4"]));
  assert.ok(await bob.page.locator("#browsing[hidden]").count(), "the note goes with the live board");
  // A spectator watches from white's side, and flips the board.
  const carol = await person(CAROL, "carol");
  const watch = `#running-games tr[data-game="${id}"] button[data-action="watch"]`;
  await until(carol, watch);
  await carol.page.click(watch);
  await until(carol, 'body[data-phase="watching"][data-ply="3"][data-idle]');
  assert.equal(await carol.page.getAttribute("body", "data-orientation"), "white");
  assert.ok((await rowOf(carol, "a1")) > (await rowOf(carol, "a8")), "white at the bottom");
  await carol.page.click("#flip");
  await until(carol, 'body[data-orientation="black"]');
  await carol.page.waitForTimeout(400);
  assert.ok((await rowOf(carol, "a1")) < (await rowOf(carol, "a8")), "flipped: black at the bottom");
  const running = await downloadPgn(carol);
  assert.match(running, /\[Result "\*"\]\n\n1\. f3 e5 2\. g4 \*\n$/);
  // Bob mates from the live board; the PGN names the game, its players and the result.
  await move(bob, alice, "d8h4");
  await until(alice, "#result:not([hidden])");
  const text = await downloadPgn(alice);
  assert.match(text, new RegExp(`^\\[Event "chessref game #${id}"\\]\n\\[Site "http://127\\.0\\.0\\.1:\\d+"\\]\n\\[Date "\\d{4}\\.\\d\\d\\.\\d\\d"\\]\n`));
  assert.match(text, new RegExp(`\\[White "${ALICE}"\\]\n\\[Black "${BOB}"\\]\n\\[TimeControl "300\\+2"\\]\n\\[Result "0-1"\\]\n`, "i"));
  assert.match(text, /\n\n1\. f3 e5 2\. g4 Qh4# 0-1\n$/);
  await audit(carol, "watching, flipped");
});

playTest("issue 28 finding 10: no console noise on black's page through a game, and PORT=0 npm run play binds a free port", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  await openGame(alice, bob);
  // Black's board turns once and animates every move: no orientation or piece warnings
  // (the test fails on any console warning).
  for (const [i, uci] of ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"].entries()) await (i % 2 ? move(bob, alice, uci) : move(alice, bob, uci));
  await bob.page.reload();
  await until(bob, 'body[data-ply="6"][data-synced]');
  await move(alice, bob, "d2d3");
  // npm run play with PORT=0: the URLs it prints name a port the system chose, not 8000.
  const demo = spawn(process.execPath, [fileURLToPath(new URL("../play-demo.mjs", import.meta.url))], {
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    let out = "";
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm run play printed no URL within 60 s: ${out}`)), 60_000);
      demo.stdout.on("data", (d) => {
        out += d;
        const found = /player 1 \(anvil account 1\): (http:\/\/127\.0\.0\.1:(\d+)\/\S+)/.exec(out);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      demo.on("exit", (code) => reject(new Error(`npm run play exited ${code}: ${out}`)));
    });
    assert.notEqual(Number(url[2]), 8000);
    assert.ok(Number(url[2]) > 0);
    assert.equal((await fetch(url[1])).status, 200, "the page is served there");
  } finally {
    demo.kill("SIGTERM");
    await new Promise((resolve) => (demo.exitCode !== null ? resolve() : demo.once("exit", resolve)));
  }
});

playTest("npm run play's dev wallet: ?devwallet=N is anvil's account N, no extension needed", async () => {
  const dev = await servePage(0, { devRpc: stack.rpc });
  const context = await browser.newContext();
  const page = watch(await context.newPage(), "dev");
  await page.goto(`${dev.url}/play.html?server=${encodeURIComponent(stack.server)}&devwallet=3`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  await page.click("#connect");
  await page.waitForSelector("body[data-connected]", { timeout: 30_000 });
  assert.equal(await page.getAttribute("#account", "data-address"), "0x90F79bf6EB2c4f870365E785982E1f101E93b906");
  const refused = await fetch(`${dev.url}/devwallet.js?account=10`);
  assert.equal(refused.status, 400);
  assert.equal((await fetch(`${site.url}/devwallet.js?account=1`)).status, 404, "only where the demo serves it");
  await context.close();
  await dev.close();
});

/** The lobby's words for a player's rating (the server's `/v1/players/{address}`). */
async function ratingOf(account) {
  const p = await (await fetch(`${stack.server}/v1/players/${account}`)).json();
  return p.games ? `${Math.round(p.rating)} ±${Math.round(p.deviation)}` : "unrated";
}

playTest("issue 28: a rematch: one click each, the stake confirmed by each, the same terms with the colours swapped (checked on chain); a second Rematch shows the first's offer; the lobby shows the creator's rating", async () => {
  const alice = await person(ALICE, "alice");
  const bob = await person(BOB, "bob");
  const first = await openGame(alice, bob, { window: "900", minutes: "3" });
  await move(alice, bob, "e2e4");
  await move(bob, alice, "e7e5");
  alice.page.once("dialog", (d) => d.accept());
  await alice.page.click("#resign");
  await until(alice, '#result[data-outcome="lost"]');
  await until(bob, '#result[data-outcome="won"]');
  // Alice has nothing to settle: Rematch at once. Bob settles his winnings first.
  await until(alice, "#rematch:not([hidden])");
  assert.ok(await bob.page.locator("#rematch").isHidden(), "no Rematch while Bob's winnings are unsettled");
  await bob.page.click("#settle");
  await until(bob, "#rematch:not([hidden])");
  const asked = async (p) => (await p.page.evaluate(() => window.__walletConfirmations)).slice();
  const [aliceAsked, bobAsked] = [await asked(alice), await asked(bob)];
  const nextId = await referee.nextGameId();
  await alice.page.click("#rematch");
  await until(alice, `body[data-game="${nextId}"][data-phase="open"]`);
  const id = nextId;
  assert.deepEqual((await asked(alice)).slice(aliceAsked.length), ["eth_sendTransaction"], "Alice confirmed her stake");
  assert.match(await alice.page.innerText("#state"), /^Waiting for 0x3C44…93BC to accept\. Your stake of 1 ETH is held by the referee/);
  assert.ok(await alice.page.locator("#cancel").isVisible(), "Alice can take her offer back");
  // Bob clicks Rematch too, after her: he is shown her offer, and no second game is made.
  await bob.page.click("#rematch");
  await until(bob, `#rematch-offer[data-game="${id}"]:not([hidden])`);
  assert.equal(await bob.page.innerText("#rematch-words"), "Your opponent offers a rematch (1 ETH, 3+2, you play white).");
  await audit(bob, "the rematch offer");
  await bob.page.screenshot({ path: `${OUT}rematch-offer.png` });
  assert.equal(await referee.nextGameId(), id + 1n, "one game made");
  assert.deepEqual(await asked(bob), bobAsked, "Bob's wallet not asked");
  // Decline hides the offer, and it stays hidden; a Rematch shows it again.
  await bob.page.click("#decline-rematch");
  assert.ok(await bob.page.locator("#rematch-offer").isHidden());
  await bob.page.waitForTimeout(2_500);
  assert.ok(await bob.page.locator("#rematch-offer").isHidden(), "a declined offer is not shown again by itself");
  await bob.page.click("#rematch");
  await until(bob, `#rematch-offer[data-game="${id}"]:not([hidden])`);
  // In the lobby too: the offer stays, and its row shows the creator as players read her.
  await bob.page.click("#back");
  await until(bob, `#lobby:not([hidden]) #open-games tr[data-game="${id}"]`);
  assert.ok(await bob.page.locator("#rematch-offer").isVisible(), "the offer in the lobby");
  const cells = await bob.page.locator(`#open-games tr[data-game="${id}"] td`).allInnerTexts();
  const rating = await ratingOf(ALICE);
  assert.notEqual(rating, "unrated", "Alice has a rated game: the one she resigned");
  assert.deepEqual(cells.slice(0, 6), [`#${id}`, "0x7099…79C8", rating, "1 ETH", "3+2", "15 min"]);
  // Bob accepts: his stake confirmed in his wallet, and both pages go to the new game.
  await bob.page.click("#accept-rematch");
  for (const p of [alice, bob]) await until(p, `body[data-game="${id}"][data-synced]`);
  assert.ok(await bob.page.locator("#rematch-offer").isHidden());
  assert.deepEqual((await asked(bob)).slice(bobAsked.length), ["eth_sendTransaction", "eth_signTypedData_v4"], "Bob's stake and his session key");
  assert.equal(await bob.page.getAttribute("body", "data-colour"), "white");
  assert.equal(await alice.page.getAttribute("body", "data-colour"), "black");
  const [before, now] = [await referee.getGame(first), await referee.getGame(id)];
  assert.deepEqual([now.white, now.black, Number(now.phase)], [BOB, ALICE, 2], "colours swapped, running on chain");
  for (const term of ["token", "stake", "initialTime", "increment", "responseWindow", "firstMoveWindow"]) {
    assert.equal(now[term], before[term], `the same ${term}`);
  }
  assert.deepEqual([before.white, before.black], [ALICE, BOB]);
  await move(bob, alice, "e2e4");
  await move(alice, bob, "c7c5");
});

/** `mover` plays `uci` by two taps on the board; `other` must show it. */
async function tapMove(mover, other, uci) {
  const before = await plyOf(mover);
  await mover.page.waitForSelector(`body[data-ply="${before}"][data-idle]`);
  await mover.page.tap(`#board [data-square="${uci.slice(0, 2)}"]`);
  await mover.page.tap(`#board [data-square="${uci.slice(2, 4)}"]`);
  for (const p of [mover, other]) await until(p, `body[data-ply="${before + 1}"]`);
}

/** Fails unless `selector` is on `p`'s screen as it is, with nothing scrolled. */
async function onScreen(p, selector) {
  const [box, scrolled] = [await p.page.locator(selector).boundingBox(), await p.page.evaluate(() => window.scrollY)];
  assert.equal(scrolled, 0, `${p.name}: the page is scrolled`);
  assert.ok(box && box.y >= 0 && box.y + box.height <= PHONE.height && box.x >= 0 && box.x + box.width <= PHONE.width, `${p.name}: ${selector} at ${JSON.stringify(box)}`);
}

playTest("issue 28: a whole game by taps on two phones: to mate, Offer draw, Decline and Resign in reach without scrolling, the banner read", async () => {
  const phone = { isMobile: true, hasTouch: true };
  const alice = await person(ALICE, "alice", "", PHONE, phone);
  const bob = await person(BOB, "bob", "", PHONE, phone);
  await openGame(alice, bob);
  for (const [i, uci] of LEGAL.entries()) {
    const [mover, other] = i % 2 ? [bob, alice] : [alice, bob];
    if (i === 4) {
      // Alice offers a draw by a tap; Bob reads it and declines by a tap; both in reach.
      for (const p of [alice, bob]) for (const b of ["#offer-draw", "#resign"]) await onScreen(p, b);
      await alice.page.tap("#offer-draw");
      await until(bob, '#draw-note:has-text("Your opponent offers a draw.")');
      await onScreen(bob, "#decline-draw");
      await onScreen(bob, "#accept-draw");
      await bob.page.tap("#decline-draw");
      assert.equal(await bob.page.innerText("#draw-note"), "You declined the draw offer.");
    }
    await tapMove(mover, other, uci);
  }
  await until(alice, '#result[data-outcome="won"]');
  await until(bob, '#result[data-outcome="lost"]');
  assert.equal(await alice.page.innerText("#result"), "You won by checkmate. You win 1 ETH: 2 ETH is paid to you, your stake and your opponent's.");
  assert.equal(await bob.page.innerText("#result"), "You lost by checkmate. You lose your stake of 1 ETH.");
  for (const p of [alice, bob]) {
    await onScreen(p, "#result");
    await assertFits(p, "the mated game");
  }
  await onScreen(alice, "#settle");
  await onScreen(bob, "#rematch");
  assert.equal(await alice.page.getAttribute("#moves", "data-sans"), "e4 e5 Nf3 d6 Bc4 Bg4 Nc3 g6 Nxe5 Bxd1 Bxf7+ Ke7 Nd5#");
  await bob.page.waitForTimeout(400);
  await bob.page.screenshot({ path: `${OUT}phone-mate.png` });
});

/** anvil's dev account 4: the fourth player of a knockout. */
const DAVE = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";

/** The tournament the referee created (its second CREATE), with anvil's account 0 (the
 * organiser) as its signer. */
async function tournamentOf() {
  const organiser = await provider(stack.rpc).getSigner(0);
  return new ethers.Contract(await referee.tournament(), tournamentAbi(), organiser);
}

/** A player's address as the bracket shows it. */
const shortName = (p) => `${p.account.slice(0, 6)}…${p.account.slice(-4)}`;

/** How many confirmations `p`'s wallet asked for so far (devwallet.mjs counts them). */
const confirmations = (p) => p.page.evaluate(() => window.__walletConfirmations.length);

playTest("issue 31: four players enter a knockout from the Tournaments view with one confirmation each, the bracket appears live, white starts its semi-final from the page and both players' game views open on it", async () => {
  const t = await tournamentOf();
  const node = provider(stack.rpc);
  const fee = ethers.parseEther("0.01");
  const deadline = (await node.getBlock("latest")).timestamp + 3_600;
  // The organiser creates a 4-player channel event: 5+2, 600 s to answer a registration,
  // 60/25/7.5 % to the winner, the finalist and each semi-finalist, a 5 % organiser fee.
  const terms = { token: ethers.ZeroAddress, fee, size: 4, initialTime: 300, increment: 2, firstMoveWindow: 0, responseWindow: 600, deadline, feeBps: 500, split: [6000, 2500, 750], abandonAfter: 3_600 };
  const created = await (await t.createEvent(terms)).wait();
  const id = String(created.logs.map((l) => t.interface.parseLog(l)).find((e) => e?.name === "EventCreated").args.eventId);
  const players = [
    await person(ALICE, "alice", "#tournaments", PHONE, { isMobile: true, hasTouch: true }),
    await person(BOB, "bob", "#tournaments", DESKTOP),
    await person(CAROL, "carol", "#tournaments"),
    await person(DAVE, "dave", "#tournaments"),
  ];
  const card = `#open-events article[data-event="${id}"]`;
  await until(players[0], `${card} button[data-call="enter"]:not([disabled])`);
  // What a player reads before it pays: the fee, the places, the games, the prizes (pool
  // 0.04 ETH less 5 %: 0.038 ETH, of which 60 %, 25 % and 7.5 % each).
  const words = await players[0].page.innerText(card);
  for (const said of ["0.01 ETH", "4 of 4 left", "5+2, moves signed off-chain", "closes in 59 min", "Winner 0.0228 ETH · Finalist 0.0095 ETH · Semi-finalists 0.00285 ETH each", "5% of the pool, after the final", "One confirmation in your wallet"]) {
    assert.ok(words.includes(said), `the open event says "${said}": ${words}`);
  }
  await assertFits(players[0], "the open events");
  await audit(players[1], "the open events");
  for (const [i, p] of players.entries()) {
    const enter = `${card} button[data-call="enter"]`;
    await until(p, `${enter}:not([disabled])`);
    const before = await confirmations(p);
    await p.page.click(enter);
    // The last entry fills the event: it leaves the open events for the draw.
    await until(p, i < 3 ? `${enter}[disabled]:has-text("Entered")` : `#event[data-event="${id}"][data-status="drawing"]`);
    assert.equal(await confirmations(p), before + 1, `${p.name} entered with one confirmation`);
    assert.equal(await t.entrantOf(id, i), p.account, `${p.name} holds entrant index ${i}`);
    if (i < 3) assert.match(await p.page.innerText(`#next-list [data-event="${id}"]`), new RegExp(`You are entered: ${i + 1} of 4 players so far`));
  }
  // Full: no page offers the event to enter any more.
  await until(players[0], `#event[data-event="${id}"][data-status="drawing"]`);
  assert.equal(await players[0].page.locator(card).count(), 0);
  // The filling entry armed the draw on the next block; the chain moves on (as a real one does).
  await node.send("evm_mine", []);
  await node.send("evm_mine", []);
  const drawer = players[2];
  await until(drawer, `#next-list [data-event="${id}"] button[data-call="draw"]`);
  await drawer.page.click(`#next-list [data-event="${id}"] button[data-call="draw"]`);
  await until(drawer, `#event[data-event="${id}"][data-status="running"]`);
  assert.ok((await t.getFunction("getEvent")(id)).drawn, "the bracket is drawn on the chain");
  // Every page draws the bracket by itself (refreshed every 3 s): two semi-finals and a final.
  const pairs = [await t.pairing(id, 0), await t.pairing(id, 1)];
  for (const p of players) {
    await until(p, `#event[data-event="${id}"][data-status="running"] #bracket .match[data-match="1"] .side.black .name[title]`);
    assert.equal(await p.page.locator("#bracket .round").count(), 2);
    assert.deepEqual(await p.page.locator("#bracket h4").allInnerTexts(), ["SEMI-FINALS", "FINAL"]);
    const mine = p.page.locator("#bracket .match.mine .side.you .name");
    assert.equal(await mine.innerText(), "you", `${p.name}: "you" marked in its own match`);
    for (const [m, [white, black]] of pairs.entries()) {
      for (const [colour, address] of [["white", white], ["black", black]]) {
        const name = p.page.locator(`#bracket .match[data-match="${m}"] .side.${colour} .name`);
        assert.equal(await name.getAttribute("title"), address, `${p.name}: match ${m}'s ${colour}`);
        assert.equal(await name.innerText(), address === p.account ? "you" : `${address.slice(0, 6)}…${address.slice(-4)}`);
      }
    }
  }
  // Semi-final 0: white starts it from "Your next game"; black is told white starts.
  const [white, black] = pairs[0].map((a) => players.find((p) => p.account === a));
  const step = (p) => `#next-list [data-event="${id}"]`;
  await until(white, `${step(white)} button[data-call="start"]`);
  assert.match(await white.page.innerText(step(white)), /Semi-finals: you play white against 0x.{4}….{4}\. You play white, so you start the game/);
  assert.match(await black.page.innerText(step(black)), /You play black: white starts the game, and you may start it too/);
  const before = await confirmations(white);
  await white.page.click(`${step(white)} button[data-call="start"]`);
  await until(white, "body[data-game]");
  const match = await t.getMatch(id, 0);
  assert.equal(Number(match.status), 1, "the chain records match 0 running");
  assert.equal(await white.page.getAttribute("body", "data-game"), String(match.gameId), "the game view opened on the match's game");
  assert.equal(await white.page.locator("#game:not([hidden])").count(), 1);
  // Start was one confirmation; the game's session key is the game view's, once per game.
  await until(white, "body[data-synced]");
  assert.equal(await confirmations(white), before + 2);
  assert.equal(await white.page.innerText("#game-id"), `#${match.gameId}`);
  // Black's next step becomes its game: opened from the page, the same board.
  await until(black, `${step(black)} button[data-call="open"]`);
  await black.page.click(`${step(black)} button[data-call="open"]`);
  await until(black, `body[data-game="${match.gameId}"][data-synced]`);
  await move(white, black, "e2e4");
  assert.equal(await black.page.innerText("#clock-bottom .who"), "black");
  // The others watch it live: its match shows playing, a Watch link on it.
  const others = players.filter((p) => p !== white && p !== black);
  for (const p of others) await until(p, `#bracket .match[data-match="0"][data-status="running"] button:has-text("Watch")`);
  // Black resigns; the game has no stake, so its winner settles it: the tournament counts
  // only what the referee recorded.
  black.page.once("dialog", (d) => d.accept());
  await black.page.click("#resign");
  await until(black, '#result[data-outcome="lost"]');
  assert.equal(await black.page.innerText("#result"), "You lost by resignation.");
  assert.equal(await black.page.innerText("#state"), "Your opponent settles it on-chain.");
  await until(white, "#settle:not([hidden])");
  assert.equal(await white.page.innerText("#settle"), "Settle the result");
  await white.page.click("#settle");
  // (On the shared chain a player may still hold credit from earlier games: "Settled on-chain: withdraw …".)
  await until(white, '#state:has-text("Settled on-chain")');
  assert.equal(Number((await referee.getGame(match.gameId)).result), 1, "the referee records white's win");
  // Back from the game: the Tournaments view again, and each one's next step from the result.
  for (const p of [white, black]) {
    await p.page.click("#back");
    await until(p, `#tournaments:not([hidden]) #bracket .match[data-match="0"] .how:has-text("${p === white ? "you" : shortName(white)} won the game")`);
    assert.equal(await p.page.locator('#bracket .match[data-match="0"] button').count(), 0, "no Play link on a game that ended");
  }
  await until(white, `${step(white)}:has-text("You won your semi-final. Next: the final, against the winner of")`);
  for (const p of [white, black]) await audit(p, "the bracket and the next step");
  await until(black, `${step(black)}:has-text("You lost your semi-final against")`);
  assert.match(await black.page.innerText(step(black)), /Prizes are paid once the final is decided\./);
  for (const p of players.filter((q) => q.page.viewportSize().width === PHONE.width || q.page.viewportSize().width === DESKTOP.width)) {
    await assertFits(p, "the bracket");
    await p.page.evaluate(() => document.getElementById("bracket").scrollIntoView());
    await p.page.waitForTimeout(400);
    const shot = p.page.viewportSize().width === PHONE.width ? "tournament-phone" : "tournament-desktop";
    await p.page.screenshot({ path: `${OUT}${shot}.png`, fullPage: true });
  }
  // The rest of the event from the pages: the other semi-final, then the final, started by
  // the first semi-final's winner once the other game ended (its start records both).
  const [white1, black1] = pairs[1].map((a) => players.find((p) => p.account === a));
  await decide(id, white1, black1, "Start the game");
  await until(white, `${step(white)} button[data-call="start"]:has-text("Start your final")`);
  const finalists = await decide(id, white, white1, "Start your final");
  const [champion, finalist] = finalists;
  // The final's game ended: its winner claims at once (the claim records the final).
  await until(champion, `${step(champion)} button[data-call="claim"]`);
  // Before anything recorded the final the bracket names no places: the prize is said once credited.
  assert.match(await champion.page.innerText(step(champion)), /You won your final\. You won the event! Claim your prize: it is credited to you, then you withdraw it\./);
  await until(finalist, `${step(finalist)} button[data-call="claim"]:has-text("Claim your prize")`);
  const from = await node.getBlockNumber();
  const balance = await node.getBalance(champion.account);
  await champion.page.click(`${step(champion)} button[data-call="claim"]`);
  await until(champion, `${step(champion)} button[data-call="withdraw"]:has-text("Withdraw 0.0228 ETH")`);
  // The bracket: every winner ticked, the event finished.
  await until(champion, `#event[data-status="finished"] #bracket .match[data-match="2"] .side.winner .name:has-text("you")`);
  assert.equal(await champion.page.innerText("#events tbody tr:first-child td:nth-child(3)"), "Finished: won by you");
  assert.equal(await champion.page.locator("#bracket .side.winner").count(), 3);
  await champion.page.click(`${step(champion)} button[data-call="withdraw"]`);
  await until(champion, `${step(champion)}:has-text("Your prize of 0.0228 ETH was paid.")`);
  assert.equal(await node.getBalance(champion.account), balance + ethers.parseEther("0.0228") - (await feesPaid(champion.account, from)), "the prize is in the winner's wallet");
  await until(champion, '#standings li.you:has-text("Winner: you, 0.0228 ETH (credited)")');
  // Recorded now: the finalist's step names its prize.
  await until(finalist, `${step(finalist)} button[data-call="claim"]:has-text("Claim 0.0095 ETH")`);
  await champion.page.evaluate(() => document.getElementById("event").scrollIntoView());
  await champion.page.waitForTimeout(400);
  await champion.page.screenshot({ path: `${OUT}tournament-finished.png`, fullPage: true });
});

playTest("issue 31: a drawn semi-final, from the pages: the draw agreed and settled, reported, its lot resolved once its block is mined, the winner named 'by lot'", async () => {
  const t = await tournamentOf();
  const node = provider(stack.rpc);
  const fee = ethers.parseEther("0.01");
  const deadline = (await node.getBlock("latest")).timestamp + 3_600;
  const terms = { token: ethers.ZeroAddress, fee, size: 4, initialTime: 300, increment: 2, firstMoveWindow: 0, responseWindow: 600, deadline, feeBps: 0, split: [10_000], abandonAfter: 3_600 };
  const created = await (await t.createEvent(terms)).wait();
  const id = String(created.logs.map((l) => t.interface.parseLog(l)).find((e) => e?.name === "EventCreated").args.eventId);
  // Entered and drawn without the page (the page's entry is the test above's).
  for (const account of [ALICE, BOB, CAROL, DAVE]) {
    await (await t.connect(await node.getSigner(account)).enter(id, { value: fee })).wait();
  }
  await node.send("evm_mine", []);
  await node.send("evm_mine", []);
  await (await t.draw(id)).wait();
  const [whiteAddress, blackAddress] = await t.pairing(id, 0);
  const names = { [ALICE]: "alice", [BOB]: "bob", [CAROL]: "carol", [DAVE]: "dave" };
  const white = await person(whiteAddress, names[whiteAddress], "#tournaments");
  const black = await person(blackAddress, names[blackAddress], "#tournaments");
  const step = `#next-list [data-event="${id}"]`;
  await until(white, `${step} button[data-call="start"]`);
  await white.page.click(`${step} button[data-call="start"]`);
  await until(white, "body[data-synced] #game:not([hidden])");
  const gameId = await white.page.getAttribute("body", "data-game");
  await until(black, `${step} button[data-call="open"]`);
  await black.page.click(`${step} button[data-call="open"]`);
  await until(black, `body[data-game="${gameId}"][data-synced] #game:not([hidden])`);
  await move(white, black, "e2e4");
  // Black offers a draw, white accepts; either settles a draw: white does.
  await black.page.click("#offer-draw");
  await until(white, "#accept-draw:not([hidden])");
  await white.page.click("#accept-draw");
  await until(white, '#result[data-outcome="drawn"]');
  assert.equal(await white.page.innerText("#result"), "Draw by agreement.");
  await until(black, "#settle:not([hidden])");
  await until(white, "#settle:not([hidden])");
  await white.page.click("#settle");
  await until(white, '#state:has-text("Settled on-chain")');
  assert.equal(Number((await referee.getGame(gameId)).result), 3, "the referee records the draw");
  for (const p of [white, black]) {
    await p.page.click("#back");
    await until(p, `#tournaments:not([hidden]) ${step}`);
  }
  // The draw is reported (anyone may; a player from its next step), arming the lot on the next block.
  await until(black, `${step} button[data-call="report"]:has-text("Report the draw")`);
  assert.match(await black.page.innerText(step), /Semi-finals: your game was drawn\. Report it: a lot from a later block decides who goes on\./);
  await black.page.click(`${step} button[data-call="report"]`);
  await until(black, `${step}:has-text("your game was drawn; the hash of block")`);
  const lot = await t.getMatch(id, 0);
  assert.equal(Number(lot.status), 3, "the lot is armed");
  assert.match(await black.page.innerText(step), new RegExp(`the hash of block ${lot.lotBlock} decides who goes on once it is mined`));
  await until(white, `#bracket .match[data-match="0"] .how:has-text("drawn: a lot decides")`);
  // The chain moves on: the lot is due, and resolved from the page.
  await node.send("evm_mine", []);
  await until(white, `${step} button[data-call="resolveLot"]`);
  await white.page.click(`${step} button[data-call="resolveLot"]`);
  await until(white, `#bracket .match[data-match="0"][data-status="decided"]`);
  const decided = await t.getMatch(id, 0);
  assert.equal(Number(decided.status), 2, "the lot decided the match");
  const [winner, loser] = decided.winner === white.account ? [white, black] : [black, white];
  for (const p of [winner, loser]) {
    const said = p === winner ? "you won by lot after a drawn game" : `${shortName(winner)} won by lot after a drawn game`;
    await until(p, `#bracket .match[data-match="0"] .how:has-text("${said}")`);
    await until(p, `#bracket .match[data-match="0"] .side.winner .name:has-text("${p === winner ? "you" : shortName(winner)}")`);
  }
  await until(loser, `${step}:has-text("You are out: ${shortName(winner)} won your semi-final by lot after a drawn game.")`);
  await until(winner, `${step}:has-text("You won your semi-final by lot after a drawn game. Next: the final")`);
});

/** Match of event `id` started by `starter` from its next step (`label`, its button), opened by
 * `other`; white plays e4, black resigns and white settles; both go back to the Tournaments view. Resolves
 * to the [winner, loser] pages. */
async function decide(id, starter, other, label) {
  const step = `#next-list [data-event="${id}"]`;
  await until(starter, `${step} button[data-call="start"]:has-text("${label}")`);
  await starter.page.click(`${step} button[data-call="start"]`);
  // openGame drops the marks of the game shown before: synced is this game's.
  await until(starter, "body[data-synced] #game:not([hidden])");
  const gameId = await starter.page.getAttribute("body", "data-game");
  await until(other, `${step} button[data-call="open"]`);
  await other.page.click(`${step} button[data-call="open"]`);
  await until(other, `body[data-game="${gameId}"][data-synced] #game:not([hidden])`);
  const info = await referee.getGame(gameId);
  const [w, b] = [starter, other].sort((p) => (p.account === info.white ? -1 : 1));
  assert.equal(w.account, info.white);
  await move(w, b, "e2e4");
  b.page.once("dialog", (d) => d.accept());
  await b.page.click("#resign");
  await until(w, "#settle:not([hidden])");
  await w.page.click("#settle");
  await until(w, '#state:has-text("Settled on-chain")');
  for (const p of [w, b]) {
    await p.page.click("#back");
    await until(p, "#tournaments:not([hidden])");
  }
  return [w, b];
}

playTest("issue 31: an event paid in an ERC-20 says the wallet asks twice and does (an approval, then the entry); unfilled at its deadline, the fee is claimed back and withdrawn from the page", async () => {
  await onOwnChain(async () => {
    const t = await tournamentOf();
    const node = provider(stack.rpc);
    const organiser = await node.getSigner(0);
    const artifact = JSON.parse(readFileSync(new URL("../../../crates/chessref-evm/artifacts/TestToken.json", import.meta.url), "utf8"));
    const token = await new ethers.ContractFactory(artifact.abi, artifact.bytecode.object, organiser).deploy();
    await token.waitForDeployment();
    const tst = await token.getAddress();
    await (await token.mint(ALICE, 100_000_000n)).wait();
    const fee = 25_000_000n; // 25 TST (6 decimals)
    const deadline = (await node.getBlock("latest")).timestamp + 600;
    const terms = { token: tst, fee, size: 4, initialTime: 180, increment: 2, firstMoveWindow: 0, responseWindow: 600, deadline, feeBps: 0, split: [7000, 3000], abandonAfter: 3_600 };
    const created = await (await t.createEvent(terms)).wait();
    const id = String(created.logs.map((l) => t.interface.parseLog(l)).find((e) => e?.name === "EventCreated").args.eventId);
    const alice = await person(ALICE, "alice", "#tournaments");
    const card = `#open-events article[data-event="${id}"]`;
    await until(alice, `${card} button[data-call="enter"]:not([disabled])`);
    assert.equal(await alice.page.innerText(`${card} button[data-call="enter"]`), "Approve and enter");
    const words = await alice.page.innerText(card);
    for (const said of ["25 TST", "Winner 70 TST · Finalist 30 TST", "The fee is paid in TST: your wallet asks twice, first to let the tournament take the fee (an approval), then to enter."]) {
      assert.ok(words.includes(said), `the open event says "${said}": ${words}`);
    }
    assert.ok(!words.includes("organiser"), "no organiser fee, no line for it");
    let before = await confirmations(alice);
    await alice.page.click(`${card} button[data-call="enter"]`);
    await until(alice, `${card} button[data-call="enter"][disabled]:has-text("Entered")`);
    assert.equal(await confirmations(alice), before + 2, "an approval, then the entry");
    assert.equal(await token.balanceOf(await t.getAddress()), fee);
    assert.equal(await token.balanceOf(ALICE), 75_000_000n);
    // The deadline passes with one entry of four: every entry is refunded, on claim.
    await advance(601);
    const step = `#next-list [data-event="${id}"]`;
    await until(alice, `${step} button[data-call="claim"]`);
    assert.match(await alice.page.innerText(step), /The event did not fill by its deadline: claim your entry fee of 25 TST back\./);
    assert.equal(await alice.page.innerText(`${step} button[data-call="claim"]`), "Claim your refund of 25 TST");
    before = await confirmations(alice);
    await alice.page.click(`${step} button[data-call="claim"]`);
    await until(alice, `${step} button[data-call="withdraw"]`);
    assert.equal(await alice.page.innerText(`${step} button[data-call="withdraw"]`), "Withdraw 25 TST");
    await alice.page.click(`${step} button[data-call="withdraw"]`);
    await until(alice, `${step}:has-text("Your entry fee of 25 TST was refunded.")`);
    assert.equal(await confirmations(alice), before + 2, "a claim, then a withdrawal");
    assert.equal(await token.balanceOf(ALICE), 100_000_000n, "the whole fee is back");
    assert.match(await alice.page.innerText(`#events tr[data-event="${id}"]`), /Did not fill: every entry is refunded/);
  });
});

test("the page logged no errors", () => {
  assert.deepEqual(errors, []);
});
