/**
 * The account the sync benches pull: signed up through the API, then `records` journal entries
 * written by one statement while the server is stopped (about 200 characters of text each).
 */
import { openDatabase } from '../src/db/database.ts';
import { fetchJson as json, signUp, startBenchServer } from './server.ts';

export interface SeededAccount {
  /** the account's bearer token, and the header that carries it */
  token: string;
  headers: { authorization: string };
}

/** Signs an account up on a server of `dataDir`, stops it, and writes the account's entries. */
export async function seedJournalAccount(options: {
  /** PostgreSQL URL, or undefined for PGlite in `dataDir` */
  url: string | undefined;
  dataDir: string;
  /** the start of every entry's id and of the account's address */
  prefix: string;
  records: number;
}): Promise<SeededAccount> {
  const { url, dataDir, prefix, records } = options;
  const server = await startBenchServer({}, { dataDir });
  let userId: number;
  let token: string;
  try {
    token = await signUp(server.base, `${prefix}.${Date.now()}@example.com`);
    const me = await json(server.base, '/api/auth/me', {
      headers: { authorization: `Bearer ${token}` },
    });
    userId = me.id as number;
  } finally {
    await server.stop();
  }
  const db = await openDatabase({ url, dataDir });
  try {
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO journal_entries (id, user_id, body, happened_at, mood, server_updated_at)
       SELECT $3 || $1::int || '-' || lpad(g::text, 10, '0'), $1::int, 'entry ' || g || ': ' || repeat('a day like any other. ', 9),
              now() - g * interval '1 minute', g % 5 + 1, now() - interval '1 second'
       FROM generate_series(1, $2::int) AS g`,
      userId,
      records,
      prefix,
    );
  } finally {
    await db.close();
  }
  return { token, headers: { authorization: `Bearer ${token}` } };
}
