// @ts-check
// One game on the chain: following it (a registration, the page's, the opponent's or a
// watchtower's, moves play on-chain; an ending is shown), answering a frozen
// registration, registering the player's unacknowledged move by itself, and the referee
// calls of play on-chain. These are methods of the game (game.js mixes them in).
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
import {
  Chess, channelFirstShown, channelPosition, channelRegistration, channelRegistrationPair, channelVerifyTranscript,
  encodeMove, packedToUci, repetitionWitness,
} from "/pkg/chessref_wasm.js";
import { ethers } from "/vendor/ethers/ethers.min.js";
import { $, app, notice, now, revertName, sayWithDetail, showError } from "./page.js";
import { transact } from "./wallet.js";

/** The priority fee of an automatic registration, wei per gas (or the node's suggested
 * tip when higher): it must be included within 30 s (CHANNEL.md 9). */
const AUTO_REGISTER_TIP = 2_000_000_000n;
/** What the page says once it registered an unacknowledged move by itself. */
export const AUTO_REGISTERED = "Your opponent did not confirm your move: it was registered on-chain so your clock is safe";

/** The receipt time a `register` calldata carries (0 for none, or for another call). */
function registrationReceiptTime(calldata) {
  try {
    const call = new ethers.Interface(app.channelAbi).parseTransaction({ data: calldata });
    return call?.name === "register" ? Number(call.args.receipt.seenAt) : 0;
  } catch {
    return 0;
  }
}

/** The game's chain methods. */
export const chain = {
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
  },

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
  },

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
        notice(`The registered move of ply ${move.ply} does not verify here and is ignored.`, e.message);
      }
    }
    this.save();
  },

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
  },

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
      sayWithDetail($("verdict"), "That move cannot be played now.", e.message);
      return this.render();
    }
    this.render();
    this.answerRegistration().catch((e) => showError(e, "registering your reply"));
  },

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
      const receipt = await transact(what, this.sendRegistration(s.calldata));
      const referee = app.net.referee.toLowerCase();
      const took = receipt.logs.some((l) => l.address.toLowerCase() === referee && app.referee.interface.parseLog(l)?.name === "PositionRegistered");
      notice(took
        ? `Ply ${held} is registered on-chain: frozen for the response window in its turn.`
        : `Another registration landed first: the chain recorded when it showed ply ${held}; it is sent again against the new one.`,
      `transaction ${receipt.hash}`);
    } catch (e) {
      showError(e, `${what} failed`);
    } finally {
      this.registering = false;
    }
    await this.followChain();
  },

  /** The verify report of the transcript held: which ChessChannel call settles or
   * registers it, with its calldata. */
  report() {
    return channelVerifyTranscript(this.player.transcript(), now());
  },

  /** Whether to register now. On one's own move the response window runs on one's own
   * clock (CHANNEL.md 7.3): when the window is longer than the time left, registering
   * loses on time, so the page asks first. */
  registerIsSafe() {
    const view = this.player?.view();
    if (this.onChain || !view?.toMove) return true;
    const running = this.clocks(view)?.[this.colour];
    const left = running === undefined ? undefined : Math.floor(running);
    const span = Number(this.terms.responseWindow);
    if (left === undefined || left > span) return true;
    return confirm(`Registering on your own move runs the ${span} s response window on your clock, and you have ${left} s left: you would lose on time. Register anyway?`);
  },

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
      if (registering) await transact(label, this.sendRegistration(s.calldata, { tip }));
      else {
        if (tip) Object.assign(tx, await this.fees());
        await transact(label, app.signer.sendTransaction(tx));
      }
      await this.followChain();
    } finally {
      if (registering) this.registering = false;
    }
  },

  /** Sends a registration (`register` or `registerStart` calldata) through the wallet, with
   * the automatic registration's tip unless `tip` is false, so that the chain takes it as
   * signed. Its receipt must not be later than the block that shows it (`BadReceipt`): a
   * node's clock may run a second behind this one, so the page waits (a few seconds at
   * most) until the chain's time reaches the receipt's. Its gas is the node's estimate plus
   * a quarter: the estimate is exact at the block time it was made at, and a registration
   * costs a little more when a later block shows it (a direct reply counts from that
   * block and is capped by it), which ran the reply out of gas in a block a second later
   * (mined, reverted, the reply lost). */
  async sendRegistration(calldata, { tip = true } = {}) {
    const seenAt = registrationReceiptTime(calldata);
    for (let waited = 0; seenAt > (await this.chainTime()) && waited < 5_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
    }
    const tx = { to: this.domain.verifyingContract, data: calldata, ...(tip ? await this.fees() : {}) };
    const estimate = await app.signer.estimateGas(tx);
    return app.signer.sendTransaction({ ...tx, gasLimit: estimate + estimate / 4n });
  },

  /** The chain's time for a transaction sent now: its pending block's, else the latest
   * block's. */
  async chainTime() {
    const block = (await app.browser.getBlock("pending").catch(() => null)) ?? (await app.browser.getBlock("latest"));
    return block.timestamp;
  },

  /** EIP-1559 fees with a tip of at least AUTO_REGISTER_TIP (or the node's suggestion
   * when higher) and a cap of twice the latest base fee plus the tip. */
  async fees() {
    const [block, data] = await Promise.all([app.browser.getBlock("latest"), app.browser.getFeeData()]);
    const suggested = data.maxPriorityFeePerGas ?? 0n;
    const tip = suggested > AUTO_REGISTER_TIP ? suggested : AUTO_REGISTER_TIP;
    return { maxPriorityFeePerGas: tip, maxFeePerGas: 2n * (block.baseFeePerGas ?? 0n) + tip };
  },

  async chainMove(uci) {
    if (!uci) return this.render();
    const p = this.onChain;
    await transact(`move ${uci}`, app.referee.getFunction("move")(this.id, p.state, p.history, p.clock, encodeMove(uci)));
    await this.followChain();
  },

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
  },

  /** A draw claimable on-chain now: `{keys}` (none for fifty moves), or null. */
  drawClaim() {
    const chess = Chess.fromStateHex(this.onChain.state);
    if (chess.halfmoveClock() >= 100) return { keys: [] };
    const keys = this.witness();
    const current = keys.at(-1);
    return keys.filter((k) => k === current).length >= 3 ? { keys } : null;
  },

  async claimDraw() {
    const p = this.onChain;
    const claim = this.drawClaim();
    await transact("claim the draw", app.referee.claimDraw(this.id, p.state, p.history, p.clock, claim.keys));
    await this.followChain();
  },

  /** A referee call on the current on-chain position (offerDraw, acceptDraw). */
  async chainCall(label, name) {
    const p = this.onChain;
    await transact(label, app.referee.getFunction(name)(this.id, p.state, p.history, p.clock));
    await this.followChain();
  },

  async claimTimeout() {
    const p = this.onChain;
    await transact("claim on time", app.referee.claimTimeout(this.id, p.state, p.history, p.clock));
    await this.followChain();
  },


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
  },
};
