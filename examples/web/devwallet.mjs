// A stand-in for a wallet extension, for the tests and for trying the page on anvil
// without one (`npm run play`, `?devwallet=N`): an EIP-1193 provider, announced by
// EIP-6963 like MetaMask and its peers, that forwards every request to anvil and lets
// anvil sign as one of its unlocked dev accounts. It records each request a real wallet
// would ask its user to confirm (window.__walletConfirmations). Never for real funds.

/** The init script that injects the wallet of `account` over the node at `rpc`. */
export function walletScript(rpc, account) {
  const body = (RPC, ACCOUNT) => {
    const CONFIRM = ["eth_sendTransaction", "eth_signTypedData_v4", "personal_sign", "eth_sign"];
    window.__walletConfirmations = [];
    let id = 0;
    async function forward(method, params) {
      const res = await fetch(RPC, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: params || [] }),
      });
      const answer = await res.json();
      if (answer.error) {
        const e = new Error(answer.error.message);
        e.code = answer.error.code;
        e.data = answer.error.data;
        throw e;
      }
      return answer.result;
    }
    const provider = {
      async request({ method, params }) {
        if (method === "eth_requestAccounts" || method === "eth_accounts") return [ACCOUNT];
        if (CONFIRM.includes(method)) window.__walletConfirmations.push(method);
        return forward(method, params);
      },
      on() {},
      removeListener() {},
    };
    const info = {
      uuid: "8b1e4b1c-2f37-4a8e-9b5a-6c1e0e0c0d01",
      name: "anvil test wallet",
      icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E",
      rdns: "dev.chessref.testwallet",
    };
    const announce = () =>
      window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
    window.addEventListener("eip6963:requestProvider", announce);
    announce();
  };
  return `(${body})(${JSON.stringify(rpc)}, ${JSON.stringify(account)});`;
}
