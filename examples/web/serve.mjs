// Serves the example page on 127.0.0.1 with what it imports: the chessref-wasm
// web package (crates/chessref-wasm/pkg/web, built by build-pkg.sh), ethers'
// browser module, and the referee's ABI from the committed artifact.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { refereeArtifact } from "./chain.mjs";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
};

// URL prefix -> directory; the first match wins.
const MOUNTS = [
  ["/pkg/", join(ROOT, "crates/chessref-wasm/pkg/web")],
  ["/vendor/ethers/", join(HERE, "node_modules/ethers/dist")],
  ["/vendor/cm-chessboard/", join(HERE, "node_modules/cm-chessboard")],
  ["/", join(HERE, "public")],
];

async function handle(req, res) {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  if (path === "/abi/ChessReferee.json") {
    res.writeHead(200, { "content-type": TYPES[".json"] });
    res.end(JSON.stringify(refereeArtifact().abi));
    return;
  }
  for (const [prefix, dir] of MOUNTS) {
    if (!path.startsWith(prefix)) continue;
    const rel = path.slice(prefix.length) || "index.html";
    const file = normalize(join(dir, rel));
    if (!file.startsWith(normalize(dir) + sep)) break;
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream" });
      res.end(body);
      return;
    } catch {
      break;
    }
  }
  res.writeHead(404, { "content-type": "text/plain" });
  res.end(`not found: ${path}\n`);
}

/** Starts the server on 127.0.0.1:`port` (0 = any); resolves to { url, close() }. */
export function servePage(port = 0) {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.writeHead(400);
      res.end();
    });
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((r) => server.close(r)),
      }),
    );
  });
}
