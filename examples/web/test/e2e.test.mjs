// End to end: a ChessReferee on a local anvil, the example page in headless
// Chromium, a person's clicks. The page must show the contract's verdict
// before sending, agree with the contract, and send real transactions.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ethers } from "ethers";
import { startAnvil, deployReferee, createGame, provider, refereeArtifact } from "../chain.mjs";
import { servePage } from "../serve.mjs";
import { launchChromium } from "./chromium.mjs";

const OUT = fileURLToPath(new URL("../test-output/", import.meta.url));
let anvil, site, browser, page, referee, game, contract;
const pageErrors = [];

before(async () => {
  anvil = await startAnvil();
  referee = await deployReferee(anvil.url);
  game = await createGame(anvil.url, referee);
  contract = new ethers.Contract(referee, refereeArtifact().abi, provider(anvil.url));
  site = await servePage(0);
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && pageErrors.push(m.text()));
  await page.goto(`${site.url}/?rpc=${encodeURIComponent(anvil.url)}&referee=${referee}&game=${game.gameId}`);
  await page.waitForSelector("body[data-ready]", { timeout: 60_000 });
});

after(async () => {
  await browser?.close();
  await site?.close();
  await anvil?.stop();
});

const text = (sel) => page.locator(sel).innerText();
const click = (square) => page.click(`[data-square="${square}"]`);

/** What the contract answers to `move` from `from` (eth_call): null if accepted, else the decoded error. */
async function contractVerdict(from, packed) {
  const [created] = await contract.queryFilter(contract.filters.GameCreated(game.gameId), 0, "latest");
  const moves = await contract.queryFilter(contract.filters.MovePlayed(game.gameId), 0, "latest");
  const [joined] = await contract.queryFilter(contract.filters.GameJoined(game.gameId), 0, "latest");
  const last = moves.at(-1);
  const state = last ? last.args.state : created.args.state;
  const history = last ? last.args.history : created.args.history;
  const clock = last ? last.args.clock : joined.args.clock;
  const signer = await provider(anvil.url).getSigner(from);
  try {
    await contract.connect(signer).getFunction("move").staticCall(game.gameId, state, history, clock, packed);
    return null;
  } catch (e) {
    const parsed = contract.interface.parseError(e.data);
    return { name: parsed.name, args: parsed.args.map(Number) };
  }
}

test("the page reads the game and its position from the chain", async () => {
  assert.equal(await page.getAttribute("body", "data-ready"), "true", await text("#error"));
  assert.equal(await text("#verified"), "matches the on-chain commitment");
  assert.equal(await text("#white"), game.white);
  assert.equal(await text("#black"), game.black);
  assert.equal(await text("#turn"), "white");
  assert.equal(await text("#status"), "ONGOING");
  assert.equal(await page.getAttribute('[data-square="e1"]', "aria-label"), "e1 K");
  assert.equal(await page.getAttribute('[data-square="d8"]', "aria-label"), "d8 q");
  assert.equal(await page.locator(".board button").count(), 64);
});

test("an illegal move gets the contract's code before sending, and the contract agrees", async () => {
  await click("e2");
  assert.equal(await page.locator(".dest").count(), 2, "e3 and e4 are marked");
  await click("e5");
  assert.equal(await page.getAttribute("#verdict", "data-legal"), "false");
  const verdict = await text("#verdict");
  assert.match(verdict, /IllegalMove\(6\) BAD_GEOMETRY/);
  assert.ok(await page.locator("#send").isDisabled(), "cannot send an illegal move");
  const packed = (100 << 16) | (52 << 8); // e2e5
  assert.deepEqual(await contractVerdict(game.white, packed), { name: "IllegalMove", args: [6] });
});

test("a legal move is shown as accepted, sent, and lands on chain", async () => {
  await click("e2");
  await click("e4");
  assert.equal(await page.getAttribute("#verdict", "data-legal"), "true");
  assert.match(await text("#verdict"), /legal: e4 \(e2e4, uint24 0x644400\)/);
  assert.equal(await contractVerdict(game.white, 0x644400), null, "the contract accepts it too");
  await page.click("#send");
  await page.waitForSelector('body[data-ply="1"]', { timeout: 30_000 });
  assert.equal(await text("#error"), "");
  assert.match(await text("#tx"), /e2e4: tx 0x[0-9a-f]{64} in block \d+, gas \d+/);
  const [played] = await contract.queryFilter(contract.filters.MovePlayed(game.gameId), 0, "latest");
  assert.equal(Number(played.args.move), 0x644400);
  assert.equal(Number(played.args.ply), 1);
  assert.equal(await text("#verified"), "matches the on-chain commitment");
  assert.equal(await text("#turn"), "black");
  assert.equal(await page.getAttribute('[data-square="e4"]', "aria-label"), "e4 P");
  assert.equal(await page.getAttribute('[data-square="e2"]', "aria-label"), "e2");
});

test("black answers through the page from its own account", async () => {
  await click("g8");
  await click("f6");
  assert.equal(await page.getAttribute("#verdict", "data-legal"), "true");
  await page.click("#send");
  await page.waitForSelector('body[data-ply="2"]', { timeout: 30_000 });
  const moves = await contract.queryFilter(contract.filters.MovePlayed(game.gameId), 0, "latest");
  assert.equal(moves.length, 2);
  assert.equal(moves[1].args.move, BigInt((6 << 16) | (37 << 8)), "g8f6");
  const tx = await moves[1].getTransaction();
  assert.equal(tx.from, game.black);
});

test("a pinned piece's move is refused with KING_LEFT_IN_CHECK, as the contract does", async () => {
  // 2. Bb5 pins black's d7 pawn to the king on e8 (b5-c6-d7-e8).
  await click("f1");
  await click("b5");
  await page.click("#send");
  await page.waitForSelector('body[data-ply="3"]', { timeout: 30_000 });
  await click("d7");
  await click("d5");
  assert.equal(await page.getAttribute("#verdict", "data-legal"), "false");
  assert.match(await text("#verdict"), /IllegalMove\(14\) KING_LEFT_IN_CHECK/);
  const packed = (19 << 16) | (51 << 8); // d7d5
  assert.deepEqual(await contractVerdict(game.black, packed), { name: "IllegalMove", args: [14] });
  mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: `${OUT}e2e.png`, fullPage: true });
});

test("the page logged no errors", () => {
  assert.deepEqual(pageErrors, []);
});
