import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { createHeartbeat } from '../../src/mailbox/operations/nodes.js';
import { listNodes } from '../../src/mailbox/operations/nodes.js';
import { inProcessInbox } from '../helpers/in-process.js';

/**
 * A node whose heartbeat cannot be written stops saying it is alive (its /readyz answers 503, so
 * a load balancer sends it nothing while the other nodes no longer see it), and says so again
 * once the heartbeat is written. The table is renamed away to make the writes fail: every other
 * write still works, which is the case the storage probe alone would not catch.
 */
describe("a node's heartbeat, as /readyz reads it", () => {
  let deps: MailboxDeps;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ deps, close } = await inProcessInbox('agent@mailroom.test', { nodeId: 'node-under-test' }));
  });
  afterAll(() => close?.());

  const until = async (condition: () => boolean | Promise<boolean>) => {
    await expect.poll(condition, { timeout: 20_000, interval: 20 }).toBe(true);
  };

  it('is not alive once its heartbeat has gone unwritten for the live window, and alive again after', async () => {
    const heartbeat = createHeartbeat(deps, { beatMs: 25, liveMs: 400 });
    heartbeat.start();
    try {
      await until(async () => (await listNodes(deps)).some((n) => n.id === 'node-under-test'));
      expect(heartbeat.alive()).toBe(true);

      await deps.store.db.rawRun('ALTER TABLE nodes RENAME TO nodes_away');
      await until(() => !heartbeat.alive());
      await deps.store.db.rawRun('ALTER TABLE nodes_away RENAME TO nodes');
      await until(() => heartbeat.alive());
      expect((await listNodes(deps)).map((n) => n.id)).toContain('node-under-test');
    } finally {
      await heartbeat.stop();
    }
    expect((await listNodes(deps)).map((n) => n.id)).not.toContain('node-under-test');
  });
});
