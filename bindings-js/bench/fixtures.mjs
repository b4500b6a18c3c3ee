// Deterministic bench inputs: payloads of a target size, and a tools/list of 117 tools shaped
// like a large real server's (each with 1–3 structured variants, 0.5–7 KB schemas).

/** A small seeded PRNG (mulberry32), so every run measures the same inputs. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The record schema of the payload benches (a typical programmatic result). */
export const ITEM_SCHEMA = {
  type: "object",
  properties: {
    id: { type: "string", pattern: "^c[0-9]+$" },
    name: { type: "string", minLength: 1 },
    email: { type: "string", format: "email" },
    score: { type: "number", minimum: 0 },
    active: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["id", "name", "score", "active"],
  additionalProperties: false,
};
export const RESULT_SCHEMA = {
  type: "object",
  properties: { items: { type: "array", items: ITEM_SCHEMA }, total: { type: "integer" } },
  required: ["items", "total"],
};

export const BENCH_TOOL = {
  name: "search_customers",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    { audience: "programmatic", format: "structured", schema: RESULT_SCHEMA },
  ],
};
export const REQUESTED = [{ audience: "programmatic", format: "structured" }];

/** A result whose JSON text is about `bytes` long; invalid ones fail on the last item. */
export function payload(bytes, valid) {
  const items = [];
  const result = () => ({
    resultType: "complete",
    outputs: [{ audience: "programmatic", format: "structured", structuredContent: { items, total: items.length } }],
  });
  let i = 0;
  while (JSON.stringify(result()).length < bytes) {
    items.push({
      id: `c${i}`,
      name: `Customer ${i}`,
      email: `customer${i}@example.com`,
      score: (i * 37) % 100,
      active: i % 2 === 0,
      tags: ["a", "b"],
    });
    i++;
  }
  if (!valid) items[items.length - 1].score = "high";
  return result();
}

/** The many-leaf record schema (P-JS-2 / P-JS-6 `leaves-` lines): light records of six short
 * scalars whose schema checks types only (no required, no formats, no patterns), where the
 * validator is cheapest and any per-node cost of the route shows. */
export const LEAF_SCHEMA = {
  type: "object",
  properties: {
    id: { type: "integer" },
    qty: { type: "integer" },
    price: { type: "number" },
    ok: { type: "boolean" },
    code: { type: "string" },
    rank: { type: "integer" },
  },
};
export const LEAF_RESULT_SCHEMA = {
  type: "object",
  properties: { items: { type: "array", items: LEAF_SCHEMA }, total: { type: "integer" } },
};

export const LEAF_TOOL = {
  name: "list_rows",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    { audience: "programmatic", format: "structured", schema: LEAF_RESULT_SCHEMA },
  ],
};

/** A many-leaf result whose JSON text is about `bytes` long (about 1,000 records at 64 KB);
 * invalid ones fail on the last record. */
export function leafPayload(bytes, valid) {
  const items = [];
  const result = () => ({
    resultType: "complete",
    outputs: [{ audience: "programmatic", format: "structured", structuredContent: { items, total: items.length } }],
  });
  let i = 0;
  while (JSON.stringify(result()).length < bytes) {
    items.push({ id: i, qty: i % 17, price: (i % 40) + 0.5, ok: i % 3 !== 0, code: `k${i % 100}`, rank: i % 9 });
    i++;
  }
  if (!valid) items[items.length - 1].qty = "7";
  return result();
}

const WORDS = "repository issue pull request branch commit user team label milestone workflow run job artifact release tag comment review status check deployment environment secret variable".split(" ");

function schemaOfSize(rand, target) {
  const props = {};
  const schema = { type: "object", properties: props, required: [], additionalProperties: false };
  let n = 0;
  while (JSON.stringify(schema).length < target) {
    const name = `${WORDS[Math.floor(rand() * WORDS.length)]}_${n++}`;
    const kind = Math.floor(rand() * 6);
    const description = `The ${name.replace("_", " ")} of the ${WORDS[Math.floor(rand() * WORDS.length)]}.`;
    let prop;
    if (kind === 0) prop = { type: "string", description, maxLength: 256 };
    else if (kind === 1) prop = { type: "integer", description, minimum: 0 };
    else if (kind === 2) prop = { type: "string", enum: ["open", "closed", "merged", "draft"], description };
    else if (kind === 3) prop = { type: "array", description, items: { type: "string", pattern: "^[a-z0-9_-]+$" } };
    else if (kind === 4)
      prop = {
        type: "object",
        description,
        properties: { login: { type: "string" }, id: { type: "integer" }, url: { type: "string", format: "uri" } },
        required: ["login", "id"],
      };
    else prop = { type: ["string", "null"], description, format: "date-time" };
    props[name] = prop;
    if (rand() < 0.4) schema.required.push(name);
  }
  return schema;
}

/** 117 tool declarations with 1–3 structured variants of 0.5–7 KB schemas each. */
export function toolsList(count = 117, seed = 3279) {
  const rand = rng(seed);
  const audiences = ["programmatic", "assistant", "user"];
  const tools = [];
  for (let t = 0; t < count; t++) {
    const variants = [{ audience: "assistant", format: "content" }];
    const structured = 1 + Math.floor(rand() * 3);
    for (let v = 0; v < structured; v++) {
      variants.push({ audience: audiences[v], format: "structured", schema: schemaOfSize(rand, 500 + rand() * 6500) });
    }
    tools.push({
      name: `tool_${t}_${WORDS[t % WORDS.length]}`,
      description: `Tool ${t}`,
      inputSchema: { type: "object" },
      outputVariants: variants,
    });
  }
  return tools;
}
