// The TypeScript declarations wasm-bindgen generated type-check a real use of
// the API (usage.ts) with `tsc --strict`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

test("usage.ts type-checks against the generated .d.ts", () => {
  const tsc = fileURLToPath(new URL("node_modules/typescript/bin/tsc", import.meta.url));
  try {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: here, encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});
