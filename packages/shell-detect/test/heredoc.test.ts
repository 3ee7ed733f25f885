import { describe, expect, it } from "vitest";
import { splitHeredocCommand, splitShellCommand } from "../src/index.js";

const lc = (script: string) => splitHeredocCommand(["bash", "-lc", script]);

describe("splitHeredocCommand: the narrow heredoc case (rule matching only)", () => {
  it.each([
    ["python3 <<'PY'\nprint('hello')\nPY", ["python3"]],
    ['python3 <<"PY"\nprint(1)\nPY', ["python3"]],
    ["cat <<EOF\nplain text\nEOF", ["cat"]],
    ["cat <<'EOF'\n$(not run) `nor this`\nEOF", ["cat"]],
    ["cat <<-EOF\n\tindented\n\tEOF", ["cat"]],
    ["python3 - arg <<'PY'\nx\nPY", ["python3", "-", "arg"]],
    ['python3 <<< "print(1)"', ["python3"]],
    ["psql <<< 'select 1'", ["psql"]],
  ])("%j gives %j", async (script, command) => {
    expect(await lc(script)).toEqual({ kind: "heredoc-command", command });
    // The same scripts are never "plain" for splitting and the safe list.
    expect((await splitShellCommand(["bash", "-lc", script])).kind).toBe("not-plain");
  });

  it.each([
    ["PATH=/tmp/evil:$PATH cat <<'EOF'\nhello\nEOF", /variable assignment/],
    ["cat <<'EOF' > /some/important/folder/test.txt\nhello\nEOF", /more than a body/],
    ["cat <<EOF\n$(rm -rf d)\nEOF", /expansion inside/],
    ["cat <<EOF\n$HOME\nEOF", /expansion inside/],
    ["cat <<EOF\n`id`\nEOF", /expansion inside/],
    ["cat <<EOF\n\\$x\nEOF", /more than a body|expansion/],
    ['python3 <<< "$x"', /variable expansion/],
    ["python3 <<< $(id)", /command substitution/],
    ["cat <<EOF | wc\nx\nEOF", /more than a body/],
    ["python3 <<PY\nx\nPY\nrm -rf /", /2 statements/],
    ["python3 <<PY && rm -rf /\nx\nPY", /./],
    ["cat 2<<EOF\nx\nEOF", /more than a body/],
    ["ls -l", /no heredoc/],
    ["cat <<E\"O\"F\nx\nEOF", /./],
    ["echo 'unterminated", /syntax error/],
  ])("%j is refused", async (script, reason) => {
    const r = await lc(script);
    expect(r.kind).toBe("not-plain");
    if (r.kind === "not-plain") expect(r.reason).toMatch(reason);
  });

  it("applies to trusted 3-element shell wrappers only", async () => {
    expect(await splitHeredocCommand(["/tmp/bash", "-lc", "python3 <<'PY'\nx\nPY"])).toEqual({ kind: "not-a-shell" });
    expect(await splitHeredocCommand(["zsh", "-c", "python3 <<'PY'\nx\nPY"])).toEqual({ kind: "heredoc-command", command: ["python3"] });
    await expect(splitHeredocCommand([1 as unknown as string])).rejects.toThrow(/^argv:/);
  });
});
