// ESLint flat config: generic TypeScript rules over all sources, plus the
// rules that hold the daemon's layout (see the README's "Architecture").
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const sources = ['daemon/**/*.{ts,tsx}', 'tui/**/*.{ts,tsx}', 'proto/**/*.ts', 'test/**/*.{ts,tsx}', 'bench/**/*.{ts,tsx}'];
const program = ['daemon/**/*.{ts,tsx}', 'tui/**/*.{ts,tsx}', 'proto/**/*.ts'];

const lmdbOnlyInStore = {
  group: ['lmdb', 'lmdb/*'],
  message: 'Only daemon/store/ talks to LMDB; go through the Store.',
};
const fastifyOnlyInHttpAdapters = {
  group: ['fastify', '@fastify/*'],
  message: 'Fastify belongs to the HTTP adapters (daemon/api/, daemon/ping/) and the composition root.',
};

/** One no-restricted-imports setting per area: a later config object replaces the rule's options whole. */
function restrictedImports({ lmdb, fastify }) {
  return [
    'error',
    {
      patterns: [...(lmdb ? [lmdbOnlyInStore] : []), ...(fastify ? [fastifyOnlyInHttpAdapters] : [])],
    },
  ];
}

export default defineConfig(
  { ignores: ['dist/', 'coverage/', 'data/', '.bench-data/'] },
  {
    files: sources,
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      // A leading underscore marks a parameter or binding that is there for its position
      // (a callback's signature, a tuple being skipped), not one that was forgotten.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
      // Control characters in a regular expression are deliberate here: ids and badge
      // labels are checked for them, and the TUI tests strip terminal escape sequences.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests and benchmarks read JSON replies whose shape is what they assert; `any` there
    // stands for "whatever the daemon sent", where a declared type would only restate it.
    files: ['test/**/*.{ts,tsx}', 'bench/**/*.{ts,tsx}'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: program,
    plugins: { 'import-x': importX },
    settings: {
      // import-x reads a module's imports only for these extensions and parsers; without
      // them it cannot follow .ts files and no-cycle sees no graph.
      'import-x/extensions': ['.ts', '.tsx'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      // Type-only imports are erased at build time, so the rule does not count them.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './tui',
              from: './daemon',
              except: ['./domain'],
              message: 'checktop talks to the daemon over gRPC only; share code through daemon/domain/.',
            },
            {
              target: './proto',
              from: ['./daemon', './tui'],
              message: 'proto/ is what the daemon and checktop share: it depends on neither.',
            },
            {
              target: './daemon/domain',
              from: './daemon',
              except: ['./domain'],
              message: 'daemon/domain/ holds pure rules and depends on nothing else in the daemon.',
            },
          ],
        },
      ],
      'no-restricted-imports': restrictedImports({ lmdb: true, fastify: true }),
    },
  },
  {
    files: ['daemon/store/**/*.ts'],
    rules: { 'no-restricted-imports': restrictedImports({ lmdb: false, fastify: true }) },
  },
  {
    files: ['daemon/api/**/*.ts', 'daemon/ping/**/*.ts', 'daemon/daemon.ts'],
    rules: { 'no-restricted-imports': restrictedImports({ lmdb: true, fastify: false }) },
  },
  {
    // The Store's LMDB handle is the store's own; the rest of the daemon goes through its methods.
    files: ['daemon/**/*.ts'],
    ignores: ['daemon/store/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name="db"]',
          message: 'The LMDB handle (Store.db) is for daemon/store/ only; add a Store method instead.',
        },
      ],
    },
  },
);
