// A local chain for the example: anvil (the repository's pinned npm binary)
// on 127.0.0.1, the ChessReferee deployed from its committed artifact, and a
// game created and joined by two of anvil's funded, unlocked accounts.
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { fileURLToPath } from "node:url";
import { ethers } from "ethers";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const ARTIFACT = `${ROOT}crates/chessref-evm/artifacts/ChessReferee.json`;

/** The referee's ABI and creation bytecode. */
export function refereeArtifact() {
  const artifact = JSON.parse(readFileSync(ARTIFACT, "utf8"));
  return { abi: artifact.abi, bytecode: artifact.bytecode.object };
}

/**
 * The ABI and creation bytecode of a committed artifact: the channel's blueprint, the
 * referee's annex and the channel's annex are the referee's constructor arguments.
 */
function artifactOf(name) {
  const artifact = JSON.parse(readFileSync(`${ROOT}crates/chessref-evm/artifacts/${name}.json`, "utf8"));
  return { abi: artifact.abi, bytecode: artifact.bytecode.object };
}

/** The channel's ABI (ChessChannel and its annex, as the committed artifact carries both):
 * its views and its custom errors, which a page names a failed registration by. */
export function channelAbi() {
  return artifactOf("ChessChannel").abi;
}

/** The tournament's ABI (ChessTournament: its calls, views, events and custom errors). */
export function tournamentAbi() {
  return artifactOf("ChessTournament").abi;
}

/** The native anvil as scripts/foundry resolves it (never node_modules/.bin's wrapper). */
function anvilBinary() {
  if (process.env.ANVIL) return process.env.ANVIL;
  try {
    return execFileSync(`${ROOT}scripts/foundry`, ["--path", "anvil"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch (e) {
    throw new Error(`anvil not found (${String(e.stderr || e.message).trim()}): run scripts/bootstrap.sh (or set ANVIL)`);
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1");
    sock.on("connect", () => sock.end(() => resolve(true)));
    sock.on("error", () => resolve(false));
  });
}

/** Starts anvil on a free loopback port; resolves to { url, stop() }. */
export async function startAnvil() {
  const port = await freePort();
  const child = spawn(anvilBinary(), ["--host", "127.0.0.1", "--port", String(port), "--hardfork", "prague"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited (${child.exitCode}): ${stderr}`);
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`anvil did not listen on ${port} within 30 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

/** A provider that polls fast (anvil mines at once). */
export function provider(url) {
  const p = new ethers.JsonRpcProvider(url, undefined, { staticNetwork: true, cacheTimeout: -1 });
  p.pollingInterval = 100;
  return p;
}

/**
 * Deploys the channel's blueprint, the two annexes and the tournament's blueprint, then
 * the referee (whose constructor creates the channel and the tournament from the
 * blueprints; each fallback runs its annex),
 * from anvil's first account; resolves to the referee's address.
 */
export async function deployReferee(url) {
  const p = provider(url);
  const deployer = await p.getSigner(0);
  const parts = [];
  for (const name of ["ChessChannelBlueprint", "ChessRefereeAnnex", "ChessChannelAnnex", "ChessTournamentBlueprint"]) {
    const { abi, bytecode } = artifactOf(name);
    const part = await new ethers.ContractFactory(abi, bytecode, deployer).deploy();
    await part.waitForDeployment();
    parts.push(await part.getAddress());
  }
  const { abi, bytecode } = refereeArtifact();
  const contract = await new ethers.ContractFactory(abi, bytecode, deployer).deploy(...parts);
  await contract.waitForDeployment();
  return contract.getAddress();
}

/**
 * Account 1 creates a game as white against account 2 (ETH stake, 10 minutes
 * plus 5 s), account 2 joins. Resolves to { gameId, white, black }.
 */
export async function createGame(url, referee, { stake = ethers.parseEther("1"), startState = "0x" } = {}) {
  const p = provider(url);
  const { abi } = refereeArtifact();
  const white = await p.getSigner(1);
  const black = await p.getSigner(2);
  const asWhite = new ethers.Contract(referee, abi, white);
  // 0: the default first-move window (docs/REFEREE.md).
  const tx = await asWhite.createGame(black.address, true, ethers.ZeroAddress, stake, 600, 5, 0, startState, { value: stake });
  const receipt = await tx.wait();
  const created = receipt.logs.map((l) => asWhite.interface.parseLog(l)).find((e) => e && e.name === "GameCreated");
  const gameId = created.args.gameId;
  // The joiner binds the terms it agreed to (here: those the creation announced).
  await (await new ethers.Contract(referee, abi, black).joinGame(gameId, created.args.terms, { value: stake })).wait();
  return { gameId, white: white.address, black: black.address };
}
