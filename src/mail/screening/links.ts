import type { Link } from './html-reading.js';

/**
 * A host in a link's text: a URL, `www.` something, or a name under a common top-level domain.
 * File names that look like hosts (README.md, setup.py) are not taken for one.
 */
const HOST_IN_TEXT =
  /(?<![@\w.-])(?:https?:\/\/)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24}))(?![\w-]|\.[a-z0-9])/gi;
const GENERIC_TLDS = new Set(
  'com org net edu gov info biz io co app dev ai me tv shop store online site tech cloud email news blog xyz eu'.split(
    ' ',
  ),
);
const FILE_EXTENSIONS = new Set(
  'md py sh rs ts js pl rb cs ps db gz bz xz zip pdf txt doc png jpg gif csv json'.split(' '),
);
/** Second-level names under a country code (example.co.uk): the registrable name has three labels. */
const SECOND_LEVEL = new Set('co com net org gov ac edu ne or go gob nic'.split(' '));

/**
 * Click trackers of mail services: a newsletter's links go through them whatever their text says,
 * so a link there does not count as naming another host.
 */
const TRACKERS = [
  'list-manage.com',
  'mailchimp.com',
  'mcusercontent.com',
  'sendgrid.net',
  'mandrillapp.com',
  'mailgun.org',
  'hubspotlinks.com',
  'hubspotemail.net',
  'hs-sites.com',
  'exct.net',
  'exacttarget.com',
  'sailthru.com',
  'klaviyo.com',
  'klclick.com',
  'klclick1.com',
  'convertkit-mail.com',
  'convertkit-mail2.com',
  'ck.page',
  'substack.com',
  'mlsend.com',
  'mailerlite.com',
  'sendibt2.com',
  'sendibt3.com',
  'brevo.com',
  'awstrack.me',
  'rs6.net',
  'createsend.com',
  'createsend1.com',
  'cmail19.com',
  'cmail20.com',
  'safelinks.protection.outlook.com',
  'urldefense.com',
  'urldefense.proofpoint.com',
  'mimecast.com',
  'google.com',
  'mailjet.com',
  'mjt.lu',
  'emltrk.com',
  'postmarkapp.com',
  'pstmrk.it',
  'sparkpostmail.com',
  'beehiiv.com',
  'mail.beehiiv.com',
];

function isHost(name: string, tld: string): boolean {
  const top = tld.toLowerCase();
  if (GENERIC_TLDS.has(top)) return true;
  return (
    top.length === 2 &&
    !FILE_EXTENSIONS.has(top) &&
    (name.toLowerCase().startsWith('www.') || name.split('.').length >= 2)
  );
}

/** example.co.uk for www.shop.example.co.uk; example.com for mail.example.com. */
export function registrableDomain(host: string): string {
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  const take = labels.length >= 3 && labels.at(-1)!.length === 2 && SECOND_LEVEL.has(labels.at(-2)!) ? 3 : 2;
  return labels.slice(-take).join('.');
}

function hostOf(href: string): string | null {
  try {
    const url = new URL(href.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}

const isTracker = (host: string): boolean => TRACKERS.some((t) => host === t || host.endsWith(`.${t}`));

/** Link text past this is not read for hosts: one that names a host is short. */
const LINK_TEXT_READ = 300;

/** The hosts a link's visible text names. */
export function hostsInText(text: string): string[] {
  const hosts: string[] = [];
  for (const match of text.slice(0, LINK_TEXT_READ).matchAll(HOST_IN_TEXT))
    if (isHost(match[1]!, match[2]!)) hosts.push(match[1]!.toLowerCase());
  return hosts;
}

/** Links whose text names a host and whose target is on none of the hosts it names. */
export function mismatchedLinks(links: readonly Link[]): Link[] {
  return links.filter((link) => {
    const target = hostOf(link.href);
    if (!target || isTracker(target)) return false;
    const named = hostsInText(link.text);
    if (named.length === 0) return false;
    const domain = registrableDomain(target);
    return !named.some((host) => registrableDomain(host) === domain);
  });
}
