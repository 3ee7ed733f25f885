#!/usr/bin/env node
// The dispatcher stays tiny and imports a command's module only when that command runs, so
// `shellgate <cmd>` pays start-up cost for nothing it does not use.
import v8 from "node:v8";
import { CONFIG_ERROR_EXIT } from "../exit-table.js";
import { runCommandModule } from "../run-command.js";

// The bash grammar (tree-sitter, WebAssembly) is compiled by V8's baseline compiler at once and then
// re-compiled by the optimizing tier in background threads. Node waits for those background jobs
// before it exits — measured at 2–6 s on a loaded 2-core machine for a one-line `exec`, and before an
// MCP server can exit. A CLI parses a few short scripts per run, so the baseline code is all it needs.
v8.setFlagsFromString("--liftoff-only");

/** Subcommands and the module (under `src/commands/`) that implements each one. */
const COMMANDS: Record<string, { module: string; summary: string }> = {
  exec: { module: "exec", summary: "run one command through policy, approval and sandbox" },
  check: { module: "check", summary: "show what would happen if an agent ran a command (runs nothing)" },
  sandbox: { module: "sandbox", summary: "run a command under the platform sandbox (debug runner)" },
  policy: { module: "policy", summary: "policy tools: `shellgate policy check` is policy-check" },
  mcp: { module: "mcp", summary: "serve shell tools to an MCP client over stdio" },
  doctor: { module: "doctor", summary: "report shell, sandbox backends and rules files" },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `Usage: shellgate <command> [options]

A policy-guarded, sandboxed shell for AI agents.

Commands:
${lines.join("\n")}

Global options:
  -h, --help      show this help (\`shellgate <command> --help\` for a command's options and examples)
  -V, --version   print the version
      --debug     show stack traces for unexpected errors (or set SHELLGATE_DEBUG=1)

Exit codes: each command's --help lists its own. \`exec\` and \`sandbox\` pass the command's exit
code through (127: command not found); a configuration error exits ${CONFIG_ERROR_EXIT} from every command;
bad arguments exit 2 (\`exec\`, \`sandbox\`: 125).

Examples:
  shellgate exec ls -la
  shellgate check git push --force
  shellgate doctor
  shellgate mcp --cwd ~/src/project
`;
}

// A function, not top-level code: the bundle is CommonJS (see src/launch/run-bundle.ts), which has
// no top-level await.
async function main(): Promise<void> {
  let args = process.argv.slice(2);
  // Global flags before the command name.
  const leadingDebug = args[0] === "--debug";
  if (leadingDebug) args = args.slice(1);
  const [name, ...rest] = args;
  if (leadingDebug) rest.unshift("--debug");
  if (name === undefined || name === "--help" || name === "-h") {
    process.stdout.write(usage());
    process.exitCode = name === undefined ? 2 : 0;
  } else if (name === "help") {
    const topic = rest[0] === undefined ? undefined : COMMANDS[rest[0]];
    if (topic) process.exitCode = await runCommandModule(topic.module, ["--help"]);
    else process.stdout.write(usage());
  } else if (name === "--version" || name === "-V" || name === "version") {
    const { readPackageVersion } = await import("../version.js");
    process.stdout.write(`shellgate ${readPackageVersion()}\n`);
  } else {
    const command = COMMANDS[name];
    if (!command) {
      process.stderr.write(`shellgate: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
      process.exitCode = 2;
    } else {
      process.exitCode = await runCommandModule(command.module, rest);
      exitWhenFlushed();
    }
  }
}

void main();

/**
 * A command is finished when its `run` returns; a handle someone forgot to close (a timer in a library,
 * a paused terminal stream) must not keep shellgate alive. The unref'd timer only fires when something
 * still holds the event loop, and then exits once stdout and stderr have drained.
 */
function exitWhenFlushed(): void {
  const check = () => {
    if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
    setTimeout(check, 20).unref();
  };
  setTimeout(check, 50).unref();
}
