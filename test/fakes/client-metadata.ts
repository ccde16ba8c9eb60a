/**
 * A fake client metadata host (CIMD, docs/mcp-oauth.md section 6): a real HTTP server on 127.0.0.1
 * serving one JSON document per path, counting the fetches of each path, and misbehaving on
 * request (a delay, a large or streamed body, a redirect, another status or content type, a
 * Cache-Control header). Tests cannot serve https on a public address, so `dial` maps
 * `https://client.example/<path>` to this server (the app's `clientMetadataDial` option).
 * Closed after the test file.
 */
import type { ServerResponse } from 'node:http';
import type { ClientMetadataDial } from '../../src/integrations/client-metadata.ts';
import { startHttpFake } from './http-fake.ts';

/** The host whose https URLs `dial` maps to the fake. */
export const CLIENT_METADATA_HOST = 'client.example';

/** How one path answers. */
export interface ServedDocument {
  /** the body: an object is sent as JSON, a string as it is (default `{}`) */
  body?: unknown;
  /** status code (default 200) */
  status?: number;
  /** Content-Type (default application/json) */
  contentType?: string;
  /** Cache-Control header (default none) */
  cacheControl?: string;
  /** Location header (with a 3xx status) */
  location?: string;
  /** wait this long before answering, in ms */
  delayMs?: number;
  /** send the body in 1 kB chunks 5 ms apart without a Content-Length */
  stream?: boolean;
}

export interface FakeClientMetadata {
  /** base URL, http://127.0.0.1:<port> */
  url: string;
  /** Serves `answer` at `path` (like `/cimd/app.json`), replacing what it served before. */
  serve(path: string, answer: ServedDocument): void;
  /** How many times `path` was requested. */
  fetches(path: string): number;
  /** The client_id (https://client.example<path>) that `dial` maps to `path`. */
  clientId(path: string): string;
  /** Maps https://client.example/... to this server; any other URL is left alone. */
  dial: ClientMetadataDial;
  close(): Promise<void>;
}

export async function startFakeClientMetadata(): Promise<FakeClientMetadata> {
  const answers = new Map<string, ServedDocument>();
  const counts = new Map<string, number>();
  const later = (ms: number, run: () => void): void => http.later(ms, run);

  const send = (res: ServerResponse, answer: ServedDocument): void => {
    if (res.destroyed) return;
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
    const headers: Record<string, string> = {
      'content-type': answer.contentType ?? 'application/json',
    };
    if (answer.cacheControl) headers['cache-control'] = answer.cacheControl;
    if (answer.location) headers.location = answer.location;
    if (!answer.stream) {
      res.writeHead(answer.status ?? 200, headers).end(body);
      return;
    }
    res.writeHead(answer.status ?? 200, headers);
    let offset = 0;
    const next = (): void => {
      if (res.destroyed) return;
      if (offset >= body.length) return void res.end();
      res.write(body.slice(offset, offset + 1024));
      offset += 1024;
      later(5, next);
    };
    next();
  };

  // NOTE: the handler runs only once listening, when `http` is set
  const http = await startHttpFake((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const answer = answers.get(path);
    if (!answer) return void res.writeHead(404).end();
    if (answer.delayMs) later(answer.delayMs, () => send(res, answer));
    else send(res, answer);
  });
  const url = http.origin;

  const fake: FakeClientMetadata = {
    url,
    serve: (path, answer) => void answers.set(path, answer),
    fetches: (path) => counts.get(path) ?? 0,
    clientId: (path) => `https://${CLIENT_METADATA_HOST}${path}`,
    dial: (target) =>
      target.hostname === CLIENT_METADATA_HOST
        ? new URL(target.pathname + target.search, url)
        : undefined,
    close: () => http.close(),
  };
  return fake;
}
