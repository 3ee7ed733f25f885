/** A 1-based position in a configuration file. */
export interface TextPosition {
  line: number;
  column: number;
}

/** Where one key is defined: the key itself and the start of its value. */
interface KeySite {
  path: string[];
  /** Where each part of `path` is written on this line (undefined for parts inherited from a table header). */
  parts: Array<TextPosition | undefined>;
  key: TextPosition;
  value: TextPosition;
  /** The value's text up to the end of its line, for keys inside an inline table. */
  valueText: string;
}

const BARE_KEY = /^[A-Za-z0-9_-]+/;

/**
 * Read a dotted key (`a."b c".d`) at `text[start]`; returns its parts with the column offset of each,
 * and the index after it, or undefined when there is no key there.
 */
function readKey(text: string, start: number): { parts: Array<{ name: string; at: number }>; end: number } | undefined {
  const parts: Array<{ name: string; at: number }> = [];
  let i = start;
  for (;;) {
    while (text[i] === " " || text[i] === "\t") i++;
    const at = i;
    const quote = text[i];
    if (quote === '"' || quote === "'") {
      let name = "";
      i++;
      while (i < text.length && text[i] !== quote) {
        if (quote === '"' && text[i] === "\\" && i + 1 < text.length) {
          name += text[i + 1];
          i += 2;
        } else {
          name += text[i++];
        }
      }
      if (text[i] !== quote) return undefined;
      i++;
      parts.push({ name, at });
    } else {
      const m = BARE_KEY.exec(text.slice(i));
      if (!m) return undefined;
      parts.push({ name: m[0], at });
      i += m[0].length;
    }
    while (text[i] === " " || text[i] === "\t") i++;
    if (text[i] !== ".") return { parts, end: i };
    i++;
  }
}

/** Every key definition of a TOML text with its position: table headers, `key = value`, dotted keys. */
function keySites(text: string): KeySite[] {
  const sites: KeySite[] = [];
  const lines = text.split(/\r?\n/);
  let table: string[] = [];
  // Open multi-line strings and brackets mean the next lines continue a value, not new keys.
  let multiline: string | undefined;
  let depth = 0;
  lines.forEach((line, index) => {
    const lineNo = index + 1;
    if (multiline !== undefined) {
      if (line.includes(multiline)) multiline = undefined;
      return;
    }
    if (depth > 0) {
      depth += bracketBalance(line);
      return;
    }
    const trimmed = line.trimStart();
    const indent = line.length - trimmed.length;
    if (trimmed === "" || trimmed.startsWith("#")) return;
    if (trimmed.startsWith("[")) {
      const double = trimmed.startsWith("[[");
      const key = readKey(line, indent + (double ? 2 : 1));
      if (key) {
        table = key.parts.map((p) => p.name);
        const last = key.parts[key.parts.length - 1]!;
        sites.push({
          path: table,
          parts: key.parts.map((p) => ({ line: lineNo, column: p.at + 1 })),
          key: { line: lineNo, column: last.at + 1 },
          value: { line: lineNo, column: last.at + 1 },
          valueText: "",
        });
      }
      return;
    }
    const key = readKey(line, indent);
    if (!key || line[key.end] !== "=") return;
    let v = key.end + 1;
    while (line[v] === " " || line[v] === "\t") v++;
    const valueText = line.slice(v);
    const last = key.parts[key.parts.length - 1]!;
    sites.push({
      path: [...table, ...key.parts.map((p) => p.name)],
      parts: [...table.map(() => undefined), ...key.parts.map((p) => ({ line: lineNo, column: p.at + 1 }))],
      key: { line: lineNo, column: last.at + 1 },
      value: { line: lineNo, column: v + 1 },
      valueText,
    });
    for (const fence of ['"""', "'''"]) {
      if (valueText.startsWith(fence) && !valueText.slice(3).includes(fence)) multiline = fence;
    }
    if (multiline === undefined) depth = Math.max(0, bracketBalance(valueText));
  });
  return sites;
}

/** Open `[`/`{` minus closed ones on a line, ignoring strings and comments. */
function bracketBalance(text: string): number {
  let balance = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#") break;
    else if (c === "[" || c === "{") balance++;
    else if (c === "]" || c === "}") balance--;
  }
  return balance;
}

/** The position of `key = ` inside an inline table's text (`{ a = 1, key = 2 }`), relative to it. */
function findInInline(valueText: string, key: string): { key: number; value: number } | undefined {
  for (let i = 0; i < valueText.length; i++) {
    if (valueText[i] !== "{" && valueText[i] !== ",") continue;
    const k = readKey(valueText, i + 1);
    if (!k || valueText[k.end] !== "=" || k.parts.length !== 1 || k.parts[0]!.name !== key) continue;
    let v = k.end + 1;
    while (valueText[v] === " ") v++;
    return { key: k.parts[0]!.at, value: v };
  }
  return undefined;
}

/**
 * The position of element `index` of the array that starts at `start` (a `[`) in `text`, or undefined.
 * Strings, nested arrays and inline tables, and comments are skipped.
 */
function arrayElement(text: string, start: number, index: number): number | undefined {
  if (text[start] !== "[") return undefined;
  let depth = 0;
  let element = -1;
  let expecting = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === "#") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (depth === 1 && expecting && !/\s/.test(c) && c !== "," && c !== "]") {
      element++;
      expecting = false;
      if (element === index) return i;
    }
    if (c === '"' || c === "'") {
      const fence = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      i += fence.length;
      while (i < text.length && !text.startsWith(fence, i)) i += c === '"' && text[i] === "\\" ? 2 : 1;
      i += fence.length - 1;
    } else if (c === "[" || c === "{") {
      depth++;
      if (depth === 1) expecting = true;
    } else if (c === "]" || c === "}") {
      depth--;
      if (depth === 0) return undefined;
    } else if (c === "," && depth === 1) {
      expecting = true;
    }
  }
  return undefined;
}

function offsetOf(text: string, position: TextPosition): number {
  const lines = text.split("\n");
  let offset = 0;
  for (let i = 0; i < position.line - 1; i++) offset += lines[i]!.length + 1;
  return offset + position.column - 1;
}

function positionOf(text: string, offset: number): TextPosition {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/**
 * Where the value at `path` (as zod reports it: keys, then array indexes) is written in a TOML text:
 * the key's position with `at: "key"` (an unknown key), else its value's. When the path itself is not
 * written (a missing key), the position of the nearest enclosing table or key that is. Undefined when
 * nothing of it is found.
 */
export function locateKeyPath(text: string, path: ReadonlyArray<string | number>, at: "key" | "value" = "value"): TextPosition | undefined {
  // `rules[1]`: the element of the array value, when the index follows the keys.
  const firstIndex = path.findIndex((p) => typeof p === "number");
  if (firstIndex > 0 && at === "value" && path.slice(0, firstIndex).every((p) => typeof p === "string")) {
    const value = locateKeyPath(text, path.slice(0, firstIndex), "value");
    if (value) {
      const element = arrayElement(text, offsetOf(text, value), path[firstIndex] as number);
      return element === undefined ? value : positionOf(text, element);
    }
  }
  const keys = path.filter((p): p is string => typeof p === "string");
  const sites = keySites(text);
  for (let n = keys.length; n > 0; n--) {
    const want = keys.slice(0, n);
    const site = [...sites].reverse().find((s) => s.path.length === n && s.path.every((p, i) => p === want[i]));
    if (site) {
      if (n === keys.length) return at === "key" ? site.key : site.value;
      // An inline table: `parent = { key = ... }`.
      const inner = findInInline(site.valueText, keys[n]!);
      if (inner && n + 1 === keys.length) {
        const base = site.value.column;
        return { line: site.value.line, column: base + (at === "key" ? inner.key : inner.value) };
      }
      return site.key;
    }
    // Only written as part of a longer key (`[projects."/p"]`, `a.b = 1`): where that part is written.
    const longer = sites.find((s) => s.path.length > n && want.every((p, i) => s.path[i] === p) && s.parts[n - 1] !== undefined);
    if (longer) return longer.parts[n - 1];
  }
  return undefined;
}
