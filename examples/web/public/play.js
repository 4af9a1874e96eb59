// @ts-check
// A staked game off-chain between two browsers (docs/CHANNEL.md): the lobby of a
// `chessref serve --index` server, the wallet (any EIP-1193 provider found by EIP-6963
// discovery) for what moves money or binds the player, a session key made here and
// kept in this page's storage that signs every move silently, and the relay's WebSocket
// for the signed messages. Every message, ours and the opponent's, goes through
// chessref-wasm's ChannelPlayer before it counts; the chain is used to open the game, to
// settle it, and, when one side stops answering, to rule — then the game goes on
// on-chain on the same board.
//
// The entry point: native ES modules, no build step. play/page.js (shared state),
// server.js (the server's API), wallet.js, lobby.js, tournaments.js (knockout events, their
// brackets and the player's next game; bracket.js says them in words), game.js (the game
// view), board.js,
// clock.js, relay.js (relay and seat), chain.js (following the chain, referee calls),
// controls.js (the buttons), material.js (captured pieces), premove.js, sounds.js,
// rematch.js (offering and answering a rematch; invites.js finds the offer).
//
// Query parameters: server (the chessref server, default this page's origin),
// patience (seconds of an opponent's silence before the page offers to register, 60),
// devwallet (N: anvil's dev account N as the wallet, where `npm run play` serves it).
import init from "/pkg/chessref_wasm.js";
import { ethers } from "/vendor/ethers/ethers.min.js";
import { SERVER, app, params, showError, showHome } from "./play/page.js";
import { api } from "./play/server.js";
import { listenForWallets } from "./play/wallet.js";
import { loadLobby, refreshLobby } from "./play/lobby.js";
import { loadTournaments, refreshTournaments } from "./play/tournaments.js";
import { openGame } from "./play/game.js";
import { wire } from "./play/controls.js";
import { watchRematches } from "./play/rematch.js";

// Once connected: the lobby, and the game this wallet had open (a reload, a come-back).
listenForWallets(async () => {
  await loadLobby();
  if (app.home === "tournaments") await loadTournaments(true);
  const resume = localStorage.getItem(`chessref:open:${app.net.referee}:${app.account}`);
  if (resume && !app.game) await openGame(BigInt(resume));
});

async function main() {
  try {
    await init();
    [app.abi, app.channelAbi, app.tournamentAbi] = await Promise.all(
      ["ChessReferee", "ChessChannel", "ChessTournament"].map(async (name) => (await fetch(`/abi/${name}.json`)).json()),
    );
    const health = await api("/v1/health");
    if (!health.referee) throw new Error(`${SERVER} has not bound a referee yet: is chessref index running?`);
    app.net = { chainId: health.chainId, referee: ethers.getAddress(health.referee) };
    wire();
    // On a local anvil without a wallet extension: `npm run play` serves a dev wallet.
    if (params.has("devwallet")) await import(`/devwallet.js?account=${encodeURIComponent(params.get("devwallet"))}`);
    window.dispatchEvent(new Event("eip6963:requestProvider"));
    await loadLobby();
    // `#tournaments` opens the page on the Tournaments view.
    if (location.hash === "#tournaments") {
      showHome("tournaments");
      await loadTournaments(true);
    }
    document.body.dataset.ready = "true";
    performance.mark("interactive");
    refreshLobby();
    refreshTournaments();
    watchRematches();
  } catch (e) {
    showError(e);
    document.body.dataset.ready = "error";
  }
}

/** @type {any} */ (window).chessref = app; // for the console and the tests
main();
