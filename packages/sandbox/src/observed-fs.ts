import fs from "node:fs";

// Every file-system read made while a sandbox is planned goes through here. A backend can then record
// what its plan was computed from and, for the next run with the same inputs, check that the file
// system still answers the same instead of planning again (`recordObservations`,
// `observationsHold`). That is only sound if no read escapes: the modules that plan import no
// `node:fs` (eslint.config.js says which), and each answer is recorded as exactly what the caller can
// see of it. Times, sizes of directories and link counts are left out of what a caller gets, so that
// the churn of a busy directory (a new file in `/tmp`, git's lock files) does not make a plan look
// stale when nothing it depends on changed.

/** A path's metadata as planning may use it: type and mode bits, owner, and identity. */
export class ObservedStats {
  constructor(
    /** `st_mode`: file type and permission bits. */
    readonly mode: number,
    readonly uid: number,
    readonly gid: number,
    readonly dev: bigint,
    readonly ino: bigint,
    /** Tells a directory re-made under a recycled inode number from the old one. */
    readonly birthtimeNs: bigint,
  ) {}

  #type(): number {
    return this.mode & fs.constants.S_IFMT;
  }
  isFile(): boolean {
    return this.#type() === fs.constants.S_IFREG;
  }
  isDirectory(): boolean {
    return this.#type() === fs.constants.S_IFDIR;
  }
  isSymbolicLink(): boolean {
    return this.#type() === fs.constants.S_IFLNK;
  }
  isFIFO(): boolean {
    return this.#type() === fs.constants.S_IFIFO;
  }
  isSocket(): boolean {
    return this.#type() === fs.constants.S_IFSOCK;
  }
  isCharacterDevice(): boolean {
    return this.#type() === fs.constants.S_IFCHR;
  }
  isBlockDevice(): boolean {
    return this.#type() === fs.constants.S_IFBLK;
  }
  /** What a recording compares. */
  get key(): string {
    return `${this.mode}:${this.uid}:${this.gid}:${this.dev}:${this.ino}:${this.birthtimeNs}`;
  }
}

/** `open(2)` flags for `observedFs.readFile`, so that planning modules need nothing of `node:fs`. */
export const OPEN_FLAGS = Object.freeze({
  O_RDONLY: fs.constants.O_RDONLY,
  O_NONBLOCK: fs.constants.O_NONBLOCK ?? 0,
  O_NOFOLLOW: fs.constants.O_NOFOLLOW ?? 0,
  O_NOCTTY: fs.constants.O_NOCTTY ?? 0,
});

/** A directory entry's name and type, as `readdir` with file types reports it. */
export interface ObservedEntry {
  name: string;
  isDirectory: boolean;
}

/** What an observed open-and-read found: the descriptor's metadata, and the text if it is a regular file. */
export interface ObservedFile {
  stats: ObservedStats;
  /** The file's size as `fstat` gave it. */
  size: number;
  /** Undefined for anything but a regular file, which is never read (a FIFO would block). */
  text: string | undefined;
  /** Bytes read: at most one more than the `maxBytes` asked for. */
  bytes: number;
}

/** One read: the operation, its arguments, and its answer as compared on replay. */
interface Observation {
  op: OpName;
  args: readonly (string | number)[];
  answer: string;
}

/** What a recording saw, to be checked again with `observationsHold`. */
export interface Observations {
  /** @internal */
  readonly list: readonly Observation[];
}

// The recordings in progress. Planning is asynchronous in its signatures (though its reads are
// synchronous), so two plans may overlap: each read goes to every recording open at that moment. A
// recording may thus hold reads of another plan; that only makes its check stricter.
const open = new Set<Observation[]>();

/**
 * Starts recording every observed read until the returned function is called, which answers them.
 * Call it when the computation whose inputs you want is done, also when it failed.
 */
export function recordObservations(): () => Observations {
  const list: Observation[] = [];
  open.add(list);
  return () => {
    open.delete(list);
    return { list };
  };
}

const bigintStats = (st: fs.BigIntStats): ObservedStats =>
  new ObservedStats(Number(st.mode), Number(st.uid), Number(st.gid), st.dev, st.ino, st.birthtimeNs);

const errorKey = (error: unknown): string => `!${(error as NodeJS.ErrnoException | undefined)?.code ?? String(error)}`;

const statsKey = (st: ObservedStats | undefined): string => (st ? st.key : "-");

/** The operations, each with how its answer is compared. */
const OPS = {
  lstat: (p: string) => {
    const st = fs.lstatSync(p, { bigint: true, throwIfNoEntry: false });
    const value = st ? bigintStats(st) : undefined;
    return { value, answer: statsKey(value) };
  },
  stat: (p: string) => {
    const st = fs.statSync(p, { bigint: true, throwIfNoEntry: false });
    const value = st ? bigintStats(st) : undefined;
    return { value, answer: statsKey(value) };
  },
  realpath: (p: string) => {
    const value = fs.realpathSync.native(p);
    return { value, answer: value };
  },
  readlink: (p: string) => {
    const value = fs.readlinkSync(p);
    return { value, answer: value };
  },
  readdir: (p: string) => {
    const value: ObservedEntry[] = fs.readdirSync(p, { withFileTypes: true }).map((e) => ({ name: e.name, isDirectory: e.isDirectory() }));
    return { value, answer: value.map((e) => `${e.isDirectory ? "d" : "-"}${e.name}`).join("\0") };
  },
  isEmptyDir: (p: string) => {
    const value = fs.readdirSync(p).length === 0;
    return { value, answer: String(value) };
  },
  readFile: (p: string, flags: number, maxBytes: number) => {
    const value = openAndRead(p, flags, maxBytes);
    return { value, answer: `${value.stats.key}:${value.size}:${value.bytes}:${value.text === undefined ? "-" : `\n${value.text}`}` };
  },
} satisfies Record<string, (...args: never[]) => { value: unknown; answer: string }>;

type OpName = keyof typeof OPS;
type OpValue<K extends OpName> = ReturnType<(typeof OPS)[K]>["value"];

function openAndRead(p: string, flags: number, maxBytes: number): ObservedFile {
  const fd = fs.openSync(p, flags);
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    const stats = bigintStats(st);
    const size = Number(st.size);
    if (!stats.isFile()) return { stats, size, text: undefined, bytes: 0 };
    // One byte more than allowed: the caller tells "too large" from "exactly the limit".
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return { stats, size, text: buffer.subarray(0, length).toString("utf8"), bytes: length };
  } finally {
    fs.closeSync(fd);
  }
}

/** `op` made now: its value, or the error it threw, with the answer a recording compares. */
function invoke(op: OpName, args: readonly (string | number)[]): { value?: unknown; error?: unknown; answer: string } {
  try {
    return (OPS[op] as (...a: readonly (string | number)[]) => { value: unknown; answer: string })(...args);
  } catch (error) {
    return { error, answer: errorKey(error) };
  }
}

function perform<K extends OpName>(op: K, args: Parameters<(typeof OPS)[K]>): OpValue<K> {
  const result = invoke(op, args);
  if (open.size > 0) for (const list of open) list.push({ op, args, answer: result.answer });
  if ("error" in result) throw result.error;
  return result.value as OpValue<K>;
}

/**
 * The file-system reads planning may make, each recorded by every recording open. They throw as
 * `node:fs` does (the error's `code` is what a recording keeps).
 */
export const observedFs = {
  /** `lstat`; undefined when nothing is there (ENOENT). */
  lstat: (p: string): ObservedStats | undefined => perform("lstat", [p]),
  /** `stat` (links followed); undefined when nothing is there (ENOENT). */
  stat: (p: string): ObservedStats | undefined => perform("stat", [p]),
  /** `realpath(3)`. */
  realpath: (p: string): string => perform("realpath", [p]),
  readlink: (p: string): string => perform("readlink", [p]),
  /** Entry names with whether each is a directory (not following links). */
  readdir: (p: string): ObservedEntry[] => perform("readdir", [p]),
  /** Whether a directory has no entries; only that is recorded, not what they are. */
  isEmptyDir: (p: string): boolean => perform("isEmptyDir", [p]),
  /**
   * Opens `p` with `flags` and reads it only if the descriptor is a regular file, at most
   * `maxBytes + 1` bytes; the open's error is thrown as it comes.
   */
  readFile: (p: string, flags: number, maxBytes: number): ObservedFile => perform("readFile", [p, flags, maxBytes]),
} as const;

/**
 * Whether every read of `observations` (one recording or several, checked together) answers now as
 * it did then. Each distinct read is made once, also when several recordings hold it; one that
 * answered two ways (the file system changed between the reads) can never hold.
 */
export function observationsHold(...observations: Observations[]): boolean {
  const checked = new Map<string, string>();
  for (const { list } of observations) {
    for (const { op, args, answer } of list) {
      const id = `${op}\0${args.join("\0")}`;
      let now = checked.get(id);
      if (now === undefined) {
        now = invoke(op, args).answer;
        checked.set(id, now);
      }
      if (now !== answer) return false;
    }
  }
  return true;
}
