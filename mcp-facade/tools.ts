/**
 * Every MCP tool row, by family (the spec's family names, as in docs/spec/mcp-tools.tsv). The families
 * are the toolsets a client can choose (`/api/mcp?toolsets=glucose,nutrition`, registry.ts).
 */
import type { McpTool } from './tool.ts';
import { accessGrantTools } from './tools/access-grants.tools.ts';
import { accountTools } from './tools/account.tools.ts';
import { assistantTools } from './tools/assistant.tools.ts';
import { changeTools } from './tools/changes.tools.ts';
import { consentTools } from './tools/consents.tools.ts';
import { documentTools } from './tools/documents.tools.ts';
import { foodTools } from './tools/foods.tools.ts';
import { glucoseTools } from './tools/glucose.tools.ts';
import { healthTools } from './tools/health.tools.ts';
import { healthArchiveTools } from './tools/health-archive.tools.ts';
import { mediaTools } from './tools/media.tools.ts';
import { memoryTools } from './tools/memory.tools.ts';
import { nutritionTools } from './tools/nutrition.tools.ts';
import { notificationTools } from './tools/notifications.tools.ts';
import { profileTools } from './tools/profile.tools.ts';
import { sensorTools } from './tools/sensors.tools.ts';
import { recordTools } from './tools/records.tools.ts';
import { sessionTools } from './tools/sessions.tools.ts';
import { scoreTools } from './tools/scores.tools.ts';
import { insightTools } from './tools/insights.tools.ts';
import { orderTools } from './tools/orders.tools.ts';
import { deviceTools } from './tools/devices.tools.ts';
import { feedbackTools } from './tools/feedback.tools.ts';
import { bloodPressureTools } from './tools/blood-pressure.tools.ts';
import { logTools } from './tools/logs.tools.ts';
import { sunTools } from './tools/sun.tools.ts';
import { goalTools } from './tools/goals.tools.ts';
import { sleepTools } from './tools/sleep.tools.ts';
import { homeTools } from './tools/home.tools.ts';
import { exportTools } from './tools/export.tools.ts';
import { experimentTools } from './tools/experiments.tools.ts';
import { communityTools } from './tools/community.tools.ts';
import { challengeTools, circleChallengeTools } from './tools/challenges.tools.ts';
import { discoveryTools } from './tools/discovery.tools.ts';
import { dnaTools } from './tools/dna.tools.ts';
import { labsTools } from './tools/labs.tools.ts';

export const TOOL_FAMILIES: Readonly<Record<string, readonly McpTool[]>> = {
  'access-grants': accessGrantTools,
  account: accountTools,
  assistant: assistantTools,
  changes: changeTools,
  consents: consentTools,
  documents: documentTools,
  foods: foodTools,
  glucose: glucoseTools,
  health: [...healthTools, ...healthArchiveTools],
  media: mediaTools,
  memory: memoryTools,
  nutrition: nutritionTools,
  notifications: notificationTools,
  profile: profileTools,
  sensors: sensorTools,
  records: recordTools,
  sessions: sessionTools,
  scores: scoreTools,
  insights: insightTools,
  orders: orderTools,
  devices: deviceTools,
  feedback: feedbackTools,
  'blood-pressure': bloodPressureTools,
  logs: logTools,
  sun: sunTools,
  goals: goalTools,
  sleep: sleepTools,
  home: homeTools,
  export: exportTools,
  experiments: experimentTools,
  community: [...communityTools, ...circleChallengeTools],
  challenges: challengeTools,
  discovery: discoveryTools,
  dna: dnaTools,
  labs: labsTools,
};

/** Every row, each with its family (the toolset a client chooses in its MCP URL, `?toolsets=`). */
export const TOOLS: readonly McpTool[] = Object.entries(TOOL_FAMILIES).flatMap(([family, rows]) =>
  rows.map((row) => ({ ...row, family })),
);
