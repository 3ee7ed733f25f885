// The trust-model inventory in ARCHITECTURE.md is the list of every host-side consumer of what a
// sandboxed command can write; each row must point at the test that proves its guard. This keeps the
// pointers true: a test file that moved, or a test that was renamed, fails here instead of leaving a
// row that points at nothing.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

interface Row {
  number: string;
  cell: string;
}

/** The numbered rows of the inventory table and their last cell (the tests). */
function inventoryRows(markdown: string): Row[] {
  const start = markdown.indexOf("### Inventory of host-side consumers");
  if (start < 0) return [];
  const end = markdown.indexOf("\n### ", start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return section
    .split("\n")
    .map((line) => /^\| (\d+) \|.*\| ([^|]*) \|$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ number: m[1]!, cell: m[2]! }));
}

/** `[file, test name or undefined]` for every test a cell points at. */
function pointers(cell: string): Array<[string, string | undefined]> {
  return cell.split(/;\s*/).flatMap((part): Array<[string, string | undefined]> => {
    const m = /`((?:packages\/|tooling\/)?[\w./-]+\.test\.ts)`(?:\s*::\s*(.+))?/.exec(part);
    if (!m) return [];
    const file = m[1]!.startsWith("tooling/") || m[1]!.startsWith("packages/") ? m[1]! : `packages/${m[1]!}`;
    return [[file, m[2]?.trim()]];
  });
}

/** Text compared without backslashes: a name in a JS string and in Markdown escape differently. */
const plain = (s: string) => s.replace(/\\/g, "");

describe("the trust inventory", () => {
  const rows = inventoryRows(fs.readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8"));

  it("is there, numbered without gaps", () => {
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.map((r) => Number(r.number))).toEqual(rows.map((_, i) => i + 1));
  });

  it("points every row at a test file that exists, and at test names those files hold", () => {
    const broken: string[] = [];
    for (const row of rows) {
      const found = pointers(row.cell);
      if (found.length === 0) broken.push(`row ${row.number}: no test named`);
      for (const [file, name] of found) {
        const full = path.join(root, file);
        if (!fs.existsSync(full)) {
          broken.push(`row ${row.number}: ${file} does not exist`);
          continue;
        }
        if (name !== undefined && !plain(fs.readFileSync(full, "utf8")).includes(plain(name))) broken.push(`row ${row.number}: ${file} has no test "${name}"`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the check finds a row that points nowhere (control)", () => {
    const table = "### Inventory of host-side consumers\n| 1 | a | b | c | `cli/test/none.test.ts` :: nothing |\n";
    expect(pointers(inventoryRows(table)[0]!.cell)).toEqual([["packages/cli/test/none.test.ts", "nothing"]]);
    expect(fs.existsSync(path.join(root, "packages/cli/test/none.test.ts"))).toBe(false);
  });
});
