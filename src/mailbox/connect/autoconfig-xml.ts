import type { Element } from 'domhandler';
import { DomUtils, parseDocument } from 'htmlparser2';

/** One server of a Mozilla autoconfig document (the ISPDB format, config-v1.1.xml). */
export interface AutoconfigServer {
  host: string;
  port: number;
  security: 'tls' | 'starttls' | 'none';
  /** The login name with the document's placeholders filled in. */
  username: string;
  /** `oauth2` when the document offers only OAuth2 for this server. */
  auth: 'password' | 'oauth2';
}

const SOCKET: Record<string, AutoconfigServer['security']> = {
  SSL: 'tls',
  STARTTLS: 'starttls',
  plain: 'none',
};

/**
 * The first IMAP and SMTP servers a config-v1.1.xml document lists (the document's order is its
 * preference), or null for a side it does not describe. `%EMAILADDRESS%`, `%EMAILLOCALPART%` and
 * `%EMAILDOMAIN%` are filled in from the address.
 */
export function parseAutoconfig(
  xml: string,
  address: string,
): { imap: AutoconfigServer | null; smtp: AutoconfigServer | null } {
  const doc = parseDocument(xml, { xmlMode: true });
  const [local, domain] = address.split('@') as [string, string];
  const fill = (text: string) =>
    text
      .replaceAll('%EMAILADDRESS%', address)
      .replaceAll('%EMAILLOCALPART%', local)
      .replaceAll('%EMAILDOMAIN%', domain);
  const text = (server: Element, tag: string) => {
    const el = DomUtils.findOne((e) => e.name === tag, server.children, false);
    return el ? DomUtils.textContent(el).trim() : '';
  };
  const serverOf = (tag: string, type: string): AutoconfigServer | null => {
    const servers = DomUtils.findAll((e) => e.name === tag && e.attribs.type === type, doc.children);
    for (const server of servers) {
      const host = fill(text(server, 'hostname'));
      const port = Number(text(server, 'port'));
      const security = SOCKET[text(server, 'socketType')];
      if (!host || !Number.isInteger(port) || port <= 0 || port > 65535 || !security) continue;
      const methods = DomUtils.findAll((e) => e.name === 'authentication', server.children).map((e) =>
        DomUtils.textContent(e).trim().toLowerCase(),
      );
      const auth = methods.length > 0 && methods.every((m) => m === 'oauth2') ? 'oauth2' : 'password';
      return { host, port, security, username: fill(text(server, 'username') || '%EMAILADDRESS%'), auth };
    }
    return null;
  };
  return { imap: serverOf('incomingServer', 'imap'), smtp: serverOf('outgoingServer', 'smtp') };
}
