// Compiles contracts/src/*.sol with the solc npm package (solcjs) and writes
// contracts/out/<Contract>.json = { contractName, abi, bytecode }. Run through
// `cargo xtask contracts`; the output is committed so builds need no compiler.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [toolsDir, contractsDir] = process.argv.slice(2);
const require = createRequire(path.join(toolsDir, "package.json"));
const solc = require("solc");

const srcDir = path.join(contractsDir, "src");
const sources = {};
for (const file of fs.readdirSync(srcDir).filter((f) => f.endsWith(".sol")).sort()) {
  sources[file] = { content: fs.readFileSync(path.join(srcDir, file), "utf8") };
}
const input = {
  language: "Solidity",
  sources,
  settings: {
    // Tuned for calls, not deployment size: every payment runs this code, deployment is once.
    optimizer: { enabled: true, runs: 1000000 },
    evmVersion: "cancun",
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input), { import: (p) => ({ contents: fs.readFileSync(path.join(srcDir, p), "utf8") }) }));
const errors = (output.errors || []).filter((e) => e.severity === "error");
for (const e of output.errors || []) console.error(e.formattedMessage);
if (errors.length) process.exit(1);
const outDir = path.join(contractsDir, "out");
fs.mkdirSync(outDir, { recursive: true });
const wanted = ["TestToken", "TestTetherToken", "CheckoutRouter", "SubscriptionManager", "TestSmartWallet", "TestGasHungryWallet", "DepositFactory", "TestSanctionsOracle", "TestPriceFeed"];
for (const [file, contracts] of Object.entries(output.contracts)) {
  for (const [name, c] of Object.entries(contracts)) {
    if (!wanted.includes(name)) continue;
    const json = { contractName: name, source: file, compiler: solc.version(), abi: c.abi, bytecode: "0x" + c.evm.bytecode.object };
    fs.writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(json, null, 2) + "\n");
    console.log(`compiled ${name} (${c.evm.bytecode.object.length / 2} bytes)`);
  }
}
