// What a login shell costs per script: `shellgate exec "true"` through the user's shell as a login
// shell (`--login`, the default: the profile runs first) and without (`--no-login`), interleaved so
// the machine's load hits both alike. Prints the medians and the difference; asserts nothing.
// Run after building: `node bench/login-shell.mjs` (BENCH_RUNS=N, default 10 each).
//
// The real HOME is used on purpose (its profile is what is measured), and the runs are sandboxed
// (workspace-write in a temporary project), so the profile runs inside the sandbox here and writes
// nothing outside it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../bin/shellgate.js", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const work = mkdtempSync(path.join(os.tmpdir(), "sg-bench-login-"));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function run(flag) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [BIN, "exec", flag, "--cwd", work, "true"], { cwd: work, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`shellgate exec ${flag} true exited ${r.status}: ${r.stderr}`);
  return { ms, noise: r.stderr.trim().split("\n").filter(Boolean).length };
}

try {
  const times = { "--login": [], "--no-login": [] };
  const noise = { "--login": 0, "--no-login": 0 };
  run("--login"); // warm the code cache and the probe cache
  for (let i = 0; i < RUNS; i++) {
    for (const flag of ["--login", "--no-login"]) {
      const r = run(flag);
      times[flag].push(r.ms);
      noise[flag] = Math.max(noise[flag], r.noise);
    }
  }
  const login = median(times["--login"]);
  const plain = median(times["--no-login"]);
  console.log(`shellgate exec --login "true"     median ${login.toFixed(0).padStart(5)} ms (stderr lines: ${noise["--login"]})`);
  console.log(`shellgate exec --no-login "true"  median ${plain.toFixed(0).padStart(5)} ms (stderr lines: ${noise["--no-login"]})`);
  console.log(`a login shell costs ${(login - plain).toFixed(0)} ms per script here (${RUNS} runs each, interleaved)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
