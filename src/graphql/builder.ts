/**
 * The Pothos builder: configuration only. Every root field declares `authScopes` (strategy "all");
 * zod validation failures become VALIDATION_FAILED with the documented detail list; scope failures
 * become UNAUTHENTICATED (no caller), INSUFFICIENT_SCOPE (a token without the scope) or FORBIDDEN
 * (a kind of credential, or a write while viewing another person's data).
 */
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { AuthScopeFailureType } from '@pothos/plugin-scope-auth';
import type { AuthFailure } from '@pothos/plugin-scope-auth';
import ValidationPlugin from '@pothos/plugin-validation';
import { GraphQLError } from 'graphql';
import type { Scope } from '../auth/scopes.ts';
import { credentialHolds, VIEW_AS_READ_ONLY } from '../auth/view-as.ts';
import { appError, errorMessage, validationError } from '../base/errors.ts';
import { isStorableDate } from '../platform/input-guards.ts';
import { dateTimeOfInput, dateTimeOfOutput } from '../platform/local-time.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { AuthedContext, Context } from './context.ts';
import { pydanticIssueType } from './issue-types.ts';
import type { ZodLikeIssue } from './issue-types.ts';

/** True when the failure (or any nested one) is a missing `scope`. */
function missingScope(failure: AuthFailure): string | null {
  if (failure.kind === AuthScopeFailureType.AuthScope && failure.scope === 'scope')
    return String(failure.parameter);
  if (
    failure.kind === AuthScopeFailureType.AllAuthScopes ||
    failure.kind === AuthScopeFailureType.AnyAuthScopes
  ) {
    for (const f of failure.failures) {
      const s = missingScope(f);
      if (s) return s;
    }
  }
  return null;
}

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  DefaultAuthStrategy: 'all';
  AuthScopes: {
    /** anyone, signed in or not (declared so that no root field is public by omission) */
    public: boolean;
    /** any valid credential */
    authenticated: boolean;
    /** the credential holds this scope (login sessions hold all); while viewing as, only read scopes */
    scope: Scope;
    /** a login session (native or web), not a personal token */
    loginSession: boolean;
    /** a native bearer login (phone), not a web cookie and not a personal token */
    nativeSession: boolean;
    admin: boolean;
  };
  AuthContexts: {
    authenticated: AuthedContext;
    scope: AuthedContext;
    loginSession: AuthedContext;
    nativeSession: AuthedContext;
    admin: AuthedContext;
  };
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    /** an uploaded file: multipart over REST and /graphql, a WHATWG File/Blob in process */
    File: { Input: File; Output: never };
    /** an opaque JSON value (sync changes: wire table and column names, passed through as they are) */
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin, ValidationPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    defaultStrategy: 'all',
    authScopes: (ctx) => ({
      public: true,
      authenticated: !!ctx.principal,
      // NOTE: view-as is read-only, enforced here for every field: a write scope fails while viewing.
      scope: (s: Scope) => !!ctx.principal && credentialHolds(ctx.principal, s),
      loginSession: ctx.principal?.kind === 'session',
      nativeSession: ctx.principal?.kind === 'session' && ctx.principal.sessionKind === 'native',
      admin: ctx.principal?.kind === 'session' && ctx.principal.isAdmin,
    }),
    unauthorizedError: (_parent, ctx, _info, result) => {
      if (!ctx.principal) return appError('UNAUTHENTICATED', errorMessage('UNAUTHENTICATED'));
      const scope = missingScope(result.failure);
      const viewAs = ctx.principal.viewAs;
      if (scope && viewAs && ctx.principal.scopes.has(scope as Scope)) {
        return appError('FORBIDDEN', VIEW_AS_READ_ONLY, {
          detail: { code: 'view_as_read_only', grant_id: viewAs.grantId },
        });
      }
      if (scope)
        return appError('INSUFFICIENT_SCOPE', `This token lacks the scope ${scope}`, {
          detail: { code: 'insufficient_scope', scope },
        });
      return appError('FORBIDDEN', 'Not allowed for this kind of credential');
    },
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
  },
  validation: {
    validationError: (result) =>
      validationError(
        result.issues.map((issue) => ({
          loc: (issue.path ?? []).map(
            (p) => (typeof p === 'object' ? (p.key as string | number) : p) as string | number,
          ),
          msg: issue.message,
          type: pydanticIssueType(issue as ZodLikeIssue),
        })),
      ),
  },
});

builder.scalarType('DateTime', {
  description:
    'An ISO-8601 date-time. Without an offset ("2026-11-27T08:00:00", or a date alone) it is the ' +
    "person's local time in their profile time zone. Answers are UTC, except over MCP, where they " +
    "carry the person's offset",
  serialize: (d) => dateTimeOfOutput(d instanceof Date ? d : new Date(d as string)),
  parseValue: (v) => {
    const d = dateTimeOfInput(v);
    if (!d) throw new GraphQLError('DateTime must be an ISO-8601 string');
    if (!isStorableDate(d))
      throw new GraphQLError('DateTime must be between the years 0001 and 9999');
    return d;
  },
});

builder.scalarType('File', {
  description: 'An uploaded file (multipart/form-data); input only',
  serialize: () => {
    throw new GraphQLError('File is an input-only scalar');
  },
  // yoga's multipart parser and the REST facade hand over WHATWG File objects (of either realm)
  parseValue: (v) => {
    const blob = v as Partial<File> | null;
    if (
      blob &&
      typeof blob === 'object' &&
      typeof blob.arrayBuffer === 'function' &&
      typeof blob.size === 'number'
    ) {
      return blob as File;
    }
    throw new GraphQLError('File must be an uploaded file (multipart/form-data)');
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value, passed through as it is (sync changes keep their wire names)',
  serialize: (v) => v,
  parseValue: (v) => v,
});

builder.queryType({});
builder.mutationType({});
