// Identifiers that only have to be unique within this process and unlikely to repeat across
// processes. They are built from `Math.random` rather than `node:crypto`: loading that module costs
// several ms of every CLI start-up, and none of these values guards anything — a model supplies its
// own call ids, session ids are handed to the model, chunk ids are cosmetic.

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  let out = "";
  for (let i = 0; i < bytes; i++) out += Math.floor(Math.random() * 256).toString(16).padStart(2, "0");
  return out;
}

/** A random RFC 4122 version 4 UUID (`xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`). */
export function randomUuid(): string {
  const hex = randomHex(16);
  const variant = ((parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A random integer in [`min`, `max`). */
export function randomIntBetween(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min));
}
