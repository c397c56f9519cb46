// The shared Svc-Signature vectors (crates/webhook-verify/vectors.json, the Rust verifier's
// own cases) and constructEvent's two outcomes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createHmac } from "node:crypto";
import { webhooks, StablepaySignatureError } from "../dist/index.js";
import { repoDir } from "./env.mjs";

const vectors = JSON.parse(readFileSync(`${repoDir}crates/webhook-verify/vectors.json`, "utf8"));

test("every shared vector gets the Rust verifier's verdict", async () => {
  assert.ok(vectors.cases.length >= 30, "the vector file has its cases");
  const wrong = [];
  for (const c of vectors.cases) {
    const got = await webhooks.verify(c.header, Buffer.from(c.body_b64, "base64"), c.secrets, {
      toleranceSecs: c.tolerance,
      now: c.now,
    });
    if (got !== c.want) wrong.push(`${c.name}: want ${c.want}, got ${got}`);
  }
  assert.deepEqual(wrong, []);
});

test("constructEvent returns the verified envelope and refuses an altered one", async () => {
  const body = JSON.stringify({ id: "evt_1", type: "payment.succeeded", created_at: "2026-11-29T00:00:00Z", data: { object: { id: "pay_1" } } });
  const t = Math.floor(Date.now() / 1000);
  const sign = (at) => createHmac("sha256", "whsec_x").update(`${at}.${body}`).digest("hex");
  const sig = sign(t);
  const event = await webhooks.constructEvent(body, `t=${t},v1=${sig}`, "whsec_x");
  assert.equal(event.id, "evt_1");
  assert.deepEqual(event.data.object, { id: "pay_1" });
  // During a rotation both secrets are tried.
  assert.equal((await webhooks.constructEvent(body, `t=${t},v1=${sig}`, ["whsec_new", "whsec_x"])).type, "payment.succeeded");
  await assert.rejects(webhooks.constructEvent(body.replace("pay_1", "pay_2"), `t=${t},v1=${sig}`, "whsec_x"), StablepaySignatureError);
  // Signed correctly, but 301 s ago: outside the default tolerance of 300 s.
  await assert.rejects(webhooks.constructEvent(body, `t=${t - 301},v1=${sign(t - 301)}`, "whsec_x"), StablepaySignatureError);
  assert.equal((await webhooks.constructEvent(body, `t=${t - 290},v1=${sign(t - 290)}`, "whsec_x")).id, "evt_1");
  await assert.rejects(webhooks.constructEvent(body, undefined, "whsec_x"), StablepaySignatureError);
});

test("an empty secret verifies nothing (and does not throw)", async () => {
  const header = `t=${Math.floor(Date.now() / 1000)},v1=${"00".repeat(32)}`;
  assert.equal(await webhooks.verify(header, "{}", ""), false);
  assert.equal(await webhooks.verify(header, "{}", ["", "whsec_x"]), false);
});
