// A PTY the caller allocated for the run (`dedicatedTerminal`): the sandboxed command keeps it as its
// controlling terminal (job control, Ctrl-C), while TIOCSTI/TIOCLINUX stay refused and killing the
// run still ends every process in it. script(1) provides the PTY; its stdin is a pipe we type into.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { parseSandboxPolicy, type SandboxBackend } from "@shellgate/sandbox";
import { createLinuxSandboxBackend } from "../src/index.js";
import { bwrapArgs, type MountPlan } from "../src/testing.js";
import { bwrapMissing, compileProbe, landlockMissing, makeDirs, processWithArgsExists, sh } from "./support.js";

const haveScript = fs.existsSync("/usr/bin/script") && fs.existsSync("/bin/bash");

const layers: Array<{ name: string; skip: string | undefined; backend: () => SandboxBackend }> = [
  { name: "bwrap+seccomp", skip: await bwrapMissing(), backend: () => createLinuxSandboxBackend() },
  {
    name: "landlock+seccomp",
    skip: await landlockMissing(),
    // a bwrap that does not exist forces the fallback, as on a host without user namespaces
    backend: () => createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true }),
  },
];

const dirs = makeDirs("terminal");
afterAll(() => dirs.remove());
const env = { PATH: "/usr/bin:/bin", HOME: dirs.base, LANG: "C", PS1: "$ " };
const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;

/** A command running on a fresh PTY (script(1)), with what it printed so far and a way to type. */
interface Terminal {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  type: (chars: string) => void;
  closed: Promise<number | null>;
}

function onTerminal(argv: readonly string[], childEnv: Record<string, string>): Terminal {
  const child = spawn("/usr/bin/script", ["-qec", argv.map(quote).join(" "), "/dev/null"], { cwd: dirs.ws, env: childEnv });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  // A test that expects Ctrl-C to end the run types its next line anyway, to show nobody answers it:
  // once script(1) has exited, that write fails with EPIPE, which is the expected outcome, not a crash.
  child.stdin.on("error", () => undefined);
  return { child, output: () => out, type: (chars) => child.stdin.write(chars), closed };
}

/** Bounded polling (no timing assertion): true once `check` holds, false after ~10 s. */
async function until(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/**
 * `argv` sandboxed under workspace-write, on a dedicated terminal or not. /tmp and TMPDIR are left
 * out of the writable roots: a checkout under /tmp would otherwise hold the helper inside a writable
 * root, which every run rightly refuses, and these tests are about the terminal, not /tmp.
 */
async function prepared(backend: SandboxBackend, argv: readonly string[], dedicatedTerminal: boolean) {
  const policy = parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true });
  return backend.transform({ argv, cwd: dirs.ws, env }, policy, {
    sandboxPolicyCwd: dirs.ws,
    dedicatedTerminal,
  });
}

/**
 * Type `sleep N` into an interactive bash, wait until that sleep runs, press Ctrl-C, and ask the
 * shell to answer. Returns whether it answered and the terminal's whole output.
 */
async function interruptSleep(argv: readonly string[], childEnv: Record<string, string>, sleeper: string): Promise<{ answered: boolean; output: string; sleeperGone: boolean }> {
  const term = onTerminal(argv, childEnv);
  try {
    term.type(`${sleeper}\n`);
    expect(await until(() => processWithArgsExists(sleeper).length > 0)).toBe(true);
    term.type("\u0003");
    const sleeperGone = await until(() => processWithArgsExists(sleeper).length === 0);
    term.type("echo alive-$((6*7))\n");
    const answered = await until(() => /alive-42/.test(term.output()) || term.child.exitCode !== null);
    return { answered: answered && /alive-42/.test(term.output()), output: term.output(), sleeperGone };
  } finally {
    term.child.kill("SIGKILL");
    await term.closed;
    for (const pid of processWithArgsExists(sleeper)) process.kill(pid, "SIGKILL");
  }
}

describe("bwrapArgs and the transform for a dedicated terminal", () => {
  const plan: MountPlan = { writableRoots: [], pinned: [], readOnly: [], stubs: [], maskedDirs: [], maskedFiles: [], privateTmp: true, keepVisible: [] };

  it("drops --new-session only for a dedicated terminal", () => {
    const base = { network: false, procMount: true, cwd: "/" };
    expect(bwrapArgs(plan, base)).toContain("--new-session");
    expect(bwrapArgs(plan, { ...base, dedicatedTerminal: false })).toContain("--new-session");
    const dedicated = bwrapArgs(plan, { ...base, dedicatedTerminal: true });
    expect(dedicated).not.toContain("--new-session");
    // everything else stays: the terminal changes nothing about namespaces or parent death
    expect(dedicated).toEqual(bwrapArgs(plan, base).filter((a) => a !== "--new-session"));
  });

  skipUnless(layers[0]?.skip).it("passes --foreground to the helper only for a dedicated terminal", async () => {
    const backend = createLinuxSandboxBackend();
    const plain = await prepared(backend, ["/bin/true"], false);
    const dedicated = await prepared(backend, ["/bin/true"], true);
    await plain.cleanup?.();
    await dedicated.cleanup?.();
    expect(plain.argv).toContain("--new-session");
    expect(plain.argv).not.toContain("--foreground");
    expect(dedicated.argv).not.toContain("--new-session");
    const sep = dedicated.argv.lastIndexOf("--");
    expect(dedicated.argv.slice(0, sep)).toContain("--foreground");
  });
});

for (const layer of layers) {
  describe.skipIf(layer.skip !== undefined || !haveScript)(`a dedicated terminal under ${layer.name}${layer.skip ? ` (skipped: ${layer.skip})` : ""}`, () => {
    const backend = layer.backend();
    const bash = ["/bin/bash", "--norc", "--noprofile", "-i"];
    const sleeper = (n: number) => `sleep ${n}${process.pid % 1000}.${layer.name.length}`;

    it("Ctrl-C interrupts the foreground job and keeps the shell, as without the sandbox", async () => {
      const control = await interruptSleep(bash, env, sleeper(71));
      expect(control.sleeperGone).toBe(true);
      expect(control.answered).toBe(true);

      const execEnv = await prepared(backend, bash, true);
      try {
        const r = await interruptSleep(execEnv.argv, { ...execEnv.env }, sleeper(72));
        expect(r.output).not.toMatch(/no job control/);
        expect(r.sleeperGone).toBe(true);
        expect(r.answered, r.output).toBe(true);
      } finally {
        await execEnv.cleanup?.();
      }
    });

    it("a program without job control gets Ctrl-C itself, and the run goes on (bubblewrap and the reaper are not in the foreground group)", async () => {
      const program = sh(`trap 'echo caught-$((3*4))' INT; echo ready-$((1+1)); while :; do read -r line && echo "got-$line" && exit 0; done`);
      const attempt = async (argv: readonly string[], childEnv: Record<string, string>) => {
        const term = onTerminal(argv, childEnv);
        try {
          expect(await until(() => /ready-2/.test(term.output()))).toBe(true);
          term.type("\u0003");
          await until(() => /caught-12/.test(term.output()) || term.child.exitCode !== null);
          term.type("zz\n");
          return { code: await term.closed, output: term.output() };
        } finally {
          term.child.kill("SIGKILL");
        }
      };
      const control = await attempt(program, env);
      expect(control.output).toContain("caught-12");
      expect(control.output).toContain("got-zz");
      const execEnv = await prepared(backend, program, true);
      try {
        const r = await attempt(execEnv.argv, { ...execEnv.env });
        expect(r.output).toContain("caught-12");
        expect(r.output, r.output).toContain("got-zz");
        expect(r.code).toBe(0);
      } finally {
        await execEnv.cleanup?.();
      }
    });

    it.skipIf(!layer.name.startsWith("bwrap"))("without it (an inherited terminal) the command stays out of the terminal's session, and Ctrl-C ends the run", async () => {
      const execEnv = await prepared(backend, bash, false);
      try {
        const r = await interruptSleep(execEnv.argv, { ...execEnv.env }, sleeper(73));
        expect(r.output).toMatch(/no job control/);
        expect(r.answered).toBe(false);
      } finally {
        await execEnv.cleanup?.();
      }
    });

    it("Ctrl-Z stops the job, and the shell can resume and interrupt it", async () => {
      const execEnv = await prepared(backend, bash, true);
      const job = sleeper(74);
      const term = onTerminal(execEnv.argv, { ...execEnv.env });
      try {
        term.type(`${job}\n`);
        expect(await until(() => processWithArgsExists(job).length > 0)).toBe(true);
        term.type("\u001a");
        expect(await until(() => /Stopped/.test(term.output()))).toBe(true);
        term.type("fg\n");
        expect(await until(() => new RegExp(`\\n${job.replace(/\./g, "\\.")}\\r?\\n`).test(term.output()))).toBe(true);
        term.type("\u0003");
        expect(await until(() => processWithArgsExists(job).length === 0)).toBe(true);
        term.type("echo back-$((2+3))\n");
        expect(await until(() => /back-5/.test(term.output())), term.output()).toBe(true);
      } finally {
        term.child.kill("SIGKILL");
        await term.closed;
        await execEnv.cleanup?.();
      }
    });

    it("killing the run's terminal ends every process in it: jobs, stopped jobs, setsid children", async () => {
      const tag = sleeper(75);
      const execEnv = await prepared(backend, bash, true);
      const term = onTerminal(execEnv.argv, { ...execEnv.env });
      try {
        term.type(`${tag} &\nsetsid ${tag} &\n${tag}\n`);
        expect(await until(() => processWithArgsExists(tag).length === 3)).toBe(true);
        term.type("\u001a");
        expect(await until(() => /Stopped/.test(term.output()))).toBe(true);
        // What the session's owner does when it ends a session: the terminal's holder goes away.
        term.child.kill("SIGKILL");
        await term.closed;
        expect(await until(() => processWithArgsExists(tag).length === 0)).toBe(true);
      } finally {
        for (const pid of processWithArgsExists(tag)) process.kill(pid, "SIGKILL");
        await execEnv.cleanup?.();
      }
    });

    const probeDir = fs.mkdtempSync(`${dirs.outside}/probe-`);
    const probe = compileProbe(probeDir);

    skipUnless(probe ? undefined : "no C compiler for the probe").it("still refuses TIOCSTI and TIOCLINUX on the terminal it now controls (seccomp)", async (ctx) => {
      const ioctls = (prefix: string) => sh(`${probe} tiocsti; echo "${prefix}-sti=$?"; ${probe} tioclinux; echo "${prefix}-linux=$?"; (: > /dev/tty) 2>/dev/null && echo "${prefix}-tty=yes"`);
      const control = onTerminal(ioctls("host"), env);
      await control.closed;
      // dev.tty.legacy_tiocsti = 0 refuses it to unprivileged users even without a sandbox
      if (!/host-sti=0/.test(control.output())) ctx.skip(`the host itself refuses TIOCSTI here: ${control.output().trim()}`);
      // on a pseudo-terminal the kernel itself answers TIOCLINUX with ENOTTY/EINVAL, never EPERM
      expect(control.output()).toMatch(/ioctl\(TIOCLINUX\): (Inappropriate ioctl|Invalid argument)/);
      expect(control.output()).toContain("host-tty=yes");

      const execEnv = await prepared(backend, ioctls("sandbox"), true);
      try {
        const term = onTerminal(execEnv.argv, { ...execEnv.env });
        await term.closed;
        // it has the controlling terminal now, which TIOCSTI would otherwise be allowed on
        expect(term.output()).toContain("sandbox-tty=yes");
        expect(term.output()).toContain("sandbox-sti=1");
        expect(term.output()).toMatch(/ioctl\(TIOCSTI\): Operation not permitted/);
        expect(term.output()).toMatch(/ioctl\(TIOCLINUX\): Operation not permitted/);
      } finally {
        await execEnv.cleanup?.();
      }
    });
  });
}
