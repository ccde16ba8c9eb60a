/**
 * The raw-driver baseline of bench/request-path.bench.ts (issue 18): a plain node:http server that
 * does the same work as the app's two reads, written directly against `pg` (a pool of 10) and
 * `jose`, with no framework: verify the HS256 login JWT, read the session joined to its user, check
 * it (unrevoked, unexpired, epochs equal), then read the profile (GET /api/auth/me) or the last 24
 * hours' 500 newest glucose readings (GET /api/glucose/readings), and answer JSON with the same keys
 * the app answers. Not a product: no other routes, no validation beyond the credential.
 * Run as its own process (like the app): DATABASE_URL, JWT_SECRET, PORT.
 */
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import { jwtVerify } from 'jose';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const secret = new TextEncoder().encode(process.env.JWT_SECRET);

interface SessionRow {
  user_id: number;
  epoch: number;
  session_epoch: number;
  kind: string;
  expires_at: Date;
  revoked_at: Date | null;
}

async function userIdOf(authorization: string | undefined): Promise<number | null> {
  const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : null;
  if (!token) return null;
  let claims: { sub?: string; sid?: unknown; epoch?: unknown };
  try {
    ({ payload: claims } = await jwtVerify(token, secret, { algorithms: ['HS256'] }));
  } catch {
    return null;
  }
  const { rows } = await pool.query<SessionRow>(
    `SELECT s.user_id, s.epoch, s.kind, s.expires_at, s.revoked_at, u.session_epoch
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1`,
    [claims.sid],
  );
  const s = rows[0];
  const valid =
    s &&
    !s.revoked_at &&
    s.expires_at.getTime() > Date.now() &&
    String(s.user_id) === claims.sub &&
    s.epoch === claims.epoch &&
    s.session_epoch === claims.epoch &&
    s.kind === 'native';
  return valid ? s.user_id : null;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

const PROFILE = `SELECT id, email, name, timezone, country, glucose_unit, date_of_birth, sex, height_cm,
  weight_kg, diabetes_type, goals, onboarding_completed, onboarding_step, profile_photo_url,
  is_admin, created_at FROM users WHERE id = $1`;
const READINGS = `SELECT id, sensor_id, timestamp, value_mg_dl, source, processing_version
  FROM glucose_readings WHERE user_id = $1 AND deleted_at IS NULL
   AND timestamp >= now() - interval '24 hours' ORDER BY timestamp DESC LIMIT 500`;

const server = createServer((req, res) => {
  void (async () => {
    const userId = await userIdOf(req.headers.authorization);
    if (userId === null) return send(res, 401, { detail: 'Not authenticated' });
    if (req.url === '/api/auth/me') {
      const { rows } = await pool.query(PROFILE, [userId]);
      return send(res, 200, rows[0]);
    }
    if (req.url === '/api/glucose/readings') {
      const { rows } = await pool.query(READINGS, [userId]);
      return send(res, 200, rows);
    }
    send(res, 404, { detail: 'Not Found' });
  })().catch(() => send(res, 500, { detail: 'Internal Server Error' }));
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
