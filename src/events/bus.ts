import { EventEmitter } from 'node:events';
import type { EventRow } from '../store/events.js';

/**
 * In-process notice that events were committed. The database is the source of truth; the bus
 * only wakes the webhook dispatcher and live SSE streams sooner than their polling would.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(rows: EventRow[]): void {
    if (rows.length > 0) this.emitter.emit('events', rows);
  }

  subscribe(listener: (rows: EventRow[]) => void): () => void {
    this.emitter.on('events', listener);
    return () => this.emitter.off('events', listener);
  }
}
