import fs from 'node:fs';
import type { Command } from 'commander';
import { audited, withDeps } from './admin-context.js';
import { CliError } from './errors.js';
import type { DataDirOptions as Common } from './admin-context.js';
import { print, table } from './output.js';
import { fillPasswords, readNewPassword, readSecret } from './passwords.js';
import { publicUrlOf } from '../config.js';
import { PROVIDER_NAMES } from '../mailbox/connect/providers.js';

export const common = (cmd: Command) =>
  cmd
    .option('--json', 'machine-readable output')
    .option('--data-dir <dir>', 'data directory (MAILROOM_DATA_DIR)')
    .option(
      '--database-url <url>',
      'PostgreSQL database instead of the data directory (MAILROOM_DATABASE_URL)',
    )
    .option('--init', 'create the database if the data directory has none');

/** The URLs with their passwords filled in, or (no URLs) the password or refresh token alone. */
async function connectCredentials(o: {
  imap?: string;
  smtp?: string;
  passwordStdin?: boolean;
  refreshTokenStdin?: boolean;
}): Promise<{ imap?: string; smtp?: string; password?: string; refreshToken?: string }> {
  if (o.refreshTokenStdin) {
    const refreshToken = await readSecret('OAuth2 refresh token', '--refresh-token-stdin', true);
    return { ...(o.imap && o.smtp ? { imap: o.imap, smtp: o.smtp } : {}), refreshToken };
  }
  if (o.imap && o.smtp) return fillPasswords({ imap: o.imap, smtp: o.smtp }, !!o.passwordStdin);
  if (o.imap || o.smtp) throw new CliError('validation_error', 'give both --imap and --smtp, or neither');
  return { password: await readSecret('password', '--password-stdin', !!o.passwordStdin) };
}

export function registerAdminCommands(program: Command): void {
  const domain = program.command('domain').description('hosted domains');
  common(
    domain
      .command('add <domain>')
      .description('host a domain; generates its DKIM key and prints the DNS records'),
  ).action((name: string, o: Common) =>
    withDeps(
      o,
      audited('domain.create', async (deps, { addDomain, domainView }, audit) => {
        audit.target = name;
        const view = domainView(await addDomain(deps, name, audit), deps.config.hostname);
        print(!!o.json, { domain: view }, () =>
          [
            `domain ${view.name} added. Publish these DNS records:`,
            table(view.dnsRecords, ['type', 'name', 'value']),
            ...(deps.config.hostname === 'localhost'
              ? [
                  'Note: the MX record points at "localhost"; set MAILROOM_HOSTNAME to this server\'s public name.',
                ]
              : []),
          ].join('\n'),
        );
      }),
    ),
  );
  common(domain.command('list').description('list hosted domains')).action((o: Common) =>
    withDeps(o, async (deps, { domainView, listDomains }) => {
      const domains = (await listDomains(deps)).map((d) => domainView(d, deps.config.hostname));
      print(!!o.json, { domains }, () => table(domains, ['name', 'created_at']));
    }),
  );
  common(domain.command('remove <domain>').description('stop hosting a domain')).action(
    (name: string, o: Common) =>
      withDeps(
        o,
        audited('domain.remove', async (deps, { removeDomain }, audit) => {
          audit.target = name;
          await removeDomain(deps, name, audit);
          print(!!o.json, { deleted: true }, () => `domain ${name} removed`);
        }),
      ),
  );

  const user = program.command('user').description('users own inboxes, labels, webhooks and API keys');
  common(
    user
      .command('add <name>')
      .description('create a user')
      .option('--password', 'give it a dashboard password (asked for without echo)')
      .option('--password-stdin', 'read the dashboard password from standard input')
      .option('--admin', 'the user also sees the admin pages of the dashboard'),
  ).action(
    async (name: string, o: Common & { password?: boolean; passwordStdin?: boolean; admin?: boolean }) => {
      // Asked before the database is opened: a prompt must not hold it.
      const password =
        o.password || o.passwordStdin ? await readNewPassword(!!o.passwordStdin, name) : undefined;
      await withDeps(
        o,
        audited('user.create', async (deps, { addUser }, audit) => {
          audit.target = name;
          const row = await addUser(deps, name, { admin: !!o.admin, password }, audit);
          print(!!o.json, { user: row }, () =>
            [
              `user ${row.name} added (id ${row.id})${row.admin ? ', an admin' : ''}`,
              ...(password ? [`it signs in to the dashboard at ${publicUrlOf(deps.config)}/sign-in`] : []),
            ].join('\n'),
          );
        }),
      );
    },
  );
  common(
    user
      .command('passwd <name>')
      .description("set a user's dashboard password (its open sessions end)")
      .option('--password-stdin', 'read the password from standard input'),
  ).action(async (name: string, o: Common & { passwordStdin?: boolean }) => {
    const password = await readNewPassword(!!o.passwordStdin, name);
    const { setUserPassword } = await import('../mailbox/operations/sign-in.js');
    await withDeps(
      o,
      audited('user.password', async (deps, _admin, audit) => {
        audit.target = name;
        const row = await setUserPassword(deps, name, password);
        print(!!o.json, { user: row }, () => `password of ${row.name} set`);
      }),
    );
  });
  common(user.command('list').description('list users')).action((o: Common) =>
    withDeps(o, async (deps, { listUsers }) => {
      const users = await listUsers(deps);
      print(!!o.json, { users }, () => table(users, ['id', 'name', 'admin', 'created_at']));
    }),
  );
  common(user.command('remove <name>').description('remove a user and everything it owns')).action(
    (name: string, o: Common) =>
      withDeps(
        o,
        audited('user.remove', async (deps, { removeUser }, audit) => {
          audit.target = name;
          await removeUser(deps, name, audit);
          print(!!o.json, { deleted: true }, () => `user ${name} removed`);
        }),
      ),
  );

  const key = program.command('key').description('API keys');
  common(
    key
      .command('create')
      .description('create an API key; it is printed once')
      .requiredOption('--user <name>', 'owner')
      .option('--name <label>', 'a label for the key')
      .option('--inboxes <addresses>', "the user's inboxes it reaches, comma-separated (default: all)")
      .option(
        '--permissions <names>',
        'read, organise, send, manage, approve, comma-separated (default: all but approve)',
      ),
  ).action((o: Common & { user: string; name?: string; inboxes?: string; permissions?: string }) =>
    withDeps(
      o,
      audited('key.create', async (deps, { createKey, keyView, parseKeyPermissions }, audit) => {
        const created = await createKey(
          deps,
          o.user,
          {
            name: o.name ?? '',
            ...(o.inboxes !== undefined ? { inboxes: o.inboxes.split(',') } : {}),
            ...(o.permissions !== undefined
              ? { permissions: parseKeyPermissions(o.permissions.split(',')) }
              : {}),
          },
          audit,
        );
        print(!!o.json, { key: { ...(await keyView(deps, created.row)), key: created.key } }, () =>
          [`API key for ${created.user.name} (id ${created.row.id}), shown only now:`, created.key].join(
            '\n',
          ),
        );
      }),
    ),
  );
  common(
    key
      .command('list')
      .description('list API keys (never the key itself)')
      .option('--user <name>', 'only this user'),
  ).action((o: Common & { user?: string }) =>
    withDeps(o, async (deps, { listKeys, requireUser }) => {
      const userId = o.user !== undefined ? (await requireUser(deps, o.user)).id : undefined;
      const keys = await listKeys(deps, userId);
      print(!!o.json, { keys }, () =>
        table(keys, ['id', 'name', 'prefix', 'user', 'created_at', 'last_used_at', 'revoked_at']),
      );
    }),
  );
  common(key.command('revoke <id>').description('revoke an API key')).action((id: string, o: Common) =>
    withDeps(
      o,
      audited('key.revoke', async (deps, { revokeKey }, audit) => {
        await revokeKey(deps, id, undefined, audit);
        print(!!o.json, { revoked: true }, () => `key ${id} revoked`);
      }),
    ),
  );

  const inbox = program.command('inbox').description('inboxes');
  common(
    inbox
      .command('add <address>')
      .description('an inbox on a hosted domain')
      .requiredOption('--user <name>', 'owner')
      .option('--display-name <name>', 'display name'),
  ).action((address: string, o: Common & { user: string; displayName?: string }) =>
    withDeps(
      o,
      audited('inbox.create', async (deps, { addLocalInbox, inboxView }, audit) => {
        audit.account = address.trim().toLowerCase();
        const view = await inboxView(
          deps,
          await addLocalInbox(deps, address, o.user, o.displayName ?? '', audit),
        );
        print(!!o.json, { inbox: view }, () => `inbox ${view.address} added for ${view.user}`);
      }),
    ),
  );
  common(
    inbox
      .command('connect <address>')
      .description(
        'an external mailbox, synced over IMAP: by URLs, by --provider, or found from the address alone; the login is tried at once',
      )
      .requiredOption('--user <name>', 'owner')
      .option('--imap <url>', 'imaps://user@host:993 (or imap:// without TLS); the password is asked for')
      .option('--smtp <url>', 'smtps://user@host:465, or smtp://... with STARTTLS')
      .option('--provider <name>', `servers from a preset: ${PROVIDER_NAMES.join(', ')}`)
      .option(
        '--password-stdin',
        'read the password from standard input (with URLs: a second line for SMTP, when it differs)',
      )
      .option(
        '--refresh-token-stdin',
        "log in with OAuth2: read the provider's refresh token from standard input (needs --provider)",
      )
      .option('--display-name <name>', 'display name')
      .option(
        '--imap-ca <file>',
        "PEM file of the CA to trust for the IMAP server (a self-signed one's own certificate)",
      )
      .option('--smtp-ca <file>', 'PEM file of the CA to trust for the SMTP server')
      .option('--insecure-tls', "do not check the servers' certificates at all (shown as certificates: off)"),
  ).action(
    async (
      address: string,
      o: Common & {
        user: string;
        imap?: string;
        smtp?: string;
        provider?: string;
        displayName?: string;
        passwordStdin?: boolean;
        refreshTokenStdin?: boolean;
        imapCa?: string;
        smtpCa?: string;
        insecureTls?: boolean;
      },
    ) => {
      // Loaded only here, so the other admin commands start without the IMAP stack. Never
      // started: it verifies the servers; the server's own sync picks the inbox up.
      const { ImapSyncManager } = await import('../imap/sync-manager.js');
      const result = await withDeps(
        o,
        audited('inbox.connect', async (deps, { connectInbox, inboxView }, audit) => {
          audit.account = address.trim().toLowerCase();
          const credentials = await connectCredentials(o);
          const input = {
            address,
            user: o.user,
            by: 'operator' as const,
            displayName: o.displayName ?? '',
            ...credentials,
            ...(o.provider ? { provider: o.provider } : {}),
            imapTls: trustFrom(o.imapCa, o.insecureTls, '--imap-ca'),
            smtpTls: trustFrom(o.smtpCa, o.insecureTls, '--smtp-ca'),
          };
          const { inbox, servers } = await connectInbox(deps, input, audit);
          return { inbox: await inboxView(deps, inbox), servers };
        }),
        (deps) => new ImapSyncManager(deps),
      );
      print(!!o.json, result, () =>
        [
          `inbox ${result.inbox.address} connected for ${result.inbox.user}; sync starts now`,
          `servers: IMAP ${result.servers.imap}, SMTP ${result.servers.smtp} (${result.servers.auth}), from ${result.servers.source}`,
        ].join('\n'),
      );
    },
  );
  common(inbox.command('list').description('list inboxes').option('--user <name>', 'only this user')).action(
    (o: Common & { user?: string }) =>
      withDeps(o, async (deps, { inboxView, listInboxes }) => {
        const inboxes = await Promise.all((await listInboxes(deps, o.user)).map((i) => inboxView(deps, i)));
        print(!!o.json, { inboxes }, () =>
          table(inboxes, ['address', 'kind', 'user', 'displayName', 'created_at']),
        );
      }),
  );
  common(inbox.command('remove <address>').description('remove an inbox and all its mail')).action(
    (address: string, o: Common) =>
      withDeps(
        o,
        audited('inbox.remove', async (deps, { removeInbox }, audit) => {
          audit.account = address.trim().toLowerCase();
          await removeInbox(deps, address, undefined, audit);
          print(!!o.json, { deleted: true }, () => `inbox ${address} removed`);
        }),
      ),
  );
  common(
    program.command('nodes').description('live nodes sharing the database, and the IMAP inboxes each syncs'),
  ).action((o: Common) =>
    withDeps(o, async (deps) => {
      const { listNodes } = await import('../mailbox/operations/nodes.js');
      const nodes = await listNodes(deps);
      const rows = nodes.map((n) => ({ ...n, imapInboxes: n.holds.imapInboxes.join(', ') }));
      print(!!o.json, { nodes }, () =>
        table(rows, ['id', 'version', 'startedAt', 'lastSeenAt', 'imapInboxes']),
      );
    }),
  );
}

/** A mailbox's TLS trust from the connect flags: a CA file read here, or --insecure-tls. */
function trustFrom(caFile: string | undefined, insecure: boolean | undefined, flag: string) {
  if (caFile === undefined) return insecure ? { insecure: true } : undefined;
  try {
    return { ca: fs.readFileSync(caFile, 'utf8'), ...(insecure ? { insecure: true } : {}) };
  } catch (error) {
    throw new CliError(
      'usage',
      `${flag} ${caFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}
