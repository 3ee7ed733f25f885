import { exitCodesHelp } from "../../exit-table.js";
import { CONFIG_FILES_HELP, CONFIG_OPTIONS_HELP, wantsHelp } from "../../options.js";

/** `shellgate check --help`. */
export const HELP = `Usage: shellgate check [options] [--] COMMAND [ARGS...]
       shellgate check [options] "SCRIPT"
       shellgate check [options] --host HOST [--host HOST...] [[--] COMMAND...]

Show what would happen if an agent ran this command: how it splits into segments, which rule
matched each segment (file:line), how a segment no rule matched is judged (known safe, dangerous,
or "no rule; runs in the sandbox"), and the resulting requirement — skip (in the sandbox, or
bypassing it), needs approval (with the reason and the prefix "always allow" would propose: the
program and its subcommand, with the wider and narrower prefixes a person may choose instead — or
why the prompt would not offer "always allow", e.g. for a command the heuristics rate dangerous),
or forbidden (with the reason). Nothing is executed.

The command starts at the first word that is not an option (or after \`--\`); options after it
belong to the command. A single word is a script for your shell (\`bash -lc SCRIPT\`, or whatever
your shell is), so quote a script as one argument.

Options:
      --json                 print one JSON object instead of the explanation
      --escalate             judge it as a request to run outside the sandbox
      --host HOST            tell how a sandboxed command's connection to HOST would be treated by
                             shellgate's network proxy (allow, prompt or deny, and by which rule,
                             grant or default), and what a run would do: the addresses HOST resolves
                             to here, which one is refused and why, and the upstream proxy (from
                             HTTPS_PROXY/ALL_PROXY, NO_PROXY honoured) it would go through; with a
                             command, its own rule's hosts count too
${CONFIG_OPTIONS_HELP}
  -h, --help                 show this help

${CONFIG_FILES_HELP}

JSON: { "requirement": "skip" | "needs_approval" | "forbidden", "bypassSandbox"?, "reason"?,
        "proposedAmendment"?, "amendmentChoices"?, "amendmentWithheld"?, "segments": [[...]], "matchedRules": [...], "split", "unmatched",
        "networkRules"?: { "effective": bool, "rules": [...] }, "ruleSandbox"?: { "sandbox", "hosts", "rules" } }
      with --host, one line per host: { "host", "decision": "allow" | "prompt" | "deny",
        "source": { "kind": "rule" | "grant" | "deny-list" | "command-rule" | "default", ... },
        "explicit", "effective", "reason", "run": "reach" | "ask" | "refuse",
        "refusedBy"?: "policy" | "never-reachable" | "needs-name-grant" | "needs-explicit-grant" | "resolve-failed",
        "addresses"?: [{ "address", "class", "refusedBy"?, "reason"? }], "resolveError"?,
        "upstream"?: { "url", "variable" } | null, "upstreamError"? }
network_rule entries and --allow-domain / [network] grants are enforced by shellgate's proxy for
sandboxed commands whose network is off ("effective"); --network on means the whole network.

${exitCodesHelp("check")}

Examples:
  shellgate check git push --force
  shellgate check --approval-policy untrusted "cargo build && echo ok"
  shellgate check --rules examples/default.rules --json -- rm -rf build
  shellgate check --allow-domain registry.example.org --host registry.example.org --host example.com
`;

/** `shellgate check`: see {@link HELP}. Only `--help` is answered here; the rest loads on demand. */
export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(HELP);
    return 0;
  }
  const { checkMain } = await import("./main.js");
  return checkMain(args);
}
