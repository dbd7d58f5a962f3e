// Collects exposition text into chunks of about `chunkBytes`. The text is
// made of byte strings (one character per UTF-8 byte, see core/series/exposition.ts),
// so a chunk becomes bytes with one latin-1 copy where it is sent: no UTF-8
// encoding of the body per scrape. Appending to one string and copying it
// once per chunk is about three times cheaper than copying each small piece
// into a Buffer (a native call per piece), measured over 600k exposition
// lines. Chunks stay strings here: the copy is made by the socket into memory
// it frees as soon as the write completes (server/send-exposition.ts), where a
// Buffer per chunk would be freed by a garbage collection only.
/** A chunk's size: about what a socket write takes at once. */
export const defaultChunkBytes = 64 * 1024;

export class ChunkWriter {
  readonly #chunkBytes: number;
  #text = "";
  #header: string | undefined;
  readonly #ready: string[] = [];

  constructor(chunkBytes = defaultChunkBytes) {
    this.#chunkBytes = chunkBytes;
  }

  /** Text written before the next write() only: a family's HELP/TYPE, shown only when it has series. */
  setHeader(header: string | undefined): void {
    this.#header = header;
  }

  write(bytes: string): void {
    if (bytes === "") return;
    if (this.#header !== undefined) {
      this.#text += this.#header;
      this.#header = undefined;
    }
    this.#text += bytes;
    if (this.#text.length >= this.#chunkBytes) this.#flush();
  }

  /** Chunks completed since the last take(). */
  get ready(): boolean {
    return this.#ready.length > 0;
  }

  take(): string[] {
    return this.#ready.splice(0, this.#ready.length);
  }

  /** Whatever is left, as a last chunk. */
  end(): string[] {
    this.#flush();
    return this.take();
  }

  #flush(): void {
    if (this.#text === "") return;
    this.#ready.push(this.#text);
    this.#text = "";
  }
}
