// The build's pass over esbuild's `keepNames` output (see scripts/bundle.mjs): it removes the
// `__name(...)` calls that set a name the function or class gets anyway, and keeps every other one.
import * as acorn from "acorn";

/**
 * With `keepNames`, esbuild wraps functions and classes in `__name(f, "f")`, which redefines `f.name`.
 * Most calls set the name the value would have without them; each still costs a `defineProperty` on a
 * function (a new hidden class) every time it runs, and some run once per zod schema: 1,700 calls,
 * ~350 KB of heap and ~3 ms of every `shellgate exec` start before this pass. Removed here:
 * - `x = __name(<anonymous function, arrow or class>, "x")` in a declaration, a plain assignment, an
 *   object literal property or a class field: without the call the value is named `x` by the
 *   language itself (NamedEvaluation), so only `__name(` and `, "x")` go;
 * - `__name(f, "f")` whose value is unused (a statement, or not the last of a comma sequence) where
 *   an enclosing block declares `function f` or `class f`, and `__name(this, "C")` in a static block
 *   of a class named `C` already (by its declaration, or as an anonymous class bound to `C`): the call
 *   becomes `0`.
 * Kept: every call that renames (`__name(fail2, "fail")`: bundling renamed `fail` to keep two modules
 * apart) and every form not listed. Everything is blanked to spaces, so each line keeps its length and
 * the source map still fits.
 * @param {string} code a script (a shebang line is allowed)
 * @returns {{ code: string, removed: number, kept: number }}
 */
export function blankRedundantNames(code) {
  const ast = acorn.parse(code, { ecmaVersion: "latest", sourceType: "script", allowHashBang: true, allowReturnOutsideFunction: true });
  // Offsets are in UTF-16 code units; the text is edited as an array of the same.
  const out = code.split("");
  const blank = (from, to) => out.fill(" ", from, to);
  let removed = 0;
  let kept = 0;
  visit(ast, []);
  return { code: out.join(""), removed, kept };

  function visit(node, ancestors) {
    if (isNameCall(node)) {
      if (redundantWrapper(node, ancestors.at(-1))) {
        blank(node.start, node.arguments[0].start);
        blank(node.arguments[0].end, node.end);
        removed++;
      } else if (redundantStatement(node, ancestors)) {
        blank(node.start, node.end);
        out[node.start] = "0";
        removed++;
      } else {
        kept++;
      }
    }
    ancestors.push(node);
    for (const [key, value] of Object.entries(node)) {
      if (key === "type" || key === "start" || key === "end") continue;
      for (const child of Array.isArray(value) ? value : [value]) if (child && typeof child.type === "string") visit(child, ancestors);
    }
    ancestors.pop();
  }
}

/** `__name(value, "literal")`, esbuild's helper call. */
function isNameCall(node) {
  return (
    node.type === "CallExpression" &&
    node.callee.type === "Identifier" &&
    node.callee.name === "__name" &&
    node.arguments.length === 2 &&
    node.arguments[1].type === "Literal" &&
    typeof node.arguments[1].value === "string"
  );
}

const isAnonymous = (n) => (n.type === "ArrowFunctionExpression" || n.type === "FunctionExpression" || n.type === "ClassExpression") && !n.id;

/** The name the language gives an anonymous function that is `node`, the value in `parent`. */
function boundName(node, parent) {
  if (!parent) return undefined;
  if (parent.type === "VariableDeclarator" && parent.init === node && parent.id.type === "Identifier") return parent.id.name;
  if (parent.type === "AssignmentExpression" && parent.operator === "=" && parent.right === node && parent.left.type === "Identifier") return parent.left.name;
  const isField = (parent.type === "Property" && parent.kind === "init" && !parent.method && !parent.shorthand) || parent.type === "PropertyDefinition";
  if (isField && parent.value === node && !parent.computed) return keyName(parent.key);
  return undefined;
}

function keyName(key) {
  if (key.type === "Identifier") return key.name;
  if (key.type === "Literal" && typeof key.value === "string") return key.value;
  return undefined;
}

/** `x = __name(() => {}, "x")`: the wrapper names the value what the binding names it anyway. */
function redundantWrapper(call, parent) {
  const [value, name] = call.arguments;
  return isAnonymous(value) && boundName(call, parent) === name.value;
}

/**
 * `function f() {} __name(f, "f")`, or `__name(this, "C")` in a static block of the class `C`, where
 * the call's value is unused. esbuild writes this form only after a declaration (for a module body run
 * lazily, the declaration is hoisted out of it, into an enclosing block); a name that differs is a rename.
 */
function redundantStatement(call, ancestors) {
  const [target, name] = call.arguments;
  const parent = ancestors.at(-1);
  const unused = parent?.type === "ExpressionStatement" || (parent?.type === "SequenceExpression" && parent.expressions.at(-1) !== call);
  if (!unused) return false;
  if (target.type === "Identifier") {
    if (target.name !== name.value) return false;
    const declares = (s) => (s.type === "FunctionDeclaration" || s.type === "ClassDeclaration") && s.id?.name === target.name;
    return ancestors.some((a) => Array.isArray(a.body) && a.body.some(declares));
  }
  if (target.type === "ThisExpression" && parent.type === "ExpressionStatement") {
    const i = ancestors.length - 2;
    const [cls, classBody, block] = [ancestors[i - 2], ancestors[i - 1], ancestors[i]];
    if (block?.type !== "StaticBlock" || classBody?.type !== "ClassBody" || !cls) return false;
    const className = cls.id ? cls.id.name : boundName(cls, ancestors[i - 3]);
    return className === name.value;
  }
  return false;
}
