/** Product interests: a signed-in person's interest in a product, one row per person and product. */
import type { AuthedContext } from '../../graphql/context.ts';

/** The products one can be interested in (the schema's ProductKey). */
export const PRODUCT_KEYS = ['kit', 'premium', 'coach'] as const;
export type ProductKey = (typeof PRODUCT_KEYS)[number];

export interface ProductInterestView {
  id: number;
  product: string;
  note: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface RecordInterestOptions {
  /** the product */
  product: ProductKey;
  /** the person's note (bounded by the schema); a repeat replaces it */
  note?: string | null;
}

const VIEW = { id: true, product: true, note: true, createdAt: true, updatedAt: true } as const;

/** Records the caller's interest in a product; idempotent (a repeat updates the note only). */
export async function recordProductInterest(
  ctx: AuthedContext,
  options: RecordInterestOptions,
): Promise<ProductInterestView> {
  const userId = ctx.principal.userId;
  const note = options.note ?? null;
  return ctx.prisma.productInterest.upsert({
    where: { userId_product: { userId, product: options.product } },
    create: { userId, product: options.product, note },
    update: { note },
    select: VIEW,
  });
}

/** The caller's product interests, oldest first. */
export async function productInterests(ctx: AuthedContext): Promise<ProductInterestView[]> {
  return ctx.prisma.productInterest.findMany({
    where: { userId: ctx.principal.userId },
    orderBy: { id: 'asc' },
    select: VIEW,
  });
}
