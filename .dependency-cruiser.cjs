/**
 * The layering as a rule (issues 12 and 31; docs/architecture.md section 2), checked by
 * `npm run lint:deps`:
 * - no two folders import each other, however far round (a folder-level cycle is an import that
 *   runs back up a layer);
 * - the base (src/base, src/db, src/platform, src/auth, src/integrations and the graph base
 *   src/graphql) knows no domain, no schema composition (src/schema) and no server (src/server);
 * - the facades (REST, MCP, web pages) reach the core only through the schema, the graph base,
 *   auth, the platform and src/base (the error table, the wire-name mapper, config, the logger and
 *   the root path);
 * - nothing imports a facade but the composition root (src/server/app.ts), and no facade imports another;
 * - src/db knows no domain and no HTTP or GraphQL library;
 * - src/platform knows no domain and no facade (shared machinery serves every domain);
 * - a domain reaches another domain only through that domain's index.ts (its public surface);
 * - the OAuth MCP host (src/oauth-host) imports no domain but the oauth domain's index.ts, and
 *   not the generated Prisma client (docs/mcp-oauth.md section 2);
 * - a worker-thread job (*.job.ts) reaches neither the Prisma client nor src/db;
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
      name: 'no-folder-cycle',
      severity: 'error',
      comment:
        'Two folders import each other (through any others): one import runs back up a layer. Move what both need down a layer, or pass it in.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'file-job-loads-no-database',
      severity: 'error',
      comment:
        'A worker-thread job (*.job.ts) parses an untrusted file and writes nothing: nothing it reaches may load the Prisma client or the database layer. Move pure helpers out of the file that stores.',
      from: { path: '[.]job[.]ts$' },
      to: { path: '^(src/generated/prisma|src/db/)', reachable: true },
    },
    {
      name: 'base-knows-no-domain',
      severity: 'error',
      comment:
        'The base layers serve every domain: pass what they need in, or put the code that reads a domain in src/schema.',
      from: { path: '^src/(base|db|platform|auth|integrations|graphql)/' },
      to: { path: '^src/(domains|schema|server)/' },
    },
    {
      name: 'facade-reaches-core-only-through-graphql-auth-platform',
      severity: 'error',
      comment:
        'A facade runs persisted operations; it never imports a domain, Prisma, the database or an integration.',
      from: { path: '^(rest-facade|mcp-facade|web-pages)/' },
      to: {
        path: '^src/',
        pathNot: '^src/(base|schema|graphql|auth|platform)/',
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
      comment: 'Only the composition root (src/server/app.ts) mounts the facades.',
      from: { path: '^src/', pathNot: '^src/server/app\\.ts$' },
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
      name: 'dna-stays-in-its-domain',
      severity: 'error',
      comment:
        'No other domain reads DNA (issue 34: never in exports, community views or another feature); only the server starts its worker.',
      from: { path: '^src/', pathNot: '^src/(domains/dna|schema|server)/' },
      to: { path: '^src/domains/dna/' },
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
