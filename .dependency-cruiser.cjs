/**
 * The layering as a rule (issue 12; docs/architecture.md section 2), checked by `npm run lint:deps`:
 * - the facades (REST, MCP, web pages) reach the core only through the GraphQL core, auth and the
 *   platform (plus the error table, the wire-name mapper, config, the logger and the root path);
 * - nothing imports a facade but the composition root (src/app.ts), and no facade imports another;
 * - src/db knows no domain and no HTTP or GraphQL library;
 * - src/platform knows no domain and no facade (shared machinery serves every domain);
 * - a domain reaches another domain only through that domain's index.ts (its public surface);
 * - the OAuth MCP host (src/oauth-host) imports no domain but the oauth domain's index.ts, and
 *   not the generated Prisma client (docs/mcp-oauth.md section 2);
 * - no import cycles.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules import each other in a cycle: move what both need into a third module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'facade-reaches-core-only-through-graphql-auth-platform',
      severity: 'error',
      comment:
        'A facade runs persisted operations; it never imports a domain, Prisma, the database or an integration.',
      from: { path: '^(rest-facade|mcp-facade|web-pages)/' },
      to: {
        path: '^src/',
        pathNot: '^src/(graphql|auth|platform)/|^src/(errors|wire|config|logger|paths)\\.ts$',
      },
    },
    {
      name: 'no-facade-imports-another',
      severity: 'error',
      comment:
        'Facades are independent doors; what two share belongs in src/platform or src/graphql.',
      from: { path: '^(rest-facade|mcp-facade|web-pages)/' },
      to: { path: '^(rest-facade|mcp-facade|web-pages)/', pathNot: '^$1/' },
    },
    {
      name: 'nothing-imports-a-facade',
      severity: 'error',
      comment: 'Only the composition root (src/app.ts) mounts the facades.',
      from: { path: '^src/', pathNot: '^src/app\\.ts$' },
      to: { path: '^(rest-facade|mcp-facade|web-pages)/' },
    },
    {
      name: 'db-knows-no-domain-and-no-http',
      severity: 'error',
      comment: 'src/db opens databases and runs SQL; domains and HTTP sit above it.',
      from: { path: '^src/db/' },
      to: {
        path: '^src/(domains|graphql|auth|integrations)/|^(rest-facade|mcp-facade|web-pages)/|node_modules/(express|graphql|graphql-yoga|@modelcontextprotocol/sdk|pino-http)/',
      },
    },
    {
      name: 'platform-knows-no-domain',
      severity: 'error',
      comment: 'Shared machinery serves every domain, so it imports none (pass what it needs in).',
      from: { path: '^src/platform/' },
      to: { path: '^src/domains/|^(rest-facade|mcp-facade|web-pages)/' },
    },
    {
      name: 'domain-reaches-another-through-its-index',
      severity: 'error',
      comment:
        "A domain uses another domain only through that domain's index.ts; export what it needs there.",
      from: { path: '^src/domains/([^/]+)/' },
      to: {
        path: '^src/domains/[^/]+/',
        pathNot: ['^src/domains/$1/', '^src/domains/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'oauth-host-reaches-only-the-oauth-domain',
      severity: 'error',
      comment:
        'The OAuth host works through src/domains/oauth/index.ts (and auth, platform, GraphQL); never another domain or Prisma.',
      from: { path: '^src/oauth-host/' },
      to: {
        path: '^src/domains/|^src/generated/prisma/|node_modules/(@prisma|\\.prisma)/',
        pathNot: '^src/domains/oauth/index\\.ts$',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
