// Lint and format check (`npm run check`). Plain-JavaScript packages only, so `npm ci` installs them from a
// registry that serves one platform's binaries (why not Biome: docs/decisions.md). The style rules state the
// house style as it is written (no semicolons, single quotes, 2-space indent). No line-length rule: ~190 lines
// run past 120 columns today, and wrapping them would touch files everyone is editing.
import js from '@eslint/js'
import stylistic from '@stylistic/eslint-plugin'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly', process: 'readonly', Buffer: 'readonly', URL: 'readonly',
      },
    },
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/semi': ['error', 'never'],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      // Wrapped union members and curried arrows are indented as Prettier does in a few files; both ways pass.
      '@stylistic/indent': ['error', 2, {
        offsetTernaryExpressions: true,
        ignoredNodes: ['TSUnionType > TSTypeLiteral', 'TSUnionType > TSTypeLiteral *', 'ArrowFunctionExpression > ArrowFunctionExpression'],
      }],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': 'error',
      '@stylistic/no-multiple-empty-lines': ['error', { max: 1 }],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/no-tabs': 'error',
      // `let x` read by a callback before its one assignment (`poolRef`) cannot be a const: the callback may run first.
      'prefer-const': ['error', { destructuring: 'all', ignoreReadBeforeAssign: true }],
      // A leading underscore marks a value left out on purpose (`const { secret: _, ...rest } = body`).
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true,
      }],
    },
  },
  {
    // Tests read wire JSON loosely and poke browser globals from Node; the product code stays `any`-free.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
)
