// What the model reads from `shellgate mcp` through the official SDK client, against the built bin and
// the real sandbox: the explained denial (text note and structured content), the saved full output,
// and an elicitation for a whole script that offers no "always allow".
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, makeScratch, type Scratch, realSandboxSkip } from "../../helpers.js";


let s: Scratch;
let outside: string;
beforeAll(() => {
  s = makeScratch();
  // /tmp is a writable root under workspace-write: "outside" must be somewhere else.
  outside = realpathSync(mkdtempSync("/var/tmp/sg-mcp-out-"));
});
afterAll(() => {
  s.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

type Answer = { action: "accept" | "decline" | "cancel"; content?: Record<string, string> };

async function connect(args: string[], elicit?: (params: ElicitRequest["params"]) => Answer): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--cwd", s.project, "--no-default-rules", ...args],
    env: s.env,
    cwd: s.project,
    stderr: "pipe",
  });
  const client = new Client({ name: "shellgate-model-output-test", version: "1.0.0" }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params));
  await client.connect(transport);
  return client;
}

const text = (result: unknown): string =>
  ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");
const structured = (result: unknown): Record<string, unknown> | undefined => (result as CallToolResult).structuredContent;

const skip = await realSandboxSkip();

describe.skipIf(skip !== undefined)("shellgate mcp: what the model reads (official client, real sandbox)", () => {
  it("a refused write: a marked note with require_escalated in the text, and sandboxDenial in structuredContent", async () => {
    const target = path.join(outside, "x");
    // A client that can ask a person: escalation is a way out the model can take.
    const client = await connect(["--approval-policy", "on-request"], () => ({ action: "decline" }));
    try {
      const denied = await client.callTool({ name: "shell_command", arguments: { command: `touch ${target}`, login: false } });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain(`[shellgate] sandbox: writing to ${target} was refused (read-only: outside the writable roots)`);
      expect(text(denied)).toContain('sandbox_permissions: "require_escalated"');
      expect(structured(denied)).toMatchObject({
        exitCode: 1,
        sandboxDenial: { kind: "filesystem", cause: "outside-writable-roots", paths: [target], audience: "model", grant: { writableRoot: outside } },
      });
      expect(existsSync(target)).toBe(false);
      // control: a write inside the workspace succeeds, with no note and no denial
      const ok = await client.callTool({ name: "shell_command", arguments: { command: "touch inside.txt", login: false } });
      expect(ok.isError).toBe(false);
      expect(text(ok)).not.toContain("[shellgate] sandbox:");
      expect(structured(ok)).toEqual({ exitCode: 0 });
      expect(existsSync(path.join(s.project, "inside.txt"))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("where no one can approve (approval policy never), the note sends the model to the user, not to an escalation", async () => {
    const target = path.join(outside, "y");
    const client = await connect(["--approval-policy", "never"]);
    try {
      const denied = await client.callTool({ name: "shell_command", arguments: { command: `touch ${target}`, login: false } });
      expect(text(denied)).toContain(
        `[shellgate] sandbox: writing to ${target} was refused (read-only: outside the writable roots); no one can approve running it outside the sandbox here; if the task needs it, ask the user to add ${outside} as a writable root`,
      );
      expect(text(denied)).not.toContain("require_escalated");
      expect(structured(denied)).toMatchObject({ sandboxDenial: { grant: { noApprover: true, writableRoot: outside } } });
    } finally {
      await client.close();
    }
  });

  it("`seq 1 2000000`: the file named as the full output holds every byte, and structuredContent names it", async () => {
    const client = await connect(["--approval-policy", "never"]);
    try {
      const result = await client.callTool({ name: "shell_command", arguments: { command: "seq 1 2000000", login: false } });
      expect(result.isError).toBe(false);
      const file = /Full output saved to: (\S+)/.exec(text(result))?.[1];
      expect(file, text(result).slice(0, 400)).toBeDefined();
      expect(structured(result)).toMatchObject({ exitCode: 0, fullOutputPath: file });
      const expected = spawnSync("seq", ["1", "2000000"], { maxBuffer: 64 * 1024 * 1024 }).stdout.toString();
      const saved = readFileSync(file!, "utf8");
      expect(saved.length).toBe(expected.length);
      expect(saved === expected).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("a whole script that needs approval: the elicitation says why and offers no always allow", async () => {
    const asked: Array<ElicitRequest["params"]> = [];
    const client = await connect(["--approval-policy", "untrusted"], (params) => {
      asked.push(params);
      return { action: "accept", content: { decision: "once" } };
    });
    try {
      const result = await client.callTool({
        name: "shell_command",
        arguments: { command: "for i in 1 2; do touch script-$i; done", login: false },
      });
      expect(text(result)).not.toContain("rejected");
      expect(asked).toHaveLength(1);
      const message = asked[0]!.message;
      expect(message).toMatch(/Why you are asked: approval policy `untrusted`/);
      expect(message).toMatch(/No "always allow": .*a rule cannot allow a whole script/);
      const schema = (asked[0] as { requestedSchema?: { properties?: { decision?: { oneOf?: Array<{ const: string }> } } } }).requestedSchema;
      expect((schema?.properties?.decision?.oneOf ?? []).map((o) => o.const).filter((c) => c.startsWith("always"))).toEqual([]);
      expect(existsSync(path.join(s.project, "script-2"))).toBe(true);
    } finally {
      await client.close();
    }
  });
});
