import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settings } from '../../src/config.js';

const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('documents every MAILROOM_* setting with its default', () => {
    for (const setting of Object.values(settings)) {
      expect(readme, setting.env).toContain(`\`${setting.env}\``);
    }
  });

  it('gives the two commands a newcomer needs', () => {
    expect(readme).toContain('npm start');
    expect(readme).toContain('npm test');
  });
});
