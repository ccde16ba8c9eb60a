/**
 * Per-request DataLoaders: how a graph field resolves an object reference (a meal item's food, ...)
 * with one query for every reference of the request instead of one per object.
 *
 * A domain defines a loader once, in its `<domain>.loaders.ts` (`defineLoader(name, batch)`); each
 * request's context (createContextAs, src/graphql/context.ts) starts with an empty RequestLoaders,
 * which makes the DataLoader of a definition on its first use, bound to that request's context. So
 * a loader's cache never outlives the request, nor crosses callers: the batch function reads as the
 * request's caller (ownership and view-as, as every service does).
 *
 * NOTE: a loader caches for the whole request, mutations included: use loaders for data a request
 * does not change (catalogue foods), not for rows a mutation of the same request may write.
 */
import DataLoader from 'dataloader';

/** A kind of loader: how to fetch the values of many keys at once. */
export interface LoaderDefinition<C, K, V> {
  /** a name for logs and errors, e.g. "foodSummary" */
  readonly name: string;
  /** one value per key, in the order of `keys` (null: nothing visible under that key) */
  readonly batch: (ctx: C, keys: readonly K[]) => Promise<readonly (V | null)[]>;
}

/** Defines a loader; the definition is the key of its per-request DataLoader. */
export function defineLoader<C, K, V>(
  name: string,
  batch: (ctx: C, keys: readonly K[]) => Promise<readonly (V | null)[]>,
): LoaderDefinition<C, K, V> {
  return { name, batch };
}

/** The loaders of one request, made on first use. */
export class RequestLoaders {
  readonly #loaders = new Map<LoaderDefinition<never, unknown, unknown>, unknown>();

  /** The request's DataLoader of `definition`, bound to `ctx` (the request's context). */
  of<C, K, V>(definition: LoaderDefinition<C, K, V>, ctx: C): DataLoader<K, V | null> {
    const key = definition as unknown as LoaderDefinition<never, unknown, unknown>;
    let loader = this.#loaders.get(key) as DataLoader<K, V | null> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V | null>((keys) => definition.batch(ctx, keys));
      this.#loaders.set(key, loader);
    }
    return loader;
  }
}
