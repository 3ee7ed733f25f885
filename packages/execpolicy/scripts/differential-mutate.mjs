// The mutation-fuzzing mode of differential.mjs (see there for usage).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mutate, rng } from "./mutate.mjs";

/** Seeds beyond the corpus: valid files exercising f-strings, methods, tuples, functions. */
const EXTRA_SEEDS = [
  `x = 3\nprefix_rule(pattern=["git", "status"], decision="prompt", justification=f"use {x + 1}")\n`,
  `d = {"a": ["git"]}\nfor k in d.keys():\n    prefix_rule(pattern=d[k], match=["git status"])\n`,
  `a, b = "git", "push"\nprefix_rule(pattern=[a, b], decision="forbidden", justification="no pushing")\n`,
  `def rule(*p):\n    prefix_rule(pattern=list(p), not_match=["ls"])\nrule("git", "status")\n`,
  `prefix_rule(\n    pattern = ["git", ["status", "log"]],\n    decision = "allow",\n    match = [["git", "log"]],\n)\n`,
  `host_executable(name="git", paths=["/usr/bin/git"])\nnetwork_rule(host="example.com", protocol="https", decision="deny")\nprefix_rule(pattern=["git"])\n`,
];

/** A disagreement's class: what differs, and the shape of codex's error (quoted parts and numbers elided). */
function classify(ref, got) {
  const refOk = ref.code === 0;
  const gotOk = got.code === 0;
  if (refOk && gotOk) return ref.stdout === got.stdout ? undefined : "json differs";
  if (refOk === gotOk) return undefined; // both refuse: wording is allowed to differ
  if (refOk) return `codex accepts, ours refuses [ours: ${errorCode(got.stderr)}]`;
  return `codex refuses, ours accepts [codex: ${template(codexError(ref.stderr))}]`;
}

function codexError(stderr) {
  const lines = stderr.split("\n").map((l) => l.trim());
  const i = lines.findIndex((l) => /^(starlark error: )?error:/.test(l) || l.startsWith("starlark error:"));
  if (i < 0) return lines.find(Boolean) ?? "";
  let msg = lines[i].replace(/^starlark error: /, "");
  if (/^Traceback/.test(msg)) msg = lines.slice(i).find((l) => /^error:/.test(l)) ?? msg;
  return msg;
}

function template(msg) {
  return msg.replace(/`[^`]*`/g, "`…`").replace(/"[^"]*"/g, '"…"').replace(/'[^']*'/g, "'…'").replace(/\d+/g, "N").slice(0, 120);
}

function errorCode(stderr) {
  return /error\[([A-Z_]+)\]/.exec(stderr)?.[1] ?? (stderr.split("\n")[0] ?? "").slice(0, 80);
}

/** Run the fuzzer; returns the exit code (1 when any disagreement was found). */
export async function runMutations({ args, count, dir, cases, run, codex, ours }) {
  const seed = args.includes("--seed") ? Number(args[args.indexOf("--seed") + 1]) : 1;
  const perClass = args.includes("--examples") ? Number(args[args.indexOf("--examples") + 1]) : 2;
  const r = rng(seed);
  const seeds = [];
  for (const c of cases) if (c.rules.length === 1 && !c.intentional) seeds.push({ text: c.rules[0], commands: c.commands.slice(0, 2) });
  for (const text of EXTRA_SEEDS) seeds.push({ text, commands: [["git", "status"], ["git", "push"]] });
  args.forEach((a, i) => { if (a === "--seed-file") seeds.push({ text: readFileSync(args[i + 1], "utf8"), commands: [["git", "status"], ["ls"]] }); });

  const classes = new Map();
  const opsSeen = new Map();
  let agree = 0;
  let next = 0;
  const jobs = Array.from({ length: count }, (_, i) => {
    const s = r.pick(seeds);
    const m = mutate(s.text, r);
    return { i, text: m.text, operators: m.operators, command: r.pick(s.commands) };
  });
  async function worker() {
    while (next < jobs.length) {
      const job = jobs[next++];
      const file = join(dir, `m${job.i}.rules`);
      writeFileSync(file, job.text);
      const ref = await run(codex, ["execpolicy", "check", "--rules", file, "--", ...job.command]);
      const got = await ours([file], job.command);
      const cls = classify(ref, got);
      for (const op of job.operators) opsSeen.set(op, (opsSeen.get(op) ?? 0) + 1);
      if (!cls) { agree++; continue; }
      const entry = classes.get(cls) ?? { count: 0, examples: [], operators: new Map() };
      entry.count++;
      for (const op of job.operators) entry.operators.set(op, (entry.operators.get(op) ?? 0) + 1);
      entry.examples.push({ ...job, ref, got });
      entry.examples.sort((a, b) => a.text.length - b.text.length);
      entry.examples.length = Math.min(entry.examples.length, perClass);
      classes.set(cls, entry);
    }
  }
  // Interrupted (Ctrl-C, a timeout): report what was found so far.
  let stopped = false;
  const stop = () => { stopped = true; next = jobs.length; };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const jobsN = args.includes("--jobs") ? Number(args[args.indexOf("--jobs") + 1]) : 2;
  await Promise.all(Array.from({ length: jobsN }, () => worker()));
  const done = agree + [...classes.values()].reduce((n, e) => n + e.count, 0);

  const sorted = [...classes.entries()].sort((a, b) => b[1].count - a[1].count);
  for (const [cls, e] of sorted) {
    console.log(`\n=== ${cls} — ${e.count} mutant(s); operators: ${[...e.operators].map(([k, v]) => `${k}×${v}`).join(", ")}`);
    for (const ex of e.examples) {
      console.log(`--- mutant #${ex.i} (${ex.operators.join("+")}), command ${JSON.stringify(ex.command)}:`);
      console.log(ex.text.split("\n").map((l) => `    | ${l}`).join("\n"));
      console.log(`  codex (exit ${ex.ref.code}): ${ex.ref.code === 0 ? ex.ref.stdout.trim() : codexError(ex.ref.stderr)}`);
      console.log(`  ours  (exit ${ex.got.code}): ${ex.got.code === 0 ? ex.got.stdout.trim() : ex.got.stderr.split("\n").slice(0, 2).join(" | ")}`);
    }
  }
  const disagreements = sorted.reduce((n, [, e]) => n + e.count, 0);
  console.log(`\nmutation fuzzer: seed ${seed}, ${done}${stopped ? ` of ${count} (interrupted)` : ""} mutants from ${seeds.length} seed files, ${agree} agree, ${disagreements} disagree in ${classes.size} class(es) (ours: ${args.includes("--lib") ? "library in-process" : "policy-check bin"}; codex: ${codex})`);
  return disagreements ? 1 : 0;
}
