// The example page: reads a ChessReferee game from the chain, lets a person
// pick a move on the board, shows chessref-wasm's verdict (the contract's
// own rules and rejection codes) before anything is signed, and sends it.
//
// Query parameters: rpc (JSON-RPC URL, default http://127.0.0.1:8545),
// referee (contract address), game (game id). The page acts as the player
// to move through the node's unlocked accounts (anvil's dev accounts); a
// real dApp would use the user's wallet instead.
import init, { Chess, encodeMove, packedToUci } from "/pkg/chessref_wasm.js";
import { ethers } from "/vendor/ethers/ethers.min.js";

// Filled glyphs for both sides, coloured by CSS: white pieces stay readable on light squares.
const GLYPHS = { K: "♚", Q: "♛", R: "♜", B: "♝", N: "♞", P: "♟", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const RESULTS = { 1: "white wins", 2: "black wins", 3: "draw", 4: "aborted" };
const REASONS = {
  1: "checkmate", 2: "stalemate", 3: "insufficient material", 4: "seventy-five-move rule", 5: "resignation",
  6: "timeout", 7: "timeout, claimant cannot mate", 8: "agreement", 9: "fifty-move rule", 10: "threefold repetition",
  11: "the flagged player never moved",
};
const FILES = "abcdefgh";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const rpc = params.get("rpc") || "http://127.0.0.1:8545";

/** Everything the page knows; `position` is the triple every referee call takes. */
const app = {
  provider: null,
  referee: null,
  gameId: 0n,
  info: null,
  position: null, // { state, history, clock }
  chess: null,
  selected: null,
  pending: null, // { uci, packed } of a legal move awaiting "Send"
  lastMove: null,
};

function showError(e) {
  $("error").textContent = e ? String(e.shortMessage || e.message || e) : "";
}

/** The game's current (state, history, clock), rebuilt from its events (docs/REFEREE.md section 5). */
async function readPosition() {
  const r = app.referee;
  const id = app.gameId;
  const [created, joined, moves, offers] = await Promise.all([
    r.queryFilter(r.filters.GameCreated(id), 0, "latest"),
    r.queryFilter(r.filters.GameJoined(id), 0, "latest"),
    r.queryFilter(r.filters.MovePlayed(id), 0, "latest"),
    r.queryFilter(r.filters.DrawOffered(id), 0, "latest"),
  ]);
  if (created.length === 0) throw new Error(`game ${id} does not exist on ${await r.getAddress()}`);
  const order = (a, b) => a.blockNumber - b.blockNumber || a.index - b.index;
  const lastMove = moves.sort(order).at(-1);
  const source = lastMove || created[0];
  const clockEvent = [...joined, ...moves, ...offers].sort(order).at(-1);
  return {
    state: source.args.state,
    history: source.args.history,
    clock: clockEvent ? clockEvent.args.clock : 0n,
    lastMove: lastMove ? Number(lastMove.args.move) : null,
  };
}

function squareName(file, rank) {
  return `${FILES[file]}${rank + 1}`;
}

function render() {
  const board = $("board");
  board.textContent = "";
  const pieces = app.chess.board(); // a8 .. h1
  const dests = app.selected ? app.chess.dests().get(app.selected) || [] : [];
  const last = app.lastMove;
  for (let row = 0; row < 8; row++) {
    for (let file = 0; file < 8; file++) {
      const rank = 7 - row;
      const name = squareName(file, rank);
      const piece = pieces[row * 8 + file];
      const cell = document.createElement("button");
      cell.type = "button";
      cell.dataset.square = name;
      cell.className = (file + rank) % 2 === 0 ? "dark" : "light";
      if (piece) {
        cell.textContent = GLYPHS[piece];
        cell.classList.add(piece === piece.toUpperCase() ? "w" : "b");
        cell.setAttribute("aria-label", `${name} ${piece}`);
      } else {
        cell.setAttribute("aria-label", name);
      }
      if (name === app.selected) cell.classList.add("selected");
      if (dests.includes(name)) cell.classList.add("dest");
      if (last && (name === last.slice(0, 2) || name === last.slice(2, 4))) cell.classList.add("last");
      cell.addEventListener("click", () => onSquare(name));
      board.appendChild(cell);
    }
  }
  const c = app.chess;
  $("turn").textContent = c.turn();
  const draws = c.claimableDraws();
  const claim = [draws.threefold && "threefold", draws.fiftyMoves && "fifty moves"].filter(Boolean);
  $("status").textContent =
    c.statusName() + (c.inCheck() ? ", check" : "") + (claim.length ? ` (draw claimable: ${claim.join(", ")})` : "");
  $("ply").textContent = String(c.ply());
  const info = app.info;
  if (info && Number(info.phase) === 3) {
    $("status").textContent += ` — game over: ${RESULTS[Number(info.result)]} by ${REASONS[Number(info.reason)]}`;
  }
}

function isOwnPiece(square) {
  const piece = app.chess.pieceAt(square);
  if (!piece) return false;
  return (piece === piece.toUpperCase()) === (app.chess.turn() === "white");
}

/** The verdict of the contract's rules on a from/to pair, shown before sending. */
function onSquare(square) {
  showError(null);
  if (app.selected === null || square === app.selected || isOwnPiece(square)) {
    // Select (or reselect, or deselect) a piece of the side to move.
    app.selected = square !== app.selected && isOwnPiece(square) ? square : null;
    app.pending = null;
    setVerdict(null, app.selected ? `Selected ${app.selected}: pick a destination.` : "Click a piece of the side to move, then a square.");
    render();
    return;
  }
  const from = app.selected;
  app.selected = null;
  let uci = from + square;
  const piece = app.chess.pieceAt(from);
  if ((piece === "P" && square[1] === "8") || (piece === "p" && square[1] === "1")) uci += $("promotion").value;
  const verdict = app.chess.check(uci);
  const packed = encodeMove(uci);
  if (verdict.legal) {
    const san = app.chess.legalMoveInfos().find((m) => m.uci === uci).san;
    app.pending = { uci, packed };
    setVerdict(true, `✓ legal: ${san} (${uci}, uint24 0x${packed.toString(16).padStart(6, "0")}) — the referee will accept it.`);
  } else {
    app.pending = null;
    setVerdict(false, `✗ ${uci} is illegal: the referee would revert IllegalMove(${verdict.code}) ${verdict.reason} — ${verdict.message}.`);
  }
  render();
}

function setVerdict(legal, text) {
  const v = $("verdict");
  v.dataset.legal = legal === null ? "" : String(legal);
  v.textContent = text;
  $("send").disabled = !(legal && app.info && Number(app.info.phase) === 2);
}

async function send() {
  const move = app.pending;
  if (!move) return;
  $("send").disabled = true;
  showError(null);
  try {
    const mover = app.chess.turn() === "white" ? app.info.white : app.info.black;
    const signer = await app.provider.getSigner(mover);
    const { state, history, clock } = app.position;
    $("tx").textContent = `sending ${move.uci} as ${mover}…`;
    const tx = await app.referee.connect(signer).getFunction("move")(app.gameId, state, history, clock, move.packed);
    const receipt = await tx.wait();
    $("tx").textContent = `${move.uci}: tx ${receipt.hash} in block ${receipt.blockNumber}, gas ${receipt.gasUsed}`;
    app.pending = null;
    await load();
    setVerdict(null, `Played ${move.uci}. Click a piece, then a square.`);
  } catch (e) {
    showError(e);
    $("send").disabled = false;
  }
}

/** Reads the game and its position from the chain and checks it against the on-chain commitment. */
async function load() {
  const r = app.referee;
  app.info = await r.getGame(app.gameId);
  app.position = await readPosition();
  app.chess = Chess.fromStateHex(app.position.state);
  app.lastMove = app.position.lastMove === null ? null : packedToUci(app.position.lastMove) ?? null;
  const { state, history, clock } = app.position;
  const onChain = await r.commitmentOf(app.gameId);
  const ours = await r.positionCommitment(state, history, clock);
  const phase = Number(app.info.phase);
  $("verified").textContent =
    phase !== 2 ? "game not running" : onChain === ours ? "matches the on-chain commitment" : "STALE (does not match the commitment)";
  $("verified").dataset.ok = String(phase !== 2 || onChain === ours);
  $("white").textContent = app.info.white;
  $("black").textContent = app.info.black;
  document.body.dataset.ply = String(app.chess.ply());
  render();
}

async function main() {
  try {
    await init();
    app.provider = new ethers.JsonRpcProvider(rpc, undefined, { staticNetwork: true, cacheTimeout: -1 });
    app.provider.pollingInterval = 100;
    const abi = await (await fetch("/abi/ChessReferee.json")).json();
    const address = params.get("referee");
    if (!address || !ethers.isAddress(address)) throw new Error("give the referee's address: ?referee=0x…&game=1");
    app.referee = new ethers.Contract(address, abi, app.provider);
    app.gameId = BigInt(params.get("game") || "1");
    $("game").textContent = `#${app.gameId}`;
    $("referee").textContent = address;
    $("send").addEventListener("click", send);
    await load();
    document.body.dataset.ready = "true";
  } catch (e) {
    showError(e);
    document.body.dataset.ready = "error";
  }
}

main();
