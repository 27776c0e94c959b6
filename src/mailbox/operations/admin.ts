import type { z } from '@hono/zod-openapi';
import type { AdminDomain } from '../../contract/admin.js';
import { DKIM_KEY_RULE, dkimKeyPairOf, newDkimKeyPair } from '../../mail/dkim-key.js';
import type { MailboxDeps } from '../deps.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordInTransaction } from '../audit/audit-context.js';
import { Conflict, MailroomError, NotFound, ValidationFailed } from '../errors.js';
import { isValidAddress } from '../../mail/addresses.js';
import { nowIso } from '../../store/ids.js';
import type { DomainRow } from '../../store/domains.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { UserRow } from '../../store/users.js';
import type { ApiKeyRow } from '../../store/api-keys.js';
import { sealJson } from '../../store/sealing.js';
import type { RemoteConfig, TlsTrust } from '../remote.js';
import { checkTls } from '../remote-trust.js';
import { requireInbox } from '../access.js';
import type { Permission } from '../caller.js';
import { DEFAULT_KEY_PERMISSIONS, PERMISSIONS, ownerCaller, permissionsOf } from '../caller.js';
import { checkPassword, hashPassword } from './passwords.js';
import { refusePrivateServers } from '../connect/private-servers.js';
import type { ServerChoice, ServersView } from '../connect/servers.js';
import { resolveServers } from '../connect/servers.js';

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/;
const USER_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export type DnsRecord = z.infer<typeof AdminDomain>['dnsRecords'][number];

export function dnsRecordsFor(domain: DomainRow, mailHost: string): DnsRecord[] {
  const publicKey = domain.dkim_public_key
    .replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '')
    .replace(/\s+/g, '');
  return [
    { type: 'MX', name: domain.name, value: `10 ${mailHost}` },
    { type: 'TXT', name: domain.name, value: 'v=spf1 mx -all' },
    {
      type: 'TXT',
      name: `${domain.dkim_selector}._domainkey.${domain.name}`,
      value: `v=DKIM1; k=rsa; p=${publicKey}`,
    },
    {
      type: 'TXT',
      name: `_dmarc.${domain.name}`,
      value: `v=DMARC1; p=quarantine; rua=mailto:postmaster@${domain.name}`,
    },
  ];
}

export function domainView(domain: DomainRow, mailHost: string) {
  return { name: domain.name, dnsRecords: dnsRecordsFor(domain, mailHost), created_at: domain.created_at };
}

/** A domain's DKIM key given instead of a new one (MAILROOM_DKIM_KEY for the bootstrap's domain). */
export interface GivenDkim {
  /** RSA private key, PEM; checked by the setting that carries it (dkimKeyPairOf). */
  privateKey?: string;
  selector?: string;
}

export async function addDomain(
  deps: MailboxDeps,
  name: string,
  audit?: AuditContext,
  given: GivenDkim = {},
): Promise<DomainRow> {
  const domain = name.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN_RE.test(domain))
    throw ValidationFailed.field('domain', `${JSON.stringify(name)} is not a domain name`);
  if (await deps.store.domains.find(domain)) throw new Conflict(`domain ${domain} already exists`);
  const keys = given.privateKey === undefined ? await newDkimKeyPair() : dkimKeyPairOf(given.privateKey);
  if (!keys) throw ValidationFailed.field('dkimKey', DKIM_KEY_RULE);
  const { privateKey, publicKey } = keys;
  const selector = given.selector ?? `mr${new Date().toISOString().slice(0, 7).replace('-', '')}`;
  const row: DomainRow = {
    name: domain,
    dkim_selector: selector,
    dkim_public_key: publicKey,
    created_at: nowIso(),
  };
  await deps.store.db.transaction(async () => {
    await deps.store.domains.create({ ...row, dkim_private_key: privateKey });
    await recordInTransaction(deps, audit, { target: domain });
  });
  return row;
}

export async function removeDomain(deps: MailboxDeps, name: string, audit?: AuditContext): Promise<void> {
  const domain = name.trim().toLowerCase();
  const inboxes = await deps.store.inboxes.list();
  const inUse = inboxes.some((i) => i.kind === 'local' && i.address.endsWith(`@${domain}`));
  if (inUse) throw new Conflict(`domain ${domain} still has inboxes; remove them first`);
  await deps.store.db.transaction(async () => {
    if (!(await deps.store.domains.remove(domain))) throw new NotFound(`no domain ${domain}`);
    await recordInTransaction(deps, audit, { target: domain });
  });
}

/** A user; with `password` it can sign in to the dashboard, with `admin` it also sees the admin pages. */
export async function addUser(
  deps: MailboxDeps,
  name: string,
  options: { admin?: boolean; password?: string } = {},
  audit?: AuditContext,
): Promise<UserRow> {
  if (!USER_RE.test(name)) {
    throw ValidationFailed.field(
      'name',
      'user name must be 1-64 letters, digits, dots, dashes or underscores',
    );
  }
  const passwordHash =
    options.password !== undefined ? await hashPassword(checkPassword(options.password)) : undefined;
  if (await deps.store.users.find(name)) throw new Conflict(`user ${name} already exists`);
  return deps.store.db.transaction(async () => {
    const user = await deps.store.users.create(name, {
      admin: options.admin ?? false,
      ...(passwordHash ? { passwordHash } : {}),
    });
    await recordInTransaction(deps, audit, { target: user.name });
    return user;
  });
}

export async function requireUser(deps: MailboxDeps, idOrName: string | number): Promise<UserRow> {
  const user = await deps.store.users.find(idOrName);
  if (!user) throw new NotFound(`no user ${JSON.stringify(String(idOrName))}`);
  return user;
}

export async function removeUser(
  deps: MailboxDeps,
  idOrName: string | number,
  audit?: AuditContext,
): Promise<void> {
  const user = await requireUser(deps, idOrName);
  await deps.store.db.transaction(async () => {
    await deps.store.users.remove(user.id);
    await recordInTransaction(deps, audit, { target: user.name });
  });
}

/** What a new key is: its label and reach (contract 14), and the key itself when given. */
export interface NewKey {
  name?: string;
  /** Addresses of the user's inboxes; null or left out: all of them. */
  inboxes?: string[] | null;
  /** Left out: all but approve. */
  permissions?: Permission[];
  /** The key itself (the bootstrap's MAILROOM_BOOTSTRAP_KEY); random when left out. */
  given?: string;
}

/** A new key for the user, reaching the inboxes and holding the permissions asked for. */
export async function createKey(
  deps: MailboxDeps,
  userIdOrName: string | number,
  options: NewKey = {},
  audit?: AuditContext,
): Promise<{ row: ApiKeyRow; key: string; user: UserRow }> {
  const user = await requireUser(deps, userIdOrName);
  if (audit) audit.userId = user.id;
  const reach = {
    inboxes: options.inboxes ? await inboxesOfUser(deps, user, options.inboxes) : null,
    permissions: PERMISSIONS.filter((p) => (options.permissions ?? DEFAULT_KEY_PERMISSIONS).includes(p)),
  };
  if (reach.permissions.length === 0)
    throw ValidationFailed.field('permissions', 'name at least one permission');
  return deps.store.db.transaction(async () => {
    const created = await deps.store.apiKeys.create(user.id, options.name ?? '', reach, options.given);
    await recordInTransaction(deps, audit, { target: created.row.id });
    return { ...created, user };
  });
}

/** Permission names as a person typed them (the CLI), each checked: 400 naming one this server does not know. */
export function parseKeyPermissions(names: string[]): Permission[] {
  const asked = names.map((n) => n.trim().toLowerCase()).filter((n) => n !== '');
  const unknown = asked.find((n) => !(PERMISSIONS as readonly string[]).includes(n));
  if (unknown !== undefined)
    throw ValidationFailed.field(
      'permissions',
      `no permission ${JSON.stringify(unknown)}; permissions are ${PERMISSIONS.join(', ')}`,
    );
  return asked as Permission[];
}

/** The addresses, lower-case and once each; every one must be an inbox of `user` (400 naming it otherwise). */
async function inboxesOfUser(deps: MailboxDeps, user: UserRow, addresses: string[]): Promise<string[]> {
  const own = new Set((await deps.store.inboxes.list(user.id)).map((inbox) => inbox.address.toLowerCase()));
  const wanted = [...new Set(addresses.map((a) => a.trim().toLowerCase()))];
  if (wanted.length === 0)
    throw ValidationFailed.field('inboxes', 'name at least one inbox, or null for all of them');
  const problems = addresses.flatMap((given, i) => {
    const address = given.trim().toLowerCase();
    return own.has(address)
      ? []
      : [{ path: `inboxes.${i}`, message: `${address} is not an inbox of ${user.name}` }];
  });
  if (problems.length > 0) throw new ValidationFailed(problems.map((p) => p.message).join('; '), problems);
  return wanted;
}

/** Revokes a key; with `ownerId`, only one of that user's keys (another's is not found alike). */
export async function revokeKey(
  deps: MailboxDeps,
  id: string,
  ownerId?: number,
  audit?: AuditContext,
): Promise<void> {
  if (ownerId !== undefined) {
    const own = (await deps.store.apiKeys.list(ownerId)).some((k) => k.id === id && !k.revoked_at);
    if (!own) throw new NotFound(`no active key ${id}`);
  }
  if (audit && audit.userId === null) audit.userId = (await deps.store.apiKeys.active(id))?.user_id ?? null;
  await deps.store.db.transaction(async () => {
    if (!(await deps.store.apiKeys.revoke(id))) throw new NotFound(`no active key ${id}`);
    await recordInTransaction(deps, audit, { target: id });
  });
}

/** The keys of one user (or of all), as the admin API and the dashboard list them. */
export async function listKeys(deps: MailboxDeps, userId?: number) {
  const rows = await deps.store.apiKeys.list(userId);
  return Promise.all(rows.map((k) => keyView(deps, k)));
}

export async function addLocalInbox(
  deps: MailboxDeps,
  address: string,
  userIdOrName: string | number,
  displayName = '',
  audit?: AuditContext,
): Promise<InboxRow> {
  const user = await requireUser(deps, userIdOrName);
  const normalized = address.trim().toLowerCase();
  if (!isValidAddress(normalized))
    throw ValidationFailed.field('address', `${JSON.stringify(address)} is not an email address`);
  if (normalized.split('@')[0]!.includes('+')) {
    throw ValidationFailed.field('address', 'an inbox address cannot contain "+" (it is used for tags)');
  }
  const domain = normalized.split('@')[1]!;
  if (!(await deps.store.domains.find(domain))) {
    throw ValidationFailed.field(
      'address',
      `domain ${domain} is not hosted here; add it with "mailroom domain add ${domain}"`,
    );
  }
  if (await deps.store.inboxes.findByAddress(normalized))
    throw new Conflict(`inbox ${normalized} already exists`);
  return deps.store.db.transaction(async () => {
    const inbox = await deps.store.inboxes.create({
      address: normalized,
      userId: user.id,
      kind: 'local',
      displayName,
    });
    await recordInTransaction(deps, audit, { account: normalized });
    return inbox;
  });
}

/** Removes an inbox and its mail; with `ownerId`, only one of that user's (403 otherwise, as `account` is). */
export async function removeInbox(
  deps: MailboxDeps,
  address: string,
  ownerId?: number,
  audit?: AuditContext,
): Promise<void> {
  const inbox =
    ownerId !== undefined
      ? await requireInbox(deps, ownerCaller(ownerId), address)
      : await deps.store.inboxes.findByAddress(address);
  if (!inbox) throw new NotFound(`no inbox ${address}`);
  await deps.store.db.transaction(async () => {
    await deps.store.inboxes.remove(inbox.id);
    await recordInTransaction(deps, audit, { account: inbox.address });
  });
  if (inbox.kind === 'imap') deps.remote.inboxesChanged();
}

export interface ConnectInput extends ServerChoice {
  address: string;
  /** Put into `imap` when it names a user without a password (a form's separate field). */
  imapPassword?: string;
  /** Put into `smtp` likewise; the IMAP password when not given. */
  smtpPassword?: string;
  user: string | number;
  /**
   * Who connects: an operator (admin API, CLI) may name any server; a user (the dashboard) only
   * servers on public addresses, unless MAILROOM_CONNECT_ALLOW_PRIVATE (connect/private-servers.ts).
   */
  by: 'operator' | 'user';
  displayName?: string;
  imapTls?: TlsTrust;
  smtpTls?: TlsTrust;
}

/**
 * An external mailbox (contract 9): its servers from the URLs, a provider preset or
 * autodiscovery (resolveServers), the IMAP login and the SMTP greeting tried at once (a wrong
 * password or an unreachable host is an error here, not later), and the settings, passwords or
 * OAuth2 refresh token included, stored sealed with MAILROOM_SECRET. The sync starts right after.
 * A user's servers must be public (refused before anything is tried, and at every connection).
 * Answers the inbox and what was chosen (`servers`: where they came from, never a password).
 */
export async function connectInbox(
  deps: MailboxDeps,
  input: ConnectInput,
  audit?: AuditContext,
): Promise<{ inbox: InboxRow; servers: ServersView }> {
  const user = await requireUser(deps, input.user);
  const normalized = input.address.trim().toLowerCase();
  if (!isValidAddress(normalized))
    throw ValidationFailed.field('address', `${JSON.stringify(input.address)} is not an email address`);
  if (await deps.store.domains.find(normalized.split('@')[1]!)) {
    throw ValidationFailed.field('address', 'this domain is hosted here; use "inbox add" for its inboxes');
  }
  if (await deps.store.inboxes.findByAddress(normalized))
    throw new Conflict(`inbox ${normalized} already exists`);
  const lookups = deps.lookups;
  const staysPublic = input.by === 'user' && !deps.config.connectAllowPrivate;
  const servers = await resolveServers(
    deps.config,
    lookups,
    normalized,
    {
      ...input,
      ...(input.imap !== undefined ? { imap: withPassword(input.imap, input.imapPassword) } : {}),
      ...(input.smtp !== undefined
        ? { smtp: withPassword(input.smtp, input.smtpPassword || input.imapPassword) }
        : {}),
    },
    staysPublic ? lookups.resolve : undefined,
  );
  const config: RemoteConfig = {
    imap: checkUrl('imap', servers.imap, ['imap:', 'imaps:'], servers.oauth2 ? 'user' : 'password'),
    smtp: checkUrl('smtp', servers.smtp, ['smtp:', 'smtps:'], 'none'),
    ...checkTls('imap', input.imapTls),
    ...checkTls('smtp', input.smtpTls),
    ...(servers.oauth2 ? { oauth2: servers.oauth2 } : {}),
    ...(input.by === 'user' ? { publicOnly: true as const } : {}),
  };
  if (staysPublic) await refusePrivateServers(config, lookups.resolve);
  if (!deps.config.secret) throw new Error('MAILROOM_SECRET is not loaded');
  try {
    await deps.remote.verify(config);
  } catch (error) {
    // Servers the caller did not name: say where they came from, so a wrong guess is plain.
    if (error instanceof MailroomError && !input.imap)
      error.message = `${error.message} (IMAP ${servers.view.imap}, SMTP ${servers.view.smtp}, from ${servers.view.source})`;
    throw error;
  }
  if (await deps.store.inboxes.findByAddress(normalized))
    throw new Conflict(`inbox ${normalized} already exists`);
  const inbox = await deps.store.db.transaction(async () => {
    const row = await deps.store.inboxes.create({
      address: normalized,
      userId: user.id,
      kind: 'imap',
      displayName: input.displayName ?? '',
      remoteConfig: sealJson(deps.config.secret!, config),
    });
    await deps.store.inboxes.setSyncState(row.id, { sync_state: 'connecting' });
    await recordInTransaction(deps, audit, { account: normalized });
    return (await deps.store.inboxes.get(row.id))!;
  });
  deps.remote.inboxesChanged();
  return { inbox, servers: servers.view };
}

/** `url` with `password` in it when it names a user and carries none; else `url` as given. */
function withPassword(url: string, password: string | undefined): string {
  if (!password || !URL.canParse(url.trim())) return url;
  const parsed = new URL(url.trim());
  if (!parsed.username || parsed.password) return url;
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

export async function listDomains(deps: MailboxDeps): Promise<DomainRow[]> {
  return deps.store.domains.list();
}

export async function listUsers(deps: MailboxDeps): Promise<UserRow[]> {
  return deps.store.users.list();
}

/** The inboxes of the user named or numbered `user` (404 when none is), or every inbox. */
export async function listInboxes(deps: MailboxDeps, user?: string): Promise<InboxRow[]> {
  const userId = user !== undefined ? (await requireUser(deps, user)).id : undefined;
  return deps.store.inboxes.list(userId);
}

/** The names of the hosted domains, for choosing an inbox's address. */
export async function hostedDomainNames(deps: MailboxDeps): Promise<string[]> {
  return (await deps.store.domains.list()).map((d) => d.name);
}

function checkUrl(
  field: string,
  value: string,
  protocols: string[],
  needs: 'password' | 'user' | 'none',
): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw ValidationFailed.field(field, `${field} must be a URL like ${protocols[1]}//user:password@host`);
  }
  if (!protocols.includes(url.protocol)) {
    throw ValidationFailed.field(
      field,
      `${field} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    );
  }
  if (!url.hostname) throw ValidationFailed.field(field, `${field} needs a host`);
  if (needs === 'user' && !url.username)
    throw ValidationFailed.field(field, `${field} needs the user name: ${protocols[1]}//user@host`);
  if (needs === 'password' && (!url.username || !url.password)) {
    throw ValidationFailed.field(
      field,
      `${field} needs the user and password: ${protocols[1]}//user:password@host`,
    );
  }
  return url.toString();
}

export async function inboxView(deps: MailboxDeps, inbox: InboxRow) {
  const user = await deps.store.users.find(inbox.user_id);
  return {
    address: inbox.address,
    kind: inbox.kind,
    user: user?.name ?? null,
    displayName: inbox.display_name,
    created_at: inbox.created_at,
  };
}

export async function keyView(deps: MailboxDeps, row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    user: (await deps.store.users.find(row.user_id))?.name ?? null,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    inboxes: row.inboxes,
    permissions: permissionsOf(row),
  };
}
