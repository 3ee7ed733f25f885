/**
 * Reading a failed command's output for the marks a sandbox refusal leaves: paths named next to
 * EROFS/EACCES/EPERM, and resolver or connect errors. Only text is read here; what the marks mean
 * under a given policy is decided in `denial-explain.ts`.
 */
import type { RefusalErrno } from "./backend.js";

// Which refusal errno a message line shows. EBUSY is the answer for removing or renaming a mount
// point, which is what the sandbox makes of a protected name (`.codex`) inside a writable root.
export type { RefusalErrno };

/** One output line that names a refused filesystem operation. */
export interface FilesystemMark {
  line: string;
  errno: RefusalErrno;
  /** The paths as the tool printed them (relative ones still relative), copy sources left out. */
  paths: string[];
  /**
   * Paths the line names only as what a copy read (`git init`: "cannot copy '/usr/share/git-core/templates/x'
   * to '.git/x'"): never the cause, since reading them is allowed; kept for the evidence.
   */
  sources: string[];
}

/** One output line that shows a failed name lookup or connection. */
export interface NetworkMark {
  line: string;
  /** Host names or addresses the line names. */
  hosts: string[];
}

/** Longest line kept as evidence; a line is shown to a person and a model, so it is kept short. */
const MAX_EVIDENCE_LINE = 240;
// A failing build can print thousands of "Permission denied" lines; the first ones say enough.
const MAX_MARK_LINES = 200;

// Node's recursive mkdir (npm's cache, `fs.mkdir(p, { recursive: true })`) reports a directory it
// could not create under a read-only parent as ENOENT, not EROFS.
const NODE_MKDIR_ENOENT = /\bENOENT: no such file or directory, mkdir '/;

const FS_LINE = new RegExp(
  `read-only file system|permission denied|operation not permitted|device or resource busy|\\bE(?:ROFS|ACCES|PERM|BUSY)\\b|\\[Errno (?:1|13|16|30)\\]|${NODE_MKDIR_ENOENT.source}`,
  "i",
);

function errnoOf(line: string): RefusalErrno | undefined {
  if (/read-only file system|\bEROFS\b|\[Errno 30\]/i.test(line) || NODE_MKDIR_ENOENT.test(line)) return "EROFS";
  if (/permission denied|\bEACCES\b|\[Errno 13\]/i.test(line)) return "EACCES";
  if (/operation not permitted|\bEPERM\b|\[Errno 1\]/i.test(line)) return "EPERM";
  if (/device or resource busy|\bEBUSY\b|\[Errno 16\]/i.test(line)) return "EBUSY";
  return undefined;
}

// Quotes as coreutils (ASCII or, in UTF-8 locales, ‘…’), python, node and git print them.
const QUOTED = /['\u2018`"]([^'\u2019`"\n]{1,4096})['\u2019`"]/g;
// `sh: 1: cannot create /etc/x: Read-only file system`, `bash: /etc/x: …`, `tee: /etc/x: …`, `.git/config: …`.
const BEFORE_ERROR = /(?:^|[\s(])([^\s'"\u2018\u2019`:()]+): (?:read-only file system|permission denied|operation not permitted|device or resource busy)/gi;

function looksLikePath(text: string): boolean {
  if (text.length === 0 || /[\0\n]/.test(text)) return false;
  if (text.includes("/")) return !/^[a-z][a-z0-9+.-]*:\/\//i.test(text); // not a URL
  // A bare name (`x`, `.git`) counts only when it looks like one file name, never like prose.
  return /^[\w.@+~-]+$/.test(text) && !/^\d+$/.test(text);
}

// What a copy reads, as git ("cannot copy 'SRC' to 'DST'") and node ("copyfile 'SRC' -> 'DST'",
// "symlink 'TARGET' -> 'LINK'": a link's target is not even opened) name it. A rename's source is
// left in `paths`: renaming changes both directories.
const COPY_SOURCE = [
  /cannot copy ['\u2018`"]([^'\u2019`"\n]{1,4096})['\u2019`"] to /gi,
  /\b(?:copyfile|symlink|link) '([^'\n]{1,4096})' -> /g,
];

function copySourcesIn(line: string): string[] {
  return COPY_SOURCE.flatMap((re) => [...line.matchAll(re)].map((m) => m[1]!.trim()));
}

function pathsIn(line: string, sources: readonly string[]): string[] {
  const found: string[] = [];
  for (const m of line.matchAll(QUOTED)) {
    const p = m[1]!.trim();
    if (looksLikePath(p)) found.push(p);
  }
  for (const m of line.matchAll(BEFORE_ERROR)) {
    const p = m[1]!;
    // Unquoted words need a slash or a leading dot: `sh: 1: x: Permission denied` names too little.
    if ((p.includes("/") || p.startsWith(".") || p.startsWith("~")) && looksLikePath(p)) found.push(p);
  }
  return [...new Set(found)].filter((p) => !sources.includes(p));
}

/** Distinct lines of every stream that match `pattern`, in order of appearance, at most `MAX_MARK_LINES`. */
function matchingLines(texts: readonly string[], pattern: RegExp): string[] {
  const seen = new Set<string>();
  const global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
  for (const text of texts) {
    if (!text) continue;
    global.lastIndex = 0;
    let m: RegExpExecArray | null;
    let examined = 0;
    // Counted per match, not per distinct line: 40 000 copies of one line must not all be read.
    while (examined++ < MAX_MARK_LINES && (m = global.exec(text)) !== null) {
      const start = text.lastIndexOf("\n", m.index) + 1;
      let end = text.indexOf("\n", m.index);
      if (end < 0) end = text.length;
      seen.add(text.slice(start, end).replace(/\r$/, ""));
      global.lastIndex = end + 1;
    }
  }
  return [...seen];
}

/** Every line that names a refused filesystem operation, with its errno and the paths it names. */
export function filesystemMarks(texts: readonly string[]): FilesystemMark[] {
  const marks: FilesystemMark[] = [];
  for (const line of matchingLines(texts, FS_LINE)) {
    const errno = errnoOf(line);
    if (!errno) continue;
    const sources = copySourcesIn(line);
    marks.push({ line, errno, paths: pathsIn(line, sources), sources });
  }
  return marks;
}

/**
 * Resolver and connect failures as curl, wget, git, ssh, node (fetch, npm), python (urllib, pip),
 * go and cargo print them. "Name or service not known" is left out on purpose: it is a resolver's
 * answer that the name does not exist, which needs a working network to arrive.
 */
const NETWORK_PATTERNS: ReadonlyArray<{ pattern: RegExp; host?: RegExp }> = [
  { pattern: /could not resolve host/i, host: /could not resolve host(?:name)?:? ['"\u2018]?([^\s'"\u2019:;)]+)/i },
  { pattern: /couldn't resolve host/i, host: /couldn't resolve host(?: name)?:? ['"\u2018]?([^\s'"\u2019:;)]+)/i },
  { pattern: /getaddrinfo (?:EAI_AGAIN|ENOTFOUND|EAI_FAIL)/i, host: /getaddrinfo \w+ ([^\s'",)]+)/i },
  { pattern: /unable to resolve host address/i, host: /unable to resolve host address ['"\u2018]?([^\s'"\u2019]+)/i },
  { pattern: /temporary failure in name resolution/i, host: /resolving (\S+) .*failed/i },
  { pattern: /network is unreachable|\bENETUNREACH\b|\[Errno 101\]/i },
  { pattern: /connect (?:EPERM|EACCES|ENETUNREACH) /i, host: /connect \w+ ([^\s'",]+)/i },
  { pattern: /failed to connect to \S+ port/i, host: /failed to connect to (\S+) port/i },
  { pattern: /couldn't connect to server|could not connect to server/i },
  { pattern: /urlopen error \[Errno (?:1|-2|-3|101)\]/i },
  { pattern: /failed to establish a new connection/i, host: /host='([^']+)'/i },
  { pattern: /dial (?:tcp|udp)[^\n]*(?:operation not permitted|network is unreachable)/i, host: /lookup (\S+?)(?: on |:)/i },
  { pattern: /socket: operation not permitted/i },
];

const NETWORK_ANY = new RegExp(NETWORK_PATTERNS.map((p) => p.pattern.source).join("|"), "i");

/** Every line that shows a failed lookup or connection, with the hosts it names. */
export function networkMarks(texts: readonly string[]): NetworkMark[] {
  const marks: NetworkMark[] = [];
  for (const line of matchingLines(texts, NETWORK_ANY)) {
    const hosts = new Set<string>();
    for (const { pattern, host } of NETWORK_PATTERNS) {
      if (!pattern.test(line) || !host) continue;
      const h = host.exec(line)?.[1]?.replace(/[.,]+$/, "");
      if (h) hosts.add(h);
    }
    marks.push({ line, hosts: [...hosts] });
  }
  return marks;
}

// Python prints a refused socket()/connect() as a bare EPERM; only the traceback says it was a socket.
const PY_EPERM = /\[Errno 1\] Operation not permitted/;
const PY_SOCKET_FRAME = /socket\.py|create_connection|\bsocket\.socket\(|\.connect(?:_ex)?\(/;

/**
 * The line of a Python traceback that ends in EPERM from a socket call (the filter refuses
 * `socket()` while the network is off), or undefined.
 */
export function pythonSocketRefusal(texts: readonly string[]): string | undefined {
  for (const text of texts) {
    if (!text || !PY_EPERM.test(text) || !PY_SOCKET_FRAME.test(text)) continue;
    const line = text.split("\n").find((l) => PY_EPERM.test(l));
    if (line) return line.replace(/\r$/, "");
  }
  return undefined;
}

const GETENT = /^\s*getent\s+(?:hosts|ahosts|ahostsv4|ahostsv6)\s+(\S+)\s*$/;

/**
 * The host of a plain `getent hosts NAME` (argv, or a one-line `sh -c`/`bash -lc` script), which
 * prints nothing when the lookup fails: its exit status 2 is the only mark it leaves.
 */
export function silentLookupHost(command: readonly string[] | undefined): string | undefined {
  if (!command || command.length === 0) return undefined;
  const base = (s: string) => s.slice(s.lastIndexOf("/") + 1);
  let text: string;
  if (base(command[0]!) === "getent") text = command.map((w) => base(w) === "getent" ? "getent" : w).join(" ");
  else if (command.length === 3 && /^-l?c$/.test(command[1]!) && /^(?:ba|da|z|k)?sh$/.test(base(command[0]!))) text = command[2]!;
  else return undefined;
  return GETENT.exec(text)?.[1];
}

/** `line` cut to `MAX_EVIDENCE_LINE` characters. */
export function evidenceLine(line: string): string {
  const trimmed = line.trim();
  return trimmed.length <= MAX_EVIDENCE_LINE ? trimmed : `${trimmed.slice(0, MAX_EVIDENCE_LINE - 1)}…`;
}
