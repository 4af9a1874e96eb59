// A minimal static file server on 127.0.0.1 (random port) for browser tests.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, normalize, join, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".css": "text/css",
  ".png": "image/png",
};

/** Serves files under `root` (a directory path); resolves to { server, url }. */
export function serveStatic(root, routes = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (routes[path]) {
      const [type, body] = routes[path]();
      res.writeHead(200, { "content-type": type });
      res.end(body);
      return;
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(normalize(root + sep))) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` }));
  });
}
