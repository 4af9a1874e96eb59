// @ts-check
// One game's relay and seat: the relay's WebSocket for the signed messages, and the
// player's seat (chessref-wasm's ChannelPlayer, the same seat `chessref channel play`
// uses) that every message, ours and the opponent's, goes through before it counts. The
// session key is made here, kept in this page's storage and never sent; the wallet
// delegates to it once per game. These are methods of the game (game.js mixes them in).
import { ChannelPlayer, channelAddressOf, channelTypedData, channelVerifyTranscript } from "/pkg/chessref_wasm.js";
import { ethers } from "/vendor/ethers/ethers.min.js";
import { $, SERVER, app, notice, now, sayWithDetail, showError } from "./page.js";
import { api } from "./server.js";
import { outdated } from "./errors.js";
import { ratingText, shortAddress, timeControl } from "./words.js";

/** A session key's delegation covers this many plies of increments (CHANNEL.md 9). */
const KEY_PLIES = 600;

/** Where this page keeps a game's session key and transcript. */
export function storageKey(id, what) {
  return `chessref:${app.net.chainId}:${app.net.referee}:${id}:${app.account}:${what}`;
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

/** The game's relay and seat methods. */
export const relay = {
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
  },

  send(frames) {
    this.save();
    for (const frame of frames) {
      if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
    }
  },

  save() {
    if (this.player) localStorage.setItem(storageKey(this.id, "transcript"), JSON.stringify(this.player.transcript()));
  },

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
  },

  /** The player's seat: its session key made on first use (never sent) and delegated
   * once by the wallet; a reloaded page takes its stored transcript back. */
  async seat() {
    if (this.player || !app.account) return;
    const me = app.account.toLowerCase();
    this.colour = this.terms.white.toLowerCase() === me ? "white" : this.terms.black.toLowerCase() === me ? "black" : null;
    // As the wallet shows addresses: checksummed (the relay's terms are lower case).
    const opponent = ethers.getAddress(this.colour === "white" ? this.terms.black : this.terms.white);
    $("you").textContent = this.colour ? `${this.colour}, ${shortAddress(app.account)}` : `watching as ${shortAddress(app.account)}`;
    $("opponent").textContent = this.colour ? shortAddress(opponent) : `${shortAddress(ethers.getAddress(this.terms.white))} – ${shortAddress(ethers.getAddress(this.terms.black))}`;
    $("opponent").title = this.colour ? opponent : "";
    $("time-control").textContent = timeControl(this.terms.initialTime, this.terms.increment);
    api(`/v1/players/${opponent}`).then((p) => {
      $("opponent-rating").textContent = p.games ? `${ratingText(p)} (${p.games} rated game${p.games === 1 ? "" : "s"})` : ratingText(null);
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
    const offer = localStorage.getItem(storageKey(this.id, "offer"));
    if (offer !== null) this.ownOffer = Number(offer);
    // A move of ours still without a receipt is sent again now (resync): counted from here.
    this.sentAt = now();
  },

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
  },

  /** A relayed message, through the mirror; the seat's answer goes back. */
  take(message) {
    // A spectator reads the relay's whole transcript again: the message only says it changed.
    if (!this.player) return this.spectate();
    let answer;
    try {
      answer = this.player.receive(message, now());
    } catch (e) {
      // A message that does not verify here changes nothing. One that is merely out of
      // date (the relay's backlog after a reload) is not worth a word.
      if (outdated(message, this.player.view().ply)) return;
      notice(`A relayed ${message.type} does not verify and is ignored.`, e.message);
      return;
    }
    if (answer.received.kind !== "known") this.heard = Date.now();
    if (answer.received.kind === "move") this.drawn = answer.received.ply;
    this.send(answer.send);
  },

  /** A spectator's board: the relay's transcript, checked by the WASM. */
  spectate() {
    clearTimeout(this.spectating);
    this.spectating = setTimeout(async () => {
      const t = await api(`/v1/games/${this.id}/transcript`);
      const report = channelVerifyTranscript(t, now());
      this.watched = { transcript: t, report };
      this.render();
    }, 50);
  },

  play(uci) {
    if (!uci) return this.render();
    try {
      const frames = this.player.play(uci, now());
      this.send(frames);
      this.sentAt = now();
      app.timings.sent[this.player.view().ply] = performance.timeOrigin + performance.now();
    } catch (e) {
      // The board offers only legal moves: what is left is a move the seat cannot sign now.
      $("verdict").dataset.legal = "false";
      sayWithDetail($("verdict"), "That move cannot be played now.", e.message);
    }
    this.render();
  },

  act(what, ...args) {
    if (!this.player) return; // a spectator, or before the game started: nothing to sign
    try {
      this.send(this.player[what](...args, now()));
    } catch (e) {
      showError(e);
    }
    this.render();
  },
};
