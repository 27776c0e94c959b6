import iconv from 'iconv-lite';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';

/**
 * A corpus of real-world shapes for `npm run bench -- storage`, made the same on every run (a
 * seeded generator): what an inbox holds, by count and by bytes.
 * - newsletters: multipart/alternative, table HTML with inline styles and a tracking token in every
 *   link (quoted-printable or base64), a text part;
 * - notifications: short transactional HTML with a text part;
 * - replies: plain text quoting the history of the thread (`> `), with a signature;
 * - attachments: a short note with common types (a PDF, a JPEG or PNG photo, an office document,
 *   a CSV, a calendar invitation); some senders' signature logo comes inline in every message;
 * - several languages: German, French, Spanish, Russian, Japanese and Chinese in UTF-8, and older
 *   charsets (ISO-8859-1 quoted-printable, Shift_JIS 8bit, windows-1252) as fixtures/ has them.
 * Every message carries the trace a provider adds (Received, ARC, DKIM-Signature: random base64,
 * which no compressor shrinks), as the fixtures' headers do. One in ten goes to several local
 * inboxes at once (a team's list).
 */
export interface CorpusMessage {
  raw: Buffer;
  /** Local inboxes it goes to: one, or several for a message to a team. */
  to: string[];
  shape: Shape;
}

type Shape = 'newsletter' | 'notification' | 'reply' | 'attachments' | 'language';

/** Inboxes the corpus delivers to (the bench creates them). */
export const CORPUS_INBOXES = [
  'agent@mailroom.test',
  'ops@mailroom.test',
  'sales@mailroom.test',
  'dev@mailroom.test',
];

/** mulberry32: a small seeded generator, so every run files the same corpus. */
function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const bytes = (n: number) => {
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i += 4) out.writeUInt32LE((next() * 4294967296) >>> 0, Math.min(i, n - 4));
    return out;
  };
  const token = (n: number) =>
    bytes(Math.ceil((n * 3) / 4))
      .toString('base64url')
      .slice(0, n);
  return { next, int, pick, bytes, token };
}
type Random = ReturnType<typeof seeded>;

const ENGLISH = (
  'the of and to in is for on that with as this by from at be are we will it our your you have has ' +
  'meeting project report budget invoice contract review launch travel quarter team customer ' +
  'update schedule deadline proposal agreement numbers figures results plan release version ' +
  'feature issue support account payment order shipping delivery please thanks regards attached ' +
  'document draft final changes comments question answer next week monday tuesday friday today ' +
  'tomorrow afternoon morning call agenda notes summary revenue growth cost estimate approval ' +
  'manager engineering design marketing sales finance legal office remote training workshop'
).split(' ');

const LANGUAGES: Record<string, string[]> = {
  de: 'der die das und ist nicht mit für auf Besprechung Bericht Rechnung Vertrag Grüße Änderungen Übersicht Straße Größe nächste Woche Montag bitte danke Termin Angebot Lieferung Zahlung Kunde Mitarbeiter Abteilung Ergebnis'.split(
    ' ',
  ),
  fr: 'le la les et est pas avec pour sur réunion rapport facture contrat équipe prochaine semaine lundi merci cordialement été déjà très résultat livraison paiement client développement présentation'.split(
    ' ',
  ),
  es: 'el la los y es no con para en reunión informe factura contrato equipo próxima semana lunes gracias saludos año también más resultado entrega pago cliente desarrollo presentación'.split(
    ' ',
  ),
  ru: 'и в не на что с по для это встреча отчёт счёт договор команда следующей неделе понедельник спасибо привет результат доставка оплата клиент разработка презентация бюджет'.split(
    ' ',
  ),
  ja: 'の に は を た が で て と し れ さ 会議 報告書 請求書 契約 チーム 来週 月曜日 ありがとう よろしく お願い します 結果 配送 支払い 顧客 開発 資料 予算 表'.split(
    ' ',
  ),
  zh: '的 是 在 了 和 有 我们 会议 报告 发票 合同 团队 下周 星期一 谢谢 你好 结果 交付 付款 客户 开发 演示 预算 请 查看 附件'.split(
    ' ',
  ),
};

function words(r: Random, vocabulary: readonly string[], count: number, joiner = ' '): string {
  return Array.from({ length: count }, () => r.pick(vocabulary)).join(joiner);
}

function paragraphs(r: Random, vocabulary: readonly string[], count: number, joiner = ' '): string {
  return Array.from({ length: count }, () => {
    const sentences = Array.from({ length: r.int(2, 5) }, () => {
      const s = words(r, vocabulary, r.int(6, 18), joiner);
      return s.charAt(0).toUpperCase() + s.slice(1) + (joiner === '' ? '。' : '.');
    });
    return sentences.join(joiner === '' ? '' : ' ');
  }).join('\n\n');
}

const PEOPLE = [
  ['Alice Martin', 'alice.martin@example.com'],
  ['Bob Chen', 'bob@partner.example.org'],
  ['Carol Díaz', 'carol.diaz@example.net'],
  ['Dmitri Ivanov', 'dmitri@example.ru'],
  ['Yuki Tanaka', 'tanaka@example.co.jp'],
  ['Jürgen Weiß', 'juergen.weiss@example.de'],
  ['Sophie Laurent', 'sophie@example.fr'],
  ['Ops Alerts', 'alerts@monitoring.example.com'],
] as const;

const NEWSLETTERS = [
  ['Acme Weekly', 'news@acme.example.com', 'list.acme.example.com'],
  ['The Dev Digest', 'digest@devnews.example.org', 'devnews.example.org'],
  ['Shop Deals', 'deals@shop.example.net', 'shop.example.net'],
] as const;

/** The trace a receiving provider leaves: Received hops, ARC and DKIM, as in fixtures/multipart-alternative.eml. */
function traceHeaders(r: Random, domain: string, date: Date): string {
  const hops = r.int(2, 4);
  const lines: string[] = [];
  lines.push(`Return-Path: <bounce-${r.token(24)}@${domain}>`);
  for (let i = 0; i < hops; i++) {
    lines.push(
      `Received: from mail${r.int(1, 40)}.${domain} (mail${r.int(1, 40)}.${domain} [198.51.100.${r.int(1, 254)}])\r\n` +
        `\tby mx${r.int(1, 9)}.provider.example with ESMTPS id ${r.token(20)}\r\n` +
        `\tfor <agent@mailroom.test>; ${date.toUTCString()}`,
    );
  }
  const b = () =>
    r
      .bytes(256)
      .toString('base64')
      .replace(/(.{72})/g, '$1\r\n\t ');
  lines.push(
    `ARC-Seal: i=1; a=rsa-sha256; t=${Math.floor(date.getTime() / 1000)}; cv=none; d=provider.example; s=arc-20160816;\r\n\t b=${b()}`,
  );
  lines.push(
    `ARC-Message-Signature: i=1; a=rsa-sha256; c=relaxed/relaxed; d=provider.example; s=arc-20160816;\r\n` +
      `\t h=to:subject:message-id:date:from:mime-version:dkim-signature;\r\n\t bh=${r.bytes(32).toString('base64')};\r\n\t b=${b()}`,
  );
  lines.push(
    `ARC-Authentication-Results: i=1; mx.provider.example;\r\n\t dkim=pass header.i=@${domain} header.s=s1 header.b=${r.token(8)};\r\n` +
      `\t spf=pass (provider.example: domain of bounce@${domain} designates 198.51.100.7 as permitted sender) smtp.mailfrom=${domain};\r\n` +
      `\t dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=${domain}`,
  );
  lines.push(
    `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${domain}; s=s1; t=${Math.floor(date.getTime() / 1000)};\r\n` +
      `\t h=from:to:subject:date:message-id:mime-version:content-type;\r\n\t bh=${r.bytes(32).toString('base64')};\r\n\t b=${b()}`,
  );
  lines.push(`X-Google-Smtp-Source: ${r.token(80)}`);
  lines.push(
    `X-Received: by 2002:a05:6000:${r.int(100, 999)}:b0:${r.token(6)} with SMTP id ${r.token(30)}; ${date.toUTCString()}`,
  );
  return lines.join('\r\n') + '\r\n';
}

async function compose(options: ConstructorParameters<typeof MailComposer>[0]): Promise<Buffer> {
  return new MailComposer({ newline: 'win', ...options }).compile().build();
}

function newsletterHtml(r: Random, title: string, domain: string): { html: string; text: string } {
  const items = r.int(6, 16);
  const cell =
    'style="padding:12px 24px;font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:22px;color:#333333;"';
  const html: string[] = [
    '<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${title}</title><style>body{margin:0;padding:0}table{border-collapse:collapse}a{color:#1a73e8}` +
      '.button{background:#1a73e8;color:#fff;border-radius:4px;padding:10px 18px;text-decoration:none}</style></head>',
    '<body style="margin:0;padding:0;background-color:#f4f4f4;"><table width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f4f4f4">',
    `<tr><td align="center"><img src="https://${domain}/img/header.png?u=${r.token(32)}" width="600" alt="${title}" style="display:block;border:0;"></td></tr>`,
  ];
  const text: string[] = [title.toUpperCase(), ''];
  for (let i = 0; i < items; i++) {
    const heading = words(r, ENGLISH, r.int(4, 9));
    const body = paragraphs(r, ENGLISH, r.int(1, 2));
    const link = `https://click.${domain}/ls/click?upn=${r.token(120)}`;
    html.push(
      `<tr><td ${cell}><h2 style="font-size:20px;margin:0 0 8px 0;color:#111111;">${heading}</h2>` +
        `<p style="margin:0 0 12px 0;">${body.replace(/\n\n/g, '</p><p style="margin:0 0 12px 0;">')}</p>` +
        `<img src="https://${domain}/img/${r.token(16)}.jpg" width="552" style="display:block;border:0;max-width:100%;" alt="">` +
        `<p style="margin:12px 0;"><a class="button" href="${link}" style="background:#1a73e8;color:#ffffff;border-radius:4px;padding:10px 18px;text-decoration:none;">Read more</a></p></td></tr>`,
    );
    text.push(heading, '', body, '', `Read more: ${link}`, '');
  }
  const unsubscribe = `https://${domain}/unsubscribe?u=${r.token(64)}`;
  html.push(
    `<tr><td ${cell} align="center"><p style="font-size:12px;color:#888888;">You receive this because you signed up. ` +
      `<a href="${unsubscribe}">Unsubscribe</a> · <a href="https://${domain}/prefs?u=${r.token(64)}">Preferences</a></p>` +
      `<img src="https://${domain}/open.gif?u=${r.token(64)}" width="1" height="1" alt=""></td></tr></table></body></html>`,
  );
  text.push(`Unsubscribe: ${unsubscribe}`);
  return { html: html.join('\n'), text: text.join('\n') };
}

/** What a reply quotes: the thread's earlier messages, each a level deeper. */
function quotedHistory(r: Random, levels: number): string {
  const out: string[] = [];
  for (let level = 1; level <= levels; level++) {
    const [name, address] = r.pick(PEOPLE);
    const prefix = '> '.repeat(level);
    out.push(
      `${'> '.repeat(level - 1)}On Tue, 14 May 2024 at 09:${r.int(10, 59)}, ${name} <${address}> wrote:`,
    );
    out.push(
      ...paragraphs(r, ENGLISH, r.int(1, 3))
        .split('\n')
        .map((line) => `${prefix}${line}`),
    );
    out.push(prefix.trimEnd());
  }
  return out.join('\n');
}

function signature(name: string): string {
  return `--\n${name}\nSenior Manager, Example Corp.\nPhone +1 555 0100 | www.example.com\nThis e-mail and any attachments are confidential. If you received it in error, please tell the sender and delete it.`;
}

const LOGO = seeded(7).bytes(6_000);

function pdfLike(r: Random, size: number): Buffer {
  // Half text objects, half deflated streams (random bytes): how a PDF of text and pictures looks.
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let bytes = 0;
  let n = 1;
  while (bytes < size) {
    const text = Buffer.from(
      `${n} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${n + 1} 0 R /Resources << /Font << /F1 5 0 R >> >> >>\nendobj\n` +
        `BT /F1 11 Tf 72 ${700 - n} Td (${words(r, ENGLISH, 40)}) Tj ET\n`,
    );
    const stream = r.bytes(r.int(2_000, 12_000));
    const head = Buffer.from(`${n + 1} 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`);
    parts.push(text, head, stream, Buffer.from('\nendstream\nendobj\n'));
    bytes += text.length + head.length + stream.length + 18;
    n += 2;
  }
  parts.push(Buffer.from('%%EOF\n'));
  return Buffer.concat(parts);
}

function csv(r: Random, rows: number): string {
  const lines = ['date,region,product,units,revenue,cost,margin'];
  for (let i = 0; i < rows; i++) {
    const units = r.int(1, 900);
    const revenue = units * r.int(10, 90);
    const cost = Math.floor(revenue * (0.4 + r.next() * 0.4));
    lines.push(
      `2024-${String(r.int(1, 12)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')},${r.pick(['EMEA', 'APAC', 'NA', 'LATAM'])},` +
        `${r.pick(['widget', 'gadget', 'sprocket', 'gizmo'])}-${r.int(1, 40)},${units},${revenue},${cost},${revenue - cost}`,
    );
  }
  return lines.join('\r\n');
}

function invitation(r: Random, organizer: string): string {
  return [
    'BEGIN:VCALENDAR',
    'PRODID:-//Example Corp//Calendar 1.0//EN',
    'VERSION:2.0',
    'METHOD:REQUEST',
    'BEGIN:VEVENT',
    `UID:${r.token(36)}@example.com`,
    'DTSTART:20240520T140000Z',
    'DTEND:20240520T150000Z',
    `SUMMARY:${words(r, ENGLISH, 5)}`,
    `DESCRIPTION:${words(r, ENGLISH, 60)}`,
    `ORGANIZER;CN=Organizer:mailto:${organizer}`,
    'ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:agent@mailroom.test',
    'END:VEVENT',
    'END:VCALENDAR',
  ].join('\r\n');
}

type Attachment = { filename: string; content: Buffer | string; contentType: string; cid?: string };

function someAttachments(r: Random, organizer: string): Attachment[] {
  const out: Attachment[] = [];
  const count = r.int(1, 2);
  for (let i = 0; i < count; i++) {
    const kind = r.pick(['pdf', 'pdf', 'photo', 'photo', 'docx', 'xlsx', 'csv', 'ics'] as const);
    if (kind === 'pdf')
      out.push({
        filename: `${words(r, ENGLISH, 2, '-')}.pdf`,
        contentType: 'application/pdf',
        content: pdfLike(r, r.int(30_000, 150_000)),
      });
    else if (kind === 'photo') {
      const png = r.next() < 0.3;
      out.push({
        filename: `IMG_${r.int(1000, 9999)}.${png ? 'png' : 'jpg'}`,
        contentType: png ? 'image/png' : 'image/jpeg',
        content: r.bytes(r.int(30_000, 200_000)),
      });
    } else if (kind === 'docx' || kind === 'xlsx')
      out.push({
        filename: `${words(r, ENGLISH, 2, '_')}.${kind}`,
        contentType:
          kind === 'docx'
            ? 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
            : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        content: Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), r.bytes(r.int(15_000, 80_000))]),
      });
    else if (kind === 'csv')
      out.push({ filename: 'export.csv', contentType: 'text/csv', content: csv(r, r.int(100, 2_000)) });
    else
      out.push({
        filename: 'invite.ics',
        contentType: 'text/calendar; method=REQUEST',
        content: invitation(r, organizer),
      });
  }
  return out;
}

/** An older charset, encoded by hand as fixtures/iso-8859-1.eml and shift-jis.eml are. */
function legacyCharset(r: Random, from: string, to: string, date: Date, id: string): Buffer {
  const kind = r.pick(['iso-8859-1', 'shift_jis', 'windows-1252'] as const);
  const body =
    kind === 'shift_jis'
      ? paragraphs(r, LANGUAGES.ja!, r.int(2, 6), '')
      : paragraphs(r, LANGUAGES.de!.concat(LANGUAGES.fr!), r.int(2, 6)) +
        (kind === 'windows-1252' ? ' – “€ 12” …' : '');
  const encoded = iconv.encode(body.replace(/\n/g, '\r\n'), kind);
  const subject = kind === 'shift_jis' ? '会議の資料' : 'Grüße aus Köln';
  const head = [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: =?${kind === 'shift_jis' ? 'UTF-8' : 'ISO-8859-1'}?B?${iconv.encode(subject, kind === 'shift_jis' ? 'utf-8' : 'iso-8859-1').toString('base64')}?=`,
    `Date: ${date.toUTCString()}`,
    `Message-ID: ${id}`,
    'MIME-Version: 1.0',
    `Content-Type: text/plain; charset=${kind}`,
    `Content-Transfer-Encoding: ${kind === 'iso-8859-1' ? 'quoted-printable' : '8bit'}`,
  ].join('\r\n');
  const content =
    kind === 'iso-8859-1'
      ? Buffer.from(
          [...encoded]
            .map((b) =>
              b >= 128 || b === 61
                ? `=${b.toString(16).toUpperCase().padStart(2, '0')}`
                : String.fromCharCode(b),
            )
            .join('')
            .replace(/([^\r\n]{72})/g, '$1=\r\n'),
          'latin1',
        )
      : encoded;
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), content, Buffer.from('\r\n')]);
}

/** The shape of message i: by count, replies and newsletters lead; attachments carry about half the bytes. */
function shapeOf(r: Random): Shape {
  const x = r.next();
  if (x < 0.3) return 'reply';
  if (x < 0.52) return 'newsletter';
  if (x < 0.7) return 'notification';
  if (x < 0.9) return 'language';
  return 'attachments';
}

export async function makeCorpus(count: number, seed = 31): Promise<CorpusMessage[]> {
  const r = seeded(seed);
  const out: CorpusMessage[] = [];
  const start = Date.UTC(2024, 4, 1);
  for (let i = 0; i < count; i++) {
    const shape = shapeOf(r);
    const date = new Date(start + i * 517_000);
    const to = r.next() < 0.1 ? CORPUS_INBOXES.slice(0, r.int(2, 4)) : [r.pick(CORPUS_INBOXES)];
    const messageId = `<${r.token(24)}.${i}@mail.example.com>`;
    let body: Buffer;
    let domain = 'example.com';
    if (shape === 'newsletter') {
      const [name, address, listDomain] = r.pick(NEWSLETTERS);
      domain = listDomain;
      const { html, text } = newsletterHtml(r, name, listDomain);
      body = await compose({
        from: { name, address },
        to: to.join(', '),
        subject: `${name}: ${words(r, ENGLISH, r.int(4, 8))}`,
        date,
        messageId,
        text,
        html,
        textEncoding: r.next() < 0.3 ? 'base64' : 'quoted-printable',
        headers: {
          'List-Unsubscribe': `<https://${listDomain}/u/${r.token(64)}>, <mailto:unsub-${r.token(32)}@${listDomain}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          'List-Id': `${name} <${listDomain}>`,
          'Feedback-ID': `${r.int(1, 99)}:${r.token(12)}:newsletter`,
          Precedence: 'bulk',
        },
      });
    } else if (shape === 'notification') {
      const [name, address] = PEOPLE[7];
      const text = `${words(r, ENGLISH, r.int(20, 60))}\n\nView it: https://monitoring.example.com/a/${r.token(40)}\n`;
      body = await compose({
        from: { name, address },
        to: to.join(', '),
        subject: `[Alert] ${words(r, ENGLISH, r.int(3, 6))} #${r.int(1000, 99999)}`,
        date,
        messageId,
        text,
        html:
          `<html><body style="font-family:Arial,sans-serif"><table width="100%"><tr><td style="padding:16px;background:#fafafa">${text.replace(/\n/g, '<br>')}</td></tr>` +
          `<tr><td style="padding:8px;font-size:11px;color:#999">Sent by Monitoring · <a href="https://monitoring.example.com/settings?t=${r.token(40)}">settings</a></td></tr></table></body></html>`,
      });
    } else if (shape === 'reply') {
      const [name, address] = r.pick(PEOPLE.slice(0, 7));
      const refs = Array.from({ length: r.int(1, 6) }, () => `<${r.token(20)}@mail.example.com>`);
      body = await compose({
        from: { name, address },
        to: to.join(', '),
        cc: r.next() < 0.4 ? `${r.pick(PEOPLE)[1]}, ${r.pick(PEOPLE)[1]}` : undefined,
        subject: `Re: ${words(r, ENGLISH, r.int(3, 7))}`,
        date,
        messageId,
        inReplyTo: refs.at(-1),
        references: refs,
        text: `${paragraphs(r, ENGLISH, r.int(1, 3))}\n\n${signature(name)}\n\n${quotedHistory(r, r.int(1, 6))}\n`,
      });
    } else if (shape === 'attachments') {
      const [name, address] = r.pick(PEOPLE.slice(0, 7));
      const attachments = someAttachments(r, address);
      const logo = r.next() < 0.5;
      if (logo)
        attachments.push({
          filename: 'logo.png',
          contentType: 'image/png',
          content: LOGO,
          cid: 'logo@example.com',
        });
      const text = `${paragraphs(r, ENGLISH, r.int(1, 2))}\n\n${signature(name)}\n`;
      body = await compose({
        from: { name, address },
        to: to.join(', '),
        subject: `${words(r, ENGLISH, r.int(3, 6))} (attached)`,
        date,
        messageId,
        text,
        ...(logo
          ? {
              html: `<div>${text.replace(/\n/g, '<br>')}</div><img src="cid:logo@example.com" width="120" alt="Example Corp">`,
            }
          : {}),
        attachments,
      });
    } else {
      const [name, address] = r.pick(PEOPLE.slice(0, 7));
      if (r.next() < 0.3) body = legacyCharset(r, `${address}`, to.join(', '), date, messageId);
      else {
        const language = r.pick(Object.keys(LANGUAGES));
        const joiner = language === 'ja' || language === 'zh' ? '' : ' ';
        const vocabulary = LANGUAGES[language]!;
        const text = paragraphs(r, vocabulary, r.int(2, 8), joiner);
        body = await compose({
          from: { name, address },
          to: to.join(', '),
          subject: words(r, vocabulary, r.int(3, 6), joiner),
          date,
          messageId,
          text,
          ...(r.next() < 0.5
            ? { html: `<div dir="ltr">${text.replace(/\n\n/g, '</div><div dir="ltr">')}</div>` }
            : {}),
        });
      }
    }
    out.push({ raw: Buffer.concat([Buffer.from(traceHeaders(r, domain, date), 'latin1'), body]), to, shape });
  }
  return out;
}
