import type { ListEntryRow } from '../../store/address-lists.js';
import { lookupKeys } from './entries.js';

/** What the lists say of an address: let through, on a block list, or outside a non-empty allow list. */
export type ListVerdict = 'allowed' | 'blocked' | 'not_allowed';

/**
 * The contract's matching order (14), first decision wins: the inbox's entries, then the user's;
 * within each, the address, then its domains, the most specific first; block over allow at the
 * same place. No entry matching, a non-empty allow list (inbox or user) makes it `not_allowed`.
 * `entries` are those of one direction for this inbox and its user (AddressListStore.forInbox).
 */
export function verdictOf(entries: ListEntryRow[], inboxId: number, address: string): ListVerdict {
  const { addresses, domains } = lookupKeys(address);
  const keys = [...addresses, ...domains];
  for (const scope of [inboxId, null]) {
    const here = entries.filter((e) => e.inbox_id === scope);
    for (const key of keys) {
      const at = here.filter((e) => e.entry === key);
      if (at.some((e) => e.type === 'block')) return 'blocked';
      if (at.length > 0) return 'allowed';
    }
  }
  return entries.some((e) => e.type === 'allow') ? 'not_allowed' : 'allowed';
}
