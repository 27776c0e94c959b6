import { compiledSync } from './compiled.js';

/** vitest globalSetup: compiles the sources once, before any test file asks for them. */
export default function setup(): void {
  compiledSync('src/cli/main.ts');
}
