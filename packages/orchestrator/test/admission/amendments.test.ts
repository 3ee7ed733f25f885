import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Policy } from "@shellgate/execpolicy";
import type { SandboxPolicy } from "@shellgate/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { amendmentPrefixRefusal, amendmentRefusal, assessCommand, prefixCovers, programControlled, sandboxWritable } from "../support/internals.js";

const notDangerous = () => false;

describe("amendmentPrefixRefusal: what an \"always allow\" prefix would let through", () => {
  it.each([
    ["python3", "-q"], ["python3", "-I", "-B"], ["node", "--no-warnings"], ["bash", "--norc"], ["env", "-i"], ["xargs", "-0"],
    ["sudo", "-E"], ["/usr/bin/python3", "-q"], ["python3.12", "-q"], ["pwsh", "-NoProfile"], ["python.exe", "-q"], ["nice"],
    ["timeout", "5"], ["nohup"], ["exec"], ["npx"], ["npm", "exec"], ["find", ".", "-exec"], ["git"], ["bash", "-lc"], ["python3"],
  ])("%s … is refused: it would allow any command", (...prefix) => {
    expect(amendmentPrefixRefusal(prefix)).toMatch(/^it would allow any command: /);
    expect(amendmentRefusal(prefix, notDangerous)).toMatch(/would allow any command/);
  });

  it.each([["git", "status"], ["npm", "test"], ["cargo", "build"], ["ls"], ["python3", "-m", "pytest"]])("%s … stays allowed", (...prefix) => {
    expect(amendmentPrefixRefusal(prefix)).toBeUndefined();
  });

  it("a program named by a relative path is refused: it is whatever file is there when it runs", () => {
    expect(amendmentPrefixRefusal(["./npm", "test"])).toMatch(/by the path `\.\/npm`/);
    expect(amendmentPrefixRefusal(["bin/tool"])).toMatch(/by the path/);
  });
});

describe("an amendment for `npm test` does not cover `./npm test` or a workspace program", () => {
  const policy: SandboxPolicy = {
    mode: "workspace-write", writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: true, deniedReadPaths: [],
  };
  let ws: string;
  beforeAll(() => {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-amend-")));
    fs.writeFileSync(path.join(ws, "npm"), "#!/bin/sh\n", { mode: 0o755 });
  });
  afterAll(() => fs.rmSync(ws, { recursive: true, force: true }));

  async function proposed(argv: string[], programWritable?: (p: string) => boolean): Promise<string[] | undefined> {
    const admission = await assessCommand({
      argv,
      policy: Policy.empty(),
      approvalPolicy: "untrusted",
      sandboxPolicy: policy,
      permissions: "use_default",
      prefixRule: ["npm", "test"],
      ...(programWritable ? { programWritable } : {}),
    });
    const r = admission.requirement;
    return r.kind === "forbidden" ? undefined : r.proposedAmendment;
  }

  it("CONTROL: the requested prefix is proposed for the command it names", async () => {
    expect(await proposed(["npm", "test"])).toEqual(["npm", "test"]);
    expect(await proposed(["/usr/bin/npm", "test"])).toEqual(["npm", "test"]);
  });

  it("`./npm test` is not covered by `npm test` (and `./npm test` itself is no amendment either)", async () => {
    expect(await proposed(["./npm", "test"])).toBeUndefined();
  });

  it("an absolute path to a program the sandbox can write is not covered", async () => {
    const writable = programControlled(await sandboxWritable(policy, { cwd: ws, env: {} }));
    expect(await proposed([path.join(ws, "npm"), "test"], writable)).toBeUndefined();
    expect(await proposed(["/usr/bin/npm", "test"], writable)).toEqual(["npm", "test"]);
  });

  it("prefixCovers (without a matcher) makes the same distinction", () => {
    const writable = (p: string) => p.startsWith(`${ws}/`);
    expect(prefixCovers(["npm", "test"], ["/usr/bin/npm", "test"], writable)).toBe(true);
    expect(prefixCovers(["npm", "test"], [path.join(ws, "npm"), "test"], writable)).toBe(false);
    expect(prefixCovers(["npm", "test"], ["./npm", "test"], writable)).toBe(false);
  });
});
