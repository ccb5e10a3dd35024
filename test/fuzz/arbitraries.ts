/**
 * fast-check arbitraries for hostile requests. Valid bodies come from each route's own JSON schema
 * (the OpenAPI document the app serves), so a new route or field is fuzzed without touching this
 * file; then they are broken in the ways clients and attackers break them.
 */
import fc from "fast-check";

export type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  nullable?: boolean;
};

const dateArb = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
  .map((date) => date.toISOString());

/** An arbitrary of values that satisfy `schema` (bounded in size). */
export function fromSchema(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((variant) => fromSchema(variant, depth + 1)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => fromSchema({ ...schema, type }, depth)));
  const base = ((): fc.Arbitrary<unknown> => {
    switch (types[0]) {
      case "string": {
        if (schema.format === "date-time") return dateArb;
        if (schema.format === "uri") return fc.webUrl({ validSchemes: ["https"] });
        if (schema.pattern)
          // Bounded, but never below what the pattern needs: a 64-hex-digit tx_hash filtered to 40
          // characters could never be generated, and fast-check spun at full CPU looking for one.
          return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 160);
        const minLength = schema.minLength ?? 0;
        return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 24, 24)) });
      }
      case "integer":
        return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
      case "number":
        return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      case "array":
        return fc.array(fromSchema(schema.items, depth + 1), { maxLength: 3 });
      case "object":
      case undefined: {
        if (!schema.properties)
          return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
        const properties = Object.fromEntries(
          Object.entries(schema.properties).map(([key, value]) => [key, fromSchema(value, depth + 1)]),
        );
        return fc.record(properties, { requiredKeys: schema.required ?? [] });
      }
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  })();
  return schema.nullable ? fc.option(base, { nil: null }) : base;
}

/** A plausible string with a NUL or a lone surrogate somewhere in it. */
const poisoned = fc
  .tuple(
    fc.string({ maxLength: 12 }),
    fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff"),
    fc.string({ maxLength: 12 }),
  )
  .map(([before, bad, after]) => `${before}${bad}${after}`);

/** Strings no field should accept or that stress parsers and the database. */
export const hostileString = fc.oneof(
  { weight: 3, arbitrary: poisoned },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "\u0000",
      "a\u0000b",
      "order-1\u0000",
      "ok\ud83d",
      "\ude00ok",
      "\ud800",
      "x\udfff",
      "\udbff\ud800",
      "'; DROP TABLE orders; --",
      "${jndi:ldap://x}",
      "../../etc/passwd",
      "%00",
      "\u202e\u200b",
      "NaN",
      "1e309",
      "-0",
      "0000-01-01T00:00:00Z",
      "+275760-09-13T00:00:00.000Z",
      "9999-12-31T23:59:59.999-01:00",
      "__proto__",
      "",
      " ",
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 16 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 16 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 40_000 }).map((n) => "x".repeat(n)) },
);

const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
  fc.constant(Number.MAX_SAFE_INTEGER + 2),
);

const camel = (key: string) => key.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase());

/** A body as the text a client sends. Mutations act on a valid object from the route's schema. */
export function bodyText(schema: JsonSchema | undefined): fc.Arbitrary<string | undefined> {
  const valid = fromSchema(schema);
  const keyed = (object: unknown, pick: number): [Record<string, unknown>, string | undefined] => {
    const record =
      object !== null && typeof object === "object" && !Array.isArray(object)
        ? { ...(object as Record<string, unknown>) }
        : {};
    const keys = Object.keys(schema?.properties ?? record);
    return [record, keys.length ? keys[pick % keys.length] : undefined];
  };
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((value) => JSON.stringify(value)) },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, fc.nat(), wrongType).map(([value, pick, replacement]) => {
        const [record, key] = keyed(value, pick);
        if (key) record[key] = replacement;
        return JSON.stringify(record);
      }),
    },
    {
      weight: 3,
      arbitrary: fc.tuple(valid, fc.nat(), hostileString).map(([value, pick, hostile]) => {
        const [record, key] = keyed(value, pick);
        if (key) record[key] = hostile;
        return JSON.stringify(record);
      }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, hostileString, hostileString).map(([value, key, hostile]) => {
        const [record] = keyed(value, 0);
        record.metadata = { [key]: { nested: [hostile] } };
        return JSON.stringify(record);
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.integer({ min: 20, max: 6000 })).map(([value, depth]) => {
        const [record] = keyed(value, 0);
        const inner = JSON.stringify(record).slice(1, -1);
        return `{${inner}${inner ? "," : ""}"metadata":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`;
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            '"__proto__":{"isAdmin":true}',
            '"constructor":{"prototype":{"x":1}}',
            '"__proto__":null',
          ),
        )
        .map(([value, pollution]) => {
          const inner = JSON.stringify(keyed(value, 0)[0]).slice(1, -1);
          return `{${pollution}${inner ? "," : ""}${inner}}`;
        }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.nat(), wrongType).map(([value, pick, other]) => {
        const [record, key] = keyed(value, pick);
        if (key && camel(key) !== key) record[camel(key)] = other;
        return JSON.stringify(record);
      }),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom("", "{", "[]", "null", "true", "1", '"x"', '{"a":1,}', "\u0000", '{"a":"\\ud800"}'),
        fc.string({ unit: "binary", maxLength: 64 }),
        fc.integer({ min: 30_000, max: 40_000 }).map((n) => JSON.stringify({ name: "y".repeat(n) })),
      ),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Percent-encodes any string, lone surrogates included (as their WTF-8 bytes, e.g. %ED%A0%80). */
export function percentEncode(value: string): string {
  let out = "";
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join("");
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** A query string (without "?") over the route's parameters, valid or hostile. */
export function queryText(
  names: string[],
  schemas: Record<string, JsonSchema | undefined>,
): fc.Arbitrary<string> {
  const extra = ["page", "limit", "from", "to", "status", "__proto__", "constructor", "a[b]", "x"];
  const value = (name: string) =>
    fc.oneof(
      fromSchema(schemas[name]).map((v) =>
        percentEncode(typeof v === "object" ? JSON.stringify(v) : String(v)),
      ),
      hostileString.map((v) => percentEncode(v)),
      fc.constantFrom(
        "%00",
        "%ff",
        "%ED%A0%80",
        "%F0%9F%98",
        "%",
        "%%",
        "1%2",
        "0",
        "-1",
        "1.5",
        "999999999999",
        "2026-01-01",
        "abc",
      ),
    );
  const pair = fc.constantFrom(...names, ...extra).chain((name) => value(name).map((v) => `${name}=${v}`));
  return fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.join("&"));
}

/** A path parameter: an id that exists, a well-formed unknown one, or something hostile. */
export function pathValue(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: fc.uuid().map(String) },
    { weight: 3, arbitrary: hostileString.map((v) => percentEncode(v)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("%00", "%ff", "..%2f..%2f", "%2e%2e", "a%5cb", "%E0%A4%A", "x".repeat(500)),
    },
  );
}
