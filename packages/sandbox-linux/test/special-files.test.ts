// Where a run may make FIFOs, sockets and device nodes: the temporary directories, never one that a
// Landlock grant would share with a writable root (a grant covers every mount beneath it).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { WritableRoot } from "@shellgate/sandbox";
import { planSpecialFiles, specialFileArgs } from "../src/special-files.js";
import { makeDirs } from "./support.js";

const root = (dir: string): WritableRoot => ({ root: dir, readOnlySubpaths: [], pinnedAncestors: [] });
const tmp = fs.realpathSync("/tmp");

describe("planSpecialFiles", () => {
  it("grants the private /tmp and /dev/shm under bubblewrap when the workspace lies elsewhere", () => {
    const plan = planSpecialFiles({ roots: [root("/var/tmp/ws")], env: {}, privateTmp: true, layer: "bwrap", landlockAbi: 7 });
    expect(plan).toEqual({ mode: "landlock", allowedIn: ["/tmp", "/dev/shm"], withheld: [] });
    expect(specialFileArgs(plan, "bwrap")).toEqual(["--special-files", "landlock", "--special-dir", "/tmp", "--special-dir", "/dev/shm"]);
  });

  it("withholds a temporary directory that holds the workspace, and one that lies inside it", () => {
    const dirs = makeDirs("special-plan");
    try {
      const inner = path.join(dirs.outside, "tmp");
      fs.mkdirSync(inner);
      const plan = planSpecialFiles({ roots: [root(dirs.outside), root(inner), root(tmp)], env: { TMPDIR: inner }, privateTmp: false, layer: "landlock", landlockAbi: 7 });
      expect(plan.allowedIn).toEqual([tmp]);
      expect(plan.withheld).toEqual([{ dir: inner, reason: `it lies inside the writable root ${dirs.outside}` }]);
      const underTmp = planSpecialFiles({ roots: [root(path.join(tmp, "ws"))], env: {}, privateTmp: true, layer: "bwrap", landlockAbi: 7 });
      expect(underTmp.allowedIn).toEqual(["/dev/shm"]);
      expect(underTmp.withheld).toEqual([{ dir: "/tmp", reason: `the writable root ${path.join(tmp, "ws")} lies inside it` }]);
      // the Landlock layer passes directories only, never a mode of its own
      expect(specialFileArgs(plan, "landlock")).toEqual(["--special-dir", tmp]);
    } finally {
      dirs.remove();
    }
  });

  it("refuses special files everywhere under bubblewrap without Landlock ABI 2", () => {
    const plan = planSpecialFiles({ roots: [root("/var/tmp/ws")], env: {}, privateTmp: true, layer: "bwrap", landlockAbi: 1 });
    expect(plan).toEqual({ mode: "refuse", allowedIn: [], withheld: [] });
    expect(specialFileArgs(plan, "bwrap")).toEqual(["--special-files", "refuse"]);
  });
});
