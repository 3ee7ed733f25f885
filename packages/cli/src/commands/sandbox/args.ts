import path from "node:path";
import { parseArgs } from "node:util";
import { UsageError } from "../../errors.js";
import { parseProcessLimit } from "../../args.js";
import { parseNetwork, splitCommandLine } from "../../options.js";

/** What `shellgate sandbox` was asked to do. */
export type SandboxCommandRequest =
  | { kind: "help" }
  | { kind: "probe"; json: boolean }
  | {
      kind: "run";
      mode: "read-only" | "workspace-write" | "danger-full-access";
      writableRoots: string[];
      deniedReadPaths: string[];
      network: boolean;
      allowWeakerIsolation: boolean;
      /** `--process-limit N|off`; absent: the backend's default. */
      processLimit?: number | "off";
      /** The backend named with `--backend`; absent: this platform's. */
      backend?: string;
      /** `--dry-run`: print what would run (`--json`: as JSON) and run nothing. */
      dryRun: boolean;
      json: boolean;
      argv: string[];
    };

const MODES = ["read-only", "workspace-write", "danger-full-access"] as const;

const OPTIONS = {
  mode: { type: "string" },
  "writable-root": { type: "string", multiple: true },
  network: { type: "string" },
  "deny-read": { type: "string", multiple: true },
  "allow-weaker-isolation": { type: "boolean" },
  "process-limit": { type: "string" },
  backend: { type: "string" },
  "dry-run": { type: "boolean" },
  probe: { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const TAKES_VALUE: ReadonlySet<string> = new Set(["--mode", "--writable-root", "--deny-read", "--backend", "--process-limit"]);

function absolutePaths(flag: string, values: readonly string[] | undefined): string[] {
  return (values ?? []).map((p) => {
    if (p === "") throw new UsageError(`${flag}: must not be empty`);
    if (!path.isAbsolute(p)) throw new UsageError(`${flag}: ${JSON.stringify(p)} must be an absolute path`);
    return p;
  });
}

/**
 * Parse `shellgate sandbox` arguments.
 * @throws UsageError naming the offending flag.
 */
export function parseSandboxArgs(args: readonly string[]): SandboxCommandRequest {
  // The command starts after `--` or at the first word that is not an option, so `shellgate sandbox ls -la` works.
  const { own, command } = splitCommandLine(args, TAKES_VALUE);
  let values;
  try {
    values = parseArgs({ args: own, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  if (values.help) return { kind: "help" };
  if (values.probe) {
    if (command.length > 0) throw new UsageError("--probe takes no command");
    // The probe reports the Linux layers; it neither selects a backend nor plans a command.
    if (values.backend !== undefined) throw new UsageError("--probe cannot be combined with --backend");
    if (values["dry-run"]) throw new UsageError("--probe cannot be combined with --dry-run");
    return { kind: "probe", json: values.json ?? false };
  }
  const dryRun = values["dry-run"] ?? false;
  if (values.json && !dryRun) throw new UsageError("--json is only meaningful with --probe or --dry-run");
  if (values.backend !== undefined && values.backend.trim() === "") throw new UsageError("--backend: must not be empty");
  const mode = values.mode ?? "workspace-write";
  if (!(MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`--mode: ${JSON.stringify(mode)} is not one of ${MODES.join(", ")}`);
  }
  const writableRoots = absolutePaths("--writable-root", values["writable-root"]);
  if (writableRoots.length > 0 && mode !== "workspace-write") {
    throw new UsageError(`--writable-root needs --mode workspace-write (got ${mode})`);
  }
  const network = values.network === undefined ? false : parseNetwork(values.network);
  if (network && mode === "read-only") throw new UsageError("--network cannot be used with --mode read-only");
  const deniedReadPaths = absolutePaths("--deny-read", values["deny-read"]);
  if (deniedReadPaths.length > 0 && mode === "danger-full-access") {
    throw new UsageError("--deny-read needs a sandbox; it cannot be used with --mode danger-full-access");
  }
  if (command.length === 0) throw new UsageError("no command given (usage: shellgate sandbox [options] -- CMD [ARGS...])");
  return {
    kind: "run",
    mode: mode as (typeof MODES)[number],
    writableRoots,
    deniedReadPaths,
    network,
    allowWeakerIsolation: values["allow-weaker-isolation"] ?? false,
    ...(values["process-limit"] !== undefined ? { processLimit: parseProcessLimit(values["process-limit"]) } : {}),
    ...(values.backend !== undefined ? { backend: values.backend } : {}),
    dryRun,
    json: values.json ?? false,
    argv: command,
  };
}
