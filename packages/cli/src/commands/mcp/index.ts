import { exitCodesHelp } from "../../exit-table.js";
import { CONFIG_FILES_HELP, CONFIG_OPTIONS_HELP, wantsHelp } from "../../options.js";

/** `shellgate mcp --help`. */
export const HELP = `Usage: shellgate mcp [options]

Serve shell tools to an MCP client (Claude Desktop, Cursor, Codex, your own agent) over stdio:
  shell_command   run a script in the user's shell and return its output
  exec_command    start a command (optionally on a terminal) and keep it as a session
  write_stdin     type into a session / poll its output
  shell           run an argv array (Codex's \`shell\` tool; listed only when --tools names it)
Every call goes through your rules, the approval policy and the sandbox. When the client supports
MCP elicitation, the person using it is asked to approve; otherwise the approval policy alone
decides and "needs approval" becomes a refusal the model can read. Everything a connection started
is killed when the client disconnects. shellgate's own warnings (a repository a command created,
weaker isolation, a command run again outside the sandbox) go to the client as MCP log messages.

Options:
${CONFIG_OPTIONS_HELP}
      --tools NAME[,NAME]    the tools to list (default shell_command,exec_command,write_stdin;
                             also shell); a call of another tool is a protocol error (-32602)
      --prewarm, --no-prewarm
                             keep one sandbox set up ahead of the next one-shot command, each
                             command still in a sandbox no command used before (the default), or
                             set each sandbox up when its command comes (config: prewarm_sandboxes)
      --debug                log the connection's lifecycle and stack traces of unexpected errors (stderr)
  -h, --help                 show this help

Client configuration (e.g. claude_desktop_config.json, .cursor/mcp.json), with shellgate installed
globally (\`npm install -g ./packages/cli\` from a checkout) or named by the absolute path of its bin:
  { "mcpServers": { "shellgate": { "command": "shellgate", "args": ["mcp", "--cwd", "/path/to/project"] } } }
Always give --cwd: the workspace must not be whatever directory the client starts servers in (often
/ or your home, which are refused as workspaces).

${CONFIG_FILES_HELP}

${exitCodesHelp("mcp")}

Examples:
  shellgate mcp --cwd ~/src/project
  shellgate mcp --cwd ~/src/project --network --allow-weaker-isolation
  shellgate mcp --cwd ~/src/project --allow-domain registry.example.org --allow-domain git.example.com
  shellgate mcp --rules ~/.config/shellgate/rules/agent.rules --approval-policy untrusted
  shellgate mcp --cwd ~/src/project --sandbox read-only
  shellgate mcp --cwd ~/src/project --tools shell,exec_command,write_stdin
`;

/** `shellgate mcp`: see {@link HELP}. Only `--help` is answered here; the rest loads on demand. */
export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(HELP);
    return 0;
  }
  const { mcpMain } = await import("./main.js");
  return mcpMain(args);
}
