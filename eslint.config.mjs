// ESLint runs two rules over the web app's JavaScript:
// - no function longer than 80 lines, counted as tests/server/test_structure.py counts
//   the server's Python functions (from the function's first line to its last, blank
//   lines and comments included);
// - every word a player reads goes through t() or tn() of i18n.js (the gettext
//   catalogs): a string with letters shown as an element's text, or as a title,
//   aria-label, placeholder or alt, or announced, is an error.
// Types are TypeScript's job (tsconfig.json).

/** Attributes whose values people read (or hear). */
const READ_ATTRIBUTES = new Set(["title", "aria-label", "placeholder", "alt", "aria-description", "label"]);
/** Element properties whose values people read. */
const READ_PROPERTIES = new Set(["textContent", "innerText", "title", "placeholder", "ariaLabel", "label"]);
/** Functions whose first argument is read out or shown as it is. */
const SPEAKERS = new Set(["announce", "say", "alert", "confirm", "prompt"]);
/** Two letters in a row: words, not "×", "—", "1." or "…". */
const LETTERS = /\p{L}\p{L}/u;

/** @param {any} node @returns {any[]} the literal parts a value may show */
function shownStrings(node) {
  if (!node) return [];
  switch (node.type) {
    case "Literal":
      return typeof node.value === "string" && LETTERS.test(node.value) ? [node] : [];
    case "TemplateLiteral":
      return node.quasis.some((/** @type {any} */ q) => LETTERS.test(q.value.cooked ?? "")) ? [node] : [];
    case "ConditionalExpression":
      return [...shownStrings(node.consequent), ...shownStrings(node.alternate)];
    case "LogicalExpression":
      return [...shownStrings(node.left), ...shownStrings(node.right)];
    case "BinaryExpression":
      return node.operator === "+" ? [...shownStrings(node.left), ...shownStrings(node.right)] : [];
    case "ArrayExpression":
      return node.elements.flatMap(shownStrings);
    default:
      return [];
  }
}

const translatedText = {
  meta: {
    type: "problem",
    docs: { description: "text shown to players goes through t() or tn() (i18n.js)" },
    schema: [],
    messages: { untranslated: "Text shown to players must go through t() or tn() of i18n.js: {{text}}" },
  },
  create(/** @type {any} */ context) {
    /** @param {any} node */
    const report = (node) =>
      context.report({ node, messageId: "untranslated", data: { text: context.sourceCode.getText(node).slice(0, 60) } });
    /** @param {any} value */
    const check = (value) => shownStrings(value).forEach(report);
    return {
      CallExpression(/** @type {any} */ node) {
        const name = node.callee.type === "Identifier" ? node.callee.name : node.callee.property?.name;
        if (name === "h" || name === "svg") {
          node.arguments.slice(2).forEach(check);
          const attrs = node.arguments[1];
          if (attrs && attrs.type === "ObjectExpression") {
            for (const prop of attrs.properties) {
              const key = prop.key && (prop.key.name ?? prop.key.value);
              if (READ_ATTRIBUTES.has(key)) check(prop.value);
            }
          }
        } else if (SPEAKERS.has(name)) {
          check(node.arguments[0]);
        } else if (name === "setAttribute" && READ_ATTRIBUTES.has(node.arguments[0]?.value)) {
          check(node.arguments[1]);
        } else if (name === "append" || name === "replaceChildren" || name === "prepend") {
          node.arguments.forEach(check);
        }
      },
      AssignmentExpression(/** @type {any} */ node) {
        const prop = node.left.type === "MemberExpression" ? node.left.property : null;
        if (prop && READ_PROPERTIES.has(prop.name)) check(node.right);
        if (prop && prop.name === "title" && node.left.object?.name === "document") check(node.right);
      },
    };
  },
};

export default [
  {
    files: ["poolcheckers/server/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    plugins: { poolcheckers: { rules: { "translated-text": translatedText } } },
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
      "poolcheckers/translated-text": "error",
    },
  },
];
