/**
 * The short-lived download link of a finished export (issue 16): a JWT (HS256, jose) under a key
 * derived by HKDF-SHA256 from the server's secret for this one purpose, naming the job and its
 * owner, valid EXPORT_LINK_TTL_SECONDS. It is a capability for one file, never a credential: it
 * reads nothing else, and the job is looked up again (owner, status) when it is used.
 */
import { hkdfSync } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

const INFO = 'health-export-download-link';
const AUDIENCE = 'health-export-download';

function keyOf(serverSecret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', serverSecret, new Uint8Array(0), INFO, 32));
}

export interface ExportLinkClaims {
  /** the export job */
  jobId: string;
  /** its owner */
  userId: number;
}

/** Signs a link token for the job, expiring at `expiresAt`. */
export function signExportLink(
  serverSecret: Uint8Array,
  claims: ExportLinkClaims,
  expiresAt: Date,
): Promise<string> {
  return new SignJWT({ job: claims.jobId })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(claims.userId))
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(keyOf(serverSecret));
}

/** The job and owner a valid, unexpired token names; null for anything else. */
export async function verifyExportLink(
  serverSecret: Uint8Array,
  token: string,
): Promise<ExportLinkClaims | null> {
  try {
    const { payload } = await jwtVerify(token, keyOf(serverSecret), {
      audience: AUDIENCE,
      algorithms: ['HS256'],
    });
    const userId = Number(payload.sub);
    if (typeof payload.job !== 'string' || !Number.isSafeInteger(userId)) return null;
    return { jobId: payload.job, userId };
  } catch {
    return null;
  }
}
