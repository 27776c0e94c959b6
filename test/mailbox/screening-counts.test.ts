import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { countScreening } from '../../src/mailbox/ingest/screening-outcomes.js';
import { storedMetrics } from '../../src/mailbox/operations/metrics.js';
import { inProcessInbox } from '../helpers/in-process.js';

describe('screening outcomes counted for /metrics', () => {
  let deps: MailboxDeps;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ deps, close } = await inProcessInbox('owner@mailroom.test'));
  });
  afterAll(async () => close());

  it('starts every outcome at zero and adds one per screened message', async () => {
    expect((await storedMetrics(deps)).screening).toEqual({
      rejected: 0,
      tempfail: 0,
      spam: 0,
      virus: 0,
      review: 0,
    });
    await Promise.all([countScreening(deps, 'virus'), countScreening(deps, 'virus')]);
    await countScreening(deps, 'review');
    expect((await storedMetrics(deps)).screening).toMatchObject({ virus: 2, review: 1, spam: 0 });
  });
});
