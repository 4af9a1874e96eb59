// @ts-check
// The chessref server's HTTP API (`chessref serve --index`): its JSON, and waiting for
// its index to catch up with a transaction.
import { SERVER, notice } from "./page.js";

/** The server's JSON, or an error naming what the server said. */
export async function api(path) {
  const res = await fetch(SERVER + path);
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${SERVER}${path}: ${body?.error?.message || body?.message || res.status}`);
  return body;
}

/** Waits until the server's index holds block `block` (what a transaction just did);
 * `say` tells the player it waits (default: the game panel's notice line). */
export async function indexed(block, say = notice) {
  for (;;) {
    const health = await api("/v1/health");
    if (health.indexedBlock >= block) return;
    say("waiting for the server to catch up with the chain…", `indexing block ${block}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
