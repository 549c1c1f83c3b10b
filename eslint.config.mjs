// ESLint runs one rule over the web app's JavaScript: no function longer than 80
// lines, counted as tests/server/test_structure.py counts the server's Python
// functions (from the function's first line to its last, blank lines and comments
// included). Types are TypeScript's job (tsconfig.json).
export default [
  {
    files: ["poolcheckers/server/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
];
