// The chessref-wasm package (pkg/, built by ../build-pkg.sh) in Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { cases } from "./cases.mjs";

const require = createRequire(import.meta.url);
const pkgDir = new URL("../pkg/", import.meta.url);
// Through the package's own entry point, as `require("chessref-wasm")` resolves it.
const wasm = require(new URL("../pkg/", import.meta.url).pathname);

for (const [name, run] of cases) {
  test(name, () => run(wasm));
}

test("package.json entry points and TypeScript declarations exist", () => {
  const pkg = JSON.parse(readFileSync(new URL("package.json", pkgDir), "utf8"));
  assert.equal(pkg.name, "chessref-wasm");
  for (const file of [pkg.main, pkg.module, pkg.types, pkg.exports["."].node.default, pkg.exports["."].node.types]) {
    readFileSync(new URL(file, pkgDir));
  }
  const dts = readFileSync(new URL(pkg.types, pkgDir), "utf8");
  for (const decl of ["export class Chess", "check(uci: string): CheckResult", "dests(): Map<string, string[]>",
    "export interface CheckResult", "export function encodeMove(uci: string): number", "stateHex(): string"]) {
    assert.ok(dts.includes(decl), `d.ts declares ${decl}`);
  }
});
