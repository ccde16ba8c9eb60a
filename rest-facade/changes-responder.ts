/**
 * The `changes` responder (GET /api/sync/pull): WatermelonDB's documented `pullChanges` reads ONE
 * answer, `{changes, timestamp}`, and cannot follow `next_cursor`. When a pull names none of the
 * paging parameters (`cursor`, `limit`, `max_chars`), this responder follows `nextCursor` itself,
 * running the same operation again with `$cursor`, and writes every page of the pull as one answer:
 * `{"changes": {table: {created, updated, deleted}}, "timestamp", ...the last page's other fields}`.
 *
 * Transport only: the sync service keeps every rule (the snapshot, which the cursor carries; the
 * scopes per table; tombstones) and the order that lets its pages join (table by table, each
 * table's lists in the order created, updated, deleted; src/domains/sync/sync.service.ts). Each
 * page is written as it arrives, the next one read while it is written, and a write waits for the
 * socket to drain, so the server holds two pages whatever the pull's size. A failure after the
 * first page can no longer change the status: the connection is cut before the closing brace, so
 * the client's JSON parse fails and it applies nothing (never a short but valid answer).
 * A pull that names a paging parameter gets its one page as plain JSON, as any other row.
 */
import { once } from 'node:events';
import type { Response } from 'express';
import { snakeKeys } from '../src/base/wire.ts';

/** What the pull's root field answers: one page of changes, and the cursor of the next (null: done). */
export interface ChangesPage {
  changes: Record<string, Partial<Record<ChangeList, unknown[]>>>;
  nextCursor: string | null;
  [field: string]: unknown;
}

type ChangeList = (typeof LISTS)[number];

/** A table's lists, in the order they are written (and the service serves them in). */
const LISTS = ['created', 'updated', 'deleted'] as const;

/** The variables that ask for pages: with any of them, the pull is answered as one page. */
const PAGING_VARIABLES = ['cursor', 'limit', 'maxChars'];

/** True when the request asks for one answer (WatermelonDB's documented pull), not a page. */
export function wantsOneAnswer(variables: Record<string, unknown>): boolean {
  return PAGING_VARIABLES.every(
    (name) => variables[name] === undefined || variables[name] === null,
  );
}

/** Joins consecutive pages of changes into the text of one `changes` object, a page at a time. */
class ChangesWriter {
  private started = false;
  private readonly seen = new Set<string>();
  private table: string | null = null;
  /** index in LISTS of the list open in the current table (-1: none yet) */
  private list = -1;
  private itemsInList = 0;

  /** The text a page adds (the first page's starts the object). */
  page(changes: ChangesPage['changes']): string {
    let out = this.started ? '' : '{';
    this.started = true;
    for (const [name, entry] of Object.entries(changes)) {
      if (name !== this.table) {
        if (this.seen.has(name)) throw new Error(`pages out of order: ${name} again`);
        out += this.closeTable();
        out += `${this.seen.size ? ',' : ''}${JSON.stringify(name)}:{`;
        this.seen.add(name);
        this.table = name;
        this.list = -1;
      }
      for (let l = 0; l < LISTS.length; l++) {
        const items = entry[LISTS[l]] ?? [];
        if (items.length === 0) continue;
        if (l < this.list) throw new Error(`pages out of order: ${name}.${LISTS[l]}`);
        while (this.list < l) out += this.nextList();
        for (const item of items) {
          out += (this.itemsInList++ ? ',' : '') + JSON.stringify(item);
        }
      }
    }
    return out;
  }

  /** The text that closes the object (and opens it when no page had a table). */
  end(): string {
    return (this.started ? '' : '{') + this.closeTable() + '}';
  }

  private nextList(): string {
    const close = this.list >= 0 ? '],' : '';
    this.list++;
    this.itemsInList = 0;
    return `${close}"${LISTS[this.list]}":[`;
  }

  private closeTable(): string {
    if (this.table === null) return '';
    let out = '';
    while (this.list < LISTS.length - 1) out += this.nextList();
    this.table = null;
    return `${out}]}`;
  }
}

/**
 * Writes `first` and every following page (`next(cursor)` runs the operation again; it throws the
 * operation's error) as one WatermelonDB pull answer. The records are written as the service
 * wrote them (wire names); the page's other fields in snake_case, as the handler answers them.
 */
export async function changesResponder(
  res: Response,
  first: ChangesPage,
  next: (cursor: string) => Promise<ChangesPage>,
  onError: (error: unknown) => void,
): Promise<void> {
  res.status(200).set({ 'content-type': 'application/json; charset=utf-8' });
  const writer = new ChangesWriter();
  const write = async (text: string): Promise<void> => {
    if (text && !res.write(text)) await once(res, 'drain');
  };
  let page = first;
  try {
    await write('{"changes":');
    for (;;) {
      // the next page is asked for before this one is serialised and written, so the database
      // reads it while this process converts and sends (at most two pages are held)
      const following = page.nextCursor && !res.destroyed ? next(page.nextCursor) : null;
      following?.catch(() => {}); // awaited below; a failure there ends the answer
      await write(writer.page(page.changes));
      if (!following || res.destroyed) break;
      page = await following;
    }
    if (res.destroyed) return;
    // the last page's other fields: its timestamp (the snapshot's), has_more false, ...
    const { changes: _changes, ...fields } = page;
    const rest = JSON.stringify(snakeKeys(fields));
    res.end(`${writer.end()}${rest === '{}' ? '}' : `,${rest.slice(1)}`}`);
  } catch (error) {
    onError(error);
    res.destroy();
  }
}
