/**
 * The OpenAPI documents exactly as a server serves them (the API's and the admin API's), asked
 * of the app in-process on an in-memory database: no port, no file.
 */
import pino from 'pino';
import { createMailroom } from '../src/mailroom.js';

export interface ServedDocuments {
  api: Record<string, unknown>;
  admin: Record<string, unknown>;
}

export async function servedDocuments(): Promise<ServedDocuments> {
  const mailroom = createMailroom({
    env: {},
    memory: true,
    parseThreads: 0,
    adminToken: 'openapi-documents-only-token', // the admin document is served only while the admin API is on
    logger: pino({ level: 'silent' }),
  });
  const fetchDocument = async (route: string) => {
    const res = await mailroom.app.request(route);
    if (res.status !== 200) throw new Error(`${route} answered ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  };
  return {
    api: await fetchDocument('/api/v1/openapi.json'),
    admin: await fetchDocument('/admin/v1/openapi.json'),
  };
}
