// JSON.parse with the corpus contract's extra rules: duplicate object keys and lone
// surrogates are errors (JSON.parse accepts both silently). A small scanner finds them; the
// value itself comes from JSON.parse (no nesting limit on either).

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function parseStrict(text) {
  const value = JSON.parse(text); // syntax errors first, with the engine's message
  // The text is valid JSON now: scan its structure for keys and strings only.
  const stack = []; // one entry per open container: a Set of keys for objects, null for arrays
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const str = JSON.parse(text.slice(i, j + 1));
      if (LONE_SURROGATE.test(str)) throw new SyntaxError(`lone surrogate in string at offset ${i}`);
      const top = stack[stack.length - 1];
      if (expectKey && top) {
        if (top.has(str)) throw new SyntaxError(`duplicate key ${JSON.stringify(str)} at offset ${i}`);
        top.add(str);
        expectKey = false;
      }
      i = j;
    } else if (ch === "{") {
      stack.push(new Set());
      expectKey = true;
    } else if (ch === "[") {
      stack.push(null);
    } else if (ch === "}" || ch === "]") {
      stack.pop();
    } else if (ch === ",") {
      expectKey = stack[stack.length - 1] instanceof Set;
    }
  }
  return value;
}
