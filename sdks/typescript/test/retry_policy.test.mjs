// The retry policy against a local HTTP server standing in for a proxy in front of the API
// (it answers an HTML 502): GET is retried, DELETE is not, an aborted call is not, and the
// last answer is thrown as a StablepayError although its body is no envelope.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Stablepay, StablepayError } from "../dist/index.js";

async function badGateway(afterAnswer = () => {}) {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push(req.method);
    res.writeHead(502, { "Content-Type": "text/html" }).end("<html><body>502 Bad Gateway</body></html>", afterAnswer);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { baseUrl: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() };
}

test("a GET is retried, a DELETE is not, and the 502 is thrown with its status", async () => {
  const proxy = await badGateway();
  const retries = [];
  const sp = new Stablepay({ apiKey: "svc_sk_test_x", baseUrl: proxy.baseUrl, maxRetries: 2, maxRetryDelaySecs: 0.01, onRetry: (r) => retries.push(r) });
  await assert.rejects(sp.get("/api/v1/wallets"), (e) => e instanceof StablepayError && e.status === 502 && e.code === "api_error");
  assert.deepEqual(proxy.seen, ["GET", "GET", "GET"]);
  assert.deepEqual(retries.map((r) => r.status), [502, 502]);
  proxy.seen.length = 0;
  await assert.rejects(sp.delete("/api/v1/wallets/{id}", { params: { path: { id: "wal_x" } } }), StablepayError);
  assert.deepEqual(proxy.seen, ["DELETE"], "a DELETE's first try may have worked: not retried");
  proxy.close();
});

test("an aborted call ends its wait and is not retried", async () => {
  const controller = new AbortController();
  // Aborted once the first 502 is sent: the client is reading it or waiting to retry.
  const proxy = await badGateway(() => controller.abort(new Error("deadline")));
  const sp = new Stablepay({ apiKey: "svc_sk_test_x", baseUrl: proxy.baseUrl, maxRetries: 5, maxRetryDelaySecs: 60 });
  await assert.rejects(sp.get("/api/v1/wallets", { signal: controller.signal }), /deadline/);
  assert.equal(proxy.seen.length, 1);
  proxy.close();
});
