// Escape attempts against the real sandbox, for each layer that works here. Every attempt is
// first made WITHOUT the sandbox (the control) so a test cannot pass because the action was
// impossible anyway.
import { spawn, type ChildProcess } from "node:child_process";
import dgram from "node:dgram";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxBackend, SandboxPolicyInput } from "@shellgate/sandbox";
import { createLinuxSandboxBackend } from "../src/index.js";
import { bwrapMissing, compilePreload, compileProbe, landlockMissing, makeDirs, processWithArgsExists, run, runSandboxed, sh, type LaunchForm } from "./support.js";

// The deferred launch (the sandbox first, its command later on descriptor 3) must hold the same.
const layers: Array<{ name: string; skip: string | undefined; backend: () => SandboxBackend; launch?: LaunchForm }> = [
  { name: "bwrap+seccomp", skip: await bwrapMissing(), backend: () => createLinuxSandboxBackend() },
  { name: "bwrap+seccomp", skip: await bwrapMissing(), backend: () => createLinuxSandboxBackend(), launch: "deferred" },
  {
    name: "landlock+seccomp",
    skip: await landlockMissing(),
    // a bwrap that does not exist forces the fallback, as on a host without user namespaces
    backend: () => createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true }),
  },
];

/** Listen on a socket and count what reaches it. */
function tcpServer(host: string): Promise<{ server: net.Server; port: number; hits: () => number }> {
  return new Promise((resolve, reject) => {
    let hits = 0;
    const server = net.createServer((s) => {
      hits++;
      s.destroy();
    });
    server.on("error", reject);
    server.listen(0, host, () => resolve({ server, port: (server.address() as net.AddressInfo).port, hits: () => hits }));
  });
}

function unixServer(address: string): Promise<{ server: net.Server; hits: () => number }> {
  return new Promise((resolve, reject) => {
    let hits = 0;
    const server = net.createServer((s) => {
      hits++;
      s.destroy();
    });
    server.on("error", reject);
    server.listen(address, () => resolve({ server, hits: () => hits }));
  });
}

function udpServer(type: "udp4" | "udp6", host: string): Promise<{ socket: dgram.Socket; port: number; hits: () => number }> {
  return new Promise((resolve, reject) => {
    let hits = 0;
    const socket = dgram.createSocket(type);
    socket.on("message", () => hits++);
    socket.on("error", reject);
    socket.bind(0, host, () => resolve({ socket, port: socket.address().port, hits: () => hits }));
  });
}

/** Let pending connection/message events reach their handlers. */
const settle = () => new Promise((r) => setTimeout(r, 150));

const hasIpv6 = Object.values(os.networkInterfaces()).some((list) => list?.some((i) => i.family === "IPv6" && i.internal));

for (const layer of layers) {
  const form = layer.launch === "deferred" ? ", deferred launch" : "";
  describe.skipIf(layer.skip !== undefined)(`escapes blocked by ${layer.name}${form}${layer.skip ? ` (skipped: ${layer.skip})` : ""}`, () => {
    const dirs = makeDirs(layer.name.replace(/\W/g, ""));
    const { ws, outside } = dirs;
    const backend = layer.backend();
    // /tmp is left out of the writable roots so "outside" means everything but the workspace
    const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };
    const inSandbox = (argv: string[], p: SandboxPolicyInput = policy) => runSandboxed(backend, argv, p, ws, undefined, layer.launch);
    const onHost = (argv: string[]) => run(argv, { cwd: ws });
    let probe = "";
    let victim: ChildProcess | undefined;

    beforeAll(() => {
      const compiled = compileProbe(outside);
      if (!compiled) throw new Error("the escape-probe fixture needs a C compiler (cc)");
      probe = compiled;
      victim = spawn("sleep", ["300"], { stdio: "ignore" });
    });
    afterAll(() => {
      victim?.kill("SIGKILL");
      dirs.remove();
    });

    it("reports its isolation", async () => {
      const r = await inSandbox(sh("true"));
      expect(r.code).toBe(0);
      expect(r.isolation.startsWith(layer.name)).toBe(true);
    });

    it("blocks writes and creates outside the writable roots", async () => {
      const target = path.join(outside, "written");
      expect((await onHost(sh(`echo x > ${target}`))).code).toBe(0);
      fs.rmSync(target);
      const r = await inSandbox(sh(`echo x > ${target}`));
      expect(r.code).not.toBe(0);
      expect(fs.existsSync(target)).toBe(false);
      const dir = path.join(outside, "made");
      expect((await inSandbox(["mkdir", dir])).code).not.toBe(0);
      expect(fs.existsSync(dir)).toBe(false);
      expect((await onHost(["mkdir", dir])).code).toBe(0);
    });

    it("blocks deletes and renames outside the writable roots", async () => {
      const victimFile = path.join(outside, "keep");
      fs.writeFileSync(victimFile, "data");
      expect((await inSandbox(["rm", "-f", victimFile])).code).not.toBe(0);
      expect((await inSandbox(["mv", victimFile, `${victimFile}.moved`])).code).not.toBe(0);
      expect((await inSandbox(["mv", victimFile, path.join(ws, "stolen")])).code).not.toBe(0);
      expect(fs.readFileSync(victimFile, "utf8")).toBe("data");
      expect((await onHost(["mv", victimFile, `${victimFile}.moved`])).code).toBe(0);
      expect((await onHost(["rm", `${victimFile}.moved`])).code).toBe(0);
    });

    it("blocks writes through a symlink made inside that points outside, and `..` escapes", async () => {
      const target = path.join(outside, "via-link");
      const r = await inSandbox(sh(`ln -s ${target} link && echo x > link`));
      expect(r.code).not.toBe(0);
      expect(fs.existsSync(target)).toBe(false);
      const rel = path.relative(ws, path.join(outside, "via-dots"));
      expect(rel.startsWith("..")).toBe(true);
      expect((await inSandbox(sh(`echo x > ${rel}`))).code).not.toBe(0);
      expect(fs.existsSync(path.join(outside, "via-dots"))).toBe(false);
      // control: the same link and relative path work without the sandbox
      expect((await onHost(sh(`echo x > link && echo x > ${rel}`))).code).toBe(0);
      expect(fs.existsSync(target)).toBe(true);
    });

    const sameFs = fs.statSync(ws).dev === fs.statSync(outside).dev;
    it.skipIf(!sameFs)("blocks writing through a hard link made inside to a file outside (skipped when they are on different filesystems)", async () => {
      const victimFile = path.join(outside, "linked");
      fs.writeFileSync(victimFile, "orig");
      const r = await inSandbox(sh(`ln ${victimFile} hardlink && echo evil >> hardlink`));
      expect(r.code).not.toBe(0);
      expect(fs.readFileSync(victimFile, "utf8")).toBe("orig");
      expect((await onHost(sh(`ln ${victimFile} hardlink && echo ok >> hardlink && rm hardlink`))).code).toBe(0);
      expect(fs.readFileSync(victimFile, "utf8")).toBe("origok\n");
    });

    it("keeps the workspace writable: create, delete, rename", async () => {
      const r = await inSandbox(sh("mkdir -p d && echo hi > d/f && mv d/f d/g && cat d/g && rm d/g && rmdir d && echo done > new"));
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("hi\n");
      expect(fs.readFileSync(path.join(ws, "new"), "utf8")).toBe("done\n");
    });

    it.skipIf(layer.name.startsWith("landlock"))("blocks writes into .git (skipped for Landlock: carve-outs not enforced, reported)", async () => {
      const hook = path.join(ws, ".git", "hooks", "pre-commit");
      expect((await inSandbox(sh(`echo evil > ${hook}`))).code).not.toBe(0);
      expect((await inSandbox(["rm", "-rf", path.join(ws, ".git")])).code).not.toBe(0);
      expect((await inSandbox(["mv", path.join(ws, ".git"), path.join(ws, "git-moved")])).code).not.toBe(0);
      expect(fs.existsSync(hook)).toBe(false);
      expect((await onHost(sh(`echo ok > ${hook}`))).code).toBe(0);
      fs.rmSync(hook);
    });

    it("blocks TCP over IPv4 to a host loopback listener", async () => {
      const srv = await tcpServer("127.0.0.1");
      try {
        expect((await onHost([probe, "tcp4", String(srv.port)])).code).toBe(0);
        await settle();
        expect(srv.hits()).toBe(1);
        const r = await inSandbox([probe, "tcp4", String(srv.port)]);
        expect(r.code).toBe(1);
        await settle();
        expect(srv.hits()).toBe(1);
      } finally {
        srv.server.close();
      }
    });

    skipUnless(hasIpv6 ? undefined : "no IPv6 loopback here").it("blocks TCP over IPv6 to a host loopback listener", async () => {
      const srv = await tcpServer("::1");
      try {
        expect((await onHost([probe, "tcp6", String(srv.port)])).code).toBe(0);
        await settle();
        expect(srv.hits()).toBe(1);
        expect((await inSandbox([probe, "tcp6", String(srv.port)])).code).toBe(1);
        await settle();
        expect(srv.hits()).toBe(1);
      } finally {
        srv.server.close();
      }
    });

    it("blocks UDP over IPv4 and IPv6 to host loopback listeners", async () => {
      const families: Array<["udp4" | "udp6", string, string]> = [["udp4", "127.0.0.1", "udp4"]];
      if (hasIpv6) families.push(["udp6", "::1", "udp6"]);
      for (const [type, host, op] of families) {
        const srv = await udpServer(type, host);
        try {
          expect((await onHost([probe, op, String(srv.port)])).code).toBe(0);
          await settle();
          expect(srv.hits()).toBe(1);
          const r = await inSandbox([probe, op, String(srv.port)]);
          expect(r.code).toBe(1);
          expect(r.stderr).toMatch(/socket: Operation not permitted/);
          await settle();
          expect(srv.hits()).toBe(1);
        } finally {
          srv.socket.close();
        }
      }
    });

    it("blocks connecting to a host unix socket outside the workspace (think docker.sock)", async () => {
      const sock = path.join(outside, "daemon.sock");
      const srv = await unixServer(sock);
      try {
        expect((await onHost([probe, "unix", sock])).code).toBe(0);
        await settle();
        expect(srv.hits()).toBe(1);
        const r = await inSandbox([probe, "unix", sock]);
        expect(r.code).toBe(1);
        await settle();
        expect(srv.hits()).toBe(1);
      } finally {
        srv.server.close();
      }
    });

    it("blocks a host unix socket even inside the workspace while the network is off", async () => {
      const sock = path.join(ws, "inside.sock");
      const srv = await unixServer(sock);
      try {
        expect((await onHost([probe, "unix", sock])).code).toBe(0);
        expect((await inSandbox([probe, "unix", sock])).code).toBe(1);
        await settle();
        expect(srv.hits()).toBe(1);
      } finally {
        srv.server.close();
      }
    });

    it("blocks connecting to a host abstract unix socket", async () => {
      const name = `shellgate-test-${process.pid}-${layer.name.length}`;
      const srv = await unixServer(`\0${name}`);
      try {
        expect((await onHost([probe, "abstract", name])).code).toBe(0);
        await settle();
        expect(srv.hits()).toBe(1);
        expect((await inSandbox([probe, "abstract", name])).code).toBe(1);
        await settle();
        expect(srv.hits()).toBe(1);
      } finally {
        srv.server.close();
      }
    });

    it("blocks signalling a host process", async () => {
      const pid = String(victim?.pid);
      expect((await onHost([probe, "kill", pid, "0"])).code).toBe(0);
      const r = await inSandbox([probe, "kill", pid, "9"]);
      expect(r.code).toBe(1);
      expect((await onHost([probe, "kill", pid, "0"])).code).toBe(0);
      expect(victim?.exitCode).toBe(null);
    });

    it("blocks ptrace-attaching and reading the memory of a host process", async (ctx) => {
      const pid = String(victim?.pid);
      const maps = fs.readFileSync(`/proc/${pid}/maps`, "utf8");
      const address = `0x${maps.split("-")[0]}`;
      const control = await onHost([probe, "ptrace", pid]);
      // Yama (ptrace_scope >= 1) forbids attaching to a non-descendant even without a sandbox
      if (control.code !== 0) ctx.skip(`the host itself refuses ptrace here: ${control.stderr.trim()}`);
      expect((await onHost([probe, "vmread", pid, address])).code).toBe(0);
      expect((await inSandbox([probe, "ptrace", pid])).code).toBe(1);
      expect((await inSandbox([probe, "vmread", pid, address])).code).toBe(1);
    });

    it("refuses ptrace and io_uring even on the command's own processes (seccomp)", async (ctx) => {
      // a child of the sandboxed shell: same sandbox, still refused
      const script = `sleep 5 & ${probe} ptrace $!; rc=$?; kill $!; exit $rc`;
      const ownControl = await onHost(sh(script));
      if (ownControl.code !== 0) ctx.skip(`the host itself refuses ptrace here: ${ownControl.stderr.trim()}`);
      const own = await inSandbox(sh(script));
      expect(own.code).toBe(1);
      expect(own.stderr).toMatch(/ptrace: Operation not permitted/);
      const control = await onHost([probe, "iouring"]);
      // kernel.io_uring_disabled may refuse it on the host too
      if (control.code !== 0) ctx.skip(`the host itself refuses io_uring here: ${control.stderr.trim()}`);
      const r = await inSandbox([probe, "iouring"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/Operation not permitted/);
    });

    /** Poll until `cond` holds (at most ~5 s); the kernel needs a moment to fork, exec and kill. */
    const waitFor = async (cond: () => boolean) => {
      for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
    };
    /** Kill every process whose command line is exactly `cmdline` (test leftovers only). */
    const killAll = (cmdline: string) => {
      for (const pid of processWithArgsExists(cmdline)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    };

    it("kills background and setsid processes when the command exits", async () => {
      const sleeper = `sleep ${3000 + layer.name.length * 1000 + (process.pid % 1000)}.4242`;
      const quiet = ">/dev/null 2>&1";
      const script = `(${sleeper} ${quiet} &) ; setsid ${sleeper} ${quiet} & nohup ${sleeper} ${quiet} & echo started`;
      try {
        const r = await inSandbox(sh(script));
        expect(r.stdout).toBe("started\n");
        await settle();
        expect(processWithArgsExists(sleeper)).toEqual([]);
        // control: without the sandbox all three outlive the command
        await onHost(sh(script));
        await waitFor(() => processWithArgsExists(sleeper).length === 3);
        expect(processWithArgsExists(sleeper).length).toBe(3);
      } finally {
        killAll(sleeper);
      }
    });

    it("dies with its parent: killing the caller takes the whole sandbox down", async () => {
      const sleeper = `sleep ${5000 + layer.name.length * 1000 + (process.pid % 1000)}.4242`;
      const tree = sh(`${sleeper} >/dev/null 2>&1 & exec ${sleeper}`);
      const execEnv = await backend.transform(
        { argv: tree, cwd: ws, env: { PATH: "/usr/bin:/bin" } },
        (await import("@shellgate/sandbox")).parseSandboxPolicy(policy),
        { sandboxPolicyCwd: ws },
      );
      // an intermediate process plays the caller; SIGKILL gives it no chance to clean up
      const launch = (argv: readonly string[]) =>
        spawn(process.execPath, ["-e", `require("child_process").spawn(process.argv[1], process.argv.slice(2), { stdio: "ignore" }); setInterval(() => {}, 1000);`, ...argv], {
          cwd: ws, env: { ...execEnv.env }, stdio: "ignore",
        });
      const callers: ChildProcess[] = [];
      try {
        const caller = launch(execEnv.argv);
        callers.push(caller);
        await waitFor(() => processWithArgsExists(sleeper).length === 2);
        expect(processWithArgsExists(sleeper).length).toBe(2);
        caller.kill("SIGKILL");
        await waitFor(() => processWithArgsExists(sleeper).length === 0);
        expect(processWithArgsExists(sleeper)).toEqual([]);
        // control: the same tree without the sandbox survives its caller
        const bare = launch(tree);
        callers.push(bare);
        await waitFor(() => processWithArgsExists(sleeper).length === 2);
        bare.kill("SIGKILL");
        await settle();
        expect(processWithArgsExists(sleeper).length).toBe(2);
      } finally {
        for (const c of callers) c.kill("SIGKILL");
        killAll(sleeper);
        await execEnv.cleanup?.();
      }
    });

    skipUnless(fs.existsSync("/usr/bin/script") ? undefined : "no /usr/bin/script").it("blocks injecting input into the caller's terminal (TIOCSTI)", async (ctx) => {
      // script(1) gives the command a real terminal on stdin
      const inPty = (argv: readonly string[]) => run(["script", "-qec", argv.map((a) => `'${a}'`).join(" "), "/dev/null"], { cwd: ws });
      const control = await inPty([probe, "tiocsti"]);
      // dev.tty.legacy_tiocsti = 0 refuses it to unprivileged users even without a sandbox
      if (control.code !== 0) ctx.skip(`the host itself refuses TIOCSTI here: ${control.stdout.trim()}`);
      const execEnv = await backend.transform(
        { argv: [probe, "tiocsti"], cwd: ws, env: { PATH: "/usr/bin:/bin" } },
        (await import("@shellgate/sandbox")).parseSandboxPolicy(policy),
        { sandboxPolicyCwd: ws },
      );
      const r = await inPty(execEnv.argv);
      await execEnv.cleanup?.();
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/TIOCSTI/);
    });

    it.skipIf(!layer.name.startsWith("bwrap") || process.getuid?.() !== 0)("blocks remounting the read-only view read-write (as root, where bare bwrap keeps capabilities)", async () => {
      const target = path.join(outside, "remounted");
      const script = `mount -o remount,rw,bind / && echo x > ${target}`;
      // control: bubblewrap alone, run as root, lets the command do exactly this
      const bare = await run(["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--", ...sh(script)], { cwd: ws });
      expect(bare.code).toBe(0);
      expect(fs.existsSync(target)).toBe(true);
      fs.rmSync(target);
      const r = await inSandbox(sh(script));
      expect(r.code).not.toBe(0);
      expect(fs.existsSync(target)).toBe(false);
      const caps = await inSandbox(sh("grep CapEff /proc/self/status"));
      expect(caps.stdout).toMatch(/CapEff:\s+0+\n/);
    });

    it("keeps LD_PRELOAD and kin away from the sandbox machinery; only the confined command sees them", async () => {
      const lib = compilePreload(outside);
      if (!lib) throw new Error("the preload fixture needs a C compiler (cc)");
      const target = path.join(outside, "preloaded");
      const env = { PATH: "/usr/bin:/bin", LD_PRELOAD: lib, SG_PRELOAD_TARGET: target };
      // control: anything dynamically linked that starts with this environment runs the library
      expect((await run(["/bin/true"], { cwd: ws, env })).code).toBe(0);
      expect(fs.existsSync(target)).toBe(true);
      fs.rmSync(target);
      const r = await runSandboxed(backend, sh('echo "preload=$LD_PRELOAD"'), policy, ws, env, layer.launch);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`preload=${lib}\n`);
      expect(fs.existsSync(target)).toBe(false);
    });

    it("blocks remounting inside a nested user namespace", async (ctx) => {
      const target = path.join(outside);
      const control = await onHost([probe, "userns-mount", target]);
      // AppArmor (Ubuntu 23.10+) or sysctls may refuse user namespaces to the host user as well
      if (control.code !== 0) ctx.skip(`the host itself refuses user namespaces here: ${control.stderr.trim()}`);
      const r = await inSandbox([probe, "userns-mount", target]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/unshare: Operation not permitted/);
      expect((await inSandbox(["unshare", "-Urm", "mount", "-t", "tmpfs", "none", target])).code).not.toBe(0);
    });

    it("lets the network through when the policy grants it", async () => {
      const srv = await tcpServer("127.0.0.1");
      try {
        const r = await inSandbox([probe, "tcp4", String(srv.port)], { ...policy, networkAccess: true });
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        await settle();
        expect(srv.hits()).toBe(1);
      } finally {
        srv.server.close();
      }
    });

    it("keeps the command's own IPC working with the network off: pipes and stream socketpairs", async () => {
      const r = await inSandbox(sh(`echo piped | cat && ${probe} socketpair stream`));
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("piped\n");
      // datagram pairs could sendto() a host socket path: refused, though fine on the host
      expect((await onHost([probe, "socketpair", "dgram"])).code).toBe(0);
      expect((await inSandbox([probe, "socketpair", "dgram"])).code).toBe(1);
    });

    it("reaches host unix sockets once the policy grants network (documented)", async () => {
      const sock = path.join(outside, "granted.sock");
      const srv = await unixServer(sock);
      try {
        const r = await inSandbox([probe, "unix", sock], { ...policy, networkAccess: true });
        expect(r.code).toBe(0);
        await settle();
        expect(srv.hits()).toBe(1);
      } finally {
        srv.server.close();
      }
    });

    it("sets CODEX_SANDBOX_NETWORK_DISABLED=1 only while the network is off, keeps cwd and exit code", async () => {
      const off = await inSandbox(sh('pwd; echo "net=$CODEX_SANDBOX_NETWORK_DISABLED"; exit 7'));
      expect(off.code).toBe(7);
      expect(off.stdout).toBe(`${ws}\nnet=1\n`);
      const on = await inSandbox(sh('echo "net=$CODEX_SANDBOX_NETWORK_DISABLED"'), { ...policy, networkAccess: true });
      expect(on.stdout).toBe("net=\n");
    });
  });
}
