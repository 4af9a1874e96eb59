// Off-chain verification speed in WASM (Node), signatures and delegations included:
//   long: a long real game (crates/chessref-channel/benches/long-game.json: 87 signed
//         plies, both players on session keys, every move with the opponent's receipt,
//         black's resignation), what a player's page verifies;
//   fixture: the CHANNEL.md fixture transcript (4 signed plies with four delegations and
//         a signed result, each signature recovered, each move judged).
// Each is verified over and over, in rounds (the median round is reported), in moves
// per second of wall time and per second of this process's CPU time (the figure to
// read on a machine other work shares). A measurement, not a test:
// `node bench-channel.mjs [rounds]` after build-pkg.sh.
import { createRequire } from "node:module";
import FIXTURE from "../../../tests/fixtures/channel-examples.json" with { type: "json" };
import LONG from "../../chessref-channel/benches/long-game.json" with { type: "json" };

const w = createRequire(import.meta.url)("../pkg/node/chessref_wasm.js");
const rounds = Number(process.argv[2] ?? 5);

function round(t, seconds) {
  const plies = t.moves.length;
  let runs = 0;
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < seconds) {
    if (w.channelVerifyTranscript(t, t.now).validPlies !== plies) throw new Error("the transcript must verify");
    runs++;
    elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  }
  const used = process.cpuUsage(cpu);
  return { wall: (runs * plies) / elapsed, cpu: (runs * plies * 1e6) / (used.user + used.system) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = { long: [], fixture: [] };
for (const t of [LONG, FIXTURE]) round(t, 0.3); // warm up
for (let i = 0; i < rounds; i++) {
  results.long.push(round(LONG, 1));
  results.fixture.push(round(FIXTURE, 1));
}
for (const [name, t] of [["long", LONG], ["fixture", FIXTURE]]) {
  const wall = results[name].map((x) => x.wall);
  const cpu = results[name].map((x) => x.cpu);
  console.log(
    `wasm (node ${process.version}) ${name} (${t.moves.length} signed plies): ${Math.round(median(wall))} moves/s, ` +
      `${Math.round(median(cpu))} per CPU second, median of ${rounds} rounds (${wall.map(Math.round).join(", ")})`,
  );
}
