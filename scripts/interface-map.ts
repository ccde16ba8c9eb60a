/**
 * The way from a door to the code (issue 31, item 4): every root field of the schema with the file
 * and line that declares it and the service function its resolver calls, read from the sources with
 * the TypeScript parser (nothing runs). `npm run gen` writes docs/interface.md from it, joining the
 * REST rows and MCP tool rows to their operations; `gen:check` also fails when a name drifts:
 * an operation is named after its root field (PascalCase), and the resolver calls a function of the
 * root field's name.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface RootField {
  field: string;
  type: 'query' | 'mutation';
  /** where the field is declared, `path:line` from the repository root */
  declared: string;
  /** the functions the resolver calls, in order, with where each is declared */
  calls: { name: string; at: string | null }[];
}

const ROOT_FIELD_CALLS: Record<string, 'query' | 'mutation'> = {
  queryField: 'query',
  mutationField: 'mutation',
  queryFields: 'query',
  mutationFields: 'mutation',
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

const sources = new Map<string, ts.SourceFile>();
function sourceOf(file: string): ts.SourceFile {
  let sf = sources.get(file);
  if (!sf) {
    sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    sources.set(file, sf);
  }
  return sf;
}

function lineOf(root: string, sf: ts.SourceFile, node: ts.Node): string {
  const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
  return `${path.relative(root, sf.fileName)}:${line + 1}`;
}

/** Whether the statement declares `name` (a function, or a const of it). */
function declares(st: ts.Statement, name: string): boolean {
  if (ts.isFunctionDeclaration(st)) return st.name?.text === name;
  if (!ts.isVariableStatement(st)) return false;
  return st.declarationList.declarations.some(
    (d) => ts.isIdentifier(d.name) && d.name.text === name,
  );
}

/**
 * Where an import or re-export statement brings `name` from: the module and its name there, or
 * null when it does not (or names a package).
 */
function broughtFrom(
  st: ts.Statement,
  file: string,
  name: string,
): { file: string; name: string } | null {
  if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st))) return null;
  const spec = st.moduleSpecifier;
  if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) return null;
  const list = ts.isImportDeclaration(st) ? st.importClause?.namedBindings : st.exportClause;
  if (!list || !(ts.isNamedImports(list) || ts.isNamedExports(list))) return null;
  const el = (list.elements as ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>).find(
    (e) => e.name.text === name,
  );
  if (!el) return null;
  return { file: path.resolve(path.dirname(file), spec.text), name: el.propertyName?.text ?? name };
}

/** Where `name` is declared: in `file` itself, or followed through its imports and re-exports. */
function declarationOf(root: string, file: string, name: string, depth = 0): string | null {
  if (depth > 5 || !existsSync(file)) return null;
  const sf = sourceOf(file);
  for (const st of sf.statements) {
    if (declares(st, name)) return lineOf(root, sf, st);
    const from = broughtFrom(st, file, name);
    if (from) return declarationOf(root, from.file, from.name, depth + 1);
  }
  return null;
}

/** The names of the functions called in a resolver, in source order (`fn(...)`, not `a.b(...)`). */
function calledNames(node: ts.Node): string[] {
  const names: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) names.push(n.expression.text);
    ts.forEachChild(n, visit);
  };
  visit(node);
  return names;
}

/** The `resolve` function inside a field's definition. */
function resolverOf(node: ts.Node): ts.Node | null {
  let found: ts.Node | null = null;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (
      (ts.isPropertyAssignment(n) || ts.isMethodDeclaration(n)) &&
      ts.isIdentifier(n.name) &&
      n.name.text === 'resolve'
    ) {
      found = n;
      return;
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

function fieldOf(
  root: string,
  sf: ts.SourceFile,
  field: string,
  type: 'query' | 'mutation',
  definition: ts.Node,
): RootField {
  const resolver = resolverOf(definition);
  const calls = resolver
    ? [...new Set(calledNames(resolver))].map((name) => ({
        name,
        at: declarationOf(root, sf.fileName, name),
      }))
    : [];
  return { field, type, declared: lineOf(root, sf, definition), calls };
}

/** Every root field declared under `dirs` (relative to `root`), in file order. */
export function rootFields(root: string, dirs: string[]): RootField[] {
  const out: RootField[] = [];
  for (const file of dirs.flatMap((d) => filesUnder(path.join(root, d))).sort()) {
    const sf = sourceOf(file);
    const visit = (n: ts.Node): void => {
      if (
        ts.isCallExpression(n) &&
        ts.isPropertyAccessExpression(n.expression) &&
        ts.isIdentifier(n.expression.expression) &&
        n.expression.expression.text === 'builder' &&
        n.expression.name.text in ROOT_FIELD_CALLS
      ) {
        const type = ROOT_FIELD_CALLS[n.expression.name.text];
        const [first] = n.arguments;
        if (first && ts.isStringLiteral(first)) {
          out.push(fieldOf(root, sf, first.text, type, n));
        } else if (first && ts.isArrowFunction(first)) {
          let body: ts.Node = first.body;
          // `(t) => ({ ... })`, or a block that ends `return { ... }`
          if (ts.isBlock(body)) {
            const ret = body.statements.find(ts.isReturnStatement);
            if (ret?.expression) body = ret.expression;
          }
          while (ts.isParenthesizedExpression(body)) body = body.expression;
          if (ts.isObjectLiteralExpression(body)) {
            for (const p of body.properties) {
              if (
                ts.isPropertyAssignment(p) &&
                (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))
              )
                out.push(fieldOf(root, sf, p.name.text, type, p));
            }
          }
        }
        return;
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

/** The service function a root field's resolver calls: the one named as the field, else the first declared in the project. */
export function serviceOf(f: RootField): { name: string; at: string } | null {
  const same = f.calls.find((c) => c.name === f.field && c.at);
  if (same) return { name: same.name, at: same.at! };
  const first = f.calls.find((c) => c.at);
  return first ? { name: first.name, at: first.at! } : null;
}

export interface DoorRow {
  door: string;
  operation: string;
}

export interface ManifestEntry {
  name: string;
  domain: string;
  /** the operation's root field */
  field: string;
}

/** Functions that several root fields call: one service behind fields that differ only in arguments. */
function sharedServices(fields: RootField[]): Set<string> {
  const callers = new Map<string, number>();
  for (const f of fields) {
    const s = serviceOf(f);
    if (s) callers.set(s.at, (callers.get(s.at) ?? 0) + 1);
  }
  return new Set([...callers].filter(([, n]) => n > 1).map(([at]) => at));
}

/**
 * Where the names drift: an operation not named after its root field, a root field whose resolver
 * calls no function of its name (unless it calls a service several root fields share), and a root
 * field of the schema that the reader of the sources did not find.
 */
export function namingProblems(
  fields: RootField[],
  operations: ManifestEntry[],
  schemaFields: string[],
): string[] {
  const problems: string[] = [];
  for (const op of operations) {
    if (op.name !== op.field)
      problems.push(`operation ${op.name} runs the root field ${op.field}: name it ${op.field}`);
  }
  const shared = sharedServices(fields);
  for (const f of fields) {
    const s = serviceOf(f);
    if (s?.name === f.field || (s && shared.has(s.at))) continue;
    problems.push(
      `root field ${f.field} (${f.declared}) calls ${s ? s.name : 'no function'}: name its service function ${f.field}`,
    );
  }
  const found = new Set(fields.map((f) => f.field));
  for (const name of schemaFields) {
    if (!found.has(name)) problems.push(`root field ${name}: its declaration was not found`);
  }
  return problems;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** docs/interface.md: from each route and tool to its operation and its service function. */
export function interfaceDoc(
  fields: RootField[],
  operations: ManifestEntry[],
  rest: DoorRow[],
  mcp: DoorRow[],
): string {
  const byField = new Map(fields.map((f) => [f.field, f]));
  const byName = new Map(operations.map((o) => [o.name, o]));
  const served = new Set([...rest, ...mcp].map((r) => r.operation));
  const code = (operation: string): string => {
    const op = byName.get(operation);
    const f = op && byField.get(op.field);
    const s = f && serviceOf(f);
    const file = op ? `src/domains/${op.domain}/operations/${op.name}.graphql` : '?';
    return `\`${operation}\` | ${file} | ${f?.declared ?? '?'} | ${s ? `\`${s.name}\` ${s.at}` : '-'}`;
  };
  const lines = [
    '# From a door to the code',
    '',
    'Generated by `npm run gen` from the REST rows, the MCP tool rows, the persisted operations and',
    'the schema sources (scripts/interface-map.ts); `npm run gen:check` fails when it is out of date,',
    'and when a name drifts. Each operation is named after the one root field it runs, and the',
    'resolver of that field calls the service function of the same name (or a service several fields',
    'share, such as `logEntry` behind the seven log fields). So a route or a tool reaches its code in',
    'two hops: the operation, then the function.',
    '',
    '## REST routes',
    '',
    '| route | operation | operation file | root field | service function |',
    '|---|---|---|---|---|',
    ...rest.map((r) => `| ${cell(r.door)} | ${code(r.operation)} |`),
    '',
    '## MCP tools',
    '',
    '| tool | operation | operation file | root field | service function |',
    '|---|---|---|---|---|',
    ...mcp.map((r) => `| ${cell(r.door)} | ${code(r.operation)} |`),
    '',
    '## Operations no REST route or MCP tool runs',
    '',
    'Run at `POST /graphql` by their hash (the dashboard, the web pages, admins in GraphiQL).',
    '',
    '| operation | operation file | root field | service function |',
    '|---|---|---|---|',
    ...operations.filter((o) => !served.has(o.name)).map((o) => `| ${code(o.name)} |`),
    '',
  ];
  return lines.join('\n');
}
