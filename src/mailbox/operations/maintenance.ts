/**
 * Whole-installation operations of the CLI that also read rows: restoring a backup (checked and
 * counted) and copying an installation to another database (its search index rebuilt from the
 * stored sources). Backup alone needs no rows: it is db/'s copy of an open SQLite file. Loaded
 * on demand: each pulls in an engine's whole stack.
 */
import type { Config } from '../../config.js';
import type { CopyProgress, CopyResult } from '../../db/copy/copy.js';
import type { MessageRow } from '../../store/messages.js';
import type { RestoreSummary } from '../../store/restore.js';

/** Replaces the data directory's database with the backup in `file` (store/restore.ts says what is checked). */
export async function restoreBackup(
  config: Config,
  file: string,
  options: { force: boolean },
): Promise<RestoreSummary> {
  const { restoreDatabase } = await import('../../store/restore.js');
  return restoreDatabase(config, file, options);
}

/** Copies a whole installation into an empty database, SQLite file or postgres:// URL either way. */
export async function copyInstallation(
  from: string,
  to: string,
  onProgress: (progress: CopyProgress) => void,
): Promise<CopyResult> {
  const [{ copyDatabase }, { searchFieldsOfStored }] = await Promise.all([
    import('../../db/copy/copy.js'),
    import('../../store/search-fields.js'),
  ]);
  return copyDatabase(from, to, {
    searchFields: (rows, target) => searchFieldsOfStored(target, rows as unknown as MessageRow[]),
    onProgress,
  });
}
