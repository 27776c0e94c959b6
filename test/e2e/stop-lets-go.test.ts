// Engines: SQLite only: a stop that leaves nothing writing to the data folder; on SQLite that folder holds the database too, the stricter case.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('stop', () => {
  // A test suite (or an operator's script) removes the data folder as soon as stop() resolves;
  // a thread still starting must not recreate the database there afterwards.
  it('leaves nothing running that writes to the data folder once it resolves', async () => {
    for (let round = 0; round < 3; round++) {
      const server = await startServer();
      await server.stop();
      await pause(1500);
      expect(fs.existsSync(server.dataDir)).toBe(false);
    }
  });
});
