/**
 * The repository's root folder (the one holding package.json), found from this module's own
 * location so that it is the same whether the code runs from src/ (tsx, tests) or from the
 * compiled bundle in dist/ (`npm start`). Files read at run time (the operation manifest, the
 * migrations, the shipped food catalogue, package.json) are named from it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

function rootAbove(dir: string): string {
  for (let at = dir; ; ) {
    if (existsSync(path.join(at, 'package.json'))) return at;
    const up = path.dirname(at);
    if (up === at) throw new Error(`no package.json above ${dir}`);
    at = up;
  }
}

export const ROOT = rootAbove(import.meta.dirname);

/** A path inside the repository, e.g. fromRoot('prisma', 'migrations'). */
export const fromRoot = (...parts: string[]): string => path.join(ROOT, ...parts);
