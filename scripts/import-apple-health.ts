/**
 * Imports an Apple Health export ("Export All Health Data": the zip, or its export.xml) into one
 * person's account, through the same service path and dedupe as POST /api/health/platform/import.
 *   npm run import:apple-health -- --email person@example.com export.zip
 * Besides the seven metrics, sleep and workouts it stores the whole export in the health archive
 * (every record type, workouts with statistics, events and routes, ECG recordings; issue 16).
 * The person is an existing account named by --email (never created here). Progress goes to
 * stderr, the summary (JSON) to stdout. Database: DATABASE_URL or the embedded one in DATA_DIR.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/base/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { normaliseEmail } from '../src/domains/account/account.shared.ts';
import { importAppleHealthFile } from '../src/domains/health/health.apple-import.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { email: { type: 'string' }, 'batch-size': { type: 'string' } },
});
const file = positionals[0];
if (!values.email || !file || positionals.length !== 1) {
  console.error(
    'usage: npm run import:apple-health -- --email <account email> [--batch-size N] <export.xml | export.zip>',
  );
  process.exit(2);
}

const config = loadConfig();
const db = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
try {
  const user = await db.prisma.user.findUnique({
    where: { email: normaliseEmail(values.email) },
    select: { id: true },
  });
  if (!user) {
    console.error(`no account with the email ${values.email}`);
    process.exitCode = 1;
  } else {
    const summary = await importAppleHealthFile(db, {
      userId: user.id,
      file,
      batchSize: values['batch-size'] ? Number(values['batch-size']) : undefined,
      onProgress: (line) => console.error(line),
    });
    console.log(JSON.stringify(summary));
  }
} finally {
  await db.close();
}
