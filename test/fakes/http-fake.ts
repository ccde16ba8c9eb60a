/**
 * What the suite's fake third-party servers share: a real node:http server on 127.0.0.1 (ephemeral
 * port), timers for delayed answers that closing cancels, and closing after the test file.
 */
import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

export interface HttpFake {
  server: Server;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** runs `run` after `ms` unless the fake was closed first */
  later(ms: number, run: () => void): void;
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1; closed automatically after the test file (in vitest). */
export async function startHttpFake(handler: RequestListener): Promise<HttpFake> {
  const server = createServer(handler);
  const timers = new Set<NodeJS.Timeout>();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: HttpFake = {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    later: (ms, run) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        run();
      }, ms);
      timers.add(timer);
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  try {
    afterAll(() => fake.close());
  } catch {
    // outside vitest (a benchmark): whoever started the fake closes it
  }
  return fake;
}
