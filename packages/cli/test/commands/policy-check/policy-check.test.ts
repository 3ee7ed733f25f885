import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicyCheckArgs, UsageError } from "../../../src/commands/policy-check/args.js";

const BIN = fileURLToPath(new URL("../../../bin/policy-check.js", import.meta.url));
const SHELLGATE = fileURLToPath(new URL("../../../bin/shellgate.js", import.meta.url));
const built = existsSync(BIN) && existsSync(SHELLGATE) && existsSync(fileURLToPath(new URL("../../../dist/commands/policy-check/index.js", import.meta.url)));

let dir: string;
let rules: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "policy-check-"));
  rules = join(dir, "default.rules");
  await writeFile(rules, [
    'prefix_rule(pattern=["git", "push"], decision="forbidden", justification="pushing is blocked in this repo")',
    'prefix_rule(pattern=["git", ["status", "log"]], match=["git status"])',
    'prefix_rule(pattern=["git"], decision="prompt")',
    'host_executable(name="rg", paths=["/usr/bin/rg"])',
    'prefix_rule(pattern=["rg"])',
    "",
  ].join("\n"));
  env = { ...process.env, SHELLGATE_POLICY_CACHE_DIR: join(dir, "cache") };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(bin: string, args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}

describe("parsePolicyCheckArgs", () => {
  it("takes options up to the first command token, like clap's trailing var arg", () => {
    expect(parsePolicyCheckArgs(["-r", "a", "--rules", "b", "--rules=c", "--pretty", "--resolve-host-executables", "git", "--pretty", "-x"])).toEqual({
      mode: "check", rules: ["a", "b", "c"], pretty: true, resolveHostExecutables: true, explain: false, command: ["git", "--pretty", "-x"],
    });
    expect(parsePolicyCheckArgs(["--rules", "a", "--", "--rules", "x"])).toMatchObject({ rules: ["a"], command: ["--rules", "x"] });
    expect(parsePolicyCheckArgs(["--rules", "a", "--bogus", "ls"])).toMatchObject({ command: ["--bogus", "ls"] });
    expect(parsePolicyCheckArgs(["--rules", "a", "--stdin", "--explain"])).toMatchObject({ mode: "stdin", explain: true });
    expect(parsePolicyCheckArgs(["test", "a.rules", "b.rules"])).toEqual({ mode: "test", files: ["a.rules", "b.rules"] });
    expect(parsePolicyCheckArgs(["--help"])).toEqual({ mode: "help" });
  });

  it.each([[["ls"]], [["--rules", "a"]], [["--rules", "a", "--"]], [["--rules"]], [["--rules", "a", "--stdin", "ls"]], [["test"]]])("rejects %j as a usage error", (args) => {
    expect(() => parsePolicyCheckArgs(args)).toThrow(UsageError);
  });
});

describe.skipIf(!built)("policy-check bin (needs `npx tsc -b packages/cli`)", () => {
  it("prints Codex's exact JSON and exits 0 whatever the decision", async () => {
    const r = await run(BIN, ["--rules", rules, "--", "git", "push", "origin", "main"]);
    expect(r).toEqual({
      code: 0, stderr: "",
      stdout: '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","push"],"decision":"forbidden","justification":"pushing is blocked in this repo"}},{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"prompt"}}],"decision":"forbidden"}\n',
    });
    const none = await run(BIN, ["--rules", rules, "ls"]);
    expect([none.code, none.stdout]).toEqual([0, '{"matchedRules":[]}\n']);
    // Answered again (from the compiled cache) with the same bytes.
    expect((await run(BIN, ["--rules", rules, "--", "git", "push", "origin", "main"])).stdout).toBe(
      (await run(BIN, ["--rules", rules, "--", "git", "push", "origin", "main"])).stdout,
    );
  });

  it("pretty-prints and resolves host executables only when asked", async () => {
    const pretty = await run(BIN, ["--rules", rules, "--pretty", "git", "log"]);
    expect(pretty.stdout).toBe(`${JSON.stringify({ matchedRules: [{ prefixRuleMatch: { matchedPrefix: ["git", "log"], decision: "allow" } }, { prefixRuleMatch: { matchedPrefix: ["git"], decision: "prompt" } }], decision: "prompt" }, null, 2)}\n`);
    expect((await run(BIN, ["--rules", rules, "/usr/bin/rg", "x"])).stdout).toBe('{"matchedRules":[]}\n');
    expect((await run(BIN, ["--rules", rules, "--resolve-host-executables", "/usr/bin/rg", "x"])).stdout).toBe(
      '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["rg"],"decision":"allow","resolvedProgram":"/usr/bin/rg"}}],"decision":"allow"}\n',
    );
  });

  it("exits 1 with a rendered diagnostic for missing or invalid files, 2 for usage errors", async () => {
    const missing = await run(BIN, ["--rules", join(dir, "nope.rules"), "ls"]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain("failed to read policy at");
    const bad = join(dir, "bad.rules");
    await writeFile(bad, 'x = 1\nprefix_rule(pattern=["a"], decision="maybe")\n');
    const invalid = await run(BIN, ["--rules", rules, "--rules", bad, "ls"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain(`error[INVALID_DECISION]: invalid decision: maybe`);
    expect(invalid.stderr).toContain(` --> ${bad}:2:1`);
    expect(invalid.stderr).toContain("2 | prefix_rule(pattern=[\"a\"], decision=\"maybe\")\n  | ^^^^^^^^^^^");
    expect((await run(BIN, ["ls"])).code).toBe(2);
    expect((await run(BIN, ["--rules", rules])).code).toBe(2);
  });

  it("--explain names each matching rule's file:line and why the decision wins", async () => {
    const r = await run(BIN, ["--rules", rules, "--explain", "git", "push"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("decision: forbidden — the strictest of 2 matching rules");
    expect(r.stdout).toContain(`${rules}:1:1  forbidden  matched prefix: git push`);
    expect(r.stdout).toContain("justification: pushing is blocked in this repo");
    expect((await run(BIN, ["--rules", rules, "--explain", "ls"])).stdout).toContain("no rule matched");
  });

  it("--stdin evaluates one JSON argv per line with the rules compiled once", async () => {
    const r = await run(BIN, ["--rules", rules, "--stdin"], '["git","status"]\n\n["ls"]\nnot json\n[1]\n');
    expect(r.stdout.split("\n")).toEqual([
      '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","status"],"decision":"allow"}},{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"prompt"}}],"decision":"prompt"}',
      '{"matchedRules":[]}',
      expect.stringContaining('{"error":"line 4:'),
      expect.stringContaining('{"error":"line 5: argv[0]'),
      "",
    ]);
    expect(r.code).toBe(1);
  });

  it("`test FILES` runs every example and reports per rule", async () => {
    const ex = join(dir, "examples.rules");
    await writeFile(ex, 'prefix_rule(pattern=["git", "push"], match=["git push", "git pull"], not_match=["git status"])\nprefix_rule(pattern=["ls"], match=["ls -l"])\n');
    const r = await run(BIN, ["test", ex]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`FAIL ${ex}:1:1 git push\n  match example matched no rule: git pull`);
    expect(r.stdout).toContain(`PASS ${ex}:2:1 ls (1 match, 0 not_match)`);
    expect(r.stdout).toContain("2 rule(s), 4 example(s): 1 failed in 1 rule(s)");
    expect((await run(BIN, ["test", rules])).code).toBe(0);
  });

  it("`shellgate policy check` is policy-check; other policy subcommands are usage errors", async () => {
    const r = await run(SHELLGATE, ["policy", "check", "--rules", rules, "git", "log"]);
    expect([r.code, JSON.parse(r.stdout).decision]).toEqual([0, "prompt"]);
    expect((await run(SHELLGATE, ["policy", "frobnicate"])).code).toBe(2);
    expect((await run(SHELLGATE, ["policy"])).code).toBe(2);
  });
});
