// ESLint's flat configuration for the calculator page's ES modules and their tests.
import js from "@eslint/js";
import globals from "globals";

const strict = {
  "no-implicit-globals": "error",
  "prefer-const": "error",
  "no-var": "error",
  eqeqeq: ["error", "always"],
};

export default [
  { ignores: ["node_modules/", "site/", ".venv/"] },
  js.configs.recommended,
  {
    files: ["src/mcnemar/web/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules: strict,
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
    rules: strict,
  },
];
