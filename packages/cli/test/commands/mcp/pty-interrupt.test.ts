// Ctrl-C through write_stdin in a `bash -i` session, end to end through the official MCP client:
// sandboxed (the default policy) it interrupts the foreground job and the shell answers, exactly as
// in the unsandboxed control (danger-full-access).
import { readdirSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive, BIN, eventually, makeScratch, type Scratch, realSandboxSkip } from "../../helpers.js";

const skip = await realSandboxSkip();
let s: Scratch;
beforeAll(() => {
  s = makeScratch();
});
afterAll(() => s.cleanup());

function text(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** Pids of processes whose argv is exactly `argv` (Linux /proc). */
function processesRunning(argv: string[]): number[] {
  const want = argv.join("\0");
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0$/, "") === want) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** A session on the MCP server, with the output it printed so far collected from every call. */
class Session {
  seen = "";
  constructor(
    private readonly client: Client,
    readonly id: number,
  ) {}

  async type(chars: string): Promise<void> {
    const out = await this.client.callTool({ name: "write_stdin", arguments: { session_id: this.id, chars, yield_time_ms: 250 } });
    this.seen += text(out);
  }

  /** Poll (bounded) until the output matches. */
  async until(pattern: RegExp): Promise<boolean> {
    return eventually(async () => {
      if (pattern.test(this.seen)) return true;
      await this.type("");
      return pattern.test(this.seen);
    }, 40, 0);
  }
}

async function connect(extra: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--cwd", s.project, ...extra],
    env: s.env,
    cwd: s.project,
    stderr: "pipe",
  });
  const client = new Client({ name: "shellgate-pty-test", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport };
}

const cases = [
  { name: "sandboxed (the default policy)", extra: [], sandbox: "linux" },
  { name: "unsandboxed control (danger-full-access)", extra: ["--sandbox", "danger-full-access"], sandbox: "none" },
];

describe.skipIf(skip !== undefined)("Ctrl-C in a bash -i session through the MCP client", () => {
  for (const c of cases) {
    it(`${c.name}: interrupts sleep and cat, suspends with Ctrl-Z, and the shell answers`, async () => {
      const { client, transport } = await connect(c.extra);
      const serverPid = transport.pid;
      const sleeper = ["sleep", `${4000 + (process.pid % 1000)}.${c.sandbox.length}`];
      try {
        const started = await client.callTool({ name: "exec_command", arguments: { cmd: "bash --norc --noprofile -i", tty: true, yield_time_ms: 500 } });
        const id = Number(/session ID (\d+)/.exec(text(started))?.[1]);
        expect(Number.isInteger(id), text(started)).toBe(true);
        const session = new Session(client, id);
        session.seen = text(started);

        await session.type("echo sandbox=${CODEX_SANDBOX:-none}\n");
        expect(await session.until(new RegExp(`^sandbox=${c.sandbox}\\r?$`, "m")), session.seen).toBe(true);
        expect(session.seen).not.toMatch(/no job control/);

        // The foreground job runs (seen from the host), then Ctrl-C ends it and only it.
        await session.type(`${sleeper.join(" ")}\n`);
        expect(await eventually(() => processesRunning(sleeper).length === 1)).toBe(true);
        await session.type("\u0003");
        expect(await eventually(() => processesRunning(sleeper).length === 0)).toBe(true);
        await session.type("echo alive $$\n");
        expect(await session.until(/^alive \d+\r?$/m), session.seen).toBe(true);

        await session.type("cat\n");
        await session.type("\u0003");
        await session.type("echo after-cat-$((6*7))\n");
        expect(await session.until(/^after-cat-42\r?$/m), session.seen).toBe(true);

        await session.type(`${sleeper.join(" ")}\n`);
        expect(await eventually(() => processesRunning(sleeper).length === 1)).toBe(true);
        await session.type("\u001a");
        expect(await session.until(/Stopped\s+sleep/), session.seen).toBe(true);
        await session.type("kill -9 %1; echo suspended-$((2+3))\n");
        expect(await session.until(/^suspended-5\r?$/m), session.seen).toBe(true);
        expect(await eventually(() => processesRunning(sleeper).length === 0)).toBe(true);

        // The session is still the same shell, and it still takes input.
        await session.type("echo still $$\n");
        expect(await session.until(/^still \d+\r?$/m), session.seen).toBe(true);
        expect(/^still (\d+)/m.exec(session.seen)?.[1]).toBe(/^alive (\d+)/m.exec(session.seen)?.[1]);

        // A job left running is killed with the session when the client goes away.
        await session.type(`${sleeper.join(" ")} &\n`);
        expect(await eventually(() => processesRunning(sleeper).length === 1)).toBe(true);
      } finally {
        await client.close();
      }
      expect(await eventually(() => processesRunning(sleeper).length === 0)).toBe(true);
      if (serverPid !== null) expect(await eventually(() => !alive(serverPid))).toBe(true);
    });
  }
});
