// A small SBPL evaluator, test support only: it reads a profile, applies the `-D` parameters and
// answers allow/deny for one operation, with Seatbelt's rule that the last matching rule wins
// (the `default` rule when none matches) and its operation families (`file-write*` covers
// `file-write-data`, `file-write-create`, …). It knows exactly the vocabulary the generated
// profiles use and throws on anything else, so that a profile cannot pass by using a form it
// misreads. It does not resolve paths: the query's path is the one the kernel hands Seatbelt
// (symlinks and `..` resolved, macOS-canonical); the test harness resolves it. Network filters:
// `(remote ip "HOST:PORT")` with HOST `localhost` (the loopback addresses) or `*` and PORT a number
// or `*`, the only forms Seatbelt accepts (it refuses `127.0.0.1:80`, and so does this); and
// `socket-domain`/`socket-type` on the socket a `system-socket` query creates; `(extension "NAME")`
// on the extensions a file query says the file carries.
import { readSExprs, type SExpr } from "./sexpr.js";

/** Every concrete operation a query may name; rules may name these, a family (`file-write*`) or `default`. */
export const OPERATIONS = [
  "file-read-data", "file-read-metadata", "file-read-xattr",
  "file-write-data", "file-write-create", "file-write-unlink", "file-write-mode", "file-write-owner",
  "file-write-times", "file-write-flags", "file-write-xattr", "file-write-setugid",
  "file-ioctl", "file-link",
  "process-exec", "process-fork", "process-info-pidinfo", "process-info-setcontrol", "signal",
  "network-outbound", "network-inbound", "network-bind", "system-socket",
  "sysctl-read", "sysctl-write", "mach-lookup", "iokit-open", "pseudo-tty", "user-preference-read",
  "ipc-posix-sem", "ipc-posix-shm-read-data", "ipc-posix-shm-read-metadata", "ipc-posix-shm-write-create",
  "ipc-posix-shm-write-data", "ipc-posix-shm-write-unlink",
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** One operation asked about, with what its filters look at. */
export interface Query {
  operation: Operation;
  /** For file operations: the absolute path Seatbelt sees. */
  path?: string;
  /** For `signal` and `process-info*`: whether the target process is in the same sandbox. */
  target?: "same-sandbox" | "other";
  sysctlName?: string;
  globalName?: string;
  iokitClass?: string;
  ipcName?: string;
  /** For `network-*`: where the socket connects or sends to (an IP address and port, or a unix socket's path). */
  remote?: { ip: string; port: number } | { unixSocket: string };
  /** For `system-socket`: the socket's domain and type, as their C names (`AF_INET`, `SOCK_STREAM`). */
  socketDomain?: string;
  socketType?: string;
  /**
   * For file operations: the sandbox extensions the file carries for this process (a pseudo-terminal
   * opened through `/dev/ptmx` inside the sandbox carries `com.apple.sandbox.pty`). None when absent.
   */
  extensions?: readonly string[];
}

/** What Seatbelt's `localhost` stands for: the loopback addresses, IPv4 (127/8) and IPv6 (::1). */
function isLoopback(ip: string): boolean {
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip) || ip === "::1";
}

const SOCKET_DOMAINS = new Set(["AF_INET", "AF_INET6", "AF_UNIX", "AF_SYSTEM", "AF_ROUTE"]);
const SOCKET_TYPES = new Set(["SOCK_STREAM", "SOCK_DGRAM", "SOCK_RAW"]);

export interface Decision {
  decision: "allow" | "deny";
  /** Index among the profile's rules of the one that decided; -1 for the default. */
  rule: number;
}

type Filter = (q: Query) => boolean;
interface Rule {
  action: "allow" | "deny";
  operations: string[];
  /** Any of them matching makes the rule match; none at all means the rule matches always. */
  filters: Filter[];
}

export class SbplEvaluationError extends Error {}

const describe = (e: SExpr): string =>
  e.kind === "list" ? `(${e.items.map(describe).join(" ")})` : e.kind === "symbol" ? e.name : e.kind === "string" ? JSON.stringify(e.value) : e.kind === "regex" ? `#"${e.source}"` : String(e.value);

function operationMatches(ruleOp: string, op: Operation): boolean {
  if (ruleOp.endsWith("*")) return op.startsWith(ruleOp.slice(0, -1));
  return ruleOp === op;
}

function checkOperationName(name: string): void {
  if (name === "default") return;
  const known = name.endsWith("*") ? OPERATIONS.some((o) => o.startsWith(name.slice(0, -1))) : (OPERATIONS as readonly string[]).includes(name);
  if (!known) throw new SbplEvaluationError(`unknown operation ${name}`);
}

/** A profile read and bound to its parameters, ready for queries. */
export class CompiledProfile {
  readonly rules: readonly Rule[];
  readonly defaultAction: "allow" | "deny";
  readonly #params: Readonly<Record<string, string>>;
  /** Parameters the profile read, for tests to check that every `-D` is used. */
  readonly usedParams = new Set<string>();

  constructor(text: string, params: Readonly<Record<string, string>>) {
    this.#params = params;
    const forms = readSExprs(text);
    const [version, ...rest] = forms;
    if (!version || describe(version) !== "(version 1)") throw new SbplEvaluationError("a profile starts with (version 1)");
    const rules: Rule[] = [];
    let defaultAction: "allow" | "deny" | undefined;
    for (const form of rest) {
      if (form.kind !== "list") throw new SbplEvaluationError(`not a rule: ${describe(form)}`);
      const [head, ...args] = form.items;
      if (head?.kind !== "symbol" || (head.name !== "allow" && head.name !== "deny")) throw new SbplEvaluationError(`unsupported form: ${describe(form)}`);
      const operations: string[] = [];
      const filters: Filter[] = [];
      for (const arg of args) {
        if (arg.kind === "symbol") {
          if (filters.length > 0) throw new SbplEvaluationError(`operation ${arg.name} after a filter in ${describe(form)}`);
          checkOperationName(arg.name);
          operations.push(arg.name);
        } else filters.push(this.#filter(arg));
      }
      if (operations.length === 0) throw new SbplEvaluationError(`rule without an operation: ${describe(form)}`);
      if (operations.includes("default")) {
        if (operations.length > 1 || filters.length > 0) throw new SbplEvaluationError(`default takes no other operation or filter: ${describe(form)}`);
        defaultAction = head.name;
        continue;
      }
      rules.push({ action: head.name, operations, filters });
    }
    if (!defaultAction) throw new SbplEvaluationError("the profile sets no default");
    this.rules = rules;
    this.defaultAction = defaultAction;
  }

  /** The decision for `q`: the last rule naming its operation whose filters match, else the default. */
  evaluate(q: Query): Decision {
    if (!(OPERATIONS as readonly string[]).includes(q.operation)) throw new SbplEvaluationError(`unknown operation ${q.operation}`);
    if (q.path !== undefined && !q.path.startsWith("/")) throw new SbplEvaluationError(`a query path must be absolute: ${q.path}`);
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i] as Rule;
      if (!rule.operations.some((o) => operationMatches(o, q.operation))) continue;
      if (rule.filters.length === 0 || rule.filters.some((f) => f(q))) return { decision: rule.action, rule: i };
    }
    return { decision: this.defaultAction, rule: -1 };
  }

  /** Shorthand: whether `q` is allowed. */
  allows(q: Query): boolean {
    return this.evaluate(q).decision === "allow";
  }

  /** A string argument: a string literal or `(param "NAME")`. */
  #string(e: SExpr | undefined, where: string): string {
    if (e?.kind === "string") return e.value;
    if (e?.kind === "list" && e.items[0]?.kind === "symbol" && e.items[0].name === "param") {
      const name = e.items[1];
      if (e.items.length !== 2 || name?.kind !== "string") throw new SbplEvaluationError(`malformed ${describe(e)}`);
      const value = this.#params[name.value];
      if (value === undefined) throw new SbplEvaluationError(`parameter ${name.value} is not defined (${where})`);
      this.usedParams.add(name.value);
      return value;
    }
    throw new SbplEvaluationError(`${where} needs a string or (param …), got ${e ? describe(e) : "nothing"}`);
  }

  #regex(e: SExpr | undefined, where: string): RegExp {
    if (e?.kind !== "regex") throw new SbplEvaluationError(`${where} needs a #"…" regex`);
    return new RegExp(e.source);
  }

  #filter(e: SExpr): Filter {
    if (e.kind !== "list" || e.items[0]?.kind !== "symbol") throw new SbplEvaluationError(`not a filter: ${describe(e)}`);
    const name = e.items[0].name;
    const args = e.items.slice(1);
    const one = () => {
      if (args.length !== 1) throw new SbplEvaluationError(`${name} takes one argument: ${describe(e)}`);
      return args[0];
    };
    const attr = (key: keyof Query, q: Query): string => {
      const v = q[key];
      if (typeof v !== "string") throw new SbplEvaluationError(`filter ${describe(e)} applied to a ${q.operation} query without ${key}`);
      return v;
    };
    switch (name) {
      case "literal": {
        const s = this.#string(one(), describe(e));
        return (q) => attr("path", q) === s;
      }
      case "subpath": {
        const s = this.#string(one(), describe(e));
        const prefix = s.endsWith("/") ? s : `${s}/`;
        return (q) => {
          const p = attr("path", q);
          return p === s || p.startsWith(prefix);
        };
      }
      case "regex": {
        const r = this.#regex(one(), describe(e));
        return (q) => r.test(attr("path", q));
      }
      case "require-all":
      case "require-any": {
        if (args.length === 0) throw new SbplEvaluationError(`${name} needs filters`);
        const fs = args.map((a) => this.#filter(a));
        return name === "require-all" ? (q) => fs.every((f) => f(q)) : (q) => fs.some((f) => f(q));
      }
      case "extension": {
        const s = this.#string(one(), describe(e));
        return (q) => {
          attr("path", q);
          return (q.extensions ?? []).includes(s);
        };
      }
      case "require-not": {
        const f = this.#filter(one() as SExpr);
        return (q) => !f(q);
      }
      case "target": {
        const t = one();
        if (t?.kind !== "symbol" || t.name !== "same-sandbox") throw new SbplEvaluationError(`unsupported target: ${describe(e)}`);
        return (q) => attr("target", q) === "same-sandbox";
      }
      case "remote": {
        const [kind, address] = args;
        if (args.length !== 2 || kind?.kind !== "symbol" || address?.kind !== "string") throw new SbplEvaluationError(`remote takes a kind and an address: ${describe(e)}`);
        if (kind.name !== "ip") throw new SbplEvaluationError(`unsupported remote kind ${kind.name}`);
        const m = /^(localhost|\*):(\*|\d+)$/.exec(address.value);
        if (!m) throw new SbplEvaluationError(`a remote address is localhost:PORT or *:PORT (PORT a number or *), got ${JSON.stringify(address.value)}`);
        const host = m[1] as string;
        const port = m[2] === "*" ? undefined : Number(m[2]);
        if (port !== undefined && (port < 1 || port > 65535)) throw new SbplEvaluationError(`port out of range in ${describe(e)}`);
        return (q) => {
          const r = q.remote;
          if (r === undefined) throw new SbplEvaluationError(`filter ${describe(e)} applied to a ${q.operation} query without remote`);
          if (!("ip" in r)) return false;
          return (host === "*" || isLoopback(r.ip)) && (port === undefined || r.port === port);
        };
      }
      case "socket-domain":
      case "socket-type": {
        const v = one();
        const known = name === "socket-domain" ? SOCKET_DOMAINS : SOCKET_TYPES;
        if (v?.kind !== "symbol" || !known.has(v.name)) throw new SbplEvaluationError(`unsupported ${name}: ${describe(e)}`);
        const key = name === "socket-domain" ? "socketDomain" : "socketType";
        return (q) => attr(key, q) === v.name;
      }
      case "sysctl-name":
      case "global-name":
      case "iokit-user-client-class": {
        const s = this.#string(one(), describe(e));
        const key = name === "sysctl-name" ? "sysctlName" : name === "global-name" ? "globalName" : "iokitClass";
        return (q) => attr(key, q) === s;
      }
      case "sysctl-name-prefix":
      case "ipc-posix-name-prefix": {
        const s = this.#string(one(), describe(e));
        const key = name === "sysctl-name-prefix" ? "sysctlName" : "ipcName";
        return (q) => attr(key, q).startsWith(s);
      }
      case "ipc-posix-name-regex": {
        const r = this.#regex(one(), describe(e));
        return (q) => r.test(attr("ipcName", q));
      }
      default:
        throw new SbplEvaluationError(`unsupported filter ${name}`);
    }
  }
}

/** Read `text` with its `-D` parameters. */
export function compileProfile(text: string, params: Readonly<Record<string, string>> = {}): CompiledProfile {
  return new CompiledProfile(text, params);
}

/**
 * The profile and parameters of a `sandbox-exec` argv (`/usr/bin/sandbox-exec -p PROFILE -DK=V… -- CMD…`),
 * compiled; also returns the command after `--`. Throws when the argv has any other shape.
 */
export function compileArgv(argv: readonly string[]): { profile: CompiledProfile; params: Record<string, string>; command: string[] } {
  if (argv[0] !== "/usr/bin/sandbox-exec" || argv[1] !== "-p" || typeof argv[2] !== "string") throw new SbplEvaluationError(`not a sandbox-exec argv: ${argv.slice(0, 2).join(" ")}`);
  const params: Record<string, string> = {};
  let i = 3;
  for (; i < argv.length && argv[i] !== "--"; i++) {
    const m = /^-D([^=]+)=(.*)$/s.exec(argv[i] as string);
    if (!m) throw new SbplEvaluationError(`unexpected argument before --: ${argv[i]}`);
    if ((m[1] as string) in params) throw new SbplEvaluationError(`parameter ${m[1]} given twice`);
    params[m[1] as string] = m[2] as string;
  }
  if (argv[i] !== "--") throw new SbplEvaluationError("no -- before the command");
  return { profile: compileProfile(argv[2], params), params, command: argv.slice(i + 1) };
}
