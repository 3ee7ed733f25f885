import { SeatbeltSandboxError } from "./errors.js";
import { checkProxyPort, type ProxyPorts } from "./network.js";
import { ParamTable, paramRef, type ProfileParam } from "./params.js";

/**
 * What the profile must enforce, as macOS-canonical absolute paths (see `toDarwinCanonicalPath`).
 * The profile text depends only on how many paths of each kind there are, on `network` and on the
 * proxy's port numbers; the paths themselves travel as `-D` parameters.
 */
export interface ProfileInput {
  /** Directories whose whole subtree is writable (before the carve-outs). Empty under `read-only`. */
  writableRoots: readonly string[];
  /** Paths that stay read-only inside the roots, existing or not: the path itself and everything below it. */
  readOnlyPaths: readonly string[];
  /**
   * Directory entries that must not be renamed, removed or re-created (the roots themselves and the
   * directories between a root and a carve-out or nested root): writes to the entry itself are
   * refused, writes below it are not.
   */
  pinnedPaths: readonly string[];
  /** Paths that must stay unreadable (and unwritable): the path itself and everything below it. */
  deniedReadPaths: readonly string[];
  /** Outbound and inbound network, sockets and the services name resolution and TLS need. */
  network: boolean;
  /**
   * Proxy-routed network (with `network: false`): outbound only to these two host loopback ports,
   * where the session proxy listens. Absent: no network at all (or all of it, with `network`).
   */
  proxy?: ProxyPorts;
  /**
   * The command runs on a pseudo-terminal the caller allocated for this run alone
   * (`TransformOptions.dedicatedTerminal`): terminal ioctls on descriptors it inherited are
   * allowed, so `isatty` and `tcsetattr` work on it. Opening any terminal still needs the pty
   * extension, so another terminal stays out of reach.
   */
  dedicatedTerminal?: boolean;
}

/** A generated profile and the parameters it reads. */
export interface SeatbeltProfile {
  readonly text: string;
  readonly params: readonly ProfileParam[];
}

/** sysctl names ordinary tools read (CPU count, memory, OS version…); nothing that reveals other processes. */
const SYSCTL_READ_NAMES = [
  "hw.activecpu", "hw.byteorder", "hw.cacheconfig", "hw.cachelinesize", "hw.cachelinesize_compat", "hw.cpufamily",
  "hw.cpufrequency", "hw.cpufrequency_compat", "hw.cpusubfamily", "hw.cpusubtype", "hw.cputype", "hw.l1dcachesize",
  "hw.l1dcachesize_compat", "hw.l1icachesize", "hw.l1icachesize_compat", "hw.l2cachesize", "hw.l2cachesize_compat",
  "hw.l3cachesize", "hw.l3cachesize_compat", "hw.logicalcpu", "hw.logicalcpu_max", "hw.machine", "hw.memsize",
  "hw.model", "hw.ncpu", "hw.nperflevels", "hw.packages", "hw.pagesize", "hw.pagesize_compat", "hw.physicalcpu",
  "hw.physicalcpu_max", "hw.tbfrequency", "hw.tbfrequency_compat", "hw.vectorunit",
  "machdep.cpu.brand_string",
  "kern.argmax", "kern.hostname", "kern.maxfilesperproc", "kern.maxproc", "kern.osproductversion", "kern.osrelease",
  "kern.ostype", "kern.osvariant_status", "kern.osversion", "kern.secure_kernel", "kern.usrstack64", "kern.version",
  "sysctl.proc_cputype", "vm.loadavg",
];
/** Prefixes of sysctl names read the same way; `kern.proc.pid.` is how a process asks about itself. */
const SYSCTL_READ_PREFIXES = ["hw.optional.arm", "hw.perflevel", "kern.proc.pgrp.", "kern.proc.pid."];
/** Mach services every process uses: user and group lookups, power assertions, preferences. */
const BASE_MACH_SERVICES = [
  "com.apple.system.opendirectoryd.libinfo",
  "com.apple.PowerManagement.control",
  "com.apple.cfprefsd.daemon",
  "com.apple.cfprefsd.agent",
];
/** Mach services name resolution, proxies and certificate checks need; only with the network on. */
const NETWORK_MACH_SERVICES = [
  "com.apple.bsd.dirhelper",
  "com.apple.system.opendirectoryd.membership",
  "com.apple.SecurityServer",
  "com.apple.networkd",
  "com.apple.ocspd",
  "com.apple.trustd.agent",
  "com.apple.SystemConfiguration.DNSConfiguration",
  "com.apple.SystemConfiguration.configd",
];

const quote = (s: string) => JSON.stringify(s); // constants only: ASCII, no backslashes

function list(head: string, items: readonly string[], indent = "  "): string {
  return [`(${head}`, ...items.map((i) => `${indent}${i}`)].join("\n") + ")";
}

/** Every pseudo-terminal device a process could open: the user's other terminal windows among them. */
const TTY_DEVICES = '(regex #"^/dev/ttys[0-9]+$")';
/**
 * The sandbox extension macOS attaches to a pseudo-terminal opened through `/dev/ptmx` by a process
 * that holds `pseudo-tty`: it marks the terminals created inside this sandbox.
 */
const PTY_EXTENSION = '(extension "com.apple.sandbox.pty")';

/**
 * Terminals: the command may create pseudo-terminals (`/dev/ptmx`) and use the ones it created, and
 * no other. It comes after the blanket read allowance, which would otherwise let it read (and so
 * steal the input of) every `/dev/ttysN`, the user's other terminal windows included.
 */
function terminalSection(dedicatedTerminal: boolean): string {
  const lines = [
    "; terminals: only the pseudo-terminals created inside this sandbox (they carry the pty extension);",
    "; another window's /dev/ttysN can be neither read, written nor sent an ioctl (TIOCSTI types into it)",
    "(allow pseudo-tty)",
    '(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))',
    `(deny file-read* file-write* file-ioctl ${TTY_DEVICES})`,
    `(allow file-read* file-write* file-ioctl (require-all ${TTY_DEVICES} ${PTY_EXTENSION}))`,
  ];
  if (dedicatedTerminal) {
    lines.push(
      "; the run's own terminal, allocated for it alone and inherited as its stdio: ioctls on it (isatty, tcsetattr)",
      `(allow file-ioctl ${TTY_DEVICES})`,
    );
  }
  return lines.join("\n");
}

/** Everything any sandboxed command gets, whatever the policy. */
function baseSection(): string {
  return [
    "(version 1)",
    "; shellgate Seatbelt profile: everything not allowed below is refused",
    "(deny default)",
    "",
    "; processes: children run under the same profile; signals and process information only inside it",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "",
    "; devices: the null device (terminals are below, after the reads)",
    '(allow file-write-data (literal "/dev/null"))',
    "",
    "; system information ordinary tools ask for",
    list("allow sysctl-read", [
      ...SYSCTL_READ_NAMES.map((n) => `(sysctl-name ${quote(n)})`),
      ...SYSCTL_READ_PREFIXES.map((n) => `(sysctl-name-prefix ${quote(n)})`),
    ]),
    '(allow sysctl-write (sysctl-name "kern.grade_cputype"))',
    '(allow iokit-open (iokit-user-client-class "RootDomainUserClient"))',
    list("allow mach-lookup", BASE_MACH_SERVICES.map((n) => `(global-name ${quote(n)})`)),
    "(allow ipc-posix-sem)",
    "(allow user-preference-read)",
    '(allow ipc-posix-shm-read* (ipc-posix-name-prefix "apple.cfprefs."))',
    '(allow ipc-posix-shm-read* ipc-posix-shm-write-create ipc-posix-shm-write-unlink (ipc-posix-name-regex #"^/__KMP_REGISTERED_LIB_[0-9]+$"))',
  ].join("\n");
}

/**
 * Proxy-routed network: the command can open TCP sockets and connect them to the session proxy's
 * two loopback ports, and nothing else. Left out on purpose, each of which the network-on section
 * has: `network-bind`/`network-inbound` (no listening, so no host loopback service is reached back
 * through a server either), UDP and other socket types (no DNS on `*:53`, no QUIC), connections to
 * host unix sockets (mDNSResponder's, docker.sock), AF_SYSTEM kernel-control sockets, the name-resolution mach services (`DNSConfiguration`, `configd`: the proxy resolves
 * names, `socks5h`), `networkd`, and the certificate services (`trustd.agent`, `ocspd`,
 * `SecurityServer`), which fetch revocation and issuer URLs themselves, outside the sandbox, for
 * whatever certificate the command hands them: a way to reach hosts the proxy never sees.
 *
 * The ports are written into the text, not passed as `-D` parameters: the reason paths are
 * parameters (arbitrary text must never be parsed as SBPL) does not apply to an integer checked to
 * be 1..65535 and printed as digits, and the `remote` filter is known to accept its address as a
 * literal `"localhost:PORT"` (Seatbelt takes only `localhost` or `*` as the host), whereas building
 * it from a parameter (`string-append`) is not known to work there and cannot be tried off macOS.
 */
function proxySection(proxy: ProxyPorts): string {
  const ports = [...new Set([checkProxyPort(proxy.httpPort, "proxy.httpPort"), checkProxyPort(proxy.socksPort, "proxy.socksPort")])];
  return [
    `; network: only the session proxy (HTTP on localhost:${proxy.httpPort}, SOCKS5 on localhost:${proxy.socksPort}); no DNS, the proxy resolves names`,
    "; TCP sockets only: IPv6 too, for runtimes that connect over dual-stack sockets (Java)",
    list("allow system-socket", [
      "(require-all (socket-domain AF_INET) (socket-type SOCK_STREAM))",
      "(require-all (socket-domain AF_INET6) (socket-type SOCK_STREAM))",
    ]),
    list("allow network-outbound", ports.map((port) => `(remote ip ${quote(`localhost:${port}`)})`)),
  ].join("\n");
}

function pathFilters(names: readonly string[], filters: readonly ("literal" | "subpath")[]): string[] {
  return names.flatMap((name) => filters.map((f) => `(${f} ${paramRef(name)})`));
}

/**
 * The Seatbelt profile for `input`, with the parameters it reads. Sections, in order (a later
 * matching rule wins over an earlier one, so the refusals come after what they cut into):
 * base; reads; writes to the roots; refusals of writes to the read-only paths and to the pinned
 * entries; terminals; refusal of reads and writes of the denied paths; network. Pure.
 */
export function buildSeatbeltProfile(input: ProfileInput): SeatbeltProfile {
  const params = new ParamTable();
  const roots = input.writableRoots.map((p) => params.add("WRITABLE_ROOT", p));
  const readOnly = input.readOnlyPaths.map((p) => params.add("READ_ONLY", p));
  const pinned = input.pinnedPaths.map((p) => params.add("PINNED", p));
  const denied = input.deniedReadPaths.map((p) => params.add("DENIED_READ", p));
  const sections = [
    baseSection(),
    "; reads: the whole disk (terminals and denied paths are cut out below)\n(allow file-read*)",
  ];

  if (roots.length > 0) {
    const writes = [list("allow file-write*", pathFilters(roots, ["subpath"]))];
    if (readOnly.length > 0) writes.push(list("deny file-write*", pathFilters(readOnly, ["literal", "subpath"])));
    if (pinned.length > 0) writes.push(list("deny file-write*", pathFilters(pinned, ["literal"])));
    sections.push(
      "; writes: only inside the writable roots; read-only paths stay read-only whether they exist or not,\n" +
        "; and the roots and the directories above a read-only path cannot be renamed, removed or re-created\n" +
        writes.join("\n"),
    );
  } else {
    sections.push("; writes: none (only /dev/null, above)");
  }
  // After the writes too: a root of `/` (a broad workspace) would otherwise make every terminal writable.
  sections.push(terminalSection(input.dedicatedTerminal === true));

  if (denied.length > 0) {
    sections.push(
      "; denied paths: neither read nor written (nor renamed or removed), whatever allowed them above\n" +
        list("deny file-read* file-write*", pathFilters(denied, ["literal", "subpath"])),
    );
  }

  if (input.network && input.proxy) {
    throw new SeatbeltSandboxError("not-expressible", "a proxy route with the network on: full network reaches everything, so there is nothing to route");
  }
  if (input.network) {
    sections.push(
      [
        "; network: on",
        "(allow network-outbound network-inbound network-bind)",
        "(allow system-socket)",
        list("allow mach-lookup", NETWORK_MACH_SERVICES.map((n) => `(global-name ${quote(n)})`)),
        '(allow sysctl-read (sysctl-name-prefix "net.routetable"))',
      ].join("\n"),
    );
  } else if (input.proxy) {
    sections.push(proxySection(input.proxy));
  } else {
    sections.push("; network: off (no socket, no connection: refused by the default)");
  }
  return { text: `${sections.join("\n\n")}\n`, params: params.list() };
}
