// @ts-check
// The game view: one game's controller (its relay and seat from relay.js, its chain
// methods from chain.js), its clocks, and what the panel shows in each phase: off-chain,
// registered (frozen for the response window), on-chain, ended, or watched.
import { Chess } from "/pkg/chessref_wasm.js";
import { ethers } from "/vendor/ethers/ethers.min.js";
import { $, PATIENCE, app, clockTime, notice, now, showError } from "./page.js";
import { api } from "./server.js";
import { disableInput, drawBoard, enableInput, enablePremoveInput, listMoves, makeBoard, markPremove } from "./board.js";
import { BASE_TITLE, isLowTime, offChainClocks, onChainClocks, replyClocks, showClocks, tabTitle } from "./clock.js";
import { Premove } from "./premove.js";
import { playSound, soundsDue } from "./sounds.js";
import { relay, storageKey } from "./relay.js";
import { AUTO_REGISTERED, chain } from "./chain.js";
import { transact } from "./wallet.js";
import { boardReason, drawOfferNote, eth, offChainOutcome, outcomeWords, settles, shortAddress, timeControl } from "./words.js";

/** The game panel's action buttons: each shown only where it applies. */
const ACTIONS = ["cancel", "offer-draw", "accept-draw", "decline-draw", "resign", "claim-draw", "register", "claim-timeout", "settle", "withdraw", "rematch"];

/** Opens game `id` in the game panel (the lobby hides), closing the one open before. */
export async function openGame(id) {
  app.game?.close();
  showError(null);
  // Nothing of the game before stays: its buttons, its words.
  for (const action of ACTIONS) $(action).hidden = true;
  for (const text of ["state", "notice", "verdict", "draw-note", "you", "opponent", "opponent-rating", "time-control"]) $(text).textContent = "";
  $("result").hidden = true;
  // No sound for the game drawn before this one (sound() waits for this one's first ply),
  // and none of its marks (a rematch opens the next game on the same page).
  for (const mark of ["ply", "synced", "colour", "phase", "premove"]) delete document.body.dataset[mark];
  for (const home of ["lobby", "tournaments"]) $(home).hidden = true;
  $("game").hidden = false;
  makeBoard();
  if (app.account) localStorage.setItem(`chessref:open:${app.net.referee}:${app.account}`, String(id));
  app.game = new Game(id);
  await app.game.start();
}

/** The methods relay.js and chain.js mix into Game (below), as its base class's type. */
const Mixed = /** @type {new () => typeof relay & typeof chain} */ (/** @type {unknown} */ (class {}));

class Game extends Mixed {
  constructor(id) {
    super();
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
    this.declined = null; // the ply (or "chain:<clock>") whose draw offer the player declined
    this.ownOffer = null; // the ply of the player's own latest draw offer off-chain
    this.withdrawn = 0n; // what the player's Withdraw moved to its wallet
    this.sentAt = now(); // when our latest move was sent (or sent again, after a reload)
    this.autoTried = null; // the ply whose automatic registration was tried (once)
    this.autoRegistered = null; // the ply the page registered by itself
    this.registering = false; // a registration is on its way
    this.registration = null; // the frozen registration, while its window runs
    this.taken = null; // the registration transaction whose pair the player took in
    this.answered = null; // "tx:ply": the registration answered with the pair of that ply
    this.closed = false;
    this.cancelled = false; // cancelled from this page before anyone joined
    this.timer = setInterval(() => this.tick(), 100); // tenths under 10 s
    this.chainTimer = null;
    this.premove = new Premove(); // the player's move queued during the opponent's turn
    this.sounded = null; // what the page last sounded for (sounds.js soundsDue)
    // Set by chain.js and relay.js as the game goes on.
    this.info = null; // the referee's getGame
    this.ended = null; // {result, reason} once the chain says the game ended
    /** @type {bigint} */
    this.credit = 0n; // the player's credit on the referee
    this.chainOffset = 0; // the chain's latest block time less this clock's
    this.watched = null; // a spectator's {transcript, report}
    this.shownOutcome = null; // the ending the banner shows, if any
    /** @type {string | undefined} */
    this.startHex = undefined; // the start position, once read (startState)
  }

  /** The game's start position (a state hex, "" for the standard one), read once from the
   * transcript (copied out of the WASM: not on every render). */
  startState() {
    if (this.startHex === undefined && this.player) this.startHex = this.player.transcript().game.startState || "";
    return this.startHex ?? "";
  }

  /** The PGN tags of the game: where, when, who, the time control. */
  pgnTags() {
    const s = this.summary ?? {};
    return {
      Event: `chessref game #${this.id}`,
      Site: location.origin,
      Date: new Date().toISOString().slice(0, 10).replaceAll("-", "."),
      White: s.white ?? "?",
      Black: s.black ?? "?",
      TimeControl: s.initialTime === undefined ? "-" : `${s.initialTime}+${s.increment}`,
    };
  }

  /** The PGN result of the ending shown: "1-0", "0-1", "1/2-1/2", or "*" while it runs. */
  pgnResult() {
    return { 1: "1-0", 2: "0-1", 3: "1/2-1/2" }[this.shownOutcome?.result] ?? "*";
  }

  close() {
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.chainTimer);
    this.socket?.close();
    this.cancelPremove(); // not to be marked on the next game's board
    document.title = BASE_TITLE;
  }

  async start() {
    $("game-id").textContent = `#${this.id}`;
    document.body.dataset.game = String(this.id);
    const view = await api(`/v1/games/${this.id}`);
    this.summary = view;
    $("stake").textContent = BigInt(view.stake) > 0n ? `${eth(view.stake)} ETH each` : "none";
    if (view.initialTime !== undefined) $("time-control").textContent = timeControl(view.initialTime, view.increment);
    if (view.phase === "open") {
      this.renderOpen(view);
      await new Promise((resolve) => {
        const poll = setInterval(async () => {
          if (this.closed || this.cancelled) {
            clearInterval(poll);
            return resolve();
          }
          const v = await api(`/v1/games/${this.id}`).catch(() => null);
          if (v && v.phase !== "open") {
            clearInterval(poll);
            this.summary = v;
            resolve();
          }
        }, 500);
      });
      // Cancelled: the index may tell it before the page's own cancel transaction is
      // confirmed; a game nobody joined has no relay to connect to (it answers 409).
      if (this.closed || this.cancelled || this.summary.phase === "cancelled") return;
      $("cancel").hidden = true;
      notice("");
    }
    if (app.referee) {
      this.chainTimer = setInterval(() => this.followChain().catch(showError), 1000);
      await this.followChain();
    }
    if (!this.onChain || this.resumable()) this.connect();
  }

  /** Waiting for an opponent: the only action is the creator's Cancel (the game cannot be
   * played, offered a draw or resigned before someone joins). */
  renderOpen(view) {
    document.body.dataset.phase = "open";
    const mine = app.account && view.creator?.toLowerCase() === app.account.toLowerCase();
    const invited = view.opponent ? shortAddress(view.opponent) : null;
    $("state").textContent = mine && invited
      ? `Waiting for ${invited} to accept. Your stake of ${eth(view.stake)} ETH is held by the referee until they join or you cancel.`
      : mine
      ? `Waiting for an opponent to join. Your stake of ${eth(view.stake)} ETH is held by the referee until someone joins or you cancel.`
      : "Waiting for an opponent to join.";
    for (const action of ACTIONS) $(action).hidden = action !== "cancel" || !mine;
  }

  /** Cancels the game nobody joined (the referee's cancelGame): the stake is credited to
   * the creator, which the page then offers to withdraw. */
  async cancel() {
    await transact(`cancel game ${this.id}`, app.referee.cancelGame(this.id));
    this.cancelled = true;
    // Nothing to come back to after a reload: the page opens on the lobby.
    localStorage.removeItem(`chessref:open:${app.net.referee}:${app.account}`);
    this.credit = await app.referee.credits(app.account, ethers.ZeroAddress);
    this.renderCancelled();
  }

  renderCancelled(withdrawn = 0n) {
    document.body.dataset.phase = "cancelled";
    const stake = eth(this.summary.stake);
    $("state").textContent = withdrawn > 0n
      ? `Game cancelled. ${eth(withdrawn)} ETH is back in your wallet.`
      : `Game cancelled. Your stake of ${stake} ETH is credited to you on the referee: withdraw it to your wallet.`;
    for (const action of ACTIONS) $(action).hidden = action !== "withdraw" || !(this.credit > 0n);
    $("withdraw").textContent = `Withdraw ${eth(this.credit ?? 0n)} ETH`;
  }

  /** Withdraws the player's whole credit on the referee (a win, a draw's half, a
   * cancelled game's stake) to its wallet. */
  async withdraw() {
    const amount = this.credit ?? 0n;
    await transact("withdraw", app.referee.withdraw(ethers.ZeroAddress));
    this.credit = await app.referee.credits(app.account, ethers.ZeroAddress);
    if (this.cancelled) return this.renderCancelled(amount - this.credit);
    this.withdrawn += amount - this.credit;
    await this.followChain();
  }

  /** A registration is frozen and this browser holds the player's session key (a reload
   * in the window): the relay's welcome gives the seat back, which answers it. */
  resumable() {
    return Boolean(this.registration && app.account && localStorage.getItem(storageKey(this.id, "key")));
  }

  /** Both clocks now: the side to move's runs from the latest stamp, or the player's
   * own receipt of it on its own move (off-chain: what its reply is charged from,
   * CHANNEL.md 8), or from the chain's clock. */
  clocks(view, t = Date.now() / 1000) {
    if (this.frozen) return this.frozen;
    const clocks = this.runningClocks(view, t);
    if (!clocks) return null;
    // Once the game is over (decided, signed or settled) the clocks stay where the players
    // last saw them run: a later read (the signed times, the chain's) must not move them.
    // Opened after the end, they show the signed times.
    if (this.ended || view?.ended || view?.decided) this.frozen = { ...(this.lastRunning ?? clocks), running: null };
    else this.lastRunning = clocks;
    return this.frozen ?? clocks;
  }

  runningClocks(view, t) {
    const due = this.onChain && this.replyDue(view);
    if (due) return replyClocks(this.colour, due.moveBy, view[`${this.colour === "white" ? "black" : "white"}Time`], t);
    if (this.onChain?.at !== undefined) return onChainClocks(this.onChain, t);
    return view ? offChainClocks(view, t) : null;
  }

  /** The opponent's address (checksummed), for a player; null for a spectator. */
  opponentAddress() {
    const white = this.info?.white ?? this.summary?.white;
    const black = this.info?.black ?? this.summary?.black;
    const other = this.colour === "white" ? black : this.colour === "black" ? white : null;
    return other ? ethers.getAddress(other) : null;
  }

  /** How the game ended, or null while it goes on: `{result, reason, signed, settled}`.
   * The chain's result once settled, with the board's reason when the players' signed
   * result was a mate or a draw the board gave (the chain records those as agreement). */
  outcome(view) {
    // The transcript only once the game is over: it is the whole game, copied out of the WASM.
    const over = view && !this.onChain && (view.ended || view.decided);
    const off = over ? offChainOutcome(view, this.player.transcript()) : null;
    if (this.ended) return { result: this.ended.result, reason: off?.signed ? off.reason : this.ended.reason, signed: true, settled: true };
    return off && { ...off, settled: false };
  }

  /** The result banner: who won, how, and what the player won or lost; and what is left
   * to do with the money (Settle and Withdraw, offered to whom they pay, saying how much). */
  renderOutcome(outcome) {
    this.shownOutcome = outcome;
    const banner = $("result");
    banner.hidden = !outcome;
    if (!outcome) {
      delete banner.dataset.outcome;
      return null;
    }
    const stake = this.summary?.stake ?? this.info?.stake ?? 0n;
    const words = outcomeWords({ result: outcome.result, reason: outcome.reason, colour: this.colour, stake });
    const winner = outcome.result === 1 ? "white" : outcome.result === 2 ? "black" : null;
    banner.dataset.outcome = !this.colour ? "watched" : !winner ? "drawn" : winner === this.colour ? "won" : "lost";
    banner.dataset.payout = String(words.payout);
    // The opponent's rematch offer is looked for from now on (rematch.js), here and in the lobby.
    if (this.colour && outcome.signed) app.rematchWith = this.opponentAddress();
    $("result-headline").textContent = words.headline;
    $("result-amount").textContent = words.amount;
    $("settle").textContent = words.payout > 0n ? `Settle: collect ${eth(words.payout)} ETH` : "Settle the result";
    $("withdraw").textContent = `Withdraw ${eth(this.credit ?? 0n)} ETH`;
    let next;
    if (!this.colour) next = "";
    else if (!outcome.signed) next = "Waiting for your opponent's signature of the result…";
    else if (!outcome.settled) {
      next = !settles({ result: outcome.result, colour: this.colour, stake }) ? "Your opponent settles it on-chain."
        : words.payout > 0n ? `Settle it on-chain in one transaction to collect ${eth(words.payout)} ETH.`
        : "Settle the result on-chain: it counts (in a tournament, for the next round) once the referee records it.";
    }
    else if (this.credit > 0n) next = `Settled on-chain: withdraw ${eth(this.credit)} ETH to your wallet.`;
    else if (this.withdrawn > 0n) next = `Settled on-chain. ${eth(this.withdrawn)} ETH is back in your wallet.`;
    else next = "Settled on-chain.";
    $("state").textContent = next;
    return words;
  }

  tick() {
    const view = this.player?.view();
    const clocks = this.clocks(view);
    if (!clocks) return;
    const initial = this.initialTime();
    showClocks(clocks, this.colour, initial);
    const own = this.colour ? clocks[this.colour] : null;
    const playing = !this.ended && (view ? !view.ended && !view.decided : clocks.running !== null);
    document.title = tabTitle({ hidden: document.visibilityState === "hidden", playing, toMove: view ? view.toMove : clocks.running === this.colour, own });
    this.sound(clocks.running === this.colour && own !== null && isLowTime(own, initial));
    this.autoRegister(view);
    // An opponent silent past our patience: show the deadline and offer to register.
    if (view && !this.onChain && !view.ended && !view.toMove && view.ply > 0 && this.colour) {
      const silent = (Date.now() - this.heard) / 1000;
      if (silent >= PATIENCE && $("register").hidden) this.render();
    }
  }

  /** The game's initial time in seconds, once known (the relay's terms, or the lobby's). */
  initialTime() {
    return Number(this.terms?.initialTime ?? this.summary?.initialTime);
  }

  /** Sounds what the board now shows that it did not before: a move (capture, check), the
   * end, the player's own clock entering low time (`low`). */
  sound(low) {
    if (document.body.dataset.ply === undefined) return; // this game is not drawn yet
    const ply = Number(document.body.dataset.ply);
    const sans = ($("moves").dataset.sans || "").split(" ").filter(Boolean);
    // On-chain the move list stops at the registration: no SAN for a later move.
    const now = { ply, san: sans.length === ply ? sans.at(-1) : "", over: !$("result").hidden, low };
    for (const name of soundsDue(this.sounded, now)) {
      playSound(name);
      document.body.dataset.sound = name;
    }
    this.sounded = now;
  }

  /** The opponent's move is in and it is the player's: the queued premove is played now
   * if the WASM mirror finds it legal in the new position (through the seat, as any
   * move: true, the render is play's), else dropped with a sentence. */
  playPremove(view) {
    if (!this.premove.uci || !view.toMove) return false;
    const legal = (fen, uci) => Chess.fromFen(fen).check(uci).legal;
    const due = this.premove.arrive(view.fen, legal);
    if (due?.play) {
      this.play(due.play);
      return true;
    }
    if (due) {
      $("verdict").dataset.legal = "false";
      $("verdict").textContent = due.reason;
    }
    return false;
  }

  render() {
    if (this.closed) return;
    const view = this.player?.view();
    const b = (id, show) => ($(id).hidden = !show);
    document.body.dataset.colour = this.colour || "spectator";
    if (this.onChain) this.premove.cancel(); // premoves are for play off-chain
    if (this.onChain) return this.renderOnChain(view);
    if (!view) return this.renderSpectator();
    if (!view.ended && !view.decided && this.playPremove(view)) return;
    drawBoard(view.fen, view.lastMove?.uci, view.check, this.colour);
    document.body.dataset.ply = String(view.ply);
    if (this.drawn) {
      // When the opponent's move was on this board (the README's latency figure).
      app.timings.seen[this.drawn] = performance.timeOrigin + performance.now();
      this.drawn = null;
    }
    document.body.dataset.phase = view.ended ? "ended" : "offchain";
    listMoves(view.moves, this.startState());
    const outcome = this.outcome(view);
    const words = this.renderOutcome(outcome);
    let state = view.toMove ? "Your move." : "Their move.";
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
    if (!outcome) $("state").textContent = state;
    const playing = !view.ended && !view.decided;
    $("draw-note").textContent = playing && this.colour
      ? drawOfferNote({ ownOffer: this.ownOffer, theirOffer: view.drawOffered, declined: this.declined, ply: view.ply, colour: this.colour })
      : "";
    b("offer-draw", playing && this.ownOffer !== view.ply);
    b("accept-draw", playing && view.drawOffered && this.declined !== view.ply);
    b("decline-draw", playing && view.drawOffered && this.declined !== view.ply);
    b("resign", playing);
    const claimable = playing && this.claimableDraw();
    b("claim-draw", claimable);
    b("register", playing && (offerRegister || claimable));
    b("claim-timeout", false);
    // Settle and Withdraw only for whom they pay.
    const stake = this.summary?.stake ?? this.info?.stake ?? 0n;
    b("settle", Boolean(view.ended) && !this.ended && Boolean(outcome) && settles({ result: outcome.result, colour: this.colour, stake }));
    b("withdraw", Boolean(this.ended) && this.credit > 0n);
    // A rematch once the result is signed and nothing is left to settle for this player.
    b("rematch", Boolean(this.colour) && Boolean(outcome?.signed) && $("settle").hidden);
    if (!playing) this.premove.cancel();
    if (playing && view.toMove) enableInput(view.state, this.colour, (uci) => this.play(uci));
    else if (playing && this.colour) enablePremoveInput(this.colour, this.premove, () => markPremove(this.premove));
    else disableInput();
    markPremove(this.premove);
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

  /** Drops the queued premove (Escape, a right-click on the board); whether there was one. */
  cancelPremove() {
    if (!this.premove.cancel()) return false;
    markPremove(this.premove);
    return true;
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
    listMoves(sans, w.transcript.game.startState || "");
    // Ended by signatures (a result both signed, a resignation): the banner, with the
    // board's reason for a signed mate or drawn position (the chain would say agreement).
    const { call, ends } = w.report.settlement;
    const over = (call === "settle" || call === "resignBySignature") && ends;
    this.renderOutcome(over ? { result: ends[0], reason: ends[1] === 8 ? boardReason(chess.statusName()) ?? 8 : ends[1], signed: true, settled: false } : null);
    $("state").textContent = over ? `Watching: ${w.report.validPlies} signed moves.` : `Watching: ${w.report.validPlies} signed moves, ${chess.turn()} to move.`;
    for (const id of ["offer-draw", "accept-draw", "decline-draw", "resign", "claim-draw", "register", "claim-timeout", "settle", "withdraw", "rematch"]) $(id).hidden = true;
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
      listMoves(held.moves, this.startState());
      document.body.dataset.ply = String(held.ply);
    } else {
      drawBoard(chess.fen(), p.lastMove, chess.inCheck(), this.colour);
      const offchain = view ? view.moves : [];
      listMoves(offchain.slice(0, p.registrations[0]?.ply ?? offchain.length), this.startState());
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
    const outcome = this.outcome(null);
    this.renderOutcome(outcome);
    if (this.ended) {
      document.body.dataset.phase = "ended";
      state = null;
    } else if (inWindow && due) {
      document.body.dataset.phase = "registered";
      const by = this.registration.by.toLowerCase();
      const ply = registered?.ply ?? 0;
      const who = by === app.account?.toLowerCase()
        ? (overtaken ? `You answered a stale registration: now registered at ply ${ply}` : `You took the game on-chain at ply ${ply}`)
        : [this.terms?.white, this.terms?.black].some((a) => a?.toLowerCase() === by)
          ? `Your opponent took the game on-chain at ply ${ply}`
          : `${shortAddress(this.registration.by)} registered the game on-chain at ply ${ply}${overtaken}`;
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
    if (state !== null) $("state").textContent = state;
    const running = !this.ended && !inWindow && Number(this.info?.phase) === 2;
    const mine = this.colour && (chess.turn() === "white") === (this.colour === "white");
    const clocks = this.clocks(null);
    const flagged = clocks && clocks[chess.turn()] === 0;
    const theirs = this.colour === "white" ? "black" : "white";
    const offered = running && Boolean(p.offers?.[theirs]) && this.declined !== `chain:${p.clock}`;
    $("draw-note").textContent = !running || !this.colour ? ""
      : p.offers?.[theirs] ? (offered ? "Your opponent offers a draw." : "You declined the draw offer.")
        : p.offers?.[this.colour] ? "You offered a draw: your opponent can accept it until the next move." : "";
    b("offer-draw", running && Boolean(this.colour) && !p.offers?.[this.colour]);
    b("accept-draw", offered);
    b("decline-draw", offered);
    b("resign", running && Boolean(this.colour));
    b("register", false);
    b("claim-timeout", running && !mine && flagged);
    b("claim-draw", running && mine && this.drawClaim() !== null);
    b("settle", false);
    b("withdraw", Boolean(this.ended) && this.credit > 0n);
    b("rematch", Boolean(this.colour) && Boolean(this.ended));
    if (running && mine) enableInput(p.state, this.colour, (uci) => this.chainMove(uci).catch(showError));
    else if (inWindow && due && !this.registering) enableInput(view.state, this.colour, (uci) => this.directReply(uci));
    else disableInput();
  }
}

// One game's state, its concerns in modules of their own: the relay and seat, the chain.
Object.assign(Game.prototype, relay, chain);
