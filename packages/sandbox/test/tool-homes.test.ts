import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { computeWritableRoots, homeCredentialPaths, TOOL_HOMES, toolHomeOf } from "../src/index.js";
import { layout, tempDir, workspaceWrite } from "./helpers.js";

/** A home directory with a workspace of its own, and the host environment that names it. */
async function home(entries: Record<string, string> = {}) {
  const base = await tempDir();
  const h = path.join(base, "home");
  await layout(h, { "ws/": "", ...entries });
  return { h, ws: path.join(h, "ws"), hostEnv: { HOME: h } as Record<string, string> };
}

const rootOf = async (root: string, cwd: string, hostEnv: Record<string, string>) => {
  const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [root] }), { cwd, env: {}, hostEnv, platform: "linux" });
  return roots.find((r) => r.root === root)!;
};

describe("tool homes inside writable roots", () => {
  it("~/.cargo as a root: bin and the crate sources stay read-only existing or not, env and config files when they exist", async () => {
    const { h, ws, hostEnv } = await home({ ".cargo/bin/cargo": "", ".cargo/registry/src/x/build.rs": "", ".cargo/other/": "", ".cargo/env": "", ".cargo/config.toml": "" });
    const cargo = path.join(h, ".cargo");
    const r = await rootOf(cargo, ws, hostEnv);
    for (const sub of ["bin", "env", "config.toml", "registry", "git"]) {
      expect(r.readOnlySubpaths, sub).toContain(path.join(cargo, sub));
    }
    // a missing file is not held: a directory in its place would break cargo (and the host's) while the run lasts
    expect(r.readOnlySubpaths).not.toContain(path.join(cargo, "credentials.toml"));
    // control: the rest of the home stays writable, and without the table's entry bin would be too
    expect(r.readOnlySubpaths.some((p) => p === path.join(cargo, "other"))).toBe(false);
    const plain = await rootOf(cargo, ws, {});
    expect(plain.readOnlySubpaths).not.toContain(path.join(cargo, "bin"));
  });

  it("~/.local as a root: bin and the whole lib (site-packages .pth files) stay read-only", async () => {
    const { h, ws, hostEnv } = await home({ ".local/lib/python3.11/site-packages/": "", ".local/share/x/": "" });
    const local = path.join(h, ".local");
    const r = await rootOf(local, ws, hostEnv);
    expect(r.readOnlySubpaths).toEqual(expect.arrayContaining([path.join(local, "bin"), path.join(local, "lib")]));
    expect(r.readOnlySubpaths).not.toContain(path.join(local, "share"));
  });

  it("a root inside a protected part (site-packages, ~/.npm/_npx) is read-only as a whole", async () => {
    const { h, ws, hostEnv } = await home({ ".local/lib/python3.11/site-packages/": "", ".npm/_npx/": "" });
    for (const inner of [path.join(h, ".local/lib/python3.11/site-packages"), path.join(h, ".npm/_npx")]) {
      const r = await rootOf(inner, ws, hostEnv);
      expect(r.readOnlySubpaths, inner).toEqual([inner]);
      // control: without the host's HOME the same root is writable
      expect((await rootOf(inner, ws, {})).readOnlySubpaths, inner).not.toEqual([inner]);
    }
  });

  it("the home itself as a root (a broad workspace): existing rc files, ~/.ssh, ~/.gitconfig and the tools' bins are held", async () => {
    const { h, ws, hostEnv } = await home({ ".bashrc": "", ".gitconfig": "", ".cargo/bin/": "" });
    const r = await rootOf(h, ws, hostEnv);
    for (const p of [".bashrc", ".gitconfig", ".ssh", ".config/gh", ".cargo/bin", ".local/bin", ".npm/_npx", "go/bin"]) {
      expect(r.readOnlySubpaths, p).toContain(path.join(h, p));
    }
    // missing start-up files are not held (a directory named .profile breaks every login shell)
    for (const p of [".profile", ".zshrc", ".npmrc"]) expect(r.readOnlySubpaths, p).not.toContain(path.join(h, p));
  });

  it("the home as a root: every credential store and keyring is held, existing or not; a credential file when it exists", async () => {
    const { h, ws, hostEnv } = await home({ ".netrc": "", ".pki/nssdb/": "" });
    const r = await rootOf(h, ws, hostEnv);
    for (const c of homeCredentialPaths(h, "linux")) {
      if (c.directory || c.path.endsWith(".netrc")) expect(r.readOnlySubpaths, c.path).toContain(c.path);
      else expect(r.readOnlySubpaths, c.path).not.toContain(c.path);
    }
    for (const rel of [".azure", ".pki", ".password-store", ".config/gcloud", ".local/share/keyrings"]) expect(r.readOnlySubpaths, rel).toContain(path.join(h, rel));
    // control: a root beside them holds none of them
    const other = await rootOf(ws, ws, hostEnv);
    expect(other.readOnlySubpaths.some((p) => p.includes(".ssh") || p.includes("keyrings"))).toBe(false);
  });

  it("homes the host moved (CARGO_HOME, GOPATH lists) are found there; the default then still counts", async () => {
    const { h, ws, hostEnv } = await home({ "opt/cargo/": "", "g1/": "", "g2/": "" });
    const env = { ...hostEnv, CARGO_HOME: path.join(h, "opt/cargo"), GOPATH: `${path.join(h, "g1")}:${path.join(h, "g2")}` };
    expect((await rootOf(path.join(h, "opt/cargo"), ws, env)).readOnlySubpaths).toContain(path.join(h, "opt/cargo/bin"));
    expect((await rootOf(path.join(h, "g2"), ws, env)).readOnlySubpaths).toContain(path.join(h, "g2/bin"));
  });

  it("a workspace that only lies near a tool home is unchanged, and a GOPATH-mode project stays writable", async () => {
    const { h, ws, hostEnv } = await home({ "go/src/example.test/p/": "" });
    const roots = await computeWritableRoots(workspaceWrite(), { cwd: ws, env: {}, hostEnv, platform: "linux" });
    expect(roots[0]!.readOnlySubpaths.map((p) => path.basename(p)).sort()).toEqual([".agents", ".codex", ".git", ".shellgate"]);
    const project = path.join(h, "go/src/example.test/p");
    const r = await computeWritableRoots(workspaceWrite(), { cwd: project, env: {}, hostEnv, platform: "linux" });
    expect(r[0]!.readOnlySubpaths).not.toContain(project);
  });

  it("a symlinked tool home is followed to where it really is", async () => {
    const { h, ws, hostEnv } = await home({ "real-cargo/": "" });
    await fs.symlink(path.join(h, "real-cargo"), path.join(h, ".cargo"));
    const r = await rootOf(path.join(h, "real-cargo"), ws, hostEnv);
    expect(r.readOnlySubpaths).toContain(path.join(h, "real-cargo", "bin"));
  });

  it("toolHomeOf names the home a directory belongs to and whether a root there would be read-only", () => {
    const env = { HOME: "/home/me" };
    expect(toolHomeOf("/home/me/.npm", env, "linux")).toMatchObject({ tool: "npm", readOnly: ["_npx", "_cacache"], fullyReadOnly: false });
    expect(toolHomeOf("/home/me/.cache/pip", env, "linux")).toMatchObject({ tool: "pip", fullyReadOnly: true });
    expect(toolHomeOf("/home/me/project", env, "linux")).toBeUndefined();
    expect(TOOL_HOMES.every((e) => e.why.length > 0 && e.protect.length > 0)).toBe(true);
  });
});
