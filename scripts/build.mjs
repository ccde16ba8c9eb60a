/**
 * The compiled build `npm start` runs: src/server/main.ts and everything it imports, packages included,
 * bundled by esbuild into dist/ as ES modules with source maps. One bundle instead of ~1,500 module
 * files halves the time to load the app (docs/benchmarks.md, issue 18). app.ts is a chunk of its
 * own, so main.ts opens the database while the app's code loads; code imported dynamically (the
 * GraphiQL page, Prisma's query compiler) stays in chunks loaded when first needed.
 * Packages that read their own files or load native code at run time stay in node_modules
 * (EXTERNAL). Runs at install (postinstall) and before the tests (test/harness/global-setup.ts),
 * in about a second. Plain JavaScript, so that it needs nothing but node and esbuild.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const outdir = path.join(root, 'dist');
/** Native addons, WebAssembly beside their JavaScript, and packages that read files by __dirname. */
const EXTERNAL = [
  '@electric-sql/pglite',
  '@node-rs/argon2',
  '@prisma/schema-engine-wasm',
  'pg-native',
  'pino',
  'ioredis',
  // loads its own worker.js by path
  'piscina',
];
/**
 * Worker threads' modules (src/platform/file-workers.ts): the thread entry and every `*.job.ts`,
 * each an entry of its own named by its file (`dist/labs.pdf.job.js`), where fileJobModule() looks.
 */
const WORKER_ENTRIES = Object.fromEntries(
  [
    'src/platform/file-worker.mjs',
    ...readdirSync(path.join(root, 'src'), { recursive: true })
      .filter((file) => file.endsWith('.job.ts'))
      .map((file) => path.join('src', file)),
  ].map((file) => [path.basename(file).replace(/\.(mjs|ts)$/, ''), file]),
);

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/server/main.ts', ...WORKER_ENTRIES },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // CommonJS packages inside an ES module bundle still call require() for node's own modules
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  sourcemap: true,
  // the maps name each line's source file and line; the sources themselves stay in the repository
  sourcesContent: false,
  // less for V8 to parse at start (about 0.1 s); names are kept, so stack traces stay readable
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
