// README.md's walk-through, as written: its `ts` blocks become one module, compiled with
// this package's TypeScript (so the page type-checks against the SDK) and run against the
// stack; what each step prints is looked for in order.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { envPath, packageDir, repoDir } from "./env.mjs";

const EXPECTED = [
  "mode: test",
  "session: cs_",
  "payment: pay_",
  "refund: re_",
  "webhook: checkout.session.completed evt_",
  "confirmed payments listed:",
  "error: 400 invalid_request_error amount",
  "retrying after 429",
  "rate limited: 429 rate_limit_error",
];

function tsBlocks(page) {
  const blocks = [...page.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.ok(blocks.length >= 5, "README.md has its ts blocks");
  return blocks.join("\n");
}

test("README.md's walk-through runs as written", { timeout: 240_000 }, () => {
  const dir = `${repoDir}target/sdks/readme-ts`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(`${dir}/node_modules/@stablepay`, { recursive: true });
  symlinkSync(packageDir, `${dir}/node_modules/@stablepay/sdk`);
  symlinkSync(`${packageDir}node_modules/@types`, `${dir}/node_modules/@types`);
  writeFileSync(`${dir}/readme.mts`, tsBlocks(readFileSync(`${packageDir}README.md`, "utf8")));
  writeFileSync(
    `${dir}/tsconfig.json`,
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, types: ["node"], skipLibCheck: true },
      files: ["readme.mts"],
    }),
  );
  execFileSync(`${packageDir}node_modules/.bin/tsc`, ["-p", dir], { stdio: "inherit" });
  const printed = execFileSync(process.execPath, [`${dir}/readme.mjs`], {
    cwd: packageDir,
    env: { ...process.env, STABLEPAY_ENV: envPath },
    encoding: "utf8",
    timeout: 200_000,
  });
  writeFileSync(`${dir}/output.log`, printed);
  let rest = printed;
  for (const want of EXPECTED) {
    const at = rest.indexOf(want);
    assert.ok(at >= 0, `README step printing "${want}" is missing; it printed:\n${printed}`);
    rest = rest.slice(at + want.length);
  }
});
