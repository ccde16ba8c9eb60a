// ESLint (issue 12): typescript-eslint's recommended-type-checked rules over every TypeScript file
// the type checker sees (tsconfig.json's include). Generated code is not linted.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The rules about values typed `any`: tests and benchmarks read JSON answers, which are `any` by design. */
const ANY_RULES = [
  'no-explicit-any',
  'no-unsafe-argument',
  'no-unsafe-assignment',
  'no-unsafe-call',
  'no-unsafe-member-access',
  'no-unsafe-return',
];

export default tseslint.config(
  {
    ignores: ['src/generated/**', 'node_modules/**', 'data/**', 'dist/**', '*.config.js', '*.cjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // one program from tsconfig.json (a cold run ~10 % faster than the project service)
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // a leading underscore names a value left out on purpose (`const { a: _a, ...rest } = x`)
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Functions stay short (issue 31): a function is read whole, so one that passes 80 lines (blank
    // lines and comments aside) or 20 paths through it is split into named steps. Tests and
    // benchmarks are exempt: a test reads as one story.
    files: [
      'src/**/*.ts',
      'rest-facade/**/*.ts',
      'mcp-facade/**/*.ts',
      'web-pages/**/*.ts',
      'scripts/**/*.ts',
    ],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      complexity: ['error', 20],
    },
  },
  {
    // One clock (issue 48): the server reads the time only through src/base/clock.ts, which a test
    // can set. A duration is measured with performance.now(), which no setting moves.
    // Tests read it too, so that a suite run with the clock set agrees with the server.
    files: [
      'src/**/*.ts',
      'rest-facade/**/*.ts',
      'mcp-facade/**/*.ts',
      'web-pages/**/*.ts',
      'test/**/*.ts',
    ],
    ignores: ['src/base/clock.ts', 'test/base/clock.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read the time with clock.now() (src/base/clock.ts), which a test can set.',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read the time with clock.ms() (src/base/clock.ts), which a test can set.',
        },
      ],
    },
  },
  {
    // Tests and benchmarks assert on JSON answers (`res.body.detail[0].loc`): reading an answer's
    // fields from `any` is what they do, and an assertion fails where a field is missing. Every
    // other rule applies to them as to the server's code.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: Object.fromEntries(ANY_RULES.map((rule) => [`@typescript-eslint/${rule}`, 'off'])),
  },
  {
    // the build script is plain JavaScript (it runs before anything is compiled): no type information
    files: ['**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
