import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bwrapArgs, planMounts, type MountPlan } from "../src/index.js";

const empty: MountPlan = { writableRoots: [], readOnly: [], stubs: [], maskedDirs: [], maskedFiles: [], unpinnedSymlinks: [], privateTmp: true, keepVisible: [] };

describe("bwrapArgs", () => {
  it("starts from a read-only root with fresh /dev, /proc and /tmp, all namespaces, no network", () => {
    const args = bwrapArgs(empty, { network: false, procMount: true, cwd: "/w" });
    expect(args).toEqual([
      "--new-session", "--die-with-parent", "--unshare-all", "--cap-drop", "ALL",
      "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--chdir", "/w",
    ]);
  });

  it("shares the network only when granted and skips /proc when it cannot be mounted", () => {
    const args = bwrapArgs({ ...empty, privateTmp: false }, { network: true, procMount: false, cwd: "/w" });
    expect(args).toContain("--share-net");
    expect(args).not.toContain("--proc");
    expect(args).not.toContain("--tmpfs");
  });

  it("mounts roots, then carve-outs, stubs and masks, in that order", () => {
    const plan: MountPlan = {
      ...empty,
      writableRoots: ["/w", "/w/sub"],
      readOnly: ["/w/.git"],
      stubs: ["/w/.codex"],
      maskedDirs: ["/w/secret"],
      maskedFiles: ["/etc/shadow"],
    };
    const args = bwrapArgs(plan, { network: false, procMount: true, cwd: "/w" }).join(" ");
    expect(args).toContain("--bind /w /w --bind /w/sub /w/sub --ro-bind /w/.git /w/.git --ro-bind /dev/null /w/.codex");
    expect(args).toContain("--tmpfs /w/secret --remount-ro /w/secret --ro-bind /dev/null /etc/shadow --chdir /w");
  });
});

describe("planMounts", () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-plan-")));
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  it("re-binds existing carve-outs, stubs the first missing component, leaves symlinks unpinned", async () => {
    fs.mkdirSync(path.join(base, ".git"));
    fs.symlinkSync(path.join(base, ".git"), path.join(base, ".agents"));
    const plan = await planMounts(
      [{ root: base, readOnlySubpaths: [path.join(base, ".git"), path.join(base, ".agents"), path.join(base, ".codex", "config.toml")] }],
      [],
    );
    expect(plan.readOnly).toEqual([path.join(base, ".git")]);
    expect(plan.stubs).toEqual([path.join(base, ".codex")]);
    expect(plan.unpinnedSymlinks).toEqual([path.join(base, ".agents")]);
  });

  it("keeps /tmp private unless a writable root contains it, and orders roots outermost first", async () => {
    expect((await planMounts([{ root: base, readOnlySubpaths: [] }], [])).privateTmp).toBe(true);
    const plan = await planMounts([{ root: path.join(base, "a"), readOnlySubpaths: [] }, { root: "/tmp", readOnlySubpaths: [] }], []);
    expect(plan.privateTmp).toBe(false);
    expect(plan.writableRoots).toEqual(["/tmp", path.join(base, "a")]);
  });

  it("keeps the workspace visible under a private /tmp unless it is already a writable root", async () => {
    const ws = path.join(base, "ws");
    fs.mkdirSync(ws);
    const plan = await planMounts([], [], [ws, ws]);
    expect(plan.privateTmp).toBe(true);
    expect(plan.keepVisible).toEqual(base.startsWith("/tmp/") ? [ws] : []);
    expect((await planMounts([{ root: ws, readOnlySubpaths: [] }], [], [ws])).keepVisible).toEqual([]);
    const args = bwrapArgs({ ...empty, keepVisible: ["/tmp/x"], writableRoots: ["/tmp/x/y"] }, { network: false, procMount: true, cwd: "/tmp/x" }).join(" ");
    expect(args).toContain("--tmpfs /tmp --ro-bind /tmp/x /tmp/x --bind /tmp/x/y /tmp/x/y");
  });

  it("masks denied files and directories by kind and ignores missing ones", async () => {
    fs.mkdirSync(path.join(base, "secret-dir"));
    fs.writeFileSync(path.join(base, "secret-file"), "s");
    const plan = await planMounts([], [path.join(base, "secret-dir"), path.join(base, "secret-file"), path.join(base, "missing")]);
    expect(plan.maskedDirs).toEqual([path.join(base, "secret-dir")]);
    expect(plan.maskedFiles).toEqual([path.join(base, "secret-file")]);
  });
});
