// A fast, non-cryptographic 53-bit streaming hash (cyrb53), fed piece by
// piece so that nothing is concatenated or serialized first. Used to compare
// "what mattered" between two observations of an object without keeping the
// inputs; a collision could at worst hide one change from a counter.
export class Hasher {
  #h1 = 0xdeadbeef;
  #h2 = 0x41c6ce57;

  text(text: string): this {
    let h1 = this.#h1;
    let h2 = this.#h2;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    // A separator, so that ("ab", "c") and ("a", "bc") differ.
    this.#h1 = Math.imul(h1 ^ 0x1f, 2654435761);
    this.#h2 = Math.imul(h2 ^ 0x1f, 1597334677);
    return this;
  }

  number(value: number | undefined): this {
    const n = value === undefined ? -1 : value;
    this.#h1 = Math.imul(this.#h1 ^ (n | 0), 2654435761);
    this.#h2 = Math.imul(this.#h2 ^ ((n / 4294967296) | 0), 1597334677);
    return this;
  }

  value(): number {
    let h1 = this.#h1;
    let h2 = this.#h2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    const high = 4294967296 * (2097151 & h2);
    // Stryker disable next-line ArithmeticOperator: digests are only compared for equality, and high − low keeps distinct pairs apart as high + low does
    return high + (h1 >>> 0);
  }
}
