// Reads a JSON object as its bytes arrive, handing each element of one array
// member (an audit EventList's `items`) to a callback as soon as it is
// complete, then dropping its bytes. A batch of tens of megabytes then costs
// one event of memory, never the whole body, its string, or every event at
// once. Other members are kept parsed (each at most maxMemberBytes). Nothing
// recurses, so deep nesting costs nothing here; each captured value is checked
// by JSON.parse.

export class JsonStreamError extends Error {
  /** A value was larger than its limit (the body itself may be valid JSON). */
  readonly tooLarge: boolean;
  constructor(message: string, tooLarge = false) {
    super(message);
    this.tooLarge = tooLarge;
  }
}

export interface StreamLimits {
  /** Largest element of the array member. */
  maxItemBytes: number;
  /** Largest other member value. */
  maxMemberBytes: number;
}

const State = {
  Start: 0,
  /** Right after '{': a member name or '}'. */
  MemberOrEnd: 1,
  /** After ',': a member name. */
  Member: 2,
  Key: 3,
  Colon: 4,
  ValueStart: 5,
  Value: 6,
  AfterMember: 7,
  /** Right after '[': an element or ']'. */
  ItemOrEnd: 8,
  /** After ',': an element. */
  ItemStart: 9,
  Item: 10,
  AfterItem: 11,
  Done: 12,
} as const;
type State = (typeof State)[keyof typeof State];

const quote = 0x22;
const backslash = 0x5c;
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isDelimiter = (b: number) => isSpace(b) || b === 0x2c || b === 0x7d || b === 0x5d;

/** One value being captured across chunks. */
class Capture {
  readonly parts: Buffer[] = [];
  size = 0;
  kind: "string" | "container" | "scalar" | undefined;
  depth = 0;
  inString = false;
  escaped = false;

  /** Consumes bytes[from..]; returns where the value ended (exclusive), or -1 if it goes on. */
  scan(bytes: Buffer, from: number): number {
    let i = from;
    if (this.kind === undefined) {
      const first = bytes[i] as number;
      this.kind = first === quote ? "string" : first === 0x7b || first === 0x5b ? "container" : "scalar";
      if (this.kind === "string") {
        this.inString = true;
        i++;
      }
    }
    for (; i < bytes.length; i++) {
      const b = bytes[i] as number;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === backslash) this.escaped = true;
        else if (b === quote) {
          this.inString = false;
          if (this.kind === "string") return this.#take(bytes, from, i + 1);
        }
      } else if (this.kind === "scalar") {
        if (isDelimiter(b)) return this.#take(bytes, from, i);
      } else if (b === quote) this.inString = true;
      else if (b === 0x7b || b === 0x5b) this.depth++;
      else if (b === 0x7d || b === 0x5d) {
        this.depth--;
        if (this.depth === 0) return this.#take(bytes, from, i + 1);
      }
    }
    this.#take(bytes, from, bytes.length);
    return -1;
  }

  #take(bytes: Buffer, from: number, to: number): number {
    if (to > from) {
      // A copy: a slice would pin the whole chunk.
      this.parts.push(Buffer.from(bytes.subarray(from, to)));
      this.size += to - from;
    }
    return to;
  }

  parse(): unknown {
    const text = Buffer.concat(this.parts, this.size).toString("utf8");
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new JsonStreamError(error instanceof Error ? error.message : String(error));
    }
  }
}

export class ObjectStream {
  readonly members = new Map<string, unknown>();
  /** The array member was present and an array. */
  arraySeen = false;
  /** The array member was present but not an array. */
  arrayNotArray = false;
  /** Elements handed to onElement. */
  elements = 0;
  readonly #arrayKey: string;
  readonly #onElement: (element: unknown) => void;
  readonly #limits: StreamLimits;
  #state: State = State.Start;
  #capture: Capture | undefined;
  #key = "";
  #offset = 0;

  constructor(arrayKey: string, onElement: (element: unknown) => void, limits: StreamLimits) {
    this.#arrayKey = arrayKey;
    this.#onElement = onElement;
    this.#limits = limits;
  }

  /** Bytes of the value being captured. */
  get heldBytes(): number {
    return this.#capture?.size ?? 0;
  }

  write(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      const capture = this.#capture;
      if (capture) {
        const end = capture.scan(chunk, i);
        this.#checkSize(capture);
        if (end < 0) break;
        i = end;
        this.#capture = undefined;
        this.#finish(capture.parse());
        continue;
      }
      const b = chunk[i] as number;
      if (isSpace(b)) {
        i++;
        continue;
      }
      // Either consumes b (structure) or starts a capture at it.
      if (this.#structural(b)) i++;
    }
    this.#offset += chunk.length;
  }

  /** Throws unless the object was complete. */
  end(): void {
    if (this.#state !== State.Done) throw this.#error("the body ended before the object did");
  }

  /** True when b was consumed; false when a capture starts at b. */
  #structural(b: number): boolean {
    switch (this.#state) {
      case State.Start:
        if (b !== 0x7b) throw this.#error("expected '{'");
        this.#state = State.MemberOrEnd;
        return true;
      case State.MemberOrEnd:
      case State.Member:
        if (b === 0x7d && this.#state === State.MemberOrEnd) {
          this.#state = State.Done;
          return true;
        }
        if (b !== quote) throw this.#error("expected a member name");
        return this.#begin(State.Key);
      case State.Colon:
        if (b !== 0x3a) throw this.#error("expected ':'");
        this.#state = State.ValueStart;
        return true;
      case State.ValueStart:
        if (this.#key === this.#arrayKey && b === 0x5b) {
          this.arraySeen = true;
          this.#state = State.ItemOrEnd;
          return true;
        }
        if (this.#key === this.#arrayKey) this.arrayNotArray = true;
        return this.#begin(State.Value);
      case State.AfterMember:
        if (b === 0x2c) this.#state = State.Member;
        else if (b === 0x7d) this.#state = State.Done;
        else throw this.#error("expected ',' or '}'");
        return true;
      case State.ItemOrEnd:
        if (b === 0x5d) {
          this.#state = State.AfterMember;
          return true;
        }
        return this.#begin(State.Item);
      case State.ItemStart:
        if (b === 0x5d || b === 0x2c) throw this.#error("expected an element");
        return this.#begin(State.Item);
      case State.AfterItem:
        if (b === 0x2c) this.#state = State.ItemStart;
        else if (b === 0x5d) this.#state = State.AfterMember;
        else throw this.#error("expected ',' or ']'");
        return true;
      default:
        throw this.#error("unexpected bytes after the object");
    }
  }

  #begin(state: typeof State.Key | typeof State.Value | typeof State.Item): false {
    this.#capture = new Capture();
    this.#state = state;
    return false;
  }

  #checkSize(capture: Capture): void {
    const limit = this.#state === State.Item ? this.#limits.maxItemBytes : this.#limits.maxMemberBytes;
    if (capture.size > limit) {
      throw new JsonStreamError(`a value of more than ${limit} bytes (near byte ${this.#offset})`, true);
    }
  }

  #finish(value: unknown): void {
    if (this.#state === State.Key) {
      this.#key = value as string;
      this.#state = State.Colon;
    } else if (this.#state === State.Item) {
      this.elements++;
      this.#onElement(value);
      this.#state = State.AfterItem;
    } else {
      if (this.#key !== this.#arrayKey) this.members.set(this.#key, value);
      this.#state = State.AfterMember;
    }
  }

  #error(message: string): JsonStreamError {
    return new JsonStreamError(`${message} (near byte ${this.#offset})`);
  }
}
