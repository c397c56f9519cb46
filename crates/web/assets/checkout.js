// stablepay hosted checkout: find the buyer's wallets (EIP-6963 announcements, a chooser
// when several announce, window.ethereum last), switch network, then pay with one
// EIP-3009 signature and no gas (the service's relayer sends it) or with approve + pay
// (or subscribe), confirm, and go to success_url. States are shown on <main data-state>:
// open, choose-wallet, wrong-network, paying, confirming, paid, expired, rejected,
// processing (a payment arrived and waits for the merchant, D33), and quote-expired (the
// rate a currency price was quoted at lapsed, D34).
"use strict";

const session = JSON.parse(document.getElementById("session-data").textContent);
const $ = (id) => document.getElementById(id);
const main = $("checkout");
const sub = session.mode === "subscription";
const base = "/pay/" + encodeURIComponent(session.id);
const buttons = () => ["pay", "pay-signature", "periods"].map($).filter(Boolean);
const enable = (on) => buttons().forEach((b) => { b.disabled = !on; });

// EIP-6963: wallets announce themselves instead of fighting over window.ethereum.
const announced = [];
window.addEventListener("eip6963:announceProvider", (e) => {
  const d = e.detail;
  if (d && d.provider && d.info && !announced.some((a) => a.info.uuid === d.info.uuid)) announced.push(d);
});
window.dispatchEvent(new Event("eip6963:requestProvider"));
let chosen = null;

// The wallet to pay with: the one chosen, the only one announced, one the buyer picks
// among several, or window.ethereum; null when the browser has none.
function wallet() {
  if (chosen) return Promise.resolve(chosen);
  if (announced.length === 1) return Promise.resolve(chosen = announced[0].provider);
  if (announced.length === 0) return Promise.resolve(chosen = window.ethereum || null);
  const list = $("wallets");
  list.replaceChildren();
  return new Promise((resolve) => {
    for (const a of announced) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "wallet";
      b.dataset.wallet = a.info.name;
      if (a.info.icon) { const img = document.createElement("img"); img.src = a.info.icon; img.alt = ""; b.append(img); }
      b.append(a.info.name);
      b.addEventListener("click", () => { list.hidden = true; chosen = a.provider; resolve(chosen); });
      list.append(b);
    }
    list.hidden = false;
    show("choose-wallet", "Several wallets are installed: choose the one to pay with.", true);
  });
}

const NO_WALLET = "No wallet found in this browser. Install a wallet extension, or open this page in your wallet app's browser; paying from an exchange account needs a wallet address that can sign.";

function show(state, text, focus) {
  main.dataset.state = state;
  $("status").textContent = text || "";
  if (focus) $("status").focus();
}

function timeLeft() {
  const secs = Number(main.dataset.expires) - Math.floor(Date.now() / 1000);
  if (main.dataset.state === "paid") { $("time-left").textContent = "paid"; return; }
  if (secs <= 0) {
    $("time-left").textContent = "expired";
    if (main.dataset.state === "open" && main.dataset.quoteEnds && $("requote")) {
      // The quote ended, not the session: a fresh session at the rate now is one click away.
      show("quote-expired", "The quoted price has expired. Get a new price: a fresh checkout quoted at the current rate.");
      enable(false);
      $("requote").hidden = false;
    } else if (main.dataset.state === "open") { show("expired", "This checkout has expired. Ask the merchant for a new link."); enable(false); }
    // Nothing to send to any more (the session, or its price's quote, ended).
    for (const id of ["deposit", "x402"]) if ($(id)) $(id).hidden = true;
    return;
  }
  const d = Math.floor(secs / 86400), h = Math.floor(secs % 86400 / 3600), m = Math.floor(secs % 3600 / 60), s = secs % 60;
  $("time-left").textContent = (d ? d + " d " : "") + (d || h ? h + " h " : "") + (d ? "" : m + " min ") + (d || h ? "" : s + " s ") + "left";
}

function finished(s) {
  if (s.status === "completed") {
    enable(false);
    show("paid", sub ? "Subscribed. Later charges are taken automatically; you can cancel any time from the customer portal." : "Paid. Thank you!", true);
    if (s.success_url) setTimeout(() => { location.href = s.success_url; }, sub ? 5000 : 1200);
    return true;
  }
  if (s.status === "expired") {
    enable(false);
    show("expired", "This checkout has expired. Ask the merchant for a new link.", true);
    return true;
  }
  return false;
}

const approveData = (spender, amount) => "0x095ea7b3" +
  spender.toLowerCase().replace(/^0x/, "").padStart(64, "0") + BigInt(amount).toString(16).padStart(64, "0");

async function api(path, init) {
  const r = await fetch(base + path, init);
  const body = await r.json();
  if (!r.ok) throw Object.assign(new Error((body.error && body.error.message) || r.statusText), { status: r.status });
  return body;
}

async function waitForReceipt(eth, hash) {
  for (let i = 0; i < 180; i++) {
    const receipt = await eth.request({ method: "eth_getTransactionReceipt", params: [hash] });
    if (receipt) { if (receipt.status !== "0x1") throw new Error("The transaction failed on-chain; nothing was paid."); return receipt; }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error("Timed out waiting for the network; check your wallet's activity.");
}

async function onNetwork(eth) {
  const want = "0x" + Number(session.chain_id).toString(16);
  const have = await eth.request({ method: "eth_chainId" });
  if (have.toLowerCase() === want) return;
  show("wrong-network", "Your wallet is on another network. Approve the switch to " + session.network + " in your wallet…", true);
  try {
    await eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: want }] });
  } catch (e) {
    if (e && e.code === 4902) throw new Error("Add " + session.network + " (chain " + session.chain_id + ") to your wallet, then try again.");
    throw e;
  }
}

async function confirmUntilDone(tx) {
  for (let i = 0; i < 240; i++) {
    const state = await api("/confirm", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ tx_hash: tx }) });
    if (finished(state)) return;
    show("confirming", (sub ? "Subscription" : "Payment") + " received; waiting for network confirmations…");
    await new Promise((r) => setTimeout(r, 1500));
  }
}

function failed(e) {
  const rejected = e && e.code === 4001;
  show(rejected ? "rejected" : "open",
    rejected ? "You canceled in your wallet. Nothing was charged." : (e.message || String(e)), true);
  enable(true);
}

// One signature, no gas: the wallet signs an EIP-3009 authorization; the service sends it.
async function paySigned() {
  enable(false);
  const eth = await wallet();
  if (!eth) { show("open", NO_WALLET, true); enable(true); return; }
  try {
    const [from] = await eth.request({ method: "eth_requestAccounts" });
    await onNetwork(eth);
    const auth = await api("/authorization?payer=" + encodeURIComponent(from));
    show("paying", "Sign the payment of " + $("amount").textContent + " in your wallet: one signature, no gas…");
    const signature = await eth.request({ method: "eth_signTypedData_v4", params: [from, JSON.stringify(auth.typed_data)] });
    show("confirming", "Signed. Sending it to the network…");
    const sent = await api("/authorization", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ payer: from, valid_before: auth.typed_data.message.validBefore, signature }) });
    await confirmUntilDone(sent.tx_hash);
  } catch (e) {
    // 503: the relayer is under its balance floor (or unreachable); nothing was sent, so the
    // buyer pays with a transaction instead.
    if (e && e.status === 503 && $("pay-signature")) $("pay-signature").hidden = true;
    failed(e);
  }
}

async function pay() {
  enable(false);
  const eth = await wallet();
  if (!eth) { show("open", NO_WALLET, true); enable(true); return; }
  try {
    const [from] = await eth.request({ method: "eth_requestAccounts" });
    await onNetwork(eth);
    const intent = await api("/intent");
    let approveCalldata = intent.approve_calldata;
    if (sub) {
      if (!$("periods").dataset.edited && intent.default_periods) $("periods").value = intent.default_periods;
      const n = Number($("periods").value);
      if (!Number.isInteger(n) || n < 1 || n > 120) throw new Error("Choose between 1 and 120 periods.");
      approveCalldata = approveData(intent.contract, BigInt(intent.period_amount) * BigInt(n));
      show("paying", "Step 1 of 2: approve " + n + " × " + $("amount").textContent + " in your wallet…");
    } else {
      show("paying", "Step 1 of 2: approve " + $("amount").textContent + " in your wallet…");
    }
    const approval = await eth.request({ method: "eth_sendTransaction", params: [{ from, to: intent.token, data: approveCalldata }] });
    await waitForReceipt(eth, approval);
    // Intents live minutes (D18): one that expired while the buyer approved is replaced.
    const current = intent.intent.deadline > Date.now() / 1000 + 30 ? intent : await api("/intent");
    show("paying", sub ? "Step 2 of 2: confirm the subscription in your wallet…" : "Step 2 of 2: confirm the payment in your wallet…");
    const data = sub ? current.subscribe_calldata : current.pay_calldata;
    const tx = await eth.request({ method: "eth_sendTransaction", params: [{ from, to: current.contract, data }] });
    show("confirming", "Sent. Waiting for the network…");
    await waitForReceipt(eth, tx);
    await confirmUntilDone(tx);
  } catch (e) {
    failed(e);
  }
}

// A decimal string with at least two decimals ("4" → "4.00"), by text, never by float.
const twoPlaces = (d) => { const [w, f = ""] = d.split("."); return w + "." + f.padEnd(2, "0"); };
const micros = (d) => { const [w, f = ""] = d.split("."); return BigInt(w) * 1000000n + BigInt(f.padEnd(6, "0")); };
const decimal = (m) => twoPlaces((m / 1000000n).toString() + "." + (m % 1000000n).toString().padStart(6, "0").replace(/0+$/, ""));

// A plain transfer to the deposit address (D24) is seen by the service, not the wallet:
// the page asks for the session's state and shows what has arrived until it is paid.
async function watchDeposit() {
  try {
    const s = await api("/status");
    if (finished(s)) return;
    if (s.amount_received !== "0") {
      $("deposit-received").textContent = twoPlaces(s.amount_received) + " " + s.currency;
      const left = micros(String(s.amount)) - micros(s.amount_received);
      if (left > 0n) $("deposit-amount").textContent = decimal(left) + " " + s.currency;
      // The QR and the wallet link ask for the full amount: not to be scanned again.
      $("deposit-qr").hidden = true;
      $("deposit-uri").hidden = true;
      show("confirming", "Transfer received; waiting for the rest or for confirmations…");
    }
  } catch (e) { /* unknown this time: asked again */ }
  setTimeout(watchDeposit, 3000);
}

if (main.dataset.state === "processing") {
  // Paid, and held for the merchant: nothing more to pay here, whatever the clock says.
  enable(false);
  $("time-left").textContent = "payment received";
  show("processing", "Payment received. It is being processed; you do not need to pay again.");
} else if (main.dataset.state === "quote-expired") {
  // The price's quote lapsed: nothing is offered at the old rate.
  enable(false);
  $("time-left").textContent = "quote expired";
  show("quote-expired", $("requote")
    ? "The quoted price has expired. Get a new price: a fresh checkout quoted at the current rate."
    : "The quoted price has expired. Ask the merchant for a new checkout: it is quoted at the current rate.");
} else if (!finished(session)) {
  timeLeft();
  setInterval(timeLeft, 1000);
  if ($("deposit")) setTimeout(watchDeposit, 3000);
}
if ($("copy-deposit")) $("copy-deposit").addEventListener("click", async () => {
  try { await navigator.clipboard.writeText($("copy-deposit").dataset.copy); $("copy-deposit").textContent = "Copied"; }
  catch (e) { $("copy-deposit").textContent = "Select and copy the address"; }
});
$("pay").addEventListener("click", pay);
if ($("pay-signature")) $("pay-signature").addEventListener("click", paySigned);
if (sub) $("periods").addEventListener("input", () => { $("periods").dataset.edited = "1"; });
if ($("cancel")) $("cancel").addEventListener("click", () => { location.href = session.cancel_url; });
