/**
 * The server's public origin for absolute links in answers and emails: PUBLIC_URL (without a
 * trailing slash), else the address the server is configured to bind (development).
 */
import type { Config } from '../base/config.ts';

/** `https://health.example.com`, or `http://<HOST>:<PORT>` when PUBLIC_URL is unset. */
export function publicOrigin(config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>): string {
  return (config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`).replace(/\/+$/, '');
}
