/**
 * A REST route is a row of data naming a persisted GraphQL operation; rest-facade/handler.ts
 * serves every row the same way. Rows never contain functions or business rules.
 */
import type { PhotoKind } from '../src/platform/photos.ts';
import type { Responder } from './responders.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface RestRoute {
  method: HttpMethod;
  /** the path exactly as documented, with {param} placeholders */
  path: string;
  /** persisted operation name, its root field's (src/domains/<domain>/operations/<name>.graphql) */
  operation: string;
  /** root field of `data` to answer (defaults to the operation's only root field) */
  result?: string;
  /**
   * the variable that receives the whole JSON body; without it body fields become variables. A
   * `JSON` variable receives the body exactly as sent, keys and all (wire-input.ts): the sync push
   * reads WatermelonDB's own table and column names, never a camelCase copy
   */
  body?: string;
  /**
   * 'query' for a POST documented with query parameters and no body (sensor/unbind): its variables
   * are documented, and located when missing, in the query string. Default: the JSON body's fields.
   */
  variablesIn?: 'query';
  /** wire parameter name -> variable name, where they differ beyond snake/camel case */
  rename?: Record<string, string>;
  /** success status (default 200) */
  status?: number;
  /**
   * JSON body limit of this route (a size such as '16mb', 1024-based), for bulk routes whose
   * documented batches exceed the global 1 MB; beyond it 413. Set it from the route's own worst
   * case (its record or sample cap times the longest record, as health.routes.ts does), never
   * below what one request of a phone that cannot split it carries. The body is then read as a
   * stream (src/platform/json-stream.ts: never held whole as text, the depth guard on the raw
   * bytes, decompressed size counted), and text/plain is read as JSON too (fetch's default for a
   * string body, which WatermelonDB's documented sync client sends).
   */
  bodyLimit?: string;
  /**
   * request header -> variable, for values a sender puts in headers (a webhook's signature:
   * `{ 'stripe-signature': 'signature' }`); header names in lower case
   */
  headers?: Record<string, string>;
  /** OpenAPI tag */
  tag: string;
  /**
   * a transport other than JSON, from the closed list in responders.ts: `multipart` reads a
   * multipart/form-data body (file parts and text fields fill variables like JSON body fields);
   * `preflight` (OPTIONS) runs no operation: `operation` then names the one the path serves;
   * `cached` answers the root field's `document` with its `etag` (304, gzip; responders.ts);
   * `raw` gives `body`'s String variable the body exactly as sent (a signed webhook);
   * `stream` writes the rows of the field's chunks as one JSON array, following `nextCursor`
   * `changes` writes a sync pull's pages as one WatermelonDB answer when the request names no
   * paging parameter (changes-responder.ts)
   * `upload` hands the multipart form's one file part to the field as it arrives (a StreamedFile,
   * src/platform/streamed-file.ts): the field reads it as a stream under its own size limit
   */
  responder?: Responder;
  /**
   * a `multipart` row taking one photo: the kind whose size limit (src/platform/photos.ts,
   * PHOTO_LIMITS) bounds its file parts instead of UPLOAD_MAX_BYTES, so a part over it is answered
   * 413 the moment it passes the limit, not read to its end (the field checks the same limit)
   */
  photo?: PhotoKind;
}
