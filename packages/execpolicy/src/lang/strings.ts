/** Decoding of Starlark string literal images (prefixes, quotes, escapes) into values. */

/** Why a literal could not be decoded; `offset` is relative to the literal's start. */
export class StringDecodeError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

/** A decoded literal: its value and whether it was an f-string (whose `{}` parts still need parsing). */
export interface DecodedString {
  value: string;
  raw: boolean;
  fstring: boolean;
  /** For f-strings: the decoded text, in which `{expr}` parts are found by the parser. */
}

/** Decode the image of a string token. Throws `StringDecodeError` for invalid escapes. */
export function decodeStringLiteral(image: string): DecodedString {
  const prefixMatch = /^[rRbBfF]{0,2}/.exec(image)!;
  const prefix = prefixMatch[0].toLowerCase();
  if (prefix.length === 2 && (prefix[0] === prefix[1] || prefix.includes("f") && prefix.includes("b"))) {
    throw new StringDecodeError(`invalid string prefix \`${prefixMatch[0]}\``, 0);
  }
  const raw = prefix.includes("r");
  const fstring = prefix.includes("f");
  const body = image.slice(prefix.length);
  const q = body[0]!;
  const qlen = body.startsWith(q.repeat(3)) ? 3 : 1;
  const inner = body.slice(qlen, body.length - qlen);
  const base = prefix.length + qlen;
  const value = raw ? inner.replace(/\r\n?/g, "\n") : unescape(inner, base);
  return { value, raw, fstring };
}

/** Decode the body of a literal (or one literal chunk of an f-string); `base` offsets error positions. */
export function decodeBody(s: string, raw: boolean, base: number): string {
  return raw ? s.replace(/\r\n?/g, "\n") : unescape(s, base);
}

function unescape(s: string, base: number): string {
  if (!s.includes("\\") && !s.includes("\r")) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\r") {
      out += "\n";
      if (s[i + 1] === "\n") i++;
      continue;
    }
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = s[i + 1];
    i++;
    switch (e) {
      case "n": out += "\n"; break;
      case "t": out += "\t"; break;
      case "r": out += "\r"; break;
      case "a": out += "\x07"; break;
      case "b": out += "\b"; break;
      case "f": out += "\f"; break;
      case "v": out += "\v"; break;
      case "0": case "1": case "2": case "3": case "4": case "5": case "6": case "7": {
        const m = /^[0-7]{1,3}/.exec(s.slice(i))![0];
        out += String.fromCodePoint(parseInt(m, 8));
        i += m.length - 1;
        break;
      }
      case "x": {
        const m = /^[0-9a-fA-F]{2}/.exec(s.slice(i + 1));
        if (!m) throw new StringDecodeError("invalid \\x escape: expected two hex digits", base + i - 1);
        out += String.fromCodePoint(parseInt(m[0], 16));
        i += 2;
        break;
      }
      case "u":
      case "U": {
        const n = e === "u" ? 4 : 8;
        const m = new RegExp(`^[0-9a-fA-F]{${n}}`).exec(s.slice(i + 1));
        if (!m) throw new StringDecodeError(`invalid \\${e} escape: expected ${n} hex digits`, base + i - 1);
        const cp = parseInt(m[0], 16);
        if (cp > 0x10ffff) throw new StringDecodeError(`invalid \\${e} escape: code point out of range`, base + i - 1);
        // Lone surrogates are kept as-is so that JSON-encoded tokens (amend) read back exactly.
        out += cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
        i += n;
        break;
      }
      case "\n": break; // line continuation inside a string
      case "\r": if (s[i + 1] === "\n") i++; break;
      case "\\": case "'": case '"': out += e; break;
      case undefined: throw new StringDecodeError("trailing backslash in string", base + i - 1);
      default:
        // Starlark keeps unknown escapes literally (backslash included).
        out += "\\" + e;
    }
  }
  return out;
}
