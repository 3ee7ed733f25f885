import type { SessionProcess } from "./internals.js";

/** An in-memory process for store/collection tests: output and exit are driven by the test. */
export class FakeProcess implements SessionProcess {
  static #nextPid = 50_000;
  readonly pid = FakeProcess.#nextPid++;
  readonly tty: boolean;
  readonly written: string[] = [];
  terminated = false;
  readonly exited: Promise<{ exitCode: number }>;
  #resolveExit!: (info: { exitCode: number }) => void;
  #history: Uint8Array[] = [];
  #listeners = new Set<(chunk: Uint8Array) => void>();
  /** When set, each write is echoed back as output through this function. */
  respond?: (input: string) => string | undefined;

  constructor(options: { tty?: boolean } = {}) {
    this.tty = options.tty ?? true;
    this.exited = new Promise((resolve) => {
      this.#resolveExit = resolve;
    });
  }

  write(data: string): void {
    this.written.push(data);
    const reply = this.respond?.(data);
    if (reply !== undefined) this.emit(reply);
  }

  onOutput(listener: (chunk: Uint8Array) => void): () => void {
    for (const chunk of this.#history) listener(chunk);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** How many output listeners are subscribed (a replaced session must not stay subscribed). */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  emit(text: string): void {
    const chunk = Buffer.from(text);
    this.#history.push(chunk);
    for (const listener of this.#listeners) listener(chunk);
  }

  exit(exitCode: number): void {
    this.#resolveExit({ exitCode });
  }

  async terminate(): Promise<void> {
    this.terminated = true;
    this.exit(137);
  }
}
