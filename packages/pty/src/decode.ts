// One decoder for the whole package: `fatal: false` turns invalid UTF-8 into U+FFFD instead of throwing,
// and `ignoreBOM` keeps a leading BOM visible rather than silently eating it.
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Decodes bytes as UTF-8, replacing invalid sequences with U+FFFD; never throws (binary-safe). */
export function decodeLossy(bytes: Uint8Array): string {
  return bytes.byteLength === 0 ? "" : decoder.decode(bytes);
}
