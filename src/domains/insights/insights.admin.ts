/**
 * Insights for the admin API (src/domains/admin): one person's insights computed now, exactly as
 * the person would see them; computing them records the cards and suggestions that fire as the
 * person's insights, as the person's own reads do (insights.feed.ts).
 * NOTE: reads another person's data: only the admin trigger field (`t.withAuth({ admin: true })`)
 * calls it, and that field writes an audit entry first.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { insightCards, insightSuggestions } from './insights.service.ts';
import type { SuggestionsView, ZonedInsightCard } from './insights.service.ts';
import { clock } from '../../base/clock.ts';

export interface PersonInsightsView {
  userId: number;
  generatedAt: Date;
  cards: ZonedInsightCard[];
  suggestions: SuggestionsView;
}

/**
 * Today's cards and suggestions of `userId`, read as a read-only view of that person (the same
 * mechanism as a grantee's view-as: every insights read goes through readerUserId).
 */
export async function insightsOfPerson(
  ctx: AuthedContext,
  userId: number,
): Promise<PersonInsightsView> {
  const asPerson: AuthedContext = {
    ...ctx,
    principal: { ...ctx.principal, viewAs: { grantId: 0, ownerId: userId } },
  };
  const [cards, suggestions] = await Promise.all([
    insightCards(asPerson),
    insightSuggestions(asPerson),
  ]);
  return { userId, generatedAt: clock.now(), cards, suggestions };
}
