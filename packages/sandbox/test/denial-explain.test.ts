import { spawnSync } from "node:child_process";
import { skipUnless, whyBwrapCannotRun } from "@shellgate/test-support";
import { describe, expect, it } from "vitest";
import {
  computeWritableRoots,
  denialForAudience,
  explainSandboxDenial,
  homeCredentialPaths,
  InvalidDenialEvidenceError,
  SandboxDenialSchema,
  sandboxDenialNote,
  suggestWritableRoot,
  type DenialEvidence,
} from "../src/index.js";
import { layout, tempDir, workspaceWrite } from "./helpers.js";

const WS = "/work/ws";
const roots = [
  { root: WS, readOnlySubpaths: [`${WS}/.agents`, `${WS}/.codex`, `${WS}/.git`, `${WS}/.shellgate`, `${WS}/rules`], pinnedAncestors: [] },
];

// The signals the Linux backend gives its runs (sandbox-linux tests that it does): bwrap's read-only
// mounts answer EROFS (and EBUSY for a held name), Landlock answers EACCES; seccomp kills with SIGSYS.
const bwrap: DenialEvidence["denialSignals"] = { exitCodes: [159], signals: ["SIGSYS"], refusalErrnos: ["EROFS", "EBUSY"] };
const landlock: DenialEvidence["denialSignals"] = { exitCodes: [159], signals: ["SIGSYS"], refusalErrnos: ["EROFS", "EACCES"] };

function evidence(extra: Partial<DenialEvidence> = {}): DenialEvidence {
  return {
    exitCode: 1,
    stdout: "",
    stderr: "",
    sandboxType: "linux",
    isolation: "bwrap+seccomp",
    denialSignals: bwrap,
    policy: workspaceWrite(),
    writableRoots: roots,
    cwd: WS,
    homeDir: "/home/me",
    ...extra,
  };
}

describe("explainSandboxDenial: filesystem", () => {
  it.each([
    ["coreutils touch", "touch: cannot touch '/data/x': Read-only file system", "/data/x"],
    ["dash redirection", "sh: 1: cannot create /data/x: Read-only file system", "/data/x"],
    ["bash redirection", "bash: line 1: /data/x: Read-only file system", "/data/x"],
    ["mkdir with UTF-8 quotes", "mkdir: cannot create directory ‘/data/xd’: Read-only file system", "/data/xd"],
    ["python", "OSError: [Errno 30] Read-only file system: '/data/x'", "/data/x"],
    ["node", "Error: EROFS: read-only file system, open '/data/x'", "/data/x"],
    ["npm", "npm error rofs EROFS: read-only file system, mkdir '/data/npm/_cacache'", "/data/npm/_cacache"],
    ["node's recursive mkdir", "npm error enoent ENOENT: no such file or directory, mkdir '/data/npm/_cacache'", "/data/npm/_cacache"],
  ])("%s: a write outside the roots names the path and the parent as the writable root", (_name, line, p) => {
    const d = explainSandboxDenial(evidence({ stderr: `${line}\n` }), { audience: "cli" });
    expect(d).toBeDefined();
    expect(SandboxDenialSchema.parse(d)).toEqual(d);
    expect(d).toMatchObject({ kind: "filesystem", cause: "outside-writable-roots", paths: [p], audience: "cli" });
    const parent = p.slice(0, p.lastIndexOf("/"));
    expect(d!.grant.writableRoot).toBe(parent);
    expect(d!.suggestion).toContain(`--writable-root ${parent}`);
    expect(d!.evidence.lines).toEqual([line]);
  });

  it("a relative path into .git is a protected path, read-only by design, with the allow rule and --escalate", () => {
    const d = explainSandboxDenial(
      evidence({ stderr: "fatal: Unable to create '/work/ws/.git/index.lock': Read-only file system.\n", command: ["git", "commit", "-m", "x"] }),
      { audience: "cli" },
    )!;
    expect(d).toMatchObject({ cause: "protected-path", paths: [`${WS}/.git/index.lock`], grant: { protectedName: ".git", outsideSandboxOnly: true } });
    expect(d.summary).toContain(".git is read-only in the sandbox by design");
    expect(d.suggestion).toContain('prefix_rule(pattern=["git", "commit"], decision="allow")');
    expect(d.suggestion).toContain("--escalate");
    expect(d.suggestion).toContain("--writable-root cannot change that");
    const rel = explainSandboxDenial(evidence({ stderr: "sh: 1: cannot create .git/foo: Read-only file system\n" }))!;
    expect(rel.paths).toEqual([`${WS}/.git/foo`]);
    expect(rel.suggestion).toContain('sandbox_permissions: "require_escalated"');
  });

  it("a .git write by a command that is not git suggests no `git commit` rule (it would not let that command through)", () => {
    const line = "sh: 1: cannot create .git/foo: Read-only file system";
    const cli = explainSandboxDenial(evidence({ stderr: `${line}\n`, command: ["sh", "-c", "echo x > .git/foo"] }), { audience: "cli" })!;
    expect(cli.grant.protectedName).toBe(".git");
    expect(cli.suggestion).not.toContain('"git", "commit"');
    expect(cli.suggestion).toContain('prefix_rule(pattern=[...], decision="allow")');
    const model = explainSandboxDenial(evidence({ stderr: `${line}\n`, command: ["sh", "-c", "echo x > .git/foo"] }))!;
    expect(model.suggestion).not.toContain('"git", "commit"');
    // control: git itself gets the rule for its subcommand
    const git = explainSandboxDenial(evidence({ stderr: `${line}\n`, command: ["git", "tag", "v1"] }), { audience: "cli" })!;
    expect(git.suggestion).toContain('prefix_rule(pattern=["git", "tag"], decision="allow")');
  });

  it("a protected rules path is named as such, and a read-only policy suggests workspace-write", () => {
    const rules = explainSandboxDenial(evidence({ stderr: "bash: rules/default.rules: Read-only file system\n" }), { audience: "cli" })!;
    expect(rules).toMatchObject({ cause: "protected-path", grant: { protectedName: "policy" } });
    const ro = explainSandboxDenial(
      evidence({ policy: { mode: "read-only", deniedReadPaths: [] }, writableRoots: [], stderr: "touch: cannot touch 'out.txt': Read-only file system\n" }),
      { audience: "cli" },
    )!;
    expect(ro).toMatchObject({ cause: "read-only-sandbox", paths: [`${WS}/out.txt`] });
    expect(ro.suggestion).toBe("re-run with --sandbox workspace-write to let it write in the workspace");
  });

  it("below the home directory it suggests the tool's own directory; never the home directory, a system directory or a credential store", () => {
    expect(suggestWritableRoot("/home/me/project-cache/tmp/x", "/home/me")).toEqual({ writableRoot: "/home/me/project-cache" });
    expect(suggestWritableRoot("/home/me/.cache/sometool/x/y", "/home/me")).toEqual({ writableRoot: "/home/me/.cache/sometool" });
    expect(suggestWritableRoot("/home/me/x", "/home/me")).toEqual({ notSuggested: { dir: "/home/me", reason: "home" } });
    expect(suggestWritableRoot("/x", "/home/me")).toEqual({});
    expect(suggestWritableRoot("/home/x", "/home/me")).toEqual({ notSuggested: { dir: "/home", reason: "home" } });
    for (const [p, dir] of [["/etc/a", "/etc"], ["/usr/local/bin/x", "/usr/local/bin"], ["/var/lib/x/y", "/var/lib/x"], ["/bin/x", "/bin"]] as const) {
      expect(suggestWritableRoot(p, "/home/me"), p).toEqual({ notSuggested: { dir, reason: "system" } });
    }
    // a directory inside a shared temp directory is not a system one; the temp directory itself is
    expect(suggestWritableRoot("/var/tmp/build/x", "/home/me")).toEqual({ writableRoot: "/var/tmp/build" });
    expect(suggestWritableRoot("/var/tmp/x", "/home/me")).toEqual({ notSuggested: { dir: "/var/tmp", reason: "system" } });
    for (const p of ["/home/me/.ssh/authorized_keys", "/home/me/.gnupg/x", "/home/me/.aws/credentials", "/home/me/.config/gh/hosts.yml", "/home/me/.bashrc", "/home/me/.config/x"]) {
      expect(suggestWritableRoot(p, "/home/me").writableRoot, p).toBeUndefined();
    }
    expect(suggestWritableRoot("/home/me/.config/gh/hosts.yml", "/home/me")).toEqual({ notSuggested: { dir: "/home/me/.config/gh", reason: "credentials" } });
    // A tool home is suggested with what stays read-only in it; a part of one that is read-only anyway is not.
    expect(suggestWritableRoot("/home/me/.npm/_logs/x", "/home/me")).toEqual({ writableRoot: "/home/me/.npm", toolHome: { tool: "npm", readOnly: ["_npx", "_cacache"] } });
    expect(suggestWritableRoot("/home/me/.cache/pip/http/x", "/home/me")).toEqual({ notSuggested: { dir: "/home/me/.cache/pip", reason: "tool-code", tool: "pip" } });
    // A missing directory (node's mkdir -p names the deepest one) moves up to one that exists.
    const existing = new Set(["/etc", "/home/me", "/srv2"]);
    expect(suggestWritableRoot("/etc/a/b/c", "/home/me", (d) => existing.has(d))).toEqual({ notSuggested: { dir: "/etc", reason: "system" } });
    expect(suggestWritableRoot("/srv2/a/b", "/home/me", (d) => existing.has(d))).toEqual({ writableRoot: "/srv2" });
    expect(suggestWritableRoot("/home/me/.npm/_cacache", "/home/me", (d) => existing.has(d))).toEqual({ notSuggested: { dir: "/home/me", reason: "home" } });
    expect(suggestWritableRoot("/opt/a/b", "/home/me", (d) => existing.has(d))).toEqual({});
    const d = explainSandboxDenial(evidence({ stderr: "touch: cannot touch '/home/me/x': Read-only file system\n" }), { audience: "cli" })!;
    expect(d.suggestion).not.toContain("--writable-root");
    expect(d.suggestion).toContain("lies in /home/me, which holds your home directory");
    const etc = explainSandboxDenial(evidence({ stderr: "touch: cannot touch '/etc/x': Read-only file system\n" }), { audience: "cli" })!;
    expect(etc.suggestion).toContain("/etc, a system directory");
    expect(etc.suggestion).not.toContain("--writable-root");
    const npm = explainSandboxDenial(evidence({ stderr: "npm error EROFS: read-only file system, open '/home/me/.npm/_logs/x.log'\n" }), { audience: "cli" })!;
    expect(npm.suggestion).toContain("--writable-root /home/me/.npm to allow writes there (npm's home:");
    expect(npm.suggestion).toContain("_npx, _cacache stay read-only");
    const root = explainSandboxDenial(evidence({ stderr: "touch: cannot touch '/x': Read-only file system\n" }), { audience: "cli" })!;
    expect(root.grant.writableRoot).toBeUndefined();
    expect(root.suggestion).toContain("directly under /");
  });

  it("is not explained when the evidence does not support it", () => {
    // "Permission denied" on a file the workspace may write: the program's own failure (chmod 000, a test).
    expect(explainSandboxDenial(evidence({ stderr: "cat: secret.txt: Permission denied\nbash: ./run.sh: Permission denied\n" }))).toBeUndefined();
    // EACCES outside the roots under bwrap is the file's own permission: an unsandboxed run meets it too.
    expect(explainSandboxDenial(evidence({ stderr: "touch: cannot touch '/etc/shadow': Permission denied\n" }))).toBeUndefined();
    // …while Landlock answers a refusal with EACCES.
    expect(explainSandboxDenial(evidence({ isolation: "landlock+seccomp", denialSignals: landlock, stderr: "touch: cannot touch '/etc/x': Permission denied\n" }))?.paths).toEqual(["/etc/x"]);
    // A plain failure, a success, an unsandboxed run, full access.
    expect(explainSandboxDenial(evidence({ stderr: "FAIL test/a.test.ts\n" }))).toBeUndefined();
    const ro = "touch: cannot touch '/etc/x': Read-only file system\n";
    expect(explainSandboxDenial(evidence({ exitCode: 0, stderr: ro }))).toBeUndefined();
    expect(explainSandboxDenial(evidence({ sandboxType: "none", stderr: ro }))).toBeUndefined();
    expect(explainSandboxDenial(evidence({ policy: { mode: "danger-full-access" }, stderr: ro }))).toBeUndefined();
    // Network wording while the network is on is the network's own failure.
    expect(explainSandboxDenial(evidence({ policy: workspaceWrite({ networkAccess: true }), stderr: "curl: (6) Could not resolve host: example.com\n" }))).toBeUndefined();
  });

  it("a read-only file system error without a path is explained without one", () => {
    const d = explainSandboxDenial(evidence({ stderr: "error: unable to create temporary file: Read-only file system\n" }))!;
    expect(d).toMatchObject({ kind: "filesystem", cause: "unnamed-path", paths: [] });
  });
});

describe("explainSandboxDenial: the way out names the real cause", () => {
  it("git init: the copy's source (git's templates, read-only and only read) is never blamed; the held .git is, with why and every way out", () => {
    const line = "fatal: cannot copy '/usr/share/git-core/templates/description' to '/work/ws/.git/description': Read-only file system";
    const cli = explainSandboxDenial(evidence({ exitCode: 128, stderr: `${line}\n`, command: ["git", "init"] }), { audience: "cli" })!;
    expect(cli).toMatchObject({ cause: "protected-path", paths: [`${WS}/.git/description`], grant: { protectedName: ".git", outsideSandboxOnly: true } });
    expect(cli.suggestion).not.toContain("/usr/share");
    expect(cli.suggestion).not.toMatch(/--writable-root \//);
    expect(cli.suggestion).toContain("a hook or setting a sandboxed command planted there would run later, outside the sandbox");
    expect(cli.suggestion).toContain('prefix_rule(pattern=["git", "init"], decision="allow")');
    expect(cli.suggestion).toContain("re-run with --escalate and approve it");
    expect(cli.suggestion).toContain("re-run with --sandbox danger-full-access");
    expect(cli.evidence.lines).toEqual([line]);
    const model = denialForAudience(cli, "model", ["git", "init"]);
    expect(model.suggestion).toMatch(/^\.git holds git's hooks and configuration and stays read-only inside the sandbox: a hook or setting/);
    expect(model.suggestion).toContain('sandbox_permissions: "require_escalated"');
    expect(model.suggestion).toContain('prefix_rule(pattern=["git", "init"], decision="allow")');
    expect(model.suggestion).not.toContain("danger-full-access");
    // node's copy and symlink name their source first: only the destination is the write
    const node = explainSandboxDenial(evidence({ stderr: "Error: EROFS: read-only file system, copyfile '/usr/lib/x.so' -> '/data/x.so'\n" }), { audience: "cli" })!;
    expect(node.paths).toEqual(["/data/x.so"]);
    expect(node.grant.writableRoot).toBe("/data");
    // a copy into a writable place that failed on its own is nobody's denial; its source is not blamed either
    expect(explainSandboxDenial(evidence({ stderr: "fatal: cannot copy '/usr/share/git-core/templates/hooks/x' to '/work/ws/sub/x': Read-only file system\n" }))).toBeUndefined();
    // control: a rename's source is written too, and is still blamed
    expect(explainSandboxDenial(evidence({ stderr: "Error: EROFS: read-only file system, rename '/data/a' -> '/work/ws/a'\n" }))!.paths).toEqual(["/data/a"]);
  });

  it.each([
    [".codex", "settings or rules there that loosen the sandbox"],
    [".agents", "instructions or scripts there that an agent follows or runs later"],
    [".shellgate", "rules there that let later commands run outside the sandbox"],
  ])("%s: says why it is held and how to run the command outside the sandbox", (name, why) => {
    const ev = evidence({ stderr: `sh: 1: cannot create ${name}/x: Read-only file system\n`, command: ["sh", "-c", `echo > ${name}/x`] });
    const cli = explainSandboxDenial(ev, { audience: "cli" })!;
    expect(cli.grant.protectedName).toBe(name);
    expect(cli.summary).toContain(`${name} is read-only in the sandbox by design`);
    expect(cli.suggestion).toContain(why);
    expect(cli.suggestion).toContain("--writable-root cannot change that");
    expect(cli.suggestion).toMatch(/prefix_rule\(pattern=\[\.\.\.\], decision="allow"\) in your rules file, re-run with --escalate and approve it, or re-run with --sandbox danger-full-access$/);
    const model = explainSandboxDenial(ev)!;
    expect(model.suggestion).toContain(why);
    expect(model.suggestion).toContain('sandbox_permissions: "require_escalated"');
  });
});

describe("explainSandboxDenial: never a writable root that hands over the machine, the home or its secrets", () => {
  const HOME = "/home/me";
  // Every directory `--writable-root` may never be offered for, with a path a command writes there.
  const never: ReadonlyArray<[string, string]> = [
    ["/etc/hosts", "system"], ["/usr/local/bin/x", "system"], ["/bin/x", "system"], ["/lib64/x", "system"], ["/sbin/x", "system"],
    ["/boot/x", "system"], ["/dev/x", "system"], ["/proc/x", "system"], ["/sys/x", "system"], ["/var/lib/x/y", "system"],
    ["/opt/tool/x", "system"], ["/var/tmp/x", "system"],
    ["/home/me/x", "home"], ["/home/x", "home"],
    ["/home/me/.bashrc", "startup"], ["/home/me/.zshrc", "startup"], ["/home/me/.profile", "startup"], ["/home/me/.gitconfig", "startup"],
    ["/home/me/.config/x", "startup"], ["/home/me/.config/git/config", "startup"],
    ["/home/me/.ssh/authorized_keys", "credentials"], ["/home/me/.ssh", "credentials"], ["/home/me/.gnupg/x", "credentials"],
    ["/home/me/.aws/credentials", "credentials"], ["/home/me/.azure/x", "credentials"], ["/home/me/.kube/config", "credentials"],
    ["/home/me/.docker/config.json", "credentials"], ["/home/me/.netrc", "credentials"], ["/home/me/.npmrc", "credentials"],
    ["/home/me/.pki/nssdb/x", "credentials"], ["/home/me/.password-store/x.gpg", "credentials"],
    ["/home/me/.config/gcloud/x", "credentials"], ["/home/me/.local/share/keyrings/login.keyring", "credentials"],
    ["/home/me/.local/x/y", "credentials"],
  ];

  it.each(never)("%s: no root (%s), the reason said, and the ways out that remain", (p, reason) => {
    const g = suggestWritableRoot(p, HOME);
    expect(g.writableRoot).toBeUndefined();
    expect(g.notSuggested?.reason).toBe(reason);
    const d = explainSandboxDenial(evidence({ stderr: `touch: cannot touch '${p}': Read-only file system\n` }), { audience: "cli" })!;
    expect(d.suggestion).not.toContain("--writable-root");
    expect(d.suggestion).toContain("write somewhere else, or run the command outside the sandbox: allow it with a rule");
    expect(d.suggestion).toContain("--escalate");
    expect(d.suggestion).toContain("--sandbox danger-full-access");
    // no git rule for a command that is not known to be git
    expect(d.suggestion).toContain('prefix_rule(pattern=[...], decision="allow")');
    const model = denialForAudience(d, "model");
    expect(model.suggestion).toMatch(/^no writable root can be granted for it: /);
    expect(model.suggestion).not.toContain("writable root as");
  });

  it("a git command's own rule is named where no root is safe (git clone into /opt)", () => {
    const d = explainSandboxDenial(
      evidence({ stderr: "fatal: could not create leading directories of '/opt/app/.git': Read-only file system\n", command: ["git", "clone", "https://git.example.com/app", "/opt/app"] }),
      { audience: "cli" },
    )!;
    expect(d.grant.notSuggested?.reason).toBe("system");
    expect(d.suggestion).toContain('prefix_rule(pattern=["git", "clone"], decision="allow")');
  });

  it("names an rc file and a credential store as what they are, and a directory by the store it holds", () => {
    expect(suggestWritableRoot("/home/me/.bashrc", HOME)).toEqual({ notSuggested: { dir: "/home/me/.bashrc", reason: "startup" } });
    expect(suggestWritableRoot("/home/me/.ssh/config", HOME)).toEqual({ notSuggested: { dir: "/home/me/.ssh", reason: "credentials" } });
    expect(suggestWritableRoot("/home/me/.local/x/y", HOME)).toEqual({
      notSuggested: { dir: "/home/me/.local", reason: "credentials", holds: "/home/me/.local/share/keyrings" },
    });
    const rc = explainSandboxDenial(evidence({ stderr: "sh: 1: cannot create /home/me/.bashrc: Read-only file system\n" }), { audience: "cli" })!;
    expect(rc.suggestion).toMatch(/^\/home\/me\/\.bashrc is read at start-up by your shell or the host's tools/);
    const ssh = explainSandboxDenial(evidence({ stderr: "sh: 1: cannot create /home/me/.ssh/config: Read-only file system\n" }), { audience: "cli" })!;
    expect(ssh.suggestion).toMatch(/^\/home\/me\/\.ssh\/config lies in \/home\/me\/\.ssh, a credential store/);
    // where no one can approve, the model is sent to the user, with the reason
    const model = explainSandboxDenial(evidence({ stderr: "sh: 1: cannot create /home/me/.ssh/config: Read-only file system\n" }), { approvalAvailable: false })!;
    expect(model.suggestion).not.toContain("require_escalated");
    expect(model.suggestion).toContain("a credential store");
  });

  it("a suggestion is never a file, a held path or a system directory (control: a plain directory is suggested)", () => {
    expect(suggestWritableRoot("/srv2/data/x", HOME)).toEqual({ writableRoot: "/srv2/data" });
    expect(suggestWritableRoot("/home/me/projects/app/x", HOME)).toEqual({ writableRoot: "/home/me/projects" });
    // a file directly in the home: its directory is the home, never the file
    expect(suggestWritableRoot("/home/me/notes.txt", HOME).writableRoot).toBeUndefined();
  });

  it("a directory inside a path every run holds (shellgate's cache, the user's rules) is never suggested; one that only contains it is", () => {
    const held = ["/home/me/.cache/shellgate", "/data/team/rules"];
    expect(suggestWritableRoot("/home/me/.cache/shellgate/v8/x", HOME, undefined, held)).toEqual({ notSuggested: { dir: "/home/me/.cache/shellgate", reason: "protected" } });
    expect(suggestWritableRoot("/data/team/rules/x.rules", HOME, undefined, held)).toEqual({ notSuggested: { dir: "/data/team/rules", reason: "protected" } });
    // control: without the list the same write would be sent to a root that stays read-only
    expect(suggestWritableRoot("/home/me/.cache/shellgate/v8/x", HOME)).toEqual({ writableRoot: "/home/me/.cache/shellgate" });
    // a root that contains a held path is fine: the held path is carved out of it
    expect(suggestWritableRoot("/data/team/x", HOME, undefined, held)).toEqual({ writableRoot: "/data/team" });
    const d = explainSandboxDenial(evidence({ protectedPaths: held, stderr: "touch: cannot touch '/home/me/.cache/shellgate/v8/x': Read-only file system\n" }), { audience: "cli" })!;
    expect(d.suggestion).toContain("lies in /home/me/.cache/shellgate, which every sandbox holds read-only");
    expect(d.suggestion).not.toContain("--writable-root");
  });

  it("the credential list is one list, with macOS's keychains on macOS only", () => {
    const linux = homeCredentialPaths(HOME, "linux").map((c) => c.path);
    for (const rel of [".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".npmrc", ".pki", ".password-store", ".config/gcloud", ".local/share/keyrings"]) {
      expect(linux, rel).toContain(`${HOME}/${rel}`);
    }
    expect(linux).not.toContain(`${HOME}/Library/Keychains`);
    expect(homeCredentialPaths(HOME, "darwin").map((c) => c.path)).toContain(`${HOME}/Library/Keychains`);
  });

  it("a write into a credential store held inside a granted home is named as one, not as shellgate's rules", () => {
    const homeRoot = [{ root: HOME, readOnlySubpaths: [`${HOME}/.ssh`, `${HOME}/.bashrc`, `${HOME}/.cargo/bin`, `${HOME}/.git`], pinnedAncestors: [] }];
    const explain = (p: string) => explainSandboxDenial(evidence({ writableRoots: homeRoot, cwd: HOME, stderr: `sh: 1: cannot create ${p}: Read-only file system\n` }), { audience: "cli" })!;
    const ssh = explain(`${HOME}/.ssh/authorized_keys`);
    expect(ssh.grant.protectedName).toBe("credentials");
    expect(ssh.summary).toContain("a credential store, read-only in every sandbox");
    expect(ssh.suggestion).toContain("write somewhere else, or run the command outside the sandbox instead");
    expect(ssh.suggestion).not.toContain("shellgate's rules");
    expect(explain(`${HOME}/.bashrc`).grant.protectedName).toBe("startup");
    expect(explain(`${HOME}/.cargo/bin/x`).grant.protectedName).toBe("tool-code");
  });
});

describe("explainSandboxDenial: busy protected names", () => {
  it("removing a protected name (a mount point: EBUSY) is explained as a protected path", () => {
    const line = "find: cannot delete './.codex': Device or resource busy";
    const d = explainSandboxDenial(evidence({ stderr: `${line}\n`, command: ["find", ".", "-delete"] }), { audience: "cli" })!;
    expect(d).toMatchObject({ kind: "filesystem", cause: "protected-path", paths: [`${WS}/.codex`], grant: { protectedName: ".codex" } });
    const rm = explainSandboxDenial(evidence({ stderr: "rm: cannot remove '.git': Device or resource busy\n" }))!;
    expect(rm).toMatchObject({ cause: "protected-path", paths: [`${WS}/.git`] });
  });

  it("EBUSY anywhere else is not the sandbox's (a busy device, an unrelated mount)", () => {
    expect(explainSandboxDenial(evidence({ stderr: "umount: /mnt/usb: target is busy; rmdir: failed to remove '/mnt/usb': Device or resource busy\n" }))).toBeUndefined();
    expect(explainSandboxDenial(evidence({ stderr: "rm: cannot remove 'build/out': Device or resource busy\n" }))).toBeUndefined();
    // nor under Landlock, which holds no names with mount points
    expect(explainSandboxDenial(evidence({ isolation: "landlock+seccomp", denialSignals: landlock, stderr: "find: cannot delete './.codex': Device or resource busy\n" }))).toBeUndefined();
  });
});

describe("explainSandboxDenial: network and process", () => {
  it.each([
    ["curl", "curl: (6) Could not resolve host: example.com", ["example.com"]],
    ["curl connect", "curl: (7) Failed to connect to 192.0.2.2 port 8080 after 0 ms: Couldn't connect to server", ["192.0.2.2"]],
    ["wget", "wget: unable to resolve host address ‘example.com’", ["example.com"]],
    ["node fetch", "  [cause]: Error: getaddrinfo EAI_AGAIN example.com", ["example.com"]],
    ["node connect", "  [cause]: Error: connect EPERM 192.0.2.2:18077 - Local (undefined:undefined)", ["192.0.2.2:18077"]],
    ["git", "fatal: unable to access 'https://git.example.com/x/y/': Could not resolve host: git.example.com", ["git.example.com"]],
    ["npm", "npm error request to https://registry.example.org/x failed, reason: getaddrinfo EAI_AGAIN registry.example.org", ["registry.example.org"]],
    ["python", "socket.gaierror: [Errno -3] Temporary failure in name resolution", []],
    ["go", "dial tcp: lookup goproxy.example.org on 10.0.0.1:53: dial udp 10.0.0.1:53: socket: operation not permitted", ["goproxy.example.org"]],
  ])("%s with the network off", (_name, line, hosts) => {
    const d = explainSandboxDenial(evidence({ exitCode: 6, stderr: `${line}\n` }), { audience: "cli" })!;
    expect(d).toMatchObject({ kind: "network", cause: "network-disabled", paths: [], hosts, grant: { network: true } });
    expect(d.suggestion).toContain("--network on");
  });

  it("a Python traceback ending in EPERM from a socket call is the network being off; EPERM alone is not", () => {
    const traceback = [
      "Traceback (most recent call last):",
      '  File "<string>", line 1, in <module>',
      '  File "/usr/lib/python3.11/socket.py", line 836, in create_connection',
      "    sock = socket(af, socktype, proto)",
      "PermissionError: [Errno 1] Operation not permitted",
    ].join("\n");
    const d = explainSandboxDenial(evidence({ stderr: `${traceback}\n` }), { audience: "cli" })!;
    expect(d).toMatchObject({ kind: "network", cause: "network-disabled", grant: { network: true } });
    expect(d.evidence.lines).toEqual(["PermissionError: [Errno 1] Operation not permitted"]);
    // control: the same error from os.chmod, and the same traceback with the network on
    expect(explainSandboxDenial(evidence({ stderr: "PermissionError: [Errno 1] Operation not permitted: 'x'\n" }))).toBeUndefined();
    expect(explainSandboxDenial(evidence({ stderr: traceback, policy: workspaceWrite({ networkAccess: true }) }))).toBeUndefined();
  });

  it("a silent `getent hosts NAME` exiting 2 is read from the command, never from another exit code", () => {
    for (const command of [["getent", "hosts", "example.com"], ["/bin/sh", "-c", "getent hosts example.com"], ["bash", "-lc", "getent ahosts example.com"]]) {
      expect(explainSandboxDenial(evidence({ exitCode: 2, command }))?.hosts, command.join(" ")).toEqual(["example.com"]);
    }
    expect(explainSandboxDenial(evidence({ exitCode: 1, command: ["getent", "hosts", "example.com"] }))).toBeUndefined();
    expect(explainSandboxDenial(evidence({ exitCode: 2, command: ["sh", "-c", "getent hosts a; make"] }))).toBeUndefined();
  });

  it("SIGSYS under the Linux sandbox is the seccomp filter", () => {
    const d = explainSandboxDenial(evidence({ exitCode: 159, stderr: "sh: 1: ./probe: Bad system call\n" }))!;
    expect(d).toMatchObject({ kind: "process", cause: "seccomp", evidence: { lines: ["sh: 1: ./probe: Bad system call"] } });
    // a backend that names no such exit code (or signal): the program's own failure
    expect(explainSandboxDenial(evidence({ exitCode: 159, sandboxType: "seatbelt", denialSignals: undefined }))).toBeUndefined();
    expect(explainSandboxDenial(evidence({ exitCode: 159, signal: "SIGSYS", sandboxType: "container", denialSignals: undefined }))).toBeUndefined();
    expect(explainSandboxDenial(evidence({ exitCode: 159, signal: "SIGSYS" }))).toMatchObject({ cause: "seccomp" });
  });
});

describe("explainSandboxDenial: audiences, note and input errors", () => {
  it("renders the same denial for the model and for the CLI", () => {
    const model = explainSandboxDenial(evidence({ stderr: "touch: cannot touch '/data/x': Read-only file system\n" }))!;
    expect(model.audience).toBe("model");
    expect(model.suggestion).toContain('sandbox_permissions: "require_escalated"');
    expect(model.suggestion).not.toContain("--writable-root");
    const cli = denialForAudience(model, "cli");
    expect(cli.suggestion).toBe("re-run with --writable-root /data to allow writes there");
    expect({ ...cli, suggestion: "", audience: "model" }).toEqual({ ...model, suggestion: "" });
    expect(sandboxDenialNote(cli)).toBe(
      "[shellgate] sandbox: writing to /data/x was refused (read-only: outside the writable roots); re-run with --writable-root /data to allow writes there",
    );
  });

  it("where no one can approve, the model is sent to the user instead of to an escalation (the CLI text keeps its flags)", () => {
    const ev = evidence({ stderr: "touch: cannot touch '/data/x': Read-only file system\n" });
    const model = explainSandboxDenial(ev, { approvalAvailable: false })!;
    expect(model.grant.noApprover).toBe(true);
    expect(model.suggestion).toBe("no one can approve running it outside the sandbox here; if the task needs it, ask the user to add /data as a writable root");
    const git = explainSandboxDenial(evidence({ stderr: "fatal: Unable to create '/work/ws/.git/index.lock': Read-only file system.\n" }), { approvalAvailable: false })!;
    expect(git.suggestion).toContain("ask the user to run it themselves or to allow it with a rule");
    expect(git.suggestion).not.toContain("require_escalated");
    expect(denialForAudience(model, "cli").suggestion).toContain("--writable-root /data");
    // control: with an approver the model is told how to escalate
    expect(explainSandboxDenial(ev)!.suggestion).toContain('sandbox_permissions: "require_escalated"');
    // The CLI's --escalate way out says what it needs where this run could not have been approved.
    const net = evidence({ exitCode: 6, stderr: "curl: (6) Could not resolve host: example.com\n" });
    expect(explainSandboxDenial(net, { audience: "cli", approvalAvailable: false })!.suggestion).toContain(
      "or re-run with --escalate at a terminal, under an approval policy other than never, and approve it",
    );
    expect(explainSandboxDenial(net, { audience: "cli" })!.suggestion).toContain("or re-run with --escalate and approve it to run");
  });

  it("under denied-read paths (every command stays sandboxed) it never offers a way outside the sandbox", () => {
    const policy = workspaceWrite({ deniedReadPaths: ["/secret"] });
    const fsDenial = explainSandboxDenial(evidence({ policy, stderr: "touch: cannot touch '/data/x': Read-only file system\n" }))!;
    expect(fsDenial.grant).toMatchObject({ writableRoot: "/data", sandboxAlwaysOn: true });
    expect(fsDenial.suggestion).not.toContain("require_escalated");
    expect(fsDenial.suggestion).toContain("ask the user to add /data as a writable root");
    const git = explainSandboxDenial(evidence({ policy, stderr: "sh: 1: cannot create .git/x: Read-only file system\n" }), { audience: "cli" })!;
    expect(git.suggestion).not.toMatch(/--escalate|prefix_rule/);
    expect(git.suggestion).toContain("denied-read paths keep every command sandboxed");
    const net = explainSandboxDenial(evidence({ policy, stderr: "curl: (6) Could not resolve host: example.com\n" }), { audience: "cli" })!;
    expect(net.suggestion).toBe("re-run with --allow-domain example.com (only that host, through shellgate's network proxy) or with --network on (the whole network)");
  });

  it("suggests a domain grant for a remote host, and only the whole network for the host's loopback", () => {
    const remote = explainSandboxDenial(evidence({ policy: workspaceWrite(), stderr: "curl: (6) Could not resolve host: registry.example.org\n" }), { audience: "cli" })!;
    expect(remote.suggestion).toMatch(/^re-run with --allow-domain registry\.example\.org \(only that host/);
    const local = explainSandboxDenial(evidence({ policy: workspaceWrite(), stderr: "curl: (7) Failed to connect to 127.0.0.1 port 8080: Network is unreachable\n" }), { audience: "cli" })!;
    expect(local.suggestion).toMatch(/^re-run with --network on \(the host's own loopback is outside the sandbox's network\)/);
  });

  it("rejects malformed evidence with a typed error naming the field", () => {
    const bad = { ...evidence(), cwd: "relative" };
    expect(() => explainSandboxDenial(bad)).toThrow(InvalidDenialEvidenceError);
    expect(() => explainSandboxDenial(bad)).toThrow(/^cwd: must be an absolute path/);
    try {
      explainSandboxDenial({ ...evidence(), writableRoots: [{ root: 3 }] } as unknown as DenialEvidence);
    } catch (error) {
      expect((error as InvalidDenialEvidenceError).code).toBe("SANDBOX_INVALID_EVIDENCE");
      expect((error as InvalidDenialEvidenceError).field).toBe("writableRoots.0.root");
    }
    expect.assertions(4);
  });
});

// The lines above are copies; here the tools print them for real under a minimal bubblewrap view
// (everything read-only, the workspace writable, its `.git` read-only), as the backend builds it.
skipUnless(whyBwrapCannotRun()).describe("explainSandboxDenial on what real tools print under bubblewrap", () => {
  it.each([
    ["sh", ["sh", "-c", "echo x > /etc/sg-x"], "/etc/sg-x"],
    ["bash", ["bash", "-c", "echo x > /etc/sg-x"], "/etc/sg-x"],
    ["touch", ["touch", "/etc/sg-x"], "/etc/sg-x"],
    ["mkdir", ["mkdir", "/etc/sg-d"], "/etc/sg-d"],
    ["cp", ["cp", "/etc/hostname", "/etc/sg-x"], "/etc/sg-x"],
    ["python3", ["python3", "-c", "open('/etc/sg-x', 'w')"], "/etc/sg-x"],
    ["node", [process.execPath, "-e", "require('fs').writeFileSync('/etc/sg-x', '')"], "/etc/sg-x"],
    ["node mkdir -p", [process.execPath, "-e", "require('fs').mkdirSync('/etc/sg-d/a', { recursive: true })"], "/etc/sg-d/a"],
    ["git in .git", ["sh", "-c", "git init -q . 2>/dev/null; echo x > .git/config"], ".git/config"],
  ])("%s", async (name, argv, expected) => {
    const cwd = await tempDir();
    await layout(cwd, { ".git/": "" });
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: {} });
    const exists = spawnSync("sh", ["-c", `command -v ${argv[0]}`]).status === 0;
    if (!exists) return; // the tool is not installed here
    const r = spawnSync(
      "bwrap",
      ["--ro-bind", "/", "/", "--dev", "/dev", "--bind", cwd, cwd, "--ro-bind", `${cwd}/.git`, `${cwd}/.git`, "--chdir", cwd, "--", ...argv],
      { encoding: "utf8" },
    );
    const d = explainSandboxDenial({
      exitCode: r.status ?? 1,
      stdout: r.stdout,
      stderr: r.stderr,
      sandboxType: "linux",
      isolation: "bwrap+seccomp",
      denialSignals: bwrap,
      policy: workspaceWrite(),
      writableRoots: roots,
      cwd,
    });
    const want = expected.startsWith("/") ? expected : `${cwd}/${expected}`;
    expect(d?.paths, `${name}: ${r.stderr}`).toEqual([want]);
    expect(d?.cause).toBe(expected.startsWith("/") ? "outside-writable-roots" : "protected-path");
    // Control: the same command in a writable place is no denial at all.
    const own = explainSandboxDenial({ exitCode: 1, stdout: "", stderr: r.stderr.replaceAll("/etc/", `${cwd}/`), sandboxType: "linux", isolation: "bwrap+seccomp", denialSignals: bwrap, policy: workspaceWrite(), writableRoots: roots, cwd });
    if (expected.startsWith("/")) expect(own).toBeUndefined();
  });
});
