/** The schema: imports every domain module (for their side effects on the builder), then builds. */
import { builder } from './builder.ts';
import '../domains/account/account.schema.ts';
import '../domains/sharing/sharing.schema.ts';
import '../domains/tokens/tokens.schema.ts';
import '../domains/consents/consents.schema.ts';
import '../domains/identity/identity.schema.ts';
import '../domains/profile/profile.schema.ts';
import '../domains/health/health.schema.ts';
import '../domains/devices/devices.schema.ts';
import '../domains/glucose/glucose.schema.ts';
import '../domains/sync/sync.schema.ts';
import '../domains/meals/meals.schema.ts';
import '../domains/foods/foods.schema.ts';
import '../domains/insights/insights.schema.ts';

export const schema = builder.toSchema({ sortSchema: true });
