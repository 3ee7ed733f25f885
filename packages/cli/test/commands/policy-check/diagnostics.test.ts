import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POLICY_CHECK_BIN } from "../../helpers.js";

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "policy-check-diag-"));
  env = { ...process.env, SHELLGATE_POLICY_CACHE_DIR: join(dir, "cache") };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [POLICY_CHECK_BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function rules(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

describe("policy-check bin: located diagnostics", () => {
  it.each([
    ["unclosed.rules", 'prefix_rule(pattern=["git"]\nprefix_rule(pattern=["ls"])\n', "SYNTAX_ERROR", "2:1", "syntax error: expected `,` or `)`, found `prefix_rule` (the `(` at 1:12 is not closed)"],
    ["comma.rules", 'prefix_rule(pattern=["git" "status"])\n', "SYNTAX_ERROR", "1:28", "syntax error: expected `,` or `]`, found `\"status\"` (the `[` at 1:21 is not closed)"],
    ["name.rules", 'prefx_rule(pattern=["a"])\n', "UNDEFINED_NAME", "1:1", "name `prefx_rule` is not defined; did you mean `prefix_rule`?"],
    ["kwarg.rules", 'prefix_rule(pattern=["a"], decison="allow")\n', "ARGUMENT_ERROR", "1:28", "prefix_rule() got an unexpected keyword argument `decison`; did you mean `decision`?"],
    ["trailing.rules", 'prefix_rule(pattern=["git"]),\n', "SYNTAX_ERROR", "1:1", "unparenthesised tuple with a trailing comma (the `,` at 1:29); remove the comma, or write the tuple in parentheses"],
    ["keys.rules", 'd = {"a": 1}\nd.keys(0)\nprefix_rule(pattern=["git"])\n', "ARGUMENT_ERROR", "2:1", "keys() takes no arguments, got 1"],
  ])("%s", async (name, text, code, at, message) => {
    const file = await rules(name, text);
    const r = await run(["--rules", file, "--", "git", "status"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n").slice(0, 2)).toEqual([`policy-check: error[${code}]: ${message}`, ` --> ${file}:${at}`]);
  });

  it("accepts an f-string with an expression and prints codex's JSON", async () => {
    const file = await rules("fstring.rules", 'prefix_rule(pattern=["git"], justification=f"use {1+1}")\n');
    const r = await run(["--rules", file, "git", "status"]);
    expect([r.code, r.stdout]).toEqual([0, '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"allow","justification":"use 2"}}],"decision":"allow"}\n']);
  });
});

describe("policy-check bin: network rules", () => {
  it("--explain says in one line where they take effect; the JSON output is unchanged", async () => {
    const file = await rules("net.rules", 'prefix_rule(pattern=["curl"], decision="prompt")\nnetwork_rule(host="example.com", protocol="https", decision="allow")\n');
    const explained = await run(["--rules", file, "--explain", "curl", "https://example.com"]);
    expect(explained.code).toBe(0);
    const notes = explained.stdout.split("\n").filter((l) => l.startsWith("note:"));
    expect(notes).toEqual([`note: 1 network_rule(s) loaded (first at ${file}:2:1) play no part in command decisions: shellgate's network proxy enforces network rules for \`shellgate exec\` and \`shellgate mcp\` sessions; policy-check only reports them (ask about a host with --host HOST)`]);
    expect(explained.stdout).not.toContain("no effect");
    const plain = await run(["--rules", file, "curl", "https://example.com"]);
    expect(plain.stdout).toBe('{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["curl"],"decision":"prompt"}}],"decision":"prompt"}\n');
    // Served from the compiled-policy cache the second time: the note must survive it.
    const again = await run(["--rules", file, "--explain", "curl"]);
    expect(again.stdout).toContain("network_rule(s) loaded");
  });

  it("--explain adds no note when no network_rule is loaded", async () => {
    const file = await rules("nonet.rules", 'prefix_rule(pattern=["curl"])\n');
    const r = await run(["--rules", file, "--explain", "curl"]);
    expect(r.stdout).not.toContain("network_rule");
  });
});

describe("policy-check --help", () => {
  it("shows examples and points to the exit-code table", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Examples:\n  policy-check --rules ~/.codex/rules/default.rules -- git push origin main\n");
    expect(r.stdout).toContain(`printf '%s\\n' '["git","status"]' '["rm","-rf","/"]' | policy-check -r default.rules --stdin`);
    expect(r.stdout).toContain('tabulated in the CLI README ("Exit codes")');
    expect(r.stdout).toContain("policy-check --rules <PATH>... --host <HOST> [--explain] [--pretty]");
    expect(r.stdout).toContain("--host <HOST>             report how network_rule entries treat HOST (no command)");
  });
});
