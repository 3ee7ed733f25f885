import { GitConfigUnreadableError } from "./errors.js";

/** One `key = value` of a git config file, with where it was written. */
export interface GitConfigEntry {
  /** Section name, lower-cased (`core`, `includeif`). */
  section: string;
  /** Subsection as written (case matters), or undefined for `[core]`. */
  subsection: string | undefined;
  /** Variable name, lower-cased (`hookspath`). */
  name: string;
  /** The value with quotes, escapes and continuations resolved; `undefined` for a bare `name` (boolean true). */
  value: string | undefined;
  /** 1-based line of the variable name. */
  line: number;
}

const isAlpha = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
const isDigit = (c: string) => c >= "0" && c <= "9";
const isNameChar = (c: string) => isAlpha(c) || isDigit(c) || c === "-";
const isBlank = (c: string) => c === " " || c === "\t" || c === "\r" || c === "\f" || c === "\v";

/**
 * Parse git's configuration format: `[section]`, `[section "subsection"]` (with `\"` and `\\`),
 * the old `[section.subsection]`, `name = value` and bare `name`, double quotes, the escapes
 * `\n \t \b \\ \"`, backslash-newline continuations, `#` and `;` comments. Whitespace inside a value
 * is kept (each blank as a space), leading and trailing whitespace outside quotes is dropped, as git
 * does. Nothing is interpreted beyond the syntax: includes, conditions and types are the caller's.
 * @throws GitConfigUnreadableError naming `file:line:column` where git itself would call the file bad.
 */
export function parseGitConfig(text: string, file: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let pos = 0;
  let line = 1;
  let lineStart = 0;
  let section: string | undefined;
  let subsection: string | undefined;
  const bad = (reason: string): never => {
    throw new GitConfigUnreadableError(file, reason, { line, column: pos - lineStart + 1 });
  };
  const peek = () => text[pos] ?? "";
  const next = (): string => {
    const c = text[pos++] ?? "";
    if (c === "\n") {
      line++;
      lineStart = pos;
    }
    return c;
  };
  const skipToEol = () => {
    while (pos < text.length && peek() !== "\n") pos++;
  };

  const header = () => {
    next(); // "["
    let name = "";
    while (pos < text.length && (isNameChar(peek()) || peek() === ".")) name += next();
    if (name === "") bad("a section header needs a name");
    if (peek() === "]") {
      next();
      const dot = name.indexOf(".");
      // The old `[section.sub]` form: git lower-cases the subsection too.
      section = (dot < 0 ? name : name.slice(0, dot)).toLowerCase();
      subsection = dot < 0 ? undefined : name.slice(dot + 1).toLowerCase();
      return;
    }
    if (name.includes(".")) bad("a section name with a dot cannot take a quoted subsection");
    while (isBlank(peek())) next();
    if (peek() !== '"') bad("expected `]` or a quoted subsection");
    next();
    let sub = "";
    for (;;) {
      if (pos >= text.length || peek() === "\n") bad("unterminated subsection");
      let c = next();
      if (c === '"') break;
      if (c === "\\") {
        if (pos >= text.length || peek() === "\n") bad("unterminated subsection");
        c = next();
      }
      sub += c;
    }
    if (peek() !== "]") bad("expected `]` after the subsection");
    next();
    section = name.toLowerCase();
    subsection = sub;
  };

  const value = (): string => {
    let out = "";
    let spaces = 0;
    let quoted = false;
    for (;;) {
      if (pos >= text.length) {
        if (quoted) bad("unterminated quote");
        return out;
      }
      const c = peek();
      if (c === "\n") {
        if (quoted) bad("unterminated quote");
        return out;
      }
      if (!quoted && (c === "#" || c === ";")) {
        skipToEol();
        return out;
      }
      next();
      if (!quoted && isBlank(c)) {
        if (out.length > 0) spaces++;
        continue;
      }
      out += " ".repeat(spaces);
      spaces = 0;
      if (c === '"') {
        quoted = !quoted;
        continue;
      }
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = next();
      if (e === "\n") continue;
      if (e === "\r" && peek() === "\n") {
        next();
        continue;
      }
      const escapes: Record<string, string> = { n: "\n", t: "\t", b: "\b", "\\": "\\", '"': '"' };
      const resolved = escapes[e];
      if (resolved === undefined) bad(`unknown escape \\${e}`);
      out += resolved;
    }
  };

  // A UTF-8 byte-order mark is skipped, as git does.
  if (text.charCodeAt(0) === 0xfeff) pos = 1;
  while (pos < text.length) {
    const c = peek();
    if (c === "\n" || isBlank(c)) {
      next();
      continue;
    }
    if (c === "#" || c === ";") {
      skipToEol();
      continue;
    }
    if (c === "[") {
      header();
      continue;
    }
    if (!isAlpha(c)) bad(`unexpected ${JSON.stringify(c)}`);
    if (section === undefined) bad("a variable before any section");
    const at = line;
    let name = "";
    while (pos < text.length && isNameChar(peek())) name += next();
    while (isBlank(peek())) next();
    let v: string | undefined;
    if (peek() === "=") {
      next();
      v = value();
    } else if (pos < text.length && peek() !== "\n" && peek() !== "#" && peek() !== ";") {
      bad(`expected \`=\` after ${name}`);
    } else if (peek() === "#" || peek() === ";") {
      skipToEol();
    }
    entries.push({ section: section as string, subsection, name: name.toLowerCase(), value: v, line: at });
  }
  return entries;
}

/**
 * Split a command value into words the way `sh` would for plain words: blanks separate, single
 * quotes are literal, double quotes keep blanks and take `\` before `"`, `\`, `$` and a backtick,
 * a bare `\` quotes the next character. Expansions are not performed; a word holding one is kept
 * as written, which can only make a path look like another path, never hide a plain one.
 */
export function splitCommandWords(command: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (c === " " || c === "\t" || c === "\n") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word += end < 0 ? command.slice(i + 1) : command.slice(i + 1, end);
      i = end < 0 ? command.length : end;
    } else if (c === '"') {
      for (i++; i < command.length && command[i] !== '"'; i++) {
        if (command[i] === "\\" && '"\\$`'.includes(command[i + 1] ?? "")) i++;
        word += command[i] ?? "";
      }
    } else if (c === "\\") {
      word += command[++i] ?? "";
    } else if (c === ";" || c === "|" || c === "&") {
      // A command separator: what follows is another program.
      if (inWord && word !== "") words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
    }
  }
  if (inWord) words.push(word);
  return words;
}
