/**
 * The person's profile: updates of its fields and onboarding progress, profile photos, and for
 * other domains the person's time zone and country (personLocale, personZone).
 * Profile photos: checked (size, and the image type from the file's own bytes, not only the
 * declared type, src/platform/photos.ts), stored under a new random key, the user row pointed at
 * it, the old photo removed. Photos are served at /media/<key> (src/platform/media.router.ts): the
 * key is the capability, 128 random bits.
 */
import { readerUserId } from '../../auth/principal.ts';
import { appError } from '../../base/errors.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db, DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { deleteStoredFiles, newStorageKey } from '../../integrations/storage.ts';
import {
  checkedImageType,
  mediaUrl,
  PHOTO_TYPES,
  photoMaxBytes,
  photoTooLarge,
  PROFILE_PHOTO_FOLDER,
} from '../../platform/photos.ts';
import type { UploadedFile } from '../../platform/photos.ts';
import { zoneOrUtc } from '../../platform/time-zones.ts';

/** Profile changes as they arrive: absent means unchanged, null clears a nullable field. */
export interface ProfileChanges {
  name?: string | null;
  timezone?: string | null;
  country?: string | null;
  glucoseUnit?: string | null;
  dateOfBirth?: string | null;
  sex?: string | null;
  heightCm?: number | null;
  weightKg?: number | null;
  diabetesType?: string | null;
  goals?: string[] | null;
  onboardingCompleted?: boolean | null;
  onboardingStep?: number | null;
}

export interface UpdateProfileOptions {
  /** fields to change (validated by the schema) */
  changes: ProfileChanges;
}

/** The caller's own account row (the `me` root of the graph), with what the query selects. */
export function me(
  ctx: AuthedContext,
  query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {},
) {
  return ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: ctx.principal.userId } });
}

/**
 * Updates the caller's own profile. A change of time zone ends the account's cached credentials
 * once written (src/auth/credential-cache.ts): they carry the zone, which every request then reads
 * afresh.
 */
export async function updateProfile(
  ctx: AuthedContext,
  options: UpdateProfileOptions,
  query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {},
) {
  const { glucoseUnit, goals, onboardingCompleted, onboardingStep, ...nullable } = options.changes;
  // Columns that cannot be null keep their value when null is sent.
  const data: Prisma.UserUpdateInput = {
    ...nullable,
    ...(glucoseUnit != null && { glucoseUnit }),
    ...(goals != null && { goals }),
    ...(onboardingCompleted != null && { onboardingCompleted }),
    ...(onboardingStep != null && { onboardingStep }),
  };
  // NOTE: the row is always the caller's own; no id is taken from the request.
  const user = await ctx.prisma.user.update({
    ...query,
    where: { id: ctx.principal.userId },
    data,
  });
  if (options.changes.timezone !== undefined) await ctx.credentials.revoked(ctx.principal.userId);
  return user;
}

export interface SetProfilePhotoOptions {
  /** the image; its size is checked before it is read */
  file: UploadedFile;
  /** the argument it came in, for validation locations (`file`, `data`) */
  argument: string;
}

/** Stores a new profile photo for the caller and answers the updated user; the old photo is deleted. */
export async function setProfilePhoto(
  ctx: AuthedContext,
  options: SetProfilePhotoOptions,
  query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {},
) {
  const max = photoMaxBytes('profile', ctx.config);
  if (options.file.size > max) throw photoTooLarge(max);
  const data = new Uint8Array(await options.file.arrayBuffer());
  const type = await checkedImageType(data, options.file.type, options.argument);
  const key = newStorageKey(PROFILE_PHOTO_FOLDER, PHOTO_TYPES[type]);
  await ctx.storage.put(key, data, { contentType: type });
  let previous: string | null;
  let user;
  try {
    ({ previous, user } = await ctx.prisma.$transaction(async (tx) => {
      // NOTE: the caller's own row, locked so that two uploads at once each delete the right old photo.
      const rows = await tx.$queryRaw<
        { key: string | null }[]
      >`SELECT profile_photo_key AS key FROM users WHERE id = ${ctx.principal.userId} FOR UPDATE`;
      if (!rows.length) throw appError('NOT_FOUND', 'Account not found');
      const updated = await tx.user.update({
        ...query,
        where: { id: ctx.principal.userId },
        data: { profilePhotoKey: key, profilePhotoUrl: mediaUrl(ctx, key) },
      });
      return { previous: rows[0].key, user: updated };
    }));
  } catch (e) {
    await ctx.storage.delete(key);
    throw e;
  }
  if (previous !== key) await deleteStoredFiles(ctx, [previous], 'the old photo');
  return user;
}

/** Where the person lives, as other domains compute with it. */
export interface PersonLocaleView {
  /** the IANA time zone days are counted in (UTC when unset or unknown to the runtime) */
  timezone: string;
  /** ISO 3166-1 alpha-2 country code, or null when unset */
  country: string | null;
}

/**
 * The time zone and country of the person whose data the credential reads (the owner's while a
 * grantee views as): one read of the profile. Other domains call this (or personZone) instead of
 * reading the profile columns of `users` themselves.
 */
export async function personLocale(ctx: AuthedContext): Promise<PersonLocaleView> {
  // NOTE: the person's data: the owner's row while viewing as a grantee.
  const user = await ctx.prisma.user.findUnique({
    where: { id: readerUserId(ctx) },
    select: { timezone: true, country: true },
  });
  return { timezone: zoneOrUtc(user?.timezone), country: user?.country ?? null };
}

/**
 * The time zone of a named person (UTC when unset or unknown), for a domain that counts that
 * person's days while another reads them (community's member view: the member's own days).
 */
export async function personZoneOf(ctx: AuthedContext, userId: number): Promise<string> {
  if (userId === ctx.principal.userId && ctx.principal.zone !== undefined)
    return zoneOrUtc(ctx.principal.zone);
  const user = await ctx.prisma.user.findUnique({
    where: { id: userId },
    select: { timezone: true },
  });
  return zoneOrUtc(user?.timezone);
}

/**
 * The person's time zone (personLocale): UTC when unset or unknown. The caller's own zone comes with
 * the credential (src/auth/authenticate.ts) without a read; a grantee viewing as reads the owner's.
 */
export async function personZone(ctx: AuthedContext): Promise<string> {
  const own = ctx.principal.viewAs ? undefined : ctx.principal.zone;
  if (own !== undefined) return zoneOrUtc(own);
  return (await personLocale(ctx)).timezone;
}

/** One person as another domain shows them beside others (challenges' standings). */
export interface PersonCardView {
  userId: number;
  /** the name the person gave, or null */
  name: string | null;
  /** their IANA zone, UTC when unset or unknown */
  timezone: string;
}

/**
 * Names and zones of several people by id (challenges count each participant's local days); ids of
 * deleted accounts are left out. NOTE: only the name and zone leave this domain, nothing else.
 */
export async function peopleCards(
  db: Db | DbTx,
  userIds: number[],
): Promise<Map<number, PersonCardView>> {
  if (!userIds.length) return new Map();
  const rows = await db.user.findMany({
    where: { id: { in: userIds } },
    select: { id: true, name: true, timezone: true },
  });
  return new Map(
    rows.map((r) => [r.id, { userId: r.id, name: r.name, timezone: zoneOrUtc(r.timezone) }]),
  );
}

/**
 * The distinct zones people have stored that the database's zone table knows (a handful of
 * hundred at most): one read of pg_timezone_names, which costs tens of milliseconds a call, so a
 * statement over many people takes the list as a parameter (peopleZonesSql) instead.
 */
export async function storedZones(db: Db): Promise<string[]> {
  const rows = await db.$queryRaw<{ zone: string }[]>`
    SELECT DISTINCT u.timezone AS zone
      FROM users u JOIN (SELECT name FROM pg_timezone_names) z ON z.name = u.timezone`;
  return rows.map((r) => r.zone);
}

/**
 * Every person's id and zone as a SQL relation `(user_id, zone)`, for statements over many people
 * each in their own zone (insights' morning run): the stored zone when it is one of `zones` (known
 * zones: storedZones, checked with isTimeZone), else UTC, as zoneOrUtc (a zone stored before zones
 * were checked must not break the statement). NOTE: only the id and the zone leave this domain.
 */
export function peopleZonesSql(zones: readonly string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT u.id AS user_id,
           CASE WHEN u.timezone = ANY(${[...zones]}::text[]) THEN u.timezone ELSE 'UTC' END AS zone
      FROM users u`;
}
