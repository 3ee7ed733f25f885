import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * Saves the full text of outputs the model only saw truncated, so it can page them with ordinary
 * tools. Files are private (mode 0600). A directory the spill created itself is removed by
 * `dispose()`; a caller-supplied directory is left alone.
 */
export class OutputSpill {
  readonly #configuredDir: string | undefined;
  #dir: Promise<string> | undefined;
  #owned = false;
  #counter = 0;

  /** `dir`: where to write; default a fresh `shellgate-output-*` directory under the OS temp dir. */
  constructor(options: { dir?: string } = {}) {
    this.#configuredDir = options.dir;
  }

  /** Write `text` to a new file named after the call; returns its absolute path. */
  async save(callId: string, text: string): Promise<string> {
    const dir = await this.#directory();
    this.#counter += 1;
    const safeId = callId.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64) || "call";
    const file = path.join(dir, `${safeId}-${this.#counter}.txt`);
    await writeFile(file, text, { encoding: "utf8", mode: 0o600 });
    return file;
  }

  /** The directory in use, if one has been created yet. */
  async directory(): Promise<string | undefined> {
    return this.#dir;
  }

  /** Remove the directory when the spill created it. */
  async dispose(): Promise<void> {
    if (!this.#dir || !this.#owned) return;
    const dir = await this.#dir.catch(() => undefined);
    this.#dir = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  #directory(): Promise<string> {
    if (!this.#dir) {
      if (this.#configuredDir !== undefined) {
        const dir = path.resolve(this.#configuredDir);
        this.#dir = mkdir(dir, { recursive: true, mode: 0o700 }).then(() => dir);
      } else {
        this.#owned = true;
        this.#dir = mkdtemp(path.join(os.tmpdir(), "shellgate-output-"));
      }
      // A failed mkdir must be retried on the next save, not cached forever.
      this.#dir.catch(() => {
        this.#dir = undefined;
      });
    }
    return this.#dir;
  }
}

/**
 * Render once; when the model's view was truncated and a spill is available, save `fullText` and
 * render again with the file's path in it.
 */
export async function renderWithSpill<T extends { truncation: { truncated: boolean } }>(
  render: (fullOutputPath?: string) => T,
  fullText: string,
  spill: { save(callId: string, text: string): Promise<string> } | undefined,
  callId: string,
): Promise<T & { fullOutputPath?: string }> {
  const first = render();
  if (!first.truncation.truncated || !spill) return first;
  const fullOutputPath = await spill.save(callId, fullText);
  return { ...render(fullOutputPath), fullOutputPath };
}
