import type { SandboxPlan } from "@shellgate/sandbox";

/** A plan with the whole environment the command would start with. */
export type CommandPlan = SandboxPlan & { commandEnv: Readonly<Record<string, string>> };

/**
 * What `--dry-run --json` prints: these keys, nothing else (a stable shape for scripts). `env` is
 * what the sandbox sets; `commandEnv` the whole environment the command would get (yours under the
 * environment policy, with the sandbox's variables).
 */
export function planJson(plan: CommandPlan): string {
  const { backend, argv, env, commandEnv, plan: details } = plan;
  return `${JSON.stringify({ backend, argv, env, commandEnv, plan: details }, null, 2)}\n`;
}

// Words a POSIX shell reads as themselves; anything else is quoted so the line can be pasted back.
const PLAIN = /^[\w@%+=:,./-]+$/;

/** One argv word as a shell would need it; control characters are shown escaped, never sent to the terminal. */
function shellWord(word: string): string {
  if (PLAIN.test(word)) return word;
  if (/[\x00-\x1f\x7f]/.test(word)) return `$'${[...word].map((c) => (/[\x00-\x1f\x7f'\\]/.test(c) ? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}` : c)).join("")}'`;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * What `--dry-run` prints for people: the backend, the command line that would be spawned (one
 * option per line, as bubblewrap's mounts read best), what the sandbox sets and removes in the
 * environment, and the backend's own description of the plan.
 */
export function formatPlan(plan: CommandPlan): string {
  const lines = [`backend: ${plan.backend} (sandbox type ${plan.sandboxType}; isolation ${plan.isolation})`, `cwd: ${shellWord(plan.cwd)}`, "command:"];
  // A multi-line argument (a Seatbelt profile) reads badly as one quoted word: it is shown below
  // the command instead, and named in the command by a variable.
  const texts: Array<{ name: string; text: string }> = [];
  const words = plan.argv.map((word, i) => {
    if (!isPrintableText(word)) return shellWord(word);
    const name = `ARG${i}`;
    texts.push({ name, text: word });
    return `"$${name}"`;
  });
  // Break before each option of the wrapper (`--bind …`, `-DNAME=…`) so they read one per line.
  let line = "";
  for (const word of words) {
    if (line !== "" && (word.startsWith("--") || /^-D\w/.test(word))) {
      lines.push(`  ${line} \\`);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(`  ${line}`);
  for (const { name, text } of texts) {
    const body = text.replace(/\n$/, "").split("\n");
    lines.push(`${name} (${body.length} lines):`, ...body.map((l) => `  ${l}`));
  }
  const env = Object.entries(plan.env);
  lines.push(env.length > 0 ? "environment set by the sandbox:" : "environment set by the sandbox: (nothing)");
  for (const [name, value] of env) lines.push(`  ${shellWord(name)}=${shellWord(value)}`);
  if (plan.unsetEnv.length > 0) lines.push(`environment removed: ${plan.unsetEnv.map(shellWord).join(" ")}`);
  const passed = Object.keys(plan.commandEnv).filter((name) => !(name in plan.env)).sort();
  lines.push(`environment passed on from yours (after [shell_environment_policy]; values not shown): ${passed.length > 0 ? passed.map(shellWord).join(" ") : "(nothing)"}`);
  lines.push("plan:", ...JSON.stringify(plan.plan, null, 2).split("\n").map((l) => `  ${l}`));
  lines.push("nothing was run (--dry-run)");
  return `${lines.join("\n")}\n`;
}

/** Several lines of printable text (tabs allowed): shown as a block rather than one quoted word. */
function isPrintableText(word: string): boolean {
  return word.includes("\n") && !/[\x00-\x08\x0b-\x1f\x7f]/.test(word);
}
