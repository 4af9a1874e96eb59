// Off-chain verification speed in WASM (Node): the CHANNEL.md fixture transcript (4
// signed plies, two by session keys, each signature recovered and each move judged)
// verified over and over. A measurement, not a test: `node bench-channel.mjs`.
import { createRequire } from "node:module";
import FIXTURE from "../../../tests/fixtures/channel-examples.json" with { type: "json" };

const w = createRequire(import.meta.url)("../pkg/node/chessref_wasm.js");
const plies = FIXTURE.moves.length;
const runs = Number(process.argv[2] ?? 300);
for (let i = 0; i < 20; i++) w.channelVerifyTranscript(FIXTURE, FIXTURE.now); // warm up
const started = process.hrtime.bigint();
for (let i = 0; i < runs; i++) {
  if (w.channelVerifyTranscript(FIXTURE, FIXTURE.now).validPlies !== plies) throw new Error("the fixture must verify");
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(`wasm (node ${process.version}): ${runs} transcripts of ${plies} signed plies in ${seconds.toFixed(2)} s: ${Math.round((runs * plies) / seconds)} moves/s, signatures and delegations included`);
