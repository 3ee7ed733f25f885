// The process limit: how it is chosen (pure logic), and that a run really stops at it while the
// same loop outside the sandbox starts every process (the control). Numbers stay small (limit 64,
// 128 attempts of `sleep`); no unbounded fork bomb is ever started, and everything is killed.
import fs from "node:fs";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSandboxPolicy, type SandboxBackend, type SandboxPolicyInput } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, DEFAULT_PROCESS_LIMIT, LinuxSandboxError, locateHelper } from "../src/index.js";
import {
  describeProcessLimit,
  findPidsCgroupParent,
  parseCgroupMounts,
  parseProcCgroup,
  planProcessLimit,
} from "../src/process-limit.js";
import { bwrapMissing, bwrapPart, landlockMissing, makeDirs, nobodyCannotReach, processWithArgsExists, run, runSandboxed } from "./support.js";

/** Why the root-to-nobody tests cannot run here (computed once), or undefined. */
const nobodySkip = nobodyCannotReach();

const V1_MOUNTINFO = [
  "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
  "38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
  "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
].join("\n");
const V2_MOUNTINFO = "30 22 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate";

describe("choosing how to enforce the limit", () => {
  it("parses mountinfo and /proc/self/cgroup", () => {
    expect(parseCgroupMounts(V1_MOUNTINFO)).toEqual([
      { root: "/", mountPoint: "/sys/fs/cgroup/pids", fsType: "cgroup", superOptions: ["rw", "pids"] },
      { root: "/", mountPoint: "/sys/fs/cgroup/unified", fsType: "cgroup2", superOptions: ["rw"] },
    ]);
    const own = parseProcCgroup("9:name=systemd:/\n8:pids:/user.slice\n4:memory:/x\n0::/user.slice/u.scope\n");
    expect(own.get("pids")).toBe("/user.slice");
    expect(own.get("")).toBe("/user.slice/u.scope");
  });

  const files = (map: Record<string, string>) => (f: string) => map[f] ?? "";

  it("prefers the v1 pids hierarchy, at this process's own cgroup", () => {
    const read = files({ "/proc/self/mountinfo": V1_MOUNTINFO, "/proc/self/cgroup": "8:pids:/svc\n0::/\n" });
    expect(findPidsCgroupParent(read, () => true)).toEqual({ parent: { dir: "/sys/fs/cgroup/pids/svc", version: 1 } });
    expect(findPidsCgroupParent(read, () => false)).toEqual({ reason: "cannot create a cgroup in /sys/fs/cgroup/pids/svc as this user" });
  });

  it("uses cgroup v2 where the pids controller is delegated to children: own cgroup, else the nearest ancestor", () => {
    const base = { "/proc/self/mountinfo": V2_MOUNTINFO, "/proc/self/cgroup": "0::/user.slice/app\n" };
    const delegated = files({ ...base, "/sys/fs/cgroup/user.slice/app/cgroup.subtree_control": "cpu pids\n" });
    expect(findPidsCgroupParent(delegated, () => true)).toEqual({ parent: { dir: "/sys/fs/cgroup/user.slice/app", version: 2 } });
    // systemd: the session scope holds processes, the slice above it delegates pids
    const slice = files({ ...base, "/sys/fs/cgroup/user.slice/cgroup.subtree_control": "memory pids\n", "/sys/fs/cgroup/cgroup.subtree_control": "pids" });
    expect(findPidsCgroupParent(slice, () => true)).toEqual({ parent: { dir: "/sys/fs/cgroup/user.slice", version: 2 } });
    expect(findPidsCgroupParent(slice, (d) => d === "/sys/fs/cgroup")).toEqual({ parent: { dir: "/sys/fs/cgroup", version: 2 } });
    expect(findPidsCgroupParent(slice, () => false)).toEqual({ reason: "cannot create a cgroup in /sys/fs/cgroup/user.slice as this user" });
    const not = findPidsCgroupParent(files(base), () => true);
    expect(not).toMatchObject({ reason: expect.stringContaining("enables the pids controller for its children") });
    expect(findPidsCgroupParent(files({ "/proc/self/mountinfo": "", "/proc/self/cgroup": "" }), () => true)).toEqual({
      reason: "no pids cgroup controller is mounted",
    });
  });

  it("falls back to RLIMIT_NPROC only where it binds: bubblewrap's user namespace, not root", () => {
    const noCgroup = () => ({ reason: "no cgroup" });
    const cgroup = () => ({ parent: { dir: "/cg", version: 1 as const } });
    expect(planProcessLimit("bwrap", 0, cgroup)).toEqual({ how: "cgroup", parent: { dir: "/cg", version: 1 } });
    expect(planProcessLimit("bwrap", 1000, noCgroup)).toEqual({ how: "rlimit" });
    expect(planProcessLimit("bwrap", 0, noCgroup)).toEqual({ how: "none", reason: "no cgroup; RLIMIT_NPROC does not bind root" });
    expect(planProcessLimit("landlock", 1000, noCgroup)).toMatchObject({ how: "none" });
    expect(describeProcessLimit(64, { how: "none", reason: "x" })).toBe("process limit 64: NOT enforced here (x)");
  });

  it("validates the option: a whole number from 8, or \"off\"", () => {
    for (const bad of [0, -1, 1.5, 7, Number.NaN, "none", "64"]) {
      expect(() => createLinuxSandboxBackend({ processLimit: bad as number })).toThrow(LinuxSandboxError);
    }
    expect(() => createLinuxSandboxBackend({ processLimit: 1.5 })).toThrow(/processLimit/);
    expect(() => createLinuxSandboxBackend({ processLimit: "off" })).not.toThrow();
    expect(() => createLinuxSandboxBackend({ processLimit: 64 })).not.toThrow();
    expect(DEFAULT_PROCESS_LIMIT).toBe(4096);
  });
});

const LIMIT = 64;
const ATTEMPTS = 2 * LIMIT;

/** Start up to ATTEMPTS background sleeps, printing one line per successful fork; dash stops at the first failure. */
function forkLoop(sleeper: string): string[] {
  return ["/bin/sh", "-c", `i=0; while [ $i -lt ${ATTEMPTS} ]; do ${sleeper} >/dev/null 2>&1 & echo started; i=$((i+1)); done`];
}

function killAll(cmdline: string): void {
  for (const pid of processWithArgsExists(cmdline)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/** Poll until `cond` holds (at most ~5 s): the kernel needs a moment to kill a namespace's processes. */
async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
}

const count = (out: string) => out.split("\n").filter((l) => l === "started").length;

const layers: Array<{ name: string; skip: string | undefined; backend: (o?: { processLimit?: number | "off" }) => SandboxBackend }> = [
  { name: "bwrap+seccomp", skip: await bwrapMissing(), backend: (o) => createLinuxSandboxBackend({ processLimit: LIMIT, ...o }) },
  {
    name: "landlock+seccomp",
    skip: await landlockMissing(),
    backend: (o) => createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true, processLimit: LIMIT, ...o }),
  },
];

for (const layer of layers) {
  describe.skipIf(layer.skip !== undefined)(`process limit under ${layer.name}${layer.skip ? ` (skipped: ${layer.skip})` : ""}`, () => {
    const dirs = makeDirs(`limits${layer.name.replace(/\W/g, "")}`);
    afterAll(() => dirs.remove());
    const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };

    it(`stops a loop of ${ATTEMPTS} background processes at ${LIMIT}; outside, all start`, async (ctx) => {
      const backend = layer.backend();
      const availability = await backend.isAvailable();
      if (!availability.available) ctx.skip(`the configured limit cannot be enforced here: ${availability.reason}`);
      expect(availability.available && availability.notes?.some((n) => n.startsWith(`process limit ${LIMIT}: enforced by`))).toBe(true);
      const sleeper = `sleep ${4000 + layer.name.length * 10 + (process.pid % 1000)}.4242`;
      const execEnv = await backend.transform({ argv: forkLoop(sleeper), cwd: dirs.ws, env: { PATH: "/usr/bin:/bin" } }, parseSandboxPolicy(policy), {
        sandboxPolicyCwd: dirs.ws,
      });
      const at = execEnv.argv.indexOf("--cgroup");
      const cgroup = at >= 0 ? execEnv.argv[at + 1] : undefined;
      if (process.getuid?.() === 0) expect(cgroup, "as root only a cgroup binds").toBeDefined();
      else if (layer.name.startsWith("bwrap")) expect(execEnv.argv.join(" ")).toContain(`--nproc ${LIMIT} --`);
      if (cgroup && layer.name.startsWith("bwrap")) {
        // the helper joins the cgroup on the host (and makes the placeholders) and execs bubblewrap,
        // which starts the helper again inside
        expect(execEnv.argv.slice(1, 3)).toEqual(["--cgroup", cgroup]);
        expect(bwrapPart(execEnv.argv)[0]).toMatch(/\/bwrap$/);
        expect(execEnv.argv.filter((a) => a === execEnv.argv[0])).toHaveLength(2);
      }
      try {
        const inside = await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
        await execEnv.cleanup?.();
        const started = count(inside.stdout);
        expect(started, inside.stderr).toBeGreaterThan(LIMIT / 2); // it did run, and ordinary forks work
        expect(started, inside.stderr).toBeLessThan(LIMIT);
        expect(inside.code).not.toBe(0); // the shell gave up at the first refused fork
        // and the sandbox takes the rest down (bubblewrap's outer process may exit a moment before
        // its PID namespace is torn down, so poll)
        await waitFor(() => processWithArgsExists(sleeper).length === 0);
        expect(processWithArgsExists(sleeper)).toEqual([]);
        // the run's cgroup (made only where one can be) is gone again
        if (cgroup) expect(fs.existsSync(cgroup)).toBe(false);
        // control: the same loop on the host starts every process
        const outside = await run(forkLoop(sleeper), { cwd: dirs.ws });
        expect(outside.code).toBe(0);
        expect(count(outside.stdout)).toBe(ATTEMPTS);
      } finally {
        await execEnv.cleanup?.();
        killAll(sleeper);
      }
    });

    it(`"off" sets no limit`, async () => {
      const sleeper = `sleep ${5000 + layer.name.length * 10 + (process.pid % 1000)}.4242`;
      try {
        const r = await runSandboxed(layer.backend({ processLimit: "off" }), forkLoop(sleeper), policy, dirs.ws);
        expect(r.stderr).toBe("");
        expect(count(r.stdout)).toBe(ATTEMPTS);
      } finally {
        killAll(sleeper);
      }
    });
  });
}

describe.skipIf((await bwrapMissing()) !== undefined || nobodySkip !== undefined)(
  `process limit for an unprivileged user (run as nobody from root)${nobodySkip ? ` (skipped: ${nobodySkip})` : ""}`,
  () => {
    // Made in a hook, not while collecting: a skipped suite's hooks do not run, so it would never be removed.
    let dirs!: ReturnType<typeof makeDirs>;
    beforeAll(() => {
      dirs = makeDirs("limitsnobody");
    });
    afterAll(() => dirs.remove());

    it(`nobody's sandbox stops at ${LIMIT} too (RLIMIT_NPROC in the user namespace, or a delegated cgroup)`, async () => {
      fs.chmodSync(dirs.base, 0o777);
      fs.chmodSync(dirs.ws, 0o777);
      const sleeper = `sleep ${6000 + (process.pid % 1000)}.4242`;
      const index = new URL("../dist/index.js", import.meta.url).pathname;
      const script = `
        const { spawnSync } = await import("node:child_process");
        const { createLinuxSandboxBackend } = await import(${JSON.stringify(index)});
        const backend = createLinuxSandboxBackend({ processLimit: ${LIMIT} });
        const a = await backend.isAvailable();
        const env = await backend.transform({ argv: ${JSON.stringify(forkLoop(sleeper))}, cwd: ${JSON.stringify(dirs.ws)}, env: { PATH: "/usr/bin:/bin" } },
          { mode: "workspace-write", writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: true, deniedReadPaths: [] },
          { sandboxPolicyCwd: ${JSON.stringify(dirs.ws)} });
        const r = spawnSync(env.argv[0], env.argv.slice(1), { cwd: env.cwd, env: env.env, encoding: "utf8" });
        await env.cleanup?.();
        console.log(JSON.stringify({ notes: a.notes, started: r.stdout.split("\\n").filter((l) => l === "started").length }));`;
      try {
        const r = await run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "--input-type=module", "-e", script], { cwd: dirs.ws });
        expect(r.stderr).toBe("");
        const out = JSON.parse(r.stdout) as { notes: string[]; started: number };
        expect(out.notes.some((n) => n.startsWith(`process limit ${LIMIT}: enforced by`))).toBe(true);
        expect(out.started).toBeGreaterThan(LIMIT / 2);
        expect(out.started).toBeLessThan(LIMIT);
        await waitFor(() => processWithArgsExists(sleeper).length === 0);
        expect(processWithArgsExists(sleeper)).toEqual([]);
      } finally {
        killAll(sleeper);
      }
    });
  },
);

const landlockSkip = await landlockMissing();

describe("an explicit limit that cannot be enforced is refused, never dropped", () => {
  it.skipIf(landlockSkip !== undefined || process.getuid?.() === 0)(
    "Landlock without a cgroup (skipped as root: root can make a cgroup here)",
    async (ctx) => {
      if ("parent" in findPidsCgroupParent()) ctx.skip("this user can create a pids cgroup here");
      const backend = createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true, processLimit: LIMIT });
      const a = await backend.isAvailable();
      expect(a.available).toBe(false);
      const dirs = makeDirs("limitsrefuse");
      try {
        const error = await backend
          .transform({ argv: ["true"], cwd: dirs.ws, env: { PATH: "/usr/bin:/bin" } }, parseSandboxPolicy({ mode: "read-only" }), { sandboxPolicyCwd: dirs.ws })
          .catch((e: unknown) => e);
        expect(error).toMatchObject({ failure: "not-enforceable" });
      } finally {
        dirs.remove();
      }
      // the default limit is best effort and says so
      const lenient = createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true });
      const b = await lenient.isAvailable();
      expect(b.available && b.notes?.some((n) => /NOT enforced/.test(n))).toBe(true);
    },
  );
});

skipUnless((process.platform === "linux" ? undefined : `not Linux (${process.platform})`) ?? (locateHelper() ? undefined : "the helper is not built (run the package build)")).describe("the helper's limit arguments fail closed", () => {
  it.each([
    [["--net", "off", "--nproc", "0", "--", "true"], /--nproc needs a positive number/],
    [["--net", "off", "--nproc", "12x", "--", "true"], /--nproc needs a positive number/],
    [["--cgroup", "relative", "--net", "off", "--", "true"], /--cgroup needs an absolute path/],
    [["--exec-only", "--", "/bin/true"], /usage/],
    [["--cgroup", "/nonexistent-cgroup", "--exec-only", "--", "true"], /--exec-only needs an absolute program path/],
    [["--cgroup", "/nonexistent-cgroup", "--exec-only", "--net", "off", "--", "/bin/true"], /--exec-only takes only --cgroup and --placeholder/],
    [["--cgroup", "/nonexistent-cgroup", "--exec-only", "--", "/bin/true"], /open \/nonexistent-cgroup\/cgroup.procs: No such file/],
    [["--cgroup", "/nonexistent-cgroup", "--net", "off", "--", "/bin/true"], /open \/nonexistent-cgroup\/cgroup.procs: No such file/],
  ])("%j", async (args, message) => {
    const r = await run([locateHelper() as string, ...args]);
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(message);
  });

  // Plain directories stand in for the two cgroup file systems, so that what the helper writes can
  // be read back; the runs above show that a real cgroup joined this way holds the limit.
  it("joins a v1 cgroup by moving its only thread (\"0\" to tasks), a v2 cgroup by pid (cgroup.procs)", async () => {
    const dirs = makeDirs("cgroup-files");
    const [v1, v2] = [path.join(dirs.base, "v1"), path.join(dirs.base, "v2")];
    fs.mkdirSync(v1);
    fs.mkdirSync(v2);
    fs.writeFileSync(`${v1}/tasks`, "");
    fs.writeFileSync(`${v1}/cgroup.procs`, "");
    fs.writeFileSync(`${v2}/cgroup.procs`, "");
    try {
      for (const dir of [v1, v2]) {
        const r = await run([locateHelper() as string, "--cgroup", dir, "--net", "off", "--", "/bin/true"]);
        expect(r.code, r.stderr).toBe(0);
      }
      expect(fs.readFileSync(`${v1}/tasks`, "utf8")).toBe("0\n");
      expect(fs.readFileSync(`${v1}/cgroup.procs`, "utf8")).toBe("");
      expect(fs.readFileSync(`${v2}/cgroup.procs`, "utf8")).toMatch(/^[1-9]\d*\n$/);
    } finally {
      dirs.remove();
    }
  });

  it("sets RLIMIT_NPROC for the command (soft and hard) with --nproc", async () => {
    const control = await run(["/bin/sh", "-c", "grep 'Max processes' /proc/self/limits"]);
    expect(control.stdout).not.toMatch(/\b77\s+77\b/);
    // grep is exec'd directly, never forked: a fork would count against the 77 and fail whenever this
    // user already runs that many processes (as nobody in the unprivileged run, next to other suites).
    const limits = await run([locateHelper() as string, "--net", "off", "--nproc", "77", "--", "/bin/grep", "Max processes", "/proc/self/limits"]);
    expect(limits.stdout, limits.stderr).toMatch(/Max processes\s+77\s+77\s/);
  });
});
