// stablepay hosted checkout: connect an EIP-1193 wallet, switch network, approve, pay
// (or subscribe), then confirm and go to success_url. States are shown on <main
// data-state>: open, wrong-network, paying, confirming, paid, expired, rejected.
"use strict";

const session = JSON.parse(document.getElementById("session-data").textContent);
const $ = (id) => document.getElementById(id);
const main = $("checkout");
const sub = session.mode === "subscription";
const base = "/pay/" + encodeURIComponent(session.id);

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
    if (main.dataset.state === "open") { show("expired", "This checkout has expired. Ask the merchant for a new link."); $("pay").disabled = true; }
    return;
  }
  const d = Math.floor(secs / 86400), h = Math.floor(secs % 86400 / 3600), m = Math.floor(secs % 3600 / 60), s = secs % 60;
  $("time-left").textContent = (d ? d + " d " : "") + (d || h ? h + " h " : "") + (d ? "" : m + " min ") + (d || h ? "" : s + " s ") + "left";
}

function finished(s) {
  if (s.status === "completed") {
    $("pay").disabled = true;
    if (sub) $("periods").disabled = true;
    show("paid", sub ? "Subscribed. Later charges are taken automatically; you can cancel any time from the customer portal." : "Paid. Thank you!", true);
    if (s.success_url) setTimeout(() => { location.href = s.success_url; }, sub ? 5000 : 1200);
    return true;
  }
  if (s.status === "expired") {
    $("pay").disabled = true;
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
  if (!r.ok) throw new Error((body.error && body.error.message) || r.statusText);
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

async function pay() {
  const eth = window.ethereum;
  if (!eth) { show("open", "No wallet found in this browser. Install an EIP-1193 wallet (a browser extension or a wallet app's browser) and reload.", true); return; }
  $("pay").disabled = true;
  if (sub) $("periods").disabled = true;
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
    for (let i = 0; i < 240; i++) {
      const state = await api("/confirm", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ tx_hash: tx }) });
      if (finished(state)) return;
      show("confirming", (sub ? "Subscription" : "Payment") + " received; waiting for network confirmations…");
      await new Promise((r) => setTimeout(r, 1500));
    }
  } catch (e) {
    const rejected = e && e.code === 4001;
    show(rejected ? "rejected" : "open",
      rejected ? "You canceled in your wallet. Nothing was charged." : (e.message || String(e)), true);
    $("pay").disabled = false;
    if (sub) $("periods").disabled = false;
  }
}

if (!finished(session)) {
  timeLeft();
  setInterval(timeLeft, 1000);
}
$("pay").addEventListener("click", pay);
if (sub) $("periods").addEventListener("input", () => { $("periods").dataset.edited = "1"; });
if ($("cancel")) $("cancel").addEventListener("click", () => { location.href = session.cancel_url; });
