import { parseSandboxPolicy, type SandboxPolicy } from "@shellgate/sandbox";
import { createWindowsSandboxBackend, memorySidStore, type WindowsSandboxBackendOptions } from "../src/index.js";
import { treeWinFs, type WinTreeNode } from "../src/testing.js";

/** Settings that make a plan "as on Windows" with a described tree, on any host. */
export function onWindows(tree: Record<string, WinTreeNode>, extra: WindowsSandboxBackendOptions = {}) {
  return createWindowsSandboxBackend({
    platform: "win32",
    fs: treeWinFs(tree),
    nodePath: "C:\\Program Files\\nodejs\\node.exe",
    runnerPath: "C:\\Program Files\\shellgate\\node_modules\\@shellgate\\sandbox-windows\\dist\\runner.js",
    denybinDir: "C:\\Users\\me\\AppData\\Local\\shellgate\\sandbox\\denybin",
    sidStore: memorySidStore(),
    ...extra,
  });
}

export const WS = "C:\\Users\\me\\project";
export const TEMP = "C:\\Users\\me\\AppData\\Local\\Temp";

export function spec(cwd = WS, env: Record<string, string> = { TEMP, Path: "C:\\Windows\\System32" }, argv = ["cmd.exe", "/c", "echo hi"]) {
  return { argv, cwd, env };
}

/**
 * A workspace-write policy with Windows paths. Built directly: the shared `parseSandboxPolicy`
 * checks paths with the host's `path.isAbsolute`, so on Linux it refuses `C:\...`.
 */
export const ww = (extra: Partial<Extract<SandboxPolicy, { mode: "workspace-write" }>> = {}): SandboxPolicy => ({
  ...(parseSandboxPolicy({ mode: "workspace-write" }) as Extract<SandboxPolicy, { mode: "workspace-write" }>),
  ...extra,
});

/** The paths of the plan's `writable`. */
export function writablePaths(plan: { plan: Record<string, unknown> }): string[] {
  return (plan.plan["writable"] as Array<{ path: string }>).map((w) => w.path);
}

export function readOnlyPaths(plan: { plan: Record<string, unknown> }): string[] {
  return (plan.plan["readOnly"] as Array<{ path: string }>).map((w) => w.path);
}

export function steps(plan: { plan: Record<string, unknown> }): Array<Record<string, unknown>> {
  return plan.plan["steps"] as Array<Record<string, unknown>>;
}
