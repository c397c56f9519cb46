// The stack the tests run against: `cargo xtask test` starts one and names its env.json in
// STABLEPAY_ENV; with `cargo xtask dev` running, the repository's target/dev/env.json.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const packageDir = fileURLToPath(new URL("..", import.meta.url));
export const repoDir = fileURLToPath(new URL("../../..", import.meta.url));
export const envPath = process.env.STABLEPAY_ENV ?? `${repoDir}target/dev/env.json`;

export function stack() {
  try {
    return JSON.parse(readFileSync(envPath, "utf8"));
  } catch (e) {
    throw new Error(`no stack described at ${envPath} (run cargo xtask dev, or set STABLEPAY_ENV): ${e.message}`);
  }
}
