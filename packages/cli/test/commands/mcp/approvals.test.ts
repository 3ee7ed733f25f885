// The MCP server as a model and an MCP host see it, through the official SDK client against the built
// `shellgate mcp`: tool annotations, what the elicitation says and offers, and the model-facing text
// when no one can approve and when a session has exited.
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, makeScratch, type Scratch } from "../../helpers.js";

let s: Scratch;
beforeAll(() => {
  s = makeScratch();
});
afterAll(() => s.cleanup());

type Answer = { action: "accept" | "decline" | "cancel"; content?: Record<string, string> };

async function connect(args: string[], elicit?: (params: ElicitRequest["params"]) => Answer) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--cwd", s.project, ...args],
    env: s.env,
    cwd: s.project,
    stderr: "pipe",
  });
  const client = new Client({ name: "shellgate-approvals-test", version: "1.0.0" }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params));
  await client.connect(transport);
  return client;
}

function text(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** The `const` values of the elicitation's decision options. */
function choices(params: ElicitRequest["params"]): string[] {
  const schema = (params as { requestedSchema?: { properties?: { decision?: { oneOf?: Array<{ const: string; title: string }> } } } }).requestedSchema;
  return (schema?.properties?.decision?.oneOf ?? []).map((o) => o.const);
}

function titles(params: ElicitRequest["params"]): string[] {
  const schema = (params as { requestedSchema?: { properties?: { decision?: { oneOf?: Array<{ const: string; title: string }> } } } }).requestedSchema;
  return (schema?.properties?.decision?.oneOf ?? []).map((o) => o.title);
}

describe("tool annotations (shellgate mcp, official client)", () => {
  it("every listed tool: a title, not read-only, destructive, not idempotent; open world only with the network on", async () => {
    for (const [args, openWorld] of [[[], false], [["--network", "on"], true]] as const) {
      const client = await connect([...args]);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(["exec_command", "shell_command", "write_stdin"]);
        for (const tool of tools) {
          expect(tool.title).toMatch(/\S/);
          expect(tool.annotations).toEqual({
            title: tool.title,
            readOnlyHint: false,
            destructiveHint: true,
            idempotentHint: false,
            openWorldHint: openWorld,
          });
        }
        const exec = tools.find((t) => t.name === "exec_command");
        expect(exec?.description).toMatch(/pseudo-terminal/);
        expect(exec?.description).toContain('"\\u0003" (Ctrl-C) interrupts');
      } finally {
        await client.close();
      }
    }
  });
});

describe("elicitation says why and what each choice does", () => {
  it("an unknown command under untrusted: why, the session choice, always allow sandboxed first, and outside the sandbox only as its own choice", async () => {
    const asked: Array<ElicitRequest["params"]> = [];
    const client = await connect(["--approval-policy", "untrusted"], (params) => {
      asked.push(params);
      return { action: "decline" };
    });
    try {
      const result = await client.callTool({ name: "shell_command", arguments: { command: "touch made-by-mcp.txt" } });
      expect(result.isError).toBe(true);
      expect(existsSync(path.join(s.project, "made-by-mcp.txt"))).toBe(false);
      const params = asked[0]!;
      expect(params.message).toContain("Why you are asked: approval policy `untrusted`: only known-safe commands run without asking");
      expect(params.message).toContain(
        `"Always allow" \`touch …\`, sandboxed: adds an allow rule to ${s.userRulesFile}; matching commands will run without asking from now on, still in the workspace-write sandbox.`,
      );
      // One choice per prefix: the proposed one (the program) first, then the whole command.
      expect(choices(params)).toEqual(["once", "session", "always:0", "always:1", "always_unsandboxed:0", "always_unsandboxed:1", "deny"]);
      expect(titles(params)).toContain(
        `Always allow \`touch made-by-mcp.txt …\` outside the sandbox: adds an allow rule to ${s.userRulesFile}; matching commands will run without the sandbox from now on`,
      );
    } finally {
      await client.close();
    }
  });

  it("'always:N' writes the sandboxed rule for prefix N and 'always_unsandboxed:N' the plain one", async () => {
    for (const [answer, line] of [
      ["always:0", 'prefix_rule(pattern=["touch"], decision="allow", sandbox="workspace-write")\n'],
      ["always:1", 'prefix_rule(pattern=["touch", "made-by-mcp.txt"], decision="allow", sandbox="workspace-write")\n'],
      ["always_unsandboxed:1", 'prefix_rule(pattern=["touch", "made-by-mcp.txt"], decision="allow")\n'],
      ["always:7", undefined],
    ] as const) {
      rmSync(s.userRulesFile, { force: true });
      const client = await connect(["--approval-policy", "untrusted"], () => ({ action: "accept", content: { decision: answer } }));
      try {
        const result = await client.callTool({ name: "shell_command", arguments: { command: "touch made-by-mcp.txt" } });
        // A prefix number that was not offered is no answer: denied, nothing written.
        expect(result.isError).toBe(line === undefined);
        if (line === undefined) expect(existsSync(s.userRulesFile)).toBe(false);
        else expect(readFileSync(s.userRulesFile, "utf8")).toBe(line);
      } finally {
        await client.close();
        rmSync(path.join(s.project, "made-by-mcp.txt"), { force: true });
      }
    }
    rmSync(s.userRulesFile, { force: true });
  });

  it("a dangerous command: the heuristic is the reason and there is no always allow; answering 'always' anyway runs nothing", async () => {
    const victim = path.join(s.project, "keep-me");
    mkdirSync(victim, { recursive: true });
    const asked: Array<ElicitRequest["params"]> = [];
    const client = await connect(["--approval-policy", "untrusted"], (params) => {
      asked.push(params);
      return { action: "accept", content: { decision: "always:0" } };
    });
    try {
      const result = await client.callTool({ name: "shell_command", arguments: { command: "rm -rf keep-me" } });
      expect(result.isError).toBe(true);
      const params = asked[0]!;
      expect(params.message).toMatch(/Why you are asked: dangerous: `rm -rf keep-me` is a forced recursive delete/);
      expect(params.message).toContain('No "always allow": the heuristics rate the command dangerous.');
      expect(choices(params)).toEqual(["once", "session", "deny"]);
      expect(existsSync(victim)).toBe(true);
      expect(existsSync(s.userRulesFile)).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe("an interactive session is approved with everything later typed into it", () => {
  it("exec_command with a terminal, asked to leave the sandbox: the elicitation says every later input is covered and runs outside the sandbox; the same without a terminal does not", async () => {
    const asked: Array<ElicitRequest["params"]> = [];
    const client = await connect([], (params) => {
      asked.push(params);
      return { action: "decline" };
    });
    try {
      for (const tty of [true, false]) {
        const result = await client.callTool({
          name: "exec_command",
          arguments: { cmd: "cat", tty, sandbox_permissions: "require_escalated", justification: "needs the host" },
        });
        expect(result.isError).toBe(true);
      }
      const [session, oneShot] = asked;
      expect(session!.message).toContain(
        "Interactive session: approving it also approves everything the agent types into it later, without asking again, and that runs outside the sandbox.",
      );
      expect(titles(session!)[0]).toBe("Run once, with every later input to the session");
      // CONTROL: a command without a terminal takes no later input, and its question says nothing of it.
      expect(oneShot!.message).not.toContain("Interactive session");
      expect(titles(oneShot!)[0]).toBe("Run once");
    } finally {
      await client.close();
    }
  });
});

describe("messages the model reads", () => {
  it("no one can approve: says it was not run and what to do instead", async () => {
    const client = await connect(["--approval-policy", "untrusted"]);
    try {
      const result = await client.callTool({ name: "shell_command", arguments: { command: "touch nobody-asked.txt" } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /^exec command rejected: `.*touch nobody-asked\.txt.*` needs approval \(approval policy `untrusted`: only known-safe commands run without asking\); no one can approve it here, so it was not run\. Ask the user to run it or to allow it, or use a command the rules allow$/,
      );
      expect(text(result)).not.toContain("approval handler");
    } finally {
      await client.close();
    }
  });

  it("write_stdin to a session that exited says so, with its exit code; an unknown id says sessions end", async () => {
    const client = await connect([]);
    try {
      const started = await client.callTool({ name: "exec_command", arguments: { cmd: "bash --norc --noprofile -i", tty: true, yield_time_ms: 500 } });
      const id = Number(/session ID (\d+)/.exec(text(started))?.[1]);
      expect(Number.isInteger(id)).toBe(true);
      let out = text(await client.callTool({ name: "write_stdin", arguments: { session_id: id, chars: "exit 3\n", yield_time_ms: 1000 } }));
      while (!out.includes("Process exited with code")) {
        out = text(await client.callTool({ name: "write_stdin", arguments: { session_id: id, yield_time_ms: 1000 } }));
      }
      expect(out).toContain("Process exited with code 3");
      const late = await client.callTool({ name: "write_stdin", arguments: { session_id: id, chars: "echo hi\n" } });
      expect(late.isError).toBe(true);
      expect(text(late)).toBe(
        `session ${id} has exited (exit code 3); its exit and remaining output were already returned, so it takes no more input. Start the command again with exec_command if you need it`,
      );
      const unknown = await client.callTool({ name: "write_stdin", arguments: { session_id: 424242 } });
      expect(text(unknown)).toMatch(/^unknown session id 424242: no running session has this id\. Sessions end when their process exits/);
    } finally {
      await client.close();
    }
  });
});
