// stablepay customer portal: cancel by signing (EIP-191) or on-chain, and revoke the
// allowance, with the subscriber's EIP-1193 wallet.
"use strict";
const $ = (id) => document.getElementById(id);
let sub = JSON.parse($("subscription-data").textContent);

const eth = window.ethereum;
const say = (text, cls) => { const s = $("status"); s.textContent = text; s.className = cls || ""; };
const LABELS = { active: "Active", past_due: "Past due", paused: "Paused", canceled: "Canceled", expired: "Expired", pending: "Pending" };
const ended = () => sub.status === "canceled" || sub.status === "expired";
const word = (n) => BigInt(n).toString(16).padStart(64, "0");
// approve(spender, amount) calldata; amount in token base units.
const approveData = (spender, amount) => "0x095ea7b3" + spender.toLowerCase().replace(/^0x/, "").padStart(64, "0") + word(amount);
const utf8Hex = (text) => "0x" + Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join("");
function every(secs) {
  const units = [[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]];
  const [size, name] = units.find(([u]) => secs % u === 0) || units[3];
  const n = secs / size;
  return n === 1 ? "every " + name : "every " + n + " " + name + "s";
}

function showRevoke() {
  $("revoke-spender").textContent = sub.manager_address;
  $("revoke-token").textContent = sub.token_address;
  $("revoke-currency").textContent = sub.currency;
  $("revoke-note").hidden = false;
  $("revoke").hidden = !eth;
}
function render() {
  $("merchant").textContent = sub.merchant_name;
  $("title").textContent = sub.title;
  $("amount").textContent = sub.amount;
  $("currency").textContent = sub.currency;
  $("interval").textContent = sub.interval_seconds ? every(sub.interval_seconds) : "";
  $("state").textContent = (LABELS[sub.status] || sub.status) +
    (sub.canceled_at ? " (" + new Date(sub.canceled_at).toLocaleString() + ")" : "");
  $("next-payment").textContent = sub.next_payment_at && !ended() ? new Date(sub.next_payment_at).toLocaleString() : "—";
  $("wallet").textContent = sub.wallet_address;
  $("network").textContent = sub.network + " (" + sub.chain_id + ")";
  $("no-wallet").hidden = !!eth;
  $("actions").hidden = ended() || !eth;
  $("cancel-chain").hidden = !sub.chain_subscription_id;
  if (ended()) showRevoke();
}
render();

const base = "/portal/subscriptions/" + encodeURIComponent(sub.id);
async function api(path, init) {
  const r = await fetch(base + path, init);
  const body = await r.json();
  if (!r.ok) throw new Error((body.error && body.error.message) || r.statusText);
  return body;
}
// The subscriber wallet must be the one connected: only it can cancel or revoke.
async function connect() {
  const [account] = await eth.request({ method: "eth_requestAccounts" });
  if (!account || account.toLowerCase() !== String(sub.wallet_address).toLowerCase()) {
    throw new Error("Connect the subscriber wallet " + sub.wallet_address + " in your browser wallet.");
  }
  return account;
}
async function switchChain() {
  await eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: "0x" + Number(sub.chain_id).toString(16) }] });
}
async function run(work) {
  const buttons = Array.from(document.querySelectorAll("button"));
  buttons.forEach((b) => { b.disabled = true; });
  try { await work(); } catch (e) { say(e.message || String(e), "error"); }
  finally { buttons.forEach((b) => { b.disabled = false; }); }
}

$("cancel-sign").onclick = () => run(async () => {
  const account = await connect();
  const { message } = await api("/cancel");
  say("Sign the cancellation message in your wallet…");
  const signature = await eth.request({ method: "personal_sign", params: [utf8Hex(message), account] });
  sub = await api("/cancel", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ signature }) });
  render();
  showRevoke();
  say("Subscription canceled. No further payments will be taken.", "ok");
});

$("cancel-chain").onclick = () => run(async () => {
  const from = await connect();
  await switchChain();
  say("Confirm the cancellation in your wallet…");
  await eth.request({ method: "eth_sendTransaction", params: [{ from, to: sub.manager_address, data: "0x40e58ee5" + word(sub.chain_subscription_id) }] });
  $("actions").hidden = true;
  showRevoke();
  $("reload").hidden = false;
  say("Cancellation sent. It will show here once the transaction is confirmed; reload to check.", "ok");
});

$("revoke").onclick = () => run(async () => {
  const from = await connect();
  await switchChain();
  say("Confirm the revocation in your wallet…");
  await eth.request({ method: "eth_sendTransaction", params: [{ from, to: sub.token_address, data: approveData(sub.manager_address, 0) }] });
  say("Revocation sent. The allowance is 0 once the transaction is confirmed.", "ok");
});

$("reload").onclick = () => location.reload();
