// The chessref-wasm package (pkg/web) in headless Chromium: the same cases as in Node.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { cases } from "./cases.mjs";
import { serveStatic } from "./static-server.mjs";
import { launchChromium } from "./chromium.mjs";

let http;
let browser;
let results;
const pageErrors = [];

before(async () => {
  // cases.mjs imports the shared fixtures from the repository's tests/fixtures,
  // which is outside the served package directory: serve it at the URL it resolves to.
  const fixture = (name) => new URL(`../../../tests/fixtures/${name}`, import.meta.url);
  http = await serveStatic(fileURLToPath(new URL("..", import.meta.url)), {
    "/tests/fixtures/encoding-examples.json": () => ["application/json", readFileSync(fixture("encoding-examples.json"))],
    "/tests/fixtures/channel-examples.json": () => ["application/json", readFileSync(fixture("channel-examples.json"))],
  });
  browser = await launchChromium();
  const page = await browser.context.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(`${http.url}/js/browser.html`);
  await page.waitForFunction(() => Array.isArray(window.__results), null, { timeout: 60_000 });
  results = await page.evaluate(() => window.__results);
});

after(async () => {
  await browser?.close();
  http?.server.close();
});

test("the page loaded the wasm module without errors", () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(results.filter((r) => r.name === "init"), []);
  assert.equal(results.length, cases.length, "every case ran");
});

for (const [name] of cases) {
  test(`chromium: ${name}`, () => {
    const r = results.find((x) => x.name === name);
    assert.ok(r, `case ${name} ran`);
    assert.ok(r.ok, r.error);
  });
}
