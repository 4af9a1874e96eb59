// A staked game off-chain between two browsers (docs/CHANNEL.md): the lobby of a
// `chessref serve --index` server, the wallet (any EIP-1193 provider found by EIP-6963
// discovery) for what moves money or binds the player, a session key made here and
// kept in this page's storage that signs every move silently, and the relay's WebSocket
// for the signed messages. Every message, ours and the opponent's, goes through
// chessref-wasm's ChannelPlayer (the same seat `chessref channel play` uses) before it
// counts; the chain is used to open the game, to settle it, and, when one side stops
// answering, to rule — then the game goes on on-chain on the same board.
//
// The player's own move that the opponent has not acknowledged is registered on-chain by
// the page itself at min(sent + 10 s, its stamp + 30 s) (ChannelPlayer.autoRegisterAt,
// CHANNEL.md 9), through the wallet with a 2 gwei tip, without a click: without the
// opponent's receipt the chain takes the move only within 60 s of its stamp.
//
// A registration (the opponent's, or anyone's) freezes the game for its response window
// (CHANNEL.md 7.3). The page reads the registration's transaction, takes its signed pair
// in, held from when the chain first showed each move (ChannelPlayer.receiveShown), and
// answers at once with the same 2 gwei tip: a later pair it holds overtakes the
// registration, and when the player is to move in the registered position the board stays
// playable and the move is registered as the direct reply, which the chain charges by the
// wall clock up to the registration's reply deadline (ChannelPlayer.registerAnswering).
//
// Query parameters: server (the chessref server, default this page's origin),
// patience (seconds of an opponent's silence before the page offers to register, 60),
// devwallet (N: anvil's dev account N as the wallet, where `npm run play` serves it).
import init, {
  Chess, ChannelPlayer, channelAddressOf, channelFirstShown, channelPosition, channelRegistration, channelRegistrationPair,
  channelTypedData, channelVerifyTranscript, encodeMove, packedToUci, repetitionWitness,
} from "/pkg/chessref_wasm.js";
import { ethers } from "/vendor/ethers/ethers.min.js";
import { Chessboard, COLOR, INPUT_EVENT_TYPE } from "/vendor/cm-chessboard/src/Chessboard.js";
import { Markers, MARKER_TYPE } from "/vendor/cm-chessboard/src/extensions/markers/Markers.js";
import { PromotionDialog, PROMOTION_DIALOG_RESULT_TYPE } from "/vendor/cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js";

const params = new URLSearchParams(location.search);
const SERVER = (params.get("server") || location.origin).replace(/\/$/, "");
const PATIENCE = Number(params.get("patience") || 60);
const RESULTS = { 1: "white wins", 2: "black wins", 3: "draw", 4: "aborted" };
const REASONS = {
  1: "checkmate", 2: "stalemate", 3: "insufficient material", 4: "seventy-five-move rule", 5: "resignation",
  6: "timeout", 7: "timeout, claimant cannot mate", 8: "agreement", 9: "fifty-move rule", 10: "threefold repetition",
  11: "the flagged player never moved", 12: "equivocation", 13: "an illegal signed move",
};
/** The priority fee of an automatic registration, wei per gas (or the node's suggested
 * tip when higher): it must be included within 30 s (CHANNEL.md 9). */
const AUTO_REGISTER_TIP = 2_000_000_000n;
/** What the page says once it registered an unacknowledged move by itself. */
const AUTO_REGISTERED = "Your opponent did not confirm your move: it was registered on-chain so your clock is safe";
/** A session key's delegation covers this many plies of increments (CHANNEL.md 9). */
const KEY_PLIES = 600;

const $ = (id) => document.getElementById(id);
const now = () => Math.floor(Date.now() / 1000);
/** A unix time as the player's clock shows it. */
const clockTime = (t) => new Date(t * 1000).toLocaleTimeString();
const short = (a) => (a ? `${a.slice(0, 6)}…${a.slice(-4)}` : "");

const app = {
  abi: null,
  channelAbi: null, // ChessChannel's views and errors
  net: null, // { chainId, referee } from the server
  wallets: new Map(), // EIP-6963 uuid -> { info, provider }
  browser: null, // ethers.BrowserProvider over the chosen wallet
  signer: null,
  account: null,
  referee: null,
  game: null, // the open game's controller
  timings: { sent: {}, seen: {} }, // ply -> when this page sent or drew it (ms since 1970)
};

/** The referee's or the channel's custom error in a revert, by name, if it is one. */
function revertName(e) {
  const data = e?.data ?? e?.info?.error?.data ?? e?.error?.data;
  if (!app.abi || typeof data !== "string") return null;
  for (const abi of [app.abi, app.channelAbi]) {
    try {
      const parsed = abi && new ethers.Interface(abi).parseError(data);
      if (parsed) return `${parsed.name}(${parsed.args.join(", ")})`;
    } catch {
      // not one of this contract's errors
    }
  }
  return `revert data ${data}`;
}

/** Shows `e` (nothing: clears); `what` says what failed. */
function showError(e, what = "") {
  const named = e && revertName(e);
  const text = e ? (named ? `the contract refuses: ${named}` : String(e.shortMessage || e.reason || e.message || e)) : "";
  $("error").textContent = what && text ? `${what}: ${text}` : text;
  if (e) console.warn(e);
}

function notice(text) {
  $("notice").textContent = text;
}

/** The server's JSON, or an error naming what the server said. */
async function api(path) {
  const res = await fetch(SERVER + path);
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${SERVER}${path}: ${body?.error?.message || body?.message || res.status}`);
  return body;
}

// ------------------------------------------------------------------ wallet (EIP-6963)

window.addEventListener("eip6963:announceProvider", (event) => {
  const { info, provider } = event.detail;
  app.wallets.set(info.uuid, { info, provider });
  const select = $("wallets");
  select.textContent = "";
  for (const [uuid, w] of app.wallets) select.add(new Option(w.info.name, uuid));
  const remembered = localStorage.getItem("chessref:wallet");
  if (remembered === info.rdns && !app.account) connect(info.uuid, true).catch(showError);
});

async function connect(uuid, silently = false) {
  const wallet = app.wallets.get(uuid);
  if (!wallet) throw new Error("no wallet found: install one (MetaMask, Rabby, …) and reload");
  const method = silently ? "eth_accounts" : "eth_requestAccounts";
  const accounts = await wallet.provider.request({ method });
  if (!accounts.length) return;
  app.browser = new ethers.BrowserProvider(wallet.provider);
  app.browser.pollingInterval = 250;
  const chainId = Number((await app.browser.getNetwork()).chainId);
  if (chainId !== app.net.chainId) {
    throw new Error(`the wallet is on chain ${chainId}; the server's referee is on chain ${app.net.chainId}: switch networks`);
  }
  app.account = ethers.getAddress(accounts[0]);
  app.signer = await app.browser.getSigner(app.account);
  app.referee = new ethers.Contract(app.net.referee, app.abi, app.signer);
  localStorage.setItem("chessref:wallet", wallet.info.rdns);
  $("account").textContent = `${wallet.info.name}: ${app.account}`;
  $("account").dataset.address = app.account;
  document.body.dataset.connected = "true";
  await loadLobby();
  const resume = localStorage.getItem(`chessref:open:${app.net.referee}:${app.account}`);
  if (resume && !app.game) await openGame(BigInt(resume));
}

/** Sends a referee call through the wallet; resolves to its receipt. */
async function transact(label, promise) {
  notice(`${label}: confirm in your wallet…`);
  const tx = await promise;
  notice(`${label}: tx ${tx.hash} sent, waiting…`);
  const receipt = await tx.wait();
  notice(`${label}: tx ${receipt.hash} in block ${receipt.blockNumber}, gas ${receipt.gasUsed}`);
  return receipt;
}

// ------------------------------------------------------------------ lobby

/** Waits until the server's index holds block `block` (what a transaction just did). */
async function indexed(block) {
  for (;;) {
    const health = await api("/v1/health");
    if (health.indexedBlock >= block) return;
    notice(`waiting for the server to index block ${block}…`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function loadLobby() {
  const [open, running] = await Promise.all([api("/v1/games?state=open&limit=50"), api("/v1/games?state=running&limit=50")]);
  const body = (id) => $(id).querySelector("tbody");
  body("open-games").textContent = "";
  for (const g of open.games) {
    const row = body("open-games").insertRow();
    row.dataset.game = g.id;
    const rating = g.creatorRating ? `${Math.round(g.creatorRating.rating)} ±${Math.round(g.creatorRating.deviation)}` : "unrated";
    for (const text of [`#${g.id}`, g.creator, rating, `${ethers.formatEther(g.stake)} ETH`, `${g.initialTime / 60}+${g.increment}`]) {
      row.insertCell().textContent = text;
    }
    row.cells[1].className = "addr";
    const window = row.insertCell();
    const action = row.insertCell();
    const button = document.createElement("button");
    button.type = "button";
    const mine = app.account && g.creator.toLowerCase() === app.account.toLowerCase();
    button.textContent = mine ? "Open" : "Join";
    button.dataset.action = mine ? "open" : "join";
    button.disabled = !app.account || (g.opponent && g.opponent.toLowerCase() !== app.account.toLowerCase() && !mine);
    button.addEventListener("click", () => (mine ? openGame(BigInt(g.id)) : join(BigInt(g.id))).catch(showError));
    action.append(button);
    if (app.referee) {
      app.referee.getGame(g.id).then((info) => (window.textContent = `${info.responseWindow} s`)).catch(() => {});
    }
  }
  body("running-games").textContent = "";
  for (const g of running.games) {
    const row = body("running-games").insertRow();
    row.dataset.game = g.id;
    for (const text of [`#${g.id}`, g.white, g.black, `${ethers.formatEther(g.stake)} ETH`, String(g.ply)]) row.insertCell().textContent = text;
    row.cells[1].className = row.cells[2].className = "addr";
    const button = document.createElement("button");
    button.type = "button";
    const player = app.account && [g.white, g.black].some((a) => a?.toLowerCase() === app.account.toLowerCase());
    button.textContent = player ? "Play" : "Watch";
    button.dataset.action = player ? "play" : "watch";
    button.addEventListener("click", () => openGame(BigInt(g.id)).catch(showError));
    row.insertCell().append(button);
  }
}

async function create(form) {
  if (!app.referee) throw new Error("connect a wallet first");
  const stake = ethers.parseEther(form.stake.value.trim());
  const opponent = form.opponent.value.trim() || ethers.ZeroAddress;
  if (!ethers.isAddress(opponent)) throw new Error(`opponent ${opponent} is not an address`);
  const receipt = await transact(
    "create",
    app.referee.createChannelGame(opponent, form.colour.value === "white", ethers.ZeroAddress, stake,
      Number(form.minutes.value) * 60, Number(form.increment.value), 0, "0x", Number(form.window.value), { value: stake }),
  );
  const created = receipt.logs.map((l) => app.referee.interface.parseLog(l)).find((e) => e?.name === "GameCreated");
  await indexed(receipt.blockNumber);
  await openGame(created.args.gameId);
}

async function join(id) {
  // The joiner binds the terms it reads (stake, clocks, window, colours): a game whose
  // terms changed since would revert WrongTerms.
  const info = await app.referee.getGame(id);
  const receipt = await transact(`join game ${id}`, app.referee.joinGame(id, info.terms, { value: info.token === ethers.ZeroAddress ? info.stake : 0n }));
  await indexed(receipt.blockNumber);
  await openGame(id);
}

// ------------------------------------------------------------------ the board

let board = null;

function makeBoard() {
  board = new Chessboard($("board"), {
    position: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    assetsUrl: "/vendor/cm-chessboard/assets/",
    style: { animationDuration: 150 },
    extensions: [{ class: Markers, props: { autoMarkers: null } }, { class: PromotionDialog }],
  });
}

/** Draws `fen` with the last move `uci` framed and a checked king marked. */
function drawBoard(fen, uci, check, colour) {
  // data-idle once the pieces stopped moving (a click during an animation is lost).
  delete document.body.dataset.idle;
  board.setPosition(fen, true).then(() => {
    if (document.body.dataset.fen === fen) document.body.dataset.idle = "true";
  });
  const orientation = colour === "black" ? COLOR.black : COLOR.white;
  if (board.getOrientation() !== orientation) board.setOrientation(orientation);
  board.removeMarkers();
  if (uci) {
    board.addMarker(MARKER_TYPE.square, uci.slice(0, 2));
    board.addMarker(MARKER_TYPE.square, uci.slice(2, 4));
  }
  if (check) {
    const turn = fen.split(" ")[1];
    const chess = Chess.fromFen(fen);
    const king = chess.board().findIndex((p) => p === (turn === "w" ? "K" : "k"));
    if (king >= 0) board.addMarker(MARKER_TYPE.circleDanger, "abcdefgh"[king % 8] + (8 - Math.floor(king / 8)));
  }
  document.body.dataset.fen = fen;
}

/** Move input for `colour` on `stateHex`: legal destinations from the WASM, the
 * contract's code for anything else, a promotion choice; `play(uci)` for a legal one. */
function enableInput(stateHex, colour, play) {
  board.disableMoveInput();
  const chess = Chess.fromStateHex(stateHex);
  const dests = chess.dests();
  board.enableMoveInput((event) => {
    switch (event.type) {
      case INPUT_EVENT_TYPE.moveInputStarted:
        if (!dests.has(event.squareFrom)) return false;
        for (const to of dests.get(event.squareFrom)) board.addMarker(MARKER_TYPE.dot, to);
        return true;
      case INPUT_EVENT_TYPE.validateMoveInput: {
        board.removeMarkers(MARKER_TYPE.dot);
        const uci = event.squareFrom + event.squareTo;
        const piece = chess.pieceAt(event.squareFrom);
        const promotes = (piece === "P" && event.squareTo[1] === "8") || (piece === "p" && event.squareTo[1] === "1");
        const verdict = chess.check(promotes ? `${uci}q` : uci);
        if (!verdict.legal) {
          // The contract's own code, before anything is signed.
          $("verdict").dataset.legal = "false";
          $("verdict").textContent = `${uci} is illegal: the referee would revert IllegalMove(${verdict.code}) ${verdict.reason} — ${verdict.message}`;
          return false;
        }
        $("verdict").dataset.legal = "true";
        $("verdict").textContent = "";
        if (promotes) {
          board.showPromotionDialog(event.squareTo, colour === "white" ? COLOR.white : COLOR.black, (result) => {
            if (result.type === PROMOTION_DIALOG_RESULT_TYPE.pieceSelected) play(uci + result.piece.charAt(1));
            else play(null);
          });
          return true;
        }
        play(uci);
        return true;
      }
      case INPUT_EVENT_TYPE.moveInputCanceled:
        board.removeMarkers(MARKER_TYPE.dot);
        return undefined;
      default:
        return undefined;
    }
  }, colour === "white" ? COLOR.white : COLOR.black);
}

// ------------------------------------------------------------------ one game

/** Where this page keeps a game's session key and transcript. */
function storageKey(id, what) {
  return `chessref:${app.net.chainId}:${app.net.referee}:${id}:${app.account}:${what}`;
}

async function openGame(id) {
  app.game?.close();
  showError(null);
  $("lobby").hidden = true;
  $("game").hidden = false;
  if (!board) makeBoard();
  if (app.account) localStorage.setItem(`chessref:open:${app.net.referee}:${app.account}`, String(id));
  app.game = new Game(id);
  await app.game.start();
}

class Game {
  constructor(id) {
    this.id = id;
    this.player = null; // ChannelPlayer, once joined (players only)
    this.domain = null;
    this.terms = null;
    this.colour = null; // "white" | "black" | null (a spectator)
    this.socket = null;
    this.relayed = [];
    this.syncing = null;
    this.heard = Date.now();
    this.onChain = null; // the chain's position once the game was registered
    this.declined = null;
    this.sentAt = now(); // when our latest move was sent (or sent again, after a reload)
    this.autoTried = null; // the ply whose automatic registration was tried (once)
    this.autoRegistered = null; // the ply the page registered by itself
    this.registering = false; // a registration is on its way
    this.registration = null; // the frozen registration, while its window runs
    this.taken = null; // the registration transaction whose pair the player took in
    this.answered = null; // "tx:ply": the registration answered with the pair of that ply
    this.closed = false;
    this.timer = setInterval(() => this.tick(), 250);
    this.chainTimer = null;
  }

  close() {
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.chainTimer);
    this.socket?.close();
  }

  async start() {
    $("game-id").textContent = `#${this.id}`;
    document.body.dataset.game = String(this.id);
    const view = await api(`/v1/games/${this.id}`);
    this.summary = view;
    $("stake").textContent = `${ethers.formatEther(view.stake)} ETH each`;
    if (view.phase === "open") {
      notice("waiting for an opponent to join…");
      document.body.dataset.phase = "open";
      await new Promise((resolve) => {
        const poll = setInterval(async () => {
          if (this.closed) return clearInterval(poll);
          const v = await api(`/v1/games/${this.id}`).catch(() => null);
          if (v && v.phase !== "open") {
            clearInterval(poll);
            this.summary = v;
            resolve();
          }
        }, 500);
      });
    }
    if (app.referee) {
      this.chainTimer = setInterval(() => this.followChain().catch(showError), 1000);
      await this.followChain();
    }
    if (!this.onChain || this.resumable()) this.connect();
  }

  /** A registration is frozen and this browser holds the player's session key (a reload
   * in the window): the relay's welcome gives the seat back, which answers it. */
  resumable() {
    return Boolean(this.registration && app.account && localStorage.getItem(storageKey(this.id, "key")));
  }

  // -------------------------------------------------------------- relay

  connect() {
    if (this.closed || (this.onChain && !this.resumable())) return;
    const url = `${SERVER.replace(/^http/, "ws")}/v1/games/${this.id}/channel`;
    const socket = new WebSocket(url);
    this.socket = socket;
    this.relayed = [];
    // One frame at a time, in order: the welcome may wait for the wallet.
    let queue = Promise.resolve();
    socket.onmessage = (event) => {
      queue = queue.then(() => this.onFrame(JSON.parse(event.data))).catch(showError);
    };
    socket.onclose = () => {
      if (this.socket === socket && !this.closed && !this.onChain) setTimeout(() => this.connect(), 1000);
    };
  }

  send(frames) {
    this.save();
    for (const frame of frames) {
      if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
    }
  }

  save() {
    if (this.player) localStorage.setItem(storageKey(this.id, "transcript"), JSON.stringify(this.player.transcript()));
  }

  async onFrame(frame) {
    switch (frame.type) {
      case "welcome":
        this.domain = frame.domain;
        this.terms = frame.game;
        await this.seat();
        this.syncing = frame.latest;
        if (frame.latest === 0) this.synced();
        break;
      case "message": {
        this.relayed.push(frame.message);
        this.take(frame.message);
        if (this.syncing === frame.seq) this.synced();
        break;
      }
      case "refused":
        showError(`the relay refused a message (${frame.kind}): ${frame.reason}`);
        break;
      default:
        break;
    }
    this.render();
  }

  /** The player's seat: its session key made on first use (never sent) and delegated
   * once by the wallet; a reloaded page takes its stored transcript back. */
  async seat() {
    if (this.player || !app.account) return;
    const me = app.account.toLowerCase();
    this.colour = this.terms.white.toLowerCase() === me ? "white" : this.terms.black.toLowerCase() === me ? "black" : null;
    const opponent = this.colour === "white" ? this.terms.black : this.terms.white;
    $("you").textContent = this.colour ? `${this.colour}, ${app.account}` : `watching as ${app.account}`;
    $("opponent").textContent = this.colour ? opponent : `${this.terms.white} – ${this.terms.black}`;
    api(`/v1/players/${opponent}`).then((p) => {
      $("opponent-rating").textContent = p.games ? `${Math.round(p.rating)} ±${Math.round(p.deviation)} (${p.games} rated game${p.games === 1 ? "" : "s"})` : "unrated";
    }).catch(() => ($("opponent-rating").textContent = "unrated"));
    if (!this.colour) return;
    const keyItem = storageKey(this.id, "key");
    let stored = JSON.parse(localStorage.getItem(keyItem) || "null");
    if (!stored) {
      const sessionKey = newKey();
      const message = {
        gameId: String(this.id),
        sessionKey: channelAddressOf(sessionKey),
        firstPly: 1,
        lastPly: 4294967295,
        expires: now() + 2 * this.terms.initialTime + KEY_PLIES * this.terms.increment + 2 * this.terms.responseWindow,
      };
      const typed = channelTypedData("Delegation", this.domain, message);
      notice("sign the session key's delegation in your wallet (once per game)…");
      const signature = await app.signer.signTypedData(typed.domain, typed.types, typed.message);
      stored = { sessionKey, delegation: { player: this.colour, ...message, signature } };
      localStorage.setItem(keyItem, JSON.stringify(stored));
      notice("");
    }
    this.player = new ChannelPlayer(this.terms, this.domain, app.account, stored.sessionKey, stored.delegation);
    const transcript = localStorage.getItem(storageKey(this.id, "transcript"));
    if (transcript) this.player.restore(JSON.parse(transcript), now());
    // A move of ours still without a receipt is sent again now (resync): counted from here.
    this.sentAt = now();
  }

  /** The backlog is read: send what the relay lacks and what we owe. */
  synced() {
    this.syncing = null;
    document.body.dataset.synced = "true";
    if (this.onChain) {
      // Back for the seat only: play goes on by registrations now.
      this.socket?.close();
      this.socket = null;
      return;
    }
    if (this.player) this.send(this.player.resync(this.relayed, now()));
  }

  /** A relayed message, through the mirror; the seat's answer goes back. */
  take(message) {
    if (!this.player) return this.spectate(message);
    let answer;
    try {
      answer = this.player.receive(message, now());
    } catch (e) {
      // A message that does not verify here changes nothing.
      notice(`a relayed ${message.type} does not verify and is ignored: ${e.message}`);
      return;
    }
    if (answer.received.kind !== "known") this.heard = Date.now();
    if (answer.received.kind === "move") this.drawn = answer.received.ply;
    this.send(answer.send);
  }

  /** A spectator's board: the relay's transcript, checked by the WASM. */
  spectate() {
    clearTimeout(this.spectating);
    this.spectating = setTimeout(async () => {
      const t = await api(`/v1/games/${this.id}/transcript`);
      const report = channelVerifyTranscript(t, now());
      this.watched = { transcript: t, report };
      this.render();
    }, 50);
  }

  play(uci) {
    if (!uci) return this.render();
    try {
      const frames = this.player.play(uci, now());
      this.send(frames);
      this.sentAt = now();
      app.timings.sent[this.player.view().ply] = performance.timeOrigin + performance.now();
    } catch (e) {
      $("verdict").dataset.legal = "false";
      $("verdict").textContent = e.message;
    }
    this.render();
  }

  act(what, ...args) {
    try {
      this.send(this.player[what](...args, now()));
    } catch (e) {
      showError(e);
    }
    this.render();
  }

  // -------------------------------------------------------------- the chain

  /** Follows the game on-chain: a registration (the page's, the opponent's, or a
   * watchtower's overtaking one) moves play on-chain; an ending is shown. */
  async followChain() {
    const r = app.referee;
    const [info, channel, block] = await Promise.all([r.getGame(this.id), r.channelGame(this.id), app.browser.getBlock("latest")]);
    // The chain's time, which a node (or a test) may run ahead of this clock.
    this.chainOffset = block.timestamp - now();
    this.info = info;
    this.channel = channel;
    if (channel.registeredPly > 0n || channel.windowEnd > 0n) {
      const registrations = await r.queryFilter(r.filters.PositionRegistered(this.id), 0, "latest");
      const moves = await r.queryFilter(r.filters.MovePlayed(this.id), 0, "latest");
      const offers = await r.queryFilter(r.filters.DrawOffered(this.id), 0, "latest");
      const order = (a, b) => a.blockNumber - b.blockNumber || a.index - b.index;
      const source = [...registrations, ...moves].sort(order).at(-1);
      const clockEvent = [...registrations, ...moves, ...offers].sort(order).at(-1);
      if (!this.onChain) {
        this.socket?.close();
        this.socket = null;
      }
      if (Number(info.phase) !== 2 && this.onChain?.at !== undefined && !this.frozen) {
        // The game ended on chain: the clocks stop where the chain last had them.
        const c = this.clocks(null);
        this.frozen = { white: c.white, black: c.black, running: null };
      }
      this.onChain = {
        registrations: registrations.map((e) => ({ ply: Number(e.args.ply), tx: e.transactionHash })),
        state: source.args.state,
        history: source.args.history,
        clock: clockEvent.args.clock,
        lastMove: moves.length && order(moves.at(-1), registrations.at(-1)) > 0 ? packedToUci(Number(moves.at(-1).args.move)) : null,
        // The states played on-chain since the (last) registration, for a draw's witness.
        played: moves.filter((m) => order(m, registrations.at(-1)) > 0).map((m) => m.args.state),
        windowEnd: Number(channel.windowEnd),
      };
      // Frozen until its window end, by the chain's clock (a quiet chain mines no block).
      const chainNow = Math.max(block.timestamp, now());
      const registered = registrations.at(-1);
      if (Number(info.phase) === 2 && Number(channel.windowEnd) > chainNow && registered) await this.frozenRegistration(registered);
      else this.registration = null;
      if (Number(info.phase) === 2) {
        const decoded = await r.decodeClock(this.onChain.clock);
        this.onChain.offers = { white: decoded.whiteOffersDraw, black: decoded.blackOffersDraw };
        let clocks;
        try {
          clocks = await r.clocks(this.id, this.onChain.state, this.onChain.history, this.onChain.clock);
        } catch (e) {
          // A registration or a move landed since the events were read: read again next second.
          if (revertName(e)?.startsWith("StalePosition")) return;
          throw e;
        }
        const [whiteLeft, blackLeft, whiteToMove, deadline] = clocks;
        Object.assign(this.onChain, { whiteLeft: Number(whiteLeft), blackLeft: Number(blackLeft), whiteToMove, deadline: Number(deadline), at: now() });
      }
    }
    if (Number(info.phase) === 3) {
      this.ended = { result: Number(info.result), reason: Number(info.reason) };
      const credit = await r.credits(app.account, ethers.ZeroAddress);
      this.credit = credit;
    }
    this.render();
  }

  /** The frozen registration `event` (a PositionRegistered): what its clock word says,
   * its signed pair taken in once (held from when the chain first showed each move), and
   * the answer sent if the player holds a later pair. */
  async frozenRegistration(event) {
    if (this.registration?.tx !== event.transactionHash) {
      const { state, history, clock } = event.args;
      const tx = await event.getTransaction();
      this.registration = {
        ...channelRegistration(clock),
        clock,
        inner: ethers.keccak256(ethers.concat([state, history])),
        tx: event.transactionHash,
        by: tx.from,
        block: event.blockNumber,
        data: tx.data,
      };
    }
    if (!this.player) return;
    if (this.taken !== event.transactionHash) {
      this.taken = event.transactionHash;
      try {
        await this.takeShown(this.registration);
      } catch (e) {
        this.taken = null; // read again next second
        throw e;
      }
    }
    // Not awaited: it follows the chain again once its transaction is in.
    this.answerRegistration().catch((e) => showError(e, "answering the registration"));
  }

  /** Takes the registration's signed pair into the player, each move held from its first
   * showing: the registration's block, or its announcement or showing while frozen. */
  async takeShown(registration) {
    const pair = channelRegistrationPair(registration.data);
    if (!pair) return; // registerStart, or a call through a contract wallet
    const block = await app.browser.getBlock(registration.block);
    const channel = new ethers.Contract(this.domain.verifyingContract, app.channelAbi, app.browser);
    for (const { move, auth } of pair) {
      const hash = channelPosition(move);
      const [announced, whileFrozen] = await Promise.all([channel.announcedAt(hash), channel.shownWhileFrozenAt(hash)]);
      try {
        const received = this.player.receiveShown(move, auth, channelFirstShown(block.timestamp, announced, whileFrozen), now());
        if (received.kind === "move") this.heard = Date.now();
      } catch (e) {
        notice(`the registered move of ply ${move.ply} does not verify here and is ignored: ${e.message}`);
      }
    }
    this.save();
  }

  /** The player to move in the registered position, before its reply is made: `{moveBy,
   * deadline, windowEnd}`, when its signed time runs out, the chain's deadline for its
   * reply (its signed time plus the grace, from when it held the registered move), and the
   * window's end; else null. */
  replyDue(view) {
    const r = this.registration;
    if (!r?.replyDeadline || !view || !this.colour || view.ply !== r.ply || !view.toMove || view.ended || view.decided) return null;
    const signed = this.colour === "white" ? view.whiteTime : view.blackTime;
    // The first move (registerStart) signs no time: only the chain's deadline bounds it.
    const moveBy = r.ply === 0 ? r.replyDeadline : Math.min(view.clockFrom + signed, r.replyDeadline);
    return { moveBy, deadline: r.replyDeadline, windowEnd: r.windowEnd };
  }

  /** The player's move while a registration is frozen: signed by the session key and
   * registered as the direct reply (the relay is not used: play goes on by registrations). */
  directReply(uci) {
    if (!uci) return this.render();
    try {
      this.player.play(uci, now());
      this.save();
      this.sentAt = now();
    } catch (e) {
      $("verdict").dataset.legal = "false";
      $("verdict").textContent = e.message;
      return this.render();
    }
    this.render();
    this.answerRegistration().catch((e) => showError(e, "registering your reply"));
  }

  /** Sends, once per registration and ply held, the register that answers the frozen
   * registration (ChannelPlayer.registerAnswering), with the automatic registration's tip:
   * the player's direct reply, or a later pair that overtakes it. */
  async answerRegistration() {
    const r = this.registration;
    if (!r || !this.player || this.registering || this.closed) return;
    const held = this.player.view().ply;
    const key = `${r.tx}:${held}`;
    if (held <= r.ply || this.answered === key) return;
    // The chain's time, as a transaction sent now sees it (a quiet chain mines no block).
    const s = this.player.registerAnswering(r.inner, r.clock, Math.max(now(), now() + (this.chainOffset || 0)));
    if (!s) return;
    this.answered = key;
    const direct = held === r.ply + 1;
    const what = direct ? `registering your move (ply ${held}) as the reply to the registration of ply ${r.ply}` : `overtaking the registration of ply ${r.ply} with the pair of ply ${held}`;
    this.registering = true;
    try {
      const receipt = await transact(what, app.signer.sendTransaction({ to: this.domain.verifyingContract, data: s.calldata, ...(await this.fees()) }));
      const referee = app.net.referee.toLowerCase();
      const took = receipt.logs.some((l) => l.address.toLowerCase() === referee && app.referee.interface.parseLog(l)?.name === "PositionRegistered");
      notice(took
        ? `ply ${held} is registered on-chain (tx ${receipt.hash}): frozen for the response window in its turn`
        : `another registration landed first: the chain recorded when it showed ply ${held} (tx ${receipt.hash}); it is sent again against the new one`);
    } catch (e) {
      showError(e, `${what} failed`);
    } finally {
      this.registering = false;
    }
    await this.followChain();
  }

  /** The verify report of the transcript held: which ChessChannel call settles or
   * registers it, with its calldata. */
  report() {
    return channelVerifyTranscript(this.player.transcript(), now());
  }

  /** Whether to register now. On one's own move the response window runs on one's own
   * clock (CHANNEL.md 7.3): when the window is longer than the time left, registering
   * loses on time, so the page asks first. */
  registerIsSafe() {
    const view = this.player?.view();
    if (this.onChain || !view?.toMove) return true;
    const left = this.clocks(view)?.[this.colour];
    const span = Number(this.terms.responseWindow);
    if (left === undefined || left > span) return true;
    return confirm(`Registering on your own move runs the ${span} s response window on your clock, and you have ${left} s left: you would lose on time. Register anyway?`);
  }

  /** Sends the ChessChannel call the transcript held calls for, if it is one of `wanted`,
   * through the wallet; `tip`: with a priority fee of at least AUTO_REGISTER_TIP (a
   * registration, which must be included promptly). */
  async channelCall(label, wanted, { tip = wanted.includes("register") } = {}) {
    const report = this.report();
    const s = report.settlement;
    if (!wanted.includes(s.call)) throw new Error(`${label}: the transcript calls for ${s.call} (${s.why})`);
    const tx = { to: this.domain.verifyingContract, data: s.calldata };
    // No automatic registration while one is on its way or not yet followed.
    const registering = s.call === "register" || s.call === "registerStart";
    if (registering) this.registering = true;
    try {
      if (tip) Object.assign(tx, await this.fees());
      await transact(label, app.signer.sendTransaction(tx));
      await this.followChain();
    } finally {
      if (registering) this.registering = false;
    }
  }

  /** EIP-1559 fees with a tip of at least AUTO_REGISTER_TIP (or the node's suggestion
   * when higher) and a cap of twice the latest base fee plus the tip. */
  async fees() {
    const [block, data] = await Promise.all([app.browser.getBlock("latest"), app.browser.getFeeData()]);
    const suggested = data.maxPriorityFeePerGas ?? 0n;
    const tip = suggested > AUTO_REGISTER_TIP ? suggested : AUTO_REGISTER_TIP;
    return { maxPriorityFeePerGas: tip, maxFeePerGas: 2n * (block.baseFeePerGas ?? 0n) + tip };
  }

  async chainMove(uci) {
    if (!uci) return this.render();
    const p = this.onChain;
    await transact(`move ${uci}`, app.referee.getFunction("move")(this.id, p.state, p.history, p.clock, encodeMove(uci)));
    await this.followChain();
  }

  /** The repetition keys since the last capture or pawn move, oldest first, ending with
   * the current position's (the witness `claimDraw` takes), from the signed moves up to
   * the registration and the moves played on-chain since. */
  witness() {
    const p = this.onChain;
    const registered = p.registrations.at(-1)?.ply ?? 0;
    const t = this.player?.transcript();
    const signed = t ? t.moves.filter((m) => m.ply <= registered).map((m) => m.state) : [];
    // An empty string is the standard start, as the WASM reads it.
    return repetitionWitness([t?.game.startState || "", ...signed, ...p.played]);
  }

  /** A draw claimable on-chain now: `{keys}` (none for fifty moves), or null. */
  drawClaim() {
    const chess = Chess.fromStateHex(this.onChain.state);
    if (chess.halfmoveClock() >= 100) return { keys: [] };
    const keys = this.witness();
    const current = keys.at(-1);
    return keys.filter((k) => k === current).length >= 3 ? { keys } : null;
  }

  async claimDraw() {
    const p = this.onChain;
    const claim = this.drawClaim();
    await transact("claim the draw", app.referee.claimDraw(this.id, p.state, p.history, p.clock, claim.keys));
    await this.followChain();
  }

  /** A referee call on the current on-chain position (offerDraw, acceptDraw). */
  async chainCall(label, name) {
    const p = this.onChain;
    await transact(label, app.referee.getFunction(name)(this.id, p.state, p.history, p.clock));
    await this.followChain();
  }

  async claimTimeout() {
    const p = this.onChain;
    await transact("claim on time", app.referee.claimTimeout(this.id, p.state, p.history, p.clock));
    await this.followChain();
  }

  // -------------------------------------------------------------- drawing

  /** Both clocks now: the side to move's runs from the latest stamp, or the player's
   * own receipt of it on its own move (off-chain: what its reply is charged from,
   * CHANNEL.md 8), or from the chain's clock. */
  clocks(view) {
    if (this.ended && this.frozen) return this.frozen;
    const due = this.onChain && this.replyDue(view);
    if (due) {
      // The player's clock runs from when it held the registered move, to its deadline.
      const other = this.colour === "white" ? "black" : "white";
      const left = Math.max(0, due.moveBy - now());
      return { [this.colour]: left, [other]: view[`${other}Time`], running: this.colour };
    }
    if (this.onChain?.at !== undefined) {
      const since = now() - this.onChain.at;
      const white = this.onChain.whiteLeft - (this.onChain.whiteToMove ? since : 0);
      const black = this.onChain.blackLeft - (this.onChain.whiteToMove ? 0 : since);
      return { white: Math.max(0, white), black: Math.max(0, black), running: this.onChain.whiteToMove ? "white" : "black" };
    }
    if (!view) return null;
    const since = view.ply > 0 && !view.ended && !view.decided ? Math.max(0, now() - view.clockFrom) : 0;
    return {
      white: Math.max(0, view.whiteTime - (view.turn === "white" ? since : 0)),
      black: Math.max(0, view.blackTime - (view.turn === "black" ? since : 0)),
      running: view.ply > 0 && !view.ended && !view.decided ? view.turn : null,
    };
  }

  tick() {
    const view = this.player?.view();
    const clocks = this.clocks(view);
    if (!clocks) return;
    const bottom = this.colour === "black" ? "black" : "white";
    const top = bottom === "white" ? "black" : "white";
    for (const [id, side] of [["clock-top", top], ["clock-bottom", bottom]]) {
      const el = $(id);
      const t = clocks[side];
      el.querySelector(".who").textContent = side;
      el.querySelector(".time").textContent = `${Math.floor(t / 60)}:${String(t % 60).padStart(2, "0")}`;
      el.classList.toggle("running", clocks.running === side);
      el.classList.toggle("low", t < 30);
      el.dataset.seconds = String(t);
    }
    this.autoRegister(view);
    // An opponent silent past our patience: show the deadline and offer to register.
    if (view && !this.onChain && !view.ended && !view.toMove && view.ply > 0 && this.colour) {
      const silent = (Date.now() - this.heard) / 1000;
      if (silent >= PATIENCE && $("register").hidden) this.render();
    }
  }

  /** Registers the player's own move by itself once the rule's time came without the
   * opponent's receipt (ChannelPlayer.autoRegisterAt), once a ply, and says so. */
  autoRegister(view) {
    if (!view || !this.colour || this.onChain || this.registering || this.closed) return;
    const at = this.player.autoRegisterAt(this.sentAt);
    if (at === undefined || now() < at || this.autoTried === view.ply) return;
    this.autoTried = view.ply;
    const ply = view.ply;
    this.channelCall("your move has no receipt: registering it", ["register"], { tip: true })
      .then(() => {
        this.autoRegistered = ply;
        document.body.dataset.autoRegistered = String(ply);
        notice(AUTO_REGISTERED);
        this.render();
      })
      .catch(showError);
  }

  render() {
    if (this.closed) return;
    const view = this.player?.view();
    const b = (id, show) => ($(id).hidden = !show);
    document.body.dataset.colour = this.colour || "spectator";
    if (this.onChain) return this.renderOnChain(view);
    if (!view) return this.renderSpectator();
    drawBoard(view.fen, view.lastMove?.uci, view.check, this.colour);
    document.body.dataset.ply = String(view.ply);
    if (this.drawn) {
      // When the opponent's move was on this board (the README's latency figure).
      app.timings.seen[this.drawn] = performance.timeOrigin + performance.now();
      this.drawn = null;
    }
    document.body.dataset.phase = view.ended ? "ended" : "offchain";
    listMoves(view.moves);
    let state = this.ended
      ? `settled on-chain: ${RESULTS[this.ended.result]} by ${REASONS[this.ended.reason] || this.ended.reason}`
      : view.ended
      ? `ended off-chain by a signed ${view.ended}: settle it on-chain in one transaction`
      : view.decided
        ? `${RESULTS[view.decided]} (${view.status.toLowerCase()}): agreeing…`
        : view.toMove ? "your move" : "their move";
    const silent = (Date.now() - this.heard) / 1000;
    const waiting = !view.ended && !view.toMove && view.ply > 0;
    const offerRegister = waiting && silent >= PATIENCE;
    if (offerRegister) {
      const acknowledged = this.player.transcript().moves.at(-1)?.receipt;
      const auto = this.player.autoRegisterAt(this.sentAt);
      state = acknowledged
        ? `the opponent has not answered for ${Math.floor(silent)} s: register the position to go on on-chain (their clock runs)`
        : `the opponent has not acknowledged your move for ${Math.floor(silent)} s: ${auto === undefined ? "" : `this page registers it by itself at ${new Date(auto * 1000).toLocaleTimeString()}, or `}register before ${new Date((view.stamp + 60) * 1000).toLocaleTimeString()} (60 s after its stamp)`;
    }
    $("state").textContent = state;
    const playing = !view.ended && !view.decided;
    b("offer-draw", playing);
    b("accept-draw", playing && view.drawOffered && this.declined !== view.ply);
    b("decline-draw", playing && view.drawOffered && this.declined !== view.ply);
    b("resign", playing);
    const claimable = playing && this.claimableDraw();
    b("claim-draw", claimable);
    b("register", playing && (offerRegister || claimable));
    b("claim-timeout", false);
    b("settle", Boolean(view.ended) && !this.ended);
    b("withdraw", Boolean(this.ended) && this.credit > 0n);
    if (playing && view.toMove) enableInput(view.state, this.colour, (uci) => this.play(uci));
    else board.disableMoveInput();
  }

  /** Whether a draw is claimable now (threefold or fifty moves), by the WASM replaying
   * the signed moves. */
  claimableDraw() {
    const t = this.player.transcript();
    const chess = t.game.startState ? Chess.fromStateHex(t.game.startState) : new Chess();
    for (const m of t.moves) chess.playPacked(m.mv);
    const d = chess.claimableDraws();
    return d.threefold || d.fiftyMoves;
  }

  renderSpectator() {
    const w = this.watched;
    document.body.dataset.phase = "watching";
    if (!w) return;
    const chess = w.transcript.game.startState ? Chess.fromStateHex(w.transcript.game.startState) : new Chess();
    const sans = [];
    let last = null;
    for (const m of w.transcript.moves.slice(0, w.report.validPlies)) {
      const info = chess.playPacked(m.mv);
      sans.push(info.san);
      last = info.uci;
    }
    drawBoard(chess.fen(), last, chess.inCheck(), "white");
    document.body.dataset.ply = String(chess.ply());
    listMoves(sans);
    $("state").textContent = `watching: ${w.report.validPlies} signed plies, ${w.report.settlement.why}`;
    for (const id of ["offer-draw", "accept-draw", "decline-draw", "resign", "claim-draw", "register", "claim-timeout", "settle", "withdraw"]) $(id).hidden = true;
  }

  renderOnChain(view) {
    const p = this.onChain;
    const b = (id, show) => ($(id).hidden = !show);
    const chess = Chess.fromStateHex(p.state);
    const registered = p.registrations.at(-1);
    // While frozen, the board is what the player holds: the registered position taken in,
    // and its reply once made.
    const held = this.registration && view && view.ply >= this.registration.ply ? view : null;
    if (held) {
      drawBoard(held.fen, held.lastMove?.uci, held.check, this.colour);
      listMoves(held.moves);
      document.body.dataset.ply = String(held.ply);
    } else {
      drawBoard(chess.fen(), p.lastMove, chess.inCheck(), this.colour);
      const offchain = view ? view.moves : [];
      listMoves(offchain.slice(0, p.registrations[0]?.ply ?? offchain.length));
      document.body.dataset.ply = String(chess.ply());
    }
    const due = this.replyDue(view);
    if (due) {
      document.body.dataset.replyBy = String(due.moveBy);
      document.body.dataset.replyDeadline = String(due.deadline);
    } else {
      delete document.body.dataset.replyBy;
      delete document.body.dataset.replyDeadline;
    }
    const overtaken = p.registrations.length > 1 ? `; a stale registration was answered: now registered at ply ${registered.ply}` : "";
    const inWindow = p.windowEnd > now() + (this.chainOffset || 0);
    let state;
    if (this.ended) {
      document.body.dataset.phase = "ended";
      state = `ended on-chain: ${RESULTS[this.ended.result]} by ${REASONS[this.ended.reason] || this.ended.reason}`;
    } else if (inWindow && due) {
      document.body.dataset.phase = "registered";
      const by = this.registration.by.toLowerCase();
      const ply = registered?.ply ?? 0;
      const who = by === app.account?.toLowerCase()
        ? (overtaken ? `You answered a stale registration: now registered at ply ${ply}` : `You took the game on-chain at ply ${ply}`)
        : [this.terms?.white, this.terms?.black].some((a) => a?.toLowerCase() === by)
          ? `Your opponent took the game on-chain at ply ${ply}`
          : `${short(this.registration.by)} registered the game on-chain at ply ${ply}${overtaken}`;
      state = `${who}: your move, by ${clockTime(due.moveBy)} (the chain's deadline for your reply is ${clockTime(due.deadline)}), or you lose on time. It is registered on-chain as your reply; the chain decides after ${clockTime(due.windowEnd)}.`;
    } else if (inWindow) {
      document.body.dataset.phase = "registered";
      const auto = this.autoRegistered !== null && registered?.ply === this.autoRegistered ? `${AUTO_REGISTERED}. ` : "";
      const reply = this.registration?.replyDeadline ? `; ${chess.turn()} must answer by ${clockTime(this.registration.replyDeadline)}` : "";
      state = `${auto}registered on-chain at ply ${registered?.ply ?? 0}${overtaken}${reply}; anyone holding a later signed pair can overtake it until ${clockTime(p.windowEnd)}, then play goes on on-chain`;
    } else {
      document.body.dataset.phase = "onchain";
      const mine = (chess.turn() === "white") === (this.colour === "white");
      state = `on-chain${overtaken}: ${mine ? "your move (a transaction)" : "their move"}`;
    }
    $("state").textContent = state;
    const running = !this.ended && !inWindow && Number(this.info?.phase) === 2;
    const mine = this.colour && (chess.turn() === "white") === (this.colour === "white");
    const clocks = this.clocks(null);
    const flagged = clocks && clocks[chess.turn()] === 0;
    const theirs = this.colour === "white" ? "black" : "white";
    const offered = running && Boolean(p.offers?.[theirs]) && this.declined !== `chain:${p.clock}`;
    b("offer-draw", running && Boolean(this.colour) && !p.offers?.[this.colour]);
    b("accept-draw", offered);
    b("decline-draw", offered);
    b("resign", running && Boolean(this.colour));
    b("register", false);
    b("claim-timeout", running && !mine && flagged);
    b("claim-draw", running && mine && this.drawClaim() !== null);
    b("settle", false);
    b("withdraw", Boolean(this.ended) && this.credit > 0n);
    if (running && mine) enableInput(p.state, this.colour, (uci) => this.chainMove(uci).catch(showError));
    else if (inWindow && due && !this.registering) enableInput(view.state, this.colour, (uci) => this.directReply(uci));
    else board.disableMoveInput();
  }
}

/** The move list, a numbered line per move: "e4 e5". */
function listMoves(sans) {
  const list = $("moves");
  list.textContent = "";
  for (let i = 0; i < sans.length; i += 2) {
    list.append(Object.assign(document.createElement("li"), { textContent: sans.slice(i, i + 2).join(" ") }));
  }
  list.dataset.sans = sans.join(" ");
}

/** 32 random bytes that are a valid secp256k1 key (crypto.getRandomValues). */
function newKey() {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const hex = `0x${Array.from(bytes, (x) => x.toString(16).padStart(2, "0")).join("")}`;
    try {
      channelAddressOf(hex);
      return hex;
    } catch {
      // zero or above the curve order: draw again
    }
  }
}

// ------------------------------------------------------------------ buttons

function wire() {
  $("connect").addEventListener("click", () => connect($("wallets").value).catch(showError));
  $("create").addEventListener("submit", (e) => {
    e.preventDefault();
    create(e.target).catch(showError);
  });
  const game = () => app.game;
  // Off-chain each is a signed message; on-chain (after a registration), a transaction.
  $("offer-draw").addEventListener("click", () => {
    const g = game();
    if (g.onChain) g.chainCall("offer a draw", "offerDraw").catch(showError);
    else g.act("offerDraw");
  });
  $("accept-draw").addEventListener("click", () => {
    const g = game();
    if (g.onChain) g.chainCall("accept the draw", "acceptDraw").catch(showError);
    else g.act("signResult", 3);
  });
  $("decline-draw").addEventListener("click", () => {
    const g = game();
    g.declined = g.onChain ? `chain:${g.onChain.clock}` : g.player.view().ply;
    g.render();
  });
  $("resign").addEventListener("click", () => {
    if (!confirm("Resign this game?")) return;
    const g = game();
    if (g.onChain) transact("resign", app.referee.resign(g.id)).then(() => g.followChain()).catch(showError);
    else g.act("resign");
  });
  $("register").addEventListener("click", () => {
    const g = game();
    if (g.registerIsSafe()) g.channelCall("register", ["register", "registerStart"]).catch(showError);
  });
  $("claim-draw").addEventListener("click", () => {
    // Off-chain a draw is claimed from a registered position (CHANNEL.md 7.5): register
    // first; once the window is over the page offers the claim itself.
    const g = game();
    if (g.onChain) g.claimDraw().catch(showError);
    else if (g.registerIsSafe()) g.channelCall("register to claim the draw", ["register", "registerStart"]).catch(showError);
  });
  $("settle").addEventListener("click", () => game().channelCall("settle", ["settle", "resignBySignature"]).catch(showError));
  $("claim-timeout").addEventListener("click", () => game().claimTimeout().catch(showError));
  $("withdraw").addEventListener("click", async () => {
    try {
      await transact("withdraw", app.referee.withdraw(ethers.ZeroAddress));
      await game().followChain();
    } catch (e) {
      showError(e);
    }
  });
  $("download").addEventListener("click", () => {
    const g = game();
    const t = g.player ? g.player.transcript() : g.watched?.transcript;
    const a = Object.assign(document.createElement("a"), {
      href: URL.createObjectURL(new Blob([JSON.stringify(t, null, 2)], { type: "application/json" })),
      download: `chessref-game-${g.id}.json`,
    });
    a.click();
  });
  $("back").addEventListener("click", () => {
    app.game?.close();
    app.game = null;
    if (app.account) localStorage.removeItem(`chessref:open:${app.net.referee}:${app.account}`);
    $("game").hidden = true;
    $("lobby").hidden = false;
    loadLobby().catch(showError);
  });
}

async function main() {
  try {
    await init();
    [app.abi, app.channelAbi] = await Promise.all(["ChessReferee", "ChessChannel"].map(async (name) => (await fetch(`/abi/${name}.json`)).json()));
    const health = await api("/v1/health");
    if (!health.referee) throw new Error(`${SERVER} has not bound a referee yet: is chessref index running?`);
    app.net = { chainId: health.chainId, referee: ethers.getAddress(health.referee) };
    wire();
    // On a local anvil without a wallet extension: `npm run play` serves a dev wallet.
    if (params.has("devwallet")) await import(`/devwallet.js?account=${encodeURIComponent(params.get("devwallet"))}`);
    window.dispatchEvent(new Event("eip6963:requestProvider"));
    await loadLobby();
    document.body.dataset.ready = "true";
    performance.mark("interactive");
  } catch (e) {
    showError(e);
    document.body.dataset.ready = "error";
  }
}

window.chessref = app; // for the console and the tests
main();
