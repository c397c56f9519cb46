// stablepay dashboard: copy buttons, confirmations, and the browser-wallet actions
// (EIP-1193): sign a wallet challenge, send a refund transfer. No framework, no build.
"use strict";

function status(el, text) { if (el) el.textContent = text; }

function micros(decimal) {
  // Exact: digits with up to 6 decimals to an integer of micro-units (no floats).
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(decimal.trim());
  if (!m) throw new Error("amount must look like 12.50 (at most 6 decimals)");
  return BigInt(m[1]) * 1000000n + BigInt((m[2] || "").padEnd(6, "0"));
}

function word(hex) { return hex.replace(/^0x/, "").toLowerCase().padStart(64, "0"); }

function utf8Hex(text) {
  return "0x" + Array.from(new TextEncoder().encode(text), b => b.toString(16).padStart(2, "0")).join("");
}

function wallet() {
  if (!window.ethereum) throw new Error("No browser wallet found: install one, or paste the value by hand.");
  return window.ethereum;
}

async function account(expected) {
  const accounts = await wallet().request({ method: "eth_requestAccounts" });
  const chosen = expected
    ? accounts.find(a => a.toLowerCase() === expected.toLowerCase())
    : accounts[0];
  if (!chosen) throw new Error(`Connect the wallet ${expected} (the wallet offered ${accounts.join(", ") || "none"}).`);
  return chosen;
}

async function onChain(chainId) {
  const want = "0x" + Number(chainId).toString(16);
  const have = await wallet().request({ method: "eth_chainId" });
  if (have.toLowerCase() !== want) {
    await wallet().request({ method: "wallet_switchEthereumChain", params: [{ chainId: want }] });
  }
}

const pause = ms => new Promise(r => setTimeout(r, ms));

async function signChallenge(button) {
  const form = document.getElementById("verify-form");
  const progress = document.getElementById("sign-progress");
  const address = form.dataset.address;
  status(progress, "Waiting for the wallet…");
  const from = await account(address);
  const message = document.getElementById("challenge-text").value;
  const signature = await wallet().request({ method: "personal_sign", params: [utf8Hex(message), from] });
  document.getElementById("signature").value = signature;
  status(progress, "Signed. Verifying…");
  form.submit();
}

async function sendRefund() {
  const form = document.getElementById("refund-form");
  const progress = document.getElementById("refund-progress");
  const amount = micros(document.getElementById("refund-amount").value);
  if (amount <= 0n || amount > BigInt(form.dataset.maxMicros)) throw new Error("The amount is more than can be refunded.");
  await onChain(form.dataset.chainId);
  status(progress, "Choose the settlement wallet that received this payment…");
  const from = await account();
  const verified = (form.dataset.wallets || "").split(" ").filter(Boolean);
  if (!verified.includes(from.toLowerCase())) {
    throw new Error(`${from} is not one of your verified settlement wallets; a refund from it could not be recorded. Connect a verified wallet.`);
  }
  const data = "0xa9059cbb" + word(form.dataset.to) + word(amount.toString(16));
  const tx = await wallet().request({ method: "eth_sendTransaction", params: [{ from, to: form.dataset.token, data }] });
  document.getElementById("refund-tx").value = tx;
  status(progress, `Sent ${tx}. Waiting for it to be mined…`);
  let receipt = null;
  for (let i = 0; !receipt; i++) {
    if (i >= 600) throw new Error(`No receipt for ${tx} after 10 minutes; check your wallet, then report the hash with "Report transaction".`);
    await pause(1000);
    receipt = await wallet().request({ method: "eth_getTransactionReceipt", params: [tx] });
  }
  if (receipt.status !== "0x1") throw new Error(`The transfer ${tx} reverted; nothing was refunded.`);
  const depth = BigInt(form.dataset.confirmations || "1");
  const mined = BigInt(receipt.blockNumber);
  for (;;) {
    const head = BigInt(await wallet().request({ method: "eth_blockNumber" }));
    const have = head >= mined ? head - mined + 1n : 0n;
    status(progress, `Mined: ${have} of ${depth} confirmations…`);
    if (have >= depth) break;
    await pause(1000);
  }
  status(progress, "Confirmed. Recording the refund…");
  form.submit();
}

async function fillAddress(button) {
  const target = document.getElementById(button.dataset.target);
  target.value = await account();
}

const actions = { sign: signChallenge, refund: sendRefund, "fill-address": fillAddress };

document.addEventListener("click", async event => {
  const copy = event.target.closest("[data-copy]");
  if (copy) {
    try { await navigator.clipboard.writeText(copy.dataset.copy); copy.textContent = "Copied"; }
    catch (_) { copy.textContent = "Select and copy by hand"; }
    return;
  }
  const button = event.target.closest("[data-wallet-action]");
  if (!button) return;
  const out = button.closest("form")?.querySelector(".wallet-status");
  button.disabled = true;
  try { await actions[button.dataset.walletAction](button); }
  catch (e) { status(out, e.message || String(e)); if (!out) alert(e.message || String(e)); }
  finally { button.disabled = false; }
});

document.addEventListener("submit", event => {
  const form = event.target;
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
});
