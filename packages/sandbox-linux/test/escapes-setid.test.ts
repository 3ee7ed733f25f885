// Set-user-ID and set-group-ID files: a sandboxed command must not leave one on the host (a
// setuid copy of a root-owned shell is a root shell for whoever runs it later). Every attempt is
// first made without the sandbox (the control), in a temporary directory, and the result removed.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxBackend, SandboxPolicyInput } from "@shellgate/sandbox";
import { createLinuxSandboxBackend } from "../src/index.js";
import { bwrapMissing, landlockMissing, makeDirs, run, runSandboxed, sh } from "./support.js";

const layers: Array<{ name: string; skip: string | undefined; backend: () => SandboxBackend }> = [
  { name: "bwrap+seccomp", skip: await bwrapMissing(), backend: () => createLinuxSandboxBackend() },
  {
    name: "landlock+seccomp",
    skip: await landlockMissing(),
    backend: () => createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true }),
  },
];

const SETID = 0o6000;

/** Files under `dir` (recursively) that carry a set-id bit. */
function setidFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    const st = fs.lstatSync(file);
    if (!st.isSymbolicLink() && st.mode & SETID) found.push(file);
  }
  return found;
}

function compileSetidProbe(dir: string): string {
  const source = fileURLToPath(new URL("./fixtures/setid-probe.c", import.meta.url));
  const out = path.join(dir, "setid-probe");
  execFileSync("/usr/bin/cc", ["-O1", "-o", out, source], { stdio: "pipe", env: { PATH: "/usr/bin:/bin" } });
  return out;
}

/** The mount options of the mount at `mountPoint` in a mountinfo text (the last one wins, as in the kernel). */
function mountOptions(mountinfo: string, mountPoint: string): string[] | undefined {
  let found: string[] | undefined;
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    if (fields[4] === mountPoint) found = (fields[5] ?? "").split(",");
  }
  return found;
}

for (const layer of layers) {
  describe.skipIf(layer.skip !== undefined || !fs.existsSync("/usr/bin/cc"))(
    `set-id files blocked by ${layer.name}${layer.skip ? ` (skipped: ${layer.skip})` : ""}`,
    () => {
      const dirs = makeDirs(`setid${layer.name.replace(/\W/g, "")}`);
      const { ws, outside } = dirs;
      const backend = layer.backend();
      const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };
      const inSandbox = (argv: string[]) => runSandboxed(backend, argv, policy, ws);
      const onHost = (argv: string[]) => run(argv, { cwd: ws });
      let probe = "";

      beforeAll(() => {
        probe = compileSetidProbe(outside);
      });
      afterAll(() => dirs.remove());

      /** Run `script` on the host: it must leave a set-id file; then remove everything it made. */
      const control = async (script: string) => {
        const r = await onHost(sh(script));
        expect(r.stderr).toBe("");
        expect(setidFiles(ws).length).toBeGreaterThan(0);
        for (const file of setidFiles(ws)) fs.rmSync(file);
      };

      it("chmod 4755, chmod u+s, chmod g+s and install -m 4755 on a copy of /bin/sh", async () => {
        const script = "cp /bin/sh x && chmod 4755 x";
        await control(script);
        const r = await inSandbox(sh(script));
        expect(r.code).not.toBe(0);
        expect(r.stderr).toMatch(/Operation not permitted/);
        expect(setidFiles(ws)).toEqual([]);
        expect(fs.existsSync(path.join(ws, "x"))).toBe(true); // the copy itself was allowed

        for (const s of ["cp /bin/sh y && chmod u+s y", "cp /bin/sh z && chmod g+s z", "install -m 4755 /bin/sh w"]) {
          await control(s);
          const attempt = await inSandbox(sh(s));
          expect(attempt.code).not.toBe(0);
          expect(setidFiles(ws)).toEqual([]);
        }
        // ordinary modes still work
        const ok = await inSandbox(sh("chmod 755 x && chmod u-x,g+w x && stat -c %a x"));
        expect(ok.stderr).toBe("");
        expect(ok.stdout).toBe("675\n");
      });

      it("each system call that can set or create set-id bits, one by one", async () => {
        const target = path.join(ws, "target");
        fs.writeFileSync(target, "");
        for (const op of ["fchmod", "fchmodat", "chmod", "chmod-g"]) {
          fs.chmodSync(target, 0o644);
          expect((await onHost([probe, op, target])).code).toBe(0);
          expect(fs.statSync(target).mode & SETID).not.toBe(0);
          fs.chmodSync(target, 0o644);
          const r = await inSandbox([probe, op, target]);
          expect(r.code, op).toBe(1);
          expect(r.stderr).toBe(`${op}: Operation not permitted\n`);
          expect(fs.statSync(target).mode & SETID).toBe(0);
        }
        for (const op of ["open", "openat", "creat", "mknod", "mknodat"]) {
          const file = path.join(ws, `made-${op}`);
          expect((await onHost([probe, op, file])).code).toBe(0);
          expect(fs.statSync(file).mode & SETID).not.toBe(0);
          fs.rmSync(file);
          const r = await inSandbox([probe, op, file]);
          expect(r.code, op).toBe(1);
          expect(r.stderr).toBe(`${op}: Operation not permitted\n`);
          expect(fs.existsSync(file)).toBe(false);
        }
        // openat2 hides its mode from the filter: refused as "not implemented" so callers fall back
        const file = path.join(ws, "made-openat2");
        const host = await onHost([probe, "openat2", file]);
        expect(host.code).toBe(0);
        expect(fs.statSync(file).mode & SETID).not.toBe(0);
        fs.rmSync(file);
        const r = await inSandbox([probe, "openat2", file]);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe("openat2: Function not implemented\n");
        expect(fs.existsSync(file)).toBe(false);
        expect(setidFiles(ws)).toEqual([]);
      });

      it.skipIf(!layer.name.startsWith("bwrap"))("mounts every writable root nosuid and nodev inside (bwrap only)", async () => {
        const realWs = fs.realpathSync(ws);
        const r = await inSandbox(["cat", "/proc/self/mountinfo"]);
        expect(r.code).toBe(0);
        const inside = mountOptions(r.stdout, realWs);
        expect(inside).toBeDefined();
        expect(inside).toContain("nosuid");
        expect(inside).toContain("nodev");
        // and every mount inside it (carve-outs, pinned directories, placeholders)
        const under = r.stdout.split("\n").map((l) => l.split(" ")).filter((f) => (f[4] ?? "").startsWith(`${realWs}/`));
        for (const f of under) expect((f[5] ?? "").split(","), f[4]).toEqual(expect.arrayContaining(["nosuid", "nodev"]));
        // control: on the host the same directory is on a mount without nosuid (here: /), so the
        // option comes from the sandbox; a host that mounts it nosuid already proves nothing here
        const hostInfo = fs.readFileSync("/proc/self/mountinfo", "utf8");
        const hostMount = hostInfo.split("\n").map((l) => l.split(" ")[4] ?? "")
          .filter((m) => m !== "" && (realWs === m || realWs.startsWith(m === "/" ? "/" : `${m}/`)))
          .sort((a, b) => b.length - a.length)[0] as string;
        const hostOptions = mountOptions(hostInfo, hostMount) ?? [];
        if (!hostOptions.includes("nosuid")) expect(mountOptions(r.stdout, realWs)).not.toEqual(hostOptions);
      });
    },
  );
}
