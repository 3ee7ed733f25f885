import { describe, expect, it } from "vitest";
import { arbitraryCodePrefix, commandStructure, programName, workspaceCodeRunner, wrappedCommands } from "../../src/heuristics/index.js";

describe("arbitraryCodePrefix: a prefix whose program runs any code once only options follow", () => {
  it.each([
    ["python3"], ["python3 -q"], ["python3 -I -B"], ["python3 -"], ["python3 -c"], ["python3 -W ignore"], ["python3 -X dev"],
    ["/usr/bin/python3 -q"], ["python3.12 -q"], ["PYTHON.EXE -q"], ["py -3"], ["pypy3 -S"],
    ["node"], ["node --no-warnings"], ["node -e"], ["node --require x"], ["deno"], ["bun --smol"],
    ["bash"], ["bash --norc"], ["bash -lc"], ["sh -c"], ["zsh -f"], ["/bin/bash -l"], ["dash -e"], ["busybox"],
    ["pwsh -NoProfile"], ["powershell.exe -NoLogo -NonInteractive"], ["pwsh -Command"], ["cmd /c"], ["cmd.exe /d /s"],
    ["perl -w"], ["ruby"], ["php"], ["lua5.4"], ["osascript"], ["awk"], ["gawk -v x=1"],
    ["env"], ["env -i"], ["env FOO=1"], ["env -u HOME"], ["env -i python3 -q"], ["xargs -0"], ["xargs -n 1"],
    ["sudo"], ["sudo -E"], ["sudo -u root"], ["sudo -E bash"], ["doas"], ["nice"], ["nice -n 10"], ["timeout 5"], ["timeout -s KILL 5"],
    ["nohup"], ["stdbuf -oL"], ["time"], ["exec"], ["command"], ["setsid"], ["chroot /"], ["flock /tmp/l"],
    ["npx"], ["npx -y"], ["npm exec"], ["npm x --"], ["npm"], ["npm -q"], ["pnpm dlx"], ["yarn exec"], ["uv run"], ["poetry run"],
    ["npm exec -- sh"], ["git"], ["git -c core.pager=sh"], ["git -C sub"], ["cargo"], ["find"], ["find . -name x"], ["find . -exec"],
    ["sed -n"], ["rg --pre"], ["tar -x"], ["C:\\Python312\\python.exe -q"],
  ])("%s is refused", (prefix) => {
    expect(arbitraryCodePrefix(prefix.split(" "))).toEqual(expect.any(String));
  });

  it.each([
    ["git status"], ["git commit"], ["git -C sub status"], ["npm test"], ["npm run build"], ["cargo build"], ["cargo test --release"],
    ["ls"], ["cat README.md"], ["python3 -m pytest"], ["python3 -q script.py"], ["python3 -c print(1)"], ["node app.js"],
    ["bash build.sh"], ["env -i git status"], ["sudo apt-get update"], ["timeout 5 git status"], ["xargs -0 grep"], ["nice -n 10 make"],
    ["npx prettier"], ["npm exec -- tsc"], ["pwsh -File build.ps1"], ["go build"], ["make test"],
  ])("%s is not refused", (prefix) => {
    expect(arbitraryCodePrefix(prefix.split(" "))).toBeUndefined();
  });

  it.each([
    ["git --exec-path=/tmp/x status"], ["git --exec-path status"], ["git -c core.pager=sh log"], ["git --config-env=core.pager=P log"],
    ["git -C sub -c core.fsmonitor=./x status"], ["cargo --config build.rustc-wrapper=./w build"], ["docker --config ./d ps"],
    ["kubectl --kubeconfig ./k get"], ["apt-get -o APT::Update::Pre-Invoke::=sh update"], ["npm --script-shell=./s run build"],
  ])("%s is refused: a global option sets what the tool runs", (prefix) => {
    expect(arbitraryCodePrefix(prefix.split(" "))).toMatch(/sets with/);
  });

  it.each([
    ["docker --debug ps"], ["docker -H unix:///x.sock ps"], ["cargo +nightly test"], ["kubectl -n x get"], ["git --no-pager log"],
    ["git --git-dir=.git status"], ["npm --prefix x run build"], ["podman -D images"],
  ])("%s is not refused: its global options are read by the tool's own table", (prefix) => {
    expect(arbitraryCodePrefix(prefix.split(" "))).toBeUndefined();
  });

  it("still refuses a tool followed only by known global options", () => {
    expect(arbitraryCodePrefix(["docker", "--debug"])).toMatch(/only by options/);
    expect(arbitraryCodePrefix(["cargo", "+nightly"])).toMatch(/only by options/);
  });

  it("judges the command a wrapper runs, so a wrapped interpreter is refused as the bare one is", () => {
    expect(arbitraryCodePrefix(["timeout", "5", "python3", "-q"])).toMatch(/python3 -q/);
    expect(arbitraryCodePrefix(["sudo", "-E", "env", "-i", "node"])).toMatch(/node/);
  });
});

describe("commandStructure: the subcommand behind a tool's global options", () => {
  it.each([
    [["git", "commit", "-m", "msg"], { subcommand: 1, optionValues: [] }],
    [["git", "-C", "dir", "push", "origin"], { subcommand: 3, optionValues: [2] }],
    [["git", "--git-dir=x", "stash", "pop"], { subcommand: 2, nested: 3, optionValues: [] }],
    [["cargo", "+nightly", "test"], { subcommand: 2, optionValues: [] }],
    [["docker", "--debug", "ps"], { subcommand: 2, optionValues: [] }],
    [["docker", "compose", "-f", "x.yml", "up"], { subcommand: 1, optionValues: [] }],
    [["docker", "compose", "up", "-d"], { subcommand: 1, nested: 2, optionValues: [] }],
    [["kubectl", "get", "pods", "-n", "x"], { subcommand: 1, optionValues: [] }],
    [["kubectl", "-n", "x", "get", "pods"], { subcommand: 3, optionValues: [2] }],
    [["npm", "run", "build"], { subcommand: 1, nested: 2, optionValues: [] }],
    [["make", "-j4"], { optionValues: [] }],
    [["make", "-j", "4", "CC=clang", "test"], { subcommand: 4, optionValues: [2] }],
    [["git", "--weird", "x", "status"], { optionValues: [], unknownOption: "--weird" }],
    [["git", "--exec-path=/tmp/x", "status"], { subcommand: 2, optionValues: [], codeOption: "--exec-path=/tmp/x" }],
    [["git", "'free text'"], { optionValues: [] }],
  ])("%j", (argv, expected) => {
    expect(commandStructure(argv)).toEqual(expected);
  });

  it("knows nothing of other programs", () => {
    expect(commandStructure(["ls", "-la"])).toBeUndefined();
    expect(commandStructure([])).toBeUndefined();
  });
});

describe("programName", () => {
  it.each([
    ["/usr/bin/python3", "python"], ["python3.12", "python"], ["PYTHON.EXE", "python"], ["C:\\Tools\\pwsh.exe", "pwsh"],
    ["git", "git"], ["./node_modules/.bin/tsc", "tsc"], ["lua5.4", "lua"],
  ])("%s is %s", (argv0, name) => {
    expect(programName(argv0)).toBe(name);
  });
});

describe("wrappedCommands", () => {
  it.each([
    [["env", "-i", "FOO=1", "./git", "status"], [["./git", "status"]]],
    [["timeout", "5", "./x"], [["./x"]]],
    [["sudo", "-u", "root", "./x", "y"], [["./x", "y"]]],
    [["npm", "exec", "--", "tsc"], [["tsc"]]],
    [["nice", "--weird", "a", "b"], [["a", "b"], ["b"]]],
    [["git", "status"], []],
    [["env"], []],
  ])("%j runs %j", (argv, expected) => {
    expect(wrappedCommands(argv)).toEqual(expected);
  });
});

describe("workspaceCodeRunner: commands that run code the workspace defines", () => {
  it.each([
    ["npm test"], ["npm run build"], ["npm install"], ["npm ci"], ["yarn build"], ["yarn"], ["pnpm test"], ["bun run dev"], ["npx tsc"],
    ["make"], ["make test"], ["cargo build"], ["cargo test"], ["cargo run"], ["go generate ./..."], ["go test ./..."], ["pytest"],
    ["python3 -m pytest"], ["pip install -e ."], ["gradle build"], ["./gradlew test"], ["mvn package"], ["git commit -m x"],
    ["git merge main"], ["git rebase main"], ["git checkout main"], ["git am x.patch"], ["git push"], ["python3 tools/gen.py"],
    ["/usr/bin/npm test"], ["npm.cmd test"],
  ])("%s runs workspace code", (command) => {
    expect(workspaceCodeRunner(command.split(" "))).toEqual(expect.any(String));
  });

  it.each([
    ["git status"], ["git log"], ["git diff"], ["npm view x"], ["npm --version"], ["yarn info x"], ["cargo --version"], ["go version"],
    ["ls"], ["cat x"], ["python3 -c print(1)"], ["rg foo"],
  ])("%s is not known to", (command) => {
    expect(workspaceCodeRunner(command.split(" "))).toBeUndefined();
  });
});
