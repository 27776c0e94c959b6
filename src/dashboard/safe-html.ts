import sanitizeHtml from 'sanitize-html';

/**
 * The CSP of a mail's HTML document (shown in an iframe sandboxed without scripts or same
 * origin): nothing runs, nothing loads but inline styles and data: images; with `remoteImages`,
 * images from anywhere (the person asked for them).
 */
export function mailBodyCsp(remoteImages: boolean): string {
  const img = remoteImages ? 'img-src data: cid: http: https:' : 'img-src data: cid:';
  return `default-src 'none'; style-src 'unsafe-inline'; ${img}; frame-ancestors 'self'; form-action 'none'; base-uri 'none'`;
}

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    ...sanitizeHtml.defaults.allowedTags,
    'img',
    'font',
    'center',
    'u',
    's',
    'strike',
    'big',
    'small',
  ],
  // Scripts, styles sheets, forms, frames and objects go with their content.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'head'],
  allowedAttributes: {
    '*': ['style', 'class', 'align', 'valign', 'width', 'height', 'bgcolor', 'color', 'dir', 'lang', 'title'],
    a: ['href', 'name', 'target', 'rel'],
    img: ['src', 'alt', 'width', 'height'],
    font: ['face', 'size', 'color'],
    table: ['border', 'cellpadding', 'cellspacing'],
    td: ['colspan', 'rowspan', 'nowrap'],
    th: ['colspan', 'rowspan', 'nowrap', 'scope'],
  },
  // javascript:, vbscript: and data: links are dropped; images may be data:, cid: or web addresses.
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'data', 'cid'] },
  allowProtocolRelative: false,
  transformTags: {
    // Links leave the sandbox in a new tab, without telling the site where they came from.
    a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer' }),
  },
};

/** HTML mail made safe to show: no script, handler, form, frame, or javascript: link survives. */
export function sanitizeMailHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}

/** Whether the (sanitised) HTML asks for images from the web: the "Show images" choice is offered. */
export function hasRemoteImages(html: string): boolean {
  return /<img\b[^>]*\bsrc\s*=\s*["']?\s*https?:/i.test(html);
}

/**
 * The content id a `cid:` reference names: URL-decoded (RFC 2392), or taken as written when its
 * escapes are malformed (`cid:%E0%A4%A`), so one bad reference costs at most its own image.
 */
function contentIdOf(reference: string): string {
  try {
    return decodeURIComponent(reference);
  } catch {
    return reference;
  }
}

/** The content ids a body refers to with cid: (inline images). */
export function cidReferences(html: string): string[] {
  const ids = new Set<string>();
  for (const match of html.matchAll(/\bsrc\s*=\s*["']?cid:([^"'\s>]+)/gi)) ids.add(contentIdOf(match[1]!));
  return [...ids];
}

/** Puts data: URLs (content id to URL) in place of the cid: images they stand for. */
export function inlineCidImages(html: string, urls: Map<string, string>): string {
  return html.replace(/(\bsrc\s*=\s*["']?)cid:([^"'\s>]+)/gi, (whole, lead: string, id: string) => {
    const url = urls.get(contentIdOf(id));
    return url ? `${lead}${url}` : whole;
  });
}

/**
 * The media type a part may be shown with as an inline image: `image/<token>` and nothing else
 * (its parameters dropped; a subtype of letters, digits and `.+_-`, as every image type in use),
 * or null. The type goes into a data: URL inside the document, so a Content-Type carrying markup
 * (`image/png"><script>`) must never reach it.
 */
export function inlineImageType(contentType: string): string | null {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return /^image\/[a-z0-9][a-z0-9.+_-]{0,126}$/.test(type) ? type : null;
}

/** The document the iframe shows: the sanitised body with quiet defaults. */
export function mailDocument(safeBody: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><base target="_blank"><style>
body{margin:0;padding:16px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#fff;word-wrap:break-word;overflow-wrap:anywhere}
img{max-width:100%;height:auto}table{max-width:100%}pre{white-space:pre-wrap}
</style></head><body>${safeBody}</body></html>`;
}
