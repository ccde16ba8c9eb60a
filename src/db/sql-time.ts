/**
 * SQL snippets between ms since the epoch (what the wire and the sync clock count in) and the
 * database's timestamps. Plain SQL, so every layer that writes a statement may use them.
 */
import { Prisma } from '../generated/prisma/client.ts';

/** SQL for a `timestamp(3)` (UTC, no time zone) from ms since the epoch, bound as a parameter. */
export const msValue = (ms: number): Prisma.Sql =>
  Prisma.sql`(to_timestamp(${ms}::float8 / 1000.0) AT TIME ZONE 'UTC')`;
/**
 * The same from a positional parameter (`$3`), for statements built from a registry of tables
 * (sync): fixed statements use msValue.
 */
export const msParam = (n: string): string =>
  `(to_timestamp(${n}::float8 / 1000.0) AT TIME ZONE 'UTC')`;
/** SQL for a `timestamptz` from a parameter holding ms since the epoch. */
export const msParamTz = (n: string): string => `to_timestamp(${n}::float8 / 1000.0)`;
/** SQL for ms since the epoch of a timestamp column (either kind). */
export const msOf = (col: string): string => `round(extract(epoch from ${col}) * 1000)::float8`;
