import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";

/** A minimal environment for test children. */
export const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" };
export const cwd = tmpdir();

/** True while `pid` is a live (non-zombie) process. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** The one-letter state of `pid` from /proc (R, S, T, Z...), or "" when it is gone. */
export function procState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? "";
  } catch {
    return "";
  }
}

/** Waits (polling) until `pred` holds; fails after `ms` — a liveness bound, not a timing assertion. */
export async function waitFor(pred: () => boolean, ms = 10_000, what = "condition"): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Number of open file descriptors of this process. */
export function fdCount(): number {
  return readdirSync("/proc/self/fd").length;
}

export const isLinux = process.platform === "linux";
