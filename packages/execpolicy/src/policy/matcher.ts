/**
 * The compiled matcher: a map from program name to a token trie. Alternatives are expanded into
 * trie branches (so a command walks one path and the cost per command depends on its length and
 * on how many rules actually match, not on how many rules exist). A rule whose alternatives would
 * expand into more than `MAX_EXPANSION` paths stops expanding and is checked position by position
 * from the node where expansion stopped.
 */
import type { PrefixRule } from "./types.js";

/** Cap on trie paths one rule may expand into. */
const MAX_EXPANSION = 256;

interface Deferred {
  rule: PrefixRule;
  /** Index into `rule.rest` where checking resumes. */
  offset: number;
}

class TrieNode {
  // Most nodes have one child: keep it inline and only build a Map for the second one.
  private onlyToken: string | undefined;
  private onlyChild: TrieNode | undefined;
  private children: Map<string, TrieNode> | undefined;
  terminal: PrefixRule[] | undefined;
  deferred: Deferred[] | undefined;
  child(token: string): TrieNode {
    if (this.onlyChild !== undefined && this.onlyToken === token) return this.onlyChild;
    if (this.onlyChild === undefined && this.children === undefined) {
      this.onlyToken = token;
      this.onlyChild = new TrieNode();
      return this.onlyChild;
    }
    if (!this.children) {
      this.children = new Map([[this.onlyToken!, this.onlyChild!]]);
      this.onlyToken = undefined;
      this.onlyChild = undefined;
    }
    let c = this.children.get(token);
    if (!c) {
      c = new TrieNode();
      this.children.set(token, c);
    }
    return c;
  }
  next(token: string): TrieNode | undefined {
    if (this.onlyChild !== undefined) return this.onlyToken === token ? this.onlyChild : undefined;
    return this.children?.get(token);
  }
}

/** A found match: the rule and how many leading command tokens it covered. */
export interface RawMatch {
  rule: PrefixRule;
  length: number;
}

/** Prefix-rule matcher keyed by program. */
export class Matcher {
  private readonly roots = new Map<string, TrieNode>();

  /** Add a rule. Rules must be added in definition order. */
  add(rule: PrefixRule): void {
    let root = this.roots.get(rule.program);
    if (!root) {
      root = new TrieNode();
      this.roots.set(rule.program, root);
    }
    let frontier: TrieNode[] = [root];
    for (let i = 0; i < rule.rest.length; i++) {
      const raw = rule.rest[i]!;
      const alts = raw.length === 1 ? raw : [...new Set(raw)];
      if (frontier.length * alts.length > MAX_EXPANSION) {
        for (const node of frontier) (node.deferred ??= []).push({ rule, offset: i });
        return;
      }
      if (frontier.length === 1 && alts.length === 1) {
        frontier[0] = frontier[0]!.child(alts[0]!);
        continue;
      }
      const next: TrieNode[] = [];
      for (const node of frontier) for (const a of alts) next.push(node.child(a));
      frontier = next;
    }
    for (const node of frontier) (node.terminal ??= []).push(rule);
  }

  /** Whether any rule is keyed on `program`. */
  hasProgram(program: string): boolean {
    return this.roots.has(program);
  }

  /**
   * Every rule for `program` matching `argv` (whose first token is taken to be `program`), in
   * definition order. Returns `undefined` when nothing matches (the common case allocates nothing).
   */
  match(program: string, argv: readonly string[]): RawMatch[] | undefined {
    let node = this.roots.get(program);
    let out: RawMatch[] | undefined;
    let depth = 0;
    while (node) {
      if (node.terminal) {
        out ??= [];
        for (const rule of node.terminal) out.push({ rule, length: depth + 1 });
      }
      if (node.deferred) {
        for (const d of node.deferred) {
          if (matchesFrom(d.rule, argv, d.offset)) (out ??= []).push({ rule: d.rule, length: d.rule.rest.length + 1 });
        }
      }
      const token = argv[depth + 1];
      if (token === undefined) break;
      node = node.next(token);
      depth++;
    }
    if (out && out.length > 1) out.sort((a, b) => a.rule.index - b.rule.index);
    return out;
  }
}

/** Check `rule.rest[offset..]` against `argv[offset+1..]`. */
function matchesFrom(rule: PrefixRule, argv: readonly string[], offset: number): boolean {
  if (argv.length < rule.rest.length + 1) return false;
  for (let i = offset; i < rule.rest.length; i++) {
    if (!rule.rest[i]!.includes(argv[i + 1]!)) return false;
  }
  return true;
}

/** Does `rule` match `argv` when its first token is read as `rule.program`? (linear check, used for examples) */
export function ruleMatches(rule: PrefixRule, argv: readonly string[]): boolean {
  return matchesFrom(rule, argv, 0);
}
