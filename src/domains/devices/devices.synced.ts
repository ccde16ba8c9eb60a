/**
 * The devices domain's synced table: the CGM sensor sessions a phone wore. Declared with
 * defineSyncedTable (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md). A pushed session obeys bindSensor's rules (issue 47;
 * devices.schema.ts): a serial number that is not blank, at most 100 characters, a sensor type of
 * at most 100, and an expiry after the start.
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import type { SyncIssue } from '../../platform/synced-tables.ts';

/** bindSensor's longest serial number and sensor type. */
const TEXT_MAX = 100;

function checkSession(r: Readonly<Record<string, unknown>>): SyncIssue[] {
  const issues: SyncIssue[] = [];
  const serial = String(r.serial_number).trim();
  if (!serial) issues.push({ wire: 'serial_number', msg: 'serial_number is required' });
  else if (serial.length > TEXT_MAX)
    issues.push({ wire: 'serial_number', msg: `At most ${TEXT_MAX} characters` });
  if (typeof r.sensor_type === 'string' && r.sensor_type.length > TEXT_MAX)
    issues.push({ wire: 'sensor_type', msg: `At most ${TEXT_MAX} characters` });
  if (r.expires_at !== null && (r.expires_at as number) <= (r.started_at as number))
    issues.push({ wire: 'expires_at', msg: 'expires_at must be after started_at' });
  return issues;
}

export const DEVICES_SYNCED_TABLES = [
  // Devices: sensor sessions sync; push tokens do not (a token belongs to whichever account signed in
  // on that phone last, so it moves between accounts, which a synced record never does).
  defineSyncedTable({
    table: 'sensor_sessions',
    sqlTable: 'sensor_sessions',
    model: 'SensorSession',
    since: 3,
    // the CGM sensors a phone wore: read like cgmSensors (sensors_cgm_status_read)
    readScope: 'health:glucose:read',
    writeScope: 'health:logs:write',
    check: checkSession,
    columns: [
      { wire: 'serial_number', db: 'serial_number', type: 'text', notNull: true, required: true },
      { wire: 'sensor_type', db: 'sensor_type', type: 'text' },
      { wire: 'started_at', db: 'started_at', type: 'timestamp_ms', notNull: true, required: true },
      { wire: 'expires_at', db: 'expires_at', type: 'timestamp_ms' },
      {
        wire: 'status',
        db: 'status',
        type: 'text',
        notNull: true,
        default: 'active',
        oneOf: ['active', 'unbound'],
      },
      { wire: 'unbound_at', db: 'unbound_at', type: 'timestamp_ms' },
    ],
  }),
];
