// A reader for the s-expressions of SBPL (Seatbelt's profile language, a Scheme dialect): lists,
// symbols, strings, `#"…"` regex literals, numbers, `#t`/`#f`, `;` comments. Test support only.

export type SExpr =
  | { kind: "list"; items: SExpr[] }
  | { kind: "symbol"; name: string }
  | { kind: "string"; value: string }
  | { kind: "regex"; source: string }
  | { kind: "number"; value: number }
  | { kind: "boolean"; value: boolean };

export class SbplSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} at offset ${offset}`);
  }
}

/** Read every top-level form of `text`. */
export function readSExprs(text: string): SExpr[] {
  let i = 0;
  const skip = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i] as string)) i++;
      if (text[i] !== ";") return;
      while (i < text.length && text[i] !== "\n") i++;
    }
  };
  const readString = (start: number): string => {
    let out = "";
    for (i = start; i < text.length; i++) {
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === "\\") {
        const next = text[++i];
        if (next === undefined) break;
        out += next === "n" ? "\n" : next === "t" ? "\t" : next;
      } else out += c;
    }
    throw new SbplSyntaxError("unterminated string", start);
  };
  const readOne = (): SExpr => {
    skip();
    const c = text[i];
    if (c === undefined) throw new SbplSyntaxError("unexpected end of profile", i);
    if (c === "(") {
      i++;
      const items: SExpr[] = [];
      for (;;) {
        skip();
        if (text[i] === undefined) throw new SbplSyntaxError("unclosed list", i);
        if (text[i] === ")") {
          i++;
          return { kind: "list", items };
        }
        items.push(readOne());
      }
    }
    if (c === ")") throw new SbplSyntaxError("unexpected )", i);
    if (c === '"') return { kind: "string", value: readString(i + 1) };
    if (c === "#" && text[i + 1] === '"') {
      // a regex literal keeps its backslashes: they belong to the regular expression
      const start = i;
      let source = "";
      for (i += 2; i < text.length; i++) {
        if (text[i] === "\\" && text[i + 1] === '"') {
          source += '"';
          i++;
        } else if (text[i] === '"') {
          i++;
          return { kind: "regex", source };
        } else source += text[i];
      }
      throw new SbplSyntaxError("unterminated regex", start);
    }
    const start = i;
    while (i < text.length && !/[\s()";]/.test(text[i] as string)) i++;
    const atom = text.slice(start, i);
    if (atom === "#t" || atom === "#f") return { kind: "boolean", value: atom === "#t" };
    if (/^-?\d+$/.test(atom)) return { kind: "number", value: Number(atom) };
    return { kind: "symbol", name: atom };
  };
  const forms: SExpr[] = [];
  for (skip(); i < text.length; skip()) forms.push(readOne());
  return forms;
}
