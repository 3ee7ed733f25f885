import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive, BIN, eventually, makeScratch, runBin, type Scratch } from "../../helpers.js";

let s: Scratch;
let rules: string;
beforeAll(() => {
  s = makeScratch();
  rules = s.write(
    "rules/mcp.rules",
    [
      'prefix_rule(pattern=["git", "push"], decision="forbidden", justification="pushing is blocked in this repo")',
      'prefix_rule(pattern=["touch"], decision="prompt", justification="creating files needs a person")',
      "",
    ].join("\n"),
  );
});
afterAll(() => s.cleanup());

it("shuts down cleanly when the client goes away before initializing", async () => {
  // Closing the transport calls back into shutdown; that re-entry once recursed until the stack overflowed.
  const r = await runBin(["mcp", "--rules", rules], { env: s.env, cwd: s.project });
  expect(r.stderr).not.toMatch(/Maximum call stack|RangeError/);
  expect(r.code).toBe(0);
});

async function connect(options: { elicit?: (message: string) => { action: "accept" | "decline" | "cancel"; content?: Record<string, string> } } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--rules", rules],
    env: s.env,
    cwd: s.project,
    stderr: "pipe",
  });
  const client = new Client({ name: "shellgate-test", version: "1.0.0" }, { capabilities: options.elicit ? { elicitation: {} } : {} });
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params.message));
  }
  await client.connect(transport);
  return { client, transport };
}

function text(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** Every descendant pid of `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process exited while we looked.
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

describe("shellgate mcp (official SDK client over stdio)", () => {
  it("lists the tools, runs shell_command, keeps a bash -i session on a tty, and refuses readably", async () => {
    const { client } = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["exec_command", "shell_command", "write_stdin"]);
      const shell = tools.find((t) => t.name === "shell_command");
      expect(shell?.inputSchema.type).toBe("object");
      expect(shell?.inputSchema.required).toEqual(["command"]);
      expect(tools.find((t) => t.name === "write_stdin")?.inputSchema.required).toEqual(["session_id"]);

      const run = await client.callTool({ name: "shell_command", arguments: { command: "echo hello from mcp" } });
      expect(run.isError).toBeFalsy();
      expect(text(run)).toContain("hello from mcp");

      const started = await client.callTool({ name: "exec_command", arguments: { cmd: "bash --norc --noprofile -i", tty: true, yield_time_ms: 500 } });
      const id = Number(/session ID (\d+)/.exec(text(started))?.[1]);
      expect(Number.isInteger(id)).toBe(true);
      await client.callTool({ name: "write_stdin", arguments: { session_id: id, chars: "export FOO=bar\n" } });
      let seen = "";
      await eventually(async () => {
        const out = await client.callTool({ name: "write_stdin", arguments: { session_id: id, chars: seen === "" ? "echo $FOO\n" : "", yield_time_ms: 500 } });
        seen += text(out);
        return /^bar\r?$/m.test(seen);
      }, 10, 0);
      expect(seen).toMatch(/^bar\r?$/m);

      const refused = await client.callTool({ name: "shell_command", arguments: { command: "git push origin main" } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain("pushing is blocked in this repo");

      // Without elicitation, "needs approval" becomes a refusal the model can read.
      const unasked = await client.callTool({ name: "shell_command", arguments: { command: "touch nobody-asked.txt" } });
      expect(unasked.isError).toBe(true);
      expect(text(unasked)).toContain("needs approval");

      const badArgs = await client.callTool({ name: "write_stdin", arguments: { session_id: "x" } });
      expect(badArgs.isError).toBe(true);
      expect(text(badArgs)).toContain("session_id");
    } finally {
      await client.close();
    }
  });

  it("refuses to start, with the diagnostic, when a rules file does not parse", async () => {
    const broken = s.write("rules/broken.rules", 'prefix_rule(pattern=["ls"], decision="maybe")\n');
    const r = await runBin(["mcp", "--rules", broken], { env: s.env, cwd: s.project });
    expect(r.code).toBe(125);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("broken.rules");
    expect(r.stderr).toContain("maybe");
  });

  it.skipIf(process.platform !== "linux")("leaves no process behind after the client closes (Linux /proc)", async () => {
    const { client, transport } = await connect();
    const serverPid = transport.pid!;
    await client.callTool({ name: "exec_command", arguments: { cmd: "sleep 300", yield_time_ms: 250 } });
    await client.callTool({ name: "exec_command", arguments: { cmd: "bash --norc --noprofile -i", tty: true, yield_time_ms: 250 } });
    const pids = [serverPid, ...descendants(serverPid)];
    expect(pids.length).toBeGreaterThan(2);
    await client.close();
    expect(await eventually(() => pids.every((p) => !alive(p)))).toBe(true);
  });

  it("asks the client's user through elicitation when the client supports it", async () => {
    const asked: string[] = [];
    const answers = [{ action: "accept" as const, content: { decision: "once" } }, { action: "decline" as const }];
    const { client } = await connect({
      elicit: (message) => {
        asked.push(message);
        return answers[asked.length - 1] ?? { action: "decline" };
      },
    });
    try {
      const approved = await client.callTool({ name: "shell_command", arguments: { command: "touch approved.txt && echo made" } });
      expect(text(approved)).toContain("made");
      expect(existsSync(path.join(s.project, "approved.txt"))).toBe(true);
      expect(asked[0]).toContain("touch approved.txt");
      expect(asked[0]).toContain("mcp.rules:2");

      const declined = await client.callTool({ name: "shell_command", arguments: { command: "touch declined.txt" } });
      expect(declined.isError).toBe(true);
      expect(text(declined)).toMatch(/rejected/);
      expect(existsSync(path.join(s.project, "declined.txt"))).toBe(false);
      expect(asked).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});
