// Plan reuse: a run takes the previous run's view only while every file-system read it was made from
// answers the same. Each change below is made between two runs of a reusing backend; the second run
// must come out as a backend that computes afresh makes it, and (the control) differently from the
// first, so that the change is one the view depends on.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { observedFs, parseSandboxPolicy, recordObservations, type ExecEnv, type SandboxPolicyInput } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, LinuxSandboxError, probeLinuxSandbox, type LinuxSandboxBackendOptions } from "../src/index.js";
import { PlanMemo, planReuseFrom } from "../src/plan-reuse.js";
import { baseEnv, bwrapMissing, makeDirs } from "./support.js";

const bwrapSkip = await bwrapMissing();
/** The bubblewrap the probe found (copied for the case that configures its own). */
const bwrapFound = (await probeLinuxSandbox()).bwrap.path ?? "/usr/bin/bwrap";

/** Runs to clean up once a test is done: a run's cleanup changes what the next one sees (lock files). */
const pending: ExecEnv[] = [];
afterEach(async () => {
  await Promise.all(pending.splice(0).map((env) => env.cleanup?.()));
});

/** What a run comes out as: its reuse key (launch, cwd, env, identities of what it mounts), or its error. */
async function outcome(env: Promise<ExecEnv>): Promise<string> {
  try {
    const done = await env;
    pending.push(done);
    return `key ${done.deferred?.reuseKey ?? JSON.stringify(done.argv)} isolation ${done.isolation}`;
  } catch (error) {
    return `error ${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
}

skipUnless(bwrapSkip).describe("a reused view", () => {
  const dirs = makeDirs("plan-reuse");
  afterAll(() => dirs.remove());
  const savedHome = process.env["HOME"];
  afterEach(() => {
    process.env["HOME"] = savedHome;
  });
  let n = 0;

  interface Case {
    name: string;
    /** Set up before the first run; returns the policy (default: workspace-write) and backend options. */
    setUp?(ws: string, outside: string): { policy?: SandboxPolicyInput; options?: LinuxSandboxBackendOptions } | void;
    change(ws: string, outside: string): void;
  }

  const cases: Case[] = [
    {
      name: "a protected directory that was empty gets an entry (a placeholder becomes a read-only mount)",
      setUp: (ws) => void fs.mkdirSync(path.join(ws, ".codex")),
      change: (ws) => fs.writeFileSync(path.join(ws, ".codex", "config.toml"), "x = 1\n"),
    },
    {
      name: "the repository's config names a hooks directory",
      change: (ws) => {
        fs.mkdirSync(path.join(ws, "my-hooks"));
        fs.writeFileSync(path.join(ws, ".git", "config"), `[core]\n\thooksPath = ${path.join(ws, "my-hooks")}\n`);
      },
    },
    {
      name: "a protected name becomes a symlink (the run is refused)",
      change: (ws, outside) => fs.symlinkSync(outside, path.join(ws, ".agents")),
    },
    {
      name: "a denied-read path comes into being",
      setUp: (_ws, outside) => ({ policy: { mode: "workspace-write", deniedReadPaths: [path.join(outside, "secret")] } }),
      change: (_ws, outside) => fs.writeFileSync(path.join(outside, "secret"), "s"),
    },
    {
      name: "the host's HOME moves into the workspace (its tool directories are then held)",
      setUp: (_ws, outside) => void (process.env["HOME"] = outside),
      change: (ws) => {
        fs.mkdirSync(path.join(ws, "home", ".ssh"), { recursive: true });
        process.env["HOME"] = path.join(ws, "home");
      },
    },
    {
      name: "the directory of a configured bubblewrap becomes group-writable (the run is refused)",
      setUp: (_ws, outside) => {
        const bin = path.join(outside, "bin");
        fs.mkdirSync(bin, { mode: 0o755 });
        fs.copyFileSync(bwrapFound, path.join(bin, "bwrap"));
        fs.chmodSync(path.join(bin, "bwrap"), 0o755);
        return { options: { bwrapPath: path.join(bin, "bwrap") } };
      },
      change: (_ws, outside) => fs.chmodSync(path.join(outside, "bin"), 0o775),
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const ws = path.join(dirs.base, `ws-${n}`);
      const outside = path.join(dirs.outside, `o-${n++}`);
      fs.mkdirSync(path.join(ws, ".git", "hooks"), { recursive: true });
      fs.mkdirSync(outside);
      const given = c.setUp?.(ws, outside) ?? {};
      const policy = parseSandboxPolicy(given.policy ?? { mode: "workspace-write" });
      const reusing = createLinuxSandboxBackend({ ...given.options, planReuse: "on" });
      const fresh = createLinuxSandboxBackend({ ...given.options, planReuse: "off" });
      const spec = () => ({ argv: ["/bin/true"], cwd: ws, env: { ...baseEnv(), HOME: process.env["HOME"] ?? "/" } });
      const run = (backend: typeof reusing) => outcome(backend.transform(spec(), policy, { sandboxPolicyCwd: ws }));
      const first = await run(reusing);
      expect(await run(reusing)).toBe(first);
      // A sandbox set up from the first view, waiting: it stands in for another command until the change.
      const waiting = await reusing.transform(spec(), policy, { sandboxPolicyCwd: ws });
      pending.push(waiting);
      const other = () => ({ ...spec(), argv: ["/bin/echo", "other"] });
      const before = await waiting.deferred?.reuseFor?.(other(), policy, { sandboxPolicyCwd: ws });
      expect(before?.argv.slice(-3)).toEqual(["--", "/bin/echo", "other"]);
      c.change(ws, outside);
      const now = await run(fresh);
      expect(now).not.toBe(first);
      expect(await run(reusing)).toBe(now);
      expect(await waiting.deferred?.reuseFor?.(other(), policy, { sandboxPolicyCwd: ws })).toBeUndefined();
    });
  }

  it("a waiting sandbox stands in only for the same cwd, environment and policy, with the command's own payload; not with reuse off", async () => {
    const ws = path.join(dirs.base, "ws-stand-in");
    fs.mkdirSync(path.join(ws, ".git"), { recursive: true });
    const policy = parseSandboxPolicy({ mode: "workspace-write" });
    const opts = { sandboxPolicyCwd: ws };
    const spec = { argv: ["/bin/true"], cwd: ws, env: baseEnv() };
    for (const planReuse of ["on", "check"] as const) {
      const waiting = await createLinuxSandboxBackend({ planReuse }).transform(spec, policy, opts);
      pending.push(waiting);
      const reuseFor = waiting.deferred?.reuseFor;
      expect(reuseFor).toBeDefined();
      const standIn = await reuseFor?.({ ...spec, argv: ["/bin/echo", "a b"] }, policy, opts);
      expect(Buffer.from(standIn?.payload ?? []).toString()).toBe("\u000e\u0000\u0000\u0000/bin/echo\u0000a b\u0000");
      expect(standIn?.argv).toEqual([...(waiting.deferred?.argv ?? []).slice(0, -2), "--", "/bin/echo", "a b"]);
      expect(await reuseFor?.({ ...spec, env: { ...spec.env, EXTRA: "1" } }, policy, opts)).toBeUndefined();
      expect(await reuseFor?.({ ...spec, cwd: dirs.outside }, policy, opts)).toBeUndefined();
      expect(await reuseFor?.(spec, parseSandboxPolicy({ mode: "read-only" }), opts)).toBeUndefined();
      expect(await reuseFor?.({ ...spec, argv: ["no-such-program-here"] }, policy, opts)).toBeUndefined();
    }
    const off = await createLinuxSandboxBackend({ planReuse: "off" }).transform(spec, policy, opts);
    pending.push(off);
    expect(off.deferred?.reuseFor).toBeUndefined();
  });

  it("a view still valid is reused: none of its reads are made again (control: without reuse they are)", async () => {
    const ws = path.join(dirs.base, "ws-reads");
    fs.mkdirSync(path.join(ws, ".git"), { recursive: true });
    fs.writeFileSync(path.join(ws, ".git", "config"), "[core]\n");
    const policy = parseSandboxPolicy({ mode: "workspace-write" });
    const spec = { argv: ["/bin/true"], cwd: ws, env: baseEnv() };
    const readsOfSecondRun = async (planReuse: "on" | "off") => {
      const backend = createLinuxSandboxBackend({ planReuse });
      await outcome(backend.transform(spec, policy, { sandboxPolicyCwd: ws }));
      const stop = recordObservations();
      await outcome(backend.transform(spec, policy, { sandboxPolicyCwd: ws }));
      return stop().list.map((o) => `${o.op} ${o.args[0]}`);
    };
    const gitConfigRead = `readFile ${path.join(fs.realpathSync(ws), ".git", "config")}`;
    expect(await readsOfSecondRun("off")).toContain(gitConfigRead);
    expect(await readsOfSecondRun("on")).not.toContain(gitConfigRead);
  });

  it("every file-system read of a run's view goes through observedFs (checked by the stack of each node:fs call)", async () => {
    const ws = path.join(dirs.base, "ws-stacks");
    fs.mkdirSync(path.join(ws, ".git"), { recursive: true });
    fs.writeFileSync(path.join(ws, ".git", "config"), "[core]\n");
    const backend = createLinuxSandboxBackend({ planReuse: "off" });
    const policy = parseSandboxPolicy({ mode: "workspace-write", deniedReadPaths: [path.join(dirs.outside, "nothing")] });
    await outcome(backend.transform({ argv: ["/bin/true"], cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws }));
    // The same object `import fs from "node:fs"` gives every module.
    const nodeFs = createRequire(import.meta.url)("node:fs") as Record<string, unknown>;
    const names = ["lstatSync", "statSync", "readdirSync", "opendirSync", "openSync", "readFileSync", "readlinkSync", "existsSync", "accessSync", "realpathSync"];
    const callers: string[] = [];
    const saved = names.map((name) => [name, nodeFs[name]] as const);
    const savedNative = (nodeFs["realpathSync"] as { native: unknown }).native;
    const watch = (name: string, original: (...a: unknown[]) => unknown) =>
      function (this: unknown, ...args: unknown[]) {
        const frames = (new Error().stack ?? "").split("\n").slice(2).filter((l) => !l.includes("node:") && !l.includes("plan-reuse.test"));
        callers.push(`${name} ${frames[0]?.trim() ?? "?"}`);
        return original.apply(this, args);
      };
    try {
      for (const [name, original] of saved) nodeFs[name] = watch(name, original as (...a: unknown[]) => unknown);
      (nodeFs["realpathSync"] as { native: unknown }).native = watch("realpathSync.native", savedNative as (...a: unknown[]) => unknown);
      await outcome(backend.transform({ argv: ["/bin/true"], cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws }));
    } finally {
      for (const [name, original] of saved) nodeFs[name] = original;
      (nodeFs["realpathSync"] as { native: unknown }).native = savedNative;
    }
    // What a run does besides its view: the command's check, the lock directory, the cgroup.
    // (Tests load the packages' sources, other callers their builds.)
    const outsideTheView = /\/(check-command|placeholders|process-limit|probe[a-z-]*|helper-path)\.[jt]s:/;
    const observed = /\/observed-fs\.[jt]s:/;
    const unobserved = callers.filter((c) => !observed.test(c) && !outsideTheView.test(c));
    expect(callers.filter((c) => observed.test(c)).length).toBeGreaterThan(20);
    expect(unobserved).toEqual([]);
  });
});

describe("PlanMemo", () => {
  const dirs = makeDirs("plan-memo");
  afterAll(() => dirs.remove());
  const file = path.join(dirs.outside, "input");

  it("with check, a read that escaped the recording fails the run; with on it goes unnoticed (the control)", async () => {
    fs.writeFileSync(file, "one");
    // Read with node:fs directly: the recording does not see it.
    const unrecorded = async () => fs.readFileSync(file, "utf8");
    const on = new PlanMemo<string>("on");
    const check = new PlanMemo<string>("check");
    expect((await on.view("inputs", unrecorded)).value).toBe("one");
    expect((await check.view("inputs", unrecorded)).value).toBe("one");
    fs.writeFileSync(file, "two");
    expect((await on.view("inputs", unrecorded)).value).toBe("one");
    await expect(check.view("inputs", unrecorded)).rejects.toMatchObject({ failure: "reuse-check-failed" });
  });

  it("a recorded read that changed, or other inputs, make it compute again", async () => {
    fs.writeFileSync(file, "one");
    let computed = 0;
    const recorded = async () => {
      computed++;
      return observedFs.readFile(file, 0, 100).text;
    };
    const memo = new PlanMemo<string | undefined>("on");
    expect((await memo.view("a", recorded)).value).toBe("one");
    expect((await memo.view("a", recorded)).value).toBe("one");
    expect(computed).toBe(1);
    fs.writeFileSync(file, "two");
    expect((await memo.view("a", recorded)).value).toBe("two");
    expect((await memo.view("b", recorded)).value).toBe("two");
    expect(computed).toBe(3);
  });

  it("keeps no failure, and hands out copies the caller may change", async () => {
    const memo = new PlanMemo<{ list: string[] }>("on");
    await expect(memo.view("a", async () => {
      throw new Error("boom");
    })).rejects.toThrow("boom");
    const first = (await memo.view("a", async () => ({ list: ["x"] }))).value;
    first.list.push("changed");
    expect((await memo.view("a", async () => ({ list: ["never"] }))).value).toEqual({ list: ["x"] });
  });
});

describe("planReuse setting", () => {
  it("the option wins over the environment; the environment's value is checked by name", () => {
    expect(planReuseFrom("off", { SHELLGATE_PLAN_REUSE: "check" })).toBe("off");
    expect(planReuseFrom(undefined, { SHELLGATE_PLAN_REUSE: "check" })).toBe("check");
    expect(planReuseFrom(undefined, {})).toBe("on");
    expect(() => planReuseFrom(undefined, { SHELLGATE_PLAN_REUSE: "sometimes" })).toThrow(/SHELLGATE_PLAN_REUSE="sometimes": expected on, off or check/);
    expect(() => createLinuxSandboxBackend({ planReuse: "maybe" as "on" })).toThrow(LinuxSandboxError);
  });
});
