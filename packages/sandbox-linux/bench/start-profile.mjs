// Where a sandboxed run's start-up goes, for bench/run.mjs: the backend's real argv for `bash -c
// true` (placeholders, process-limit cgroup, bubblewrap's mounts, the helper inside) against the same
// argv with one part taken away at a time, down to the minimal bubblewrap sandbox and a bare spawn.
// The variants run interleaved, round by round, so the differences between medians of one run are
// each part's cost on this machine. Taking a part away here is a measurement, never a way to run.
import { spawn } from "node:child_process";
import { mkdirSync, rmdirSync } from "node:fs";

const MINIMAL = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent"];
const MOUNT_OPTIONS = new Set(["--bind", "--ro-bind", "--ro-bind-try", "--dev", "--proc", "--tmpfs", "--remount-ro", "--dir", "--lock-file"]);

function run(argv, opts) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(argv[0], argv.slice(1), { stdio: "ignore", ...opts });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - start) / 1e6) : reject(new Error(`${argv.join(" ")} exited ${code}`))));
  });
}

/** CPU time (user + system, all processes) per run of `argv` run `n` times, from bash's `times`. */
function cpuPerRun(argv, n, opts) {
  return new Promise((resolve, reject) => {
    const loop = `for ((i=0;i<${n};i++)); do "$@" >/dev/null 2>&1 || exit 1; done; times`;
    const child = spawn("bash", ["-c", loop, "bash", ...argv], { stdio: ["ignore", "pipe", "ignore"], ...opts });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${argv.join(" ")} failed in a loop`));
      const line = out.trim().split("\n")[1] ?? "";
      const secs = [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
      resolve((secs * 1000) / n);
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The bubblewrap options of an argv with the options `drop(option, operands)` says to leave out. */
function withoutOptions(bwrapOptions, drop) {
  const arity = { "--bind": 2, "--ro-bind": 2, "--ro-bind-try": 2, "--dir": 1, "--lock-file": 1, "--tmpfs": 1, "--remount-ro": 1, "--chdir": 1, "--dev": 1, "--proc": 1, "--cap-drop": 1, "--size": 1 };
  const kept = [];
  for (let i = 0; i < bwrapOptions.length; i++) {
    const option = bwrapOptions[i];
    const n = arity[option] ?? 0;
    const operands = bwrapOptions.slice(i + 1, i + 1 + n);
    if (!drop(option, operands)) kept.push(option, ...operands);
    i += n;
  }
  return kept;
}

/**
 * Print the start-up profile of one sandboxed `bash -c true` for `backend` under `policy`, `runs`
 * rounds. `ws` is the workspace (its placeholders are made and removed around the variants that
 * run without the helper that would make them).
 */
export async function benchStartProfile(backend, policy, { ws, runs, sessionBackend }) {
  const env = { PATH: "/usr/bin:/bin" };
  const spec = { argv: ["bash", "-c", "true"], cwd: ws, env };
  const execEnv = await backend.transform(spec, policy, { sandboxPolicyCwd: ws });
  // The same run from a backend that keeps its placeholders for the session (its holder keeps them).
  const sessionEnv = sessionBackend ? await sessionBackend.transform(spec, policy, { sandboxPolicyCwd: ws }) : undefined;
  try {
    const argv = execEnv.argv;
    const bwrapAt = argv.findIndex((a) => a.endsWith("/bwrap"));
    const outer = argv.slice(0, bwrapAt);
    const bwrap = argv[bwrapAt];
    const innerAt = argv.indexOf("--", bwrapAt);
    const bwrapOptions = argv.slice(bwrapAt + 1, innerAt);
    const inner = argv.slice(innerAt + 1);
    const command = inner.slice(inner.indexOf("--") + 1);
    const placeholders = [];
    for (let i = 0; i < outer.length; i++) if (outer[i] === "--placeholder") placeholders.push(outer[i + 2]);
    const cgroupAt = outer.indexOf("--cgroup");
    const noCgroup = cgroupAt < 0 ? outer : [...outer.slice(0, cgroupAt), ...outer.slice(cgroupAt + 2)];
    const isPlaceholder = (option, operands) => ["--dir", "--ro-bind", "--lock-file"].includes(option) && placeholders.includes(operands[0]);
    const isProc = (option, operands) => option === "--ro-bind-try" && operands[0].startsWith("/proc/");
    // Variants without the outer helper need the placeholders it would have made (and removed).
    const made = () => placeholders.forEach((p) => mkdirSync(p, { recursive: true, mode: 0o1755 }));
    const gone = () => placeholders.forEach((p) => {
      try {
        rmdirSync(p);
      } catch {
        // not there, or not empty: the helper decides about it
      }
    });
    const variants = [
      ["shellgate's argv", gone, argv],
      ...(sessionEnv ? [["shellgate's argv, placeholders kept for the session", made, sessionEnv.argv]] : []),
      ...(cgroupAt >= 0 ? [["  without the process-limit cgroup", gone, [...noCgroup, bwrap, ...bwrapOptions, "--", ...inner]]] : []),
      ["  without the outer helper (placeholders made before)", made, [bwrap, ...bwrapOptions, "--", ...inner]],
      ["  … and without the helper inside (Landlock, seccomp)", made, [bwrap, ...bwrapOptions, "--", ...command]],
      ["  … and without the /proc read-only binds", made, [bwrap, ...withoutOptions(bwrapOptions, isProc), "--", ...command]],
      ["  … and without the placeholders' binds", made, [bwrap, ...withoutOptions(bwrapOptions, (o, a) => isProc(o, a) || isPlaceholder(o, a)), "--", ...command]],
      ["minimal bwrap with the helper inside", made, [bwrap, ...MINIMAL, "--", ...inner]],
      ["minimal bwrap", made, [bwrap, ...MINIMAL, "--", ...command]],
      ["bash -c true, no sandbox", made, command],
    ];
    const samples = variants.map(() => []);
    for (let round = -2; round < runs; round++) {
      for (const [i, [, prepare, variantArgv]] of variants.entries()) {
        prepare();
        const ms = await run(variantArgv, { cwd: ws, env: { ...env, ...execEnv.env } });
        if (round >= 0) samples[i].push(ms);
      }
    }
    // CPU time moves far less with the machine's other load than wall time: the same variants, each
    // in a loop of its own (a placeholder made before stays; the full argv makes and removes its own).
    const cpu = [];
    for (const [, prepare, variantArgv] of variants) {
      prepare();
      cpu.push(await cpuPerRun(variantArgv, runs, { cwd: ws, env: { ...env, ...execEnv.env } }));
    }
    gone();
    const medians = samples.map(median);
    const minimal = medians[variants.findIndex(([name]) => name === "minimal bwrap")];
    const minimalCpu = cpu[variants.findIndex(([name]) => name === "minimal bwrap")];
    const mounts = bwrapOptions.filter((a) => MOUNT_OPTIONS.has(a)).length;
    console.log(`\n[start-up profile] ${runs} rounds (CPU: ${runs} runs in a loop, all processes; minimal bwrap ${minimalCpu.toFixed(1)} ms); shellgate's argv: ${argv.length} arguments, ${mounts} mount options, ${placeholders.length} placeholders${cgroupAt >= 0 ? ", a pids cgroup" : ""}`);
    let previous = 0; // the line a step is taken from: the one above, or the full argv above a session line
    for (const [i, [name]] of variants.entries()) {
      const step = name.startsWith("  ") ? `, ${(medians[previous] - medians[i]).toFixed(1)} ms wall and ${(cpu[previous] - cpu[i]).toFixed(1)} ms CPU less` : "";
      if (!name.includes("kept for the session")) previous = i;
      console.log(`  ${name.padEnd(56)} ${medians[i].toFixed(1).padStart(6)} ms (CPU ${cpu[i].toFixed(1).padStart(5)} ms)  ${(medians[i] / minimal).toFixed(2)}× minimal bwrap${step}`);
    }
  } finally {
    await execEnv.cleanup?.();
    await sessionEnv?.cleanup?.();
  }
}
