import { nodeIdOf } from '../../config.js';
import type { AdminNodeView } from '../../contract/admin.js';
import { VERSION } from '../../version.js';
import type { Worker } from '../../worker.js';
import { intervalWorker } from '../../worker.js';
import type { MailboxDeps } from '../deps.js';

/** How often each node writes its heartbeat. */
export const HEARTBEAT_MS = 5_000;
/** A node not heard from for this long is not listed as live; nor is this node ready. */
export const NODE_LIVE_MS = 30_000;
/** Heartbeats older than this are removed (a node that died without saying so). */
const FORGET_NODE_MS = 24 * 60 * 60 * 1000;

/** The live nodes sharing the database, with the external inboxes each syncs (GET /admin/v1/nodes). */
export async function listNodes(deps: MailboxDeps): Promise<AdminNodeView[]> {
  const { store } = deps;
  const nodes = await store.nodes.live(NODE_LIVE_MS, FORGET_NODE_MS);
  const leases = await store.nodes.held('imap:');
  const addresses = new Map<number, string>();
  for (const lease of leases) {
    const id = Number(lease.name.slice('imap:'.length));
    const inbox = await store.inboxes.get(id);
    if (inbox) addresses.set(id, inbox.address);
  }
  return nodes.map((node) => ({
    id: node.id,
    version: node.version,
    startedAt: node.started_at,
    lastSeenAt: node.last_seen_at,
    holds: {
      imapInboxes: leases
        .filter((l) => l.node_id === node.id)
        .map((l) => addresses.get(Number(l.name.slice('imap:'.length))))
        .filter((a): a is string => a !== undefined)
        .sort(),
    },
  }));
}

export interface Heartbeat extends Worker {
  /** False once the heartbeat has not been written for NODE_LIVE_MS: /readyz fails. */
  alive(): boolean;
}

/**
 * This node's row in `nodes`, written every HEARTBEAT_MS while it runs and removed at stop (its
 * leases go with it, so another node takes its IMAP inboxes at once instead of after their lease).
 */
export function createHeartbeat(
  deps: MailboxDeps,
  timing: { beatMs: number; liveMs: number } = { beatMs: HEARTBEAT_MS, liveMs: NODE_LIVE_MS },
): Heartbeat {
  const id = nodeIdOf(deps.config);
  const startedAt = new Date().toISOString();
  let lastBeat = 0;
  const beats = intervalWorker(
    'heartbeat',
    timing.beatMs,
    async () => {
      await deps.store.nodes.beat(id, VERSION, startedAt);
      lastBeat = Date.now();
    },
    (err) => deps.log.warn({ err }, 'heartbeat could not be written'),
  );

  return {
    name: 'heartbeat',
    alive: () => Date.now() - lastBeat < timing.liveMs,
    start() {
      lastBeat = Date.now();
      beats.start();
    },
    async stop() {
      await beats.stop();
      await deps.store.nodes
        .remove(id)
        .catch((err: unknown) => deps.log.warn({ err }, 'heartbeat row could not be removed'));
    },
  };
}
