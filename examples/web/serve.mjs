// Serves the example page on 127.0.0.1 with what it imports: the chessref-wasm
// web package (crates/chessref-wasm/pkg/web, built by build-pkg.sh), ethers'
// browser module, and the referee's, the channel's and the tournament's ABIs from the
// committed artifacts.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { channelAbi, refereeArtifact, tournamentAbi } from "./chain.mjs";
import { walletScript } from "./devwallet.mjs";

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

/** anvil's dev accounts 0 to 9, for the dev wallet. */
const DEV_ACCOUNTS = [
  "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
  "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
  "0x976EA74026E726554dB657fA54763abd0C3a0aa9", "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
  "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f", "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
];

async function handle(req, res, devRpc) {
  const url = new URL(req.url, "http://x");
  const path = decodeURIComponent(url.pathname);
  if (path === "/devwallet.js" && devRpc) {
    const account = DEV_ACCOUNTS[Number(url.searchParams.get("account"))];
    if (!account) {
      res.writeHead(400, { "content-type": "text/plain" });
      res.end("devwallet.js?account=N: N is one of anvil's dev accounts, 0 to 9\n");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[".js"] });
    res.end(walletScript(devRpc, account));
    return;
  }
  if (path === "/abi/ChessReferee.json") {
    res.writeHead(200, { "content-type": TYPES[".json"] });
    res.end(JSON.stringify(refereeArtifact().abi));
    return;
  }
  if (path === "/abi/ChessTournament.json") {
    res.writeHead(200, { "content-type": TYPES[".json"] });
    res.end(JSON.stringify(tournamentAbi()));
    return;
  }
  if (path === "/abi/ChessChannel.json") {
    res.writeHead(200, { "content-type": TYPES[".json"] });
    res.end(JSON.stringify(channelAbi()));
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

/**
 * Starts the server on 127.0.0.1:`port` (0 = any); resolves to { url, close() }. With
 * `devRpc`, it also serves /devwallet.js?account=N: a wallet over that anvil node's dev
 * account N, which the play page loads with ?devwallet=N (never on a real chain).
 */
export function servePage(port = 0, { devRpc = null } = {}) {
  const server = createServer((req, res) => {
    handle(req, res, devRpc).catch(() => {
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
