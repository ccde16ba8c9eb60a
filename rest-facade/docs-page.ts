/**
 * The human docs page of the REST API (GET /api/docs): Swagger UI reading /api/openapi.json.
 * Its assets come from the swagger-ui-dist package in node_modules through express.static, so the
 * page works with no internet. It must never link a CDN: a Content-Security-Policy limits the page
 * to this origin (and no other site may frame it), and Swagger UI's online validator badge is
 * switched off.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import compression from 'compression';
import express from 'express';
import type { NextFunction, Request, Response, Router } from 'express';
import { ERROR_TABLE, httpErrorBody } from '../src/base/errors.ts';
import { FRAME_ANCESTORS_NONE, noFramingHeaders } from '../src/platform/framing.ts';

export interface DocsPageOptions {
  /** where the page is served, e.g. /api/docs (assets under <path>/assets) */
  path: string;
  /** the OpenAPI document the page reads */
  specUrl: string;
  /** page title */
  title: string;
}

const require = createRequire(import.meta.url);
/** swagger-ui-dist's folder (it exports only a CommonJS helper for this, so resolve it directly). */
export const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** Only what the page loads; the package's own index.html points at a public demo document. */
const ASSETS = /^\/(swagger-ui\.css|swagger-ui-bundle\.js|favicon-(16x16|32x32)\.png)(\.map)?$/;

const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  FRAME_ANCESTORS_NONE,
].join('; ');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page and its start script, rendered once. */
function renderPage(options: DocsPageOptions): { html: string; script: string } {
  const assets = `${options.path}/assets`;
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(options.title)}</title>
    <link rel="stylesheet" href="${assets}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${assets}/favicon-32x32.png" sizes="32x32" />
    <link rel="icon" type="image/png" href="${assets}/favicon-16x16.png" sizes="16x16" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${assets}/swagger-ui-bundle.js"></script>
    <script src="${options.path}/init.js"></script>
  </body>
</html>
`;
  // validatorUrl: null keeps Swagger UI from sending the document to its public validator.
  const script = `window.ui = SwaggerUIBundle(${JSON.stringify({
    url: options.specUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    layout: 'BaseLayout',
    defaultModelsExpandDepth: 0,
    // Tags start collapsed: expanding all ~160 operations at once stalls the page for minutes
    docExpansion: 'none',
    displayOperationId: true,
  })});\n`;
  return { html, script };
}

/** An express router serving the docs page, its start script and the Swagger UI assets. */
export function createDocsRouter(options: DocsPageOptions): Router {
  const { html, script } = renderPage(options);
  const router = express.Router();
  router.use(options.path, compression());
  router.get(options.path, (_req, res) => {
    res.set(noFramingHeaders(CSP)).type('html').send(html);
  });
  router.get(`${options.path}/init.js`, (_req, res) => {
    res.type('js').send(script);
  });
  router.use(
    `${options.path}/assets`,
    (req: Request, res: Response, next: NextFunction) => {
      if (ASSETS.test(req.path)) next();
      else res.status(ERROR_TABLE.NOT_FOUND.status).json(httpErrorBody('NOT_FOUND'));
    },
    express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1h' }),
  );
  return router;
}
