// ESLint: typescript-eslint's recommended rules, plus the type-checked rules that catch real bugs here
// (promises nobody awaits or that are passed where a callback's result is ignored). Formatting is Prettier's job.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'data/**', 'node_modules/**', 'web/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Style rules that flag sound code here (async generators closing over `this`, defensive initial values).
      '@typescript-eslint/no-this-alias': 'off',
      'no-useless-assignment': 'off',
      'preserve-caught-error': 'off',
    },
  },
  {
    // The doors call core services; persistence stays behind them (see docs/architecture.md).
    files: ['src/api/**/*.ts', 'src/bot/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'typeorm', message: 'A door never reaches the database: call a core service.' },
            { name: 'pg', message: 'A door never reaches the database: call a core service.' },
          ],
          patterns: [{ group: ['**/db', '**/db/*'], message: 'A door never reaches src/db: call a core service.' }],
        },
      ],
    },
  },
  {
    // Plain CommonJS data packages without type declarations are loaded with require().
    files: ['src/core/providers/local/ocr.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests poke at untyped JSON bodies and load modules lazily.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);
