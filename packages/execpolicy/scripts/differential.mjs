#!/usr/bin/env node
// Differential check: our policy engine vs the published `codex execpolicy check`, over the corpus
// in differential-corpus.mjs. Not part of `npm test` (it needs the codex binary).
//
//   node scripts/differential.mjs [--codex PATH] [--bin] [--verbose]
//   node scripts/differential.mjs --mutate N [--seed S] [--lib [--lib-path P]] [--jobs J] [--seed-file F.rules ...] [--examples K]
//
// For every (rules files, command) pair it compares stdout byte-for-byte and whether both succeeded
// (exit 0) or both failed. With --bin it runs our `policy-check` bin instead of the library in-process.
//
// --mutate N is the mutation fuzzer: it takes the corpus's rules files (plus --seed-file files), applies
// N random mutations (scripts/mutate.mjs: token deletion/duplication/swaps, commas, brackets, kwarg and
// name typos, literals, f-strings, trailing commas, method calls, snippets), runs each mutant through
// codex and our `policy-check` bin (--lib: the library in-process, much faster) and reports every
// disagreement (error vs accept either way, different JSON), grouped by class with both outputs.
// --seed makes a run reproducible (default 1).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pathToFileURL } from "node:url";
import { cases } from "./differential-corpus.mjs";

const args = process.argv.slice(2);
// --lib-path DIR/index.js compares another build of the library (e.g. a checkout of the previous commit).
const libPath = args.includes("--lib-path") ? pathToFileURL(args[args.indexOf("--lib-path") + 1]).href : new URL("../dist/index.js", import.meta.url).href;
const { loadPolicy, evaluationToCodexJson } = await import(libPath);
const codex = args.includes("--codex") ? args[args.indexOf("--codex") + 1] : "/opt/codex/node_modules/.bin/codex";
const useBin = args.includes("--bin");
const verbose = args.includes("--verbose");
const ourBin = fileURLToPath(new URL("../../cli/dist/bin/policy-check.js", import.meta.url));

const mutateCount = args.includes("--mutate") ? Number(args[args.indexOf("--mutate") + 1]) : 0;

if (!existsSync(codex)) {
  console.log(`codex not found at ${codex}; install @openai/codex or pass --codex PATH. Skipping.`);
  process.exit(0);
}

function run(cmd, argv, env = process.env) {
  return new Promise((resolve) => {
    execFile(cmd, argv, { encoding: "utf8", maxBuffer: 1 << 24, env }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

async function ours(files, command, resolve, bin = useBin) {
  if (bin) {
    const env = { ...process.env, SHELLGATE_POLICY_CACHE_DIR: join(dir, "cache") };
    return run(process.execPath, [ourBin, ...files.flatMap((f) => ["--rules", f]), ...(resolve ? ["--resolve-host-executables"] : []), "--", ...command], env);
  }
  try {
    const policy = await loadPolicy(files);
    const ev = policy.evaluate(command, { resolveHostExecutables: !!resolve });
    return { code: 0, stdout: JSON.stringify(evaluationToCodexJson(ev)) + "\n", stderr: "" };
  } catch (e) {
    return { code: 1, stdout: "", stderr: e.render ? e.render() : String(e.message) };
  }
}

const dir = mkdtempSync(join(tmpdir(), "execpolicy-diff-"));
if (mutateCount > 0) {
  const { runMutations } = await import("./differential-mutate.mjs");
  try {
    process.exitCode = await runMutations({ args, count: mutateCount, dir, cases, run, codex, ours: (files, command) => ours(files, command, false, !args.includes("--lib")) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit();
}
let total = 0;
let mismatches = 0;
const intentional = [];
const failures = [];
try {
  const jobs = [];
  cases.forEach((c, ci) => {
    const files = c.rules.map((text, i) => {
      const f = join(dir, `case${ci}-${i}.rules`);
      writeFileSync(f, text);
      return f;
    });
    for (const command of c.commands) jobs.push({ c, files, command });
  });
  let next = 0;
  async function worker() {
    while (next < jobs.length) {
      const { c, files, command } = jobs[next++];
      const flags = c.resolve ? ["--resolve-host-executables"] : [];
      const ref = await run(codex, ["execpolicy", "check", ...files.flatMap((f) => ["--rules", f]), ...flags, "--", ...command]);
      const got = await ours(files, command, c.resolve);
      total++;
      const same = ref.stdout === got.stdout && (ref.code === 0) === (got.code === 0);
      if (!same && c.intentional) {
        intentional.push(`${c.name}: ${c.intentional}`);
      } else if (!same) {
        mismatches++;
        failures.push({ name: c.name, command, ref, got });
      } else if (verbose) {
        console.log(`ok   ${c.name} ${JSON.stringify(command)} -> ${ref.code === 0 ? ref.stdout.trim() : "error"}`);
      }
    }
  }
  await Promise.all([worker(), worker()]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
for (const f of failures) {
  console.log(`MISMATCH ${f.name} ${JSON.stringify(f.command)}`);
  console.log(`  codex (exit ${f.ref.code}): ${f.ref.stdout.trim() || firstErrorLine(f.ref.stderr)}`);
  console.log(`  ours  (exit ${f.got.code}): ${f.got.stdout.trim() || firstErrorLine(f.got.stderr)}`);
}
for (const i of intentional) console.log(`intentional difference: ${i}`);
console.log(`differential: ${cases.length} rule sets, ${total} checks, ${total - mismatches - intentional.length} agree, ${intentional.length} intentional difference(s), ${mismatches} mismatch(es) (${useBin ? "our policy-check bin" : "library in-process"} vs ${codex})`);
process.exitCode = mismatches ? 1 : 0;

function firstErrorLine(stderr) {
  const lines = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^error[:[]/.test(l)) ?? lines.slice(0, 3).join(" | ");
}
