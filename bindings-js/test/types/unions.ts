// Compiled with `tsc --noEmit --strict` in `make test`: a variant and an output are the SEP's
// unions, discriminated by `format` (ContentToolResultVariant | StructuredToolResultVariant,
// ContentToolResultOutput | StructuredToolResultOutput). `@ts-expect-error` lines fail the build
// if the types become too loose.
import type {
  ContentBlock,
  ContentToolResultOutput,
  ContentToolResultVariant,
  JsonObject,
  JsonValue,
  Output,
  OutputVariant,
  ProducedOutputs,
  Route,
  Selector,
  StructuredToolResultOutput,
  StructuredToolResultVariant,
  ToolDeclaration,
  ToolResultAudience,
  ToolResultFormat,
  ToolResultOutput,
  ToolResultOutputSelector,
  ToolResultVariant,
} from "mcp-outputs";

// Narrowing on `format` gives each side its own payload.
function payload(output: ToolResultOutput): ContentBlock[] | JsonValue {
  switch (output.format) {
    case "content": {
      const side: ContentToolResultOutput = output;
      const blocks: ContentBlock[] = output.content;
      return side.content.length === 0 ? blocks : output.content;
    }
    case "structured": {
      const side: StructuredToolResultOutput = output;
      const value: JsonValue = output.structuredContent;
      return side.structuredContent ?? value;
    }
    default: {
      // Exhaustive: nothing is left.
      const none: never = output;
      return none;
    }
  }
}

function schemaOf(variant: ToolResultVariant): JsonObject | undefined {
  if (variant.format === "structured") {
    const side: StructuredToolResultVariant = variant;
    return side.schema;
  }
  const side: ContentToolResultVariant = variant;
  // A content variant's schema is `never`: reading it gives only undefined.
  const none: undefined = side.schema;
  return none;
}

// Without narrowing, each payload is optional on the union.
declare const anyOutput: ToolResultOutput;
const maybeBlocks: ContentBlock[] | undefined = anyOutput.content;
const maybeValue: JsonValue | undefined = anyOutput.structuredContent;

// The SEP's names and the earlier ones are the same types.
const earlier: Output = anyOutput;
const sep: ToolResultOutput = earlier;
const variant: OutputVariant = { audience: "user", format: "structured", schema: { type: "object" } };
const sepVariant: ToolResultVariant = variant;
const selector: ToolResultOutputSelector = { audience: "programmatic", format: "structured" } satisfies Selector;
const format: ToolResultFormat = selector.format;
const audience: ToolResultAudience = "io.modelcontextprotocol/ui";

// Both sides in the places that take outputs and variants; unknown fields pass.
const produced: ProducedOutputs = {
  outputs: [
    { audience: "assistant", format: "content", content: [{ type: "text", text: "2 found" }], _meta: { k: 1 } },
    { audience: "programmatic", format: "structured", structuredContent: null },
  ],
};
const declaration: ToolDeclaration = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content", description: "summary" },
    { audience: "programmatic", format: "structured" },
  ],
};
declare const route: Route;
const firstUser: ToolResultOutput | undefined = route.user[0];
const modelValues = route.model.map((output) => (output.format === "structured" ? output.structuredContent : output.content));

console.log(payload, schemaOf, maybeBlocks, maybeValue, sep, sepVariant, format, audience, produced, declaration);
console.log(firstUser, modelValues);

// A content output cannot carry structuredContent, nor a structured one content.
// @ts-expect-error: structuredContent on a content output
const mixedContent: ToolResultOutput = { audience: "user", format: "content", content: [], structuredContent: {} };
// @ts-expect-error: content on a structured output
const mixedStructured: ToolResultOutput = { audience: "user", format: "structured", structuredContent: 1, content: [] };
// @ts-expect-error: a structured output needs structuredContent
const noValue: ToolResultOutput = { audience: "user", format: "structured" };
// @ts-expect-error: a content output needs content
const noBlocks: ToolResultOutput = { audience: "user", format: "content" };
// @ts-expect-error: the content side alone refuses the structured format
const wrongSide: ContentToolResultOutput = { audience: "user", format: "structured", content: [] };
// @ts-expect-error: the format is content or structured
const otherFormat: ToolResultOutput = { audience: "user", format: "text", content: [] };
// @ts-expect-error: a format is required
const noFormat: ToolResultOutput = { audience: "user", content: [] };
// @ts-expect-error: in a ProducedOutputs too
const producedMixed: ProducedOutputs = { outputs: [{ audience: "user", format: "content", content: [], structuredContent: 1 }] };
// @ts-expect-error: a content variant declares no schema
const contentSchema: ToolResultVariant = { audience: "user", format: "content", schema: { type: "object" } };
// @ts-expect-error: a variant's schema is an object
const booleanSchema: ToolResultVariant = { audience: "user", format: "structured", schema: true };

function unnarrowed(output: ToolResultOutput): ContentBlock[] {
  // @ts-expect-error: content may be absent before narrowing
  return output.content;
}
function wrongNarrowing(output: ToolResultOutput): JsonValue {
  if (output.format === "content") {
    // @ts-expect-error: after narrowing to content, structuredContent is never there
    const value: JsonValue = output.structuredContent;
    return value;
  }
  return output.structuredContent;
}
console.log(mixedContent, mixedStructured, noValue, noBlocks, wrongSide, otherFormat, noFormat, producedMixed);
console.log(contentSchema, booleanSchema, unnarrowed, wrongNarrowing);
