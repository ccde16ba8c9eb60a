/**
 * The monitor link's client secret at rest. It is replayed to fetch tokens later, so it cannot be
 * hashed: it is encrypted with AES-256-GCM under a key derived (HKDF-SHA256) from the server's
 * secret (JWT_SECRET or the generated one), a fresh 12-byte IV per secret. A changed server secret
 * makes stored secrets unreadable: the person links again (sync answers 409 monitor_relink_needed).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const INFO = 'hdp monitor client secret';

function keyOf(serverSecret: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', serverSecret, new Uint8Array(0), INFO, 32));
}

/** base64url of iv + tag + ciphertext. */
export function encryptSecret(serverSecret: Uint8Array, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(serverSecret), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The plaintext, or null when the ciphertext does not open under this server's key. */
export function decryptSecret(serverSecret: Uint8Array, sealed: string): string | null {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(serverSecret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
