/**
 * Makes an account an admin, creating it when there is none:
 *   npm run admin:create -- --email <address> [--password-stdin] [--name <name>]
 * An existing account keeps its password and only becomes an admin. A new account needs a
 * password, never from argv (it would stay in shell history and `ps`): `--password-stdin` reads the
 * first line of stdin (`printf '%s\n' "$PW" | npm run admin:create -- --email a@b.c --password-stdin`),
 * else on a terminal it is prompted for twice without echo; without either the script refuses (2).
 * Passwords follow the app's rule (8..256 characters) and are stored as argon2id hashes.
 * Prints one JSON line: {"user_id", "email", "created", "was_admin"}. Database: DATABASE_URL or the
 * embedded one in DATA_DIR. Exit codes: 0 done, 1 refused (a bad password), 2 usage.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { hashPassword } from '../src/auth/credentials.ts';
import { loadConfig } from '../src/base/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { normaliseEmail } from '../src/domains/account/index.ts';

const PASSWORD_MIN = 8;
const PASSWORD_MAX = 256;

function usage(message: string): never {
  console.error(
    `${message}\nusage: npm run admin:create -- --email <address> [--password-stdin] [--name <name>]`,
  );
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
    },
  });
} catch (e) {
  usage((e as Error).message);
}
const { values } = parsed;
if (!values.email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(values.email.trim()))
  usage('--email <address> is required and must be an email address');
const email = normaliseEmail(values.email);

/** The first line of stdin (piped). */
async function readStdinLine(): Promise<string> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return '';
}

/** Asks on the terminal without echoing what is typed. */
function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const output = rl as unknown as { _writeToOutput: (s: string) => void };
  let prompted = false;
  output._writeToOutput = (s: string) => {
    if (!prompted) process.stderr.write(s);
    prompted = true;
  };
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    }),
  );
}

async function newPassword(): Promise<string> {
  if (values['password-stdin']) return readStdinLine();
  if (!process.stdin.isTTY)
    usage(
      'no account with this address: pass --password-stdin or run on a terminal to set its password',
    );
  const first = await ask('Password for the new admin: ');
  const again = await ask('Repeat it: ');
  if (first !== again) {
    console.error('the passwords differ; nothing was changed');
    process.exit(1);
  }
  return first;
}

const config = loadConfig();
const db = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
try {
  const existing = await db.prisma.user.findUnique({ where: { email } });
  if (existing) {
    await db.prisma.user.update({ where: { id: existing.id }, data: { isAdmin: true } });
    if (values['password-stdin']) console.error('the account exists: its password is unchanged');
    console.log(
      JSON.stringify({ user_id: existing.id, email, created: false, was_admin: existing.isAdmin }),
    );
  } else {
    const password = await newPassword();
    if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
      console.error(
        `the password must have ${PASSWORD_MIN}..${PASSWORD_MAX} characters; nothing was changed`,
      );
      process.exitCode = 1;
    } else {
      const user = await db.prisma.user.create({
        data: {
          email,
          name: values.name ?? null,
          passwordHash: await hashPassword(password),
          isAdmin: true,
        },
      });
      console.log(JSON.stringify({ user_id: user.id, email, created: true, was_admin: false }));
    }
  }
} finally {
  await db.close();
}
