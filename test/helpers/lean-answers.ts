import crypto from 'node:crypto';

/** One API answer: what was asked, the status, and the body (JSON parsed; other bodies by SHA-256). */
export interface Answer {
  url: string;
  status: number;
  contentType: string | null;
  disposition: string | null;
  json?: unknown;
  bytes?: { length: number; sha256: string };
}

/** The secret the fixture's DKIM key is sealed with (test data only; the test starts its server with it). */
export const BEFORE_LEAN_SECRET = 'before-lean-fixture-secret-0123456789abcdef';

const INBOXES = ['agent@mailroom.test', 'ops@mailroom.test', 'sales@mailroom.test', 'dev@mailroom.test'];
const FOLDERS = ['INBOX', 'Sent', 'Drafts', 'Trash'];
const SEARCHES = [
  'invoice',
  'meeting',
  'budget rep',
  'Grüße',
  'straße',
  '会議',
  'отчёт',
  'export',
  'plain words',
];

/**
 * Every answer a user of these inboxes can get about their mail: folders, each folder's list
 * (and its pages), every email read whole, its source and each attachment (by SHA-256), searches
 * in several languages, threads. Recorded before an upgrade and again after it, they must match.
 */
export async function recordAnswers(base: string, apiKey: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  const get = async (url: string): Promise<Answer> => {
    const res = await fetch(`${base}/api/v1${url}`, { headers: { authorization: `Bearer ${apiKey}` } });
    const body = Buffer.from(await res.arrayBuffer());
    const contentType = res.headers.get('content-type');
    const answer: Answer = {
      url,
      status: res.status,
      contentType,
      disposition: res.headers.get('content-disposition'),
    };
    if (contentType?.startsWith('application/json')) answer.json = JSON.parse(body.toString('utf8'));
    else
      answer.bytes = { length: body.length, sha256: crypto.createHash('sha256').update(body).digest('hex') };
    answers.push(answer);
    return answer;
  };
  for (const account of INBOXES) {
    await get(`/folders?account=${account}`);
    for (const folder of FOLDERS) {
      const list = (await get(`/emails?account=${account}&folder=${folder}&limit=100`)).json as {
        data: { emails: { uid: number; attachments: { id: string }[] }[] };
      };
      await get(`/emails?account=${account}&folder=${folder}&limit=7`);
      for (const email of list.data.emails) {
        const at = `account=${account}&folder=${folder}`;
        await get(`/emails/${email.uid}?${at}`);
        await get(`/emails/${email.uid}/raw?${at}`);
        for (const attachment of email.attachments)
          await get(`/emails/${email.uid}/attachments/${attachment.id}?${at}`);
      }
    }
    for (const q of SEARCHES) await get(`/emails?account=${account}&q=${encodeURIComponent(q)}&limit=100`);
    const threads = (await get(`/threads?account=${account}&limit=100`)).json as {
      data: { threads: { threadId: string }[] };
    };
    for (const thread of threads.data.threads) await get(`/threads/${thread.threadId}?account=${account}`);
  }
  return answers;
}
