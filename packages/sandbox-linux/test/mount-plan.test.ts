import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UnpinnableProtectedPathError } from "@shellgate/sandbox";
import { bwrapArgs, DEFAULT_PRIVATE_TMP_SIZE_BYTES, PLACEHOLDER_MODE, planMounts, PROC_READ_ONLY_ENTRIES, type MountPlan } from "../src/testing.js";

const empty: MountPlan = { writableRoots: [], pinned: [], readOnly: [], stubs: [], maskedDirs: [], maskedFiles: [], privateTmp: true, keepVisible: [] };
const procArgs = PROC_READ_ONLY_ENTRIES.flatMap((e) => ["--ro-bind-try", `/proc/${e}`, `/proc/${e}`]);

describe("bwrapArgs", () => {
  it("starts from a read-only root with fresh /dev, /proc (machine-wide knobs read-only) and a size-capped /tmp, all namespaces, no network", () => {
    const args = bwrapArgs(empty, { network: false, procMount: true, cwd: "/w" });
    expect(args).toEqual([
      "--new-session", "--die-with-parent", "--unshare-all", "--cap-drop", "ALL",
      "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", ...procArgs,
      "--size", String(DEFAULT_PRIVATE_TMP_SIZE_BYTES), "--tmpfs", "/tmp", "--chdir", "/w",
    ]);
    expect(procArgs.join(" ")).toContain("--ro-bind-try /proc/sys /proc/sys --ro-bind-try /proc/sysrq-trigger /proc/sysrq-trigger");
    expect(bwrapArgs(empty, { network: false, procMount: true, cwd: "/w", privateTmpSizeBytes: 4096 * 1024 }).join(" ")).toContain("--size 4194304 --tmpfs /tmp");
  });

  it("shares the network only when granted and skips /proc when it cannot be mounted", () => {
    const args = bwrapArgs({ ...empty, privateTmp: false }, { network: true, procMount: false, cwd: "/w" });
    expect(args).toContain("--share-net");
    expect(args).not.toContain("--proc");
    expect(args).not.toContain("--ro-bind-try");
    expect(args).not.toContain("--tmpfs");
    expect(args).not.toContain("--size");
  });

  it("mounts roots and pinned directories parents first, then carve-outs, stubs and masks", () => {
    const plan: MountPlan = {
      ...empty,
      writableRoots: ["/w", "/w/sub/deep/nested"],
      pinned: ["/w/sub/deep", "/w/sub"],
      readOnly: ["/w/.git"],
      stubs: ["/w/.codex"],
      maskedDirs: ["/w/secret"],
      maskedFiles: ["/etc/shadow"],
    };
    const args = bwrapArgs(plan, { network: false, procMount: true, cwd: "/w" }).join(" ");
    expect(args).toContain("--bind /w /w --bind /w/sub /w/sub --bind /w/sub/deep /w/sub/deep --bind /w/sub/deep/nested /w/sub/deep/nested --ro-bind /w/.git /w/.git --dir /w/.codex --ro-bind /w/.codex /w/.codex --lock-file /w/.codex");
    expect(args).not.toContain("/dev/null /w/.codex");
    expect(args).toContain("--tmpfs /w/secret --remount-ro /w/secret --ro-bind /dev/null /etc/shadow --chdir /w");
  });
});

describe("planMounts", () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-plan-")));
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  it("re-binds existing carve-outs and stubs the first missing component", async () => {
    fs.mkdirSync(path.join(base, ".git"));
    fs.writeFileSync(path.join(base, ".git", "HEAD"), "ref: refs/heads/main\n");
    const plan = await planMounts(
      [{ root: base, readOnlySubpaths: [path.join(base, ".git"), path.join(base, ".codex", "config.toml")], pinnedAncestors: [] }],
      [],
    );
    expect(plan.readOnly).toEqual([path.join(base, ".git")]);
    expect(plan.stubs).toEqual([path.join(base, ".codex")]);
  });

  it("refuses a carve-out that is a symlink, and a symlink on the way to a missing one (they changed since the roots were computed)", async () => {
    const ws = fs.mkdtempSync(path.join(base, "links-"));
    fs.mkdirSync(path.join(ws, "real"));
    fs.symlinkSync(path.join(ws, "real"), path.join(ws, ".agents"));
    fs.symlinkSync(path.join(ws, "real"), path.join(ws, ".config"));
    for (const sub of [path.join(ws, ".agents"), path.join(ws, ".config", "shellgate", "rules")]) {
      const error = await planMounts([{ root: ws, readOnlySubpaths: [sub], pinnedAncestors: [] }], []).catch((e: unknown) => e);
      expect(error, sub).toBeInstanceOf(UnpinnableProtectedPathError);
      expect((error as UnpinnableProtectedPathError).code).toBe("SANDBOX_UNPINNABLE_PATH");
    }
    const pinError = await planMounts([{ root: ws, readOnlySubpaths: [], pinnedAncestors: [path.join(ws, ".config")] }], []).catch((e: unknown) => e);
    expect(pinError).toBeInstanceOf(UnpinnableProtectedPathError);
  });

  it("pins existing ancestors, skips missing ones, and holds a file standing where a directory should be", async () => {
    const ws = fs.mkdtempSync(path.join(base, "pins-"));
    fs.mkdirSync(path.join(ws, "a", "b"), { recursive: true });
    fs.writeFileSync(path.join(ws, "cfg"), "not a directory");
    const plan = await planMounts(
      [{
        root: ws,
        readOnlySubpaths: [path.join(ws, "a", "b", "missing", "rules"), path.join(ws, "cfg", "shellgate", "rules")],
        pinnedAncestors: [path.join(ws, "a"), path.join(ws, "a", "b"), path.join(ws, "a", "b", "missing"), path.join(ws, "cfg"), path.join(ws, "cfg", "shellgate")],
      }],
      [],
    );
    expect(plan.pinned).toEqual([path.join(ws, "a"), path.join(ws, "a", "b")]);
    expect(plan.stubs).toEqual([path.join(ws, "a", "b", "missing")]);
    // a file named `cfg` could be swapped for a directory holding rules: it is held read-only instead
    expect(plan.readOnly).toEqual([path.join(ws, "cfg")]);
  });

  it("does not pin inside a read-only carve-out (that would make part of it writable)", async () => {
    const ws = fs.mkdtempSync(path.join(base, "pin-covered-"));
    fs.mkdirSync(path.join(ws, ".git", "modules", "lib"), { recursive: true });
    fs.writeFileSync(path.join(ws, ".git", "modules", "lib", "HEAD"), "");
    const plan = await planMounts(
      [{ root: ws, readOnlySubpaths: [path.join(ws, ".git")], pinnedAncestors: [path.join(ws, ".git", "modules")] }],
      [],
    );
    expect(plan.pinned).toEqual([]);
  });

  it("gives a missing nested carve-out a placeholder directory at its first missing component", async () => {
    const ws = fs.mkdtempSync(path.join(base, "nested-"));
    const rules = path.join(ws, ".config", "shellgate", "rules");
    const plan = await planMounts([{ root: ws, readOnlySubpaths: [rules], pinnedAncestors: [] }], []);
    expect(plan.stubs).toEqual([path.join(ws, ".config")]);
    expect(plan.readOnly).toEqual([]);
    // planning changes nothing on disk; the backend creates the placeholder right before the run
    expect(fs.existsSync(path.join(ws, ".config"))).toBe(false);
    // once `.config` exists (a user's, or a crashed run's leftover), the placeholder moves one level down
    fs.mkdirSync(path.join(ws, ".config"));
    expect((await planMounts([{ root: ws, readOnlySubpaths: [rules], pinnedAncestors: [] }], [])).stubs).toEqual([path.join(ws, ".config", "shellgate")]);
  });

  it("plans the same while another run's placeholder stands on the way (an empty directory of placeholder mode), and one level down for a user's own directory there", async () => {
    const ws = fs.mkdtempSync(path.join(base, "held-"));
    const config = path.join(ws, ".config");
    const rules = path.join(config, "shellgate", "rules");
    const roots = [{ root: ws, readOnlySubpaths: [rules], pinnedAncestors: [config] }];
    const missing = await planMounts(roots, []);
    fs.mkdirSync(config);
    fs.chmodSync(config, PLACEHOLDER_MODE);
    const held = await planMounts(roots, []);
    expect(held.stubs).toEqual([config]);
    expect(held).toEqual(missing);
    // Control: the same directory with an ordinary mode is the user's own: pinned, the placeholder one level down.
    fs.chmodSync(config, 0o755);
    const own = await planMounts(roots, []);
    expect(own.stubs).toEqual([path.join(config, "shellgate")]);
    expect(own.pinned).toContain(config);
    // A placeholder-mode directory with something in it is no placeholder either.
    fs.chmodSync(config, PLACEHOLDER_MODE);
    fs.mkdirSync(path.join(config, "x"));
    expect((await planMounts(roots, [])).stubs).toEqual([path.join(config, "shellgate")]);
  });

  it("treats an existing empty carve-out directory (a leftover placeholder) as a placeholder, a non-empty one as a carve-out", async () => {
    const ws = fs.mkdtempSync(path.join(base, "leftover-"));
    fs.mkdirSync(path.join(ws, ".codex"));
    fs.mkdirSync(path.join(ws, ".shellgate"));
    fs.writeFileSync(path.join(ws, ".shellgate", "config.toml"), "");
    const plan = await planMounts([{ root: ws, readOnlySubpaths: [path.join(ws, ".codex"), path.join(ws, ".shellgate")], pinnedAncestors: [] }], []);
    expect(plan.stubs).toEqual([path.join(ws, ".codex")]);
    expect(plan.readOnly).toEqual([path.join(ws, ".shellgate")]);
  });

  it("puts no placeholder inside a read-only carve-out or a hidden directory, where nothing can be created anyway", async () => {
    const ws = fs.mkdtempSync(path.join(base, "covered-"));
    fs.mkdirSync(path.join(ws, ".git"));
    fs.writeFileSync(path.join(ws, ".git", "HEAD"), "");
    fs.mkdirSync(path.join(ws, "secret"));
    fs.writeFileSync(path.join(ws, "secret", "key"), "");
    const plan = await planMounts(
      [
        { root: ws, readOnlySubpaths: [path.join(ws, ".git")], pinnedAncestors: [] },
        { root: path.join(ws, ".git"), readOnlySubpaths: [path.join(ws, ".git", "hooks", "x")], pinnedAncestors: [] },
        { root: path.join(ws, "secret"), readOnlySubpaths: [path.join(ws, "secret", ".codex")], pinnedAncestors: [] },
      ],
      [path.join(ws, "secret")],
    );
    expect(plan.stubs).toEqual([]);
  });

  it("keeps /tmp private unless a writable root contains it, and orders roots outermost first", async () => {
    expect((await planMounts([{ root: base, readOnlySubpaths: [], pinnedAncestors: [] }], [])).privateTmp).toBe(true);
    const plan = await planMounts([{ root: path.join(base, "a"), readOnlySubpaths: [], pinnedAncestors: [] }, { root: "/tmp", readOnlySubpaths: [], pinnedAncestors: [] }], []);
    expect(plan.privateTmp).toBe(false);
    expect(plan.writableRoots).toEqual(["/tmp", path.join(base, "a")]);
  });

  it("keeps the workspace visible under a private /tmp unless it is already a writable root", async () => {
    const ws = path.join(base, "ws");
    fs.mkdirSync(ws);
    const plan = await planMounts([], [], [ws, ws]);
    expect(plan.privateTmp).toBe(true);
    expect(plan.keepVisible).toEqual(base.startsWith("/tmp/") ? [ws] : []);
    expect((await planMounts([{ root: ws, readOnlySubpaths: [], pinnedAncestors: [] }], [], [ws])).keepVisible).toEqual([]);
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
