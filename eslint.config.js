import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      '.tmp/**',
      '.test-dist/**',
      'src/client/generated/**',
      'test/consumer/**', // another project: type-checked there by test/docs/package-consumer.test.ts
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The doors call mailbox verbs, never the store (ARCHITECTURE rule 9): its row types may be
    // named, nothing of it run. db/ (the engine: open, back up, copy a file) stays open to the CLI.
    files: ['src/{http,cli,smtp,dashboard,mcp,embed}/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/store/**', '**/store'],
              allowTypeImports: true,
              message: 'a door calls a mailbox verb (src/mailbox/), not the store',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportExpression[source.value=/(^|\\/)store(\\/|$)/]',
          message: 'a door calls a mailbox verb (src/mailbox/), not the store',
        },
        {
          selector: "MemberExpression[property.name='store']",
          message: 'a door calls a mailbox verb (src/mailbox/), not deps.store',
        },
      ],
    },
  },
  {
    // imap/ is an adapter (ARCHITECTURE rules 1, 2, 9): it talks IMAP and calls the verbs in
    // mailbox/sync/, which decide what to file and own every store call and transaction. Not
    // even a row type comes from store/: the verbs name the types they take and give.
    files: ['src/imap/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/store/**', '**/db/**'],
              message: 'imap/ reaches the store through the verbs in src/mailbox/sync/.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='store'], ObjectPattern > Property[key.name='store']",
          message: 'imap/ makes no store call: call a verb in src/mailbox/sync/.',
        },
      ],
    },
  },
  {
    // The dashboard's one client script runs in the browser, as written (no build step).
    files: ['assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
);
