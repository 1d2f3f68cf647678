// Lint keeps the layering of docs/architecture.md: core is pure TypeScript (no DOM, React, zustand
// or ui), cli and worker never import ui; src/core's generic files import no task folder (they look
// tasks up in registry.ts, the one place that lists them); and no module imports itself back
// through others (import-x/no-cycle).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const uiOnly = ['react', 'react-dom', 'react-dom/*', 'zustand', 'zustand/*', 'recharts'];
/** The task folders of src/core: only they, and registry.ts, know a task by its code. */
const taskFolders = ['kolmogorov', 'functions', 'digits'];
const layers = { group: ['**/ui/**', '**/worker/**', '**/cli/**', 'react-dom/*', 'zustand/*'], message: 'Imports go one way: ui -> worker -> core; cli -> core.' };
/**
 * The page's main thread loads core (config.ts and registry.ts, for the form): core uses
 * tfjs-core, whose ops are all it needs; the umbrella package would bring layers, data and the
 * cpu and webgl backends into the page's first bundle (1.65 MB where it is 0.87 MB). The entry
 * points (the workers, the CLI's tfBackend.ts) import the umbrella and register the backends.
 */
const coreTensorflow = { name: '@tensorflow/tfjs', message: 'src/core imports @tensorflow/tfjs-core (the page main thread loads core); backends are registered by the entry points.' };
const uiOnlyPaths = uiOnly.filter((p) => !p.includes('*')).map((name) => ({ name, message: 'src/core stays free of React and UI state.' }));

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
      'no-restricted-imports': ['error', { paths: [...uiOnlyPaths, coreTensorflow], patterns: [layers] }],
      'no-restricted-globals': ['error', 'window', 'document', 'navigator', 'localStorage', 'HTMLElement'],
    },
  },
  {
    // Generic core code looks a task up by name (registry.ts) and imports none: a new task touches its own folder and registry.ts.
    files: ['src/core/**/*.ts'],
    ignores: [...taskFolders.map((folder) => `src/core/${folder}/**`), 'src/core/registry.ts', 'src/core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [...uiOnlyPaths, coreTensorflow],
        patterns: [layers, { group: taskFolders.flatMap((folder) => [`./${folder}/*`, `../${folder}/*`, `../../${folder}/*`]), message: 'Generic core code imports no task folder: look the task up in registry.ts.' }],
      }],
    },
  },
  {
    // Core's tests set up a backend as an entry point does.
    files: ['src/core/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: uiOnlyPaths, patterns: [layers] }] },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['src/cli/**/*.ts', 'src/worker/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/ui/**'], message: 'cli and worker never import ui.' }] }],
    },
  },
);
