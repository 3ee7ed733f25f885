import { parseSandboxArgs } from "./args.js";
import { UsageError } from "../../errors.js";
import { exitCodesHelp } from "../../exit-table.js";

/** `shellgate sandbox --help`. */
export const HELP = `Usage: shellgate sandbox [options] [--] CMD [ARGS...]
       shellgate sandbox --probe [--json]

Run CMD under the platform sandbox with the current directory as the workspace (the debug runner,
like \`codex sandbox\`). CMD starts at the first word that is not an option (or after \`--\`). stdio is inherited and CMD's exit code is passed through. If the requested
sandbox cannot be provided here, nothing runs.

Options:
      --mode MODE             read-only | workspace-write (default) | danger-full-access
      --writable-root DIR     another writable directory (absolute; repeatable; workspace-write only)
      --network [on|off]      network access (workspace-write; default off): a bare --network is on,
                              --no-network is off
      --deny-read PATH        make PATH unreadable inside the sandbox (absolute; repeatable)
      --allow-weaker-isolation
                              accept the Landlock+seccomp fallback when bubblewrap cannot run
                              (no namespaces, no read-only carve-outs inside writable roots)
      --probe                 print which sandbox layers work here and why not
      --json                  with --probe: print the report as JSON
  -h, --help                  show this help

${exitCodesHelp("sandbox")}

Examples:
  shellgate sandbox -- touch inside.txt          # works: the workspace is writable
  shellgate sandbox -- touch /etc/x              # fails: Read-only file system
  shellgate sandbox --network -- curl -I https://example.com
  shellgate sandbox ls -la
  shellgate sandbox --allow-weaker-isolation -- make test   # where bubblewrap cannot run
  shellgate sandbox --probe --json
`;

/** `shellgate sandbox`: see {@link HELP}. */
export async function run(args: string[]): Promise<number> {
  let request;
  try {
    request = parseSandboxArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`shellgate sandbox: ${error.message}\nRun \`shellgate sandbox --help\` for usage.\n`);
    return 125;
  }
  if (request.kind === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  if (process.platform !== "linux") {
    process.stderr.write(`shellgate sandbox: only the Linux sandbox is wired into this command (this is ${process.platform})\n`);
    return 125;
  }
  if (request.kind === "probe") {
    const { probeLinuxSandbox, defaultProbeCacheFile } = await import("@shellgate/sandbox-linux");
    // always a fresh probe, which also refreshes the cache later runs use
    const report = await probeLinuxSandbox({ cacheFile: defaultProbeCacheFile(), refresh: true });
    if (request.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      const { formatProbe } = await import("./format-probe.js");
      process.stdout.write(formatProbe(report));
    }
    return report.level === "full" ? 0 : 1;
  }
  const { runSandboxed, describeSandboxFailure, SandboxError } = await import("./run-sandboxed.js");
  try {
    return await runSandboxed(request);
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    const { message, exitCode } = describeSandboxFailure(error);
    process.stderr.write(`shellgate sandbox: ${message}\n`);
    return exitCode;
  }
}
