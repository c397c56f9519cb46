// stablepay refund page: the customer confirms where their refund goes, by a signature of
// their wallet (EIP-191 over the text the service returns) or by typing the address twice.
"use strict";
const $ = (id) => document.getElementById(id);
let req = JSON.parse($("refund-data").textContent);
const eth = window.ethereum;
const say = (text, cls) => { const s = $("status"); s.textContent = text; s.className = cls || ""; };
const LABELS = {
  awaiting_address: "Waiting for your address",
  address_confirmed: "Address confirmed: the merchant sends the refund there",
  refunded: "Refunded",
  expired: "Expired: ask the merchant for a new link",
};
const utf8Hex = (text) => "0x" + Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join("");

function render() {
  $("merchant").textContent = req.merchant_name;
  $("amount").textContent = req.amount;
  $("currency").textContent = req.currency;
  $("network").textContent = req.network + " (" + req.chain_id + ")";
  $("state").textContent = LABELS[req.status] || req.status;
  $("expires").textContent = new Date(req.expires_at).toLocaleString();
  $("reason").textContent = req.reason || "—";
  $("destination").textContent = req.destination_address || "—";
  document.querySelectorAll(".currency").forEach((e) => { e.textContent = req.currency; });
  document.querySelectorAll(".network").forEach((e) => { e.textContent = req.network; });
  $("ask").hidden = req.status !== "awaiting_address";
  $("by-wallet").hidden = !eth;
}
render();

const base = "/refund/" + encodeURIComponent(req.id);
async function api(path, init) {
  const r = await fetch(base + path, init);
  const body = await r.json();
  if (!r.ok) throw new Error((body.error && body.error.message) || r.statusText);
  return body;
}
async function post(body) {
  req = await api("/address", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  render();
  say("Thank you. Your refund will be sent to " + req.destination_address + ".", "ok");
}
async function run(work) {
  const buttons = Array.from(document.querySelectorAll("button"));
  buttons.forEach((b) => { b.disabled = true; });
  try { await work(); } catch (e) { say(e.message || String(e), "error"); }
  finally { buttons.forEach((b) => { b.disabled = false; }); }
}

$("sign").onclick = () => run(async () => {
  const [address] = await eth.request({ method: "eth_requestAccounts" });
  const { message } = await api("/message?address=" + encodeURIComponent(address));
  say("Sign the message in your wallet…");
  const signature = await eth.request({ method: "personal_sign", params: [utf8Hex(message), address] });
  await post({ address, signature });
});
$("typed").onsubmit = (ev) => {
  ev.preventDefault();
  run(() => post({ address: $("address").value.trim(), address_confirmation: $("address-again").value.trim() }));
};
