/** A connection URL as messages may show it: no password, in the userinfo or the query. */
export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return url.replace(/(\/\/[^/:@]*):[^@/]*@/, '$1@');
  const parsed = new URL(url);
  parsed.password = '';
  parsed.searchParams.delete('password');
  return parsed.toString();
}
