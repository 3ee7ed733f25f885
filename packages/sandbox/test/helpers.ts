import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { parseSandboxPolicy, type SandboxPolicy, type SandboxPolicyInput } from "../src/index.js";

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

/** A fresh canonical temp directory, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sg-sandbox-"));
  created.push(dir);
  return fs.realpath(dir);
}

/** Create directories (trailing `/`) and files (with content) under `base`. */
export async function layout(base: string, entries: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(entries)) {
    const full = path.join(base, rel);
    if (rel.endsWith("/")) {
      await fs.mkdir(full, { recursive: true });
    } else {
      await fs.mkdir(path.dirname(full), { recursive: true });
      await fs.writeFile(full, content);
    }
  }
}

/** A workspace-write policy with TMPDIR and /tmp excluded unless the test says otherwise. */
export function workspaceWrite(extra: Omit<Partial<Extract<SandboxPolicyInput, { mode: "workspace-write" }>>, "mode"> = {}): SandboxPolicy {
  return parseSandboxPolicy({ mode: "workspace-write", excludeTmpdirEnvVar: true, excludeSlashTmp: true, ...extra });
}
