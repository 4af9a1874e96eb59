// `npm run play`: a channel game between two browser windows on a local anvil. Starts
// anvil, deploys the contracts, runs `chessref index` and `chessref serve --index` (the
// lobby and the relay), serves the page, and prints one URL per player. Each URL brings
// a dev wallet over one of anvil's accounts; with a wallet extension instead, drop
// `&devwallet=N` and add the anvil network (the RPC URL printed, chain id 31337) to it.
// Needs crates/chessref-wasm/pkg (build-pkg.sh) and target/release/chessref
// (cargo build --release -p chessref). Ctrl-C stops everything.
import { servePage } from "./serve.mjs";
import { startStack } from "./stack.mjs";

const stack = await startStack();
// PORT=0: any free port (the URLs printed say which).
const page = await servePage(Number(process.env.PORT ?? 8000), { devRpc: stack.rpc });
const url = (n) => `${page.url}/play.html?server=${encodeURIComponent(stack.server)}&devwallet=${n}`;
console.log(`anvil ${stack.rpc} (chain id 31337), chessref serve ${stack.server}`);
console.log(`player 1 (anvil account 1): ${url(1)}`);
console.log(`player 2 (anvil account 2): ${url(2)}`);
const stop = async () => {
  await page.close();
  await stack.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
