// What counting a session's output as it streams costs: `countNewlines` (Buffer#indexOf, native)
// against the plain byte loop it replaced, over the same chunks of command-like output (short lines)
// and of output with few newlines (minified, binary-ish). Prints MiB/s of each.
// Run after building: `node bench/session-tally.mjs`. Options: TALLY_BENCH_MIB (default 256), TALLY_BENCH_CHUNK (bytes, default 65536).
import { countNewlines } from "../dist/output/truncate.js";

const MIB = Number(process.env.TALLY_BENCH_MIB ?? 256);
const CHUNK = Number(process.env.TALLY_BENCH_CHUNK ?? 64 * 1024);
const ROUNDS = Math.max(1, Math.round((MIB * 1024 * 1024) / CHUNK));

function naive(chunk) {
  let n = 0;
  for (let i = 0; i < chunk.byteLength; i += 1) if (chunk[i] === 10) n += 1;
  return n;
}

function chunkOf(kind) {
  const buffer = Buffer.alloc(CHUNK);
  if (kind === "lines") {
    // `line 123456\n`-like: a newline every ~12 bytes, as a build log or `seq` prints.
    let at = 0;
    for (let i = 0; at < CHUNK; i += 1) at += buffer.write(`line ${i}\n`, at);
  } else {
    buffer.fill(0x61);
    for (let at = 4095; at < CHUNK; at += 4096) buffer[at] = 10;
  }
  return buffer;
}

function measure(count, chunk) {
  let total = 0;
  const t0 = performance.now();
  for (let r = 0; r < ROUNDS; r += 1) total += count(chunk);
  const ms = performance.now() - t0;
  return { mibPerSecond: (ROUNDS * chunk.byteLength) / (1024 * 1024) / (ms / 1000), total };
}

for (const kind of ["lines", "long lines"]) {
  const chunk = chunkOf(kind);
  // Warm both up so the JIT has compiled them before they are timed.
  for (let i = 0; i < 200; i += 1) {
    naive(chunk);
    countNewlines(chunk);
  }
  const fast = measure(countNewlines, chunk);
  const slow = measure(naive, chunk);
  if (fast.total !== slow.total) throw new Error(`counts differ on ${kind}: ${fast.total} != ${slow.total}`);
  console.log(
    `${kind.padEnd(10)}  countNewlines ${fast.mibPerSecond.toFixed(0).padStart(6)} MiB/s   byte loop ${slow.mibPerSecond.toFixed(0).padStart(6)} MiB/s   (${MIB} MiB in ${CHUNK}-byte chunks)`,
  );
}
