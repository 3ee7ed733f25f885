// `shellgate sandbox --backend NAME` and `--dry-run`, and the refusal of an unsandboxed result: what
// would run is printed and nothing runs (each dry run has a control that actually runs the command).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SandboxManager, type SandboxBackend } from "@shellgate/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { parseSandboxArgs } from "../../../src/commands/sandbox/args.js";
import { HELP } from "../../../src/commands/sandbox/index.js";
import { describeSandboxFailure, runSandboxed, type RunRequest } from "../../../src/commands/sandbox/run-sandboxed.js";
import { UsageError } from "../../../src/errors.js";
import { SANDBOX_BACKENDS } from "../../../src/sandbox-backends.js";
import { runBin, type RunResult } from "../../helpers.js";

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-cli-backend-")));
const ws = path.join(base, "ws");
const out = path.join(base, "out");
fs.mkdirSync(ws);
fs.mkdirSync(out);
const env = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: base, XDG_CACHE_HOME: path.join(base, "cache"), LANG: "C" };
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const shellgate = (...args: string[]): Promise<RunResult> => runBin(["sandbox", ...args], { cwd: ws, env });

describe("parseSandboxArgs: --backend and --dry-run", () => {
  it("takes --backend NAME and --dry-run [--json] before the command", () => {
    expect(parseSandboxArgs(["--backend", "linux", "--dry-run", "--json", "--", "ls"])).toMatchObject({
      kind: "run",
      backend: "linux",
      dryRun: true,
      json: true,
      argv: ["ls"],
    });
    expect(parseSandboxArgs(["--backend=seatbelt", "make"])).toMatchObject({ backend: "seatbelt", dryRun: false, json: false, argv: ["make"] });
    expect(parseSandboxArgs(["--dry-run", "ls"])).not.toHaveProperty("backend");
  });

  it.each([
    [["--backend", "", "--", "x"], /--backend: must not be empty/],
    [["--probe", "--backend", "linux"], /--probe cannot be combined with --backend/],
    [["--probe", "--dry-run"], /--probe cannot be combined with --dry-run/],
    [["--json", "--backend", "linux", "--", "x"], /--json is only meaningful with --probe or --dry-run/],
  ])("rejects %j", (args, message) => {
    expect(() => parseSandboxArgs(args)).toThrow(UsageError);
    expect(() => parseSandboxArgs(args)).toThrow(message);
  });

  it("--help names every backend the CLI knows", () => {
    for (const b of SANDBOX_BACKENDS) expect(HELP).toContain(b.name);
    expect(HELP).toContain("--dry-run");
  });
});

describe("shellgate sandbox --dry-run (built bin; planning needs no sandbox, so this runs on any OS)", () => {
  it("--backend linux --json prints exactly backend, argv, env and plan, and runs nothing", async () => {
    const made = path.join(out, "made-by-dry-run");
    const r = await shellgate("--backend", "linux", "--dry-run", "--json", "--writable-root", out, "--", "touch", made);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout) as { backend: string; argv: string[]; env: Record<string, string>; plan: Record<string, unknown> };
    expect(Object.keys(printed)).toEqual(["backend", "argv", "env", "commandEnv", "plan"]);
    expect(r.stdout).toBe(`${JSON.stringify(printed, null, 2)}\n`);
    expect(printed.backend).toBe("linux");
    // the helper that makes the run's placeholders under their locks starts bwrap
    const launch = printed.argv.indexOf("--exec-only");
    expect(path.basename(printed.argv[0] ?? "")).toBe("shellgate-sandbox-helper");
    expect(printed.argv[1]).toBe("--placeholder");
    expect(printed.argv[launch + 1]).toBe("--");
    expect(path.basename(printed.argv[launch + 2] ?? "")).toBe("bwrap");
    expect(path.isAbsolute(printed.argv[launch + 2] ?? "")).toBe(true);
    const bound = printed.argv.some((a, i) => a === "--bind" && printed.argv[i + 1] === out && printed.argv[i + 2] === out);
    expect(bound, printed.argv.join(" ")).toBe(true);
    expect(printed.argv.slice(-2)).toEqual(["touch", made]);
    expect(printed.env).toMatchObject({ CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    expect(printed.env).not.toHaveProperty("PATH");
    expect(fs.existsSync(made)).toBe(false);
  });

  it("--backend seatbelt --json on any OS: /usr/bin/sandbox-exec -p PROFILE -D… -- CMD, the four keys, and runs nothing", async () => {
    const made = path.join(out, "made-by-seatbelt-dry-run");
    const r = await shellgate("--backend", "seatbelt", "--dry-run", "--json", "--writable-root", out, "--", "touch", made);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout) as { backend: string; argv: string[]; env: Record<string, string>; plan: Record<string, unknown> };
    expect(Object.keys(printed)).toEqual(["backend", "argv", "env", "commandEnv", "plan"]);
    expect(printed.backend).toBe("seatbelt");
    expect(printed.argv.slice(0, 2)).toEqual(["/usr/bin/sandbox-exec", "-p"]);
    expect(printed.argv[2]).toMatch(/^\(version 1\)\n[^]*\(deny default\)/);
    const dashes = printed.argv.indexOf("--");
    const params = printed.argv.slice(3, dashes);
    expect(params.length).toBeGreaterThan(0);
    for (const p of params) expect(p).toMatch(/^-D[A-Z][A-Z0-9_]*=\//);
    // the writable root as macOS names it (/tmp and /var under /private), and never in the profile text
    const canonical = out.replace(/^\/(tmp|var|etc)(?=\/|$)/, "/private/$1");
    expect(params).toContain(`-DWRITABLE_ROOT_1=${canonical}`);
    expect(printed.argv[2]).not.toContain(out);
    expect(printed.argv.slice(dashes + 1)).toEqual(["touch", made]);
    expect(printed.env).toEqual({ CODEX_SANDBOX: "seatbelt", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    expect(printed.plan).toMatchObject({ network: false, profile: printed.argv[2] });
    expect(fs.existsSync(made)).toBe(false);
  });

  it("control: the same command, actually run (unsandboxed), creates the file", async () => {
    const made = path.join(out, "made-by-run");
    const r = await shellgate("--mode", "danger-full-access", "--", "touch", made);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(made)).toBe(true);
  });

  it("readable: a multi-line argument (the Seatbelt profile) is shown as a block below the command, one -D parameter per line", async () => {
    const r = await shellgate("--backend", "seatbelt", "--dry-run", "--", "true");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('  /usr/bin/sandbox-exec -p "$ARG2" \\\n');
    expect(r.stdout).toMatch(/\n {2}-DWRITABLE_ROOT_0=\S+ \\\n/);
    expect(r.stdout).toMatch(/\nARG2 \(\d+ lines\):\n {2}\(version 1\)\n/);
    expect(r.stdout).toContain("\n  (deny default)\n");
    // the --json form keeps the profile as the argument itself
    const json = await shellgate("--backend", "seatbelt", "--dry-run", "--json", "--", "true");
    expect((JSON.parse(json.stdout) as { argv: string[] }).argv[2]).toMatch(/^\(version 1\)\n/);
  });

  it("without --json prints a readable plan and runs nothing; without --backend it plans with this platform's backend", async () => {
    const made = path.join(ws, "made-by-readable-dry-run");
    const r = await shellgate("--dry-run", "--writable-root", out, "--", "touch", made);
    if (process.platform === "darwin") {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^backend: seatbelt \(sandbox type seatbelt; isolation /);
      expect(fs.existsSync(made)).toBe(false);
      return;
    }
    if (process.platform !== "linux") {
      // no backend of this platform provides a plan yet: the error says which package
      expect(r.code).toBe(125);
      expect(r.stderr).toMatch(/@shellgate\/sandbox-/);
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backend: linux \(sandbox type linux; isolation /);
    expect(r.stdout).toContain(`  --bind ${out} ${out} \\\n`);
    expect(r.stdout).toMatch(/\nenvironment set by the sandbox:\n(  \w+=\S*\n)*  CODEX_SANDBOX_NETWORK_DISABLED=1\n/);
    expect(r.stdout).toMatch(/\nplan:\n {2}\{\n/);
    expect(r.stdout).toMatch(/nothing was run \(--dry-run\)\n$/);
    expect(fs.existsSync(made)).toBe(false);
  });
});

describe("shellgate sandbox --backend NAME that cannot be used here (built bin)", () => {
  it("an unknown name exits 125, names every known backend, and runs nothing", async () => {
    const made = path.join(ws, "made-by-nosuch");
    for (const extra of [[], ["--dry-run"]]) {
      const r = await shellgate("--backend", "nosuch", ...extra, "--", "touch", made);
      expect(r.code, extra.join(" ")).toBe(125);
      expect(r.stderr).toBe('shellgate sandbox: --backend: no sandbox backend named "nosuch"; known backends: linux (Linux), seatbelt (macOS), windows (Windows)\n');
    }
    expect(fs.existsSync(made)).toBe(false);
  });

  it("windows plans here (--dry-run --json): the four keys, the restricted-token plan, nothing run", async () => {
    const made = path.join(ws, "made-by-windows");
    const r = await shellgate("--backend", "windows", "--dry-run", "--json", "--writable-root", out, "--", "touch", made);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as { backend: string; argv: string[]; env: Record<string, string>; plan: Record<string, unknown> };
    expect(Object.keys(printed)).toEqual(["backend", "argv", "env", "commandEnv", "plan"]);
    expect(printed.backend).toBe("windows");
    expect(printed.argv[2]).toBe("--request");
    // the runner a real run would start is the installed package's, not a file the bundle lacks
    expect(printed.argv[1], "runner script").toMatch(/sandbox-windows[\\/]dist[\\/]runner\.js$/);
    expect(fs.existsSync(printed.argv[1] as string), `${printed.argv[1]} exists`).toBe(true);
    expect(JSON.parse(printed.argv[3] as string)).toMatchObject({ v: 1, commandLine: `touch ${made}` });
    expect(printed.env).toMatchObject({ CODEX_SANDBOX: "windows", CODEX_SANDBOX_NETWORK_DISABLED: "1", HTTP_PROXY: "http://127.0.0.1:9" });
    // POSIX paths read as Windows would (rooted, current drive); nothing on disk was read
    const winPath = (p: string) => p.replaceAll("/", "\\");
    expect((printed.plan["writable"] as Array<{ path: string }>).map((w) => w.path)).toEqual(expect.arrayContaining([winPath(out), winPath(ws)]));
    expect(printed.plan).toMatchObject({ network: "blocked", networkEnforcement: "advisory-env", identity: "restricted-token" });
    expect(printed.plan["readOnly"]).toEqual(expect.arrayContaining([expect.objectContaining({ path: `${winPath(ws)}\\.git` })]));
    expect((printed.plan["steps"] as Array<{ step: string }>).map((s) => s.step)).toEqual(expect.arrayContaining(["capability-sids", "grant-ace", "deny-ace", "create-restricted-token", "create-job-object", "create-process", "revoke-aces"]));
    expect(fs.existsSync(made)).toBe(false);
  });

  it("windows cannot run here: exits 125 saying why, runs nothing", async () => {
    if (process.platform === "win32") return;
    const made = path.join(ws, "made-by-windows-run");
    const r = await shellgate("--backend", "windows", "--", "touch", made);
    expect(r.code).toBe(125);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/windows \(win32\): built for win32/);
    expect(fs.existsSync(made)).toBe(false);
  });
});

/** A backend that claims to sandbox but hands the command back as it is: what prepare must refuse. */
function unsandboxingBackend(): SandboxBackend {
  return {
    name: "leaky",
    platform: process.platform,
    sandboxType: "leaky",
    isAvailable: async () => ({ available: true, isolation: "pretend" }),
    plan: async () => {
      throw new Error("not used");
    },
    transform: async (spec) => ({ argv: [...spec.argv], cwd: spec.cwd, env: { ...spec.env }, sandboxType: "none", isolation: "none" }),
  };
}

describe("shellgate sandbox refuses an unsandboxed result (runSandboxed through SandboxManager.prepare)", () => {
  const request = (argv: string[], mode: RunRequest["mode"] = "workspace-write"): RunRequest => ({
    kind: "run",
    mode,
    writableRoots: [],
    deniedReadPaths: [],
    network: false,
    allowWeakerIsolation: false,
    dryRun: false,
    json: false,
    argv,
  });

  it("a backend returning sandboxType none for workspace-write: SANDBOX_TRANSFORM_FAILED, exit 125, nothing ran", async () => {
    const made = path.join(out, "made-by-leaky-backend");
    const manager = new SandboxManager();
    manager.register(unsandboxingBackend());
    const error = await runSandboxed(request(["touch", made]), manager).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "SANDBOX_TRANSFORM_FAILED" });
    expect(String((error as Error).message)).toMatch(/leaky.*unsandboxed command/);
    expect(describeSandboxFailure(error as never).exitCode).toBe(125);
    expect(fs.existsSync(made)).toBe(false);
  });

  it("control: a policy that needs no sandbox runs the command through the same path", async () => {
    const made = path.join(out, "made-unsandboxed-on-purpose");
    const manager = new SandboxManager();
    manager.register(unsandboxingBackend());
    expect(await runSandboxed(request(["touch", made], "danger-full-access"), manager)).toBe(0);
    expect(fs.existsSync(made)).toBe(true);
  });
});
