/**
 * POSIX-shell-style splitting of string `match`/`not_match` examples, with the rules Codex uses
 * (those of the Rust `shlex` crate): space, tab and newline separate words; `#` at the start of a
 * word starts a comment; single quotes are literal; inside double quotes a backslash escapes only
 * `$`, backquote, `"`, `\` and newline; outside quotes a backslash escapes any character and
 * backslash-newline disappears. Unbalanced quotes or a trailing backslash are errors (`null`).
 *
 * Hand-written on purpose: the exact splitting rules are part of the policy language we implement.
 */
export function shlexSplit(input: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  const n = input.length;
  const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n";
  while (i < n) {
    // Skip separators and comments.
    while (i < n) {
      const c = input[i]!;
      if (isSpace(c)) { i++; continue; }
      if (c === "#") {
        while (i < n && input[i] !== "\n") i++;
        continue;
      }
      break;
    }
    if (i >= n) break;
    let word = "";
    while (i < n && !isSpace(input[i])) {
      const c = input[i]!;
      if (c === "'") {
        const end = input.indexOf("'", i + 1);
        if (end < 0) return null;
        word += input.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        i++;
        let closed = false;
        while (i < n) {
          const d = input[i]!;
          if (d === '"') { closed = true; i++; break; }
          if (d === "\\") {
            const e = input[i + 1];
            if (e === undefined) return null;
            if (e === "$" || e === "`" || e === '"' || e === "\\") word += e;
            else if (e !== "\n") word += "\\" + e;
            i += 2;
            continue;
          }
          word += d;
          i++;
        }
        if (!closed) return null;
      } else if (c === "\\") {
        const e = input[i + 1];
        if (e === undefined) return null;
        if (e !== "\n") word += e;
        i += 2;
      } else {
        word += c;
        i++;
      }
    }
    out.push(word);
  }
  return out;
}

/** Quote one word for display so that `shlexSplit` would read it back unchanged. */
export function shlexQuote(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}
