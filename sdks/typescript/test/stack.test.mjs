// The client against the real service: pagination over more than 300 objects, the real
// rate limiter's 429s retried, a create in flight retried under its Idempotency-Key, and
// errors carrying the envelope.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Stablepay, StablepayError } from "../dist/index.js";
import { stack } from "./env.mjs";

const env = stack();
const merchant = env.merchants[0];
const client = (options = {}) => new Stablepay({ apiKey: merchant.test_key, baseUrl: env.api_base, ...options });
const session = (reference) => ({
  body: { mode: "payment", title: "SDK page test", amount: "1.25", recipient: merchant.wallet.address, customer_reference: reference },
});

/** Runs `work` over `items`, `width` at a time. */
async function pool(items, width, work) {
  const results = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]);
      }
    }),
  );
  return results;
}

test("the mode comes from the key, and a key that is no secret key is refused", () => {
  assert.equal(client().mode, "test");
  assert.equal(new Stablepay({ apiKey: merchant.live_key, baseUrl: env.api_base }).mode, "live");
  assert.throws(() => new Stablepay({ apiKey: "pk_test_x", baseUrl: env.api_base }), /svc_sk_test_/);
});

test("paginate walks 305 sessions in pages of 100, newest first, each once", async () => {
  const sp = client();
  const reference = `sdk-ts-${randomUUID()}`;
  const created = await pool(Array.from({ length: 305 }), 8, () => sp.post("/api/v1/checkout/sessions", session(reference)));
  let pages = 0;
  const counting = new Stablepay({
    apiKey: merchant.test_key,
    baseUrl: env.api_base,
    fetch: (input, init) => {
      pages++;
      return fetch(input, init);
    },
  });
  const listed = [];
  for await (const s of counting.paginate("/api/v1/checkout/sessions", { params: { query: { customer_reference: reference } } })) {
    listed.push(s);
  }
  assert.equal(pages, 4, "305 items at 100 a page");
  assert.equal(listed.length, 305);
  assert.equal(new Set(listed.map((s) => s.id)).size, 305, "no session twice");
  assert.deepEqual(new Set(listed.map((s) => s.id)), new Set(created.map((s) => s.id)));
  const times = listed.map((s) => Date.parse(s.created_at));
  assert.ok(times.every((t, i) => i === 0 || t <= times[i - 1]), "newest first");
  // A smaller page size is kept.
  const small = [];
  for await (const s of sp.paginate("/api/v1/checkout/sessions", { params: { query: { customer_reference: reference, limit: 7 } } })) {
    small.push(s.id);
    if (small.length === 20) break;
  }
  assert.deepEqual(small, listed.slice(0, 20).map((s) => s.id));
});

test("429s from the real rate limiter are retried as Retry-After says", async () => {
  const retries = [];
  const limited = new Stablepay({ apiKey: merchant.limited_test_key, baseUrl: env.api_base, onRetry: (r) => retries.push(r) });
  let calls = 0;
  // The key's budget is 30 a minute (a minute's worth at once): the 31st call waits.
  while (retries.length === 0 && calls < 60) {
    await limited.get("/api/v1/wallets");
    calls++;
  }
  assert.ok(retries.length >= 1, `no 429 in ${calls} calls`);
  assert.equal(retries[0].status, 429);
  assert.ok(retries[0].delayMs >= 1000, "waits Retry-After (whole seconds)");
  const impatient = new Stablepay({ apiKey: merchant.limited_test_key, baseUrl: env.api_base, maxRetries: 0 });
  await assert.rejects(impatient.get("/api/v1/wallets"), (e) => {
    assert.ok(e instanceof StablepayError);
    assert.equal(e.status, 429);
    assert.equal(e.code, "rate_limit_error");
    assert.ok(e.retryAfter >= 1);
    return true;
  });
});

test("twenty concurrent creates under one Idempotency-Key make one session (409s in flight retried)", async () => {
  const retries = [];
  const sp = client({ onRetry: (r) => retries.push(r) });
  const key = `sdk-ts-${randomUUID()}`;
  const reference = `sdk-ts-${randomUUID()}`;
  const answers = await Promise.all(
    Array.from({ length: 20 }, () =>
      sp.post("/api/v1/checkout/sessions", { ...session(reference), params: { header: { "Idempotency-Key": key } } }),
    ),
  );
  assert.equal(new Set(answers.map((s) => s.id)).size, 1, "every answer is the one session");
  assert.ok(retries.every((r) => r.status === 409), "only in-flight 409s were retried");
  const listed = await sp.get("/api/v1/checkout/sessions", { params: { query: { customer_reference: reference } } });
  assert.equal(listed.data.length, 1);
});

test("every create gets its own Idempotency-Key unless one is given", async () => {
  const sp = client();
  const reference = `sdk-ts-${randomUUID()}`;
  const [a, b] = await Promise.all([sp.post("/api/v1/checkout/sessions", session(reference)), sp.post("/api/v1/checkout/sessions", session(reference))]);
  assert.notEqual(a.id, b.id);
  const key = `sdk-ts-${randomUUID()}`;
  const first = await sp.post("/api/v1/checkout/sessions", { ...session(reference), params: { header: { "Idempotency-Key": key } } });
  const again = await sp.post("/api/v1/checkout/sessions", { ...session(reference), params: { header: { "Idempotency-Key": key } } });
  assert.equal(again.id, first.id, "the same key replays the first answer");
  await assert.rejects(
    sp.post("/api/v1/checkout/sessions", { body: { ...session(reference).body, amount: "2" }, params: { header: { "Idempotency-Key": key } } }),
    (e) => e instanceof StablepayError && e.status === 409 && e.code === "idempotency_error",
  );
});

test("errors carry the envelope: field, code, request id", async () => {
  const sp = client();
  await assert.rejects(sp.post("/api/v1/checkout/sessions", { body: { mode: "payment", title: "Bad", amount: "1.1234567" } }), (e) => {
    assert.ok(e instanceof StablepayError);
    assert.equal(e.status, 400);
    assert.equal(e.code, "invalid_request_error");
    assert.equal(e.type, "invalid_request_error");
    assert.equal(e.param, "amount");
    assert.ok(e.details.some((d) => d.field === "amount"));
    assert.ok(e.requestId, "the Request-Id header");
    return true;
  });
  await assert.rejects(sp.get("/api/v1/payments/{id}", { params: { path: { id: "pay_doesnotexist" } } }), (e) => e.status === 404 && e.code === "not_found_error");
  const stranger = new Stablepay({ apiKey: "svc_sk_test_notakey", baseUrl: env.api_base });
  await assert.rejects(stranger.get("/api/v1/payments"), (e) => e.status === 401 && e.code === "authentication_error");
});

test("the ledger export comes back as CSV text", async () => {
  const csv = await client().get("/api/v1/balance_transactions/export", { parseAs: "text" });
  assert.match(csv.split("\n")[0], /^id,/);
});
