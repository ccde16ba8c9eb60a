/**
 * An MCP tool is a row of data naming a persisted GraphQL operation (docs/architecture.md section 4);
 * mcp-facade/registry.ts derives everything else from the operation and the kind, once at start.
 * Rows never contain functions or business rules, and names, scopes and kinds are the spec's
 * (docs/spec/mcp-tools.tsv; test/contract/mcp-tools.test.ts holds them to it).
 */
import type { Scope } from '../src/auth/scopes.ts';

/** The kinds of the tool catalogue, spelled as the spec spells them. */
export const TOOL_KINDS = ['read', 'write', 'deletes', 'shares', 'takes a payment'] as const;

export type ToolKind = (typeof TOOL_KINDS)[number];

/**
 * The kinds never offered over OAuth (docs/spec/mcp.md, Authentication 9: assistants connected by
 * OAuth get no checkout or payment tools; buying stays in the phone app and on personal tokens).
 */
export const OAUTH_HIDDEN_KINDS: ReadonlySet<ToolKind> = new Set(['takes a payment']);

/**
 * The door a request came through: `pat`, POST /api/mcp with a personal token; `oauth`, /mcp on the
 * OAuth host (docs/mcp-oauth.md section 10). Both serve the same registry and call path; the OAuth
 * door hides some rows (see `McpTool.oauth`).
 */
export type McpDoor = 'pat' | 'oauth';

export interface McpTool {
  /** the tool name exactly as the spec names it (snake_case) */
  name: string;
  /**
   * the spec's family (a toolset a client can choose: `/api/mcp?toolsets=glucose`); never written in
   * a row: tools.ts sets it from the family the row is listed under
   */
  family?: string;
  /** a short human title for clients' tool pickers (default: from the name, "Get glucose readings") */
  title?: string;
  /**
   * a sentence before the operation's description, for tools sharing one operation with different
   * fixed arguments: what this tool answers (e.g. which score it reads). Descriptions must differ
   * between tools (registry.ts refuses two alike at start).
   */
  description?: string;
  /** persisted operation name, its root field's (src/domains/<domain>/operations/<name>.graphql) */
  operation: string;
  /** every scope the token must hold (all of them) */
  scopes: readonly Scope[];
  kind: ToolKind;
  /** root field of `data` to answer (defaults to the operation's first root field) */
  result?: string;
  /**
   * Whether the tool creates an entry and so takes a required idempotency_key. Derived when absent:
   * see isCreatingTool() in registry.ts; set it only to override the derivation.
   */
  creates?: boolean;
  /** a write that sets state (calling twice equals calling once): idempotentHint true */
  idempotent?: boolean;
  /**
   * answers health data although the spec gives the tool no health: scope (its GraphQL field still
   * requires one): results carry meta.phone_last_sync_at like every health tool
   */
  healthData?: boolean;
  /**
   * arguments the row sets itself (wire names, e.g. `{ kind: 'sleep', order: 'desc' }`): they are
   * left out of the input schema, refused from the caller like any unknown argument, and sent to
   * the operation with every call, so one operation serves several tools
   */
  fixed?: Readonly<Record<string, string | number | boolean>>;
  /**
   * false: never offered over OAuth (not listed at /mcp, and an unknown tool when called there),
   * though a personal token holding its scopes still gets it. Payment tools are hidden over OAuth by
   * their kind already (OAUTH_HIDDEN_KINDS); set this for any other row an assistant connected by
   * OAuth must not reach (e.g. one answering the whole genome, spec Authentication 8).
   */
  oauth?: false;
  /**
   * true: the tool streams its answer's text while it runs (server-sent events): the call is
   * answered as an SSE stream of `notifications/progress` whose `message` is the next piece of
   * text (when the client sent a progressToken), then the result. The operation's service sends
   * the text (src/platform/progress.ts); the row holds no logic.
   */
  stream?: true;
}
