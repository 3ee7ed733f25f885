const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
/** UTF-8 lead byte of U+0080–U+00BF: a C1 control arrives as 0xC2 0x80–0x9F. */
const C2 = 0xc2;

/** Longest CSI sequence kept; longer ones are swallowed whole (SGR with a 24-bit colour needs ~20). */
export const MAX_CSI_BYTES = 64;
/**
 * Longest OSC/DCS/SOS/PM/APC string swallowed before giving up on its terminator and returning to
 * plain text (its introducer is already gone, so the rest shows as text and acts on nothing).
 * Nothing of the string is kept, so this bounds how much output an unterminated string can hide,
 * not memory.
 */
export const MAX_STRING_BYTES = 1024 * 1024;

/** C0 controls that print or move within the line, and so pass: BEL, BS, HT, LF, VT, FF, CR. */
const KEPT_C0 = new Set([0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);
/** Final bytes of parameter-only CSI sequences that pass: SGR (`m`), cursor movement, erase in line/display. */
const KEPT_CSI_FINALS = new Set([..."mABCDEFGHfdea`JKX"].map((c) => c.charCodeAt(0)));
/** Two-byte escapes that pass: save/restore cursor, index, reverse index, next line. */
const KEPT_ESC_FINALS = new Set([..."78DEM"].map((c) => c.charCodeAt(0)));
const SGR_FINAL = 0x6d;
/** SGR parameter that hides the text drawn after it. */
const SGR_CONCEAL = 8;

/** How a `TerminalOutputFilter` treats sequences that move the cursor or change what is already drawn. */
export interface TerminalOutputFilterOptions {
  /**
   * A prompt for a person may be drawn after this output, and the output may go on after it: keep
   * only what draws text where the cursor already is — printable text, SGR colours and attributes
   * (without conceal, SGR 8), CR, BS, HT, LF, VT, FF and BEL — and drop every sequence that moves
   * the cursor to another line or column, erases, scrolls, sets a scroll region, saves or restores
   * the cursor, or indexes (CSI A–H, J, K, S, T, X, d, e, f, a, \`, r, s, u; ESC 7, 8, D, E, M).
   * The cursor then only ever moves forward, down, or back to the start of its own line, so output
   * written after a prompt can neither redraw nor hide it. Default false.
   */
  promptSafe?: boolean;
}

type State =
  | "ground"
  | "esc"
  | "escInter"
  | "csi"
  | "csiDiscard"
  | "string"
  | "stringEsc"
  | "c2"
  | "stringC2";

/**
 * A streaming filter for command output headed to a person's terminal. It removes what would act on
 * the terminal or the machine around it instead of drawing text: OSC strings (clipboard writes with
 * OSC 52, hyperlinks with OSC 8, window titles), DCS/SOS/PM/APC strings, escape sequences other than
 * plain SGR (colours, kept) and cursor movement/erasure, CSI sequences with private parameters or
 * intermediates (mode changes, reports the terminal would answer by typing into stdin), C0 controls
 * other than BEL, BS, HT, LF, VT, FF and CR, and C1 controls sent as UTF-8 (U+0080–U+009F).
 * Sequences split across chunks are handled; at most `MAX_CSI_BYTES` bytes are held back between
 * chunks. Everything else passes byte for byte.
 */
export class TerminalOutputFilter {
  readonly #promptSafe: boolean;
  #state: State = "ground";
  /** Bytes of the sequence in progress that may still be emitted (ESC, a CSI, a lone 0xC2). */
  #held: number[] = [];
  #stringBytes = 0;

  /** `options.promptSafe`: also drop cursor movement, erasure, scrolling and conceal (see the option). */
  constructor(options: TerminalOutputFilterOptions = {}) {
    this.#promptSafe = options.promptSafe === true;
  }

  /** Filter the next chunk; returns what may be written to the terminal now. */
  push(chunk: Uint8Array): Uint8Array {
    // Never more than the input plus what was held back (a lone 0xC2 is not in `#held`: + 1).
    const out = new Uint8Array(chunk.byteLength + this.#held.length + 1);
    let n = 0;
    const emit = (b: number) => {
      out[n++] = b;
    };
    for (let i = 0; i < chunk.byteLength; i++) {
      const b = chunk[i]!;
      if (!this.#step(b, emit)) i -= 1; // reprocess this byte in the state just entered
    }
    return out.subarray(0, n);
  }

  /** The end of the stream: an unfinished sequence is dropped (a lone UTF-8 lead byte is passed on). */
  end(): Uint8Array {
    const rest = this.#state === "c2" ? Uint8Array.of(C2) : new Uint8Array(0);
    this.#reset();
    return rest;
  }

  #reset(): void {
    this.#state = "ground";
    this.#held = [];
    this.#stringBytes = 0;
  }

  #enterString(): void {
    this.#held = [];
    this.#stringBytes = 0;
    this.#state = "string";
  }

  /** Feed one byte; false means "not consumed: process it again" (after a state change). */
  #step(b: number, emit: (b: number) => void): boolean {
    switch (this.#state) {
      case "ground":
        if (b === ESC) {
          this.#state = "esc";
          this.#held = [b];
        } else if (b === C2) {
          this.#state = "c2";
        } else if (b >= 0x20 || KEPT_C0.has(b)) {
          emit(b);
        }
        return true;

      case "c2":
        if (b >= 0x80 && b <= 0x9f) {
          // A C1 control: CSI, OSC and the string introducers start what their 7-bit forms would.
          this.#state = "ground";
          if (b === 0x9b) {
            this.#state = "csi";
            this.#held = [ESC, 0x5b];
          } else if (b === 0x9d || b === 0x90 || b === 0x98 || b === 0x9e || b === 0x9f) {
            this.#enterString();
          }
          return true;
        }
        this.#state = "ground";
        // U+00A0–U+00BF: printable, passed on. Anything else makes the 0xC2 a stray lead byte
        // (invalid UTF-8, which a terminal shows as U+FFFD). It is dropped: emitted, it could meet a
        // later 0x80–0x9F once what stands between them is removed (a NUL, an escape), and the two
        // would make the C1 control this filter exists to remove.
        if (b >= 0xa0 && b <= 0xbf) emit(C2);
        return false;

      case "esc":
        if (b === 0x5b) {
          this.#state = "csi";
          this.#held.push(b);
        } else if (b === 0x5d || b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) {
          this.#enterString();
        } else if (b >= 0x20 && b <= 0x2f) {
          this.#state = "escInter";
          this.#held = [];
        } else if (b === ESC) {
          this.#held = [b];
        } else if (b >= 0x30 && b <= 0x7e) {
          if (!this.#promptSafe && KEPT_ESC_FINALS.has(b)) {
            emit(ESC);
            emit(b);
          }
          this.#reset();
        } else {
          // A control or a non-ASCII byte cuts the escape short, as on a terminal.
          this.#reset();
          return b === CAN || b === SUB;
        }
        return true;

      case "escInter":
        // Character set designations, DEC line attributes and the like: swallowed.
        if (b >= 0x20 && b <= 0x2f) return true;
        if (b >= 0x30 && b <= 0x7e) {
          this.#reset();
          return true;
        }
        this.#reset();
        return b === CAN || b === SUB;

      case "csi":
      case "csiDiscard":
        if (b >= 0x40 && b <= 0x7e) {
          if (this.#state === "csi" && keptCsi(this.#held, b) && (!this.#promptSafe || b === SGR_FINAL)) {
            const held = this.#promptSafe ? withoutConceal(this.#held) : this.#held;
            if (held) {
              for (const h of held) emit(h);
              emit(b);
            }
          }
          this.#reset();
          return true;
        }
        if (b >= 0x20 && b <= 0x3f) {
          if (this.#state === "csi") {
            this.#held.push(b);
            if (this.#held.length > MAX_CSI_BYTES) {
              this.#state = "csiDiscard";
              this.#held = [];
            }
          }
          return true;
        }
        this.#reset();
        return b === CAN || b === SUB;

      case "string":
        this.#stringBytes += 1;
        if (this.#stringBytes > MAX_STRING_BYTES) {
          this.#reset();
          return false;
        }
        if (b === BEL || b === CAN || b === SUB) this.#reset();
        else if (b === ESC) this.#state = "stringEsc";
        else if (b === C2) this.#state = "stringC2";
        return true;

      case "stringEsc":
        if (b === 0x5c) {
          this.#reset();
          return true;
        }
        // ESC followed by anything else ends the string and starts a new escape.
        this.#state = "esc";
        this.#held = [ESC];
        return false;

      case "stringC2":
        if (b === 0x9c) {
          this.#reset();
          return true;
        }
        this.#state = "string";
        return false;
    }
  }
}

/** Whether a complete CSI sequence (`held` = ESC [ params…, `final`) is plain SGR or cursor movement. */
function keptCsi(held: readonly number[], final: number): boolean {
  if (!KEPT_CSI_FINALS.has(final)) return false;
  // Only digits, `;` and `:` (SGR sub-parameters): no private markers (`?`, `>`, `<`, `=`), no intermediates.
  for (let i = 2; i < held.length; i++) {
    const c = held[i]!;
    if (!((c >= 0x30 && c <= 0x39) || c === 0x3b || c === 0x3a)) return false;
  }
  return true;
}

/**
 * An SGR sequence (`held` = ESC [ params…, final `m` not included) without its conceal parameters, or
 * undefined when nothing else is left (`ESC[m` would be a reset, which is not what was sent). The
 * arguments of an extended colour (`38;5;8`, `48;2;r;g;8`) are colour values, not parameters, and
 * stay; so do colon sub-parameters, which carry no conceal.
 */
function withoutConceal(held: readonly number[]): readonly number[] | undefined {
  const params = String.fromCharCode(...held.slice(2)).split(";");
  const kept: string[] = [];
  let dropped = false;
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    const head = p.split(":")[0]!;
    const n = head === "" ? 0 : Number(head);
    if ((n === 38 || n === 48 || n === 58) && !p.includes(":")) {
      const args = params[i + 1] === "5" ? 2 : params[i + 1] === "2" ? 4 : 0;
      kept.push(...params.slice(i, i + 1 + args));
      i += args;
    } else if (n === SGR_CONCEAL) {
      dropped = true;
    } else {
      kept.push(p);
    }
  }
  if (!dropped) return held;
  if (kept.length === 0) return undefined;
  return [ESC, 0x5b, ...[...kept.join(";")].map((c) => c.charCodeAt(0))];
}

/** `bytes` through a fresh `TerminalOutputFilter` (one whole stream). */
export function filterTerminalOutput(bytes: Uint8Array, options: TerminalOutputFilterOptions = {}): Uint8Array {
  const filter = new TerminalOutputFilter(options);
  const head = filter.push(bytes);
  const tail = filter.end();
  if (tail.byteLength === 0) return head;
  const all = new Uint8Array(head.byteLength + tail.byteLength);
  all.set(head);
  all.set(tail, head.byteLength);
  return all;
}
