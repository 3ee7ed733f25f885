import { createRequire } from "node:module";
import type * as Xterm from "@xterm/headless";

// Loaded on the first renderer, not at import: xterm is ~300 KB that one-shot pipe commands (most
// of them) never use, and every CLI start paid for compiling it.
let terminalClass: typeof Xterm.Terminal | undefined;
function loadTerminal(): typeof Xterm.Terminal {
  terminalClass ??= (createRequire(import.meta.url)("@xterm/headless") as typeof Xterm).Terminal;
  return terminalClass;
}

/** Size and history of a headless terminal. */
export interface RenderOptions {
  cols?: number;
  rows?: number;
  /** Lines kept above the screen. Default 1000. */
  scrollback?: number;
}

/**
 * A headless terminal (xterm.js) that turns raw PTY output into the text a person would see:
 * carriage-return progress bars collapse to their last state, cursor moves and erases apply,
 * colours disappear. Feed it bytes as they arrive; ask for the text at any time.
 */
export class TerminalRenderer {
  private readonly term: Xterm.Terminal;
  private disposed = false;

  constructor(options: RenderOptions = {}) {
    const Terminal = loadTerminal();
    this.term = new Terminal({
      cols: options.cols ?? 80,
      rows: options.rows ?? 24,
      scrollback: options.scrollback ?? 1000,
      allowProposedApi: true,
      // Output from a PTY already carries CRLF; do not invent carriage returns.
      convertEol: false,
    });
  }

  /** Feeds raw bytes (UTF-8) or text. Ignored after `dispose()`. */
  write(data: Uint8Array | string): void {
    if (!this.disposed) this.term.write(data);
  }

  /** Changes the terminal size, as the PTY did. */
  resize(cols: number, rows: number): void {
    if (!this.disposed) this.term.resize(cols, rows);
  }

  /** The visible text: scrollback plus screen, wrapped lines joined, trailing blanks trimmed. */
  async text(): Promise<string> {
    if (this.disposed) return "";
    // xterm parses writes asynchronously; an empty write's callback runs after everything before it.
    await new Promise<void>((resolve) => this.term.write("", resolve));
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buf.length; i++) {
      const line = buf.getLine(i);
      if (!line) continue;
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return lines.join("\n");
  }

  /** Frees the terminal. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.term.dispose();
  }
}

/** Renders a complete capture at once (see `TerminalRenderer`). */
export async function renderTerminalText(data: Uint8Array | string, options: RenderOptions = {}): Promise<string> {
  const r = new TerminalRenderer(options);
  try {
    r.write(data);
    return await r.text();
  } finally {
    r.dispose();
  }
}
