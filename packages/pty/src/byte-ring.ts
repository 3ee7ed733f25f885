interface Segment<Tag> {
  len: number;
  tag: Tag | undefined;
}

const MIN_CAPACITY = 4096;

/**
 * The tail of a `HeadTailBuffer`: a ring of at most `budget` bytes that keeps the newest bytes,
 * with the chunk boundaries and tags kept alongside. Storage grows by doubling up to the budget, so
 * a process that prints little costs little.
 */
export class ByteRing<Tag extends string = string> {
  private buf = new Uint8Array(0);
  private start = 0;
  private len = 0;
  private segs: Segment<Tag>[] = [];
  private segStart = 0;

  constructor(private readonly budget: number) {}

  get length(): number {
    return this.len;
  }

  /** Appends `data`, evicting the oldest bytes beyond the budget; returns how many were evicted. */
  push(data: Uint8Array, tag: Tag | undefined): number {
    const n = data.byteLength;
    if (n === 0) return 0;
    if (n >= this.budget) {
      const evicted = this.len + n - this.budget;
      this.ensure(this.budget);
      this.buf.set(data.subarray(n - this.budget), 0);
      this.start = 0;
      this.len = this.budget;
      this.segs = [{ len: this.budget, tag }];
      this.segStart = 0;
      return evicted;
    }
    const evicted = Math.max(0, this.len + n - this.budget);
    if (evicted > 0) this.evict(evicted);
    this.ensure(this.len + n);
    const cap = this.buf.byteLength;
    const end = (this.start + this.len) % cap;
    const first = Math.min(n, cap - end);
    this.buf.set(data.subarray(0, first), end);
    if (first < n) this.buf.set(data.subarray(first), 0);
    this.len += n;
    const last = this.segs[this.segs.length - 1];
    // Consecutive bytes of the same stream merge into one segment, so metadata stays small.
    if (last && this.segs.length > this.segStart && last.tag === tag) last.len += n;
    else this.segs.push({ len: n, tag });
    return evicted;
  }

  private evict(count: number): void {
    this.start = (this.start + count) % Math.max(1, this.buf.byteLength);
    this.len -= count;
    let left = count;
    while (left > 0) {
      const s = this.segs[this.segStart] as Segment<Tag>;
      if (s.len <= left) {
        left -= s.len;
        this.segStart++;
      } else {
        s.len -= left;
        left = 0;
      }
    }
    if (this.segStart > 32 && this.segStart * 2 > this.segs.length) {
      this.segs = this.segs.slice(this.segStart);
      this.segStart = 0;
    }
  }

  private ensure(size: number): void {
    const cap = this.buf.byteLength;
    if (size <= cap) return;
    let next = Math.max(MIN_CAPACITY, cap);
    while (next < size) next *= 2;
    next = Math.min(next, this.budget);
    const grown = new Uint8Array(next);
    grown.set(this.toBytes(), 0);
    this.buf = grown;
    this.start = 0;
  }

  private read(offset: number, count: number): Uint8Array {
    const out = new Uint8Array(count);
    const cap = this.buf.byteLength;
    if (count === 0 || cap === 0) return out;
    const from = (this.start + offset) % cap;
    const first = Math.min(count, cap - from);
    out.set(this.buf.subarray(from, from + first), 0);
    if (first < count) out.set(this.buf.subarray(0, count - first), first);
    return out;
  }

  /** An independent copy (segments are mutated on eviction, so they are copied too). */
  clone(): ByteRing<Tag> {
    const c = new ByteRing<Tag>(this.budget);
    c.buf = this.buf.slice();
    c.start = this.start;
    c.len = this.len;
    c.segs = this.segs.slice(this.segStart).map((x) => ({ ...x }));
    return c;
  }

  /** The retained bytes, oldest first, as a copy. */
  toBytes(): Uint8Array {
    return this.read(0, this.len);
  }

  /** The retained bytes split at chunk/stream boundaries, oldest first (copies). */
  segments(): { data: Uint8Array; tag: Tag | undefined }[] {
    const out: { data: Uint8Array; tag: Tag | undefined }[] = [];
    let offset = 0;
    for (let i = this.segStart; i < this.segs.length; i++) {
      const s = this.segs[i] as Segment<Tag>;
      out.push({ data: this.read(offset, s.len), tag: s.tag });
      offset += s.len;
    }
    return out;
  }
}
