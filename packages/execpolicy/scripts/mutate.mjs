// Mutation operators for the differential fuzzer (differential.mjs --mutate N). Each operator takes a
// rules file's text and a seeded random source and returns a mutated text (or null when it does not
// apply). The operators aim at what people get wrong when writing rules by hand: a dropped or extra
// comma or bracket, a misspelt keyword, a changed literal, an f-string, a trailing comma, a method
// called with the wrong number of arguments.

/** Mulberry32: a small deterministic PRNG so that `--seed` reproduces a run exactly. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)] };
}

// Strings (with f/r/b prefixes, single or triple quoted), names, numbers, newlines, other spaces, punctuation.
const TOKEN = /[rbfRBF]{0,2}(?:"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d*)?|\r?\n|[ \t]+|#[^\n]*|\*\*|\/\/|[=!<>]=|\S/g;

/** Split text into tokens (concatenating them gives the text back). */
export function lex(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(m[0]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const isCode = (t) => !/^\s*$/.test(t) && !t.startsWith("#");
const isString = (t) => /^[rbfRBF]{0,2}["']/.test(t);
const KWARGS = ["pattern", "decision", "match", "not_match", "justification", "name", "paths", "host", "protocol"];
const LITERALS = ['"allow"', '"prompt"', '"forbidden"', '"deny"', '"Allow"', '""', '" "', '"git"', '"/usr/bin/git"', '"~/bin/git"', '"a b"', "None", "True", "1", "0", "-1", "[]", "[[]]", '["x"]', "()", '("x",)', "{}", '{"a": 1}', '"https"', '"socks5_udp"', "1.5", "10**3"];
const FSTRINGS = ['f"use {1+1}"', 'f"{x}"', "f\"{'a'}\"", 'f"{[1, 2]}"', 'f"{1!r}"', 'f"{\'a\'!r}"', 'f"{1!x}"', 'f"{x:>5}"', 'f"{}"', 'f"{{}}"', 'f"}"', 'f"{"', 'f"{ {1: 2} }"', 'f"{None}"', 'f"{1 if True else 2}"', 'f"{(1,\n2)}"', 'f"{len([1])}"', 'fr"{1}\\n"', 'rf"{1}"', 'F"{1}"', 'f"{1 # c}"', 'f"{1}" "x"', 'f"{lambda: 1}"', 'f"{1,}"', 'f"{x=}"', 'f"{f"{1}"}"', 'f"{\\"a\\"}"', "f'''{1}'''"];
const METHODS = [
  "d.keys()", "d.keys(0)", "d.values(1)", "d.items(1)", "d.clear(1)", "d.get()", "d.get(1, 2, 3)", "d.update({}, {})", "d.update(1)", "d.pop()", "d.popitem()", "d.setdefault(1, 2, 3)",
  "s.isdigit(1)", "s.lower(1)", "s.upper(1)", "s.title()", "s.capitalize()", "s.rfind(\"a\")", "s.index(\"a\")", "s.partition(\"a\")", "s.islower()", "s.removeprefix(\"a\")",
  "s.find(\"a\", 0)", "s.count(\"a\", 0, 1)", "s.split(\"a\", 1, 2)", "s.elems(1)", "s.codepoints()", "s.format(1)", "s.join()", "s.rsplit()", "s.startswith(\"a\", 0)", "s.strip(\"a\", 1)",
  "l.index(1, 0)", "l.pop(0, 1)", "l.append()", "l.append(1, 2)", "l.extend()", "l.insert(1)", "l.remove()", "l.clear(1)",
  "len(x=1)", "str(x=1)", "type(1, 2)", "sorted([1], reverse=True, key=None)", "list((1,), 2)", "range(1, 2, 3, 4)", "bool(1, 2)", "int(\"1\", 10, 1)", "abs(1.5)", "min()", "zip()", "enumerate([1], 1)", "reversed(\"ab\")", "dir(None)", "hasattr(1, \"x\")", "print(1)", "getattr(d, \"keys\")()", "repr(1, 2)", "any()", "all([], [])",
];
const SNIPPETS = ["x = 1,", "1, 2", "(1, 2)", "a, b = 1, 2", "a, b, = 1, 2", "for x in 1, 2:\n    pass", "def f():\n    return 1,", "x = [a for a in 1, 2]", "x = lambda a,: a", "def f(a,): pass", "x = {\"a\": 1,}", "x = [1]\nx += 2,", "pass", "x = ()", "x = (1)", "x = [1,]", "if True: pass", "x = 1 if True else 2", "x = not 1", "x = -1", "x = 1 < 2 < 3"];

function typo(word, r) {
  const i = r.int(word.length);
  switch (r.int(4)) {
    case 0: return word.slice(0, i) + word.slice(i + 1);
    case 1: return word.slice(0, i) + word[i] + word.slice(i);
    case 2: return i + 1 < word.length ? word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2) : word + "s";
    default: return word.slice(0, i) + "x" + word.slice(i + 1);
  }
}

/** Index of a random token satisfying `pred`, or -1. */
function pickIndex(tokens, pred, r) {
  const idx = tokens.map((t, i) => (pred(t, i) ? i : -1)).filter((i) => i >= 0);
  return idx.length ? r.pick(idx) : -1;
}

/** Insert `line` at a random line boundary (top level). */
function insertLine(text, line, r) {
  const lines = text.split("\n");
  const tops = lines.map((l, i) => (/^\S/.test(l) || l === "" ? i : -1)).filter((i) => i >= 0);
  const at = tops.length ? r.pick(tops) : 0;
  lines.splice(at, 0, line);
  return lines.join("\n");
}

/** The mutation operators, by name. */
export const OPERATORS = {
  deleteToken(text, r) { const t = lex(text); const i = pickIndex(t, isCode, r); if (i < 0) return null; t.splice(i, 1); return t.join(""); },
  duplicateToken(text, r) { const t = lex(text); const i = pickIndex(t, isCode, r); if (i < 0) return null; t.splice(i, 0, t[i]); return t.join(""); },
  swapTokens(text, r) {
    const t = lex(text); const code = t.map((x, i) => (isCode(x) ? i : -1)).filter((i) => i >= 0);
    if (code.length < 2) return null; const k = r.int(code.length - 1); const [a, b] = [code[k], code[k + 1]];
    [t[a], t[b]] = [t[b], t[a]]; return t.join("");
  },
  dropComma(text, r) { const t = lex(text); const i = pickIndex(t, (x) => x === ",", r); if (i < 0) return null; t.splice(i, 1); return t.join(""); },
  insertComma(text, r) { const t = lex(text); const i = pickIndex(t, isCode, r); if (i < 0) return null; t.splice(i + 1, 0, ","); return t.join(""); },
  dropBracket(text, r) { const t = lex(text); const i = pickIndex(t, (x) => "()[]{}".includes(x) && x.length === 1, r); if (i < 0) return null; t.splice(i, 1); return t.join(""); },
  insertBracket(text, r) { const t = lex(text); const i = pickIndex(t, isCode, r); if (i < 0) return null; t.splice(i, 0, r.pick(["(", ")", "[", "]", "{", "}"])); return t.join(""); },
  renameKwarg(text, r) {
    const t = lex(text);
    const i = pickIndex(t, (x, j) => /^[A-Za-z_]\w*$/.test(x) && (t[j + 1] === "=" || (t[j + 2] === "=" && /^\s+$/.test(t[j + 1] ?? ""))), r);
    if (i < 0) return null; t[i] = r.next() < 0.6 ? typo(t[i], r) : r.pick(KWARGS); return t.join("");
  },
  renameName(text, r) { const t = lex(text); const i = pickIndex(t, (x) => /^[A-Za-z_]\w*$/.test(x), r); if (i < 0) return null; t[i] = typo(t[i], r); return t.join(""); },
  changeLiteral(text, r) { const t = lex(text); const i = pickIndex(t, (x) => isString(x) || /^\d/.test(x) || x === "None" || x === "True" || x === "False", r); if (i < 0) return null; t[i] = r.pick(LITERALS); return t.join(""); },
  fstring(text, r) {
    const t = lex(text); const i = pickIndex(t, isString, r); if (i < 0) return null;
    t[i] = r.pick(FSTRINGS); return `x = 3\n${t.join("")}`;
  },
  trailingComma(text, r) {
    const lines = text.split("\n"); const idx = lines.map((l, i) => (/\)\s*$/.test(l) ? i : -1)).filter((i) => i >= 0);
    if (!idx.length) return null; const i = r.pick(idx); lines[i] = lines[i].replace(/\s*$/, ","); return lines.join("\n");
  },
  methodCall(text, r) { return insertLine(`d = {"a": 1}\ns = "ab"\nl = [1]\n${text}`, r.pick(METHODS), r); },
  snippet(text, r) { return insertLine(text, r.pick(SNIPPETS), r); },
};

/** Apply one to three random operators; returns the text and the names of the operators applied. */
export function mutate(text, r) {
  const names = Object.keys(OPERATORS);
  const applied = [];
  let out = text;
  const n = 1 + (r.next() < 0.3 ? r.int(3) : 0);
  for (let k = 0; k < n; k++) {
    const name = r.pick(names);
    const m = OPERATORS[name](out, r);
    if (m !== null && m !== out) { out = m; applied.push(name); }
  }
  return { text: out, operators: applied };
}
