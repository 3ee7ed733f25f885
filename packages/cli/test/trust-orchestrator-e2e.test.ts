import { existsSync, mkdirSync, realpathSync, renameSync, symlinkSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, makeScratch, runBin, type Scratch } from "./helpers.js";

let s: Scratch;
beforeAll(() => {
  s = makeScratch();
});
afterAll(() => s.cleanup());

/** Secrets in ordinary names, which a name-based scrub would let through. */
const LEAKED: Record<string, string> = {
  DATABASE_URL: "postgres://app:hunter2@db.internal:5432/app",
  REDIS_URL: "redis://:s3cret@cache:6379/0",
  MYSQL_PWD: "mysql-pw-value",
  GH_PAT: "ghp_0123456789abcdef",
  SENTRY_DSN: "https://abc123@o1.ingest.errors.example.com/42",
  SLACK_WEBHOOK_URL: "https://hooks.chat.example.com/services/T0/B0/XYZ",
  DOCKER_AUTH_CONFIG: '{"auths":{"r":{"auth":"dXNlcjpwYXNz"}}}',
  CI_JOB_JWT: "eyJhbGciOi.eyJzdWIi.sig",
};

function userConfig(text: string): () => void {
  const file = s.write("xdg/shellgate/config.toml", text);
  return () => s.write(path.relative(s.root, file), "");
}

describe("environment secrets in ordinary names", () => {
  const env = () => ({ ...s.env, ...LEAKED });

  it("control: with ignore_default_excludes in the user's config, `env` prints them all", async () => {
    const reset = userConfig("[shell_environment_policy]\nignore_default_excludes = true\n");
    try {
      const r = await runBin(["exec", "--", "env"], { env: env(), cwd: s.project });
      expect(r.code).toBe(0);
      for (const [name, value] of Object.entries(LEAKED)) expect(r.stdout).toContain(`${name}=${value}`);
    } finally {
      reset();
    }
  });

  it("by default `shellgate exec -- env` prints none of them, and PWD, PATH, HOME survive", async () => {
    const r = await runBin(["exec", "--", "env"], { env: { ...env(), PWD: s.project }, cwd: s.project });
    expect(r.code).toBe(0);
    for (const [name, value] of Object.entries(LEAKED)) {
      expect(r.stdout).not.toContain(`${name}=`);
      expect(r.stdout).not.toContain(value);
    }
    expect(r.stdout).toMatch(/^PATH=/m);
    expect(r.stdout).toMatch(/^HOME=/m);
    expect(r.stdout).toMatch(/^PWD=/m);
  });

  it("a name listed in include_only is passed on purpose", async () => {
    const reset = userConfig('[shell_environment_policy]\ninclude_only = ["PATH", "GH_PAT"]\n');
    try {
      const r = await runBin(["exec", "--", "env"], { env: env(), cwd: s.project });
      expect(r.stdout).toContain(`GH_PAT=${LEAKED["GH_PAT"]}`);
      expect(r.stdout).not.toContain("DATABASE_URL=");
    } finally {
      reset();
    }
  });

  it("`shellgate doctor` lists the dropped names and their rule, never a value", async () => {
    const json = await runBin(["doctor", "--json"], { env: env(), cwd: s.project });
    const report = JSON.parse(json.stdout) as { environment: { dropped: Array<{ name: string; reason: string }> } };
    const names = report.environment.dropped.map((d) => d.name);
    for (const name of Object.keys(LEAKED)) expect(names).toContain(name);
    expect(report.environment.dropped.find((d) => d.name === "GH_PAT")?.reason).toBe("default scrub: name part PAT");
    const text = await runBin(["doctor"], { env: env(), cwd: s.project });
    expect(text.stdout).toContain("environment (variables commands will not see; names only)");
    expect(text.stdout).toContain("  REDIS_URL: default scrub: value is a URL with a password");
    for (const value of Object.values(LEAKED)) {
      expect(json.stdout).not.toContain(value);
      expect(text.stdout).not.toContain(value);
    }
  });
});

async function connect(cwd: string, elicit?: (message: string) => void) {
  const rules = s.write("rules/trust.rules", 'prefix_rule(pattern=["touch"], decision="prompt", justification="creating files needs a person")\n');
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--rules", rules], env: s.env, cwd, stderr: "pipe" });
  const client = new Client({ name: "trust-test", version: "1.0.0" }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicit(request.params.message);
      return { action: "decline" };
    });
  }
  await client.connect(transport);
  return client;
}

const text = (result: unknown) => ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");

describe("shellgate mcp: a workspace renamed away between two calls", () => {
  it("refuses every later call of the session once the workspace is not the same directory", async () => {
    // The workspace sits inside a writable directory (the scratch root under the temp dir).
    const ws = path.join(s.root, "renamed-ws");
    mkdirSync(ws);
    const client = await connect(ws);
    try {
      const first = await client.callTool({ name: "shell_command", arguments: { command: "echo first", login: false } });
      expect(text(first)).toContain("first");
      renameSync(ws, `${ws}.old`);
      symlinkSync("/", ws);
      // Control: the old name now resolves to `/`, which a sandbox for this workspace would make writable.
      expect(realpathSync(ws)).toBe("/");
      const target = `/var/tmp/sg-trust-${process.pid}`;
      const second = await client.callTool({ name: "shell_command", arguments: { command: `echo pwned > ${target}`, login: false } });
      expect(second.isError).toBe(true);
      expect(text(second)).toContain("changed identity since the session started");
      expect(existsSync(target)).toBe(false);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("shellgate mcp: the elicitation message escapes control characters", () => {
  it("shows the model's text with \\r and ESC made visible", async () => {
    const messages: string[] = [];
    const client = await connect(s.project, (m) => messages.push(m));
    try {
      const result = await client.callTool({ name: "shell_command", arguments: { command: "touch spoof.txt", justification: "harmless\r\u001b[2KRead-only: ls -la", login: false } });
      expect(result.isError, text(result)).toBe(true);
    } finally {
      await client.close();
    }
    expect(messages).toHaveLength(1);
    const message = messages[0]!;
    expect(message).toContain("harmless\\r\\x1b[2KRead-only: ls -la");
    expect(message.split("\n").join("")).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  }, 60_000);
});
