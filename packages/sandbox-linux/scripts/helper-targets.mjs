// The architectures the native helper is built for, shared by the build (build-helper.mjs), the
// pre-pack check (check-helpers.mjs) and the tests. The directory names are the ones
// src/helper-path.ts derives from `process.arch`; keep the two in step.
import { closeSync, openSync, readSync } from "node:fs";

/** target → how it is built and recognised. `arch` is Node's `process.arch`; `machine` the ELF e_machine. */
export const HELPER_TARGETS = {
  "linux-x64": {
    arch: "x64",
    machine: 62, // EM_X86_64
    crossCompiler: "/usr/bin/x86_64-linux-gnu-gcc",
    ccEnv: "CC_LINUX_X64",
    debianPackages: ["gcc-x86-64-linux-gnu", "libc6-dev-amd64-cross"],
  },
  "linux-arm64": {
    arch: "arm64",
    machine: 183, // EM_AARCH64
    crossCompiler: "/usr/bin/aarch64-linux-gnu-gcc",
    ccEnv: "CC_LINUX_ARM64",
    debianPackages: ["gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"],
  },
};

/** The target of the machine this runs on, or undefined for an architecture the helper does not support. */
export function hostTarget(arch = process.arch) {
  return Object.keys(HELPER_TARGETS).find((t) => HELPER_TARGETS[t].arch === arch);
}

/**
 * Why `file` is not a helper for `target` (not a little-endian 64-bit ELF executable for that
 * machine, or, with `requireStatic`, one that needs a dynamic loader), or undefined when it is.
 * Reads the ELF header and program headers only; never runs the file.
 */
export function helperProblem(file, target, { requireStatic = true } = {}) {
  const spec = HELPER_TARGETS[target];
  if (!spec) return `unknown target ${target}`;
  let fd;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    return error.code === "ENOENT" ? `${file} does not exist` : `${file} cannot be read (${error.code})`;
  }
  try {
    const header = Buffer.alloc(64);
    if (readSync(fd, header, 0, 64, 0) < 64) return `${file} is not an ELF file (too short)`;
    if (header.readUInt32BE(0) !== 0x7f454c46) return `${file} is not an ELF file`;
    if (header[4] !== 2 || header[5] !== 1) return `${file} is not a little-endian 64-bit ELF file`;
    const type = header.readUInt16LE(16);
    if (type !== 2 && type !== 3) return `${file} is not an executable (ELF type ${type})`;
    const machine = header.readUInt16LE(18);
    if (machine !== spec.machine) return `${file} is for ELF machine ${machine}, not ${target} (${spec.machine})`;
    if (!requireStatic) return undefined;
    const phoff = Number(header.readBigUInt64LE(32));
    const phentsize = header.readUInt16LE(54);
    const phnum = header.readUInt16LE(56);
    const table = Buffer.alloc(phentsize * phnum);
    if (readSync(fd, table, 0, table.length, phoff) < table.length) return `${file} has a truncated program header table`;
    for (let i = 0; i < phnum; i++) {
      // PT_INTERP: the file names a dynamic loader, which the target machine's libc may not have.
      if (table.readUInt32LE(i * phentsize) === 3) return `${file} is dynamically linked (needs a static build: the target's libc.a)`;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
