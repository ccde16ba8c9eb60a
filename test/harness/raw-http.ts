/**
 * A raw HTTP/1.1 client over node:http for tests that send what fetch will not: the request path
 * verbatim (no URL normalisation of `%2e%2e` or malformed escapes), a body on GET, any bytes with
 * any Content-Type, a body cut short (a declared Content-Length the bytes never reach, a chunked
 * body that never ends, or a client that closes the connection mid-body). Every request has a deadline, so a hanging server is a
 * result, not a stuck test.
 */
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

export interface RawRequest {
  method: string;
  /** sent exactly as given (must be printable ASCII: percent-encode anything else) */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** milliseconds until the request is abandoned (default 15 s) */
  timeoutMs?: number;
  /** the Content-Length to declare instead of the body's length (more than sent: the rest never comes) */
  contentLength?: number;
  /**
   * Sends the body, then closes the connection without finishing the request (a client that goes
   * away mid-upload; the declared length defaults to 1 KB more than the body). Resolves with status
   * 0 once the connection is closed, or with the answer if one came first.
   */
  abort?: boolean;
  /**
   * Sends the body and keeps the request open, never ending it (without a declared length it goes
   * chunked): a body whose rest never comes. Resolves with the answer if the server gives one.
   */
  open?: boolean;
}

export interface RawResponse {
  /** 0 when there was no answer (timeout or connection error) */
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** the deadline passed before the answer was complete */
  timedOut: boolean;
  /** a connection-level failure (reset, refused), if any */
  error?: string;
}

/** Sends one request to `baseUrl` (http://host:port) and reads the whole answer as UTF-8 text. */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const signal = AbortSignal.timeout(req.timeoutMs ?? 15_000);
  const body =
    req.body === undefined
      ? undefined
      : typeof req.body === 'string'
        ? Buffer.from(req.body)
        : req.body;
  const headers: Record<string, string> = { ...req.headers };
  const declared =
    req.contentLength ??
    (req.abort ? (body?.length ?? 0) + 1024 : req.open ? undefined : body?.length);
  if (declared !== undefined) headers['content-length'] = String(declared);
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: RawResponse): void => {
      if (!done) {
        done = true;
        resolve(r);
      }
    };
    const failed = (err: Error): void => {
      const timedOut = signal.aborted;
      finish({
        status: 0,
        headers: {},
        body: '',
        timedOut,
        error: timedOut ? 'timeout' : err.message,
      });
    };
    let out;
    try {
      out = request(
        { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, signal },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            finish({ status: res.statusCode ?? 0, headers: res.headers, body, timedOut: false });
          });
          res.on('error', failed);
        },
      );
    } catch (err) {
      return failed(err as Error); // e.g. a path node:http refuses to send
    }
    out.on('error', failed);
    if (req.open) return void out.write(body ?? Buffer.alloc(0));
    if (!req.abort) return void out.end(body);
    out.on('close', () => failed(new Error('closed by the client')));
    out.flushHeaders();
    out.write(body ?? Buffer.alloc(0), () => out.destroy());
  });
}

/**
 * The start of a multipart/form-data body whose one file part (`field`) holds `bytes` and never
 * ends (no closing boundary): with a larger declared `contentLength`, an upload whose rest never
 * comes. Answers the body and its Content-Type.
 */
export function multipartStart(
  field: string,
  bytes: Buffer,
  type = 'image/jpeg',
): { body: Buffer; contentType: string } {
  const boundary = 'raw-http-boundary-7f3a';
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="upload"\r\n` +
    `Content-Type: ${type}\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), bytes]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
