// FIFOs, unix sockets and device nodes: a FIFO a sandboxed command leaves where the host reads later
// blocks the reader (a FIFO named .gitignore hangs the next `git status`). They may be made only in
// the run's temporary directories. Each refusal has a control: the same action without the sandbox
// succeeds, and the FIFO it leaves hangs git (bounded by `timeout`, never a timed assertion).
import fs from "node:fs";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import type { SandboxBackend, SandboxPolicyInput } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, locateHelper } from "../src/index.js";
import { baseEnv, bwrapMissing, landlockMissing, makeDirs, run, runSandboxed, sh } from "./support.js";

const GIT = ["/usr/bin/git", "/bin/git"].find((g) => fs.existsSync(g));
const PYTHON = ["/usr/bin/python3", "/bin/python3"].find((p) => fs.existsSync(p));
const helper = locateHelper();

const layers: Array<{ name: string; skip: string | undefined; backend: () => SandboxBackend }> = [
  { name: "bwrap+seccomp", skip: await bwrapMissing(), backend: () => createLinuxSandboxBackend() },
  {
    name: "landlock+seccomp",
    skip: await landlockMissing(),
    backend: () => createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true }),
  },
];

/** A python3 script that binds a unix socket at argv[1] and prints "bound" or the errno name. */
const BIND = "import errno, socket, sys\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.bind(sys.argv[1]); print('bound')\nexcept OSError as e:\n    print(errno.errorcode[e.errno])";

const dirs = makeDirs("special");
afterAll(() => dirs.remove());

describe.skipIf(GIT === undefined)(`the control: a FIFO planted as .gitignore${GIT ? "" : " (skipped: git is not installed)"}`, () => {
  it("unsandboxed mkfifo in a repository succeeds and the host's next git status does not finish", async () => {
    const repo = path.join(dirs.outside, "control-repo");
    fs.mkdirSync(repo);
    const env = { PATH: "/usr/bin:/bin", HOME: dirs.outside, GIT_CONFIG_NOSYSTEM: "1", LANG: "C" };
    expect((await run([GIT as string, "init", "-q", repo], { env })).code).toBe(0);
    expect((await run(["/usr/bin/mkfifo", path.join(repo, ".gitignore")], { env })).code).toBe(0);
    expect(fs.lstatSync(path.join(repo, ".gitignore")).isFIFO()).toBe(true);
    // timeout(1) ends git after 3 s with 124: git was blocked opening the FIFO, not slow.
    const status = await run(["/usr/bin/timeout", "3", GIT as string, "-C", repo, "status", "--porcelain"], { env });
    expect(status.code).toBe(124);
  });
});

for (const layer of layers) {
  describe.skipIf(layer.skip !== undefined)(`special files confined to temporary directories by ${layer.name}${layer.skip ? ` (skipped: ${layer.skip})` : ""}`, () => {
    const backend = layer.backend();
    // The workspace lies outside /tmp: a Landlock grant on a temporary directory covers every mount
    // beneath it, so a workspace under /tmp would leave /tmp without the grant (tested below).
    const ws = fs.mkdtempSync(path.join(dirs.outside, `ws-${layer.name.replace(/\W/g, "")}-`));
    fs.chmodSync(ws, 0o777);
    const tag = path.basename(ws);
    // The bubblewrap layer gets a private /tmp. The Landlock layer has none: its temporary directory
    // is $TMPDIR, a writable root of its own outside /tmp (a checkout staged under /tmp, as the
    // unprivileged runs do, would put the helper inside a writable /tmp, which that layer refuses).
    const bwrap = layer.name === "bwrap+seccomp";
    const tmpdir = bwrap ? "/tmp" : fs.mkdtempSync(path.join(dirs.outside, `tmpdir-${tag}-`));
    if (!bwrap) fs.chmodSync(tmpdir, 0o777);
    const policy: SandboxPolicyInput = bwrap
      ? { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true }
      : { mode: "workspace-write", excludeSlashTmp: true };
    const env = { ...baseEnv(), TMPDIR: tmpdir };
    const inSandbox = (argv: string[], p: SandboxPolicyInput = policy) => runSandboxed(backend, argv, p, ws, env);

    it("mkfifo .gitignore in the workspace fails (the control made one above); mkfifo in the temporary directory works", async () => {
      const r = await inSandbox(sh(`mkfifo .gitignore; echo "ws=$?"; mkfifo ${tmpdir}/${tag}.fifo && test -p ${tmpdir}/${tag}.fifo; echo "tmp=$?"`));
      expect(r.stdout).toContain("ws=1");
      expect(r.stdout).toContain("tmp=0");
      expect(r.stderr).toMatch(/Permission denied/);
      expect(fs.existsSync(path.join(ws, ".gitignore"))).toBe(false);
    });

    it("mknod of a FIFO in a subdirectory fails too, and renaming a host-made FIFO into the workspace's tree fails", async () => {
      fs.mkdirSync(path.join(ws, "sub"), { recursive: true });
      fs.mkdirSync(path.join(ws, "in"), { recursive: true });
      // The control: outside the sandbox the same mknod succeeds.
      expect((await run(["/usr/bin/mknod", path.join(ws, "in", "planted"), "p"])).code).toBe(0);
      const r = await inSandbox(sh("mknod sub/.gitignore p; echo \"mknod=$?\"; mv in/planted sub/.gitignore; echo \"mv=$?\""));
      expect(r.stdout).toContain("mknod=1");
      expect(r.stdout).toContain("mv=1");
      expect(fs.existsSync(path.join(ws, "sub", ".gitignore"))).toBe(false);
    });

    it("renames across directories keep working (the domain grants REFER)", async () => {
      const r = await inSandbox(sh("mkdir -p ra rb && echo x > ra/f && mv ra/f rb/f && mkdir ra/d && mv ra/d rb/d && cat rb/f"));
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe("x");
    });

    it.skipIf(PYTHON === undefined)(`bind(2) of a unix socket in the workspace fails, in the temporary directory it works${PYTHON ? "" : " (skipped: python3 is not installed)"}`, async () => {
      const control = await run([PYTHON as string, "-c", BIND, path.join(ws, "control.sock")]);
      expect(control.stdout.trim()).toBe("bound");
      fs.rmSync(path.join(ws, "control.sock"));
      // Sockets need the network granted: with it off, seccomp refuses socket(2) itself.
      const granted: SandboxPolicyInput = { ...policy, networkAccess: true };
      const r = await inSandbox([PYTHON as string, "-c", `${BIND}\n${BIND.replace("sys.argv[1]", `'${tmpdir}/${tag}.sock'`)}`, path.join(ws, "app.sock")], granted);
      expect(r.stdout.trim().split("\n")).toEqual(["EACCES", "bound"]);
      expect(fs.existsSync(path.join(ws, "app.sock"))).toBe(false);
    });
  });
}

skipUnless(layers[0]?.skip).describe("a temporary directory holding the workspace is not granted", () => {
  it("with the workspace under a private /tmp, mkfifo fails in /tmp too (stricter, never wider)", async () => {
    const backend = createLinuxSandboxBackend();
    const r = await runSandboxed(backend, sh("mkfifo /tmp/x.fifo; echo \"tmp=$?\"; mkfifo /dev/shm/x.fifo; echo \"shm=$?\""), { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true }, dirs.ws);
    expect(r.stdout).toContain("tmp=1");
    expect(r.stdout).toContain("shm=0");
  });
});

skipUnless(helper === undefined ? "the helper is not built (run the package build)" : undefined).describe("without Landlock: --special-files refuse", () => {
  it("seccomp refuses mkfifo everywhere; the helper without the flag (the control) makes it", async () => {
    const dir = fs.mkdtempSync(path.join(dirs.outside, "refuse-"));
    const control = await run([helper as string, "--net", "off", "--", "/usr/bin/mkfifo", path.join(dir, "a")]);
    expect(control.code).toBe(0);
    const r = await run([helper as string, "--net", "off", "--special-files", "refuse", "--", "/bin/sh", "-c", `mkfifo ${dir}/b; echo "fifo=$?"; mknod ${dir}/c p; echo "mknod=$?"; echo data > ${dir}/d; echo "file=$?"`]);
    expect(r.stdout).toContain("fifo=1");
    expect(r.stdout).toContain("mknod=1");
    expect(r.stdout).toContain("file=0");
    expect(r.stderr).toMatch(/Operation not permitted/);
    expect(fs.existsSync(path.join(dir, "b"))).toBe(false);
  });
});
