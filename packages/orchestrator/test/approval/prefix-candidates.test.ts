import { describe, expect, it } from "vitest";
import { amendmentCandidates, MAX_AMENDMENT_CHOICES, personPrefixLength } from "../../src/index.js";

const words = (s: string) => s.split(" ");
const proposed = (argv: string[]) => {
  const { prefixes, defaultIndex } = amendmentCandidates(argv);
  return prefixes[defaultIndex]?.join(" ");
};

describe("personPrefixLength: the prefix a person would write", () => {
  it.each([
    [["git", "commit", "-m", "fix: the parser\nsecond line"], 2],
    [words("git -C dir push origin main"), 4],
    [words("git --no-pager log --oneline"), 3],
    [words("git stash pop"), 3],
    [words("npm run build"), 3],
    [words("npm test -- --watch"), 2],
    [words("cargo +nightly test --release"), 3],
    [words("docker --debug ps -a"), 3],
    [words("docker compose up -d"), 3],
    [words("kubectl get pods -n x"), 2],
    [words("kubectl -n x get pods"), 4],
    [words("make -j4"), 1],
    [words("make -j 4 test"), 4],
    [words("python script.py --flag"), 1],
    [words("pytest -k slow tests"), 1],
    [words("timeout 5 git status --short"), 4],
    [words("env FOO=1 npm run lint"), 5],
    [words("rm -r build"), 3],
    [words("Remove-Item -Recurse build"), 3],
    [words("remove-item build"), 2],
    [words("ri build"), 2],
    [words("cli x"), 2],
    [["Microsoft.PowerShell.Management\\Remove-Item", "build"], 2],
    [words("Stop-Process -Name node"), 3],
    [words("Clear-Content log.txt"), 2],
    [words("Get-Content log.txt"), 1],
    [[], 0],
  ])("%j → %i words", (argv, length) => {
    expect(personPrefixLength(argv)).toBe(length);
  });
});

describe("amendmentCandidates: the prefixes offered, shortest safe first, the person's prefix proposed", () => {
  it.each([
    [["git", "commit", "-m", "fix the parser"], "git commit", ["git commit", "git commit -m", "git commit -m fix the parser"]],
    [words("git -C dir push origin main"), "git -C dir push", ["git -C dir push", "git -C dir push origin", "git -C dir push origin main"]],
    [words("npm run build"), "npm run build", ["npm run", "npm run build"]],
    [words("cargo +nightly test"), "cargo +nightly test", ["cargo +nightly test"]],
    [words("docker --debug ps"), "docker --debug ps", ["docker --debug ps"]],
    [words("kubectl get pods -n x"), "kubectl get", ["kubectl get", "kubectl get pods", "kubectl get pods -n", "kubectl get pods -n x"]],
    [words("python script.py"), "python script.py", ["python script.py"]],
    [words("make -j4"), "make", ["make", "make -j4"]],
  ])("%j proposes %s", (argv, expected, all) => {
    const { prefixes } = amendmentCandidates(argv);
    expect(proposed(argv)).toBe(expected);
    expect(prefixes.map((p) => p.join(" "))).toEqual(all);
  });

  it("never offers a prefix that lets any code through, runs a script, or is rated dangerous", () => {
    expect(amendmentCandidates(words("git --exec-path=/tmp/x status")).prefixes).toEqual([]);
    expect(amendmentCandidates(["bash", "-lc", "make && make test"]).prefixes).toEqual([]);
    expect(amendmentCandidates(words("env FOO=1 python3 -q")).prefixes).toEqual([]);
    expect(amendmentCandidates(words("xargs -0 grep x")).prefixes.map((p) => p.join(" "))).toEqual(["xargs -0 grep", "xargs -0 grep x"]);
    expect(amendmentCandidates(words("rm -rf build")).prefixes).toEqual([]);
    expect(amendmentCandidates(words("./scripts/build.sh --prod")).prefixes).toEqual([]);
  });

  it("offers nothing shorter than the whole command for a program that destroys what it is given", () => {
    expect(amendmentCandidates(words("rm -r build")).prefixes).toEqual([words("rm -r build")]);
    expect(amendmentCandidates(words("chmod 644 a.txt")).prefixes).toEqual([words("chmod 644 a.txt")]);
  });

  it("never cuts between a global option and its value, nor keeps an empty word", () => {
    const cuts = amendmentCandidates(words("git -C dir status")).prefixes.map((p) => p.length);
    expect(cuts).not.toContain(2);
    expect(amendmentCandidates(["git", "commit", "-m", ""]).prefixes.map((p) => p.join(" "))).toEqual(["git commit", "git commit -m"]);
  });

  it("offers at most MAX_AMENDMENT_CHOICES prefixes, keeping the proposed one and the whole command", () => {
    const argv = ["git", "add", ...Array.from({ length: 30 }, (_, i) => `f${i}.ts`)];
    const { prefixes, defaultIndex } = amendmentCandidates(argv);
    expect(prefixes.length).toBeLessThanOrEqual(MAX_AMENDMENT_CHOICES);
    expect(prefixes[defaultIndex]).toEqual(["git", "add"]);
    expect(prefixes.at(-1)).toEqual(argv);
  });
});
