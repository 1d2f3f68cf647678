// Lint keeps the layering of DESIGN.md: core is pure TypeScript (no DOM, React, zustand or ui),
// cli and worker never import ui.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const uiOnly = ['react', 'react-dom', 'react-dom/*', 'zustand', 'zustand/*', 'recharts'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'runs/**', 'scratch/**', 'test-results/**', 'playwright-report/**', 'e2e/artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: uiOnly.filter((p) => !p.includes('*')).map((name) => ({ name, message: 'src/core stays free of React and UI state.' })),
        patterns: [
          { group: ['**/ui/**', '**/worker/**', '**/cli/**', 'react-dom/*', 'zustand/*'], message: 'Imports go one way: ui -> worker -> core; cli -> core.' },
        ],
      }],
      'no-restricted-globals': ['error', 'window', 'document', 'navigator', 'localStorage', 'HTMLElement'],
    },
  },
  {
    files: ['src/cli/**/*.ts', 'src/worker/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/ui/**'], message: 'cli and worker never import ui.' }] }],
    },
  },
);
