/**
 * The registry of synced tables: what the WatermelonDB sync protocol (GET /api/sync/pull,
 * POST /api/sync/push) carries, one row per table. Adding a table is one row here plus its model
 * (see README.md for the column convention every synced table follows).
 *
 * NOTE: the names here are spliced into SQL text (they are never taken from a request); the
 * registry test checks that every name is a plain lowercase identifier.
 */

/**
 * How a wire value is stored: `timestamp_ms` is a number of ms on the wire, TIMESTAMP(3) (UTC) in
 * the database; `timestamptz_ms` the same on the wire, TIMESTAMPTZ(3) in the database.
 */
export type SyncedColumnType = 'text' | 'int' | 'float' | 'bool' | 'timestamp_ms' | 'timestamptz_ms';

export interface SyncedColumn {
  /** wire name (snake_case, as the phone's WatermelonDB schema names it) */
  wire: string;
  /** database column name */
  db: string;
  type: SyncedColumnType;
  /** sync schema version that added the column (defaults to the table's) */
  since?: number;
  /** a NOT NULL column: a null text is stored as '' (WatermelonDB's value for an empty string), any other null is refused (422) */
  notNull?: boolean;
}

export interface SyncedTable {
  /** wire table name (the WatermelonDB table) */
  table: string;
  /** SQL table (the Prisma model's @@map) */
  sqlTable: string;
  /** Prisma model, for readers of the registry */
  model: string;
  /** sync schema version that added the table */
  since: number;
  columns: readonly SyncedColumn[];
}

/** The sync schema version this server speaks; bump it with every table or column added below. */
export const SYNC_SCHEMA_VERSION = 4;

/** The six amounts a meal (its totals) and a meal item carry, kcal and grams. */
const MEAL_NUTRIENT_COLUMNS: readonly SyncedColumn[] = ['kcal', 'protein_g', 'carbs_g', 'fat_g', 'fiber_g', 'sugar_g'].map(
  (name) => ({ wire: name, db: name, type: 'float', notNull: true }),
);

/** Every synced table, in pull order. */
export const SYNCED_TABLES: readonly SyncedTable[] = [
  {
    table: 'journal_entries',
    sqlTable: 'journal_entries',
    model: 'JournalEntry',
    since: 1,
    columns: [
      { wire: 'body', db: 'body', type: 'text', notNull: true },
      { wire: 'happened_at', db: 'happened_at', type: 'timestamp_ms' },
      { wire: 'mood', db: 'mood', type: 'int', since: 2 },
    ],
  },
  {
    // the photo (photo_key) is not synced: a pushed record must never name a stored file (docs/meals.md)
    table: 'meals',
    sqlTable: 'meals',
    model: 'Meal',
    since: 4,
    columns: [
      { wire: 'meal_name', db: 'meal_name', type: 'text' },
      { wire: 'meal_type', db: 'meal_type', type: 'text' },
      { wire: 'eaten_at', db: 'eaten_at', type: 'timestamptz_ms', notNull: true },
      { wire: 'note', db: 'note', type: 'text' },
      { wire: 'source', db: 'source', type: 'text', notNull: true },
      ...MEAL_NUTRIENT_COLUMNS,
    ],
  },
  {
    table: 'meal_items',
    sqlTable: 'meal_items',
    model: 'MealItem',
    since: 4,
    columns: [
      { wire: 'meal_id', db: 'meal_id', type: 'text', notNull: true },
      { wire: 'food_id', db: 'food_id', type: 'text' },
      { wire: 'name', db: 'name', type: 'text', notNull: true },
      { wire: 'grams', db: 'grams', type: 'float', notNull: true },
      { wire: 'portion', db: 'portion', type: 'text' },
      ...MEAL_NUTRIENT_COLUMNS,
    ],
  },
];

/** The registry row of a wire table name, or undefined. */
export function syncedTable(name: string): SyncedTable | undefined {
  return SYNCED_TABLES.find((t) => t.table === name);
}

/** The newest schema version among the table and its columns. */
export function tableChangedSince(t: SyncedTable): number {
  return Math.max(t.since, ...t.columns.map((c) => c.since ?? t.since));
}
