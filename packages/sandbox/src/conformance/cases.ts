/**
 * The escape cases every backend must pass, as data. Each case is a Node.js script (run with the
 * same `node` binary inside the sandbox and, as the control, outside it) that tries one thing and
 * prints one last line: `REACHED` when it got through, `BLOCKED: <why>` when it did not. Node is
 * the one program every platform's runner can count on, so the cases need no shell.
 *
 * A `blocked` case passes when the sandboxed run did not get through *and* the unsandboxed control
 * did: a case whose control fails proves nothing about the sandbox and is reported as such. A
 * `host` check, made by the runner on the host after the run, does not trust the script's own
 * word for file effects. An `allowed` case must work in both: a backend that refuses everything
 * would otherwise pass every `blocked` case.
 */

/** A capability some backends lack and say so (the Landlock fallback pins no carve-outs; `special-files`: FIFOs, sockets and device nodes are kept out of writable roots). */
export type ConformanceFeature = "carve-outs" | "network-isolation" | "process-isolation" | "unix-sockets" | "symlinks" | "special-files";

/** Which sandbox policy a case runs under; paths are filled in from the layout. */
export type ConformancePolicy = "workspace-write" | "read-only" | "workspace-write-deny-read";

/** A file effect the runner checks on the host after a run. */
export interface HostFileCheck {
  /** Which directory of the layout the path is in. */
  in: "workspace" | "outside";
  /** The path, relative to that directory, that exists only if the script got through. */
  exists: string;
}

/** One escape (or one thing that must keep working). */
export interface ConformanceCase {
  /** Stable identifier, used to skip a case with a reason. */
  readonly id: string;
  readonly title: string;
  readonly expect: "blocked" | "allowed";
  readonly policy: ConformancePolicy;
  /** Capabilities a backend must have for the case to apply. */
  readonly needs: readonly ConformanceFeature[];
  /**
   * The script, run as `node -e SCRIPT LAYOUT_JSON` with the workspace as cwd. `L` is the parsed
   * layout (`ConformanceLayout`), `reached()` and `blocked(why)` print the verdict line.
   */
  readonly script: string;
  readonly host?: HostFileCheck;
}

export const CONFORMANCE_CASES: readonly ConformanceCase[] = Object.freeze([
  {
    id: "write-outside-roots",
    title: "creating a file outside the writable roots",
    expect: "blocked",
    policy: "workspace-write",
    needs: [],
    script: `fs.writeFileSync(path.join(L.outside, "escape-write"), "x"); reached();`,
    host: { in: "outside", exists: "escape-write" },
  },
  {
    id: "write-read-only-policy",
    title: "writing in the workspace under the read-only policy",
    expect: "blocked",
    policy: "read-only",
    needs: [],
    script: `fs.writeFileSync(path.join(L.workspace, "escape-ro"), "x"); reached();`,
    host: { in: "workspace", exists: "escape-ro" },
  },
  {
    id: "write-through-symlink",
    title: "writing outside through a symlink made inside the workspace",
    expect: "blocked",
    policy: "workspace-write",
    needs: ["symlinks"],
    script: `fs.symlinkSync(L.outside, path.join(L.workspace, "link-out")); fs.writeFileSync(path.join(L.workspace, "link-out", "escape-link"), "x"); reached();`,
    host: { in: "outside", exists: "escape-link" },
  },
  {
    id: "write-dotdot",
    // Concatenated, not path.join()ed: the kernel, not Node, has to resolve the `..`.
    title: "writing outside with a path that climbs out of the workspace",
    expect: "blocked",
    policy: "workspace-write",
    needs: [],
    script: `fs.writeFileSync(L.workspace + path.sep + path.relative(L.workspace, L.outside) + path.sep + "escape-dotdot", "x"); reached();`,
    host: { in: "outside", exists: "escape-dotdot" },
  },
  {
    id: "write-git-hooks",
    title: "planting a git hook in the workspace's .git (a carve-out)",
    expect: "blocked",
    policy: "workspace-write",
    needs: ["carve-outs"],
    script: `fs.writeFileSync(path.join(L.workspace, ".git", "hooks", "pre-commit"), "#!/bin/sh\\n"); reached();`,
    host: { in: "workspace", exists: ".git/hooks/pre-commit" },
  },
  {
    id: "create-missing-carve-out",
    title: "creating a missing protected directory (.codex) with rules in it",
    expect: "blocked",
    policy: "workspace-write",
    needs: ["carve-outs"],
    script: `fs.mkdirSync(path.join(L.workspace, ".codex", "rules"), { recursive: true }); fs.writeFileSync(path.join(L.workspace, ".codex", "rules", "escape.rules"), "x"); reached();`,
    host: { in: "workspace", exists: ".codex/rules/escape.rules" },
  },
  {
    id: "rename-carve-out",
    title: "renaming .git away and putting another in its place",
    expect: "blocked",
    policy: "workspace-write",
    needs: ["carve-outs"],
    script: `fs.renameSync(path.join(L.workspace, ".git"), path.join(L.workspace, "git-moved")); reached();`,
    host: { in: "workspace", exists: "git-moved" },
  },
  {
    // A FIFO blocks whoever opens it: one named .gitignore hangs the host's next `git status`.
    // Node has no mkfifo of its own; the system's is run, and the host check looks for any entry.
    id: "fifo-in-workspace",
    title: "making a FIFO named .gitignore in the workspace",
    expect: "blocked",
    policy: "workspace-write",
    needs: ["special-files"],
    script: `const f = path.join(L.workspace, ".gitignore"); const r = require("node:child_process").spawnSync("mkfifo", [f], { encoding: "utf8" }); if (r.error) blocked(r.error.code); else if (r.status === 0 && fs.lstatSync(f).isFIFO()) reached(); else blocked(r.stderr.trim() || "exit " + r.status);`,
    host: { in: "workspace", exists: ".gitignore" },
  },
  {
    id: "read-denied-path",
    title: "reading a denied-read file",
    expect: "blocked",
    policy: "workspace-write-deny-read",
    needs: [],
    script: `const text = fs.readFileSync(L.deniedFile, "utf8"); text.includes(L.secret) ? reached() : blocked("content hidden");`,
  },
  {
    id: "tcp-to-host-loopback",
    title: "connecting to a TCP listener on the host's loopback while the network is off",
    expect: "blocked",
    policy: "workspace-write",
    needs: ["network-isolation"],
    script: `const s = net.connect({ host: "127.0.0.1", port: L.tcpPort }); s.on("connect", () => { s.destroy(); reached(); }); s.on("error", (e) => blocked(e.code));`,
  },
  {
    id: "host-unix-socket",
    title: "connecting to a unix socket the host listens on (think docker.sock)",
    expect: "blocked",
    policy: "workspace-write",
    needs: ["network-isolation", "unix-sockets"],
    script: `const s = net.connect(L.unixSocket); s.on("connect", () => { s.destroy(); reached(); }); s.on("error", (e) => blocked(e.code));`,
  },
  {
    id: "signal-host-process",
    title: "signalling a process of the host",
    expect: "blocked",
    policy: "workspace-write",
    needs: ["process-isolation"],
    script: `process.kill(L.hostPid, 0); reached();`,
  },
  {
    id: "write-workspace",
    title: "creating, renaming and deleting files in the workspace",
    expect: "allowed",
    policy: "workspace-write",
    needs: [],
    script: `const f = path.join(L.workspace, "ok.txt"); fs.writeFileSync(f, "ok"); fs.renameSync(f, f + ".moved"); fs.unlinkSync(f + ".moved"); fs.writeFileSync(path.join(L.workspace, "allowed-write"), "ok"); reached();`,
    host: { in: "workspace", exists: "allowed-write" },
  },
  {
    id: "read-outside",
    title: "reading outside the writable roots",
    expect: "allowed",
    policy: "workspace-write",
    needs: [],
    script: `fs.readFileSync(path.join(L.outside, "readable.txt"), "utf8") === "readable" ? reached() : blocked("wrong content");`,
  },
]);
