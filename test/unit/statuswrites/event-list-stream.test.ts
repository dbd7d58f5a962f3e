// The streaming reader of audit batches agrees with JSON.parse on any object,
// however its bytes are split into chunks, and refuses what is not JSON.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { JsonStreamError, ObjectStream } from "../../../src/statuswrites/audit/event-list-stream.ts";

const limits = { maxItemBytes: 1 << 20, maxMemberBytes: 1 << 20 };

function streamed(
  bytes: Buffer,
  cuts: number[],
): { members: Map<string, unknown>; items: unknown[]; stream: ObjectStream } {
  const items: unknown[] = [];
  const stream = new ObjectStream("items", (item) => items.push(item), limits);
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length)].sort((a, b) => a - b)) {
    stream.write(bytes.subarray(at, cut));
    at = cut;
  }
  stream.write(bytes.subarray(at));
  stream.end();
  return { members: stream.members, items, stream };
}

// Strings with the characters that matter to a scanner: quotes, backslashes,
// brackets, and multi-byte UTF-8 that a chunk boundary can split.
const text = fc.string({
  unit: fc.constantFrom("a", '"', "\\", "{", "}", "[", "]", ",", ":", " ", "é", "😀", "\n"),
});
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(text, tie("value"), { maxKeys: 4 }),
  ),
})).value;

test("property: streamed members and items equal JSON.parse's, whatever the chunks and spacing", () => {
  fc.assert(
    fc.property(
      fc.dictionary(
        text.filter((k) => k !== "items"),
        json,
        { maxKeys: 4 },
      ),
      fc.array(json, { maxLength: 6 }),
      fc.constantFrom(undefined, 1, "\t"),
      fc.array(fc.nat(), { maxLength: 8 }),
      (members, items, indent, cuts) => {
        const document = { ...members, items };
        const bytes = Buffer.from(JSON.stringify(document, null, indent));
        const result = streamed(
          bytes,
          cuts.map((c) => c % (bytes.length + 1)),
        );
        const expected = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
        assert.deepEqual(result.items, expected.items);
        const { items: _, ...rest } = expected;
        assert.deepEqual(Object.fromEntries(result.members), rest);
        assert.equal(result.stream.arraySeen, true);
      },
    ),
    { numRuns: 300 },
  );
});

test("property: a document cut short is refused at its end", () => {
  fc.assert(
    fc.property(fc.array(json, { minLength: 1, maxLength: 4 }), fc.nat(), (items, cut) => {
      const bytes = Buffer.from(JSON.stringify({ kind: "EventList", items }));
      const end = cut % bytes.length;
      const stream = new ObjectStream("items", () => {}, limits);
      assert.throws(() => {
        stream.write(bytes.subarray(0, end));
        stream.end();
      }, JsonStreamError);
    }),
    { numRuns: 200 },
  );
});

const notJson: string[] = [
  "",
  "null",
  "[]",
  '"x"',
  "{",
  '{"a"}',
  '{"a":}',
  '{"a":1,}',
  '{"items":[1,]}',
  '{"items":[,1]}',
  '{"items":[1 2]}',
  '{"a":1}}',
  '{"a":1} x',
  '{"a":tru}',
  '{"a":"unterminated}',
  "{a:1}",
];
for (const body of notJson) {
  test(`refused: ${JSON.stringify(body)}`, () => {
    const stream = new ObjectStream("items", () => {}, limits);
    assert.throws(() => {
      stream.write(Buffer.from(body));
      stream.end();
    }, JsonStreamError);
  });
}

test("an items member that is not an array is noted, not streamed", () => {
  const { stream, items } = streamed(Buffer.from('{"items":"nope","kind":"EventList"}'), [3, 9]);
  assert.equal(stream.arraySeen, false);
  assert.deepEqual(items, []);
  assert.equal(stream.members.get("kind"), "EventList");
});

test("limits: an element or a member over its limit is refused as too large, while the rest stays small", () => {
  const stream = new ObjectStream("items", () => {}, { maxItemBytes: 100, maxMemberBytes: 20 });
  stream.write(Buffer.from(`{"items":[${JSON.stringify("x".repeat(50))},`));
  assert.ok(stream.heldBytes === 0, "a complete element is dropped");
  assert.throws(
    () => stream.write(Buffer.from(JSON.stringify("y".repeat(200)))),
    (error: unknown) => error instanceof JsonStreamError && error.tooLarge,
  );
  const members = new ObjectStream("items", () => {}, { maxItemBytes: 100, maxMemberBytes: 20 });
  assert.throws(
    () => members.write(Buffer.from(`{"metadata":${JSON.stringify("z".repeat(40))}}`)),
    (error: unknown) => error instanceof JsonStreamError && error.tooLarge,
  );
});

test("deep nesting costs no recursion", () => {
  const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  const stream = new ObjectStream("items", () => {}, { maxItemBytes: 1 << 20, maxMemberBytes: 1 << 20 });
  // JSON.parse of the captured element may refuse it; the scanner itself never overflows.
  try {
    stream.write(Buffer.from(`{"items":[${deep}]}`));
    stream.end();
  } catch (error) {
    assert.ok(error instanceof JsonStreamError, String(error));
  }
});

/** The error a body gets, written in the given chunks. */
function refusal(...chunks: string[]): JsonStreamError {
  const stream = new ObjectStream("items", () => {}, limits);
  try {
    for (const chunk of chunks) stream.write(Buffer.from(chunk));
    stream.end();
  } catch (error) {
    assert.ok(error instanceof JsonStreamError, String(error));
    return error;
  }
  assert.fail(`accepted: ${chunks.join("")}`);
}

test("refusals say what was expected, near which byte (the start of the chunk being read)", () => {
  const cases: [string[], string][] = [
    [["[]"], "expected '{' (near byte 0)"],
    [['{"a":1}', " x"], "unexpected bytes after the object (near byte 7)"],
    [["{1}"], "expected a member name (near byte 0)"],
    [['{"a":1,}'], "expected a member name (near byte 0)"],
    [['{"a"', " 1}"], "expected ':' (near byte 4)"],
    [['{"a":1 2}'], "expected ',' or '}' (near byte 0)"],
    [['{"items":[1,]}'], "expected an element (near byte 0)"],
    [['{"items":[1,,2]}'], "expected an element (near byte 0)"],
    [['{"items":[1 2]}'], "expected ',' or ']' (near byte 0)"],
    [['{"items":[1'], "the body ended before the object did (near byte 11)"],
  ];
  for (const [chunks, message] of cases) {
    const error = refusal(...chunks);
    assert.equal(error.message, message, chunks.join(""));
    assert.equal(error.tooLarge, false);
  }
  assert.match(refusal('{"a":tru}').message, /JSON/, "a scalar JSON.parse refuses");
});

test("an element or member of exactly its limit is read; one byte more is too large, naming the limit", () => {
  const item = JSON.stringify("x".repeat(8)); // 10 bytes
  const exact = new ObjectStream("items", () => {}, { maxItemBytes: 10, maxMemberBytes: 10 });
  exact.write(Buffer.from(`{"m":${item},"items":[${item}]}`));
  exact.end();
  assert.equal(exact.elements, 1);
  assert.equal(exact.members.get("m"), "xxxxxxxx");
  const bigger = JSON.stringify("x".repeat(9));
  for (const body of [`{"items":[${bigger}]}`, `{"m":${bigger}}`]) {
    const stream = new ObjectStream("items", () => {}, { maxItemBytes: 10, maxMemberBytes: 10 });
    assert.throws(
      () => stream.write(Buffer.from(body)),
      (error: unknown) =>
        error instanceof JsonStreamError &&
        error.tooLarge &&
        error.message === "a value of more than 10 bytes (near byte 0)",
      body,
    );
  }
});

test("elements are counted and handed over in order; the array member is not kept as a member", () => {
  const seen: unknown[] = [];
  const stream = new ObjectStream("items", (item) => seen.push(item), limits);
  stream.write(Buffer.from('{"items":[{"a":1},"two",3,null,true,[]],"kind":"EventList"}'));
  stream.end();
  assert.deepEqual(seen, [{ a: 1 }, "two", 3, null, true, []]);
  assert.equal(stream.elements, 6);
  assert.equal(stream.members.has("items"), false);
  assert.deepEqual([stream.arraySeen, stream.arrayNotArray], [true, false]);
  const empty = new ObjectStream("items", () => {}, limits);
  empty.write(Buffer.from('{ "items" : [ ] }'));
  empty.end();
  assert.deepEqual(
    [empty.elements, empty.arraySeen, empty.arrayNotArray, empty.members.size],
    [0, true, false, 0],
  );
});

test("an items member that is not an array is flagged, also when an array came before, and is not kept", () => {
  const scalar = new ObjectStream("items", () => {}, limits);
  scalar.write(Buffer.from('{"items":5}'));
  scalar.end();
  assert.deepEqual(
    [scalar.arraySeen, scalar.arrayNotArray, scalar.members.has("items")],
    [false, true, false],
  );
  const twice = new ObjectStream("items", () => {}, limits);
  twice.write(Buffer.from('{"items":[],"items":{"a":[1]}}'));
  twice.end();
  assert.deepEqual([twice.arraySeen, twice.arrayNotArray], [true, true]);
  const none = new ObjectStream("items", () => {}, limits);
  none.write(Buffer.from("{}"));
  none.end();
  assert.deepEqual([none.arraySeen, none.arrayNotArray, none.members.size], [false, false, 0]);
});

test("the bytes held are those of the value being read, across chunks, and none between values", () => {
  const stream = new ObjectStream("items", () => {}, limits);
  stream.write(Buffer.from('{"items":['));
  assert.equal(stream.heldBytes, 0);
  stream.write(Buffer.from('{"a":"12'));
  assert.equal(stream.heldBytes, 8);
  stream.write(Buffer.from('34"}'));
  assert.equal(stream.heldBytes, 0);
  stream.write(Buffer.from(', "esc\\"aped" ]}'));
  stream.end();
  assert.equal(stream.elements, 2);
});

test("a JsonStreamError is not too large unless said so", () => {
  assert.equal(new JsonStreamError("x").tooLarge, false);
  assert.equal(new JsonStreamError("x", true).tooLarge, true);
});
