/**
 * The devices domain's synced table: the CGM sensor sessions a phone wore. Declared with
 * defineSyncedTable (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md).
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';

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
