import path from "node:path";
import { isPathWithin, observedFs, type WritableRoot } from "@shellgate/sandbox";

/**
 * Where a run may create FIFOs, unix sockets and device nodes. A FIFO left where the host reads
 * later (`.gitignore`, `.shellgate/config.toml`) blocks whoever opens it, so they are allowed only
 * in the run's temporary directories.
 */
export interface SpecialFilePlan {
  /**
   * `landlock`: refused outside `allowedIn` by a Landlock domain (EACCES), mknod and bind(2) alike.
   * `refuse`: the kernel has no Landlock ABI 2, so seccomp refuses mknod of them everywhere (EPERM),
   * the temporary directories included; a unix socket bound by path (network granted) is not refused.
   */
  mode: "landlock" | "refuse";
  /** The temporary directories where they may be made (`landlock` only). */
  allowedIn: string[];
  /** Temporary directories left out because a writable root lies inside them or they inside one. */
  withheld: Array<{ dir: string; reason: string }>;
}

/** The Landlock ABI that lets a domain handle these rights and still allow renames across directories (REFER). */
export const SPECIAL_FILES_LANDLOCK_ABI = 2;

/** What the isolation string of a run says when special files cannot be confined to temporary directories. */
export const SPECIAL_FILES_REFUSED_NOTE =
  "no Landlock ABI 2: FIFOs, sockets and device nodes are refused everywhere, temporary directories included; a unix socket bound by path with the network granted is not";

function realOrUndefined(p: string | undefined): string | undefined {
  if (!p || !path.isAbsolute(p)) return undefined;
  try {
    return observedFs.realpath(p);
  } catch {
    return undefined;
  }
}

/**
 * The special-file plan of one run. The candidates are the temporary directories the run gets: a
 * private `/tmp`, the writable roots that are `/tmp` or `$TMPDIR` themselves, and (bubblewrap's
 * fresh `/dev`) `/dev/shm`. A Landlock grant covers everything beneath a directory, bind mounts
 * included, so a candidate that holds another writable root (a workspace under `/tmp`) or lies in
 * one is withheld: the workspace would be granted with it.
 */
export function planSpecialFiles(input: {
  roots: readonly WritableRoot[];
  env: Readonly<Record<string, string>>;
  privateTmp: boolean;
  layer: "bwrap" | "landlock";
  landlockAbi: number;
}): SpecialFilePlan {
  if (input.layer === "bwrap" && input.landlockAbi < SPECIAL_FILES_LANDLOCK_ABI) return { mode: "refuse", allowedIn: [], withheld: [] };
  const temps = new Set([realOrUndefined("/tmp"), realOrUndefined(input.env["TMPDIR"])].filter((p): p is string => p !== undefined));
  const candidates: string[] = [];
  if (input.privateTmp && input.layer === "bwrap") candidates.push("/tmp");
  for (const { root } of input.roots) if (temps.has(root) && !candidates.includes(root)) candidates.push(root);
  if (input.layer === "bwrap") candidates.push("/dev/shm");
  const others = input.roots.map((r) => r.root).filter((r) => !candidates.includes(r));
  const allowedIn: string[] = [];
  const withheld: SpecialFilePlan["withheld"] = [];
  for (const dir of candidates) {
    const inside = others.find((r) => isPathWithin(r, dir));
    const around = others.find((r) => isPathWithin(dir, r));
    if (inside) withheld.push({ dir, reason: `the writable root ${inside} lies inside it` });
    else if (around) withheld.push({ dir, reason: `it lies inside the writable root ${around}` });
    else allowedIn.push(dir);
  }
  return { mode: "landlock", allowedIn, withheld };
}

/** The helper arguments for a plan: `--special-files MODE` (bubblewrap only) and `--special-dir DIR`... */
export function specialFileArgs(plan: SpecialFilePlan, layer: "bwrap" | "landlock"): string[] {
  const dirs = plan.allowedIn.flatMap((d) => ["--special-dir", d]);
  return layer === "bwrap" ? ["--special-files", plan.mode, ...dirs] : dirs;
}
