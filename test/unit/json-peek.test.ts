// Peeking at a watch event's type, resourceVersion and uid without parsing
// it: the same values JSON.parse gives, on the shapes the apiserver sends and
// on random JSON around them; a "uid" anywhere else (owner references,
// labels, nested objects before metadata) is never taken for the object's;
// anything it cannot read is left to JSON.parse (undefined), never misread.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { peekListPage, peekStrings } from "../../src/kube/json-peek.ts";

const metadataPath = ["object", "metadata"] as const;
const fields = ["resourceVersion", "uid"] as const;

function peeked(text: string): Record<string, string> | undefined {
  const found = peekStrings(text, metadataPath, fields);
  return found && Object.fromEntries(found);
}

test("an apiserver-shaped event: sorted keys, owner references and labels named uid before metadata.uid", () => {
  const event = {
    type: "MODIFIED",
    object: {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: {
        annotations: { note: 'a "quoted" {brace} \\ and "uid":"fake"' },
        creationTimestamp: "2026-01-01T00:00:00Z",
        generation: 3,
        labels: { uid: "label-value" },
        managedFields: [{ fieldsV1: { "f:metadata": { "f:uid": {} } }, manager: "m" }],
        name: "w1",
        namespace: "ns",
        ownerReferences: [{ apiVersion: "v1", kind: "X", name: "o", uid: "owner-uid" }],
        resourceVersion: "12345",
        uid: "0b6f2b3e-6c4e-4d8e-9a55-2f8f6f0e7c11",
      },
      spec: { uid: "spec-uid" },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    },
  };
  for (const text of [JSON.stringify(event), JSON.stringify(event, null, 2)]) {
    assert.deepEqual(peeked(text), { resourceVersion: "12345", uid: "0b6f2b3e-6c4e-4d8e-9a55-2f8f6f0e7c11" });
    assert.equal(peekStrings(text, [], ["type"])?.get("type"), "MODIFIED");
  }
});

test("text it cannot read gives undefined or what is there, never another field's value", () => {
  assert.equal(peeked(""), undefined);
  assert.equal(peeked("not json"), undefined);
  assert.equal(peeked('{"object":[1,2]}'), undefined, "object not an object");
  assert.equal(peeked('{"object":{"metadata":{"uid":"cut'), undefined, "cut short");
  assert.equal(
    peeked('{"object":{"metadata":{"uid":"a\\u0062c"}}}')?.uid,
    undefined,
    "escaped: left to JSON.parse",
  );
  assert.deepEqual(peeked('{"object":{"metadata":{"uid":1}}}'), {}, "not a string: absent");
  assert.deepEqual(peeked('{"object":{"metadata":{}}}'), {});
});

/** A JSON value with no "uid" or "resourceVersion" key at the object.metadata level. */
const noise = fc.jsonValue({ maxDepth: 3 });

test("on random events the peeked values are JSON.parse's (keys in any order, noise around them)", () => {
  const event = fc.record({
    before: fc.dictionary(fc.string(), noise, { maxKeys: 4 }),
    metaBefore: fc.dictionary(fc.string(), noise, { maxKeys: 4 }),
    metaAfter: fc.dictionary(fc.string(), noise, { maxKeys: 4 }),
    uid: fc.uuid(),
    resourceVersion: fc.stringMatching(/^[0-9]{1,12}$/),
    space: fc.constantFrom(undefined, 1, 2, "\t"),
  });
  fc.assert(
    fc.property(event, ({ before, metaBefore, metaAfter, uid, resourceVersion, space }) => {
      const metadata: Record<string, unknown> = { ...metaBefore };
      delete metadata.uid;
      delete metadata.resourceVersion;
      Object.assign(metadata, { uid, resourceVersion }, metaAfter);
      metadata.uid = uid;
      metadata.resourceVersion = resourceVersion;
      const object: Record<string, unknown> = { ...before, metadata };
      const text = JSON.stringify({ type: "ADDED", object }, null, space);
      const parsed = JSON.parse(text) as { object: { metadata: { uid: string; resourceVersion: string } } };
      assert.deepEqual(peeked(text), {
        resourceVersion: parsed.object.metadata.resourceVersion,
        uid: parsed.object.metadata.uid,
      });
    }),
    { numRuns: 1000 },
  );
});

test("on arbitrary JSON a peeked value is always JSON.parse's value at that path", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(undefined, 1), (value, space) => {
      const text = JSON.stringify({ object: { metadata: value } }, null, space);
      const found = peekStrings(text, metadataPath, fields);
      const meta = (JSON.parse(text) as { object: { metadata: unknown } }).object.metadata;
      for (const [key, got] of found ?? []) {
        assert.equal((meta as Record<string, unknown>)[key], got, `${key} in ${text.slice(0, 200)}`);
      }
    }),
    { numRuns: 1000 },
  );
});

test("a list page: only the kept items are parsed, the others counted; the page's metadata as JSON.parse reads it", () => {
  const page = {
    kind: "WidgetList",
    apiVersion: "example.com/v1",
    metadata: { continue: "abc", resourceVersion: "77", remainingItemCount: 5 },
    items: ["u1", "u2", "u3", "u4"].map((uid, i) => ({
      apiVersion: "example.com/v1",
      metadata: { name: `w${i}`, ownerReferences: [{ uid: "owner" }], uid },
      status: { uid: "not-this" },
    })),
  };
  for (const space of [undefined, 2]) {
    const text = JSON.stringify(page, null, space);
    const read = peekListPage(text, (uid) => uid === "u2" || uid === "u4");
    assert.deepEqual(read?.items, [page.items[1], page.items[3]]);
    assert.equal(read?.skipped, 2);
    assert.deepEqual(read?.metadata, page.metadata);
  }
  assert.deepEqual(
    peekListPage('{"items":[],"metadata":{}}', () => true),
    { items: [], metadata: {}, skipped: 0 },
  );
  assert.deepEqual(
    peekListPage('{"items":null}', () => true),
    { items: [], metadata: undefined, skipped: 0 },
  );
  assert.equal(
    peekListPage('{"items":[{"metadata":{}}]}', () => true),
    undefined,
    "an item without uid: parse it whole",
  );
  assert.equal(
    peekListPage('{"items":[{"metadata":{"uid":"a"}}', () => true),
    undefined,
    "cut short",
  );
  assert.equal(
    peekListPage("[]", () => true),
    undefined,
  );
});

test("on random pages the kept items are exactly JSON.parse's items of those uids, in order", () => {
  const item = fc.record({
    uid: fc.uuid(),
    extra: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  });
  fc.assert(
    fc.property(fc.array(item, { maxLength: 12 }), fc.integer({ min: 1, max: 4 }), (items, modulo) => {
      const objects = items.map(({ uid, extra }) => ({ ...extra, metadata: { ...extra, uid } }));
      const text = JSON.stringify({ kind: "List", metadata: { resourceVersion: "1" }, items: objects });
      const keep = (uid: string) => uid.charCodeAt(0) % modulo === 0;
      const read = peekListPage(text, keep);
      const parsed = (JSON.parse(text) as { items: { metadata: { uid: string } }[] }).items;
      assert.deepEqual(
        read?.items,
        parsed.filter((o) => keep(o.metadata.uid)),
      );
      assert.equal(read?.skipped, parsed.filter((o) => !keep(o.metadata.uid)).length);
    }),
    { numRuns: 500 },
  );
});

/** An event whose object.metadata ends with resourceVersion then uid, so the last value read ends where it says. */
function eventText(space?: string | number): { text: string; valuesEnd: number } {
  const uid = "6f1c2a9e-0d4b-4c3e-8a7f-1b2c3d4e5f60";
  const event = {
    type: "MODIFIED",
    object: {
      apiVersion: "example.com/v1",
      spec: { list: [1, [2, { a: "]}" }], -3.5e2], flag: true, none: null, text: 'a \\"{[' },
      metadata: {
        annotations: { "k\\": "v\\\\", '"uid"': '"x"' },
        generation: 12,
        labels: { app: "w" },
        ownerReferences: [{ uid: "owner" }],
        resourceVersion: "987",
        uid,
      },
    },
  };
  const text = JSON.stringify(event, null, space);
  return { text, valuesEnd: text.lastIndexOf(uid) + uid.length + 1 };
}

test("a text cut anywhere reads as undefined up to the end of the last value, and as the whole text's values after it", () => {
  for (const space of [undefined, 2, "\t"]) {
    const { text, valuesEnd } = eventText(space);
    const whole = { resourceVersion: "987", uid: "6f1c2a9e-0d4b-4c3e-8a7f-1b2c3d4e5f60" };
    assert.deepEqual(peeked(text), whole);
    for (let cut = 0; cut < text.length; cut++) {
      const expected = cut < valuesEnd ? undefined : whole;
      assert.deepEqual(
        peeked(text.slice(0, cut)),
        expected,
        `cut at ${cut} of ${text.length}: …${text.slice(cut - 20, cut)}`,
      );
    }
  }
});

test("a list page cut anywhere is never read as one with fewer items: undefined, or (cut after its items) all of them", () => {
  const page = JSON.stringify({
    metadata: { resourceVersion: "5" },
    items: [
      { metadata: { uid: "u1" }, spec: { a: [1, "]"] } },
      { metadata: { uid: "u2" }, n: 2 },
    ],
  });
  const whole = peekListPage(page, () => true);
  assert.equal(whole?.items.length, 2);
  const itemsEnd = page.lastIndexOf("]") + 1;
  for (let cut = 0; cut < page.length; cut++) {
    const read = peekListPage(page.slice(0, cut), () => true);
    assert.deepEqual(
      read,
      cut < itemsEnd ? undefined : whole,
      `cut at ${cut}: …${page.slice(cut - 20, cut)}`,
    );
  }
});

test("whitespace is space, tab, line feed and carriage return", () => {
  const text =
    '\r\n{\r\n\t"object" :\r{ "metadata":\n{\r"uid"\r:\r"u"\r,\r"resourceVersion":"1"\r}\r}\r}\r\n';
  assert.deepEqual(peeked(text), { resourceVersion: "1", uid: "u" });
  assert.equal(
    peeked('{"object":{"metadata":{"uid":"u",\f"resourceVersion":"1"}}}'),
    undefined,
    "form feed is not",
  );
});

test("keys are compared whole and decoded when escaped; a key that cannot be decoded gives up", () => {
  assert.deepEqual(
    peekStrings('{"uidx":"no","ui":"no","uid":"yes"}', [], ["uid"]),
    new Map([["uid", "yes"]]),
  );
  assert.deepEqual(
    peekStrings('{"\\u0075id":"yes"}', [], ["uid"]),
    new Map([["uid", "yes"]]),
    "\\u0075 is u",
  );
  assert.deepEqual(peekStrings('{"a\\"b":1,"uid":"yes"}', [], ["uid"]), new Map([["uid", "yes"]]));
  assert.equal(
    peekStrings('{"\\x":1,"uid":"yes"}', [], ["uid"]),
    undefined,
    "an invalid escape: parsed, not guessed",
  );
  assert.equal(peekStrings('{"ui\\d":"v"}', [], ["uid"]), undefined, "invalid too: never compared raw");
});

test("the first of duplicate keys is read (the apiserver never writes duplicates)", () => {
  assert.deepEqual(
    Object.fromEntries(peekStrings('{"uid":"a","uid":"b","resourceVersion":"1"}', [], fields) ?? []),
    { uid: "a", resourceVersion: "1" },
  );
});

test("text that is not an object, or members not separated as JSON separates them, give undefined", () => {
  const uid = ["uid"];
  for (const text of [
    'x"uid":"v"}',
    '{xuid":"v"}',
    '{"a":1 x"uid":"v"}',
    '{"a":1 "uid":"v"}',
    '{"a" 1,"uid":"v"}',
    '{"uid":"cut',
    '{"uid" "v"}',
    '{"a":"cut,"uid":"v"}',
    '{"a":{"b":"cut,"uid":"v"}',
    '{"a":[1,{"b":"c"},"uid":"v"}',
    '{"a":1],"uid":"v"}',
  ]) {
    assert.equal(peekStrings(text, [], uid), undefined, text);
  }
  assert.deepEqual(peekStrings('{"a":[1,"}"],"b":{"c":"]"},"uid":"v"}', [], uid), new Map([["uid", "v"]]));
  assert.equal(
    peekStrings('{"object":"x"}', ["object"], uid),
    undefined,
    "a path step that is not an object",
  );
  assert.equal(peekStrings('{"object":{"uid":"v"}}', ["other"], uid), undefined, "a path step not there");
  assert.deepEqual(
    peekStrings('{"uid":"v"}', [], ["uid", "other"]),
    new Map([["uid", "v"]]),
    "a key not there: absent",
  );
});

test("a list page whose items or metadata do not read as JSON is left to JSON.parse", () => {
  const keep = () => true;
  for (const text of [
    '{"items":{"metadata":{"uid":"a"}}}',
    '{"items":[{"metadata":{"uid":"a"}} {"metadata":{"uid":"b"}}]}',
    '{"items":[{"metadata":{"uid":"a"}},x{"metadata":{"uid":"b"}}]}',
    '{"items":[{"metadata":{"uid":"a"}}x{"metadata":{"uid":"b"}}]}',
    '{"items":[{"metadata":{"uid":"a"},"x":[1',
    '{"items":[1]}',
    '{"items":[],"metadata":{"a":1,}}',
    '{"items":[],"metadata":{"a":1',
  ]) {
    assert.equal(peekListPage(text, keep), undefined, text);
  }
  assert.deepEqual(peekListPage('{"metadata":{"resourceVersion":"5"}}', keep), {
    items: [],
    metadata: { resourceVersion: "5" },
    skipped: 0,
  });
  assert.deepEqual(peekListPage('{"items":[ ]}', keep), { items: [], metadata: undefined, skipped: 0 });
});
