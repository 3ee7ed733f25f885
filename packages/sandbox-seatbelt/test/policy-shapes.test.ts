// The conformance kit's filesystem and network cases as SBPL evaluator queries against the
// profiles the backend plans, for every policy shape the issue lists. Each blocked query has its
// controls: full access allows it (the query is possible at all), and the profile of the most
// permissive sandboxed policy of the same layout allows it, or, where no policy lifts the refusal
// (a carve-out, another process), the same query on a plain neighbour (`.git` → `plain-git`).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseSandboxPolicy, type NetworkProxyRoute, type SandboxPolicyInput } from "@shellgate/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileProfile, type CompiledProfile } from "./sbpl/evaluator.js";
import { buildSeatbeltProfile, type ProfileInput } from "../src/testing.js";
import {
  CASE_IDS, CASE_STEPS, FULL_ACCESS, kernelPath, makeLayout, plannedProfile, removeLayout, runSteps, STARTUP_STEPS,
  type Layout, type Step,
} from "./support.js";

type Verdict = "allowed" | "blocked";
const A: Verdict = "allowed";
const B: Verdict = "blocked";

/** workspace-write, network off, only the workspace writable: what the kit expects, case by case. */
const WORKSPACE_WRITE: Record<string, Verdict> = {
  "write-outside-roots": B, "write-read-only-policy": A, "write-through-symlink": B, "write-dotdot": B, "write-git-hooks": B,
  "create-missing-carve-out": B, "rename-carve-out": B, "read-denied-path": A, "tcp-to-host-loopback": B, "host-unix-socket": B,
  "signal-host-process": B, "write-workspace": A, "read-outside": A,
};
const ONLY_WORKSPACE = { excludeSlashTmp: true, excludeTmpdirEnvVar: true };

interface ExtraQuery {
  title: string;
  steps: (L: Layout) => Step[];
  verdict: Verdict;
  /** For a refusal no policy lifts and {@link neighbour} cannot rename away: a query the profile allows that differs only in what is refused. */
  control?: (L: Layout) => Step;
}

interface Shape {
  name: string;
  workspaceName?: string;
  setup?: (L: Layout) => void;
  /** The policy cwd (default: the workspace). */
  cwd?: (L: Layout) => string;
  policy: (L: Layout) => SandboxPolicyInput;
  protectedPaths?: (L: Layout) => string[];
  /** The session proxy's route the plan is made with. */
  networkProxy?: NetworkProxyRoute;
  expect: Record<string, Verdict>;
  extra?: ExtraQuery[];
}

/** The session proxy of the proxy-routed shapes; the host's other listener is `HOST_TCP_PORT`. */
const PROXY: NetworkProxyRoute = { transport: "loopback-tcp", httpPort: 3128, socksPort: 1080 };
const tcpSocket: Step = { operation: "system-socket", socketDomain: "AF_INET", socketType: "SOCK_STREAM" };
const connect = (ip: string, port: number): Step => ({ operation: "network-outbound", remote: { ip, port } });

/** What a proxy-routed run may and may not reach; the same for every policy that routes. */
const PROXY_QUERIES: ExtraQuery[] = [
  { title: "the HTTP proxy on 127.0.0.1", steps: () => [tcpSocket, connect("127.0.0.1", 3128)], verdict: A },
  { title: "the SOCKS proxy on 127.0.0.1", steps: () => [tcpSocket, connect("127.0.0.1", 1080)], verdict: A },
  { title: "the HTTP proxy over IPv6 loopback (a dual-stack socket)", steps: () => [{ ...tcpSocket, socketDomain: "AF_INET6" }, connect("::1", 3128)], verdict: A },
  { title: "another port on loopback", steps: () => [tcpSocket, connect("127.0.0.1", 3129)], verdict: B },
  { title: "a host loopback service on the proxy's port number plus one", steps: () => [connect("127.0.0.1", 1081)], verdict: B },
  { title: "a remote address", steps: () => [tcpSocket, connect("93.184.216.34", 443)], verdict: B },
  { title: "a remote address on the proxy's port", steps: () => [connect("93.184.216.34", 3128)], verdict: B },
  { title: "a LAN address on the proxy's port", steps: () => [connect("192.168.1.20", 1080)], verdict: B },
  { title: "DNS: a UDP socket", steps: () => [{ operation: "system-socket", socketDomain: "AF_INET", socketType: "SOCK_DGRAM" }], verdict: B },
  { title: "DNS: a public resolver on *:53", steps: () => [connect("8.8.8.8", 53)], verdict: B },
  { title: "DNS: a resolver on loopback port 53", steps: () => [connect("127.0.0.1", 53)], verdict: B },
  { title: "DNS: mDNSResponder's unix socket", steps: () => [{ operation: "network-outbound", remote: { unixSocket: "/private/var/run/mDNSResponder" } }], verdict: B },
  { title: "DNS: the DNS configuration service", steps: () => [{ operation: "mach-lookup", globalName: "com.apple.SystemConfiguration.DNSConfiguration" }], verdict: B },
  { title: "certificate services (they fetch URLs outside the sandbox)", steps: () => [{ operation: "mach-lookup", globalName: "com.apple.trustd.agent" }], verdict: B },
  { title: "a listening socket", steps: () => [{ operation: "network-bind" }], verdict: B },
  { title: "an inbound connection", steps: () => [{ operation: "network-inbound" }], verdict: B },
  { title: "a kernel-control socket", steps: () => [{ operation: "system-socket", socketDomain: "AF_SYSTEM", socketType: "SOCK_DGRAM" }], verdict: B },
];

/** The extension a pseudo-terminal opened through /dev/ptmx inside the sandbox carries. */
const PTY = ["com.apple.sandbox.pty"];
const tty = (operation: Step["operation"], extensions?: string[]): Step => ({ operation, path: "/dev/ttys003", ...(extensions ? { extensions } : {}) });

/**
 * Terminals, the same under every sandboxed policy: a pty the command opens is usable, another
 * window's terminal (no pty extension) is not; the control of each refusal is the same operation
 * on a pty the sandbox created.
 */
const TERMINAL_QUERIES: ExtraQuery[] = [
  {
    title: "a pseudo-terminal opened inside the sandbox",
    steps: () => [
      { operation: "pseudo-tty" }, { operation: "file-read-data", path: "/dev/ptmx" }, { operation: "file-write-data", path: "/dev/ptmx" },
      { operation: "file-ioctl", path: "/dev/ptmx" }, tty("file-read-data", PTY), tty("file-write-data", PTY), tty("file-ioctl", PTY),
    ],
    verdict: A,
  },
  { title: "another terminal window's /dev/ttys003: reading it", steps: () => [tty("file-read-data")], verdict: B, control: () => tty("file-read-data", PTY) },
  { title: "another terminal window's /dev/ttys003: writing to it", steps: () => [tty("file-write-data")], verdict: B, control: () => tty("file-write-data", PTY) },
  { title: "another terminal window's /dev/ttys003: an ioctl (TIOCSTI)", steps: () => [tty("file-ioctl")], verdict: B, control: () => tty("file-ioctl", PTY) },
  { title: "another terminal window's /dev/ttys003: its metadata", steps: () => [tty("file-read-metadata")], verdict: B, control: () => tty("file-read-metadata", PTY) },
];

const w = (p: string): Step[] => [{ operation: "file-write-create", path: kernelPath(p) }, { operation: "file-write-data", path: kernelPath(p) }];
const unlink = (p: string): Step[] => [{ operation: "file-write-unlink", path: kernelPath(p) }];
const read = (p: string): Step[] => [{ operation: "file-read-data", path: kernelPath(p) }];

const SHAPES: Shape[] = [
  { name: "workspace-write, network off", policy: () => ({ mode: "workspace-write", ...ONLY_WORKSPACE }), expect: WORKSPACE_WRITE, extra: TERMINAL_QUERIES },
  {
    name: "workspace-write, network on",
    policy: () => ({ mode: "workspace-write", networkAccess: true, ...ONLY_WORKSPACE }),
    expect: { ...WORKSPACE_WRITE, "tcp-to-host-loopback": A, "host-unix-socket": A },
    extra: [
      { title: "a listening socket", steps: () => [{ operation: "network-bind" }, { operation: "network-inbound" }], verdict: A },
      { title: "DNS configuration service", steps: () => [{ operation: "mach-lookup", globalName: "com.apple.SystemConfiguration.DNSConfiguration" }], verdict: A },
    ],
  },
  {
    name: "workspace-write, network through the session proxy",
    policy: () => ({ mode: "workspace-write", ...ONLY_WORKSPACE }),
    networkProxy: PROXY,
    // the kit's listener is on another loopback port, and unix sockets stay closed
    expect: WORKSPACE_WRITE,
    extra: PROXY_QUERIES,
  },
  {
    name: "read-only, network through the session proxy",
    policy: () => ({ mode: "read-only" }),
    networkProxy: PROXY,
    expect: { ...WORKSPACE_WRITE, "write-read-only-policy": B, "write-workspace": B },
    extra: PROXY_QUERIES,
  },
  {
    name: "workspace-write with network on: a proxy route changes nothing",
    policy: () => ({ mode: "workspace-write", networkAccess: true, ...ONLY_WORKSPACE }),
    networkProxy: PROXY,
    expect: { ...WORKSPACE_WRITE, "tcp-to-host-loopback": A, "host-unix-socket": A },
    extra: [
      { title: "another port on loopback", steps: () => [tcpSocket, connect("127.0.0.1", 3129)], verdict: A },
      { title: "a remote address", steps: () => [connect("93.184.216.34", 443)], verdict: A },
      { title: "DNS", steps: () => [connect("8.8.8.8", 53)], verdict: A },
    ],
  },
  {
    name: "read-only",
    policy: () => ({ mode: "read-only" }),
    expect: { ...WORKSPACE_WRITE, "write-read-only-policy": B, "write-workspace": B },
    extra: [
      { title: "writing /dev/null", steps: () => [{ operation: "file-write-data", path: "/dev/null" }], verdict: A },
      { title: "creating /dev/null", steps: () => [{ operation: "file-write-create", path: "/dev/null" }], verdict: B, control: () => ({ operation: "file-write-data", path: "/dev/null" }) },
      ...TERMINAL_QUERIES,
      { title: "DNS configuration service (network off)", steps: () => [{ operation: "mach-lookup", globalName: "com.apple.SystemConfiguration.DNSConfiguration" }], verdict: B },
      { title: "a sysctl outside the allow-list", steps: () => [{ operation: "sysctl-read", sysctlName: "kern.proc.all" }], verdict: B, control: () => ({ operation: "sysctl-read", sysctlName: "kern.proc.pid.1" }) },
    ],
  },
  {
    name: "extra writable roots",
    policy: (L) => ({ mode: "workspace-write", writableRoots: [L.outside, L.extra], ...ONLY_WORKSPACE }),
    expect: { ...WORKSPACE_WRITE, "write-outside-roots": A, "write-through-symlink": A, "write-dotdot": A },
    extra: [
      { title: "a file in the extra root", steps: (L) => w(path.join(L.extra, "f")), verdict: A },
      { title: "a missing .git in the extra root", steps: (L) => w(path.join(L.outside, ".git")), verdict: B },
      { title: "a missing .codex in the extra root", steps: (L) => w(path.join(L.extra, ".codex", "config.toml")), verdict: B },
      { title: "renaming the extra root itself away", steps: (L) => unlink(L.extra), verdict: B, control: (L) => unlink(path.join(L.extra, "dir"))[0] as Step },
      { title: "renaming the workspace itself away", steps: (L) => unlink(L.workspace), verdict: B, control: (L) => unlink(path.join(L.workspace, "dir"))[0] as Step },
      { title: "a file beside the roots", steps: (L) => w(path.join(L.base, "beside")), verdict: B },
    ],
  },
  {
    name: "carve-outs that exist and that do not",
    setup: (L) => {
      fs.mkdirSync(path.join(L.workspace, ".codex"));
      fs.writeFileSync(path.join(L.workspace, ".codex", "config.toml"), "");
      fs.mkdirSync(path.join(L.workspace, ".agents"));
      fs.mkdirSync(path.join(L.workspace, "policy-dir"));
      fs.mkdirSync(path.join(L.workspace, "tools", "conf"), { recursive: true });
      // a worktree-style .git file in the extra root; its gitdir lies in the same (writable) root
      fs.mkdirSync(path.join(L.extra, "real-git-dir", "hooks"), { recursive: true });
      fs.writeFileSync(path.join(L.extra, ".git"), `gitdir: ${path.join(L.extra, "real-git-dir")}\n`);
    },
    policy: (L) => ({ mode: "workspace-write", writableRoots: [L.extra], ...ONLY_WORKSPACE }),
    protectedPaths: (L) => [path.join(L.workspace, "policy-dir"), path.join(L.workspace, ".config", "shellgate", "rules"), path.join(L.workspace, "tools", "conf", "rules")],
    expect: WORKSPACE_WRITE,
    extra: [
      { title: "an existing .codex: writing its config", steps: (L) => w(path.join(L.workspace, ".codex", "config.toml")), verdict: B },
      { title: "an existing .codex: removing its config", steps: (L) => unlink(path.join(L.workspace, ".codex", "config.toml")), verdict: B },
      { title: "an existing .codex: renaming it away", steps: (L) => unlink(path.join(L.workspace, ".codex")), verdict: B },
      { title: "an existing .agents", steps: (L) => w(path.join(L.workspace, ".agents", "x")), verdict: B },
      { title: "a missing .shellgate", steps: (L) => w(path.join(L.workspace, ".shellgate")), verdict: B },
      { title: "a missing .agents in the extra root", steps: (L) => w(path.join(L.extra, ".agents")), verdict: B },
      { title: "the gitdir: target's hooks", steps: (L) => w(path.join(L.extra, "real-git-dir", "hooks", "post-checkout")), verdict: B, control: (L) => w(path.join(L.extra, "plain-dir", "hooks", "post-checkout"))[0] as Step },
      { title: "the .git file itself", steps: (L) => [{ operation: "file-write-data", path: kernelPath(path.join(L.extra, ".git")) }], verdict: B },
      { title: "removing the .git file", steps: (L) => unlink(path.join(L.extra, ".git")), verdict: B },
      { title: "a plain file next to the gitdir", steps: (L) => w(path.join(L.extra, "other")), verdict: A },
      { title: "an existing protected policy directory", steps: (L) => w(path.join(L.workspace, "policy-dir", "x.rules")), verdict: B },
      { title: "a missing protected path: its first missing ancestor cannot be created", steps: (L) => w(path.join(L.workspace, ".config")), verdict: B },
      { title: "a missing protected path itself", steps: (L) => w(path.join(L.workspace, ".config", "shellgate", "rules")), verdict: B },
      { title: "a pinned ancestor cannot be renamed away", steps: (L) => unlink(path.join(L.workspace, "tools")), verdict: B },
      { title: "…nor the one below it", steps: (L) => unlink(path.join(L.workspace, "tools", "conf")), verdict: B },
      { title: "…but files inside a pinned ancestor stay writable", steps: (L) => [...w(path.join(L.workspace, "tools", "new")), ...unlink(path.join(L.workspace, "tools", "new"))], verdict: A },
    ],
  },
  {
    name: "symlinked roots",
    setup: (L) => {
      fs.symlinkSync(L.workspace, path.join(L.base, "ws-link"));
      fs.symlinkSync(L.extra, path.join(L.base, "extra-link"));
    },
    cwd: (L) => path.join(L.base, "ws-link"),
    policy: (L) => ({ mode: "workspace-write", writableRoots: [path.join(L.base, "extra-link")], ...ONLY_WORKSPACE }),
    expect: WORKSPACE_WRITE,
    extra: [
      { title: "a file through the workspace link", steps: (L) => w(path.join(L.base, "ws-link", "f")), verdict: A },
      { title: "a file through the extra-root link", steps: (L) => w(path.join(L.base, "extra-link", "f")), verdict: A },
      { title: "git hooks through the workspace link", steps: (L) => w(path.join(L.base, "ws-link", ".git", "hooks", "pre-push")), verdict: B },
      { title: "replacing the link itself (it lies outside every root)", steps: (L) => unlink(path.join(L.base, "ws-link")).map((s) => ({ ...s, path: toLinkPath(L) })), verdict: B },
    ],
  },
  {
    name: "denied reads",
    setup: (L) => {
      fs.mkdirSync(path.join(L.outside, "secret-dir"));
      fs.writeFileSync(path.join(L.outside, "secret-dir", "key"), "k");
      fs.writeFileSync(path.join(L.workspace, ".env"), "TOKEN=1");
      fs.mkdirSync(path.join(L.workspace, "sub", "deep"), { recursive: true });
      fs.writeFileSync(path.join(L.workspace, "sub", "deep", ".env2"), "TOKEN=2");
      fs.writeFileSync(path.join(L.outside, "denied-target.txt"), "t");
      fs.symlinkSync(path.join(L.outside, "denied-target.txt"), path.join(L.outside, "denied-link"));
    },
    policy: (L) => ({
      mode: "workspace-write",
      ...ONLY_WORKSPACE,
      deniedReadPaths: [
        L.deniedFile, path.join(L.outside, "secret-dir"), path.join(L.workspace, ".env"), path.join(L.workspace, "sub", "deep", ".env2"),
        path.join(L.workspace, "not-yet"), path.join(L.outside, "denied-link"),
      ],
    }),
    expect: { ...WORKSPACE_WRITE, "read-denied-path": B },
    extra: [
      { title: "a file in a denied directory", steps: (L) => read(path.join(L.outside, "secret-dir", "key")), verdict: B },
      { title: "the denied directory's listing", steps: (L) => read(path.join(L.outside, "secret-dir")), verdict: B },
      { title: "a denied file inside the workspace", steps: (L) => read(path.join(L.workspace, ".env")), verdict: B },
      { title: "…overwriting it", steps: (L) => [{ operation: "file-write-data", path: kernelPath(path.join(L.workspace, ".env")) }], verdict: B },
      { title: "…renaming it away to read it elsewhere", steps: (L) => unlink(path.join(L.workspace, ".env")), verdict: B },
      { title: "…renaming its parent directory away", steps: (L) => unlink(path.join(L.workspace, "sub", "deep")), verdict: B },
      { title: "…or the one above", steps: (L) => unlink(path.join(L.workspace, "sub")), verdict: B },
      { title: "…while other files there stay writable", steps: (L) => w(path.join(L.workspace, "sub", "deep", "other")), verdict: A },
      { title: "a denied path that does not exist yet: creating it", steps: (L) => w(path.join(L.workspace, "not-yet")), verdict: B },
      { title: "a denied symlink: its target", steps: (L) => read(path.join(L.outside, "denied-link")), verdict: B },
      { title: "a readable file next to the denied ones", steps: (L) => read(path.join(L.workspace, "sub", "deep", "other-not-denied")), verdict: A },
    ],
  },
  {
    name: "paths with spaces, quotes and non-ASCII",
    workspaceName: `wörk space "q" 'a' (b);x=y ✓`,
    policy: (L) => ({ mode: "workspace-write", writableRoots: [L.extra], ...ONLY_WORKSPACE }),
    expect: WORKSPACE_WRITE,
    extra: [
      { title: "a file with a newline and a paren in its name", steps: (L) => w(path.join(L.workspace, "a\n(b)")), verdict: A },
      { title: "git hooks under the odd name", steps: (L) => w(path.join(L.workspace, ".git", "hooks", "post-merge")), verdict: B },
    ],
  },
];

/** The link's own path as the kernel names it: its directory resolved, the link itself not followed. */
function toLinkPath(L: Layout): string {
  return path.join(kernelPath(L.base), "ws-link");
}

/** `.git` → `plain-git` and so on: the same query without the protected name. */
function neighbour(step: Step): Step {
  if (step.target === "other") return { ...step, target: "same-sandbox" };
  if (!step.path) return step;
  return { ...step, path: step.path.replace(/\/\.(git|codex|shellgate|agents|config|env)(?=\/|$)/g, "/plain-$1").replace(/\/(policy-dir|tools|not-yet)(?=\/|$)/g, "/plain-$1") };
}

describe.each(SHAPES)("policy shape: $name", (shape) => {
  let L: Layout;
  let profile: CompiledProfile;
  let twin: CompiledProfile;
  let text: string;
  let params: Record<string, string>;
  beforeAll(async () => {
    L = makeLayout(shape.workspaceName);
    shape.setup?.(L);
    const cwd = shape.cwd?.(L) ?? L.workspace;
    const planned = await plannedProfile(parseSandboxPolicy(shape.policy(L)), cwd, shape.protectedPaths?.(L) ?? [], shape.networkProxy);
    ({ profile, text, params } = planned);
    // the most permissive sandboxed policy of this layout: everything writable that a policy can make so, network on
    const open = await plannedProfile(parseSandboxPolicy({ mode: "workspace-write", writableRoots: [L.outside, L.extra, L.base], networkAccess: true, ...ONLY_WORKSPACE }), cwd, []);
    twin = open.profile;
  });
  afterAll(() => removeLayout(L));

  /** A blocked query's controls; `what` names it in failures. */
  function expectControls(step: Step, what: string, control?: Step): void {
    expect(FULL_ACCESS.allows(step), `${what}: full access allows ${JSON.stringify(step)}`).toBe(true);
    if (control) {
      expect(profile.allows(control), `${what}: the control ${JSON.stringify(control)} is allowed`).toBe(true);
      return;
    }
    if (twin.allows(step)) return;
    const near = neighbour(step);
    expect(near, `${what}: no policy lifts ${JSON.stringify(step)} and it has no plain neighbour`).not.toEqual(step);
    expect(twin.allows(near), `${what}: the plain neighbour ${JSON.stringify(near)} is allowed`).toBe(true);
  }

  it("maps every case of the kit, and every -D parameter is read by the profile", () => {
    expect(Object.keys(shape.expect).sort()).toEqual([...CASE_IDS].sort());
    for (const id of CASE_IDS) expect(CASE_STEPS[id], id).toBeDefined();
    for (const step of STARTUP_STEPS) profile.allows(step);
    expect([...profile.usedParams].sort()).toEqual(Object.keys(params).sort());
  });

  it("no path text is in the profile: only parameters", () => {
    for (const value of Object.values(params)) expect(text.includes(value), value).toBe(false);
    expect(text).not.toContain(L.base);
  });

  it("starting node works (exec, fork, its own signals, the usual sysctls)", () => {
    expect(runSteps(profile, STARTUP_STEPS)).toEqual({ verdict: "allowed" });
  });

  for (const id of CASE_IDS) {
    it(`${id}: ${shape.expect[id]}`, () => {
      const steps = CASE_STEPS[id]?.(L) ?? [];
      const result = runSteps(profile, steps);
      expect(result.verdict, JSON.stringify(result.refused ?? steps)).toBe(shape.expect[id]);
      if (result.refused) expectControls(result.refused, id);
    });
  }

  for (const q of shape.extra ?? []) {
    it(`${q.title}: ${q.verdict}`, () => {
      const steps = q.steps(L);
      const result = runSteps(profile, steps);
      expect(result.verdict, JSON.stringify(result.refused ?? steps)).toBe(q.verdict);
      if (result.refused) expectControls(result.refused, q.title, q.control?.(L));
    });
  }
});

describe("the profile's text depends on the policy's shape, never on its paths", () => {
  it("an odd workspace name gives the same profile text as a plain one", async () => {
    const plain = makeLayout();
    const odd = makeLayout(`wörk space "q" 'a' (b);x=y ✓`);
    try {
      const policy = (L: Layout) => parseSandboxPolicy({ mode: "workspace-write", writableRoots: [L.extra], ...ONLY_WORKSPACE });
      const a = await plannedProfile(policy(plain), plain.workspace);
      const b = await plannedProfile(policy(odd), odd.workspace);
      expect(b.text).toBe(a.text);
      expect(b.params["WRITABLE_ROOT_0"]).toBe(kernelPath(odd.workspace));
    } finally {
      removeLayout(plain);
      removeLayout(odd);
    }
  });
});

describe("terminals beyond the policy shapes", () => {
  /** The profile for `input` with its parameters, compiled. */
  const compiled = (input: Partial<ProfileInput>) => {
    const { text, params } = buildSeatbeltProfile({ writableRoots: [], readOnlyPaths: [], pinnedPaths: [], deniedReadPaths: [], network: false, ...input });
    return compileProfile(text, Object.fromEntries(params.map((p) => [p.name, p.value])));
  };

  it("a writable root of / (a broad workspace) does not make another window's terminal writable", () => {
    const broad = compiled({ writableRoots: ["/"], pinnedPaths: ["/"] });
    expect(broad.allows(tty("file-write-data"))).toBe(false);
    expect(broad.allows(tty("file-read-data"))).toBe(false);
    // controls: the root is writable elsewhere, and a pty made inside is usable
    expect(broad.allows({ operation: "file-write-data", path: "/Users/me/f" })).toBe(true);
    expect(broad.allows(tty("file-write-data", PTY))).toBe(true);
  });

  it("a dedicated terminal: ioctls on the inherited one are allowed, opening another window's still is not", () => {
    const dedicated = compiled({ dedicatedTerminal: true });
    expect(dedicated.allows(tty("file-ioctl"))).toBe(true);
    expect(dedicated.allows(tty("file-read-data"))).toBe(false);
    expect(dedicated.allows(tty("file-write-data"))).toBe(false);
    // control: without a dedicated terminal the ioctl is refused too
    expect(compiled({}).allows(tty("file-ioctl"))).toBe(false);
  });
});

const tmpIsSlashTmp = fs.realpathSync(os.tmpdir()) === "/tmp";
describe.skipIf(!tmpIsSlashTmp)(`/tmp as a writable root, as macOS names it${tmpIsSlashTmp ? "" : " (skipped: the temp dir here is not /tmp)"}`, () => {
  it("the root is /private/tmp; a write there is allowed, the same name unresolved would match nothing", async () => {
    const L = makeLayout();
    try {
      const { profile, params } = await plannedProfile(parseSandboxPolicy({ mode: "workspace-write", excludeTmpdirEnvVar: true }), L.workspace);
      expect(Object.values(params)).toContain("/private/tmp");
      expect(Object.values(params)).not.toContain("/tmp");
      const file = path.join("/tmp", "sg-seatbelt-probe");
      expect(kernelPath(file)).toBe("/private/tmp/sg-seatbelt-probe");
      expect(profile.allows({ operation: "file-write-create", path: kernelPath(file) })).toBe(true);
      expect(profile.allows({ operation: "file-write-create", path: file })).toBe(false);
      // /tmp itself cannot be renamed or removed, its .git cannot be planted
      expect(profile.allows({ operation: "file-write-unlink", path: "/private/tmp" })).toBe(false);
      expect(profile.allows({ operation: "file-write-create", path: "/private/tmp/.git" })).toBe(false);
      // control: excluded, /tmp is not writable at all (the layout itself lies there)
      const excluded = await plannedProfile(parseSandboxPolicy({ mode: "workspace-write", excludeTmpdirEnvVar: true, excludeSlashTmp: true }), L.workspace);
      expect(excluded.profile.allows({ operation: "file-write-create", path: kernelPath(file) })).toBe(false);
    } finally {
      removeLayout(L);
    }
  });
});
