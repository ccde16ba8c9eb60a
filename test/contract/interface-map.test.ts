/**
 * The reader behind docs/interface.md and the name checks of gen:check (scripts/interface-map.ts):
 * it finds root fields in each form they are declared, follows imports and re-exports to the
 * service function, and reports each kind of name drift (a planted tree, test/fixtures/interface).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { interfaceDoc, namingProblems, rootFields } from '../../scripts/interface-map.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/interface');
const fields = rootFields(FIXTURE, ['src/domains']);
const service = 'src/domains/notes/notes.service.ts';

describe('the interface map', () => {
  it('finds root fields in every declaration form and the function each resolver calls', () => {
    expect(fields.map((f) => [f.field, f.type, f.calls.map((c) => `${c.name} ${c.at}`)])).toEqual([
      ['notes', 'query', [`notes ${service}:2`]],
      ['noteCount', 'query', [`countAll ${service}:9`]],
      ['addNote', 'mutation', [`addNote ${service}:5`]],
      ['logMood', 'mutation', [`logNote ${service}:6`]],
      ['logSleep', 'mutation', [`logNote ${service}:6`]],
    ]);
    expect(fields[0].declared).toBe('src/domains/notes/notes.schema.ts:7');
  });

  it('reports each kind of drift, and accepts a service several fields share', () => {
    const operations = [
      { name: 'notes', domain: 'notes', field: 'notes' },
      { name: 'GetNoteCount', domain: 'notes', field: 'noteCount' },
    ];
    expect(
      namingProblems(fields, operations, ['notes', 'noteCount', 'addNote', 'archivedNotes']),
    ).toEqual([
      'operation GetNoteCount runs the root field noteCount: name it noteCount',
      `root field noteCount (src/domains/notes/notes.schema.ts:12) calls countAll: name its service function noteCount`,
      'root field archivedNotes: its declaration was not found',
    ]);
  });

  it('writes each route and tool with its operation file, root field and service function', () => {
    const doc = interfaceDoc(
      fields,
      [
        { name: 'notes', domain: 'notes', field: 'notes' },
        { name: 'logMood', domain: 'notes', field: 'logMood' },
        { name: 'addNote', domain: 'notes', field: 'addNote' },
      ],
      [{ door: 'GET /api/notes', operation: 'notes' }],
      [{ door: 'notes_mood_log', operation: 'logMood' }],
    );
    expect(doc).toContain(
      `| GET /api/notes | \`notes\` | src/domains/notes/operations/notes.graphql | src/domains/notes/notes.schema.ts:7 | \`notes\` ${service}:2 |`,
    );
    expect(doc).toContain(`| notes_mood_log | \`logMood\` |`);
    expect(doc).toContain(`\`logNote\` ${service}:6 |`);
    // served by no door: listed apart
    expect(doc.slice(doc.indexOf('## Operations no REST route'))).toContain('| `addNote` |');
  });
});
