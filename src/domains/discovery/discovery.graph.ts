/**
 * Discovery in the dashboard graph (docs/graphql.md): `User.discoveryObservations` (the last 30
 * days of observations, newest first) and `User.discoveryFindings` (the associations the latest
 * run found), as connections with the root fields' scope. The person's data: a grantee viewing as
 * reads the owner's.
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOfList } from '../../graphql/connection.ts';
import { assertPersonData } from '../../graphql/person.ts';
import { discoveryObservations } from './discovery.observations.ts';
import { HYPOTHESES_PAGE_MAX, OBSERVATIONS_PAGE_MAX } from './discovery.rules.ts';
import { discoveryHypotheses } from './discovery.runs.ts';
import { Hypothesis, Observation } from './discovery.schema.ts';

const ObservationConnection = connectionOf('DiscoveryObservation', Observation);
const FindingConnection = connectionOf('DiscoveryHypothesis', Hypothesis);

builder.prismaObjectFields('User', (t) => ({
  discoveryObservations: t.withAuth({ scope: 'discovery:read' }).field({
    type: ObservationConnection,
    nullable: true,
    description: 'Observations of the last 30 days, newest first',
    args: pageArgs(t.arg),
    resolve: async (user, args, ctx) => {
      assertPersonData(ctx, user);
      const view = await discoveryObservations(ctx, { limit: OBSERVATIONS_PAGE_MAX });
      return pageOfList(view.observations, args, (o) => o.id);
    },
  }),
  discoveryFindings: t.withAuth({ scope: 'discovery:read' }).field({
    type: FindingConnection,
    nullable: true,
    description: 'The associations the latest discovery run found (q <= 0.1)',
    args: pageArgs(t.arg),
    resolve: async (user, args, ctx) => {
      assertPersonData(ctx, user);
      const view = await discoveryHypotheses(ctx, { limit: HYPOTHESES_PAGE_MAX });
      return pageOfList(view.hypotheses, args, (h) => h.id);
    },
  }),
}));
