/**
 * Food reads for the admin API (src/domains/admin): the catalogue by source and text, without the
 * personal ranking of the app's search (an admin browses what was imported).
 * NOTE: catalogue rows only (owner_user_id IS NULL): a person's custom foods stay theirs.
 */
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Context } from '../../graphql/context.ts';

export interface CatalogueRowView {
  id: string;
  source: string;
  description: string;
  brand: string | null;
  category: string | null;
  gtin: string | null;
  hasFullNutrients: boolean;
  updatedAt: Date;
}

export interface BrowseCatalogueOptions {
  /** part of the description or brand, case-insensitive */
  search?: string | null;
  /** one source (usda_foundation, usda_branded, open_food_facts) */
  source?: string | null;
  /** foods skipped (by id) */
  offset: number;
  /** foods answered */
  limit: number;
}

/** One page of catalogue foods by id, and how many match. */
export async function browseCatalogue(
  ctx: Context,
  options: BrowseCatalogueOptions,
): Promise<{ total: number; items: CatalogueRowView[] }> {
  const where: Prisma.FoodWhereInput = { ownerUserId: null };
  if (options.source) where.source = options.source;
  if (options.search) where.searchText = { contains: options.search.toLowerCase() };
  const [total, items] = await Promise.all([
    ctx.prisma.food.count({ where }),
    ctx.prisma.food.findMany({
      where,
      orderBy: { id: 'asc' },
      skip: options.offset,
      take: options.limit,
      select: {
        id: true,
        source: true,
        description: true,
        brand: true,
        category: true,
        gtin: true,
        hasFullNutrients: true,
        updatedAt: true,
      },
    }),
  ]);
  return { total, items };
}
