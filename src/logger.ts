/** pino logger; every request logs through a child carrying its request id. */
import { pino } from 'pino';
import type { Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, redact: ['req.headers.authorization', 'req.headers.cookie'] });
}
