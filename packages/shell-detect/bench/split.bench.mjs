// Benchmark: grammar load (fresh processes) and splitting a 1 KB script (after warm-up), for bash and
// for PowerShell (the same script text, which both read as the same commands).
// Run `npx tsc -b` first; this imports the built package. Targets: split p50 <= 1 ms, load <= 150 ms,
// and the PowerShell split costs no more than the bash split (ratio <= 1). Last, a few plain-word
// scripts (`git status`) split with the shortcut that skips the parser against the parser-only split.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import os from "node:os";

const dist = new URL("../dist/index.js", import.meta.url);
const { splitShellCommand, splitScript, preloadBashGrammar, preloadPowerShellGrammar } = await import(dist.href);

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const verdict = (value, target) => `${value.toFixed(3)} ms vs target ${target} ms (${(value / target).toFixed(2)}x of target): ${value <= target ? "OK" : "OVER"}`;

// 1. Grammar load, once per process: measured in fresh node processes so nothing is cached.
const loads = [];
for (let i = 0; i < 5; i++) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", `
    const m = await import(${JSON.stringify(dist.href)});
    const c = process.cpuUsage(); const t = performance.now(); await m.preloadBashGrammar();
    const load = performance.now() - t; const u = process.cpuUsage(c); const cpu = (u.user + u.system) / 1000;
    const t2 = performance.now(); await m.splitShellCommand(["bash", "-lc", "ls && pwd"]); const first = performance.now() - t2;
    console.log(JSON.stringify({ load, cpu, first }));`], { encoding: "utf8", cwd: fileURLToPath(new URL(".", import.meta.url)) });
  loads.push(JSON.parse(out));
}
const loadP50 = quantile(loads.map((l) => l.load), 0.5);
const psLoads = [];
for (let i = 0; i < 5; i++) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", `
    const m = await import(${JSON.stringify(dist.href)});
    const t = performance.now(); await m.preloadPowerShellGrammar(); const load = performance.now() - t;
    console.log(JSON.stringify({ load }));`], { encoding: "utf8", cwd: fileURLToPath(new URL(".", import.meta.url)) });
  psLoads.push(JSON.parse(out));
}
const psLoadP50 = quantile(psLoads.map((l) => l.load), 0.5);
const firstP50 = quantile(loads.map((l) => l.first), 0.5);

// 1b. Where that time goes: the runtime, the grammar, and the first parse (which compiles most of the wasm).
const parts = [];
for (let i = 0; i < 3; i++) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", `
    import { createRequire } from "node:module";
    const { Parser, Language } = await import("web-tree-sitter");
    const wasm = createRequire(${JSON.stringify(dist.href)}).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
    let t = performance.now(); await Parser.init(); const init = performance.now() - t;
    t = performance.now(); const lang = await Language.load(wasm); const language = performance.now() - t;
    t = performance.now(); const p = new Parser(); p.setLanguage(lang); p.parse("true").delete(); const parse = performance.now() - t;
    console.log(JSON.stringify({ init, language, parse }));`], { encoding: "utf8", cwd: fileURLToPath(new URL("..", import.meta.url)) });
  parts.push(JSON.parse(out));
}
const part = (k) => quantile(parts.map((x) => x[k]), 0.5).toFixed(1);
const cpuP50 = quantile(loads.map((l) => l.cpu), 0.5);

// 2. Splitting a plain 1 KB script. The unit is valid bash and valid PowerShell 7 with the same commands.
const unit = `git add -A && rg -n "TODO" src/lib | wc -l; echo 'hello world' || cat README.md | head -n 20 && ls -la /usr/local/bin\n`;
let script = "";
while (script.length + unit.length <= 1024) script += unit;
script = script.padEnd(1024, " ");
const notPlain = script.replace("echo 'hello world'", "echo \"$HOME\"");

await preloadBashGrammar();
await preloadPowerShellGrammar();
const measure = async (s, n, argvOf = (x) => ["bash", "-lc", x]) => {
  const argv = argvOf(s);
  for (let i = 0; i < 300; i++) await splitShellCommand(argv); // warm-up
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await splitShellCommand(argv);
    times.push(performance.now() - t);
  }
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) };
};
const plain = await measure(script, 2000);
const check = await splitShellCommand(["bash", "-lc", script]);
const rejected = await measure(notPlain, 1000);
const pwsh = (x) => ["pwsh", "-NoProfile", "-Command", x];
const psPlain = await measure(script, 2000, pwsh);
// The ratio from interleaved bursts (bash, PowerShell, bash, ...), so that load from other processes
// falls on both alike: the median over rounds of each burst's p50.
const burstP50 = async (arg, n, split = splitShellCommand) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await split(arg);
    times.push(performance.now() - t);
  }
  return quantile(times, 0.5);
};
const rounds = { bash: [], ps: [] };
for (let r = 0; r < 15; r++) {
  rounds.bash.push(await burstP50(["bash", "-lc", script], 200));
  rounds.ps.push(await burstP50(pwsh(script), 200));
}
const interleaved = { bash: quantile(rounds.bash, 0.5), ps: quantile(rounds.ps, 0.5) };
const psCheck = await splitShellCommand(pwsh(script));
const psSame = psCheck.kind === "plain" && check.kind === "plain" && JSON.stringify(psCheck.commands) === JSON.stringify(check.commands);
const psNotPlain = script.replace("echo 'hello world'", "echo $env:HOME");
const psRejected = await measure(psNotPlain, 1000, pwsh);
// A refusal found by the tree walk, not the character check: the call operator on a bare name.
const psTree = script.replace("echo 'hello world'", ". ./setup.ps1");
const psTreeRejected = await measure(psTree, 1000, pwsh);
const psTreeReason = await splitShellCommand(pwsh(psTree));
const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
// Where the PowerShell time goes: the grammar's parse alone, against the bash parse alone.
const { bashParser, powershellParser } = await import(new URL("../dist/grammar.js", import.meta.url).href);
const parseOnly = async (parser, n) => {
  for (let i = 0; i < 300; i++) parser.parse(script).delete();
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    parser.parse(script).delete();
    times.push(performance.now() - t);
  }
  return quantile(times, 0.5);
};
const bashParse = await parseOnly(await bashParser(), 2000);
const psParse = await parseOnly(await powershellParser(), 2000);

console.log(`shell-detect bench (node ${process.version}, ${process.platform}/${process.arch}, ${os.cpus().length} cpus, load average ${os.loadavg()[0].toFixed(2)})`);
console.log(`grammar load incl. warm-up parse (fresh process, p50 of ${loads.length}): ${verdict(loadP50, 150)}; CPU time ${cpuP50.toFixed(1)} ms; first split after it ${firstP50.toFixed(3)} ms`);
console.log(`  breakdown (p50 of ${parts.length} fresh processes): Parser.init ${part("init")} ms + Language.load ${part("language")} ms + first parse ${part("parse")} ms`);
console.log(`split 1 KB plain script (${script.length} chars, ${check.kind === "plain" ? check.commands.length : 0} commands) p50: ${verdict(plain.p50, 1)}; p95 ${plain.p95.toFixed(3)} ms`);
console.log(`split 1 KB not-plain script (expansion in the middle) p50: ${verdict(rejected.p50, 1)}; p95 ${rejected.p95.toFixed(3)} ms`);
console.log(`PowerShell grammar load incl. warm-up parse (fresh process, p50 of ${psLoads.length}): ${verdict(psLoadP50, 150)}`);
console.log(`PowerShell / bash split, interleaved (median of ${rounds.ps.length} bursts' p50): ${interleaved.ps.toFixed(3)} ms / ${interleaved.bash.toFixed(3)} ms = ${ratio(interleaved.ps, interleaved.bash)} (target <= 1.00x): ${interleaved.ps <= interleaved.bash ? "OK" : "OVER"}`);
console.log(`PowerShell split of the same 1 KB script (${psCheck.kind === "plain" ? psCheck.commands.length : 0} commands, same commands as bash: ${psSame}) p50: ${psPlain.p50.toFixed(3)} ms vs bash ${plain.p50.toFixed(3)} ms = ${ratio(psPlain.p50, plain.p50)} (target <= 1.00x): ${psPlain.p50 <= plain.p50 ? "OK" : "OVER"}; p95 ${psPlain.p95.toFixed(3)} ms`);
console.log(`  parse alone p50: PowerShell ${psParse.toFixed(3)} ms vs bash ${bashParse.toFixed(3)} ms = ${ratio(psParse, bashParse)}; PowerShell walk ≈ ${(psPlain.p50 - psParse).toFixed(3)} ms, bash walk ≈ ${(plain.p50 - bashParse).toFixed(3)} ms`);
console.log(`PowerShell split, not plain by the character check ($ in the middle) p50: ${psRejected.p50.toFixed(3)} ms vs bash ${rejected.p50.toFixed(3)} ms = ${ratio(psRejected.p50, rejected.p50)}`);
console.log(`PowerShell split, not plain by the tree walk (${psTreeReason.kind === "not-plain" ? psTreeReason.reason : "?"}) p50: ${psTreeRejected.p50.toFixed(3)} ms vs bash ${rejected.p50.toFixed(3)} ms = ${ratio(psTreeRejected.p50, rejected.p50)}`);
// 3. Plain-word scripts, the commonest agent command: splitScript (which skips the parser for them)
// against the parser-only split, interleaved in bursts as above so that outside load falls on both.
const { splitScriptByParser } = await import(new URL("../dist/split.js", import.meta.url).href);
const WORD_SCRIPTS = ["true", "git status", "ls -la src", "npm test"];
const wordRows = [];
for (const s of WORD_SCRIPTS) {
  const fast = await splitScript(s);
  const same = fast.kind === "plain" && JSON.stringify(fast) === JSON.stringify(await splitScriptByParser(s));
  for (let i = 0; i < 300; i++) {
    await splitScript(s);
    await splitScriptByParser(s);
  }
  const r = { fast: [], parser: [] };
  for (let k = 0; k < 15; k++) {
    r.fast.push(await burstP50(s, 200, splitScript));
    r.parser.push(await burstP50(s, 200, splitScriptByParser));
  }
  wordRows.push({ s, same, fast: quantile(r.fast, 0.5), parser: quantile(r.parser, 0.5) });
}
// The same in a process whose grammar is loaded but whose split code has never run (a pre-warmed
// launcher's first command): the first and second calls, in fresh processes, alternating the two.
const cold = { splitScript: [], splitScriptByParser: [] };
for (let i = 0; i < 11; i++) {
  for (const fn of Object.keys(cold)) {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", `
      const m = await import(${JSON.stringify(new URL("../dist/split.js", import.meta.url).href)});
      await (await import(${JSON.stringify(dist.href)})).preloadBashGrammar();
      let t = performance.now(); await m.${fn}("git status"); const first = performance.now() - t;
      t = performance.now(); await m.${fn}("ls -la src"); const second = performance.now() - t;
      console.log(JSON.stringify({ first, second }));`], { encoding: "utf8" });
    cold[fn].push(JSON.parse(out));
  }
}
const coldP50 = (fn, k) => quantile(cold[fn].map((x) => x[k]), 0.5);

console.log("peer: the Codex CLI does not expose its script splitter as a command, so no direct ratio; figures are against the targets only");
for (const { s, same, fast, parser } of wordRows) {
  console.log(`plain words ${JSON.stringify(s)} (same split both ways: ${same}), median of 15 bursts' p50: shortcut ${(fast * 1000).toFixed(2)} µs vs parser ${(parser * 1000).toFixed(2)} µs = ${ratio(fast, parser)}`);
}
for (const [k, what] of [["first", 'first split ("git status")'], ["second", 'second split ("ls -la src")']]) {
  const fast = coldP50("splitScript", k);
  const parser = coldP50("splitScriptByParser", k);
  console.log(`plain words, ${what} after the grammar load (fresh process, p50 of ${cold.splitScript.length}): shortcut ${(fast * 1000).toFixed(0)} µs vs parser ${(parser * 1000).toFixed(0)} µs = ${ratio(fast, parser)}`);
}
