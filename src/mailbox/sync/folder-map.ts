import type { FolderRow } from '../../store/folders.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';

/** One folder of the remote server's LIST, as the map reads it (imapflow's ListResponse fits). */
export interface ListedFolder {
  path: string;
  delimiter: string;
  flags: Iterable<string>;
  specialUse?: string;
}

/** RFC 6154 roles onto the local standard folders; imapflow also guesses roles from common names. */
const ROLE_TO_LOCAL: Record<string, string> = {
  '\\Inbox': '\\Inbox',
  '\\Sent': '\\Sent',
  '\\Drafts': '\\Drafts',
  '\\Trash': '\\Trash',
  '\\Junk': '\\Junk',
};

/** Virtual views of mail kept elsewhere: syncing them would show every message twice. */
const VIRTUAL = new Set(['\\all', '\\flagged', '\\important']);

/**
 * The same views by name, for servers that do not flag them (Gmail over IMAP without
 * SPECIAL-USE, and servers that copy its layout): any "All Mail", and Starred or Important
 * under Gmail's own folder. A plain "Starred" elsewhere may be a real folder, so it syncs.
 */
function isVirtual(entry: ListedFolder, flags: string[]): boolean {
  if (flags.some((f) => VIRTUAL.has(f)) || (entry.specialUse && VIRTUAL.has(entry.specialUse.toLowerCase())))
    return true;
  const all = entry.path.split(entry.delimiter || '/').map((p) => p.toLowerCase());
  // Courier and Cyrus keep every folder under the INBOX namespace ("INBOX.[Gmail].Starred").
  const parts = all.length > 1 && all[0] === 'inbox' ? all.slice(1) : all;
  const leaf = parts.at(-1) ?? '';
  if (leaf === 'all mail') return true;
  const gmail = parts.length === 2 && /^\[(gmail|google mail)\]$/.test(parts[0]!);
  return gmail && (leaf === 'starred' || leaf === 'important');
}

/**
 * Ties the remote folders to local ones: special-use roles to INBOX, Sent, Drafts, Trash and
 * Spam; views of mail kept elsewhere skipped unless MAILROOM_IMAP_SYNC_ALL_MAIL; any other
 * selectable folder by its remote path, created locally on first sight.
 * Answers the local folders that have a remote counterpart, INBOX first.
 */
export function mapFolders(deps: MailboxDeps, inbox: InboxRow, remote: ListedFolder[]): Promise<FolderRow[]> {
  const { store } = deps;
  const mapped = new Map<number, FolderRow>();
  const claimed = new Set<string>();
  return store.db.transaction(async () => {
    const ordered = [...remote].sort((a, b) => Number(!a.specialUse) - Number(!b.specialUse));
    for (const entry of ordered) {
      const flags = [...entry.flags].map((f) => f.toLowerCase());
      if (flags.includes('\\noselect') || flags.includes('\\nonexistent')) continue;
      if (!deps.config.imapSyncAllMail && isVirtual(entry, flags)) continue;
      // Synced on request: a view is never one of the standard folders.
      const role = isVirtual(entry, flags) ? undefined : entry.specialUse && ROLE_TO_LOCAL[entry.specialUse];
      let local: FolderRow | undefined;
      if (role && !claimed.has(role)) {
        claimed.add(role);
        local = await store.folders.findBySpecialUse(inbox.id, role);
      } else {
        local = await store.folders.find(inbox.id, entry.path);
        if (local?.special_use) {
          deps.log.info(
            { account: inbox.address, folder: entry.path },
            'remote folder clashes with a standard one; skipped',
          );
          continue;
        }
        local ??= await store.folders.create(inbox.id, entry.path, { remotePath: entry.path });
      }
      if (!local) continue;
      if (local.remote_path !== entry.path) {
        await store.imapState.setFolderRemote(local.id, entry.path);
        local = (await store.folders.get(local.id))!;
      }
      mapped.set(local.id, local);
    }
    return [...mapped.values()].sort(
      (a, b) => Number(b.special_use === '\\Inbox') - Number(a.special_use === '\\Inbox'),
    );
  });
}
