// The packages as a user gets them: every publishable package packed with `npm pack`, installed from
// the tarballs into a fresh project outside the repository, and used from there only — both bins,
// the MCP server through the official client, the orchestrator as a library, and a TypeScript
// consumer that type-checks every package's declarations (`skipLibCheck: false`). Whatever works
// in the monorepo only because of workspace links, hoisting, sources next to dist/ or a file
// missing from `files` fails here.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cleanEnv, createConsumerProject, REPO_ROOT, type ConsumerProject } from "../lib/consumer-project.mjs";

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(argv: string[], options: { cwd: string; env: Record<string, string> }): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const fixtures = new URL("./fixtures/", import.meta.url);
const helpers = path.join(REPO_ROOT, "packages", "sandbox-linux", "dist", "native");
const missingHelper = ["linux-x64", "linux-arm64"].find((t) => !fs.existsSync(path.join(helpers, t, "shellgate-sandbox-helper")));
const skip =
  process.platform !== "linux"
    ? "not Linux (the commands run through the Linux sandbox)"
    : missingHelper
      ? `@shellgate/sandbox-linux was built without its ${missingHelper} helper, and npm pack refuses it (install the cross compiler, see CONTRIBUTING.md, and rebuild)`
      : undefined;
// CI installs everything this needs (.ci/run): there a skip would hide a broken release.
skipUnless(skip, { ciCheck: "the packages can be packed and installed here (CI=true)" }).describe("installed from the packed tarballs", () => {
  let c: ConsumerProject;
  let env: Record<string, string>;
  let typecheck: Promise<Result>;

  beforeAll(async () => {
    c = await createConsumerProject({ log: (line) => process.stderr.write(`pack-install: ${line}\n`) });
    env = cleanEnv(c.home);
    for (const f of ["consumer.ts", "orchestrator-call.mjs", "mcp-client.mjs"]) fs.copyFileSync(new URL(f, fixtures), path.join(c.project, f));
    fs.copyFileSync(new URL("tsconfig.consumer.json", fixtures), path.join(c.project, "tsconfig.json"));
    // The slowest check, started now so it runs while the commands are tried (2 cores).
    typecheck = run([process.execPath, path.join(c.project, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: c.project, env });
  });
  afterAll(async () => {
    await typecheck?.catch(() => undefined);
    if (c) fs.rmSync(c.root, { recursive: true, force: true });
  });

  it("lives outside the repository, in a directory only its owner can enter", () => {
    expect(path.relative(REPO_ROOT, c.project).startsWith("..")).toBe(true);
    expect(fs.statSync(c.root).mode & 0o077).toBe(0);
    // resolved from the project's own node_modules, not through a workspace link
    expect(fs.lstatSync(path.join(c.project, "node_modules", "@shellgate", "cli")).isSymbolicLink()).toBe(false);
  });

  it("packs only what a consumer runs: no tests, sources, build info or dangling source maps", () => {
    for (const p of c.packed) {
      for (const f of p.files.map((x) => x.path)) {
        // Sources and build inputs at the package root (the built helpers live in dist/native/, which ships).
        expect(f, `${p.name}: ${f}`).not.toMatch(/^(src|bench|scripts|native)\//);
        expect(f, `${p.name}: ${f}`).not.toMatch(/(^|\/)(test|tests|fixtures)\//);
        expect(f, `${p.name}: ${f}`).not.toMatch(/\.tsbuildinfo$|\.test\.[jt]s$/);
        // the CLI bundle's maps carry their sources; tsc's would point at src/, which is not shipped
        if (f.endsWith(".map")) expect(`${p.name} ${f}`).toMatch(/^@shellgate\/cli dist\/bundle\//);
      }
      expect(p.files.map((x) => x.path)).toContain("README.md");
    }
  });

  it("ships the Linux helper for x64 and arm64, executable, in the installed package", () => {
    const native = path.join(c.project, "node_modules", "@shellgate", "sandbox-linux", "dist", "native");
    expect(fs.readdirSync(native).sort()).toEqual(["linux-arm64", "linux-x64"]);
    for (const target of ["linux-arm64", "linux-x64"]) {
      const st = fs.statSync(path.join(native, target, "shellgate-sandbox-helper"));
      expect(st.mode & 0o777).toBe(0o755);
    }
  });

  it("shellgate sandbox -- /bin/echo hi", async () => {
    const r = await run([c.bin("shellgate"), "sandbox", "--", "/bin/echo", "hi"], { cwd: c.project, env });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("hi\n");
    expect(r.code).toBe(0);
  });

  it("shellgate exec -- echo hi (no terminal, --approval-policy never: it never waits for a person)", async () => {
    const r = await run([c.bin("shellgate"), "exec", "--approval-policy", "never", "--", "echo", "hi"], { cwd: c.project, env });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("hi\n");
    expect(r.code).toBe(0);
  });

  it("policy-check prints the same JSON as the repository's bin", async () => {
    const rules = path.join(c.root, "small.rules");
    fs.writeFileSync(
      rules,
      [
        'prefix_rule(pattern=["git", "push"], decision="forbidden", justification="review first")',
        'prefix_rule(pattern=["git", ["status", "diff"]], decision="allow")',
        'prefix_rule(pattern=["npm", "publish"], decision="prompt")',
        "",
      ].join("\n"),
    );
    for (const argv of [["git", "push", "--force"], ["git", "status"], ["npm", "publish"], ["ls"]]) {
      const installed = await run([c.bin("policy-check"), "--rules", rules, "--", ...argv], { cwd: c.project, env });
      const repo = await run([process.execPath, path.join(REPO_ROOT, "packages", "cli", "bin", "policy-check.js"), "--rules", rules, "--", ...argv], { cwd: c.project, env });
      expect(installed.stderr).toBe("");
      expect(installed.code).toBe(repo.code);
      expect(JSON.parse(installed.stdout)).toEqual(JSON.parse(repo.stdout));
    }
  });

  it("shellgate mcp answers the official MCP client: its tools and one sandboxed call", async () => {
    const r = await run([process.execPath, "mcp-client.mjs", c.project], { cwd: c.project, env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { tools: string[]; isError: boolean; text: string };
    expect(out.tools).toEqual(["exec_command", "shell_command", "write_stdin"]);
    expect(out.isError).toBe(false);
    // the command ran under the helper's seccomp filter: a real sandbox, not a fallback
    expect(out.text).toMatch(/^Exit code: 0\n[\s\S]*Output:\nfrom-mcp seccomp=2\n$/);
  });

  it("an ESM program imports @shellgate/orchestrator and the Linux backend and runs one tool call", async () => {
    const r = await run([process.execPath, "orchestrator-call.mjs", c.project], { cwd: c.project, env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { success: boolean; content: string };
    expect(out.success).toBe(true);
    expect(out.content).toMatch(/^Exit code: 0\n[\s\S]*Output:\nfrom-orchestrator seccomp=2\n$/);
  });

  it("a TypeScript consumer of every package compiles with skipLibCheck: false", async () => {
    const r = await typecheck;
    expect(`${r.stdout}${r.stderr}`).toBe("");
    expect(r.code).toBe(0);
  });
});
