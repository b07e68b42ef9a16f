import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { libBoundaries } from './eslint/lib-boundaries.js';

export default tseslint.config(
  { ignores: ['dist/**', '**/dist/**', 'node_modules/**', 'coverage/**', '.parley/**', 'packages/client/src/core/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', globalThis: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', document: 'readonly', window: 'readonly' },
    },
    plugins: { parley: { rules: { 'lib-boundaries': libBoundaries } } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      'parley/lib-boundaries': 'error',
      '@typescript-eslint/require-await': 'error',
      'no-console': 'error',
      eqeqeq: 'error',
    },
  },
  {
    // Tests read HTTP and SQL results whose bodies are `any` by their libraries' design (supertest's
    // body, pg rows); asserting on them is the point, so only the unsafe-any family is relaxed here.
    files: ['test/**/*.ts', '**/*.spec.ts', '**/*.e2e-spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
