// The SBPL evaluator's own tests: if it misread SBPL, every profile test built on it would prove
// nothing. Each rule of its semantics is checked both ways (a match and a near miss).
import { describe, expect, it } from "vitest";
import { compileArgv, compileProfile, SbplEvaluationError } from "./evaluator.js";
import { readSExprs, SbplSyntaxError } from "./sexpr.js";

const w = (path: string) => ({ operation: "file-write-data" as const, path });

describe("SBPL reader", () => {
  it("reads lists, symbols, strings with escapes, regex literals, numbers and skips comments", () => {
    expect(readSExprs('(a "b \\"c\\" \\\\" #"^/x\\.y$" 1 #t) ; done\n(b)')).toEqual([
      { kind: "list", items: [
        { kind: "symbol", name: "a" }, { kind: "string", value: 'b "c" \\' }, { kind: "regex", source: "^/x\\.y$" },
        { kind: "number", value: 1 }, { kind: "boolean", value: true },
      ] },
      { kind: "list", items: [{ kind: "symbol", name: "b" }] },
    ]);
  });

  it.each(["(a", "(a))", '"open', '#"open'])("refuses malformed text %j", (text) => {
    expect(() => readSExprs(text)).toThrow(SbplSyntaxError);
  });
});

describe("SBPL evaluator", () => {
  it("the default decides when no rule matches; the last matching rule wins", () => {
    const p = compileProfile('(version 1)(deny default)(allow file-write* (subpath "/a"))(deny file-write* (subpath "/a/ro"))(allow file-write* (literal "/a/ro/ok"))');
    expect(p.evaluate(w("/b"))).toEqual({ decision: "deny", rule: -1 });
    expect(p.allows(w("/a/x"))).toBe(true);
    expect(p.allows(w("/a/ro/x"))).toBe(false);
    expect(p.allows(w("/a/ro/ok"))).toBe(true);
    // the same rules in the other order: the broad allow now comes last and wins
    const q = compileProfile('(version 1)(deny default)(deny file-write* (subpath "/a/ro"))(allow file-write* (subpath "/a"))');
    expect(q.allows(w("/a/ro/x"))).toBe(true);
    expect(compileProfile("(version 1)(allow default)").allows(w("/anything"))).toBe(true);
  });

  it("operation families: file-write* covers every file-write-… operation and nothing else", () => {
    const p = compileProfile('(version 1)(deny default)(allow file-write* (subpath "/a"))');
    for (const op of ["file-write-data", "file-write-create", "file-write-unlink", "file-write-mode", "file-write-times"] as const) {
      expect(p.allows({ operation: op, path: "/a/f" }), op).toBe(true);
    }
    expect(p.allows({ operation: "file-read-data", path: "/a/f" })).toBe(false);
    expect(p.allows({ operation: "file-link", path: "/a/f" })).toBe(false);
    const r = compileProfile("(version 1)(deny default)(allow file-read*)(allow network*)");
    expect(r.allows({ operation: "file-read-metadata", path: "/x" })).toBe(true);
    expect(r.allows({ operation: "file-write-data", path: "/x" })).toBe(false);
    expect(r.allows({ operation: "network-outbound" })).toBe(true);
    expect(r.allows({ operation: "network-bind" })).toBe(true);
    // a concrete operation covers only itself
    const c = compileProfile('(version 1)(deny default)(allow file-write-data (literal "/dev/null"))');
    expect(c.allows(w("/dev/null"))).toBe(true);
    expect(c.allows({ operation: "file-write-create", path: "/dev/null" })).toBe(false);
  });

  it("subpath matches the path itself and below it, never a sibling with the same prefix", () => {
    const p = compileProfile('(version 1)(deny default)(allow file-write* (subpath "/a/b"))');
    expect(p.allows(w("/a/b"))).toBe(true);
    expect(p.allows(w("/a/b/c/d"))).toBe(true);
    expect(p.allows(w("/a/bc"))).toBe(false);
    expect(p.allows(w("/a"))).toBe(false);
    expect(compileProfile('(version 1)(deny default)(allow file-write* (subpath "/"))').allows(w("/x/y"))).toBe(true);
  });

  it("literal matches exactly; regex as a regular expression", () => {
    const p = compileProfile('(version 1)(deny default)(allow file-write* (literal "/a/b") (regex #"^/dev/ttys[0-9]+$"))');
    expect(p.allows(w("/a/b"))).toBe(true);
    expect(p.allows(w("/a/b/c"))).toBe(false);
    expect(p.allows(w("/dev/ttys003"))).toBe(true);
    expect(p.allows(w("/dev/ttys003x"))).toBe(false);
  });

  it("several filters in one rule: any of them; require-all, require-any, require-not", () => {
    const p = compileProfile(
      '(version 1)(deny default)(allow file-write* (require-all (subpath "/a") (require-not (subpath "/a/.git")) (require-not (literal "/a"))) (literal "/z"))',
    );
    expect(p.allows(w("/a/x"))).toBe(true);
    expect(p.allows(w("/a/.git/hooks/x"))).toBe(false);
    expect(p.allows(w("/a/.git"))).toBe(false);
    expect(p.allows(w("/a"))).toBe(false);
    expect(p.allows(w("/z"))).toBe(true);
    const any = compileProfile('(version 1)(deny default)(allow file-write* (require-any (literal "/x") (literal "/y")))');
    expect([any.allows(w("/x")), any.allows(w("/y")), any.allows(w("/q"))]).toEqual([true, true, false]);
  });

  it("(extension NAME) matches a file that carries that extension, only together with the other filters of a require-all", () => {
    const p = compileProfile('(version 1)(deny default)(allow file-write* (require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty")))');
    expect(p.allows({ ...w("/dev/ttys003"), extensions: ["com.apple.sandbox.pty"] })).toBe(true);
    expect(p.allows(w("/dev/ttys003"))).toBe(false);
    expect(p.allows({ ...w("/dev/ttys003"), extensions: ["com.apple.app-sandbox.read"] })).toBe(false);
    expect(p.allows({ ...w("/a/b"), extensions: ["com.apple.sandbox.pty"] })).toBe(false);
    expect(() => p.allows({ operation: "pseudo-tty" })).not.toThrow();
    const bare = compileProfile('(version 1)(deny default)(allow file-write* (extension "com.apple.sandbox.pty"))');
    expect(() => bare.allows({ operation: "file-write-data" })).toThrow(/without path/);
  });

  it("(param NAME) reads the -D value; an undefined parameter is an error, not an empty path", () => {
    const text = '(version 1)(deny default)(allow file-write* (subpath (param "ROOT")))';
    const p = compileProfile(text, { ROOT: "/w s/é\"q" });
    expect(p.allows(w("/w s/é\"q/f"))).toBe(true);
    expect(p.allows(w("/w s/other"))).toBe(false);
    expect([...p.usedParams]).toEqual(["ROOT"]);
    expect(() => compileProfile(text, {})).toThrow(/parameter ROOT is not defined/);
  });

  it("signal and process-info targets; sysctl, mach and ipc name filters", () => {
    const p = compileProfile(
      '(version 1)(deny default)(allow signal (target same-sandbox))(allow sysctl-read (sysctl-name "hw.ncpu") (sysctl-name-prefix "kern.proc.pid."))' +
        '(allow mach-lookup (global-name "com.apple.x"))(allow ipc-posix-shm-read* (ipc-posix-name-prefix "apple.") (ipc-posix-name-regex #"^/K[0-9]+$"))',
    );
    expect(p.allows({ operation: "signal", target: "same-sandbox" })).toBe(true);
    expect(p.allows({ operation: "signal", target: "other" })).toBe(false);
    expect(p.allows({ operation: "sysctl-read", sysctlName: "hw.ncpu" })).toBe(true);
    expect(p.allows({ operation: "sysctl-read", sysctlName: "hw.ncpu2" })).toBe(false);
    expect(p.allows({ operation: "sysctl-read", sysctlName: "kern.proc.pid.12" })).toBe(true);
    expect(p.allows({ operation: "sysctl-read", sysctlName: "kern.proc.all" })).toBe(false);
    expect(p.allows({ operation: "mach-lookup", globalName: "com.apple.x" })).toBe(true);
    expect(p.allows({ operation: "mach-lookup", globalName: "com.apple.y" })).toBe(false);
    expect(p.allows({ operation: "ipc-posix-shm-read-data", ipcName: "apple.cfprefs.1" })).toBe(true);
    expect(p.allows({ operation: "ipc-posix-shm-read-data", ipcName: "/K12" })).toBe(true);
    expect(p.allows({ operation: "ipc-posix-shm-read-data", ipcName: "/other" })).toBe(false);
    // a filter that needs an attribute the query lacks is an error, not a silent "no match"
    expect(() => p.evaluate({ operation: "signal" })).toThrow(SbplEvaluationError);
  });

  it("remote ip: localhost is the loopback addresses, * any; the port exactly or *; a unix socket is not an ip", () => {
    const out = (ip: string, port: number) => ({ operation: "network-outbound" as const, remote: { ip, port } });
    const p = compileProfile('(version 1)(deny default)(allow network-outbound (remote ip "localhost:3128") (remote ip "*:443"))');
    expect(p.allows(out("127.0.0.1", 3128))).toBe(true);
    expect(p.allows(out("127.0.0.53", 3128))).toBe(true);
    expect(p.allows(out("::1", 3128))).toBe(true);
    expect(p.allows(out("127.0.0.1", 3129))).toBe(false);
    expect(p.allows(out("10.0.0.1", 3128))).toBe(false);
    expect(p.allows(out("93.184.216.34", 443))).toBe(true);
    expect(p.allows(out("93.184.216.34", 80))).toBe(false);
    expect(p.allows({ operation: "network-outbound", remote: { unixSocket: "/var/run/docker.sock" } })).toBe(false);
    // the rule names network-outbound only
    expect(p.allows({ operation: "network-inbound", remote: { ip: "127.0.0.1", port: 3128 } })).toBe(false);
    const anyPort = compileProfile('(version 1)(deny default)(allow network-outbound (remote ip "localhost:*"))');
    expect([anyPort.allows(out("127.0.0.1", 1)), anyPort.allows(out("8.8.8.8", 53))]).toEqual([true, false]);
    // a filter on remote applied to a query that does not say where it goes is an error
    expect(() => p.evaluate({ operation: "network-outbound" })).toThrow(SbplEvaluationError);
  });

  it("socket-domain and socket-type, combined with require-all", () => {
    const p = compileProfile("(version 1)(deny default)(allow system-socket (require-all (socket-domain AF_INET) (socket-type SOCK_STREAM)))");
    expect(p.allows({ operation: "system-socket", socketDomain: "AF_INET", socketType: "SOCK_STREAM" })).toBe(true);
    expect(p.allows({ operation: "system-socket", socketDomain: "AF_INET", socketType: "SOCK_DGRAM" })).toBe(false);
    expect(p.allows({ operation: "system-socket", socketDomain: "AF_UNIX", socketType: "SOCK_STREAM" })).toBe(false);
    expect(() => p.evaluate({ operation: "system-socket" })).toThrow(SbplEvaluationError);
  });

  it.each([
    ["(deny default)", /starts with \(version 1\)/],
    ["(version 1)(allow file-write*)", /sets no default/],
    ["(version 1)(deny default)(allow file-writ)", /unknown operation file-writ/],
    ["(version 1)(deny default)(allow bogus*)", /unknown operation bogus\*/],
    ['(version 1)(deny default)(allow file-write* (vnode-type REGULAR-FILE))', /unsupported filter vnode-type/],
    ['(version 1)(deny default)(allow file-write* (subpath (string-append "/a" "/b")))', /needs a string or \(param/],
    ["(version 1)(deny default)(define x 1)", /unsupported form/],
    ['(version 1)(deny default)(allow file-write* (literal "/a") file-read*)', /after a filter/],
    // Seatbelt takes only localhost or * as the host of a network filter
    ['(version 1)(deny default)(allow network-outbound (remote ip "127.0.0.1:80"))', /localhost:PORT or \*:PORT/],
    ['(version 1)(deny default)(allow network-outbound (remote ip "localhost:0"))', /port out of range/],
    ['(version 1)(deny default)(allow network-outbound (remote tcp "localhost:80"))', /unsupported remote kind tcp/],
    ["(version 1)(deny default)(allow system-socket (socket-domain AF_BOGUS))", /unsupported socket-domain/],
  ])("refuses what it does not model: %s", (text, message) => {
    expect(() => compileProfile(text)).toThrow(message);
  });

  it("compileArgv takes a sandbox-exec argv apart: profile, -D parameters (values may hold =), command", () => {
    const { profile, params, command } = compileArgv([
      "/usr/bin/sandbox-exec", "-p", '(version 1)(deny default)(allow file-write* (subpath (param "R")))', "-DR=/a=b", "--", "touch", "-x",
    ]);
    expect(params).toEqual({ R: "/a=b" });
    expect(command).toEqual(["touch", "-x"]);
    expect(profile.allows(w("/a=b/f"))).toBe(true);
    expect(() => compileArgv(["sandbox-exec", "-p", "(version 1)", "--"])).toThrow(/not a sandbox-exec argv/);
    expect(() => compileArgv(["/usr/bin/sandbox-exec", "-p", "(version 1)(deny default)", "-DA=1"])).toThrow(/no --/);
  });
});
