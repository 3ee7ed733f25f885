import { parseSandboxArgs } from "./args.js";
import { ConfigError, SandboxBackendPackageError, UsageError } from "../../errors.js";
import { exitCodesHelp } from "../../exit-table.js";

/** `shellgate sandbox --help`. */
export const HELP = `Usage: shellgate sandbox [options] [--] CMD [ARGS...]
       shellgate sandbox --dry-run [--json] [--backend NAME] [options] [--] CMD [ARGS...]
       shellgate sandbox --probe [--json]

Run CMD under the platform sandbox with the current directory as the workspace (the debug runner,
like \`codex sandbox\`). CMD starts at the first word that is not an option (or after \`--\`). stdio is inherited and CMD's exit code is passed through. If the requested
sandbox cannot be provided here, nothing runs. CMD gets your environment under the same
[shell_environment_policy] as \`exec\` (secret-looking variables dropped; \`shellgate doctor\` lists them).

Options:
      --mode MODE             read-only | workspace-write (default) | danger-full-access
      --writable-root DIR     another writable directory (absolute; repeatable; workspace-write only)
      --network [on|off]      network access (workspace-write; default off): a bare --network is on,
                              --no-network is off
      --deny-read PATH        make PATH unreadable inside the sandbox (absolute; repeatable)
      --allow-weaker-isolation
                              accept the Landlock+seccomp fallback when bubblewrap cannot run
                              (no namespaces, no read-only carve-outs inside writable roots)
      --process-limit N|off   the most processes (threads included) the command may run at once,
                              from 8 (default 4096; off: none)
      --backend NAME          use this sandbox backend: linux, seatbelt (macOS) or windows (default:
                              this platform's); fails when it is unknown or cannot run here
      --dry-run               print what would run (the sandbox's argv, environment and plan) and run
                              nothing; works on any OS, for any backend
      --probe                 print which sandbox layers work here and why not
      --json                  with --probe or --dry-run: print JSON (--dry-run: { "backend", "argv",
                              "env", "commandEnv", "plan" })
  -h, --help                  show this help

${exitCodesHelp("sandbox")}

Examples:
  shellgate sandbox -- touch inside.txt          # works: the workspace is writable
  shellgate sandbox -- touch /etc/x              # fails: Read-only file system
  shellgate sandbox --network -- curl -I https://example.com
  shellgate sandbox ls -la
  shellgate sandbox --allow-weaker-isolation -- make test   # where bubblewrap cannot run
  shellgate sandbox --backend linux --dry-run --json --writable-root /tmp/out -- make
  shellgate sandbox --probe --json
`;

/** `shellgate sandbox`: see {@link HELP}. `--help` and bad arguments load nothing else. */
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
  try {
    if (request.kind === "probe") return await probe(request.json);
    const { runSandboxed, planSandboxed } = await import("./run-sandboxed.js");
    if (!request.dryRun) return await runSandboxed(request);
    const plan = await planSandboxed(request);
    const { formatPlan, planJson } = await import("./format-plan.js");
    process.stdout.write(request.json ? planJson(plan) : formatPlan(plan));
    return 0;
  } catch (error) {
    const failure = await describeFailure(error);
    if (!failure) throw error;
    process.stderr.write(`shellgate sandbox: ${failure.message}\n`);
    return failure.exitCode;
  }
}

/** `--probe`: always a fresh probe, which also refreshes the cache later runs use. */
async function probe(json: boolean): Promise<number> {
  const { loadLinuxSandboxPackage } = await import("../../sandbox-backends.js");
  const linux = await loadLinuxSandboxPackage();
  const report = await linux.probeLinuxSandbox({ cacheFile: linux.defaultProbeCacheFile(), refresh: true });
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const { formatProbe } = await import("./format-probe.js");
    process.stdout.write(formatProbe(report));
  }
  return report.level === "full" ? 0 : 1;
}

/** The message and exit code of a failure the command explains itself (undefined: a bug, rethrown). */
async function describeFailure(error: unknown): Promise<{ message: string; exitCode: number } | undefined> {
  // A backend's package that is missing or empty is the CLI's own error: it names the package.
  if (error instanceof SandboxBackendPackageError) return { message: error.message, exitCode: 125 };
  // The environment policy comes from the config files: one that is invalid, or an untrusted project's
  // that would loosen it, is a configuration error, exit 125 as from every command that reads them.
  if (error instanceof ConfigError) {
    const { describeError } = await import("../../error-text.js");
    return { message: describeError(error), exitCode: 125 };
  }
  const { describeSandboxFailure, SandboxError } = await import("./run-sandboxed.js");
  return error instanceof SandboxError ? describeSandboxFailure(error) : undefined;
}
