import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, makeScratch } from "../../helpers.js";

// The README's MCP setup, done the way a user does it: install from the checkout, then let a host
// start the server from a directory of its own (here `/`), with --cwd naming the project.
const s = makeScratch();
afterAll(() => s.cleanup());
const CLI_DIR = fileURLToPath(new URL("../../..", import.meta.url));

async function pwdThroughMcp(command: string, args: string[], env: Record<string, string>): Promise<string> {
  const transport = new StdioClientTransport({ command, args, env, cwd: "/", stderr: "pipe" });
  const client = new Client({ name: "shellgate-test", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  try {
    const result = (await client.callTool({ name: "shell_command", arguments: { command: "pwd" } })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  } finally {
    await client.close();
  }
}

describe("an MCP host outside the repository can start shellgate (README setup)", () => {
  it("after `npm install -g ./packages/cli`, `shellgate mcp --cwd PROJECT` from /", async () => {
    const prefix = path.join(s.root, "global");
    execFileSync("npm", ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", CLI_DIR], {
      env: { ...process.env, npm_config_update_notifier: "false" },
      stdio: "ignore",
    });
    const bin = path.join(prefix, "bin", "shellgate");
    expect(existsSync(bin)).toBe(true);
    const text = await pwdThroughMcp("shellgate", ["mcp", "--cwd", s.project], { ...s.env, PATH: `${path.dirname(bin)}:${s.env["PATH"]}` });
    expect(text).toContain(`${realpathSync(s.project)}\n`);
  });

  it("by the launcher's absolute path", async () => {
    const text = await pwdThroughMcp(process.execPath, [BIN, "mcp", "--cwd", s.project], s.env);
    expect(text).toContain(`${realpathSync(s.project)}\n`);
  });
});
