/**
 * Opens the local-time scope (src/platform/local-time.ts) around one execution: an offset-less
 * date-time in the request is read in the person's profile zone, and an MCP answer writes its times
 * with the person's offset. The zone is read only when the request needs it (an MCP call, or a
 * request that holds an offset-less date), so other requests pay nothing.
 */
import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { personZone } from '../domains/profile/index.ts';
import { localTimeScope, mentionsOffsetless, type LocalTimeScope } from '../platform/local-time.ts';
import type { AuthedContext, Context } from '../graphql/context.ts';

/**
 * The scope for a request by `ctx` with these variables (and document text, for yoga's literals);
 * null when nothing in it depends on the zone. Without a principal there is no person: UTC.
 */
export async function localTimeScopeFor(
  ctx: Context,
  variables: unknown,
  documentText?: string,
): Promise<LocalTimeScope | null> {
  const writeOffsets = ctx.via === 'mcp';
  if (!ctx.principal) return null;
  if (!writeOffsets && !mentionsOffsetless(variables) && !mentionsOffsetless(documentText))
    return null;
  let zone = 'UTC';
  try {
    zone = await personZone(ctx as AuthedContext);
  } catch {
    // the profile could not be read (a deleted account): times stay UTC and the field decides
  }
  return { zone, writeOffsets };
}

/** `run` inside the request's local-time scope, when it needs one. */
export async function inLocalTime<T>(
  ctx: Context,
  variables: unknown,
  run: () => Promise<T> | T,
): Promise<T> {
  const scope = await localTimeScopeFor(ctx, variables);
  return scope ? localTimeScope.run(scope, run) : run();
}

/** The same for yoga (POST /graphql): variables and the document's own literals. */
export const useLocalTimes: Plugin<Context> = {
  onExecute: async ({ args, executeFn, setExecuteFn }) => {
    const document = args.document as DocumentNode;
    const scope = await localTimeScopeFor(
      args.contextValue,
      args.variableValues,
      document.loc?.source.body,
    );
    if (scope) setExecuteFn((a) => localTimeScope.run(scope, () => executeFn(a) as unknown));
  },
};
