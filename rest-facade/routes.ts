/** Every REST route, in documentation order. */
import type { RestRoute } from './route.ts';
import { accountRoutes } from './routes/account.routes.ts';
import { deviceRoutes } from './routes/devices.routes.ts';
import { foodRoutes } from './routes/foods.routes.ts';
import { healthRoutes } from './routes/health.routes.ts';
import { healthArchiveRoutes } from './routes/health-archive.routes.ts';
import { consentRoutes } from './routes/consents.routes.ts';
import { glucoseRoutes } from './routes/glucose.routes.ts';
import { mealRoutes } from './routes/meals.routes.ts';
import { identityRoutes } from './routes/identity.routes.ts';
import { profileRoutes } from './routes/profile.routes.ts';
import { sharingRoutes } from './routes/sharing.routes.ts';
import { syncRoutes } from './routes/sync.routes.ts';
import { tokenRoutes } from './routes/tokens.routes.ts';
import { oauthRoutes } from './routes/oauth.routes.ts';
import { insightRoutes } from './routes/insights.routes.ts';
import { outreachRoutes } from './routes/outreach.routes.ts';
import { adminNotificationRoutes } from './routes/admin-notifications.routes.ts';
import { paymentRoutes } from './routes/payments.routes.ts';
import { monitorRoutes } from './routes/monitor.routes.ts';
import { adminRoutes } from './routes/admin.routes.ts';
import { logsRoutes } from './routes/logs.routes.ts';
import { goalRoutes } from './routes/goals.routes.ts';
import { snoringRoutes } from './routes/snoring.routes.ts';
import { homeRoutes } from './routes/home.routes.ts';
import { exportRoutes } from './routes/export.routes.ts';
import { experimentRoutes } from './routes/experiments.routes.ts';
import { nutritionPreviewRoutes } from './routes/nutrition-preview.routes.ts';
import { nutritionRoutes } from './routes/nutrition.routes.ts';
import { communityRoutes } from './routes/community.routes.ts';
import { challengeRoutes } from './routes/challenges.routes.ts';
import { discoveryRoutes } from './routes/discovery.routes.ts';
import { dnaRoutes } from './routes/dna.routes.ts';
import { labsRoutes } from './routes/labs.routes.ts';

export const ROUTES: readonly RestRoute[] = [
  ...syncRoutes,
  ...accountRoutes,
  ...identityRoutes,
  ...profileRoutes,
  ...sharingRoutes,
  ...tokenRoutes,
  ...oauthRoutes,
  ...consentRoutes,
  ...deviceRoutes,
  ...healthRoutes,
  ...healthArchiveRoutes,
  ...glucoseRoutes,
  ...mealRoutes,
  ...foodRoutes,
  ...insightRoutes,
  ...outreachRoutes,
  ...paymentRoutes,
  ...monitorRoutes,
  ...goalRoutes,
  ...snoringRoutes,
  ...homeRoutes,
  ...adminRoutes,
  ...adminNotificationRoutes,
  ...logsRoutes,
  ...exportRoutes,
  ...experimentRoutes,
  ...nutritionPreviewRoutes,
  ...nutritionRoutes,
  ...communityRoutes,
  ...challengeRoutes,
  ...discoveryRoutes,
  ...dnaRoutes,
  ...labsRoutes,
];
