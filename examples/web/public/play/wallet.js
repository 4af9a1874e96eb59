// @ts-check
// The player's wallet: any EIP-1193 provider found by EIP-6963 discovery, asked only for
// what moves money or binds the player (a stake, the session key's delegation, a
// settlement, a registration, a withdrawal).
import { ethers } from "/vendor/ethers/ethers.min.js";
import { $, app, notice, showError } from "./page.js";
import { shortAddress } from "./words.js";

/** What the page does once a wallet is connected (the lobby, the game to resume). */
let onConnected = async () => {};

/** Lists the wallets that announce themselves, reconnects silently to the one used last,
 * and calls `connected` after each connection. */
export function listenForWallets(connected) {
  onConnected = connected;
  window.addEventListener("eip6963:announceProvider", (event) => {
    const { info, provider } = /** @type {CustomEvent} */ (event).detail;
    app.wallets.set(info.uuid, { info, provider });
    const select = /** @type {HTMLSelectElement} */ ($("wallets"));
    select.textContent = "";
    for (const [uuid, w] of app.wallets) select.add(new Option(w.info.name, uuid));
    const remembered = localStorage.getItem("chessref:wallet");
    if (remembered === info.rdns && !app.account) connect(info.uuid, true).catch(showError);
  });
}

/** Connects the wallet `uuid` (`silently`: only if it already granted this page). */
export async function connect(uuid, silently = false) {
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
  $("account").textContent = `${wallet.info.name}: ${shortAddress(app.account)}`;
  $("account").title = app.account;
  $("account").dataset.address = app.account;
  // Connected: nothing left to choose or click.
  $("wallets").hidden = true;
  $("connect").hidden = true;
  document.body.dataset.connected = "true";
  await onConnected();
}

/** Sends a contract call through the wallet; resolves to its receipt. `say` tells the
 * player where it stands (default: the game panel's notice line). */
export async function transact(label, promise, say = notice) {
  const what = label.charAt(0).toUpperCase() + label.slice(1);
  say(`${what}: confirm in your wallet…`);
  const tx = await promise;
  say(`${what}: sent, waiting for the chain…`, `transaction ${tx.hash}`);
  const receipt = await tx.wait();
  say(`${what}: done.`, `transaction ${receipt.hash} in block ${receipt.blockNumber}, gas ${receipt.gasUsed}`);
  return receipt;
}
