// Everything a channel game needs on one machine, as an operator runs it: anvil, the
// contracts deployed by `chessref deploy`, `chessref index` following them into a
// SQLite file, and `chessref serve --index` (the lobby and the relay) on loopback.
// The chessref binary is the workspace's release build (cargo build --release -p chessref).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startAnvil } from "./chain.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** anvil's first dev account: the deployer. */
const DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/** The release chessref binary (CHESSREF overrides). */
export function chessrefBinary() {
  const bin = process.env.CHESSREF || join(ROOT, "target/release/chessref");
  if (!existsSync(bin)) throw new Error(`${bin} not found: run cargo build --release -p chessref (or set CHESSREF)`);
  return bin;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A child process whose stderr is kept for the error that names why it stopped. */
function child(bin, args) {
  const proc = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  proc.stderrText = "";
  proc.stderr.on("data", (d) => (proc.stderrText = (proc.stderrText + d).slice(-4000)));
  proc.stdout.resume();
  proc.exited = new Promise((resolve) => proc.on("exit", resolve));
  return proc;
}

async function stop(proc) {
  if (proc && proc.exitCode === null && proc.signalCode === null) {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

/**
 * Starts anvil, deploys, indexes and serves; resolves to { rpc, server, deployments, db
 * (the index and relay database), stop() }. `pollMs` is the indexer's poll interval.
 */
export async function startStack({ pollMs = 100 } = {}) {
  const bin = chessrefBinary();
  const anvil = await startAnvil();
  const dir = mkdtempSync(join(tmpdir(), "chessref-stack-"));
  const deployments = join(dir, "deployments.json");
  let index, serve;
  const stopAll = async () => {
    await stop(serve);
    await stop(index);
    await anvil.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    execFileSync(bin, ["deploy", "--rpc", anvil.url, "--deployments", deployments], {
      env: { ...process.env, CHESSREF_PRIVATE_KEY: DEPLOYER_KEY },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const db = join(dir, "index.sqlite");
    index = child(bin, ["index", "--rpc", anvil.url, "--deployments", deployments, "--db", db, "--confirmations", "0", "--poll-ms", String(pollMs)]);
    const port = await freePort();
    const server = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    while (!existsSync(db)) {
      if (index.exitCode !== null) throw new Error(`chessref index exited: ${index.stderrText}`);
      if (Date.now() > deadline) throw new Error("chessref index made no database within 60 s");
      await sleep(50);
    }
    serve = child(bin, ["serve", "--index", db, "--addr", `127.0.0.1:${port}`]);
    for (;;) {
      if (serve.exitCode !== null) throw new Error(`chessref serve exited: ${serve.stderrText}`);
      if (Date.now() > deadline) throw new Error(`${server} did not bind a referee within 60 s`);
      const health = await fetch(`${server}/v1/health`).then((r) => r.json()).catch(() => null);
      if (health?.referee) break;
      await sleep(100);
    }
    return { rpc: anvil.url, server, deployments, db, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
