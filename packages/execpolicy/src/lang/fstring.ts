/**
 * Splitting an f-string literal into literal text and `{expr}` fields, from the token's raw image
 * (not its decoded value: a field is code, so `\{` and quotes mean what they mean in code). The
 * fields are parsed as expressions by the caller. What Starlark accepts is accepted: any expression,
 * nested strings and f-strings, `!r`/`!s` conversions; format specs (`{x:>5}`), `{x=}`, comments and
 * backslashes inside a field are refused, as there.
 */
import { scanField, scanString } from "./tokens.js";
import { StringDecodeError, decodeBody } from "./strings.js";

/** One `{...}` field: its expression text and where that text starts in the token image. */
export interface FieldSpec {
  text: string;
  offset: number;
  repr: boolean;
}

/** Split the image of an f-string token. Throws `StringDecodeError` (offsets relative to the image). */
export function splitFStringImage(image: string): Array<string | FieldSpec> {
  const prefix = /^[rbf]{0,2}/.exec(image)![0];
  const raw = prefix.includes("r");
  const q = image[prefix.length]!;
  const qlen = image.startsWith(q.repeat(3), prefix.length) ? 3 : 1;
  const start = prefix.length + qlen;
  const end = image.length - qlen;
  const parts: Array<string | FieldSpec> = [];
  let chunk = "";
  let chunkStart = start;
  const flush = (at: number) => {
    if (chunk) parts.push(decodeBody(chunk, raw, chunkStart));
    chunk = "";
    chunkStart = at;
  };
  for (let i = start; i < end;) {
    const c = image[i]!;
    if (c === "\\") {
      chunk += image.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "{" && image[i + 1] === "{") { chunk += "{"; i += 2; continue; }
    if (c === "}" && image[i + 1] === "}") { chunk += "}"; i += 2; continue; }
    if (c === "}") throw new StringDecodeError("f-string: single `}` is not allowed (write `}}` for a literal brace)", i);
    if (c !== "{") { chunk += c; i++; continue; }
    const close = scanField(image, i + 1);
    if (close > end || image[close - 1] !== "}") throw new StringDecodeError("f-string: `{` is not closed by `}`", i);
    flush(close);
    parts.push(field(image, i + 1, close - 1));
    i = close;
    chunkStart = i;
  }
  flush(end);
  return parts;
}

/** Validate one field's text (between `{` and `}`) and split off its conversion. */
function field(image: string, from: number, to: number): FieldSpec {
  let conversionAt = -1;
  let depth = 0;
  for (let i = from; i < to;) {
    const c = image[i]!;
    if (c === "'" || c === '"') {
      let j = i - 1;
      while (j >= from && /[rbf]/.test(image[j]!)) j--;
      i = scanString(image, i, image.slice(j + 1, i).includes("f"));
      continue;
    }
    if (c === "\\") throw new StringDecodeError("f-string: a backslash is not allowed inside `{}`", i);
    if (c === "#") throw new StringDecodeError("f-string: a comment is not allowed inside `{}`", i);
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === "!" && image[i + 1] !== "=" && depth === 0 && conversionAt < 0) conversionAt = i;
    i++;
  }
  let text = image.slice(from, to);
  let repr = false;
  if (conversionAt >= 0) {
    text = image.slice(from, conversionAt);
    if (/\s$/.test(text)) throw new StringDecodeError("f-string: unexpected `!` (a conversion must follow the expression directly, as in `{x!r}`)", conversionAt);
    const conv = image.slice(conversionAt + 1, to).trim();
    if (conv !== "r" && conv !== "s") throw new StringDecodeError(`f-string: invalid conversion \`!${conv}\` (expected \`!s\` or \`!r\`)`, conversionAt);
    repr = conv === "r";
  }
  if (text.trim() === "") throw new StringDecodeError("f-string: empty `{}` (expected an expression)", from);
  return { text, offset: from, repr };
}
