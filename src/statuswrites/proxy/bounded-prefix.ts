// Keeps at most `limit` bytes of a stream's beginning: enough to read a
// Kubernetes Status out of an error response without ever holding a body.
export class BoundedPrefix {
  readonly limit: number;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  add(chunk: Buffer): void {
    const room = this.limit - this.#size;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    // Copy the slice so the kept bytes do not pin the whole chunk in memory.
    this.#chunks.push(kept === chunk ? kept : Buffer.from(kept));
    this.#size += kept.length;
  }

  get size(): number {
    return this.#size;
  }

  text(): string {
    return Buffer.concat(this.#chunks, this.#size).toString("utf8");
  }
}
