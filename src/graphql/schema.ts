/** The schema: imports every domain module (for their side effects on the builder), then builds. */
import { builder } from './builder.ts';
import '../domains/account/account.schema.ts';
import '../domains/sharing/sharing.schema.ts';
import '../domains/tokens/tokens.schema.ts';
import '../domains/oauth/oauth.schema.ts';
import '../domains/consents/consents.schema.ts';
import '../domains/outreach/outreach.schema.ts';
import '../domains/payments/payments.schema.ts';
import '../domains/monitor/monitor.schema.ts';
import '../domains/feedback/feedback.schema.ts';
import '../domains/identity/identity.schema.ts';
import '../domains/profile/profile.schema.ts';
import '../domains/health/health.schema.ts';
import '../domains/devices/devices.schema.ts';
import '../domains/glucose/glucose.schema.ts';
import '../domains/sync/sync.schema.ts';
import '../domains/meals/meals.schema.ts';
import '../domains/foods/foods.schema.ts';
import '../domains/insights/insights.schema.ts';
import '../domains/ai/ai.schema.ts';
import '../domains/ai/ai.analyze.schema.ts';
import '../domains/assistant/assistant.schema.ts';
import '../domains/notifications/notifications.schema.ts';
// the dashboard graph: the person's data as fields of `me` (docs/graphql.md)
import '../domains/meals/meals.graph.ts';
import '../domains/glucose/glucose.graph.ts';
import '../domains/health/health.graph.ts';
import '../domains/sharing/sharing.graph.ts';
import '../domains/account/account.graph.ts';
import '../domains/tokens/tokens.graph.ts';
import '../domains/consents/consents.graph.ts';
import '../domains/outreach/outreach.graph.ts';
import '../domains/monitor/monitor.graph.ts';
import '../domains/feedback/feedback.graph.ts';
import '../domains/admin/admin.schema.ts';
import './references.ts';

export const schema = builder.toSchema({ sortSchema: true });
