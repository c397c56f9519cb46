// Verify stablepay's `Svc-Signature` webhook header. Node.js 18+, built-in `crypto` only.
// rawBody: the request body bytes exactly as received (a Buffer, never re-serialised JSON).
// secrets: every secret currently valid for the endpoint (two during a rotation).
'use strict';
const crypto = require('crypto');

function verify(header, rawBody, secrets, toleranceSecs = 300, nowUnix = Math.floor(Date.now() / 1000)) {
  if (typeof header !== 'string' || !(rawBody instanceof Uint8Array)) return false;
  let t = null;
  const sigs = [];
  for (const part of header.split(',')) { // "t=<unix seconds>,v1=<hex>[,v1=<hex>]"
    const entry = part.trim();
    const eq = entry.indexOf('=');
    if (eq < 0) return false;
    const key = entry.slice(0, eq), value = entry.slice(eq + 1);
    if (key === 't') {
      if (!/^[+-]?[0-9]+$/.test(value)) return false;
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^(?:[0-9a-fA-F]{2})*$/.test(value)) return false; // Buffer.from would skip bad hex
      sigs.push(Buffer.from(value, 'hex'));
    } // other keys (future schemes) are ignored
  }
  // Written as !(x <= tol) so that a NaN clock also rejects.
  if (t === null || sigs.length === 0 || !(Math.abs(nowUnix - t) <= toleranceSecs)) return false;
  for (const secret of secrets) {
    const expected = crypto.createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
    for (const sig of sigs) { // timingSafeEqual needs equal lengths; the length is not secret
      if (sig.length === expected.length && crypto.timingSafeEqual(sig, expected)) return true;
    }
  }
  return false;
}
module.exports = { verify };

// Test harness (crates/webhook-verify/tests/snippets.rs): one JSON case per stdin line.
if (require.main === module) {
  const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter((l) => l.trim());
  const out = lines.map((l) => JSON.parse(l)).map((c) =>
    verify(c.header, Buffer.from(c.body_b64, 'base64'), c.secrets, c.tolerance ?? undefined, c.now ?? undefined));
  process.stdout.write(out.map((ok) => `${ok}\n`).join(''));
}
