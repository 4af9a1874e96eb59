// `npm run demo`: anvil on 127.0.0.1, the referee deployed, a game created and
// joined by two dev accounts, and the page served; prints the URL to open.
// Needs crates/chessref-wasm/pkg (crates/chessref-wasm/build-pkg.sh). Ctrl-C stops everything.
import { startAnvil, deployReferee, createGame } from "./chain.mjs";
import { servePage } from "./serve.mjs";

const anvil = await startAnvil();
const referee = await deployReferee(anvil.url);
const { gameId, white, black } = await createGame(anvil.url, referee);
const page = await servePage(Number(process.env.PORT || 8000));
console.log(`anvil ${anvil.url}, referee ${referee}, game ${gameId} (white ${white}, black ${black})`);
console.log(`open ${page.url}/?rpc=${encodeURIComponent(anvil.url)}&referee=${referee}&game=${gameId}`);
const stop = async () => {
  await page.close();
  await anvil.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
